//! quicly's pacer (h2o/quicly include/quicly/pacer.h at 45bf8a37) in the
//! simulator: chosen by the endpoint (`pacer = "quicly"`) or by the arm's
//! spec (`pacer=quicly`, the seed arms), which overrides the endpoint.

use crate::common::*;
use ramp_cc::pacer::PacerKind;
use ramp_sim::Scenario;

/// Send times (µs) of the first `n` 1-RTT packets.
fn first_sends(sc: &Scenario, cc: &str, n: usize) -> Vec<u64> {
    let t = run_traced(sc, cc, 1);
    app_sent(&t.events())
        .iter()
        .take(n)
        .map(|e| t_us(e))
        .collect()
}

#[test]
fn quicly_send_seed_arm_first_flight_is_ten_packets_then_pairs() {
    // seed-100m: IW 30 in quicly's unit (44,160 B) at 2·cwnd/srtt, about
    // 2.4 packets of 1,252 B per ms: 10 packets at once, then grants of 2
    // (3 when the rounded-down wait leaves more credit) on whole
    // milliseconds of quicly's clock, the first at the next millisecond.
    let sc = scenario("seed-100m");
    let t = first_sends(&sc, ramp_cc::spec::SEED_ARMS[0].1, 30);
    assert!(t[..10].iter().all(|&x| x == t[0]), "{t:?}");
    assert!(t[10] > t[0] && t[10].is_multiple_of(1_000), "{t:?}");
    let mut grants: Vec<(u64, usize)> = Vec::new();
    for &x in &t[10..] {
        match grants.last_mut() {
            Some((g, n)) if *g == x => *n += 1,
            _ => grants.push((x, 1)),
        }
    }
    let (last, _) = grants.pop().expect("grants");
    assert!(grants.iter().all(|&(_, n)| (2..=3).contains(&n)), "{t:?}");
    assert!(grants.iter().all(|&(g, _)| g % 1_000 == 0), "{t:?}");
    // 20 packets at about 2 per ms.
    assert!((8_000..=12_000).contains(&(last - t[10])), "{t:?}");
}

#[test]
fn an_arms_pacer_overrides_the_endpoints() {
    let sc = scenario("seed-100m");
    // The endpoint's leaky bucket spaces the first flight from its first
    // packet; the arm's quicly pacer lets 10 out at once.
    let leaky = first_sends(&sc, "newreno(iw=30)", 10);
    let quicly = first_sends(&sc, "newreno(iw=30,pacer=quicly)", 10);
    assert!(leaky[1] > leaky[0], "{leaky:?}");
    assert!(quicly.iter().all(|&x| x == quicly[0]), "{quicly:?}");
    // And `pacer=leaky` on an arm restores the leaky bucket on an endpoint
    // set to quicly's.
    let q = Scenario::from_toml(
        "preset = \"seed-100m\"\n[endpoint]\npacer = \"quicly\"\n",
        "quicly-endpoint",
    )
    .unwrap();
    assert_eq!(q.endpoint.pacer, PacerKind::Quicly);
    assert_eq!(first_sends(&q, "newreno(iw=30)", 10), quicly);
    assert_eq!(first_sends(&q, "newreno(iw=30,pacer=leaky)", 10), leaky);
    let e = Scenario::from_toml("[endpoint]\npacer = \"quick\"\n", "bad")
        .unwrap_err()
        .to_string();
    assert!(e.contains("use leaky-bucket, quinn, quicly, off"), "{e}");
}
