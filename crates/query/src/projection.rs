//! Field projection: which top-level keys of each input line a query reads.
//! The scanner decodes only those (and validates the rest), which is what
//! makes single-field aggregations over wide stats lines fast.

use std::collections::BTreeSet;

use crate::expr::{AggKind, AggPlan, Expr};
use crate::plan::{Stage, StageKind};

/// Collects `_["k"]` keys of `e` into `keys`; false if `_` is used whole.
fn row_fields(e: &Expr, keys: &mut BTreeSet<String>) -> bool {
    match e {
        Expr::Row => false,
        Expr::Field(b, name) | Expr::FieldOr(b, name, _) if matches!(**b, Expr::Row) => {
            keys.insert(name.clone());
            true
        }
        Expr::Apply(c, _, plan) => row_fields(c, keys) && plan_fields(plan, keys),
        Expr::Agg(k) => agg_fields(k, keys),
        _ => {
            let mut ok = true;
            e.for_each_child(&mut |c| ok &= row_fields(c, keys));
            ok
        }
    }
}

fn plan_fields(p: &AggPlan, keys: &mut BTreeSet<String>) -> bool {
    p.aggs.iter().all(|k| agg_fields(k, keys)) && row_fields(&p.template, keys)
}

fn agg_fields(k: &AggKind, keys: &mut BTreeSet<String>) -> bool {
    match k {
        AggKind::Count(None) => true,
        AggKind::Count(Some(e))
        | AggKind::CountIf(e)
        | AggKind::Sum(e)
        | AggKind::Min(e)
        | AggKind::Max(e)
        | AggKind::Avg(e)
        | AggKind::Stdev(e, _)
        | AggKind::Distinct(e)
        | AggKind::CountDistinct(e)
        | AggKind::Group(e)
        | AggKind::First(e, _)
        | AggKind::Pct { arg: e, .. } => row_fields(e, keys),
        // Sort and top keep the whole value.
        AggKind::Sort(..) | AggKind::Top(..) => false,
        AggKind::Reduce { init, body, .. } => row_fields(init, keys) && row_fields(body, keys),
        AggKind::GroupBy(key, body) => row_fields(key, keys) && plan_fields(body, keys),
        AggKind::Each { coll, body, .. } => row_fields(coll, keys) && plan_fields(body, keys),
    }
}

/// The top-level keys the first stages read from each input line, or
/// `None` when some stage needs the whole value (then lines are fully parsed).
/// Stages that only filter (`select`) pass the line on, so the keys of the
/// following stages count too.
pub(crate) fn projection(stages: &[Stage]) -> Option<Vec<String>> {
    let mut keys = BTreeSet::new();
    for st in stages {
        match &st.kind {
            StageKind::Map(Expr::Select(c, t)) if matches!(**t, Expr::Row) => {
                if !row_fields(c, &mut keys) {
                    return None;
                }
                continue;
            }
            StageKind::Map(e) | StageKind::Flat(e) => {
                if !row_fields(e, &mut keys) {
                    return None;
                }
            }
            StageKind::Agg { plan, .. } => {
                if !plan_fields(plan, &mut keys) {
                    return None;
                }
            }
        }
        return Some(keys.into_iter().collect());
    }
    // Every stage passes the line through: it is printed whole.
    None
}

/// For a pipeline of filters only (`select(...) >> select(...)`), the keys
/// the filters read: such a query prints its input lines unchanged, so it
/// can print the original bytes instead of re-encoding a fully parsed row.
pub(crate) fn filter_projection(stages: &[Stage]) -> Option<Vec<String>> {
    let mut keys = BTreeSet::new();
    for st in stages {
        match &st.kind {
            StageKind::Map(Expr::Select(c, t))
                if matches!(**t, Expr::Row) && row_fields(c, &mut keys) => {}
            _ => return None,
        }
    }
    Some(keys.into_iter().collect())
}
