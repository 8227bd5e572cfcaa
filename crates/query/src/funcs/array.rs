//! Array built-ins: `first`, `last`, `reverse`, `flatten`, `uniq`, `zip`,
//! and the per-value forms of the aggregations (`_.xs.sum()`,
//! `.median()`, `.percentile(p)`, ...), which skip nulls like the
//! aggregations do.

use super::{num, Builtin};
use crate::eval::{elements, err, EvalResult, Flow};
use crate::expr::PctMethod;
use crate::value::Value;

/// Applies `b`, one of this module's built-ins, to its evaluated
/// arguments `a`; `x` is the first (null when absent) and `name` is `b`
/// in lower case, for messages.
pub(super) fn apply(b: Builtin, x: Value, mut a: Vec<Value>, name: &str) -> EvalResult {
    use Builtin::*;
    Ok(match b {
        First | Last => match x {
            Value::Array(v) => (if b == First {
                v.into_iter().next()
            } else {
                v.into_iter().next_back()
            })
            .unwrap_or(Value::Null),
            Value::Null => Value::Null,
            o => return err(format!("{name} needs an array, got {}", o.type_name())),
        },
        Reverse => match x {
            Value::Array(mut v) => {
                v.reverse();
                Value::Array(v)
            }
            Value::Str(s) => Value::Str(s.chars().rev().collect()),
            o => o,
        },
        Flatten => {
            fn flat(v: Vec<Value>, out: &mut Vec<Value>, depth: usize) {
                for x in v {
                    match x {
                        Value::Array(inner) if depth < 64 => flat(inner, out, depth + 1),
                        o => out.push(o),
                    }
                }
            }
            let mut out = Vec::new();
            flat(elements(x, "flatten")?, &mut out, 0);
            Value::Array(out)
        }
        Uniq => {
            let mut seen = std::collections::HashSet::new();
            Value::Array(
                elements(x, "uniq")?
                    .into_iter()
                    .filter(|v| seen.insert(crate::json::to_string(v)))
                    .collect(),
            )
        }
        Zip => {
            let lists: Vec<Vec<Value>> = a
                .into_iter()
                .map(|v| elements(v, "zip"))
                .collect::<Result<_, _>>()?;
            let n = lists.first().map_or(0, Vec::len);
            Value::Array(
                (0..n)
                    .map(|i| {
                        Value::Array(
                            lists
                                .iter()
                                .map(|l| l.get(i).cloned().unwrap_or(Value::Null))
                                .collect(),
                        )
                    })
                    .collect(),
            )
        }
        ArrSum | ArrAvg => {
            let v = numbers(&x, name)?;
            let all_int = all_ints(&x);
            let s: f64 = crate::agg::neumaier_sum(&v);
            if b == ArrAvg {
                if v.is_empty() {
                    Value::Null
                } else {
                    Value::Float(s / v.len() as f64)
                }
            } else if all_int {
                let xs = if let Value::Array(xs) = &x {
                    xs.as_slice()
                } else {
                    &[]
                };
                xs.iter()
                    .try_fold(0i128, |t, e| match e {
                        Value::Int(i) => t.checked_add(*i),
                        _ => Some(t),
                    })
                    .map_or(Value::Float(s), Value::Int)
            } else {
                Value::Float(s)
            }
        }
        ArrMin | ArrMax => {
            let it = elements(x, name)?
                .into_iter()
                .filter(|v| !matches!(v, Value::Null));
            let r = if b == ArrMin {
                it.min_by(|p, q| p.total_cmp(q))
            } else {
                it.max_by(|p, q| p.total_cmp(q))
            };
            r.unwrap_or(Value::Null)
        }
        ArrSort => {
            let mut v = elements(x, "sort")?;
            v.sort_by(|p, q| p.total_cmp(q));
            Value::Array(v)
        }
        ArrMedian | ArrPct | ArrPctCont => {
            // Validates the elements (numbers and nulls only).
            numbers(&x, name)?;
            let method = if b == ArrPct {
                PctMethod::Disc
            } else {
                PctMethod::Cont
            };
            let p = if b == ArrMedian {
                Value::Float(0.5)
            } else {
                a.swap_remove(1)
            };
            let (ps, scalar) =
                crate::plan::percentile_list(&p).map_err(|e| Flow::Err(e.to_string()))?;
            // Integers stay exact, as in the `percentile` aggregation.
            let mut vals = crate::agg::pct::ExactVals::Ints(Vec::new());
            if let Value::Array(items) = &x {
                let numeric = |i: &&Value| match i {
                    Value::Int(_) => true,
                    Value::Float(f) => !f.is_nan(),
                    _ => false,
                };
                for item in items.iter().filter(numeric) {
                    vals.push(item);
                }
            }
            let out = vals.finish(&ps, method);
            if scalar {
                out.into_iter().next().unwrap_or(Value::Null)
            } else {
                Value::Array(out)
            }
        }
        ArrStdev => {
            let v = numbers(&x, "stdev")?;
            let mut w = crate::agg::Welford::default();
            v.iter().for_each(|f| w.push(*f));
            w.finish(false)
        }
        // `scalar` routes only this module's built-ins here.
        _ => Value::Null,
    })
}

/// Numbers of an array (nulls skipped), for the array aggregations.
fn numbers(v: &Value, f: &str) -> Result<Vec<f64>, Flow> {
    let Value::Array(a) = v else {
        return err(format!("{f} needs an array, got {}", v.type_name()));
    };
    let mut out = Vec::with_capacity(a.len());
    for x in a {
        if let Some(n) = num(x, f)? {
            out.push(n);
        }
    }
    Ok(out)
}

/// Whether `x` is an array of integers and nulls: then the sum stays an
/// integer and percentiles pick integers, as in the aggregations.
fn all_ints(x: &Value) -> bool {
    matches!(x, Value::Array(xs) if xs.iter().all(|e| matches!(e, Value::Int(_) | Value::Null)))
}

#[cfg(test)]
mod tests {
    use crate::funcs::{scalar, Builtin};
    use crate::value::Value;

    #[test]
    fn array_aggregates_as_methods() {
        let a = Value::Array(vec![
            Value::Int(3),
            Value::Int(1),
            Value::Null,
            Value::Int(2),
        ]);
        assert_eq!(
            scalar(Builtin::ArrSum, vec![a.clone()]).unwrap(),
            Value::Int(6)
        );
        assert_eq!(
            scalar(Builtin::ArrMin, vec![a.clone()]).unwrap(),
            Value::Int(1)
        );
        assert_eq!(
            scalar(Builtin::ArrAvg, vec![a.clone()]).unwrap(),
            Value::Float(2.0)
        );
        assert_eq!(
            scalar(Builtin::ArrMedian, vec![a]).unwrap(),
            Value::Float(2.0)
        );
    }

    #[test]
    fn zip_pairs() {
        let z = scalar(
            Builtin::Zip,
            vec![
                Value::Array(vec![1.into(), 2.into()]),
                Value::Array(vec![3.into()]),
            ],
        )
        .unwrap();
        assert_eq!(crate::json::to_string(&z), "[[1,3],[2,null]]");
    }
}
