//! The ndq query language: lexer, parser and syntax tree.

pub(crate) mod ast;
pub(crate) mod error;
pub(crate) mod lex;
pub(crate) mod parse;

pub(crate) use error::QueryError;
