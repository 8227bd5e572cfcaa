//! The connections a fleet run's charts and report are drawn from: every
//! connection up to [`CHART_CONNECTIONS`], above that a seeded sample of
//! that many, so that a run's peak memory does not grow with `-n` (the
//! summary is exact at any size: `ramp_sim::fleet::summarizer`).
//!
//! Which connections: the [`CHART_CONNECTIONS`] with the smallest
//! priority, a hash of (run seed, connection index) alone. So the sample
//! is the same at any thread or shard count and after a resume or merge,
//! every arm of a sampled connection is in it (the paired chart stays
//! paired), and it is a uniform sample of the run's connections: the hash
//! does not depend on the path drawn.

use std::collections::{BTreeMap, BinaryHeap};

use ramp_sim::fleet::summary::Row;
use ramp_vocab::rng::Rng;

/// Connections the charts and report.html are drawn from at most.
///
/// Assumption (a memory budget, not a measured optimum; sensible range
/// 10 000–100 000): at 20 000 connections the A/B charts' percentiles up to
/// p99 rest on at least 200 connections beyond them per arm, and their
/// bootstrap bands show the sampling error that remains; the report's
/// explorer embeds one row per connection and arm, which keeps a 4-arm
/// report.html at the size of a 20 000-connection run's.
pub(super) const CHART_CONNECTIONS: usize = 20_000;

/// Separates the sample's hash from the path draws made from the same
/// (seed, index).
const SAMPLE_STREAM: u64 = 0x3C6E_F372_FE94_F82B;

/// A connection's place in the sample order (smaller is kept first).
fn priority(run_seed: u64, conn: u64) -> u64 {
    Rng::from_u64(run_seed.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ conn ^ SAMPLE_STREAM).next_u64()
}

/// The sample while records stream in, in connection order.
pub(super) struct ChartSample {
    run_seed: u64,
    cap: usize,
    /// The kept connections' priorities, the largest on top (evicted
    /// first).
    heap: BinaryHeap<(u64, u64)>,
    /// The kept connections' rows, arms in record order.
    rows: BTreeMap<u64, Vec<Row>>,
    /// The connection of the last row, and whether it is kept.
    last: Option<(u64, bool)>,
    /// Connections seen.
    seen: u64,
}

impl ChartSample {
    /// At most `cap` connections of a run with seed `run_seed`.
    pub(super) fn new(run_seed: u64, cap: usize) -> ChartSample {
        ChartSample {
            run_seed,
            cap: cap.max(1),
            heap: BinaryHeap::new(),
            rows: BTreeMap::new(),
            last: None,
            seen: 0,
        }
    }

    /// Adds one record's row (all rows of a connection come together).
    pub(super) fn push(&mut self, row: Row) {
        let conn = row.conn;
        let keep = match self.last {
            Some((c, keep)) if c == conn => keep,
            _ => {
                self.seen += 1;
                let p = (priority(self.run_seed, conn), conn);
                let keep = if self.heap.len() < self.cap {
                    true
                } else if self.heap.peek().is_some_and(|top| p < *top) {
                    if let Some((_, out)) = self.heap.pop() {
                        self.rows.remove(&out);
                    }
                    true
                } else {
                    false
                };
                if keep {
                    self.heap.push(p);
                }
                self.last = Some((conn, keep));
                keep
            }
        };
        if keep {
            self.rows.entry(conn).or_default().push(row);
        }
    }

    /// The kept rows in connection order, and how many connections were
    /// seen in all.
    pub(super) fn finish(self) -> Sampled {
        Sampled {
            seen: self.seen,
            rows: self.rows.into_values().flatten().collect(),
        }
    }
}

/// What the charts are drawn from.
pub(super) struct Sampled {
    /// Connections in the run.
    pub(super) seen: u64,
    /// The sampled connections' rows, in connection order.
    pub(super) rows: Vec<Row>,
}

impl Sampled {
    /// The sampled connections' indices, ascending.
    pub(super) fn conns(&self) -> Vec<u64> {
        let mut c: Vec<u64> = self.rows.iter().map(|r| r.conn).collect();
        c.dedup();
        c
    }

    /// Whether every connection of the run is in it.
    pub(super) fn is_whole(&self) -> bool {
        self.conns().len() as u64 == self.seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(conn: u64, arm: &str) -> Row {
        Row {
            conn,
            arm: arm.into(),
            pop: String::new(),
            bin: String::new(),
            size_bytes: 0,
            completed: true,
            ttlb_us: conn,
            packets_sent: 0,
            packets_lost: 0,
        }
    }

    #[test]
    fn the_sample_keeps_every_arm_of_the_same_connections_wherever_the_stream_starts() {
        let mut all = ChartSample::new(7, 50);
        for c in 0..1000 {
            all.push(row(c, "a"));
            all.push(row(c, "b"));
        }
        let all = all.finish();
        assert_eq!(all.seen, 1000);
        assert_eq!(all.rows.len(), 100);
        assert!(!all.is_whole());
        let conns = all.conns();
        assert_eq!(conns.len(), 50);
        // Both arms of each kept connection, in connection order.
        for (pair, c) in all.rows.chunks(2).zip(&conns) {
            assert_eq!((pair[0].conn, pair[1].conn), (*c, *c));
            assert_eq!((pair[0].arm.as_str(), pair[1].arm.as_str()), ("a", "b"));
        }
        // The kept set is the 50 smallest priorities: the same as a
        // direct sort, so it cannot depend on how the stream was cut.
        let mut want: Vec<(u64, u64)> = (0..1000).map(|c| (priority(7, c), c)).collect();
        want.sort();
        let mut want: Vec<u64> = want[..50].iter().map(|p| p.1).collect();
        want.sort();
        assert_eq!(conns, want);
        // Spread over the run, not its first connections.
        assert!(conns.iter().any(|&c| c >= 500) && conns.iter().any(|&c| c < 500));
        // A run at most the cap keeps everything.
        let mut few = ChartSample::new(7, 50);
        for c in 0..50 {
            few.push(row(c, "a"));
        }
        assert!(few.finish().is_whole());
    }
}
