//! Rapid Start, draft-kazuho-ccwg-rapid-start-02: the growth
//! rule and the smooth first-recovery reduction.
//!
//! The full-RTT paced first flight is [`crate::jump_start`], shared with the
//! jump-start-only arm. Sequencing (when growth applies, when recovery
//! starts and ends) is in [`crate::loss_based`].
//!
//! Read with the draft beside it, section by section:
//!
//! | -02 | rule | code |
//! |---|---|---|
//! | §3.1 | the first flight: up to 2·IW paced over one RTT, after the first RTT sample | [`crate::jump_start::jump_window`], `FirstFlight` (the flight and its end); `LossBased::on_ack_frame_end` starts it, `on_packet_sent` marks its first packet |
//! | §3.2 | growth: +2 bytes per acked byte (3×/round) while the RTT floor is below [`queue_buildup_thresh`], +1 (2×) once above; paced at [`RAPID_PACING_GAIN`] | [`RapidStart::evaluate`], [`RapidStart::growth`], [`RapidStart::pacing_gain`]; the floor is [`crate::round::RoundTracker::rtt_floor`] |
//! | §3.3 | the first congestion event: one recovery period with the smooth reduction (`silence`, `ack`, `loss` factors of β), paced at [`RAPID_RECOVERY_PACING_GAIN`] | [`RapidStart::enter_recovery`], [`Factors::for_beta`], [`RapidRecovery`] (`on_acked`, `on_lost`), [`RapidStart::recovery_gain`] |
//! | §3.3.2 | a CE-only episode may use a larger β (`ce_beta`) | [`RapidStart::enter_recovery`]; [`RapidRecovery::rebased`] when a loss joins the episode |
//! | §3.3 (end) | the end of that recovery: congestion avoidance from the reduced window (`ssthresh = cwnd`, which -02 leaves implicit: ambiguity in docs/algorithms.md) | `loss_based/congestion.rs` `exit_recovery` |
//!
//! [`RapidStart`] is the policy object: `LossBased` holds one when Rapid
//! Start is on and calls it at each of those points (evaluate and grow at
//! the end of an ACK frame, enter on the congestion event that ends the
//! startup, the gains when it computes a pacing rate); the recovery's
//! arithmetic is [`RapidRecovery`]'s.
//!
//! Where -02 is silent or ambiguous, docs/algorithms.md ("Ambiguities and
//! the choices made") records what ramp does and why, by number.
//!
//! All recovery arithmetic is exact: with `β = p/q` the window is kept as
//! `cwnd·3q` in a `u128`, so `silence = (2q+p)/3q`, `ack = 2(q−p)/3q` and
//! `loss = (2q+p)/3q` are applied without rounding.

use core::time::Duration;

use crate::controller::CongestionSignal;
use crate::ratio::Ratio;
use crate::rtt::RttEstimator;

/// -02 §3.2: the RECOMMENDED additive queue-build-up margin, 4 ms.
pub const QUEUE_BUILDUP_ADD: Duration = Duration::from_millis(4);
/// -02 §3.2: the RECOMMENDED multiplicative margin, ×1.10.
pub const QUEUE_BUILDUP_MULT: Ratio = match Ratio::new(11, 10) {
    Some(r) => r,
    None => Ratio::ONE,
};
/// Pacing gain while growing 3× per round (quicly's choice; -02 is silent,
/// docs/algorithms.md ambiguity #3).
pub const RAPID_PACING_GAIN: Ratio = match Ratio::new(3, 1) {
    Some(r) => r,
    None => Ratio::ONE,
};

/// Pacing gain during Rapid Start's first recovery period. quicly paces at
/// 2·cwnd/srtt once the first loss is seen; at RFC 9002's 1.25 the pacer
/// falls below the ACK clock late in the recovery (the window then shrinks
/// by only `ack_factor` per acknowledged byte while the link drains at full
/// rate) and the queue drains further than -02 §3.3's factors assume.
/// -02 is silent; the default was chosen on seed-100m (docs/algorithms.md,
/// ambiguity #34).
pub const RAPID_RECOVERY_PACING_GAIN: Ratio = match Ratio::new(2, 1) {
    Some(r) => r,
    None => Ratio::ONE,
};

/// Which window Rapid Start's recovery scales (-02 §3.3 `cwnd *=
/// silence_factor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PreRecoveryWindow {
    /// The congestion window, as -02 §3.3 writes it and quicly does
    /// (default).
    Cwnd,
    /// `min(cwnd, bytes in flight before the event)` (`pre=flight`): the
    /// draft's Appendix A derivation assumes a window-limited sender, and
    /// RFC 9438 §4.6 uses the flight size for the same reason, so a sender
    /// with far less in flight than its window (e.g. during the paced jump
    /// flight) does not keep the unused window through the recovery. Not
    /// the default: when the sender has run out of data the flight shrinks
    /// with every ACK, and the recovery is left too small a window for its
    /// own retransmissions (docs/algorithms.md, ambiguity #35).
    Flight,
}

/// Where an RTT floor that falls in no round comes from (docs/algorithms.md ambiguity #4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RttFloorSource {
    /// This round's minimum; if the round has no sample yet, the last
    /// round's (default).
    Fallback,
    /// This round's minimum only; an empty round counts as queue build-up
    /// (2× growth).
    Current,
}

/// Rapid Start's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RapidStartOptions {
    /// β for the first-recovery factors; `None` = the congestion-avoidance
    /// algorithm's β (0.5 NewReno, 0.7 CUBIC).
    pub beta: Option<Ratio>,
    /// β for a first recovery triggered by ECN-CE alone (the editor's
    /// copy's ABE-style MAY, e.g. 0.8); `None` = `beta`.
    pub ce_beta: Option<Ratio>,
    /// Once queue build-up is seen, stay at 2× (docs/algorithms.md ambiguity #5; the draft
    /// text re-evaluates per ACK).
    pub latch_2x: bool,
    /// The MAY floor `β·IW` (docs/algorithms.md ambiguity #9).
    pub iw_floor: bool,
    /// Additive margin of `queue_buildup_thresh`.
    pub thresh_add: Duration,
    /// Multiplicative margin of `queue_buildup_thresh`.
    pub thresh_mult: Ratio,
    /// Pacing gain in the 3× phase.
    pub pacing_gain: Ratio,
    /// Where `rtt_floor` comes from when the current round is empty.
    pub rtt_floor: RttFloorSource,
    /// The window the first recovery scales.
    pub pre_window: PreRecoveryWindow,
    /// Pacing gain during the first recovery period.
    pub recovery_gain: Ratio,
}

impl Default for RapidStartOptions {
    fn default() -> Self {
        RapidStartOptions {
            beta: None,
            ce_beta: None,
            latch_2x: false,
            iw_floor: false,
            thresh_add: QUEUE_BUILDUP_ADD,
            thresh_mult: QUEUE_BUILDUP_MULT,
            pacing_gain: RAPID_PACING_GAIN,
            rtt_floor: RttFloorSource::Fallback,
            pre_window: PreRecoveryWindow::Cwnd,
            recovery_gain: RAPID_RECOVERY_PACING_GAIN,
        }
    }
}

/// -02 §3.2 `queue_buildup_thresh = min(min_rtt + 4 ms, 1.10·min_rtt)`.
pub fn queue_buildup_thresh(min_rtt: Duration, add: Duration, mult: Ratio) -> Duration {
    let scaled_ns = u128::from(mult.num()) * min_rtt.as_nanos() / u128::from(mult.den());
    let scaled = Duration::from_nanos(u64::try_from(scaled_ns).unwrap_or(u64::MAX));
    (min_rtt + add).min(scaled)
}

/// The three factors of -02 §3.3 as exact fractions over a common
/// denominator `3q` (β = p/q): `silence = (2+β)/3`, `ack = 2(1−β)/3`,
/// `loss = (2+β)/3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Factors {
    /// Numerator of `silence_factor`.
    pub silence: u64,
    /// Numerator of `ack_factor`.
    pub ack: u64,
    /// Numerator of `loss_factor`.
    pub loss: u64,
    /// The common denominator, `3q`.
    pub den: u64,
}

impl Factors {
    /// The factors for `beta` (which must be in (0, 1)).
    pub fn for_beta(beta: Ratio) -> Factors {
        let (p, q) = (beta.num(), beta.den());
        // Saturating only matters for absurd denominators (> 2^62); the
        // spec parser limits them to 10^6.
        let silence = q.saturating_mul(2).saturating_add(p);
        Factors {
            silence,
            ack: (q - p.min(q)).saturating_mul(2),
            loss: silence,
            den: q.saturating_mul(3),
        }
    }
}

/// The first recovery period's window (-02 §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RapidRecovery {
    beta: Ratio,
    factors: Factors,
    /// The window scaled by `factors.den`.
    scaled: u128,
    /// The floor, scaled the same way.
    floor_scaled: u128,
    pre_recovery_cwnd: u64,
    min_window: u64,
    iw_floor: Option<u64>,
    /// Bytes charged so far with the ack and loss factors, kept so that
    /// the recovery can be re-derived for another β ([`Self::rebased`]).
    acked_total: u64,
    lost_total: u64,
}

impl RapidRecovery {
    /// Enter recovery with `pre_recovery_cwnd`: `cwnd *= silence_factor`,
    /// floor `max(kMinimumWindow, pre·β/3)` and, if `iw_floor` is given,
    /// `β·IW` too.
    pub fn enter(
        pre_recovery_cwnd: u64,
        beta: Ratio,
        min_window: u64,
        iw_floor: Option<u64>,
    ) -> RapidRecovery {
        let f = Factors::for_beta(beta);
        let den = u128::from(f.den);
        // pre·β/3 scaled by 3q is pre·p.
        let mut floor_scaled = (u128::from(min_window) * den)
            .max(u128::from(pre_recovery_cwnd) * u128::from(beta.num()));
        if let Some(iw) = iw_floor {
            // β·IW scaled by 3q is 3·p·IW.
            floor_scaled = floor_scaled.max(3 * u128::from(beta.num()) * u128::from(iw));
        }
        let scaled = (u128::from(pre_recovery_cwnd) * u128::from(f.silence)).max(floor_scaled);
        RapidRecovery {
            beta,
            factors: f,
            scaled,
            floor_scaled,
            pre_recovery_cwnd,
            min_window,
            iw_floor,
            acked_total: 0,
            lost_total: 0,
        }
    }

    /// The same recovery as if it had been entered with `beta`: the entry,
    /// the floor and every charge so far re-derived (the reductions
    /// commute, so the order of the charges does not matter). Used when a
    /// recovery entered on CE alone with the ABE-style `ce_beta` then sees
    /// a loss, which calls for the ordinary β.
    pub fn rebased(&self, beta: Ratio) -> RapidRecovery {
        let mut r =
            RapidRecovery::enter(self.pre_recovery_cwnd, beta, self.min_window, self.iw_floor);
        r.on_acked(self.acked_total);
        r.on_lost(self.lost_total);
        r
    }

    /// Bytes of a packet sent before recovery started were acknowledged:
    /// `cwnd −= ack_factor·bytes`.
    pub fn on_acked(&mut self, bytes: u64) {
        self.acked_total = self.acked_total.saturating_add(bytes);
        self.reduce(u128::from(bytes) * u128::from(self.factors.ack));
    }

    /// Bytes of packets sent before recovery started were declared lost:
    /// `cwnd −= loss_factor·bytes`.
    pub fn on_lost(&mut self, bytes: u64) {
        self.lost_total = self.lost_total.saturating_add(bytes);
        self.reduce(u128::from(bytes) * u128::from(self.factors.loss));
    }

    fn reduce(&mut self, by: u128) {
        self.scaled = self.scaled.saturating_sub(by).max(self.floor_scaled);
    }

    /// The window, bytes (rounded down).
    pub fn cwnd(&self) -> u64 {
        u64::try_from(self.scaled / u128::from(self.factors.den)).unwrap_or(u64::MAX)
    }
    /// The floor, bytes (rounded up).
    pub fn floor(&self) -> u64 {
        u64::try_from(self.floor_scaled.div_ceil(u128::from(self.factors.den))).unwrap_or(u64::MAX)
    }
    /// The window at entry, before the silence factor.
    pub fn pre_recovery_cwnd(&self) -> u64 {
        self.pre_recovery_cwnd
    }
    /// The β the factors were derived from.
    pub fn beta(&self) -> Ratio {
        self.beta
    }
    /// The factors in use.
    pub fn factors(&self) -> Factors {
        self.factors
    }
}
/// Rapid Start as a startup policy of [`crate::loss_based::LossBased`]:
/// its options and its growth state, with one method per rule of -02 that
/// `LossBased` calls at the matching point (the map at the top of this
/// module says which).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RapidStart {
    opts: RapidStartOptions,
    /// §3.2: the RTT floor is above the queue-build-up threshold (2×).
    queue: bool,
    /// `latch_2x`: a queue was seen once; stay at 2×.
    latched: bool,
}

impl RapidStart {
    /// Rapid Start with `opts`, growing 2× until an RTT floor says the
    /// queue is empty.
    pub fn new(opts: RapidStartOptions) -> RapidStart {
        RapidStart {
            opts,
            queue: false,
            latched: false,
        }
    }

    /// The options.
    pub fn options(&self) -> &RapidStartOptions {
        &self.opts
    }

    /// -02 §3.2: re-evaluates the growth from the round's RTT `floor`
    /// (`None`: no floor yet, so nothing says the queue is empty).
    pub fn evaluate(&mut self, floor: Option<Duration>, rtt: &RttEstimator) {
        let queue = match floor {
            Some(f) if rtt.has_sample() => {
                f > queue_buildup_thresh(rtt.min(), self.opts.thresh_add, self.opts.thresh_mult)
            }
            _ => true,
        };
        if queue && self.opts.latch_2x {
            self.latched = true;
        }
        self.queue = queue || self.latched;
    }

    /// Whether the RTT floor comes from the previous round when the current
    /// one has none yet (`rtt_floor=fallback`).
    pub fn floor_falls_back(&self) -> bool {
        self.opts.rtt_floor == RttFloorSource::Fallback
    }

    /// -02 §3.2: the queue is building, so growth is 2×, not 3×.
    pub fn queue_building(&self) -> bool {
        self.queue
    }

    /// -02 §3.2: window bytes for `base` eligible acknowledged bytes: two
    /// per byte (3× per round) while the queue is empty, one (2×) once it
    /// builds.
    pub fn growth(&self, base: u64) -> u64 {
        if self.queue {
            base
        } else {
            base.saturating_mul(2)
        }
    }

    /// The pacing gain while growing 3× ([`RAPID_PACING_GAIN`] by default).
    pub fn pacing_gain(&self) -> Ratio {
        self.opts.pacing_gain
    }

    /// The pacing gain in the first recovery
    /// ([`RAPID_RECOVERY_PACING_GAIN`] by default).
    pub fn recovery_gain(&self) -> Ratio {
        self.opts.recovery_gain
    }

    /// The β of the smooth reduction for a loss: the option, else the
    /// congestion-avoidance algorithm's `ca_beta`.
    pub fn loss_beta(&self, ca_beta: Ratio) -> Ratio {
        self.opts.beta.unwrap_or(ca_beta)
    }

    /// -02 §3.3: the congestion event (`signal`) that ends the startup
    /// enters the first recovery, from `cwnd` (or the `flight` before the
    /// event, with `pre=flight`) scaled by β: the CE-only β of §3.3.2 for a
    /// CE signal, else [`RapidStart::loss_beta`]. The event's lost bytes
    /// are charged after the scaling (docs/algorithms.md ambiguity #7).
    pub fn enter_recovery(
        &self,
        signal: CongestionSignal,
        cwnd: u64,
        flight: u64,
        ca_beta: Ratio,
        min_window: u64,
        initial_window: u64,
    ) -> RapidRecovery {
        let (beta, lost) = match (signal, self.opts.ce_beta) {
            (CongestionSignal::Ecn { .. }, Some(b)) => (b, 0),
            (CongestionSignal::Ecn { .. }, None) => (self.loss_beta(ca_beta), 0),
            (CongestionSignal::Loss { lost_bytes }, _) => (self.loss_beta(ca_beta), lost_bytes),
        };
        let iw = self.opts.iw_floor.then_some(initial_window);
        let pre = match self.opts.pre_window {
            PreRecoveryWindow::Flight => cwnd.min(flight),
            PreRecoveryWindow::Cwnd => cwnd,
        };
        let mut rr = RapidRecovery::enter(pre, beta, min_window, iw);
        rr.on_lost(lost);
        rr
    }
}

#[cfg(test)]
mod policy_tests {
    use super::*;

    fn rtt_with_min(ms: u64) -> RttEstimator {
        let mut r = RttEstimator::default();
        r.update(
            Duration::from_millis(ms),
            Duration::ZERO,
            Duration::ZERO,
            true,
        );
        r
    }

    #[test]
    fn rapid_start_02_3_2_the_policy_grows_3x_until_the_floor_crosses_the_threshold() {
        let mut p = RapidStart::new(RapidStartOptions::default());
        let rtt = rtt_with_min(40);
        p.evaluate(None, &rtt);
        assert_eq!(p.growth(1000), 1000, "no floor: 2x");
        p.evaluate(Some(Duration::from_millis(41)), &rtt);
        assert_eq!(p.growth(1000), 2000, "below min(40 + 4, 44) ms: 3x");
        p.evaluate(Some(Duration::from_millis(45)), &rtt);
        assert!(p.queue_building());
        p.evaluate(Some(Duration::from_millis(41)), &rtt);
        assert!(!p.queue_building(), "without latch_2x, 3x resumes");
        let mut latched = RapidStart::new(RapidStartOptions {
            latch_2x: true,
            ..RapidStartOptions::default()
        });
        latched.evaluate(Some(Duration::from_millis(45)), &rtt);
        latched.evaluate(Some(Duration::from_millis(41)), &rtt);
        assert!(latched.queue_building(), "latch_2x keeps 2x");
    }

    #[test]
    fn rapid_start_02_3_3_2_a_ce_only_entry_uses_ce_beta_and_a_loss_charges_its_bytes() {
        let p = RapidStart::new(RapidStartOptions {
            ce_beta: Some(Ratio::new_const(4, 5)),
            ..RapidStartOptions::default()
        });
        let beta = Ratio::HALF;
        let ce = p.enter_recovery(
            CongestionSignal::Ecn {
                ce_packets: 1,
                ce_bytes: 1200,
            },
            120_000,
            120_000,
            beta,
            2400,
            12_000,
        );
        assert_eq!(ce.beta(), Ratio::new_const(4, 5));
        let loss = p.enter_recovery(
            CongestionSignal::Loss { lost_bytes: 1200 },
            120_000,
            120_000,
            beta,
            2400,
            12_000,
        );
        assert_eq!(loss.beta(), beta);
        assert!(
            loss.cwnd()
                < RapidStart::new(RapidStartOptions::default())
                    .enter_recovery(
                        CongestionSignal::Loss { lost_bytes: 0 },
                        120_000,
                        120_000,
                        beta,
                        2400,
                        12_000
                    )
                    .cwnd()
        );
    }
}
