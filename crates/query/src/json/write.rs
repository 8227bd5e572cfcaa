//! JSON serialisation. Floats print in Rust's shortest round-trip form with
//! a `.0` kept on integral values (`20.0`, as jrf prints averages); NaN and
//! infinities, which JSON cannot carry, print as `null`.

use crate::json::simd::find_string_special;
use crate::value::Value;

/// Compact JSON text of a value.
pub fn to_string(v: &Value) -> String {
    let mut out = Vec::new();
    write_compact(v, &mut out);
    // The writer only emits valid UTF-8 (input strings are `String`s).
    String::from_utf8(out).unwrap_or_default()
}

/// Appends the compact JSON text of `v` to `out`.
pub fn write_compact(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Int(i) => write_int(*i, out),
        Value::Float(f) => write_float(*f, out),
        Value::Str(s) => write_str(s, out),
        Value::Array(a) => {
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_compact(x, out);
            }
            out.push(b']');
        }
        Value::Object(m) => {
            out.push(b'{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(k, out);
                out.push(b':');
                write_compact(x, out);
            }
            out.push(b'}');
        }
    }
}

/// Appends pretty JSON (two-space indent) of `v` to `out`.
pub fn write_pretty(v: &Value, out: &mut Vec<u8>) {
    pretty(v, out, 0)
}

fn indent(out: &mut Vec<u8>, n: usize) {
    for _ in 0..n {
        out.extend_from_slice(b"  ");
    }
}

fn pretty(v: &Value, out: &mut Vec<u8>, depth: usize) {
    match v {
        Value::Array(a) if !a.is_empty() => {
            out.extend_from_slice(b"[\n");
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b",\n");
                }
                indent(out, depth + 1);
                pretty(x, out, depth + 1);
            }
            out.push(b'\n');
            indent(out, depth);
            out.push(b']');
        }
        Value::Object(m) if !m.is_empty() => {
            out.extend_from_slice(b"{\n");
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b",\n");
                }
                indent(out, depth + 1);
                write_str(k, out);
                out.extend_from_slice(b": ");
                pretty(x, out, depth + 1);
            }
            out.push(b'\n');
            indent(out, depth);
            out.push(b'}');
        }
        other => write_compact(other, out),
    }
}

/// Appends an integer's decimal digits (no allocation, unlike `to_string`).
fn write_int(i: i128, out: &mut Vec<u8>) {
    let mut buf = [0u8; 40];
    let mut n = i.unsigned_abs();
    let mut p = buf.len();
    loop {
        p -= 1;
        buf[p] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if i < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&buf[p..]);
}

/// Appends a float; integral values keep a `.0`, non-finite values are `null`.
pub fn write_float(f: f64, out: &mut Vec<u8>) {
    if f.is_finite() {
        // Debug is the shortest round-trip form and switches to exponent
        // notation for very large/small magnitudes (valid JSON either way).
        out.extend_from_slice(format!("{f:?}").as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Appends a JSON string literal.
pub fn write_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    // Jump from one byte that may need escaping to the next (16–32 bytes per
    // step); the scanner also stops at non-ASCII bytes, which are copied as
    // they are.
    while let Some(j) = find_string_special(bytes, i) {
        i = j + 1;
        let c = bytes[j];
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            c if c < 0x20 => {
                out.extend_from_slice(&bytes[start..j]);
                out.extend_from_slice(b"\\u00");
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 15)]);
                start = i;
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..j]);
        out.extend_from_slice(esc);
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Map;

    #[test]
    fn floats_keep_point_and_nonfinite_is_null() {
        assert_eq!(to_string(&Value::Float(20.0)), "20.0");
        assert_eq!(to_string(&Value::Float(0.1)), "0.1");
        assert_eq!(to_string(&Value::Float(f64::NAN)), "null");
    }

    /// The writer before its scan jumped ahead: one byte at a time.
    fn write_str_bytewise(s: &str) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn string_escapes_equal_the_bytewise_writer() {
        let mut all: String = (0u32..0x80).filter_map(char::from_u32).collect();
        all.push_str("é😀\u{7f}\u{80}\u{ffff}");
        for len in 0..all.chars().count() {
            for skip in [0, 1, 7, 31] {
                let s: String = all.chars().cycle().skip(skip).take(len + skip).collect();
                let mut out = Vec::new();
                write_str(&s, &mut out);
                assert_eq!(String::from_utf8(out).unwrap(), write_str_bytewise(&s));
            }
        }
    }

    #[test]
    fn integers_print_as_to_string() {
        for i in [
            0,
            1,
            -1,
            9,
            10,
            -10,
            123_456_789,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ] {
            assert_eq!(to_string(&Value::Int(i128::from(i))), i.to_string());
        }
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(
            to_string(&Value::Str("a\"b\\\n\u{1}".into())),
            r#""a\"b\\\n\u0001""#
        );
    }

    #[test]
    fn pretty_nests() {
        let mut m = Map::default();
        m.insert("a".into(), Value::Array(vec![Value::Int(1)]));
        let mut out = Vec::new();
        write_pretty(&Value::Object(m), &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\n  \"a\": [\n    1\n  ]\n}"
        );
    }
}
