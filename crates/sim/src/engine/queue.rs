//! The event queue: timers in a binary heap, the next pacing wake-up in a
//! slot beside it, path arrivals in two FIFOs, one sequence counter so that
//! ties break by insertion order across all four.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use ramp_cc::{EcnCodepoint, Time};

use crate::server::Datagram;

/// What happens; `Data` and `Up` come from the path FIFOs, the others
/// from the timer heap (or the wake-up slot).
#[derive(Clone, Copy, Debug)]
pub(super) enum Kind {
    Start,
    Data {
        d: Datagram,
        /// The codepoint it arrives with.
        ecn: EcnCodepoint,
    },
    Up,
    Wake,
    Timer,
    AckTimer,
    /// The bottleneck's next dequeue (dequeue-time disciplines only).
    Link,
}

/// A timer-heap entry (small, so heap moves are cheap).
#[derive(Clone, Copy, Debug)]
pub(super) enum TimerKind {
    Start,
    Wake,
    Timer,
    AckTimer,
    Link,
}

/// The next thing to process: when, for which flow, what.
#[derive(Clone, Copy, Debug)]
pub(super) struct Event {
    pub(super) at: Time,
    pub(super) flow: u32,
    pub(super) kind: Kind,
}

#[derive(Clone, Copy, Debug)]
struct HeapEvent {
    at: Time,
    seq: u64,
    flow: u32,
    kind: TimerKind,
}

impl PartialEq for HeapEvent {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl Eq for HeapEvent {}
impl PartialOrd for HeapEvent {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for HeapEvent {
    /// Reversed, so the max-heap pops the earliest (then first-inserted) event.
    fn cmp(&self, o: &Self) -> Ordering {
        o.at.cmp(&self.at).then(o.seq.cmp(&self.seq))
    }
}

/// An item's place in the total order: its time, then its sequence number.
/// Sequence numbers start at 1 and never reach `u64::MAX`, so no item's
/// key is [`NONE`].
type Key = (Time, u64);

/// The key of an empty head: after every item, so choosing among the heads
/// needs no `Option`s.
const NONE: Key = (Time::MAX, u64::MAX);

/// The event queue. Packets on the forward path arrive in the order they
/// left the FIFO bottleneck (constant propagation delay), and client packets
/// arrive in send order (the reverse path is FIFO too), so both live in
/// plain FIFOs; only timers and wake-ups need ordering by time. A pacing
/// wake-up is the most frequent of those (a paced sender asks for one
/// every other packet) and usually the only one pending, so it goes to a
/// one-event slot when the slot is free, and to the heap only when not:
/// no heap push and pop per wake-up. Every item takes a sequence number
/// from one counter, and the earliest (time, sequence) of the four heads
/// is processed next: the same total order as one heap.
pub(super) struct Queue {
    heap: BinaryHeap<HeapEvent>,
    /// A wake-up outside the heap: its key ([`NONE`] when empty) and flow.
    slot: (Key, u32),
    fwd: VecDeque<(Time, u64, u32, Datagram, EcnCodepoint)>,
    rev: VecDeque<(Time, u64, u32)>,
    seq: u64,
}

impl Queue {
    /// An empty queue sized for a few flows.
    pub(super) fn new() -> Queue {
        Queue {
            heap: BinaryHeap::with_capacity(64),
            slot: (NONE, 0),
            fwd: VecDeque::with_capacity(1024),
            rev: VecDeque::with_capacity(256),
            seq: 0,
        }
    }

    #[inline]
    pub(super) fn push(&mut self, at: Time, flow: u32, kind: TimerKind) {
        self.seq += 1;
        self.heap.push(HeapEvent {
            at,
            seq: self.seq,
            flow,
            kind,
        });
    }

    /// Queues a pacing wake-up: in the slot if it is free, else in the heap.
    #[inline]
    pub(super) fn push_wake(&mut self, at: Time, flow: u32) {
        if self.slot.0 == NONE {
            self.seq += 1;
            self.slot = ((at, self.seq), flow);
        } else {
            self.push(at, flow, TimerKind::Wake);
        }
    }

    #[inline]
    pub(super) fn push_fwd(&mut self, at: Time, flow: u32, d: Datagram, ecn: EcnCodepoint) {
        self.seq += 1;
        // Arrivals are non-decreasing (FIFO link, constant delay).
        let at = self.fwd.back().map_or(at, |b| at.max(b.0));
        self.fwd.push_back((at, self.seq, flow, d, ecn));
    }

    #[inline]
    pub(super) fn push_rev(&mut self, at: Time, flow: u32) {
        self.seq += 1;
        let at = self.rev.back().map_or(at, |b| at.max(b.0));
        self.rev.push_back((at, self.seq, flow));
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<Event> {
        // Keys are distinct, so the smallest is unique. An empty slot's
        // key is NONE, never smaller than another head's.
        let mut first = NONE;
        let mut head = Head::Empty;
        if let Some(e) = self.fwd.front() {
            first = (e.0, e.1);
            head = Head::Fwd;
        }
        if let Some(e) = self.rev.front() {
            if (e.0, e.1) < first {
                first = (e.0, e.1);
                head = Head::Rev;
            }
        }
        if self.slot.0 < first {
            first = self.slot.0;
            head = Head::Slot;
        }
        if let Some(e) = self.heap.peek() {
            if (e.at, e.seq) < first {
                head = Head::Heap;
            }
        }
        match head {
            Head::Empty => None,
            Head::Fwd => self.fwd.pop_front().map(|(at, _, flow, d, ecn)| Event {
                at,
                flow,
                kind: Kind::Data { d, ecn },
            }),
            Head::Rev => self.rev.pop_front().map(|(at, _, flow)| Event {
                at,
                flow,
                kind: Kind::Up,
            }),
            Head::Slot => {
                self.slot.0 = NONE;
                Some(Event {
                    at: first.0,
                    flow: self.slot.1,
                    kind: Kind::Wake,
                })
            }
            Head::Heap => self.heap.pop().map(|e| Event {
                at: e.at,
                flow: e.flow,
                kind: match e.kind {
                    TimerKind::Start => Kind::Start,
                    TimerKind::Wake => Kind::Wake,
                    TimerKind::Timer => Kind::Timer,
                    TimerKind::AckTimer => Kind::AckTimer,
                    TimerKind::Link => Kind::Link,
                },
            }),
        }
    }
}

/// Which of the queue's heads holds the next item.
#[derive(Clone, Copy)]
enum Head {
    Empty,
    Fwd,
    Rev,
    Slot,
    Heap,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Payload;
    use ramp_cc::recovery::Space;

    fn datagram(pn: u64) -> Datagram {
        Datagram {
            space: Space::Application,
            pn,
            size: 1200,
            payload: Payload::Ping,
            retx: false,
            ecn: EcnCodepoint::NotEct,
        }
    }

    /// What an event is, for comparing pop orders: (time, flow, kind tag).
    fn tag(e: &Event) -> (u64, u32, u8) {
        let k = match e.kind {
            Kind::Start => 0,
            Kind::Data { d, .. } => 10 + d.pn as u8,
            Kind::Up => 1,
            Kind::Wake => 2,
            Kind::Timer => 3,
            Kind::AckTimer => 4,
            Kind::Link => 5,
        };
        (e.at.as_nanos(), e.flow, k)
    }

    /// The queue pops in the order of one heap ordered by (time, insertion
    /// order) over every item, whichever of the heap, the wake-up slot and
    /// the FIFOs holds it: the order the engine's determinism rests on.
    #[test]
    fn pops_in_time_then_insertion_order_like_one_heap() {
        let mut rng = ramp_vocab::rng::Rng::from_u64(0x2545_f491_4f6c_dd1du64);
        let mut next = move || rng.next_u64();
        for _ in 0..200 {
            let mut q = Queue::new();
            // The reference: every item in one list, sorted by (time, seq).
            let mut reference: Vec<(u64, u64, (u64, u32, u8))> = Vec::new();
            let mut seq = 0u64;
            let (mut fwd_last, mut rev_last) = (0u64, 0u64);
            let mut now = 0u64;
            let mut popped = Vec::new();
            let mut expected = Vec::new();
            for _ in 0..300 {
                let r = next();
                let at = now + (r >> 8) % 50;
                let flow = (r >> 20) as u32 % 3;
                seq += 1;
                match r % 8 {
                    0 => {
                        // FIFO times are made non-decreasing by the queue.
                        let at = at.max(fwd_last);
                        fwd_last = at;
                        let pn = (r >> 32) % 100;
                        q.push_fwd(
                            Time::from_nanos(at),
                            flow,
                            datagram(pn),
                            EcnCodepoint::NotEct,
                        );
                        reference.push((at, seq, (at, flow, 10 + pn as u8)));
                    }
                    1 => {
                        let at = at.max(rev_last);
                        rev_last = at;
                        q.push_rev(Time::from_nanos(at), flow);
                        reference.push((at, seq, (at, flow, 1)));
                    }
                    2..=4 => {
                        q.push_wake(Time::from_nanos(at), flow);
                        reference.push((at, seq, (at, flow, 2)));
                    }
                    5 => {
                        q.push(Time::from_nanos(at), flow, TimerKind::Timer);
                        reference.push((at, seq, (at, flow, 3)));
                    }
                    6 => {
                        q.push(Time::from_nanos(at), flow, TimerKind::AckTimer);
                        reference.push((at, seq, (at, flow, 4)));
                    }
                    _ => {
                        // Pop a few, as the engine does between pushes.
                        seq -= 1;
                        for _ in 0..(r >> 40) % 4 {
                            if let Some(e) = q.pop() {
                                now = e.at.as_nanos();
                                popped.push(tag(&e));
                                reference.sort();
                                let first = reference.remove(0);
                                expected.push(first.2);
                            }
                        }
                    }
                }
            }
            while let Some(e) = q.pop() {
                popped.push(tag(&e));
            }
            reference.sort();
            expected.extend(reference.into_iter().map(|x| x.2));
            assert_eq!(popped, expected);
        }
    }
}
