//! A strict, allocation-light JSON parser for one NDJSON line.
//!
//! Two entry points share one cursor:
//! * [`parse_line`] builds the whole [`Value`];
//! * [`scan_fields`] validates the whole line but builds only the values of
//!   the requested top-level keys, skipping every other value with a fast
//!   structural skip. This is what makes `min(_["rtt.minimum"])` fast on
//!   4 KB lines.
//!
//! Strictness (both paths): brackets, commas, colons, string termination,
//! escapes (including `\u` hex), number grammar (RFC 8259 §6), the literals
//! `true`/`false`/`null`, no control characters inside strings, valid UTF-8
//! in every string (skipped or decoded: acceptance never depends on the
//! query), nothing after the value but whitespace. Nesting deeper than
//! [`MAX_DEPTH`] is an error rather than a stack overflow. Duplicate keys:
//! the last one wins.
//!
//! The cursor and its grammar live in the submodules: `cursor` (values,
//! objects, arrays, literals), `string` (strings, escapes, UTF-8) and
//! `number` (the number grammar).

mod cursor;
mod number;
mod string;

use std::fmt;

use crate::value::{MemberStack, Value};
use cursor::Cursor;
use string::RawKey;

/// Deepest nesting accepted, so hostile input cannot overflow the stack.
pub const MAX_DEPTH: usize = 512;

/// A malformed line: byte offset within the line and what was wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    /// Byte offset in the line.
    pub offset: usize,
    /// What was expected or found.
    pub msg: &'static str,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.msg)
    }
}

type R<T> = Result<T, JsonError>;

/// Result of [`scan_fields`].
#[derive(Debug, PartialEq, Eq)]
pub enum Scan {
    /// The line is empty or only whitespace.
    Blank,
    /// The line is an object; requested fields were filled in.
    Object,
    /// The line is valid JSON but not an object; parse it fully instead.
    NotObject,
}

/// Parses one line (surrounding spaces, tabs and CR allowed; a newline is
/// not whitespace here, since it ends the line) into a value.
pub fn parse_line(line: &[u8]) -> R<Value> {
    parse_with(line, false)
}

/// Parses a JSON text that may span lines (`from_json`).
pub fn parse_document(text: &[u8]) -> R<Value> {
    parse_with(text, true)
}

fn parse_with(b: &[u8], nl: bool) -> R<Value> {
    let mut c = Cursor {
        b,
        i: 0,
        nl,
        stack: MemberStack::take(),
    };
    let r = parse_cursor(&mut c);
    c.stack.give_back();
    r
}

fn parse_cursor(c: &mut Cursor<'_>) -> R<Value> {
    c.ws();
    let v = c.value(0)?;
    c.ws();
    if c.i != c.b.len() {
        return Err(c.err("trailing characters after the JSON value"));
    }
    Ok(v)
}

/// [`parse_line`] on the line starting at `buf[start]` and ending at the
/// next newline (or the end of `buf`), without a separate pass to find that
/// newline first. Returns the value (`None` for a blank line) and the index
/// of the line's end (its newline, or `buf.len()`).
///
/// The parser never steps over a newline (it is not whitespace here, and a
/// string may not hold one), so a line that parses in place parses the same
/// on its own. A line that does not is parsed again on its own, so its
/// error, offset included, is exactly [`parse_line`]'s.
pub fn parse_line_at(buf: &[u8], start: usize) -> (R<Option<Value>>, usize) {
    let mut c = Cursor {
        b: buf,
        i: start,
        nl: false,
        stack: MemberStack::take(),
    };
    c.ws();
    let in_place = match c.peek() {
        None | Some(b'\n') => Some(None),
        Some(_) => c.value(0).ok().and_then(|v| {
            c.ws();
            matches!(c.peek(), None | Some(b'\n')).then_some(Some(v))
        }),
    };
    let end = c.i;
    c.stack.give_back();
    match in_place {
        Some(v) => (Ok(v), end),
        None => {
            let end = memchr::memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i);
            (parse_line(&buf[start..end]).map(Some), end)
        }
    }
}

/// Validates `line` and fills `out[k]` with the value of top-level key
/// `wanted[k]` (left `None` when absent). `out.len()` must equal `wanted.len()`.
pub fn scan_fields(line: &[u8], wanted: &[Box<[u8]>], out: &mut [Option<Value>]) -> R<Scan> {
    match scan_line(line, 0, wanted, out) {
        Ok((Scan::Blank, _)) => Err(JsonError {
            offset: line.len(),
            msg: "unexpected end of line",
        }),
        Ok((_, end)) if end != line.len() => Err(JsonError {
            offset: end,
            msg: "trailing characters after the JSON value",
        }),
        Ok((scan, _)) => Ok(scan),
        Err(e) => Err(e),
    }
}

/// Like [`scan_fields`], but on the line starting at `buf[start]` and ending
/// at the next newline (or the end of `buf`), without a separate pass to
/// find that newline. Returns the kind and the index of the line's end (its
/// newline, or `buf.len()`). Error offsets are relative to `start`.
pub fn scan_line(
    buf: &[u8],
    start: usize,
    wanted: &[Box<[u8]>],
    out: &mut [Option<Value>],
) -> R<(Scan, usize)> {
    let mut c = Cursor {
        b: buf,
        i: start,
        nl: false,
        // Only a wanted value that is itself an object uses the stack: a
        // fresh one, which allocates nothing until then.
        stack: MemberStack::default(),
    };
    let r = scan_inner(&mut c, wanted, out);
    r.map_err(|mut e| {
        e.offset -= start.min(e.offset);
        e
    })
}

fn scan_inner(
    c: &mut Cursor<'_>,
    wanted: &[Box<[u8]>],
    out: &mut [Option<Value>],
) -> R<(Scan, usize)> {
    c.ws();
    let kind = match c.peek() {
        None | Some(b'\n') => return Ok((Scan::Blank, c.i)),
        Some(b'{') => {
            c.members(b'}', cursor::OBJECT_SEPARATOR, |c| {
                let slot = c.key(|c| {
                    Ok(match c.raw_key()? {
                        RawKey::Plain(s, e) => find_key(wanted, &c.b[s..e]),
                        RawKey::Escaped(k) => find_key(wanted, k.as_bytes()),
                    })
                })?;
                match slot {
                    Some(k) => {
                        let v = c.value(1)?;
                        if let Some(o) = out.get_mut(k) {
                            *o = Some(v);
                        }
                        Ok(())
                    }
                    None => c.skip_fast(),
                }
            })?;
            Scan::Object
        }
        Some(_) => {
            // Validate and report as non-object; the caller reparses fully.
            c.skip(0)?;
            Scan::NotObject
        }
    };
    c.ws();
    match c.peek() {
        None | Some(b'\n') => Ok((kind, c.i)),
        Some(_) => Err(c.err("trailing characters after the JSON value")),
    }
}

#[inline]
fn find_key(wanted: &[Box<[u8]>], key: &[u8]) -> Option<usize> {
    wanted.iter().position(|w| &w[..] == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Top-level keys as [`scan_fields`] wants them.
    pub(super) fn keys(ks: &[&str]) -> Vec<Box<[u8]>> {
        ks.iter()
            .map(|k| k.as_bytes().to_vec().into_boxed_slice())
            .collect()
    }

    #[test]
    fn parses_all_kinds() {
        let v = parse_line(br#" {"a":[1,-2.5e3,"x\u00e9\ud83d\ude00",true,false,null],"b":{}} "#)
            .unwrap();
        assert_eq!(
            crate::json::to_string(&v),
            r#"{"a":[1,-2500.0,"xé😀",true,false,null],"b":{}}"#
        );
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            &b"{\"a\":1"[..],
            b"{\"a\" 1}",
            b"{\"a\":01}",
            b"[1,]",
            b"{\"a\":1}x",
            b"\"a\x01\"",
            b"tru",
            b"1.",
            b"-",
            b"\"\\ud800\"",
            b"",
        ] {
            assert!(
                parse_line(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
            let mut out = vec![None];
            assert!(scan_fields(bad, &keys(&["a"]), &mut out).is_err());
        }
    }

    #[test]
    fn scan_extracts_only_wanted_and_validates_rest() {
        let w = keys(&["b", "zz"]);
        let mut out = vec![None, None];
        let r = scan_fields(br#"{"a":{"x":[1,2]},"b":"v","c\"d":3}"#, &w, &mut out).unwrap();
        assert_eq!(r, Scan::Object);
        assert_eq!(out[0], Some(Value::Str("v".into())));
        assert_eq!(out[1], None);
        let mut out = vec![None, None];
        assert!(scan_fields(br#"{"b":1,"c":[1,}"#, &w, &mut out).is_err());
    }

    #[test]
    fn scan_reports_non_objects() {
        let mut out = vec![None];
        assert_eq!(
            scan_fields(b"[1]", &keys(&["a"]), &mut out).unwrap(),
            Scan::NotObject
        );
    }

    #[test]
    fn scan_line_stops_at_newline() {
        let buf = b"{\"a\":1}\n\n{\"a\":2,\n";
        let w = keys(&["a"]);
        let mut out = vec![None];
        assert_eq!(scan_line(buf, 0, &w, &mut out).unwrap(), (Scan::Object, 7));
        assert_eq!(scan_line(buf, 8, &w, &mut out).unwrap(), (Scan::Blank, 8));
        // A newline inside an object ends the line: it is an error, not whitespace.
        let e = scan_line(buf, 9, &w, &mut out).unwrap_err();
        assert_eq!(e.offset, 7);
    }

    #[test]
    fn nesting_limit_is_512_levels_exactly() {
        let nested = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_line(nested(MAX_DEPTH).as_bytes()).is_ok());
        assert!(parse_line(nested(MAX_DEPTH + 1).as_bytes()).is_err());
        let mut out = vec![None];
        let obj = |n: usize| format!("{{\"a\":{}}}", nested(n - 1));
        assert!(scan_fields(obj(MAX_DEPTH).as_bytes(), &keys(&["a"]), &mut out).is_ok());
        assert!(scan_fields(obj(MAX_DEPTH + 1).as_bytes(), &keys(&["a"]), &mut out).is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "[".repeat(100_000);
        assert!(parse_line(s.as_bytes()).is_err());
        let mut out = vec![None];
        assert!(scan_fields(s.as_bytes(), &keys(&["a"]), &mut out).is_err());
    }
}
