//! Stats records: one JSON object per NDJSON line (docs/formats.md).
//!
//! A record is kept as the JSON object it was read as, so producers may add
//! keys freely; consumers ask for the keys they know.

use crate::error::{Error, Result};
use ramp_vocab::record_keys as k;
use serde_json::{Map, Value};
use std::path::Path;

/// One stats record (one connection or request).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    fields: Map<String, Value>,
    /// 1-based line in the source file, for messages.
    line: usize,
}

impl Record {
    /// Wraps a JSON object (line 0: not from a file).
    pub fn new(fields: Map<String, Value>) -> Self {
        Record { fields, line: 0 }
    }

    /// The raw JSON value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// `key` as a number, if present and numeric (JSON `null` counts as absent).
    pub fn f64(&self, key: &str) -> Option<f64> {
        self.fields.get(key).and_then(Value::as_f64)
    }

    /// `key` as a string; numbers are rendered as text so that numeric
    /// group keys (e.g. a `seed`) can be used where a label is wanted.
    pub fn text(&self, key: &str) -> Option<String> {
        match self.fields.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// Time to last byte in milliseconds: `ttlb-us` / 1000 when present
    /// (microsecond precision), else the integer-ms `ttlb` (h2o logs).
    pub fn ttlb_ms(&self) -> Option<f64> {
        self.f64(k::TTLB_US)
            .map(|us| us / 1000.0)
            .or_else(|| self.f64(k::TTLB_MS))
    }

    /// Sets the line this record came from.
    pub fn set_line(&mut self, line: usize) {
        self.line = line;
    }

    /// The line this record came from (0 if not from a file).
    pub fn line(&self) -> usize {
        self.line
    }

    /// All fields.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }
}

/// Parses NDJSON records from `text`; `source` names the input in errors.
/// Blank lines are skipped; any other line must be a JSON object.
pub fn parse_records(text: &str, source: &str) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| Error::input(source, line_no, format!("invalid JSON: {e}")))?;
        match value {
            Value::Object(fields) => out.push(Record {
                fields,
                line: line_no,
            }),
            _ => {
                return Err(Error::input(
                    source,
                    line_no,
                    "expected a JSON object (one record per line)",
                ))
            }
        }
    }
    Ok(out)
}

/// Streams an NDJSON records file, handing each record (with its line
/// number set) to `f`, so that callers keep only what they need of each
/// line. Errors name the file and line.
pub(crate) fn for_each_record(path: &Path, mut f: impl FnMut(Record) -> Result<()>) -> Result<()> {
    use std::io::BufRead as _;
    let source = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, &e))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut buf = String::new();
    let mut line_no = 0;
    loop {
        buf.clear();
        let n = reader
            .read_line(&mut buf)
            .map_err(|e| Error::io(path, &e))?;
        if n == 0 {
            return Ok(());
        }
        line_no += 1;
        if buf.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(&buf)
            .map_err(|e| Error::input(&source, line_no, format!("invalid JSON: {e}")))?;
        let Value::Object(fields) = value else {
            return Err(Error::input(
                &source,
                line_no,
                "expected a JSON object (one record per line)",
            ));
        };
        f(Record {
            fields,
            line: line_no,
        })?;
    }
}

/// Reads an NDJSON records file.
pub fn read_records(path: &Path) -> Result<Vec<Record>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
    parse_records(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_objects_and_skips_blank_lines() {
        let recs =
            parse_records("{\"ttlb\":5,\"group\":\"a\"}\n\n{\"ttlb-us\":4500}\n", "r").unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].ttlb_ms(), Some(5.0));
        assert_eq!(recs[0].text("group").as_deref(), Some("a"));
        assert_eq!(recs[1].ttlb_ms(), Some(4.5));
        assert_eq!(recs[1].line(), 3);
    }

    #[test]
    fn bad_line_names_source_and_line() {
        let err = parse_records("{\"a\":1}\n{oops\n", "x.ndjson").unwrap_err();
        assert!(
            err.to_string().starts_with("x.ndjson:2: invalid JSON"),
            "{err}"
        );
        let err = parse_records("[1,2]\n", "x.ndjson").unwrap_err();
        assert!(err
            .to_string()
            .starts_with("x.ndjson:1: expected a JSON object"));
    }

    #[test]
    fn numeric_keys_render_as_text() {
        let recs = parse_records("{\"seed\":17}", "r").unwrap();
        assert_eq!(recs[0].text("seed").as_deref(), Some("17"));
    }
}
