//! The whole-row parser against an independent model of JSON.
//!
//! Arbitrary JSON trees (escaped and raw strings, astral characters,
//! duplicate keys, objects large enough for the lazily built key index,
//! integers across the whole i64 and u64 ranges and beyond them, floats, nesting up
//! to the 512-level limit) are written as text with random whitespace and
//! random escaping, parsed by [`parse_line`], and compared with what an
//! owned, `IndexMap`-based reading of the same tree gives (the object
//! semantics ndq had before objects became flat vectors, and that
//! docs/ndq.md states: a repeated key keeps its first position and takes
//! the last value). Comparison is exact: same variant, same integer, same
//! float bits, same key order.

use indexmap::IndexMap;
use proptest::prelude::*;
use ramp_query::json::{parse_line, parse_line_at, scan_fields, to_string, Scan};
use ramp_query::Value;

/// A JSON text's tree as generated: objects keep every member, duplicates
/// included, in document order.
#[derive(Debug, Clone)]
enum Json {
    Null,
    Bool(bool),
    /// An integer in i64 or u64 (ndq keeps it exact).
    Int(i128),
    /// An integer written beyond u64 or below i64 (ndq reads it as a float).
    BigInt(String),
    Float(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// What the parse must give: the old owned reading.
#[derive(Debug)]
enum Want {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Arr(Vec<Want>),
    Obj(IndexMap<String, Want>),
}

fn want(j: &Json) -> Want {
    match j {
        Json::Null => Want::Null,
        Json::Bool(b) => Want::Bool(*b),
        Json::Int(i) => Want::Int(*i),
        Json::BigInt(s) => Want::Float(s.parse().expect("digits")),
        Json::Float(f) => Want::Float(*f),
        Json::Str(s) => Want::Str(s.clone()),
        Json::Arr(a) => Want::Arr(a.iter().map(want).collect()),
        Json::Obj(m) => {
            let mut o = IndexMap::new();
            for (k, v) in m {
                o.insert(k.clone(), want(v));
            }
            Want::Obj(o)
        }
    }
}

/// A key the generators practically never make.
const ABSENT: &str = "\u{0}not a key";

/// Exact equality, with every key also looked up by name (so the index of
/// a large object is checked, not only its order).
fn same(v: &Value, w: &Want) -> bool {
    match (v, w) {
        (Value::Null, Want::Null) => true,
        (Value::Bool(a), Want::Bool(b)) => a == b,
        (Value::Int(a), Want::Int(b)) => a == b,
        (Value::Float(a), Want::Float(b)) => a.to_bits() == b.to_bits(),
        (Value::Str(a), Want::Str(b)) => a == b,
        (Value::Array(a), Want::Arr(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), Want::Obj(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
                // Each key finds its own member (identity, not a second
                // deep comparison, which would be exponential in depth).
                && a.iter()
                    .all(|(k, va)| a.get(k).is_some_and(|g| std::ptr::eq(g, va)))
                && (b.contains_key(ABSENT) || a.get(ABSENT).is_none())
        }
        _ => false,
    }
}

/// Writes `j`; `r` supplies the random choices (whitespace, escaping).
fn write(j: &Json, r: &mut Choices, out: &mut String) {
    r.ws(out);
    match j {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Int(i) => out.push_str(&i.to_string()),
        Json::BigInt(s) => out.push_str(s),
        Json::Float(f) => out.push_str(&format!("{f:?}")),
        Json::Str(s) => write_str(s, r, out),
        Json::Arr(a) => {
            out.push('[');
            for (n, x) in a.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write(x, r, out);
                r.ws(out);
            }
            r.ws(out);
            out.push(']');
        }
        Json::Obj(m) => {
            out.push('{');
            for (n, (k, v)) in m.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                r.ws(out);
                write_str(k, r, out);
                r.ws(out);
                out.push(':');
                write(v, r, out);
                r.ws(out);
            }
            r.ws(out);
            out.push('}');
        }
    }
}

fn write_str(s: &str, r: &mut Choices, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str(if r.bit() { "\\\\" } else { "\\u005c" }),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '/' if r.bit() => out.push_str("\\/"),
            c if (c as u32) < 0x20 || r.bit() && r.bit() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A stream of random bits from a seed (proptest shrinks the seed).
struct Choices(u64);

impl Choices {
    fn bit(&mut self) -> bool {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 63) == 1
    }

    fn ws(&mut self, out: &mut String) {
        if self.bit() && self.bit() {
            out.push_str(if self.bit() { " " } else { "\t \r" });
        }
    }
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        // A small pool, so objects repeat keys.
        3 => prop::sample::select(vec!["a", "b", "ttlb", "num-packets.sent", "x\"y", "é", ""])
            .prop_map(String::from),
        1 => "k[0-9]{1,2}",
        1 => any::<String>(),
    ]
}

fn scalar() -> impl Strategy<Value = Json> {
    prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(|i| Json::Int(i.into())),
        // Exact beyond 2^53, where a double would round.
        ((1i64 << 53)..i64::MAX).prop_map(|i| Json::Int(i.into())),
        Just(Json::Int(i64::MIN.into())),
        // u64 identifiers (ramp's seeds) past i64 stay exact too.
        (i64::MAX as u64..=u64::MAX).prop_map(|i| Json::Int(i.into())),
        Just(Json::Int(u64::MAX.into())),
        "-[1-9][0-9]{19,30}".prop_map(Json::BigInt),
        "[1-9][0-9]{20,30}".prop_map(Json::BigInt),
        Just(Json::BigInt("18446744073709551616".into())),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Json::Float),
        any::<String>().prop_map(Json::Str),
        "[a-z\\\\\"\u{1F600}é\n]{0,12}".prop_map(Json::Str),
    ]
}

fn json() -> impl Strategy<Value = Json> {
    scalar().prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Json::Arr),
            prop::collection::vec((key(), inner), 0..5).prop_map(Json::Obj),
        ]
    })
}

/// A record: an object wider than the linear-search limit (so its key
/// index is used), with repeated keys, or any JSON value.
fn record() -> impl Strategy<Value = Json> {
    prop_oneof![
        prop::collection::vec((key(), json()), 17..40).prop_map(Json::Obj),
        json(),
    ]
}

/// `v` wrapped in `depth - 1` containers (`kinds` chooses array or object
/// at each level), so the whole text nests `depth` levels when `v` is a
/// container.
fn nest(v: Json, depth: usize, kinds: &[bool]) -> Json {
    let mut j = v;
    for d in 1..depth {
        j = if kinds[d % kinds.len()] {
            Json::Arr(vec![Json::Int(d as i128), j])
        } else {
            Json::Obj(vec![("d".into(), Json::Null), ("d".into(), j)])
        };
    }
    j
}

/// A line for [`lines_in_place_equal_lines_alone`]: a record, a blank or
/// whitespace-only line, a malformed fragment, or arbitrary bytes (without
/// a newline).
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (record(), any::<u64>()).prop_map(|(j, seed)| {
            let mut t = String::new();
            write(&j, &mut Choices(seed | 1), &mut t);
            t.into_bytes()
        }),
        prop::sample::select(vec![
            "", " \t\r", "{\"a\":", "{\"a\":1", "[1,]", "\"abc", "tru", "{} x", "\u{c}{}", "-",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        prop::collection::vec(
            any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
            0..40
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Parsing each line where it lies in the buffer gives what parsing it
    /// alone gives: the same value, the same blank, the same error.
    #[test]
    fn lines_in_place_equal_lines_alone(
        lines in prop::collection::vec(line(), 1..6),
        trailing_newline in any::<bool>(),
    ) {
        let mut buf = lines.join(&b'\n');
        if trailing_newline {
            buf.push(b'\n');
        }
        let mut start = 0;
        for l in buf.split(|b| *b == b'\n') {
            if start >= buf.len() {
                break;
            }
            let (got, end) = parse_line_at(&buf, start);
            prop_assert_eq!(end, start + l.len());
            let alone = if l.iter().all(|c| matches!(c, b' ' | b'\t' | b'\r')) {
                Ok(None)
            } else {
                parse_line(l).map(Some)
            };
            match (&got, &alone) {
                (Ok(Some(a)), Ok(Some(b))) => prop_assert_eq!(to_string(a), to_string(b)),
                _ => prop_assert_eq!(format!("{got:?}"), format!("{alone:?}")),
            }
            start = end + 1;
        }
    }

    #[test]
    fn parse_equals_the_owned_model(j in record(), seed in any::<u64>()) {
        let mut text = String::new();
        write(&j, &mut Choices(seed | 1), &mut text);
        let v = parse_line(text.as_bytes()).expect("valid JSON parses");
        prop_assert!(same(&v, &want(&j)), "{text}\n{v:?}");
        // Writing the value and reading it back is a fixed point.
        let compact = to_string(&v);
        let again = parse_line(compact.as_bytes()).expect("own output parses");
        prop_assert_eq!(to_string(&again), compact);
        // The projecting scanner reads the same top-level members.
        if let Json::Obj(members) = &j {
            let wanted: Vec<Box<[u8]>> = members
                .iter()
                .map(|(k, _)| k.as_bytes().to_vec().into_boxed_slice())
                .collect();
            let mut out = vec![None; wanted.len()];
            prop_assert_eq!(scan_fields(text.as_bytes(), &wanted, &mut out), Ok(Scan::Object));
            let Value::Object(m) = &v else { panic!("an object") };
            for ((k, _), got) in members.iter().zip(&out) {
                // A key wanted twice is filled in its first slot only.
                if let Some(got) = got {
                    prop_assert_eq!(to_string(got), to_string(m.get(k).unwrap()));
                }
            }
        }
    }

    #[test]
    fn nesting_up_to_512_levels_parses_exactly(
        depth in 1usize..=512,
        kinds in prop::collection::vec(any::<bool>(), 1..8),
        leaf in json(),
        seed in any::<u64>(),
    ) {
        // The innermost level is an empty container: `depth` levels in all.
        let inner = if kinds[0] { Json::Arr(vec![]) } else { Json::Obj(vec![]) };
        let j = nest(inner, depth, &kinds);
        let mut text = String::new();
        write(&j, &mut Choices(seed | 1), &mut text);
        let v = parse_line(text.as_bytes()).expect("512 levels are accepted");
        prop_assert!(same(&v, &want(&j)));
        // One level more is an error, not a crash.
        let deeper = Json::Arr(vec![j]);
        let mut text = String::new();
        write(&deeper, &mut Choices(seed | 1), &mut text);
        prop_assert_eq!(parse_line(text.as_bytes()).is_ok(), depth < 512);
        // A leaf of any shape under a shallow nest reads back exactly.
        let j = nest(leaf, 3, &kinds);
        let mut text = String::new();
        write(&j, &mut Choices(seed | 1), &mut text);
        let v = parse_line(text.as_bytes()).expect("valid JSON parses");
        prop_assert!(same(&v, &want(&j)));
    }
}
