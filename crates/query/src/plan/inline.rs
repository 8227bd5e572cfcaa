//! Helper inlining: a helper's body is copied with its parameters
//! replaced by the call's arguments and every binder given a fresh
//! variable slot, so two calls of one helper never share variables.

use std::collections::HashMap;

use super::Compiler;
use crate::expr::Expr;
use crate::lang::ast::{Ast, Def, Param, VarId};
use crate::lang::QueryError;
use crate::value::Value;

/// How deep helper calls may nest (helpers are inlined; recursion is not supported).
const MAX_INLINE_DEPTH: usize = 64;

impl Compiler<'_> {
    /// Compiles a call of helper `def` by compiling its body with the
    /// arguments in place; errors inside point at the outermost call.
    pub(super) fn inline_call(
        &mut self,
        def: &Def,
        name: &str,
        args: &[Ast],
        pos: usize,
        target: &Expr,
    ) -> Result<Expr, QueryError> {
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
        r
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
