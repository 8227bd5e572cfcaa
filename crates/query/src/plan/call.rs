//! Calls: helpers (inlined), the special forms that are not plain
//! functions (`select`, `flat`, `group_by`, `reduce`, `apply`, `map` with
//! an aggregating block), aggregations, then built-ins with their arity.

use super::{lambda_target, Compiler};
use crate::expr::{AggKind, AggPlan, EachOut, Expr};
use crate::funcs::{self, Builtin};
use crate::lang::ast::{Ast, Param};
use crate::lang::QueryError;
use crate::rewrite::subst_var;

impl Compiler<'_> {
    /// A call of `name` (a method call if `method`): a helper from `def`
    /// (inlined), a special form, an aggregation, else a built-in.
    pub(super) fn call(
        &mut self,
        name: &str,
        args: &[Ast],
        method: bool,
        pos: usize,
        target: &Expr,
    ) -> Result<Expr, QueryError> {
        if let Some(def) = self.defs.get(name).copied() {
            return self.inline_call(def, name, args, pos, target);
        }
        if !method {
            if let Some(e) = self.special_form(name, args, pos, target)? {
                return Ok(e);
            }
            if let Some(k) = self.aggregation(name, args, pos, target)? {
                return Ok(Expr::Agg(Box::new(k)));
            }
        }
        self.builtin_call(name, args, method, pos, target)
    }

    /// The special forms that are not plain functions (`select`, `flat`,
    /// `group_by`, `reduce`, `apply`, `map`/`map_values` with an
    /// aggregating block); `None` when `name` with this many arguments is
    /// not one.
    fn special_form(
        &mut self,
        name: &str,
        args: &[Ast],
        pos: usize,
        target: &Expr,
    ) -> Result<Option<Expr>, QueryError> {
        let agg = |k: AggKind| Ok(Some(Expr::Agg(Box::new(k))));
        match (name, args.len()) {
            ("select", 1) => {
                return Ok(Some(Expr::Select(
                    Box::new(self.expr(&args[0], target)?),
                    Box::new(target.clone()),
                )))
            }
            ("flat", 0) => return Ok(Some(Expr::Flat(Box::new(Expr::Row)))),
            ("flat", 1) => return Ok(Some(Expr::Flat(Box::new(self.expr(&args[0], target)?)))),
            ("group_by", 1 | 2) => {
                let key = self.agg_arg(args, target, pos, "group_by")?;
                let body = match args.get(1) {
                    None => AggPlan {
                        template: Expr::AggRef(0),
                        aggs: vec![AggKind::Group(Expr::Row)],
                    },
                    Some(l) => {
                        let (ps, body) = self.lambda(l, pos, "group_by")?;
                        let body = match ps.as_slice() {
                            [Param::Var(id)] => subst_var(&body, *id, &Ast::Row),
                            [] => body,
                            _ => {
                                return Err(self.e(
                                    pos,
                                    "group_by's block takes at most one parameter (the row)",
                                ))
                            }
                        };
                        let e = self.expr(&body, &Expr::Row)?;
                        if !e.has_agg() {
                            return Err(self.e(
                                pos,
                                "group_by's block must aggregate, e.g. group_by(_.k) { count() }",
                            ));
                        }
                        self.lift_plan(e, pos)?
                    }
                };
                return agg(AggKind::GroupBy(key, Box::new(body)));
            }
            ("reduce", 2) => {
                let init = self.expr(&args[0], target)?;
                self.constant(&init, pos, "reduce's initial value")?;
                let (ps, body) = self.lambda(&args[1], pos, "reduce")?;
                let (acc, body) = match ps.as_slice() {
                    [Param::Var(a)] => (*a, body),
                    [Param::Var(a), Param::Var(v)] => (*a, subst_var(&body, *v, &Ast::Row)),
                    _ => return Err(self.e(pos, "reduce's block takes |acc| or |acc, value|")),
                };
                let body = self.expr(&body, &Expr::Row)?;
                if body.has_agg() {
                    return Err(self.e(pos, "an aggregation cannot be nested inside reduce"));
                }
                return agg(AggKind::Reduce { init, acc, body });
            }
            ("apply", 1 | 2) => {
                let (coll, lam) = self.coll_and_block(args, target)?;
                let (ps, body) = self.lambda(lam, pos, "apply")?;
                let body = self.expr(&body, &lambda_target(&ps))?;
                if !body.has_agg() {
                    return Err(self.e(
                        pos,
                        "apply's block must aggregate, e.g. apply { |x| sum(x) }",
                    ));
                }
                let plan = self.lift_plan(body, pos)?;
                return Ok(Some(Expr::Apply(Box::new(coll), ps, Box::new(plan))));
            }
            ("map" | "map_values", 1 | 2) => {
                let (coll, lam) = self.coll_and_block(args, target)?;
                let (ps, body) = self.lambda(lam, pos, name)?;
                let body = self.expr(&body, &lambda_target(&ps))?;
                if body.has_agg() {
                    if coll.has_agg() {
                        return Err(self.e(
                            pos,
                            format!("an aggregation cannot be nested inside {name}(...)"),
                        ));
                    }
                    let plan = self.lift_plan(body, pos)?;
                    let out = if name == "map" {
                        EachOut::Array
                    } else {
                        EachOut::Object
                    };
                    return agg(AggKind::Each {
                        coll,
                        params: ps,
                        body: Box::new(plan),
                        out,
                    });
                }
                let b = if name == "map" {
                    Builtin::Map
                } else {
                    Builtin::MapValues
                };
                return Ok(Some(Expr::Call(
                    b,
                    vec![coll, Expr::Lambda(ps, Box::new(body))],
                )));
            }
            _ => {}
        }
        Ok(None)
    }

    /// A built-in function or method, its arguments checked against its
    /// arity (a method counts its receiver).
    fn builtin_call(
        &mut self,
        name: &str,
        args: &[Ast],
        method: bool,
        pos: usize,
        target: &Expr,
    ) -> Result<Expr, QueryError> {
        let n = args.len();
        let Some((b, lo, hi)) = funcs::lookup(name, method) else {
            if let Some(takes) = special_form_arity(name).filter(|_| !method) {
                return Err(self.e(pos, format!("{name} takes {takes}, got {n}")));
            }
            let hint = if method && is_agg_name(name) {
                format!(" ({name} is an aggregation; call it as {name}(...))")
            } else {
                String::new()
            };
            return Err(self.e(pos, format!("unknown function '{name}'{hint}")));
        };
        let mut cargs = Vec::with_capacity(n + 1);
        if funcs::takes_block(b) && n == 1 && matches!(args[0], Ast::Lambda(..)) {
            cargs.push(Expr::Row);
        }
        for a in args {
            cargs.push(self.expr(a, target)?);
        }
        if cargs.len() < lo || cargs.len() > hi {
            let want = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo} to {hi}")
            };
            let m = if method {
                " (counting the receiver)"
            } else {
                ""
            };
            return Err(self.e(
                pos,
                format!("{name} takes {want} argument(s){m}, got {}", cargs.len()),
            ));
        }
        Ok(Expr::Call(b, cargs))
    }

    /// The collection and the block of `apply`/`map`: with one argument the
    /// collection is `_`.
    fn coll_and_block<'x>(
        &mut self,
        args: &'x [Ast],
        target: &Expr,
    ) -> Result<(Expr, &'x Ast), QueryError> {
        Ok(if args.len() == 1 {
            (Expr::Row, &args[0])
        } else {
            (self.expr(&args[0], target)?, &args[1])
        })
    }
}

/// The arities of the special forms matched above, for the error when a
/// call of one has the wrong number of arguments (it is a known name, not
/// an unknown function).
fn special_form_arity(n: &str) -> Option<&'static str> {
    Some(match n {
        "select" => "1 argument (the condition)",
        "flat" => "0 or 1 argument",
        "group_by" | "apply" => "1 argument and an optional block",
        "map" | "map_values" => "a block, or 1 argument and a block",
        "reduce" => "2 arguments (the initial value and a block)",
        _ => return None,
    })
}

fn is_agg_name(n: &str) -> bool {
    matches!(
        n,
        "count_if"
            | "stdev_samp"
            | "stdev_pop"
            | "distinct"
            | "count_distinct"
            | "group"
            | "top"
            | "sort_desc"
            | "reduce"
            | "group_by"
    )
}
