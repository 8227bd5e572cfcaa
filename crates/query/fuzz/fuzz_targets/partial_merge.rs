//! Fuzzes the merge of parallel partial aggregates (`--emit-partial` on
//! parts of the input, then `--merge`). The first byte picks a mergeable
//! query and a mode:
//!
//! - split: the rest is NDJSON input cut in two at a fuzzed line; the
//!   merged partial states of the two parts must give what one run over
//!   the whole input gives: exactly, when the input holds no float, but
//!   for float results (a standard deviation: Welford in one pass, Chan's
//!   merge across two), which may differ in their last bits by grouping;
//! - hostile: the rest is a state object, put in a partial file with the
//!   query's own plan hash (as a user could write one) and merged after a
//!   real state: an error or a result, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_query::input::Source;
use ramp_query::{Format, Options, Query, Value};

const QUERIES: [&str; 16] = [
    "count()",
    "sum(_.a)",
    "average(_.a)",
    "min(_.a)",
    "max(_.b)",
    "stdev(_.a)",
    "stdev_samp(_.a)",
    "percentile(_.a, [0.1, 0.5, 0.99])",
    "percentile_cont(_.a, 0.9)",
    "median(_.a)",
    "distinct(_.b)",
    "count_distinct(_.a)",
    "first(_.a)",
    "top(2, _.a)",
    "group_by(_.b) { {n: count(), s: sum(_.a)} }",
    "{c: count_if(_.a > 1), l: last(_.b)}",
];

fn options(emit_partial: bool) -> Options {
    Options {
        threads: 1,
        format: Format::Json,
        skip_bad: false,
        emit_partial,
        // Small chunks: the inputs are small, and several chunks exercise
        // the same split the threads make.
        chunk_bytes: 64,
    }
}

fn run(q: &Query, input: &[u8], emit_partial: bool) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let src = Source::Memory("in".into(), input.into());
    ramp_query::run(q, vec![src], &options(emit_partial), &mut out).ok()?;
    Some(out)
}

fn merge(q: &Query, parts: Vec<(String, Vec<u8>)>) -> Result<Vec<u8>, ramp_query::RunError> {
    let mut out = Vec::new();
    ramp_query::merge(q, &parts, &options(false), &mut out)?;
    Ok(out)
}

fn parse(out: &[u8]) -> Value {
    ramp_query::json::parse_line(out.trim_ascii()).expect("ndq prints JSON")
}

/// Equal, floats within a relative 1e-12 (the grouping of float steps).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => {
            x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()) || (x.is_nan() && y.is_nan())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}

fuzz_target!(|data: &[u8]| {
    let [pick, rest @ ..] = data else { return };
    let approx = pick & 0x40 != 0;
    let text = QUERIES[usize::from(pick & 0x0f)];
    let q = Query::compile(text, &[], approx).expect("the target's queries compile");
    assert!(q.mergeable(), "{text}");
    if pick & 0x80 == 0 {
        // Split at a line boundary chosen by the input's second byte.
        let Some((&cut, input)) = rest.split_first() else {
            return;
        };
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                input
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        let at = starts[usize::from(cut) % starts.len()];
        let (Some(whole), Some(a), Some(b)) = (
            run(&q, input, false),
            run(&q, &input[..at], true),
            run(&q, &input[at..], true),
        ) else {
            return;
        };
        let merged =
            merge(&q, vec![("a".into(), a), ("b".into(), b)]).expect("states just written merge");
        let floats = input.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
        if !floats && !approx {
            let (m, w) = (parse(&merged), parse(&whole));
            assert!(
                same(&m, &w),
                "{text}: merged {} whole {}",
                String::from_utf8_lossy(&merged),
                String::from_utf8_lossy(&whole)
            );
        }
    } else {
        let Some(real) = run(&q, b"{\"a\":1,\"b\":\"x\"}\n{\"a\":3,\"b\":\"y\"}\n", true) else {
            return;
        };
        let Ok(state) = std::str::from_utf8(rest) else {
            return;
        };
        let hostile = format!(
            "{{\"ndq_partial\":{},\"plan\":\"{}\",\"state\":{state}}}\n",
            ramp_query::agg::partial::VERSION,
            q.plan_hash()
        );
        let _ = merge(
            &q,
            vec![
                ("real".into(), real),
                ("hostile".into(), hostile.into_bytes()),
            ],
        );
    }
});
