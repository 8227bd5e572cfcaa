//! A series' statistics (its count, ordered sum and the order statistics
//! its percentiles read, built from its values in ascending order) and the
//! summary's tables made from them.

use std::collections::BTreeMap;

use super::super::bootstrap;
use super::super::summary::{
    whole_percentiles, HeadlineIntervals, LossRow, Slice, TtlbChange, DECILES, DELTA_PERCENTILES,
    LOSS_PERCENTILES,
};

/// Every percentile (0–100) a series is asked for.
pub(super) fn wanted_percentiles() -> Vec<f64> {
    let mut p: Vec<f64> = DECILES
        .iter()
        .chain(&DELTA_PERCENTILES)
        .chain(&LOSS_PERCENTILES)
        .copied()
        .chain(whole_percentiles())
        .chain([50.0])
        .collect();
    p.sort_by(f64::total_cmp);
    p.dedup();
    p
}

/// One series' count, sum in ascending order, and the order statistics
/// its percentiles read.
#[derive(Default)]
pub(super) struct SeriesStats {
    n: usize,
    sum: f64,
    at: BTreeMap<usize, f64>,
}

impl SeriesStats {
    pub(super) fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum / self.n as f64
        }
    }

    /// The p-th percentile (0–100), as
    /// [`super::summary::percentile`] of the sorted values.
    pub(super) fn percentile(&self, p: f64) -> f64 {
        ramp_vocab::quantile::quantile_with(self.n, p / 100.0, |i| {
            self.at.get(&i).copied().unwrap_or(f64::NAN)
        })
        .unwrap_or(f64::NAN)
    }
}

pub(super) struct SeriesBuilder {
    stats: SeriesStats,
    index: usize,
    /// The order statistics to keep, ascending; `keep[next]` is the next.
    keep: Vec<usize>,
    next: usize,
}

impl SeriesBuilder {
    pub(super) fn new(n: usize, percentiles: &[f64]) -> SeriesBuilder {
        let mut keep = Vec::new();
        for &p in percentiles {
            if let Some((lo, hi)) = ramp_vocab::quantile::quantile_indices(n, p / 100.0) {
                keep.push(lo);
                keep.extend(hi);
            }
        }
        keep.sort_unstable();
        keep.dedup();
        SeriesBuilder {
            stats: SeriesStats {
                n,
                sum: 0.0,
                at: BTreeMap::new(),
            },
            index: 0,
            keep,
            next: 0,
        }
    }

    pub(super) fn add(&mut self, v: f64) {
        // The mean sums the sorted values in order, as `mean` of a sorted
        // vector does.
        self.stats.sum += v;
        if self.keep.get(self.next) == Some(&self.index) {
            self.stats.at.insert(self.index, v);
            self.next += 1;
        }
        self.index += 1;
    }

    pub(super) fn finish(self) -> SeriesStats {
        self.stats
    }
}

pub(super) fn change(v: f64, base: f64) -> f64 {
    if base > 0.0 {
        100.0 * (v / base - 1.0)
    } else {
        f64::NAN
    }
}

pub(super) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// One slice's TTLB table: `n` paired connections, each arm's sorted
/// TTLB series and its packets lost summed over the same connections.
pub(super) fn ttlb_slice(
    label: &str,
    arms: &[String],
    n: usize,
    ttlb: &[&SeriesStats],
    lost: &[u64],
    se: &[[f64; 4]],
) -> Slice {
    let mut out = Vec::new();
    type Base = (f64, Vec<f64>, Vec<f64>, Vec<f64>, f64);
    let mut base: Option<Base> = None;
    for (k, arm) in arms.iter().enumerate() {
        let t = ttlb[k];
        let m = t.mean();
        let dec: Vec<f64> = DECILES.iter().map(|&p| t.percentile(p)).collect();
        let steps: Vec<f64> = DELTA_PERCENTILES.iter().map(|&p| t.percentile(p)).collect();
        let whole: Vec<f64> = whole_percentiles().map(|p| t.percentile(p)).collect();
        let median = t.percentile(50.0);
        let (bm, bd, bs, bw, bmed) = base
            .get_or_insert_with(|| (m, dec.clone(), steps.clone(), whole.clone(), median))
            .clone();
        let step_changes: Vec<f64> = steps.iter().zip(&bs).map(|(v, b)| change(*v, *b)).collect();
        let whole_changes: Vec<f64> = whole.iter().zip(&bw).map(|(v, b)| change(*v, *b)).collect();
        let (ten, whole_avg, mean_change, median_change) = (
            mean(&step_changes),
            mean(&whole_changes),
            change(m, bm),
            change(median, bmed),
        );
        let ci = if k == 0 || n < bootstrap::MIN_CONNECTIONS {
            HeadlineIntervals::NONE
        } else {
            let [a, b, c, d] = se.get(k).copied().unwrap_or([f64::NAN; 4]);
            HeadlineIntervals {
                pctl_change_avg: bootstrap::interval(ten, a),
                pctl_1_99_change_avg: bootstrap::interval(whole_avg, b),
                mean_change: bootstrap::interval(mean_change, c),
                median_change: bootstrap::interval(median_change, d),
            }
        };
        out.push(TtlbChange {
            arm: arm.clone(),
            mean_ms: m,
            mean_change_pct: mean_change,
            decile_change_pct: dec.iter().zip(&bd).map(|(v, b)| change(*v, *b)).collect(),
            deciles_ms: dec,
            pctl_change_avg_pct: ten,
            pctl_1_99_change_avg_pct: whole_avg,
            median_change_pct: median_change,
            // Packets lost are whole numbers: their sum is exact in f64,
            // so this is the mean of the values in any order.
            mean_lost_packets: if n == 0 {
                f64::NAN
            } else {
                lost[k] as f64 / n as f64
            },
            ci,
        });
    }
    Slice {
        label: label.to_string(),
        connections: n,
        arms: out,
    }
}

pub(super) fn loss_row(arm: &str, r: &SeriesStats) -> LossRow {
    LossRow {
        arm: arm.to_string(),
        connections: r.n,
        avg_pct: r.mean(),
        percentiles_pct: LOSS_PERCENTILES.iter().map(|&p| r.percentile(p)).collect(),
    }
}

/// Orders `seen` labels: those in `order` first, in its order, then the
/// rest sorted.
pub(super) fn ordered(order: &[String], seen: &BTreeMap<String, ()>) -> Vec<String> {
    let mut out: Vec<String> = order
        .iter()
        .filter(|o| seen.contains_key(*o))
        .cloned()
        .collect();
    out.extend(seen.keys().filter(|k| !order.contains(k)).cloned());
    out
}
