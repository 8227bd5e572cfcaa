//! Recursive-descent / Pratt parser for ndq queries (grammar: docs/ndq.md).

use super::ast::{Ast, BinOp, Def, Param, Program, UnOp, VarId};
use super::error::QueryError;
use super::lex::{lex, Tok, Token};
use crate::value::Value;

/// Deepest expression nesting accepted (guards the parser's stack).
pub(crate) const MAX_NESTING: usize = 200;

type R<T> = Result<T, QueryError>;

/// Parses a full query: optional `def`s, then `>>`-separated stages.
/// `var_base` is the first free variable slot (after `-f` helper files).
pub(crate) fn parse_program(src: &str, var_base: usize) -> R<Program> {
    let mut p = Parser::new(src, var_base)?;
    let defs = p.defs()?;
    let mut stages = Vec::new();
    loop {
        let pos = p.pos();
        if p.peek() == &Tok::Eof {
            return Err(p.expected("a stage expression"));
        }
        let e = p.expr()?;
        stages.push((e, pos));
        match p.peek() {
            Tok::Sym(">>") => p.bump(),
            Tok::Eof => break,
            _ => return Err(p.expected("'>>' or end of query")),
        }
    }
    Ok(Program {
        defs,
        stages,
        n_vars: p.next_var,
    })
}

/// Parses a helper file: only `def`s. Returns them and the next free slot.
pub(crate) fn parse_defs(src: &str, var_base: usize) -> R<(Vec<Def>, usize)> {
    let mut p = Parser::new(src, var_base)?;
    let defs = p.defs()?;
    if p.peek() != &Tok::Eof {
        return Err(p.expected("'def' (helper files hold only definitions)"));
    }
    Ok((defs, p.next_var))
}

struct Parser {
    toks: Vec<Token>,
    at: usize,
    scopes: Vec<(String, VarId)>,
    def_params: Vec<String>,
    next_var: VarId,
    depth: usize,
}

impl Parser {
    fn new(src: &str, var_base: usize) -> R<Self> {
        Ok(Parser {
            toks: lex(src)?,
            at: 0,
            scopes: Vec::new(),
            def_params: Vec::new(),
            next_var: var_base,
            depth: 0,
        })
    }

    fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn peek2(&self) -> &Tok {
        self.toks.get(self.at + 1).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn pos(&self) -> usize {
        self.toks.get(self.at).map_or(0, |t| t.pos)
    }

    fn bump(&mut self) {
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
    }

    fn expected(&self, what: &str) -> QueryError {
        QueryError::new(
            self.pos(),
            format!("expected {what}, found {}", self.peek().describe()),
        )
    }

    fn eat(&mut self, sym: &'static str) -> bool {
        if self.peek() == &Tok::Sym(sym) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, sym: &'static str, ctx: &str) -> R<()> {
        if self.eat(sym) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{sym}' {ctx}")))
        }
    }

    fn ident(&mut self, what: &str) -> R<String> {
        if let Tok::Ident(s) = self.peek() {
            let s = s.clone();
            self.bump();
            Ok(s)
        } else {
            Err(self.expected(what))
        }
    }

    fn fresh(&mut self, name: String) -> VarId {
        let id = self.next_var;
        self.next_var += 1;
        self.scopes.push((name, id));
        id
    }

    fn defs(&mut self) -> R<Vec<Def>> {
        let mut defs = Vec::new();
        while self.peek() == &Tok::Ident("def".into()) {
            let pos = self.pos();
            self.bump();
            let name = self.ident("a helper name after 'def'")?;
            let mut params = Vec::new();
            if self.eat("(") && !self.eat(")") {
                loop {
                    params.push(self.ident("a parameter name")?);
                    if self.eat(")") {
                        break;
                    }
                    self.expect(",", "between parameters")?;
                }
            }
            if defs.iter().any(|d: &Def| d.name == name) {
                // The last would win silently; say so instead.
                return Err(QueryError::new(
                    pos,
                    format!("helper {name} is defined twice"),
                ));
            }
            if !self.eat("=") {
                return Err(self.expected("'=' after the helper's parameters"));
            }
            self.def_params = params;
            let body = self.expr()?;
            let arity = self.def_params.len();
            self.def_params.clear();
            if !self.eat(";") && self.peek() != &Tok::Eof {
                return Err(self.expected("';' after a helper definition"));
            }
            defs.push(Def {
                name,
                arity,
                body,
                pos,
            });
        }
        Ok(defs)
    }

    fn expr(&mut self) -> R<Ast> {
        self.deeper()?;
        let r = self.ternary();
        self.depth -= 1;
        r
    }

    /// One more level of nesting in the tree being built: a sub-expression,
    /// a unary operator, or one more link of a chain of binary operators,
    /// indexing or method calls (each link puts the chain so far one level
    /// deeper). Every later pass (compiler, evaluator, drop) recurses over
    /// the tree, so its depth is what must stay bounded.
    fn deeper(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(QueryError::new(
                self.pos(),
                format!("expression nested too deeply (more than {MAX_NESTING} levels)"),
            ));
        }
        Ok(())
    }

    fn ternary(&mut self) -> R<Ast> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.expr()?;
            self.expect(":", "in 'cond ? a : b'")?;
            let b = self.expr()?;
            return Ok(Ast::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn binop(&self) -> Option<(u8, &'static str)> {
        let s = match self.peek() {
            Tok::Sym(s) => *s,
            Tok::Ident(w) if w == "or" => "||",
            Tok::Ident(w) if w == "and" => "&&",
            _ => return None,
        };
        let prec = match s {
            "||" => 1,
            "&&" => 2,
            "==" | "!=" | "=~" | "!~" | "<" | "<=" | ">" | ">=" => 3,
            "+" | "-" => 4,
            "*" | "/" | "//" | "%" => 5,
            _ => return None,
        };
        Some((prec, s))
    }

    fn binary(&mut self, min: u8) -> R<Ast> {
        let mut lhs = self.unary()?;
        let depth = self.depth;
        while let Some((prec, op)) = self.binop() {
            if prec <= min {
                break;
            }
            if let Err(e) = self.deeper() {
                self.depth = depth;
                return Err(e);
            }
            self.bump();
            let rhs = self.binary(prec)?;
            let (l, r) = (Box::new(lhs), Box::new(rhs));
            lhs = match op {
                "||" => Ast::Or(l, r),
                "&&" => Ast::And(l, r),
                _ => Ast::Binary(
                    match op {
                        "==" => BinOp::Eq,
                        "!=" => BinOp::Ne,
                        "=~" => BinOp::Match,
                        "!~" => BinOp::NotMatch,
                        "<" => BinOp::Lt,
                        "<=" => BinOp::Le,
                        ">" => BinOp::Gt,
                        ">=" => BinOp::Ge,
                        "+" => BinOp::Add,
                        "-" => BinOp::Sub,
                        "*" => BinOp::Mul,
                        "/" => BinOp::Div,
                        "//" => BinOp::FloorDiv,
                        _ => BinOp::Rem,
                    },
                    l,
                    r,
                ),
            };
        }
        self.depth = depth;
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Ast> {
        let depth = self.depth;
        let r = self.unary_at();
        self.depth = depth;
        r
    }

    fn unary_at(&mut self) -> R<Ast> {
        if self.eat("-") {
            self.deeper()?;
            let e = self.unary_at()?;
            if let Ast::Lit(Value::Int(i)) = e {
                return Ok(Ast::Lit(Value::Int(-i)));
            }
            if let Ast::Lit(Value::Float(f)) = e {
                return Ok(Ast::Lit(Value::Float(-f)));
            }
            return Ok(Ast::Unary(UnOp::Neg, Box::new(e)));
        }
        if self.eat("!")
            || self.peek() == &Tok::Ident("not".into()) && {
                self.bump();
                true
            }
        {
            self.deeper()?;
            let e = self.unary_at()?;
            return Ok(Ast::Unary(UnOp::Not, Box::new(e)));
        }
        let e = self.primary()?;
        self.postfix(e)
    }

    fn postfix(&mut self, mut e: Ast) -> R<Ast> {
        loop {
            if matches!(self.peek(), Tok::Sym("[" | "." | "&.")) {
                self.deeper()?;
            }
            if self.eat("[") {
                let k = self.expr()?;
                self.expect("]", "to close the index")?;
                e = Ast::Index(Box::new(e), Box::new(k));
            } else if self.peek() == &Tok::Sym(".") || self.peek() == &Tok::Sym("&.") {
                self.bump();
                let pos = self.pos();
                let name = self.ident("a field or method name after '.'")?;
                if self.peek() == &Tok::Sym("(")
                    || self.peek() == &Tok::Sym("{") && self.block_follows()
                {
                    let mut args = vec![e];
                    args.extend(self.call_args()?);
                    e = Ast::Call {
                        name,
                        args,
                        method: true,
                        pos,
                    };
                } else {
                    e = Ast::Dot(Box::new(e), name);
                }
            } else {
                return Ok(e);
            }
        }
    }

    /// After a callee, `{` starts a block only if it looks like one:
    /// `{ |` or `{` followed by something that is not `key:`/`key =>`.
    fn block_follows(&self) -> bool {
        if self.peek() != &Tok::Sym("{") {
            return false;
        }
        match self.peek2() {
            Tok::Sym("|") | Tok::Sym("||") => true,
            Tok::Sym("}") => false,
            Tok::Str(_) | Tok::Ident(_) => !matches!(
                self.toks.get(self.at + 2).map(|t| &t.tok),
                Some(Tok::Sym(":")) | Some(Tok::Sym("=>"))
            ),
            _ => true,
        }
    }

    /// `(args)` then an optional trailing block, or just a block.
    fn call_args(&mut self) -> R<Vec<Ast>> {
        let mut args = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                args.push(self.expr()?);
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.expected("',' or ')' in the argument list"));
                }
                if self.eat(")") {
                    break;
                }
            }
        }
        if self.block_follows() {
            self.bump();
            let lam = if self.peek() == &Tok::Sym("|") || self.peek() == &Tok::Sym("||") {
                self.lambda()?
            } else {
                let body = self.expr()?;
                Ast::Lambda(Vec::new(), Box::new(body))
            };
            self.expect("}", "to close the block")?;
            args.push(lam);
        }
        Ok(args)
    }

    fn lambda(&mut self) -> R<Ast> {
        let mark = self.scopes.len();
        let mut params = Vec::new();
        if !self.eat("||") {
            self.expect("|", "to start a lambda")?;
            if !self.eat("|") {
                loop {
                    if self.eat("(") {
                        let mut vs = Vec::new();
                        loop {
                            let n = self.ident("a parameter name")?;
                            vs.push(self.fresh(n));
                            if self.eat(")") {
                                break;
                            }
                            self.expect(",", "between parameters")?;
                        }
                        params.push(Param::Tuple(vs));
                    } else {
                        let n = self.ident("a parameter name")?;
                        params.push(Param::Var(self.fresh(n)));
                    }
                    if self.eat("|") {
                        break;
                    }
                    self.expect(",", "between lambda parameters")?;
                }
            }
        }
        let body = self.expr();
        self.scopes.truncate(mark);
        Ok(Ast::Lambda(params, Box::new(body?)))
    }

    fn primary(&mut self) -> R<Ast> {
        let pos = self.pos();
        let tok = self.peek().clone();
        match tok {
            Tok::Num(f, int) => {
                self.bump();
                Ok(Ast::Lit(match int {
                    Some(i) => Value::Int(i),
                    None => Value::Float(f),
                }))
            }
            Tok::Str(s) => {
                self.bump();
                Ok(Ast::Lit(Value::Str(s)))
            }
            Tok::Regex(r, f) => {
                self.bump();
                Ok(Ast::Regex(r, f))
            }
            Tok::Underscore => {
                self.bump();
                Ok(Ast::Row)
            }
            Tok::Sym("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect(")", "to close the parenthesis")?;
                Ok(e)
            }
            Tok::Sym("[") => {
                self.bump();
                let mut items = Vec::new();
                while !self.eat("]") {
                    items.push(self.expr()?);
                    if !self.eat(",") && self.peek() != &Tok::Sym("]") {
                        return Err(self.expected("',' or ']' in the array"));
                    }
                }
                Ok(Ast::Array(items))
            }
            Tok::Sym("{") => self.object(),
            Tok::Sym("|") | Tok::Sym("||") => self.lambda(),
            Tok::Ident(name) => self.ident_expr(name, pos),
            _ => Err(self.expected("an expression")),
        }
    }

    fn object(&mut self) -> R<Ast> {
        self.bump();
        let mut entries = Vec::new();
        while !self.eat("}") {
            let key = match self.peek().clone() {
                Tok::Str(s) => {
                    self.bump();
                    Ast::Lit(Value::Str(s))
                }
                Tok::Ident(s) => {
                    self.bump();
                    Ast::Lit(Value::Str(s))
                }
                Tok::Sym("(") => {
                    self.bump();
                    let e = self.expr()?;
                    self.expect(")", "to close the computed key")?;
                    e
                }
                _ => return Err(self.expected("an object key (a string, a name or '(expr)')")),
            };
            if !self.eat(":") && !self.eat("=>") {
                return Err(self.expected("':' or '=>' after the object key"));
            }
            let v = self.expr()?;
            entries.push((key, v));
            if !self.eat(",") && self.peek() != &Tok::Sym("}") {
                return Err(self.expected("',' or '}' in the object"));
            }
        }
        Ok(Ast::Object(entries))
    }

    fn ident_expr(&mut self, name: String, pos: usize) -> R<Ast> {
        self.bump();
        match name.as_str() {
            "true" => return Ok(Ast::Lit(Value::Bool(true))),
            "false" => return Ok(Ast::Lit(Value::Bool(false))),
            "null" | "nil" => return Ok(Ast::Lit(Value::Null)),
            "let" => {
                let n = self.ident("a variable name after 'let'")?;
                self.expect("=", "after the variable name")?;
                let init = self.expr()?;
                self.expect(";", "after the let binding")?;
                let mark = self.scopes.len();
                let v = self.fresh(n);
                let body = self.expr();
                self.scopes.truncate(mark);
                return Ok(Ast::Let(v, Box::new(init), Box::new(body?)));
            }
            _ => {}
        }
        let is_call = self.peek() == &Tok::Sym("(") || self.block_follows();
        if !is_call {
            if let Some((_, id)) = self.scopes.iter().rev().find(|(n, _)| *n == name) {
                return Ok(Ast::Var(*id));
            }
            if let Some(i) = self.def_params.iter().position(|n| *n == name) {
                return Ok(Ast::DefParam(i));
            }
        }
        let args = self.call_args()?;
        Ok(Ast::Call {
            name,
            args,
            method: false,
            pos,
        })
    }
}

#[cfg(test)]
mod tests;
