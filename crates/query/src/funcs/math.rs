//! Numeric built-ins: `abs`, `floor`, `ceil`, `round`, `sqrt`, `pow`,
//! `log`, `log10`, `log2`, `exp`. Null in, null out.

use super::{num, Builtin};
use crate::eval::EvalResult;
use crate::value::Value;

/// Applies `b`, one of this module's built-ins, to its evaluated
/// arguments `a`; `x` is the first (null when absent) and `name` is `b`
/// in lower case, for messages.
pub(super) fn apply(b: Builtin, x: Value, a: &[Value], name: &str) -> EvalResult {
    use Builtin::*;
    Ok(match b {
        Abs => match x {
            Value::Int(i) => Value::Int(i.saturating_abs()),
            other => num(&other, "abs")?.map_or(Value::Null, |f| Value::Float(f.abs())),
        },
        Floor | Ceil => match num(&x, name)? {
            None => Value::Null,
            Some(f) => float_or_int(if b == Floor { f.floor() } else { f.ceil() }),
        },
        Round => match (num(&x, "round")?, a.get(1)) {
            (None, _) => Value::Null,
            (Some(f), None) => float_or_int(f.round()),
            (Some(f), Some(d)) => {
                let d = num(d, "round")?.unwrap_or(0.0).clamp(-15.0, 15.0) as i32;
                let p = 10f64.powi(d);
                Value::Float((f * p).round() / p)
            }
        },
        Sqrt | Log | Log10 | Log2 | Exp => match num(&x, name)? {
            None => Value::Null,
            Some(f) => Value::Float(match b {
                Sqrt => f.sqrt(),
                Log => f.ln(),
                Log10 => f.log10(),
                Log2 => f.log2(),
                _ => f.exp(),
            }),
        },
        Pow => match (num(&x, "pow")?, num(&a[1], "pow")?) {
            (Some(p), Some(q)) => Value::Float(p.powf(q)),
            _ => Value::Null,
        },
        // `scalar` routes only this module's built-ins here.
        _ => Value::Null,
    })
}

/// An integral result as an integer (when it fits exactly in a double),
/// so `floor(2.5)` prints `2`, not `2.0`.
fn float_or_int(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::Int(f as i128)
    } else {
        Value::Float(f)
    }
}
