//! One range-check mechanism for command-line numbers: clap value parsers
//! that refuse a value outside its documented range (NaN and infinities
//! included) while the arguments are parsed, before any work starts, with
//! one line naming the flag (clap adds it) and the range.

use std::fmt::Display;
use std::str::FromStr;
use std::time::Duration;

/// Why a command-line number is refused (clap prints the text after the
/// flag's name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RangeError {
    /// The text is not a number.
    NotANumber {
        /// The text as given.
        given: String,
    },
    /// The text is not a duration in the unit grammar.
    Duration(ramp_vocab::units::UnitError),
    /// The value lies outside its range.
    Outside {
        /// The text as given.
        given: String,
        /// The range, as `lo ..= hi`.
        range: String,
    },
}

impl Display for RangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RangeError::NotANumber { given } => write!(f, "`{given}` is not a number"),
            RangeError::Duration(e) => e.fmt(f),
            RangeError::Outside { given, range } => write!(f, "{given} is outside {range}"),
        }
    }
}

impl std::error::Error for RangeError {}

/// A parser for a number in `lo..=hi` (finite for floats).
pub fn number_in<T>(
    lo: T,
    hi: T,
) -> impl Fn(&str) -> Result<T, RangeError> + Clone + Send + Sync + 'static
where
    T: FromStr + PartialOrd + Display + Copy + Send + Sync + 'static,
{
    move |s: &str| {
        let v: T = s.trim().parse().map_err(|_| RangeError::NotANumber {
            given: s.to_string(),
        })?;
        // NaN compares false with everything, so it fails here too.
        if v >= lo && v <= hi {
            Ok(v)
        } else {
            Err(RangeError::Outside {
                given: s.to_string(),
                range: format!("{lo} ..= {hi}"),
            })
        }
    }
}

/// A parser for a duration (ramp's unit grammar, e.g. `250ms`) in `lo..=hi`.
pub fn duration_in(
    lo: Duration,
    hi: Duration,
) -> impl Fn(&str) -> Result<Duration, RangeError> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let d = ramp_vocab::units::parse_duration(s).map_err(RangeError::Duration)?;
        if d >= lo && d <= hi {
            Ok(d)
        } else {
            Err(RangeError::Outside {
                given: s.to_string(),
                range: format!("{lo:?} ..= {hi:?}"),
            })
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
        // The texts clap prints after the flag's name.
        assert_eq!(p("x").unwrap_err().to_string(), "`x` is not a number");
        assert_eq!(
            p("121").unwrap_err().to_string(),
            "121 is outside 0.1 ..= 120"
        );
        assert_eq!(
            d("61min").unwrap_err().to_string(),
            "61min is outside 1ms ..= 3600s"
        );
    }
}
