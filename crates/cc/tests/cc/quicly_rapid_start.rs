//! Rapid Start's first recovery with quicly's values against h2o/quicly
//! 45bf8a37 (`lib/cc-pico.c`, `include/quicly/cc.h`), on the seed arm
//! `rapid-no-jump`.

use ramp_cc::spec::SEED_ARMS;
use ramp_cc::{Controller, LossBasedState};

use crate::scripted::{ms, us, Script, MDS};

/// Round 1 (IW 30, acked 50 ms later, 3× growth), then round 2's first
/// ACK frame: 20 packets acked, the first 5 lost, which starts the first
/// recovery. Returns the script and round 2's packets.
fn into_first_recovery(spec: &str) -> (Script, Vec<u64>) {
    let mut d = Script::new(spec);
    let p1 = d.fill();
    d.adv(ms(50));
    let p2 = d.ack_pairs(&p1, us(10), true);
    d.adv(ms(50));
    d.frame(&p2[5..25], &p2[0..5], 0);
    assert_eq!(d.cc.state(), LossBasedState::RapidRecovery);
    (d, p2)
}

/// quicly `pico_on_lost`: every loss in the first recovery ends with
/// `ClampMinAndUpdateMetrics: ... cc->ssthresh = cc->cwnd;`, while its
/// ACKs (`pico_on_acked` → `quicly_cc_rapid_start_on_recovery`) lower
/// cwnd alone. At the end of the recovery ssthresh is the window after the
/// last loss, above cwnd, and pico slow-starts back to it (`if (cc->cwnd
/// < cc->ssthresh)`), Rapid Start off.
#[test]
fn quicly_pico_on_lost_keeps_the_last_loss_ssthresh_and_slow_starts_back() {
    let (mut d, p2) = into_first_recovery(SEED_ARMS[2].1);
    // A second loss (a timer, no ACK): quicly's ssthresh = cwnd here.
    d.adv(us(100));
    d.frame(&[], &p2[25..30], 0);
    let at_last_loss = d.cc.window();
    d.ack_pairs(&p2[30..], us(10), false);
    let n = d.send(1);
    d.adv(ms(50));
    d.frame(&n, &[], 0);
    let exit_cwnd = d.cc.window();
    assert!(at_last_loss > exit_cwnd + 5 * MDS);
    assert_eq!(d.cc.ssthresh(), Some(at_last_loss));
    assert_eq!(d.cc.state(), LossBasedState::SlowStart);
    // One round later the window has slow-started (one byte per byte
    // acked) up to that ssthresh, and is in congestion avoidance.
    let w = d.fill();
    d.adv(ms(50));
    d.ack_pairs(&w, us(10), false);
    assert!(
        d.cc.window() >= at_last_loss,
        "{} < {at_last_loss}",
        d.cc.window()
    );
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
    // -02 as ramp resolves it (recovery=draft): ssthresh = cwnd at the exit.
    let draft = SEED_ARMS[2].1.replace("recovery=quicly", "recovery=draft");
    let (mut d, p2) = into_first_recovery(&draft);
    d.ack_pairs(&p2[25..], us(10), false);
    let n = d.send(1);
    d.adv(ms(50));
    d.frame(&n, &[], 0);
    assert_eq!(d.cc.ssthresh(), Some(d.cc.window()));
    assert_eq!(d.cc.state(), LossBasedState::CongestionAvoidance);
}

/// quicly `quicly_cc_rapid_start_on_first_lost` scales cwnd by the loss
/// factor and takes the floor; the lost packet's bytes are not charged
/// (later losses of the same recovery are, through
/// `quicly_cc_rapid_start_on_recovery(0, bytes)`). -02 as ramp resolves
/// it (docs/algorithms.md ambiguity #7) charges them.
#[test]
fn quicly_rapid_start_on_first_lost_charges_no_lost_bytes() {
    let (q, _) = into_first_recovery(SEED_ARMS[2].1);
    let draft = SEED_ARMS[2].1.replace("recovery=quicly", "recovery=draft");
    let (d, _) = into_first_recovery(&draft);
    // K = 11/18, β = 0.7: loss factor β + K(1 − β) = 0.8833 per byte.
    let charged = 5 * MDS * 53 / 60;
    let diff = q.cc.window() - d.cc.window();
    assert!(diff.abs_diff(charged) <= 1, "{diff} vs {charged}");
}
