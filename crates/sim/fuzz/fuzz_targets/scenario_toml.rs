//! Fuzzes the scenario TOML loader: any text is a valid scenario or an
//! error naming the file, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(sc) = ramp_sim::Scenario::from_toml(text, "fuzz") {
            sc.validate().expect("a loaded scenario is valid");
        }
    }
});
