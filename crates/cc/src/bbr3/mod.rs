//! BBRv3 (draft-ietf-ccwg-bbr-06), sans-IO.
//!
//! BBR models the path — the bottleneck bandwidth (`max_bw`, a windowed
//! maximum of delivery-rate samples) and the round-trip propagation time
//! (`min_rtt`) — and sends at `pacing_gain · bw` with at most `cwnd_gain ·
//! bw · min_rtt` in flight, cycling the gains to probe for more bandwidth
//! and to drain the queues it built. Loss and ECN bound the model from
//! above (`inflight_longterm`, `bw_shortterm`, `inflight_shortterm`).
//!
//! Where the draft is read from, by file:
//!
//! | draft section | here |
//! |---|---|
//! | §2.8, §2.5, §2.6, §2.16 constants | this module's constants |
//! | §4.1 delivery-rate sampling | [`rate`] |
//! | §5.1.1 states | [`state`] |
//! | §5.2 initialisation, per-transmit, per-ACK, per-loss steps | `Controller` impl below |
//! | §5.3.1 Startup, §5.3.2 Drain, §5.3.4 ProbeRTT, §5.5.1 rounds, §5.5.7 min_rtt | `startup.rs` |
//! | §5.3.3 ProbeBW | `probe_bw.rs` |
//! | §5.5.9 extra_acked, §5.5.10 loss, §5.5.11 undo, §5.6 pacing, quantum, cwnd | `model.rs` |
//!
//! Where the draft is silent ramp follows Linux's BBRv3 (google/bbr, v3,
//! net/ipv4/tcp_bbr.c): the ECN exit from Startup (CE on at least
//! [`ECN_THRESH`] of the bytes delivered in [`STARTUP_FULL_ECN_COUNT`]
//! rounds in a row), and the two-cycle bandwidth filter. QUIC-specific
//! readings: "discontiguous lost ranges" (§5.3.1.3) are counted as loss
//! detection passes, since one QUIC ACK frame can declare a whole range
//! lost; "fast recovery" is RFC 9002's recovery period. docs/algorithms.md
//! ("BBRv3") has the details and the validation scenarios.

use core::time::Duration;

mod filter;
mod model;
mod probe_bw;
pub mod rate;
pub mod spec;
mod startup;
pub mod state;
#[cfg(test)]
mod tests;

pub use spec::{Bbr3Family, Bbr3Options, Bbr3Spec, EcnCount};
pub use state::Bbr3State;

use crate::config::CcConfig;
use crate::controller::{
    AckFrameSummary, AckedPacket, CcPhase, CongestionEvent, CongestionSignal, Controller, Metrics,
};
use crate::ratio::Ratio;
use crate::rtt::RttEstimator;
use filter::{TwoCycleMax, WindowedMax};
use ramp_vocab::rng::Rng;
use ramp_vocab::time::{Rate, Time};
use rate::{RateSample, RateSampler};
use state::AckPhase;

/// §2.5 `BBR.StartupPacingGain`: 4·ln 2 ≈ 2.77, the smallest gain that
/// doubles the sending rate every round.
pub const STARTUP_PACING_GAIN: Ratio = Ratio::new_const(277, 100);
/// §2.6 `BBR.DefaultCwndGain`: 2.
pub const DEFAULT_CWND_GAIN: Ratio = Ratio::new_const(2, 1);
/// §2.5 `BBR.DrainPacingGain`: 0.5, at or below 1/`DefaultCwndGain`.
pub const DRAIN_PACING_GAIN: Ratio = Ratio::HALF;
/// §5.3.3.1 ProbeBW_DOWN pacing gain: 0.9.
pub const PROBE_DOWN_PACING_GAIN: Ratio = Ratio::new_const(9, 10);
/// §5.3.3.4 ProbeBW_UP pacing gain: 1.25.
pub const PROBE_UP_PACING_GAIN: Ratio = Ratio::new_const(5, 4);
/// §5.3.3.4 ProbeBW_UP cwnd gain: 2.25.
pub const PROBE_UP_CWND_GAIN: Ratio = Ratio::new_const(9, 4);
/// §2.16.2 `BBR.ProbeRTTCwndGain`: 0.5.
pub const PROBE_RTT_CWND_GAIN: Ratio = Ratio::HALF;
/// §2.8 `BBR.LossThresh`: 2 % per round while probing.
pub const LOSS_THRESH: Ratio = Ratio::new_const(2, 100);
/// §2.8 `BBR.Beta`: 0.7 per round with loss.
pub const BETA: Ratio = Ratio::SEVEN_TENTHS;
/// §2.8 `BBR.Headroom`: 0.15 of `inflight_longterm` left for others.
pub const HEADROOM: Ratio = Ratio::new_const(15, 100);
/// §2.8 `BBR.MinPipeCwnd`: 4 packets.
pub const MIN_PIPE_CWND_PACKETS: u64 = 4;
/// §5.3.1.2: bandwidth must grow by 25 % per round to count as growing...
pub const FULL_BW_THRESH: Ratio = Ratio::new_const(5, 4);
/// ... for this many rounds in a row, else the pipe is full.
pub const FULL_BW_COUNT: u32 = 3;
/// §5.3.1.3 `BBRStartupFullLossCnt`: 6 discontiguous lost ranges in a
/// round (loss detection passes here).
pub const STARTUP_FULL_LOSS_COUNT: u32 = 6;
/// §2.16.2 `BBR.ProbeRTTDuration`: 200 ms.
pub const PROBE_RTT_DURATION: Duration = Duration::from_millis(200);
/// §2.16.2 `BBR.ProbeRTTInterval`: 5 s.
pub const PROBE_RTT_INTERVAL: Duration = Duration::from_secs(5);
/// §2.16.1 `BBR.MinRTTFilterLen`: 10 s.
pub const MIN_RTT_FILTER_LEN: Duration = Duration::from_secs(10);
/// §2.12 `BBR.ExtraAckedFilterLen`: 10 rounds.
pub const EXTRA_ACKED_FILTER_LEN: u64 = 10;
/// §2.5 `BBR.PacingMarginPercent`: pace 1 % below the estimate.
pub const PACING_MARGIN_PERCENT: u64 = 1;
/// Linux BBRv3 `bbr_ecn_thresh`: a round whose delivered bytes were CE
/// marked at this ratio or more counts towards the ECN exit.
pub const ECN_THRESH: Ratio = Ratio::HALF;
/// Linux BBRv3 `bbr_full_ecn_cnt`: rounds in a row at [`ECN_THRESH`]
/// that end Startup.
pub const STARTUP_FULL_ECN_COUNT: u32 = 2;
/// The random stream of the probe-wait draws (§5.3.3.8 `PickProbeWait`).
const PROBE_WAIT_STREAM: u64 = 0xBB3;

/// What one round of ACKs carried, for the Startup exits (§5.3.1.3 and
/// the ECN rule).
#[derive(Clone, Copy, Debug, Default)]
struct RoundTally {
    /// Loss detection passes that declared something lost.
    loss_events: u32,
    lost_bytes: u64,
    ce_packets: u64,
    /// ACK frames, and those that reported new CE marks ([`EcnCount::Frames`]).
    ack_frames: u64,
    ce_frames: u64,
    /// `C.delivered` when the round began.
    delivered_at_start: u64,
    /// The recovery period had already begun when the round began.
    in_recovery_all_round: bool,
}

/// State saved when a loss episode starts, for a spurious-loss undo
/// (§2.15).
#[derive(Clone, Copy, Debug, Default)]
struct UndoState {
    state: Option<Bbr3State>,
    bw_shortterm: Option<u64>,
    inflight_shortterm: Option<u64>,
    inflight_longterm: Option<u64>,
}

/// A BBRv3 controller. Rates are kept in bytes per second, volumes in
/// bytes; `None` stands for the draft's "Infinity".
#[derive(Clone, Debug)]
pub struct Bbr3 {
    name: String,
    opts: Bbr3Options,
    mds: u64,
    initial_cwnd: u64,
    rng: Rng,
    // Connection state ("C." in the draft).
    cwnd: u64,
    pacing_rate: Option<Rate>,
    send_quantum: u64,
    inflight: u64,
    sampler: RateSampler,
    rs: RateSample,
    cwnd_limited: bool,
    recovery_start: Option<Time>,
    // The state machine.
    state: Bbr3State,
    pacing_gain: Ratio,
    cwnd_gain: Ratio,
    // The model.
    max_bw: TwoCycleMax,
    bw_shortterm: Option<u64>,
    bw: u64,
    min_rtt: Option<Duration>,
    min_rtt_stamp: Time,
    extra_acked_interval_start: Time,
    extra_acked_delivered: u64,
    extra_acked: WindowedMax,
    inflight_longterm: Option<u64>,
    inflight_shortterm: Option<u64>,
    // Startup.
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw: u64,
    full_bw_count: u32,
    drain_start_round: u64,
    startup_ecn_rounds: u32,
    // Rounds and congestion signals.
    next_round_delivered: u64,
    round_start: bool,
    round_count: u64,
    loss_round_delivered: u64,
    loss_round_start: bool,
    is_loss_in_round: bool,
    bw_latest: u64,
    inflight_latest: u64,
    tally: RoundTally,
    last_round: RoundTally,
    // ProbeBW.
    ack_phase: AckPhase,
    probe_up_acked_per_inc: Option<u64>,
    bw_probe_up_acked: u64,
    bw_probe_up_rounds: u32,
    rounds_since_probe_up: u64,
    is_bw_probe_sample: bool,
    prev_probe_too_high: bool,
    prev_probe_precautionary: bool,
    cycle_stamp: Time,
    bw_probe_wait: Duration,
    // ProbeRTT.
    probe_rtt_min_delay: Option<Duration>,
    probe_rtt_min_stamp: Time,
    probe_rtt_expired: bool,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    idle_restart: bool,
    /// The current recovery period was opened by CE and has seen no loss
    /// yet (for `num_ecn_loss_episodes`).
    episode_ecn_only: bool,
    /// This ACK frame reported new CE marks.
    frame_ce: bool,
    /// A packet was sent: the clock stamps of `OnInit` are set.
    started: bool,
    undo: UndoState,
    metrics: Metrics,
}

impl Bbr3 {
    /// §5.2.1 `OnInit`: a controller named `name` (its canonical spec).
    pub fn new(name: String, cfg: &CcConfig, opts: Bbr3Options) -> Bbr3 {
        let mds = cfg.max_datagram_size;
        let initial_cwnd = cfg.initial_window_bytes().max(MIN_PIPE_CWND_PACKETS * mds);
        let mut b = Bbr3 {
            name,
            opts,
            mds,
            initial_cwnd,
            rng: Rng::new(opts.seed.or(cfg.flow_seed).unwrap_or(1), PROBE_WAIT_STREAM),
            cwnd: initial_cwnd,
            pacing_rate: None,
            send_quantum: 2 * mds,
            inflight: 0,
            sampler: RateSampler::default(),
            rs: RateSample::default(),
            cwnd_limited: false,
            recovery_start: None,
            state: Bbr3State::Startup,
            pacing_gain: opts.startup_gain,
            cwnd_gain: DEFAULT_CWND_GAIN,
            max_bw: TwoCycleMax::default(),
            bw_shortterm: None,
            bw: 0,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            extra_acked_interval_start: Time::ZERO,
            extra_acked_delivered: 0,
            extra_acked: WindowedMax::default(),
            inflight_longterm: None,
            inflight_shortterm: None,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0,
            full_bw_count: 0,
            drain_start_round: 0,
            startup_ecn_rounds: 0,
            next_round_delivered: 0,
            round_start: false,
            round_count: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            is_loss_in_round: false,
            bw_latest: 0,
            inflight_latest: 0,
            tally: RoundTally::default(),
            last_round: RoundTally::default(),
            ack_phase: AckPhase::Init,
            probe_up_acked_per_inc: None,
            bw_probe_up_acked: 0,
            bw_probe_up_rounds: 0,
            rounds_since_probe_up: 0,
            is_bw_probe_sample: false,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            cycle_stamp: Time::ZERO,
            bw_probe_wait: Duration::ZERO,
            probe_rtt_min_delay: None,
            probe_rtt_min_stamp: Time::ZERO,
            probe_rtt_expired: false,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            idle_restart: false,
            episode_ecn_only: false,
            frame_ce: false,
            started: false,
            undo: UndoState::default(),
            metrics: Metrics::default(),
        };
        b.enter_startup();
        b
    }

    /// The current state.
    pub fn state(&self) -> Bbr3State {
        self.state
    }

    /// `BBR.max_bw`, the bottleneck bandwidth estimate.
    pub fn max_bw(&self) -> Rate {
        Rate::from_bytes_per_sec(self.max_bw.get())
    }

    /// `BBR.bw`: `max_bw` bounded by the short-term model.
    pub fn bw(&self) -> Rate {
        Rate::from_bytes_per_sec(self.bw)
    }

    /// `BBR.min_rtt`, once measured.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    /// `BBR.inflight_longterm`, `None` while unbounded.
    pub fn inflight_longterm(&self) -> Option<u64> {
        self.inflight_longterm
    }

    /// `BBR.extra_acked`, the aggregation estimate in bytes.
    pub fn extra_acked(&self) -> u64 {
        self.extra_acked.get()
    }

    /// `C.send_quantum` (§5.6.3): the largest burst the pacer should
    /// release at once, in bytes.
    pub fn send_quantum(&self) -> u64 {
        self.send_quantum
    }

    /// Whether Startup found the pipe full at some point.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// §2.8 `BBR.MinPipeCwnd` in bytes.
    fn min_pipe_cwnd(&self) -> u64 {
        MIN_PIPE_CWND_PACKETS * self.mds
    }

    /// §5.2.1 `OnInit` sets `min_rtt_stamp`, `probe_rtt_min_stamp` and the
    /// aggregation epoch to `Now()` (Linux's `bbr_init` too). ramp-cc
    /// builds controllers without a clock, so the first send is the
    /// flow's "now at start": a flow that starts late in simulated time
    /// must not find a min_rtt that looks 5 s old at its first ACK.
    fn stamp_start(&mut self, now: Time) {
        self.started = true;
        self.min_rtt_stamp = now;
        self.probe_rtt_min_stamp = now;
        self.extra_acked_interval_start = now;
        self.cycle_stamp = now;
    }

    /// Whether CE marks are acted on (`ecn=off` turns the responses off).
    fn ecn_enabled(&self) -> bool {
        self.opts.ecn.is_none_or(|e| e.is_ect())
    }

    fn in_recovery(&self) -> bool {
        self.recovery_start.is_some()
    }

    /// §5.2.3 `UpdateOnACK`, once the frame's rate sample is complete.
    fn update_on_ack(&mut self, now: Time, rtt_sample: Option<Duration>) {
        // §5.5: the model and the state machine.
        self.update_latest_delivery_signals();
        self.update_congestion_signals();
        self.update_ack_aggregation(now);
        self.check_full_bw_reached();
        self.check_startup_done();
        self.check_drain_done(now);
        self.update_probe_bw_cycle_phase(now);
        self.update_min_rtt(now, rtt_sample);
        self.check_probe_rtt(now);
        self.advance_latest_delivery_signals();
        self.bound_bw_for_model();
        // §5.6: the control parameters.
        self.set_pacing_rate(self.pacing_gain);
        self.set_send_quantum();
        self.set_cwnd();
        if self.round_start {
            self.cwnd_limited = false;
        }
    }

    /// Recovery entry for a congestion event (RFC 9002 §7.3.2's rule:
    /// one episode per recovery period) with §5.6.4.4's bookkeeping.
    fn on_congestion_episode(&mut self, now: Time, event: &CongestionEvent) {
        let new_episode = self
            .recovery_start
            .is_none_or(|start| event.time_sent > start);
        let is_ecn = matches!(event.signal, CongestionSignal::Ecn { .. });
        if !new_episode {
            if !is_ecn && self.episode_ecn_only {
                // A loss joined the episode CE opened: it is a loss
                // episode after all (as the loss-based controllers and
                // h2o count them).
                self.episode_ecn_only = false;
                self.metrics.num_ecn_loss_episodes =
                    self.metrics.num_ecn_loss_episodes.saturating_sub(1);
            }
            return;
        }
        if event.persistent_congestion {
            return;
        }
        self.save_cwnd();
        self.save_state_upon_loss();
        self.recovery_start = Some(now);
        self.metrics.num_loss_episodes += 1;
        self.episode_ecn_only = is_ecn;
        if is_ecn {
            self.metrics.num_ecn_loss_episodes += 1;
        }
    }
}

impl Controller for Bbr3 {
    fn on_packet_sent(
        &mut self,
        now: Time,
        packet_number: Option<u64>,
        bytes: u64,
        bytes_in_flight: u64,
    ) {
        if !self.started {
            self.stamp_start(now);
        }
        // §5.4.1 `HandleRestartFromIdle`, before the send counts.
        if bytes_in_flight <= bytes && self.sampler.is_app_limited() {
            self.handle_restart_from_idle(now);
        }
        self.inflight = bytes_in_flight;
        if bytes_in_flight + self.mds > self.cwnd {
            self.cwnd_limited = true;
        }
        self.sampler
            .on_sent(now, packet_number, bytes, bytes_in_flight);
    }

    fn on_packet_acked(
        &mut self,
        now: Time,
        packet: &AckedPacket,
        _rtt: &RttEstimator,
        _app_limited: bool,
    ) {
        self.sampler
            .on_acked(now, packet.packet_number, packet.bytes);
        if self
            .recovery_start
            .is_some_and(|start| packet.time_sent > start)
        {
            // §5.6.4.4: leaving recovery restores the last good cwnd; the
            // model bounds it at the end of this ACK.
            self.recovery_start = None;
            self.restore_cwnd();
        }
    }

    fn on_ack_frame_end(&mut self, now: Time, summary: &AckFrameSummary, rtt: &RttEstimator) {
        self.inflight = summary.bytes_in_flight;
        if summary.app_limited {
            // §4.1.2.4, at the beginning of ACK processing.
            self.sampler.mark_app_limited(summary.bytes_in_flight);
        }
        let stale = rtt
            .smoothed()
            .saturating_mul(4)
            .max(Duration::from_millis(100));
        if self.pacing_rate.is_none() {
            // §5.6.2 `BBRInitPacingRate` sets `BBR.pacing_rate` at init, so
            // that `SetPacingRateWithGain` cannot lower it below the initial
            // rate before the pipe is found full. ramp-cc has no RTT at
            // construction; the first ACK frame is the first moment with a
            // smoothed RTT, so the initial rate is fixed here.
            self.pacing_rate = Some(self.initial_pacing_rate(rtt));
        }
        self.rs = self.sampler.finish(self.min_rtt, stale);
        self.tally.ack_frames += 1;
        if core::mem::take(&mut self.frame_ce) {
            self.tally.ce_frames += 1;
        }
        self.update_on_ack(now, summary.rtt_sample);
    }

    fn on_congestion_event(&mut self, now: Time, event: &CongestionEvent, _rtt: &RttEstimator) {
        match event.signal {
            CongestionSignal::Loss { lost_bytes } => {
                self.sampler.on_lost(lost_bytes);
                self.inflight = self.inflight.saturating_sub(lost_bytes);
                self.tally.loss_events += 1;
                self.tally.lost_bytes += lost_bytes;
                self.on_congestion_episode(now, event);
                self.handle_lost_packet(now, event.time_sent);
            }
            CongestionSignal::Ecn {
                ce_packets,
                ce_bytes,
            } => {
                // §3.7: CE marks are congestion. The newly CE-marked bytes
                // enter the rate sample (Linux's `delivered_ce`).
                self.tally.ce_packets += ce_packets;
                self.frame_ce = true;
                self.sampler.on_ce(ce_bytes);
                self.on_congestion_episode(now, event);
                self.note_loss();
            }
        }
        if event.persistent_congestion {
            // §5.6.4.4 `OnEnterRTO`.
            self.metrics.num_persistent_congestion += 1;
            self.save_cwnd();
            self.save_state_upon_loss();
            self.recovery_start = Some(now);
            self.cwnd = (self.inflight + self.mds).max(2 * self.mds);
        }
    }

    fn on_spurious_congestion(&mut self, _now: Time) {
        self.metrics.num_spurious_undos += 1;
        self.recovery_start = None;
        self.handle_spurious_loss_detection();
    }

    fn on_mtu_update(&mut self, max_datagram_size: u64) {
        self.mds = max_datagram_size;
        self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
    }

    fn window(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> Option<u64> {
        None
    }

    fn pacing_rate(&self, rtt: &RttEstimator) -> Option<Rate> {
        Some(
            self.pacing_rate
                .unwrap_or_else(|| self.initial_pacing_rate(rtt)),
        )
    }

    fn phase(&self) -> CcPhase {
        self.state.phase()
    }

    fn metrics(&self) -> Metrics {
        Metrics {
            cwnd_bytes: self.cwnd,
            ssthresh_bytes: None,
            pacing_rate: self.pacing_rate,
            ..self.metrics
        }
    }

    fn initial_window(&self) -> u64 {
        self.initial_cwnd
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }
}
