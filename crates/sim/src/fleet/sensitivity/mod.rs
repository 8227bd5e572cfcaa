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
//! at all. The OAT points give the tornado chart. Both are made for the
//! global change under every [`Reading`] ([`ReadingAnalysis`]): the
//! sources leave open which statistic the published figures are.

mod analysis;
mod design;
mod figures;
mod published;

pub use analysis::{
    analyze, global_under, standardized_regression, Analysis, Interval, ReadingAnalysis, Share,
    Swing,
};
pub use design::{design, Point, PointKind};
pub use figures::{Figures, Reading, Readings};
pub use published::{verdicts, Published, Verdict, RAPID_START_2026};

/// Fixtures the submodules' tests share.
#[cfg(test)]
mod test_support {
    use super::{Figures, Readings};
    use crate::fleet::assumptions::{builtin, Assumption};
    use crate::fleet::population::seed_regions;
    use crate::fleet::Population;

    pub(super) fn decl() -> Vec<Assumption> {
        builtin(&Population::Regions(seed_regions()))
    }

    /// A point's figures: every reading of a slice's change is its
    /// ten-point change plus 1, 2 and 3 (so a test can tell them apart).
    pub(super) fn fig(global: f64) -> Figures {
        let readings = |x: f64| Readings {
            ten_point_pct: x,
            p1_99_pct: x + 1.0,
            mean_pct: x + 2.0,
            median_pct: x + 3.0,
        };
        Figures {
            global_readings: readings(global),
            pop_readings: [
                ("a".to_string(), readings(global - 1.0)),
                ("b".to_string(), readings(global + 1.0)),
            ]
            .into(),
            bin_readings: [("x".to_string(), readings(global))].into(),
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
}
