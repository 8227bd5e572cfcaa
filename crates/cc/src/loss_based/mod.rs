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
//! Which ACK frames may grow the window is RFC 9002 §7.8's app-limited rule
//! by default, or quicly's half-window rule ([`CcLimitedRule`]).
//!
//! Files: this one holds the state; `calls.rs` the [`Controller`] calls;
//! `avoidance.rs` the congestion-avoidance trait;
//! `congestion.rs` the reactions to congestion (recovery entry and exit,
//! persistent congestion); `growth.rs` the per-frame window growth;
//! `limited.rs` the rule for which ACK frames may grow it.

use core::time::Duration;

mod avoidance;
mod calls;
mod congestion;
mod growth;
mod limited;
mod ms_rtt;
mod rate_memo;
pub mod spec;
mod state;

pub use avoidance::{CaBox, CaContext, CongestionAvoidance};
pub use limited::CcLimitedRule;
pub use state::LossBasedState;

use crate::careful_resume::{CarefulResume, RetreatBeta};
use crate::config::{minimum_window, CcConfig};
use crate::controller::{CongestionEvent, CongestionSignal, Controller, Metrics};
use crate::hystart::HyStart;
use crate::jump_start::{jump_window, FirstFlight, JumpTally};
use crate::prr::Prr;
use crate::rapid_start::{RapidRecovery, RapidStart, RapidStartOptions, RttClock};
use crate::ratio::Ratio;
use crate::resume::Reconnaissance;
use crate::round::RoundTracker;
use crate::rtt::INITIAL_RTT;
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
    /// `ca.observes_acked_bytes()`, asked once (it is a property of the
    /// algorithm, and a restored `saved.ca` is the same algorithm).
    ca_observes_acks: bool,
    startup: Startup,
    first_flight: FirstFlight,
    /// Careful Resume while it is active (jump start with `retreat=on`).
    careful_resume: Option<CarefulResume>,
    /// The jump packets acknowledged (Rapid Start's `jump_floor`).
    jump_tally: JumpTally,
    /// `jump_after=`: packets sent after the jump window is set that still
    /// count as sent before the jump (quicly's first send call).
    jump_after: u64,
    /// What is left of `jump_after` in the current first flight.
    pre_jump_left: u64,
    /// quicly's whole-millisecond smoothed RTT, which the pacing rate
    /// divides by when `pacing_rtt=ms` (`None`: the estimator's).
    ms_rtt: Option<ms_rtt::WholeMsRtt>,
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
    /// quicly's CC-limited marks when `cc_limited=quicly`; `None`: RFC 9002
    /// §7.8's app-limited rule.
    quicly_limited: Option<limited::QuiclyCcLimited>,
    /// Bytes in flight as last reported, adjusted by acks and losses.
    in_flight: u64,
    srtt: Duration,
    has_rtt_sample: bool,
    any_event: bool,
    metrics: Metrics,
    /// The last [`Controller::pacing_rate`], cleared by every call that
    /// may move it.
    rate_memo: rate_memo::RateMemo,
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
            ca_observes_acks: ca.observes_acked_bytes(),
            ca,
            startup,
            first_flight,
            careful_resume: (startup.careful_resume && first_flight.is_active())
                .then(|| CarefulResume::jump(0, startup.retreat_beta)),
            jump_tally: JumpTally::default(),
            jump_after: 0,
            pre_jump_left: 0,
            ms_rtt: None,
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
            quicly_limited: None,
            in_flight: 0,
            srtt: INITIAL_RTT,
            has_rtt_sample: false,
            any_event: false,
            metrics: Metrics::default(),
            rate_memo: rate_memo::RateMemo::default(),
        }
    }

    /// The same controller with `rule` deciding which ACK frames may grow
    /// the window (RFC 9002 §7.8's by default).
    pub fn with_cc_limited(mut self, rule: CcLimitedRule) -> LossBased {
        self.quicly_limited = match rule {
            CcLimitedRule::Rfc9002 => None,
            CcLimitedRule::Quicly => Some(limited::QuiclyCcLimited::default()),
            CcLimitedRule::Always => Some(limited::QuiclyCcLimited::disregarding_app_limited()),
        };
        self
    }

    /// The same controller with the first `packets` packets sent after
    /// the jump window is set counted as sent before the jump (its first
    /// packet, whose ACK ends the first flight, is the next one). h2o/quicly
    /// 45bf8a37 enters its jump when the caller's send buffer first fills
    /// (lib/quicly.c `do_send`, `QUICLY_ERROR_SENDBUF_FULL` with
    /// `try_jumpstart`), so the packets of that first call go out before
    /// it: 10 with its `cli` (src/cli.c `MAX_BURST_PACKETS`). 0 (the
    /// default): the jump's first packet is the first one sent.
    pub fn with_jump_after(mut self, packets: u64) -> LossBased {
        self.jump_after = packets;
        if self.first_flight == (FirstFlight::Active { marker: None }) {
            self.pre_jump_left = packets;
        }
        self
    }

    /// The same controller pacing at its window over quicly's
    /// whole-millisecond smoothed RTT (`clock` [`RttClock::WholeMs`]:
    /// h2o/quicly 45bf8a37 `quicly_rtt_update` on its millisecond clock)
    /// instead of the estimator's.
    pub fn with_pacing_rtt(mut self, clock: RttClock) -> LossBased {
        self.ms_rtt = match clock {
            RttClock::Exact => None,
            RttClock::WholeMs => Some(ms_rtt::WholeMsRtt::default()),
        };
        self
    }

    /// The smoothed RTT the pacing rate divides by: quicly's
    /// whole-millisecond one with `pacing_rtt=ms` once it has a sample,
    /// else `srtt`, the estimator's.
    fn pacing_srtt(&self, srtt: Duration) -> Duration {
        self.ms_rtt.and_then(|m| m.smoothed()).unwrap_or(srtt)
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
