//! The study plan: the base point, one-at-a-time points and the seeded
//! Latin-hypercube sample (see the module above for the method).

use ramp_vocab::rng::Rng;

use crate::fleet::assumptions::{Assumption, Param};
use crate::fleet::FleetPlan;

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
            // A count runs the nearest whole number: the point records it.
            strata
                .into_iter()
                .map(|s| {
                    a.param
                        .snap(lo + (hi - lo) * (s as f64 + rng.next_f64()) / n as f64)
                })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::sensitivity::test_support::decl;

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
        // Latin hypercube: each parameter has exactly one point per stratum
        // (a count: the nearest whole number of its stratum's draw, so
        // every whole number of its range).
        let lhs = &d[1 + 2 * a.len()..];
        for (j, decl) in a.iter().enumerate() {
            let (lo, hi) = decl.range;
            if decl.param == Param::CrossTrafficUsers {
                let mut seen: Vec<f64> = lhs.iter().map(|p| p.values[j].1).collect();
                seen.sort_by(f64::total_cmp);
                seen.dedup();
                let whole: Vec<f64> = (lo as u32..=hi as u32).map(f64::from).collect();
                assert_eq!(seen, whole, "{:?}", decl.param);
                continue;
            }
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
}
