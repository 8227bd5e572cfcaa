//! Numbers: the RFC 8259 §6 grammar, with an inline fast path for the
//! plain integers that dominate NDJSON logs.

use super::cursor::Cursor;
use super::R;
use crate::json::simd::digit_run;
use crate::value::{in_int_range, Value};

impl Cursor<'_> {
    /// Validates and steps over a number: the integer fast path inline,
    /// fractions and exponents through [`Cursor::number_span`].
    #[inline(always)]
    pub(super) fn skip_number(&mut self) -> R<()> {
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

    /// Validates the number at the cursor (RFC 8259 §6 grammar), returning
    /// (start, whether it is an integer).
    #[inline]
    pub(super) fn number_span(&mut self) -> R<(usize, bool)> {
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
            i = self.digits(i, "invalid number: digit expected after '.'")?;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            int = false;
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            i = self.digits(i, "invalid number: digit expected in exponent")?;
        }
        self.i = i;
        Ok((start, int))
    }

    /// The end of the run of one or more digits at `i` (a fraction or an
    /// exponent); without a digit there, the error `msg` at `i`.
    #[inline]
    fn digits(&mut self, i: usize, msg: &'static str) -> R<usize> {
        if !matches!(self.b.get(i), Some(b'0'..=b'9')) {
            self.i = i;
            return Err(self.err(msg));
        }
        Ok(i + digit_run(self.b, i))
    }

    pub(super) fn number(&mut self) -> R<Value> {
        let (start, int) = self.number_span()?;
        let text = &self.b[start..self.i];
        if int {
            // Up to 18 digits always fit in i64: accumulate them directly
            // (the grammar check above guarantees they are digits).
            let (neg, digits) = match text.split_first() {
                Some((b'-', d)) => (true, d),
                _ => (false, text),
            };
            if digits.len() <= 18 {
                let mut n: i128 = 0;
                for &d in digits {
                    n = n * 10 + i128::from(d - b'0');
                }
                return Ok(Value::Int(if neg { -n } else { n }));
            }
        }
        // The grammar check above guarantees ASCII.
        let s = std::str::from_utf8(text).map_err(|_| self.err("invalid number"))?;
        if int {
            if let Some(i) = s.parse::<i128>().ok().filter(|i| in_int_range(*i)) {
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
    use crate::json::parse::parse_line;
    use crate::value::Value;

    #[test]
    fn integers_at_the_18_digit_fast_path_boundary_are_exact() {
        for (text, want) in [
            ("999999999999999999", 999_999_999_999_999_999),
            ("-999999999999999999", -999_999_999_999_999_999),
            ("1000000000000000000", 1_000_000_000_000_000_000),
            ("-9223372036854775808", i64::MIN),
            ("9007199254740993", (1 << 53) + 1),
            ("-0", 0),
            ("0", 0),
        ] {
            assert!(
                matches!(parse_line(text.as_bytes()).unwrap(), Value::Int(i) if i == i128::from(want)),
                "{text}"
            );
        }
    }

    #[test]
    fn u64_integers_stay_exact_and_bigger_ones_become_floats() {
        assert!(matches!(
            parse_line(b"9223372036854775808").unwrap(),
            Value::Int(9_223_372_036_854_775_808)
        ));
        assert!(matches!(
            parse_line(b"18446744073709551615").unwrap(),
            Value::Int(18_446_744_073_709_551_615)
        ));
        assert!(matches!(
            parse_line(b"18446744073709551616").unwrap(),
            Value::Float(_)
        ));
        assert!(matches!(
            parse_line(b"-9223372036854775809").unwrap(),
            Value::Float(_)
        ));
    }
}
