//! Aggregation calls (`count`, `sum`, `percentile`, `sort`, `top`, ...)
//! resolved to [`AggKind`]s, with their arity and constant arguments
//! checked at compile time.

use super::Compiler;
use crate::expr::{AggKind, Expr, PctMethod};
use crate::lang::ast::Ast;
use crate::lang::QueryError;
use crate::value::Value;

/// Why a percentile argument is refused.
#[derive(Clone, Debug, PartialEq)]
pub enum PercentileError {
    /// A p outside [0, 1].
    OutOfRange(f64),
    /// A list with something other than numbers in it.
    ListNotNumbers,
    /// Neither a number nor a list.
    NotANumber,
}

impl std::fmt::Display for PercentileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PercentileError::OutOfRange(p) => {
                write!(f, "percentile p must be within [0, 1], got {p}")
            }
            PercentileError::ListNotNumbers => f.write_str("percentile list must hold numbers"),
            PercentileError::NotANumber => {
                f.write_str("percentile p must be a number or a list of numbers")
            }
        }
    }
}

impl std::error::Error for PercentileError {}

/// Parses a percentile argument: a number or an array of numbers in [0, 1].
pub fn percentile_list(v: &Value) -> Result<(Vec<f64>, bool), PercentileError> {
    let check = |p: f64| {
        if (0.0..=1.0).contains(&p) {
            Ok(p)
        } else {
            Err(PercentileError::OutOfRange(p))
        }
    };
    match v {
        Value::Array(a) => {
            let ps = a
                .iter()
                .map(|x| {
                    x.as_f64()
                        .ok_or(PercentileError::ListNotNumbers)
                        .and_then(check)
                })
                .collect::<Result<_, _>>()?;
            Ok((ps, false))
        }
        other => match other.as_f64() {
            Some(p) => Ok((vec![check(p)?], true)),
            None => Err(PercentileError::NotANumber),
        },
    }
}

impl Compiler<'_> {
    /// `name(args)` as an aggregation, or `None` if `name` is not one.
    pub(super) fn aggregation(
        &mut self,
        name: &str,
        args: &[Ast],
        pos: usize,
        target: &Expr,
    ) -> Result<Option<AggKind>, QueryError> {
        let n = args.len();
        let arity = |lo: usize, hi: usize| -> Result<(), QueryError> {
            if n < lo || n > hi {
                Err(QueryError::new(
                    pos,
                    format!("{name} takes {lo} to {hi} argument(s), got {n}"),
                ))
            } else {
                Ok(())
            }
        };
        let k = match name {
            "count" => {
                arity(0, 1)?;
                AggKind::Count(if n == 0 {
                    None
                } else {
                    Some(self.agg_arg(args, target, pos, name)?)
                })
            }
            "count_if" => {
                arity(1, 1)?;
                AggKind::CountIf(self.agg_arg(args, target, pos, name)?)
            }
            "sum" | "min" | "max" | "average" | "avg" | "mean" | "stdev" | "stdev_pop"
            | "stdev_samp" | "distinct" | "count_distinct" | "group" | "first" | "last" => {
                arity(0, 1)?;
                let e = self.agg_arg(args, target, pos, name)?;
                match name {
                    "sum" => AggKind::Sum(e),
                    "min" => AggKind::Min(e),
                    "max" => AggKind::Max(e),
                    "average" | "avg" | "mean" => AggKind::Avg(e),
                    "stdev" | "stdev_pop" => AggKind::Stdev(e, false),
                    "stdev_samp" => AggKind::Stdev(e, true),
                    "distinct" => AggKind::Distinct(e),
                    "count_distinct" => AggKind::CountDistinct(e),
                    "group" => AggKind::Group(e),
                    "first" => AggKind::First(e, false),
                    _ => AggKind::First(e, true),
                }
            }
            "percentile" | "percentile_disc" | "percentile_cont" | "median" => {
                let method = if name == "percentile_cont" || name == "median" {
                    PctMethod::Cont
                } else {
                    PctMethod::Disc
                };
                let (ps, scalar) = if name == "median" {
                    arity(0, 1)?;
                    (vec![0.5], true)
                } else {
                    arity(2, 2)?;
                    let p = self.expr(&args[1], target)?;
                    let v = self.constant(&p, pos, "the percentile list")?;
                    percentile_list(&v).map_err(|m| self.e(pos, m.to_string()))?
                };
                AggKind::Pct {
                    arg: self.agg_arg(args, target, pos, name)?,
                    ps,
                    scalar,
                    method,
                }
            }
            "sort" | "sort_desc" => {
                arity(0, 1)?;
                if let Some(Ast::Lambda(..)) = args.first() {
                    return Err(self.e(
                        pos,
                        "sort takes a key, not a comparator: use sort(key) or sort_desc(key)",
                    ));
                }
                let key = if n == 0 {
                    None
                } else {
                    Some(self.agg_arg(args, target, pos, name)?)
                };
                AggKind::Sort(key, name == "sort_desc")
            }
            "top" => {
                arity(1, 2)?;
                let ne = self.expr(&args[0], target)?;
                let count = match self.constant(&ne, pos, "top's count")? {
                    Value::Int(i) if (1..=10_000_000).contains(&i) => i as usize,
                    _ => {
                        return Err(
                            self.e(pos, "top's count must be an integer from 1 to 10,000,000")
                        )
                    }
                };
                let key = if n == 2 {
                    Some(self.agg_arg(&args[1..], target, pos, name)?)
                } else {
                    None
                };
                AggKind::Top(count, key)
            }
            _ => return Ok(None),
        };
        Ok(Some(k))
    }
}
