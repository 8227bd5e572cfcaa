//! Fuzzes the one unit grammar: any text is a quantity or an error, never a
//! panic, and accepted values lie in their documented ranges.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_vocab::units::{parse_duration, parse_loss, parse_rate, parse_size};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(r) = parse_rate(text) {
            assert!(r.bits_per_sec() >= 8);
        }
        if let Ok(d) = parse_duration(text) {
            assert!(d.as_secs() <= 86_400);
        }
        let _ = parse_size(text);
        if let Ok(p) = parse_loss(text) {
            assert!((0.0..=1.0).contains(&p));
        }
    }
});
