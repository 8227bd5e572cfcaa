//! Conversions: `str`, `num`, `int`, `to_json`, `from_json`.

use super::{num, string, Builtin};
use crate::eval::{EvalResult, Flow};
use crate::value::Value;

/// Applies `b`, one of this module's built-ins, to its only argument `x`.
pub(super) fn apply(b: Builtin, x: Value) -> EvalResult {
    use Builtin::*;
    Ok(match b {
        ToStr => match x {
            Value::Str(s) => Value::Str(s),
            other => Value::Str(crate::json::to_string(&other)),
        },
        ToNum => match &x {
            Value::Str(s) => s
                .trim()
                .parse::<f64>()
                .map(Value::Float)
                .map_err(|_| Flow::Err(format!("cannot convert \"{s}\" to a number")))?,
            Value::Int(i) => Value::Float(*i as f64),
            Value::Null => Value::Null,
            other => Value::Float(num(other, "to_f")?.unwrap_or(0.0)),
        },
        ToInt => match &x {
            Value::Str(s) => s
                .trim()
                .parse::<i128>()
                .map(Value::Int)
                .or_else(|_| {
                    s.trim()
                        .parse::<f64>()
                        .map(|f| Value::Int(f.trunc() as i128))
                })
                .map_err(|_| Flow::Err(format!("cannot convert \"{s}\" to an integer")))?,
            Value::Float(f) => Value::Int(f.trunc() as i128),
            other => other.clone(),
        },
        ToJson => Value::Str(crate::json::to_string(&x)),
        FromJson => crate::json::parse::parse_document(string(&x, "from_json")?.as_bytes())
            .map_err(|e| Flow::Err(format!("from_json: {e}")))?,
        // `scalar` routes only this module's built-ins here.
        _ => Value::Null,
    })
}
