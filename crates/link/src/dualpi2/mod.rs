//! DualPI2 (RFC 9332): the DualQ Coupled AQM, with Linux `sch_dualpi2`'s
//! defaults.
//!
//! Two FIFOs share the link. ECT(1) and CE packets go to the L (low
//! latency) queue, everything else to the C (classic) queue (RFC 9331
//! §5.1). One PI controller, run every `tupdate`, sets a base probability
//! p′ from the larger of the two head sojourn times (Linux takes the
//! maximum; RFC 9332 Appendix A.2 uses the classic queue's and allows
//! either). From it:
//!
//! - the classic queue drops (Not-ECT) or marks (ECT(0)) with
//!   p_C = (p′)² (§2.4: the square makes a classic flow's rate, ∝ 1/√p_C,
//!   come out equal to a scalable flow's, ∝ 1/p_CL);
//! - the L queue marks with the larger of the coupled p_CL = k·p′ and its
//!   native AQM (§2.5.1, §4.1.1): Linux's step at 1 ms of sojourn time
//!   (optionally in packets, and only for packets that found
//!   `min_qlen_step` packets queued), or the DOCSIS Low Latency ramp
//!   ([`NativeAqm::Ramp`], `--aqm docsis_lld`);
//! - a weighted round robin gives the C queue `c_protection` of the link
//!   while both are backlogged (§2.5.2; Linux's credit counter);
//! - on overload, when p_CL ≥ 1, the L queue drops with p_C instead of
//!   marking (§4.2.3, Linux `drop_overload`);
//! - nothing is dropped or marked by the PI part while under two MTUs are
//!   queued (Linux's `must_drop` guard, RFC 9332 Appendix A.1 `2*MTU`).
//!
//! Decisions are made at dequeue (Linux's default, `drop_early` off), so
//! the bottleneck holds the packets and polls, as for CoDel.
//!
//! The parts, one file each: `params` (the configuration: Linux's and
//! DOCSIS's defaults), `pi` (the PI² controller and its two
//! probabilities), `queues` (the classifier, the two FIFOs and the
//! scheduler between them) and `marking` (each packet's fate as it
//! leaves). This module joins them.

mod marking;
mod params;
mod pi;
mod queues;

use ramp_vocab::rng::Rng;
use ramp_vocab::Time;

use crate::packet::Packet;
use marking::{Ahead, Verdict};
use pi::Pi;
use queues::Queues;

pub use params::{DualPi2Params, NativeAqm, StepThreshold, DOCSIS_RAMP_MAX, DOCSIS_RAMP_RANGE};
pub use queues::DualQueue;

/// The DualPI2 state.
#[derive(Clone, Debug)]
pub struct DualPi2<P> {
    params: DualPi2Params,
    queues: Queues<P>,
    pi: Pi,
    rng: Rng,
}

impl<P> DualPi2<P> {
    /// An empty DualPI2 drawing its coin flips from `rng`.
    pub fn new(params: DualPi2Params, rng: Rng) -> DualPi2<P> {
        DualPi2 {
            params,
            queues: Queues::new(),
            pi: Pi::new(&params),
            rng,
        }
    }

    /// The classifier (RFC 9331 §5.1): ECT(1) and CE to L.
    pub fn classify(p: &Packet<P>) -> DualQueue {
        DualQueue::of(p)
    }

    /// Bytes held in both queues.
    pub fn bytes(&self) -> u64 {
        self.queues.bytes()
    }

    /// Bytes held in one queue.
    pub fn queue_bytes(&self, q: DualQueue) -> u64 {
        self.queues.queue_bytes(q)
    }

    /// Whether both queues are empty.
    pub fn is_empty(&self) -> bool {
        self.queues.is_empty()
    }

    /// The base probability p′ (for traces and tests).
    pub fn base_probability(&self) -> f64 {
        self.pi.prob
    }

    /// Queues `p` at `now`.
    pub fn enqueue(&mut self, now: Time, p: Packet<P>) {
        self.catch_up(now);
        let which = Self::classify(&p);
        let apply = match which {
            DualQueue::L => {
                marking::native_applies(&self.params.native, self.queues.len(DualQueue::L))
            }
            DualQueue::C => false,
        };
        self.queues.push(
            which,
            now,
            apply,
            p,
            self.params.c_protection,
            self.params.mtu,
        );
    }

    /// Runs the PI updates due by `now`, each with the head sojourn times
    /// as of its own time.
    fn catch_up(&mut self, now: Time) {
        let queues = &self.queues;
        self.pi
            .catch_up(now, &self.params, |t| queues.max_sojourn(t));
    }

    /// Takes the next packet to serve at `now`, reporting each packet the
    /// PI part drops to `on_drop`; `None` when both queues are empty.
    /// The packet comes with whether it was CE-marked and its queue.
    pub(crate) fn dequeue(
        &mut self,
        now: Time,
        on_drop: &mut impl FnMut(Packet<P>),
    ) -> Option<(Packet<P>, bool, DualQueue)> {
        self.catch_up(now);
        loop {
            let (which, credit) = self.queues.pick(self.params.c_protection)?;
            let (t_in, apply, p) = self.queues.pop(which)?;
            // Linux `must_drop` tests the backlog after `dequeue_packet`
            // took the packet: two MTUs behind the one leaving.
            let backlog = self.queues.bytes();
            let ahead = Ahead {
                sojourn: now.saturating_since(t_in),
                backlog,
                l_len: self.queues.len(DualQueue::L),
                apply,
            };
            match self.decide(which, &p, ahead) {
                Verdict::Send(ce) => {
                    // Linux adds the credit change only for a packet sent.
                    self.queues.charge(credit);
                    return Some((p, ce, which));
                }
                Verdict::Drop => on_drop(p),
            }
        }
    }

    /// The fate of `p` from `which` queue, given what it saw.
    fn decide(&mut self, which: DualQueue, p: &Packet<P>, ahead: Ahead) -> Verdict {
        marking::decide(&self.params, &self.pi, &mut self.rng, which, p, ahead)
    }
}

/// The tests' shared packets, queues and clock.
#[cfg(test)]
mod fixtures {
    use std::time::Duration;

    use ramp_vocab::rng::Rng;
    use ramp_vocab::{EcnCodepoint, Time};

    use super::marking::Ahead;
    use super::{DualPi2, DualPi2Params};
    use crate::packet::Packet;

    pub(super) fn pkt(id: u32, ecn: EcnCodepoint) -> Packet<u32> {
        Packet {
            payload: id,
            size: 1000,
            ecn,
            flow: 0,
        }
    }

    pub(super) fn dq() -> DualPi2<u32> {
        DualPi2::new(DualPi2Params::LINUX, Rng::new(1, 2))
    }

    /// A packet that waited `sojourn` with `backlog` bytes queued, the
    /// step applying to it.
    pub(super) fn at(sojourn: Duration, backlog: u64) -> Ahead {
        Ahead {
            sojourn,
            backlog,
            l_len: 0,
            apply: true,
        }
    }

    pub(super) fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use ramp_vocab::EcnCodepoint;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Within each queue packets leave in arrival order, and every
        /// packet and byte offered leaves exactly once (sent or dropped).
        #[test]
        fn no_reordering_within_a_queue_and_every_byte_accounted(
            arrivals in proptest::collection::vec((0u64..3_000, 64u32..1500, 0usize..4, proptest::bool::ANY), 1..400),
            seed in 0u64..1000,
        ) {
            let mut q: DualPi2<(usize, DualQueue)> = DualPi2::new(DualPi2Params::LINUX, Rng::new(seed, 9));
            let mut now = Time::ZERO;
            let (mut offered, mut out_bytes) = (0u64, 0u64);
            let mut seen = vec![0u32; arrivals.len()];
            let mut last = [None::<usize>; 2];
            let mut check = |i: usize, which: DualQueue, seen: &mut Vec<u32>| -> Result<(), proptest::test_runner::TestCaseError> {
                seen[i] += 1;
                let k = which as usize;
                proptest::prop_assert!(last[k].is_none_or(|l| l < i), "{which:?} reordered");
                last[k] = Some(i);
                Ok(())
            };
            for (i, (gap_us, size, cp, serve)) in arrivals.iter().copied().enumerate() {
                now += Duration::from_micros(gap_us);
                let ecn = EcnCodepoint::ALL[cp];
                let p = Packet { payload: (i, if ecn.is_l4s() { DualQueue::L } else { DualQueue::C }), size, ecn, flow: 0 };
                offered += u64::from(size);
                q.enqueue(now, p);
                if serve {
                    let mut dropped = Vec::new();
                    let got = q.dequeue(now, &mut |d: Packet<_>| dropped.push(d));
                    // The drops left before the packet served.
                    for d in dropped {
                        out_bytes += u64::from(d.size);
                        check(d.payload.0, d.payload.1, &mut seen)?;
                    }
                    if let Some((p, _, which)) = got {
                        proptest::prop_assert_eq!(which, p.payload.1);
                        out_bytes += u64::from(p.size);
                        check(p.payload.0, which, &mut seen)?;
                    }
                }
                proptest::prop_assert_eq!(offered - out_bytes, q.bytes());
            }
            loop {
                now += Duration::from_millis(1);
                let mut dropped = Vec::new();
                let got = q.dequeue(now, &mut |d: Packet<_>| dropped.push(d));
                for d in dropped {
                    out_bytes += u64::from(d.size);
                    check(d.payload.0, d.payload.1, &mut seen)?;
                }
                match got {
                    Some((p, _, which)) => {
                        out_bytes += u64::from(p.size);
                        check(p.payload.0, which, &mut seen)?;
                    }
                    None => break,
                }
            }
            proptest::prop_assert!(q.is_empty());
            proptest::prop_assert_eq!(offered, out_bytes);
            proptest::prop_assert!(seen.iter().all(|n| *n == 1), "{:?}", seen);
        }
    }

    /// Serves everything queued at `now`; 's' for a packet sent from L,
    /// 'S' from C, 'd' for one dropped.
    fn serve_all(q: &mut DualPi2<u32>, now: Time) -> String {
        let mut log = String::new();
        loop {
            let mut drops = 0;
            let got = q.dequeue(now, &mut |_| drops += 1);
            log.extend(std::iter::repeat_n('d', drops));
            match got {
                Some((_, _, DualQueue::L)) => log.push('s'),
                Some((_, _, DualQueue::C)) => log.push('S'),
                None => return log,
            }
        }
    }

    fn sized(id: u32, ecn: EcnCodepoint, size: u32) -> Packet<u32> {
        Packet {
            payload: id,
            size,
            ecn,
            flow: 0,
        }
    }

    #[test]
    fn linux_must_drop_guard_counts_the_backlog_behind_the_packet() {
        // Linux `must_drop` runs after `dequeue_packet` has taken the
        // packet off the backlog: with exactly two MTUs queued, the head
        // leaves one MTU behind it and is never dropped, even at p_C = 1.
        let mut q = fixtures::dq();
        let mtu = DualPi2Params::LINUX.mtu;
        q.enqueue(Time::ZERO, sized(0, EcnCodepoint::NotEct, mtu));
        q.enqueue(Time::ZERO, sized(1, EcnCodepoint::NotEct, mtu));
        q.pi.prob = 1.0;
        assert_eq!(serve_all(&mut q, Time::ZERO), "SS");
        // Three MTUs: the first has two behind it and is dropped.
        for i in 0..3 {
            q.enqueue(Time::ZERO, sized(i, EcnCodepoint::NotEct, mtu));
        }
        assert_eq!(serve_all(&mut q, Time::ZERO), "dSS");
    }

    #[test]
    fn linux_reset_c_protection_serves_l_first_after_idle() {
        // Linux `dequeue_packet` finding both queues empty resets the
        // credit to mtu·(wc − wl) (`dualpi2_reset_c_protection`): after
        // idle, L goes first whatever the credit was.
        let mut q = fixtures::dq();
        for round in 0..3 {
            q.enqueue(Time::ZERO, fixtures::pkt(0, EcnCodepoint::Ect1));
            q.enqueue(Time::ZERO, fixtures::pkt(1, EcnCodepoint::Ect0));
            assert_eq!(serve_all(&mut q, Time::ZERO), "sS", "round {round}");
        }
    }

    #[test]
    fn linux_credit_moves_only_for_packets_sent() {
        // `dualpi2_qdisc_dequeue` adds `credit_change` after the drop
        // checks: a classic packet the PI part drops does not hand the
        // turn back to L, so the next C packet is tried at once.
        let mut q = DualPi2::new(
            DualPi2Params {
                drop_overload: false,
                ..DualPi2Params::LINUX
            },
            Rng::new(1, 2),
        );
        for i in 0..40 {
            q.enqueue(Time::ZERO, fixtures::pkt(i, EcnCodepoint::Ect1));
        }
        for i in 0..5 {
            q.enqueue(Time::ZERO, fixtures::pkt(100 + i, EcnCodepoint::NotEct));
        }
        q.pi.prob = 1.0; // p_C = 1: every classic packet is dropped.
        let log = serve_all(&mut q, Time::ZERO);
        assert!(log.contains("ddddd"), "{log}");
    }
}
