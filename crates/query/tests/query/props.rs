//! Property tests.
//!
//! * Merge: for every aggregation, any split of the input into chunks,
//!   aggregated per chunk and merged in order (also through the
//!   `--emit-partial` JSON encoding), equals the single-pass result.
//! * Robustness (the CI stand-in for the cargo-fuzz targets in fuzz/):
//!   arbitrary bytes never panic the line parser, the projecting scanner or
//!   the query compiler, and the scanner agrees with the full parser.

use proptest::prelude::*;
use ramp_query::agg::{partial, State};
use ramp_query::eval::Env;
use ramp_query::json::{parse_line, scan_fields, Scan};
use ramp_query::plan::StageKind;
use ramp_query::{Query, Value};

/// Each aggregation alone, plus combinations and nesting.
const AGG_QUERIES: &[&str] = &[
    "count()",
    "count(_.x)",
    "count_if(_.x > 0)",
    "sum(_.i)",
    "sum(_.x)",
    "min(_.x)",
    "max(_.s)",
    "average(_.i)",
    "stdev(_.x)",
    "stdev_samp(_.i)",
    "percentile(_.x, [0, 0.05, 0.5, 0.95, 1])",
    "percentile_cont(_.i, [0.1, 0.5, 0.9])",
    "median(_.x)",
    "distinct(_.s)",
    "count_distinct(_.i)",
    "group(_.i)",
    "first(_.x)",
    "last(_.x)",
    "sort(_.x)",
    "sort_desc(_.i)",
    "top(3, _.x)",
    "group_by(_.s) { {\"n\": count(), \"p\": percentile(_.i, [0.5, 0.9]), \"sum\": sum(_.i)} }",
    "group_by(_.s) { group_by(_.i % 3) { max(_.x) } }",
    "map_values(_.o) { |v| sum(v) }",
    "map(_.a) { |v| min(v) }",
    "{\"a\": sum(_.i) / count(), \"b\": 1 + max(_.i)}",
];

#[derive(Debug, Clone)]
struct Row {
    i: i64,
    x: Option<f64>,
    s: u8,
    a: Vec<i64>,
}

fn row() -> impl Strategy<Value = Row> {
    (
        -1000i64..1000,
        prop::option::of(prop_oneof![
            (-1e6f64..1e6).prop_map(|f| (f * 8.0).round() / 8.0),
            Just(0.5),
            Just(-3.0)
        ]),
        0u8..4,
        prop::collection::vec(-50i64..50, 0..4),
    )
        .prop_map(|(i, x, s, a)| Row { i, x, s, a })
}

fn to_value(r: &Row) -> Value {
    let line = format!(
        "{{\"i\":{},\"x\":{},\"s\":\"k{}\",\"a\":{:?},\"o\":{{\"p\":{},\"q\":{}}}}}",
        r.i,
        r.x.map_or("null".to_string(), |f| format!("{f:?}")),
        r.s,
        r.a,
        r.i % 7,
        r.s
    );
    parse_line(line.as_bytes()).unwrap()
}

fn plan_of(q: &Query) -> &ramp_query::expr::AggPlan {
    match &q.stages[0].kind {
        StageKind::Agg { plan, .. } => plan,
        _ => panic!("not an aggregation"),
    }
}

fn aggregate(q: &Query, rows: &[Value], cuts: &[usize], via_json: bool) -> Value {
    let plan = plan_of(q);
    let mut env = Env::new(q.n_vars);
    let mut merged: Option<State> = None;
    let mut start = 0;
    for &end in cuts.iter().chain(std::iter::once(&rows.len())) {
        let end = end.clamp(start, rows.len());
        let mut st = q.new_state().unwrap();
        for r in &rows[start..end] {
            st.update_plan(plan, r, &mut env).unwrap();
        }
        if via_json {
            let v = partial::state_to_value(&st);
            let text = ramp_query::json::to_string(&v);
            st =
                partial::state_from_value(&parse_line(text.as_bytes()).unwrap(), q.approx).unwrap();
        }
        match merged.as_mut() {
            None => merged = Some(st),
            Some(m) => m.merge(st, plan).unwrap(),
        }
        start = end;
    }
    merged.unwrap().finish_plan(plan, &mut env).unwrap()
}

/// Equal, allowing float results to differ by a few ulps (merge order
/// changes the rounding of float sums and variances, never anything else).
fn close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => {
            x == y
                || (x.is_nan() && y.is_nan())
                || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && close(v1, v2))
        }
        _ => ramp_query::json::to_string(a) == ramp_query::json::to_string(b),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_chunking_merges_to_the_single_pass_result(
        rows in prop::collection::vec(row(), 0..60),
        cuts in prop::collection::vec(0usize..60, 0..6),
        via_json in any::<bool>(),
    ) {
        let vals: Vec<Value> = rows.iter().map(to_value).collect();
        let mut cuts = cuts;
        cuts.sort_unstable();
        for q in AGG_QUERIES {
            let q = Query::compile(q, &[], false).unwrap();
            let single = aggregate(&q, &vals, &[], false);
            let merged = aggregate(&q, &vals, &cuts, via_json);
            prop_assert!(close(&single, &merged), "{}: single {} merged {}", q.text,
                ramp_query::json::to_string(&single), ramp_query::json::to_string(&merged));
        }
    }

    #[test]
    fn approx_sketch_merges_exactly(
        rows in prop::collection::vec(row(), 1..60),
        cuts in prop::collection::vec(0usize..60, 0..6),
    ) {
        let vals: Vec<Value> = rows.iter().map(to_value).collect();
        let mut cuts = cuts;
        cuts.sort_unstable();
        let q = Query::compile("percentile(_.i, [0.1, 0.5, 0.99])", &[], true).unwrap();
        let single = aggregate(&q, &vals, &[], false);
        let merged = aggregate(&q, &vals, &cuts, true);
        prop_assert_eq!(ramp_query::json::to_string(&single), ramp_query::json::to_string(&merged));
    }

    #[test]
    fn parser_and_scanner_never_panic_and_agree(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let full = parse_line(&bytes);
        let keys: Vec<Box<[u8]>> = vec![b"a".to_vec().into(), b"".to_vec().into()];
        let mut out = vec![None, None];
        let scan = scan_fields(&bytes, &keys, &mut out);
        // Both accept or both reject; accepted objects agree on the fields.
        prop_assert_eq!(full.is_ok(), scan.is_ok(), "{:?}", String::from_utf8_lossy(&bytes));
        if let (Ok(Value::Object(m)), Ok(Scan::Object)) = (&full, &scan) {
            prop_assert_eq!(m.get("a").cloned(), out[0].clone());
        }
    }

    #[test]
    fn json_like_text_never_panics(s in "[\\[\\]{}\",:0-9a-z.eE+\\-\\\\ ]{0,80}") {
        let _ = parse_line(s.as_bytes());
        let mut out = vec![None];
        let _ = scan_fields(s.as_bytes(), &[b"a".to_vec().into()], &mut out);
    }

    #[test]
    fn query_compiler_never_panics(s in "[_a-z0-9 ().\\[\\]{}|,:;\"'>=<!&+*/%?#-]{0,60}") {
        let _ = Query::compile(&s, &[], false);
    }

    #[test]
    fn compiled_queries_never_panic_at_run_time(
        q in prop::sample::select(vec![
            "_.x + _.s", "_.a[_.i]", "_.s.downcase", "range(_.i)", "_.o.map { |k, v| v / 0 }",
            "split(_.s, _.x)", "_.a.percentile(_.x)", "substr(_.s, _.i, _.i)", "round(_.x, _.i)",
            "_.a.zip(_.s).flatten", "from_json(_.s)", "sum(_.s)", "top(2, _.a)", "_.x // 0",
        ]),
        rows in prop::collection::vec(row(), 1..5),
    ) {
        let input: String = rows.iter().map(|r| ramp_query::json::to_string(&to_value(r)) + "\n").collect();
        let _ = ramp_query::run_str(q, &input, ramp_query::Format::Json);
    }
}

#[test]
fn output_round_trips_through_the_parser() {
    let v =
        parse_line(br#"{"a":[1,2.5,-0.0,1e300,"\u0001\"\\"],"b":{"c":null,"d":true}}"#).unwrap();
    let text = ramp_query::json::to_string(&v);
    assert_eq!(
        ramp_query::json::to_string(&parse_line(text.as_bytes()).unwrap()),
        text
    );
}
