//! Sampling helpers for path populations: empirical quantile tables read
//! as an inverse CDF (log-linear between points), the standard normal CDF
//! for the Gaussian-copula shift, and log-uniform draws.

use ramp_vocab::rng::Rng;

/// An empirical distribution of a positive quantity given by quantiles
/// (M-Lab NDT publishes quantiles, not fits: they are used as they are,
/// log-linear between the points; docs/simulator.md). Below the first and above the last point the
/// table is extended to p1 and p99 with the lognormal slope of the outer
/// points, and draws are clamped there: the tails beyond are not known.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantileTable {
    /// (probability, ln value), probabilities strictly ascending in (0, 1).
    points: Vec<(f64, f64)>,
}

/// Why points do not make a [`QuantileTable`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QuantileError {
    /// Fewer than two points.
    TooFewPoints,
    /// A probability not above the one before it.
    ProbabilitiesNotAscending,
    /// A value below the one before it.
    ValuesDecrease,
    /// A probability outside (0, 1).
    Probability(f64),
    /// A value that is not positive and finite.
    Value(f64),
}

impl core::fmt::Display for QuantileError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            QuantileError::TooFewPoints => {
                f.write_str("a quantile table needs at least two points")
            }
            QuantileError::ProbabilitiesNotAscending => {
                f.write_str("quantile probabilities must be strictly ascending")
            }
            QuantileError::ValuesDecrease => f.write_str("quantile values must be non-decreasing"),
            QuantileError::Probability(p) => {
                write!(f, "quantile probability {p} must lie in (0, 1)")
            }
            QuantileError::Value(v) => write!(f, "quantile value {v} must be positive"),
        }
    }
}

impl std::error::Error for QuantileError {}

/// The lowest and highest probability a [`QuantileTable`] is read at.
const TAIL_P: (f64, f64) = (0.01, 0.99);

impl QuantileTable {
    /// A table from `(probability, value)` pairs; probabilities strictly
    /// ascending in (0, 1) and values positive and non-decreasing.
    pub fn new(points: &[(f64, f64)]) -> Result<QuantileTable, QuantileError> {
        if points.len() < 2 {
            return Err(QuantileError::TooFewPoints);
        }
        for w in points.windows(2) {
            if w[0].0 >= w[1].0 {
                return Err(QuantileError::ProbabilitiesNotAscending);
            }
            if w[0].1 > w[1].1 {
                return Err(QuantileError::ValuesDecrease);
            }
        }
        for &(p, v) in points {
            if !(p > 0.0 && p < 1.0) {
                return Err(QuantileError::Probability(p));
            }
            if !(v > 0.0 && v.is_finite()) {
                return Err(QuantileError::Value(v));
            }
        }
        let mut pts: Vec<(f64, f64)> = points.iter().map(|&(p, v)| (p, v.ln())).collect();
        // Extend both ends with the lognormal slope through the outer two
        // points (d ln v / d z), so p1 and p99 exist.
        let slope = |a: (f64, f64), b: (f64, f64)| {
            let dz = probit(b.0) - probit(a.0);
            if dz > 0.0 {
                (b.1 - a.1) / dz
            } else {
                0.0
            }
        };
        let (first, second) = (pts[0], pts[1]);
        if first.0 > TAIL_P.0 {
            let s = slope(first, second);
            pts.insert(
                0,
                (TAIL_P.0, first.1 - s * (probit(first.0) - probit(TAIL_P.0))),
            );
        }
        let n = pts.len();
        let (before, last) = (pts[n - 2], pts[n - 1]);
        if last.0 < TAIL_P.1 {
            let s = slope(before, last);
            pts.push((TAIL_P.1, last.1 + s * (probit(TAIL_P.1) - probit(last.0))));
        }
        Ok(QuantileTable { points: pts })
    }

    /// The value at probability `u` (clamped to the table's range),
    /// interpolated linearly in log space.
    pub fn at(&self, u: f64) -> f64 {
        let pts = &self.points;
        let (lo, hi) = (pts[0], pts[pts.len() - 1]);
        if u.is_nan() || u <= lo.0 {
            return lo.1.exp();
        }
        if u >= hi.0 {
            return hi.1.exp();
        }
        let i = pts.partition_point(|&(p, _)| p <= u);
        let (a, b) = (pts[i - 1], pts[i]);
        let t = (u - a.0) / (b.0 - a.0);
        (a.1 + t * (b.1 - a.1)).exp()
    }
}

/// The standard normal CDF Φ(x), from erfc by the rational Chebyshev
/// approximation of Numerical Recipes (`erfcc`, relative error < 1.2e-7).
pub fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 {
        1.0 - 0.5 * erfc
    } else {
        0.5 * erfc
    }
}

/// The standard normal quantile Φ⁻¹(p), by bisection on [`normal_cdf`]
/// (used only when building tables, never per draw).
pub fn probit(p: f64) -> f64 {
    let (mut lo, mut hi) = (-9.0f64, 9.0f64);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if normal_cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A standard normal draw (Box–Muller, one of the pair).
pub fn normal(rng: &mut Rng) -> f64 {
    // 1 - u lies in (0, 1], so the log is finite.
    let u1 = 1.0 - rng.next_f64();
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A log-uniform draw on `[lo, hi]` (both positive; `lo == hi` gives `lo`).
pub fn log_uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    let u = rng.next_f64();
    (lo.ln() + u * (hi.ln() - lo.ln())).exp()
}

/// A uniform draw on `[lo, hi)`.
pub fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + rng.next_f64() * (hi - lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_cdf_matches_tables() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.0) - 0.841_344_75).abs() < 1e-6);
        assert!((normal_cdf(-1.281_551_6) - 0.1).abs() < 1e-6);
        assert!((probit(0.9) - 1.281_551_6).abs() < 1e-5);
    }

    #[test]
    fn quantile_table_hits_its_points_and_interpolates_in_log_space() {
        let t = QuantileTable::new(&[(0.1, 1.0), (0.5, 10.0), (0.9, 100.0)]).unwrap();
        assert!((t.at(0.1) - 1.0).abs() < 1e-9);
        assert!((t.at(0.5) - 10.0).abs() < 1e-9);
        assert!((t.at(0.3) - 10f64.sqrt()).abs() < 1e-9);
        // Tails extend with the lognormal slope and clamp at p1 / p99.
        assert!(t.at(0.0) < 1.0 && t.at(0.0) == t.at(0.01));
        assert!(t.at(1.0) > 100.0 && t.at(1.0) == t.at(0.99));
        assert!(QuantileTable::new(&[(0.5, 1.0)]).is_err());
        assert!(QuantileTable::new(&[(0.5, 2.0), (0.6, 1.0)]).is_err());
    }
}
