//! Fuzzes the reader of `--emit-partial` states (what `--merge` reads from
//! files a user hands it): any JSON is a state or an error, never a panic,
//! and a state written back reads back to the same state.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_query::agg::partial::{state_from_value, state_to_value};

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = ramp_query::json::parse_line(data) {
        for approx in [false, true] {
            if let Ok(s) = state_from_value(&v, approx) {
                let written = state_to_value(&s);
                let again = state_from_value(&written, approx).expect("written state reads back");
                assert_eq!(
                    ramp_query::json::to_string(&state_to_value(&again)),
                    ramp_query::json::to_string(&written)
                );
            }
        }
    }
});
