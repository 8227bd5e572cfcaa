//! Spurious-loss detection: remembering declared-lost packets so that a
//! later ACK of one is recognised, and tracking whether every loss of the
//! current recovery episode was spurious (the undo signal of RFC 9438 §4.9).
//!
//! Memory is bounded: at most `capacity` records per space; the oldest are
//! forgotten first, and an episode that loses a record to eviction can no
//! longer be proven spurious (no undo, the conservative side).

use std::collections::VecDeque;

use crate::time::Time;

/// A declared-lost packet.
#[derive(Clone, Copy, Debug)]
struct LostRecord {
    packet_number: u64,
    size: u64,
    /// The loss episode it belongs to (0 = none: no congestion event).
    episode: u64,
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

/// Declared-lost packets of one space, ascending packet number.
#[derive(Debug, Default)]
pub(crate) struct LostMemory {
    records: VecDeque<LostRecord>,
}

impl LostMemory {
    /// Remembers a lost packet; returns the episode of a record evicted to
    /// stay within `capacity`, if one was.
    pub(crate) fn push(
        &mut self,
        packet_number: u64,
        size: u64,
        episode: u64,
        capacity: usize,
    ) -> Option<u64> {
        if capacity == 0 {
            return Some(episode);
        }
        let mut evicted = None;
        if self.records.len() >= capacity {
            evicted = self.records.pop_front().map(|r| r.episode);
        }
        let rec = LostRecord {
            packet_number,
            size,
            episode,
        };
        // Losses are declared in increasing packet-number order within a
        // space (both thresholds are monotone in packet number and send
        // time), so this is a push_back; the search is for safety.
        match self.records.back() {
            Some(b) if b.packet_number >= packet_number => {
                let at = self
                    .records
                    .partition_point(|r| r.packet_number < packet_number);
                if self.records.get(at).map(|r| r.packet_number) != Some(packet_number) {
                    self.records.insert(at, rec);
                }
            }
            _ => self.records.push_back(rec),
        }
        evicted
    }

    /// Removes and counts the remembered losses inside `lo..=hi`.
    pub(crate) fn acked(&mut self, lo: u64, hi: u64, episode: u64) -> SpuriousHits {
        let mut hits = SpuriousHits::default();
        let (Some(first), Some(last)) = (self.records.front(), self.records.back()) else {
            return hits;
        };
        if hi < first.packet_number || lo > last.packet_number {
            return hits;
        }
        let a = self.records.partition_point(|r| r.packet_number < lo);
        let b = self.records.partition_point(|r| r.packet_number <= hi);
        if a >= b {
            return hits;
        }
        for r in self.records.range(a..b) {
            hits.packets += 1;
            hits.bytes += r.size;
            if episode != 0 && r.episode == episode {
                hits.in_episode += 1;
            }
        }
        self.records.drain(a..b);
        hits
    }

    pub(crate) fn clear(&mut self) {
        self.records.clear();
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.records.len()
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

    #[test]
    fn memory_is_bounded_and_counts_each_loss_once() {
        let mut m = LostMemory::default();
        for pn in 0..10 {
            let ev = m.push(pn, 100, 1, 4);
            assert_eq!(ev.is_some(), pn >= 4);
        }
        assert_eq!(m.len(), 4);
        let h = m.acked(0, 7, 1);
        assert_eq!((h.packets, h.bytes, h.in_episode), (2, 200, 2));
        assert_eq!(
            m.acked(0, 7, 1).packets,
            0,
            "a duplicate ACK counts nothing"
        );
        assert_eq!(m.acked(9, 9, 2).in_episode, 0);
    }
}
