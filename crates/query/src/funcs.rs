//! Built-in per-value functions: the name table, arity and dispatch. The
//! implementations live in one module per kind of value they work on
//! (`object`, `convert`, `math`, `text`, `array`, `range`) and in
//! `higher_order` for the ones that take a lambda.
//!
//! Aggregation names (`sum`, `min`, `sort`, ...) called as functions are
//! aggregations over rows; the same names called as methods
//! (`_.items.sum()`) are these per-value array functions.

mod array;
mod convert;
mod higher_order;
mod math;
mod object;
mod range;
mod text;

use higher_order::higher_order;
use range::range;

use std::borrow::Cow;

use crate::eval::{err, eval, eval_ref, Env, EvalResult, Flow};
use crate::expr::Expr;
use crate::value::Value;

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

impl Builtin {
    /// The name a user writes (the first spelling in [`lookup`]), for
    /// error messages: `sum`, not the variant's `ArrSum`.
    pub fn name(self) -> &'static str {
        use Builtin::*;
        match self {
            Length => "length",
            Type => "type",
            Keys => "keys",
            Values => "values",
            Has => "has",
            Entries => "entries",
            FromEntries => "from_entries",
            Omit => "omit",
            Pick => "pick",
            Dig => "dig",
            ToStr => "str",
            ToNum => "num",
            ToInt => "int",
            ToJson => "to_json",
            FromJson => "from_json",
            Abs => "abs",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Sqrt => "sqrt",
            Pow => "pow",
            Log => "log",
            Log10 => "log10",
            Log2 => "log2",
            Exp => "exp",
            Lower => "lower",
            Upper => "upper",
            Trim => "trim",
            Split => "split",
            Join => "join",
            StartsWith => "starts_with",
            EndsWith => "ends_with",
            Contains => "contains",
            Sub => "sub",
            Gsub => "gsub",
            Test => "test",
            Captures => "captures",
            Substr => "substr",
            Replace => "replace",
            First => "first",
            Last => "last",
            Reverse => "reverse",
            Flatten => "flatten",
            Uniq => "uniq",
            Zip => "zip",
            Range => "range",
            ArrSum => "sum",
            ArrMin => "min",
            ArrMax => "max",
            ArrAvg => "average",
            ArrMedian => "median",
            ArrPct => "percentile",
            ArrPctCont => "percentile_cont",
            ArrSort => "sort",
            ArrStdev => "stdev",
            SortBy => "sort_by",
            Map => "map",
            Filter => "filter",
            Reject => "reject",
            MapValues => "map_values",
            Any => "any",
            All => "all",
            If => "if",
            Coalesce => "coalesce",
        }
    }
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

/// `v` as a number for built-in `f`: null stays `None`, a non-number is
/// an error naming `f`.
pub(crate) fn num(v: &Value, f: &str) -> Result<Option<f64>, Flow> {
    match v {
        Value::Null => Ok(None),
        other => match other.as_f64() {
            Some(x) => Ok(Some(x)),
            None => err(format!("{f} needs a number, got {}", other.type_name())),
        },
    }
}

/// `v` as a string for built-in `f`; anything else is an error naming `f`.
fn string<'a>(v: &'a Value, f: &str) -> Result<&'a str, Flow> {
    match v {
        Value::Str(s) => Ok(s),
        other => err(format!("{f} needs a string, got {}", other.type_name())),
    }
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
        Sub | Gsub | Test | Captures => return text::regex(b, args, row, env),
        // These only read their first argument: borrow it (the row, or a
        // field of it) instead of copying a whole record to inspect it.
        Length | Type | Keys | Has => {
            let x = match args.first() {
                Some(a) => eval_ref(a, row, env)?,
                None => Cow::Owned(Value::Null),
            };
            let key = match args.get(1) {
                Some(a) => eval(a, row, env)?,
                None => Value::Null,
            };
            return object::inspect(b, x, &key, b.name());
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
    // The first argument moves into `x`; only `zip` and `range` read it
    // again through `a`.
    let x = match (b, a.first_mut()) {
        (Zip | Range, Some(v)) => v.clone(),
        (_, Some(v)) => std::mem::take(v),
        (_, None) => Value::Null,
    };
    let name = b.name();
    match b {
        Length | Type | Keys | Has => {
            object::inspect(b, Cow::Owned(x), a.get(1).unwrap_or(&Value::Null), name)
        }
        Values | Entries | FromEntries | Omit | Pick | Dig => object::apply(b, x, &a, name),
        ToStr | ToNum | ToInt | ToJson | FromJson => convert::apply(b, x),
        Abs | Floor | Ceil | Round | Sqrt | Log | Log10 | Log2 | Exp | Pow => {
            math::apply(b, x, &a, name)
        }
        Lower | Upper | Trim | Split | Join | StartsWith | EndsWith | Contains | Substr
        | Replace => text::apply(b, x, &a, name),
        First | Last | Reverse | Flatten | Uniq | Zip | ArrSum | ArrAvg | ArrMin | ArrMax
        | ArrSort | ArrMedian | ArrPct | ArrPctCont | ArrStdev => array::apply(b, x, a, name),
        Range => range(&a),
        // Evaluated in `call` (lazy arguments), never through here.
        Map | Filter | Reject | MapValues | Any | All | SortBy | If | Coalesce | Sub | Gsub
        | Test | Captures => Ok(Value::Null),
    }
}
