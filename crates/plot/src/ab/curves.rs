//! Percentile-versus-Δ curves with bootstrap bands.
//!
//! For each percentile p in 1…99, Δ(p) = 100·(Q_arm(p)/Q_baseline(p) − 1),
//! so −10 means the arm's p-th percentile TTLB is 10 % shorter. Q is the
//! linear-interpolation percentile of [`crate::quantile`]. The band is the
//! percentile bootstrap: each arm and the baseline are resampled
//! independently (connections are the unit), Δ(p) recomputed, and the
//! (1−level)/2 and (1+level)/2 quantiles of the replicates taken. The
//! resampling generator is seeded from the options' seed and the names of
//! facet and arm, so a chart is identical on every run.

use super::facet::Facet;
use super::samples::{check_baseline, group, AbOptions, AbSamples};
use crate::bootstrap::{percentile_interval, resample_quantiles};
use crate::error::Result;
use crate::record::Record;
use ramp_vocab::quantile::{quantile_sorted, sorted_finite};
use ramp_vocab::rng::SplitMix64;

/// One point of an A/B curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbPoint {
    /// Percentile, 1…99.
    pub percentile: f64,
    /// Δ in percent: 100·(Q_arm/Q_baseline − 1).
    pub delta_pct: f64,
    /// Lower end of the bootstrap band, percent.
    pub lo_pct: f64,
    /// Upper end of the bootstrap band, percent.
    pub hi_pct: f64,
}

/// One arm's curve against the baseline in one facet.
#[derive(Debug, Clone, PartialEq)]
pub struct AbCurve {
    /// Arm name.
    pub arm: String,
    /// Connections in this arm (and facet).
    pub n: usize,
    /// Points for p = 1…99.
    pub points: Vec<AbPoint>,
}

impl AbCurve {
    /// Δ at the median.
    pub fn median_delta_pct(&self) -> Option<f64> {
        self.points
            .iter()
            .find(|p| p.percentile == 50.0)
            .map(|p| p.delta_pct)
    }
}

/// One facet: all arms against its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct AbPanel {
    /// Facet label (empty without faceting).
    pub facet: String,
    /// Connections in the baseline arm.
    pub baseline_n: usize,
    /// One curve per non-baseline arm, in name order.
    pub curves: Vec<AbCurve>,
}

/// The A/B analysis of a record set.
#[derive(Debug, Clone, PartialEq)]
pub struct AbResult {
    /// Baseline arm name.
    pub baseline: String,
    /// All arm names (baseline included), sorted; colours follow this order.
    pub arms: Vec<String>,
    /// Faceting used.
    pub facet: Facet,
    /// Panels in facet order.
    pub panels: Vec<AbPanel>,
    /// Records skipped for lacking the arm key, a TTLB or the facet key.
    pub skipped: usize,
}

/// A stable 64-bit hash (FNV-1a) for seeding per-curve generators.
/// Each part is followed by a 0xff byte, which no UTF-8 text contains, so
/// the parts' boundaries are part of the hash.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h = ramp_vocab::fnv::Fnv1a64::new();
    for p in parts {
        h.write(p.as_bytes());
        h.write(&[0xff]);
    }
    h.finish()
}

/// Computes the percentile-versus-Δ curves, one panel per facet.
/// Facets without baseline records are left out.
pub fn ab_curves(records: &[Record], opts: &AbOptions) -> Result<AbResult> {
    ab_curves_of(&AbSamples::from_records(records, opts), opts)
}

/// [`ab_curves`] on extracted samples (e.g. from [`AbSamples::read`]).
pub fn ab_curves_of(samples: &AbSamples, opts: &AbOptions) -> Result<AbResult> {
    let (groups, arms) = group(samples);
    let skipped = samples.skipped;
    check_baseline(samples, &arms, opts)?;
    let probs: Vec<f64> = (1..=99).map(|p| f64::from(p) / 100.0).collect();
    let bs = opts.bootstrap;
    let mut panels = Vec::new();
    for ((_, facet), by_arm) in &groups {
        let Some(base) = by_arm.get(&opts.baseline) else {
            continue;
        };
        let base = sorted_finite(base.iter().map(|v| v.0));
        let base_q: Vec<f64> = probs
            .iter()
            .map(|&p| quantile_sorted(&base, p).unwrap_or(f64::NAN))
            .collect();
        let mut curves = Vec::new();
        for (arm, values) in by_arm {
            if *arm == opts.baseline {
                continue;
            }
            let xs = sorted_finite(values.iter().map(|v| v.0));
            let delta = |q_arm: f64, q_base: f64| 100.0 * (q_arm / q_base - 1.0);
            let est: Vec<f64> = probs
                .iter()
                .zip(&base_q)
                .map(|(&p, &qb)| delta(quantile_sorted(&xs, p).unwrap_or(f64::NAN), qb))
                .collect();
            // Replicates, one row per percentile.
            let mut reps: Vec<Vec<f64>> = vec![Vec::with_capacity(bs.resamples); probs.len()];
            let mut rng = SplitMix64::new(bs.seed ^ fnv1a(&[facet, arm, &opts.baseline]));
            let (mut counts, mut qa, mut qb) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..bs.resamples {
                resample_quantiles(&xs, &probs, &mut rng, &mut counts, &mut qa);
                resample_quantiles(&base, &probs, &mut rng, &mut counts, &mut qb);
                for (k, row) in reps.iter_mut().enumerate() {
                    let d = delta(qa[k], qb[k]);
                    if d.is_finite() {
                        row.push(d);
                    }
                }
            }
            let points = probs
                .iter()
                .zip(est)
                .zip(reps.iter_mut())
                .map(|((&p, d), row)| {
                    let (lo, hi) = percentile_interval(row, bs.level).unwrap_or((d, d));
                    AbPoint {
                        percentile: p * 100.0,
                        delta_pct: d,
                        lo_pct: lo,
                        hi_pct: hi,
                    }
                })
                .collect();
            curves.push(AbCurve {
                arm: arm.clone(),
                n: xs.len(),
                points,
            });
        }
        panels.push(AbPanel {
            facet: facet.clone(),
            baseline_n: base.len(),
            curves,
        });
    }
    Ok(AbResult {
        baseline: opts.baseline.clone(),
        arms,
        facet: opts.facet.clone(),
        panels,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::paired_deltas;
    use crate::ab::test_records as recs;

    #[test]
    fn constant_ratio_gives_constant_delta_and_tight_band() {
        // Arm B is exactly 20 % faster on every path: Δ(p) = −20 at every p,
        // and every resample of a 0.8-scaled copy gives the same Δ only when
        // the same indices are drawn — so the band must contain −20.
        let mut lines = Vec::new();
        for i in 1..=200 {
            let t = 100.0 + f64::from(i);
            lines.push(format!("{{\"group\":\"base\",\"ttlb\":{t},\"seed\":{i}}}"));
            lines.push(format!(
                "{{\"group\":\"b\",\"ttlb\":{},\"seed\":{i}}}",
                t * 0.8
            ));
        }
        let r = ab_curves(&recs(&lines), &AbOptions::new("base")).unwrap();
        assert_eq!(r.panels.len(), 1);
        let c = &r.panels[0].curves[0];
        assert_eq!(
            (c.arm.as_str(), c.n, r.panels[0].baseline_n),
            ("b", 200, 200)
        );
        for p in &c.points {
            assert!((p.delta_pct + 20.0).abs() < 1e-9, "{p:?}");
            assert!(
                p.lo_pct <= -20.0 + 1e-9 && p.hi_pct >= -20.0 - 1e-9,
                "{p:?}"
            );
        }
        let paired = paired_deltas(&recs(&lines), &AbOptions::new("base")).unwrap();
        let d = &paired.panels[0].curves[0].deltas_pct;
        assert_eq!(d.len(), 200);
        assert!(d.iter().all(|x| (x + 20.0).abs() < 1e-9));
    }

    #[test]
    fn hand_computed_delta() {
        // base ttlb 10,20,30,40,50; arm 12,22,33,44,60.
        // p = 50: Q_base = 30, Q_arm = 33 → Δ = +10 %.
        // p = 25: h = 1 → 20 vs 22 → +10 %. p = 90: h = 3.6 →
        // base 40 + 0.6·10 = 46, arm 44 + 0.6·16 = 53.6 → Δ = 16.521…%.
        let mut lines = Vec::new();
        for (b, a) in [(10, 12), (20, 22), (30, 33), (40, 44), (50, 60)] {
            lines.push(format!("{{\"group\":\"base\",\"ttlb\":{b}}}"));
            lines.push(format!("{{\"group\":\"x\",\"ttlb\":{a}}}"));
        }
        let r = ab_curves(&recs(&lines), &AbOptions::new("base")).unwrap();
        let pts = &r.panels[0].curves[0].points;
        let at = |p: f64| pts.iter().find(|q| q.percentile == p).unwrap().delta_pct;
        assert!((at(50.0) - 10.0).abs() < 1e-9);
        assert!((at(25.0) - 10.0).abs() < 1e-9);
        assert!((at(90.0) - (100.0 * (53.6 / 46.0 - 1.0))).abs() < 1e-9);
    }

    #[test]
    fn band_is_deterministic_for_a_seed_and_moves_with_it() {
        let mut lines = Vec::new();
        for i in 0..300u64 {
            let t = 50 + (i * 7919) % 400;
            lines.push(format!("{{\"group\":\"base\",\"ttlb\":{t}}}"));
            lines.push(format!("{{\"group\":\"x\",\"ttlb\":{}}}", t + (i % 13)));
        }
        let rs = recs(&lines);
        let opts = AbOptions::new("base");
        let a = ab_curves(&rs, &opts).unwrap();
        let b = ab_curves(&rs, &opts).unwrap();
        assert_eq!(a, b);
        let mut other = opts.clone();
        other.bootstrap.seed = 7;
        let c = ab_curves(&rs, &other).unwrap();
        assert_ne!(a, c);
        // The estimate does not depend on the seed, only the band does.
        let est = |r: &AbResult| -> Vec<f64> {
            r.panels[0].curves[0]
                .points
                .iter()
                .map(|p| p.delta_pct)
                .collect()
        };
        assert_eq!(est(&a), est(&c));
    }

    #[test]
    fn missing_baseline_is_an_error_listing_arms() {
        let rs = recs(&["{\"group\":\"a\",\"ttlb\":1}".to_string()]);
        let e = ab_curves(&rs, &AbOptions::new("base"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("baseline") && e.contains("arms found: a"), "{e}");
    }
}
