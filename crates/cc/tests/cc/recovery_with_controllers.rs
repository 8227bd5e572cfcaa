//! The loss detector driving ramp's real controllers (built from names, as
//! the simulator builds them): the RFC 9002 recovery-period rule seen end to
//! end, the spurious-loss undo, and a long lossy transfer for every
//! controller without a panic or a window below the minimum.

use std::time::Duration;

use ramp_cc::quinn_order::RfcOrder;
use ramp_cc::recovery::{
    AckFrame, AckOutcome, LossDetector, RecoveryConfig, SentPacket, Space, TimeoutKind,
    TimeoutOutcome,
};
use ramp_cc::EcnCodepoint;
use ramp_cc::{parse_controller, CcConfig, Controller, EventOrder, RecoveryStats, Time};

const MDS: u64 = 1200;

fn build(name: &str, cfg: &CcConfig) -> Box<dyn Controller> {
    parse_controller(name)
        .map(|s| s.build(cfg))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

struct Conn {
    det: LossDetector<()>,
    cc: Box<dyn Controller>,
    out: AckOutcome<()>,
    next_pn: u64,
}

impl Conn {
    fn new(name: &str, cfg: &CcConfig) -> Self {
        Conn {
            det: LossDetector::new(RecoveryConfig::confirmed()),
            cc: build(name, cfg),
            out: AckOutcome::new(),
            next_pn: 0,
        }
    }
    fn send(&mut self, now: Time) -> u64 {
        let pn = self.next_pn;
        self.next_pn += 1;
        self.det.on_packet_sent(
            Space::Application,
            SentPacket {
                packet_number: pn,
                time_sent: now,
                size: MDS,
                ack_eliciting: true,
                in_flight: true,
                ecn: EcnCodepoint::NotEct,
                payload: (),
            },
            &mut *self.cc,
        );
        pn
    }
    fn ack(&mut self, now: Time, ranges: &[(u64, u64)]) {
        let frame = AckFrame::new(
            ranges.iter().map(|&(a, b)| a..=b).collect(),
            Duration::ZERO,
            None,
        )
        .unwrap();
        self.det
            .on_ack_received(
                now,
                Space::Application,
                &frame,
                false,
                &mut *self.cc,
                &mut self.out,
            )
            .unwrap();
    }
}

#[test]
fn rfc9002_7_3_2_one_reduction_per_recovery_period_through_the_detector() {
    let mut c = Conn::new("newreno", &CcConfig::default());
    let iw = c.cc.window();
    for _ in 0..10 {
        c.send(Time::ZERO);
    }
    // 0 lost by packet threshold (ACK of 3), a reduction.
    c.ack(Time::from_millis(50), &[(3, 3)]);
    assert_eq!(c.out.lost.len(), 1);
    let reduced = c.cc.window();
    assert_eq!(reduced, iw / 2, "NewReno halves");
    // 4 lost too (ACK of 7): sent before recovery started, absorbed.
    c.ack(Time::from_millis(51), &[(7, 7), (3, 3)]);
    assert!(c.out.lost.iter().any(|_| true));
    assert_eq!(c.cc.window(), reduced);
    assert_eq!(c.cc.metrics().num_loss_episodes, 1);
}

#[test]
fn rfc9438_4_9_spurious_loss_undoes_the_reduction_through_the_detector() {
    let cfg = CcConfig {
        undo: true,
        ..CcConfig::default()
    };
    for name in ["newreno", "cubic"] {
        let mut c = Conn::new(name, &cfg);
        let iw = c.cc.window();
        for _ in 0..10 {
            c.send(Time::ZERO);
        }
        c.ack(Time::from_millis(50), &[(3, 3)]);
        assert!(c.cc.window() < iw, "{name}: reduced");
        // The "lost" packet 0 arrives after all.
        c.ack(Time::from_millis(52), &[(0, 3)]);
        assert!(c.out.spurious_episode, "{name}");
        assert!(
            c.cc.window() >= iw,
            "{name}: window {} restored to at least {iw}",
            c.cc.window()
        );
        assert_eq!(c.cc.metrics().num_spurious_undos, 1, "{name}");
    }
}

/// A crude path: a fixed one-way delay, one packet in 50 dropped, the
/// receiver acknowledging every second packet with up to 8 ranges. Returns
/// the window after every 100 µs step, and the detector's counters.
fn lossy_transfer(name: &str, order: EventOrder) -> (Vec<u64>, RecoveryStats) {
    let mut c = Conn::new(name, &CcConfig::default());
    // In quinn's order the controller is wrapped to see the RFC's.
    c.cc = Box::new(RfcOrder::new(c.cc, order));
    c.det = LossDetector::new(RecoveryConfig {
        event_order: order,
        ..RecoveryConfig::confirmed()
    });
    let mut to = TimeoutOutcome::new();
    let rtt = Duration::from_millis(20);
    let mut now = Time::ZERO;
    let mut in_transit: std::collections::VecDeque<(Time, u64)> = Default::default();
    let mut recv: Vec<(u64, u64)> = vec![];
    let mut received = 0u64;
    let mut windows = vec![];
    for _step in 0..200_000u64 {
        now += Duration::from_micros(100);
        if let Some(t) = c.det.timer() {
            if t <= now {
                c.det.on_timeout(now, &mut *c.cc, &mut to);
                if let TimeoutKind::Pto { probes, .. } = to.kind {
                    for _ in 0..probes {
                        let pn = c.send(now);
                        in_transit.push_back((now + rtt, pn));
                    }
                }
            }
        }
        while c.det.bytes_in_flight() + MDS <= c.cc.window() {
            let pn = c.send(now);
            if pn % 50 != 25 {
                in_transit.push_back((now + rtt, pn));
            }
        }
        while in_transit.front().is_some_and(|&(t, _)| t <= now) {
            let Some((_, pn)) = in_transit.pop_front() else {
                break;
            };
            received += 1;
            match recv.first_mut() {
                Some(r) if r.1 + 1 == pn => r.1 = pn,
                _ => recv.insert(0, (pn, pn)),
            }
            recv.truncate(8);
            if received.is_multiple_of(2) {
                c.ack(now, &recv.clone());
            }
        }
        assert!(c.cc.window() >= 2 * MDS, "{name}: window below the minimum");
        windows.push(c.cc.window());
    }
    (windows, *c.det.stats())
}

const NAMES: [&str; 6] = [
    "newreno",
    "cubic",
    "cubic+hystart",
    "newreno+jumpstart",
    "rapidstart",
    "cubic+rapidstart",
];

#[test]
fn every_controller_survives_a_long_lossy_transfer() {
    for name in NAMES {
        let (_, s) = lossy_transfer(name, EventOrder::Rfc9002);
        // 2% loss caps a Reno flow near 1.22/sqrt(0.02) ≈ 8.6 packets per
        // 20 ms round: about 8,600 packets in these 20 s. A stall would be
        // far below.
        assert!(
            s.packets_acked > 4_000,
            "{name}: only {} packets acked",
            s.packets_acked
        );
        assert!(
            s.packets_lost > 0 && s.loss_events > 0,
            "{name}: no losses seen"
        );
        assert_eq!(
            s.spurious_losses, 0,
            "{name}: no reordering, no spurious loss"
        );
    }
}

/// RFC 9002 Appendix A.7: the RTT sample is taken before the frame's
/// acknowledgements reach the controller. In quinn's order the simulator's
/// detector must do the same, or the estimator handed to
/// `on_ack_frame_end` misses the frame's sample and jump start and Rapid
/// Start act one frame late (at the first ACK, 20 ms, the windows were
/// 31,200 vs 33,600 B for jump start, 38,400 vs 43,200 B for Rapid Start).
#[test]
fn rfc9002_appendix_a_7_first_ack_frame_gives_the_same_window_in_both_orders() {
    for name in ["newreno+jumpstart", "rapidstart", "cubic+rapidstart"] {
        let windows: Vec<u64> = [EventOrder::Rfc9002, EventOrder::AcksFirst]
            .into_iter()
            .map(|order| {
                let mut c = Conn::new(name, &CcConfig::default());
                c.cc = Box::new(RfcOrder::new(c.cc, order));
                c.det = LossDetector::new(RecoveryConfig {
                    event_order: order,
                    ..RecoveryConfig::confirmed()
                });
                for _ in 0..10 {
                    c.send(Time::ZERO);
                }
                c.ack(Time::from_millis(20), &[(0, 1)]);
                c.cc.window()
            })
            .collect();
        assert_eq!(windows[0], windows[1], "{name}: RFC order vs quinn order");
    }
}

/// config.rs `EventOrder`: both orders must give the same windows; the
/// detector can produce both.
#[test]
fn quinn_event_order_gives_the_same_windows_as_rfc9002_order() {
    let mut failures = vec![];
    for name in NAMES {
        let (rfc, rfc_stats) = lossy_transfer(name, EventOrder::Rfc9002);
        let (quinn, quinn_stats) = lossy_transfer(name, EventOrder::AcksFirst);
        let first_diff = rfc.iter().zip(&quinn).position(|(a, b)| a != b);
        if let Some(i) = first_diff {
            failures.push(format!(
                "{name}: windows differ from step {i}: {:?} vs {:?}; stats equal: {}",
                &rfc[i..(i + 3).min(rfc.len())],
                &quinn[i..(i + 3).min(quinn.len())],
                rfc_stats == quinn_stats
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Sends one in-flight packet of `space` through the detector.
fn send_in(c: &mut Conn, now: Time, space: Space, pn: u64) {
    let packet = SentPacket {
        packet_number: pn,
        time_sent: now,
        size: MDS,
        ack_eliciting: true,
        in_flight: true,
        ecn: EcnCodepoint::NotEct,
        payload: (),
    };
    c.det.on_packet_sent(space, packet, &mut *c.cc);
}

/// Acknowledges `pn` of `space`.
fn ack_in(c: &mut Conn, now: Time, space: Space, pn: u64) {
    let frame = AckFrame::new(vec![pn..=pn], Duration::ZERO, None).unwrap();
    c.det
        .on_ack_received(now, space, &frame, false, &mut *c.cc, &mut c.out)
        .unwrap();
}

#[test]
fn rfc9000_12_3_a_handshake_ack_does_not_end_the_first_flight() {
    // Packet numbers are ordered only within a space. Handshake packet 2
    // is acknowledged while the 1-RTT first flight (numbers from 0) is
    // out: comparing it with the flight's marker would end the flight
    // before any of it was acknowledged.
    let mut c = Conn::new("rapidstart", &CcConfig::default());
    c.det = LossDetector::new(RecoveryConfig::default());
    send_in(&mut c, Time::ZERO, Space::Initial, 0);
    for pn in 0..3 {
        send_in(&mut c, Time::ZERO, Space::Handshake, pn);
    }
    // The client's Initial ACK is the first RTT sample: the jump starts.
    ack_in(&mut c, Time::from_millis(30), Space::Initial, 0);
    assert_eq!(c.cc.phase(), ramp_cc::LossBasedState::JumpStart.phase());
    for pn in 0..5 {
        send_in(&mut c, Time::from_millis(31), Space::Application, pn);
    }
    ack_in(&mut c, Time::from_millis(32), Space::Handshake, 2);
    assert_eq!(
        c.cc.phase(),
        ramp_cc::LossBasedState::JumpStart.phase(),
        "a Handshake ACK ended the 1-RTT first flight"
    );
    // The flight ends with the ACK of its first 1-RTT packet.
    ack_in(&mut c, Time::from_millis(61), Space::Application, 0);
    assert_eq!(c.cc.phase(), ramp_cc::LossBasedState::RapidGrowth.phase());
}

#[test]
fn rapid_start_02_3_1_defer_off_first_flight_is_the_1rtt_data_not_the_handshake() {
    // With `defer=off` the jump window is open from the start, but the
    // first flight is the 2·IW of application data: the ACK of the Initial
    // packet must not end it.
    let mut c = Conn::new("rapidstart(defer=off)", &CcConfig::default());
    c.det = LossDetector::new(RecoveryConfig::default());
    send_in(&mut c, Time::ZERO, Space::Initial, 0);
    assert_eq!(c.cc.phase(), ramp_cc::LossBasedState::JumpStart.phase());
    ack_in(&mut c, Time::from_millis(30), Space::Initial, 0);
    assert_eq!(
        c.cc.phase(),
        ramp_cc::LossBasedState::JumpStart.phase(),
        "the Initial's ACK ended the first flight"
    );
    for pn in 0..4 {
        send_in(&mut c, Time::from_millis(31), Space::Application, pn);
    }
    ack_in(&mut c, Time::from_millis(61), Space::Application, 0);
    assert_eq!(c.cc.phase(), ramp_cc::LossBasedState::RapidGrowth.phase());
}
