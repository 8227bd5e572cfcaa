//! Tests of the quinn ↔ ramp-cc shim: a recording controller checks what
//! each quinn callback turns into.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quinn_proto::congestion::Controller;
use ramp_cc::{
    AckFrameSummary, AckedPacket, CongestionEvent, CongestionSignal, EventSource, Metrics, Rate,
    RttEstimator, Time,
};

use super::*;

/// What the recording controller saw.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Call {
    Sent {
        t: Time,
        pn: Option<u64>,
        bytes: u64,
        in_flight: u64,
    },
    Acked {
        t: Time,
        pn: Option<u64>,
        sent: Time,
        bytes: u64,
        latest: Duration,
    },
    FrameEnd {
        t: Time,
        summary: AckFrameSummary,
    },
    Congestion {
        t: Time,
        event: CongestionEvent,
    },
    Mtu(u64),
}

/// A test-only controller: a fixed window that records every call.
#[derive(Clone, Debug)]
pub(super) struct Recorder {
    pub(super) calls: Arc<Mutex<Vec<Call>>>,
    pub(super) window: u64,
    pub(super) rate: Rate,
}

impl Recorder {
    fn push(&self, c: Call) {
        self.calls.lock().unwrap().push(c);
    }
}

impl ramp_cc::Controller for Recorder {
    fn on_packet_sent(&mut self, now: Time, pn: Option<u64>, bytes: u64, in_flight: u64) {
        self.push(Call::Sent {
            t: now,
            pn,
            bytes,
            in_flight,
        });
    }
    fn on_packet_acked(&mut self, now: Time, p: &AckedPacket, rtt: &RttEstimator, _al: bool) {
        self.push(Call::Acked {
            t: now,
            pn: p.packet_number,
            sent: p.time_sent,
            bytes: p.bytes,
            latest: rtt.latest(),
        });
        self.window += p.bytes;
    }
    fn on_ack_frame_end(&mut self, now: Time, summary: &AckFrameSummary, _rtt: &RttEstimator) {
        self.push(Call::FrameEnd {
            t: now,
            summary: *summary,
        });
    }
    fn on_congestion_event(&mut self, now: Time, event: &CongestionEvent, _rtt: &RttEstimator) {
        self.push(Call::Congestion {
            t: now,
            event: *event,
        });
        self.window /= 2;
    }
    fn on_mtu_update(&mut self, mds: u64) {
        self.push(Call::Mtu(mds));
    }
    fn window(&self) -> u64 {
        self.window
    }
    fn ssthresh(&self) -> Option<u64> {
        Some(7)
    }
    fn pacing_rate(&self, _rtt: &RttEstimator) -> Option<Rate> {
        Some(self.rate)
    }
    fn phase(&self) -> ramp_cc::CcPhase {
        ramp_cc::LossBasedState::SlowStart.phase()
    }
    fn metrics(&self) -> Metrics {
        Metrics {
            cwnd_bytes: self.window,
            ..Metrics::default()
        }
    }
    fn initial_window(&self) -> u64 {
        12_000
    }
    fn name(&self) -> String {
        "recorder".into()
    }
    fn clone_box(&self) -> Box<dyn ramp_cc::Controller> {
        Box::new(self.clone())
    }
}

pub(super) fn setup() -> (RampController, Arc<Mutex<Vec<Call>>>, Instant) {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let base = Instant::now();
    let c = RampController::new(
        Box::new(Recorder {
            calls: calls.clone(),
            window: 12_000,
            rate: Rate::from_bytes_per_sec(1000),
        }),
        base,
        None,
    );
    (c, calls, base)
}

pub(super) fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

#[test]
fn quinn_instants_map_to_nanoseconds_since_build() {
    let (mut c, calls, base) = setup();
    c.on_sent(base + Duration::from_nanos(1_234_567), 1200, 0);
    assert_eq!(
        calls.lock().unwrap()[0],
        Call::Sent {
            t: Time::from_nanos(1_234_567),
            pn: Some(0),
            bytes: 1200,
            in_flight: 1200
        }
    );
}

#[test]
fn rfc9002_a7_acks_reach_the_controller_after_the_frame_rtt_sample() {
    let (mut c, calls, base) = setup();
    c.on_sent(base, 2400, 1); // packets 0 and 1, one GSO batch
    c.on_sent(base + ms(1), 1200, 2);
    // quinn: on_ack per packet, then on_end_acks; nothing reaches the
    // controller before the frame ends.
    c.ack(base, 1200);
    c.ack(base, 1200);
    c.ack(base + ms(1), 1200);
    assert_eq!(
        calls.lock().unwrap().len(),
        3,
        "a batch of two datagrams is two sends"
    );
    c.on_end_acks(base + ms(41), 0, false, Some(2));
    let calls = calls.lock().unwrap().clone();
    // The newest acked packet (sent at 1 ms) gives the 40 ms sample,
    // seen by every packet of the frame.
    let acked: Vec<_> = calls[3..6].to_vec();
    let acked_at_41 = |pn, sent| Call::Acked {
        t: Time::from_millis(41),
        pn,
        sent,
        bytes: 1200,
        latest: ms(40),
    };
    assert_eq!(
        acked,
        vec![
            acked_at_41(Some(0), Time::ZERO),
            acked_at_41(Some(1), Time::ZERO),
            acked_at_41(Some(2), Time::from_millis(1)),
        ]
    );
    assert_eq!(
        calls[6],
        Call::FrameEnd {
            t: Time::from_millis(41),
            summary: AckFrameSummary {
                bytes_in_flight: 0,
                largest_acked: Some(2),
                rtt_sample: Some(ms(40)),
                app_limited: false,
            },
        }
    );
    assert_eq!(c.rtt().min(), ms(40));
    assert_eq!(c.counters().packets_acked, 3);
    // The cached window follows the controller.
    assert_eq!(Controller::window(&c), 12_000 + 3600);
    assert_eq!(Controller::metrics(&c).ssthresh, Some(7));
    assert_eq!(Controller::metrics(&c).pacing_rate, Some(8000));
}

#[test]
fn rfc9000_12_3_batches_are_numbered_in_send_order_across_spaces() {
    // quinn numbers packets per space: an Initial, a Handshake and a 1-RTT
    // packet can all be number 0. The controller sees one send order, so a
    // Handshake ACK cannot look like the ACK of a later 1-RTT packet.
    let (mut c, calls, base) = setup();
    c.on_sent(base, 1200, 0); // Initial 0
    c.on_sent(base + ms(1), 1200, 0); // Handshake 0
    c.on_sent(base + ms(2), 1200, 0); // 1-RTT 0
    c.on_sent(base + ms(3), 1200, 1); // 1-RTT 1
    c.ack(base + ms(1), 1200); // the Handshake packet
    c.on_end_acks(base + ms(41), 3600, false, Some(0));
    let calls = calls.lock().unwrap().clone();
    let sent: Vec<_> = calls
        .iter()
        .filter_map(|c| match c {
            Call::Sent { pn, .. } => Some(*pn),
            _ => None,
        })
        .collect();
    assert_eq!(sent, vec![Some(0), Some(1), Some(2), Some(3)]);
    let Some(Call::FrameEnd { summary, .. }) = calls.last() else {
        panic!("no frame end: {calls:?}");
    };
    assert_eq!(summary.largest_acked, Some(1), "not quinn's per-space 0");
}

#[test]
fn batches_of_one_driver_pass_get_numbers_of_their_own() {
    // quinn stamps all datagrams of one driver pass with the same `now`:
    // three batches at t = 2 ms must still be acknowledged as 1, 2, 3.
    let (mut c, calls, base) = setup();
    c.on_sent(base, 1200, 0);
    for pn in 0..3 {
        c.on_sent(base + ms(2), 1200, pn);
    }
    for _ in 0..3 {
        c.ack(base + ms(2), 1200);
    }
    c.on_end_acks(base + ms(42), 1200, false, Some(2));
    let acked: Vec<_> = calls
        .lock()
        .unwrap()
        .iter()
        .filter_map(|c| match c {
            Call::Acked { pn, .. } => *pn,
            _ => None,
        })
        .collect();
    assert_eq!(acked, vec![1, 2, 3]);
}

#[test]
fn rfc9002_7_1_zero_lost_bytes_is_ecn_ce_and_loss_carries_bytes() {
    let (mut c, calls, base) = setup();
    c.on_sent(base, 1200, 2);
    c.on_congestion_event(base + ms(50), base, false, 0);
    c.on_congestion_event(base + ms(60), base, true, 1200);
    let calls = calls.lock().unwrap().clone();
    assert_eq!(
        calls[1],
        Call::Congestion {
            t: Time::from_millis(50),
            event: CongestionEvent {
                signal: CongestionSignal::Ecn {
                    ce_packets: 1,
                    ce_bytes: 1200,
                },
                time_sent: Time::ZERO,
                persistent_congestion: false,
                source: EventSource::AckFrame,
            },
        }
    );
    assert_eq!(
        calls[2],
        Call::Congestion {
            t: Time::from_millis(60),
            event: CongestionEvent {
                signal: CongestionSignal::Loss { lost_bytes: 1200 },
                time_sent: Time::ZERO,
                persistent_congestion: true,
                source: EventSource::LossTimer,
            },
        }
    );
    assert_eq!(Controller::window(&c), 3000);
}

#[test]
fn bytes_in_flight_estimate_follows_sends_acks_and_losses() {
    let (mut c, calls, base) = setup();
    c.on_sent(base, 2400, 1);
    c.on_sent(base + ms(1), 1200, 2);
    c.ack(base, 1200);
    c.on_end_acks(base + ms(40), 2400, false, Some(0));
    c.on_congestion_event(base + ms(40), base, false, 1200);
    c.on_sent(base + ms(41), 1200, 3);
    c.on_mtu_update(1400);
    let calls = calls.lock().unwrap().clone();
    let in_flight: Vec<u64> = calls
        .iter()
        .filter_map(|c| match c {
            Call::Sent { in_flight, .. } => Some(*in_flight),
            _ => None,
        })
        .collect();
    // The 2400-byte batch is two datagrams.
    assert_eq!(in_flight, vec![1200, 2400, 3600, 2400]);
    assert_eq!(calls.last(), Some(&Call::Mtu(1400)));
}

#[test]
fn clone_box_is_a_detached_snapshot() {
    let (mut c, _calls, base) = setup();
    c.on_sent(base, 1200, 0);
    c.ack(base, 1200);
    c.on_end_acks(base + ms(10), 0, false, Some(0));
    let copy = Controller::clone_box(&c);
    let mut copy = copy
        .into_any()
        .downcast::<RampController>()
        .expect("a RampController");
    assert_eq!(copy.counters(), c.counters());
    assert_eq!(copy.cc_metrics().cwnd_bytes, 13_200);
    assert_eq!(Controller::initial_window(&*copy), 12_000);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Send(u64),
        Ack,
        EndAcks,
        Loss(u64),
        Ce,
        Wait(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (1u64..15_000).prop_map(Op::Send),
            Just(Op::Ack),
            Just(Op::EndAcks),
            (1u64..5_000).prop_map(Op::Loss),
            Just(Op::Ce),
            (0u64..100_000).prop_map(Op::Wait),
        ]
    }

    proptest! {
        /// Any order of quinn callbacks, with every controller real mode is
        /// compared with the simulator on: no panic, and the window never drops below RFC 9002
        /// §7.2's minimum of two datagrams.
        #[test]
        fn rfc9002_7_2_window_stays_above_minimum_under_any_callback_order(
            cc in 0usize..crate::choice::COMPARED.len(),
            ops in proptest::collection::vec(op(), 1..200),
        ) {
            let name = crate::choice::COMPARED[cc];
            let choice = crate::choice::CcChoice::parse(name).unwrap();
            let base = Instant::now();
            let mut c = RampController::new((choice.build)(1200), base, None);
            let mut now = base;
            let mut sent: Vec<Instant> = Vec::new();
            let mut pn = 0u64;
            for o in ops {
                match o {
                    Op::Send(b) => {
                        pn += b.div_ceil(1200);
                        c.on_sent(now, b, pn);
                        sent.push(now);
                    }
                    Op::Ack => {
                        if !sent.is_empty() {
                            let t = sent.remove(0);
                            c.ack(t, 1200);
                        }
                    }
                    Op::EndAcks => c.on_end_acks(now, 1200 * sent.len() as u64, false, Some(pn)),
                    Op::Loss(b) => {
                        let t = sent.first().copied().unwrap_or(base);
                        c.on_congestion_event(now, t, false, b);
                    }
                    Op::Ce => c.on_congestion_event(now, now, false, 0),
                    Op::Wait(us) => now += Duration::from_micros(us),
                }
                prop_assert!(Controller::window(&c) >= 2400, "{name}: window {}", Controller::window(&c));
            }
        }
    }
}

#[test]
fn a_gso_batch_reaches_the_controller_datagram_by_datagram() {
    // quinn reports a GSO batch with one `on_sent` of its total bytes:
    // 3 × 1200 + 500 bytes is four datagrams, each numbered, their sizes
    // adding up to the batch.
    let (mut c, calls, base) = setup();
    c.on_sent(base, 3 * 1200 + 500, 7);
    let sent: Vec<(Option<u64>, u64, u64)> = calls
        .lock()
        .unwrap()
        .iter()
        .filter_map(|call| match call {
            Call::Sent {
                pn,
                bytes,
                in_flight,
                ..
            } => Some((*pn, *bytes, *in_flight)),
            _ => None,
        })
        .collect();
    assert_eq!(
        sent,
        vec![
            (Some(0), 1025, 1025),
            (Some(1), 1025, 2050),
            (Some(2), 1025, 3075),
            (Some(3), 1025, 4100),
        ]
    );
    assert_eq!(c.counters().send_batches, 1);
    assert_eq!(c.counters().datagrams_sent, 4);
}
