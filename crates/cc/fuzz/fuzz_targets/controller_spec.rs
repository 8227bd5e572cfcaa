//! Fuzzes the controller spec grammar: any text is a spec or an error,
//! never a panic, and a spec's canonical name parses back to the same spec.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(spec) = ramp_cc::spec::parse(text) {
            let name = spec.to_string();
            let again = ramp_cc::spec::parse(&name).expect("canonical name parses");
            assert_eq!(again, spec, "{name}");
            // Building the controller must not panic either.
            let _ = spec.build(&ramp_cc::CcConfig::default());
        }
    }
});
