//! Invariants of every controller under random interleavings of sends,
//! ACKs, losses, CE marks, persistent congestion, spurious-loss undos and
//! MTU changes, in both call orders (RFC 9002 and quinn).

mod support;

use std::time::Duration;

use proptest::prelude::*;
use ramp_cc::{CcState, Controller};
use support::{Driver, Order};

/// Every controller family with the options that change its code paths.
const SPECS: &[&str] = &[
    "newreno",
    "cubic",
    "newreno+hystart",
    "cubic+hystart",
    "rapidstart",
    "cubic+rapidstart",
    "rapidstart(beta=0.7,jump=on)",
    "rapidstart(jump=off,latch_2x=on,iw_floor=on)",
    "rapidstart(defer=off,rtt_floor=current)",
    "rapidstart+hystart",
    "cubic+rapidstart+hystart",
    "jumpstart",
    "cubic+jumpstart",
    "jumpstart(defer=off)+hystart",
    "newreno(iw=32,pacing=off)",
    "cubic(conns=2,fast_convergence=on,iw=10)",
    "newreno(prr=on)",
    "cubic(prr=crb,undo=on)",
    "newreno(prr=ssrb,undo=on)+hystart",
    "cubic(pacing=off)+rapidstart(iw=30,gain=2)",
    "newreno(undo=on,iw=1)",
    "rapidstart(send_one=on)+hystart",
    "cubic(send_one=on,prr=on)",
];

#[derive(Clone, Debug)]
enum Op {
    Send(u64),
    Ack {
        count: usize,
        skip: usize,
        app_limited: bool,
    },
    Lose {
        count: usize,
        skip: usize,
    },
    Ce,
    Persistent,
    Spurious,
    Advance(u64),
    Mtu(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u64..40).prop_map(Op::Send),
        6 => (1usize..12, 0usize..4, proptest::bool::weighted(0.1))
            .prop_map(|(count, skip, app_limited)| Op::Ack { count, skip, app_limited }),
        2 => (1usize..6, 0usize..6).prop_map(|(count, skip)| Op::Lose { count, skip }),
        1 => Just(Op::Ce),
        1 => Just(Op::Persistent),
        1 => Just(Op::Spurious),
        4 => (0u64..300_000).prop_map(Op::Advance),
        1 => (1200u64..1500).prop_map(Op::Mtu),
    ]
}

fn apply(d: &mut Driver, op: &Op, mds: &mut u64) {
    let out = d.outstanding();
    match *op {
        Op::Send(n) => {
            d.send(n);
        }
        Op::Ack {
            count,
            skip,
            app_limited,
        } => {
            let acked: Vec<u64> = out.iter().skip(skip).take(count).copied().collect();
            d.frame(&acked, &[], false, false, app_limited);
        }
        Op::Lose { count, skip } => {
            let lost: Vec<u64> = out.iter().skip(skip).take(count).copied().collect();
            d.lose(&lost);
        }
        Op::Ce => {
            let acked: Vec<u64> = out.iter().take(1).copied().collect();
            d.frame(&acked, &[], true, false, false);
        }
        Op::Persistent => {
            let lost: Vec<u64> = out.iter().take(3).copied().collect();
            d.frame(&[], &lost, false, true, false);
        }
        Op::Spurious => d.cc.on_spurious_congestion(d.now),
        Op::Advance(us) => d.advance(Duration::from_micros(us)),
        Op::Mtu(m) => {
            // Datagram sizes only grow on a path (PMTUD); 1200 is the floor.
            *mds = (*mds).max(m);
            d.cc.on_mtu_update(*mds);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_controller_keeps_its_invariants(
        which in 0..SPECS.len(),
        quinn in any::<bool>(),
        ops in proptest::collection::vec(op(), 1..160),
    ) {
        let order = if quinn { Order::Quinn } else { Order::Rfc };
        let mut d = Driver::new(SPECS[which]).with_order(order);
        let mut mds = 1200u64;
        let mut state = d.cc.state();
        for op in &ops {
            apply(&mut d, op, &mut mds);
            let w = d.cc.window();
            prop_assert!(w >= 2 * mds, "{}: window {w} < minimum after {op:?}", SPECS[which]);
            prop_assert!(w < 1 << 50, "{}: window {w} ran away after {op:?}", SPECS[which]);
            if let Some(ss) = d.cc.ssthresh() {
                prop_assert!(ss >= 2 * 1200, "ssthresh {ss} below the minimum window");
            }
            if let Some(r) = d.cc.pacing_rate(&d.rtt) {
                prop_assert!(r.bytes_per_sec() > 0, "{}: zero pacing rate", SPECS[which]);
            }
            let next = d.cc.state();
            prop_assert!(
                state.can_transition_to(next),
                "{}: illegal transition {state:?} -> {next:?} on {op:?}", SPECS[which]
            );
            state = next;
            let m = d.cc.metrics();
            prop_assert_eq!(m.cwnd_bytes, w);
            prop_assert!(m.num_ecn_loss_episodes <= m.num_loss_episodes);
            prop_assert!(m.pacing_rate.is_none_or(|r| r.bytes_per_sec() > 0));
        }
    }
}

#[test]
fn legal_edges_are_not_everything() {
    use CcState::*;
    // The relation must be able to reject: these never happen.
    for (a, b) in [
        (CongestionAvoidance, RapidGrowth),
        (CongestionAvoidance, JumpStart),
        (Recovery, RapidRecovery),
        (RapidRecovery, RapidGrowth),
        (ConservativeSlowStart, JumpStart),
        (Recovery, ConservativeSlowStart),
    ] {
        assert!(!a.can_transition_to(b), "{a:?} -> {b:?}");
    }
}
