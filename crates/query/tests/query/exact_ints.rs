//! Integers stay exact over the whole u64 range (ramp's fleet records carry
//! u64 seeds, half of them at or past 2^63) and sums stay exact past i64,
//! through filters, grouping, sorting, partial states and every output
//! format.

use crate::common;

use common::*;

/// Four seeds that share one double (2^64 - 2048 .. 2^64 - 1 round alike).
const SEEDS: [u64; 4] = [
    18_446_744_073_709_551_615,
    18_446_744_073_709_551_614,
    18_446_744_073_709_550_616,
    9_223_372_036_854_775_809,
];

fn records() -> String {
    SEEDS
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{{\"conn\":{i},\"seed\":{s}}}\n"))
        .collect()
}

#[test]
fn a_u64_seed_selects_exactly_its_own_row() {
    let s = Scratch::new("u64sel");
    let f = s.file("r.ndjson", records().as_bytes());
    let o = run_ndq(
        &[
            "select(_.seed == 18446744073709551614) >> _.conn",
            path_str(&f),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1\n");
    // And the seed of a row reads back as the digits it was written with.
    let o = run_ndq(&["select(_.conn == 2) >> _.seed", path_str(&f)], None);
    assert_eq!(stdout(&o), "18446744073709550616\n");
}

#[test]
fn u64_values_sort_group_and_print_exactly_in_every_format() {
    let s = Scratch::new("u64fmt");
    let f = s.file("r.ndjson", records().as_bytes());
    let o = run_ndq(&["max(_.seed)", path_str(&f)], None);
    assert_eq!(stdout(&o), "18446744073709551615\n");
    let o = run_ndq(
        &["-o", "csv", "group_by(_.seed) { count() }", path_str(&f)],
        None,
    );
    let out = stdout(&o);
    for seed in SEEDS {
        assert!(out.contains(&seed.to_string()), "{seed} missing from {out}");
    }
}

#[test]
fn integer_sums_stay_exact_past_i64_also_through_partial_states() {
    let s = Scratch::new("u64sum");
    let f = s.file("r.ndjson", records().as_bytes());
    let want: u128 = SEEDS.iter().map(|&s| u128::from(s)).sum();
    let o = run_ndq(&["sum(_.seed)", path_str(&f)], None);
    assert_eq!(stdout(&o), format!("{want}\n"));
    let p = run_ndq(&["--emit-partial", "sum(_.seed)", path_str(&f)], None);
    assert_eq!(p.status.code(), Some(0), "{}", stderr(&p));
    let part = s.file("r.partial", &p.stdout);
    let m = run_ndq(
        &["--merge", "sum(_.seed)", path_str(&part), path_str(&part)],
        None,
    );
    assert_eq!(m.status.code(), Some(0), "{}", stderr(&m));
    assert_eq!(stdout(&m), format!("{}\n", want * 2));
}

#[test]
fn query_literals_past_i64_are_exact_and_past_u64_are_floats() {
    let o = run_ndq(&["18446744073709551615 - 1"], Some(b"{}\n"));
    assert_eq!(stdout(&o), "18446744073709551614\n");
    let o = run_ndq(
        &["18446744073709551616 == 18446744073709551617"],
        Some(b"{}\n"),
    );
    assert_eq!(stdout(&o), "true\n");
}

/// `1e999` parses to infinity, which JSON cannot spell: a partial state
/// must still carry it to `--merge` and give the single pass's answer.
/// (Found by the `partial_merge` fuzz target: the state held `null`, which
/// the percentile reader refused.)
#[test]
fn infinite_values_survive_partial_states() {
    let s = Scratch::new("infpartial");
    let f = s.file(
        "r.ndjson",
        b"{\"a\":-2e999}\n{\"a\":-1e999}\n{\"a\":5}\n{\"a\":1e999}\n{\"a\":7}\n",
    );
    for q in [
        "median(_.a)",
        "percentile(_.a, [0.1, 0.9])",
        "min(_.a) < -1e308",
        "sum(_.a)",
        "stdev(_.a)",
    ] {
        let whole = run_ndq(&[q, path_str(&f)], None);
        assert_eq!(whole.status.code(), Some(0), "{q}: {}", stderr(&whole));
        let p = run_ndq(&["--emit-partial", q, path_str(&f)], None);
        assert_eq!(p.status.code(), Some(0), "{q}: {}", stderr(&p));
        let part = s.file("r.partial", &p.stdout);
        let m = run_ndq(&["--merge", q, path_str(&part)], None);
        assert_eq!(m.status.code(), Some(0), "{q}: {}", stderr(&m));
        assert_eq!(stdout(&m), stdout(&whole), "{q}");
    }
}
