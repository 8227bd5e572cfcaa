//! The congestion-controller interface.
//!
//! A controller is told, one call at a time, what the loss detector saw:
//! packets sent, each newly acknowledged packet, the end of each ACK frame,
//! and congestion events (losses found in one detection pass, or an increase
//! of the peer's ECN-CE count). It answers with a window, an optional pacing
//! rate, and a state for traces.
//!
//! The shape follows quinn's `Controller` (per-packet `on_ack`, then
//! `on_end_acks`, lost bytes per detection pass, CE as a congestion event) so
//! the real-network adapter is a thin shim, and the simulator's loss detector
//! ([`crate::recovery`]) drives the very same calls.
//!
//! Order of calls inside one ACK frame: RFC 9002 Appendix A's, ECN, then
//! losses, then acknowledgements. ramp's loss detector calls in that order;
//! quinn 0.11 delivers the acknowledgements first, and the quinn adapter
//! wraps every controller in [`crate::quinn_order::RfcOrder`], which
//! restores the RFC order. So a controller is written for that one order.

use core::fmt;
use core::time::Duration;

use crate::rtt::RttEstimator;
use ramp_vocab::time::{Rate, Time};

/// A newly acknowledged, in-flight, ack-eliciting packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckedPacket {
    /// Application-space packet number; `None` for an Initial or Handshake
    /// packet. Packet numbers are ordered only within a space (RFC 9000
    /// §12.3), so only application numbers may mark or end rounds and the
    /// first flight.
    pub packet_number: Option<u64>,
    /// When the packet was sent.
    pub time_sent: Time,
    /// Bytes the packet counted in bytes-in-flight (its UDP payload size).
    pub bytes: u64,
}

/// What the loss detector knows when it has processed a whole ACK frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckFrameSummary {
    /// Bytes in flight after the frame's acknowledgements and losses.
    pub bytes_in_flight: u64,
    /// Largest application-space packet number this frame newly
    /// acknowledged; `None` for an Initial or Handshake frame (RFC 9000
    /// §12.3: numbers of different spaces do not compare).
    pub largest_acked: Option<u64>,
    /// The RTT sample this frame produced (RFC 9002 §5.1), if any: raw
    /// `now - time_sent(largest_acked)`, not adjusted for ack delay.
    pub rtt_sample: Option<Duration>,
    /// Whether the sender was application- or flow-control-limited before
    /// this ACK (RFC 9002 §7.8): the window must not grow on its credit.
    pub app_limited: bool,
}

/// What kind of congestion signal an event carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionSignal {
    /// Packets declared lost in one detection pass (RFC 9002 §6.1), with the
    /// sum of their sizes. Passes with no ack-eliciting loss raise no event.
    Loss {
        /// Bytes newly declared lost in this pass.
        lost_bytes: u64,
    },
    /// The peer-reported ECN-CE count increased (RFC 9002 §7.1).
    Ecn {
        /// By how much: packets newly reported CE-marked (at least 1; 1
        /// when the stack does not say, as quinn 0.11 does not).
        ce_packets: u64,
        /// The bytes of those packets, estimated: QUIC counts packets
        /// (RFC 9000 §19.3.2), so this is `ce_packets` times the mean size
        /// of the ECT packets the frame newly acknowledged (one full-size
        /// datagram per packet where the stack says nothing more). A
        /// scalable controller (Prague) takes its marked fraction from it.
        ce_bytes: u64,
    },
}

/// Where a congestion event was detected: in an ACK frame's processing, or
/// by the loss-detection timer (RFC 9002 §6.1.2 time threshold, Appendix
/// A.9 `OnLossDetectionTimeout`), outside any frame.
///
/// A controller that judges an ACK frame by the bytes in flight at its
/// start needs it: quicly (h2o/quicly 45bf8a37, lib/quicly.c) detects a
/// frame's losses at the end of `handle_ack_frame`, after reading its
/// `bytes_in_flight`, but a timer's in `do_send`'s `quicly_loss_on_alarm`,
/// before any later frame reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventSource {
    /// Found while processing an ACK frame (losses by the packet or time
    /// threshold at the frame's arrival, or an ECN-CE increase).
    AckFrame,
    /// Declared lost by the loss-detection timer, outside any ACK frame.
    LossTimer,
}

/// A congestion event: the input of RFC 9002 §7.3.2 `OnCongestionEvent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CongestionEvent {
    /// Loss or CE.
    pub signal: CongestionSignal,
    /// Send time of the newest packet behind the signal: the largest lost
    /// packet for a loss, the largest acknowledged packet for CE. The
    /// recovery-period rule compares it with the recovery start time.
    pub time_sent: Time,
    /// RFC 9002 §7.6: the losses establish persistent congestion.
    pub persistent_congestion: bool,
    /// Whether an ACK frame or the loss-detection timer found it.
    pub source: EventSource,
}

/// The phase a controller reports, for traces, qlog and records: a stable
/// lower-case name (qlog's `congestion_state_updated` vocabulary where one
/// exists) and whether it is a startup phase. Each controller defines its
/// own phases (e.g. [`crate::loss_based::LossBasedState`]) and maps them
/// here, so a new controller needs no shared enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CcPhase {
    name: &'static str,
    startup: bool,
}

impl CcPhase {
    /// A phase named `name`; `startup` if the controller is still in its
    /// initial ramp-up (before the first reduction or a delay-based exit).
    pub const fn new(name: &'static str, startup: bool) -> CcPhase {
        CcPhase { name, startup }
    }

    /// The stable name used in records, traces and qlog.
    pub fn as_str(self) -> &'static str {
        self.name
    }

    /// Whether this is a startup phase.
    pub fn is_startup(self) -> bool {
        self.startup
    }
}

impl fmt::Display for CcPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A snapshot of a controller's counters, for stats records and traces.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Congestion window, bytes.
    pub cwnd_bytes: u64,
    /// Slow-start threshold, bytes (`None` while still infinite).
    pub ssthresh_bytes: Option<u64>,
    /// Current pacing rate, if the controller paces.
    pub pacing_rate: Option<Rate>,
    /// Window when the connection first left slow start (by loss, CE, or a
    /// HyStart++ exit): h2o's `cc.cwnd-exiting-slow-start`.
    pub cwnd_exiting_slow_start_bytes: Option<u64>,
    /// Congestion events that started a recovery period (loss or CE):
    /// h2o's `cc.num-loss-episodes`.
    pub num_loss_episodes: u64,
    /// Of those, the ones triggered by ECN-CE alone: h2o's
    /// `cc.num-ecn-loss-episodes`.
    pub num_ecn_loss_episodes: u64,
    /// Times persistent congestion collapsed the window.
    pub num_persistent_congestion: u64,
    /// Times a spurious-loss signal undid a reduction.
    pub num_spurious_undos: u64,
}

/// A congestion controller. Byte-based windows throughout.
///
/// Implementations must keep `window() >= minimum window` (RFC 9002 §7.2,
/// `2·max_datagram_size`), never overflow, and return a finite, positive
/// pacing rate whenever they return one.
///
/// Six methods are required, as in quinn's `Controller`:
/// [`Controller::on_congestion_event`], [`Controller::window`],
/// [`Controller::phase`], [`Controller::initial_window`],
/// [`Controller::name`] and [`Controller::clone_box`]. The rest default
/// to doing nothing (events), to "none" (ssthresh, pacing, burst) or to
/// what the required ones give ([`Controller::metrics`]). A wrapper that
/// passes calls on to another controller writes them with
/// [`crate::forward_controller!`].
pub trait Controller: Send + Sync + fmt::Debug {
    /// One packet (or one GSO batch, whose last packet number is given) was
    /// sent. `bytes_in_flight` includes it. `packet_number` is `None` for
    /// Initial and Handshake packets (see [`AckedPacket::packet_number`]).
    /// The default ignores it.
    fn on_packet_sent(
        &mut self,
        _now: Time,
        _packet_number: Option<u64>,
        _bytes: u64,
        _bytes_in_flight: u64,
    ) {
    }

    /// One in-flight packet was newly acknowledged. Called once per packet,
    /// before [`Controller::on_ack_frame_end`] for the same frame. The
    /// default ignores it.
    fn on_packet_acked(
        &mut self,
        _now: Time,
        _packet: &AckedPacket,
        _rtt: &RttEstimator,
        _app_limited: bool,
    ) {
    }

    /// The in-flight packets an ACK frame newly acknowledged, ascending
    /// packet number, each as [`Controller::on_packet_acked`] would be
    /// told of it: the loss detector makes this one call per frame. The
    /// default calls `on_packet_acked` for each; a controller with work
    /// common to the frame's packets may do it once (a frame acknowledges
    /// several packets, and this is the detector's per-packet path).
    fn on_packets_acked(
        &mut self,
        now: Time,
        packets: &[AckedPacket],
        rtt: &RttEstimator,
        app_limited: bool,
    ) {
        for p in packets {
            self.on_packet_acked(now, p, rtt, app_limited);
        }
    }

    /// The whole ACK frame has been processed. The default ignores it.
    fn on_ack_frame_end(&mut self, _now: Time, _summary: &AckFrameSummary, _rtt: &RttEstimator) {}

    /// A loss or CE event (RFC 9002 §7.3.2). The controller applies the
    /// recovery-period rule itself: events for packets sent before the
    /// current recovery started are absorbed.
    fn on_congestion_event(&mut self, now: Time, event: &CongestionEvent, rtt: &RttEstimator);

    /// Every packet of the loss event that started the current recovery was
    /// later acknowledged (the loss was spurious, RFC 9438 §4.9). Controllers
    /// that support undo restore their pre-reduction state; the default does
    /// nothing.
    fn on_spurious_congestion(&mut self, _now: Time) {}

    /// The path MTU changed; windows in packets are recomputed. The
    /// default ignores it (a window kept in bytes stays as it is).
    fn on_mtu_update(&mut self, _max_datagram_size: u64) {}

    /// Parameters saved from an earlier connection on this path (RFC 9959;
    /// [`crate::resume`]), given before the first packet. Controllers that
    /// jump use them for the jump once an RTT sample confirms the path;
    /// the default ignores them.
    fn resume_from(&mut self, _saved: crate::resume::SavedPath) {}

    /// The congestion window, bytes.
    fn window(&self) -> u64;

    /// The slow-start threshold, bytes, or `None` while infinite (the
    /// default: a controller without one).
    fn ssthresh(&self) -> Option<u64> {
        None
    }

    /// The rate at which the sender should pace, or `None` to send
    /// unpaced (the default). The controller owns its rate: Rapid Start
    /// paces its first flight over one full RTT, slow start at twice the
    /// window per RTT.
    fn pacing_rate(&self, _rtt: &RttEstimator) -> Option<Rate> {
        None
    }

    /// The longest burst the controller wants the pacer to send, as time
    /// at the pacing rate, or `None` for the pacer's own quantum. Prague
    /// follows its reference sender's 250 µs (udp_prague `BURST_TIME`).
    fn pacing_burst(&self) -> Option<Duration> {
        None
    }

    /// The current phase.
    fn phase(&self) -> CcPhase;

    /// Counters for records and traces. The default reports the window
    /// and ssthresh and counts nothing.
    fn metrics(&self) -> Metrics {
        Metrics {
            cwnd_bytes: self.window(),
            ssthresh_bytes: self.ssthresh(),
            ..Metrics::default()
        }
    }

    /// The initial window, bytes.
    fn initial_window(&self) -> u64;

    /// The canonical name of this controller and its options, parseable by
    /// [`crate::spec`], e.g. `cubic+rapidstart(latch_2x=on)`.
    fn name(&self) -> String;

    /// A boxed copy (the controller is plain data).
    fn clone_box(&self) -> Box<dyn Controller>;
}

impl Clone for Box<dyn Controller> {
    fn clone(&self) -> Self {
        (**self).clone_box()
    }
}

/// Writes [`Controller`] methods that pass the call on to another
/// controller, for wrappers: `forward_controller!(|c| c.inner; window,
/// ssthresh)` inside an `impl Controller` block writes `window` and
/// `ssthresh` as calls on `self.inner`. The closure-like head names the
/// wrapped controller from `c`, the wrapper (`&self` or `&mut self`);
/// the list names the methods to forward, any of the trait's. A wrapper
/// writes by hand only the methods where it does something itself.
#[macro_export]
macro_rules! forward_controller {
    (|$c:ident| $inner:expr; $($method:ident),+ $(,)?) => {
        $( $crate::forward_controller!(@one $c, $inner, $method); )+
    };
    (@one $c:ident, $inner:expr, on_packet_sent) => {
        #[inline]
        fn on_packet_sent(
            &mut self,
            now: $crate::Time,
            packet_number: ::core::option::Option<u64>,
            bytes: u64,
            bytes_in_flight: u64,
        ) {
            let $c = self;
            $crate::Controller::on_packet_sent(
                &mut $inner, now, packet_number, bytes, bytes_in_flight,
            )
        }
    };
    (@one $c:ident, $inner:expr, on_packet_acked) => {
        #[inline]
        fn on_packet_acked(
            &mut self,
            now: $crate::Time,
            packet: &$crate::AckedPacket,
            rtt: &$crate::RttEstimator,
            app_limited: bool,
        ) {
            let $c = self;
            $crate::Controller::on_packet_acked(&mut $inner, now, packet, rtt, app_limited)
        }
    };
    (@one $c:ident, $inner:expr, on_packets_acked) => {
        #[inline]
        fn on_packets_acked(
            &mut self,
            now: $crate::Time,
            packets: &[$crate::AckedPacket],
            rtt: &$crate::RttEstimator,
            app_limited: bool,
        ) {
            let $c = self;
            $crate::Controller::on_packets_acked(&mut $inner, now, packets, rtt, app_limited)
        }
    };
    (@one $c:ident, $inner:expr, on_ack_frame_end) => {
        #[inline]
        fn on_ack_frame_end(
            &mut self,
            now: $crate::Time,
            summary: &$crate::AckFrameSummary,
            rtt: &$crate::RttEstimator,
        ) {
            let $c = self;
            $crate::Controller::on_ack_frame_end(&mut $inner, now, summary, rtt)
        }
    };
    (@one $c:ident, $inner:expr, on_congestion_event) => {
        #[inline]
        fn on_congestion_event(
            &mut self,
            now: $crate::Time,
            event: &$crate::CongestionEvent,
            rtt: &$crate::RttEstimator,
        ) {
            let $c = self;
            $crate::Controller::on_congestion_event(&mut $inner, now, event, rtt)
        }
    };
    (@one $c:ident, $inner:expr, on_spurious_congestion) => {
        #[inline]
        fn on_spurious_congestion(&mut self, now: $crate::Time) {
            let $c = self;
            $crate::Controller::on_spurious_congestion(&mut $inner, now)
        }
    };
    (@one $c:ident, $inner:expr, on_mtu_update) => {
        #[inline]
        fn on_mtu_update(&mut self, max_datagram_size: u64) {
            let $c = self;
            $crate::Controller::on_mtu_update(&mut $inner, max_datagram_size)
        }
    };
    (@one $c:ident, $inner:expr, resume_from) => {
        #[inline]
        fn resume_from(&mut self, saved: $crate::resume::SavedPath) {
            let $c = self;
            $crate::Controller::resume_from(&mut $inner, saved)
        }
    };
    (@one $c:ident, $inner:expr, pacing_rate) => {
        #[inline]
        fn pacing_rate(&self, rtt: &$crate::RttEstimator) -> ::core::option::Option<$crate::Rate> {
            let $c = self;
            $crate::Controller::pacing_rate(&$inner, rtt)
        }
    };
    (@one $c:ident, $inner:expr, window) => {
        $crate::forward_controller!(@get $c, $inner, window, u64);
    };
    (@one $c:ident, $inner:expr, ssthresh) => {
        $crate::forward_controller!(@get $c, $inner, ssthresh, ::core::option::Option<u64>);
    };
    (@one $c:ident, $inner:expr, pacing_burst) => {
        $crate::forward_controller!(
            @get $c, $inner, pacing_burst, ::core::option::Option<::core::time::Duration>
        );
    };
    (@one $c:ident, $inner:expr, phase) => {
        $crate::forward_controller!(@get $c, $inner, phase, $crate::CcPhase);
    };
    (@one $c:ident, $inner:expr, metrics) => {
        $crate::forward_controller!(@get $c, $inner, metrics, $crate::Metrics);
    };
    (@one $c:ident, $inner:expr, initial_window) => {
        $crate::forward_controller!(@get $c, $inner, initial_window, u64);
    };
    (@one $c:ident, $inner:expr, name) => {
        $crate::forward_controller!(@get $c, $inner, name, ::std::string::String);
    };
    (@one $c:ident, $inner:expr, clone_box) => {
        $crate::forward_controller!(
            @get $c, $inner, clone_box, ::std::boxed::Box<dyn $crate::Controller>
        );
    };
    (@get $c:ident, $inner:expr, $method:ident, $ret:ty) => {
        #[inline]
        fn $method(&self) -> $ret {
            let $c = self;
            $crate::Controller::$method(&$inner)
        }
    };
}

/// A boxed controller is a controller (the simulator and the quinn
/// adapter hold `Box<dyn Controller>`).
impl Controller for Box<dyn Controller> {
    crate::forward_controller!(|c| **c;
        on_packet_sent, on_packet_acked, on_packets_acked, on_ack_frame_end, on_congestion_event,
        on_spurious_congestion, on_mtu_update, resume_from, window, ssthresh,
        pacing_rate, pacing_burst, phase, metrics, initial_window, name, clone_box);
}
