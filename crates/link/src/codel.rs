//! CoDel, "Controlled Delay" (RFC 8289): a dequeue-time AQM that drops (or
//! CE-marks) when the sojourn time of dequeued packets has stayed above a
//! target for a whole interval, then drops again at intervals shrinking
//! with the inverse square root of the drop count until the sojourn time
//! falls below target.
//!
//! The state machine is RFC 8289 §5's pseudocode; [`CoDel`] holds one
//! queue's control state and [`HeldQueue`] the packets, so that FQ-CoDel
//! can run one of each per flow.

use std::collections::VecDeque;
use std::time::Duration;

use ramp_vocab::Time;

use crate::packet::Packet;

/// CoDel's parameters (RFC 8289 §4.2 and §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoDelParams {
    /// Acceptable standing queue delay: 5 ms (RFC 8289 §4.4, "TARGET").
    pub target: Duration,
    /// The window over which the sojourn time must stay above target
    /// before the first drop, and the base of the drop spacing: 100 ms
    /// (RFC 8289 §4.3, "INTERVAL").
    pub interval: Duration,
    /// A queue holding at most this many bytes is never dropped from
    /// (RFC 8289 §5.4, "MAXPACKET": one MTU-sized packet).
    pub max_packet: u32,
}

impl Default for CoDelParams {
    fn default() -> CoDelParams {
        CoDelParams {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
            max_packet: 1514,
        }
    }
}

/// A FIFO of held packets with their arrival times.
#[derive(Clone, Debug)]
pub(crate) struct HeldQueue<P> {
    packets: VecDeque<(Time, Packet<P>)>,
    bytes: u64,
}

impl<P> HeldQueue<P> {
    pub(crate) fn new() -> HeldQueue<P> {
        HeldQueue {
            packets: VecDeque::new(),
            bytes: 0,
        }
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// Packets held.
    pub(crate) fn len(&self) -> usize {
        self.packets.len()
    }

    pub(crate) fn push(&mut self, now: Time, p: Packet<P>) {
        self.bytes += u64::from(p.size);
        self.packets.push_back((now, p));
    }

    pub(crate) fn pop(&mut self) -> Option<(Time, Packet<P>)> {
        let (t, p) = self.packets.pop_front()?;
        self.bytes -= u64::from(p.size);
        Some((t, p))
    }
}

/// One queue's CoDel control state (RFC 8289 §5.1's variables).
#[derive(Clone, Debug, Default)]
pub(crate) struct CoDel {
    /// When the sojourn time will have been above target for a whole
    /// interval (`first_above_time_`); `None` while it is below target.
    first_above: Option<Time>,
    /// When the next drop is due while dropping (`drop_next_`).
    drop_next: Time,
    /// Drops (and marks) since the dropping state was entered (`count_`).
    count: u32,
    /// `count` when the dropping state was last left (`lastcount_`).
    last_count: u32,
    /// In the dropping state (`dropping_`).
    dropping: bool,
}

/// What [`CoDel::dequeue`] hands to the link: a packet, and whether it
/// was CE-marked instead of dropped.
pub(crate) type Dequeued<P> = Option<(Packet<P>, bool)>;

/// What CoDel's "at most one MTU queued" exception (RFC 8289 §5.4) looks
/// at, and whether an empty queue forgets that the delay was above target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backlog {
    /// A CoDel queue of its own: its own bytes, and RFC 8289 §5.4's
    /// `dodequeue`, which clears `first_above_time` on an empty queue.
    Own,
    /// One of FQ-CoDel's flow queues, as Linux's fq_codel runs it: the
    /// exception sees the whole qdisc's backlog (`others` = the bytes in
    /// the other queues), and an empty flow queue keeps its
    /// `first_above_time` (Linux's `codel_dequeue` returns before
    /// `codel_should_drop` when the queue is empty).
    Shared {
        /// Bytes held in the other flow queues.
        others: u64,
    },
}

impl CoDel {
    /// RFC 8289 §5.5 `control_law`: the next drop `interval / √count`
    /// after `t`.
    fn control_law(t: Time, interval: Duration, count: u32) -> Time {
        let ns = interval.as_nanos() as f64 / f64::from(count.max(1)).sqrt();
        t + Duration::from_nanos(ns as u64)
    }

    /// RFC 8289 §5.4 `dodequeue`: pops the head and says whether the
    /// sojourn time has been above target for at least an interval.
    fn do_dequeue<P>(
        &mut self,
        now: Time,
        q: &mut HeldQueue<P>,
        params: &CoDelParams,
        backlog: Backlog,
    ) -> (Option<Packet<P>>, bool) {
        let Some((arrived, p)) = q.pop() else {
            if backlog == Backlog::Own {
                self.first_above = None;
            }
            return (None, false);
        };
        let sojourn = now - arrived;
        let mut ok_to_drop = false;
        let others = match backlog {
            Backlog::Own => 0,
            Backlog::Shared { others } => others,
        };
        let held = q.bytes().saturating_add(others);
        if sojourn < params.target || held <= u64::from(params.max_packet) {
            self.first_above = None;
        } else {
            match self.first_above {
                None => self.first_above = Some(now + params.interval),
                Some(t) => ok_to_drop = now >= t,
            }
        }
        (Some(p), ok_to_drop)
    }

    /// RFC 8289 §5.6 `dequeue`: the next packet to serialise at `now`, or
    /// `None` if the queue emptied. Packets dropped on the way go to
    /// `on_drop`. An ECN-capable packet that would be dropped is CE-marked
    /// and sent instead (RFC 8289 §5: "mark instead of drop"), and the
    /// control law advances exactly as for a drop.
    pub(crate) fn dequeue<P>(
        &mut self,
        now: Time,
        q: &mut HeldQueue<P>,
        params: &CoDelParams,
        backlog: Backlog,
        on_drop: &mut impl FnMut(Packet<P>),
    ) -> Dequeued<P> {
        let (mut r, ok_to_drop) = self.do_dequeue(now, q, params, backlog);
        if self.dropping {
            if !ok_to_drop {
                // Sojourn back under target: leave the dropping state.
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                let p = r?;
                self.count += 1;
                if p.ecn.is_ect() {
                    self.drop_next = Self::control_law(self.drop_next, params.interval, self.count);
                    return Some((p, true));
                }
                on_drop(p);
                let (next, ok) = self.do_dequeue(now, q, params, backlog);
                r = next;
                if ok {
                    self.drop_next = Self::control_law(self.drop_next, params.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            let p = r?;
            // Enter the dropping state. If it was left only recently,
            // resume near the drop rate that controlled the queue then
            // (RFC 8289 §5.6: count - lastcount when within 16 intervals).
            let delta = self.count.saturating_sub(self.last_count);
            self.count = if delta > 1 && now - self.drop_next < params.interval * 16 {
                delta
            } else {
                1
            };
            self.drop_next = Self::control_law(now, params.interval, self.count);
            self.last_count = self.count;
            self.dropping = true;
            if p.ecn.is_ect() {
                return Some((p, true));
            }
            on_drop(p);
            r = self.do_dequeue(now, q, params, backlog).0;
        }
        r.map(|p| (p, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ramp_vocab::EcnCodepoint;

    fn pkt(id: u32, ect: bool) -> Packet<u32> {
        Packet {
            payload: id,
            size: 1000,
            ecn: if ect {
                EcnCodepoint::Ect0
            } else {
                EcnCodepoint::NotEct
            },
            flow: 0,
        }
    }

    /// A queue kept permanently above target: packets arrive at t = 0 and
    /// are dequeued every `step`; returns the dequeue times of the drops.
    fn drop_times(ect: bool) -> (Vec<Time>, Vec<Time>) {
        let params = CoDelParams::default();
        let mut q = HeldQueue::new();
        for i in 0..2000 {
            q.push(Time::ZERO, pkt(i, ect));
        }
        let mut c = CoDel::default();
        let step = Duration::from_millis(1);
        let mut now = Time::from_millis(10);
        let mut drops = Vec::new();
        let mut marks = Vec::new();
        while now < Time::from_millis(1000) {
            let mut dropped = Vec::new();
            let got = c.dequeue(now, &mut q, &params, Backlog::Own, &mut |p| dropped.push(p));
            drops.extend(dropped.iter().map(|_| now));
            if let Some((_, true)) = got {
                marks.push(now);
            }
            now += step;
        }
        (drops, marks)
    }

    #[test]
    fn rfc8289_5_first_drop_after_one_interval_above_target() {
        // Sojourn is above target from the first dequeue at 10 ms, so
        // first_above_time = 110 ms and the first drop is at 110 ms.
        let (drops, _) = drop_times(false);
        assert_eq!(drops[0], Time::from_millis(110));
    }

    #[test]
    fn rfc8289_5_5_next_drops_at_interval_over_sqrt_count() {
        // Entering the dropping state at 110 ms with count 1 schedules the
        // next drop one interval later; from then on each drop is
        // interval/√count after the previous *scheduled* time: 210,
        // 210 + 100/√2 = 280.7, + 100/√3 = 338.4, + 100/√4 = 388.4 ms,
        // each taken at the first 1 ms dequeue at or after it.
        let (drops, _) = drop_times(false);
        let ms: Vec<u64> = drops[1..5].iter().map(|t| t.as_micros() / 1000).collect();
        assert_eq!(ms, [210, 281, 339, 389]);
    }

    #[test]
    fn rfc8289_5_ecn_marks_where_it_would_drop() {
        let (drops, _) = drop_times(false);
        let (no_drops, marks) = drop_times(true);
        assert!(no_drops.is_empty());
        assert_eq!(marks[..4], drops[..4]);
    }

    #[test]
    fn rfc8289_5_4_no_drop_while_queue_below_one_packet_or_target() {
        let params = CoDelParams::default();
        let mut c = CoDel::default();
        let mut q = HeldQueue::new();
        // One packet at a time, each sojourning 50 ms: above target, but
        // the queue never holds more than MAXPACKET behind it.
        for i in 0..100u32 {
            let t = Time::from_millis(u64::from(i) * 10);
            q.push(t, pkt(i, false));
            let got = c.dequeue(
                t + Duration::from_millis(50),
                &mut q,
                &params,
                Backlog::Own,
                &mut |_| panic!("dropped"),
            );
            assert!(got.is_some());
        }
    }
}
