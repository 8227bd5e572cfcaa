//! DualPI2's two queues: the classifier (RFC 9331 §5.1), the L and C
//! FIFOs and the weighted round robin between them (RFC 9332 §2.5.2,
//! Linux `sch_dualpi2`'s credit counter).

use std::collections::VecDeque;
use std::time::Duration;

use ramp_vocab::Time;

use crate::packet::Packet;

/// Which queue a packet was in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DualQueue {
    /// The low-latency queue (ECT(1), CE).
    L,
    /// The classic queue.
    C,
}

impl DualQueue {
    /// The classifier (RFC 9331 §5.1): ECT(1) and CE to L, Not-ECT and
    /// ECT(0) to C.
    pub(super) fn of<P>(p: &Packet<P>) -> DualQueue {
        if p.ecn.is_l4s() {
            DualQueue::L
        } else {
            DualQueue::C
        }
    }
}

/// A queued packet: its arrival time, whether the L queue's native AQM
/// applies to it (Linux `apply_step`), and the packet.
pub(super) type Queued<P> = (Time, bool, Packet<P>);

/// One FIFO with its byte count.
#[derive(Clone, Debug)]
struct Fifo<P> {
    q: VecDeque<Queued<P>>,
    bytes: u64,
}

impl<P> Fifo<P> {
    fn new() -> Self {
        Fifo {
            q: VecDeque::new(),
            bytes: 0,
        }
    }

    /// How long the head packet has waited at `now`; zero when empty.
    fn sojourn(&self, now: Time) -> Duration {
        self.q
            .front()
            .map_or(Duration::ZERO, |(t, _, _)| now.saturating_since(*t))
    }
}

/// The L and C FIFOs and the scheduler's credit.
#[derive(Clone, Debug)]
pub(super) struct Queues<P> {
    l: Fifo<P>,
    c: Fifo<P>,
    /// The WRR credit (bytes × weight): L goes while it is ≤ 0.
    credit: i64,
}

impl<P> Queues<P> {
    pub(super) fn new() -> Self {
        Queues {
            l: Fifo::new(),
            c: Fifo::new(),
            credit: 0,
        }
    }

    fn fifo(&self, q: DualQueue) -> &Fifo<P> {
        match q {
            DualQueue::L => &self.l,
            DualQueue::C => &self.c,
        }
    }

    fn fifo_mut(&mut self, q: DualQueue) -> &mut Fifo<P> {
        match q {
            DualQueue::L => &mut self.l,
            DualQueue::C => &mut self.c,
        }
    }

    /// Bytes held in both queues.
    pub(super) fn bytes(&self) -> u64 {
        self.l.bytes + self.c.bytes
    }

    /// Bytes held in one queue.
    pub(super) fn queue_bytes(&self, q: DualQueue) -> u64 {
        self.fifo(q).bytes
    }

    /// Packets held in one queue.
    pub(super) fn len(&self, q: DualQueue) -> usize {
        self.fifo(q).q.len()
    }

    /// Whether both queues are empty.
    pub(super) fn is_empty(&self) -> bool {
        self.l.q.is_empty() && self.c.q.is_empty()
    }

    /// The larger of the two head sojourn times at `now`: the queue delay
    /// the PI controller acts on (Linux takes the maximum; RFC 9332
    /// Appendix A.2 uses the classic queue's and allows either).
    pub(super) fn max_sojourn(&self, now: Time) -> Duration {
        self.l.sojourn(now).max(self.c.sojourn(now))
    }

    /// Appends `p`, arrived at `now`, to queue `q`. A packet that finds
    /// both queues empty first resets the credit to `mtu·(wc − wl)`, L
    /// first (Linux `dualpi2_reset_c_protection`, run when a dequeue
    /// finds the qdisc empty, i.e. before the next packet arrives).
    pub(super) fn push(
        &mut self,
        q: DualQueue,
        now: Time,
        apply: bool,
        p: Packet<P>,
        c_protection: u32,
        mtu: u32,
    ) {
        if self.is_empty() {
            let (wc, wl) = weights(c_protection);
            self.credit = i64::from(mtu) * (wc - wl);
        }
        let fifo = self.fifo_mut(q);
        fifo.bytes += u64::from(p.size);
        fifo.q.push_back((now, apply, p));
    }

    /// Removes the head of queue `q`.
    pub(super) fn pop(&mut self, q: DualQueue) -> Option<Queued<P>> {
        let fifo = self.fifo_mut(q);
        let head = fifo.q.pop_front()?;
        fifo.bytes -= u64::from(head.2.size);
        Some(head)
    }

    /// The WRR scheduler (RFC 9332 §2.5.2, Linux's credit): L while the
    /// credit is not positive or C is empty. Returns the queue and the
    /// credit change if its head is sent ([`Self::charge`]): while both
    /// queues are backlogged, the packet's size times the other queue's
    /// weight, C's being `c_protection` percent (Linux `dequeue_packet`).
    pub(super) fn pick(&self, c_protection: u32) -> Option<(DualQueue, i64)> {
        let (l, c) = (!self.l.q.is_empty(), !self.c.q.is_empty());
        let pick = match (l, c) {
            (false, false) => return None,
            (true, false) => DualQueue::L,
            (false, true) => DualQueue::C,
            (true, true) if self.credit <= 0 => DualQueue::L,
            (true, true) => DualQueue::C,
        };
        let mut change = 0;
        if l && c {
            let (wc, wl) = weights(c_protection);
            let len = self
                .fifo(pick)
                .q
                .front()
                .map_or(0, |(_, _, p)| i64::from(p.size));
            change = match pick {
                DualQueue::L => wc * len,
                DualQueue::C => -wl * len,
            };
        }
        Some((pick, change))
    }

    /// Applies a credit change from [`Self::pick`]: Linux adds it only
    /// for a packet that is sent, not for one the AQM drops
    /// (`dualpi2_qdisc_dequeue`).
    pub(super) fn charge(&mut self, change: i64) {
        self.credit += change;
    }
}

/// The WRR weights (wc, wl) in percent: C's is `c_protection` (at most
/// 100), L's the rest (Linux `dualpi2_calculate_c_protection`).
fn weights(c_protection: u32) -> (i64, i64) {
    let wc = i64::from(c_protection.min(100));
    (wc, 100 - wc)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{dq, pkt};
    use super::super::DualPi2;
    use super::*;
    use ramp_vocab::EcnCodepoint;

    #[test]
    fn rfc9331_5_1_ect1_and_ce_go_to_the_l_queue() {
        let want = [DualQueue::C, DualQueue::C, DualQueue::L, DualQueue::L];
        for (c, w) in EcnCodepoint::ALL.iter().zip(want) {
            assert_eq!(DualPi2::classify(&pkt(0, *c)), w, "{c}");
        }
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
}
