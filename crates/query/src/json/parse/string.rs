//! Strings: the fast skip, the borrowing key reader, decoding with
//! escapes (including `\\u` surrogate pairs) and UTF-8 validation.

use super::cursor::Cursor;
use super::{JsonError, R};
use crate::json::simd::find_string_special;

/// An object key: borrowed as a byte range when it has no escapes (the
/// common case), decoded otherwise.
pub(super) enum RawKey {
    /// The key's bytes are `b[start..end]`.
    Plain(usize, usize),
    /// The decoded key.
    Escaped(String),
}

impl Cursor<'_> {
    /// Steps over a string starting at the opening quote.
    pub(super) fn skip_string(&mut self) -> R<()> {
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
    pub(super) fn raw_key(&mut self) -> R<RawKey> {
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
    pub(super) fn string(&mut self) -> R<String> {
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
                    debug_assert!(std::str::from_utf8(&bytes).is_ok());
                    // SAFETY: every byte from the opening quote to here is
                    // ASCII, part of a multi-byte sequence `utf8` checked
                    // whole (the scan stops at each byte >= 0x80 and resumes
                    // after its sequence), or the UTF-8 encoding of a char
                    // that `escape` decoded: the bytes are valid UTF-8, and
                    // checking them again was 6 % of a whole-row parse.
                    return Ok(unsafe { String::from_utf8_unchecked(bytes) });
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
}

#[cfg(test)]
mod tests {
    use crate::json::parse::tests::keys;
    use crate::json::parse::{parse_line, scan_fields};
    use crate::value::Value;

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
}
