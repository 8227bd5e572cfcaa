//! Fuzzes the Mahimahi trace parser (`ramp shell --trace`, `ramp relay
//! --trace`, a scenario's `path.trace`, a population's `traces`): any text
//! is a trace or an error naming its line, never a panic; a trace that
//! loads has a positive period and rate, and its opportunities fire in
//! order, each after the one before it is used up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_link::DeliveryTrace;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match DeliveryTrace::parse(text, "fuzz.trace") {
        Err(e) => assert!(e.to_string().contains("fuzz.trace"), "{e}"),
        Ok(t) => {
            let n = t.opportunities() as u64;
            assert!(n >= 1);
            assert!(!t.period().is_zero());
            assert!(t.mean_rate().bits_per_sec() > 0);
            // Two periods, in order; an opportunity at exactly t is gone.
            let mut prev = t.at(0);
            for k in 0..(2 * n).min(4096) {
                let at = t.at(k);
                assert!(at >= prev, "opportunity {k} fires before {}", k.saturating_sub(1));
                assert!(t.first_after(at) > k, "opportunity {k} usable at its own time");
                prev = at;
            }
        }
    }
});
