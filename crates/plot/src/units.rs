//! Units and axis scales: byte/time/rate formatting and "nice" tick steps.
//!
//! Bytes use decimal SI prefixes (1 KB = 1000 bytes), as networking does
//! when it turns bit/s × s into a BDP.

/// A unit for an axis: values are divided by `divisor` and the axis
/// description names `suffix`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisUnit {
    /// Divide raw values by this.
    pub divisor: f64,
    /// The unit's name, e.g. `MB`.
    pub suffix: &'static str,
}

/// The byte unit that keeps the tick labels of an axis reaching `max_bytes` short.
pub fn byte_unit(max_bytes: f64) -> AxisUnit {
    let m = max_bytes.abs();
    if m >= 1e9 {
        AxisUnit {
            divisor: 1e9,
            suffix: "GB",
        }
    } else if m >= 1e6 {
        AxisUnit {
            divisor: 1e6,
            suffix: "MB",
        }
    } else if m >= 1e3 {
        AxisUnit {
            divisor: 1e3,
            suffix: "KB",
        }
    } else {
        AxisUnit {
            divisor: 1.0,
            suffix: "bytes",
        }
    }
}

/// The time unit for an axis spanning up to `max_ms`: ms below 10 s, else s.
pub fn time_unit(max_ms: f64) -> AxisUnit {
    if max_ms.abs() >= 10_000.0 {
        AxisUnit {
            divisor: 1000.0,
            suffix: "s",
        }
    } else {
        AxisUnit {
            divisor: 1.0,
            suffix: "ms",
        }
    }
}

/// A number with at most 3 significant decimals and no trailing zeros:
/// `30`, `2.5`, `0.125`, `1234`.
pub fn format_number(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let decimals = if v.abs() >= 100.0 || v == v.trunc() {
        0
    } else if v.abs() >= 10.0 {
        1
    } else if v.abs() >= 1.0 {
        2
    } else {
        3
    };
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

/// Bytes in SI units: `900 B`, `1.5 KB`, `3 MB`.
pub fn format_bytes(bytes: f64) -> String {
    let u = byte_unit(bytes);
    let suffix = if u.suffix == "bytes" { "B" } else { u.suffix };
    format!("{} {suffix}", format_number(bytes / u.divisor))
}

/// A rate in bit/s: `100 Mbit/s`, `1.5 Gbit/s`, `800 kbit/s`.
pub fn format_rate(bps: f64) -> String {
    let (div, unit) = if bps >= 1e9 {
        (1e9, "Gbit/s")
    } else if bps >= 1e6 {
        (1e6, "Mbit/s")
    } else if bps >= 1e3 {
        (1e3, "kbit/s")
    } else {
        (1.0, "bit/s")
    };
    format!("{} {unit}", format_number(bps / div))
}

/// A duration in ms: `850 ms`, `1.25 s`.
pub fn format_ms(ms: f64) -> String {
    if ms.abs() >= 1000.0 {
        format!("{} s", format_number(ms / 1000.0))
    } else {
        format!("{} ms", format_number(ms))
    }
}

/// The "nice" step (1, 2 or 5 × 10^k) that cuts `span` into at most
/// `max_ticks` intervals.
pub fn nice_step(span: f64, max_ticks: usize) -> f64 {
    let max_ticks = max_ticks.max(1) as f64;
    if !(span.is_finite() && span > 0.0) {
        return 1.0;
    }
    let raw = span / max_ticks;
    let mag = 10f64.powf(raw.log10().floor());
    // The slack keeps float noise (0.1 + 0.2) from bumping a step up.
    let norm = raw / mag * (1.0 - 1e-9);
    let nice = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// A scale: the axis range widened to whole steps, and its ticks.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// Lower end of the axis.
    pub lo: f64,
    /// Upper end of the axis.
    pub hi: f64,
    /// Tick positions, ascending, from `lo` to `hi` inclusive.
    pub ticks: Vec<f64>,
    /// The step between ticks.
    pub step: f64,
}

/// The axis range covering `[lo, hi]` widened outwards to whole nice steps,
/// with ticks at every step. An empty or inverted range gets `[lo, lo + 1]`.
pub fn nice_scale(lo: f64, hi: f64, max_ticks: usize) -> Scale {
    let (lo, hi) = if !(lo.is_finite() && hi.is_finite()) {
        (0.0, 1.0)
    } else if hi > lo {
        (lo, hi)
    } else if lo == 0.0 {
        (0.0, 1.0)
    } else {
        // One value: a window around it.
        let pad = lo.abs() * 0.1;
        (lo - pad, lo + pad)
    };
    let step = nice_step(hi - lo, max_ticks);
    // A tolerance keeps 0.30000000000000004 from adding a step.
    let eps = step * 1e-9;
    let first = ((lo + eps) / step).floor();
    let last = ((hi - eps) / step).ceil();
    let ticks: Vec<f64> = (0..=((last - first) as i64))
        .map(|i| clean((first + i as f64) * step, step))
        .collect();
    Scale {
        lo: clean(first * step, step),
        hi: clean(last * step, step),
        ticks,
        step,
    }
}

/// Rounds away floating-point noise below a hundredth of a step.
fn clean(v: f64, step: f64) -> f64 {
    let q = step / 1000.0;
    let r = (v / q).round() * q;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_bytes_rates_and_times() {
        assert_eq!(format_bytes(900.0), "900 B");
        assert_eq!(format_bytes(1500.0), "1.5 KB");
        assert_eq!(format_bytes(3_000_000.0), "3 MB");
        assert_eq!(format_bytes(268_750.0), "269 KB");
        assert_eq!(format_rate(100e6), "100 Mbit/s");
        assert_eq!(format_rate(1.5e9), "1.5 Gbit/s");
        assert_eq!(format_rate(800e3), "800 kbit/s");
        assert_eq!(format_ms(850.0), "850 ms");
        assert_eq!(format_ms(1250.0), "1.25 s");
        assert_eq!(format_number(-0.0001), "0");
        assert_eq!(format_number(12.26), "12.3");
        assert_eq!(format_number(0.125), "0.125");
    }

    #[test]
    fn units_follow_the_maximum() {
        assert_eq!(byte_unit(999.0).suffix, "bytes");
        assert_eq!(byte_unit(1000.0).suffix, "KB");
        assert_eq!(byte_unit(3e6).divisor, 1e6);
        assert_eq!(time_unit(9999.0).suffix, "ms");
        assert_eq!(time_unit(12_000.0).suffix, "s");
    }

    #[test]
    fn nice_steps_are_1_2_5() {
        assert_eq!(nice_step(100.0, 10), 10.0);
        assert_eq!(nice_step(95.0, 10), 10.0);
        assert_eq!(nice_step(101.0, 10), 20.0);
        assert_eq!(nice_step(3.0, 5), 1.0);
        assert_eq!(nice_step(0.7, 5), 0.2);
        assert_eq!(nice_step(2500.0, 6), 500.0);
    }

    #[test]
    fn scale_widens_to_whole_steps() {
        let s = nice_scale(0.0, 2.87, 6);
        assert_eq!(s.step, 0.5);
        assert_eq!((s.lo, s.hi), (0.0, 3.0));
        assert_eq!(s.ticks, vec![0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]);
        let s = nice_scale(-23.0, 7.0, 6);
        assert_eq!(s.step, 5.0);
        assert_eq!(
            s.ticks,
            vec![-25.0, -20.0, -15.0, -10.0, -5.0, 0.0, 5.0, 10.0]
        );
        // 0.1 + 0.2 must not grow an extra tick.
        let s = nice_scale(0.0, 0.1 + 0.2, 3);
        assert_eq!(s.ticks, vec![0.0, 0.1, 0.2, 0.3]);
    }

    #[test]
    fn degenerate_ranges_get_a_window() {
        let s = nice_scale(0.0, 0.0, 5);
        assert_eq!((s.lo, s.hi), (0.0, 1.0));
        let s = nice_scale(50.0, 50.0, 5);
        assert!(s.lo < 50.0 && s.hi > 50.0);
        let s = nice_scale(f64::NAN, 1.0, 5);
        assert_eq!((s.lo, s.hi), (0.0, 1.0));
    }
}
