//! Query (compile-time) errors, rendered with a caret under the position.

use std::fmt;

/// An error in a query or a `-f` helper file.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryError {
    /// Byte offset in the source text.
    pub pos: usize,
    /// What was expected or what is wrong.
    pub msg: String,
}

impl QueryError {
    /// An error at `pos`.
    pub fn new(pos: usize, msg: impl Into<String>) -> Self {
        QueryError {
            pos,
            msg: msg.into(),
        }
    }

    /// Multi-line rendering: `origin:line:col: msg`, the source line, and a
    /// caret under the offending character.
    pub fn render(&self, src: &str, origin: &str) -> String {
        let pos = self.pos.min(src.len());
        let line_start = src[..pos].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[pos..].find('\n').map_or(src.len(), |i| pos + i);
        let line_no = src[..pos].matches('\n').count() + 1;
        let col = src[line_start..pos].chars().count();
        let text = &src[line_start..line_end];
        format!(
            "{origin}:{line_no}:{}: {}\n  {text}\n  {}^",
            col + 1,
            self.msg,
            " ".repeat(col)
        )
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.pos, self.msg)
    }
}

impl std::error::Error for QueryError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_points_at_column() {
        let e = QueryError::new(4, "expected ')'");
        assert_eq!(
            e.render("f(1 >> 2", "query"),
            "query:1:5: expected ')'\n  f(1 >> 2\n      ^"
        );
    }
}
