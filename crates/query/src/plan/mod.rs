//! Compiles a parsed query: resolves names (helpers are inlined, built-ins
//! and aggregations looked up), classifies each stage at compile time, lifts
//! aggregations into [`AggPlan`]s and computes the field projection that
//! lets the scanner skip everything else on a line.
//!
//! The [`Compiler`] walks expressions here; calls are resolved in `call`
//! (helpers, special forms, built-ins), aggregations in `aggregation`, and
//! helper bodies are copied with fresh variables in `inline`.

mod aggregation;
mod call;
mod inline;

use std::collections::HashMap;

use crate::eval::{eval, Env};
use crate::expr::{AggKind, AggPlan, Expr};
use crate::funcs;
use crate::lang::ast::{Ast, Def, Param, VarId};
use crate::lang::parse::MAX_NESTING;
use crate::lang::QueryError;
use crate::rewrite::lift;
use crate::value::Value;

pub use aggregation::{percentile_list, PercentileError};

/// What a stage does with each value it receives.
#[derive(Debug, Clone)]
pub enum StageKind {
    /// One value in, at most one out (`select` drops).
    Map(Expr),
    /// One array in, one value out per element.
    Flat(Expr),
    /// Aggregates all values, emits at end of input. `spread` emits the
    /// elements of the result one per line (a bare `sort`).
    Agg {
        /// The aggregations and result template.
        plan: AggPlan,
        /// Emit result elements as separate outputs.
        spread: bool,
    },
}

/// A compiled stage.
#[derive(Debug, Clone)]
pub struct Stage {
    /// What it does.
    pub kind: StageKind,
    /// Its source text (for error messages).
    pub src: String,
}

/// Compiles parsed stages with the given helpers.
pub struct Compiler<'a> {
    defs: HashMap<&'a str, &'a Def>,
    next_var: VarId,
    depth: usize,
    /// How deep the expression being compiled is so far, counted after
    /// helper inlining: helpers that are each shallow can still nest into
    /// a deep tree, and the compiler, evaluator and drop all recurse over it.
    nesting: usize,
    /// Position of the call being inlined (errors inside helpers point at the call).
    pos_override: Option<usize>,
}

impl<'a> Compiler<'a> {
    /// A compiler; `next_var` is the first unused variable slot.
    pub fn new(defs: &'a [Def], next_var: VarId) -> Self {
        Compiler {
            defs: defs.iter().map(|d| (d.name.as_str(), d)).collect(),
            next_var,
            depth: 0,
            nesting: 0,
            pos_override: None,
        }
    }

    /// Variable slots needed at run time.
    pub fn n_vars(&self) -> usize {
        self.next_var
    }

    fn e(&self, pos: usize, msg: impl Into<String>) -> QueryError {
        QueryError::new(self.pos_override.unwrap_or(pos), msg)
    }

    /// Compiles one stage.
    pub fn stage(&mut self, ast: &Ast, pos: usize, src: String) -> Result<Stage, QueryError> {
        let e = self.expr(ast, &Expr::Row)?;
        let kind = if e.has_agg() {
            let plan = self.lift_plan(e, pos)?;
            let spread = matches!(plan.template, Expr::AggRef(0))
                && matches!(plan.aggs.first(), Some(AggKind::Sort(..)));
            StageKind::Agg { plan, spread }
        } else if let Expr::Flat(inner) = e {
            StageKind::Flat(*inner)
        } else {
            StageKind::Map(e)
        };
        Ok(Stage { kind, src })
    }

    fn lift_plan(&self, e: Expr, pos: usize) -> Result<AggPlan, QueryError> {
        let mut aggs = Vec::new();
        let template = lift(e, &mut aggs);
        if uses_row(&template) {
            return Err(self.e(
                pos,
                "'_' is used outside an aggregation in an aggregating expression; aggregate it (e.g. first(_.x)) or move it to a later stage with >>",
            ));
        }
        Ok(AggPlan { template, aggs })
    }

    fn constant(&self, e: &Expr, pos: usize, what: &str) -> Result<Value, QueryError> {
        if uses_row(e) || e.has_agg() {
            return Err(self.e(
                pos,
                format!("{what} must be a constant (it cannot depend on '_')"),
            ));
        }
        let mut env = Env::new(self.next_var);
        eval(e, &Value::Null, &mut env).map_err(|f| self.e(pos, format!("{what}: {f:?}")))
    }

    fn lambda(
        &mut self,
        ast: &Ast,
        pos: usize,
        fname: &str,
    ) -> Result<(Vec<Param>, Ast), QueryError> {
        match ast {
            Ast::Lambda(ps, body) => Ok((ps.clone(), (**body).clone())),
            _ => Err(self.e(
                pos,
                format!("{fname} needs a block or lambda here, e.g. {fname}(...) {{ |x| ... }}"),
            )),
        }
    }

    fn args(&mut self, args: &[Ast], target: &Expr) -> Result<Vec<Expr>, QueryError> {
        args.iter().map(|a| self.expr(a, target)).collect()
    }

    fn agg_arg(
        &mut self,
        args: &[Ast],
        target: &Expr,
        pos: usize,
        name: &str,
    ) -> Result<Expr, QueryError> {
        let e = match args.first() {
            Some(a) => self.expr(a, target)?,
            None => Expr::Row,
        };
        if e.has_agg() {
            return Err(self.e(
                pos,
                format!("an aggregation cannot be nested inside {name}(...)"),
            ));
        }
        Ok(e)
    }

    /// Compiles an expression; `target` is what `select` passes through.
    /// The parser's nesting limit holds for the tree after inlining too, so
    /// nesting helpers is an error, never a stack overflow.
    pub fn expr(&mut self, ast: &Ast, target: &Expr) -> Result<Expr, QueryError> {
        if self.nesting >= MAX_NESTING {
            return Err(self.e(
                0,
                format!(
                    "expression nested too deeply after inlining helpers (more than \
                     {MAX_NESTING} levels)"
                ),
            ));
        }
        self.nesting += 1;
        let r = self.expr_node(ast, target);
        self.nesting -= 1;
        r
    }

    fn expr_node(&mut self, ast: &Ast, target: &Expr) -> Result<Expr, QueryError> {
        Ok(match ast {
            Ast::Lit(v) => Expr::Lit(v.clone()),
            Ast::Row => Expr::Row,
            Ast::Var(id) => Expr::Var(*id),
            Ast::DefParam(_) => return Err(self.e(0, "internal: unbound helper parameter")),
            Ast::Index(b, k) => {
                let b = self.expr(b, target)?;
                match &**k {
                    Ast::Lit(Value::Str(s)) => Expr::Field(Box::new(b), s.clone()),
                    k => Expr::Index(Box::new(b), Box::new(self.expr(k, target)?)),
                }
            }
            Ast::Dot(b, name) => {
                let b = Box::new(self.expr(b, target)?);
                match funcs::lookup(name, true) {
                    Some((f, 1, _)) => Expr::FieldOr(b, name.clone(), f),
                    _ => Expr::Field(b, name.clone()),
                }
            }
            Ast::Array(xs) => Expr::Array(self.args(xs, target)?),
            Ast::Object(kv) => Expr::Object(
                kv.iter()
                    .map(|(k, v)| Ok((self.expr(k, target)?, self.expr(v, target)?)))
                    .collect::<Result<_, QueryError>>()?,
            ),
            Ast::Unary(op, a) => Expr::Unary(*op, Box::new(self.expr(a, target)?)),
            Ast::Binary(op, a, b) => Expr::Binary(
                *op,
                Box::new(self.expr(a, target)?),
                Box::new(self.expr(b, target)?),
            ),
            Ast::And(a, b) => Expr::And(
                Box::new(self.expr(a, target)?),
                Box::new(self.expr(b, target)?),
            ),
            Ast::Or(a, b) => Expr::Or(
                Box::new(self.expr(a, target)?),
                Box::new(self.expr(b, target)?),
            ),
            Ast::Cond(c, a, b) => Expr::Cond(
                Box::new(self.expr(c, target)?),
                Box::new(self.expr(a, target)?),
                Box::new(self.expr(b, target)?),
            ),
            Ast::Let(id, i, b) => Expr::Let(
                *id,
                Box::new(self.expr(i, target)?),
                Box::new(self.expr(b, target)?),
            ),
            Ast::Regex(p, flags) => {
                let pat = if flags.is_empty() {
                    p.clone()
                } else {
                    format!("(?{flags}){p}")
                };
                let re = regex::Regex::new(&pat)
                    .map_err(|e| self.e(0, format!("invalid regex /{p}/: {e}")))?;
                Expr::Regex(Box::new(re))
            }
            Ast::Lambda(ps, body) => {
                let t = lambda_target(ps);
                Expr::Lambda(ps.clone(), Box::new(self.expr(body, &t)?))
            }
            Ast::Call {
                name,
                args,
                method,
                pos,
            } => self.call(name, args, *method, *pos, target)?,
        })
    }
}

/// What `select` yields inside a block: the single parameter, else `_`.
fn lambda_target(ps: &[Param]) -> Expr {
    match ps {
        [Param::Var(id)] => Expr::Var(*id),
        _ => Expr::Row,
    }
}

/// Whether `e` reads `_` anywhere (including inside lambdas).
pub fn uses_row(e: &Expr) -> bool {
    if matches!(e, Expr::Row) {
        return true;
    }
    let mut found = false;
    e.for_each_child(&mut |c| found |= uses_row(c));
    found
}
