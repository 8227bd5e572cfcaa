//! Percentiles: ramp's one definition lives in [`ramp_vocab::quantile`]
//! (Hyndman & Fan type 7, as numpy, DuckDB's `quantile_cont` and R); this
//! module adds the charts' percentile grid.

pub use ramp_vocab::quantile::{quantile, quantile_sorted, sorted_finite};

/// The percentile grid of the A/B chart: 1, 2, …, 99 (as percents).
pub fn percentile_grid() -> Vec<f64> {
    (1..=99).map(f64::from).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_grid_has_99_points() {
        assert_eq!(super::percentile_grid().len(), 99);
    }
}
