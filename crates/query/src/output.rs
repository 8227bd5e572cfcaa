//! Output formats. Each value is formatted independently (so workers can
//! format their chunk's rows in parallel).
//!
//! TSV/CSV follow jrf's `-o tsv` layout: an object becomes one row per key
//! (`key, value...`, array values spread across cells); an array of arrays
//! becomes one row per inner array; any other array is one row; a scalar is
//! one cell. Strings print raw, `null` as `null`, nested values as compact
//! JSON.

use crate::json::{write_compact, write_pretty};
use crate::value::Value;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One compact JSON value per line (NDJSON).
    Json,
    /// Indented JSON.
    Pretty,
    /// Tab-separated cells.
    Tsv,
    /// Comma-separated cells (RFC 4180 quoting).
    Csv,
}

/// Appends one output value in `fmt`, newline-terminated.
pub(crate) fn format_value(v: &Value, fmt: Format, out: &mut Vec<u8>) {
    match fmt {
        Format::Json => write_compact(v, out),
        Format::Pretty => write_pretty(v, out),
        Format::Tsv | Format::Csv => {
            for row in rows(v) {
                for (i, cell) in row.iter().enumerate() {
                    if i > 0 {
                        out.push(if fmt == Format::Tsv { b'\t' } else { b',' });
                    }
                    write_cell(cell, fmt, out);
                }
                out.push(b'\n');
            }
            return;
        }
    }
    out.push(b'\n');
}

fn rows(v: &Value) -> Vec<Vec<Value>> {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| {
                let mut r = vec![Value::Str(k.clone())];
                match x {
                    Value::Array(a) => r.extend(a.iter().cloned()),
                    other => r.push(other.clone()),
                }
                r
            })
            .collect(),
        Value::Array(a) if !a.is_empty() && a.iter().all(|x| matches!(x, Value::Array(_))) => a
            .iter()
            .map(|x| match x {
                Value::Array(r) => r.clone(),
                _ => Vec::new(),
            })
            .collect(),
        Value::Array(a) => vec![a.clone()],
        other => vec![vec![other.clone()]],
    }
}

fn write_cell(v: &Value, fmt: Format, out: &mut Vec<u8>) {
    let text = match v {
        Value::Str(s) => s.clone(),
        other => crate::json::to_string(other),
    };
    match fmt {
        Format::Csv if text.contains([',', '"', '\n', '\r']) => {
            out.push(b'"');
            out.extend_from_slice(text.replace('"', "\"\"").as_bytes());
            out.push(b'"');
        }
        Format::Csv => out.extend_from_slice(text.as_bytes()),
        _ => {
            // Keep one record per line: escape tabs and newlines.
            for c in text.chars() {
                match c {
                    '\t' => out.extend_from_slice(b"\\t"),
                    '\n' => out.extend_from_slice(b"\\n"),
                    '\r' => out.extend_from_slice(b"\\r"),
                    '\\' => out.extend_from_slice(b"\\\\"),
                    c => {
                        let mut b = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_line;

    fn fmt(s: &str, f: Format) -> String {
        let mut out = Vec::new();
        format_value(&parse_line(s.as_bytes()).unwrap(), f, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn tsv_object_rows_spread_arrays() {
        assert_eq!(
            fmt(r#"{"a":[1,2],"b":"x"}"#, Format::Tsv),
            "a\t1\t2\nb\tx\n"
        );
    }

    #[test]
    fn csv_quotes() {
        assert_eq!(
            fmt(r#"[["a,b","c\"d"],[null,1.5]]"#, Format::Csv),
            "\"a,b\",\"c\"\"d\"\nnull,1.5\n"
        );
    }
}
