//! Tree rewrites used by the compiler: substituting a block parameter that
//! names the row, and lifting aggregation calls out of a stage expression
//! into numbered slots.

use crate::expr::{AggKind, Expr};
use crate::lang::ast::{Ast, VarId};

/// Replaces variable `id` with `with` (block parameters that name the row).
pub(crate) fn subst_var(a: &Ast, id: VarId, with: &Ast) -> Ast {
    let s = |x: &Ast| Box::new(subst_var(x, id, with));
    match a {
        Ast::Var(v) if *v == id => with.clone(),
        Ast::Var(_) | Ast::Lit(_) | Ast::Row | Ast::Regex(..) | Ast::DefParam(_) => a.clone(),
        Ast::Index(x, y) => Ast::Index(s(x), s(y)),
        Ast::Dot(x, n) => Ast::Dot(s(x), n.clone()),
        Ast::Array(xs) => Ast::Array(xs.iter().map(|x| subst_var(x, id, with)).collect()),
        Ast::Object(kv) => Ast::Object(
            kv.iter()
                .map(|(k, v)| (subst_var(k, id, with), subst_var(v, id, with)))
                .collect(),
        ),
        Ast::Unary(op, x) => Ast::Unary(*op, s(x)),
        Ast::Binary(op, x, y) => Ast::Binary(*op, s(x), s(y)),
        Ast::And(x, y) => Ast::And(s(x), s(y)),
        Ast::Or(x, y) => Ast::Or(s(x), s(y)),
        Ast::Cond(c, x, y) => Ast::Cond(s(c), s(x), s(y)),
        Ast::Let(v, i, b) => Ast::Let(*v, s(i), s(b)),
        Ast::Lambda(ps, b) => Ast::Lambda(ps.clone(), s(b)),
        Ast::Call {
            name,
            args,
            method,
            pos,
        } => Ast::Call {
            name: name.clone(),
            args: args.iter().map(|x| subst_var(x, id, with)).collect(),
            method: *method,
            pos: *pos,
        },
    }
}

/// Replaces aggregation calls by slot references, collecting them in order.
pub(crate) fn lift(e: Expr, aggs: &mut Vec<AggKind>) -> Expr {
    let b = |x: Box<Expr>, aggs: &mut Vec<AggKind>| Box::new(lift(*x, aggs));
    match e {
        Expr::Agg(k) => {
            aggs.push(*k);
            Expr::AggRef(aggs.len() - 1)
        }
        Expr::Field(x, n) => Expr::Field(b(x, aggs), n),
        Expr::FieldOr(x, n, f) => Expr::FieldOr(b(x, aggs), n, f),
        Expr::Index(x, y) => Expr::Index(b(x, aggs), b(y, aggs)),
        Expr::Array(xs) => Expr::Array(xs.into_iter().map(|x| lift(x, aggs)).collect()),
        Expr::Object(kv) => Expr::Object(
            kv.into_iter()
                .map(|(k, v)| (lift(k, aggs), lift(v, aggs)))
                .collect(),
        ),
        Expr::Unary(op, x) => Expr::Unary(op, b(x, aggs)),
        Expr::Binary(op, x, y) => Expr::Binary(op, b(x, aggs), b(y, aggs)),
        Expr::And(x, y) => Expr::And(b(x, aggs), b(y, aggs)),
        Expr::Or(x, y) => Expr::Or(b(x, aggs), b(y, aggs)),
        Expr::Cond(c, x, y) => Expr::Cond(b(c, aggs), b(x, aggs), b(y, aggs)),
        Expr::Let(v, i, x) => Expr::Let(v, b(i, aggs), b(x, aggs)),
        Expr::Call(f, xs) => Expr::Call(f, xs.into_iter().map(|x| lift(x, aggs)).collect()),
        Expr::Lambda(ps, x) => Expr::Lambda(ps, b(x, aggs)),
        Expr::Select(c, t) => Expr::Select(b(c, aggs), b(t, aggs)),
        Expr::Flat(x) => Expr::Flat(b(x, aggs)),
        other => other,
    }
}
