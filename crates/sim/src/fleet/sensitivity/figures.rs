//! What one point's run reports: its headline figures by name.

use std::collections::BTreeMap;

use crate::fleet::summary::{Slice, Summary, TtlbChange, LOSS_PERCENTILES};

/// A reading of a published "average TTLB reduction": the sources do not
/// say which statistic it is, so a prediction is held to each plausible
/// one (docs/experiments.md, "Which statistic the published figures are").
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Reading {
    /// The average of the ten-point percentile curve (p5, p15, … p95: the
    /// talk's query), the summary's `pctl_change_avg_pct`.
    #[serde(rename = "ten-point")]
    TenPoint,
    /// The average of the curve at p1 … p99 (`pctl_1_99_change_avg_pct`).
    #[serde(rename = "p1-99")]
    P1To99,
    /// The change of the mean TTLB (`mean_change_pct`).
    #[serde(rename = "mean")]
    Mean,
    /// The change of the median TTLB (`median_change_pct`).
    #[serde(rename = "median")]
    Median,
}

impl Reading {
    /// Every reading, in the summary's column order.
    pub const ALL: [Reading; 4] = [
        Reading::TenPoint,
        Reading::P1To99,
        Reading::Mean,
        Reading::Median,
    ];

    /// The reading's key in `sensitivity.json` and file names
    /// (`tornado-KEY.png`): its serde name.
    pub fn key(self) -> &'static str {
        match self {
            Reading::TenPoint => "ten-point",
            Reading::P1To99 => "p1-99",
            Reading::Mean => "mean",
            Reading::Median => "median",
        }
    }

    /// The reading's name in reports.
    pub fn label(self) -> &'static str {
        match self {
            Reading::TenPoint => "ten-point average",
            Reading::P1To99 => "p1–p99 average",
            Reading::Mean => "change of the mean",
            Reading::Median => "change of the median",
        }
    }
}

/// One slice's TTLB change against the baseline under every [`Reading`],
/// %. NaN where a study's points file predates the field.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Readings {
    /// [`Reading::TenPoint`].
    pub ten_point_pct: f64,
    /// [`Reading::P1To99`].
    pub p1_99_pct: f64,
    /// [`Reading::Mean`].
    pub mean_pct: f64,
    /// [`Reading::Median`].
    pub median_pct: f64,
}

impl Readings {
    /// Every reading NaN: a points file written before readings existed.
    pub fn missing() -> Readings {
        Readings {
            ten_point_pct: f64::NAN,
            p1_99_pct: f64::NAN,
            mean_pct: f64::NAN,
            median_pct: f64::NAN,
        }
    }

    /// An arm's change under every reading.
    pub fn of(a: &TtlbChange) -> Readings {
        Readings {
            ten_point_pct: a.pctl_change_avg_pct,
            p1_99_pct: a.pctl_1_99_change_avg_pct,
            mean_pct: a.mean_change_pct,
            median_pct: a.median_change_pct,
        }
    }

    /// The change under `r`, %.
    pub fn get(&self, r: Reading) -> f64 {
        match r {
            Reading::TenPoint => self.ten_point_pct,
            Reading::P1To99 => self.p1_99_pct,
            Reading::Mean => self.mean_pct,
            Reading::Median => self.median_pct,
        }
    }
}

/// The headline figures of one point's run, for the headline arm (the
/// last) against the baseline (the first): TTLB change as the summary's
/// headline averages it (`pctl_change_avg_pct`) and as the change of the
/// mean, globally, per region and per size bin; every arm's average
/// loss ratio, the baseline's loss percentiles and the loss order's
/// margin; and the global, per-region and per-bin change under every
/// [`Reading`] (fields added after the others, so that a points file
/// keeps its earlier keys in their places; a file written before them
/// reads them as missing).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Figures {
    /// The headline arm.
    pub arm: String,
    /// Global TTLB change, percentile average, %.
    pub global_pct: f64,
    /// Global TTLB change of the mean, %.
    pub global_mean_pct: f64,
    /// Per region: percentile-average change, %.
    pub pop_pct: BTreeMap<String, f64>,
    /// Per size bin: percentile-average change, %.
    pub bin_pct: BTreeMap<String, f64>,
    /// Per arm: average loss ratio, %.
    pub loss_avg_pct: BTreeMap<String, f64>,
    /// The baseline arm's per-connection loss ratio at
    /// [`LOSS_PERCENTILES`] (P50, P90, P99), %.
    pub baseline_loss_pctl_pct: Vec<f64>,
    /// The loss order's margin, points: the smallest rise of the average
    /// loss ratio from one arm to the next in the plan's arm order
    /// (positive: every arm loses more than the one before it). For
    /// `rapid-start-2026` that is the published order baseline <
    /// jumpstart < rapid-no-jump < rapidstart.
    pub loss_order_margin_pct: f64,
    /// Global TTLB change under every reading.
    #[serde(default = "Readings::missing")]
    pub global_readings: Readings,
    /// Per region: TTLB change under every reading.
    #[serde(default)]
    pub pop_readings: BTreeMap<String, Readings>,
    /// Per size bin: TTLB change under every reading.
    #[serde(default)]
    pub bin_readings: BTreeMap<String, Readings>,
}

impl Figures {
    /// The figures of a summary (None when it has no non-baseline arm).
    pub fn of(s: &Summary) -> Option<Figures> {
        let arm = s.arms.last()?.clone();
        if s.arms.len() < 2 {
            return None;
        }
        let change = |slice: &Slice| slice.arms.iter().find(|a| a.arm == arm).map(Readings::of);
        let of = |slice: &Slice| change(slice).map(|r| (r.ten_point_pct, r.mean_pct));
        let (global_pct, global_mean_pct) = of(&s.global)?;
        let readings = |slices: &[Slice]| {
            slices
                .iter()
                .filter_map(|sl| Some((sl.label.clone(), change(sl)?)))
                .collect()
        };
        Some(Figures {
            global_readings: change(&s.global)?,
            pop_readings: readings(&s.by_pop),
            bin_readings: readings(&s.by_bin),
            global_pct,
            global_mean_pct,
            pop_pct: s
                .by_pop
                .iter()
                .filter_map(|sl| Some((sl.label.clone(), of(sl)?.0)))
                .collect(),
            bin_pct: s
                .by_bin
                .iter()
                .filter_map(|sl| Some((sl.label.clone(), of(sl)?.0)))
                .collect(),
            loss_avg_pct: s.loss.iter().map(|l| (l.arm.clone(), l.avg_pct)).collect(),
            baseline_loss_pctl_pct: s
                .loss
                .first()
                .map_or_else(Vec::new, |l| l.percentiles_pct.clone()),
            loss_order_margin_pct: loss_order_margin(s.loss.iter().map(|l| l.avg_pct)),
            arm,
        })
    }

    /// Every figure by name (`global`, `global-mean`, `pop:NAME`,
    /// `bin:LABEL`, `loss:ARM`, `baseline-loss-p50`, `-p90`, `-p99`,
    /// `loss-order-margin`), in that order.
    pub fn named(&self) -> Vec<(String, f64)> {
        let mut v = vec![
            ("global".to_string(), self.global_pct),
            ("global-mean".to_string(), self.global_mean_pct),
        ];
        v.extend(self.pop_pct.iter().map(|(k, x)| (format!("pop:{k}"), *x)));
        v.extend(self.bin_pct.iter().map(|(k, x)| (format!("bin:{k}"), *x)));
        v.extend(
            self.loss_avg_pct
                .iter()
                .map(|(k, x)| (format!("loss:{k}"), *x)),
        );
        v.extend(
            LOSS_PERCENTILES
                .iter()
                .zip(&self.baseline_loss_pctl_pct)
                .map(|(p, x)| (format!("baseline-loss-p{p:.0}"), *x)),
        );
        v.push(("loss-order-margin".to_string(), self.loss_order_margin_pct));
        v
    }
}

/// The smallest difference between consecutive values (NaN with fewer
/// than two): the loss order's margin over the arms' average loss in arm
/// order.
fn loss_order_margin(avg: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = avg.collect();
    v.windows(2)
        .map(|w| w[1] - w[0])
        .reduce(f64::min)
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_readings_key_is_its_serde_name() {
        for r in Reading::ALL {
            assert_eq!(
                serde_json::to_string(&r).unwrap(),
                format!("\"{}\"", r.key())
            );
        }
    }

    #[test]
    fn the_loss_order_margin_is_the_smallest_step_in_arm_order() {
        // The published averages: 1.52 < 1.61 < 1.92 < 1.98.
        let m = loss_order_margin([1.52, 1.61, 1.92, 1.98].into_iter());
        assert!((m - 0.06).abs() < 1e-9, "{m}");
        // Round five's model: jumpstart 2.32 above rapid-no-jump 2.31.
        let m = loss_order_margin([1.93, 2.32, 2.31, 2.6].into_iter());
        assert!((m + 0.01).abs() < 1e-9, "{m}");
        assert!(loss_order_margin([1.0].into_iter()).is_nan());
    }
}
