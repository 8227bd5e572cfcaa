//! The records of a run as the report needs them: one fixed-size row per
//! record (64 bytes) with strings interned, instead of each record's JSON
//! map (several KB), so that `ramp report` on a 400 k-record fleet run
//! stays in tens of MB.
//!
//! Kept per record: its arm (`group` and `cc.algorithm`), `pop`, the pair
//! key `seed`, TTLB and whether it completed, the statistics of the arm
//! table, and its grid cell (`grid.*`, interned); per run, the distinct
//! paths (`path.*`). Anything else in the file is read and dropped.

use super::explorer::{ExplorerBuilder, ExplorerData};
use super::table::Stat;
use crate::ab::{AbSample, AbSamples};
use crate::error::Result;
use crate::grid::{GridAxis, GridSample, GridSamples};
use crate::record::Record;
use ramp_vocab::record_keys as k;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::path::Path;

/// No value (interned ids).
const NONE: u32 = u32::MAX;

/// Strings seen, each stored once.
#[derive(Debug, Clone, Default)]
struct Interner {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Interner {
    fn id(&mut self, s: Option<String>) -> u32 {
        let Some(s) = s else { return NONE };
        if let Some(&i) = self.ids.get(&s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.clone());
        self.ids.insert(s, i);
        i
    }

    fn get(&self, id: u32) -> Option<&str> {
        self.names.get(id as usize).map(String::as_str)
    }
}

/// Values (as bit patterns, so they hash) seen, each stored once.
#[derive(Debug, Clone, Default)]
struct Tuples<const N: usize> {
    values: Vec<[f64; N]>,
    ids: HashMap<[u64; N], u32>,
}

impl<const N: usize> Tuples<N> {
    fn id(&mut self, v: [f64; N]) -> u32 {
        let key = v.map(f64::to_bits);
        if let Some(&i) = self.ids.get(&key) {
            return i;
        }
        let i = self.values.len() as u32;
        self.values.push(v);
        self.ids.insert(key, i);
        i
    }
}

/// The pair key (`seed`): a number, or interned text with the top bit set.
const PAIR_TEXT: u64 = 1 << 63;
const PAIR_NONE: u64 = u64::MAX;

/// One record, compactly.
#[derive(Debug, Clone, Copy)]
struct Row {
    /// TTLB, ms (NaN: none).
    ttlb_ms: f64,
    /// `seed`, see [`PAIR_TEXT`].
    pair: u64,
    group: u32,
    cc: u32,
    pop: u32,
    /// Into `grids` (NONE: no `grid.cell`).
    grid: u32,
    /// The arm-table statistics in [`Stat::ALL`] order (NaN: absent).
    stats: [f32; Stat::COUNT],
    /// `completed` is not `false`.
    completed: bool,
}

// A row must stay small: it is what the report holds per record.
const _: () = assert!(std::mem::size_of::<Row>() <= 64);

/// The records of a run, compactly (module docs).
#[derive(Debug, Clone, Default)]
pub struct RunRecords {
    rows: Vec<Row>,
    strings: Interner,
    /// Rate bit/s, RTT ms, queue ms, loss fraction (NaN: absent).
    paths: Tuples<4>,
    /// Values on [`GridAxis::ALL`] (NaN: absent).
    grids: Tuples<5>,
    /// Every record has a `group`.
    all_grouped: bool,
    /// What the report's explorer embeds.
    explorer: ExplorerBuilder,
}

fn nan_if_none(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

fn some_if_finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl RunRecords {
    /// No records.
    pub fn new() -> Self {
        RunRecords {
            all_grouped: true,
            explorer: ExplorerBuilder::new(),
            ..RunRecords::default()
        }
    }

    /// Adds one record.
    pub fn push(&mut self, r: &Record) {
        if self.rows.is_empty() {
            self.all_grouped = true;
            self.explorer = ExplorerBuilder::new();
        }
        self.explorer.push(r);
        let group = self.strings.id(r.text(k::GROUP));
        self.all_grouped &= group != NONE;
        let cc = self.strings.id(r.text(k::CC_ALGORITHM));
        let pop = self.strings.id(r.text(k::POP));
        let pair = match r.get(k::SEED) {
            Some(v) if v.as_u64().is_some_and(|n| n < PAIR_TEXT) => v.as_u64().unwrap_or(0),
            Some(_) => match r.text(k::SEED) {
                Some(t) => PAIR_TEXT | u64::from(self.strings.id(Some(t))),
                None => PAIR_NONE,
            },
            None => PAIR_NONE,
        };
        let p = [
            k::PATH_RATE_BPS,
            k::PATH_RTT_MS,
            k::PATH_QUEUE_MS,
            k::PATH_LOSS,
        ]
        .map(|k| r.f64(k));
        if p.iter().any(Option::is_some) {
            self.paths.id(p.map(nan_if_none));
        }
        let grid = if r.get("grid.cell").is_some() {
            self.grids
                .id(GridAxis::ALL.map(|a| nan_if_none(a.value_of(r))))
        } else {
            NONE
        };
        self.rows.push(Row {
            ttlb_ms: nan_if_none(r.ttlb_ms()),
            pair,
            group,
            cc,
            pop,
            grid,
            stats: Stat::ALL.map(|s| r.f64(s.key()).map_or(f32::NAN, |v| v as f32)),
            completed: r.get(k::COMPLETED).and_then(|v| v.as_bool()) != Some(false),
        });
    }

    /// The compact form of records (a slice, or records made one at a
    /// time and dropped after).
    pub fn from_records(records: impl IntoIterator<Item = impl Borrow<Record>>) -> Self {
        let mut out = RunRecords::new();
        for r in records {
            out.push(r.borrow());
        }
        out
    }

    /// Streams an NDJSON records file (errors name the file and line).
    pub fn read(path: &Path) -> Result<Self> {
        let mut out = RunRecords::new();
        crate::record::for_each_record(path, |r| {
            out.push(&r);
            Ok(())
        })?;
        Ok(out)
    }

    /// What the report's explorer embeds of these records.
    pub fn explorer(&self) -> ExplorerData {
        self.explorer.clone().finish()
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Bytes held per record (rows only; the interned strings and paths
    /// come on top), for the benchmark notes.
    pub const ROW_BYTES: usize = std::mem::size_of::<Row>();

    /// The record key naming the arm: `group` when every record has one,
    /// else `cc.algorithm`.
    pub fn arm_key(&self) -> &'static str {
        if self.all_grouped || self.rows.is_empty() {
            k::GROUP
        } else {
            k::CC_ALGORITHM
        }
    }

    fn arm_id(&self, row: &Row) -> u32 {
        if self.arm_key() == k::GROUP {
            row.group
        } else {
            row.cc
        }
    }

    fn arm_of(&self, row: &Row) -> Option<&str> {
        self.strings.get(self.arm_id(row))
    }

    /// Arm names in order of first appearance.
    pub fn arms(&self) -> Vec<String> {
        let mut seen = Vec::new();
        let mut arms = Vec::new();
        for r in &self.rows {
            let id = self.arm_id(r);
            if id != NONE && !seen.contains(&id) {
                seen.push(id);
                arms.extend(self.strings.get(id).map(str::to_string));
            }
        }
        arms
    }

    /// Records of `arm`.
    pub fn count(&self, arm: &str) -> usize {
        self.rows
            .iter()
            .filter(|r| self.arm_of(r) == Some(arm))
            .count()
    }

    /// The distinct `pop` values.
    pub fn pops(&self) -> Vec<String> {
        let mut ids: Vec<u32> = self.rows.iter().map(|r| r.pop).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter()
            .filter_map(|i| self.strings.get(i).map(str::to_string))
            .collect()
    }

    /// The TTLBs (ms) and one statistic of `arm`'s records, as
    /// ([`Stat`] → values); TTLB first.
    pub(crate) fn arm_values(&self, arm: &str) -> (usize, Vec<f64>, Vec<Vec<f64>>) {
        let mut n = 0;
        let mut ttlb = Vec::new();
        let mut stats = vec![Vec::new(); Stat::COUNT];
        for r in self.rows.iter().filter(|r| self.arm_of(r) == Some(arm)) {
            n += 1;
            ttlb.extend(some_if_finite(r.ttlb_ms));
            for (col, v) in stats.iter_mut().zip(r.stats) {
                col.extend(some_if_finite(f64::from(v)));
            }
        }
        (n, ttlb, stats)
    }

    /// The distinct paths as (rate bit/s, RTT ms, queue ms, loss), each
    /// value `None` when the records lacked it.
    pub fn paths(&self) -> Vec<[Option<f64>; 4]> {
        self.paths
            .values
            .iter()
            .map(|p| p.map(some_if_finite))
            .collect()
    }

    /// The A/B samples: arm, TTLB, the `pop` facet when `by_pop` (else
    /// none), paired by `seed`.
    pub fn ab_samples(&self, by_pop: bool) -> AbSamples {
        let mut out = AbSamples::default();
        for (i, r) in self.rows.iter().enumerate() {
            let facet = if by_pop {
                self.strings.get(r.pop).map(|p| (0, p.to_string()))
            } else {
                Some((0, String::new()))
            };
            let (Some(arm), Some(ttlb_ms), Some(facet)) =
                (self.arm_of(r), some_if_finite(r.ttlb_ms), facet)
            else {
                out.skipped += 1;
                continue;
            };
            let pair = match r.pair {
                PAIR_NONE => None,
                p if p & PAIR_TEXT != 0 => self
                    .strings
                    .get((p & !PAIR_TEXT) as u32)
                    .map(str::to_string),
                p => Some(p.to_string()),
            };
            out.samples.push(AbSample {
                arm: arm.to_string(),
                ttlb_ms,
                facet,
                pair,
                line: i + 1,
            });
        }
        out
    }

    /// The grid samples of the records that carry `grid.cell`.
    pub fn grid_samples(&self) -> GridSamples {
        let mut out = GridSamples::default();
        for r in &self.rows {
            let (Some(arm), Some(coords)) =
                (self.arm_of(r), self.grids.values.get(r.grid as usize))
            else {
                out.skipped += 1;
                continue;
            };
            out.from_grid = true;
            let lost = f64::from(r.stats[Stat::Lost as usize]);
            out.samples.push(GridSample {
                arm: arm.to_string(),
                coords: coords.map(some_if_finite),
                ttlb_ms: some_if_finite(r.ttlb_ms).filter(|_| r.completed),
                packets_lost: some_if_finite(lost),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn rows_keep_what_the_report_reads() {
        let rs = parse_records(
            "{\"group\":\"a\",\"ttlb-us\":1500,\"seed\":7,\"pop\":\"ams\",\"num-packets.lost\":2,\
             \"path.rate-bps\":1e7,\"path.rtt-ms\":20,\"grid.cell\":0,\"grid.loss\":0.01,\"x\":[1,2]}\n\
             {\"group\":\"b\",\"ttlb\":3,\"seed\":\"s-1\",\"completed\":false,\"path.rate-bps\":1e7,\"path.rtt-ms\":20}\n\
             {\"group\":\"a\",\"seed\":7}\n",
            "t",
        )
        .unwrap();
        let run = RunRecords::from_records(&rs);
        assert_eq!(run.len(), 3);
        assert_eq!(run.arm_key(), "group");
        assert_eq!(run.arms(), ["a", "b"]);
        assert_eq!(run.count("a"), 2);
        assert_eq!(run.pops(), ["ams"]);
        assert_eq!(run.paths(), vec![[Some(1e7), Some(20.0), None, None]]);
        let ab = run.ab_samples(false);
        assert_eq!(ab.skipped, 1, "no TTLB");
        assert_eq!(ab.samples[0].ttlb_ms, 1.5);
        assert_eq!(ab.samples[0].pair.as_deref(), Some("7"));
        assert_eq!(ab.samples[1].pair.as_deref(), Some("s-1"));
        assert_eq!(run.ab_samples(true).skipped, 2, "b has no pop");
        let g = run.grid_samples();
        assert!(g.from_grid);
        assert_eq!(g.samples.len(), 1);
        assert_eq!(g.samples[0].coords[0], Some(0.01));
        assert_eq!(g.samples[0].packets_lost, Some(2.0));
        // Without a group on every record the arm is the algorithm.
        let rs = parse_records("{\"cc.algorithm\":\"cubic\"}\n{\"group\":\"x\"}\n", "t").unwrap();
        let run = RunRecords::from_records(&rs);
        assert_eq!(run.arm_key(), "cc.algorithm");
        assert_eq!(run.arms(), ["cubic"]);
    }
}
