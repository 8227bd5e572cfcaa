//! Fuzzes the fleet population TOML loader: any text is a population or an
//! error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = ramp_sim::fleet::population_file::PopulationFile::parse(text, "fuzz");
    }
});
