//! Compiles a parsed query: resolves names (helpers are inlined, built-ins
//! and aggregations looked up), classifies each stage at compile time, lifts
//! aggregations into [`AggPlan`]s and computes the field projection that
//! lets the scanner skip everything else on a line.

use std::collections::HashMap;

use crate::eval::{eval, Env};
use crate::expr::{AggKind, AggPlan, EachOut, Expr, PctMethod};
use crate::funcs::{self, Builtin};
use crate::lang::ast::{Ast, Def, Param, VarId};
use crate::lang::QueryError;
use crate::rewrite::{lift, subst_var};
use crate::value::Value;

/// How deep helper calls may nest (helpers are inlined; recursion is not supported).
const MAX_INLINE_DEPTH: usize = 64;

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

/// Parses a percentile argument: a number or an array of numbers in [0, 1].
pub fn percentile_list(v: &Value) -> Result<(Vec<f64>, bool), String> {
    let check = |p: f64| {
        if (0.0..=1.0).contains(&p) {
            Ok(p)
        } else {
            Err(format!("percentile p must be within [0, 1], got {p}"))
        }
    };
    match v {
        Value::Array(a) => {
            let ps = a
                .iter()
                .map(|x| {
                    x.as_f64()
                        .ok_or_else(|| "percentile list must hold numbers".to_string())
                        .and_then(check)
                })
                .collect::<Result<_, _>>()?;
            Ok((ps, false))
        }
        other => match other.as_f64() {
            Some(p) => Ok((vec![check(p)?], true)),
            None => Err("percentile p must be a number or a list of numbers".into()),
        },
    }
}

/// Compiles parsed stages with the given helpers.
pub struct Compiler<'a> {
    defs: HashMap<&'a str, &'a Def>,
    next_var: VarId,
    depth: usize,
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
    pub fn expr(&mut self, ast: &Ast, target: &Expr) -> Result<Expr, QueryError> {
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

    fn call(
        &mut self,
        name: &str,
        args: &[Ast],
        method: bool,
        pos: usize,
        target: &Expr,
    ) -> Result<Expr, QueryError> {
        if let Some(def) = self.defs.get(name).copied() {
            if args.len() != def.arity {
                return Err(self.e(
                    pos,
                    format!(
                        "helper {name} takes {} argument(s), got {}",
                        def.arity,
                        args.len()
                    ),
                ));
            }
            if self.depth >= MAX_INLINE_DEPTH {
                return Err(self.e(
                    pos,
                    format!("helper {name} nests too deeply (recursive helpers are not supported)"),
                ));
            }
            let body = self.instantiate(&def.body, args);
            self.depth += 1;
            let outer = self.pos_override;
            self.pos_override = Some(outer.unwrap_or(pos));
            let r = self.expr(&body, target);
            self.pos_override = outer;
            self.depth -= 1;
            return r;
        }
        let n = args.len();
        let agg = |k: AggKind| Ok(Expr::Agg(Box::new(k)));
        if !method {
            match (name, n) {
                ("select", 1) => {
                    return Ok(Expr::Select(
                        Box::new(self.expr(&args[0], target)?),
                        Box::new(target.clone()),
                    ))
                }
                ("flat", 0) => return Ok(Expr::Flat(Box::new(Expr::Row))),
                ("flat", 1) => return Ok(Expr::Flat(Box::new(self.expr(&args[0], target)?))),
                ("group_by", 1 | 2) => {
                    let key = self.agg_arg(args, target, pos, "group_by")?;
                    let body = match args.get(1) {
                        None => AggPlan {
                            template: Expr::AggRef(0),
                            aggs: vec![AggKind::Group(Expr::Row)],
                        },
                        Some(l) => {
                            let (ps, body) = self.lambda(l, pos, "group_by")?;
                            let body =
                                match ps.as_slice() {
                                    [Param::Var(id)] => subst_var(&body, *id, &Ast::Row),
                                    [] => body,
                                    _ => return Err(self.e(
                                        pos,
                                        "group_by's block takes at most one parameter (the row)",
                                    )),
                                };
                            let e = self.expr(&body, &Expr::Row)?;
                            if !e.has_agg() {
                                return Err(self.e(pos, "group_by's block must aggregate, e.g. group_by(_.k) { count() }"));
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
                    let (coll, lam) = if n == 1 {
                        (Expr::Row, &args[0])
                    } else {
                        (self.expr(&args[0], target)?, &args[1])
                    };
                    let (ps, body) = self.lambda(lam, pos, "apply")?;
                    let body = self.expr(&body, &lambda_target(&ps))?;
                    if !body.has_agg() {
                        return Err(self.e(
                            pos,
                            "apply's block must aggregate, e.g. apply { |x| sum(x) }",
                        ));
                    }
                    let plan = self.lift_plan(body, pos)?;
                    return Ok(Expr::Apply(Box::new(coll), ps, Box::new(plan)));
                }
                ("map" | "map_values", 1 | 2) => {
                    let (coll, lam) = if n == 1 {
                        (Expr::Row, &args[0])
                    } else {
                        (self.expr(&args[0], target)?, &args[1])
                    };
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
                    return Ok(Expr::Call(b, vec![coll, Expr::Lambda(ps, Box::new(body))]));
                }
                _ => {}
            }
            if let Some(k) = self.aggregation(name, args, pos, target)? {
                return agg(k);
            }
        }
        let Some((b, lo, hi)) = funcs::lookup(name, method) else {
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

    fn aggregation(
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
                    percentile_list(&v).map_err(|m| self.e(pos, m))?
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

    /// Copies a helper body with fresh binder slots and its parameters replaced.
    fn instantiate(&mut self, body: &Ast, args: &[Ast]) -> Ast {
        let mut map = HashMap::new();
        self.rename(body, args, &mut map)
    }

    fn fresh(&mut self, old: VarId, map: &mut HashMap<VarId, VarId>) -> VarId {
        let id = self.next_var;
        self.next_var += 1;
        map.insert(old, id);
        id
    }

    fn rename(&mut self, a: &Ast, args: &[Ast], map: &mut HashMap<VarId, VarId>) -> Ast {
        let r = |x: &Ast, s: &mut Self, map: &mut HashMap<VarId, VarId>| {
            Box::new(s.rename(x, args, map))
        };
        match a {
            Ast::DefParam(i) => args.get(*i).cloned().unwrap_or(Ast::Lit(Value::Null)),
            Ast::Var(id) => Ast::Var(*map.get(id).unwrap_or(id)),
            Ast::Lit(_) | Ast::Row | Ast::Regex(..) => a.clone(),
            Ast::Index(x, y) => Ast::Index(r(x, self, map), r(y, self, map)),
            Ast::Dot(x, n) => Ast::Dot(r(x, self, map), n.clone()),
            Ast::Array(xs) => Ast::Array(xs.iter().map(|x| self.rename(x, args, map)).collect()),
            Ast::Object(kv) => Ast::Object(
                kv.iter()
                    .map(|(k, v)| (self.rename(k, args, map), self.rename(v, args, map)))
                    .collect(),
            ),
            Ast::Unary(op, x) => Ast::Unary(*op, r(x, self, map)),
            Ast::Binary(op, x, y) => Ast::Binary(*op, r(x, self, map), r(y, self, map)),
            Ast::And(x, y) => Ast::And(r(x, self, map), r(y, self, map)),
            Ast::Or(x, y) => Ast::Or(r(x, self, map), r(y, self, map)),
            Ast::Cond(c, x, y) => Ast::Cond(r(c, self, map), r(x, self, map), r(y, self, map)),
            Ast::Let(id, i, b) => {
                let init = r(i, self, map);
                let nid = self.fresh(*id, map);
                Ast::Let(nid, init, r(b, self, map))
            }
            Ast::Lambda(ps, b) => {
                let ps = ps
                    .iter()
                    .map(|p| match p {
                        Param::Var(id) => Param::Var(self.fresh(*id, map)),
                        Param::Tuple(ids) => {
                            Param::Tuple(ids.iter().map(|id| self.fresh(*id, map)).collect())
                        }
                    })
                    .collect();
                Ast::Lambda(ps, r(b, self, map))
            }
            Ast::Call {
                name,
                args: cargs,
                method,
                pos,
            } => Ast::Call {
                name: name.clone(),
                args: cargs.iter().map(|x| self.rename(x, args, map)).collect(),
                method: *method,
                pos: *pos,
            },
        }
    }
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
