//! Percentiles: exact (values kept as f64, 8 bytes each) or, with
//! `--approx`, a DDSketch (Masson, Rim & Lee, VLDB 2019) with relative
//! accuracy [`ALPHA`]: every reported quantile q̂ satisfies
//! |q̂ − q| ≤ ALPHA·|q| where q is the exact value at the same rank. Memory
//! is one counter per occupied log-bucket: about 2,100 buckets span 1 µs to
//! 1 day at α = 1 %, independent of the number of values.
//!
//! Definitions (match DuckDB):
//! * `Disc` (jrf's `percentile`, DuckDB `quantile_disc`): index
//!   `max(1, n − floor(n − n·p)) − 1`, i.e. nearest rank `ceil(n·p) − 1`,
//!   computed with DuckDB's exact floating-point expression.
//! * `Cont` (DuckDB `quantile_cont`, `median`): rank `r = (n − 1)·p`,
//!   `lo + (r − floor r)·(hi − lo)`.

use std::collections::BTreeMap;

use crate::eval::{err, Flow};
use crate::expr::PctMethod;
use crate::value::Value;

/// DDSketch relative accuracy used by `--approx`.
pub const ALPHA: f64 = 0.01;
/// Magnitudes below this count as zero in the sketch.
const MIN_INDEXABLE: f64 = 1e-12;

/// Percentile accumulator.
#[derive(Debug, Clone, PartialEq)]
pub enum PctState {
    /// All values.
    Exact(ExactVals),
    /// Bounded-memory sketch.
    Sketch(DdSketch),
}

impl PctState {
    /// Empty accumulator.
    pub fn new(approx: bool) -> Self {
        if approx {
            PctState::Sketch(DdSketch::default())
        } else {
            PctState::Exact(ExactVals::Ints(Vec::new()))
        }
    }

    /// Adds a value (nulls are skipped, non-numbers are an error).
    pub fn add(&mut self, v: &Value) -> Result<(), Flow> {
        match v {
            Value::Null => return Ok(()),
            Value::Float(f) if f.is_nan() => return Ok(()),
            Value::Int(_) | Value::Float(_) => {}
            other => {
                return err(format!(
                    "percentile of a {} (expected a number)",
                    other.type_name()
                ))
            }
        }
        match self {
            PctState::Exact(vs) => vs.push(v),
            PctState::Sketch(s) => s.add(v.as_f64().unwrap_or(0.0)),
        }
        Ok(())
    }

    /// Merges later input's state.
    pub fn merge(&mut self, o: PctState) -> Result<(), crate::StateError> {
        match (self, o) {
            (PctState::Exact(a), PctState::Exact(b)) => a.extend(b),
            (PctState::Sketch(a), PctState::Sketch(b)) => a.merge(&b),
            _ => return Err("cannot merge an exact percentile state with an --approx one".into()),
        }
        Ok(())
    }

    /// Results for each p.
    pub fn finish(self, ps: &[f64], method: PctMethod) -> Vec<Value> {
        match self {
            PctState::Exact(vs) => vs.finish(ps, method),
            PctState::Sketch(s) => ps.iter().map(|&p| s.quantile(p, method)).collect(),
        }
    }
}

/// The values of an exact percentile. Integers stay `i128` while every
/// value is one, so results beyond 2^53 are values of the data (DuckDB on
/// BIGINT), not their nearest doubles.
#[derive(Debug, Clone, PartialEq)]
pub enum ExactVals {
    /// Every value so far was an integer.
    Ints(Vec<i128>),
    /// Some value was a float: all as `f64`.
    Floats(Vec<f64>),
}

impl ExactVals {
    /// Adds a number (the caller has checked it is `Int` or `Float`).
    pub fn push(&mut self, v: &Value) {
        match (&mut *self, v) {
            (ExactVals::Ints(is), Value::Int(i)) => is.push(*i),
            (ExactVals::Floats(fs), v) => fs.push(v.as_f64().unwrap_or(0.0)),
            (ExactVals::Ints(_), v) => {
                self.as_floats_mut().push(v.as_f64().unwrap_or(0.0));
            }
        }
    }

    /// Appends later input's values.
    pub fn extend(&mut self, o: ExactVals) {
        match (&mut *self, o) {
            (ExactVals::Ints(a), ExactVals::Ints(b)) => a.extend(b),
            (ExactVals::Floats(a), ExactVals::Floats(b)) => a.extend(b),
            (ExactVals::Floats(a), ExactVals::Ints(b)) => a.extend(b.iter().map(|&i| i as f64)),
            (ExactVals::Ints(_), ExactVals::Floats(b)) => self.as_floats_mut().extend(b),
        }
    }

    fn as_floats_mut(&mut self) -> &mut Vec<f64> {
        if let ExactVals::Ints(is) = self {
            *self = ExactVals::Floats(is.iter().map(|&i| i as f64).collect());
        }
        match self {
            ExactVals::Floats(fs) => fs,
            ExactVals::Ints(_) => unreachable!("converted above"),
        }
    }

    /// Results for each p.
    pub fn finish(self, ps: &[f64], method: PctMethod) -> Vec<Value> {
        match self {
            ExactVals::Ints(mut is) => {
                is.sort_unstable();
                ps.iter().map(|&p| exact_int(&is, p, method)).collect()
            }
            ExactVals::Floats(mut fs) => {
                fs.sort_unstable_by(f64::total_cmp);
                ps.iter().map(|&p| exact(&fs, p, method)).collect()
            }
        }
    }
}

/// DuckDB's discrete index.
fn disc_index(n: usize, p: f64) -> usize {
    let nf = n as f64;
    let floored = (nf - nf * p).floor().max(0.0) as usize;
    n.saturating_sub(floored).max(1) - 1
}

/// `quantile_cont`'s two ranks around `(n−1)·p` (clamped to the data)
/// and the weight of the upper one (0 when they coincide).
fn cont_ranks(n: usize, p: f64) -> (usize, usize, f64) {
    let rn = (n - 1) as f64 * p;
    let lo = (rn.floor() as usize).min(n - 1);
    let hi = (rn.ceil() as usize).min(n - 1);
    let frac = if lo == hi { 0.0 } else { rn - lo as f64 };
    (lo, hi, frac)
}

/// Exact percentile of sorted integers `vs`: `Disc` is one of them,
/// `Cont` interpolates in f64 (as DuckDB's `quantile_cont` returns DOUBLE),
/// the difference taken exactly.
pub fn exact_int(vs: &[i128], p: f64, method: PctMethod) -> Value {
    let n = vs.len();
    if n == 0 {
        return Value::Null;
    }
    match method {
        PctMethod::Disc => Value::Int(vs[disc_index(n, p).min(n - 1)]),
        PctMethod::Cont => {
            let (lo, hi, frac) = cont_ranks(n, p);
            let (a, b) = (vs[lo], vs[hi]);
            // Exact for input integers (i64/u64); saturates only past ±2^127.
            let diff = b.saturating_sub(a) as f64;
            Value::Float(a as f64 + frac * diff)
        }
    }
}

/// Exact percentile of sorted `vs`.
pub fn exact(vs: &[f64], p: f64, method: PctMethod) -> Value {
    let n = vs.len();
    if n == 0 {
        return Value::Null;
    }
    match method {
        PctMethod::Disc => Value::Float(vs[disc_index(n, p).min(n - 1)]),
        PctMethod::Cont => {
            let (lo, hi, frac) = cont_ranks(n, p);
            let (a, b) = (vs[lo], vs[hi]);
            Value::Float(a + frac * (b - a))
        }
    }
}

/// A DDSketch with unbounded (sparse) log-buckets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DdSketch {
    /// Positive values: bucket index → count.
    pub pos: BTreeMap<i32, u64>,
    /// Negative values by magnitude: bucket index → count.
    pub neg: BTreeMap<i32, u64>,
    /// Values with magnitude below the indexable minimum.
    pub zero: u64,
    /// Total count.
    pub n: u64,
}

fn gamma() -> f64 {
    (1.0 + ALPHA) / (1.0 - ALPHA)
}

impl DdSketch {
    fn index(x: f64) -> i32 {
        (x.ln() / gamma().ln()).ceil() as i32
    }

    fn value(i: i32) -> f64 {
        let g = gamma();
        2.0 * g.powi(i) / (g + 1.0)
    }

    /// Adds a value.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        if x.abs() < MIN_INDEXABLE {
            self.zero += 1;
        } else if x > 0.0 {
            *self.pos.entry(Self::index(x)).or_default() += 1;
        } else {
            *self.neg.entry(Self::index(-x)).or_default() += 1;
        }
    }

    /// Merges another sketch.
    pub fn merge(&mut self, o: &DdSketch) {
        for (k, c) in &o.pos {
            *self.pos.entry(*k).or_default() += c;
        }
        for (k, c) in &o.neg {
            *self.neg.entry(*k).or_default() += c;
        }
        self.zero += o.zero;
        self.n += o.n;
    }

    /// Value at 0-based rank.
    fn at_rank(&self, rank: u64) -> f64 {
        let mut seen = 0u64;
        for (k, c) in self.neg.iter().rev() {
            seen += c;
            if seen > rank {
                return -Self::value(*k);
            }
        }
        seen += self.zero;
        if seen > rank {
            return 0.0;
        }
        for (k, c) in &self.pos {
            seen += c;
            if seen > rank {
                return Self::value(*k);
            }
        }
        self.pos.keys().next_back().map_or(0.0, |k| Self::value(*k))
    }

    /// Approximate percentile under the same rank definitions as exact.
    pub fn quantile(&self, p: f64, method: PctMethod) -> Value {
        if self.n == 0 {
            return Value::Null;
        }
        let n = self.n as usize;
        match method {
            PctMethod::Disc => Value::Float(self.at_rank(disc_index(n, p) as u64)),
            PctMethod::Cont => {
                let rn = (n - 1) as f64 * p;
                let (lo, hi) = (rn.floor(), rn.ceil());
                let (a, b) = (self.at_rank(lo as u64), self.at_rank(hi as u64));
                Value::Float(a + (rn - lo) * (b - a))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_matches_jrf_readme() {
        let v = [10, 20, 30];
        assert_eq!(exact_int(&v, 0.5, PctMethod::Disc), Value::Int(20));
        let v = [10, 20, 30, 40];
        let got: Vec<Value> = [0.25, 0.5, 1.0]
            .iter()
            .map(|&p| exact_int(&v, p, PctMethod::Disc))
            .collect();
        assert_eq!(got, vec![Value::Int(10), Value::Int(20), Value::Int(40)]);
        assert_eq!(exact_int(&v, 0.0, PctMethod::Disc), Value::Int(10));
    }

    #[test]
    fn cont_interpolates() {
        let v = [10, 20, 30, 40];
        assert_eq!(exact_int(&v, 0.5, PctMethod::Cont), Value::Float(25.0));
        assert_eq!(exact_int(&v, 0.95, PctMethod::Cont), Value::Float(38.5));
    }

    #[test]
    fn integers_beyond_2_pow_53_stay_exact() {
        let big = 9_007_199_254_740_993i128;
        let mut st = PctState::new(false);
        for i in [big, big + 2, big - 2] {
            st.add(&Value::Int(i)).unwrap();
        }
        assert_eq!(st.finish(&[0.5], PctMethod::Disc), vec![Value::Int(big)]);
    }

    #[test]
    fn sketch_relative_error_bound() {
        let mut s = DdSketch::default();
        let mut exact_v = Vec::new();
        for i in 1..=10_000 {
            let x = (i as f64).powf(1.7);
            s.add(x);
            exact_v.push(x);
        }
        exact_v.sort_by(f64::total_cmp);
        for p in [0.01, 0.1, 0.5, 0.9, 0.99, 1.0] {
            let Value::Float(q) = s.quantile(p, PctMethod::Disc) else {
                panic!()
            };
            let Value::Float(e) = exact(&exact_v, p, PctMethod::Disc) else {
                panic!()
            };
            assert!((q - e).abs() <= ALPHA * e.abs() + 1e-9, "p={p} q={q} e={e}");
        }
    }
}
