//! The event queue: timers and wake-ups in a binary heap, path arrivals
//! in two FIFOs, one sequence counter so that ties break by insertion
//! order across all three.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use ramp_cc::{EcnCodepoint, Time};

use crate::server::Datagram;

/// What happens; `Data` and `Up` come from the path FIFOs, the others
/// from the timer heap.
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

/// The event queue. Packets on the forward path arrive in the order they
/// left the FIFO bottleneck (constant propagation delay), and client packets
/// arrive in send order (the reverse path is FIFO too), so both live in
/// plain FIFOs; only timers and wake-ups need the heap. Every item takes a
/// sequence number from one counter, and the earliest (time, sequence) of
/// the three heads is processed next: the same total order as one heap.
pub(super) struct Queue {
    heap: BinaryHeap<HeapEvent>,
    fwd: VecDeque<(Time, u64, u32, Datagram, EcnCodepoint)>,
    rev: VecDeque<(Time, u64, u32)>,
    seq: u64,
}

impl Queue {
    /// An empty queue sized for a few flows.
    pub(super) fn new() -> Queue {
        Queue {
            heap: BinaryHeap::with_capacity(64),
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
        let h = self.heap.peek().map(|e| (e.at, e.seq));
        let f = self.fwd.front().map(|e| (e.0, e.1));
        let r = self.rev.front().map(|e| (e.0, e.1));
        let mut best = 0u8;
        let mut key = None;
        for (i, k) in [(1u8, h), (2, f), (3, r)] {
            if let Some(k) = k {
                if key.is_none_or(|b| k < b) {
                    key = Some(k);
                    best = i;
                }
            }
        }
        match best {
            1 => self.heap.pop().map(|e| Event {
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
            2 => self.fwd.pop_front().map(|(at, _, flow, d, ecn)| Event {
                at,
                flow,
                kind: Kind::Data { d, ecn },
            }),
            3 => self.rev.pop_front().map(|(at, _, flow)| Event {
                at,
                flow,
                kind: Kind::Up,
            }),
            _ => None,
        }
    }
}
