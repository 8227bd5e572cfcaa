//! Quantities on the command line of the real-mode commands: the one
//! grammar of [`ramp_vocab::units`] (B = bytes, b = bits, units required on
//! rates and durations, percentages for loss), shared with the simulator.

use std::time::Duration;

use ramp_vocab::units::{parse_duration, UnitError};

/// [`parse_duration`] of an optional flag's value: `None` stays `None`.
pub fn parse_optional_duration(input: Option<&str>) -> Result<Option<Duration>, UnitError> {
    input.map(parse_duration).transpose()
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
}
