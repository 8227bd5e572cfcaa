//! Built-in per-value functions: name table and implementations.
//!
//! Aggregation names (`sum`, `min`, `sort`, ...) called as functions are
//! aggregations over rows; the same names called as methods
//! (`_.items.sum()`) are these per-value array functions.

mod higher_order;
mod range;

use higher_order::higher_order;
use range::range;

use crate::eval::{elements, err, eval, Env, EvalResult, Flow};
use crate::expr::{Expr, PctMethod};
use crate::value::{Map as ObjMap, Value};

/// A built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Builtin {
    Length,
    Type,
    Keys,
    Values,
    Has,
    Entries,
    FromEntries,
    Omit,
    Pick,
    Dig,
    ToStr,
    ToNum,
    ToInt,
    ToJson,
    FromJson,
    Abs,
    Floor,
    Ceil,
    Round,
    Sqrt,
    Pow,
    Log,
    Log10,
    Log2,
    Exp,
    Lower,
    Upper,
    Trim,
    Split,
    Join,
    StartsWith,
    EndsWith,
    Contains,
    Sub,
    Gsub,
    Test,
    Captures,
    Substr,
    Replace,
    First,
    Last,
    Reverse,
    Flatten,
    Uniq,
    Zip,
    Range,
    ArrSum,
    ArrMin,
    ArrMax,
    ArrAvg,
    ArrMedian,
    ArrPct,
    ArrPctCont,
    ArrSort,
    ArrStdev,
    SortBy,
    Map,
    Filter,
    Reject,
    MapValues,
    Any,
    All,
    If,
    Coalesce,
}

/// Functions whose last argument is a lambda and whose collection defaults
/// to `_` when only the block is given (`map { |x| ... }`).
pub fn takes_block(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::Map
            | Builtin::Filter
            | Builtin::Reject
            | Builtin::MapValues
            | Builtin::Any
            | Builtin::All
            | Builtin::SortBy
    )
}

/// Looks up a per-value built-in; returns it with its (min, max) arity.
pub fn lookup(name: &str, method: bool) -> Option<(Builtin, usize, usize)> {
    use Builtin::*;
    let b = match name {
        "length" | "size" | "len" => (Length, 1, 1),
        "type" => (Type, 1, 1),
        "keys" => (Keys, 1, 1),
        "values" => (Values, 1, 1),
        "has" | "key?" | "has_key" => (Has, 2, 2),
        "entries" | "to_entries" => (Entries, 1, 1),
        "from_entries" | "to_h" => (FromEntries, 1, 1),
        "omit" | "del" | "except" => (Omit, 2, 64),
        "pick" | "slice" => (Pick, 2, 64),
        "dig" => (Dig, 2, 64),
        "str" | "to_s" | "tostring" => (ToStr, 1, 1),
        "num" | "to_f" | "tonumber" | "float" => (ToNum, 1, 1),
        "int" | "to_i" => (ToInt, 1, 1),
        "to_json" | "tojson" => (ToJson, 1, 1),
        "from_json" | "fromjson" => (FromJson, 1, 1),
        "abs" => (Abs, 1, 1),
        "floor" => (Floor, 1, 1),
        "ceil" => (Ceil, 1, 1),
        "round" => (Round, 1, 2),
        "sqrt" => (Sqrt, 1, 1),
        "pow" => (Pow, 2, 2),
        "log" | "ln" => (Log, 1, 1),
        "log10" => (Log10, 1, 1),
        "log2" => (Log2, 1, 1),
        "exp" => (Exp, 1, 1),
        "downcase" | "lower" => (Lower, 1, 1),
        "upcase" | "upper" => (Upper, 1, 1),
        "strip" | "trim" => (Trim, 1, 1),
        "split" => (Split, 2, 2),
        "join" => (Join, 1, 2),
        "starts_with" | "start_with?" | "startswith" => (StartsWith, 2, 2),
        "ends_with" | "end_with?" | "endswith" => (EndsWith, 2, 2),
        "contains" | "include?" | "includes" => (Contains, 2, 2),
        "sub" => (Sub, 3, 3),
        "gsub" => (Gsub, 3, 3),
        "test" | "matches" | "match?" => (Test, 2, 2),
        "captures" | "match" => (Captures, 2, 2),
        "substr" => (Substr, 2, 3),
        "replace" => (Replace, 3, 3),
        "reverse" => (Reverse, 1, 1),
        "flatten" => (Flatten, 1, 1),
        "uniq" | "unique" => (Uniq, 1, 1),
        "zip" => (Zip, 1, 64),
        "range" | "step" => (Range, 1, 3),
        "sort_by" => (SortBy, 2, 2),
        "map" => (Map, 2, 2),
        "filter" => (Filter, 2, 2),
        "reject" => (Reject, 2, 2),
        "map_values" => (MapValues, 2, 2),
        "any" | "any?" => (Any, 2, 2),
        "all" | "all?" => (All, 2, 2),
        "if" => (If, 2, 3),
        "coalesce" => (Coalesce, 1, 64),
        // Per-value array versions of aggregation names: method form only.
        "first" if method => (First, 1, 1),
        "last" if method => (Last, 1, 1),
        "sum" if method => (ArrSum, 1, 1),
        "min" if method => (ArrMin, 1, 1),
        "max" if method => (ArrMax, 1, 1),
        "average" | "avg" | "mean" if method => (ArrAvg, 1, 1),
        "median" if method => (ArrMedian, 1, 1),
        "percentile" | "percentile_disc" if method => (ArrPct, 2, 2),
        "percentile_cont" if method => (ArrPctCont, 2, 2),
        "sort" if method => (ArrSort, 1, 1),
        "stdev" if method => (ArrStdev, 1, 1),
        "count" if method => (Length, 1, 1),
        _ => return None,
    };
    Some(b)
}

pub(crate) fn num(v: &Value, f: &str) -> Result<Option<f64>, Flow> {
    match v {
        Value::Null => Ok(None),
        other => match other.as_f64() {
            Some(x) => Ok(Some(x)),
            None => err(format!("{f} needs a number, got {}", other.type_name())),
        },
    }
}

fn string<'a>(v: &'a Value, f: &str) -> Result<&'a str, Flow> {
    match v {
        Value::Str(s) => Ok(s),
        other => err(format!("{f} needs a string, got {}", other.type_name())),
    }
}

fn float_or_int(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::Int(f as i64)
    } else {
        Value::Float(f)
    }
}

fn regex_arg(e: &Expr, row: &Value, env: &mut Env, f: &str) -> Result<regex::Regex, Flow> {
    if let Expr::Regex(re) = e {
        return Ok((**re).clone());
    }
    let p = eval(e, row, env)?;
    regex::Regex::new(string(&p, f)?).map_err(|e| Flow::Err(format!("{f}: invalid regex: {e}")))
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

/// Calls built-in `b` (arguments are evaluated here so lambdas stay lazy).
pub fn call(b: Builtin, args: &[Expr], row: &Value, env: &mut Env) -> EvalResult {
    use Builtin::*;
    match b {
        Map | Filter | Reject | Any | All | SortBy | MapValues => {
            return higher_order(b, args, row, env)
        }
        If => {
            let c = eval(&args[0], row, env)?.truthy();
            return match (c, args.get(2)) {
                (true, _) => eval(&args[1], row, env),
                (false, Some(e)) => eval(e, row, env),
                (false, None) => Ok(Value::Null),
            };
        }
        Coalesce => {
            for a in args {
                let v = eval(a, row, env)?;
                if !matches!(v, Value::Null) {
                    return Ok(v);
                }
            }
            return Ok(Value::Null);
        }
        Sub | Gsub | Test | Captures => {
            let s = eval(&args[0], row, env)?;
            if matches!(s, Value::Null) {
                return Ok(if b == Test {
                    Value::Bool(false)
                } else {
                    Value::Null
                });
            }
            let name = format!("{b:?}").to_lowercase();
            let re = regex_arg(&args[1], row, env, &name)?;
            let s = string(&s, &name)?;
            return match b {
                Test => Ok(Value::Bool(re.is_match(s))),
                Captures => Ok(match re.captures(s) {
                    None => Value::Null,
                    Some(c) => Value::Array(
                        c.iter()
                            .map(|m| m.map_or(Value::Null, |m| Value::Str(m.as_str().into())))
                            .collect(),
                    ),
                }),
                _ => {
                    let rep = eval(&args[2], row, env)?;
                    let rep = string(&rep, &name)?;
                    Ok(Value::Str(
                        if b == Sub {
                            re.replacen(s, 1, rep)
                        } else {
                            re.replace_all(s, rep)
                        }
                        .into_owned(),
                    ))
                }
            };
        }
        _ => {}
    }
    let mut v = Vec::with_capacity(args.len());
    for a in args {
        v.push(eval(a, row, env)?);
    }
    scalar(b, v)
}

fn scalar(b: Builtin, mut a: Vec<Value>) -> EvalResult {
    use Builtin::*;
    let x = a.first().cloned().unwrap_or(Value::Null);
    let name = format!("{b:?}").to_lowercase();
    Ok(match b {
        Length => match &x {
            Value::Str(s) => Value::Int(s.chars().count() as i64),
            Value::Array(v) => Value::Int(v.len() as i64),
            Value::Object(m) => Value::Int(m.len() as i64),
            Value::Null => Value::Int(0),
            other => return err(format!("length of a {}", other.type_name())),
        },
        Type => Value::Str(x.type_name().into()),
        Keys | Values | Entries => match x {
            Value::Object(m) => Value::Array(match b {
                Keys => m.into_keys().map(Value::Str).collect(),
                Values => m.into_values().collect(),
                _ => m
                    .into_iter()
                    .map(|(k, v)| Value::Array(vec![Value::Str(k), v]))
                    .collect(),
            }),
            Value::Null => Value::Null,
            other => return err(format!("{name} needs an object, got {}", other.type_name())),
        },
        Has => match (&x, &a[1]) {
            (Value::Object(m), Value::Str(k)) => Value::Bool(m.contains_key(k.as_str())),
            (Value::Null, _) => Value::Bool(false),
            (o, _) => {
                return err(format!(
                    "has needs an object and a string key, got {}",
                    o.type_name()
                ))
            }
        },
        FromEntries => {
            let mut m = ObjMap::default();
            for e in elements(x, "from_entries")? {
                match e {
                    Value::Array(mut kv) if kv.len() == 2 => {
                        let v = kv.pop().unwrap_or(Value::Null);
                        let k = kv.pop().unwrap_or(Value::Null);
                        m.insert(k.key_text(), v);
                    }
                    _ => return err("from_entries needs [key, value] pairs"),
                }
            }
            Value::Object(m)
        }
        Omit | Pick => {
            let Value::Object(m) = x else {
                return Ok(Value::Null);
            };
            let keys: Vec<String> = a[1..]
                .iter()
                .flat_map(|k| match k {
                    Value::Array(ks) => ks.iter().map(Value::key_text).collect(),
                    k => vec![k.key_text()],
                })
                .collect();
            let keep = |k: &String| keys.contains(k) == (b == Pick);
            Value::Object(m.into_iter().filter(|(k, _)| keep(k)).collect())
        }
        Dig => {
            let mut cur = x;
            for k in &a[1..] {
                cur = crate::eval::index(&cur, k)?;
            }
            cur
        }
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
                .parse::<i64>()
                .map(Value::Int)
                .or_else(|_| {
                    s.trim()
                        .parse::<f64>()
                        .map(|f| Value::Int(f.trunc() as i64))
                })
                .map_err(|_| Flow::Err(format!("cannot convert \"{s}\" to an integer")))?,
            Value::Float(f) => Value::Int(f.trunc() as i64),
            other => other.clone(),
        },
        ToJson => Value::Str(crate::json::to_string(&x)),
        FromJson => crate::json::parse::parse_document(string(&x, "from_json")?.as_bytes())
            .map_err(|e| Flow::Err(format!("from_json: {e}")))?,
        Abs => match x {
            Value::Int(i) => Value::Int(i.saturating_abs()),
            other => num(&other, "abs")?.map_or(Value::Null, |f| Value::Float(f.abs())),
        },
        Floor | Ceil => match num(&x, &name)? {
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
        Sqrt | Log | Log10 | Log2 | Exp => match num(&x, &name)? {
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
        Lower | Upper | Trim => match &x {
            Value::Null => Value::Null,
            v => {
                let s = string(v, &name)?;
                Value::Str(match b {
                    Lower => s.to_lowercase(),
                    Upper => s.to_uppercase(),
                    _ => s.trim().to_string(),
                })
            }
        },
        Split => match &x {
            Value::Null => Value::Null,
            v => Value::Array(
                string(v, "split")?
                    .split(string(&a[1], "split")?)
                    .map(|p| Value::Str(p.into()))
                    .collect(),
            ),
        },
        Join => {
            let sep = match a.get(1) {
                Some(s) => string(s, "join")?.to_string(),
                None => String::new(),
            };
            let parts: Vec<String> = elements(x, "join")?
                .into_iter()
                .map(|v| match v {
                    Value::Str(s) => s,
                    Value::Null => String::new(),
                    o => crate::json::to_string(&o),
                })
                .collect();
            Value::Str(parts.join(&sep))
        }
        StartsWith | EndsWith => match (&x, &a[1]) {
            (Value::Str(s), Value::Str(p)) => Value::Bool(if b == StartsWith {
                s.starts_with(p.as_str())
            } else {
                s.ends_with(p.as_str())
            }),
            (Value::Null, _) => Value::Bool(false),
            _ => return err(format!("{name} needs two strings")),
        },
        Contains => match (&x, &a[1]) {
            (Value::Str(s), Value::Str(p)) => Value::Bool(s.contains(p.as_str())),
            (Value::Array(v), y) => Value::Bool(v.iter().any(|e| e.loose_eq(y))),
            (Value::Object(m), Value::Str(k)) => Value::Bool(m.contains_key(k.as_str())),
            (Value::Null, _) => Value::Bool(false),
            (o, _) => return err(format!("contains on a {}", o.type_name())),
        },
        Substr => {
            let s: Vec<char> = string(&x, "substr")?.chars().collect();
            let n = s.len() as i64;
            let start = num(&a[1], "substr")?.unwrap_or(0.0) as i64;
            let start = if start < 0 {
                (n + start).max(0)
            } else {
                start.min(n)
            };
            let len = match a.get(2) {
                Some(l) => num(l, "substr")?.unwrap_or(0.0).max(0.0) as i64,
                None => n,
            };
            let end = (start + len).min(n);
            Value::Str(s[start as usize..end.max(start) as usize].iter().collect())
        }
        Replace => Value::Str(
            string(&x, "replace")?.replace(string(&a[1], "replace")?, string(&a[2], "replace")?),
        ),
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
        Range => range(&a)?,
        ArrSum | ArrAvg => {
            let v = numbers(&x, &name)?;
            let all_int = matches!(&x, Value::Array(xs) if xs.iter().all(|e| matches!(e, Value::Int(_) | Value::Null)));
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
                let t: i128 = xs
                    .iter()
                    .map(|e| if let Value::Int(i) = e { *i as i128 } else { 0 })
                    .sum();
                i64::try_from(t).map_or(Value::Float(t as f64), Value::Int)
            } else {
                Value::Float(s)
            }
        }
        ArrMin | ArrMax => {
            let it = elements(x, &name)?
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
            let mut v = numbers(&x, &name)?;
            let all_int = matches!(&x, Value::Array(xs) if xs.iter().all(|e| matches!(e, Value::Int(_) | Value::Null)));
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
            let (ps, scalar) = crate::plan::percentile_list(&p).map_err(Flow::Err)?;
            v.sort_by(f64::total_cmp);
            let out: Vec<Value> = ps
                .iter()
                .map(|&p| crate::agg::pct::exact(&v, p, method, all_int))
                .collect();
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
        Map | Filter | Reject | MapValues | Any | All | SortBy | If | Coalesce | Sub | Gsub
        | Test | Captures => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn string_functions() {
        assert_eq!(
            scalar(Builtin::Lower, vec!["AbC".into()]).unwrap(),
            Value::from("abc")
        );
        assert_eq!(
            scalar(Builtin::Split, vec!["a,b".into(), ",".into()]).unwrap(),
            Value::Array(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            scalar(
                Builtin::Substr,
                vec!["hello".into(), Value::Int(1), Value::Int(3)]
            )
            .unwrap(),
            Value::from("ell")
        );
        assert!(scalar(Builtin::Lower, vec![Value::Int(1)]).is_err());
    }

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
