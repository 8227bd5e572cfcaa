//! Fuzzes the query lexer, parser and compiler: any text must compile or be
//! rejected with an error, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(q) = ramp_query::Query::compile(text, &[], false) {
            // Compiled queries must also run on a couple of values without panicking.
            let _ = ramp_query::run_str(
                &q.text,
                "{\"a\":1,\"b\":[1,2],\"c\":\"x\"}\n[1,2]\n",
                ramp_query::Format::Json,
            );
        }
    }
});
