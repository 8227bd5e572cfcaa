//! Stats records: one JSON object per NDJSON line (docs/formats.md).
//!
//! A record is kept as the JSON object it was read as, so producers may add
//! keys freely; consumers ask for the keys they know.

use crate::error::{Error, Result};
use ramp_vocab::lines::{CappedLines, LineError, MAX_LINE_BYTES};
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

    /// The line this record came from (0 if not from a file).
    pub fn line(&self) -> usize {
        self.line
    }

    /// All fields.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }
}

/// Calls `f` with each line of `reader` and its 1-based number. Lines are
/// at most [`MAX_LINE_BYTES`], checked as the bytes arrive (ramp-vocab's
/// one line reader), so a newline-less stream ends in one error naming
/// `source` and the line, not in an out-of-memory abort.
pub(crate) fn for_each_line(
    reader: impl std::io::BufRead,
    source: &str,
    mut f: impl FnMut(usize, &str) -> Result<()>,
) -> Result<()> {
    let mut lines = CappedLines::new(reader, MAX_LINE_BYTES);
    loop {
        let (line_no, bytes) = match lines.next_line() {
            Ok(Some((n, b))) => (n as usize, b),
            Ok(None) => return Ok(()),
            Err(LineError::TooLong(e)) => {
                return Err(Error::input(source, e.line as usize, e.to_string()))
            }
            Err(LineError::Io(e)) => {
                return Err(Error::Io {
                    path: source.to_string(),
                    message: e.to_string(),
                })
            }
        };
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::input(source, line_no, format!("not UTF-8 text: {e}")))?;
        f(line_no, text)?;
    }
}

/// One NDJSON line as a record, or `None` for a blank line.
fn record_of(line: &str, source: &str, line_no: usize) -> Result<Option<Record>> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(line)
        .map_err(|e| Error::input(source, line_no, format!("invalid JSON: {e}")))?;
    match value {
        Value::Object(fields) => Ok(Some(Record {
            fields,
            line: line_no,
        })),
        _ => Err(Error::input(
            source,
            line_no,
            "expected a JSON object (one record per line)",
        )),
    }
}

/// Parses NDJSON records from `text`; `source` names the input in errors.
/// Blank lines are skipped; any other line must be a JSON object.
pub fn parse_records(text: &str, source: &str) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    for_each_line(text.as_bytes(), source, |n, line| {
        out.extend(record_of(line, source, n)?);
        Ok(())
    })?;
    Ok(out)
}

/// Streams an NDJSON records file, handing each record (with its line
/// number set) to `f`, so that callers keep only what they need of each
/// line. Errors name the file and line.
pub(crate) fn for_each_record(path: &Path, mut f: impl FnMut(Record) -> Result<()>) -> Result<()> {
    let source = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, &e))?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    for_each_line(reader, &source, |n, line| {
        match record_of(line, &source, n)? {
            Some(r) => f(r),
            None => Ok(()),
        }
    })
}

/// Reads an NDJSON records file.
pub fn read_records(path: &Path) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    for_each_record(path, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
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
