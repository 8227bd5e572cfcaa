//! quicly's millisecond clock and its jump's first packet, as options of
//! the loss-based family (h2o/quicly 45bf8a37): `pacing_rtt=ms` paces over
//! the smoothed RTT quicly computes from whole-millisecond timestamps
//! (include/quicly/loss.h `quicly_rtt_update`, lib/defaults.c
//! `default_now`), and `jump_after=N` counts the first N packets sent after
//! the jump window is set as sent before the jump (lib/quicly.c enters the
//! jump once the caller's send buffer first fills; src/cli.c sends 10
//! packets a call).

use std::time::Duration;

use ramp_cc::{Controller, LossBasedState, Rate};

use crate::support::{ms, Driver, MDS};

/// The slow-start pacing rate after one packet sent at `sent_us` and
/// acknowledged `rtt_us` later.
fn rate_after_one_sample(spec: &str, sent_us: u64, rtt_us: u64) -> (u64, u64) {
    let mut d = Driver::new(spec);
    d.advance(Duration::from_micros(sent_us));
    let pn = d.send(1);
    d.advance(Duration::from_micros(rtt_us));
    d.ack(&pn);
    let cwnd = d.window();
    let rate = d.cc.pacing_rate(&d.rtt).map_or(0, |r| r.bytes_per_sec());
    (cwnd, rate)
}

#[test]
fn quicly_pacing_rtt_ms_divides_by_the_whole_ms_smoothed_rtt() {
    // 30.2 ms, sent at 0.9 ms: acknowledged at 31.1 ms, 31 − 0 = 31 ms on
    // quicly's clock.
    let (cwnd, exact) = rate_after_one_sample("newreno", 900, 30_200);
    let (cwnd_ms, whole) = rate_after_one_sample("newreno(pacing_rtt=ms)", 900, 30_200);
    assert_eq!(cwnd, cwnd_ms);
    let over = |srtt: Duration| {
        Rate::from_bytes_over(cwnd, srtt)
            .scaled(2, 1)
            .bytes_per_sec()
    };
    assert_eq!(exact, over(Duration::from_micros(30_200)));
    assert_eq!(whole, over(ms(31)));
    // The same RTT sent at 0.5 ms: acknowledged at 30.7 ms, 30 − 0 = 30.
    let (_, whole_early) = rate_after_one_sample("newreno(pacing_rtt=ms)", 500, 30_200);
    assert_eq!(whole_early, over(ms(30)));
}

#[test]
fn quicly_pacing_rtt_ms_and_jump_after_are_named_unless_default() {
    let name = |s: &str| Driver::new(s).cc.name();
    assert_eq!(name("newreno(pacing_rtt=exact,jump_after=0)"), "newreno");
    assert_eq!(
        name("newreno(pacing_rtt=ms,jump_after=10)+jumpstart"),
        "jumpstart(pacing_rtt=ms,jump_after=10)"
    );
    let parse = |s: &str| s.parse::<ramp_cc::spec::ControllerSpec>();
    assert!(parse("newreno(jump_after=101)").is_err());
    assert!(parse("newreno(pacing_rtt=us)").is_err());
}

/// The first packet whose ACK ends the jump (leaves `JumpStart`) after
/// `jump_after` packets of the jump window's first call.
fn first_flight_ends_at(spec: &str) -> usize {
    let mut d = Driver::jumped(spec);
    let pns = d.send(6);
    d.advance(ms(30));
    for (i, pn) in pns.iter().enumerate() {
        d.ack(&[*pn]);
        if d.cc.state() != LossBasedState::JumpStart {
            return i;
        }
    }
    usize::MAX
}

#[test]
fn quicly_jump_after_counts_the_first_calls_packets_as_sent_before_the_jump() {
    assert_eq!(first_flight_ends_at("newreno+jumpstart"), 0);
    assert_eq!(first_flight_ends_at("newreno(jump_after=3)+jumpstart"), 3);
    // The packets before the jump's first one do not grow the window while
    // the jump is out (their ACKs are the initial window's).
    let mut d = Driver::jumped("newreno(jump_after=3)+jumpstart");
    let pns = d.send(3);
    d.advance(ms(30));
    let before = d.window();
    d.ack(&pns);
    assert_eq!(d.window(), before);
    assert_eq!(before, 20 * MDS);
}
