//! The one grammar of human-written quantities, shared by every command,
//! scenario file and population file: rates, durations, sizes and loss.
//!
//! | quantity | forms | bare number |
//! |---|---|---|
//! | rate | bits: `20mbit`, `20Mbps`, `20Mb/s`, `500kbit`, `1gbit`; bytes: `2.5MB/s`, `2.5MBps`, `1MiB/s`, `2mbyte/s` | refused |
//! | duration | `40ms`, `1.5s`, `250us`, `100ns` | refused |
//! | size | `3MB` (10^6 B), `3MiB` (2^20 B), `300KB`, `300kB`, `1200B`, `1200` | bytes |
//! | loss | `0.5%`, or a fraction up to 0.1 (`0.005`) | a fraction ≤ 0.1 |
//!
//! In rates, `B` means bytes and `b` bits (`MB/s` against `Mb/s`); the
//! spelled units (`bit`, `byte`) are case-insensitive. A rate written as a
//! size (`10MB`, `10KB`), with a lone prefix (`10M`) or in capitals
//! (`10MBPS`, where B and b cannot be told apart) is ambiguous and refused
//! with the fix. A bare loss above 0.1 is refused as implausible:
//! `--loss 0.5` would be 50 %; write `0.5%` (or `50%`).

use core::fmt;
use core::time::Duration;

use crate::time::Rate;

/// A quantity that did not parse: the input, what kind it should be, and
/// why it is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitError {
    what: &'static str,
    input: String,
    why: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}`: {}", self.what, self.input, self.why)
    }
}

impl std::error::Error for UnitError {}

fn err(what: &'static str, input: &str, why: impl Into<String>) -> UnitError {
    UnitError {
        what,
        input: input.trim().to_string(),
        why: why.into(),
    }
}

/// Splits `12.5MB/s` into its number and its unit (case kept).
fn split(what: &'static str, input: &str) -> Result<(f64, String), UnitError> {
    let s = input.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let v: f64 = num
        .replace('_', "")
        .parse()
        .map_err(|_| err(what, input, "expected a number followed by a unit"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(err(what, input, "must be a finite, non-negative number"));
    }
    Ok((v, unit.trim().to_string()))
}

/// The decimal prefix of a unit (`k`, `M`, `G`, `T`, case-insensitive), and
/// its binary form (`Ki`, `Mi`, `Gi`) as a factor; the rest of the unit.
fn prefix(unit: &str) -> (f64, &str) {
    let lower = unit.to_ascii_lowercase();
    for (p, f) in [
        ("ki", 1024.0),
        ("mi", 1_048_576.0),
        ("gi", 1_073_741_824.0),
        ("k", 1e3),
        ("m", 1e6),
        ("g", 1e9),
        ("t", 1e12),
    ] {
        if lower.starts_with(p) {
            return (f, &unit[p.len()..]);
        }
    }
    (1.0, unit)
}

/// A link rate; see the module table. At least 1 byte/s, at most 10 Tbit/s.
pub fn parse_rate(input: &str) -> Result<Rate, UnitError> {
    const WHAT: &str = "rate";
    let (v, unit) = split(WHAT, input)?;
    if unit.is_empty() {
        return Err(err(
            WHAT,
            input,
            "needs a unit: `20mbit` (bits/s) or `2.5MB/s` (bytes/s)",
        ));
    }
    let (scale, base) = prefix(&unit);
    let lower = base.to_ascii_lowercase();
    // Case matters only for the bare symbols: `B` bytes, `b` bits.
    let bits_per = match (base, lower.as_str()) {
        ("B/s" | "Bps", _) => 8.0,
        ("b/s" | "bps", _) => 1.0,
        // `MBPS`, `MB/S`: in capitals, B (bytes) and b (bits) look alike.
        (_, "bps" | "b/s") => {
            let n = input.trim();
            let n = &n[..n.len() - base.len()];
            return Err(err(
                WHAT,
                input,
                format!(
                    "ambiguous: in capitals, B (bytes) and b (bits) look alike; write \
                     `{n}bps` (bits/s) or `{n}Bps` (bytes/s)"
                ),
            ));
        }
        (_, "bit" | "bits" | "bit/s" | "bits/s") => 1.0,
        (_, "byte" | "bytes" | "byte/s" | "bytes/s") => 8.0,
        (_, "" | "b") => {
            let n = input.trim().trim_end_matches(['b', 'B']);
            return Err(err(
                WHAT,
                input,
                format!(
                    "ambiguous: a rate needs bits or bytes per second, e.g. `{n}bit` or `{n}B/s`"
                ),
            ));
        }
        _ => {
            return Err(err(
                WHAT,
                input,
                "unknown unit (bits: bit, kbit, Mbps, Mb/s; bytes: MB/s, MBps, MiB/s)",
            ))
        }
    };
    let bits = v * scale * bits_per;
    if !(8.0..=1e13).contains(&bits) {
        return Err(err(WHAT, input, "out of range (1 byte/s to 10 Tbit/s)"));
    }
    Ok(Rate::from_bits_per_sec(bits.round() as u64))
}

/// A duration; see the module table. At most a day.
pub fn parse_duration(input: &str) -> Result<Duration, UnitError> {
    const WHAT: &str = "duration";
    let (v, unit) = split(WHAT, input)?;
    let ns_per = match unit.to_ascii_lowercase().as_str() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" | "sec" => 1e9,
        "min" => 60e9,
        "" => return Err(err(WHAT, input, "needs a unit, e.g. `40ms` or `1.5s`")),
        _ => return Err(err(WHAT, input, "unknown unit (ns, us, ms, s, min)")),
    };
    let ns = v * ns_per;
    if ns > 86_400e9 {
        return Err(err(WHAT, input, "longer than a day"));
    }
    Ok(Duration::from_nanos(ns.round() as u64))
}

/// A size in bytes; see the module table. At most 1 PB.
pub fn parse_size(input: &str) -> Result<u64, UnitError> {
    const WHAT: &str = "size";
    let (v, unit) = split(WHAT, input)?;
    let (scale, base) = prefix(&unit);
    if !matches!(
        base.to_ascii_lowercase().as_str(),
        "" | "b" | "byte" | "bytes"
    ) {
        return Err(err(
            WHAT,
            input,
            "unknown unit (B, KB, MB, GB, KiB, MiB, GiB, e.g. `3MB`)",
        ));
    }
    let bytes = v * scale;
    if bytes > 1e15 {
        return Err(err(WHAT, input, "larger than 1 PB"));
    }
    Ok(bytes.round() as u64)
}

/// The largest loss a bare fraction may give: above it, the number was
/// more likely meant as a percentage.
const MAX_BARE_LOSS: f64 = 0.1;

/// A loss probability: `0.5%`, or a bare fraction up to 0.1.
pub fn parse_loss(input: &str) -> Result<f64, UnitError> {
    const WHAT: &str = "loss";
    let s = input.trim();
    let (num, pct) = match s.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (s, false),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| err(WHAT, input, "expected a percentage like `0.5%`"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(err(WHAT, input, "must be a finite, non-negative number"));
    }
    let p = if pct { v / 100.0 } else { v };
    if p > 1.0 {
        return Err(err(WHAT, input, "must be at most 100%"));
    }
    if !pct && p > MAX_BARE_LOSS {
        return Err(err(
            WHAT,
            input,
            format!(
                "a bare {v} would be {}% loss; write it with `%` (`{v}%` or `{}%`)",
                v * 100.0,
                v * 100.0
            ),
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(s: &str) -> u64 {
        parse_rate(s)
            .unwrap_or_else(|e| panic!("{s}: {e}"))
            .bits_per_sec()
    }

    #[test]
    fn capital_b_is_bytes_and_small_b_is_bits() {
        for s in ["10mbit", "10Mbit", "10Mbps", "10mbps", "10Mb/s", "10mb/s"] {
            assert_eq!(bits(s), 10_000_000, "{s}");
        }
        for s in ["10MB/s", "10mB/s", "10MBps", "10mbyte/s", "10MByte/s"] {
            assert_eq!(bits(s), 80_000_000, "{s}");
        }
        assert_eq!(bits("1MiB/s"), 8 * 1_048_576);
        assert_eq!(bits("500kbit"), 500_000);
        assert_eq!(bits("1.5gbit"), 1_500_000_000);
    }

    #[test]
    fn ambiguous_and_bare_rates_are_refused_with_the_fix() {
        for s in ["10MB", "10mb", "10M", "10KB", "10Mb"] {
            let e = parse_rate(s).unwrap_err().to_string();
            assert!(e.contains("ambiguous"), "{s}: {e}");
        }
        // All capitals: `10MBPS` was read as bits while `10MBps` is bytes.
        for s in ["10MBPS", "10mBPS", "10MBpS", "10MB/S", "10 MBPS"] {
            let e = parse_rate(s).unwrap_err().to_string();
            assert!(e.contains("ambiguous"), "{s}: {e}");
        }
        let e = parse_rate("10MBPS").unwrap_err().to_string();
        assert!(e.contains("`10Mbps` (bits/s) or `10MBps` (bytes/s)"), "{e}");
        let e = parse_rate("100").unwrap_err().to_string();
        assert!(e.contains("needs a unit"), "{e}");
    }

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("40ms"), Ok(Duration::from_millis(40)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert!(parse_duration("40")
            .unwrap_err()
            .to_string()
            .contains("needs a unit"));
    }

    #[test]
    fn sizes_are_bytes() {
        assert_eq!(parse_size("3MB"), Ok(3_000_000));
        assert_eq!(parse_size("3mb"), Ok(3_000_000));
        assert_eq!(parse_size("300KB"), Ok(300_000));
        assert_eq!(parse_size("1MiB"), Ok(1_048_576));
        assert_eq!(parse_size("1200"), Ok(1200));
        assert!(parse_size("3mbit").is_err());
    }

    #[test]
    fn a_bare_loss_above_ten_percent_is_refused() {
        assert_eq!(parse_loss("0.5%"), Ok(0.005));
        assert_eq!(parse_loss("0.005"), Ok(0.005));
        assert_eq!(parse_loss("50%"), Ok(0.5));
        let e = parse_loss("0.5").unwrap_err().to_string();
        assert!(e.contains("0.5%"), "{e}");
        assert!(parse_loss("150%").is_err());
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            /// Formatting a rate in bits and in bytes parses back to the
            /// same rate; B and b differ by exactly 8.
            #[test]
            fn bytes_and_bits_round_trip(kbit in 1u64..10_000_000) {
                let b = parse_rate(&format!("{kbit}kbit")).unwrap().bits_per_sec();
                prop_assert_eq!(b, kbit * 1000);
                let bytes = parse_rate(&format!("{kbit}kB/s")).unwrap().bits_per_sec();
                prop_assert_eq!(bytes, 8 * b);
            }

            /// Any text: an error or a value, never a panic.
            #[test]
            fn any_text_is_an_error_or_a_value(s in ".{0,16}") {
                let _ = (parse_rate(&s), parse_duration(&s), parse_size(&s), parse_loss(&s));
            }
        }
    }
}
