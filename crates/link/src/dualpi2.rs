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

use std::collections::VecDeque;
use std::time::Duration;

use ramp_vocab::rng::{Probability, Rng};
use ramp_vocab::Time;

use crate::packet::Packet;

/// DualPI2's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualPi2Params {
    /// PI target queue delay (Linux `target`, 15 ms; RFC 9332 Appendix A
    /// suggests 15 ms).
    pub target: Duration,
    /// PI update interval (Linux `tupdate`, 16 ms).
    pub tupdate: Duration,
    /// Integral gain α in Hz (Linux 41/256 ≈ 0.16).
    pub alpha: f64,
    /// Proportional gain β in Hz (Linux 819/256 ≈ 3.2).
    pub beta: f64,
    /// The L queue's native AQM: Linux's step (1 ms of sojourn time) or
    /// the DOCSIS Low Latency ramp.
    pub native: NativeAqm,
    /// The coupling factor k (Linux `coupling_factor`, 2; RFC 9332 §2.4).
    pub coupling: f64,
    /// Share of the link the C queue gets while both queues are
    /// backlogged, in percent (Linux `c_protection`, 10).
    pub c_protection: u32,
    /// Drop rather than mark L packets on overload (Linux
    /// `drop_overload`, on).
    pub drop_overload: bool,
    /// The MTU for the "never under two MTUs" guard, bytes.
    pub mtu: u32,
}

impl DualPi2Params {
    /// Linux `sch_dualpi2`'s defaults (and RFC 9332 Appendix A's).
    pub const LINUX: DualPi2Params = DualPi2Params {
        target: Duration::from_millis(15),
        tupdate: Duration::from_millis(16),
        alpha: 41.0 / 256.0,
        beta: 819.0 / 256.0,
        native: NativeAqm::Step {
            threshold: StepThreshold::Sojourn(Duration::from_millis(1)),
            min_qlen: 0,
        },
        coupling: 2.0,
        c_protection: 10,
        drop_overload: true,
        mtu: 1514,
    };
}

/// The L queue's native (uncoupled) AQM (RFC 9332 §2.5.1.1: a shallow
/// threshold on the L queue's own delay).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NativeAqm {
    /// Linux `sch_dualpi2`'s step: mark every L packet whose queue
    /// exceeds `threshold` (net/sched/sch_dualpi2.c `do_step_aqm`), if at
    /// its enqueue the L queue already held at least `min_qlen` packets
    /// (`min_qlen_step`, Linux default 0: always).
    Step {
        /// The step threshold (Linux `step_thresh`, 1 ms, or in packets).
        threshold: StepThreshold,
        /// Linux `min_qlen_step`: packets the L queue must hold when a
        /// packet arrives for the step to apply to it.
        min_qlen: u32,
    },
    /// The DOCSIS Low Latency immediate AQM (CableLabs MULPIv3.1, Annex N,
    /// "IAQM"): the marking probability ramps linearly from 0 at `min` of
    /// queue delay to 1 at `max` (defaults 475 µs to 1 ms: `MAXTH` 1 ms and
    /// a range of 2^19 ns). The ramp's floor keeps `min` at no less than
    /// two MTUs' serialisation time at the link rate
    /// ([`DualPi2Params::at_rate`]).
    Ramp {
        /// Queue delay below which nothing is marked.
        min: Duration,
        /// Queue delay from which everything is marked.
        max: Duration,
    },
}

/// What Linux's step compares with its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepThreshold {
    /// The packet's sojourn time (Linux default, 1 ms).
    Sojourn(Duration),
    /// The L queue's length in packets after the packet leaves (Linux
    /// `step_thresh` with the packets unit).
    Packets(u32),
}

/// The DOCSIS IAQM ramp's range, 2^19 ns (MULPIv3.1 Annex N `LG_RANGE`
/// = 19).
pub const DOCSIS_RAMP_RANGE: Duration = Duration::from_nanos(1 << 19);

/// The DOCSIS IAQM ramp's top (MULPIv3.1 Annex N `MAXTH`, 1 ms).
pub const DOCSIS_RAMP_MAX: Duration = Duration::from_millis(1);

impl DualPi2Params {
    /// The DOCSIS Low Latency variant: DualPI2's coupled PI and scheduler
    /// with the IAQM ramp (475 µs – 1 ms) as the L queue's native AQM.
    /// The classic side keeps Linux's PI parameters (an assumption: the
    /// DOCSIS classic AQM is not modelled separately).
    pub const DOCSIS_LLD: DualPi2Params = DualPi2Params {
        native: NativeAqm::Ramp {
            min: Duration::from_nanos(
                DOCSIS_RAMP_MAX.as_nanos() as u64 - DOCSIS_RAMP_RANGE.as_nanos() as u64,
            ),
            max: DOCSIS_RAMP_MAX,
        },
        ..DualPi2Params::LINUX
    };

    /// Whether the L queue runs the DOCSIS ramp.
    pub fn is_docsis_lld(&self) -> bool {
        matches!(self.native, NativeAqm::Ramp { .. })
    }

    /// The parameters for a link of `bits_per_sec`: the DOCSIS ramp's
    /// floor raises its `min` to two MTUs' serialisation time (MULPIv3.1
    /// Annex N `FLOOR`), keeping its range, so that at low rates one
    /// packet ahead does not mark the next. Linux's step has no floor.
    pub fn at_rate(mut self, bits_per_sec: u64) -> DualPi2Params {
        if let NativeAqm::Ramp { min, max } = &mut self.native {
            if bits_per_sec > 0 {
                let floor_ns =
                    2 * u128::from(self.mtu) * 8 * 1_000_000_000 / u128::from(bits_per_sec);
                let floor = Duration::from_nanos(u64::try_from(floor_ns).unwrap_or(u64::MAX));
                if floor > *min {
                    let range = max.saturating_sub(*min);
                    *min = floor;
                    *max = floor + range;
                }
            }
        }
        self
    }
}

impl Default for DualPi2Params {
    fn default() -> Self {
        DualPi2Params::LINUX
    }
}

/// Which queue a packet was in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DualQueue {
    /// The low-latency queue (ECT(1), CE).
    L,
    /// The classic queue.
    C,
}

/// What a dequeue produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Send it; `true` if CE-marked here.
    Send(bool),
    /// Drop it (the PI part's drop).
    Drop,
}

/// One FIFO with its byte count; each packet with its arrival time and
/// whether the L queue's native AQM applies to it (Linux `apply_step`).
#[derive(Clone, Debug)]
struct Fifo<P> {
    q: VecDeque<(Time, bool, Packet<P>)>,
    bytes: u64,
}

impl<P> Fifo<P> {
    fn new() -> Self {
        Fifo {
            q: VecDeque::new(),
            bytes: 0,
        }
    }
    fn sojourn(&self, now: Time) -> Duration {
        self.q
            .front()
            .map_or(Duration::ZERO, |(t, _, _)| now.saturating_since(*t))
    }
}

/// The DualPI2 state.
#[derive(Clone, Debug)]
pub struct DualPi2<P> {
    params: DualPi2Params,
    l: Fifo<P>,
    c: Fifo<P>,
    /// The base probability p′.
    prob: f64,
    /// The queue delay of the previous update.
    prev_qdelay: Duration,
    /// When the PI controller runs next.
    next_update: Time,
    /// The WRR credit (bytes × weight): L goes while it is ≤ 0.
    credit: i64,
    rng: Rng,
}

impl<P> DualPi2<P> {
    /// An empty DualPI2 drawing its coin flips from `rng`.
    pub fn new(params: DualPi2Params, rng: Rng) -> DualPi2<P> {
        DualPi2 {
            params,
            l: Fifo::new(),
            c: Fifo::new(),
            prob: 0.0,
            prev_qdelay: Duration::ZERO,
            next_update: Time::ZERO + params.tupdate,
            credit: 0,
            rng,
        }
    }

    /// The classifier (RFC 9331 §5.1): ECT(1) and CE to L.
    pub fn classify(p: &Packet<P>) -> DualQueue {
        if p.ecn.is_l4s() {
            DualQueue::L
        } else {
            DualQueue::C
        }
    }

    /// Bytes held in both queues.
    pub fn bytes(&self) -> u64 {
        self.l.bytes + self.c.bytes
    }

    /// Bytes held in one queue.
    pub fn queue_bytes(&self, q: DualQueue) -> u64 {
        match q {
            DualQueue::L => self.l.bytes,
            DualQueue::C => self.c.bytes,
        }
    }

    /// Whether both queues are empty.
    pub fn is_empty(&self) -> bool {
        self.l.q.is_empty() && self.c.q.is_empty()
    }

    /// The base probability p′ (for traces and tests).
    pub fn base_probability(&self) -> f64 {
        self.prob
    }

    /// Queues `p` at `now`.
    pub fn enqueue(&mut self, now: Time, p: Packet<P>) {
        self.catch_up(now);
        let (q, apply) = match Self::classify(&p) {
            DualQueue::L => {
                // Linux `skb_apply_step`: the step applies if the L queue
                // already holds `min_qlen_step` packets.
                let apply = match self.params.native {
                    NativeAqm::Step { min_qlen, .. } => {
                        self.l.q.len() >= usize::try_from(min_qlen).unwrap_or(usize::MAX)
                    }
                    NativeAqm::Ramp { .. } => true,
                };
                (&mut self.l, apply)
            }
            DualQueue::C => (&mut self.c, false),
        };
        q.bytes += u64::from(p.size);
        q.q.push_back((now, apply, p));
    }

    /// Runs the PI updates due by `now` (RFC 9332 Appendix A.2
    /// `dualpi2_update`), each with the head sojourn times as of its own
    /// time.
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            let t = self.next_update;
            let qdelay = self.l.sojourn(t).max(self.c.sojourn(t));
            let err = qdelay.as_secs_f64() - self.params.target.as_secs_f64();
            let trend = qdelay.as_secs_f64() - self.prev_qdelay.as_secs_f64();
            self.prob =
                (self.prob + self.params.alpha * err + self.params.beta * trend).clamp(0.0, 1.0);
            self.prev_qdelay = qdelay;
            self.next_update = t + self.params.tupdate;
        }
    }

    /// The WRR scheduler (RFC 9332 §2.5.2, Linux's credit): L while the
    /// credit is not positive or C is empty; each packet served while both
    /// queues are backlogged moves the credit by its size times the other
    /// queue's weight.
    fn pick(&mut self) -> Option<DualQueue> {
        let (l, c) = (!self.l.q.is_empty(), !self.c.q.is_empty());
        let pick = match (l, c) {
            (false, false) => return None,
            (true, false) => DualQueue::L,
            (false, true) => DualQueue::C,
            (true, true) if self.credit <= 0 => DualQueue::L,
            (true, true) => DualQueue::C,
        };
        if l && c {
            let wc = i64::from(self.params.c_protection.min(100));
            let head = match pick {
                DualQueue::L => self.l.q.front(),
                DualQueue::C => self.c.q.front(),
            };
            let len = head.map_or(0, |(_, _, p)| i64::from(p.size));
            self.credit += match pick {
                DualQueue::L => wc * len,
                DualQueue::C => -(100 - wc) * len,
            };
        }
        Some(pick)
    }

    fn roll(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.chance(Probability::new(p.min(1.0)))
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
            let which = self.pick()?;
            let backlog = self.bytes();
            let fifo = match which {
                DualQueue::L => &mut self.l,
                DualQueue::C => &mut self.c,
            };
            let (t_in, apply, p) = fifo.q.pop_front()?;
            fifo.bytes -= u64::from(p.size);
            let ahead = Ahead {
                sojourn: now.saturating_since(t_in),
                backlog,
                l_len: self.l.q.len(),
                apply,
            };
            match self.decide(which, &p, ahead) {
                Verdict::Send(ce) => return Some((p, ce, which)),
                Verdict::Drop => on_drop(p),
            }
        }
    }

    /// The fate of `p` from `which` queue, given what it saw (RFC 9332
    /// Appendix A.1 `dualpi2_dequeue`, Linux `must_drop` and the step).
    fn decide(&mut self, which: DualQueue, p: &Packet<P>, ahead: Ahead) -> Verdict {
        let pp = self.prob;
        let guard = ahead.backlog < 2 * u64::from(self.params.mtu);
        match which {
            DualQueue::C => {
                // p_C = (p')².
                if guard || !self.roll(pp * pp) {
                    return Verdict::Send(false);
                }
                if p.ecn.is_ect() {
                    Verdict::Send(true)
                } else {
                    Verdict::Drop
                }
            }
            DualQueue::L => {
                let p_cl = self.params.coupling * pp;
                if p_cl >= 1.0 && self.params.drop_overload && !guard {
                    // §4.2.3 overload: L packets see the classic drop.
                    if self.roll(pp * pp) {
                        return Verdict::Drop;
                    }
                }
                let coupled = if guard { 0.0 } else { p_cl };
                match self.params.native {
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
                        Verdict::Send(self.roll(coupled))
                    }
                    NativeAqm::Ramp { min, max } => {
                        // MULPIv3.1 Annex N: one roll against the larger of
                        // the ramp's and the coupled probability.
                        let native = ramp(ahead.sojourn, min, max);
                        Verdict::Send(self.roll(native.max(coupled)))
                    }
                }
            }
        }
    }
}

/// What a packet saw when it left: its sojourn, the bytes queued in
/// both queues before it left, the L queue's length after it left, and
/// whether the step applies to it.
#[derive(Clone, Copy, Debug)]
struct Ahead {
    sojourn: Duration,
    backlog: u64,
    l_len: usize,
    apply: bool,
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
    use super::*;
    use ramp_vocab::EcnCodepoint;

    fn pkt(id: u32, ecn: EcnCodepoint) -> Packet<u32> {
        Packet {
            payload: id,
            size: 1000,
            ecn,
            flow: 0,
        }
    }

    fn dq() -> DualPi2<u32> {
        DualPi2::new(DualPi2Params::LINUX, Rng::new(1, 2))
    }

    /// A packet that waited `sojourn` with `backlog` bytes queued, the
    /// step applying to it.
    fn at(sojourn: Duration, backlog: u64) -> Ahead {
        Ahead {
            sojourn,
            backlog,
            l_len: 0,
            apply: true,
        }
    }

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    #[test]
    fn rfc9331_5_1_ect1_and_ce_go_to_the_l_queue() {
        let want = [DualQueue::C, DualQueue::C, DualQueue::L, DualQueue::L];
        for (c, w) in EcnCodepoint::ALL.iter().zip(want) {
            assert_eq!(DualPi2::classify(&pkt(0, *c)), w, "{c}");
        }
    }

    #[test]
    fn rfc9332_2_4_coupling_classic_is_the_square_and_l_is_k_times() {
        // Hold p' at 0.3: C marks ECT(0) with 0.09, L marks with 0.6.
        let mut q = dq();
        let (mut c_marks, mut l_marks, n) = (0u32, 0u32, 20_000u32);
        for i in 0..n {
            q.prob = 0.3;
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
        q.prob = 1.0;
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
        q.prob = 0.0;
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
    fn rfc9332_2_5_2_scheduler_gives_classic_its_protection_share() {
        let mut q = dq();
        for i in 0..2000 {
            q.enqueue(Time::ZERO, pkt(i, EcnCodepoint::Ect1));
            q.enqueue(Time::ZERO, pkt(10_000 + i, EcnCodepoint::Ect0));
        }
        // Serve 1000 packets at t = 0 (no PI update has run: p' = 0).
        let (mut l, mut c) = (0, 0);
        for _ in 0..1000 {
            match q.dequeue(Time::ZERO, &mut |_| panic!("no drop")) {
                Some((_, _, DualQueue::L)) => l += 1,
                Some((_, _, DualQueue::C)) => c += 1,
                None => panic!("empty"),
            }
        }
        assert!((95..=105).contains(&c), "C got {c} of 1000, L {l}");
        // Alone, either queue gets the whole link.
        let mut q = dq();
        for i in 0..10 {
            q.enqueue(Time::ZERO, pkt(i, EcnCodepoint::Ect0));
        }
        for _ in 0..10 {
            assert!(matches!(
                q.dequeue(Time::ZERO, &mut |_| ()),
                Some((_, _, DualQueue::C))
            ));
        }
    }

    #[test]
    fn rfc9332_a_2_pi_raises_p_above_target_and_lowers_it_below() {
        let mut q = dq();
        // A classic packet sits 40 ms: each update adds α·25 ms plus the
        // trend term.
        q.enqueue(Time::ZERO, pkt(0, EcnCodepoint::Ect0));
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

    #[test]
    fn rfc9332_4_2_3_overload_drops_l_packets_with_the_classic_probability() {
        let mut q = dq();
        let (mut drops, n) = (0u32, 10_000u32);
        for i in 0..n {
            q.prob = 0.8; // p_CL = 1.6 >= 1: overload.
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
        q.prob = 0.8;
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
        q.prob = 1.0;
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
        q.prob = 0.4;
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

    #[test]
    fn docsis_mulpi_annex_n_floor_lifts_the_ramp_to_two_mtus_at_low_rates() {
        // 10 Mbit/s: two 1514-byte frames take 2.42 ms; the ramp moves up
        // and keeps its range.
        let p = DualPi2Params::DOCSIS_LLD.at_rate(10_000_000);
        let NativeAqm::Ramp { min, max } = p.native else {
            panic!("not a ramp");
        };
        assert_eq!(min, Duration::from_nanos(2 * 1514 * 8 * 100));
        assert_eq!(max - min, DOCSIS_RAMP_RANGE);
        // 100 Mbit/s: 242 µs is under 475 µs, so the default stands.
        assert_eq!(
            DualPi2Params::DOCSIS_LLD.at_rate(100_000_000),
            DualPi2Params::DOCSIS_LLD
        );
        // Linux's step has no floor.
        assert_eq!(
            DualPi2Params::LINUX.at_rate(10_000_000),
            DualPi2Params::LINUX
        );
    }

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
}
