//! The A/B chart's percentile points. The percentile itself is ramp's one
//! definition in [`ramp_vocab::quantile`] (Hyndman & Fan type 7, as numpy,
//! DuckDB's `quantile_cont` and R).

/// The percentile points of the A/B chart: 1, 2, …, 99 (as percents).
pub fn percentile_points() -> Vec<f64> {
    (1..=99).map(f64::from).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn there_are_99_percentile_points() {
        assert_eq!(super::percentile_points().len(), 99);
    }
}
