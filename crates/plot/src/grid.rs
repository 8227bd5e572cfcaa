//! Grid analysis: TTLB and packets lost against one axis of a grid of
//! paths (loss rate, bottleneck rate, base RTT, queue, object size), one
//! series per arm, as in the lab matrix of the CUBIC/HyStart++ talk
//! (download time per loss rate for Reno, CUBIC and
//! CUBIC+HyStart++).
//!
//! A record's place on an axis is its `grid.*` key (docs/formats.md,
//! written by `ramp fleet` for grid populations), else the matching
//! `path.*` key (or `content_length` for size), so hand-made sweeps of
//! `ramp sim` chart too. Per arm and axis value:
//!
//! - TTLB: median, p10 and p90 (linear interpolation, [`ramp_vocab::quantile`])
//!   over the completed connections (`completed` not `false`, a TTLB
//!   present). The p10–p90 band is the spread over seeds (and over the
//!   other axes, if they vary), not a confidence interval.
//! - Packets lost: the mean of `num-packets.lost` per connection, over
//!   every connection of the arm at that value (completed or not).
//!
//! Axes other than the charted one are pooled; [`GridResult::pooled`]
//! says which, so a chart can say so.

use crate::error::{Error, Result};
use crate::record::Record;
use crate::units::{format_bytes, format_number, format_rate};
use ramp_vocab::quantile::{quantile_sorted, sorted_finite};
use ramp_vocab::record_keys as k;
use std::borrow::Borrow;
use std::collections::BTreeMap;

/// An axis of a path grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GridAxis {
    /// Random loss probability (`grid.loss`, a fraction; shown in %).
    Loss,
    /// Bottleneck rate (`grid.rate-bps`; shown in Mbit/s).
    Rate,
    /// Base RTT (`grid.rtt-ms`).
    Rtt,
    /// Bottleneck queue, time at the link rate (`grid.queue-ms`).
    Queue,
    /// Object size (`grid.size-bytes`).
    Size,
}

/// Most distinct values an axis may take to be charted as a grid axis:
/// more means the records are a sampled population, not a grid.
pub const MAX_AXIS_VALUES: usize = 64;

impl GridAxis {
    /// Every axis, in the order charts and tables list them.
    pub const ALL: [GridAxis; 5] = [
        GridAxis::Loss,
        GridAxis::Rate,
        GridAxis::Rtt,
        GridAxis::Queue,
        GridAxis::Size,
    ];

    /// The axis' name on the command line (`--axis loss`) and in file names.
    pub fn name(self) -> &'static str {
        match self {
            GridAxis::Loss => "loss",
            GridAxis::Rate => "rate",
            GridAxis::Rtt => "rtt",
            GridAxis::Queue => "queue",
            GridAxis::Size => "size",
        }
    }

    /// Parses [`GridAxis::name`].
    pub fn parse(s: &str) -> Result<GridAxis> {
        GridAxis::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                Error::Data(format!(
                    "unknown grid axis `{s}` (one of: loss, rate, rtt, queue, size)"
                ))
            })
    }

    /// The record keys holding the axis value, preferred first.
    pub fn keys(self) -> [&'static str; 2] {
        match self {
            GridAxis::Loss => ["grid.loss", k::PATH_LOSS],
            GridAxis::Rate => ["grid.rate-bps", k::PATH_RATE_BPS],
            GridAxis::Rtt => ["grid.rtt-ms", k::PATH_RTT_MS],
            GridAxis::Queue => ["grid.queue-ms", k::PATH_QUEUE_MS],
            GridAxis::Size => ["grid.size-bytes", k::CONTENT_LENGTH],
        }
    }

    /// The axis value of `r` in record units (fraction, bit/s, ms, ms, bytes).
    pub fn value_of(self, r: &Record) -> Option<f64> {
        self.keys()
            .iter()
            .find_map(|k| r.f64(k))
            .filter(|v| v.is_finite())
    }

    /// A record-unit value in the unit the chart's x axis shows
    /// (loss in %, rate in Mbit/s, others unchanged).
    pub fn to_display(self, v: f64) -> f64 {
        match self {
            GridAxis::Loss => v * 100.0,
            GridAxis::Rate => v / 1e6,
            _ => v,
        }
    }

    /// The x-axis description, with its unit (size labels carry their own).
    pub fn describe(self) -> &'static str {
        match self {
            GridAxis::Loss => "random loss (%)",
            GridAxis::Rate => "bottleneck rate (Mbit/s)",
            GridAxis::Rtt => "base RTT (ms)",
            GridAxis::Queue => "bottleneck queue (ms at the link rate)",
            GridAxis::Size => "object size",
        }
    }

    /// A record-unit value as text with its unit, for a table whose
    /// column names the axis: `2%`, `100 Mbit/s`, `40 ms`, `10 MB`.
    pub fn format(self, v: f64) -> String {
        match self {
            GridAxis::Loss => format!("{}%", format_number(v * 100.0)),
            GridAxis::Rate => format_rate(v),
            GridAxis::Rtt | GridAxis::Queue => format!("{} ms", format_number(v)),
            GridAxis::Size => format_bytes(v),
        }
    }

    /// A value as a phrase that names the axis: `2% loss`, `100 Mbit/s`,
    /// `40 ms RTT`, `40 ms queue`, `10 MB object`.
    pub fn format_labelled(self, v: f64) -> String {
        let plain = self.format(v);
        match self {
            GridAxis::Loss => format!("{plain} loss"),
            GridAxis::Rate => plain,
            GridAxis::Rtt => format!("{plain} RTT"),
            GridAxis::Queue => format!("{plain} queue"),
            GridAxis::Size => format!("{plain} object"),
        }
    }
}

/// The fields of one record the grid analysis uses.
#[derive(Debug, Clone, PartialEq)]
pub struct GridSample {
    /// Arm name.
    pub arm: String,
    /// Value on each axis of [`GridAxis::ALL`], record units.
    pub coords: [Option<f64>; 5],
    /// TTLB in ms, if the connection completed.
    pub ttlb_ms: Option<f64>,
    /// Packets declared lost (`num-packets.lost`).
    pub packets_lost: Option<f64>,
}

/// The grid samples of a record set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GridSamples {
    /// Samples in input order.
    pub samples: Vec<GridSample>,
    /// Records without the arm key.
    pub skipped: usize,
    /// Whether any record carries `grid.cell` (it comes from a grid
    /// population, so its axes are grid axes, not sampled paths).
    pub from_grid: bool,
}

impl GridSamples {
    fn push(&mut self, r: &Record, arm_key: &str) {
        let Some(arm) = r.text(arm_key) else {
            self.skipped += 1;
            return;
        };
        self.from_grid |= r.get("grid.cell").is_some();
        let completed = r.get(k::COMPLETED).and_then(|v| v.as_bool()) != Some(false);
        self.samples.push(GridSample {
            arm,
            coords: GridAxis::ALL.map(|a| a.value_of(r)),
            ttlb_ms: r.ttlb_ms().filter(|_| completed),
            packets_lost: r.f64(k::PACKETS_LOST),
        });
    }

    /// Extracts samples from records (a slice, or records made one at a
    /// time and dropped after); the arm is `arm_key`.
    pub fn from_records(
        records: impl IntoIterator<Item = impl Borrow<Record>>,
        arm_key: &str,
    ) -> GridSamples {
        let mut out = GridSamples::default();
        for r in records {
            out.push(r.borrow(), arm_key);
        }
        out
    }

    /// Streams an NDJSON records file, keeping only the samples.
    pub fn read(path: &std::path::Path, arm_key: &str) -> Result<GridSamples> {
        let mut out = GridSamples::default();
        crate::record::for_each_record(path, |r| {
            out.push(&r, arm_key);
            Ok(())
        })?;
        Ok(out)
    }

    /// The distinct values of `axis`, ascending.
    pub fn values(&self, axis: GridAxis) -> Vec<f64> {
        let i = axis_index(axis);
        let mut v = sorted_finite(self.samples.iter().filter_map(|s| s.coords[i]));
        v.dedup();
        v
    }

    /// The axes with more than one value (and at most
    /// [`MAX_AXIS_VALUES`]), in [`GridAxis::ALL`] order.
    pub fn varying_axes(&self) -> Vec<GridAxis> {
        GridAxis::ALL
            .into_iter()
            .filter(|&a| (2..=MAX_AXIS_VALUES).contains(&self.values(a).len()))
            .collect()
    }

    /// Arm names in order of first appearance.
    pub fn arms(&self) -> Vec<String> {
        let mut arms: Vec<String> = Vec::new();
        for s in &self.samples {
            if !arms.contains(&s.arm) {
                arms.push(s.arm.clone());
            }
        }
        arms
    }
}

fn axis_index(axis: GridAxis) -> usize {
    GridAxis::ALL.iter().position(|&a| a == axis).unwrap_or(0)
}

/// One arm at one axis value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridPoint {
    /// Axis value, record units.
    pub x: f64,
    /// Connections (records) of the arm at this value.
    pub connections: usize,
    /// Of which completed (the TTLB sample size).
    pub completed: usize,
    /// TTLB p10, ms (NaN when none completed).
    pub ttlb_p10_ms: f64,
    /// TTLB median, ms.
    pub ttlb_median_ms: f64,
    /// TTLB p90, ms.
    pub ttlb_p90_ms: f64,
    /// Mean packets lost per connection (NaN when no record has the key).
    pub lost_mean: f64,
}

/// One arm's points, ascending in x.
#[derive(Debug, Clone, PartialEq)]
pub struct GridSeries {
    /// Arm name.
    pub arm: String,
    /// One point per axis value the arm has records at.
    pub points: Vec<GridPoint>,
}

/// TTLB and packets lost against one axis, per arm.
#[derive(Debug, Clone, PartialEq)]
pub struct GridResult {
    /// The charted axis.
    pub axis: GridAxis,
    /// The axis values, ascending, record units.
    pub values: Vec<f64>,
    /// One series per arm, arms in the order given (or of first appearance).
    pub series: Vec<GridSeries>,
    /// Other axes that vary, with their number of values: pooled.
    pub pooled: Vec<(GridAxis, usize)>,
    /// Other axes that do not vary, with their one value: the scenario.
    pub fixed: Vec<(GridAxis, f64)>,
    /// Records without the arm key or a value on the axis.
    pub skipped: usize,
}

impl GridResult {
    /// The fixed axes as text, path first: e.g. `100 Mbit/s, 40 ms RTT,
    /// 1% loss, 10 MB object`.
    pub fn describe_fixed(&self) -> String {
        const ORDER: [GridAxis; 5] = [
            GridAxis::Rate,
            GridAxis::Rtt,
            GridAxis::Queue,
            GridAxis::Loss,
            GridAxis::Size,
        ];
        ORDER
            .iter()
            .filter_map(|a| self.fixed.iter().find(|f| f.0 == *a))
            .map(|&(a, v)| a.format_labelled(v))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The pooled axes as text, e.g. `rtt (3 values), size (2 values)`.
    pub fn describe_pooled(&self) -> String {
        self.pooled
            .iter()
            .map(|&(a, n)| format!("{} ({n} values)", a.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// TTLB (median, p10, p90) and mean packets lost per arm and value of
/// `axis`. `arms` fixes the series order (arms without samples are left
/// out); empty means order of first appearance.
pub fn grid_curves(samples: &GridSamples, axis: GridAxis, arms: &[String]) -> Result<GridResult> {
    let i = axis_index(axis);
    let values = samples.values(axis);
    if values.is_empty() {
        return Err(Error::Data(format!(
            "grid chart: no record has {} or {}",
            axis.keys()[0],
            axis.keys()[1]
        )));
    }
    if values.len() > MAX_AXIS_VALUES {
        return Err(Error::Data(format!(
            "grid chart: {} takes {} distinct values (at most {MAX_AXIS_VALUES}); \
             these records look like a sampled population, not a grid",
            axis.name(),
            values.len()
        )));
    }
    let order = if arms.is_empty() {
        samples.arms()
    } else {
        arms.to_vec()
    };
    // (arm, value index) → (ttlb values, lost values, connections).
    type Cells = BTreeMap<(usize, usize), (Vec<f64>, Vec<f64>, usize)>;
    let mut cells: Cells = BTreeMap::new();
    let mut skipped = samples.skipped;
    for s in &samples.samples {
        let (Some(a), Some(x)) = (order.iter().position(|a| *a == s.arm), s.coords[i]) else {
            skipped += 1;
            continue;
        };
        let Some(vi) = values.iter().position(|&v| v == x) else {
            skipped += 1;
            continue;
        };
        let c = cells.entry((a, vi)).or_default();
        c.2 += 1;
        c.0.extend(s.ttlb_ms);
        c.1.extend(s.packets_lost);
    }
    let mut series = Vec::new();
    for (a, arm) in order.iter().enumerate() {
        let points: Vec<GridPoint> = values
            .iter()
            .enumerate()
            .filter_map(|(vi, &x)| {
                let (ttlb, lost, n) = cells.get(&(a, vi))?;
                let ttlb = sorted_finite(ttlb.iter().copied());
                let q = |p: f64| quantile_sorted(&ttlb, p).unwrap_or(f64::NAN);
                Some(GridPoint {
                    x,
                    connections: *n,
                    completed: ttlb.len(),
                    ttlb_p10_ms: q(0.1),
                    ttlb_median_ms: q(0.5),
                    ttlb_p90_ms: q(0.9),
                    lost_mean: if lost.is_empty() {
                        f64::NAN
                    } else {
                        lost.iter().sum::<f64>() / lost.len() as f64
                    },
                })
            })
            .collect();
        if !points.is_empty() {
            series.push(GridSeries {
                arm: arm.clone(),
                points,
            });
        }
    }
    if series.is_empty() {
        return Err(Error::Data("grid chart: no arm has records".to_string()));
    }
    let mut pooled = Vec::new();
    let mut fixed = Vec::new();
    for other in GridAxis::ALL.into_iter().filter(|&o| o != axis) {
        let v = samples.values(other);
        match v.len() {
            0 => {}
            1 => fixed.push((other, v[0])),
            n => pooled.push((other, n)),
        }
    }
    Ok(GridResult {
        axis,
        values,
        series,
        pooled,
        fixed,
        skipped,
    })
}

/// The result as a Markdown table: one row per axis value, per arm the
/// TTLB median (ms) and the mean packets lost.
pub fn grid_table_markdown(r: &GridResult) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = write!(s, "| {} |", r.axis.name());
    let mut rule = String::from("|---:|");
    for se in &r.series {
        let _ = write!(s, " {} TTLB p50 | {} lost |", se.arm, se.arm);
        rule.push_str("---:|---:|");
    }
    let _ = writeln!(s, "\n{rule}");
    for &x in &r.values {
        let _ = write!(s, "| {} |", r.axis.format(x));
        for se in &r.series {
            match se.points.iter().find(|p| p.x == x) {
                Some(p) => {
                    let _ = write!(
                        s,
                        " {} | {} |",
                        fmt_ms(p.ttlb_median_ms),
                        fmt_count(p.lost_mean)
                    );
                }
                None => s.push_str(" - | - |"),
            }
        }
        s.push('\n');
    }
    s
}

fn fmt_ms(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.0} ms")
    } else {
        "-".to_string()
    }
}

fn fmt_count(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.1}")
    } else {
        "-".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    fn rec(arm: &str, loss: f64, rtt: f64, ttlb_us: u64, lost: u64, completed: bool) -> String {
        format!(
            "{{\"group\":\"{arm}\",\"grid.cell\":0,\"grid.loss\":{loss},\"grid.rtt-ms\":{rtt},\
             \"grid.rate-bps\":100000000,\"ttlb-us\":{ttlb_us},\"num-packets.lost\":{lost},\
             \"completed\":{completed}}}"
        )
    }

    #[test]
    fn median_band_and_mean_lost_per_axis_value_by_hand() {
        // reno at loss 0.01: TTLB 100, 200, 300, 400 ms (and one incomplete
        // at 9 s that must not count in TTLB but counts in lost).
        //   median: h = 3·0.5 = 1.5 → 200 + 0.5·100 = 250
        //   p10:    h = 0.3 → 100 + 0.3·100 = 130
        //   p90:    h = 2.7 → 300 + 0.7·100 = 370
        //   lost mean over 5 connections: (1+2+3+4+10)/5 = 4
        // reno at loss 0.02: one connection, 500 ms, 7 lost → all quantiles 500.
        // cubic at loss 0.01: 50, 150 ms → median 100, p10 60, p90 140; lost (0+1)/2.
        // The rtt axis varies (20 / 40 ms) and is pooled.
        let lines = [
            rec("reno", 0.01, 20.0, 100_000, 1, true),
            rec("reno", 0.01, 40.0, 400_000, 4, true),
            rec("reno", 0.01, 20.0, 300_000, 3, true),
            rec("reno", 0.01, 40.0, 200_000, 2, true),
            rec("reno", 0.01, 40.0, 9_000_000, 10, false),
            rec("reno", 0.02, 20.0, 500_000, 7, true),
            rec("cubic", 0.01, 20.0, 150_000, 1, true),
            rec("cubic", 0.01, 40.0, 50_000, 0, true),
        ];
        let rs = parse_records(&lines.join("\n"), "t").unwrap();
        let s = GridSamples::from_records(&rs, "group");
        assert!(s.from_grid);
        assert_eq!(s.varying_axes(), vec![GridAxis::Loss, GridAxis::Rtt]);
        let r = grid_curves(&s, GridAxis::Loss, &[]).unwrap();
        assert_eq!(r.values, vec![0.01, 0.02]);
        assert_eq!(r.pooled, vec![(GridAxis::Rtt, 2)]);
        assert_eq!(r.fixed, vec![(GridAxis::Rate, 1e8)]);
        assert_eq!(r.describe_fixed(), "100 Mbit/s");
        let names: Vec<_> = r.series.iter().map(|s| s.arm.as_str()).collect();
        assert_eq!(names, ["reno", "cubic"]);
        let reno = &r.series[0].points;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert_eq!((reno[0].connections, reno[0].completed), (5, 4));
        assert!(close(reno[0].ttlb_median_ms, 250.0), "{:?}", reno[0]);
        assert!(close(reno[0].ttlb_p10_ms, 130.0), "{:?}", reno[0]);
        assert!(close(reno[0].ttlb_p90_ms, 370.0), "{:?}", reno[0]);
        assert!(close(reno[0].lost_mean, 4.0));
        assert!(close(reno[1].ttlb_median_ms, 500.0) && close(reno[1].ttlb_p10_ms, 500.0));
        assert!(close(reno[1].lost_mean, 7.0));
        let cubic = &r.series[1].points;
        assert_eq!(cubic.len(), 1, "cubic has no records at 2%");
        assert!(close(cubic[0].ttlb_median_ms, 100.0));
        assert!(close(cubic[0].ttlb_p10_ms, 60.0));
        assert!(close(cubic[0].ttlb_p90_ms, 140.0));
        assert!(close(cubic[0].lost_mean, 0.5));
        // Explicit arm order wins.
        let r = grid_curves(&s, GridAxis::Loss, &["cubic".into(), "reno".into()]).unwrap();
        assert_eq!(r.series[0].arm, "cubic");
        // The other axis, pooling loss.
        let r = grid_curves(&s, GridAxis::Rtt, &[]).unwrap();
        assert_eq!(r.values, vec![20.0, 40.0]);
        // reno at 20 ms: 100, 300, 500 → median 300.
        assert!(close(r.series[0].points[0].ttlb_median_ms, 300.0));
        let md = grid_table_markdown(&grid_curves(&s, GridAxis::Loss, &[]).unwrap());
        assert!(md.contains("| 1% | 250 ms | 4.0 | 100 ms | 0.5 |"), "{md}");
        assert!(md.contains("| 2% | 500 ms | 7.0 | - | - |"), "{md}");
    }

    #[test]
    fn path_keys_stand_in_for_grid_keys_and_populations_are_refused() {
        let mut lines = Vec::new();
        for i in 0..100 {
            lines.push(format!(
                "{{\"group\":\"a\",\"path.rate-bps\":{},\"path.loss\":0.01,\"ttlb\":5}}",
                1_000_000 + i
            ));
        }
        let rs = parse_records(&lines.join("\n"), "t").unwrap();
        let s = GridSamples::from_records(&rs, "group");
        assert!(!s.from_grid);
        assert!(s.varying_axes().is_empty(), "100 rates: not a grid axis");
        let e = grid_curves(&s, GridAxis::Rate, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("sampled population"), "{e}");
        let r = grid_curves(&s, GridAxis::Loss, &[]).unwrap();
        assert_eq!(r.values, vec![0.01]);
        let e = grid_curves(&s, GridAxis::Queue, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("grid.queue-ms"), "{e}");
        assert!(GridAxis::parse("jitter").is_err());
        assert_eq!(GridAxis::parse("rtt").unwrap(), GridAxis::Rtt);
    }
}
