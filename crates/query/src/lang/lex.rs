//! The query lexer. `/` starts a regex literal where an operand is expected
//! and is division after one, the rule jrf's stage splitter also uses.

use super::error::QueryError;

/// A token kind.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A number literal: its value, and the exact integer when it is an
    /// integer literal that fits i64.
    Num(f64, Option<i128>),
    /// A string literal (escapes decoded).
    Str(String),
    /// A regex literal: pattern and flags.
    Regex(String, String),
    /// An identifier or keyword.
    Ident(String),
    /// `_`
    Underscore,
    /// Punctuation and operators.
    Sym(&'static str),
    /// End of input.
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Num(..) => "a number".into(),
            Tok::Str(_) => "a string".into(),
            Tok::Regex(..) => "a regex".into(),
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Underscore => "'_'".into(),
            Tok::Sym(s) => format!("'{s}'"),
            Tok::Eof => "end of query".into(),
        }
    }

    fn ends_operand(&self) -> bool {
        match self {
            Tok::Num(..) | Tok::Str(_) | Tok::Regex(..) | Tok::Ident(_) | Tok::Underscore => true,
            Tok::Sym(s) => matches!(*s, ")" | "]" | "}"),
            Tok::Eof => false,
        }
    }
}

/// A token and its byte span in the query text.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    /// The token.
    pub tok: Tok,
    /// Byte offset of its first character.
    pub pos: usize,
}

// Longest first so that `>>` wins over `>` and `>=`.
const SYMS: &[&str] = &[
    ">>", "=>", "==", "!=", "<=", ">=", "&&", "||", "=~", "!~", "//", "&.", "(", ")", "[", "]",
    "{", "}", ",", ":", ";", ".", "+", "-", "*", "/", "%", "<", ">", "!", "?", "|", "=",
];

/// Splits a query into tokens.
pub(crate) fn lex(src: &str) -> Result<Vec<Token>, QueryError> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out: Vec<Token> = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        let prev_operand = out.last().is_some_and(|t| t.tok.ends_operand());
        if c.is_ascii_digit() {
            let mut s = String::new();
            let mut int = true;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                if b[i] != b'_' {
                    s.push(b[i] as char);
                }
                i += 1;
            }
            if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                int = false;
                s.push('.');
                i += 1;
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                    if b[i] != b'_' {
                        s.push(b[i] as char);
                    }
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    int = false;
                    s.push_str(&src[i..j]);
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        s.push(b[i] as char);
                        i += 1;
                    }
                }
            }
            let v: f64 = s
                .parse()
                .map_err(|_| QueryError::new(start, "invalid number literal"))?;
            // Integers past u64 are taken as floats (as in JSON input).
            let int = if int {
                s.parse::<i128>()
                    .ok()
                    .filter(|i| crate::value::in_int_range(*i))
            } else {
                None
            };
            out.push(Token {
                tok: Tok::Num(v, int),
                pos: start,
            });
            continue;
        }
        if c == b'_'
            && !b
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphanumeric() || *n == b'_')
        {
            out.push(Token {
                tok: Tok::Underscore,
                pos: start,
            });
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            // Ruby predicate names such as `include?` / `start_with?`.
            if i < b.len() && b[i] == b'?' && b.get(i + 1) == Some(&b'(') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(src[start..i].to_string()),
                pos: start,
            });
            continue;
        }
        if c == b'"' {
            let (s, end) = string(src, i)?;
            out.push(Token {
                tok: Tok::Str(s),
                pos: start,
            });
            i = end;
            continue;
        }
        if c == b'/' && !prev_operand {
            let (re, flags, end) = regex(src, i)?;
            out.push(Token {
                tok: Tok::Regex(re, flags),
                pos: start,
            });
            i = end;
            continue;
        }
        let rest = &src[i..];
        let Some(sym) = SYMS.iter().find(|s| rest.starts_with(**s)) else {
            let ch = rest.chars().next().unwrap_or('?');
            return Err(QueryError::new(
                start,
                format!("unexpected character '{ch}'"),
            ));
        };
        // `//` after an operand is floor division; elsewhere it is an empty regex.
        out.push(Token {
            tok: Tok::Sym(sym),
            pos: start,
        });
        i += sym.len();
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: src.len(),
    });
    Ok(out)
}

fn string(src: &str, start: usize) -> Result<(String, usize), QueryError> {
    let mut out = String::new();
    let mut chars = src[start + 1..].char_indices();
    while let Some((off, ch)) = chars.next() {
        let at = start + 1 + off;
        match ch {
            '"' => return Ok((out, at + 1)),
            '\\' => {
                let Some((_, e)) = chars.next() else { break };
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    '/' => out.push('/'),
                    'u' => {
                        let hex: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
                        let ch = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| {
                                QueryError::new(at, "invalid \\u escape (need 4 hex digits)")
                            })?;
                        out.push(ch);
                    }
                    other => {
                        return Err(QueryError::new(
                            at,
                            format!("unknown escape '\\{other}' in a string"),
                        ))
                    }
                }
            }
            c => out.push(c),
        }
    }
    Err(QueryError::new(
        start,
        "unterminated string (missing closing '\"')",
    ))
}

fn regex(src: &str, start: usize) -> Result<(String, String, usize), QueryError> {
    let b = src.as_bytes();
    let mut i = start + 1;
    let mut re = String::new();
    while i < b.len() {
        match b[i] {
            b'/' => {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_alphabetic() {
                    j += 1;
                }
                let flags = src[i + 1..j].to_string();
                if let Some(f) = flags.chars().find(|c| !"imsx".contains(*c)) {
                    return Err(QueryError::new(
                        i + 1,
                        format!("unknown regex flag '{f}' (use i, m, s or x)"),
                    ));
                }
                return Ok((re, flags, j));
            }
            b'\\' if b.get(i + 1) == Some(&b'/') => {
                re.push('/');
                i += 2;
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                re.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    Err(QueryError::new(
        start,
        "unterminated regex (missing closing '/')",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn slash_is_regex_or_division_by_context() {
        assert_eq!(toks("a / 2")[1], Tok::Sym("/"));
        assert_eq!(
            toks("x =~ /^\\/api/i")[2],
            Tok::Regex("^/api".into(), "i".into())
        );
    }

    #[test]
    fn stage_separator_and_numbers() {
        assert_eq!(
            toks("_ >> 200_000 >> 0.5e1"),
            vec![
                Tok::Underscore,
                Tok::Sym(">>"),
                Tok::Num(200000.0, Some(200000)),
                Tok::Sym(">>"),
                Tok::Num(5.0, None),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn unterminated_string_points_at_it() {
        let e = lex("select(\"abc)").unwrap_err();
        assert_eq!(e.pos, 7);
        assert!(e.msg.contains("unterminated string"));
    }
}
