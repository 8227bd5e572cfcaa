//! The gate alone: the leaky bucket, the window test and the grants of
//! a GSO batch, asked as quinn asks.

use super::*;

const MDS: u64 = 1200;

fn ms(v: u64) -> Time {
    Time::from_millis(v)
}

#[test]
fn the_first_datagram_leaves_then_the_rate_spaces_the_rest() {
    // 24 packets per 40 ms: one every 1.667 ms.
    let mut g = PacingGate::new(MDS);
    g.set_rate(Some(Rate::from_bytes_over(
        24 * MDS,
        Duration::from_millis(40),
    )));
    assert_eq!(g.verdict(ms(0), 0, 100 * MDS, MDS), Verdict::Open);
    g.on_sent(ms(0), MDS);
    let Verdict::PacedUntil(t) = g.verdict(ms(0), MDS, 100 * MDS, MDS) else {
        panic!("the second packet must wait");
    };
    let gap = t.saturating_since(ms(0));
    assert!(
        gap >= Duration::from_micros(1600) && gap <= Duration::from_micros(1700),
        "{gap:?}"
    );
    assert_eq!(g.verdict(t, MDS, 100 * MDS, MDS), Verdict::Open);
}

#[test]
fn rfc9002_7_a_full_window_closes_the_gate_whatever_the_credit() {
    // 9 packets of 1200 in flight: the 10th fills a 12 000-byte window
    // exactly and may leave; an 11th would pass it.
    let mut g = PacingGate::new(MDS);
    g.set_rate(Some(Rate::from_bits_per_sec(1_000_000_000)));
    assert_eq!(g.verdict(ms(5), 9 * MDS, 10 * MDS, MDS), Verdict::Open);
    assert_eq!(
        g.verdict(ms(5), 9 * MDS + 1, 10 * MDS, MDS),
        Verdict::WindowFull
    );
}

/// quicly's rule (lib/quicly.c `calc_send_window` and
/// `do_allocate_frame` at h2o/quicly 45bf8a37): a datagram may leave
/// while bytes in flight are below the window, crossing it.
#[test]
fn quicly_send_rule_opens_the_gate_while_in_flight_is_below_the_window() {
    let mut g = PacingGate::quicly(MDS).with_send_rule(SendRule::Quicly);
    g.set_rate(Some(Rate::from_bits_per_sec(1_000_000_000)));
    assert_eq!(g.verdict(ms(5), 10 * MDS - 1, 10 * MDS, MDS), Verdict::Open);
    assert_eq!(
        g.verdict(ms(5), 10 * MDS, 10 * MDS, MDS),
        Verdict::WindowFull
    );
}

/// 100 Mbit/s: one 1200-byte datagram every 96 µs.
fn gate_100m() -> PacingGate {
    let mut g = PacingGate::new(MDS);
    g.set_rate(Some(Rate::from_bits_per_sec(100_000_000)));
    g
}

/// Sends every datagram the gate lets out at `now` (stepping 1 ns per
/// datagram); returns how many left.
fn drain(g: &mut PacingGate, mut now: Time) -> u64 {
    let mut sent = 0;
    while g.verdict(now, 0, u64::MAX, MDS) == Verdict::Open {
        g.on_sent(now, MDS);
        sent += 1;
        now = now.saturating_add(Duration::from_nanos(1));
    }
    sent
}

#[test]
fn a_late_wake_up_makes_up_for_the_lost_time() {
    let mut g = gate_100m();
    g.on_sent(ms(0), MDS);
    let Verdict::PacedUntil(t) = g.verdict(ms(0), 0, u64::MAX, MDS) else {
        panic!("the second datagram must wait");
    };
    // Woken 480 µs late: the credit the bucket holds (its idle
    // quantum, 2 datagrams) and five more sent early (480 / 96).
    let late = t.saturating_add(Duration::from_micros(480));
    assert_eq!(drain(&mut g, late), BURST_QUANTUM_PACKETS + 5);
}

#[test]
fn a_wake_up_later_than_the_slack_is_an_idle_restart() {
    let mut g = gate_100m();
    g.on_sent(ms(0), MDS);
    assert!(matches!(
        g.verdict(ms(0), 0, u64::MAX, MDS),
        Verdict::PacedUntil(_)
    ));
    // 50 ms later: only the idle quantum (2 datagrams) leaves at once.
    assert_eq!(drain(&mut g, ms(50)), BURST_QUANTUM_PACKETS);
}

#[test]
fn a_window_limited_stretch_saves_up_no_burst() {
    // The window closes the gate while the pacer waits; when ACKs
    // reopen it 0.5 ms later, the idle quantum leaves, not 0.5 ms of
    // catch-up.
    let mut g = gate_100m();
    g.on_sent(ms(0), MDS);
    assert!(matches!(
        g.verdict(ms(0), 0, u64::MAX, MDS),
        Verdict::PacedUntil(_)
    ));
    assert_eq!(
        g.verdict(ms(0), 10 * MDS, 10 * MDS, MDS),
        Verdict::WindowFull
    );
    let reopened = Time::from_micros(600);
    assert_eq!(drain(&mut g, reopened), BURST_QUANTUM_PACKETS);
}

/// quinn's questions for one datagram of a GSO batch: its congestion
/// check, then (if that passed) the argument of its own pacer's
/// `delay`. Returns whether the datagram was built.
fn quinn_asks(g: &PacingGate, now: Time, in_flight: u64, window: u64) -> bool {
    if g.ask(now, in_flight, window) != Verdict::Open {
        return false;
    }
    assert_eq!(
        g.ask(now, in_flight, window),
        Verdict::Open,
        "the second question about a granted datagram is never refused"
    );
    true
}

/// One quinn send pass of up to 10 datagrams at `now`; returns how
/// many it built (and reports them as one batch).
fn gso_pass(g: &mut PacingGate, now: Time, in_flight: u64, window: u64) -> u64 {
    let mut built = 0;
    while built < 10 && quinn_asks(g, now, in_flight, window) {
        built += 1;
    }
    if built > 0 {
        g.on_sent(now, built * MDS);
    }
    built
}

#[test]
fn a_gso_batch_is_charged_datagram_by_datagram() {
    // Woken 480 µs late at 100 Mbit/s, one pass may build a batch of
    // the idle quantum plus five (the same seven the GSO-less drain
    // lets out one by one), not ten.
    let mut g = gate_100m();
    g.on_sent(ms(0), MDS);
    let Verdict::PacedUntil(t) = g.verdict(ms(0), 0, u64::MAX, MDS) else {
        panic!("the second datagram must wait");
    };
    let late = t.saturating_add(Duration::from_micros(480));
    assert_eq!(
        gso_pass(&mut g, late, 0, u64::MAX),
        BURST_QUANTUM_PACKETS + 5
    );
    // And the next pass, at the same instant, has nothing left.
    assert_eq!(gso_pass(&mut g, late, 0, u64::MAX), 0);
}

#[test]
fn rfc9002_7_a_gso_batch_stops_at_the_window() {
    // At 10 Gbit/s a wake-up 0.5 ms late leaves credit for 520
    // datagrams, but 6 are in flight under a 10-datagram window: the
    // batch's grants count against the window before quinn reports
    // them, so 4 leave.
    let mut g = PacingGate::new(MDS);
    g.set_rate(Some(Rate::from_bits_per_sec(10_000_000_000)));
    g.on_sent(ms(0), MDS);
    let Verdict::PacedUntil(t) = g.verdict(ms(0), 0, u64::MAX, MDS) else {
        panic!("the second datagram must wait");
    };
    let late = t.saturating_add(Duration::from_micros(500));
    let window = 10 * MDS;
    assert_eq!(gso_pass(&mut g, late, 6 * MDS, window), 4);
}

#[test]
fn grants_no_datagram_followed_are_forgotten_between_passes() {
    // A stray question (quinn's `Connection::stats` reads the window)
    // grants a datagram that is never built; the ACK that comes next
    // ends the pass, and the following batch is judged from scratch.
    let mut g = gate_100m();
    g.on_sent(ms(0), MDS);
    let later = ms(10);
    assert_eq!(g.ask(later, 0, u64::MAX), Verdict::Open);
    g.end_pass();
    assert_eq!(
        gso_pass(&mut g, later, 0, u64::MAX),
        BURST_QUANTUM_PACKETS,
        "the idle quantum, not one less"
    );
}

#[test]
fn the_bytes_reported_are_what_the_pacer_is_charged() {
    // Two datagrams granted after an idle spell (the 2-packet quantum),
    // reported as 2 500 bytes: the pacer is charged the bytes quinn
    // reports, so the next datagram waits for 1 300 bytes' worth of
    // credit (104 µs at 100 Mbit/s), where the grants' 2 400 would
    // give 96 µs.
    let mut g = gate_100m();
    g.on_sent(ms(0), MDS);
    let now = ms(10);
    for _ in 0..2 {
        assert!(quinn_asks(&g, now, 0, u64::MAX));
    }
    g.on_sent(now, 2 * MDS + 100);
    let Verdict::PacedUntil(t) = g.ask(now, 0, u64::MAX) else {
        panic!("the quantum is spent");
    };
    let wait = t.saturating_since(now);
    assert!(
        wait >= Duration::from_micros(100) && wait <= Duration::from_micros(110),
        "{wait:?}"
    );
}

#[test]
fn no_rate_means_no_pacing() {
    let g = PacingGate::new(MDS);
    assert_eq!(g.rate(), None);
    assert_eq!(g.verdict(ms(1), 0, 10 * MDS, MDS), Verdict::Open);
}
