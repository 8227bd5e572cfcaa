//! When the controller is told of an ACK frame and of a congestion event:
//! the frame's kernel arrival time, never before the newest send (RFC 9002
//! §7.3.2), and whether a loss is the frame's or the loss-detection
//! timer's.

use std::sync::Arc;
use std::time::Duration;

use quinn_proto::congestion::Controller;
use ramp_cc::quinn_order::RfcOrder;
use ramp_cc::{CongestionEvent, CongestionSignal, EventOrder, EventSource, Time};

use super::tests::{ms, setup, Call};

/// quinn-proto 0.11 runs a frame's loss detection right after
/// `on_end_acks` at the same `now` (`Connection::on_ack_received`); its
/// loss-detection timer reports outside any frame. The controller is told
/// which, so that quicly's CC-limited rule (lib/quicly.c
/// `handle_ack_frame` at h2o/quicly 45bf8a37) does not count a timer's
/// losses in a frame's in-flight.
#[test]
fn a_loss_right_after_a_frame_end_is_the_frames_and_any_other_the_timers() {
    let (mut c, calls, base) = setup();
    c.on_sent(base, 6_000, 4);
    // The timer, then a frame at the same instant, then its loss.
    c.on_congestion_event(base + ms(50), base, false, 1200);
    c.ack(base, 1200);
    c.on_end_acks(base + ms(50), 2400, false, Some(1));
    c.on_congestion_event(base + ms(50), base, false, 1200);
    // A second loss after the same frame end can only be a timer's.
    c.on_congestion_event(base + ms(50), base, false, 1200);
    // A frame, a send, then a loss: the send ended the frame's detection.
    c.ack(base, 1200);
    c.on_end_acks(base + ms(60), 0, false, Some(2));
    c.on_sent(base + ms(60), 1200, 5);
    c.on_congestion_event(base + ms(60), base, false, 1200);
    let sources: Vec<EventSource> = calls
        .lock()
        .unwrap()
        .iter()
        .filter_map(|c| match c {
            Call::Congestion { event, .. } => Some(event.source),
            _ => None,
        })
        .collect();
    use EventSource::{AckFrame, LossTimer};
    assert_eq!(
        sources,
        [LossTimer, AckFrame, LossTimer, LossTimer],
        "{:?}",
        calls.lock().unwrap()
    );
}

#[test]
fn ack_frames_are_timed_by_their_datagrams_kernel_arrival() {
    // Two ACK-only datagrams reached the kernel 30.0 and 30.5 ms after the
    // sends, but quinn's driver read both in one wake-up at 41 ms and
    // processed them with one `now`. With the socket's log, each frame gets
    // its own arrival time, and the RTT sample is taken at it.
    let (mut c, calls, base) = setup();
    let log = Arc::new(crate::arrival::ArrivalLog::new());
    c.ack_clock = Some(crate::arrival::AckClock::new(log.clone()));
    c.on_sent(base, 1200, 0);
    c.on_sent(base + ms(1), 1200, 1);
    // One wake-up per datagram (the socket's rule): driver time n, then
    // the hand-over p just after it.
    let n1 = base + ms(41);
    log.record(n1 + Duration::from_nanos(1), Some(base + ms(30)));
    let n2 = n1 + Duration::from_nanos(2);
    log.record(
        n2 + Duration::from_nanos(1),
        Some(base + Duration::from_micros(31_500)),
    );
    c.ack(base, 1200);
    c.on_end_acks(n1, 1200, false, Some(0));
    c.ack(base + ms(1), 1200);
    c.on_end_acks(n2, 0, false, Some(1));
    // A loss revealed by the second frame is timed with it.
    c.on_congestion_event(n2, base, false, 1200);
    let calls = calls.lock().unwrap().clone();
    let ends: Vec<(Time, Option<Duration>)> = calls
        .iter()
        .filter_map(|c| match c {
            Call::FrameEnd { t, summary } => Some((*t, summary.rtt_sample)),
            _ => None,
        })
        .collect();
    // (The loss after the frame makes RfcOrder hand the frame end over
    // again, at the same time.)
    assert_eq!(
        ends[..2],
        [
            (Time::from_millis(30), Some(ms(30))),
            (
                Time::from_micros(31_500),
                Some(Duration::from_micros(30_500))
            ),
        ]
    );
    assert!(calls.contains(&Call::Congestion {
        t: Time::from_micros(31_500),
        event: CongestionEvent {
            signal: CongestionSignal::Loss { lost_bytes: 1200 },
            time_sent: Time::ZERO,
            persistent_congestion: false,
            source: EventSource::AckFrame,
        },
    }));
    assert_eq!(c.counters().ack_frames_kernel_timed, 2);
}

#[test]
fn without_a_stamp_the_frame_keeps_quinns_time() {
    let (mut c, calls, base) = setup();
    c.ack_clock = Some(crate::arrival::AckClock::new(Arc::new(
        crate::arrival::ArrivalLog::new(),
    )));
    c.on_sent(base, 1200, 0);
    c.ack(base, 1200);
    c.on_end_acks(base + ms(40), 0, false, Some(0));
    let calls = calls.lock().unwrap().clone();
    assert!(matches!(
        calls.last(),
        Some(Call::FrameEnd { t, .. }) if *t == Time::from_millis(40)
    ));
    assert_eq!(c.counters().ack_frames_kernel_timed, 0);
}

#[test]
fn rfc9002_7_3_2_a_packet_sent_before_the_loss_was_processed_is_in_its_recovery_period() {
    // The ACK frame that reveals a loss reached the kernel at 40 ms; quinn
    // sent packet G at 40.5 ms and processed the frame only at 41 ms. The
    // controller hears of the loss at the frame's kernel time, but G was
    // sent before the sender knew of it: RFC 9002 §7.3.2 starts the
    // recovery period when the loss is processed (`now()` in
    // `OnCongestionEvent`), so G belongs to it. When G is lost too, that
    // is not a second congestion event. (Before the shim started the
    // period no earlier than its newest send, G's loss halved the window
    // a second time: the e2e_relay rapidstart runs 40 % slower than the
    // simulator, 1 in 20.)
    let (mut c, _, base) = setup();
    c.inner = Box::new(RfcOrder::new(
        (crate::CcChoice::parse("newreno").expect("newreno").build)(1200),
        EventOrder::AcksFirst,
    ));
    c.refresh();
    let log = Arc::new(crate::arrival::ArrivalLog::new());
    c.ack_clock = Some(crate::arrival::AckClock::new(log.clone()));
    for i in 0..10 {
        c.on_sent(base + ms(i), 1200, i);
    }
    let g_sent = base + Duration::from_micros(40_500);
    c.on_sent(g_sent, 1200, 10);
    let n = base + ms(41);
    log.record(n + Duration::from_nanos(1), Some(base + ms(40)));
    for i in 3..10 {
        c.ack(base + ms(i), 1200);
    }
    c.on_end_acks(n, 4 * 1200, false, Some(9));
    // Packet 0 declared lost by the packet threshold.
    c.on_congestion_event(n, base, false, 1200);
    let after_first = c.window();
    // G is declared lost later (its own timer, or a later frame).
    c.on_congestion_event(base + ms(90), g_sent, false, 1200);
    assert_eq!(
        c.window(),
        after_first,
        "one reduction per recovery period: G was sent before the loss was processed"
    );
    assert_eq!(c.cc_metrics().num_loss_episodes, 1);
}

#[test]
fn a_frames_loss_timed_after_a_send_in_the_gap_is_still_that_frames() {
    // As in the §7.3.2 test: the frame reached the kernel at 40 ms, a batch
    // left at 40.5 ms, quinn processed the frame at 41 ms and its loss
    // detection found a loss. The event is timed at 40.5 ms (no earlier
    // than the newest send), so the frame must be too: RfcOrder takes an
    // event for the frame's only at the frame's own time, and replays the
    // frame with the reduction first (RFC 9002 order). Timed at 40 ms, the
    // frame was left as it was and the event went through alone.
    let (mut c, calls, base) = setup();
    let log = Arc::new(crate::arrival::ArrivalLog::new());
    c.ack_clock = Some(crate::arrival::AckClock::new(log.clone()));
    c.on_sent(base, 1200, 0);
    c.on_sent(base + ms(1), 1200, 1);
    let gap_send = base + Duration::from_micros(40_500);
    c.on_sent(gap_send, 1200, 2);
    let n = base + ms(41);
    log.record(n + Duration::from_nanos(1), Some(base + ms(40)));
    c.ack(base + ms(1), 1200);
    c.on_end_acks(n, 2400, false, Some(1));
    c.on_congestion_event(n, base, false, 1200);
    let calls = calls.lock().unwrap().clone();
    let at = Time::from_micros(40_500);
    let loss = calls
        .iter()
        .position(|c| matches!(c, Call::Congestion { .. }))
        .expect("the loss reached the controller");
    assert!(
        matches!(calls[loss], Call::Congestion { t, .. } if t == at),
        "{calls:?}"
    );
    assert!(
        calls[loss..]
            .iter()
            .any(|c| matches!(c, Call::FrameEnd { t, .. } if *t == at)),
        "the frame is replayed after its loss: {calls:?}"
    );
    // The RTT sample is still the kernel's: 40 ms − 1 ms.
    assert_eq!(c.rtt().latest(), ms(39));
}
