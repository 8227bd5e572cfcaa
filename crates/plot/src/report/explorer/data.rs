//! What the explorer embeds: one row per path (a connection of a fleet run,
//! a seed of a comparison) with the path's attributes, and per arm the
//! values its metrics are computed from, as raw record values (the page
//! divides `ttlb-us` by 1000 itself, as [`Record::ttlb_ms`] does, so the
//! figures it shows are computed from the very same doubles).

use crate::record::Record;
use ramp_vocab::record_keys as k;
use std::collections::HashMap;

/// Categorical attributes of a path the explorer filters on, in the order
/// the filters are shown; `grid.*` keys follow (any the records have).
const DIM_KEYS: [(&str, &str); 7] = [
    (k::POP, "POP / region"),
    (k::ACCESS, "access"),
    ("policed", "policed"),
    ("size-bin", "size bin"),
    (k::PATH_AQM, "AQM"),
    ("web-users", "web users"),
    (k::SCENARIO, "scenario"),
];

/// Numeric attributes of a path the explorer filters by range.
const RANGE_KEYS: [(&str, &str, f64); 2] = [
    (k::PATH_RTT_MS, "base RTT (ms)", 1.0),
    (k::PATH_RATE_BPS, "rate (Mbit/s)", 1e6),
];

/// A categorical attribute: a dictionary and one code per path.
#[derive(Debug, Clone, PartialEq)]
pub struct Dim {
    /// Record key, e.g. `access`.
    pub key: String,
    /// Label of the filter.
    pub label: String,
    /// Distinct values, in display order (`natural_order`).
    pub values: Vec<String>,
    /// Per path: index into `values`, or `None` when the record lacks it.
    pub codes: Vec<Option<u32>>,
}

/// A numeric attribute filtered by range.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeDim {
    /// Record key, e.g. `path.rtt-ms`.
    pub key: String,
    /// Label of the filter (in display units).
    pub label: String,
    /// Record value ÷ `scale` = display value.
    pub scale: f64,
    /// Per path (NaN: absent).
    pub values: Vec<f64>,
}

/// One raw per-record value column, arm-major (`arm * paths + path`).
#[derive(Debug, Clone, PartialEq)]
pub struct ValueCol {
    /// Record key the values come from.
    pub key: String,
    /// Values (NaN: absent, or a time of a connection that did not complete).
    pub values: Vec<f64>,
}

/// Everything the explorer embeds of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExplorerData {
    /// Arm names in order of first appearance.
    pub arms: Vec<String>,
    /// The record key naming arms (`group`, else `cc.algorithm`).
    pub arm_key: String,
    /// What identifies a path across arms: `conn`, `seed`, or each arm's
    /// record order.
    pub path_key: String,
    /// Number of paths.
    pub paths: usize,
    /// Categorical filters.
    pub dims: Vec<Dim>,
    /// Range filters.
    pub ranges: Vec<RangeDim>,
    /// Raw value columns: `ttlb-us` (or `ttlb`, ms), `client-ttlb-us`,
    /// `page-load-us`, `num-packets.sent`, `num-packets.lost`; those the
    /// records have.
    pub values: Vec<ValueCol>,
}

/// Keys of the value columns; time keys are blanked for connections that
/// did not complete.
const VALUE_KEYS: [(&str, bool); 6] = [
    (k::TTLB_US, true),
    (k::TTLB_MS, true),
    (k::CLIENT_TTLB_US, true),
    (k::PAGE_LOAD_US, true),
    (k::PACKETS_SENT, false),
    (k::PACKETS_LOST, false),
];

/// A categorical attribute while records arrive.
#[derive(Debug, Clone, Default)]
struct DimBuilder {
    key: String,
    /// Value → code (order of first appearance).
    ids: HashMap<String, u32>,
    names: Vec<String>,
    /// Per path seen so far (shorter: later paths lack the key).
    codes: Vec<Option<u32>>,
}

/// Collects [`ExplorerData`] one record at a time.
#[derive(Debug, Clone, Default)]
pub struct ExplorerBuilder {
    arms: Vec<String>,
    arm_ids: HashMap<String, usize>,
    /// Per arm, records seen (the path ordinal when no key names paths).
    arm_counts: Vec<usize>,
    path_ids: HashMap<String, usize>,
    path_key: Option<&'static str>,
    dims: Vec<DimBuilder>,
    ranges: Vec<Vec<f64>>,
    /// Per value key, per arm, per path.
    values: Vec<Vec<Vec<f64>>>,
    seen_value: [bool; VALUE_KEYS.len()],
    paths: usize,
    all_grouped: bool,
    records: usize,
}

impl ExplorerBuilder {
    /// An empty collection.
    pub fn new() -> Self {
        ExplorerBuilder {
            all_grouped: true,
            ranges: vec![Vec::new(); RANGE_KEYS.len()],
            values: vec![Vec::new(); VALUE_KEYS.len()],
            ..ExplorerBuilder::default()
        }
    }

    /// Adds one record. Records without an arm name are left out.
    pub fn push(&mut self, r: &Record) {
        self.records += 1;
        let group = r.text(k::GROUP);
        self.all_grouped &= group.is_some();
        let Some(arm) = group.or_else(|| r.text(k::CC_ALGORITHM)) else {
            return;
        };
        let a = match self.arm_ids.get(&arm) {
            Some(&a) => a,
            None => {
                let a = self.arms.len();
                self.arm_ids.insert(arm.clone(), a);
                self.arms.push(arm);
                self.arm_counts.push(0);
                for v in &mut self.values {
                    v.push(Vec::new());
                }
                a
            }
        };
        let ordinal = self.arm_counts[a];
        self.arm_counts[a] += 1;
        // The path key is fixed by the first record: `conn` (fleet),
        // else `seed` with `flow`, else record order within the arm.
        let key_name = *self.path_key.get_or_insert(if r.get(k::CONN).is_some() {
            k::CONN
        } else if r.get(k::SEED).is_some() {
            k::SEED
        } else {
            "record order"
        });
        let id = match key_name {
            k::CONN => r.text(k::CONN),
            k::SEED => r
                .text(k::SEED)
                .map(|s| format!("{s}/{}", r.text(k::FLOW).unwrap_or_default())),
            _ => None,
        }
        .unwrap_or_else(|| format!("#{ordinal}"));
        let next = self.paths;
        let p = *self.path_ids.entry(id).or_insert(next);
        if p == self.paths {
            self.new_path(r);
        }
        let completed = r.get(k::COMPLETED).and_then(|v| v.as_bool()) != Some(false);
        for (i, (key, is_time)) in VALUE_KEYS.iter().enumerate() {
            let col = &mut self.values[i][a];
            if col.len() < self.paths {
                col.resize(self.paths, f64::NAN);
            }
            let v = r.f64(key).filter(|_| completed || !is_time);
            if let Some(v) = v {
                self.seen_value[i] = true;
                col[p] = v;
            }
        }
    }

    /// Takes a new path's attributes from its first record.
    fn new_path(&mut self, r: &Record) {
        self.paths += 1;
        let grid_keys = r
            .fields()
            .keys()
            .filter(|k| k.starts_with("grid."))
            .cloned();
        for key in DIM_KEYS.iter().map(|(k, _)| k.to_string()).chain(grid_keys) {
            let Some(v) = r.text(&key) else { continue };
            let d = match self.dims.iter().position(|d| d.key == key) {
                Some(d) => d,
                None => {
                    self.dims.push(DimBuilder {
                        key,
                        ..DimBuilder::default()
                    });
                    self.dims.len() - 1
                }
            };
            let dim = &mut self.dims[d];
            let next = dim.names.len() as u32;
            let c = *dim.ids.entry(v.clone()).or_insert(next);
            if c == next {
                dim.names.push(v);
            }
            dim.codes.resize(self.paths - 1, None);
            dim.codes.push(Some(c));
        }
        for (i, (key, _, _)) in RANGE_KEYS.iter().enumerate() {
            self.ranges[i].resize(self.paths - 1, f64::NAN);
            self.ranges[i].push(r.f64(key).unwrap_or(f64::NAN));
        }
    }

    /// The collected data.
    pub fn finish(self) -> ExplorerData {
        let paths = self.paths;
        let dims = self
            .dims
            .into_iter()
            .map(|b| {
                let DimBuilder {
                    key,
                    names,
                    mut codes,
                    ..
                } = b;
                codes.resize(paths, None);
                let order = natural_order(&names);
                // Re-code so that codes follow the display order.
                let mut rank = vec![0u32; names.len()];
                for (r, &i) in order.iter().enumerate() {
                    rank[i] = r as u32;
                }
                let label = DIM_KEYS
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or_else(|| key.clone(), |(_, l)| l.to_string());
                Dim {
                    label,
                    values: order.iter().map(|&i| names[i].clone()).collect(),
                    codes: codes
                        .into_iter()
                        .map(|c| c.map(|c| rank[c as usize]))
                        .collect(),
                    key,
                }
            })
            .collect();
        let ranges = RANGE_KEYS
            .iter()
            .zip(self.ranges)
            .filter(|(_, v)| v.iter().any(|x| x.is_finite()))
            .map(|((key, label, scale), mut values)| {
                values.resize(paths, f64::NAN);
                RangeDim {
                    key: key.to_string(),
                    label: label.to_string(),
                    scale: *scale,
                    values,
                }
            })
            .collect();
        // `ttlb` (ms) only where there is no `ttlb-us`.
        let has_us = self.seen_value[0];
        let values = VALUE_KEYS
            .iter()
            .zip(self.values)
            .zip(self.seen_value)
            .filter(|((&(key, _), _), seen)| *seen && !(key == k::TTLB_MS && has_us))
            .map(|((&(key, _), per_arm), _)| {
                let mut flat = Vec::with_capacity(per_arm.len() * paths);
                for mut col in per_arm {
                    col.resize(paths, f64::NAN);
                    flat.extend(col);
                }
                ValueCol {
                    key: key.to_string(),
                    values: flat,
                }
            })
            .collect();
        ExplorerData {
            arms: self.arms,
            arm_key: if self.all_grouped {
                k::GROUP
            } else {
                k::CC_ALGORITHM
            }
            .to_string(),
            path_key: self.path_key.unwrap_or("record order").to_string(),
            paths,
            dims,
            ranges,
            values,
        }
    }
}

impl ExplorerData {
    /// Collects the data of `records`.
    pub fn from_records<'a>(records: impl IntoIterator<Item = &'a Record>) -> ExplorerData {
        let mut b = ExplorerBuilder::new();
        for r in records {
            b.push(r);
        }
        b.finish()
    }

    /// Streams an NDJSON records file (errors name the file and line).
    pub fn read(path: &std::path::Path) -> crate::error::Result<ExplorerData> {
        let mut b = ExplorerBuilder::new();
        crate::record::for_each_record(path, |r| {
            b.push(&r);
            Ok(())
        })?;
        Ok(b.finish())
    }

    /// The value column of `key`, if the records have it.
    pub fn column(&self, key: &str) -> Option<&ValueCol> {
        self.values.iter().find(|c| c.key == key)
    }
}

/// Bytes in a size unit suffix (`KB`, `MB`, …; decimal, as the fleet's
/// size bins are named).
fn unit_factor(unit: &str) -> Option<f64> {
    Some(match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => return None,
    })
}

/// The leading number of `s` with its size unit applied, e.g.
/// `1.6MB-3.2MB` → 1.6e6, `20` → 20; `None` without a leading number or
/// with a unit that is not a size.
fn leading_value(s: &str) -> Option<f64> {
    let digits = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, rest) = s.split_at(digits);
    let unit: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    Some(num.parse::<f64>().ok()? * unit_factor(&unit)?)
}

/// Display order of a dimension's values: by leading number (with a size
/// unit) when every value has one, else by name. Returns indices.
pub(super) fn natural_order(values: &[String]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    let nums: Option<Vec<f64>> = values.iter().map(|v| leading_value(v)).collect();
    match nums {
        Some(n) => idx.sort_by(|&a, &b| n[a].total_cmp(&n[b]).then(values[a].cmp(&values[b]))),
        None => idx.sort_by(|&a, &b| values[a].cmp(&values[b])),
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn size_bins_sort_by_size_and_names_by_name() {
        let v: Vec<String> = ["800KB-1.6MB", "1.6MB-3.2MB", "200KB-400KB"]
            .map(String::from)
            .to_vec();
        let o: Vec<&str> = natural_order(&v).iter().map(|&i| v[i].as_str()).collect();
        assert_eq!(o, ["200KB-400KB", "800KB-1.6MB", "1.6MB-3.2MB"]);
        let v: Vec<String> = ["wifi", "mobile", "wired"].map(String::from).to_vec();
        let o: Vec<&str> = natural_order(&v).iter().map(|&i| v[i].as_str()).collect();
        assert_eq!(o, ["mobile", "wifi", "wired"]);
        let v: Vec<String> = ["20", "5", "100"].map(String::from).to_vec();
        let o: Vec<&str> = natural_order(&v).iter().map(|&i| v[i].as_str()).collect();
        assert_eq!(o, ["5", "20", "100"]);
    }

    #[test]
    fn paths_pair_by_conn_and_incomplete_times_are_blank() {
        let text = "\
{\"group\":\"a\",\"conn\":7,\"access\":\"mobile\",\"ttlb-us\":1000,\"num-packets.sent\":10,\"path.rtt-ms\":20}
{\"group\":\"b\",\"conn\":7,\"access\":\"mobile\",\"ttlb-us\":900,\"num-packets.sent\":11,\"path.rtt-ms\":20}
{\"group\":\"b\",\"conn\":3,\"access\":\"wired\",\"ttlb-us\":5,\"completed\":false,\"num-packets.sent\":4}
{\"group\":\"a\",\"conn\":3,\"access\":\"wired\",\"ttlb-us\":6,\"num-packets.sent\":4}
";
        let recs = parse_records(text, "r").unwrap();
        let d = ExplorerData::from_records(&recs);
        assert_eq!(d.arms, ["a", "b"]);
        assert_eq!((d.paths, d.path_key.as_str()), (2, "conn"));
        let acc = &d.dims[0];
        assert_eq!(acc.key, "access");
        assert_eq!(acc.values, ["mobile", "wired"]);
        assert_eq!(acc.codes, [Some(0), Some(1)]);
        let t = d.column("ttlb-us").unwrap();
        // a: conn 7, conn 3; b: conn 7, conn 3 (incomplete: blank).
        assert_eq!(t.values[..3], [1000.0, 6.0, 900.0]);
        assert!(t.values[3].is_nan());
        assert_eq!(
            d.column("num-packets.sent").unwrap().values,
            [10.0, 4.0, 11.0, 4.0]
        );
        assert!(d.column("ttlb").is_none());
        assert_eq!(d.ranges.len(), 1);
        assert!(d.ranges[0].values[1].is_nan());
    }
}
