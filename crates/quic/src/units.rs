//! Parsing the quantities of the command line: rates (`20mbit`), durations
//! (`40ms`), fractions (`0.5%`) and sizes.

use std::time::Duration;

use ramp_cc::Rate;

/// A quantity that did not parse; the message names the input and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {input:?}: {why}")]
pub struct UnitError {
    what: &'static str,
    input: String,
    why: &'static str,
}

fn err(what: &'static str, input: &str, why: &'static str) -> UnitError {
    UnitError {
        what,
        input: input.to_string(),
        why,
    }
}

fn split_number(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    (&s[..end], s[end..].trim())
}

fn parse_number(what: &'static str, input: &str, num: &str) -> Result<f64, UnitError> {
    let v: f64 = num
        .parse()
        .map_err(|_| err(what, input, "expected a number first"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(err(what, input, "must be a finite, non-negative number"));
    }
    Ok(v)
}

/// A link rate: `20mbit`, `1.5gbit`, `500kbit`, `100000bit`, `2mbyte`
/// (also `mbps`/`kbps`/`gbps` for bits and `MB/s` style `mbyte`).
pub fn parse_rate(input: &str) -> Result<Rate, UnitError> {
    const WHAT: &str = "rate";
    let s = input.trim().to_ascii_lowercase();
    let (num, unit) = split_number(&s);
    let v = parse_number(WHAT, input, num)?;
    let bits_per_unit = match unit {
        "bit" | "bps" | "b" => 1.0,
        "kbit" | "kbps" => 1e3,
        "mbit" | "mbps" => 1e6,
        "gbit" | "gbps" => 1e9,
        "byte" => 8.0,
        "kbyte" => 8e3,
        "mbyte" => 8e6,
        "gbyte" => 8e9,
        "" => return Err(err(WHAT, input, "needs a unit, e.g. 20mbit")),
        _ => {
            return Err(err(
                WHAT,
                input,
                "unknown unit (bit, kbit, mbit, gbit, byte, kbyte, mbyte)",
            ))
        }
    };
    let bits = v * bits_per_unit;
    if !(8.0..=1e12).contains(&bits) {
        return Err(err(WHAT, input, "out of range (1 byte/s to 1 Tbit/s)"));
    }
    Ok(Rate::from_bits_per_sec(bits.round() as u64))
}

/// A duration: `40ms`, `1.5s`, `250us`, `0ms`.
pub fn parse_duration(input: &str) -> Result<Duration, UnitError> {
    const WHAT: &str = "duration";
    let s = input.trim().to_ascii_lowercase();
    let (num, unit) = split_number(&s);
    let v = parse_number(WHAT, input, num)?;
    let ns_per_unit = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => return Err(err(WHAT, input, "needs a unit, e.g. 40ms")),
        _ => return Err(err(WHAT, input, "unknown unit (ns, us, ms, s)")),
    };
    let ns = v * ns_per_unit;
    if ns > 3600e9 {
        return Err(err(WHAT, input, "longer than an hour"));
    }
    Ok(Duration::from_nanos(ns.round() as u64))
}

/// [`parse_duration`] of an optional flag's value: `None` stays `None`.
pub fn parse_optional_duration(input: Option<&str>) -> Result<Option<Duration>, UnitError> {
    input.map(parse_duration).transpose()
}

/// A probability: `0.5%` or `0.005`.
pub fn parse_fraction(input: &str) -> Result<f64, UnitError> {
    const WHAT: &str = "fraction";
    let s = input.trim();
    let (num, pct) = match s.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (s, false),
    };
    let v = parse_number(WHAT, input, num)?;
    let p = if pct { v / 100.0 } else { v };
    if p > 1.0 {
        return Err(err(WHAT, input, "must be at most 1 (100%)"));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_durations() {
        assert_eq!(parse_optional_duration(None), Ok(None));
        assert_eq!(
            parse_optional_duration(Some("40ms")),
            Ok(Some(Duration::from_millis(40)))
        );
        assert!(parse_optional_duration(Some("40")).is_err());
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("20mbit").unwrap().bits_per_sec(), 20_000_000);
        assert_eq!(parse_rate("1.5Gbit").unwrap().bits_per_sec(), 1_500_000_000);
        assert_eq!(parse_rate("2mbyte").unwrap().bytes_per_sec(), 2_000_000);
        assert!(parse_rate("20").is_err());
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("-3mbit").is_err());
        assert!(parse_rate("0mbit").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("40ms").unwrap(), Duration::from_millis(40));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("250us").unwrap(), Duration::from_micros(250));
        assert!(parse_duration("40").is_err());
        assert!(parse_duration("1e9s").is_err());
    }

    #[test]
    fn fractions() {
        assert_eq!(parse_fraction("0.5%").unwrap(), 0.005);
        assert_eq!(parse_fraction("0.01").unwrap(), 0.01);
        assert!(parse_fraction("150%").is_err());
        assert!(parse_fraction("x").is_err());
    }
}
