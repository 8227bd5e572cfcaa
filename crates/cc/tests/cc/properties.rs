//! Invariants of every controller under random interleavings of sends,
//! ACKs, losses, CE marks, persistent congestion, spurious-loss undos and
//! MTU changes, in both call orders (RFC 9002 and quinn).

use crate::support;

use std::time::Duration;

use proptest::prelude::*;
use ramp_cc::{Controller, LossBasedState};
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

/// Applies one operation; returns whether it declared persistent congestion
/// (a loss event with the flag set, which needs something outstanding).
fn apply(d: &mut Driver, op: &Op, mds: &mut u64) -> bool {
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
            return !lost.is_empty();
        }
        Op::Spurious => d.cc.on_spurious_congestion(d.now),
        Op::Advance(us) => d.advance(Duration::from_micros(us)),
        Op::Mtu(m) => {
            // Datagram sizes only grow on a path (PMTUD); 1200 is the floor.
            *mds = (*mds).max(m);
            d.cc.on_mtu_update(*mds);
        }
    }
    false
}

/// The state-machine check: an ordinary edge, or the reset that persistent
/// congestion allows from anywhere (RFC 9002 §7.6.2).
fn legal(from: LossBasedState, to: LossBasedState, persistent: bool) -> bool {
    from.can_transition_to(to)
        || (persistent && LossBasedState::can_follow_persistent_congestion(to))
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
            let persistent = apply(&mut d, op, &mut mds);
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
                legal(state, next, persistent),
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The same invariants for any spec the grammar can express.
    #[test]
    fn any_spec_keeps_its_invariants(
        spec in support::arb::spec(),
        quinn in any::<bool>(),
        ops in proptest::collection::vec(op(), 1..120),
    ) {
        let order = if quinn { Order::Quinn } else { Order::Rfc };
        let mut d = Driver::new(&spec.to_string()).with_order(order);
        let mut mds = 1200u64;
        let mut state = d.cc.state();
        for op in &ops {
            let persistent = apply(&mut d, op, &mut mds);
            let w = d.cc.window();
            prop_assert!(w >= 2 * mds && w < 1 << 50, "{spec}: window {w} after {op:?}");
            if let Some(r) = d.cc.pacing_rate(&d.rtt) {
                prop_assert!(r.bytes_per_sec() > 0, "{spec}: zero pacing rate");
            }
            let next = d.cc.state();
            prop_assert!(legal(state, next, persistent), "{spec}: {state:?} -> {next:?} on {op:?}");
            state = next;
        }
    }
}

#[test]
fn legal_edges_are_not_everything() {
    use LossBasedState::*;
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

/// The generator must reach every state, or the invariants above prove
/// little. A fixed-seed walk over the same operations.
#[test]
fn random_walks_visit_every_state() {
    use std::collections::BTreeSet;
    let mut seen = BTreeSet::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for spec in SPECS {
        for _ in 0..40 {
            let mut d = Driver::new(spec);
            let mut mds = 1200;
            for _ in 0..200 {
                let op = match next(20) {
                    0..=3 => Op::Send(1 + next(30)),
                    4..=10 => Op::Ack {
                        count: 1 + next(8) as usize,
                        skip: 0,
                        app_limited: false,
                    },
                    11 => Op::Lose {
                        count: 1 + next(3) as usize,
                        skip: next(3) as usize,
                    },
                    12 => Op::Ce,
                    13 if next(8) == 0 => Op::Persistent,
                    14 => Op::Spurious,
                    _ => Op::Advance(if next(4) == 0 {
                        40_000
                    } else {
                        30_000 + next(20_000)
                    }),
                };
                apply(&mut d, &op, &mut mds);
                seen.insert(d.cc.state());
            }
        }
    }
    let all = [
        LossBasedState::SlowStart,
        LossBasedState::JumpStart,
        LossBasedState::RapidGrowth,
        LossBasedState::RapidSlowStart,
        LossBasedState::ConservativeSlowStart,
        LossBasedState::RapidRecovery,
        LossBasedState::Recovery,
        LossBasedState::CongestionAvoidance,
    ];
    for s in all {
        assert!(seen.contains(&s), "never reached {s:?}; saw {seen:?}");
    }
}

/// Beyond [`SPECS`]: the algorithms and startups with per-packet work
/// of their own (Prague's α, Careful Resume, quicly's CC-limited rule).
const BATCH_EXTRA: &[&str] = &[
    "prague",
    "jumpstart(retreat=on,retreat_beta=quicly)",
    "cubic+jumpstart(retreat=on,retreat_beta=ca)",
    "newreno(cc_limited=quicly)",
    "cubic(cc_limited=always)+rapidstart",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A frame's acknowledgements in one `on_packets_acked` call leave
    /// every controller exactly as one `on_packet_acked` call each: the
    /// same state after every operation, in both call orders.
    #[test]
    fn acks_in_one_call_equal_one_call_each(
        which in 0..SPECS.len() + BATCH_EXTRA.len(),
        quinn in any::<bool>(),
        ops in proptest::collection::vec(op(), 1..160),
    ) {
        let order = if quinn { Order::Quinn } else { Order::Rfc };
        let spec = SPECS.iter().chain(BATCH_EXTRA).nth(which).copied().unwrap_or("newreno");
        let mut each = Driver::new(spec).with_order(order);
        let mut batch = Driver::new(spec).with_order(order);
        batch.batch_acks = true;
        let (mut mds_each, mut mds_batch) = (1200u64, 1200u64);
        for op in &ops {
            apply(&mut each, op, &mut mds_each);
            apply(&mut batch, op, &mut mds_batch);
            prop_assert_eq!(
                format!("{:?}", batch.cc),
                format!("{:?}", each.cc),
                "{}: states differ after {:?}", spec, op
            );
            prop_assert_eq!(batch.cc.pacing_rate(&batch.rtt), each.cc.pacing_rate(&each.rtt));
        }
    }
}
