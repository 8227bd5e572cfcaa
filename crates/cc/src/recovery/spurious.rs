//! Spurious-loss detection: remembering declared-lost packets so that a
//! later ACK of one is recognised, and tracking whether every loss of the
//! current recovery episode was spurious (the undo signal of RFC 9438 §4.9).
//!
//! Memory is bounded: at most `capacity` records per space; the oldest are
//! forgotten first, and an episode that loses a record to eviction can no
//! longer be proven spurious (no undo, the conservative side).

use core::ops::RangeInclusive;

use ramp_vocab::time::Time;

use super::received::Stamp;

/// A declared-lost packet.
#[derive(Clone, Copy, Debug)]
struct LostRecord {
    packet_number: u64,
    size: u64,
    /// The loss episode it belongs to (0 = none: no congestion event).
    episode: u64,
    /// Acknowledged since; removed at the end of the frame.
    acked: bool,
}

/// What an ACK range revealed about earlier losses.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SpuriousHits {
    pub(crate) packets: u64,
    pub(crate) bytes: u64,
    /// Of `packets`, those belonging to episode `episode` (the caller's
    /// current one).
    pub(crate) in_episode: u64,
}

/// The part of an ACK frame's ranges that repeats the previous frame's:
/// `ranges[at..]` equals the previous frame's ranges from `from` on, one
/// for one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RepeatedTail {
    /// The first repeated range of the new frame.
    pub(crate) at: usize,
    /// Its position in the previous frame.
    pub(crate) from: usize,
}

impl RepeatedTail {
    pub(crate) fn new(at: usize, from: usize) -> Self {
        RepeatedTail { at, from }
    }
}

/// Declared-lost packets of one space, ascending packet number.
///
/// A `Vec` used as a queue (`head` is the logical front, compacted when
/// half the buffer is dead) rather than a `VecDeque`, so the per-range
/// lookup is a binary search over one contiguous slice: ACK frames on a
/// lossy path carry one range per hole, and each range is looked up.
///
/// No remembered packet lies inside a range of an ACK frame already
/// processed: a packet in such a range was acknowledged (or never
/// outstanding), so it is never declared lost afterwards, and a record
/// inside it was removed when the frame was processed. The next frame
/// usually repeats most of the previous one's ranges (a receiver reports
/// every hole it still has), so `previous` keeps the last frame's ranges
/// and a range inside one of them is not looked up at all.
#[derive(Clone, Debug, Default)]
pub(crate) struct LostMemory {
    records: Vec<LostRecord>,
    head: usize,
    /// The ranges of the last frame processed, descending, as `(lo, hi)`.
    previous: Vec<(u64, u64)>,
    /// The [`Stamp`]'s source and sequence number of that frame, if it was
    /// a [`TrackedAckFrame`](super::TrackedAckFrame).
    seen: Option<(u64, u64)>,
}

impl LostMemory {
    fn live(&self) -> &[LostRecord] {
        &self.records[self.head..]
    }

    /// Remembers a lost packet; returns the episode of a record evicted to
    /// stay within `capacity`, if one was.
    pub(crate) fn push(
        &mut self,
        packet_number: u64,
        size: u64,
        episode: u64,
        capacity: usize,
    ) -> Option<u64> {
        debug_assert!(
            !self
                .previous
                .iter()
                .any(|&(lo, hi)| (lo..=hi).contains(&packet_number)),
            "packet {packet_number} was acknowledged before it was declared lost"
        );
        if capacity == 0 {
            return Some(episode);
        }
        let mut evicted = None;
        if self.records.len() - self.head >= capacity {
            evicted = Some(self.records[self.head].episode);
            self.head += 1;
            if self.head * 2 >= self.records.len() {
                self.records.drain(..self.head);
                self.head = 0;
            }
        }
        let rec = LostRecord {
            packet_number,
            size,
            episode,
            acked: false,
        };
        // Losses are declared in increasing packet-number order within a
        // space (both thresholds are monotone in packet number and send
        // time), so this is a push; the search is for safety.
        match self.records.last() {
            Some(b) if self.records.len() > self.head && b.packet_number >= packet_number => {
                let at = self.head
                    + self
                        .live()
                        .partition_point(|r| r.packet_number < packet_number);
                if self.records.get(at).map(|r| r.packet_number) != Some(packet_number) {
                    self.records.insert(at, rec);
                }
            }
            _ => self.records.push(rec),
        }
        evicted
    }

    /// The repeated tail of a frame written by a
    /// [`ReceivedRanges`](super::ReceivedRanges): its stamp's, if it
    /// follows the last frame processed from the same source directly
    /// (the stamp describes the frame written just before it), else found
    /// by comparison ([`LostMemory::repeated_tail`]).
    pub(crate) fn stamped_tail(
        &self,
        ranges: &[RangeInclusive<u64>],
        stamp: Option<Stamp>,
    ) -> Option<RepeatedTail> {
        if let Some(s) = stamp {
            if self.seen == Some((s.source, s.seq.wrapping_sub(1))) {
                debug_assert!(
                    s.tail.is_none_or(|t| ranges[t.at..]
                        .iter()
                        .map(|r| (*r.start(), *r.end()))
                        .eq(self.previous[t.from..]
                            .iter()
                            .take(ranges.len() - t.at)
                            .copied())
                        && t.from + (ranges.len() - t.at) <= self.previous.len()),
                    "a stamp's repeated tail differs from the previous frame"
                );
                if s.tail.is_some() {
                    return s.tail;
                }
            }
        }
        self.repeated_tail(ranges)
    }

    /// Where `ranges` repeats the previous frame's ranges one for one to
    /// its end, if it does from a range on: the first range inside one of
    /// the previous frame's is found walking down both lists, and the
    /// ranges after it are compared with the previous frame's after that
    /// one. `ranges` need not be valid: the tail found equals ranges of a
    /// frame already validated, which is all a caller may rely on.
    pub(crate) fn repeated_tail(&self, ranges: &[RangeInclusive<u64>]) -> Option<RepeatedTail> {
        let mut previous: &[(u64, u64)] = &self.previous;
        for (k, r) in ranges.iter().enumerate() {
            let (lo, hi) = (*r.start(), *r.end());
            while let [(p_lo, _), older @ ..] = previous {
                if *p_lo <= hi {
                    break;
                }
                previous = older;
            }
            let [(p_lo, p_hi), below @ ..] = previous else {
                return None;
            };
            if *p_lo <= lo && hi <= *p_hi {
                let rest = &ranges[k + 1..];
                let repeats = rest.len() <= below.len()
                    && rest
                        .iter()
                        .zip(below)
                        .all(|(r, p)| (*r.start(), *r.end()) == *p);
                return repeats.then(|| RepeatedTail {
                    at: k + 1,
                    from: self.previous.len() - below.len(),
                });
            }
        }
        None
    }

    /// Removes and counts the remembered losses inside the frame's `ranges`
    /// (descending, disjoint). Every packet in `ranges` counts as
    /// acknowledged from now on: none may be declared lost (pushed) later.
    /// `tail` is a repeated tail of `ranges` ([`LostMemory::stamped_tail`]
    /// or [`LostMemory::repeated_tail`]); `stamp` is the frame's, if it
    /// was written by a [`ReceivedRanges`](super::ReceivedRanges).
    ///
    /// Walks the records from the newest down alongside the ranges. A real
    /// loss sits in a gap between two ranges (its number is never
    /// acknowledged) and a spurious one is removed when found, so the walk
    /// meets a few records per range, stepping over a wide gap (a burst
    /// loss) by binary search: O(ranges · log) at worst, sequential memory
    /// in the common case. A range inside one of the previous frame's
    /// ranges holds no record (see the type's documentation) and is
    /// skipped, and so is the repeated tail (the frames usually agree
    /// range for range below their first few: holes are not filled, as a
    /// retransmission takes a new number).
    pub(crate) fn acked(
        &mut self,
        ranges: &[RangeInclusive<u64>],
        tail: Option<RepeatedTail>,
        episode: u64,
        stamp: Option<Stamp>,
    ) -> SpuriousHits {
        let mut hits = SpuriousHits::default();
        let live = &mut self.records[self.head..];
        // The previous frame's ranges not yet passed (both lists descend).
        let mut previous: &[(u64, u64)] = &self.previous;
        let mut i = live.len();
        let head = &ranges[..tail.map_or(ranges.len(), |t| t.at)];
        for r in head {
            let (lo, hi) = (*r.start(), *r.end());
            if i == 0 {
                break;
            }
            while let [(p_lo, _), older @ ..] = previous {
                if *p_lo <= hi {
                    break;
                }
                previous = older;
            }
            if let [(p_lo, p_hi), ..] = previous {
                if *p_lo <= lo && hi <= *p_hi {
                    continue;
                }
            }
            // Skip the real losses in the gap above this range: a few steps,
            // then a binary search (a burst loss is one wide gap).
            let mut steps = 0;
            while i > 0 && live[i - 1].packet_number > hi {
                i -= 1;
                steps += 1;
                if steps == 8 {
                    i = live[..i].partition_point(|x| x.packet_number <= hi);
                    break;
                }
            }
            while i > 0 && live[i - 1].packet_number >= lo {
                i -= 1;
                let rec = &mut live[i];
                rec.acked = true;
                hits.packets += 1;
                hits.bytes += rec.size;
                if episode != 0 && rec.episode == episode {
                    hits.in_episode += 1;
                }
            }
        }
        self.remember(ranges, tail);
        self.seen = stamp.map(|s| (s.source, s.seq));
        if hits.packets > 0 {
            self.records.drain(..self.head);
            self.head = 0;
            self.records.retain(|r| !r.acked);
        }
        hits
    }

    /// Keeps `ranges` as the previous frame's. Its repeated tail is already
    /// stored: it is moved in one block instead of being rewritten range by
    /// range.
    fn remember(&mut self, ranges: &[RangeInclusive<u64>], tail: Option<RepeatedTail>) {
        let pair = |r: &RangeInclusive<u64>| (*r.start(), *r.end());
        match tail {
            Some(RepeatedTail { at, from }) => {
                let n = ranges.len() - at;
                if at > from {
                    self.previous.resize(at + n, (0, 0));
                }
                if at != from {
                    self.previous.copy_within(from..from + n, at);
                }
                self.previous.truncate(at + n);
                for (slot, r) in self.previous.iter_mut().zip(&ranges[..at]) {
                    *slot = pair(r);
                }
            }
            None => {
                self.previous.clear();
                self.previous.extend(ranges.iter().map(pair));
            }
        }
        debug_assert!(self.previous.iter().copied().eq(ranges.iter().map(pair)));
    }

    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.head = 0;
        self.previous.clear();
        self.seen = None;
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.records.len() - self.head
    }
}

/// The loss episode behind the current recovery period, mirrored from the
/// RFC 9002 §7.3.2 rule the controllers apply: an event whose packet was
/// sent after the recovery start begins a new period at `now`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Episode {
    pub(crate) id: u64,
    pub(crate) recovery_start: Time,
    /// Lost packets of this episode not yet acknowledged.
    pub(crate) outstanding: u64,
    /// Packets of this episode acknowledged after being declared lost.
    pub(crate) spurious: u64,
    /// False once anything proves real congestion (CE mark, persistent
    /// congestion) or a record was evicted.
    pub(crate) undoable: bool,
    /// The undo signal was already given.
    pub(crate) fired: bool,
}

impl Episode {
    /// Whether every loss of the episode has now been acknowledged.
    pub(crate) fn all_spurious(&self) -> bool {
        self.undoable && !self.fired && self.outstanding == 0 && self.spurious > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A frame processed as the detector does.
    fn ack(m: &mut LostMemory, ranges: &[RangeInclusive<u64>], episode: u64) -> SpuriousHits {
        let tail = m.repeated_tail(ranges);
        m.acked(ranges, tail, episode, None)
    }

    /// The plain definition: every remembered loss inside a range is hit.
    #[derive(Default)]
    struct Naive {
        records: Vec<(u64, u64, u64)>,
        acked: Vec<(u64, u64)>,
    }

    proptest! {
        /// Skipping ranges the previous frame held changes nothing: the
        /// hits equal a search of every range, over random losses (never
        /// inside an acknowledged range, as the detector guarantees) and
        /// random frames that repeat, grow and drop earlier ranges.
        #[test]
        fn skipping_known_ranges_finds_every_hit(
            ops in proptest::collection::vec((0u8..3, 0u64..400, 1u64..12, 0u64..3), 1..120)
        ) {
            let mut m = LostMemory::default();
            let mut naive = Naive::default();
            let mut frame: Vec<(u64, u64)> = Vec::new();
            for (op, pn, len, episode) in ops {
                match op {
                    0 => {
                        let known = naive.acked.iter().any(|&(lo, hi)| (lo..=hi).contains(&pn))
                            || naive.records.iter().any(|r| r.0 == pn);
                        if !known {
                            m.push(pn, 100 + pn, episode, 16);
                            // At capacity the lowest goes first, then the
                            // new one is placed.
                            if naive.records.len() == 16 {
                                naive.records.remove(0);
                            }
                            naive.records.push((pn, 100 + pn, episode));
                            naive.records.sort();
                        }
                    }
                    _ => {
                        // Add a range to the frame (op 1) or start a new
                        // frame from this one range (op 2), keep the
                        // frame's ranges disjoint and descending.
                        if op == 2 {
                            frame.clear();
                        }
                        let (lo, hi) = (pn, pn + len - 1);
                        if frame.iter().all(|&(a, b)| hi + 1 < a || b + 1 < lo) {
                            frame.push((lo, hi));
                            frame.sort_by_key(|r| core::cmp::Reverse(r.0));
                        }
                        let ranges: Vec<RangeInclusive<u64>> =
                            frame.iter().map(|&(a, b)| a..=b).collect();
                        let h = ack(&mut m, &ranges, 1);
                        let inside = |pn: u64| frame.iter().any(|&(a, b)| (a..=b).contains(&pn));
                        let hit: Vec<_> = naive.records.iter().filter(|r| inside(r.0)).copied().collect();
                        prop_assert_eq!(h.packets, hit.len() as u64);
                        prop_assert_eq!(h.bytes, hit.iter().map(|r| r.1).sum::<u64>());
                        prop_assert_eq!(h.in_episode, hit.iter().filter(|r| r.2 == 1).count() as u64);
                        naive.records.retain(|r| !inside(r.0));
                        naive.acked.extend(frame.iter().copied());
                        prop_assert_eq!(m.len(), naive.records.len());
                    }
                }
            }
        }
    }

    proptest! {
        /// RFC 9000 §19.3.1: a frame that repeats the previous frame's
        /// ranges below some point is checked above that point only, and
        /// gets the verdict (and error) of a full check, whatever its head:
        /// inverted, overlapping or rising ranges included.
        #[test]
        fn rfc9000_19_3_1_a_repeated_tail_needs_no_second_check(
            starts in proptest::collection::btree_set(0u64..2_000, 1..30),
            keep in 0usize..30,
            head in proptest::collection::vec((0u64..2_100, 0u64..2_100), 0..4),
        ) {
            use crate::recovery::AckFrame;
            // A valid frame: one range per start, up to the next start - 2.
            let starts: Vec<u64> = starts.into_iter().collect();
            let mut prev: Vec<RangeInclusive<u64>> = starts
                .windows(2)
                .map(|w| w[0]..=w[0].max(w[1].saturating_sub(2)))
                .collect();
            let last = *starts.last().unwrap_or(&0);
            prev.push(last..=last + 3);
            prev.reverse();
            let mut m = LostMemory::default();
            ack(&mut m, &prev, 0);
            let cut = keep.min(prev.len());
            let ranges: Vec<RangeInclusive<u64>> = head
                .iter()
                .map(|&(a, b)| a..=b)
                .chain(prev[cut..].iter().cloned())
                .collect();
            let frame = AckFrame { ranges, ack_delay: core::time::Duration::ZERO, ecn: None };
            let tail = m.repeated_tail(&frame.ranges);
            if let Some(t) = tail {
                prop_assert_eq!(&frame.ranges[t.at..], &prev[t.from..t.from + frame.ranges.len() - t.at]);
            }
            prop_assert_eq!(
                frame.validate_head(tail.map_or(frame.ranges.len(), |t| t.at)),
                frame.validate()
            );
        }
    }

    #[test]
    fn memory_is_bounded_and_counts_each_loss_once() {
        let mut m = LostMemory::default();
        for pn in 0..10 {
            let ev = m.push(pn, 100, 1, 4);
            assert_eq!(ev.is_some(), pn >= 4);
        }
        assert_eq!(m.len(), 4);
        // 6..=9 remain; ACK 9, 7 and 3..=5 (3..=5 no longer remembered).
        let h = ack(&mut m, &[9..=9, 7..=7, 3..=5], 1);
        assert_eq!((h.packets, h.bytes, h.in_episode), (2, 200, 2));
        assert_eq!(m.len(), 2);
        let again = ack(&mut m, &[9..=9, 7..=7, 3..=5], 1);
        assert_eq!(again.packets, 0, "a duplicate ACK counts nothing");
        // A wide gap (a burst of 40 real losses) is stepped over.
        for pn in 100..140 {
            m.push(pn, 100, 3, 64);
        }
        let h = ack(&mut m, &[140..=150, 99..=99], 3);
        assert_eq!(h.packets, 0);
        assert_eq!(m.len(), 42);
        let h = ack(&mut m, &[139..=139, 8..=8], 3);
        assert_eq!((h.packets, h.in_episode), (2, 1));
        let h = ack(&mut m, &[0..=100], 2);
        assert_eq!((h.packets, h.in_episode), (2, 0), "6 and 100");
        assert_eq!(m.len(), 38);
    }
}
