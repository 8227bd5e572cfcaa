//! Built-ins that take a lambda: `map`, `filter`, `reject`, `map_values`,
//! `any`, `all`, `sort_by`. Over an object they see `[key, value]` pairs.

use super::Builtin;
use crate::eval::{elements, err, eval, with_params, Env, EvalResult, Flow};
use crate::expr::Expr;
use crate::value::{Map as ObjMap, Value};

pub(crate) fn higher_order(b: Builtin, args: &[Expr], row: &Value, env: &mut Env) -> EvalResult {
    use Builtin::*;
    let coll = eval(&args[0], row, env)?;
    let Expr::Lambda(params, body) = &args[1] else {
        return err(format!("{b:?} needs a block or lambda, e.g. |x| x + 1").to_lowercase());
    };
    if b == MapValues {
        let Value::Object(m) = coll else {
            if matches!(coll, Value::Null) {
                return Ok(Value::Null);
            }
            return err(format!(
                "map_values needs an object, got {}",
                coll.type_name()
            ));
        };
        let mut out = ObjMap::default();
        for (k, v) in m {
            match with_params(env, params, v, |env| eval(body, row, env)) {
                Ok(x) => {
                    out.insert(k, x);
                }
                Err(Flow::Drop) => {}
                Err(e) => return Err(e),
            }
        }
        return Ok(Value::Object(out));
    }
    let was_object = matches!(coll, Value::Object(_));
    let items = elements(coll, &format!("{b:?}").to_lowercase())?;
    let mut out = Vec::new();
    let mut keyed = Vec::new();
    for item in items {
        let r = with_params(env, params, item.clone(), |env| eval(body, row, env));
        let r = match r {
            Err(Flow::Drop) => continue,
            other => other?,
        };
        match b {
            Map => out.push(r),
            Filter | Reject if r.truthy() == (b == Filter) => out.push(item),
            Any if r.truthy() => return Ok(Value::Bool(true)),
            All if !r.truthy() => return Ok(Value::Bool(false)),
            SortBy => keyed.push((r, item)),
            _ => {}
        }
    }
    match b {
        Any => Ok(Value::Bool(false)),
        All => Ok(Value::Bool(true)),
        SortBy => {
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            Ok(Value::Array(keyed.into_iter().map(|(_, v)| v).collect()))
        }
        Filter | Reject if was_object => {
            let mut m = ObjMap::default();
            for p in out {
                if let Value::Array(mut kv) = p {
                    let v = kv.pop().unwrap_or(Value::Null);
                    if let Some(Value::Str(k)) = kv.pop() {
                        m.insert(k, v);
                    }
                }
            }
            Ok(Value::Object(m))
        }
        _ => Ok(Value::Array(out)),
    }
}
