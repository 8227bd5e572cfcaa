//! Streaming aggregation states: update per value, merge partial states in
//! input order, finish into a value.
//!
//! Every state except `reduce` merges, so a query's aggregation can run on
//! chunks in parallel (or on shards on other machines, see [`partial`]) and
//! give the same answer as one pass. Integer sums are exact (i128); float
//! sums use Neumaier compensation, and chunking is fixed by the input bytes
//! (not the thread count), so `-P 1` and `-P N` are bit-identical.

pub mod partial;
pub mod pct;

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashSet};

use crate::eval::{err, eval, with_params, Env, EvalResult, Flow};
use crate::expr::{AggKind, AggPlan, EachOut};
use crate::value::{Map, Value};
use pct::PctState;

/// Sum of f64 with Neumaier compensation.
pub fn neumaier_sum(xs: &[f64]) -> f64 {
    let mut s = SumAcc::default();
    xs.iter().for_each(|x| s.add_f(*x));
    s.float_total()
}

/// An exact integer / compensated float sum.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SumAcc {
    /// Exact sum of the integer inputs.
    pub int: i128,
    /// Compensated sum of the float inputs.
    pub f: f64,
    /// Neumaier compensation term.
    pub c: f64,
    /// Whether any float was added (the result is then a float).
    pub any_float: bool,
    /// Number of values.
    pub n: u64,
}

impl SumAcc {
    fn add_f(&mut self, x: f64) {
        let t = self.f + x;
        if self.f.abs() >= x.abs() {
            self.c += (self.f - t) + x;
        } else {
            self.c += (x - t) + self.f;
        }
        self.f = t;
    }

    fn add(&mut self, v: &Value, what: &str) -> Result<(), Flow> {
        match v {
            Value::Int(i) => self.add_int(*i),
            Value::Float(x) => {
                self.any_float = true;
                self.add_f(*x)
            }
            Value::Null => return Ok(()),
            other => {
                return err(format!(
                    "{what} of a {} (expected a number)",
                    other.type_name()
                ))
            }
        }
        self.n += 1;
        Ok(())
    }

    /// Integers are summed exactly in i128; past its range (which input
    /// integers, at most 2^64 each, reach only after 2^63 rows) the
    /// excess goes to the float part, as DuckDB's HUGEINT sum would fail.
    fn add_int(&mut self, i: i128) {
        match self.int.checked_add(i) {
            Some(t) => self.int = t,
            None => {
                self.any_float = true;
                self.add_f(i as f64);
            }
        }
    }

    fn merge(&mut self, o: &SumAcc) {
        self.add_int(o.int);
        self.add_f(o.f);
        self.c += o.c;
        self.any_float |= o.any_float;
        self.n += o.n;
    }

    fn float_total(&self) -> f64 {
        self.f + self.c
    }

    fn total(&self) -> f64 {
        self.int as f64 + self.float_total()
    }

    fn finish_sum(&self) -> Value {
        if self.any_float {
            Value::Float(self.total())
        } else {
            Value::Int(self.int)
        }
    }
}

/// Welford's running mean/variance with Chan et al.'s parallel merge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Welford {
    /// Count.
    pub n: u64,
    /// Running mean.
    pub mean: f64,
    /// Sum of squared deviations.
    pub m2: f64,
}

impl Welford {
    /// Adds one value.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    fn merge(&mut self, o: &Welford) {
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = o.clone();
            return;
        }
        let n = (self.n + o.n) as f64;
        let d = o.mean - self.mean;
        self.mean += d * o.n as f64 / n;
        self.m2 += o.m2 + d * d * self.n as f64 * o.n as f64 / n;
        self.n += o.n;
    }

    /// Population (or sample) standard deviation; null when undefined.
    pub fn finish(&self, sample: bool) -> Value {
        match (self.n, sample) {
            (0, _) | (1, true) => Value::Null,
            (n, false) => Value::Float((self.m2 / n as f64).max(0.0).sqrt()),
            (n, true) => Value::Float((self.m2 / (n - 1) as f64).max(0.0).sqrt()),
        }
    }
}

/// The state of one aggregation.
#[derive(Debug, Clone)]
pub enum Slot {
    /// count / count_if
    Count(u64),
    /// sum / average
    Sum(SumAcc),
    /// min / max / first / last: the current extreme.
    Ext(Option<Value>),
    /// stdev
    Stdev(Welford),
    /// percentiles
    Pct(PctState),
    /// distinct values by canonical JSON, first-seen order
    Distinct(IndexMap<String, Value, FxBuildHasher>),
    /// count_distinct
    CountDistinct(FxHashSet<String>),
    /// group / sort / top: (key, value) in input order
    Rows(Vec<(Value, Value)>),
    /// reduce accumulator (None until the first value)
    Reduce(Option<Value>),
    /// group_by / per-element: one nested state per key, first-seen order
    Groups(IndexMap<String, State, FxBuildHasher>),
}

/// The states of one [`AggPlan`]'s aggregations.
#[derive(Debug, Clone)]
pub struct State {
    /// One slot per aggregation.
    pub slots: Vec<Slot>,
    /// Use bounded-memory sketches for percentiles (`--approx`).
    pub approx: bool,
}

impl State {
    /// Fresh exact state for `plan`.
    pub fn new_plan(plan: &AggPlan) -> State {
        State::with_mode(plan, false)
    }

    /// Fresh state; `approx` selects percentile sketches.
    pub fn with_mode(plan: &AggPlan, approx: bool) -> State {
        let slots = plan
            .aggs
            .iter()
            .map(|k| match k {
                AggKind::Count(_) | AggKind::CountIf(_) => Slot::Count(0),
                AggKind::Sum(_) | AggKind::Avg(_) => Slot::Sum(SumAcc::default()),
                AggKind::Min(_) | AggKind::Max(_) | AggKind::First(..) => Slot::Ext(None),
                AggKind::Stdev(..) => Slot::Stdev(Welford::default()),
                AggKind::Pct { .. } => Slot::Pct(PctState::new(approx)),
                AggKind::Distinct(_) => Slot::Distinct(IndexMap::default()),
                AggKind::CountDistinct(_) => Slot::CountDistinct(FxHashSet::default()),
                AggKind::Group(_) | AggKind::Sort(..) | AggKind::Top(..) => Slot::Rows(Vec::new()),
                AggKind::Reduce { .. } => Slot::Reduce(None),
                AggKind::GroupBy(..) | AggKind::Each { .. } => Slot::Groups(IndexMap::default()),
            })
            .collect();
        State { slots, approx }
    }

    /// Feeds the current value `row` to every aggregation of `plan`.
    pub fn update_plan(&mut self, plan: &AggPlan, row: &Value, env: &mut Env) -> Result<(), Flow> {
        for (slot, kind) in self.slots.iter_mut().zip(&plan.aggs) {
            match update(slot, kind, row, env, self.approx) {
                Ok(()) | Err(Flow::Drop) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Merges `other` (the state of later input) into `self`.
    pub fn merge(&mut self, other: State, plan: &AggPlan) -> Result<(), crate::StateError> {
        for ((a, b), kind) in self.slots.iter_mut().zip(other.slots).zip(&plan.aggs) {
            merge(a, b, kind)?;
        }
        Ok(())
    }

    /// Finishes the aggregations and assembles `plan.template`.
    pub fn finish_plan(self, plan: &AggPlan, env: &mut Env) -> EvalResult {
        let mut results = Vec::with_capacity(self.slots.len());
        for (slot, kind) in self.slots.into_iter().zip(&plan.aggs) {
            results.push(finish(slot, kind, env)?);
        }
        let saved = std::mem::replace(&mut env.aggs, results);
        let r = eval(&plan.template, &Value::Null, env);
        env.aggs = saved;
        r
    }
}

fn update(
    slot: &mut Slot,
    kind: &AggKind,
    row: &Value,
    env: &mut Env,
    approx: bool,
) -> Result<(), Flow> {
    match (slot, kind) {
        (Slot::Count(n), AggKind::Count(None)) => *n += 1,
        (Slot::Count(n), AggKind::Count(Some(e))) => {
            if !matches!(eval(e, row, env)?, Value::Null) {
                *n += 1
            }
        }
        (Slot::Count(n), AggKind::CountIf(e)) => {
            if eval(e, row, env)?.truthy() {
                *n += 1
            }
        }
        (Slot::Sum(s), AggKind::Sum(e)) => s.add(&eval(e, row, env)?, "sum")?,
        (Slot::Sum(s), AggKind::Avg(e)) => s.add(&eval(e, row, env)?, "average")?,
        (Slot::Ext(cur), AggKind::Min(e) | AggKind::Max(e)) => {
            let v = eval(e, row, env)?;
            let want = if matches!(kind, AggKind::Min(_)) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            };
            if !matches!(v, Value::Null) && cur.as_ref().is_none_or(|c| v.total_cmp(c) == want) {
                *cur = Some(v);
            }
        }
        (Slot::Ext(cur), AggKind::First(e, last)) => {
            if cur.is_none() || *last {
                let v = eval(e, row, env)?;
                if !matches!(v, Value::Null) {
                    *cur = Some(v);
                }
            }
        }
        (Slot::Stdev(w), AggKind::Stdev(e, _)) => match eval(e, row, env)? {
            Value::Null => {}
            v => match v.as_f64() {
                Some(x) => w.push(x),
                None => return err(format!("stdev of a {} (expected a number)", v.type_name())),
            },
        },
        (Slot::Pct(p), AggKind::Pct { arg, .. }) => p.add(&eval(arg, row, env)?)?,
        (Slot::Distinct(m), AggKind::Distinct(e)) => {
            let v = eval(e, row, env)?;
            if !matches!(v, Value::Null) {
                m.entry(crate::json::to_string(&v)).or_insert(v);
            }
        }
        (Slot::CountDistinct(s), AggKind::CountDistinct(e)) => {
            let v = eval(e, row, env)?;
            if !matches!(v, Value::Null) {
                s.insert(crate::json::to_string(&v));
            }
        }
        (Slot::Rows(rows), AggKind::Group(e)) => {
            let v = eval(e, row, env)?;
            if !matches!(v, Value::Null) {
                rows.push((Value::Null, v));
            }
        }
        (Slot::Rows(rows), AggKind::Sort(key, _)) => {
            let k = match key {
                Some(k) => eval(k, row, env)?,
                None => row.clone(),
            };
            rows.push((k, row.clone()));
        }
        (Slot::Rows(rows), AggKind::Top(n, key)) => {
            let k = match key {
                Some(k) => eval(k, row, env)?,
                None => row.clone(),
            };
            rows.push((k, row.clone()));
            if rows.len() >= 2 * (*n).max(64) {
                prune_top(rows, *n);
            }
        }
        (
            Slot::Reduce(acc),
            AggKind::Reduce {
                init,
                acc: id,
                body,
            },
        ) => {
            let cur = match acc.take() {
                Some(a) => a,
                None => eval(init, &Value::Null, env)?,
            };
            let old = std::mem::replace(&mut env.vars[*id], cur);
            let r = eval(body, row, env);
            let prev = std::mem::replace(&mut env.vars[*id], old);
            match r {
                Ok(v) => *acc = Some(v),
                Err(Flow::Drop) => *acc = Some(prev),
                Err(e) => return Err(e),
            }
        }
        (Slot::Groups(g), AggKind::GroupBy(key, body)) => {
            let k = eval(key, row, env)?.key_text();
            let st = g.entry(k).or_insert_with(|| State::with_mode(body, approx));
            st.update_plan(body, row, env)?;
        }
        (
            Slot::Groups(g),
            AggKind::Each {
                coll,
                params,
                body,
                out,
            },
        ) => {
            let c = eval(coll, row, env)?;
            let items: Vec<(String, Value)> = match c {
                Value::Array(a) => a
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| (i.to_string(), v))
                    .collect(),
                Value::Object(m) if *out == EachOut::Object => m.into_iter().collect(),
                Value::Object(m) => m
                    .into_iter()
                    .map(|(k, v)| (k.clone(), Value::Array(vec![Value::Str(k), v])))
                    .collect(),
                Value::Null => Vec::new(),
                other => {
                    return err(format!(
                        "map needs an array or object, got {}",
                        other.type_name()
                    ))
                }
            };
            for (k, v) in items {
                let st = g.entry(k).or_insert_with(|| State::with_mode(body, approx));
                with_params(env, params, v, |env| st.update_plan(body, row, env))?;
            }
        }
        _ => return err("internal: aggregation state does not match its plan"),
    }
    Ok(())
}

/// Keeps the n rows with the largest keys (ties: earliest input first).
fn prune_top(rows: &mut Vec<(Value, Value)>, n: usize) {
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    rows.truncate(n);
}

fn merge(a: &mut Slot, b: Slot, kind: &AggKind) -> Result<(), crate::StateError> {
    match (a, b) {
        (Slot::Count(x), Slot::Count(y)) => *x += y,
        (Slot::Sum(x), Slot::Sum(y)) => x.merge(&y),
        (Slot::Ext(x), Slot::Ext(y)) => {
            if let Some(v) = y {
                let take = match (kind, x.as_ref()) {
                    (_, None) => true,
                    (AggKind::Min(_), Some(c)) => v.total_cmp(c).is_lt(),
                    (AggKind::Max(_), Some(c)) => v.total_cmp(c).is_gt(),
                    (AggKind::First(_, last), Some(_)) => *last,
                    _ => false,
                };
                if take {
                    *x = Some(v);
                }
            }
        }
        (Slot::Stdev(x), Slot::Stdev(y)) => x.merge(&y),
        (Slot::Pct(x), Slot::Pct(y)) => x.merge(y)?,
        (Slot::Distinct(x), Slot::Distinct(y)) => {
            for (k, v) in y {
                x.entry(k).or_insert(v);
            }
        }
        (Slot::CountDistinct(x), Slot::CountDistinct(y)) => x.extend(y),
        (Slot::Rows(x), Slot::Rows(y)) => {
            x.extend(y);
            if let AggKind::Top(n, _) = kind {
                prune_top(x, *n);
            }
        }
        (Slot::Groups(x), Slot::Groups(y)) => {
            let body = match kind {
                AggKind::GroupBy(_, b) => b,
                AggKind::Each { body, .. } => body,
                _ => return Err("internal: group state without a group plan".into()),
            };
            for (k, st) in y {
                match x.get_mut(&k) {
                    Some(mine) => mine.merge(st, body)?,
                    None => {
                        x.insert(k, st);
                    }
                }
            }
        }
        (Slot::Reduce(_), _) => {
            return Err("reduce cannot be merged (it runs in input order)".into())
        }
        _ => return Err("partial states do not match the query".into()),
    }
    Ok(())
}

fn finish(slot: Slot, kind: &AggKind, env: &mut Env) -> EvalResult {
    Ok(match (slot, kind) {
        (Slot::Count(n), _) => Value::Int(i128::from(n)),
        (Slot::Sum(s), AggKind::Avg(_)) => {
            if s.n == 0 {
                Value::Null
            } else {
                Value::Float(s.total() / s.n as f64)
            }
        }
        (Slot::Sum(s), _) => s.finish_sum(),
        (Slot::Ext(v), _) => v.unwrap_or(Value::Null),
        (Slot::Stdev(w), AggKind::Stdev(_, sample)) => w.finish(*sample),
        (
            Slot::Pct(p),
            AggKind::Pct {
                ps, scalar, method, ..
            },
        ) => {
            let vals = p.finish(ps, *method);
            if *scalar {
                vals.into_iter().next().unwrap_or(Value::Null)
            } else {
                Value::Array(vals)
            }
        }
        (Slot::Distinct(m), _) => Value::Array(m.into_values().collect()),
        (Slot::CountDistinct(s), _) => Value::Int(s.len() as i128),
        (Slot::Rows(rows), AggKind::Group(_)) => {
            Value::Array(rows.into_iter().map(|(_, v)| v).collect())
        }
        (Slot::Rows(mut rows), AggKind::Sort(_, desc)) => {
            // Stable: equal keys keep input order.
            if *desc {
                rows.sort_by(|a, b| b.0.total_cmp(&a.0));
            } else {
                rows.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            Value::Array(rows.into_iter().map(|(_, v)| v).collect())
        }
        (Slot::Rows(mut rows), AggKind::Top(n, _)) => {
            prune_top(&mut rows, *n);
            Value::Array(rows.into_iter().map(|(_, v)| v).collect())
        }
        (Slot::Reduce(acc), AggKind::Reduce { init, .. }) => match acc {
            Some(v) => v,
            None => eval(init, &Value::Null, env)?,
        },
        (Slot::Groups(g), AggKind::GroupBy(_, body)) => {
            let mut m = Map::default();
            for (k, st) in g {
                m.insert(k, st.finish_plan(body, env)?);
            }
            Value::Object(m)
        }
        (Slot::Groups(g), AggKind::Each { body, out, .. }) => {
            let mut m = Map::default();
            for (k, st) in g {
                m.insert(k, st.finish_plan(body, env)?);
            }
            match out {
                EachOut::Object => Value::Object(m),
                EachOut::Array => Value::Array(m.into_values().collect()),
            }
        }
        _ => return err("internal: aggregation state does not match its plan"),
    })
}
