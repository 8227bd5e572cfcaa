//! Object and shape built-ins: `length`, `type`, `keys`, `values`,
//! `entries`, `has`, `from_entries`, `omit`, `pick`, `dig`.

use std::borrow::Cow;

use super::Builtin;
use crate::eval::{elements, err, EvalResult};
use crate::value::{Map as ObjMap, Value};

/// The built-ins that only read their first argument `x` (`length`,
/// `type`, `keys`, `has` with `key`): `x` may borrow the row. `keys` moves
/// the key strings out of an owned `x` and copies only them from a
/// borrowed one.
pub(super) fn inspect(b: Builtin, x: Cow<'_, Value>, key: &Value, name: &str) -> EvalResult {
    use Builtin::*;
    Ok(match b {
        Length => match &*x {
            Value::Str(s) => Value::Int(s.chars().count() as i128),
            Value::Array(v) => Value::Int(v.len() as i128),
            Value::Object(m) => Value::Int(m.len() as i128),
            Value::Null => Value::Int(0),
            other => return err(format!("length of a {}", other.type_name())),
        },
        Type => Value::Str(x.type_name().into()),
        Keys => match x {
            Cow::Borrowed(Value::Object(m)) => {
                Value::Array(m.keys().map(|k| Value::Str(k.clone())).collect())
            }
            Cow::Owned(Value::Object(m)) => Value::Array(m.into_keys().map(Value::Str).collect()),
            x if matches!(*x, Value::Null) => Value::Null,
            other => return err(format!("{name} needs an object, got {}", other.type_name())),
        },
        Has => match (&*x, key) {
            (Value::Object(m), Value::Str(k)) => Value::Bool(m.contains_key(k.as_str())),
            (Value::Null, _) => Value::Bool(false),
            (o, _) => {
                return err(format!(
                    "has needs an object and a string key, got {}",
                    o.type_name()
                ))
            }
        },
        // `call` and `scalar` route only the four above here.
        _ => return err(format!("internal: {name} is not a read-only built-in")),
    })
}

/// Applies `b`, one of this module's built-ins, to its evaluated
/// arguments `a`; `x` is the first (null when absent) and `name` is `b`
/// in lower case, for messages.
pub(super) fn apply(b: Builtin, x: Value, a: &[Value], name: &str) -> EvalResult {
    use Builtin::*;
    Ok(match b {
        Values | Entries => match x {
            Value::Object(m) => Value::Array(match b {
                Values => m.into_values().collect(),
                _ => m
                    .into_iter()
                    .map(|(k, v)| Value::Array(vec![Value::Str(k), v]))
                    .collect(),
            }),
            Value::Null => Value::Null,
            other => return err(format!("{name} needs an object, got {}", other.type_name())),
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
        // `scalar` routes only this module's built-ins here.
        _ => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use crate::{run_str, Format};

    fn run(q: &str, input: &str) -> String {
        run_str(q, input, Format::Json).unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn read_only_builtins_on_the_row_and_its_fields() {
        let row = r#"{"b":1,"a":{"y":2,"x":[1,2,3]},"s":"héllo","b":3}"#;
        // Borrowed from the row (`_`, `_.a`), and owned (a computed value):
        // the same answers, keys in document order, a repeated key once.
        let q = r#"[keys(_), keys(_.a), keys(_.a + {"z": 0}), has(_, "s"), has(_.a, "z"),
                    length(_), length(_.a.x), length(_.s), type(_.a), type(_.missing),
                    keys(_.missing), _.a.keys(), _.s.length()]"#;
        assert_eq!(
            run(q, row),
            "[[\"b\",\"a\",\"s\"],[\"y\",\"x\"],[\"y\",\"x\",\"z\"],true,false,3,3,5,\"object\",\"null\",null,[\"y\",\"x\"],5]\n"
        );
        assert!(run("keys(_.s)", row).contains("keys needs an object, got string"));
        // A stage of `_` or `_.name` hands the row, or the field, on.
        assert_eq!(run("_ >> _.a >> _.x >> flat", row), "1\n2\n3\n");
        assert_eq!(run("_.b", row), "3\n");
        assert_eq!(run("_.none", row), "null\n");
        assert!(run("_.s >> _.t", row).contains("cannot read field \"t\" of a string"));
        assert!(run("has(_.b, \"k\")", row).contains("has needs an object"));
    }
}
