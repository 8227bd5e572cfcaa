//! String built-ins: case, `trim`, `split`, `join`, prefix/suffix tests,
//! `contains`, `substr`, `replace`, and the regex ones (`sub`, `gsub`,
//! `test`, `captures`), which take their pattern unevaluated.

use super::{num, string, Builtin};
use crate::eval::{elements, err, eval, Env, EvalResult, Flow};
use crate::expr::Expr;
use crate::value::Value;

/// Applies `b`, one of this module's built-ins, to its evaluated
/// arguments `a`; `x` is the first (null when absent) and `name` is `b`
/// in lower case, for messages.
pub(super) fn apply(b: Builtin, x: Value, a: &[Value], name: &str) -> EvalResult {
    use Builtin::*;
    Ok(match b {
        Lower | Upper | Trim => match &x {
            Value::Null => Value::Null,
            v => {
                let s = string(v, name)?;
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
        // `scalar` routes only this module's built-ins here.
        _ => Value::Null,
    })
}

/// `sub`, `gsub`, `test` and `captures`: the pattern argument is compiled
/// from a regex literal without evaluating it, else from a string.
pub(super) fn regex(b: Builtin, args: &[Expr], row: &Value, env: &mut Env) -> EvalResult {
    use Builtin::*;
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
    match b {
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
    }
}

fn regex_arg(e: &Expr, row: &Value, env: &mut Env, f: &str) -> Result<regex::Regex, Flow> {
    if let Expr::Regex(re) = e {
        return Ok((**re).clone());
    }
    let p = eval(e, row, env)?;
    regex::Regex::new(string(&p, f)?).map_err(|e| Flow::Err(format!("{f}: invalid regex: {e}")))
}

#[cfg(test)]
mod tests {
    use crate::funcs::{scalar, Builtin};
    use crate::value::Value;

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
}
