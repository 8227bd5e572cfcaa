//! Fuzzes the query lexer, parser and compiler: any text must compile or be
//! rejected with an error, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_query::{input::Source, Format, Options, Query};

/// Two small records, one object and one array, so compiled queries meet
/// both shapes. Running the query this harness already compiled (rather
/// than `run_str`, which compiles it again) halves the cost of an input,
/// most of which is building the query's regular expressions.
const RECORDS: &[u8] = b"{\"a\":1,\"b\":[1,2],\"c\":\"x\"}\n[1,2]\n";

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(q) = Query::compile(text, &[], false) {
            // Compiled queries must also run without panicking.
            let opts = Options {
                threads: 1,
                format: Format::Json,
                skip_bad: false,
                emit_partial: false,
                chunk_bytes: ramp_query::input::CHUNK_BYTES,
            };
            let source = Source::Memory("input".into(), RECORDS.into());
            let mut out = Vec::new();
            let _ = ramp_query::run(&q, vec![source], &opts, &mut out);
        }
    }
});
