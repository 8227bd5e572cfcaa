//! Human-written quantities in scenario and population files and on the
//! command line: the one grammar of [`ramp_cc::units`] (B = bytes, b =
//! bits, units required on rates and durations, percentages for loss).

pub use ramp_cc::units::{parse_duration, parse_loss, parse_rate, parse_size, UnitError};
