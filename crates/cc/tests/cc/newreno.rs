//! NewReno, RFC 9002 §7, through the public controller API.

use crate::support;

use ramp_cc::{CcConfig, Controller, InitialWindow, LossBasedState};
use support::{ms, Driver, Order, MDS};

const IW: u64 = 12_000;

/// Sends the IW, acks six packets after 100 ms (slow start to 19 200 B),
/// then declares packet 6 lost: the window halves.
fn after_first_loss(order: Order) -> (Driver, Vec<u64>) {
    let mut d = Driver::new("newreno").with_order(order);
    let pns = d.send(10);
    d.advance(ms(100));
    d.ack(&pns[..6]);
    assert_eq!(
        d.window(),
        IW + 6 * MDS,
        "slow start: +1 byte per acked byte"
    );
    d.lose(&[pns[6]]);
    (d, pns)
}

#[test]
fn rfc9002_7_3_1_slow_start_adds_acked_bytes() {
    let mut d = Driver::new("newreno");
    assert_eq!((d.window(), d.cc.state()), (IW, LossBasedState::SlowStart));
    let pns = d.send(10);
    d.advance(ms(50));
    d.ack(&pns);
    assert_eq!(d.window(), 2 * IW);
}

#[test]
fn rfc9002_7_3_2_halves_once_per_recovery_period() {
    let (mut d, pns) = after_first_loss(Order::Rfc);
    assert_eq!(d.window(), 9_600);
    assert_eq!(d.cc.ssthresh(), Some(9_600));
    assert_eq!(d.cc.state(), LossBasedState::Recovery);
    // A second loss of a packet sent before recovery started is absorbed.
    d.advance(ms(1));
    d.lose(&[pns[7]]);
    assert_eq!(d.window(), 9_600);
    assert_eq!(d.cc.metrics().num_loss_episodes, 1);
    assert_eq!(d.cc.metrics().cwnd_exiting_slow_start_bytes, Some(19_200));
}

#[test]
fn rfc9002_7_3_2_no_growth_for_packets_sent_before_recovery_start() {
    let (mut d, pns) = after_first_loss(Order::Rfc);
    d.advance(ms(1));
    d.ack(&pns[8..]);
    assert_eq!(d.window(), 9_600);
    assert_eq!(d.cc.state(), LossBasedState::Recovery);
}

#[test]
fn rfc9002_7_3_2_recovery_ends_on_ack_of_packet_sent_after_start() {
    let (mut d, _) = after_first_loss(Order::Rfc);
    d.advance(ms(1));
    let new = d.send(1);
    d.advance(ms(100));
    d.ack(&new);
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    // A loss of a packet sent after the recovery start is a new episode.
    let more = d.send(2);
    d.advance(ms(1));
    d.lose(&more[..1]);
    assert_eq!(d.cc.state(), LossBasedState::Recovery);
    assert_eq!(d.window(), 4_800);
    assert_eq!(d.cc.metrics().num_loss_episodes, 2);
}

#[test]
fn rfc9002_7_3_3_congestion_avoidance_adds_one_datagram_per_window() {
    let (mut d, _) = after_first_loss(Order::Rfc);
    d.advance(ms(1));
    let exit = d.send(1);
    d.advance(ms(100));
    d.ack(&exit);
    let w = d.window();
    assert_eq!(w, 9_600);
    // 8 datagrams of 1200 bytes = one window: exactly +1 datagram.
    let pns = d.send(7);
    d.advance(ms(100));
    d.ack(&pns);
    assert_eq!(d.window(), w + MDS);
}

#[test]
fn rfc9002_7_2_window_never_below_minimum_window() {
    let mut d = Driver::new("newreno");
    for _ in 0..10 {
        let p = d.send(1);
        d.advance(ms(10));
        d.lose(&p);
        assert!(d.window() >= 2 * MDS);
    }
    assert_eq!(d.window(), 2 * MDS);
    assert_eq!(d.cc.ssthresh(), Some(2 * MDS));
}

#[test]
fn rfc9002_7_6_2_persistent_congestion_collapses_to_minimum_window() {
    let mut d = Driver::new("newreno");
    let pns = d.send(10);
    d.advance(ms(100));
    d.ack(&pns[..2]);
    d.advance(ms(1000));
    d.frame(&[], &pns[2..], false, true, false);
    assert_eq!(d.window(), 2 * MDS);
    assert_eq!(d.cc.state(), LossBasedState::SlowStart);
    assert_eq!(d.cc.ssthresh(), Some(7_200), "ssthresh from the reduction");
    assert_eq!(d.cc.metrics().num_persistent_congestion, 1);
    // Back in slow start: a packet sent now grows the window by its size.
    let p = d.send(1);
    d.advance(ms(100));
    d.ack(&p);
    assert_eq!(d.window(), 3 * MDS);
}

/// Found by the property test: with β = 0.01 the reduction's ssthresh is
/// clamped to the minimum window, so after the collapse cwnd = ssthresh and
/// Appendix B.5 puts the sender in congestion avoidance, not slow start. The
/// state must say so at once, not one ACK frame later.
#[test]
fn rfc9002_7_6_2_persistent_congestion_at_minimum_ssthresh_is_congestion_avoidance() {
    for order in [Order::Rfc, Order::Quinn] {
        let mut d = Driver::new("newreno(beta=0.01)+jumpstart").with_order(order);
        let pns = d.send(4);
        d.ack(&pns[..1]);
        d.frame(&[], &pns[1..], false, true, false);
        assert_eq!(d.window(), 2 * MDS, "{order:?}");
        assert_eq!(d.cc.ssthresh(), Some(2 * MDS), "{order:?}");
        assert_eq!(
            d.cc.state(),
            LossBasedState::CongestionAvoidance,
            "{order:?}"
        );
        // Congestion avoidance: a window of acks adds one datagram, not two.
        let p = d.send(2);
        d.advance(ms(100));
        d.ack(&p);
        assert_eq!(d.window(), 3 * MDS, "{order:?}");
    }
}

#[test]
fn rfc9002_7_8_app_limited_acks_do_not_grow_the_window() {
    let mut d = Driver::new("newreno");
    let pns = d.send(4);
    d.advance(ms(50));
    d.frame(&pns[..2], &[], false, false, true);
    assert_eq!(d.window(), IW);
    d.frame(&pns[2..], &[], false, false, false);
    assert_eq!(d.window(), IW + 2 * MDS);
}

/// The same app-limited frames under `cc_limited=quicly` (h2o/quicly
/// 45bf8a37, lib/quicly.c `handle_ack_frame`): a frame grows the window when
/// one of its packets left with in flight ≥ cwnd/2, whatever the sender's
/// app-limited report; RFC 9002 §7.8 (the default) grows on none of them.
#[test]
fn quicly_cc_limited_grows_on_packets_sent_with_half_the_window_in_flight() {
    let grown = |spec: &str| {
        let mut d = Driver::new(spec);
        // In flight after each send: 1,200 … 6,000 B; the fifth reaches
        // cwnd/2 = 6,000 B and is marked, the first four are not.
        let pns = d.send(5);
        d.advance(ms(50));
        d.frame(&pns[4..], &[], false, false, true);
        d.window()
    };
    assert_eq!(
        grown("newreno"),
        IW,
        "RFC 9002 §7.8: app-limited, no growth"
    );
    assert_eq!(grown("newreno(cc_limited=rfc)"), IW);
    assert_eq!(grown("newreno(cc_limited=quicly)"), IW + MDS);
}

/// quicly's other half: a frame arriving while in flight ≥ cwnd/2 grows
/// the window even if none of its packets was marked at send.
#[test]
fn quicly_cc_limited_grows_on_frames_arriving_with_half_the_window_in_flight() {
    let mut d = Driver::new("newreno(cc_limited=quicly)");
    let early = d.send(4);
    d.send(1);
    d.advance(ms(50));
    // 6,000 B in flight when it arrives; its two packets are unmarked.
    d.frame(&early[..2], &[], false, false, true);
    assert_eq!(d.window(), IW + 2 * MDS);
    // 3,600 B in flight now (below half of 14,400), unmarked packets.
    d.frame(&early[2..3], &[], false, false, true);
    assert_eq!(d.window(), IW + 2 * MDS);
}

/// A frame that is neither: the sender is not app-limited by RFC 9002's
/// report, but quicly's rule sees in flight below half the window at send
/// and at arrival, so it does not grow.
#[test]
fn quicly_cc_limited_does_not_grow_below_half_the_window() {
    let mut d = Driver::new("newreno(cc_limited=quicly)");
    let pns = d.send(2);
    d.advance(ms(50));
    d.frame(&pns, &[], false, false, false);
    assert_eq!(d.window(), IW);
    let mut rfc = Driver::new("newreno");
    let pns = rfc.send(2);
    rfc.advance(ms(50));
    rfc.frame(&pns, &[], false, false, false);
    assert_eq!(rfc.window(), IW + 2 * MDS);
}

/// quicly for a connection that does not respect the app-limited state
/// (h2o/quicly 45bf8a37, lib/quicly.c `handle_ack_frame`:
/// `cc_limited = num_respected_app_limited == 0 || …`): every frame grows
/// the window, the app-limited frame of the first test and the frame below
/// half the window of the second alike.
#[test]
fn quicly_disregarding_app_limited_grows_on_every_frame() {
    // Four packets: 4,800 B in flight at arrival, below cwnd/2 = 6,000 B,
    // and none marked at send; the frame is app-limited.
    let mut d = Driver::new("newreno(cc_limited=always)");
    let pns = d.send(4);
    d.advance(ms(50));
    d.frame(&pns[..1], &[], false, false, true);
    assert_eq!(d.window(), IW + MDS);
    let mut q = Driver::new("newreno(cc_limited=quicly)");
    let pns = q.send(4);
    q.advance(ms(50));
    q.frame(&pns[..1], &[], false, false, true);
    assert_eq!(q.window(), IW, "quicly's default: below half, unmarked");
    // Below half the window at send and at arrival, not app-limited.
    let mut d = Driver::new("newreno(cc_limited=always)");
    let pns = d.send(2);
    d.advance(ms(50));
    d.frame(&pns, &[], false, false, false);
    assert_eq!(d.window(), IW + 2 * MDS);
    assert_eq!(d.cc.name(), "newreno(cc_limited=always)");
}

/// The option's name: the default rule is not named, quicly's is.
#[test]
fn cc_limited_names_only_the_quicly_rule() {
    let name = |s: &str| Driver::new(s).cc.name();
    assert_eq!(name("newreno(cc_limited=rfc)"), "newreno");
    assert_eq!(
        name("cubic(cc_limited=quicly)+rapidstart"),
        "cubic(cc_limited=quicly)+rapidstart"
    );
}

#[test]
fn rfc9002_7_1_ecn_ce_is_a_congestion_event() {
    let mut d = Driver::new("newreno");
    let pns = d.send(10);
    d.advance(ms(50));
    d.frame(&pns[..1], &[], true, false, false);
    assert_eq!(d.cc.state(), LossBasedState::Recovery);
    assert_eq!(d.window(), IW / 2);
    let m = d.cc.metrics();
    assert_eq!((m.num_loss_episodes, m.num_ecn_loss_episodes), (1, 1));
}

#[test]
fn rfc9002_7_3_2_quinn_order_reduces_once_too() {
    // quinn delivers the frame's acks before its losses; with
    // EventOrder::AcksFirst the frame's growth is revoked by the loss, so
    // the window is what the RFC order gives.
    let (d, _) = after_first_loss(Order::Quinn);
    assert_eq!(d.window(), 9_600);
    assert_eq!(d.cc.metrics().num_loss_episodes, 1);
    let (mut d, pns) = after_first_loss(Order::Quinn);
    d.advance(ms(1));
    d.frame(&pns[8..9], &pns[7..8], false, false, false);
    assert_eq!(d.window(), 9_600);
}

#[test]
fn rfc9002_7_2_initial_window_in_packets() {
    let cfg = CcConfig {
        initial_window: InitialWindow::Packets(32),
        ..CcConfig::default()
    };
    let d = Driver::with_config("newreno", &cfg);
    assert_eq!(d.window(), 32 * MDS);
    assert_eq!(d.cc.name(), "newreno(iw=32)");
    assert_eq!(Driver::new("newreno(iw=30)").window(), 30 * MDS);
}

#[test]
fn rfc9002_7_2_mtu_update_recomputes_initial_window() {
    let mut d = Driver::new("newreno");
    d.cc.on_mtu_update(1472);
    assert_eq!(d.window(), 14_720);
}

#[test]
fn rfc9937_prr_window_is_pipe_plus_sndcnt_and_ends_at_ssthresh() {
    let mut d = Driver::new("newreno(prr=on)");
    let pns = d.send(10);
    d.advance(ms(100));
    d.ack(&pns[..1]);
    // cwnd 13 200; in flight 9 packets. Lose one: ssthresh 6 600.
    d.lose(&pns[1..2]);
    let pipe = 8 * MDS;
    assert_eq!(d.cc.ssthresh(), Some(6_600));
    assert_eq!(d.window(), pipe + MDS, "one packet forced out at entry");
    d.advance(ms(1));
    let r = d.send(1);
    // Two deliveries while pipe > ssthresh: proportional, ceil(2400·6600/10800) − 1200.
    d.ack(&pns[2..4]);
    let expected = (2 * MDS * 6_600).div_ceil(pipe + MDS) - MDS;
    assert_eq!(d.cc.prr().map(|p| p.sndcnt()), Some(expected));
    assert_eq!(d.window(), d.in_flight + expected);
    d.advance(ms(100));
    d.ack(&r);
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    assert_eq!(d.window(), 6_600);
}

#[test]
fn rfc9937_6_2_ack_with_loss_is_not_safe_in_either_order() {
    let run = |order: Order| {
        let mut d = Driver::new("newreno(prr=on)").with_order(order);
        let pns = d.send(10);
        d.advance(ms(100));
        d.ack(&pns[..1]);
        d.lose(&pns[1..2]);
        d.advance(ms(1));
        // One packet delivered, five lost: pipe 2400, ssthresh 6600.
        d.frame(&pns[2..3], &pns[3..8], false, false, false);
        (d.cc.prr().map(|p| p.sndcnt()), d.window())
    };
    // Not safe: sndcnt = min(ssthresh − pipe, max(delivered − out, DeliveredData)) = 1200.
    assert_eq!(run(Order::Rfc), (Some(MDS), 2 * MDS + MDS));
    assert_eq!(run(Order::Quinn), run(Order::Rfc));
}

#[test]
fn rfc9438_4_9_spurious_loss_undo_restores_the_window() {
    let mut d = Driver::new("newreno(undo=on)");
    let pns = d.send(10);
    d.advance(ms(100));
    d.ack(&pns[..4]);
    let before = d.window();
    d.lose(&pns[4..5]);
    assert!(d.window() < before);
    d.cc.on_spurious_congestion(d.now);
    assert_eq!(d.window(), before);
    assert_eq!(d.cc.ssthresh(), None);
    assert_eq!(d.cc.metrics().num_spurious_undos, 1);
    // Without the option nothing is undone.
    let mut d = Driver::new("newreno");
    let pns = d.send(10);
    d.advance(ms(100));
    d.lose(&pns[4..5]);
    let w = d.window();
    d.cc.on_spurious_congestion(d.now);
    assert_eq!((d.window(), d.cc.metrics().num_spurious_undos), (w, 0));
}

#[test]
fn rfc9002_7_3_2_send_one_packet_on_entering_recovery_when_enabled() {
    for (spec, extra) in [("newreno(send_one=on)", true), ("newreno", false)] {
        let mut d = Driver::new(spec);
        let pns = d.send(10);
        d.advance(ms(100));
        d.lose(&pns[..1]);
        // cwnd 6000 but 9 packets still in flight.
        let allowed = if extra { d.in_flight + MDS } else { 6_000 };
        assert_eq!(d.window(), allowed, "{spec}");
        d.send(1);
        assert_eq!(d.window(), 6_000, "{spec}: only one");
    }
}

#[test]
fn rfc9002_7_7_pacing_rates_follow_the_phase() {
    let mut d = Driver::new("newreno");
    // Slow start: 2·cwnd/srtt; srtt is kInitialRtt before any sample.
    let r = d.cc.pacing_rate(&d.rtt).map(|r| r.bytes_per_sec());
    assert_eq!(r, Some(2 * IW * 1000 / 333));
    let pns = d.send(10);
    d.advance(ms(100));
    d.ack(&pns[..1]);
    d.lose(&pns[1..2]);
    // Recovery / CA: 1.25·cwnd/srtt, srtt = 100 ms.
    let r = d.cc.pacing_rate(&d.rtt).map(|r| r.bytes_per_sec());
    assert_eq!(r, Some(6_600 * 10 * 5 / 4));
    assert_eq!(
        Driver::new("newreno(pacing=off)").cc.pacing_rate(&d.rtt),
        None
    );
}

#[test]
fn rfc9002_7_1_an_ecn_episode_that_sees_a_loss_is_counted_as_a_loss_episode() {
    // h2o's num-ecn-loss-episodes counts the episodes that CE alone
    // started and no loss joined: a loss in the same recovery period
    // un-counts it.
    let mut d = Driver::new("newreno");
    let pns = d.send(10);
    d.advance(ms(50));
    d.frame(&pns[..1], &[], true, false, false);
    assert_eq!(d.cc.metrics().num_ecn_loss_episodes, 1);
    d.lose(&pns[1..2]);
    let m = d.cc.metrics();
    assert_eq!((m.num_loss_episodes, m.num_ecn_loss_episodes), (1, 0));
}

#[test]
fn rfc9002_7_3_2_ss_beta_is_the_decrease_that_ends_slow_start_beta_after() {
    // quicly's Reno (the seed experiment's stack) halves when a loss ends
    // slow start — the loss signal arrives one RTT late, when slow start
    // has doubled — and uses its β 0.7 afterwards.
    let mut d = Driver::new("newreno(beta=0.7,ss_beta=0.5)");
    let pns = d.send(10);
    d.advance(ms(50));
    d.lose(&pns[..1]);
    assert_eq!(d.window(), 5 * MDS, "0.5 at the end of slow start");
    d.ack_each(&pns[1..]);
    d.advance(ms(1));
    let after = d.send(1);
    d.advance(ms(50));
    d.ack(&after);
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    let w = d.window();
    let more = d.send(2);
    d.advance(ms(50));
    d.lose(&more[..1]);
    assert_eq!(d.window(), w * 7 / 10, "β 0.7 in congestion avoidance");
}

#[test]
fn quicly_pico_grows_one_mtu_per_beta_times_the_window_the_loss_saw() {
    // lib/cc-pico.c: the loss sees 16 packets (19 200 B) and halves to
    // 9 600 B; congestion avoidance then grows one MTU per 0.7 × 19 200 =
    // 13 440 B acknowledged, where RFC 9002's Reno grows one per window
    // (9 600 B).
    for (spec, after_8, after_12) in [
        ("newreno(beta=0.7,ss_beta=0.5,growth=pico)", 9_600, 10_800),
        ("newreno(beta=0.7,ss_beta=0.5)", 10_800, 10_800),
    ] {
        let mut d = Driver::new(spec);
        let pns = d.send(10);
        d.advance(ms(100));
        d.ack(&pns[..6]);
        d.lose(&[pns[6]]);
        assert_eq!(d.window(), 9_600, "{spec}");
        d.advance(ms(1));
        let new = d.send(12);
        d.advance(ms(100));
        d.ack(&pns[7..]);
        d.ack(&new[..8]);
        assert_eq!(d.window(), after_8, "{spec}: 8 packets acked");
        d.ack(&new[8..]);
        assert_eq!(d.window(), after_12, "{spec}: 12 packets acked");
    }
}

/// Two ACK frames at one instant (a wake-up without kernel arrival
/// stamps), the first declaring losses. quicly (h2o/quicly 45bf8a37,
/// lib/quicly.c `handle_ack_frame`) judges each frame on the bytes in
/// flight at its start, and the first frame's loss detection (at that
/// frame's end) has already taken its lost packets out of them; so the
/// second frame must not count the first frame's losses. Returns the
/// window after a later frame that makes the second frame's growth credit
/// visible.
fn quicly_second_frame_of_an_instant(order: Order) -> u64 {
    quicly_frame_after_losses_of_its_instant(order, Frame1::AckFrame)
}

/// How the losses at the instant of the frame under test are declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame1 {
    /// By an ACK frame just before it.
    AckFrame,
    /// By the loss-detection timer just before it.
    TimerBefore,
    /// By the loss-detection timer just after it.
    TimerAfter,
}

fn quicly_frame_after_losses_of_its_instant(order: Order, how: Frame1) -> u64 {
    let mut d = Driver::new("newreno(cc_limited=quicly)").with_order(order);
    let pns = d.send(10);
    d.advance(ms(100));
    d.ack(&pns[..6]);
    d.lose(&[pns[6]]);
    // Recovery from t = 100 ms at 9,600 B (half: 4,800); 7, 8 and 9 (sent
    // before it) are 3,600 B in flight.
    assert_eq!(d.window(), 9_600);
    d.advance(ms(1));
    // 4,700 B in flight after it: unmarked. Then 5,900 B: marked.
    let unmarked = d.send_sized(1, 1_100);
    let marked = d.send(1);
    d.advance(ms(100));
    // Frame 1: 7, 8 and 9 lost (sent before the recovery: no new
    // reduction). 2,300 B stay in flight.
    match how {
        Frame1::AckFrame => d.lose(&pns[7..]),
        Frame1::TimerBefore => d.timer_lose(&pns[7..]),
        Frame1::TimerAfter => {}
    }
    // Frame 2, same instant: acknowledges the unmarked packet, which ends
    // the recovery. quicly: 2,300 B at its start (below 4,800) and an
    // unmarked packet: no growth credit. Counting frame 1's 3,600 B again
    // would give 5,900 B and 1,100 B of credit.
    d.frame(&unmarked, &[], false, false, false);
    if how == Frame1::TimerAfter {
        d.timer_lose(&pns[7..]);
    }
    assert_eq!(d.window(), 9_600);
    // Frame 3, later, well over half the window in flight: 8,600 B of
    // credit. One more datagram needs 9,600 B: reached only with frame
    // 2's 1,100 B.
    let more = d.send(6);
    let last = d.send_sized(1, 200);
    d.advance(ms(100));
    let acked: Vec<u64> = marked.iter().chain(&more).chain(&last).copied().collect();
    d.frame(&acked, &[], false, false, false);
    d.window()
}

#[test]
fn quicly_cc_limited_second_frame_of_an_instant_ignores_the_first_frames_losses() {
    for order in [Order::Rfc, Order::Quinn] {
        assert_eq!(quicly_second_frame_of_an_instant(order), 9_600, "{order:?}");
    }
}

/// quicly (h2o/quicly 45bf8a37) declares time-threshold losses outside any
/// ACK frame: `do_send` runs `quicly_loss_on_alarm`, whose
/// `on_loss_detected` takes the lost packets out of the sent map's bytes
/// in flight; `handle_ack_frame` reads `bytes_in_flight` at the start of
/// the next frame. So a frame at the timer's instant judges CC-limited
/// without the timer's losses: 2,300 B, no growth credit.
#[test]
fn quicly_cc_limited_frame_after_a_loss_timer_of_its_instant_ignores_the_timers_losses() {
    for order in [Order::Rfc, Order::Quinn] {
        let w = quicly_frame_after_losses_of_its_instant(order, Frame1::TimerBefore);
        assert_eq!(w, 9_600, "{order:?}");
    }
}

/// The loss timer firing after a frame of the same instant (quicly: the
/// frame in `quicly_receive`, the timer in the next `quicly_send`'s
/// `do_send`): the frame saw the timer's packets in flight, 5,900 B at
/// its start, and earns its 1,100 B of credit. In quinn's order (losses
/// after the frame's end) the timer's event is not the frame's.
#[test]
fn quicly_cc_limited_loss_timer_after_a_frame_of_its_instant_is_not_the_frames() {
    for order in [Order::Rfc, Order::Quinn] {
        let w = quicly_frame_after_losses_of_its_instant(order, Frame1::TimerAfter);
        assert_eq!(w, 10_800, "{order:?}");
    }
}
