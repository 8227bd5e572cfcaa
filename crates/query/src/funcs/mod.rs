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

/// Where a name may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// As a function (`length(_.x)`) or a method (`_.x.length()`).
    Any,
    /// As a method only: the function form of the name is an aggregation
    /// over rows (`sum(_.x)`), the method form works on one array.
    Method,
    /// Either form; the last argument is a lambda, and the collection
    /// defaults to `_` when only the block is given (`map { |x| ... }`).
    Block,
}

/// How a built-in is evaluated: which module implements it, and whether
/// its arguments are evaluated first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Impl {
    /// Reads only its first argument, borrowed (`object::inspect`).
    Inspect,
    /// `object::apply`.
    Object,
    /// `convert::apply`.
    Convert,
    /// `math::apply`.
    Math,
    /// `text::apply`.
    Text,
    /// `text::regex`: the pattern argument is compiled once.
    Regex,
    /// `array::apply`.
    Array,
    /// `range::range`.
    Range,
    /// `higher_order`: the lambda stays unevaluated.
    HigherOrder,
    /// `if(cond, then, else)`: only the branch taken is evaluated.
    If,
    /// `coalesce(a, b, ...)`: evaluated left to right until a non-null.
    Coalesce,
}

/// One built-in: its spellings (the first is its name in messages), its
/// arity (min, max), where it may be written, and its implementation.
struct Def {
    builtin: Builtin,
    names: &'static [&'static str],
    arity: (usize, usize),
    form: Form,
    imp: Impl,
}

const fn def(
    builtin: Builtin,
    names: &'static [&'static str],
    min: usize,
    max: usize,
    form: Form,
    imp: Impl,
) -> Def {
    Def {
        builtin,
        names,
        arity: (min, max),
        form,
        imp,
    }
}

/// The catalogue: one row per built-in (`count` as a method is `length`).
const BUILTINS: &[Def] = {
    use Builtin::*;
    use Form::{Any, Block, Method};
    use Impl::{Array, Convert, Inspect, Math, Object, Regex, Text};
    &[
        def(Length, &["length", "size", "len"], 1, 1, Any, Inspect),
        def(Type, &["type"], 1, 1, Any, Inspect),
        def(Keys, &["keys"], 1, 1, Any, Inspect),
        def(Values, &["values"], 1, 1, Any, Object),
        def(Has, &["has", "key?", "has_key"], 2, 2, Any, Inspect),
        def(Entries, &["entries", "to_entries"], 1, 1, Any, Object),
        def(FromEntries, &["from_entries", "to_h"], 1, 1, Any, Object),
        def(Omit, &["omit", "del", "except"], 2, 64, Any, Object),
        def(Pick, &["pick", "slice"], 2, 64, Any, Object),
        def(Dig, &["dig"], 2, 64, Any, Object),
        def(ToStr, &["str", "to_s", "tostring"], 1, 1, Any, Convert),
        def(
            ToNum,
            &["num", "to_f", "tonumber", "float"],
            1,
            1,
            Any,
            Convert,
        ),
        def(ToInt, &["int", "to_i"], 1, 1, Any, Convert),
        def(ToJson, &["to_json", "tojson"], 1, 1, Any, Convert),
        def(FromJson, &["from_json", "fromjson"], 1, 1, Any, Convert),
        def(Abs, &["abs"], 1, 1, Any, Math),
        def(Floor, &["floor"], 1, 1, Any, Math),
        def(Ceil, &["ceil"], 1, 1, Any, Math),
        def(Round, &["round"], 1, 2, Any, Math),
        def(Sqrt, &["sqrt"], 1, 1, Any, Math),
        def(Pow, &["pow"], 2, 2, Any, Math),
        def(Log, &["log", "ln"], 1, 1, Any, Math),
        def(Log10, &["log10"], 1, 1, Any, Math),
        def(Log2, &["log2"], 1, 1, Any, Math),
        def(Exp, &["exp"], 1, 1, Any, Math),
        def(Lower, &["lower", "downcase"], 1, 1, Any, Text),
        def(Upper, &["upper", "upcase"], 1, 1, Any, Text),
        def(Trim, &["trim", "strip"], 1, 1, Any, Text),
        def(Split, &["split"], 2, 2, Any, Text),
        def(Join, &["join"], 1, 2, Any, Text),
        def(
            StartsWith,
            &["starts_with", "start_with?", "startswith"],
            2,
            2,
            Any,
            Text,
        ),
        def(
            EndsWith,
            &["ends_with", "end_with?", "endswith"],
            2,
            2,
            Any,
            Text,
        ),
        def(
            Contains,
            &["contains", "include?", "includes"],
            2,
            2,
            Any,
            Text,
        ),
        def(Sub, &["sub"], 3, 3, Any, Regex),
        def(Gsub, &["gsub"], 3, 3, Any, Regex),
        def(Test, &["test", "matches", "match?"], 2, 2, Any, Regex),
        def(Captures, &["captures", "match"], 2, 2, Any, Regex),
        def(Substr, &["substr"], 2, 3, Any, Text),
        def(Replace, &["replace"], 3, 3, Any, Text),
        def(First, &["first"], 1, 1, Method, Array),
        def(Last, &["last"], 1, 1, Method, Array),
        def(Reverse, &["reverse"], 1, 1, Any, Array),
        def(Flatten, &["flatten"], 1, 1, Any, Array),
        def(Uniq, &["uniq", "unique"], 1, 1, Any, Array),
        def(Zip, &["zip"], 1, 64, Any, Array),
        def(Builtin::Range, &["range", "step"], 1, 3, Any, Impl::Range),
        def(ArrSum, &["sum"], 1, 1, Method, Array),
        def(ArrMin, &["min"], 1, 1, Method, Array),
        def(ArrMax, &["max"], 1, 1, Method, Array),
        def(ArrAvg, &["average", "avg", "mean"], 1, 1, Method, Array),
        def(ArrMedian, &["median"], 1, 1, Method, Array),
        def(
            ArrPct,
            &["percentile", "percentile_disc"],
            2,
            2,
            Method,
            Array,
        ),
        def(ArrPctCont, &["percentile_cont"], 2, 2, Method, Array),
        def(ArrSort, &["sort"], 1, 1, Method, Array),
        def(ArrStdev, &["stdev"], 1, 1, Method, Array),
        def(SortBy, &["sort_by"], 2, 2, Block, Impl::HigherOrder),
        def(Map, &["map"], 2, 2, Block, Impl::HigherOrder),
        def(Filter, &["filter"], 2, 2, Block, Impl::HigherOrder),
        def(Reject, &["reject"], 2, 2, Block, Impl::HigherOrder),
        def(MapValues, &["map_values"], 2, 2, Block, Impl::HigherOrder),
        def(
            Builtin::Any,
            &["any", "any?"],
            2,
            2,
            Block,
            Impl::HigherOrder,
        ),
        def(
            Builtin::All,
            &["all", "all?"],
            2,
            2,
            Block,
            Impl::HigherOrder,
        ),
        def(Builtin::If, &["if"], 2, 3, Any, Impl::If),
        def(Builtin::Coalesce, &["coalesce"], 1, 64, Any, Impl::Coalesce),
        def(Length, &["count"], 1, 1, Method, Inspect),
    ]
};

/// The catalogue row of `b` (its first, where a name has two rows).
fn def_of(b: Builtin) -> &'static Def {
    BUILTINS
        .iter()
        .find(|d| d.builtin == b)
        .unwrap_or(&BUILTINS[0])
}

/// Functions whose last argument is a lambda and whose collection defaults
/// to `_` when only the block is given (`map { |x| ... }`).
pub(crate) fn takes_block(b: Builtin) -> bool {
    def_of(b).form == Form::Block
}

impl Builtin {
    /// The name a user writes (the first spelling in the catalogue), for
    /// error messages: `sum`, not the variant's `ArrSum`.
    pub fn name(self) -> &'static str {
        def_of(self).names[0]
    }
}

/// Looks up a per-value built-in; returns it with its (min, max) arity.
/// `method`: written as `x.name(...)`.
pub(crate) fn lookup(name: &str, method: bool) -> Option<(Builtin, usize, usize)> {
    BUILTINS
        .iter()
        .find(|d| d.names.contains(&name) && (method || d.form != Form::Method))
        .map(|d| (d.builtin, d.arity.0, d.arity.1))
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
pub(crate) fn call(b: Builtin, args: &[Expr], row: &Value, env: &mut Env) -> EvalResult {
    match def_of(b).imp {
        Impl::HigherOrder => return higher_order(b, args, row, env),
        Impl::If => {
            let c = eval(&args[0], row, env)?.truthy();
            return match (c, args.get(2)) {
                (true, _) => eval(&args[1], row, env),
                (false, Some(e)) => eval(e, row, env),
                (false, None) => Ok(Value::Null),
            };
        }
        Impl::Coalesce => {
            for a in args {
                let v = eval(a, row, env)?;
                if !matches!(v, Value::Null) {
                    return Ok(v);
                }
            }
            return Ok(Value::Null);
        }
        Impl::Regex => return text::regex(b, args, row, env),
        // These only read their first argument: borrow it (the row, or a
        // field of it) instead of copying a whole record to inspect it.
        Impl::Inspect => {
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
    // The first argument moves into `x`; only `zip` and `range` read it
    // again through `a`.
    let x = match (b, a.first_mut()) {
        (Builtin::Zip | Builtin::Range, Some(v)) => v.clone(),
        (_, Some(v)) => std::mem::take(v),
        (_, None) => Value::Null,
    };
    let name = b.name();
    match def_of(b).imp {
        Impl::Inspect => object::inspect(b, Cow::Owned(x), a.get(1).unwrap_or(&Value::Null), name),
        Impl::Object => object::apply(b, x, &a, name),
        Impl::Convert => convert::apply(b, x),
        Impl::Math => math::apply(b, x, &a, name),
        Impl::Text => text::apply(b, x, &a, name),
        Impl::Array => array::apply(b, x, a, name),
        Impl::Range => range(&a),
        // Evaluated in `call` (lazy arguments), never through here.
        Impl::HigherOrder | Impl::If | Impl::Coalesce | Impl::Regex => Ok(Value::Null),
    }
}

#[cfg(test)]
mod catalogue_tests {
    use super::*;

    #[test]
    fn every_spelling_is_in_one_row_and_names_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for d in BUILTINS {
            for n in d.names {
                assert!(seen.insert(*n), "`{n}` is spelled in two rows");
            }
            let (b, lo, hi) = lookup(d.names[0], true).unwrap();
            assert_eq!(b, d.builtin);
            assert!(lo <= hi);
            assert_eq!(lookup(d.builtin.name(), true).map(|t| t.0), Some(d.builtin));
        }
    }

    #[test]
    fn method_only_names_are_not_functions() {
        assert_eq!(lookup("sum", false), None);
        assert_eq!(lookup("sum", true).map(|t| t.0), Some(Builtin::ArrSum));
        assert_eq!(lookup("count", false), None);
        assert_eq!(lookup("count", true).map(|t| t.0), Some(Builtin::Length));
        assert_eq!(lookup("map", false).map(|t| t.0), Some(Builtin::Map));
        assert!(takes_block(Builtin::SortBy) && !takes_block(Builtin::Length));
    }
}
