//! The ndq query language: lexer, parser and syntax tree.

pub mod ast;
pub mod error;
pub mod lex;
pub mod parse;

pub use error::QueryError;
