//! Fuzzes the port rule of `ramp get`/`ramp load` URLs: any URL the http
//! crate accepts gives a port in 1..=65535 or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(url) = http::Uri::try_from(data) {
        if let Ok(p) = ramp_quic::client::port_of(&url) {
            assert!(p != 0);
        }
    }
});
