//! The fleet summary computed from a stream of rows in connection order,
//! in memory that does not grow with the number of connections: each
//! connection's arms are held until the next connection starts, and each
//! value a table needs (a paired TTLB, a loss ratio) goes into one
//! external sort (sorted runs spilled to disk) keyed by its series (table,
//! slice, arm). At the end the sorted stream gives every series in ascending order, from which the
//! summary keeps only its count, its sum in ascending order (the mean, as
//! the sum of the sorted values) and the order statistics its percentiles
//! read ([`ramp_vocab::quantile::quantile_indices`]). The figures are the
//! ones the values in memory would give, bit for bit.
//!
//! The same pass gives each paired TTLB series' bootstrap replicates
//! ([`super::bootstrap`]): a sort entry carries its connection, whose
//! Poisson counts are drawn again from its index, so the intervals cost
//! no per-connection memory either.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::PathBuf;
use std::rc::Rc;

mod tables;

use super::bootstrap::cache::CountCache;
use super::bootstrap::pipe::{Batch, CountPipe};
use super::bootstrap::{self, BootPlan, Counts, Poisson1, ReplicateStats, SeriesBoot, REPLICATES};
use super::spill::ExternalSort;
use super::summary::{LossRow, Row, Slice, Summary};
use tables::{
    change, loss_row, mean, ordered, ttlb_slice, wanted_percentiles, SeriesBuilder, SeriesStats,
};

/// Entries held in memory before a sorted run is spilled (16 bytes each):
/// 16 MiB, about 160 000 connections of four arms.
pub const DEFAULT_SPILL_ENTRIES: usize = 1 << 20;

/// Why a summary could not be made.
#[derive(Debug)]
pub enum SummaryError {
    /// Rows must come in connection order (all of a connection's arms
    /// together); this row's connection came after a later one.
    OutOfOrder {
        /// The row's connection.
        conn: u64,
        /// The connection before it.
        after: u64,
    },
    /// More distinct regions, bins or arms than a series key holds.
    TooManyLabels,
    /// A connection index above 2^32 − 1 (a sort entry holds 32 bits of it).
    ConnectionIndex(u64),
    /// Writing or reading the spill files failed.
    Spill(io::Error),
}

impl std::fmt::Display for SummaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SummaryError::OutOfOrder { conn, after } => write!(
                f,
                "records are not in connection order: connection {conn} after {after}"
            ),
            SummaryError::TooManyLabels => {
                write!(f, "more than 2^32 regions or bins, or 2^16 arms")
            }
            SummaryError::ConnectionIndex(c) => {
                write!(f, "connection index {c} is above the summary's 2^32 - 1")
            }
            SummaryError::Spill(e) => write!(f, "summary spill file: {e}"),
        }
    }
}

impl std::error::Error for SummaryError {}

impl From<io::Error> for SummaryError {
    fn from(e: io::Error) -> Self {
        SummaryError::Spill(e)
    }
}

/// The tables a value goes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Table {
    /// Paired TTLB (ms), all connections.
    TtlbAll = 0,
    /// Paired TTLB, one region.
    TtlbPop = 1,
    /// Paired TTLB, one size bin.
    TtlbBin = 2,
    /// Loss ratio (percent), all connections.
    LossAll = 3,
    /// Loss ratio, one region.
    LossPop = 4,
}

/// A series: table, label id (region or bin; 0 for the global tables),
/// arm. A sort entry holds it as a dense 32-bit id ([`Summarizer::add`]).
fn series(table: Table, label: u32, arm: u16) -> u64 {
    (table as u64) << 48 | u64::from(label) << 16 | u64::from(arm)
}

/// Whether series `s` is a paired TTLB series (the bootstrapped ones).
fn is_ttlb(s: u64) -> bool {
    s >> 48 <= Table::TtlbBin as u64
}

/// The series of `s`'s slice with arm 0 (the slot all its arms share).
fn slot_key(s: u64) -> u64 {
    s & !0xFFFF
}

/// A non-negative finite f64 as a key that sorts as `f64::total_cmp`
/// does (the standard sign-flip mapping, exact both ways).
fn order_key(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

fn from_order_key(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

/// Per arm of the connection being read: TTLB in ms (if completed),
/// packets lost, packets sent.
type ArmSlot = Option<(Option<f64>, u64, u64)>;

/// The connection whose rows are being read.
struct Current {
    conn: u64,
    pop: u32,
    bin: u32,
    arms: Vec<ArmSlot>,
}

/// Label ids in order of first sight.
#[derive(Default)]
struct Labels {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Labels {
    fn id(&mut self, name: &str) -> Result<u32, SummaryError> {
        if let Some(&i) = self.ids.get(name) {
            return Ok(i);
        }
        let i = u32::try_from(self.names.len()).map_err(|_| SummaryError::TooManyLabels)?;
        self.ids.insert(name.to_string(), i);
        self.names.push(name.to_string());
        Ok(i)
    }
}

/// The fleet summary, fed rows in connection order ([`Summarizer::push`]),
/// finished with [`Summarizer::finish`]; the result equals
/// [`super::summary::summarize`] of the same rows.
pub struct Summarizer {
    arms: Vec<String>,
    current: Option<Current>,
    last_conn: Option<u64>,
    pops: Labels,
    bins: Labels,
    connections: usize,
    /// Paired connections per TTLB slice (`series` with arm 0).
    paired: HashMap<u64, usize>,
    /// Sum of packets lost per TTLB series (paired connections): exact
    /// integers, so the mean is the one a sum of the values gives.
    lost: HashMap<u64, u64>,
    /// Values per series.
    counts: HashMap<u64, usize>,
    sort: ExternalSort,
    /// Dense slot id of each slice key ([`slot_key`]) in a sort entry,
    /// and back: entry series = slot × arms + arm, so a slice's arms sort
    /// together, baseline first.
    slot_ids: HashMap<u64, u32>,
    slots: Vec<u64>,
    poisson: Poisson1,
    /// Per paired TTLB slice: each replicate's sum of Poisson counts.
    boot_totals: HashMap<u64, Vec<u64>>,
    /// Bootstrap standard errors per TTLB series (arms after the first).
    boot_se: HashMap<u64, [f64; 4]>,
    /// Threads the pass at the end may use ([`Summarizer::with_threads`]).
    threads: usize,
}

impl Summarizer {
    /// A summary of `arms` (baseline first) that spills sorted runs of
    /// `spill_entries` values to `spill_dir` (removed at the end); with no
    /// directory every value stays in memory.
    pub fn new(arms: &[String], spill_dir: Option<PathBuf>, spill_entries: usize) -> Summarizer {
        Summarizer {
            arms: arms.to_vec(),
            current: None,
            last_conn: None,
            pops: Labels::default(),
            bins: Labels::default(),
            connections: 0,
            paired: HashMap::new(),
            lost: HashMap::new(),
            counts: HashMap::new(),
            sort: ExternalSort::new(spill_dir, spill_entries),
            slot_ids: HashMap::new(),
            slots: Vec::new(),
            poisson: Poisson1::new(),
            boot_totals: HashMap::new(),
            boot_se: HashMap::new(),
            threads: 1,
        }
    }

    /// Lets the pass at the end ([`Summarizer::finish`]) use `threads`
    /// threads (default 1): it draws the bootstrap's counts on the others
    /// while it reads the sorted values. The summary is the same bytes at
    /// any number.
    pub fn with_threads(mut self, threads: usize) -> Summarizer {
        self.threads = threads.max(1);
        self
    }

    /// Sorted runs spilled so far.
    pub fn spilled_runs(&self) -> usize {
        self.sort.runs()
    }

    /// Adds one row. Rows of a connection must be together, connections in
    /// ascending order; a row of an arm not summarised is ignored, and a
    /// second row of the same connection and arm replaces the first.
    pub fn push(&mut self, r: &Row) -> Result<(), SummaryError> {
        if self.arms.len() > usize::from(u16::MAX) {
            return Err(SummaryError::TooManyLabels);
        }
        let Some(k) = self.arms.iter().position(|a| *a == r.arm) else {
            return Ok(());
        };
        if self.current.as_ref().is_some_and(|c| c.conn != r.conn) {
            self.flush()?;
        }
        if let Some(last) = self.last_conn {
            if r.conn <= last && self.current.is_none() {
                return Err(SummaryError::OutOfOrder {
                    conn: r.conn,
                    after: last,
                });
            }
        }
        if self.current.is_none() {
            self.current = Some(Current {
                conn: r.conn,
                pop: self.pops.id(&r.pop)?,
                bin: self.bins.id(&r.bin)?,
                arms: vec![None; self.arms.len()],
            });
        }
        let ttlb = r.completed.then_some(r.ttlb_us as f64 / 1000.0);
        if let Some(c) = &mut self.current {
            c.arms[k] = Some((ttlb, r.packets_lost, r.packets_sent));
        }
        Ok(())
    }

    /// Adds connection `conn`'s value `v` to series `s`. The sort entry:
    /// dense series id (32 bits), the value's order key (64), the
    /// connection (32), so values sort by series, value, connection.
    fn add(&mut self, s: u64, v: f64, conn: u32) -> Result<(), SummaryError> {
        *self.counts.entry(s).or_default() += 1;
        let slot = slot_key(s);
        let id = match self.slot_ids.get(&slot) {
            Some(&id) => id,
            None => {
                let id =
                    u32::try_from(self.slots.len()).map_err(|_| SummaryError::TooManyLabels)?;
                self.slot_ids.insert(slot, id);
                self.slots.push(slot);
                id
            }
        };
        let dense = u64::from(id) * self.arms.len() as u64 + (s & 0xFFFF);
        let dense = u32::try_from(dense).map_err(|_| SummaryError::TooManyLabels)?;
        self.sort
            .push(u128::from(dense) << 96 | u128::from(order_key(v)) << 32 | u128::from(conn))?;
        Ok(())
    }

    /// The series a sort entry's dense id stands for.
    fn series_of(&self, dense: u32) -> u64 {
        let n = self.arms.len().max(1) as u64;
        let d = u64::from(dense);
        let slot = self
            .slots
            .get((d / n) as usize)
            .copied()
            .unwrap_or(u64::MAX);
        slot | (d % n)
    }

    /// Ends the current connection: its values go into their series.
    fn flush(&mut self) -> Result<(), SummaryError> {
        let Some(c) = self.current.take() else {
            return Ok(());
        };
        self.last_conn = Some(c.conn);
        self.connections += 1;
        let conn = u32::try_from(c.conn).map_err(|_| SummaryError::ConnectionIndex(c.conn))?;
        let paired = c.arms.iter().all(|a| matches!(a, Some((Some(_), _, _))));
        let ttlb_slices = [
            (Table::TtlbAll, 0),
            (Table::TtlbPop, c.pop),
            (Table::TtlbBin, c.bin),
        ];
        if paired {
            let mut counts: Counts = [0; REPLICATES];
            self.poisson.counts(c.conn, &mut counts);
            for (t, l) in ttlb_slices {
                *self.paired.entry(series(t, l, 0)).or_default() += 1;
                let totals = self
                    .boot_totals
                    .entry(series(t, l, 0))
                    .or_insert_with(|| vec![0; REPLICATES]);
                for (s, &k) in totals.iter_mut().zip(&counts) {
                    *s += u64::from(k);
                }
            }
        }
        for (k, a) in c.arms.iter().enumerate() {
            let arm = k as u16;
            let Some((ttlb, lost, sent)) = *a else {
                continue;
            };
            if let (true, Some(t_ms)) = (paired, ttlb) {
                for (t, l) in ttlb_slices {
                    let s = series(t, l, arm);
                    *self.lost.entry(s).or_default() += lost;
                    self.add(s, t_ms, conn)?;
                }
            }
            if sent > 0 {
                let ratio = 100.0 * lost as f64 / sent as f64;
                self.add(series(Table::LossAll, 0, arm), ratio, conn)?;
                self.add(series(Table::LossPop, c.pop, arm), ratio, conn)?;
            }
        }
        Ok(())
    }

    /// The summary. `pops` and `bins` give the report order of regions and
    /// bins (others follow, sorted).
    pub fn finish(mut self, pops: &[String], bins: &[String]) -> Result<Summary, SummaryError> {
        self.flush()?;
        let stats = self.series_stats()?;
        self.sort.cleanup();
        let empty = SeriesStats::default();
        let get = |s: u64| stats.get(&s).unwrap_or(&empty);
        let arms = &self.arms;
        let slice = |label: &str, table: Table, id: u32| -> Slice {
            let n = self.paired.get(&series(table, id, 0)).copied().unwrap_or(0);
            let ttlb: Vec<&SeriesStats> = (0..arms.len())
                .map(|k| get(series(table, id, k as u16)))
                .collect();
            let lost: Vec<u64> = (0..arms.len())
                .map(|k| {
                    self.lost
                        .get(&series(table, id, k as u16))
                        .copied()
                        .unwrap_or(0)
                })
                .collect();
            let se: Vec<[f64; 4]> = (0..arms.len())
                .map(|k| {
                    self.boot_se
                        .get(&series(table, id, k as u16))
                        .copied()
                        .unwrap_or([f64::NAN; 4])
                })
                .collect();
            ttlb_slice(label, arms, n, &ttlb, &lost, &se)
        };
        let loss = |table: Table, id: u32| -> Vec<LossRow> {
            arms.iter()
                .enumerate()
                .map(|(k, arm)| loss_row(arm, get(series(table, id, k as u16))))
                .collect()
        };
        let seen = |l: &Labels| -> BTreeMap<String, ()> {
            l.names.iter().map(|n| (n.clone(), ())).collect()
        };
        let pop_order = ordered(pops, &seen(&self.pops));
        let bin_order = ordered(bins, &seen(&self.bins));
        let pop_id = |p: &String| self.pops.ids[p];
        let bin_id = |b: &String| self.bins.ids[b];
        let global = slice("all", Table::TtlbAll, 0);
        Ok(Summary {
            metric: "TTLB",
            arms: arms.clone(),
            connections: self.connections,
            excluded: self.connections - global.connections,
            by_pop: pop_order
                .iter()
                .map(|p| slice(p, Table::TtlbPop, pop_id(p)))
                .collect(),
            by_bin: bin_order
                .iter()
                .map(|b| slice(b, Table::TtlbBin, bin_id(b)))
                .collect(),
            loss: loss(Table::LossAll, 0),
            loss_by_pop: pop_order
                .iter()
                .map(|p| (p.clone(), loss(Table::LossPop, pop_id(p))))
                .collect(),
            global,
        })
    }

    /// Every series' statistics, and the bootstrap standard errors of the
    /// TTLB series ([`Summarizer::boot_se`]), from one pass over the sorted
    /// values. The bootstrap's counts are drawn on `threads − 1` helpers
    /// ([`CountPipe`]).
    fn series_stats(&mut self) -> io::Result<HashMap<u64, SeriesStats>> {
        let wanted = wanted_percentiles();
        let mut out: HashMap<u64, SeriesStats> = HashMap::new();
        let mut cur: Option<(u64, SeriesBuilder, Option<SeriesBoot>)> = None;
        let mut boot = BootPass::default();
        let mut plan: Option<(u64, Rc<BootPlan>)> = None;
        let series: Vec<u64> = (0..self.slots.len() * self.arms.len())
            .map(|d| self.series_of(d as u32))
            .collect();
        let (counts, totals, poisson) = (&self.counts, &self.boot_totals, &self.poisson);
        let (sort, helpers) = (&mut self.sort, self.threads.saturating_sub(1));
        std::thread::scope(|scope| {
            let mut pipe = CountPipe::new(scope, poisson, helpers);
            let mut batch = pipe.batch();
            // With no helper to hand the draws to, each value's counts
            // come from a bounded cache (a connection's values in its
            // twelve series then draw once, up to the cache's size).
            let mut cache = (helpers == 0).then(CountCache::new);
            sort.for_each_sorted(|e| {
                let s = series.get((e >> 96) as usize).copied().unwrap_or(u64::MAX);
                let v = from_order_key((e >> 32) as u64);
                if cur.as_ref().is_none_or(|c| c.0 != s) {
                    if let Some((ps, b, mut sb)) = cur.take() {
                        if let Some(sb) = &mut sb {
                            drain(&mut pipe, &mut batch, sb)?;
                        }
                        out.insert(ps, b.finish());
                        boot.end(ps, sb);
                    }
                    let n = counts.get(&s).copied().unwrap_or(0);
                    let slot = slot_key(s);
                    let sb = match totals.get(&slot) {
                        Some(t) if is_ttlb(s) => {
                            // A slice's arms follow each other and share
                            // their totals: one plan for all of them.
                            if plan.as_ref().is_none_or(|p| p.0 != slot) {
                                plan = Some((slot, Rc::new(BootPlan::new(t))));
                            }
                            plan.as_ref().map(|p| SeriesBoot::new(Rc::clone(&p.1)))
                        }
                        _ => None,
                    };
                    cur = Some((s, SeriesBuilder::new(n, &wanted), sb));
                }
                if let Some((_, b, sb)) = &mut cur {
                    b.add(v);
                    if let (Some(sb), Some(cache)) = (&mut *sb, &mut cache) {
                        // Fed at once, not from a batch of 100 kB.
                        sb.add(v, cache.counts(poisson, e as u32));
                    } else if let Some(sb) = sb {
                        batch.values.push((v, e as u32));
                        if batch.is_full() {
                            let full = std::mem::replace(&mut batch, pipe.batch());
                            if let Some(done) = pipe.send(full)? {
                                feed(&mut pipe, done, sb);
                            }
                        }
                    }
                }
                Ok(())
            })?;
            if let Some((ps, b, mut sb)) = cur.take() {
                if let Some(sb) = &mut sb {
                    drain(&mut pipe, &mut batch, sb)?;
                }
                out.insert(ps, b.finish());
                boot.end(ps, sb);
            }
            Ok::<(), io::Error>(())
        })?;
        self.boot_se = boot.se;
        Ok(out)
    }
}

/// Feeds a drawn batch's values to their series, in order.
fn feed(pipe: &mut CountPipe, done: Batch, sb: &mut SeriesBoot) {
    for ((v, _), c) in done.values.iter().zip(&done.counts) {
        sb.add(*v, c);
    }
    pipe.recycle(done);
}

/// Hands over the series' last batch and feeds every batch still in
/// flight: the series' values are then all in.
fn drain(pipe: &mut CountPipe, batch: &mut Batch, sb: &mut SeriesBoot) -> io::Result<()> {
    if !batch.values.is_empty() {
        let last = std::mem::replace(batch, pipe.batch());
        if let Some(done) = pipe.send(last)? {
            feed(pipe, done, sb);
        }
    }
    while let Some(done) = pipe.recv()? {
        feed(pipe, done, sb);
    }
    Ok(())
}

/// The bootstrap's state across series in sort order: a slice's baseline
/// series comes first, and its replicates are kept until the slice's
/// other arms have been compared with them.
#[derive(Default)]
struct BootPass {
    base: Option<(u64, Vec<ReplicateStats>)>,
    se: HashMap<u64, [f64; 4]>,
}

impl BootPass {
    fn end(&mut self, s: u64, sb: Option<SeriesBoot>) {
        let Some(sb) = sb else {
            return;
        };
        let reps = sb.finish();
        if s & 0xFFFF == 0 {
            self.base = Some((slot_key(s), reps));
        } else if let Some((slot, base)) = &self.base {
            if *slot == slot_key(s) {
                self.se
                    .insert(s, bootstrap::standard_errors(&reps, base, change, mean));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_keys_sort_as_total_cmp_and_round_trip() {
        let mut v = [0.0, 1e-300, 0.5, 1.0, 2.5, 1e300, f64::MIN_POSITIVE, 3.0];
        let mut keys: Vec<u64> = v.iter().map(|&x| order_key(x)).collect();
        keys.sort_unstable();
        v.sort_by(f64::total_cmp);
        let back: Vec<f64> = keys.into_iter().map(from_order_key).collect();
        assert_eq!(back, v);
    }
}
