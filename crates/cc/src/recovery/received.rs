//! A receiver's acknowledged packet numbers, kept so that every ACK frame
//! written from them says, by construction, which of its ranges repeat the
//! previous frame's.
//!
//! After a burst of losses a receiver reports one range per hole, and the
//! frames it sends next repeat most of those ranges: only the newest
//! change. The loss detector must know which ranges it saw before (they
//! were validated, and hold no remembered loss, see `spurious.rs`); without
//! help it compares them one for one, about ten instructions a range and
//! frame. A receiver that keeps its ranges in a [`ReceivedRanges`] lets the
//! detector skip that: every change goes through this type, which counts
//! how many of the oldest ranges no call touched since the last frame, and
//! the frame it writes ([`TrackedAckFrame`]) carries the answer. Nothing
//! the caller does can make the answer wrong: the ranges are private, every
//! method that can change one records it, and a frame's contents can only
//! be written here. The detector uses the answer only for the frame that
//! directly follows the one it processed last from the same
//! `ReceivedRanges` (frames lost or reordered on the way fall back to the
//! comparison).

use core::ops::RangeInclusive;
use core::sync::atomic::{AtomicU64, Ordering};
use core::time::Duration;

use super::ack_frame::{AckFrame, EcnCounts};
use super::spurious::RepeatedTail;

/// Identities of [`ReceivedRanges`] values: unique in the process, so a
/// frame's [`Stamp`] names the one that wrote it.
static NEXT_SOURCE: AtomicU64 = AtomicU64::new(1);

fn next_source() -> u64 {
    NEXT_SOURCE.fetch_add(1, Ordering::Relaxed)
}

/// Received packet numbers as disjoint ranges `(lo, hi)`, ascending, as a
/// receiver keeps them; writes [`TrackedAckFrame`]s.
///
/// The methods are those of a `Vec` a receiver uses on its ranges; each
/// records the lowest position it changed. The type does not check that
/// the ranges stay disjoint and ascending (the detector validates every
/// frame's changed part, and the unchanged part was validated before).
/// A clone is a new source (its frames start without a repeated tail).
#[derive(Debug)]
pub struct ReceivedRanges {
    ranges: Vec<(u64, u64)>,
    /// Which value wrote a frame (see [`NEXT_SOURCE`]).
    source: u64,
    /// Frames written so far; the last one's sequence number.
    written: u64,
    /// Ranges `[0, unchanged)` (positions now) were not touched since the
    /// last frame was written.
    unchanged: usize,
    /// Ranges removed from the bottom since the last frame.
    trimmed: usize,
    /// `ranges.len()` when the last frame was written.
    last_len: usize,
    /// Ranges in the last frame.
    last_frame_len: usize,
}

impl Default for ReceivedRanges {
    fn default() -> Self {
        ReceivedRanges::with_capacity(0)
    }
}

impl Clone for ReceivedRanges {
    fn clone(&self) -> Self {
        // A clone's frames must not pass for continuations of this one's.
        ReceivedRanges::new_source(self.ranges.clone())
    }
}

impl ReceivedRanges {
    /// No ranges, room for `capacity`.
    pub fn with_capacity(capacity: usize) -> Self {
        ReceivedRanges::new_source(Vec::with_capacity(capacity))
    }

    /// `ranges` under a source of their own that has written no frame yet.
    fn new_source(ranges: Vec<(u64, u64)>) -> Self {
        ReceivedRanges {
            ranges,
            source: next_source(),
            written: 0,
            unchanged: 0,
            trimmed: 0,
            last_len: 0,
            last_frame_len: 0,
        }
    }

    /// The ranges, ascending.
    #[inline]
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Number of ranges.
    #[inline]
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether there are no ranges.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The newest range.
    #[inline]
    pub fn last(&self) -> Option<(u64, u64)> {
        self.ranges.last().copied()
    }

    #[inline]
    fn touched(&mut self, index: usize) {
        self.unchanged = self.unchanged.min(index);
    }

    /// The range at `index`, to change (recorded as changed).
    #[inline]
    pub fn get_mut(&mut self, index: usize) -> Option<&mut (u64, u64)> {
        self.touched(index);
        self.ranges.get_mut(index)
    }

    /// The newest range, to change (recorded as changed).
    #[inline]
    pub fn last_mut(&mut self) -> Option<&mut (u64, u64)> {
        let top = self.ranges.len().saturating_sub(1);
        self.get_mut(top)
    }

    /// Adds a range above the others.
    #[inline]
    pub fn push(&mut self, range: (u64, u64)) {
        self.ranges.push(range);
    }

    /// Inserts a range at `index` (`Vec::insert`).
    #[inline]
    pub fn insert(&mut self, index: usize, range: (u64, u64)) {
        self.touched(index);
        self.ranges.insert(index, range);
    }

    /// Removes the range at `index` (`Vec::remove`).
    #[inline]
    pub fn remove(&mut self, index: usize) -> (u64, u64) {
        self.touched(index);
        self.ranges.remove(index)
    }

    /// Removes the `n` oldest ranges.
    pub fn drain_oldest(&mut self, n: usize) {
        let n = n.min(self.ranges.len());
        self.ranges.drain(..n);
        self.trimmed += n;
        self.unchanged = self.unchanged.saturating_sub(n);
    }

    /// Writes an ACK frame of the newest `max_ranges` ranges (descending,
    /// as on the wire) into `out`, stamped with what it repeats of the
    /// frame written before. Inlined into the caller: a receiver writes
    /// one for every two packets or so.
    #[inline]
    pub fn write(
        &mut self,
        max_ranges: usize,
        ack_delay: Duration,
        ecn: Option<EcnCounts>,
        out: &mut TrackedAckFrame,
    ) {
        let len = self.ranges.len();
        let n = len.min(max_ranges);
        out.frame.ranges.clear();
        // `take` of the reversed whole rather than the reversed newest
        // `n`: with the caller's constant `max_ranges` the copy unrolls.
        out.frame.ranges.extend(
            self.ranges
                .iter()
                .rev()
                .take(max_ranges)
                .map(|&(lo, hi)| RangeInclusive::new(lo, hi)),
        );
        out.frame.ack_delay = ack_delay;
        out.frame.ecn = ecn;
        let tail = (self.written > 0).then(|| self.tail(len, n)).flatten();
        self.written += 1;
        out.stamp = Some(Stamp {
            source: self.source,
            seq: self.written,
            tail,
        });
        self.unchanged = len;
        self.trimmed = 0;
        self.last_len = len;
        self.last_frame_len = n;
    }

    /// The part of a frame of the newest `n` of `len` ranges that repeats
    /// the last frame's. Frame position `k` holds range `len - 1 - k`;
    /// an untouched range `i` was range `i + trimmed` then, at position
    /// `last_len - 1 - i - trimmed` of the last frame.
    #[inline]
    fn tail(&self, len: usize, n: usize) -> Option<RepeatedTail> {
        let at = len - self.unchanged.min(len);
        if at >= n {
            return None;
        }
        // Old position = new position + last_len - len - trimmed.
        let from = (at + self.last_len).checked_sub(len + self.trimmed)?;
        let end = from + (n - at);
        (end <= self.last_frame_len).then(|| RepeatedTail::new(at, from))
    }
}

/// Which [`ReceivedRanges`] wrote a frame, its sequence number there, and
/// what it repeats of the frame written just before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) source: u64,
    pub(crate) seq: u64,
    pub(crate) tail: Option<RepeatedTail>,
}

/// An ACK frame written by a [`ReceivedRanges`], for
/// [`LossDetector::on_tracked_ack_received`](super::LossDetector::on_tracked_ack_received).
///
/// Read-only outside this module: its ranges are what its stamp describes.
#[derive(Clone, Debug, Default)]
pub struct TrackedAckFrame {
    frame: AckFrame,
    stamp: Option<Stamp>,
}

impl TrackedAckFrame {
    /// An empty frame with room for `ranges` ranges (writing it never
    /// grows it if `ranges` is the most a frame carries).
    pub fn with_capacity(ranges: usize) -> Self {
        TrackedAckFrame {
            frame: AckFrame {
                ranges: Vec::with_capacity(ranges),
                ..AckFrame::default()
            },
            stamp: None,
        }
    }

    /// The frame.
    #[inline]
    pub fn frame(&self) -> &AckFrame {
        &self.frame
    }

    #[inline]
    pub(crate) fn stamp(&self) -> Option<Stamp> {
        self.stamp
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::spurious::LostMemory;
    use proptest::prelude::*;

    /// A receiver's insert, as ramp-sim's does it: extend the newest range,
    /// open a range above it, or join, extend or open one below it.
    fn receive(r: &mut ReceivedRanges, pn: u64, keep: usize) {
        let ranges = r.as_slice();
        match r.last() {
            None => r.push((pn, pn)),
            Some((_, hi)) if pn == hi + 1 => {
                if let Some(last) = r.last_mut() {
                    last.1 = pn;
                }
            }
            Some((_, hi)) if pn > hi => r.push((pn, pn)),
            Some(_) => {
                let idx = ranges.partition_point(|x| x.1 < pn);
                if idx < ranges.len() && ranges[idx].0 <= pn {
                    return;
                }
                let joins_prev = idx > 0 && ranges[idx - 1].1 + 1 == pn;
                let joins_next = idx < ranges.len() && ranges[idx].0 == pn + 1;
                match (joins_prev, joins_next) {
                    (true, true) => {
                        let (_, hi) = r.remove(idx);
                        r.get_mut(idx - 1).unwrap().1 = hi;
                    }
                    (true, false) => r.get_mut(idx - 1).unwrap().1 = pn,
                    (false, true) => r.get_mut(idx).unwrap().0 = pn,
                    (false, false) => r.insert(idx, (pn, pn)),
                }
            }
        }
        if r.len() > 4 * keep {
            r.drain_oldest(r.len() - 2 * keep);
        }
    }

    fn pairs(f: &TrackedAckFrame) -> Vec<(u64, u64)> {
        f.frame()
            .ranges
            .iter()
            .map(|r| (*r.start(), *r.end()))
            .collect()
    }

    proptest! {
        /// Every stamp is true: the ranges it says repeat the frame written
        /// before do, one for one (receipts in random order, old ranges
        /// dropped, frames capped at a few ranges). And a loss memory fed
        /// the frames that arrive (some lost, some late, some twice), with
        /// random losses declared between them, counts the same hits using
        /// the stamps as comparing every frame with the one before.
        #[test]
        fn stamps_are_true_and_change_no_hit(
            ops in proptest::collection::vec((0u8..8, 0u64..6, 0u8..6), 1..300),
            max in 1usize..6,
        ) {
            let mut r = ReceivedRanges::default();
            let mut next = 0u64;
            let mut last_written: Option<Vec<(u64, u64)>> = None;
            let mut in_flight: Vec<TrackedAckFrame> = Vec::new();
            let (mut stamped, mut compared) = (LostMemory::default(), LostMemory::default());
            let mut acked: Vec<(u64, u64)> = Vec::new();
            let mut lost_pns: Vec<u64> = Vec::new();
            for (op, arg, fate) in ops {
                match op {
                    // Mostly in order, sometimes a hole or a late packet.
                    0..=3 => {
                        next += 1 + u64::from(arg == 5);
                        receive(&mut r, next, max);
                    }
                    4 => receive(&mut r, next.saturating_sub(arg + 1), max),
                    5 => {
                        // A loss declared: a number below the newest
                        // written that no processed frame acknowledged.
                        let pn = next.saturating_sub(arg + 1);
                        let known = acked.iter().any(|&(lo, hi)| (lo..=hi).contains(&pn))
                            || lost_pns.contains(&pn);
                        if !known {
                            lost_pns.push(pn);
                            stamped.push(pn, 1, 1, 64);
                            compared.push(pn, 1, 1, 64);
                        }
                    }
                    _ => {
                        if r.is_empty() {
                            continue;
                        }
                        let mut f = TrackedAckFrame::default();
                        r.write(max, Duration::ZERO, None, &mut f);
                        let now = pairs(&f);
                        if let (Some(prev), Some(t)) = (&last_written, f.stamp().and_then(|s| s.tail)) {
                            let n = now.len() - t.at;
                            prop_assert_eq!(&now[t.at..], &prev[t.from..t.from + n]);
                        }
                        last_written = Some(now);
                        // Fate: 0 lost, 1 held back (arrives after the
                        // next), 2 twice, else on time.
                        match fate {
                            0 => {}
                            1 => in_flight.push(f),
                            2 => {
                                in_flight.insert(0, f.clone());
                                in_flight.insert(0, f);
                            }
                            _ => in_flight.insert(0, f),
                        }
                        while in_flight.len() > 1 || (fate != 1 && !in_flight.is_empty()) {
                            let f = in_flight.remove(0);
                            let ranges = &f.frame().ranges;
                            let a = {
                                let tail = stamped.stamped_tail(ranges, f.stamp());
                                stamped.acked(ranges, tail, 1, f.stamp())
                            };
                            let b = {
                                let tail = compared.repeated_tail(ranges);
                                compared.acked(ranges, tail, 1, None)
                            };
                            prop_assert_eq!((a.packets, a.bytes, a.in_episode), (b.packets, b.bytes, b.in_episode));
                            prop_assert_eq!(stamped.len(), compared.len());
                            acked.extend(ranges.iter().map(|x| (*x.start(), *x.end())));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_next_frame_uses_its_stamp_others_compare() {
        let mut r = ReceivedRanges::default();
        for pn in 0..=8 {
            receive(&mut r, pn, 32);
        }
        let (mut f0, mut f1, mut f2) = Default::default();
        r.write(32, Duration::ZERO, None, &mut f0);
        receive(&mut r, 10, 32);
        r.write(32, Duration::ZERO, None, &mut f1);
        receive(&mut r, 11, 32);
        r.write(32, Duration::ZERO, None, &mut f2);
        let mut m = LostMemory::default();
        let ranges = |f: &TrackedAckFrame| f.frame().ranges.clone();
        let t0 = m.stamped_tail(&ranges(&f0), f0.stamp());
        m.acked(&ranges(&f0), t0, 1, f0.stamp());
        // f1 = [10, 0..=8]: the stamp says 0..=8 repeats; a comparison
        // finds it inside the previous range and starts the tail after it.
        assert_eq!(m.repeated_tail(&ranges(&f1)), Some(RepeatedTail::new(2, 1)));
        assert_eq!(
            m.stamped_tail(&ranges(&f1), f1.stamp()),
            Some(RepeatedTail::new(1, 0))
        );
        // f2 does not follow f0: compared.
        assert_eq!(
            m.stamped_tail(&ranges(&f2), f2.stamp()),
            m.repeated_tail(&ranges(&f2))
        );
        let t1 = m.stamped_tail(&ranges(&f1), f1.stamp());
        m.acked(&ranges(&f1), t1, 1, f1.stamp());
        // f2 = [10..=11, 0..=8] follows f1.
        assert_eq!(
            m.stamped_tail(&ranges(&f2), f2.stamp()),
            Some(RepeatedTail::new(1, 1))
        );
    }

    #[test]
    fn a_clone_is_a_new_source() {
        let mut r = ReceivedRanges::default();
        r.push((0, 3));
        let mut f = TrackedAckFrame::default();
        r.write(8, Duration::ZERO, None, &mut f);
        let c = r.clone();
        let (a, b) = (r.source, c.source);
        assert_ne!(a, b);
        let mut g = TrackedAckFrame::default();
        r.write(8, Duration::ZERO, None, &mut g);
        assert_eq!(
            g.stamp().and_then(|s| s.tail),
            Some(RepeatedTail::new(0, 0))
        );
        assert_eq!(g.stamp().map(|s| s.seq), Some(2));
    }
}
