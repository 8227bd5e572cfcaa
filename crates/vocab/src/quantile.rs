//! Percentiles by linear interpolation between order statistics: the one
//! definition ramp's summaries, charts and reports share.
//!
//! Definition (Hyndman & Fan type 7; numpy's default `linear`, DuckDB's
//! `quantile_cont`, R's default): for sorted `x[0..n]` and `p` in `[0, 1]`,
//! `h = (n − 1)·p`, and `Q(p) = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`.
//! So `Q(0)` is the minimum, `Q(1)` the maximum, and for n = 1 every
//! quantile is the one value.

/// Q(p) of already **sorted** finite values; `None` when empty.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> Option<f64> {
    quantile_with(sorted.len(), p, |i| sorted[i])
}

/// The order statistics Q(p) reads from `n` sorted values: `⌊h⌋`, and
/// `⌊h⌋ + 1` when Q(p) interpolates towards it. A summary that streams its
/// sorted values (and keeps only these) computes the same Q(p) with
/// [`quantile_with`].
pub fn quantile_indices(n: usize, p: f64) -> Option<(usize, Option<usize>)> {
    if n == 0 {
        return None;
    }
    let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let frac = h - lo as f64;
    Some((lo, (frac > 0.0 && lo + 1 < n).then_some(lo + 1)))
}

/// Q(p) of `n` sorted values of which `at(i)` gives the i-th (only the
/// indices [`quantile_indices`] names are asked for); `None` when `n` is 0.
pub fn quantile_with(n: usize, p: f64, mut at: impl FnMut(usize) -> f64) -> Option<f64> {
    let (lo, hi) = quantile_indices(n, p)?;
    let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
    let frac = h - lo as f64;
    let a = at(lo);
    Some(match hi {
        Some(hi) => {
            let b = at(hi);
            a + frac * (b - a)
        }
        None => a,
    })
}

/// Sorts finite values ascending (NaN and infinities are dropped: a
/// percentile of them has no meaning here).
pub fn sorted_finite(values: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v
}

/// Q(p) of unsorted values.
pub fn quantile(values: &[f64], p: f64) -> Option<f64> {
    quantile_sorted(&sorted_finite(values.iter().copied()), p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_interpolation_matches_hand_computed_values() {
        // numpy.percentile([15, 20, 35, 40, 50], [5, 30, 40, 50, 100]):
        // h = 4p → 0.2 → 15 + 0.2·5 = 16; 1.2 → 20 + 0.2·15 = 23;
        // 1.6 → 20 + 0.6·15 = 29; 2.0 → 35; 4.0 → 50.
        let x = [40.0, 15.0, 50.0, 35.0, 20.0];
        let q = |p: f64| quantile(&x, p).unwrap();
        assert!((q(0.05) - 16.0).abs() < 1e-12);
        assert!((q(0.30) - 23.0).abs() < 1e-12);
        assert!((q(0.40) - 29.0).abs() < 1e-12);
        assert_eq!(q(0.5), 35.0);
        assert_eq!(q(1.0), 50.0);
        assert_eq!(q(0.0), 15.0);
    }

    #[test]
    fn even_count_median_is_the_midpoint() {
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
        // p = 0.99 of 1..=100: h = 98.01 → 99 + 0.01 = 99.01.
        let x: Vec<f64> = (1..=100).map(f64::from).collect();
        assert!((quantile(&x, 0.99).unwrap() - 99.01).abs() < 1e-9);
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[7.0], 0.01), Some(7.0));
        assert_eq!(quantile(&[f64::NAN, 3.0], 0.5), Some(3.0));
    }
}
