//! Spurious losses: counting a declared-lost packet acknowledged later, and
//! the undo signal of RFC 9438 §4.9 for a recovery episode whose every loss
//! was spurious.

use crate::recovery_support;

use ramp_cc::recovery::RecoveryConfig;
use recovery_support::{ms, Call, Harness, MDS};

#[test]
fn rfc9438_4_9_spurious_losses_counted_and_undo_signalled_once() {
    let mut h = Harness::confirmed();
    for pn in 0..5 {
        h.send(ms(0), pn);
    }
    h.ack(ms(10), &[(3, 4)]).unwrap();
    assert_eq!(h.lost_pns(), vec![0, 1]);
    // The "lost" packets arrive after all (reordering).
    h.ack(ms(12), &[(0, 4)]).unwrap();
    assert_eq!(h.acked_pns(), vec![2]);
    assert_eq!(h.ack.spurious, 2);
    assert!(h.ack.spurious_episode);
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 1);
    let spurious_at = h.cc.calls.iter().position(|c| matches!(c, Call::Spurious));
    let end_at =
        h.cc.calls
            .iter()
            .rposition(|c| matches!(c, Call::FrameEnd(_)));
    assert!(spurious_at < end_at, "undo comes before the frame end");
    assert_eq!(h.det.stats().spurious_losses, 2);
    assert_eq!(h.det.stats().spurious_bytes, 2 * MDS);
    assert_eq!(h.det.stats().spurious_episodes, 1);
    // A duplicate counts nothing more.
    h.ack(ms(14), &[(0, 4)]).unwrap();
    assert_eq!(h.ack.spurious, 0);
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 1);
}

#[test]
fn rfc9438_4_9_no_undo_while_some_loss_of_the_episode_is_real() {
    let mut h = Harness::confirmed();
    for pn in 0..5 {
        h.send(ms(0), pn);
    }
    h.ack(ms(10), &[(3, 4)]).unwrap();
    h.ack(ms(12), &[(3, 4), (1, 1)]).unwrap();
    assert_eq!(h.ack.spurious, 1);
    assert!(!h.ack.spurious_episode);
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 0);
    // A spurious ACK alone (nothing newly acked) still completes the proof.
    h.ack(ms(13), &[(0, 1)]).ok();
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 1);
}

#[test]
fn rfc9438_4_9_no_undo_after_ce_in_the_same_recovery() {
    let mut h = Harness::confirmed();
    for pn in 0..6 {
        h.send(ms(0), pn);
    }
    h.ack(ms(10), &[(3, 4)]).unwrap();
    h.ack_ecn(ms(11), &[(5, 5), (3, 4)], Some(1)).unwrap();
    h.ack(ms(12), &[(0, 5)]).unwrap();
    assert_eq!(h.det.stats().spurious_losses, 3, "0, 1, then 2");
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 0);
}

#[test]
fn rfc9438_4_9_undo_only_for_the_current_episode() {
    let mut h = Harness::confirmed();
    for pn in 0..5 {
        h.send(ms(0), pn);
    }
    h.ack(ms(10), &[(3, 4)]).unwrap(); // episode 1 at 10 ms: 0, 1 lost
    for pn in 5..10 {
        h.send(ms(20), pn); // sent after the recovery started
    }
    h.ack(ms(30), &[(8, 9), (2, 4)]).unwrap(); // episode 2 at 30 ms: 5, 6 lost
    assert_eq!(h.lost_pns(), vec![5, 6]);
    assert_eq!(h.cc.congestion_events().len(), 2);
    // Episode 1's losses turn out spurious: counted, but the current
    // recovery is episode 2's, and its losses are still real.
    h.ack(ms(31), &[(8, 9), (0, 4)]).unwrap();
    assert_eq!(h.det.stats().spurious_losses, 2);
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 0);
    h.ack(ms(32), &[(0, 9)]).unwrap();
    assert_eq!(h.det.stats().spurious_losses, 4);
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 1);
}

#[test]
fn rfc9438_4_9_forgotten_loss_prevents_undo() {
    let mut h = Harness::new(RecoveryConfig {
        spurious_memory_packets: 1,
        ..RecoveryConfig::confirmed()
    });
    for pn in 0..5 {
        h.send(ms(0), pn);
    }
    h.ack(ms(10), &[(3, 4)]).unwrap();
    assert_eq!(h.lost_pns(), vec![0, 1]);
    h.ack(ms(12), &[(0, 4)]).unwrap();
    assert_eq!(
        h.ack.spurious, 1,
        "only the remembered loss (1) is recognised"
    );
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 0);
}
