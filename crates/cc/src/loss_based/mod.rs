//! The one loss-based controller every algorithm is built from.
//!
//! RFC 9002 §7 gives the skeleton shared by all of them: a window and a
//! slow-start threshold, recovery periods keyed on the recovery start time
//! (§7.3.2), the minimum window (§7.2), no growth while app-limited (§7.8)
//! and the persistent-congestion collapse (§7.6.2). Two choices fill it in:
//!
//! - the congestion-avoidance algorithm, any [`CongestionAvoidance`]
//!   (NewReno, CUBIC or Prague), which gives β, the growth and the
//!   decrease (`avoidance.rs`);
//! - the startup policy ([`Startup`]): any combination of the full-RTT paced
//!   first flight (`crate::jump_start`), Rapid Start's 3× growth and
//!   first-recovery reduction ([`crate::rapid_start`]) and HyStart++
//!   ([`crate::hystart`]); none of them is classic slow start.
//!
//! PRR (RFC 9937) optionally shapes the sending during ordinary recovery.
//!
//! Call order: RFC 9002 Appendix A's (a frame's congestion events, then its
//! acknowledgements, then its end). Growth is applied at the end of each
//! ACK frame, after the frame's RTT sample has entered the round tracker.
//! Callers in quinn's order wrap the controller in
//! [`crate::quinn_order::RfcOrder`], which restores this order.
//!
//! Files: this one holds the state and the [`Controller`] calls;
//! `avoidance.rs` the congestion-avoidance trait;
//! `congestion.rs` the reactions to congestion (recovery entry and exit,
//! persistent congestion); `growth.rs` the per-frame window growth.

use core::time::Duration;

mod avoidance;
mod congestion;
mod growth;
pub mod spec;
mod state;

pub use avoidance::{CaBox, CaContext, CongestionAvoidance};
pub use state::LossBasedState;

use crate::careful_resume::{CarefulResume, CrPhase, RetreatBeta, UnvalidatedExit};
use crate::config::{minimum_window, CcConfig};
use crate::controller::{
    AckFrameSummary, AckedPacket, CcPhase, CongestionEvent, CongestionSignal, Controller, Metrics,
};
use crate::hystart::HyStart;
use crate::jump_start::{jump_window, FirstFlight, JumpTally};
use crate::prr::Prr;
use crate::rapid_start::{RapidRecovery, RapidStart, RapidStartOptions};
use crate::ratio::Ratio;
use crate::resume::Reconnaissance;
use crate::round::RoundTracker;
use crate::rtt::{RttEstimator, INITIAL_RTT};
use ramp_vocab::time::{Rate, Time};

/// Whether and when the full-RTT paced `2·IW` first flight
/// (`crate::jump_start`) is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FirstFlightStart {
    /// No first flight: classic slow start from the initial window.
    #[default]
    Off,
    /// Jump once the first RTT sample exists (the draft's default).
    AfterFirstRttSample,
    /// Jump at once, paced over the initial RTT.
    Immediately,
}

impl FirstFlightStart {
    /// `Immediately` unless `defer`, then `AfterFirstRttSample`.
    pub fn deferred(defer: bool) -> FirstFlightStart {
        if defer {
            FirstFlightStart::AfterFirstRttSample
        } else {
            FirstFlightStart::Immediately
        }
    }
}

/// The startup policy: which of the optional startup mechanisms run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Startup {
    /// The full-RTT paced `2·IW` first flight.
    pub first_flight: FirstFlightStart,
    /// Rapid Start growth and first-recovery reduction.
    pub rapid: Option<RapidStartOptions>,
    /// HyStart++ during the initial slow start.
    pub hystart: bool,
    /// Careful Resume's PipeSize and Safe Retreat around the first flight
    /// ([`crate::careful_resume`]); only with `first_flight` and no `rapid`.
    pub careful_resume: bool,
    /// The window Careful Resume's Safe Retreat falls to.
    pub retreat_beta: RetreatBeta,
    /// When a resumed connection jumps to its saved window.
    pub recon: Reconnaissance,
}

/// RFC 9959's Reconnaissance Phase of a resumed connection: the initial
/// data (the first initial window of application bytes) and whether all
/// of it has been acknowledged.
#[derive(Clone, Copy, Debug, Default)]
struct Recon {
    /// Application bytes sent so far, counted up to the initial window.
    bytes: u64,
    /// The last packet of the initial data.
    last: Option<u64>,
}

impl Recon {
    /// Counts a packet sent; the initial data ends at the initial window.
    fn on_sent(&mut self, pn: u64, bytes: u64, iw: u64) {
        if self.bytes < iw {
            self.bytes = self.bytes.saturating_add(bytes);
            self.last = Some(pn);
        }
    }

    /// Whether an ACK with this largest acknowledged packet covers all
    /// the initial data ("Path confirmed").
    fn confirmed_by(&self, largest_acked: Option<u64>) -> bool {
        matches!((self.last, largest_acked), (Some(l), Some(a)) if a >= l)
    }
}

/// What a controller is doing; [`LossBasedState`] is derived from it.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// The initial startup (ssthresh infinite).
    Startup,
    /// Plain slow start after persistent congestion or an undo.
    SlowStart,
    /// An RFC 9002 recovery period.
    Recovery,
    /// Rapid Start's first recovery period.
    RapidRecovery(RapidRecovery),
    /// Congestion avoidance.
    CongestionAvoidance,
}

/// What an undo restores (RFC 9438 §4.9).
#[derive(Clone, Debug)]
struct Saved {
    cwnd: u64,
    ssthresh: u64,
    ca: Box<dyn CongestionAvoidance>,
}

/// The largest jump a saved window may ask for (1 GB): far above any
/// simulated path's bandwidth-delay product; it keeps a corrupt or
/// absurd saved rate from overflowing the window arithmetic.
pub const MAX_RESUMED_JUMP_BYTES: u64 = 1 << 30;

/// A loss-based controller: a congestion-avoidance algorithm with a
/// startup policy.
#[derive(Clone, Debug)]
pub struct LossBased {
    name: String,
    cfg: CcConfig,
    cwnd: u64,
    /// `u64::MAX` while infinite.
    ssthresh: u64,
    recovery_start: Option<Time>,
    phase: Phase,
    ca: Box<dyn CongestionAvoidance>,
    startup: Startup,
    first_flight: FirstFlight,
    /// Careful Resume while it is active (jump start with `retreat=on`).
    careful_resume: Option<CarefulResume>,
    /// The jump packets acknowledged (Rapid Start's `jump_floor`).
    jump_tally: JumpTally,
    hystart: Option<HyStart>,
    /// Rapid Start's policy and growth state, when it is on.
    rapid: Option<RapidStart>,
    round: RoundTracker,
    prr: Option<Prr>,
    saved: Option<Saved>,
    /// Parameters remembered from an earlier connection on the path
    /// (RFC 9959; [`crate::resume`]): they size the jump once confirmed.
    resume: Option<crate::resume::SavedPath>,
    /// The Reconnaissance Phase's initial data, for a resumed connection.
    recon: Recon,
    /// The current recovery period was started by ECN-CE and has seen no
    /// loss yet (h2o's ECN episode count; `ce_beta`).
    episode_ecn_only: bool,
    /// RFC 9002 §7.3.2: one packet may leave on entering recovery.
    send_one_pending: bool,
    /// Bytes of this ACK frame that may grow the window.
    frame_growth_bytes: u64,
    /// All bytes this ACK frame acknowledged (PRR's DeliveredData).
    frame_delivered: u64,
    frame_app_limited: bool,
    /// A loss arrived since the last frame end (PRR "safe" ACKs).
    loss_since_frame: bool,
    /// Bytes in flight as last reported, adjusted by acks and losses.
    in_flight: u64,
    srtt: Duration,
    has_rtt_sample: bool,
    any_event: bool,
    metrics: Metrics,
}

impl LossBased {
    /// A controller named `name` (its canonical spec) with the given parts.
    pub fn new(
        name: String,
        cfg: CcConfig,
        ca: Box<dyn CongestionAvoidance>,
        startup: Startup,
    ) -> LossBased {
        let iw = cfg.initial_window_bytes();
        let first_flight = match startup.first_flight {
            FirstFlightStart::AfterFirstRttSample => FirstFlight::Waiting,
            FirstFlightStart::Immediately => FirstFlight::Active { marker: None },
            FirstFlightStart::Off => FirstFlight::Done,
        };
        let cwnd = if first_flight.is_active() {
            jump_window(iw)
        } else {
            iw
        };
        LossBased {
            name,
            cfg,
            cwnd,
            ssthresh: u64::MAX,
            recovery_start: None,
            phase: Phase::Startup,
            ca,
            startup,
            first_flight,
            careful_resume: (startup.careful_resume && first_flight.is_active())
                .then(|| CarefulResume::jump(0, startup.retreat_beta)),
            jump_tally: JumpTally::default(),
            hystart: startup.hystart.then(|| HyStart::new(cfg.pacing)),
            rapid: startup.rapid.map(RapidStart::new),
            round: RoundTracker::new(),
            prr: None,
            saved: None,
            resume: None,
            recon: Recon::default(),
            episode_ecn_only: false,
            send_one_pending: false,
            frame_growth_bytes: 0,
            frame_delivered: 0,
            frame_app_limited: false,
            loss_since_frame: false,
            in_flight: 0,
            srtt: INITIAL_RTT,
            has_rtt_sample: false,
            any_event: false,
            metrics: Metrics::default(),
        }
    }

    fn mds(&self) -> u64 {
        self.cfg.max_datagram_size
    }
    fn min_window(&self) -> u64 {
        minimum_window(self.mds())
    }

    /// The congestion-avoidance algorithm and its state.
    pub fn ca(&self) -> &dyn CongestionAvoidance {
        &*self.ca
    }
    /// The congestion-avoidance algorithm as its concrete type `T`, if it
    /// is one (for traces and tests).
    pub fn ca_as<T: 'static>(&self) -> Option<&T> {
        self.ca.as_any().downcast_ref::<T>()
    }
    /// What the congestion-avoidance algorithm is told at `now`.
    fn ca_context(&self, now: Time) -> CaContext {
        CaContext {
            now,
            cwnd: self.cwnd,
            srtt: self.srtt,
            mds: self.mds(),
        }
    }
    /// The round tracker (for traces and tests).
    pub fn rounds(&self) -> &RoundTracker {
        &self.round
    }
    /// Careful Resume's state, while it is active.
    pub fn careful_resume(&self) -> Option<&CarefulResume> {
        self.careful_resume.as_ref()
    }
    /// Rapid Start's first-recovery state, while in it.
    pub fn rapid_recovery(&self) -> Option<&RapidRecovery> {
        match &self.phase {
            Phase::RapidRecovery(r) => Some(r),
            _ => None,
        }
    }
    /// The recovery period's start time, if one has started.
    pub fn recovery_start(&self) -> Option<Time> {
        self.recovery_start
    }
    /// PRR's state during an ordinary recovery with PRR on.
    pub fn prr(&self) -> Option<&Prr> {
        self.prr.as_ref()
    }

    fn in_recovery_period(&self, time_sent: Time) -> bool {
        self.recovery_start.is_some_and(|s| time_sent <= s)
    }

    /// A recovery period a CE reduction started, no loss has joined, and
    /// the algorithm grows through ([`CongestionAvoidance::grows_in_ce_recovery`]:
    /// Linux's TCP_CA_CWR, udp_prague's `cs_in_cwr`).
    fn in_growing_ce_recovery(&self) -> bool {
        self.ca.grows_in_ce_recovery()
            && matches!(self.phase, Phase::Recovery)
            && self.episode_ecn_only
            && self.careful_resume.is_none()
    }

    /// Whether `event`, inside such a CE reduction period, is a loss that
    /// still gets the loss reduction unless the algorithm holds it:
    /// udp_prague `ACKReceived` halves on a loss in any state but
    /// `cs_in_loss`, and Linux moves from TCP_CA_CWR to Recovery
    /// (`prague_enter_loss`).
    fn loss_cuts_in_ce_recovery(&self, now: Time, event: &CongestionEvent) -> bool {
        matches!(event.signal, CongestionSignal::Loss { .. })
            && self.in_growing_ce_recovery()
            && !self.ca.holds_reduction(&self.ca_context(now), event.signal)
    }

    fn note_exit_from_startup(&mut self) {
        if self.metrics.cwnd_exiting_slow_start_bytes.is_none() {
            self.metrics.cwnd_exiting_slow_start_bytes = Some(self.cwnd);
        }
    }

    fn pacing_rate_for(&self, srtt: Duration) -> Option<Rate> {
        if !self.cfg.pacing {
            return None;
        }
        let srtt = srtt.max(Duration::from_micros(1));
        let (bytes, gain) = match self.state() {
            LossBasedState::JumpStart => (self.cwnd, Ratio::ONE),
            LossBasedState::RapidGrowth => (
                self.cwnd,
                self.rapid.as_ref().map_or(Ratio::ONE, |r| r.pacing_gain()),
            ),
            LossBasedState::SlowStart
            | LossBasedState::RapidSlowStart
            | LossBasedState::ConservativeSlowStart => (self.cwnd, self.cfg.slow_start_pacing_gain),
            LossBasedState::RapidRecovery => (
                self.window(),
                self.rapid
                    .as_ref()
                    .map_or(self.cfg.ca_pacing_gain, |r| r.recovery_gain()),
            ),
            LossBasedState::Recovery | LossBasedState::CongestionAvoidance => {
                (self.window(), self.cfg.ca_pacing_gain)
            }
        };
        let rate = Rate::from_bytes_over(bytes, srtt).scaled(gain.num(), gain.den());
        Some(rate.max(Rate::from_bytes_per_sec(1)))
    }
}

impl LossBased {
    /// The current phase (also reported, by name, as [`Controller::phase`]).
    pub fn state(&self) -> LossBasedState {
        match self.phase {
            Phase::Startup => {
                if self.hystart.as_ref().is_some_and(HyStart::in_css) {
                    LossBasedState::ConservativeSlowStart
                } else if self.first_flight.is_active() {
                    LossBasedState::JumpStart
                } else if let (Some(r), true) = (&self.rapid, self.has_rtt_sample) {
                    if r.queue_building() {
                        LossBasedState::RapidSlowStart
                    } else {
                        LossBasedState::RapidGrowth
                    }
                } else {
                    LossBasedState::SlowStart
                }
            }
            Phase::SlowStart => LossBasedState::SlowStart,
            Phase::Recovery => LossBasedState::Recovery,
            Phase::RapidRecovery(_) => LossBasedState::RapidRecovery,
            Phase::CongestionAvoidance => LossBasedState::CongestionAvoidance,
        }
    }
}

impl Controller for LossBased {
    fn on_packet_sent(
        &mut self,
        now: Time,
        packet_number: Option<u64>,
        bytes: u64,
        bytes_in_flight: u64,
    ) {
        self.send_one_pending = false;
        self.in_flight = bytes_in_flight;
        if let Some(pn) = packet_number {
            // Rounds and the first flight are application data only.
            self.round.on_packet_sent(pn);
            if self.first_flight.is_active() {
                self.jump_tally.on_jump_packet_sent(pn);
                self.jump_tally.note_sent_at(now);
            }
            self.first_flight.on_packet_sent(pn);
            if self.resume.is_some() && self.first_flight == FirstFlight::Waiting {
                let iw = self.cfg.initial_window_bytes();
                self.recon.on_sent(pn, bytes, iw);
            }
            if let Some(cr) = self.careful_resume.as_mut() {
                cr.on_packet_sent(pn);
            }
        }
        if let Some(p) = self.prr.as_mut() {
            p.on_sent(bytes);
        }
    }

    fn on_packet_acked(
        &mut self,
        now: Time,
        packet: &AckedPacket,
        rtt: &RttEstimator,
        app_limited: bool,
    ) {
        self.any_event = true;
        self.srtt = rtt.smoothed();
        let ctx = self.ca_context(now);
        self.ca.on_bytes_acked(&ctx, packet.time_sent, packet.bytes);
        self.in_flight = self.in_flight.saturating_sub(packet.bytes);
        self.frame_delivered = self.frame_delivered.saturating_add(packet.bytes);
        if self.recovery_start.is_none() {
            // quicly counts jump ACKs outside recovery only (lib/cc-pico.c).
            self.jump_tally.on_acked(packet.packet_number, packet.bytes);
        }
        let ca_beta = self.ca.beta();
        if let Some(cr) = self.careful_resume.as_mut() {
            let last = cr.on_acked(packet.packet_number, packet.bytes);
            if let Some(floor) = cr.retreat_floor(ca_beta) {
                // quicly: a jump packet acknowledged in the recovery raises
                // cwnd to β·(jump bytes acknowledged).
                self.cwnd = self.cwnd.max(floor);
            }
            if last {
                // The last unvalidated packet is acknowledged.
                if cr.phase() == CrPhase::SafeRetreat {
                    self.finish_safe_retreat();
                } else {
                    self.careful_resume = None;
                }
            }
        }
        if matches!(self.phase, Phase::Recovery | Phase::RapidRecovery(_))
            && !self.in_recovery_period(packet.time_sent)
        {
            self.exit_recovery(now);
        }
        if self.in_recovery_period(packet.time_sent) && !self.in_growing_ce_recovery() {
            // RFC 9002 §7.3.2: no growth for packets sent before recovery
            // started; Rapid Start reduces by ack_factor instead (-02 §3.3).
            if let Phase::RapidRecovery(rr) = &mut self.phase {
                rr.on_acked(packet.bytes);
                self.cwnd = rr.cwnd();
            }
            return;
        }
        if self.first_flight.predates(packet.packet_number) {
            // -02 §3.1: the 2·IW jump already counts these bytes.
            return;
        }
        if app_limited {
            // RFC 9002 §7.8: the window does not grow on app-limited credit.
            self.frame_app_limited = true;
            return;
        }
        self.frame_growth_bytes = self.frame_growth_bytes.saturating_add(packet.bytes);
    }

    fn on_ack_frame_end(&mut self, now: Time, summary: &AckFrameSummary, rtt: &RttEstimator) {
        self.any_event = true;
        self.srtt = rtt.smoothed();
        self.in_flight = summary.bytes_in_flight;
        let had_sample = summary.rtt_sample.is_some();
        let round_ended = self
            .round
            .on_ack_frame(summary.largest_acked, summary.rtt_sample);
        if rtt.has_sample() {
            self.has_rtt_sample = true;
        }
        let n = core::mem::take(&mut self.frame_growth_bytes);
        let delivered = core::mem::take(&mut self.frame_delivered);
        let app_limited = core::mem::take(&mut self.frame_app_limited) || summary.app_limited;
        let lost = core::mem::take(&mut self.loss_since_frame);
        let n = if summary.app_limited { 0 } else { n };
        match self.phase {
            Phase::Startup => {
                self.evaluate_rapid(now, rtt, had_sample);
                self.grow_startup(n);
                self.hystart_step(now, round_ended, had_sample);
                // The first flight ends when its first packet is acked.
                if self.first_flight.ends_with(summary.largest_acked) {
                    self.first_flight = FirstFlight::Done;
                    if let Some(cr) = self.careful_resume.as_mut() {
                        // RFC 9959, leaving the Unvalidated Phase.
                        let iw = self.cfg.initial_window_bytes();
                        let quicly = cr.retreat_beta() == RetreatBeta::Quicly;
                        match cr.end_unvalidated(summary.bytes_in_flight, iw) {
                            UnvalidatedExit::Done { cwnd } => {
                                self.cwnd = cwnd;
                                self.careful_resume = None;
                            }
                            // quicly's `cwnd = inflight` (the flight before
                            // this ACK), then slow start's growth on it.
                            UnvalidatedExit::Validating { cwnd } if quicly => {
                                self.cwnd = cwnd
                                    .saturating_add(delivered)
                                    .saturating_add(n)
                                    .max(self.min_window());
                            }
                            UnvalidatedExit::Validating { cwnd } => self.cwnd = cwnd,
                        }
                    }
                }
                if self.first_flight == FirstFlight::Waiting && self.has_rtt_sample {
                    let mut jump = jump_window(self.cfg.initial_window_bytes());
                    // RFC 9959: a saved window, once the RTT confirms the
                    // path; never below the jump made without one.
                    let resumed = self
                        .resume
                        .and_then(|s| s.jump_window(rtt.min()))
                        .map(|w| w.min(MAX_RESUMED_JUMP_BYTES))
                        .filter(|w| *w > jump);
                    let recon_pending = self.startup.recon == Reconnaissance::Rfc
                        && !self.recon.confirmed_by(summary.largest_acked);
                    if let (Some(_), true) = (resumed, recon_pending) {
                        // RFC 9959 Reconnaissance: the initial window goes
                        // first, and is acknowledged, before the jump.
                        return;
                    }
                    jump = jump.max(resumed.unwrap_or(0));
                    self.cwnd = self.cwnd.max(jump);
                    self.first_flight = FirstFlight::Active { marker: None };
                    if self.startup.careful_resume {
                        self.careful_resume = Some(CarefulResume::jump(
                            summary.bytes_in_flight,
                            self.startup.retreat_beta,
                        ));
                    }
                }
            }
            Phase::SlowStart => {
                self.cwnd = self.cwnd.saturating_add(n);
                if self.cwnd >= self.ssthresh {
                    self.phase = Phase::CongestionAvoidance;
                }
            }
            Phase::CongestionAvoidance => {
                if app_limited {
                    self.ca.on_app_limited();
                }
                if n > 0 {
                    self.grow_congestion_avoidance(now, n);
                }
            }
            Phase::Recovery if self.in_growing_ce_recovery() => {
                if n > 0 {
                    self.grow_congestion_avoidance(now, n);
                }
            }
            Phase::Recovery => {
                let mds = self.mds();
                if let Some(p) = self.prr.as_mut() {
                    p.on_ack(delivered, summary.bytes_in_flight, !lost, mds);
                }
            }
            Phase::RapidRecovery(_) => {}
        }
    }

    fn on_congestion_event(&mut self, now: Time, event: &CongestionEvent, rtt: &RttEstimator) {
        self.any_event = true;
        self.srtt = rtt.smoothed();
        if let CongestionSignal::Loss { lost_bytes } = event.signal {
            self.in_flight = self.in_flight.saturating_sub(lost_bytes);
            self.loss_since_frame = true;
        }
        if let CongestionSignal::Ecn { ce_bytes, .. } = event.signal {
            self.ca.on_ce_bytes(ce_bytes);
        }
        if self.in_recovery_period(event.time_sent) && !self.loss_cuts_in_ce_recovery(now, event) {
            let loss_in_ecn_episode =
                self.episode_ecn_only && matches!(event.signal, CongestionSignal::Loss { .. });
            if loss_in_ecn_episode {
                // h2o counts an episode as ECN only while it has no loss.
                self.episode_ecn_only = false;
                self.metrics.num_ecn_loss_episodes =
                    self.metrics.num_ecn_loss_episodes.saturating_sub(1);
            }
            // RFC 9002 §7.3.2: one reduction per recovery period. Rapid
            // Start still charges losses of pre-recovery packets.
            if let (Phase::RapidRecovery(rr), CongestionSignal::Loss { lost_bytes }) =
                (&mut self.phase, event.signal)
            {
                match &self.rapid {
                    Some(r) => {
                        r.on_loss_in_recovery(rr, lost_bytes, loss_in_ecn_episode, self.ca.beta())
                    }
                    None => rr.on_lost(lost_bytes),
                }
                self.cwnd = rr.cwnd();
            }
        } else {
            // Bytes in flight when the event was detected: before this
            // event's losses.
            let lost = match event.signal {
                CongestionSignal::Loss { lost_bytes } => lost_bytes,
                CongestionSignal::Ecn { .. } => 0,
            };
            if !self.ca.holds_reduction(&self.ca_context(now), event.signal) {
                self.start_recovery(
                    now,
                    event.signal,
                    self.in_flight.saturating_add(lost),
                    event.time_sent,
                );
            }
        }
        if event.persistent_congestion {
            self.persistent_congestion();
        }
    }

    fn on_spurious_congestion(&mut self, _now: Time) {
        if !self.cfg.undo || !matches!(self.phase, Phase::Recovery | Phase::CongestionAvoidance) {
            return;
        }
        let Some(saved) = self.saved.take() else {
            return;
        };
        // RFC 9438 §4.9: restore only if the window has not regrown past it.
        if self.cwnd >= saved.cwnd {
            return;
        }
        self.cwnd = saved.cwnd;
        self.ssthresh = saved.ssthresh;
        self.ca = saved.ca;
        self.prr = None;
        self.phase = self.phase_for_window();
        self.metrics.num_spurious_undos += 1;
    }

    fn resume_from(&mut self, saved: crate::resume::SavedPath) {
        self.resume = Some(saved);
    }

    fn on_mtu_update(&mut self, max_datagram_size: u64) {
        let untouched = !self.any_event;
        self.cfg.max_datagram_size = max_datagram_size.max(1);
        let min = self.min_window();
        if untouched {
            // RFC 9002 §7.2: the initial window follows the datagram size.
            let iw = self.cfg.initial_window_bytes();
            self.cwnd = if self.first_flight.is_active() {
                jump_window(iw)
            } else {
                iw
            };
        }
        self.cwnd = self.cwnd.max(min);
        if self.ssthresh != u64::MAX {
            self.ssthresh = self.ssthresh.max(min);
        }
    }

    fn window(&self) -> u64 {
        let w = match (&self.phase, &self.prr) {
            (Phase::Recovery, Some(p)) => p.window(),
            _ => self.cwnd,
        };
        let w = if self.send_one_pending {
            w.max(self.in_flight.saturating_add(self.mds()))
        } else {
            w
        };
        w.max(self.min_window())
    }

    fn ssthresh(&self) -> Option<u64> {
        (self.ssthresh != u64::MAX).then_some(self.ssthresh)
    }

    fn pacing_rate(&self, rtt: &RttEstimator) -> Option<Rate> {
        self.pacing_rate_for(rtt.smoothed())
    }

    fn pacing_burst(&self) -> Option<Duration> {
        self.ca.pacing_burst()
    }

    fn phase(&self) -> CcPhase {
        self.state().phase()
    }

    fn metrics(&self) -> Metrics {
        Metrics {
            cwnd_bytes: self.window(),
            ssthresh_bytes: self.ssthresh(),
            pacing_rate: self.pacing_rate_for(self.srtt),
            ..self.metrics
        }
    }

    fn initial_window(&self) -> u64 {
        self.cfg.initial_window_bytes()
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }
}
