//! The partial-state format written by `--emit-partial` and read by
//! `--merge` (documented in docs/ndq.md, "Sharding").
//!
//! One JSON object per file:
//! `{"ndq_partial": 1, "plan": "<hex>", "query": "...", "approx": false,
//!   "stage": k, "state": [slot, ...]}`.
//! `plan` is a hash of the compiled query; `--merge` refuses states from a
//! different query. Floats are written in shortest round-trip form, so a
//! state survives the trip exactly. JSON has no infinity or NaN, and inputs
//! reach them (`1e999` parses to infinity), so a numeric field holds them as
//! the strings `"inf"`, `"-inf"` and `"nan"`; a `null` there (what earlier
//! writers put) still reads as NaN.

use indexmap::IndexMap;

use super::pct::{DdSketch, ExactVals, PctState};
use super::{Slot, State, SumAcc, Welford};
use crate::value::{Map, Value};

/// Format version written in `ndq_partial`.
pub const VERSION: i128 = 1;

fn obj(kind: &str, fields: Vec<(&str, Value)>) -> Value {
    let mut m = Map::default();
    m.insert("k".into(), Value::Str(kind.into()));
    for (k, v) in fields {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}

/// A numeric field's value: the float itself, or its name when JSON cannot
/// spell it.
fn f(x: f64) -> Value {
    if x.is_finite() {
        Value::Float(x)
    } else if x.is_nan() {
        Value::Str("nan".into())
    } else if x > 0.0 {
        Value::Str("inf".into())
    } else {
        Value::Str("-inf".into())
    }
}

/// Reads what [`f`] wrote (and an integer, which a hand-written state may
/// hold).
fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Null => Some(f64::NAN),
        Value::Str(s) => match s.as_str() {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        },
        x => x.as_f64(),
    }
}

fn u(x: u64) -> Value {
    Value::Int(i128::from(x))
}

fn buckets(b: &std::collections::BTreeMap<i32, u64>) -> Value {
    Value::Array(
        b.iter()
            .map(|(k, c)| Value::Array(vec![Value::Int(i128::from(*k)), u(*c)]))
            .collect(),
    )
}

/// Encodes a state.
pub fn state_to_value(s: &State) -> Value {
    Value::Array(s.slots.iter().map(slot_to_value).collect())
}

fn slot_to_value(s: &Slot) -> Value {
    match s {
        Slot::Count(n) => obj("count", vec![("n", u(*n))]),
        Slot::Sum(a) => obj(
            "sum",
            vec![
                ("int", Value::Str(a.int.to_string())),
                ("f", f(a.f)),
                ("c", f(a.c)),
                ("float", Value::Bool(a.any_float)),
                ("n", u(a.n)),
            ],
        ),
        Slot::Ext(v) => obj(
            "ext",
            vec![
                ("set", Value::Bool(v.is_some())),
                ("v", v.clone().unwrap_or_default()),
            ],
        ),
        Slot::Stdev(w) => obj(
            "welford",
            vec![("n", u(w.n)), ("mean", f(w.mean)), ("m2", f(w.m2))],
        ),
        Slot::Pct(PctState::Exact(vs)) => {
            let (all_int, vals) = match vs {
                ExactVals::Ints(is) => (true, is.iter().map(|&i| Value::Int(i)).collect()),
                ExactVals::Floats(fs) => (false, fs.iter().map(|&x| f(x)).collect()),
            };
            obj(
                "pct",
                vec![("int", Value::Bool(all_int)), ("v", Value::Array(vals))],
            )
        }
        Slot::Pct(PctState::Sketch(d)) => obj(
            "ddsketch",
            vec![
                ("alpha", f(super::pct::ALPHA)),
                ("pos", buckets(&d.pos)),
                ("neg", buckets(&d.neg)),
                ("zero", u(d.zero)),
            ],
        ),
        Slot::Distinct(m) => obj(
            "distinct",
            vec![("v", Value::Array(m.values().cloned().collect()))],
        ),
        Slot::CountDistinct(s) => {
            let mut keys: Vec<&String> = s.iter().collect();
            keys.sort();
            obj(
                "count_distinct",
                vec![(
                    "v",
                    Value::Array(keys.into_iter().map(|k| Value::Str(k.clone())).collect()),
                )],
            )
        }
        Slot::Rows(r) => obj(
            "rows",
            vec![(
                "v",
                Value::Array(
                    r.iter()
                        .map(|(k, v)| Value::Array(vec![k.clone(), v.clone()]))
                        .collect(),
                ),
            )],
        ),
        Slot::Reduce(_) => obj("reduce", vec![]),
        Slot::Groups(g) => obj(
            "groups",
            vec![(
                "g",
                Value::Array(
                    g.iter()
                        .map(|(k, st)| {
                            Value::Array(vec![Value::Str(k.clone()), state_to_value(st)])
                        })
                        .collect(),
                ),
            )],
        ),
    }
}

fn get<'a>(v: &'a Value, k: &str) -> Result<&'a Value, String> {
    match v {
        Value::Object(m) => m
            .get(k)
            .ok_or_else(|| format!("partial state: missing field \"{k}\"")),
        _ => Err("partial state: expected an object".into()),
    }
}

fn get_u(v: &Value, k: &str) -> Result<u64, String> {
    match get(v, k)? {
        Value::Int(i) if *i >= 0 => Ok(*i as u64),
        _ => Err(format!(
            "partial state: \"{k}\" must be a non-negative integer"
        )),
    }
}

fn get_f(v: &Value, k: &str) -> Result<f64, String> {
    num(get(v, k)?).ok_or_else(|| {
        format!("partial state: \"{k}\" must be a number, \"inf\", \"-inf\" or \"nan\"")
    })
}

fn get_arr<'a>(v: &'a Value, k: &str) -> Result<&'a [Value], String> {
    match get(v, k)? {
        Value::Array(a) => Ok(a),
        _ => Err(format!("partial state: \"{k}\" must be an array")),
    }
}

fn get_bool(v: &Value, k: &str) -> Result<bool, String> {
    match get(v, k)? {
        Value::Bool(b) => Ok(*b),
        _ => Err(format!("partial state: \"{k}\" must be a boolean")),
    }
}

fn read_buckets(v: &Value, k: &str) -> Result<std::collections::BTreeMap<i32, u64>, String> {
    let mut out = std::collections::BTreeMap::new();
    for b in get_arr(v, k)? {
        match b {
            Value::Array(p) => match p.as_slice() {
                [Value::Int(i), Value::Int(c)] if *c >= 0 => {
                    let i = i32::try_from(*i)
                        .map_err(|_| "partial state: bucket index out of range")?;
                    *out.entry(i).or_default() += *c as u64;
                }
                _ => return Err("partial state: bad sketch bucket".into()),
            },
            _ => return Err("partial state: bad sketch bucket".into()),
        }
    }
    Ok(out)
}

/// Decodes a state written by [`state_to_value`].
pub fn state_from_value(v: &Value, approx: bool) -> Result<State, crate::StateError> {
    let Value::Array(slots) = v else {
        return Err("partial state: \"state\" must be an array".into());
    };
    let slots = slots
        .iter()
        .map(|s| slot_from_value(s, approx))
        .collect::<Result<_, _>>()?;
    Ok(State { slots, approx })
}

fn slot_from_value(v: &Value, approx: bool) -> Result<Slot, crate::StateError> {
    let kind = match get(v, "k")? {
        Value::Str(s) => s.as_str(),
        _ => return Err("partial state: \"k\" must be a string".into()),
    };
    Ok(match kind {
        "count" => Slot::Count(get_u(v, "n")?),
        "sum" => Slot::Sum(SumAcc {
            int: match get(v, "int")? {
                Value::Str(s) => s.parse().map_err(|_| "partial state: bad integer sum")?,
                _ => return Err("partial state: \"int\" must be a string".into()),
            },
            f: get_f(v, "f")?,
            c: get_f(v, "c")?,
            any_float: get_bool(v, "float")?,
            n: get_u(v, "n")?,
        }),
        "ext" => Slot::Ext(if get_bool(v, "set")? {
            Some(get(v, "v")?.clone())
        } else {
            None
        }),
        "welford" => Slot::Stdev(Welford {
            n: get_u(v, "n")?,
            mean: get_f(v, "mean")?,
            m2: get_f(v, "m2")?,
        }),
        "pct" => {
            let arr = get_arr(v, "v")?;
            let vals = if get_bool(v, "int")? {
                ExactVals::Ints(
                    arr.iter()
                        .map(|x| match x {
                            Value::Int(i) => Ok(*i),
                            _ => Err("partial state: integer percentile values must be integers"),
                        })
                        .collect::<Result<Vec<i128>, _>>()?,
                )
            } else {
                ExactVals::Floats(
                    arr.iter()
                        .map(|x| {
                            num(x).ok_or(
                                "partial state: percentile values must be numbers, \"inf\", \"-inf\" or \"nan\"",
                            )
                        })
                        .collect::<Result<Vec<f64>, _>>()?,
                )
            };
            Slot::Pct(PctState::Exact(vals))
        }
        "ddsketch" => {
            if get_f(v, "alpha")? != super::pct::ALPHA {
                return Err("partial state: sketch accuracy differs from this build's".into());
            }
            let pos = read_buckets(v, "pos")?;
            let neg = read_buckets(v, "neg")?;
            let zero = get_u(v, "zero")?;
            let n = zero + pos.values().sum::<u64>() + neg.values().sum::<u64>();
            Slot::Pct(PctState::Sketch(DdSketch { pos, neg, zero, n }))
        }
        "distinct" => {
            let mut m = IndexMap::default();
            for x in get_arr(v, "v")? {
                m.entry(crate::json::to_string(x))
                    .or_insert_with(|| x.clone());
            }
            Slot::Distinct(m)
        }
        "count_distinct" => {
            Slot::CountDistinct(get_arr(v, "v")?.iter().map(Value::key_text).collect())
        }
        "rows" => Slot::Rows(
            get_arr(v, "v")?
                .iter()
                .map(|p| match p {
                    Value::Array(kv) if kv.len() == 2 => Ok((kv[0].clone(), kv[1].clone())),
                    _ => Err("partial state: rows must be [key, value] pairs".to_string()),
                })
                .collect::<Result<_, _>>()?,
        ),
        "groups" => {
            let mut g = IndexMap::default();
            for e in get_arr(v, "g")? {
                match e {
                    Value::Array(kv) if kv.len() == 2 => {
                        let Value::Str(k) = &kv[0] else {
                            return Err("partial state: group keys must be strings".into());
                        };
                        g.insert(k.clone(), state_from_value(&kv[1], approx)?);
                    }
                    _ => return Err("partial state: groups must be [key, state] pairs".into()),
                }
            }
            Slot::Groups(g)
        }
        other => return Err(format!("partial state: unknown slot kind \"{other}\"").into()),
    })
}
