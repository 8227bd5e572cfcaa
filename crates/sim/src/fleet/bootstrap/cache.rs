//! A bounded cache of connections' Poisson counts, for the summary's
//! sorted pass on one thread.
//!
//! A paired connection has a value in twelve bootstrapped series (three
//! tables, all connections, its region and its size bin, times four arms),
//! and the sorted pass meets them one series after another, so without a
//! cache its 200 counts are drawn twelve times. The counts are a function
//! of the connection alone ([`Poisson1::counts`]), so a cached copy gives
//! the same bytes as a fresh draw. The cache is direct-mapped by
//! connection index with a fixed number of slots, whatever the run's size:
//! a run of up to [`SLOTS`] connections draws each connection's counts
//! once; a larger one shares slots (a miss draws again, as without the
//! cache), and the memory stays at most [`SLOTS`] × 200 bytes.

use super::{Counts, Poisson1, REPLICATES};

/// Slots (connections held): 2^15 × 200 bytes = 6.25 MiB when every slot
/// is used, plus 256 KiB of tags. The slots grow as connections reach
/// them, so a run of 20 000 connections holds 4 MB. A judgement: big
/// enough that `ramp bench fleet`'s 20 000-connection runs draw once per
/// connection, small beside the run's other memory (about 30 MB).
pub(crate) const SLOTS: usize = 1 << 15;

/// The cache ([`CountCache::counts`]).
pub(crate) struct CountCache {
    /// Per slot: 1 + the connection whose counts it holds (0: none).
    tags: Vec<u64>,
    /// Per slot: those counts.
    counts: Vec<Counts>,
    /// Draws made (misses), for tests.
    draws: u64,
}

impl CountCache {
    /// An empty cache.
    pub(crate) fn new() -> CountCache {
        CountCache {
            tags: Vec::new(),
            counts: Vec::new(),
            draws: 0,
        }
    }

    /// Connection `conn`'s counts, drawn with `poisson` unless its slot
    /// holds them already.
    pub(crate) fn counts(&mut self, poisson: &Poisson1, conn: u32) -> &Counts {
        let i = conn as usize % SLOTS;
        if i >= self.tags.len() {
            // Grown as connections reach the slots (a zeroed allocation
            // of every slot at once may come from the heap and be written
            // whole).
            self.tags.resize(i + 1, 0);
            self.counts.resize(i + 1, [0; REPLICATES]);
        }
        let tag = u64::from(conn) + 1;
        if self.tags[i] != tag {
            poisson.counts(u64::from(conn), &mut self.counts[i]);
            self.tags[i] = tag;
            self.draws += 1;
        }
        &self.counts[i]
    }

    /// Draws made so far.
    #[cfg(test)]
    pub(crate) fn draws(&self) -> u64 {
        self.draws
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_counts_are_the_drawn_ones_and_a_slot_is_redrawn_for_another_connection() {
        let p = Poisson1::new();
        let mut cache = CountCache::new();
        let mut fresh = [0u8; REPLICATES];
        // Two passes over connections that share slots (i and i + SLOTS)
        // and ones that do not, in a scrambled order.
        let conns: Vec<u32> = (0..3_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) % 1_500) + (i % 2) * SLOTS as u32)
            .collect();
        for &c in conns.iter().chain(&conns) {
            p.counts(u64::from(c), &mut fresh);
            assert_eq!(cache.counts(&p, c), &fresh, "connection {c}");
        }
        assert!(cache.draws() < 2 * conns.len() as u64);
        // A connection alone in its slot is drawn once, however often read.
        let mut once = CountCache::new();
        for _ in 0..5 {
            once.counts(&p, 7);
            once.counts(&p, u32::MAX);
        }
        assert_eq!(once.draws(), 2);
    }
}
