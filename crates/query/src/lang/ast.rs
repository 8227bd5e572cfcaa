//! The surface syntax tree produced by the parser. Variables are already
//! resolved to numeric slots (so helper inlining cannot capture names);
//! function names are resolved later by [`crate::plan`].

use crate::value::Value;

/// A variable slot, unique per binder in the whole query.
pub(crate) type VarId = usize;

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x`
    Not,
}

/// Binary operators (short-circuit `&&`/`||` are separate nodes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinOp {
    /// `+` numbers, string/array concatenation, object merge.
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` always float division.
    Div,
    /// `//` floor division.
    FloorDiv,
    /// `%`
    Rem,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `=~` regex match
    Match,
    /// `!~` regex non-match
    NotMatch,
}

/// A lambda parameter: a name, or `(a, b)` destructuring an array.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// One variable.
    Var(VarId),
    /// Destructure an array into these variables.
    Tuple(Vec<VarId>),
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Ast {
    /// A literal.
    Lit(Value),
    /// `_`, the current value.
    Row,
    /// A lambda parameter or `let` variable.
    Var(VarId),
    /// The i-th parameter of the `def` being parsed.
    DefParam(usize),
    /// `e[k]`, `e.k`
    Index(Box<Ast>, Box<Ast>),
    /// `e.name` (no parentheses): a field, or a one-argument built-in when
    /// `e` is not an object (`s.downcase`, `arr.length`, as in Ruby).
    Dot(Box<Ast>, String),
    /// `[a, b]`
    Array(Vec<Ast>),
    /// `{k: v}`
    Object(Vec<(Ast, Ast)>),
    /// Unary operator.
    Unary(UnOp, Box<Ast>),
    /// Binary operator.
    Binary(BinOp, Box<Ast>, Box<Ast>),
    /// `a && b`
    And(Box<Ast>, Box<Ast>),
    /// `a || b`
    Or(Box<Ast>, Box<Ast>),
    /// `c ? a : b`
    Cond(Box<Ast>, Box<Ast>, Box<Ast>),
    /// `let x = e; body`
    Let(VarId, Box<Ast>, Box<Ast>),
    /// `/re/flags`
    Regex(String, String),
    /// A call by name; `method` marks `x.f(...)` syntax.
    Call {
        /// Function name.
        name: String,
        /// Arguments (for methods, the receiver first).
        args: Vec<Ast>,
        /// Written as a method call.
        method: bool,
        /// Position of the name, for errors.
        pos: usize,
    },
    /// `|params| body`
    Lambda(Vec<Param>, Box<Ast>),
}

/// A `def name(params) = body;` helper.
#[derive(Debug, Clone)]
pub struct Def {
    /// Name.
    pub name: String,
    /// Number of parameters.
    pub arity: usize,
    /// Body, with parameters as [`Ast::DefParam`].
    pub body: Ast,
    /// Position, for errors.
    pub pos: usize,
}

/// A parsed query: helpers and `>>`-separated stages.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    /// Helpers defined in the query (and `-f` files, merged by the caller).
    pub defs: Vec<Def>,
    /// Stages with their source position.
    pub stages: Vec<(Ast, usize)>,
    /// Number of variable slots used.
    pub n_vars: usize,
}
