//! Sensitivity of a fleet prediction to its declared assumptions
//! (docs/sensitivity.md): which runs to make ([`design`]), what each run
//! reports ([`Figures`]), and what the runs together say ([`analyze`]).
//!
//! The design is the base point, then one-at-a-time (OAT) points with one
//! parameter at the low and then the high end of its range and the others
//! at their values, then a Latin-hypercube sample (LHS) of the ranges:
//! each parameter's range cut into N equal strata, one point per stratum,
//! the strata of different parameters paired by seeded permutations and a
//! uniform draw within each stratum (McKay, Beckman and Conover,
//! Technometrics 21(2), 1979). Every point runs the same connections (the
//! same run seed), so points differ only by the parameters.
//!
//! The analysis reads the LHS points only: each figure's 90 % interval is
//! the 5th to 95th percentile of its values over the sample (type 7), and
//! the share of the headline's variance each parameter explains is its
//! squared standardized regression coefficient (SRC: the linear least
//! squares coefficient scaled by the parameter's and the figure's standard
//! deviations; Saltelli et al., "Global Sensitivity Analysis: The Primer",
//! 2008, §1.2.5), with the fit's R² saying how much a linear model explains
//! at all. The OAT points give the tornado chart.

use std::collections::BTreeMap;

use ramp_vocab::rng::Rng;

use super::assumptions::{Assumption, Param};
use super::summary::{percentile, Summary, LOSS_PERCENTILES};
use super::FleetPlan;

/// What a design point is.
#[derive(Clone, Debug, PartialEq)]
pub enum PointKind {
    /// Every parameter at its value.
    Base,
    /// One parameter at the low end of its range.
    Low(Param),
    /// One parameter at the high end of its range.
    High(Param),
    /// Latin-hypercube sample `i` (0-based).
    Lhs(u32),
}

impl PointKind {
    /// The label in `points.ndjson` and reports: `base`, `low:KEY`,
    /// `high:KEY`, `lhs:I`.
    pub fn label(&self) -> String {
        match self {
            PointKind::Base => "base".into(),
            PointKind::Low(p) => format!("low:{}", p.key()),
            PointKind::High(p) => format!("high:{}", p.key()),
            PointKind::Lhs(i) => format!("lhs:{i}"),
        }
    }
}

/// One run of the study: a kind and every declared parameter's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Base, OAT or LHS.
    pub kind: PointKind,
    /// The value of each declared parameter, in declaration order.
    pub values: Vec<(Param, f64)>,
}

impl Point {
    /// `plan` with this point's parameter values set.
    pub fn apply(&self, plan: &FleetPlan) -> FleetPlan {
        let mut p = plan.clone();
        for &(param, v) in &self.values {
            param.set(&mut p.population, v);
        }
        p
    }
}

/// The stream of the LHS draws (any fixed number apart from the fleet's
/// path streams).
const LHS_STREAM: u64 = 0x1A7E_4C0B_E5A3_0001;

/// The study's points: base, then low and high for each assumption, then
/// `lhs` Latin-hypercube points drawn from `seed`.
pub fn design(assumptions: &[Assumption], lhs: u32, seed: u64) -> Vec<Point> {
    let base: Vec<(Param, f64)> = assumptions.iter().map(|a| (a.param, a.value)).collect();
    let mut out = vec![Point {
        kind: PointKind::Base,
        values: base.clone(),
    }];
    for (j, a) in assumptions.iter().enumerate() {
        for (kind, v) in [
            (PointKind::Low(a.param), a.range.0),
            (PointKind::High(a.param), a.range.1),
        ] {
            let mut values = base.clone();
            values[j].1 = v;
            out.push(Point { kind, values });
        }
    }
    let n = lhs as usize;
    if n == 0 {
        return out;
    }
    let mut rng = Rng::from_u64(seed ^ LHS_STREAM);
    // Column j: a permutation of the strata and a draw inside each.
    let columns: Vec<Vec<f64>> = assumptions
        .iter()
        .map(|a| {
            let mut strata: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                let k = (rng.next_f64() * (i + 1) as f64) as usize;
                strata.swap(i, k.min(i));
            }
            let (lo, hi) = a.range;
            strata
                .into_iter()
                .map(|s| lo + (hi - lo) * (s as f64 + rng.next_f64()) / n as f64)
                .collect()
        })
        .collect();
    for i in 0..n {
        out.push(Point {
            kind: PointKind::Lhs(i as u32),
            values: assumptions
                .iter()
                .zip(&columns)
                .map(|(a, c)| (a.param, c[i]))
                .collect(),
        });
    }
    out
}

/// The headline figures of one point's run, for the headline arm (the
/// last) against the baseline (the first): TTLB change as the summary's
/// headline averages it (`pctl_change_avg_pct`) and as the change of the
/// mean, globally, per region and per size bin; every arm's average
/// loss ratio, the baseline's loss percentiles and the loss order's
/// margin.
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
}

impl Figures {
    /// The figures of a summary (None when it has no non-baseline arm).
    pub fn of(s: &Summary) -> Option<Figures> {
        let arm = s.arms.last()?.clone();
        if s.arms.len() < 2 {
            return None;
        }
        let of = |slice: &super::summary::Slice| {
            slice
                .arms
                .iter()
                .find(|a| a.arm == arm)
                .map(|a| (a.pctl_change_avg_pct, a.mean_change_pct))
        };
        let (global_pct, global_mean_pct) = of(&s.global)?;
        Some(Figures {
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

/// One figure's spread over the LHS sample.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Interval {
    /// Figure name ([`Figures::named`]).
    pub figure: String,
    /// At the base point.
    pub base: f64,
    /// 5th percentile over the LHS points.
    pub lo: f64,
    /// 95th percentile over the LHS points.
    pub hi: f64,
}

/// One parameter's OAT effect on the global headline gain.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Swing {
    /// Parameter key.
    pub key: String,
    /// Range low and high.
    pub range: (f64, f64),
    /// Global gain (percentile average, %) with the parameter at low and
    /// at high.
    pub at_low: f64,
    /// See `at_low`.
    pub at_high: f64,
}

/// One parameter's share of the headline's variance (LHS, SRC²).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Share {
    /// Parameter key.
    pub key: String,
    /// Standardized regression coefficient.
    pub src: f64,
    /// Its square: the share of variance it explains in the linear model.
    pub src2: f64,
}

/// What the study found.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Analysis {
    /// The base point's global gain, %.
    pub base_global_pct: f64,
    /// The OAT swings, largest span first (the tornado's order).
    pub swings: Vec<Swing>,
    /// The 90 % interval of every figure over the LHS sample.
    pub intervals: Vec<Interval>,
    /// Variance shares of the global gain, largest first.
    pub shares: Vec<Share>,
    /// R² of the linear fit behind the SRCs (NaN with too few points).
    pub r2: f64,
    /// LHS points analysed.
    pub lhs_points: usize,
    /// LHS points whose loss order holds (`loss_order_margin_pct` > 0).
    pub loss_order_held: usize,
}

/// Analyses a study's points and their figures (same order as
/// [`design`] made them).
pub fn analyze(points: &[Point], figures: &[Figures]) -> Analysis {
    let pairs: Vec<(&Point, &Figures)> = points.iter().zip(figures).collect();
    let base = pairs
        .iter()
        .find(|(p, _)| p.kind == PointKind::Base)
        .map(|(_, f)| *f);
    let base_global_pct = base.map(|f| f.global_pct).unwrap_or(f64::NAN);
    let mut swings: Vec<Swing> = Vec::new();
    if let Some((first, _)) = pairs.first() {
        for &(param, _) in &first.values {
            let find = |k: PointKind| {
                pairs
                    .iter()
                    .find(|(p, _)| p.kind == k)
                    .map(|(p, f)| (p.values.iter().find(|v| v.0 == param).map(|v| v.1), f))
            };
            if let (Some((Some(lo), fl)), Some((Some(hi), fh))) =
                (find(PointKind::Low(param)), find(PointKind::High(param)))
            {
                swings.push(Swing {
                    key: param.key().to_string(),
                    range: (lo, hi),
                    at_low: fl.global_pct,
                    at_high: fh.global_pct,
                });
            }
        }
    }
    swings.sort_by(|a, b| {
        let span = |s: &Swing| (s.at_high - s.at_low).abs();
        span(b).total_cmp(&span(a))
    });
    let lhs: Vec<(&Point, &Figures)> = pairs
        .iter()
        .copied()
        .filter(|(p, _)| matches!(p.kind, PointKind::Lhs(_)))
        .collect();
    let mut intervals = Vec::new();
    if let Some(b) = base {
        for (name, base_v) in b.named() {
            let mut v: Vec<f64> = lhs
                .iter()
                .filter_map(|(_, f)| f.named().into_iter().find(|x| x.0 == name).map(|x| x.1))
                .filter(|x| x.is_finite())
                .collect();
            v.sort_by(f64::total_cmp);
            intervals.push(Interval {
                figure: name,
                base: base_v,
                lo: percentile(&v, 5.0),
                hi: percentile(&v, 95.0),
            });
        }
    }
    let x: Vec<Vec<f64>> = lhs
        .iter()
        .map(|(p, _)| p.values.iter().map(|v| v.1).collect())
        .collect();
    let y: Vec<f64> = lhs.iter().map(|(_, f)| f.global_pct).collect();
    let (src, r2) = standardized_regression(&x, &y);
    let keys: Vec<String> = lhs
        .first()
        .map(|(p, _)| p.values.iter().map(|v| v.0.key().to_string()).collect())
        .unwrap_or_default();
    let mut shares: Vec<Share> = keys
        .into_iter()
        .zip(src)
        .map(|(key, src)| Share {
            key,
            src,
            src2: src * src,
        })
        .collect();
    shares.sort_by(|a, b| b.src2.total_cmp(&a.src2));
    Analysis {
        base_global_pct,
        swings,
        intervals,
        shares,
        r2,
        lhs_points: lhs.len(),
        loss_order_held: lhs
            .iter()
            .filter(|(_, f)| f.loss_order_margin_pct > 0.0)
            .count(),
    }
}

/// Standardized regression coefficients of `y` on the columns of `x`
/// (rows are points) and the fit's R². NaNs when there are not more
/// points than coefficients or the system is singular.
pub fn standardized_regression(x: &[Vec<f64>], y: &[f64]) -> (Vec<f64>, f64) {
    let n = y.len();
    let k = x.first().map_or(0, Vec::len);
    let nan = (vec![f64::NAN; k], f64::NAN);
    if n <= k + 1 || x.iter().any(|r| r.len() != k) {
        return nan;
    }
    let mean = |v: &dyn Fn(usize) -> f64| (0..n).map(v).sum::<f64>() / n as f64;
    let my = mean(&|i| y[i]);
    let mx: Vec<f64> = (0..k).map(|j| mean(&|i| x[i][j])).collect();
    let sd = |v: &dyn Fn(usize) -> f64, m: f64| {
        ((0..n).map(|i| (v(i) - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    };
    let sy = sd(&|i| y[i], my);
    let sx: Vec<f64> = (0..k).map(|j| sd(&|i| x[i][j], mx[j])).collect();
    if sy == 0.0 || sx.contains(&0.0) {
        return nan;
    }
    // Normal equations on centred data: (Xc' Xc) b = Xc' yc.
    let mut a = vec![vec![0.0; k + 1]; k];
    for (r, row) in a.iter_mut().enumerate() {
        for c in 0..k {
            row[c] = (0..n).map(|i| (x[i][r] - mx[r]) * (x[i][c] - mx[c])).sum();
        }
        row[k] = (0..n).map(|i| (x[i][r] - mx[r]) * (y[i] - my)).sum();
    }
    let Some(b) = solve(a) else {
        return nan;
    };
    let ss_tot: f64 = y.iter().map(|v| (v - my).powi(2)).sum();
    let ss_res: f64 = (0..n)
        .map(|i| {
            let fit = my + (0..k).map(|j| b[j] * (x[i][j] - mx[j])).sum::<f64>();
            (y[i] - fit).powi(2)
        })
        .sum();
    let src = (0..k).map(|j| b[j] * sx[j] / sy).collect();
    (src, 1.0 - ss_res / ss_tot)
}

/// Gaussian elimination with partial pivoting on an augmented k×(k+1)
/// matrix.
fn solve(mut a: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let k = a.len();
    for c in 0..k {
        let p = (c..k).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        let pivot = a[c].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot[c];
                for (x, p) in row.iter_mut().zip(&pivot).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..k).map(|i| a[i][k] / a[i][i]).collect())
}

/// A figure the Rapid Start production experiment published (the Rapid
/// Start slides, IETF 125), as a [`Figures::named`] name or an aggregate.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Published {
    /// What it is.
    pub what: &'static str,
    /// The published value, %.
    pub value: f64,
}

/// The published figures the `rapid-start-2026` preset is compared with:
/// global gain, the smallest and largest per-POP gain, the smallest and
/// largest size bin's gain, the four arms' average loss, the baseline's
/// loss P50/P90/P99, and the loss order's margin (the published averages'
/// smallest step: rapidstart 1.98 − rapid-no-jump 1.92 = 0.06 point).
pub const RAPID_START_2026: [Published; 13] = [
    Published {
        what: "global",
        value: -14.7,
    },
    Published {
        what: "pop:least gain",
        value: -10.8,
    },
    Published {
        what: "pop:most gain",
        value: -21.5,
    },
    Published {
        what: "bin:first",
        value: -14.9,
    },
    Published {
        what: "bin:last",
        value: -10.6,
    },
    Published {
        what: "loss:baseline",
        value: 1.52,
    },
    Published {
        what: "loss:jumpstart",
        value: 1.61,
    },
    Published {
        what: "loss:rapid-no-jump",
        value: 1.92,
    },
    Published {
        what: "loss:rapidstart",
        value: 1.98,
    },
    Published {
        what: "baseline-loss-p50",
        value: 0.62,
    },
    Published {
        what: "baseline-loss-p90",
        value: 4.36,
    },
    Published {
        what: "baseline-loss-p99",
        value: 13.80,
    },
    Published {
        what: "loss-order-margin",
        value: 0.06,
    },
];

/// A published figure against the model's 90 % interval of the same
/// quantity.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Verdict {
    /// The published figure.
    pub published: Published,
    /// The model's 5th and 95th percentile over the LHS points.
    pub interval: (f64, f64),
    /// Whether the published value lies inside.
    pub inside: bool,
}

/// The model's LHS values of a published quantity: a named figure, or
/// for `pop:least gain` / `pop:most gain` the largest / smallest per-POP
/// change of each point, for `bin:first` / `bin:last` the first / last
/// size bin in `bins` order.
fn lhs_values(what: &str, points: &[Point], figures: &[Figures], bins: &[String]) -> Vec<f64> {
    points
        .iter()
        .zip(figures)
        .filter(|(p, _)| matches!(p.kind, PointKind::Lhs(_)))
        .filter_map(|(_, f)| {
            let pops = || f.pop_pct.values().copied();
            match what {
                "pop:least gain" => pops().reduce(f64::max),
                "pop:most gain" => pops().reduce(f64::min),
                "bin:first" => bins.first().and_then(|b| f.bin_pct.get(b).copied()),
                "bin:last" => bins.last().and_then(|b| f.bin_pct.get(b).copied()),
                name => f.named().into_iter().find(|x| x.0 == name).map(|x| x.1),
            }
        })
        .filter(|v| v.is_finite())
        .collect()
}

/// Each published figure against the model's interval.
pub fn verdicts(
    published: &[Published],
    points: &[Point],
    figures: &[Figures],
    bins: &[String],
) -> Vec<Verdict> {
    published
        .iter()
        .map(|p| {
            let mut v = lhs_values(p.what, points, figures, bins);
            v.sort_by(f64::total_cmp);
            let interval = (percentile(&v, 5.0), percentile(&v, 95.0));
            Verdict {
                published: p.clone(),
                interval,
                inside: interval.0 <= p.value && p.value <= interval.1,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::assumptions::builtin;
    use crate::fleet::population::seed_regions;
    use crate::fleet::Population;

    fn decl() -> Vec<Assumption> {
        builtin(&Population::Regions(seed_regions()))
    }

    #[test]
    fn design_is_base_then_oat_then_a_latin_hypercube() {
        let a = decl();
        let d = design(&a, 32, 7);
        assert_eq!(d.len(), 1 + 2 * a.len() + 32);
        assert_eq!(d[0].kind, PointKind::Base);
        assert_eq!(d[1].kind, PointKind::Low(a[0].param));
        assert_eq!(d[1].values[0].1, a[0].range.0);
        assert_eq!(d[2].values[0].1, a[0].range.1);
        assert_eq!(d[1].values[1].1, a[1].value, "the others at their values");
        // Latin hypercube: each parameter has exactly one point per stratum.
        let lhs = &d[1 + 2 * a.len()..];
        for (j, decl) in a.iter().enumerate() {
            let (lo, hi) = decl.range;
            let mut strata: Vec<usize> = lhs
                .iter()
                .map(|p| (((p.values[j].1 - lo) / (hi - lo)) * 32.0) as usize)
                .collect();
            strata.sort_unstable();
            assert_eq!(strata, (0..32).collect::<Vec<_>>(), "{:?}", decl.param);
        }
        // Seeded: the same seed gives the same sample, another seed another.
        assert_eq!(design(&a, 32, 7), d);
        assert_ne!(design(&a, 32, 8), d);
    }

    #[test]
    fn a_point_sets_its_values_on_the_plan() {
        let a = decl();
        let plan = crate::fleet::experiments::plan("rapid-start-2026", 10, 1).unwrap();
        let d = design(&a, 4, 1);
        let p = d[2].apply(&plan);
        assert_eq!(a[0].param.get(&p.population), Some(a[0].range.1));
        assert_eq!(d[0].apply(&plan), plan, "the base point is the plan");
    }

    #[test]
    fn src_recovers_a_linear_model() {
        // y = 3 x0 - 1 x1 + 0 x2 on a grid: SRC ∝ coefficient × sd.
        let mut x = Vec::new();
        let mut y = Vec::new();
        let mut rng = Rng::from_u64(3);
        for _ in 0..200 {
            let r = [rng.next_f64(), rng.next_f64(), rng.next_f64()];
            y.push(3.0 * r[0] - r[1]);
            x.push(r.to_vec());
        }
        let (src, r2) = standardized_regression(&x, &y);
        assert!((r2 - 1.0).abs() < 1e-9, "{r2}");
        // Equal sds: SRCs in the ratio 3 : -1 : 0, squares summing to R².
        // (the sample sds differ a little, so the ratio is near, not at, -3)
        assert!((src[0] / src[1] + 3.0).abs() < 0.3, "{src:?}");
        assert!(src[2].abs() < 1e-9);
        let total: f64 = src.iter().map(|s| s * s).sum();
        assert!((total - 1.0).abs() < 0.05, "{total}");
        // Too few points: NaN, not a fit.
        assert!(standardized_regression(&x[..3], &y[..3]).1.is_nan());
    }

    fn fig(global: f64) -> Figures {
        Figures {
            arm: "r".into(),
            global_pct: global,
            global_mean_pct: global / 2.0,
            pop_pct: [
                ("a".to_string(), global - 1.0),
                ("b".to_string(), global + 1.0),
            ]
            .into(),
            bin_pct: [("x".to_string(), global)].into(),
            loss_avg_pct: [("base".to_string(), 1.0), ("r".to_string(), 1.5)].into(),
            baseline_loss_pctl_pct: vec![0.5, 4.0, 12.0 + global],
            loss_order_margin_pct: 0.5,
        }
    }

    #[test]
    fn analysis_orders_the_tornado_and_bounds_every_figure() {
        let a = decl();
        let d = design(&a, 40, 1);
        // The global gain is the first parameter's value x 10 plus the
        // second's: the first dominates the tornado and the variance.
        let figs: Vec<Figures> = d
            .iter()
            .map(|p| fig(10.0 * p.values[0].1 + p.values[1].1))
            .collect();
        let an = analyze(&d, &figs);
        assert_eq!(an.swings[0].key, a[0].param.key());
        assert_eq!(an.shares[0].key, a[0].param.key());
        assert!(an.r2 > 0.999);
        assert_eq!(an.lhs_points, 40);
        let g = &an.intervals[0];
        assert_eq!(g.figure, "global");
        assert!(g.lo < g.hi && g.lo >= 0.0 && g.hi <= 11.0, "{g:?}");
        let v = verdicts(
            &[Published {
                what: "pop:least gain",
                value: 5.0,
            }],
            &d,
            &figs,
            &["x".to_string()],
        );
        assert!(v[0].inside, "{v:?}");
    }

    #[test]
    fn the_baseline_loss_percentiles_and_the_loss_order_margin_get_intervals() {
        let a = decl();
        let d = design(&a, 40, 1);
        let figs: Vec<Figures> = d.iter().map(|p| fig(p.values[0].1)).collect();
        let an = analyze(&d, &figs);
        let names: Vec<&str> = an.intervals.iter().map(|i| i.figure.as_str()).collect();
        let tail = &names[names.len() - 4..];
        assert_eq!(
            tail,
            [
                "baseline-loss-p50",
                "baseline-loss-p90",
                "baseline-loss-p99",
                "loss-order-margin"
            ]
        );
        // P99 = 12 + the first parameter (a share in [0, 1]).
        let p99 = &an.intervals[names.len() - 2];
        assert!(
            p99.lo >= 12.0 && p99.hi <= 13.0 && p99.lo < p99.hi,
            "{p99:?}"
        );
        // The new published figures find their model intervals.
        let v = verdicts(&RAPID_START_2026, &d, &figs, &["x".to_string()]);
        let new = v.iter().filter(|v| {
            v.published.what.starts_with("baseline-loss") || v.published.what == "loss-order-margin"
        });
        assert_eq!(new.clone().count(), 4);
        assert!(new.clone().all(|v| v.interval.0.is_finite()), "{v:?}");
        let p99 = v.iter().find(|v| v.published.what == "baseline-loss-p99");
        assert!(!p99.unwrap().inside, "13.8 is above 12 + 1");
        assert_eq!(an.loss_order_held, 40);
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
