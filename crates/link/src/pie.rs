//! PIE, "Proportional Integral controller Enhanced" (RFC 8033), and its
//! DOCSIS 3.1 profile DOCSIS-PIE (RFC 8034).
//!
//! PIE drops (or CE-marks) at enqueue with a probability it re-computes
//! every `t_update` from the queueing delay: up in proportion to how far
//! the delay is above target (α) and to how fast it is rising (β). Because
//! every decision is made on arrival, a PIE queue is still a FIFO whose
//! departures are known on arrival, and it runs on the link's virtual-time
//! server without dequeue events.
//!
//! The queueing delay is the link's exact wait (backlog over the link
//! rate), which is what RFC 8033 §5.2's rate-based estimate converges to on
//! a constant-rate link, and what RFC 8034 prescribes outright
//! (DOCSIS-PIE divides the queue by the configured rate).
//!
//! DOCSIS-PIE differs from RFC 8033 in more than its constants (RFC 8034,
//! and the CableLabs reference model its authors published with it):
//! - *burst protection starts at a burst, not at start-up*: no early drop
//!   while the queue is under a third of the buffer; once it is over, the
//!   first early drop opens the 142 ms allowance, during which the drop
//!   probability is held at 0; the state returns to "no burst" after the
//!   queue has been calm for a second;
//! - its probability steps grow above 10 % (×2 up to 1, more beyond; still
//!   capped at +2 % per update), decay by 2 % per update whenever the delay
//!   stays under 5 ms, and gain 2 % per update above 200 ms;
//! - per-packet probability scaled by size (byte mode) and capped at 0.85;
//! - no ECN: DOCSIS does not mark, it drops.

use std::time::Duration;

use ramp_vocab::rng::{Probability, Rng};
use ramp_vocab::Time;

/// The two PIE profiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PieProfile {
    /// RFC 8033 as written.
    Rfc8033,
    /// DOCSIS-PIE (RFC 8034): its constants, and drop probability scaled
    /// by packet size (RFC 8034 Appendix A), so small packets (ACKs, VoIP) are
    /// rarely dropped.
    Docsis,
}

/// PIE's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    /// Which profile's behaviour to follow.
    pub profile: PieProfile,
    /// Target queueing delay ("QDELAY_REF"): 15 ms (RFC 8033 §4.1); 10 ms
    /// for DOCSIS-PIE (RFC 8034 Appendix A).
    pub target: Duration,
    /// Drop-probability update period ("T_UPDATE"): 15 ms (RFC 8033 §4.2);
    /// 16 ms for DOCSIS-PIE (RFC 8034 Appendix A).
    pub t_update: Duration,
    /// Weight of the delay error, per second: 0.125 (RFC 8033 §4.2); 0.25
    /// for DOCSIS-PIE (RFC 8034 Appendix A).
    pub alpha: f64,
    /// Weight of the delay trend, per second: 1.25 (RFC 8033 §4.2); 2.5
    /// for DOCSIS-PIE (RFC 8034 Appendix A).
    pub beta: f64,
    /// Burst tolerated without drops after an idle queue ("MAX_BURST"):
    /// 150 ms (RFC 8033 §4.4); 142 ms for DOCSIS-PIE (RFC 8034 Appendix A).
    pub max_burst: Duration,
    /// Above this drop probability ECT packets are dropped, not marked
    /// ("mark_ecnth", 10 %: RFC 8033 §5.1).
    pub mark_ecn_threshold: f64,
    /// Mean packet size: a queue of at most two of these is never dropped
    /// from (RFC 8033 §4.1), and DOCSIS-PIE scales the drop probability by
    /// `size / mean` (RFC 8034 Appendix A). 1024 bytes in RFC 8034; ramp uses the
    /// same for RFC 8033, which leaves it open.
    pub mean_packet: u32,
}

impl PieParams {
    /// RFC 8033's defaults.
    pub const RFC8033: PieParams = PieParams {
        profile: PieProfile::Rfc8033,
        target: Duration::from_millis(15),
        t_update: Duration::from_millis(15),
        alpha: 0.125,
        beta: 1.25,
        max_burst: Duration::from_millis(150),
        mark_ecn_threshold: 0.1,
        mean_packet: 1024,
    };

    /// DOCSIS-PIE's constants (RFC 8034 Appendix A).
    pub const DOCSIS: PieParams = PieParams {
        profile: PieProfile::Docsis,
        target: Duration::from_millis(10),
        t_update: Duration::from_millis(16),
        alpha: 0.25,
        beta: 2.5,
        max_burst: Duration::from_millis(142),
        mark_ecn_threshold: 0.1,
        mean_packet: 1024,
    };
}

/// DOCSIS-PIE's delay under which the probability decays (5 ms).
const DOCSIS_LATENCY_LOW: Duration = Duration::from_millis(5);
/// DOCSIS-PIE's delay above which the probability gains 2 % per update.
const DOCSIS_LATENCY_HIGH: Duration = Duration::from_millis(200);
/// DOCSIS-PIE's de-randomisation floor, and its cap on one packet's drop
/// probability ("PROB_LOW").
const DOCSIS_PROB_LOW: f64 = 0.85;
/// Smallest packet DOCSIS-PIE scales for (bytes): the drop probability is
/// capped at `PROB_LOW · mean / MIN_PKTSIZE`.
const DOCSIS_MIN_PACKET: f64 = 64.0;
/// How long the queue must stay calm before a new burst is protected again
/// ("BURST_RESET_TIMEOUT", 1 s).
const DOCSIS_BURST_RESET: Duration = Duration::from_secs(1);

/// DOCSIS-PIE's burst protection state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BurstState {
    /// Calm: no early drop while the queue is under a third of the buffer.
    NoBurst,
    /// A burst is under way; its first early drop starts protection.
    InBurst,
    /// The allowance runs: no early drops, probability held at 0.
    Protecting,
}

/// What PIE does with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PieVerdict {
    /// Enqueue it unmarked.
    Pass,
    /// Enqueue it CE-marked.
    Mark,
    /// Drop it.
    Drop,
}

/// PIE's state (RFC 8033 §4's variables).
#[derive(Clone, Debug)]
pub(crate) struct Pie {
    params: PieParams,
    /// Current drop probability (`drop_prob_`).
    drop_prob: f64,
    /// Queueing delay at the previous update (`qdelay_old_`).
    qdelay_old: Duration,
    /// Drops skipped while a burst is tolerated (`burst_allowance_`).
    burst_allowance: Duration,
    /// De-randomisation accumulator (`accu_prob`, RFC 8033 §5.4).
    accu_prob: f64,
    /// When the next probability update is due.
    next_update: Time,
    /// DOCSIS-PIE: burst protection state, and calm updates counted
    /// towards leaving it.
    burst_state: BurstState,
    calm_updates: u32,
    /// The buffer, bytes (DOCSIS-PIE protects bursts under a third of it).
    limit_bytes: u64,
    rng: Rng,
}

impl Pie {
    pub(crate) fn new(params: PieParams, limit_bytes: u64, rng: Rng) -> Pie {
        Pie {
            params,
            drop_prob: 0.0,
            qdelay_old: Duration::ZERO,
            // RFC 8033 protects from the start; DOCSIS-PIE from a burst's
            // first drop.
            burst_allowance: match params.profile {
                PieProfile::Rfc8033 => params.max_burst,
                PieProfile::Docsis => Duration::ZERO,
            },
            accu_prob: 0.0,
            next_update: Time::ZERO + params.t_update,
            burst_state: BurstState::NoBurst,
            calm_updates: 0,
            limit_bytes,
            rng,
        }
    }

    /// The current drop probability (read by the tests of RFC 8033's
    /// update rules).
    #[cfg(test)]
    pub(crate) fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// Runs every probability update due by `now`. `qdelay_at(t)` is the
    /// queueing delay at `t`; no packet arrived since the last call, so the
    /// delay at an update instant in between is the backlog then.
    pub(crate) fn catch_up(&mut self, now: Time, qdelay_at: impl Fn(Time) -> Duration) {
        while self.next_update <= now {
            let t = self.next_update;
            self.update(qdelay_at(t));
            self.next_update = t + self.params.t_update;
        }
    }

    /// One probability update.
    fn update(&mut self, qdelay: Duration) {
        match self.params.profile {
            PieProfile::Rfc8033 => self.update_rfc8033(qdelay),
            PieProfile::Docsis => self.update_docsis(qdelay),
        }
    }

    /// RFC 8034 (DOCSIS-PIE): one probability update.
    fn update_docsis(&mut self, qdelay: Duration) {
        let p = self.params;
        if !self.burst_allowance.is_zero() {
            self.drop_prob = 0.0;
        } else {
            let target = p.target.as_secs_f64();
            let cur = qdelay.as_secs_f64();
            let old = self.qdelay_old.as_secs_f64();
            // The reference model continues RFC 8033's table upward.
            let scale = small_probability_scale(self.drop_prob).unwrap_or(match self.drop_prob {
                d if d < 1.0 => 2.0,
                d if d < 10.0 => 8.0,
                _ => 32.0,
            });
            let mut delta = (p.alpha * (cur - target) + p.beta * (cur - old)) * scale;
            if self.drop_prob >= 0.1 && delta > 0.02 {
                delta = 0.02;
            }
            let mut prob = self.drop_prob + delta;
            if qdelay < DOCSIS_LATENCY_LOW && self.qdelay_old < DOCSIS_LATENCY_LOW {
                prob *= 0.98;
            } else if qdelay > DOCSIS_LATENCY_HIGH {
                prob += 0.02;
            }
            let cap = DOCSIS_PROB_LOW * f64::from(p.mean_packet) / DOCSIS_MIN_PACKET;
            self.drop_prob = prob.clamp(0.0, cap);
        }
        self.burst_allowance = self.burst_allowance.saturating_sub(p.t_update);
        let half = p.target / 2;
        let calm = qdelay < half
            && self.qdelay_old < half
            && self.drop_prob == 0.0
            && self.burst_allowance.is_zero();
        let reset_after = (DOCSIS_BURST_RESET.as_nanos() / p.t_update.as_nanos().max(1)) as u32;
        match (calm, self.burst_state) {
            (true, BurstState::Protecting) => {
                self.burst_state = BurstState::InBurst;
                self.calm_updates = 0;
            }
            (true, BurstState::InBurst) => {
                self.calm_updates += 1;
                if self.calm_updates > reset_after {
                    self.burst_state = BurstState::NoBurst;
                    self.calm_updates = 0;
                }
            }
            (false, BurstState::InBurst) => self.calm_updates = 0,
            _ => {}
        }
        self.qdelay_old = qdelay;
    }

    /// RFC 8033 §4.2: one probability update.
    fn update_rfc8033(&mut self, qdelay: Duration) {
        let p = &self.params;
        let target = p.target.as_secs_f64();
        let cur = qdelay.as_secs_f64();
        let old = self.qdelay_old.as_secs_f64();
        let mut delta = p.alpha * (cur - target) + p.beta * (cur - old);
        delta *= small_probability_scale(self.drop_prob).unwrap_or(1.0);
        // Cap the step at 2 % once the probability is high (RFC 8033 §5.5),
        // so that one large delay sample cannot force a burst of drops.
        if self.drop_prob >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        self.drop_prob += delta;
        // Decay once the queue has been empty for two updates (RFC 8033
        // §4.2: "1 - 1/64 is sufficient").
        if qdelay.is_zero() && self.qdelay_old.is_zero() {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        // RFC 8033 §4.4: the burst allowance runs down, and is restored
        // once the queue is calm and nothing is being dropped.
        let half = p.target / 2;
        self.burst_allowance = self.burst_allowance.saturating_sub(p.t_update);
        if self.drop_prob == 0.0 && qdelay < half && self.qdelay_old < half {
            self.burst_allowance = p.max_burst;
        }
        self.qdelay_old = qdelay;
    }

    /// RFC 8033 §4.1 enqueue decision for a packet of `size` bytes when
    /// `backlog` bytes are queued (RFC 8033 §5.1 for ECN, §5.4 for the
    /// de-randomisation).
    pub(crate) fn on_arrival(&mut self, size: u32, ect: bool, backlog: u64) -> PieVerdict {
        let p = self.params;
        if !self.burst_allowance.is_zero() {
            return PieVerdict::Pass;
        }
        if p.profile == PieProfile::Docsis {
            return self.on_arrival_docsis(size, backlog);
        }
        if (self.qdelay_old < p.target / 2 && self.drop_prob < 0.2)
            || backlog <= 2 * u64::from(p.mean_packet)
        {
            return PieVerdict::Pass;
        }
        let prob = self.drop_prob;
        if prob == 0.0 {
            self.accu_prob = 0.0;
            return PieVerdict::Pass;
        }
        // De-randomisation: never drop while the accumulated probability
        // is under 0.85, always once it reaches 8.5.
        self.accu_prob += prob;
        let drop = if self.accu_prob < 0.85 {
            false
        } else if self.accu_prob >= 8.5 {
            true
        } else {
            self.rng.chance(Probability::new(prob.min(1.0)))
        };
        if !drop {
            return PieVerdict::Pass;
        }
        self.accu_prob = 0.0;
        if ect && self.drop_prob <= p.mark_ecn_threshold {
            PieVerdict::Mark
        } else {
            PieVerdict::Drop
        }
    }

    /// DOCSIS-PIE's enqueue decision (RFC 8034): burst states, byte mode,
    /// de-randomisation, no ECN.
    fn on_arrival_docsis(&mut self, size: u32, backlog: u64) -> PieVerdict {
        let p = self.params;
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        if self.burst_state == BurstState::NoBurst {
            if backlog < self.limit_bytes / 3 {
                return PieVerdict::Pass;
            }
            self.burst_state = BurstState::InBurst;
        }
        let prob =
            (self.drop_prob * f64::from(size) / f64::from(p.mean_packet)).min(DOCSIS_PROB_LOW);
        self.accu_prob += prob;
        if (self.qdelay_old < p.target / 2 && self.drop_prob < 0.2)
            || backlog <= 2 * u64::from(p.mean_packet)
        {
            return PieVerdict::Pass;
        }
        let drop = if self.accu_prob < DOCSIS_PROB_LOW {
            false
        } else if self.accu_prob > 10.0 * DOCSIS_PROB_LOW {
            true
        } else {
            self.rng.chance(Probability::new(prob))
        };
        if !drop {
            return PieVerdict::Pass;
        }
        self.accu_prob = 0.0;
        if self.burst_state == BurstState::InBurst {
            self.burst_state = BurstState::Protecting;
            self.burst_allowance = p.max_burst;
        }
        PieVerdict::Drop
    }
}

/// RFC 8033 §4.2's auto-tuning: small probabilities move in small steps,
/// so that a light load is not punished by the gains tuned for a heavy
/// one. The factor on a step while the probability is below 10 %; `None`
/// from 10 % on, where each profile has its own.
fn small_probability_scale(drop_prob: f64) -> Option<f64> {
    Some(match drop_prob {
        d if d < 0.000_001 => 1.0 / 2048.0,
        d if d < 0.000_01 => 1.0 / 512.0,
        d if d < 0.000_1 => 1.0 / 128.0,
        d if d < 0.001 => 1.0 / 32.0,
        d if d < 0.01 => 1.0 / 8.0,
        d if d < 0.1 => 1.0 / 2.0,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pie() -> Pie {
        Pie::new(PieParams::RFC8033, 3_000_000, Rng::new(1, 3))
    }

    #[test]
    fn rfc8033_4_2_probability_update_follows_alpha_beta_and_autotuning() {
        let mut p = pie();
        // From 0 with the delay at 35 ms (20 ms above target, rising by
        // 35 ms): 0.125·0.020 + 1.25·0.035 = 0.04625, scaled by 1/2048.
        p.update(Duration::from_millis(35));
        let want = (0.125 * 0.020 + 1.25 * 0.035) / 2048.0;
        assert!((p.drop_prob() - want).abs() < 1e-12, "{}", p.drop_prob());
        // Steady at 35 ms: only the α term, at the tier of the current
        // probability (2.26e-5 is in [1e-5, 1e-4): 1/128).
        let before = p.drop_prob();
        p.update(Duration::from_millis(35));
        let want = before + 0.125 * 0.020 / 128.0;
        assert!((p.drop_prob() - want).abs() < 1e-12);
    }

    #[test]
    fn rfc8033_5_5_step_capped_at_two_percent_above_ten_percent() {
        let mut p = pie();
        p.drop_prob = 0.5;
        p.qdelay_old = Duration::ZERO;
        p.update(Duration::from_millis(500));
        assert!((p.drop_prob() - 0.52).abs() < 1e-12);
    }

    #[test]
    fn rfc8033_4_2_decays_when_the_queue_stays_empty() {
        let mut p = pie();
        p.drop_prob = 0.5;
        p.update(Duration::ZERO);
        // 0.5 + 0.125·(−0.015) (no scaling above 10 %), then × 0.98.
        let want = (0.5 - 0.125 * 0.015) * 0.98;
        assert!((p.drop_prob() - want).abs() < 1e-12);
    }

    #[test]
    fn rfc8033_4_4_burst_allowance_passes_everything_until_spent() {
        let mut p = pie();
        p.drop_prob = 0.9;
        p.qdelay_old = Duration::from_millis(100);
        assert_eq!(p.on_arrival(1500, false, 1_000_000), PieVerdict::Pass);
        // 150 ms of allowance is 10 updates of 15 ms.
        for _ in 0..10 {
            p.update(Duration::from_millis(100));
        }
        let drops = (0..1000)
            .filter(|_| p.on_arrival(1500, false, 1_000_000) == PieVerdict::Drop)
            .count();
        assert!(drops > 800, "drops {drops}");
    }

    #[test]
    fn rfc8033_5_1_ecn_marks_below_the_threshold_and_drops_above() {
        let mut p = pie();
        p.burst_allowance = Duration::ZERO;
        p.qdelay_old = Duration::from_millis(100);
        p.drop_prob = 0.05;
        let v: Vec<_> = (0..2000)
            .map(|_| p.on_arrival(1500, true, 1_000_000))
            .collect();
        assert!(v.contains(&PieVerdict::Mark));
        assert!(!v.contains(&PieVerdict::Drop));
        p.drop_prob = 0.3;
        let v: Vec<_> = (0..200)
            .map(|_| p.on_arrival(1500, true, 1_000_000))
            .collect();
        assert!(v.contains(&PieVerdict::Drop));
        assert!(!v.contains(&PieVerdict::Mark));
    }

    #[test]
    fn rfc8033_5_4_derandomisation_bounds_the_gap_between_drops() {
        // At 10 %, at least 8.5 and at most 85 packets pass between drops.
        let mut p = pie();
        p.burst_allowance = Duration::ZERO;
        p.qdelay_old = Duration::from_millis(100);
        p.drop_prob = 0.1;
        let mut since = 0;
        let mut gaps = Vec::new();
        for _ in 0..20_000 {
            if p.on_arrival(1500, false, 1_000_000) == PieVerdict::Drop {
                gaps.push(since);
                since = 0;
            } else {
                since += 1;
            }
        }
        assert!(gaps.iter().all(|g| (8..=85).contains(g)), "{gaps:?}");
    }

    fn docsis() -> Pie {
        Pie::new(PieParams::DOCSIS, 3_000_000, Rng::new(1, 3))
    }

    #[test]
    fn rfc8034_byte_mode_small_packets_are_dropped_less_and_never_marked() {
        let mut p = docsis();
        // Past a burst's protection: early drops at the full probability.
        p.burst_state = BurstState::Protecting;
        p.qdelay_old = Duration::from_millis(100);
        p.drop_prob = 0.2;
        let big = (0..5000)
            .filter(|_| p.on_arrival(1500, true, 1_500_000) == PieVerdict::Drop)
            .count();
        let small = (0..5000)
            .filter(|_| p.on_arrival(64, true, 1_500_000) == PieVerdict::Drop)
            .count();
        assert!(small * 5 < big, "small {small} big {big}");
        // ECT or not, DOCSIS drops: it has no ECN.
        assert!((0..5000).all(|_| p.on_arrival(1500, true, 1_500_000) != PieVerdict::Mark));
    }

    #[test]
    fn rfc8034_no_early_drop_while_the_queue_is_under_a_third_of_the_buffer() {
        let mut p = docsis();
        p.qdelay_old = Duration::from_millis(100);
        p.drop_prob = 0.9;
        assert!((0..2000).all(|_| p.on_arrival(1500, false, 999_999) == PieVerdict::Pass));
        assert_eq!(p.burst_state, BurstState::NoBurst);
    }

    #[test]
    fn rfc8034_a_bursts_first_drop_opens_the_allowance_and_holds_the_probability_at_zero() {
        let mut p = docsis();
        p.qdelay_old = Duration::from_millis(100);
        p.drop_prob = 0.9;
        let first = (0..100).position(|_| p.on_arrival(1500, false, 1_500_000) == PieVerdict::Drop);
        assert!(first.is_some());
        assert_eq!(p.burst_state, BurstState::Protecting);
        assert_eq!(p.burst_allowance, Duration::from_millis(142));
        // During the allowance: no drop, and the probability is held at 0.
        assert!((0..1000).all(|_| p.on_arrival(1500, false, 1_500_000) == PieVerdict::Pass));
        p.update(Duration::from_millis(150));
        assert_eq!(p.drop_prob(), 0.0);
        // 142 ms is 9 updates of 16 ms.
        for _ in 0..9 {
            p.update(Duration::from_millis(150));
        }
        assert!(p.burst_allowance.is_zero());
        p.update(Duration::from_millis(150));
        assert!(p.drop_prob() > 0.0);
    }

    #[test]
    fn rfc8034_decays_under_5_ms_and_gains_above_200_ms() {
        let mut p = docsis();
        p.drop_prob = 0.5;
        p.qdelay_old = Duration::from_millis(3);
        p.update(Duration::from_millis(3));
        // Step ×2 above 10 % (negative here: 0.25·(0.003 − 0.010)), then ×0.98.
        let want = (0.5 + 2.0 * (0.25 * (0.003 - 0.010))) * 0.98;
        assert!((p.drop_prob() - want).abs() < 1e-12, "{}", p.drop_prob());
        let mut q = docsis();
        q.drop_prob = 0.5;
        q.qdelay_old = Duration::from_millis(300);
        q.update(Duration::from_millis(300));
        // The step is capped at 2 %, then 2 % more above 200 ms.
        assert!((q.drop_prob() - 0.54).abs() < 1e-12, "{}", q.drop_prob());
    }
}
