//! The JSON value model: integers and floats kept apart (so integer sums do
//! not drift), objects keep insertion order, and a total order over all
//! values (null < bool < number < string < array < object, as jq) so that
//! `min`, `max`, `sort` and comparisons never fail on mixed types.

mod map;

use std::cmp::Ordering;

pub(crate) use map::Map;
pub(crate) use map::MemberStack;

/// A JSON value.
#[derive(Debug, Clone, Default)]
pub enum Value {
    /// `null`; also what a missing key reads as.
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer. Input integers are kept exact over the whole i64 and
    /// u64 ranges (ramp's records carry u64 seeds), and integer arithmetic
    /// stays exact up to ±2^127 before it falls back to a float.
    Int(i128),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Value>),
    /// An object.
    Object(Map),
}

impl Value {
    /// Ruby-like truthiness: only `null` and `false` are false (0 and "" are true).
    pub fn truthy(&self) -> bool {
        !matches!(self, Value::Null | Value::Bool(false))
    }

    /// The value as f64 if it is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The name of the value's type, used in error messages and `type()`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int(_) | Value::Float(_) => 2,
            Value::Str(_) => 3,
            Value::Array(_) => 4,
            Value::Object(_) => 5,
        }
    }

    /// Total order over all values. Numbers compare by value (1 == 1.0);
    /// NaN sorts below every other number so the order stays total.
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
                num_cmp(self, other)
            }
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            (Value::Array(a), Value::Array(b)) => {
                for (x, y) in a.iter().zip(b.iter()) {
                    let o = x.total_cmp(y);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            (Value::Object(a), Value::Object(b)) => {
                // Compare as sorted key lists, then values in key order.
                let mut ka: Vec<&String> = a.keys().collect();
                let mut kb: Vec<&String> = b.keys().collect();
                ka.sort();
                kb.sort();
                let o = ka.cmp(&kb);
                if o != Ordering::Equal {
                    return o;
                }
                for k in ka {
                    if let (Some(x), Some(y)) = (a.get(k), b.get(k)) {
                        let o = x.total_cmp(y);
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                }
                Ordering::Equal
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// Equality under the total order (so `1 == 1.0`).
    pub fn loose_eq(&self, other: &Value) -> bool {
        self.total_cmp(other) == Ordering::Equal
    }

    /// The text used when this value becomes an object key (`group_by`):
    /// strings as they are, anything else as its compact JSON.
    pub fn key_text(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            other => crate::json::to_string(other),
        }
    }
}

/// Whether an integer read from input (JSON or a query literal) stays an
/// integer: anything in i64 or u64 does, so that u64 identifiers such as
/// seeds survive exactly; larger literals become floats, as in JSON
/// readers that stop at 64 bits (DuckDB, jq).
pub(crate) fn in_int_range(i: i128) -> bool {
    (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(&i)
}

fn num_cmp(a: &Value, b: &Value) -> Ordering {
    if let (Value::Int(i), Value::Int(j)) = (a, b) {
        // Exact, also beyond 2^53 where their doubles tie.
        return i.cmp(j);
    }
    let x = a.as_f64().unwrap_or(f64::NAN);
    let y = b.as_f64().unwrap_or(f64::NAN);
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        // Mixed int/float beyond 2^53 can tie in f64; break ties exactly.
        _ => match x.partial_cmp(&y) {
            Some(Ordering::Equal) => match (a, b) {
                (Value::Int(i), Value::Float(f)) => cmp_int_float(*i, *f),
                (Value::Float(f), Value::Int(i)) => cmp_int_float(*i, *f).reverse(),
                _ => Ordering::Equal,
            },
            Some(o) => o,
            None => Ordering::Equal,
        },
    }
}

fn cmp_int_float(i: i128, f: f64) -> Ordering {
    // 2^127 as f64: every float at or past it is beyond any i128.
    const LIM: f64 = 1.701_411_834_604_692_3e38;
    if f >= LIM {
        return Ordering::Less;
    }
    if f < -LIM {
        return Ordering::Greater;
    }
    let t = f.trunc() as i128;
    match i.cmp(&t) {
        Ordering::Equal => {
            let frac = f - f.trunc();
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        o => o,
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.loose_eq(other)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i128::from(i))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.to_string())
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_order_across_types() {
        let vs = [
            Value::Null,
            Value::Bool(false),
            Value::Int(1),
            Value::Str("a".into()),
            Value::Array(vec![]),
            Value::Object(Map::default()),
        ];
        for w in vs.windows(2) {
            assert_eq!(w[0].total_cmp(&w[1]), Ordering::Less);
        }
    }

    #[test]
    fn int_equals_float() {
        assert!(Value::Int(1).loose_eq(&Value::Float(1.0)));
        assert_eq!(
            Value::Int(i128::from(i64::MAX)).total_cmp(&Value::Float(9.223_372_036_854_776e18)),
            Ordering::Less
        );
    }

    #[test]
    fn truthiness_is_ruby_like() {
        assert!(Value::Int(0).truthy());
        assert!(Value::Str(String::new()).truthy());
        assert!(!Value::Null.truthy());
        assert!(!Value::Bool(false).truthy());
    }
}
