//! The compiled form of a query: expressions with built-ins resolved and
//! aggregations lifted into [`AggPlan`]s, classified at compile time (so a
//! stage's kind never depends on the data, unlike jrf's first-row probe).

use regex::Regex;

use crate::funcs::Builtin;
use crate::lang::ast::{BinOp, Param, UnOp, VarId};
use crate::value::Value;

/// A compiled expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// A constant.
    Lit(Value),
    /// `_`
    Row,
    /// A variable slot.
    Var(VarId),
    /// `e["name"]` with a constant key (the common, projectable case).
    Field(Box<Expr>, String),
    /// `e.name`: the field when `e` is an object or null, else the
    /// one-argument built-in of that name applied to `e`.
    FieldOr(Box<Expr>, String, Builtin),
    /// `e[k]` with a computed key or index.
    Index(Box<Expr>, Box<Expr>),
    /// Array literal.
    Array(Vec<Expr>),
    /// Object literal.
    Object(Vec<(Expr, Expr)>),
    /// Unary operator.
    Unary(UnOp, Box<Expr>),
    /// Binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a && b`
    And(Box<Expr>, Box<Expr>),
    /// `a || b`
    Or(Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `let`
    Let(VarId, Box<Expr>, Box<Expr>),
    /// A compiled regex literal.
    Regex(Box<Regex>),
    /// A built-in per-value function.
    Call(Builtin, Vec<Expr>),
    /// A lambda (only as a built-in's argument).
    Lambda(Vec<Param>, Box<Expr>),
    /// `select(cond)`: yields the current target (the row, or the element
    /// inside a `map` block) or drops it.
    Select(Box<Expr>, Box<Expr>),
    /// `flat` / `flat(e)`: one output per array element (stage level only).
    Flat(Box<Expr>),
    /// `apply(coll) { |x| aggregation }`: aggregates within one value.
    Apply(Box<Expr>, Vec<Param>, Box<AggPlan>),
    /// An aggregation call, before the stage planner lifts it.
    Agg(Box<AggKind>),
    /// The i-th aggregation's finished result (template evaluation).
    AggRef(usize),
}

/// Percentile definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PctMethod {
    /// Nearest rank, `x[ceil(p·n) − 1]`: jrf's `percentile`, DuckDB `quantile_disc`.
    Disc,
    /// Linear interpolation at rank `p·(n − 1)`: DuckDB `quantile_cont`/`median`.
    Cont,
}

/// How a per-element aggregation (`map`/`map_values` with an aggregating
/// block) shapes its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EachOut {
    /// One slot per array position (or object key), result is an array.
    Array,
    /// One slot per object key, result is an object.
    Object,
}

/// One aggregation.
#[derive(Debug, Clone)]
pub enum AggKind {
    /// `count()` rows, or `count(e)` non-null values.
    Count(Option<Expr>),
    /// `count_if(cond)`
    CountIf(Expr),
    /// `sum(e)`
    Sum(Expr),
    /// `min(e)`
    Min(Expr),
    /// `max(e)`
    Max(Expr),
    /// `average(e)`
    Avg(Expr),
    /// `stdev(e)` (population) / `stdev_samp(e)` (sample).
    Stdev(Expr, bool),
    /// `percentile`, `percentile_cont`, `median`.
    Pct {
        /// Value.
        arg: Expr,
        /// Requested fractions in [0, 1].
        ps: Vec<f64>,
        /// A scalar p was given (result is a scalar, not an array).
        scalar: bool,
        /// Definition.
        method: PctMethod,
    },
    /// `distinct(e)`: distinct values in first-seen order.
    Distinct(Expr),
    /// `count_distinct(e)`
    CountDistinct(Expr),
    /// `group` / `group(e)`: all values in input order.
    Group(Expr),
    /// `sort` / `sort(key)` / `sort_desc(key)`: current values ordered by key.
    Sort(Option<Expr>, bool),
    /// `top(n, key)`: the n values with the largest key.
    Top(usize, Option<Expr>),
    /// `first(e)` / `last(e)`: first / last non-null value.
    First(Expr, bool),
    /// `reduce(init) { |acc| body }`: not mergeable, runs in input order.
    Reduce {
        /// Initial accumulator.
        init: Expr,
        /// Accumulator slot.
        acc: VarId,
        /// New accumulator from `acc` and `_`.
        body: Expr,
    },
    /// `group_by(key) { body }`
    GroupBy(Expr, Box<AggPlan>),
    /// `map`/`map_values` with an aggregating block: one body per element.
    Each {
        /// The collection (array or object) per row.
        coll: Expr,
        /// Block parameters.
        params: Vec<Param>,
        /// Aggregation run per position / key.
        body: Box<AggPlan>,
        /// Result shape.
        out: EachOut,
    },
}

impl AggKind {
    /// Whether partial states of this aggregation can be merged.
    pub fn mergeable(&self) -> bool {
        match self {
            AggKind::Reduce { .. } => false,
            AggKind::GroupBy(_, p) => p.mergeable(),
            AggKind::Each { body, .. } => body.mergeable(),
            _ => true,
        }
    }
}

/// Aggregations plus the template that assembles their results.
#[derive(Debug, Clone)]
pub struct AggPlan {
    /// Expression over [`Expr::AggRef`]s (and constants).
    pub template: Expr,
    /// The aggregations, in slot order.
    pub aggs: Vec<AggKind>,
}

impl AggPlan {
    /// Whether all aggregations merge.
    pub fn mergeable(&self) -> bool {
        self.aggs.iter().all(AggKind::mergeable)
    }
}

impl Expr {
    /// Calls `f` on each direct child expression (not into nested plans).
    pub fn for_each_child(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Expr::Lit(_) | Expr::Row | Expr::Var(_) | Expr::Regex(_) | Expr::AggRef(_) => {}
            Expr::Field(a, _) | Expr::FieldOr(a, _, _) | Expr::Unary(_, a) | Expr::Flat(a) => f(a),
            Expr::Lambda(_, a) => f(a),
            Expr::Index(a, b)
            | Expr::Select(a, b)
            | Expr::Binary(_, a, b)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Let(_, a, b) => {
                f(a);
                f(b)
            }
            Expr::Cond(a, b, c) => {
                f(a);
                f(b);
                f(c)
            }
            Expr::Array(xs) | Expr::Call(_, xs) => xs.iter().for_each(f),
            Expr::Object(kv) => kv.iter().for_each(|(k, v)| {
                f(k);
                f(v)
            }),
            Expr::Apply(c, _, _) => f(c),
            Expr::Agg(_) => {}
        }
    }

    /// Whether this expression contains an aggregation call (outside
    /// `apply`, whose aggregations are local to one value).
    pub fn has_agg(&self) -> bool {
        if matches!(self, Expr::Agg(_)) {
            return true;
        }
        let mut found = false;
        self.for_each_child(&mut |c| found |= c.has_agg());
        found
    }
}
