//! Per-value expression evaluation (a tree walk over [`Expr`]).

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::agg;
use crate::expr::Expr;
use crate::funcs;
use crate::lang::ast::{BinOp, Param, UnOp};
use crate::value::{Map, Value};

/// Why evaluation did not produce a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Flow {
    /// `select` rejected the value: drop the row (or the element in `map`).
    Drop,
    /// A runtime error (type mismatch etc.).
    Err(String),
}

/// Result of evaluating an expression.
pub type EvalResult = Result<Value, Flow>;

/// A runtime error.
pub fn err<T>(msg: impl Into<String>) -> Result<T, Flow> {
    Err(Flow::Err(msg.into()))
}

/// Variable slots and, while a template is assembled, aggregation results.
#[derive(Debug, Default)]
pub struct Env {
    /// One slot per variable id.
    pub vars: Vec<Value>,
    /// Finished aggregation results, read by [`Expr::AggRef`].
    pub aggs: Vec<Value>,
}

impl Env {
    /// An environment with `n` variable slots.
    pub fn new(n: usize) -> Self {
        Env {
            vars: vec![Value::Null; n],
            aggs: Vec::new(),
        }
    }

    fn set(&mut self, id: usize, v: Value) -> Value {
        match self.vars.get_mut(id) {
            Some(slot) => std::mem::replace(slot, v),
            None => Value::Null,
        }
    }
}

/// Binds `arg` to lambda parameters, runs `f`, then restores the slots (so
/// nested and re-entrant calls see their own bindings).
pub fn with_params<T>(
    env: &mut Env,
    params: &[Param],
    arg: Value,
    f: impl FnOnce(&mut Env) -> T,
) -> T {
    let mut saved: Vec<(usize, Value)> = Vec::new();
    let mut bind = |env: &mut Env, id: usize, v: Value| saved.push((id, env.set(id, v)));
    match params {
        [] => {}
        [Param::Var(id)] => bind(env, *id, arg),
        [Param::Tuple(ids)] => splat(env, ids.iter().copied(), arg, &mut bind),
        many => {
            // Several parameters and one array argument: destructure (Ruby
            // block semantics), so `|k, v|` works over entries and zip pairs.
            let ids: Vec<usize> = many
                .iter()
                .map(|p| match p {
                    Param::Var(id) => *id,
                    Param::Tuple(ids) => ids.first().copied().unwrap_or(usize::MAX),
                })
                .collect();
            splat(env, ids.into_iter(), arg, &mut bind)
        }
    }
    let r = f(env);
    for (id, v) in saved.into_iter().rev() {
        env.set(id, v);
    }
    r
}

fn splat(
    env: &mut Env,
    ids: impl Iterator<Item = usize>,
    arg: Value,
    bind: &mut impl FnMut(&mut Env, usize, Value),
) {
    let mut items = match arg {
        Value::Array(a) => a.into_iter(),
        other => vec![other].into_iter(),
    };
    for id in ids {
        bind(env, id, items.next().unwrap_or(Value::Null));
    }
}

/// Iterates a collection as lambda arguments: array elements, or
/// `[key, value]` pairs for an object.
pub fn elements(coll: Value, what: &str) -> Result<Vec<Value>, Flow> {
    match coll {
        Value::Array(a) => Ok(a),
        Value::Object(m) => Ok(m
            .into_iter()
            .map(|(k, v)| Value::Array(vec![Value::Str(k), v]))
            .collect()),
        Value::Null => Ok(Vec::new()),
        other => err(format!(
            "{what} needs an array or object, got {}",
            other.type_name()
        )),
    }
}

/// Evaluates `e` against the current value `row`.
pub fn eval(e: &Expr, row: &Value, env: &mut Env) -> EvalResult {
    match e {
        Expr::Lit(v) => Ok(v.clone()),
        Expr::Row => Ok(row.clone()),
        Expr::Var(id) => Ok(env.vars.get(*id).cloned().unwrap_or(Value::Null)),
        Expr::Field(base, name) => {
            if let Expr::Row = **base {
                return field(row, name);
            }
            let b = eval(base, row, env)?;
            field(&b, name)
        }
        Expr::FieldOr(base, name, b) => {
            let v = eval(base, row, env)?;
            match v {
                Value::Object(_) | Value::Null => field(&v, name),
                other => funcs::call(*b, &[Expr::Lit(other)], row, env),
            }
        }
        Expr::Index(base, key) => {
            let b = eval(base, row, env)?;
            let k = eval(key, row, env)?;
            index(&b, &k)
        }
        Expr::Array(xs) => {
            let mut out = Vec::with_capacity(xs.len());
            for x in xs {
                out.push(eval(x, row, env)?);
            }
            Ok(Value::Array(out))
        }
        Expr::Object(kv) => {
            let mut m = Map::default();
            for (k, v) in kv {
                let key = match eval(k, row, env)? {
                    Value::Str(s) => s,
                    other => other.key_text(),
                };
                m.insert(key, eval(v, row, env)?);
            }
            Ok(Value::Object(m))
        }
        Expr::Unary(UnOp::Not, a) => Ok(Value::Bool(!eval(a, row, env)?.truthy())),
        Expr::Unary(UnOp::Neg, a) => match eval(a, row, env)? {
            Value::Int(i) => Ok(i
                .checked_neg()
                .map_or(Value::Float(-(i as f64)), Value::Int)),
            Value::Float(f) => Ok(Value::Float(-f)),
            Value::Null => Ok(Value::Null),
            other => err(format!("cannot negate a {}", other.type_name())),
        },
        Expr::Binary(op, a, b) => {
            if let (BinOp::Match | BinOp::NotMatch, Expr::Regex(re)) = (op, &**b) {
                let s = eval(a, row, env)?;
                let m = match &s {
                    Value::Str(s) => re.is_match(s),
                    Value::Null => false,
                    other => {
                        return err(format!(
                            "=~ needs a string on the left, got {}",
                            other.type_name()
                        ))
                    }
                };
                return Ok(Value::Bool(m == (*op == BinOp::Match)));
            }
            let x = eval(a, row, env)?;
            let y = eval(b, row, env)?;
            binary(*op, x, y)
        }
        Expr::And(a, b) => {
            let x = eval(a, row, env)?;
            if x.truthy() {
                eval(b, row, env)
            } else {
                Ok(x)
            }
        }
        Expr::Or(a, b) => {
            let x = eval(a, row, env)?;
            if x.truthy() {
                Ok(x)
            } else {
                eval(b, row, env)
            }
        }
        Expr::Cond(c, a, b) => {
            if eval(c, row, env)?.truthy() {
                eval(a, row, env)
            } else {
                eval(b, row, env)
            }
        }
        Expr::Let(id, init, body) => {
            let v = eval(init, row, env)?;
            let old = env.set(*id, v);
            let r = eval(body, row, env);
            env.set(*id, old);
            r
        }
        Expr::Regex(_) => err("a regex can only be used with =~, !~ or a string function"),
        Expr::Call(b, args) => funcs::call(*b, args, row, env),
        Expr::Lambda(..) => err("a lambda can only be passed to a function such as map"),
        Expr::Select(c, target) => {
            if eval(c, row, env)?.truthy() {
                eval(target, row, env)
            } else {
                Err(Flow::Drop)
            }
        }
        Expr::Flat(_) => err("flat can only be a whole stage (e.g. `_.items >> flat`)"),
        Expr::Apply(coll, params, plan) => {
            let items = elements(eval(coll, row, env)?, "apply")?;
            let mut st = agg::State::new_plan(plan);
            for item in items {
                let r = with_params(env, params, item, |env| st.update_plan(plan, row, env));
                match r {
                    Ok(()) | Err(Flow::Drop) => {}
                    Err(e) => return Err(e),
                }
            }
            st.finish_plan(plan, env)
        }
        Expr::Agg(_) => err("an aggregation cannot be used here"),
        Expr::AggRef(i) => Ok(env.aggs.get(*i).cloned().unwrap_or(Value::Null)),
    }
}

/// Like [`eval`], but borrows instead of copying when `e` is the row itself
/// or a constant-key field of it: what read-only built-ins (`keys(_)`,
/// `has(_, k)`, `length(_.items)`) need, without a copy of a whole record.
pub fn eval_ref<'r>(e: &Expr, row: &'r Value, env: &mut Env) -> Result<Cow<'r, Value>, Flow> {
    match e {
        Expr::Row => Ok(Cow::Borrowed(row)),
        Expr::Field(base, name) if matches!(**base, Expr::Row) => match row {
            Value::Object(m) => Ok(m
                .get(name.as_str())
                .map_or(Cow::Owned(Value::Null), Cow::Borrowed)),
            other => field(other, name).map(Cow::Owned),
        },
        _ => eval(e, row, env).map(Cow::Owned),
    }
}

/// Like [`eval`], on a row the caller no longer needs: `_` passes it on and
/// `_.name` moves that field out, where [`eval`] would copy them (a stage
/// `_` or `_.items >> flat` costs no copy of the record or of the array).
pub fn eval_owned(e: &Expr, row: Value, env: &mut Env) -> EvalResult {
    match e {
        Expr::Row => Ok(row),
        Expr::Field(base, name) if matches!(**base, Expr::Row) => match row {
            Value::Object(m) => Ok(m.into_value(name).unwrap_or(Value::Null)),
            other => field(&other, name),
        },
        _ => eval(e, &row, env),
    }
}

/// `v["name"]`: null-safe on null and missing keys.
pub fn field(v: &Value, name: &str) -> EvalResult {
    match v {
        Value::Object(m) => Ok(m.get(name).cloned().unwrap_or(Value::Null)),
        Value::Null => Ok(Value::Null),
        other => err(format!(
            "cannot read field \"{name}\" of a {}",
            other.type_name()
        )),
    }
}

/// `v[k]`: object by string, array by integer (negative counts from the end).
pub fn index(v: &Value, k: &Value) -> EvalResult {
    match (v, k) {
        (Value::Object(_), Value::Str(s)) => field(v, s),
        (Value::Array(a), Value::Int(i)) => {
            let i = if *i < 0 { a.len() as i128 + *i } else { *i };
            Ok(usize::try_from(i)
                .ok()
                .and_then(|i| a.get(i))
                .cloned()
                .unwrap_or(Value::Null))
        }
        (Value::Array(a), Value::Float(f)) if f.fract() == 0.0 => {
            index(&Value::Array(a.clone()), &Value::Int(*f as i128))
        }
        (Value::Null, _) => Ok(Value::Null),
        (a, b) => err(format!(
            "cannot index a {} with a {}",
            a.type_name(),
            b.type_name()
        )),
    }
}

/// Applies a binary operator (not `&&`/`||`).
pub fn binary(op: BinOp, x: Value, y: Value) -> EvalResult {
    use Value::*;
    let cmp = |o: Ordering| -> bool {
        match op {
            BinOp::Eq => o == Ordering::Equal,
            BinOp::Ne => o != Ordering::Equal,
            BinOp::Lt => o == Ordering::Less,
            BinOp::Le => o != Ordering::Greater,
            BinOp::Gt => o == Ordering::Greater,
            _ => o != Ordering::Less,
        }
    };
    match op {
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            Ok(Bool(cmp(x.total_cmp(&y))))
        }
        BinOp::Match | BinOp::NotMatch => {
            let (Str(s), Str(p)) = (&x, &y) else {
                return err("=~ needs a string on the left and a regex or string on the right");
            };
            let re = regex::Regex::new(p).map_err(|e| Flow::Err(format!("invalid regex: {e}")))?;
            Ok(Bool(re.is_match(s) == (op == BinOp::Match)))
        }
        BinOp::Add => match (x, y) {
            (Int(a), Int(b)) => Ok(a.checked_add(b).map_or(Float(a as f64 + b as f64), Int)),
            (Str(mut a), Str(b)) => {
                a.push_str(&b);
                Ok(Str(a))
            }
            (Array(mut a), Array(b)) => {
                a.extend(b);
                Ok(Array(a))
            }
            (Object(mut a), Object(b)) => {
                a.extend(b);
                Ok(Object(a))
            }
            (Null, v) | (v, Null) => Ok(v),
            (a, b) => arith(op, &a, &b),
        },
        BinOp::Sub => match (&x, &y) {
            (Int(a), Int(b)) => Ok(a.checked_sub(*b).map_or(Float(*a as f64 - *b as f64), Int)),
            _ => arith(op, &x, &y),
        },
        BinOp::Mul => match (&x, &y) {
            (Int(a), Int(b)) => Ok(a.checked_mul(*b).map_or(Float(*a as f64 * *b as f64), Int)),
            _ => arith(op, &x, &y),
        },
        BinOp::Rem => match (&x, &y) {
            (Int(_), Int(0)) => err("remainder by zero"),
            (Int(a), Int(b)) => Ok(Int(a.checked_rem_euclid(*b).unwrap_or(0))),
            _ => arith(op, &x, &y),
        },
        BinOp::FloorDiv => match (&x, &y) {
            (Int(_), Int(0)) => err("division by zero"),
            (Int(a), Int(b)) => Ok(a
                .checked_div_euclid(*b)
                .map_or(Float((*a as f64 / *b as f64).floor()), Int)),
            _ => arith(op, &x, &y),
        },
        BinOp::Div => arith(op, &x, &y),
    }
}

fn arith(op: BinOp, x: &Value, y: &Value) -> EvalResult {
    let (Some(a), Some(b)) = (x.as_f64(), y.as_f64()) else {
        if matches!(x, Value::Null) || matches!(y, Value::Null) {
            return Ok(Value::Null);
        }
        let sym = match op {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            _ => "%",
        };
        return err(format!(
            "cannot compute {} {sym} {}",
            x.type_name(),
            y.type_name()
        ));
    };
    Ok(Value::Float(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => a / b,
        BinOp::FloorDiv => (a / b).floor(),
        _ => a.rem_euclid(b),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_arithmetic_stays_integer_and_division_is_float() {
        assert_eq!(
            binary(BinOp::Add, Value::Int(2), Value::Int(3)),
            Ok(Value::Int(5))
        );
        assert!(
            matches!(binary(BinOp::Div, Value::Int(10), Value::Int(4)), Ok(Value::Float(f)) if f == 2.5)
        );
        assert_eq!(
            binary(BinOp::FloorDiv, Value::Int(-7), Value::Int(2)),
            Ok(Value::Int(-4))
        );
        assert!(matches!(
            binary(BinOp::Mul, Value::Int(i128::MAX), Value::Int(2)),
            Ok(Value::Float(_))
        ));
    }

    #[test]
    fn null_propagates_through_arithmetic() {
        assert_eq!(
            binary(BinOp::Mul, Value::Null, Value::Int(2)),
            Ok(Value::Null)
        );
    }

    #[test]
    fn type_errors_are_values() {
        assert!(
            matches!(binary(BinOp::Sub, Value::Str("a".into()), Value::Int(1)), Err(Flow::Err(m)) if m.contains("string - number"))
        );
    }

    #[test]
    fn negative_index_counts_from_end() {
        let a = Value::Array(vec![Value::Int(1), Value::Int(2)]);
        assert_eq!(index(&a, &Value::Int(-1)), Ok(Value::Int(2)));
        assert_eq!(index(&a, &Value::Int(5)), Ok(Value::Null));
    }
}
