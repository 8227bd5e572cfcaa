//! Parsing of human-written quantities: rates, durations, sizes, fractions.
//!
//! Used by scenario files and by `ramp sim`'s path flags, so that
//! `rate = "20mbit"` in a file and `--rate 20mbit` on the command line mean
//! the same thing. Errors are messages naming the accepted forms.

use core::time::Duration;

use ramp_cc::Rate;

fn split_number(s: &str) -> Result<(f64, String), String> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let num = num.replace('_', "");
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{s}`: expected a number followed by a unit"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("`{s}`: must be a finite, non-negative number"));
    }
    Ok((value, unit.trim().to_ascii_lowercase()))
}

/// A link rate: `100mbit`, `1.5Mbps`, `20mbit/s`, `1gbit`, `500kbit`, or
/// bytes per second as `12.5mbyte/s`. A bare number is bits/s.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (v, unit) = split_number(s)?;
    let unit = unit.trim_end_matches("/s").trim_end_matches("ps");
    let bits = match unit {
        "" | "bit" | "b" => v,
        "kbit" | "k" | "kb" => v * 1e3,
        "mbit" | "m" | "mb" => v * 1e6,
        "gbit" | "g" | "gb" => v * 1e9,
        "byte" | "bytes" => v * 8.0,
        "kbyte" | "kbytes" => v * 8e3,
        "mbyte" | "mbytes" => v * 8e6,
        _ => {
            return Err(format!(
                "`{s}`: unknown rate unit (use bit, kbit, mbit, gbit, e.g. `20mbit`)"
            ))
        }
    };
    if bits < 8.0 {
        return Err(format!("`{s}`: a rate must be at least 8 bit/s"));
    }
    Ok(Rate::from_bits_per_sec(bits.round() as u64))
}

/// A duration: `30ms`, `1.5s`, `250us`, `100ns`. A bare number is ms.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let (v, unit) = split_number(s)?;
    let ns = match unit.as_str() {
        "" | "ms" => v * 1e6,
        "s" | "sec" => v * 1e9,
        "us" | "µs" => v * 1e3,
        "ns" => v,
        _ => {
            return Err(format!(
                "`{s}`: unknown duration unit (use ns, us, ms, s, e.g. `30ms`)"
            ))
        }
    };
    if ns > 1e15 {
        return Err(format!("`{s}`: duration too long"));
    }
    Ok(Duration::from_nanos(ns.round() as u64))
}

/// A size in bytes: `3MB` (10^6), `3MiB` (2^20), `300KB`, `300kb`, `1200`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s)?;
    let mult = match unit.as_str() {
        "" | "b" | "byte" | "bytes" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1_048_576.0,
        "gib" => 1_073_741_824.0,
        _ => {
            return Err(format!(
                "`{s}`: unknown size unit (use B, KB, MB, GB, KiB, MiB, e.g. `3MB`)"
            ))
        }
    };
    let bytes = v * mult;
    if bytes > 1e15 {
        return Err(format!("`{s}`: size too large"));
    }
    Ok(bytes.round() as u64)
}

/// A probability: `0.5%` or `0.005`.
pub fn parse_fraction(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (num, scale) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), 0.01),
        None => (t, 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{s}`: expected a fraction like `0.5%` or `0.005`"))?;
    let p = v * scale;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("`{s}`: a probability must lie in [0, 1]"));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100mbit").unwrap().bits_per_sec(), 100_000_000);
        assert_eq!(parse_rate("1.5Mbps").unwrap().bits_per_sec(), 1_500_000);
        assert_eq!(parse_rate("20mbit/s").unwrap().bits_per_sec(), 20_000_000);
        assert_eq!(parse_rate("240kbit").unwrap().bits_per_sec(), 240_000);
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("10 parsecs").is_err());
    }

    #[test]
    fn durations_sizes_fractions() {
        assert_eq!(parse_duration("30ms").unwrap(), Duration::from_millis(30));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("250us").unwrap(), Duration::from_micros(250));
        assert_eq!(parse_size("3MB").unwrap(), 3_000_000);
        assert_eq!(parse_size("1MiB").unwrap(), 1_048_576);
        assert_eq!(parse_size("1200").unwrap(), 1200);
        assert!((parse_fraction("0.5%").unwrap() - 0.005).abs() < 1e-12);
        assert!(parse_fraction("150%").is_err());
    }
}
