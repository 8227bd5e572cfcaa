//! How a shared bottleneck was divided: Jain's fairness index (Jain, Chiu
//! and Hawe, DEC-TR-301, 1984) over the flows' throughputs.

/// Jain's index of `xs`: `(Σx)² / (n·Σx²)`, 1 when all are equal, `1/n`
/// when one flow has everything. An empty or all-zero set gives 1 (nothing
/// was shared unequally).
pub fn jain_index(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || sq == 0.0 {
        return 1.0;
    }
    sum * sum / (xs.len() as f64 * sq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_shares_give_one_and_a_monopoly_one_over_n() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), 1.0);
        assert!((jain_index(&[9.0, 0.0, 0.0]) - 1.0 / 3.0).abs() < 1e-12);
        assert!((jain_index(&[3.0, 1.0]) - 0.8).abs() < 1e-12);
        assert_eq!(jain_index(&[]), 1.0);
    }
}
