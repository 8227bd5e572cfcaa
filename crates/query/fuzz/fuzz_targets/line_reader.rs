//! Fuzzes the NDJSON line reader: the full parser and the projecting
//! scanner must never panic, and must agree on what is valid JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_query::json::{parse_line, scan_fields, Scan};
use ramp_query::Value;

fuzz_target!(|data: &[u8]| {
    let full = parse_line(data);
    let keys: Vec<Box<[u8]>> = vec![b"a".to_vec().into(), b"rtt.minimum".to_vec().into()];
    let mut out = vec![None, None];
    let scan = scan_fields(data, &keys, &mut out);
    assert_eq!(full.is_ok(), scan.is_ok());
    if let (Ok(Value::Object(m)), Ok(Scan::Object)) = (&full, &scan) {
        assert_eq!(m.get("a").cloned(), out[0].clone());
    }
    // Round trip: what we print parses back to the same text.
    if let Ok(v) = full {
        let text = ramp_query::json::to_string(&v);
        let again = parse_line(text.as_bytes()).expect("printed JSON parses");
        assert_eq!(ramp_query::json::to_string(&again), text);
    }
});
