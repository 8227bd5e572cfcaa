//! What the points together say: the tornado (OAT swings), every
//! figure's 90 % interval over the LHS sample, and the variance shares
//! (squared standardized regression coefficients), the tornado and the
//! shares of the global change under every [`Reading`].

use crate::fleet::summary::percentile;

use super::design::{Point, PointKind};
use super::figures::{Figures, Reading};

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
    /// Global gain (%; [`Analysis::swings`]: the percentile average, a
    /// [`ReadingAnalysis`]: its reading) with the parameter at low and at
    /// high.
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
    /// The tornado and the variance shares of the global change under
    /// every reading, in [`Reading::ALL`] order (after the fields above,
    /// so `sensitivity.json` keeps their places; the ten-point reading's
    /// equal `swings`, `shares` and `r2`).
    pub by_reading: Vec<ReadingAnalysis>,
}

/// The one-at-a-time swings and the variance shares of the global change
/// under one [`Reading`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ReadingAnalysis {
    /// The reading.
    pub reading: Reading,
    /// The base point's global change under it, %.
    pub base_global_pct: f64,
    /// The OAT swings, largest span first.
    pub swings: Vec<Swing>,
    /// Variance shares (SRC²) over the LHS sample, largest first.
    pub shares: Vec<Share>,
    /// R² of the linear fit behind them.
    pub r2: f64,
}

/// A point's global change under `r`: its `global_readings`, or for a
/// points file from before readings, the ten-point and mean figures it
/// had (NaN for the others).
pub fn global_under(f: &Figures, r: Reading) -> f64 {
    let v = f.global_readings.get(r);
    match r {
        _ if !v.is_nan() => v,
        Reading::TenPoint => f.global_pct,
        Reading::Mean => f.global_mean_pct,
        Reading::P1To99 | Reading::Median => v,
    }
}

/// The OAT swings of `value` (largest span first).
fn oat_swings(pairs: &[(&Point, &Figures)], value: impl Fn(&Figures) -> f64) -> Vec<Swing> {
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
                    at_low: value(fl),
                    at_high: value(fh),
                });
            }
        }
    }
    swings.sort_by(|a, b| {
        let span = |s: &Swing| (s.at_high - s.at_low).abs();
        span(b).total_cmp(&span(a))
    });
    swings
}

/// The variance shares of `value` over the LHS points (largest first) and
/// the fit's R².
fn variance_shares(
    lhs: &[(&Point, &Figures)],
    value: impl Fn(&Figures) -> f64,
) -> (Vec<Share>, f64) {
    let x: Vec<Vec<f64>> = lhs
        .iter()
        .map(|(p, _)| p.values.iter().map(|v| v.1).collect())
        .collect();
    let y: Vec<f64> = lhs.iter().map(|(_, f)| value(f)).collect();
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
    (shares, r2)
}

/// Analyses a study's points and their figures (same order as
/// [`design`](super::design()) made them).
pub fn analyze(points: &[Point], figures: &[Figures]) -> Analysis {
    let pairs: Vec<(&Point, &Figures)> = points.iter().zip(figures).collect();
    let base = pairs
        .iter()
        .find(|(p, _)| p.kind == PointKind::Base)
        .map(|(_, f)| *f);
    let base_global_pct = base.map(|f| f.global_pct).unwrap_or(f64::NAN);
    let swings = oat_swings(&pairs, |f| f.global_pct);
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
    let (shares, r2) = variance_shares(&lhs, |f| f.global_pct);
    let by_reading = Reading::ALL
        .into_iter()
        .map(|r| {
            let (shares, r2) = variance_shares(&lhs, |f| global_under(f, r));
            ReadingAnalysis {
                reading: r,
                base_global_pct: base.map_or(f64::NAN, |f| global_under(f, r)),
                swings: oat_swings(&pairs, |f| global_under(f, r)),
                shares,
                r2,
            }
        })
        .collect();
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
        by_reading,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::sensitivity::design::design;
    use crate::fleet::sensitivity::published::{verdicts, Published};
    use crate::fleet::sensitivity::test_support::{decl, fig};
    use ramp_vocab::rng::Rng;

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
    fn every_reading_gets_its_own_tornado_and_variance_shares() {
        let a = decl();
        let d = design(&a, 40, 1);
        // Ten-point: the first parameter drives the change; the mean
        // (`fig`'s ten-point + 2 unless set): the second, ten times over.
        let figs: Vec<Figures> = d
            .iter()
            .map(|p| {
                let mut f = fig(10.0 * p.values[0].1 + p.values[1].1);
                f.global_readings.mean_pct = p.values[0].1 + 10.0 * p.values[1].1;
                f
            })
            .collect();
        let an = analyze(&d, &figs);
        let readings: Vec<Reading> = an.by_reading.iter().map(|r| r.reading).collect();
        assert_eq!(readings, Reading::ALL);
        let ten = &an.by_reading[0];
        assert_eq!((&ten.swings, &ten.shares), (&an.swings, &an.shares));
        assert_eq!(ten.r2.to_bits(), an.r2.to_bits());
        let mean = &an.by_reading[2];
        assert_eq!(mean.reading, Reading::Mean);
        assert_eq!(mean.swings[0].key, a[1].param.key());
        assert_eq!(mean.shares[0].key, a[1].param.key());
        assert!(mean.r2 > 0.999, "{}", mean.r2);
        assert_eq!(mean.base_global_pct, figs[0].global_readings.mean_pct);
        // The same figures, the same analysis: deterministic.
        assert_eq!(analyze(&d, &figs), an);
    }

    #[test]
    fn a_points_file_from_before_the_readings_keeps_ten_point_and_mean() {
        let mut f = fig(-20.0);
        f.global_readings = crate::fleet::sensitivity::Readings::missing();
        assert_eq!(global_under(&f, Reading::TenPoint), -20.0);
        assert_eq!(global_under(&f, Reading::Mean), -10.0);
        assert!(global_under(&f, Reading::Median).is_nan());
    }
}
