//! A ramp-cc [`Controller`](ramp_cc::Controller) inside quinn.
//!
//! [`RampFactory`] is a quinn [`ControllerFactory`]; each connection gets a
//! [`RampController`] that owns one `Box<dyn ramp_cc::Controller>` and
//! translates quinn's callbacks (quinn-proto 0.11.19) into ramp-cc's:
//!
//! | quinn | ramp-cc |
//! |---|---|
//! | `on_sent(now, bytes, last_pn)` (once per send batch) | `on_packet_sent` per datagram of the batch |
//! | `on_ack(now, sent, bytes, app_limited, _)` (per packet) | buffered, then `on_packet_acked` |
//! | `on_end_acks(now, in_flight, app_limited, largest)` | own RTT sample, the buffered `on_packet_acked`s, `on_ack_frame_end` |
//! | `on_congestion_event(now, sent, pc, lost_bytes)` | `on_congestion_event` (`lost_bytes == 0` is ECN-CE in 0.11) |
//! | `on_mtu_update(mtu)` | `on_mtu_update` |
//! | `window()` | `window()`, or the pacing gate's open/closed answer ([`gate`]) |
//!
//! Why the acknowledgements of a frame are buffered: quinn calls `on_ack`
//! before it updates its RTT estimator with the frame's sample, and keeps
//! `latest_rtt` private. The shim therefore keeps its own RFC 9002 §5
//! [`RttEstimator`], takes the sample `now − time_sent` of the newest packet
//! the frame acknowledges (not adjusted for ack delay, which quinn does not
//! expose to controllers), updates the estimator, and only then hands the
//! packets to the controller, so that they see the same up-to-date RTT as in
//! ramp's own loss detector (RFC 9002 Appendix A.7 order).
//!
//! Send batches: with segmentation offload quinn sends up to ten
//! datagrams in one batch and reports them with one `on_sent` of their
//! total bytes. Every datagram of a GSO batch but the last has the
//! batch's segment size, at most the path MTU, so the shim hands the
//! controller `ceil(bytes / MTU)` datagrams (the batch's bytes split
//! evenly), each with a number of its own, as the simulator sends them.
//!
//! Packet numbers: quinn reports one `last_packet_number` per send batch,
//! numbered per packet-number space, and none per acknowledged packet;
//! packets of one batch share their send time. Numbers of different spaces
//! do not compare (RFC 9000 §12.3), and quinn does not say which space a
//! batch or an ACK frame belongs to, so the shim numbers the batches itself
//! in send order across spaces, remembers `send time → batch number`, and
//! gives each acknowledged packet its batch's number and each frame the
//! largest of its packets. quinn stamps every batch of one driver pass
//! with the same `now`, so several batches can share a send time: the
//! shim keeps the run of numbers per send time and hands them out in
//! order as that time's packets are acknowledged (quinn reports a frame's
//! packets in packet-number order), so that each packet still gets a
//! number of its own (BBR's delivery-rate sampler keys its per-packet
//! state by it). Round tracking (HyStart++, Rapid Start) is
//! therefore batch-granular and in send order: a Handshake ACK covers only
//! batches sent before the 1-RTT flight it might otherwise have ended.
//! (quinn's own `largest_packet_num_acked` is not used.)
//!
//! Bytes in flight at `on_packet_sent`: quinn does not pass it; the shim
//! uses the value of the last `on_end_acks` plus the bytes sent since,
//! minus the bytes declared lost since. While the pacing gate is in
//! charge, a batch quinn sent without asking the gate (ACK-only packets,
//! which quinn neither counts in flight nor ever acknowledges, and PTO
//! probes) is left out until the next `on_end_acks`
//! ([`gate::PacingGate::asked_since_report`]); quinn's statistics are read
//! through [`stats_of`], whose `window()` call the gate does not take for
//! a question before a datagram.
//!
//! ACK times: quinn processes every datagram of one endpoint wake-up
//! with the same `now`. With an [`ArrivalLog`]
//! ([`RampFactory::with_arrivals`]), the shim gives the controller (and
//! takes its RTT sample at) each ACK frame's kernel arrival time instead
//! ([`crate::arrival`]). The controller is told of the frame, and of a
//! loss event it reveals, at that time but never before the newest send:
//! a batch sent while the datagram waited for quinn was sent before the
//! sender knew of the loss and belongs to the recovery period (RFC 9002
//! §7.3.2); the RTT sample stays the kernel's.
//!
//! Pacing: with a [`ConnWake`] ([`RampFactory::paced_by_controller`]), the
//! shim sends at the controller's `pacing_rate()` instead of quinn's
//! `1.25 · window / srtt`, through a gate behind `window()` ([`gate`]) and
//! a waker thread that brings quinn back when the gate reopens ([`wake`]).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ramp_cc::{AckedPacket, RttEstimator};

use crate::arrival::AckClock;
use crate::probe::ConnProbe;

mod controller;
mod factory;
pub(crate) mod gate;
pub(crate) mod quicly_gate;
mod quinn_calls;
mod stats_read;
pub(crate) mod wake;

pub(crate) use factory::RampFactory;
use gate::PacingGate;
pub(crate) use stats_read::stats_of;
pub(crate) use wake::ConnWake;

/// RFC 9000 §18.2 default `max_ack_delay` (25 ms): the bound the shim's RTT
/// estimator uses; quinn does not tell controllers the peer's value.
const DEFAULT_MAX_ACK_DELAY: Duration = Duration::from_millis(25);

/// How long a send batch is remembered for packet-number lookup: far beyond
/// any loss-detection horizon (RFC 9002 §6.1.2 time threshold, PTO).
const BATCH_MEMORY: Duration = Duration::from_secs(10);

/// Builds a ramp-cc controller for a connection, given the path MTU (bytes)
/// quinn starts with.
pub(crate) type BuildController = dyn Fn(u16) -> Box<dyn ramp_cc::Controller> + Send + Sync;

/// Counters the shim keeps beside the controller (h2o's `num-packets.*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ShimCounters {
    /// Ack-eliciting packets newly acknowledged.
    pub packets_acked: u64,
    /// Their bytes.
    pub bytes_acked: u64,
    /// ACK frames processed (`on_end_acks` calls).
    pub ack_frames: u64,
    /// Send batches (`on_sent` calls).
    pub send_batches: u64,
    /// Datagrams handed to the controller (`ceil(bytes / MTU)` per batch).
    pub datagrams_sent: u64,
    /// Congestion events reported by quinn (loss passes and CE increases).
    pub congestion_events: u64,
    /// ACK frames timed by their datagram's kernel arrival.
    pub ack_frames_kernel_timed: u64,
}

/// The batch numbers that share one send time: `next..=last`, handed out
/// to acknowledgements in order.
#[derive(Clone, Copy, Debug)]
struct BatchRun {
    next: u64,
    last: u64,
}

impl BatchRun {
    /// The next number of the run (the last once all were handed out: a
    /// duplicate report then maps where it did before).
    fn hand_out(&mut self) -> u64 {
        let pn = self.next.min(self.last);
        self.next = pn + 1;
        pn
    }
}

/// The pacing gate and the waker end that brings quinn back to it (never
/// cloned: a `clone_box` snapshot has no gate).
struct Gate {
    pacer: PacingGate,
    wake: Arc<ConnWake>,
}

/// A quinn [`Controller`] running a ramp-cc controller.
pub(crate) struct RampController {
    /// The ramp-cc controller (`Send + Sync`, as quinn requires).
    inner: Box<dyn ramp_cc::Controller>,
    /// `window()` and `metrics()` take `&self`: cached after each call.
    window: u64,
    ssthresh: Option<u64>,
    pacing_bps: Option<u64>,
    base: Instant,
    rtt: RttEstimator,
    /// Send time of remembered batches → their numbers in send order.
    batches: BTreeMap<Instant, BatchRun>,
    /// The number of the next send batch.
    next_batch: u64,
    /// The acknowledgements of the ACK frame being processed.
    pending: Vec<AckedPacket>,
    pending_newest_sent: Option<Instant>,
    /// quinn's time of the newest send batch: a congestion event is never
    /// timed before it (`on_congestion_event`).
    last_sent: Option<Instant>,
    bytes_in_flight: u64,
    counters: ShimCounters,
    probe: Option<Arc<ConnProbe>>,
    /// The current maximum datagram size, bytes (the gate's packet).
    mds: u64,
    /// The controller's pacing, when the factory asked for it.
    gate: Option<Gate>,
    /// Kernel arrival times of ACK frames, when the factory has them.
    ack_clock: Option<AckClock>,
    /// quinn's `now` of the last ACK frame's end while that frame's loss
    /// detection may still report: see [`RampController::loss_source`].
    frame_end_at: Option<Instant>,
}

#[cfg(test)]
mod gate_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod timing_tests;
