//! `range`: Ruby `step`-style numeric sequences.

use super::num;
use crate::eval::{err, EvalResult};
use crate::value::Value;

/// `range(to)`, `range(from, to)`, `range(from, to, step)`: inclusive of
/// `to` like Ruby's `step`. Float steps are computed as `from + i·step`
/// rounded to 12 significant digits, so `range(0.05, 0.95, 0.1)` yields
/// exactly 0.05, 0.15, ..., 0.95.
pub(crate) fn range(a: &[Value]) -> EvalResult {
    if let Some(ints) = a
        .iter()
        .map(|v| match v {
            // Bounds past i64 are taken as floats (such a range is
            // longer than any list ndq builds anyway).
            Value::Int(i) => i64::try_from(*i).ok(),
            _ => None,
        })
        .collect::<Option<Vec<i64>>>()
    {
        return int_range(&ints);
    }
    let nums: Vec<f64> = a
        .iter()
        .map(|v| num(v, "range").map(|o| o.unwrap_or(0.0)))
        .collect::<Result<_, _>>()?;
    let (from, to, step) = match nums.as_slice() {
        [to] => (0.0, *to, 1.0),
        [f, t] => (*f, *t, 1.0),
        [f, t, s] => (*f, *t, *s),
        _ => return err("range takes 1 to 3 arguments"),
    };
    if step == 0.0 || !step.is_finite() {
        return err("range step must be a non-zero number");
    }
    let n = ((to - from) / step + 1e-9).floor();
    if n < 0.0 {
        return Ok(Value::Array(Vec::new()));
    }
    if n > 10_000_000.0 {
        return err("range would produce more than 10 million values");
    }
    Ok(Value::Array(
        (0..=n as i64)
            .map(|i| Value::Float(round_sig(from + i as f64 * step, 12)))
            .collect(),
    ))
}

/// `range` over integers, in integer arithmetic: exact beyond 2^53 too.
fn int_range(a: &[i64]) -> EvalResult {
    let (from, to, step) = match *a {
        [to] => (0, to, 1),
        [f, t] => (f, t, 1),
        [f, t, s] => (f, t, s),
        _ => return err("range takes 1 to 3 arguments"),
    };
    if step == 0 {
        return err("range step must be a non-zero number");
    }
    let span = i128::from(to) - i128::from(from);
    let n = span / i128::from(step);
    if n < 0 || (n == 0 && span != 0 && span.signum() != i128::from(step).signum()) {
        return Ok(Value::Array(Vec::new()));
    }
    if n > 10_000_000 {
        return err("range would produce more than 10 million values");
    }
    Ok(Value::Array(
        (0..=n)
            .map(|i| Value::Int(i128::from(from) + i * i128::from(step)))
            .collect(),
    ))
}

fn round_sig(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let mag = x.abs().log10().floor() as i32;
    let p = 10f64.powi(digits - 1 - mag);
    (x * p).round() / p
}

#[cfg(test)]
mod tests {
    use super::range;
    use crate::value::Value;

    #[test]
    fn range_is_inclusive_and_clean() {
        let r = range(&[Value::Float(0.05), Value::Float(0.95), Value::Float(0.1)]).unwrap();
        let Value::Array(v) = r else { panic!() };
        assert_eq!(v.len(), 10);
        assert_eq!(v[1], Value::Float(0.15));
        assert_eq!(v[9], Value::Float(0.95));
        assert_eq!(
            range(&[Value::Int(3)]).unwrap(),
            Value::Array(vec![0.into(), 1.into(), 2.into(), 3.into()])
        );
    }
}
