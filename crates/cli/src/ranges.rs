//! One range-check mechanism for command-line numbers: clap value parsers
//! that refuse a value outside its documented range (NaN and infinities
//! included) while the arguments are parsed, before any work starts, with
//! one line naming the flag (clap adds it) and the range.

use std::fmt::Display;
use std::str::FromStr;
use std::time::Duration;

/// A parser for a number in `lo..=hi` (finite for floats).
pub fn number_in<T>(
    lo: T,
    hi: T,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: FromStr + PartialOrd + Display + Copy + Send + Sync + 'static,
{
    move |s: &str| {
        let v: T = s
            .trim()
            .parse()
            .map_err(|_| format!("`{s}` is not a number"))?;
        // NaN compares false with everything, so it fails here too.
        if v >= lo && v <= hi {
            Ok(v)
        } else {
            Err(format!("{s} is outside {lo} ..= {hi}"))
        }
    }
}

/// A parser for a duration (ramp's unit grammar, e.g. `250ms`) in `lo..=hi`.
pub fn duration_in(
    lo: Duration,
    hi: Duration,
) -> impl Fn(&str) -> Result<Duration, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let d = ramp_vocab::units::parse_duration(s).map_err(|e| e.to_string())?;
        if d >= lo && d <= hi {
            Ok(d)
        } else {
            Err(format!("{s} is outside {lo:?} ..= {hi:?}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_infinities_zero_and_garbage_are_refused() {
        let p = number_in(0.1, 120.0);
        for bad in ["nan", "NaN", "inf", "-inf", "0", "121", "x"] {
            assert!(p(bad).is_err(), "{bad}");
        }
        assert_eq!(p("5"), Ok(5.0));
        let n = number_in(1usize, 10);
        assert!(n("0").is_err() && n("11").is_err() && n("-1").is_err());
        let d = duration_in(Duration::from_millis(1), Duration::from_secs(3600));
        assert!(d("0s").is_err() && d("61min").is_err());
        assert_eq!(d("250ms"), Ok(Duration::from_millis(250)));
    }
}
