//! Rapid Start, draft-kazuho-ccwg-rapid-start-02: the growth
//! rule and the smooth first-recovery reduction.
//!
//! The full-RTT paced first flight is `crate::jump_start`, shared with the
//! jump-start-only arm. Sequencing (when growth applies, when recovery
//! starts and ends) is in [`crate::loss_based`].
//!
//! Read with the draft beside it, section by section:
//!
//! | -02 | rule | code |
//! |---|---|---|
//! | §3.1 | the first flight: up to 2·IW paced over one RTT, after the first RTT sample | `crate::jump_start::jump_window`, `FirstFlight` (the flight and its end); `LossBased::on_ack_frame_end` starts it, `on_packet_sent` marks its first packet |
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

use crate::ratio::Ratio;

/// -02 §3.2: the RECOMMENDED additive queue-build-up margin, 4 ms.
pub const QUEUE_BUILDUP_ADD: Duration = Duration::from_millis(4);
/// -02 §3.2: the RECOMMENDED multiplicative margin, ×1.10.
pub const QUEUE_BUILDUP_MULT: Ratio = match Ratio::new(11, 10) {
    Some(r) => r,
    None => Ratio::ONE,
};
/// -02 §3.3's `K`, the share of the reduction `1 − β` that an acknowledged
/// byte sent before the event costs: `ack_factor = K·(1−β)`, `loss_factor =
/// silence_factor = β + K·(1−β)`. -02 writes the factors with K = 2/3.
pub const K_DRAFT: Ratio = Ratio::new_const(2, 3);
/// quicly's `QUICLY_RAPID_START_K` (11/18, include/quicly/cc.h at h2o/quicly
/// 45bf8a37): a slightly smaller ack and loss factor than -02's.
pub const K_QUICLY: Ratio = Ratio::new_const(11, 18);
/// quicly's multiplicative margin of the 3× test, `min_rtt·35/32`
/// (`quicly_cc_rapid_start_use_3x`, include/quicly/cc.h at 45bf8a37).
pub const QUICLY_THRESH_MULT: Ratio = Ratio::new_const(35, 32);
/// quicly switches Rapid Start off for good when `min_rtt` is below this
/// (4 ms: the 4 RTT-floor slots of `min_rtt/4` must be at least 1 ms;
/// `quicly_cc_rapid_start_update_rtt` at 45bf8a37).
pub const QUICLY_OFF_BELOW: Duration = Duration::from_millis(4);

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
    /// quicly's: the least sample over the last 4 slots of `min_rtt/4`
    /// each, a window of about one `min_rtt` that slides with time, not
    /// with rounds (`crate::rapid_floor::SlotFloor`).
    Slots,
}

/// How the two margins of `queue_buildup_thresh` combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreshCombine {
    /// -02 §3.2: `min(min_rtt + add, mult·min_rtt)` (default).
    Min,
    /// quicly: `max(min_rtt + add, mult·min_rtt)` (`thresh=max`).
    Max,
}

/// The clock Rapid Start reads RTTs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RttClock {
    /// The estimator's samples as they are (default).
    Exact,
    /// quicly's millisecond clock (`clock=ms`): a sample is `now − sent`
    /// on timestamps in whole milliseconds (at least 1 ms, as
    /// `quicly_rtt_update` forces), `min_rtt` the least of those, and the
    /// threshold computed on whole milliseconds.
    WholeMs,
}

/// How Rapid Start's first recovery charges its entering loss and hands
/// over at its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FirstRecovery {
    /// -02 as ramp resolves it (docs/algorithms.md ambiguities #7 and #8):
    /// the entering event's lost bytes are charged at the loss factor, and
    /// the exit sets `ssthresh = cwnd` and enters congestion avoidance.
    Draft,
    /// h2o/quicly 45bf8a37 lib/cc-pico.c (`recovery=quicly`): the entering
    /// loss only scales cwnd (`quicly_cc_rapid_start_on_first_lost`); every
    /// loss in the recovery then sets `ssthresh = cwnd`
    /// (`ClampMinAndUpdateMetrics`) while ACKs lower cwnd alone, so at the
    /// end `cwnd < ssthresh` and pico slow-starts back up to the window
    /// after the last loss, Rapid Start off.
    Quicly,
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
    /// quicly's floor for the first recovery (`jump_floor=on`): at least
    /// the slow-start exit β (0.5) times `max(IW, jump bytes acked)`
    /// (h2o/quicly 45bf8a37, lib/cc-pico.c `pico_on_lost`, passed to
    /// `quicly_cc_rapid_start_on_first_lost` as `cwnd_floor`).
    pub jump_floor: bool,
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
    /// `K` of the recovery factors ([`K_DRAFT`] by default).
    pub k: Ratio,
    /// How the threshold's margins combine.
    pub thresh_combine: ThreshCombine,
    /// The clock RTTs are read with.
    pub clock: RttClock,
    /// Rapid Start turns itself off for the connection when `min_rtt` is
    /// below this (zero: never, as in -02).
    pub off_below: Duration,
    /// The first recovery's entering charge and exit.
    pub first_recovery: FirstRecovery,
}

impl Default for RapidStartOptions {
    fn default() -> Self {
        RapidStartOptions {
            beta: None,
            ce_beta: None,
            latch_2x: false,
            iw_floor: false,
            jump_floor: false,
            thresh_add: QUEUE_BUILDUP_ADD,
            thresh_mult: QUEUE_BUILDUP_MULT,
            pacing_gain: RAPID_PACING_GAIN,
            rtt_floor: RttFloorSource::Fallback,
            pre_window: PreRecoveryWindow::Cwnd,
            recovery_gain: RAPID_RECOVERY_PACING_GAIN,
            k: K_DRAFT,
            thresh_combine: ThreshCombine::Min,
            clock: RttClock::Exact,
            off_below: Duration::ZERO,
            first_recovery: FirstRecovery::Draft,
        }
    }
}

impl RapidStartOptions {
    /// The options as h2o/quicly 45bf8a37 ran Rapid Start (the seed
    /// experiment's arms): K = 11/18, the 3× test `floor ≤ max(min + 4 ms,
    /// min·35/32)` on a 1 ms clock over 4 slots of `min_rtt/4`, off below
    /// 4 ms of `min_rtt`, the first recovery's floor at least `0.5 ·
    /// max(IW, jump bytes acked)`, quicly's entering charge and exit
    /// ([`FirstRecovery::Quicly`]). Everything else as -02 (β is the CA's:
    /// 0.7 on quicly's `pico`).
    pub fn quicly() -> RapidStartOptions {
        RapidStartOptions {
            k: K_QUICLY,
            thresh_combine: ThreshCombine::Max,
            thresh_mult: QUICLY_THRESH_MULT,
            clock: RttClock::WholeMs,
            rtt_floor: RttFloorSource::Slots,
            off_below: QUICLY_OFF_BELOW,
            jump_floor: true,
            first_recovery: FirstRecovery::Quicly,
            ..RapidStartOptions::default()
        }
    }
}

/// -02 §3.2 `queue_buildup_thresh = min(min_rtt + 4 ms, 1.10·min_rtt)`.
pub fn queue_buildup_thresh(min_rtt: Duration, add: Duration, mult: Ratio) -> Duration {
    queue_buildup_thresh_with(min_rtt, add, mult, ThreshCombine::Min)
}

/// `queue_buildup_thresh` with the margins combined by `combine` (quicly:
/// `max(min_rtt + 4 ms, min_rtt·35/32)`).
pub fn queue_buildup_thresh_with(
    min_rtt: Duration,
    add: Duration,
    mult: Ratio,
    combine: ThreshCombine,
) -> Duration {
    let scaled_ns = u128::from(mult.num()) * min_rtt.as_nanos() / u128::from(mult.den());
    let scaled = Duration::from_nanos(u64::try_from(scaled_ns).unwrap_or(u64::MAX));
    match combine {
        ThreshCombine::Min => (min_rtt + add).min(scaled),
        ThreshCombine::Max => (min_rtt + add).max(scaled),
    }
}

/// quicly's threshold on its millisecond clock: `max(min + 4, min·35/32)`
/// in whole milliseconds, the product rounded down as quicly's integer
/// arithmetic does (`combine` picks `min` or `max` of the two margins).
pub fn queue_buildup_thresh_ms(
    min_ms: u64,
    add: Duration,
    mult: Ratio,
    combine: ThreshCombine,
) -> u64 {
    let add_ms = u64::try_from(add.as_millis()).unwrap_or(u64::MAX);
    let a = min_ms.saturating_add(add_ms);
    let m = mult.mul_floor(min_ms);
    match combine {
        ThreshCombine::Min => a.min(m),
        ThreshCombine::Max => a.max(m),
    }
}

/// The three factors of -02 §3.3 as exact fractions over a common
/// denominator (β = p/q, K = a/b; the denominator is `3bq`, so that the
/// floor `β/3` is exact too): `ack = K(1−β)`, `silence = loss = β +
/// K(1−β)`; with -02's K = 2/3, `silence = loss = (2+β)/3` and `ack =
/// 2(1−β)/3`.
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
    /// The factors of -02 (K = 2/3) for `beta` (which must be in (0, 1)).
    pub fn for_beta(beta: Ratio) -> Factors {
        Factors::for_beta_k(beta, K_DRAFT)
    }

    /// The factors for `beta` and `k` (both in (0, 1]).
    pub fn for_beta_k(beta: Ratio, k: Ratio) -> Factors {
        let (p, q) = (beta.num(), beta.den());
        let (a, b) = (k.num(), k.den());
        // Saturating only matters for absurd denominators (> 2^20 each);
        // the spec parser limits them to 10^6.
        let ack = a.saturating_mul(q - p.min(q)).saturating_mul(3);
        let silence = b.saturating_mul(p).saturating_mul(3).saturating_add(ack);
        Factors {
            silence,
            ack,
            loss: silence,
            den: b.saturating_mul(q).saturating_mul(3),
        }
    }
}

/// The first recovery period's window (-02 §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RapidRecovery {
    beta: Ratio,
    k: Ratio,
    factors: Factors,
    /// The window scaled by `factors.den`.
    scaled: u128,
    /// The floor, scaled the same way.
    floor_scaled: u128,
    pre_recovery_cwnd: u64,
    min_window: u64,
    iw_floor: Option<u64>,
    /// A floor raised after entry ([`Self::raise_floor`]), bytes.
    raised_floor: u64,
    /// Bytes charged so far with the ack and loss factors, kept so that
    /// the recovery can be re-derived for another β ([`Self::rebased`]).
    acked_total: u64,
    lost_total: u64,
    /// The window after the entry and after each later loss: quicly's
    /// ssthresh at the end ([`FirstRecovery::Quicly`]).
    after_last_loss: u64,
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
        RapidRecovery::enter_k(pre_recovery_cwnd, beta, K_DRAFT, min_window, iw_floor)
    }

    /// [`RapidRecovery::enter`] with the factors of `k` instead of -02's 2/3.
    pub fn enter_k(
        pre_recovery_cwnd: u64,
        beta: Ratio,
        k: Ratio,
        min_window: u64,
        iw_floor: Option<u64>,
    ) -> RapidRecovery {
        let f = Factors::for_beta_k(beta, k);
        let den = u128::from(f.den);
        let kb = u128::from(k.den());
        // pre·β/3 scaled by 3bq is pre·p·b.
        let mut floor_scaled = (u128::from(min_window) * den)
            .max(u128::from(pre_recovery_cwnd) * u128::from(beta.num()) * kb);
        if let Some(iw) = iw_floor {
            // β·IW scaled by 3bq is 3·p·b·IW.
            floor_scaled = floor_scaled.max(3 * u128::from(beta.num()) * kb * u128::from(iw));
        }
        let scaled = (u128::from(pre_recovery_cwnd) * u128::from(f.silence)).max(floor_scaled);
        RapidRecovery {
            beta,
            k,
            factors: f,
            scaled,
            floor_scaled,
            pre_recovery_cwnd,
            min_window,
            iw_floor,
            raised_floor: 0,
            acked_total: 0,
            lost_total: 0,
            after_last_loss: 0,
        }
        .with_loss_mark()
    }

    /// Notes the current window as the one after the last loss.
    fn with_loss_mark(mut self) -> RapidRecovery {
        self.after_last_loss = self.cwnd();
        self
    }

    /// Never below `bytes` from now on (quicly's `cwnd_floor` argument,
    /// [`RapidStartOptions::jump_floor`]); the window rises to it at once
    /// if it is below.
    pub fn raise_floor(&mut self, bytes: u64) {
        self.raised_floor = self.raised_floor.max(bytes);
        let f = u128::from(bytes) * u128::from(self.factors.den);
        self.floor_scaled = self.floor_scaled.max(f);
        self.scaled = self.scaled.max(self.floor_scaled);
        self.after_last_loss = self.after_last_loss.max(self.cwnd());
    }

    /// The same recovery as if it had been entered with `beta`: the entry,
    /// the floor and every charge so far re-derived (the reductions
    /// commute, so the order of the charges does not matter). Used when a
    /// recovery entered on CE alone with the ABE-style `ce_beta` then sees
    /// a loss, which calls for the ordinary β.
    pub fn rebased(&self, beta: Ratio) -> RapidRecovery {
        let mut r = RapidRecovery::enter_k(
            self.pre_recovery_cwnd,
            beta,
            self.k,
            self.min_window,
            self.iw_floor,
        );
        r.raise_floor(self.raised_floor);
        r.on_acked(self.acked_total);
        r.on_lost(self.lost_total);
        r.after_last_loss = r
            .after_last_loss
            .max(self.after_last_loss.min(r.pre_recovery_cwnd));
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
        self.after_last_loss = self.cwnd();
    }

    /// The window right after the entry or the last loss since, bytes.
    pub fn after_last_loss(&self) -> u64 {
        self.after_last_loss
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

mod policy;
pub use policy::RapidStart;
