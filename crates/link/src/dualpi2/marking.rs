//! What happens to a packet as it leaves DualPI2 (RFC 9332 Appendix A.1
//! `dualpi2_dequeue`; decisions at dequeue, Linux's default with
//! `drop_early` off): the classic queue drops or marks with p_C, and
//! only drops on overload (Appendix A.2 "Overload disables ECN"); the L
//! queue marks with the larger of the coupled p_CL and its native AQM
//! (§2.5.1.1, §4.1.1: Linux's step or the DOCSIS ramp), and drops with
//! p_C on overload (§4.2.3); nothing is dropped or marked by the PI part
//! under two MTUs of backlog (Linux's `must_drop` guard, Appendix A.1
//! `2*MTU`).

use std::time::Duration;

use ramp_vocab::rng::{Probability, Rng};

use super::params::{DualPi2Params, NativeAqm, StepThreshold};
use super::pi::Pi;
use super::queues::DualQueue;
use crate::packet::Packet;

/// What a dequeue produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Send it; `true` if CE-marked here.
    Send(bool),
    /// Drop it (the PI part's drop).
    Drop,
}

/// What a packet saw when it left: its sojourn, the bytes still queued
/// in both queues behind it, the L queue's length after it left, and
/// whether the step applies to it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ahead {
    pub(super) sojourn: Duration,
    pub(super) backlog: u64,
    pub(super) l_len: usize,
    pub(super) apply: bool,
}

/// Whether the native AQM will apply to an L packet that arrives with
/// `l_len` packets already in the L queue (Linux `skb_apply_step`: the
/// step applies if the L queue already holds `min_qlen_step` packets; the
/// DOCSIS ramp always applies).
pub(super) fn native_applies(native: &NativeAqm, l_len: usize) -> bool {
    match *native {
        NativeAqm::Step { min_qlen, .. } => {
            l_len >= usize::try_from(min_qlen).unwrap_or(usize::MAX)
        }
        NativeAqm::Ramp { .. } => true,
    }
}

/// A coin flip with probability `p` (capped at 1); no draw at all for
/// `p` ≤ 0, so an idle AQM leaves the random stream untouched.
fn roll(rng: &mut Rng, p: f64) -> bool {
    p > 0.0 && rng.chance(Probability::new(p.min(1.0)))
}

/// The fate of `p` from `which` queue, given what it saw, under base
/// probability `pi` (RFC 9332 Appendix A.1 `dualpi2_dequeue`, Linux
/// `must_drop` and the step).
pub(super) fn decide<P>(
    params: &DualPi2Params,
    pi: &Pi,
    rng: &mut Rng,
    which: DualQueue,
    p: &Packet<P>,
    ahead: Ahead,
) -> Verdict {
    let guard = ahead.backlog < 2 * u64::from(params.mtu);
    // RFC 9332 §4.2.3 overload: p_CL = k·p′ ≥ 1, i.e. p_C ≥ p_Cmax = 1/k².
    let overload = pi.p_cl(params) >= 1.0;
    match which {
        DualQueue::C => {
            if guard || !roll(rng, pi.p_c()) {
                return Verdict::Send(false);
            }
            // Appendix A.2 "Overload disables ECN"; Linux
            // `dualpi2_classic_marking`: on overload only drop.
            if p.ecn.is_ect() && !overload {
                Verdict::Send(true)
            } else {
                Verdict::Drop
            }
        }
        DualQueue::L => {
            let p_cl = pi.p_cl(params);
            if overload && params.drop_overload && !guard {
                // §4.2.3 overload: L packets see the classic drop.
                if roll(rng, pi.p_c()) {
                    return Verdict::Drop;
                }
            }
            let coupled = if guard { 0.0 } else { p_cl };
            match params.native {
                NativeAqm::Step { threshold, .. } => {
                    // The step (probability 0 or 1), then the coupled
                    // marking: the larger of the two.
                    let over = match threshold {
                        StepThreshold::Sojourn(t) => ahead.sojourn > t,
                        StepThreshold::Packets(n) => {
                            ahead.l_len > usize::try_from(n).unwrap_or(usize::MAX)
                        }
                    };
                    if ahead.apply && over {
                        return Verdict::Send(true);
                    }
                    Verdict::Send(roll(rng, coupled))
                }
                NativeAqm::Ramp { min, max } => {
                    // MULPIv3.1 Annex N: one roll against the larger of
                    // the ramp's and the coupled probability.
                    let native = ramp(ahead.sojourn, min, max);
                    Verdict::Send(roll(rng, native.max(coupled)))
                }
            }
        }
    }
}

/// The DOCSIS IAQM ramp: 0 below `min`, 1 from `max`, linear between.
fn ramp(qdelay: Duration, min: Duration, max: Duration) -> f64 {
    if qdelay <= min {
        0.0
    } else if qdelay >= max {
        1.0
    } else {
        (qdelay - min).as_secs_f64() / (max - min).as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{at, dq, ms, pkt};
    use super::super::params::DOCSIS_RAMP_RANGE;
    use super::super::DualPi2;
    use super::*;
    use ramp_vocab::{EcnCodepoint, Time};

    #[test]
    fn rfc9332_2_4_coupling_classic_is_the_square_and_l_is_k_times() {
        // Hold p' at 0.3: C marks ECT(0) with 0.09, L marks with 0.6.
        let mut q = dq();
        let (mut c_marks, mut l_marks, n) = (0u32, 0u32, 20_000u32);
        for i in 0..n {
            q.pi.prob = 0.3;
            let backlog = 10 * 1514;
            if q.decide(
                DualQueue::C,
                &pkt(i, EcnCodepoint::Ect0),
                at(Duration::ZERO, backlog),
            ) == Verdict::Send(true)
            {
                c_marks += 1;
            }
            if q.decide(
                DualQueue::L,
                &pkt(i, EcnCodepoint::Ect1),
                at(Duration::ZERO, backlog),
            ) == Verdict::Send(true)
            {
                l_marks += 1;
            }
        }
        let (pc, pl) = (
            f64::from(c_marks) / f64::from(n),
            f64::from(l_marks) / f64::from(n),
        );
        assert!((pc - 0.09).abs() < 0.01, "p_C {pc}");
        assert!((pl - 0.6).abs() < 0.015, "p_CL {pl}");
        // A Not-ECT classic packet is dropped instead.
        q.pi.prob = 1.0;
        assert_eq!(
            q.decide(
                DualQueue::C,
                &pkt(0, EcnCodepoint::NotEct),
                at(Duration::ZERO, 1 << 20)
            ),
            Verdict::Drop
        );
    }

    #[test]
    fn rfc9332_2_5_1_step_marks_l_above_one_ms_of_sojourn() {
        let mut q = dq();
        q.pi.prob = 0.0;
        let p = pkt(0, EcnCodepoint::Ect1);
        assert_eq!(
            q.decide(DualQueue::L, &p, at(Duration::from_micros(999), 0)),
            Verdict::Send(false)
        );
        assert_eq!(
            q.decide(DualQueue::L, &p, at(Duration::from_micros(1001), 0)),
            Verdict::Send(true)
        );
        // The classic queue has no step.
        let c = pkt(0, EcnCodepoint::Ect0);
        assert_eq!(
            q.decide(DualQueue::C, &c, at(Duration::from_millis(50), 0)),
            Verdict::Send(false)
        );
    }

    #[test]
    fn rfc9332_4_2_3_overload_drops_l_packets_with_the_classic_probability() {
        let mut q = dq();
        let (mut drops, n) = (0u32, 10_000u32);
        for i in 0..n {
            q.pi.prob = 0.8; // p_CL = 1.6 >= 1: overload.
            if q.decide(
                DualQueue::L,
                &pkt(i, EcnCodepoint::Ect1),
                at(Duration::ZERO, 1 << 20),
            ) == Verdict::Drop
            {
                drops += 1;
            }
        }
        let pd = f64::from(drops) / f64::from(n);
        assert!((pd - 0.64).abs() < 0.02, "overload drop {pd}");
        // Without drop_overload, L packets are all marked instead.
        let mut q = DualPi2::<u32>::new(
            DualPi2Params {
                drop_overload: false,
                ..DualPi2Params::LINUX
            },
            Rng::new(1, 2),
        );
        q.pi.prob = 0.8;
        assert_eq!(
            q.decide(
                DualQueue::L,
                &pkt(0, EcnCodepoint::Ect1),
                at(Duration::ZERO, 1 << 20)
            ),
            Verdict::Send(true)
        );
    }

    #[test]
    fn rfc9332_a_1_no_pi_drop_under_two_mtus() {
        let mut q = dq();
        q.pi.prob = 1.0;
        let p = pkt(0, EcnCodepoint::NotEct);
        assert_eq!(
            q.decide(DualQueue::C, &p, at(Duration::ZERO, 2 * 1514 - 1)),
            Verdict::Send(false)
        );
    }

    #[test]
    fn linux_min_qlen_step_spares_packets_that_found_a_short_l_queue() {
        // net/sched/sch_dualpi2.c `skb_apply_step`: with min_qlen_step 2,
        // the first two packets of a burst are never step-marked.
        let mut q = DualPi2::<u32>::new(
            DualPi2Params {
                native: NativeAqm::Step {
                    threshold: StepThreshold::Sojourn(Duration::from_millis(1)),
                    min_qlen: 2,
                },
                ..DualPi2Params::LINUX
            },
            Rng::new(1, 2),
        );
        for i in 0..4 {
            q.enqueue(Time::ZERO, pkt(i, EcnCodepoint::Ect1));
        }
        // All four waited 5 ms (> the 1 ms step); p' is still 0.
        let marks: Vec<bool> = (0..4)
            .map(|_| q.dequeue(ms(5), &mut |_| panic!("no drop")).unwrap().1)
            .collect();
        assert_eq!(marks, [false, false, true, true]);
        // Linux's default (0) applies the step to every packet.
        let mut q = dq();
        for i in 0..2 {
            q.enqueue(Time::ZERO, pkt(i, EcnCodepoint::Ect1));
        }
        assert!(q.dequeue(ms(5), &mut |_| ()).unwrap().1);
    }

    #[test]
    fn linux_step_threshold_in_packets_counts_the_l_queue_left_behind() {
        let mut q = DualPi2::<u32>::new(
            DualPi2Params {
                native: NativeAqm::Step {
                    threshold: StepThreshold::Packets(2),
                    min_qlen: 0,
                },
                ..DualPi2Params::LINUX
            },
            Rng::new(1, 2),
        );
        for i in 0..5 {
            q.enqueue(Time::ZERO, pkt(i, EcnCodepoint::Ect1));
        }
        // Left behind: 4, 3, 2, 1, 0 packets; marked while more than 2.
        let marks: Vec<bool> = (0..5)
            .map(|_| q.dequeue(ms(50), &mut |_| ()).unwrap().1)
            .collect();
        assert_eq!(marks, [true, true, false, false, false]);
    }

    #[test]
    fn docsis_mulpi_annex_n_ramp_marks_linearly_from_min_to_max() {
        let mut q = DualPi2::<u32>::new(DualPi2Params::DOCSIS_LLD, Rng::new(3, 4));
        let NativeAqm::Ramp { min, max } = DualPi2Params::DOCSIS_LLD.native else {
            panic!("not a ramp");
        };
        assert_eq!(max, Duration::from_millis(1));
        assert_eq!(max - min, DOCSIS_RAMP_RANGE);
        let p = pkt(0, EcnCodepoint::Ect1);
        // Nothing queued ahead: only the ramp can mark (p' = 0).
        assert_eq!(q.decide(DualQueue::L, &p, at(min, 0)), Verdict::Send(false));
        assert_eq!(q.decide(DualQueue::L, &p, at(max, 0)), Verdict::Send(true));
        let mid = min + (max - min) / 4;
        let n = 20_000;
        let marked = (0..n)
            .filter(|_| q.decide(DualQueue::L, &p, at(mid, 0)) == Verdict::Send(true))
            .count();
        let share = marked as f64 / n as f64;
        assert!((share - 0.25).abs() < 0.015, "ramp at a quarter: {share}");
        // The larger of the ramp and the coupled probability: p' = 0.4
        // gives p_CL = 0.8 below the ramp.
        q.pi.prob = 0.4;
        let marked = (0..n)
            .filter(|_| {
                q.decide(DualQueue::L, &p, at(Duration::ZERO, 1 << 20)) == Verdict::Send(true)
            })
            .count();
        let share = marked as f64 / n as f64;
        assert!(
            (share - 0.8).abs() < 0.015,
            "coupled under the ramp: {share}"
        );
    }
}
