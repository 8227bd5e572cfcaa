//! RFC 9002 §7.6 persistent congestion through the loss detector.

use crate::recovery_support;

use ramp_cc::recovery::RecoveryConfig;
use recovery_support::{dms, ms, Call, Harness};

/// A 100 ms first sample, then packets 1..=6 where 1..=3 span 1100 ms; the
/// ACK of 6 (150 ms RTT) declares 1, 2, 3 lost by packet threshold.
fn persistent_setup(h: &mut Harness) {
    h.send(ms(0), 0);
    h.ack(ms(100), &[(0, 0)]).unwrap();
    h.send(ms(200), 1);
    h.send(ms(700), 2);
    h.send(ms(1300), 3);
    for pn in 4..=6 {
        h.send(ms(1400), pn);
    }
}

#[test]
fn rfc9002_7_6_persistent_congestion_declared_and_min_rtt_reset() {
    let mut h = Harness::confirmed();
    persistent_setup(&mut h);
    h.ack(ms(1550), &[(6, 6)]).unwrap();
    assert_eq!(h.lost_pns(), vec![1, 2, 3]);
    // srtt 106.25, rttvar 50: duration (106.25 + 200 + 25) · 3 = 993.75 ms < 1100.
    let ev = h.cc.congestion_events();
    assert_eq!(ev.len(), 1);
    assert!(ev[0].persistent_congestion);
    assert!(h.ack.persistent_congestion);
    assert_eq!(h.det.stats().persistent_congestions, 1);
    // §5.2: min_rtt re-established from the newest sample (150 ms), before
    // the controller hears of it.
    assert_eq!(h.det.rtt().min(), dms(150));
    assert_eq!(h.cc.min_rtt_at_event, Some(dms(150)));
}

#[test]
fn rfc9002_7_6_min_rtt_reset_can_be_turned_off() {
    let mut h = Harness::new(RecoveryConfig {
        reset_min_rtt_on_persistent_congestion: false,
        ..RecoveryConfig::confirmed()
    });
    persistent_setup(&mut h);
    h.ack(ms(1550), &[(6, 6)]).unwrap();
    assert!(h.ack.persistent_congestion);
    assert_eq!(h.det.rtt().min(), dms(100));
}

#[test]
fn rfc9002_7_6_1_span_must_exceed_duration() {
    let mut h = Harness::confirmed();
    h.send(ms(0), 0);
    h.ack(ms(100), &[(0, 0)]).unwrap();
    h.send(ms(200), 1);
    h.send(ms(700), 2);
    h.send(ms(1100), 3); // span 900 ms < 993.75 ms
    for pn in 4..=6 {
        h.send(ms(1400), pn);
    }
    h.ack(ms(1550), &[(6, 6)]).unwrap();
    assert_eq!(h.lost_pns(), vec![1, 2, 3]);
    assert!(!h.cc.congestion_events()[0].persistent_congestion);
}

#[test]
fn rfc9002_7_6_2_packet_acked_in_between_prevents_persistent_congestion() {
    let mut h = Harness::confirmed();
    persistent_setup(&mut h);
    h.ack(ms(1550), &[(6, 6), (2, 2)]).unwrap();
    assert_eq!(h.lost_pns(), vec![1, 3]);
    assert!(!h.cc.congestion_events()[0].persistent_congestion);
    assert!(!h.ack.persistent_congestion);
}

#[test]
fn rfc9002_7_6_2_only_losses_sent_after_first_rtt_sample_count() {
    let mut h = Harness::confirmed();
    h.send(ms(0), 0);
    h.send(ms(500), 1);
    h.send(ms(1100), 2);
    for pn in 3..=5 {
        h.send(ms(1200), pn);
    }
    // First RTT sample comes with the ACK that declares 0, 1, 2 lost.
    h.ack(ms(1300), &[(5, 5)]).unwrap();
    assert_eq!(h.lost_pns(), vec![0, 1, 2]);
    assert!(!h.cc.congestion_events()[0].persistent_congestion);
}

#[test]
fn rfc9002_7_6_2_non_ack_eliciting_losses_do_not_establish_it() {
    let mut h = Harness::confirmed();
    h.send(ms(0), 0);
    h.ack(ms(100), &[(0, 0)]).unwrap();
    h.send(ms(200), 1);
    h.send_ack_only(ms(1300), 2);
    for pn in 3..=5 {
        h.send(ms(1400), pn);
    }
    // 1 (ack-eliciting) and 2 (ACK-only) span 1100 ms, but only one of
    // them is ack-eliciting.
    h.ack(ms(1550), &[(5, 5)]).unwrap();
    assert_eq!(h.lost_pns(), vec![1, 2]);
    assert!(!h.cc.congestion_events()[0].persistent_congestion);
}

#[test]
fn rfc9002_7_6_persistent_congestion_is_never_undone() {
    let mut h = Harness::confirmed();
    persistent_setup(&mut h);
    h.ack(ms(1550), &[(6, 6)]).unwrap();
    assert!(h.ack.persistent_congestion);
    h.ack(ms(1560), &[(0, 6)]).unwrap();
    assert_eq!(h.ack.spurious, 3);
    assert_eq!(h.cc.count(|c| matches!(c, Call::Spurious)), 0);
}
