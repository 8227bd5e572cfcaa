//! The PI² controller (RFC 9332 §2.4 and Appendix A.2): one PI
//! controller, run every `tupdate`, sets the base probability p′ from the
//! queue delay; the classic queue uses its square and the L queue k
//! times it.

use std::time::Duration;

use ramp_vocab::Time;

use super::params::DualPi2Params;

/// The PI controller's state: the base probability p′ and what its next
/// update needs.
#[derive(Clone, Debug)]
pub(super) struct Pi {
    /// The base probability p′, in [0, 1].
    pub(super) prob: f64,
    /// The queue delay of the previous update (the proportional term
    /// acts on its change).
    prev_qdelay: Duration,
    /// When the controller runs next.
    next_update: Time,
}

impl Pi {
    /// p′ = 0, first update one `tupdate` after time zero.
    pub(super) fn new(params: &DualPi2Params) -> Pi {
        Pi {
            prob: 0.0,
            prev_qdelay: Duration::ZERO,
            next_update: Time::ZERO + params.tupdate,
        }
    }

    /// Runs the updates due by `now` (RFC 9332 Appendix A.2
    /// `dualpi2_update`), each with `qdelay(t)`, the queue delay as of its
    /// own time `t`: updates missed while nothing happened still run in
    /// order, so p′ does not depend on when the queue was last polled.
    pub(super) fn catch_up(
        &mut self,
        now: Time,
        params: &DualPi2Params,
        qdelay: impl Fn(Time) -> Duration,
    ) {
        while self.next_update <= now {
            let t = self.next_update;
            let qdelay = qdelay(t);
            let err = qdelay.as_secs_f64() - params.target.as_secs_f64();
            let trend = qdelay.as_secs_f64() - self.prev_qdelay.as_secs_f64();
            self.prob = (self.prob + params.alpha * err + params.beta * trend).clamp(0.0, 1.0);
            self.prev_qdelay = qdelay;
            self.next_update = t + params.tupdate;
        }
    }

    /// The classic queue's drop/mark probability p_C = (p′)² (RFC 9332
    /// §2.4: the square makes a classic flow's rate, ∝ 1/√p_C, come out
    /// equal to a scalable flow's, ∝ 1/p_CL).
    pub(super) fn p_c(&self) -> f64 {
        self.prob * self.prob
    }

    /// The L queue's coupled marking probability p_CL = k·p′ (RFC 9332
    /// §2.4), uncapped: p_CL ≥ 1 is the overload of §4.2.3.
    pub(super) fn p_cl(&self, params: &DualPi2Params) -> f64 {
        params.coupling * self.prob
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{dq, ms, pkt};
    use ramp_vocab::EcnCodepoint;

    #[test]
    fn rfc9332_a_2_pi_raises_p_above_target_and_lowers_it_below() {
        let mut q = dq();
        // A classic packet sits 40 ms: each update adds α·25 ms plus the
        // trend term.
        q.enqueue(ramp_vocab::Time::ZERO, pkt(0, EcnCodepoint::Ect0));
        q.catch_up(ms(16));
        let p1 = q.base_probability();
        let want = 0.16 * (0.016 - 0.015) + 3.2 * 0.016;
        assert!((p1 - want).abs() < 1e-3, "{p1} vs {want}");
        q.catch_up(ms(48));
        assert!(q.base_probability() > p1);
        // Empty: the delay falls to 0 and p' decays to 0.
        let _ = q.dequeue(ms(48), &mut |_| ());
        q.catch_up(ms(2000));
        assert_eq!(q.base_probability(), 0.0);
    }
}
