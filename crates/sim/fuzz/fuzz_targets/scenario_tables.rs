//! Fuzzes the scenario file's array tables: `[[web]]`, `[[flow]]` and
//! `[[path.rate_step]]`. The first byte of each table chooses its header
//! and the fuzzer writes the bodies, so its time goes into these tables'
//! keys and values rather than into TOML at large (`scenario_toml` covers
//! that). Checked: never a panic; a refused file names a line; a loaded
//! scenario is valid and its flows (cross traffic and web users, with
//! their controller specs) can be set up for a run, so nothing a file
//! says fails later than the load.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_sim::Scenario;

const HEADERS: [&str; 3] = ["[[web]]\n", "[[flow]]\n", "[[path.rate_step]]\n"];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Tables are separated by `%`; each begins with its header's index.
    let mut file = String::from("[path]\nrate = \"20mbit\"\n");
    for table in text.split('%') {
        let mut chars = table.chars();
        let Some(h) = chars.next() else { continue };
        file.push_str(HEADERS[h as usize % HEADERS.len()]);
        file.push_str(chars.as_str());
        file.push('\n');
    }
    match Scenario::from_toml(&file, "fuzz.toml") {
        Ok(sc) => {
            sc.validate().expect("a loaded scenario is valid");
            // Drawing the web users' pages is bounded by the scenario's
            // range checks, but large draws are slow: set up small ones.
            let pages: f64 = sc
                .web
                .iter()
                .map(|w| {
                    f64::from(w.users) * w.horizon.as_secs_f64() / w.model.reading.as_secs_f64()
                })
                .sum();
            if pages <= 2000.0 {
                let spec = ramp_cc::spec::parse("newreno").expect("newreno parses");
                if let Err(e) = ramp_sim::flows_for(&sc, &spec, "", sc.seed) {
                    panic!("loaded but cannot run: {e}\n{file}");
                }
            }
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains("line "),
                "an error without a line: {msg}\n{file}"
            );
        }
    }
});
