//! Rapid Start, draft-kazuho-ccwg-rapid-start-02, and the jump-start arm.
//! Worked examples are -02 §3.3's.

use crate::support;

use ramp_cc::rapid_start::{queue_buildup_thresh, Factors, RapidRecovery};
use ramp_cc::{Controller, LossBasedState, Ratio};
use std::time::Duration;
use support::{ms, Driver, Order, MDS};

fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}

#[test]
fn rapid_start_02_3_3_factors_for_beta_0_5_are_5_6_1_3_5_6() {
    let f = Factors::for_beta(Ratio::HALF);
    // silence/den == 5/6, ack/den == 1/3, loss/den == 5/6, in integers.
    assert_eq!(f.silence * 6, 5 * f.den);
    assert_eq!(f.ack * 3, f.den);
    assert_eq!(f.loss * 6, 5 * f.den);
    assert_eq!((f.silence - f.ack) * 2, f.den, "silence − ack = β");
}

#[test]
fn rapid_start_02_3_3_factors_for_beta_0_7_are_9_10_1_5_9_10() {
    let f = Factors::for_beta(Ratio::SEVEN_TENTHS);
    assert_eq!(f.silence * 10, 9 * f.den);
    assert_eq!(f.ack * 5, f.den);
    assert_eq!(f.loss * 10, 9 * f.den);
    assert_eq!((f.silence - f.ack) * 10, 7 * f.den, "silence − ack = β");
    // The ABE-style 0.8 of the editor's copy: 14/15, 2/15, 14/15.
    let f = Factors::for_beta(Ratio::new(4, 5).unwrap_or(Ratio::ONE));
    assert_eq!(
        (f.silence * 15, f.ack * 15, f.loss * 15),
        (14 * f.den, 2 * f.den, 14 * f.den)
    );
}

/// Startup at `pre` packets (as IW, no jump), then one ACK frame per
/// `pattern` step until every pre-recovery packet is acked or lost, then the
/// ACK of a packet sent after recovery started. Returns (driver, acked
/// bytes during recovery).
fn recovery_case(
    ca: &str,
    pre: u64,
    acked_per_step: u64,
    lost_per_step: u64,
    ce: bool,
    order: Order,
) -> (Driver, u64) {
    let mut d = Driver::new(&format!("{ca}rapidstart(iw={pre},jump=off)")).with_order(order);
    let pns = d.send(pre);
    d.advance(ms(100));
    let mut acked_bytes = 0;
    let mut i = 0;
    let mut first = true;
    while i < pns.len() {
        let a_end = (i + acked_per_step as usize).min(pns.len());
        let acked = &pns[i..a_end];
        let l_end = (a_end + lost_per_step as usize).min(pns.len());
        let lost = &pns[a_end..l_end];
        d.frame(acked, lost, ce && first, false, false);
        if first {
            assert_eq!(d.cc.state(), LossBasedState::RapidRecovery);
            assert_eq!(
                d.cc.ssthresh(),
                None,
                "no ssthresh during Rapid Start recovery"
            );
        }
        first = false;
        acked_bytes += acked.len() as u64 * MDS;
        i = l_end;
        d.advance(us(100));
    }
    let exit = d.send(1);
    d.advance(ms(100));
    d.ack(&exit);
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    (d, acked_bytes)
}

fn within_1pct(actual: u64, target: f64) -> bool {
    (actual as f64 - target).abs() <= 0.01 * target
}

#[test]
fn rapid_start_02_3_3_3x_overshoot_beta_0_7_lands_at_beta_times_acked() {
    for order in [Order::Rfc, Order::Quinn] {
        let (d, acked) = recovery_case("cubic+", 300, 1, 2, false, order);
        let ss = d.cc.ssthresh().unwrap_or(0);
        assert!(
            within_1pct(ss, 0.7 * acked as f64),
            "{order:?}: {ss} vs {acked}"
        );
        if order == Order::Rfc {
            assert_eq!(ss, 70 * MDS, "270 − 20 − 180 = 70 exactly");
        }
    }
}

#[test]
fn rapid_start_02_3_3_2x_overshoot_beta_0_7_lands_at_beta_times_acked() {
    let (d, acked) = recovery_case("cubic+", 200, 1, 1, false, Order::Rfc);
    assert_eq!(acked, 100 * MDS);
    assert_eq!(d.cc.ssthresh(), Some(70 * MDS), "180 − 20 − 90 = 70");
    let (d, acked) = recovery_case("cubic+", 200, 1, 1, false, Order::Quinn);
    assert!(within_1pct(
        d.cc.ssthresh().unwrap_or(0),
        0.7 * acked as f64
    ));
}

#[test]
fn rapid_start_02_3_3_2_ce_only_recovery_lands_at_beta_times_window() {
    for order in [Order::Rfc, Order::Quinn] {
        let (d, acked) = recovery_case("cubic+", 200, 1, 0, true, order);
        assert_eq!(acked, 200 * MDS);
        let ss = d.cc.ssthresh().unwrap_or(0);
        assert!(within_1pct(ss, 0.7 * acked as f64), "{order:?}: {ss}");
        let m = d.cc.metrics();
        assert_eq!((m.num_loss_episodes, m.num_ecn_loss_episodes), (1, 1));
    }
    let (d, _) = recovery_case("cubic+", 200, 1, 0, true, Order::Rfc);
    assert_eq!(d.cc.ssthresh(), Some(140 * MDS), "180 − 40 = 140");
}

#[test]
fn rapid_start_02_3_3_3x_overshoot_beta_0_5_lands_at_50() {
    let (d, acked) = recovery_case("", 300, 1, 2, false, Order::Rfc);
    assert_eq!(acked, 100 * MDS);
    assert_eq!(d.cc.ssthresh(), Some(50 * MDS), "250 − 33.3 − 166.7 = 50");
    let (d, acked) = recovery_case("", 300, 1, 2, false, Order::Quinn);
    assert!(within_1pct(
        d.cc.ssthresh().unwrap_or(0),
        0.5 * acked as f64
    ));
}

#[test]
fn rapid_start_02_3_3_beta_over_3_floor_holds() {
    // Everything lost (non-congestive loss beyond the 2/3 tail-drop maximum).
    for (ca, floor) in [("cubic+", 70), ("", 50)] {
        let mut d = Driver::new(&format!("{ca}rapidstart(iw=300,jump=off)"));
        let pns = d.send(300);
        d.advance(ms(100));
        for chunk in pns.chunks(30) {
            d.lose(chunk);
            assert!(d.window() >= floor * MDS);
            d.advance(us(10));
        }
        assert_eq!(d.window(), floor * MDS, "pre·β/3");
    }
}

#[test]
fn rapid_start_02_3_3_optional_beta_iw_floor() {
    for (opt, floor) in [("", 5), (",iw_floor=on", 15)] {
        let mut d = Driver::new(&format!("rapidstart(iw=30,jump=off{opt})"));
        let pns = d.send(30);
        d.advance(ms(100));
        d.lose(&pns);
        assert_eq!(d.window(), floor * MDS, "{opt}");
    }
    // The hard floor, kMinimumWindow, wins over a tiny pre·β/3.
    let r = RapidRecovery::enter(3 * MDS, Ratio::HALF, 2 * MDS, None);
    let mut r2 = r;
    r2.on_lost(3 * MDS);
    assert_eq!(r2.cwnd(), 2 * MDS);
}

/// Two 10-packet flights at `min_ms`, then a flight at `floor`: the window
/// increase for the first ack of that flight.
fn growth_at(spec: &str, min_ms: u64, floor: Duration) -> (u64, LossBasedState) {
    let mut d = Driver::new(spec);
    d.round(10, ms(min_ms));
    d.round(10, ms(min_ms));
    let pns = d.send(10);
    d.advance(floor);
    let before = d.window();
    d.ack(&pns[..1]);
    (d.window() - before, d.cc.state())
}

#[test]
fn rapid_start_02_3_2_switches_3x_to_2x_past_min_rtt_plus_4ms() {
    // min_rtt 100 ms: min(104, 110) = 104 ms, the +4 ms branch.
    assert_eq!(
        queue_buildup_thresh(ms(100), ms(4), Ratio::new(11, 10).unwrap_or(Ratio::ONE)),
        ms(104)
    );
    let s = "rapidstart(jump=off)";
    assert_eq!(
        growth_at(s, 100, ms(104)),
        (2 * MDS, LossBasedState::RapidGrowth)
    );
    assert_eq!(
        growth_at(s, 100, us(104_001)),
        (MDS, LossBasedState::RapidSlowStart)
    );
}

#[test]
fn rapid_start_02_3_2_switches_3x_to_2x_past_1_1_min_rtt() {
    // min_rtt 20 ms: min(24, 22) = 22 ms, the ×1.1 branch.
    assert_eq!(
        queue_buildup_thresh(ms(20), ms(4), Ratio::new(11, 10).unwrap_or(Ratio::ONE)),
        ms(22)
    );
    let s = "cubic+rapidstart(jump=off)";
    assert_eq!(
        growth_at(s, 20, ms(22)),
        (2 * MDS, LossBasedState::RapidGrowth)
    );
    assert_eq!(
        growth_at(s, 20, us(22_001)),
        (MDS, LossBasedState::RapidSlowStart)
    );
}

#[test]
fn rapid_start_02_3_2_reevaluated_per_ack_unless_latched() {
    for (spec, after) in [
        ("rapidstart(jump=off)", 2 * MDS),
        ("rapidstart(jump=off,latch_2x=on)", MDS),
    ] {
        let mut d = Driver::new(spec);
        d.round(10, ms(50));
        d.round(10, ms(70));
        assert_eq!(d.cc.state(), LossBasedState::RapidSlowStart);
        let pns = d.send(10);
        d.advance(ms(50));
        let before = d.window();
        d.ack(&pns[..1]);
        assert_eq!(d.window() - before, after, "{spec}");
    }
}

#[test]
fn rapid_start_02_3_1_first_flight_is_two_iw_paced_over_srtt() {
    let mut d = Driver::new("rapidstart");
    let iw = 12_000;
    // Deferred (docs/algorithms.md ambiguity #1): IW and classic pacing until an RTT sample.
    assert_eq!((d.window(), d.cc.state()), (iw, LossBasedState::SlowStart));
    let r = d.cc.pacing_rate(&d.rtt).map(|r| r.bytes_per_sec());
    assert_eq!(r, Some(2 * iw * 1000 / 333));
    // A handshake-sized exchange gives the first sample, 50 ms.
    let hs = d.send_sized(1, 100);
    d.advance(ms(50));
    d.ack(&hs);
    assert_eq!(
        (d.window(), d.cc.state()),
        (2 * iw, LossBasedState::JumpStart)
    );
    // first_flight / srtt: 24 000 B over 50 ms.
    let r = d.cc.pacing_rate(&d.rtt).map(|r| r.bytes_per_sec());
    assert_eq!(r, Some(2 * iw * 20));
    let flight = d.fill_window();
    assert_eq!(flight.len() as u64 * MDS, 2 * iw);
    d.advance(ms(50));
    d.ack(&flight[..1]);
    assert_eq!(d.cc.state(), LossBasedState::RapidGrowth);
    // 3× phase pacing: gain 3 on cwnd/srtt.
    let r = d.cc.pacing_rate(&d.rtt).map(|r| r.bytes_per_sec());
    assert_eq!(r, Some(3 * d.window() * 20));
}

#[test]
fn jump_start_first_flight_then_classic_slow_start_and_beta() {
    let mut d = Driver::new("jumpstart(iw=30,retreat=off)");
    let hs = d.send_sized(1, 100);
    d.advance(ms(30));
    d.ack(&hs);
    assert_eq!(
        (d.window(), d.cc.state()),
        (60 * MDS, LossBasedState::JumpStart)
    );
    let flight = d.fill_window();
    assert_eq!(flight.len(), 60);
    d.advance(ms(30));
    d.ack(&flight[..1]);
    assert_eq!(d.cc.state(), LossBasedState::SlowStart);
    let w = d.window();
    d.ack(&flight[1..2]);
    assert_eq!(d.window(), w + MDS, "2× growth");
    d.lose(&flight[2..3]);
    assert_eq!(
        (d.cc.state(), d.window()),
        (LossBasedState::Recovery, (w + MDS) / 2)
    );
}

#[test]
fn jump_start_without_deferral_starts_at_two_iw() {
    let d = Driver::new("rapidstart(defer=off)");
    assert_eq!(
        (d.window(), d.cc.state()),
        (24_000, LossBasedState::JumpStart)
    );
    let d = Driver::new("jumpstart(defer=off)");
    assert_eq!(d.window(), 24_000);
}

#[test]
fn ambiguity_6_loss_of_packet_sent_after_entry_is_an_ordinary_reduction() {
    let mut d = Driver::new("rapidstart(iw=100,jump=off)");
    let pns = d.send(100);
    d.advance(ms(100));
    d.lose(&pns[..1]);
    let w = d.window();
    assert_eq!(d.cc.state(), LossBasedState::RapidRecovery);
    d.advance(ms(1));
    let late = d.send(1);
    d.advance(ms(1));
    d.lose(&late);
    assert_eq!(d.cc.state(), LossBasedState::Recovery);
    assert_eq!(d.window(), w / 2);
    assert_eq!(d.cc.metrics().num_loss_episodes, 2);
}

#[test]
fn ambiguity_10_loss_after_hystart_exit_uses_the_ordinary_decrease() {
    let mut d = Driver::new("cubic+rapidstart(jump=off)+hystart");
    d.round(10, ms(100));
    d.round(10, ms(100));
    d.round(10, ms(130));
    assert_eq!(d.cc.state(), LossBasedState::ConservativeSlowStart);
    for _ in 0..5 {
        d.round(10, ms(130));
    }
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    let w = d.window();
    let p = d.send(2);
    d.advance(ms(130));
    d.lose(&p[..1]);
    assert_eq!(d.cc.state(), LossBasedState::Recovery);
    assert_eq!(d.window(), w * 7 / 10);
}

#[test]
fn ambiguity_11_persistent_congestion_ends_rapid_start() {
    let mut d = Driver::new("rapidstart(iw=100,jump=off)");
    let pns = d.send(100);
    d.advance(ms(100));
    d.lose(&pns[..1]);
    let w = d.window();
    d.advance(ms(2000));
    d.frame(&[], &pns[1..10], false, true, false);
    assert_eq!(
        (d.cc.state(), d.window()),
        (LossBasedState::SlowStart, 2 * MDS)
    );
    assert!(d.cc.ssthresh().is_some_and(|s| s <= w));
    // Plain 2× slow start now.
    let p = d.send(1);
    d.advance(ms(100));
    d.ack(&p);
    assert_eq!(d.window(), 3 * MDS);
}

#[test]
fn rapid_start_handover_to_cubic_sets_w_max_from_full_bdp() {
    for (fc, factor) in [
        ("(fast_convergence=off)", 1.0),
        ("(fast_convergence=on)", 2.0),
    ] {
        let (d, _) = recovery_case(&format!("cubic{fc}+"), 300, 1, 2, false, Order::Rfc);
        let c = d.cc.ca_as::<ramp_cc::cubic::Cubic>().expect("cubic");
        // cwnd 70 at exit → full_bdp = 70/0.7 = 100 packets.
        let expect = factor * 100.0 * MDS as f64;
        assert!((c.w_max() - expect).abs() < 1.0, "{fc}: {}", c.w_max());
    }
}

#[test]
fn rapid_start_editors_copy_ce_beta_for_ce_only_recovery() {
    // ABE-style β 0.8 on CE: exits at 0.8 × the entry window (the editor's copy of -02, §3.3.2).
    let (d, acked) = recovery_case("cubic+", 200, 1, 0, true, Order::Rfc);
    assert_eq!(d.cc.ssthresh(), Some(140 * MDS));
    let mut d = Driver::new("cubic+rapidstart(iw=200,jump=off,ce_beta=0.8)");
    let pns = d.send(200);
    d.advance(ms(100));
    d.frame(&pns[..1], &[], true, false, false);
    d.ack_each(&pns[1..]);
    assert_eq!(d.window(), 160 * MDS);
    assert_eq!(acked, 200 * MDS);
    // A loss still uses β.
    let mut d = Driver::new("cubic+rapidstart(iw=200,jump=off,ce_beta=0.8)");
    let pns = d.send(200);
    d.advance(ms(100));
    d.lose(&pns[..1]);
    assert_eq!(
        d.cc.rapid_recovery().map(|r| r.beta()),
        Some(Ratio::SEVEN_TENTHS)
    );
}

#[test]
fn rapid_start_02_3_3_beta_option_overrides_the_controller_beta() {
    // NewReno (β 0.5 after Rapid Start) with Rapid Start's factors for 0.7.
    let (d, _) = recovery_case("", 300, 1, 2, false, Order::Rfc);
    assert_eq!(d.cc.ssthresh(), Some(50 * MDS));
    let mut d = Driver::new("rapidstart(iw=300,jump=off,beta=0.7)");
    let pns = d.send(300);
    d.advance(ms(100));
    for c in pns.chunks(3) {
        d.frame(&c[..1], &c[1..], false, false, false);
    }
    assert_eq!(d.window(), 70 * MDS);
}

/// The 3× overshoot with β 0.5 (BDP 100 packets, 300 in flight), where the
/// frame that ends the recovery acknowledges two packets sent after entry
/// and declares four pre-entry packets lost.
fn exit_frame_with_losses(order: Order) -> (u64, Option<u64>) {
    let mut d = Driver::new("rapidstart(iw=300,jump=off)").with_order(order);
    let pns = d.send(300);
    d.advance(ms(100));
    let (resolved, last4) = pns.split_at(pns.len() - 4);
    for step in resolved.chunks(3) {
        d.frame(&step[..1], &step[1..], false, false, false);
        d.advance(us(100));
    }
    assert_eq!(d.cc.state(), LossBasedState::RapidRecovery);
    let after = d.send(2);
    d.advance(ms(100));
    d.frame(&after, last4, false, false, false);
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    (d.cc.window(), d.cc.ssthresh())
}

#[test]
fn rapid_start_02_3_3_losses_in_the_exit_frame_are_charged_in_quinn_order() {
    // RFC 9002 order charges the four losses (loss factor) before the
    // post-entry ACK ends the recovery; quinn's order reports them after.
    // Both must land on the same window.
    let rfc = exit_frame_with_losses(Order::Rfc);
    let quinn = exit_frame_with_losses(Order::Quinn);
    assert_eq!(rfc.1, Some(rfc.0), "ssthresh = cwnd at exit");
    assert_eq!(quinn, rfc);
}

/// A loss during the paced jump flight, with 7 of the 20-packet jump window
/// in flight: returns the window after the recovery starts.
fn loss_during_jump_flight(spec: &str) -> u64 {
    let mut d = Driver::jumped(spec);
    let flight = d.send(7);
    d.advance(ms(30));
    d.lose(&flight[..1]);
    assert_eq!(d.cc.state(), LossBasedState::RapidRecovery);
    d.window()
}

#[test]
fn rapid_start_02_3_3_pre_flight_scales_at_most_the_flight() {
    // -02 Appendix A assumes a window-limited sender; RFC 9438 §4.6 uses
    // the flight size. 7 packets in flight, one lost, β 0.5:
    // 7·5/6 − 1·5/6 = 5 packets (not 20·5/6 − 5/6 ≈ 15.8).
    assert_eq!(
        loss_during_jump_flight("rapidstart(iw=10,pre=flight)"),
        5 * MDS
    );
    assert_eq!(
        loss_during_jump_flight("rapidstart(iw=10)"),
        (20 * MDS * 5 - MDS * 5) / 6,
        "the default scales cwnd, as -02 §3.3 and quicly"
    );
}

#[test]
fn rapid_start_recovery_paces_at_rec_gain() {
    // quicly paces at 2·cwnd/srtt after the first loss; RFC 9002's 1.25
    // falls below the ACK clock late in the recovery.
    for (spec, gain) in [
        ("rapidstart(iw=300,jump=off)", 2.0),
        ("rapidstart(iw=300,jump=off,rec_gain=1.25)", 1.25),
    ] {
        let mut d = Driver::new(spec);
        let pns = d.send(300);
        d.advance(ms(100));
        d.frame(&pns[..1], &pns[1..2], false, false, false);
        assert_eq!(d.cc.state(), LossBasedState::RapidRecovery);
        let srtt = d.rtt.smoothed().as_secs_f64();
        let rate = d.cc.pacing_rate(&d.rtt).map(|r| r.bytes_per_sec() as f64);
        let want = gain * d.window() as f64 / srtt;
        let got = rate.unwrap_or(0.0);
        assert!((got - want).abs() <= 0.01 * want, "{spec}: {got} vs {want}");
    }
}

#[test]
fn rapid_start_02_3_1_acks_of_packets_sent_before_the_jump_do_not_grow_the_first_flight() {
    // The jump window 2·IW already counts the initial window: ACKs of the
    // IW packets arriving during the first flight must not grow it 3× on
    // top (20 → 38 packets at IW 10, all paced at cwnd/srtt).
    let mut d = Driver::new("rapidstart(iw=10)");
    let iw = d.send(10);
    d.advance(ms(30));
    d.ack(&iw[..1]);
    assert_eq!(d.cc.state(), LossBasedState::JumpStart);
    assert_eq!(d.window(), 20 * MDS);
    let flight = d.send(10);
    d.advance(ms(1));
    d.ack_each(&iw[1..]);
    assert_eq!(d.cc.state(), LossBasedState::JumpStart);
    assert_eq!(d.window(), 20 * MDS, "pre-jump ACKs grew the jump window");
    // The flight's own ACKs grow it as usual once the flight has ended.
    d.advance(ms(30));
    d.ack(&flight[..1]);
    assert_eq!(d.cc.state(), LossBasedState::RapidGrowth);
    assert!(d.window() > 20 * MDS);
}

#[test]
fn rapid_start_editors_copy_ce_beta_yields_to_beta_once_the_episode_sees_a_loss() {
    // A recovery entered on CE alone uses ce_beta (0.8); a loss of a
    // pre-entry packet in the same episode makes it an ordinary loss
    // episode: β 0.7 from the entry on, as if it had started with the loss.
    let mut d = Driver::new("cubic+rapidstart(iw=200,jump=off,ce_beta=0.8)");
    let pns = d.send(200);
    d.advance(ms(100));
    d.frame(&pns[..1], &[], true, false, false);
    assert_eq!(
        d.cc.rapid_recovery().map(|r| r.beta()),
        Some(Ratio::new(4, 5).unwrap())
    );
    assert_eq!(d.cc.metrics().num_ecn_loss_episodes, 1);
    d.lose(&pns[1..2]);
    assert_eq!(
        d.cc.rapid_recovery().map(|r| r.beta()),
        Some(Ratio::SEVEN_TENTHS)
    );
    // pre 200: 200·9/10 − 1·1/5 − 1·9/10 = 178.9 packets.
    assert_eq!(d.window(), (200 * 9 * MDS - MDS * 2 - MDS * 9) / 10);
    // h2o un-counts an ECN episode that later sees a loss.
    assert_eq!(d.cc.metrics().num_ecn_loss_episodes, 0);
    assert_eq!(d.cc.metrics().num_loss_episodes, 1);
}

#[test]
fn quicly_rapid_start_on_first_lost_floor_is_half_of_iw_without_a_jump() {
    // lib/cc-pico.c `pico_on_lost` passes `0.5 · max(IW, jump bytes
    // acked)` as the floor: without a jump, half of IW (15 packets) where
    // -02's pre·β/3 alone gives 5.
    for (opt, floor) in [("", 5), (",jump_floor=on", 15)] {
        let mut d = Driver::new(&format!("rapidstart(iw=30,jump=off{opt})"));
        let pns = d.send(30);
        d.advance(ms(100));
        d.lose(&pns);
        assert_eq!(d.window(), floor * MDS, "{opt}");
    }
}

#[test]
fn quicly_rapid_start_on_first_lost_floor_counts_the_jump_bytes_acked() {
    // The jump to 20 packets, 15 jump packets acked (more than IW 10),
    // then the other 4 and 31 later packets lost: the floor is 0.5 × 15
    // packets, not 0.5 × IW.
    let run = |opt: &str| {
        let mut d = Driver::new(&format!("rapidstart(iw=10{opt})"));
        let first = d.send(1);
        d.advance(ms(30));
        d.ack(&first);
        let jump = d.send(19);
        d.advance(ms(60));
        d.ack_each(&jump[..15]);
        let more = d.send(31);
        d.advance(ms(60));
        d.lose(&jump[15..]);
        d.lose(&more);
        d.window()
    };
    assert_eq!(run(",jump_floor=on"), 15 * MDS / 2);
    assert!(run("") < 15 * MDS / 2);
}
