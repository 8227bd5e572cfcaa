//! HyStart++, RFC 9406 §4.2–§4.3, driven round by round.
//!
//! Round bookkeeping in the driver: each `round(n, rtt)` sends a flight and
//! acks it packet by packet; the first ack of a flight ends the previous
//! round, so a round's samples are exactly one flight's.

use crate::support;

use ramp_cc::hystart::{CSS_ROUNDS, N_RTT_SAMPLE};
use ramp_cc::{Controller, LossBasedState};
use support::{ms, Driver, MDS};

/// Two flights at 100 ms, then one at `rtt`: returns the driver after it.
fn rise_to(spec: &str, rtt_us: u64) -> Driver {
    let mut d = Driver::new(spec);
    d.round(10, ms(100));
    d.round(10, ms(100));
    d.round(10, std::time::Duration::from_micros(rtt_us));
    d
}

#[test]
fn rfc9406_4_2_enters_css_when_rtt_rises_past_threshold() {
    // lastRoundMinRTT 100 ms → RttThresh = clamp(12.5 ms, 4, 16) = 12.5 ms.
    let d = rise_to("newreno+hystart", 112_500);
    assert_eq!(d.cc.state(), LossBasedState::ConservativeSlowStart);
    let d = rise_to("newreno+hystart", 112_499);
    assert_eq!(d.cc.state(), LossBasedState::SlowStart);
}

#[test]
fn rfc9406_4_2_threshold_clamps_at_4_and_16_ms() {
    // 10 ms last-round minimum → 1.25 ms, clamped up to 4 ms.
    for (base, rise, css) in [
        (10, 3_900, false),
        (10, 4_000, true),
        (200, 16_000, true),
        (200, 15_900, false),
    ] {
        let mut d = Driver::new("cubic+hystart");
        d.round(10, ms(base));
        d.round(10, ms(base));
        d.round(10, std::time::Duration::from_micros(base * 1000 + rise));
        assert_eq!(
            d.cc.state() == LossBasedState::ConservativeSlowStart,
            css,
            "base {base} ms, rise {rise} µs"
        );
    }
}

#[test]
fn rfc9406_4_2_needs_n_rtt_sample_samples_in_the_round() {
    assert_eq!(N_RTT_SAMPLE, 8);
    let mut d = Driver::new("newreno+hystart");
    d.round(10, ms(100));
    d.round(10, ms(100));
    let pns = d.send(10);
    d.advance(ms(130));
    d.ack_each(&pns[..7]);
    assert_eq!(
        d.cc.state(),
        LossBasedState::SlowStart,
        "7 samples are not enough"
    );
    d.ack(&pns[7..8]);
    assert_eq!(d.cc.state(), LossBasedState::ConservativeSlowStart);
}

#[test]
fn rfc9406_4_3_css_grows_by_a_quarter() {
    let mut d = rise_to("newreno+hystart", 130_000);
    assert_eq!(d.cc.state(), LossBasedState::ConservativeSlowStart);
    let pns = d.send(8);
    d.advance(ms(130));
    let before = d.window();
    d.ack(&pns[..4]);
    assert_eq!(d.window(), before + 4 * MDS / 4);
}

#[test]
fn rfc9406_4_3_returns_to_slow_start_when_rtt_falls_back() {
    let mut d = rise_to("newreno+hystart", 130_000);
    assert_eq!(d.cc.state(), LossBasedState::ConservativeSlowStart);
    // Next round: the minimum falls below the CSS baseline (130 ms).
    d.round(10, ms(129));
    assert_eq!(d.cc.state(), LossBasedState::SlowStart);
    assert_eq!(d.cc.ssthresh(), None);
}

#[test]
fn rfc9406_4_3_css_rounds_then_congestion_avoidance_partial_round_counts() {
    assert_eq!(CSS_ROUNDS, 5);
    let mut d = rise_to("cubic+hystart", 130_000);
    assert_eq!(d.cc.state(), LossBasedState::ConservativeSlowStart);
    // CSS was entered mid-round (at the 8th ack); that round ends at the
    // first ack of the next flight and counts as round 1.
    for _ in 0..4 {
        d.round(10, ms(130));
        assert_eq!(d.cc.state(), LossBasedState::ConservativeSlowStart);
    }
    let pns = d.send(10);
    d.advance(ms(130));
    d.ack(&pns[..1]);
    assert_eq!(
        d.cc.state(),
        LossBasedState::CongestionAvoidance,
        "5th round end"
    );
    assert_eq!(d.cc.ssthresh(), Some(d.window()));
    assert_eq!(
        d.cc.metrics().cwnd_exiting_slow_start_bytes,
        Some(d.window())
    );
}

#[test]
fn rfc9406_4_2_only_the_initial_slow_start() {
    let mut d = Driver::new("newreno+hystart");
    let pns = d.send(10);
    d.advance(ms(100));
    d.ack(&pns[..2]);
    d.advance(ms(1000));
    d.frame(&[], &pns[2..], false, true, false);
    assert_eq!(d.cc.state(), LossBasedState::SlowStart);
    d.round(2, ms(100));
    d.round(10, ms(100));
    d.round(10, ms(100));
    d.round(10, ms(150));
    assert_ne!(d.cc.state(), LossBasedState::ConservativeSlowStart);
}

#[test]
fn rfc9406_4_3_unpaced_growth_limited_to_l_packets_per_ack() {
    let mut d = Driver::new("newreno(pacing=off)+hystart");
    let pns = d.send(10);
    d.advance(ms(100));
    let before = d.window();
    d.ack(&pns);
    assert_eq!(d.window(), before + 8 * MDS, "L = 8 when not paced");
}
