//! Property tests of the maths under the charts.

use proptest::prelude::*;
use ramp_plot::bootstrap::resample_quantiles;
use ramp_plot::chart::thin::thin_points;
use ramp_plot::units::nice_scale;
use ramp_vocab::quantile::{quantile_sorted, sorted_finite};
use ramp_vocab::rng::SplitMix64;

proptest! {
    /// Q(p) lies within [min, max], is monotone in p, and hits the ends.
    #[test]
    fn quantile_is_monotone_and_bounded(xs in prop::collection::vec(-1e6f64..1e6, 1..200)) {
        let s = sorted_finite(xs);
        let mut prev = f64::NEG_INFINITY;
        for p in 0..=100 {
            let q = quantile_sorted(&s, f64::from(p) / 100.0).unwrap();
            prop_assert!(q >= s[0] && q <= s[s.len() - 1]);
            prop_assert!(q >= prev - 1e-9);
            prev = q;
        }
        prop_assert_eq!(quantile_sorted(&s, 0.0), Some(s[0]));
        prop_assert_eq!(quantile_sorted(&s, 1.0), Some(s[s.len() - 1]));
    }

    /// A resample's quantiles are values between the sample's extremes,
    /// in order.
    #[test]
    fn resampled_quantiles_are_ordered_and_bounded(
        xs in prop::collection::vec(0f64..1e4, 1..100),
        seed in any::<u64>(),
    ) {
        let s = sorted_finite(xs);
        let probs: Vec<f64> = (1..=99).map(|p| f64::from(p) / 100.0).collect();
        let (mut counts, mut out) = (Vec::new(), Vec::new());
        resample_quantiles(&s, &probs, &mut SplitMix64::new(seed), &mut counts, &mut out);
        prop_assert_eq!(out.len(), 99);
        for w in out.windows(2) {
            prop_assert!(w[0] <= w[1] + 1e-9);
        }
        prop_assert!(out[0] >= s[0] && out[98] <= s[s.len() - 1]);
    }

    /// The scale covers the data, its ticks are evenly spaced and span it.
    #[test]
    fn nice_scale_covers_the_range(a in -1e9f64..1e9, span in 1e-3f64..1e9, n in 2usize..12) {
        let s = nice_scale(a, a + span, n);
        prop_assert!(s.lo <= a + s.step * 1e-6 && s.hi >= a + span - s.step * 1e-6);
        prop_assert_eq!(s.ticks.first().copied(), Some(s.lo));
        prop_assert_eq!(s.ticks.last().copied(), Some(s.hi));
        for w in s.ticks.windows(2) {
            prop_assert!(((w[1] - w[0]) - s.step).abs() <= s.step * 1e-6);
        }
    }

    /// Thinning keeps a subset, in order, and never drops a point whose
    /// pixel cell no kept point occupies.
    #[test]
    fn thinning_keeps_one_point_per_cell(
        pts in prop::collection::vec((0f64..100.0, 0f64..100.0), 0..300),
    ) {
        let kept = thin_points(&pts, (0.0, 100.0), (0.0, 100.0), 20, 20, 1.0);
        let cell = |p: &(f64, f64)| ((p.0 / 5.0).floor() as i64, (p.1 / 5.0).floor() as i64);
        let cells: std::collections::HashSet<_> = pts.iter().map(cell).collect();
        prop_assert_eq!(kept.len(), cells.len());
        let mut it = pts.iter();
        for k in &kept {
            prop_assert!(it.any(|p| p == k), "kept points must be a subsequence");
        }
    }

    /// Grid aggregation: every record lands in exactly one point of its
    /// arm, p10 <= median <= p90 within the completed TTLBs, and the mean
    /// packets lost lies between the smallest and largest lost count.
    #[test]
    fn grid_points_partition_records_and_order_quantiles(
        recs in prop::collection::vec((0usize..3, 0usize..4, 1u64..10_000_000, 0u64..500, any::<bool>()), 1..120)
    ) {
        let losses = [0.0, 0.01, 0.02, 0.05];
        let lines: Vec<String> = recs.iter().map(|&(arm, li, ttlb, lost, done)| format!(
            "{{\"group\":\"a{arm}\",\"grid.cell\":{li},\"grid.loss\":{},\"ttlb-us\":{ttlb},\"num-packets.lost\":{lost},\"completed\":{done}}}",
            losses[li]
        )).collect();
        let rs = ramp_plot::parse_records(&lines.join("\n"), "p").unwrap();
        let s = ramp_plot::GridSamples::from_records(&rs, "group");
        let r = ramp_plot::grid_curves(&s, ramp_plot::GridAxis::Loss, &[]).unwrap();
        let total: usize = r.series.iter().flat_map(|se| &se.points).map(|p| p.connections).sum();
        prop_assert_eq!(total, recs.len());
        let (lo, hi) = recs.iter().fold((u64::MAX, 0), |(a, b), r| (a.min(r.3), b.max(r.3)));
        for p in r.series.iter().flat_map(|se| &se.points) {
            prop_assert!(p.completed <= p.connections);
            if p.completed > 0 {
                prop_assert!(p.ttlb_p10_ms <= p.ttlb_median_ms && p.ttlb_median_ms <= p.ttlb_p90_ms);
            } else {
                prop_assert!(p.ttlb_median_ms.is_nan());
            }
            prop_assert!(p.lost_mean >= lo as f64 - 1e-9 && p.lost_mean <= hi as f64 + 1e-9);
        }
    }
}
