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

use std::fmt;

use super::simd::{digit_run, find_string_special};
use crate::value::{Map, Value};

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
    let mut c = Cursor { b, i: 0, nl };
    c.ws();
    let v = c.value(0)?;
    c.ws();
    if c.i != b.len() {
        return Err(c.err("trailing characters after the JSON value"));
    }
    Ok(v)
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
            c.i += 1;
            c.ws();
            if c.peek() == Some(b'}') {
                c.i += 1;
            } else {
                loop {
                    c.ws();
                    if c.peek() != Some(b'"') {
                        return Err(c.err("expected a string key"));
                    }
                    let slot = match c.raw_key()? {
                        RawKey::Plain(s, e) => find_key(wanted, &c.b[s..e]),
                        RawKey::Escaped(k) => find_key(wanted, k.as_bytes()),
                    };
                    c.ws();
                    if c.peek() != Some(b':') {
                        return Err(c.err("expected ':' after an object key"));
                    }
                    c.i += 1;
                    c.ws();
                    match slot {
                        Some(k) => {
                            let v = c.value(1)?;
                            if let Some(o) = out.get_mut(k) {
                                *o = Some(v);
                            }
                        }
                        None => c.skip_fast()?,
                    }
                    c.ws();
                    let next = c.peek();
                    if next == Some(b',') {
                        c.i += 1;
                    } else if next == Some(b'}') {
                        c.i += 1;
                        break;
                    } else {
                        return Err(c.err("expected ',' or '}' in an object"));
                    }
                }
            }
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

enum RawKey {
    Plain(usize, usize),
    Escaped(String),
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
    /// Whether a newline counts as whitespace (multi-line documents only).
    nl: bool,
}

impl<'a> Cursor<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn err(&self, msg: &'static str) -> JsonError {
        JsonError {
            offset: self.i,
            msg,
        }
    }

    #[inline(always)]
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            // Every structural byte is above the space: one compare in the
            // common (compact JSON) case, and no jump table.
            if c > b' ' {
                return;
            }
            if c == b' ' || c == b'\t' || c == b'\r' || (c == b'\n' && self.nl) {
                self.i += 1;
            } else {
                return;
            }
        }
    }

    fn value(&mut self, depth: usize) -> R<Value> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        match self.peek() {
            Some(b'{') => {
                self.i += 1;
                let mut m = Map::default();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(Value::Object(m));
                }
                loop {
                    self.ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.err("expected a string key"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.peek() != Some(b':') {
                        return Err(self.err("expected ':' after an object key"));
                    }
                    self.i += 1;
                    self.ws();
                    let v = self.value(depth + 1)?;
                    m.insert(k, v);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::Object(m));
                        }
                        _ => return Err(self.err("expected ',' or '}' in an object")),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(Value::Array(a));
                }
                loop {
                    self.ws();
                    a.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Value::Array(a));
                        }
                        _ => return Err(self.err("expected ',' or ']' in an array")),
                    }
                }
            }
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.lit(b"true", Value::Bool(true)),
            Some(b'f') => self.lit(b"false", Value::Bool(false)),
            Some(b'n') => self.lit(b"null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("expected a JSON value")),
            None => Err(self.err("unexpected end of line")),
        }
    }

    /// [`Cursor::skip`] for a top-level member's value, testing the common
    /// kinds (numbers, then strings) with plain branches before the general
    /// dispatch.
    #[inline(always)]
    fn skip_fast(&mut self) -> R<()> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() || c == b'-' => self.skip_number(),
            Some(b'"') => self.skip_string(),
            _ => self.skip(1),
        }
    }

    /// Validates and steps over a number: the integer fast path inline,
    /// fractions and exponents through [`Cursor::number_span`].
    #[inline(always)]
    fn skip_number(&mut self) -> R<()> {
        let b = self.b;
        let start = self.i;
        let mut i = start + usize::from(b.get(start) == Some(&b'-'));
        let d = digit_run(b, i);
        // "-" alone, or a leading zero followed by digits: let the full
        // validator report it.
        if d == 0 || (d > 1 && b.get(i) == Some(&b'0')) {
            return self.number_span().map(|_| ());
        }
        i += d;
        match b.get(i) {
            Some(b'.' | b'e' | b'E') => self.number_span().map(|_| ()),
            _ => {
                self.i = i;
                Ok(())
            }
        }
    }

    /// Validates and steps over one value without building it.
    fn skip(&mut self, depth: usize) -> R<()> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        match self.peek() {
            Some(b'{') => {
                self.i += 1;
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(());
                }
                loop {
                    self.ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.err("expected a string key"));
                    }
                    self.skip_string()?;
                    self.ws();
                    if self.peek() != Some(b':') {
                        return Err(self.err("expected ':' after an object key"));
                    }
                    self.i += 1;
                    self.ws();
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(());
                        }
                        _ => return Err(self.err("expected ',' or '}' in an object")),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(());
                }
                loop {
                    self.ws();
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(());
                        }
                        _ => return Err(self.err("expected ',' or ']' in an array")),
                    }
                }
            }
            Some(b'"') => self.skip_string(),
            Some(b't') => self.lit(b"true", ()),
            Some(b'f') => self.lit(b"false", ()),
            Some(b'n') => self.lit(b"null", ()),
            Some(b'-' | b'0'..=b'9') => self.number_span().map(|_| ()),
            Some(_) => Err(self.err("expected a JSON value")),
            None => Err(self.err("unexpected end of line")),
        }
    }

    fn lit<T>(&mut self, word: &[u8], v: T) -> R<T> {
        if self.b.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("invalid literal"))
        }
    }

    /// Steps over a string starting at the opening quote.
    fn skip_string(&mut self) -> R<()> {
        self.i += 1;
        loop {
            match find_string_special(self.b, self.i) {
                None => {
                    self.i = self.b.len();
                    return Err(self.err("unterminated string"));
                }
                Some(j) => {
                    self.i = j;
                    match self.b[j] {
                        b'"' => {
                            self.i += 1;
                            return Ok(());
                        }
                        b'\\' => self.escape(&mut None)?,
                        c if c >= 0x80 => self.i = self.utf8(j)?,
                        _ => return Err(self.err("control character in a string")),
                    }
                }
            }
        }
    }

    /// Validates the multi-byte UTF-8 sequence at `j`, returning the index
    /// after it (RFC 3629: no overlongs, surrogates or code points above
    /// U+10FFFF).
    #[inline]
    fn utf8(&self, j: usize) -> R<usize> {
        let n = match self.b[j] {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 0,
        };
        match self.b.get(j..j + n) {
            Some(seq) if n > 0 && std::str::from_utf8(seq).is_ok() => Ok(j + n),
            _ => Err(JsonError {
                offset: j,
                msg: "invalid UTF-8 in a string",
            }),
        }
    }

    /// A key, borrowed when it has no escapes (the common case).
    #[inline]
    fn raw_key(&mut self) -> R<RawKey> {
        let start = self.i + 1;
        match find_string_special(self.b, start) {
            Some(j) if self.b[j] == b'"' => {
                self.i = j + 1;
                Ok(RawKey::Plain(start, j))
            }
            _ => Ok(RawKey::Escaped(self.string()?)),
        }
    }

    /// Parses a string starting at the opening quote.
    fn string(&mut self) -> R<String> {
        self.i += 1;
        let mut buf: Option<Vec<u8>> = None;
        let mut seg = self.i;
        loop {
            let Some(j) = find_string_special(self.b, self.i) else {
                self.i = self.b.len();
                return Err(self.err("unterminated string"));
            };
            self.i = j;
            match self.b[j] {
                b'"' => {
                    let tail = &self.b[seg..j];
                    self.i += 1;
                    let bytes = match buf {
                        Some(mut v) => {
                            v.extend_from_slice(tail);
                            v
                        }
                        None => tail.to_vec(),
                    };
                    return String::from_utf8(bytes).map_err(|_| JsonError {
                        offset: seg,
                        msg: "invalid UTF-8 in a string",
                    });
                }
                b'\\' => {
                    let v = buf.get_or_insert_with(Vec::new);
                    v.extend_from_slice(&self.b[seg..j]);
                    let mut out = Some(std::mem::take(v));
                    self.escape(&mut out)?;
                    buf = out;
                    seg = self.i;
                }
                c if c >= 0x80 => self.i = self.utf8(j)?,
                _ => return Err(self.err("control character in a string")),
            }
        }
    }

    /// Handles the escape at `self.i` (a backslash); appends the decoded
    /// bytes to `out` when given.
    fn escape(&mut self, out: &mut Option<Vec<u8>>) -> R<()> {
        let c = self.b.get(self.i + 1).copied();
        let simple = match c {
            Some(b'"') => Some(b'"'),
            Some(b'\\') => Some(b'\\'),
            Some(b'/') => Some(b'/'),
            Some(b'b') => Some(8),
            Some(b'f') => Some(12),
            Some(b'n') => Some(b'\n'),
            Some(b'r') => Some(b'\r'),
            Some(b't') => Some(b'\t'),
            Some(b'u') => None,
            _ => return Err(self.err("invalid escape in a string")),
        };
        if let Some(ch) = simple {
            if let Some(o) = out {
                o.push(ch);
            }
            self.i += 2;
            return Ok(());
        }
        let hi = self.hex4(self.i + 2)?;
        self.i += 6;
        let code = if (0xD800..0xDC00).contains(&hi) {
            // A high surrogate must be followed by an escaped low surrogate.
            if self.b.get(self.i) == Some(&b'\\') && self.b.get(self.i + 1) == Some(&b'u') {
                let lo = self.hex4(self.i + 2)?;
                if !(0xDC00..0xE000).contains(&lo) {
                    return Err(self.err("invalid surrogate pair"));
                }
                self.i += 6;
                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
            } else {
                return Err(self.err("unpaired surrogate"));
            }
        } else if (0xDC00..0xE000).contains(&hi) {
            return Err(self.err("unpaired surrogate"));
        } else {
            hi
        };
        if let Some(o) = out {
            let ch = char::from_u32(code).ok_or_else(|| self.err("invalid \\u escape"))?;
            let mut tmp = [0u8; 4];
            o.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
        }
        Ok(())
    }

    fn hex4(&self, at: usize) -> R<u32> {
        let Some(h) = self.b.get(at..at + 4) else {
            return Err(self.err("truncated \\u escape"));
        };
        let mut v = 0u32;
        for &c in h {
            let d = (c as char)
                .to_digit(16)
                .ok_or_else(|| self.err("invalid \\u escape"))?;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// Validates the number at the cursor (RFC 8259 §6 grammar), returning
    /// (start, whether it is an integer).
    #[inline]
    fn number_span(&mut self) -> R<(usize, bool)> {
        let start = self.i;
        let b = self.b;
        let mut i = self.i;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i += digit_run(b, i),
            _ => {
                self.i = i;
                return Err(self.err("invalid number"));
            }
        }
        let mut int = true;
        if b.get(i) == Some(&b'.') {
            int = false;
            i += 1;
            if !matches!(b.get(i), Some(b'0'..=b'9')) {
                self.i = i;
                return Err(self.err("invalid number: digit expected after '.'"));
            }
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            int = false;
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !matches!(b.get(i), Some(b'0'..=b'9')) {
                self.i = i;
                return Err(self.err("invalid number: digit expected in exponent"));
            }
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        self.i = i;
        Ok((start, int))
    }

    fn number(&mut self) -> R<Value> {
        let (start, int) = self.number_span()?;
        let text = &self.b[start..self.i];
        // The grammar check above guarantees ASCII.
        let s = std::str::from_utf8(text).map_err(|_| self.err("invalid number"))?;
        if int {
            if let Ok(i) = s.parse::<i64>() {
                return Ok(Value::Int(i));
            }
        }
        s.parse::<f64>()
            .map(Value::Float)
            .map_err(|_| self.err("invalid number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(ks: &[&str]) -> Vec<Box<[u8]>> {
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
    fn big_integers_become_floats() {
        assert!(matches!(
            parse_line(b"9223372036854775807").unwrap(),
            Value::Int(i64::MAX)
        ));
        assert!(matches!(
            parse_line(b"9223372036854775808").unwrap(),
            Value::Float(_)
        ));
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
    fn escaped_keys_match() {
        let mut out = vec![None];
        scan_fields(br#"{"r\u0074t":5}"#, &keys(&["rtt"]), &mut out).unwrap();
        assert_eq!(out[0], Some(Value::Int(5)));
    }

    #[test]
    fn utf8_is_validated_in_skipped_strings_too() {
        let w = keys(&["a"]);
        for ok in ["{\"a\":1,\"b\":\"é😀中\"}", "{\"é\":\"x\",\"a\":1}"] {
            let mut out = vec![None];
            assert!(scan_fields(ok.as_bytes(), &w, &mut out).is_ok(), "{ok}");
            assert!(parse_line(ok.as_bytes()).is_ok());
        }
        for bad in [
            &b"{\"a\":1,\"b\":\"\x8a\"}"[..],
            b"{\"a\":1,\"b\":\"\xc0\xaf\"}",
            b"{\"a\":1,\"b\":\"\xed\xa0\x80\"}",
            b"{\"a\":1,\"b\":\"\xf4\x90\x80\x80\"}",
            b"{\"\xe9\":1}",
            b"\"\x8a\"",
        ] {
            let mut out = vec![None];
            assert!(scan_fields(bad, &w, &mut out).is_err(), "{bad:?}");
            assert!(parse_line(bad).is_err(), "{bad:?}");
        }
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
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "[".repeat(100_000);
        assert!(parse_line(s.as_bytes()).is_err());
        let mut out = vec![None];
        assert!(scan_fields(s.as_bytes(), &keys(&["a"]), &mut out).is_err());
    }
}
