//! End-to-end tests of the `ndq` binary: errors and exit codes, bad lines,
//! compressed inputs, globs and stdin, output formats, `-P` determinism,
//! `--emit-partial`/`--merge`, helper files and `--approx`.

use crate::common;

use std::io::Write;

use common::*;

const SEED_QUERY: &str = "select(_.content_length >= 200000 && _.content_length < 400000) >> group_by(_.group) { percentile(_.ttlb, range(0.05, 0.95, 0.1)) }";

#[test]
fn bad_line_stops_with_file_line_exit_2_and_no_partial_result() {
    let s = Scratch::new("bad");
    let f = s.file("in.ndjson", b"{\"x\":1}\n{\"x\":2}\n{\"x\":\n{\"x\":4}\n");
    let o = run_ndq(&["sum(_.x)", path_str(&f)], None);
    assert_fails_with(
        &o,
        2,
        &format!("{}:3: invalid JSON at column 6", f.display()),
    );
    assert_eq!(stdout(&o), "");
}

#[test]
fn bad_line_with_projection_is_still_caught() {
    // The scanner decodes only "x" but must still reject the broken tail.
    let s = Scratch::new("badproj");
    let f = s.file("in.ndjson", b"{\"x\":1,\"y\":[1,2}\n");
    let o = run_ndq(&["min(_.x)", path_str(&f)], None);
    assert_fails_with(&o, 2, ":1: invalid JSON");
}

#[test]
fn skip_bad_counts_skipped_lines_on_stderr() {
    let s = Scratch::new("skip");
    let f = s.file(
        "in.ndjson",
        b"{\"x\":1}\nnot json\n{\"x\":2}\n{\"x\"\n\n{\"x\":3}\n",
    );
    let o = run_ndq(&["--skip-bad", "sum(_.x)", path_str(&f)], None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "6\n");
    let e = stderr(&o);
    assert!(
        e.contains("skipped 2 bad line(s); first: ") && e.contains(":2: invalid JSON"),
        "{e}"
    );
}

#[test]
fn runtime_type_error_names_stage_and_line() {
    let s = Scratch::new("rt");
    let f = s.file("in.ndjson", b"{\"x\":1}\n{\"x\":\"a\"}\n");
    let o = run_ndq(&["select(true) >> sum(_.x)", path_str(&f)], None);
    assert_fails_with(&o, 2, ":2: stage 2 `sum(_.x)`: sum of a string");
    assert_eq!(stdout(&o), "");
}

#[test]
fn query_error_shows_position_and_expectation() {
    let o = run_ndq(&["select(_.x > 1 >> _.y"], Some(b""));
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("query:1:16: expected ',' or ')' in the argument list, found '>>'"),
        "{e}"
    );
    assert!(e.contains("\n                 ^"), "{e}");
    let o = run_ndq(&["--no-such-option", "count()"], Some(b""));
    assert_eq!(
        o.status.code(),
        Some(1),
        "usage errors exit 1 (2 means bad data)"
    );
    let o = run_ndq(&["nosuch(_)"], Some(b""));
    assert!(stderr(&o).contains("unknown function 'nosuch'"));
    let o = run_ndq(&["_.x + count()"], Some(b""));
    assert!(stderr(&o).contains("'_' is used outside an aggregation"));
}

#[test]
fn gz_and_zst_inputs_match_plain() {
    let s = Scratch::new("comp");
    let data = stats_log(3000, 7);
    let plain = s.file("a.ndjson", data.as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data.as_bytes()).unwrap();
    let gz = s.file("a.ndjson.gz", &gz.finish().unwrap());
    let zst = s.file(
        "a.ndjson.zst",
        &zstd::encode_all(data.as_bytes(), 1).unwrap(),
    );
    for q in [
        SEED_QUERY,
        "sum(_.loss)",
        "select(_.ttlb > 1900) >> _.conn_id",
    ] {
        let want = run_ndq(&["--chunk-bytes", "10000", q, path_str(&plain)], None);
        assert_eq!(want.status.code(), Some(0), "{}", stderr(&want));
        for f in [&gz, &zst] {
            let got = run_ndq(&["--chunk-bytes", "10000", "-P", "2", q, path_str(f)], None);
            assert_eq!(stdout(&got), stdout(&want), "{q} on {}", f.display());
        }
    }
}

#[test]
fn bad_line_in_gz_reports_its_line() {
    let s = Scratch::new("gzbad");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"{\"x\":1}\n{\"x\":2}\n[1,\n").unwrap();
    let f = s.file("b.ndjson.gz", &gz.finish().unwrap());
    let o = run_ndq(&["--chunk-bytes", "8", "count()", path_str(&f)], None);
    assert_fails_with(&o, 2, "b.ndjson.gz:3: invalid JSON");
}

#[test]
fn p1_and_p2_are_byte_identical() {
    let s = Scratch::new("par");
    let f = s.file("a.ndjson", stats_log(4000, 11).as_bytes());
    let queries = [
        SEED_QUERY,
        "{\"n\": count(), \"sum\": sum(_.loss), \"avg\": average(_.lat), \"sd\": stdev(_.lat), \"sd1\": stdev_samp(_.lat), \"p\": percentile_cont(_.lat, [0.1, 0.5, 0.99])}",
        "group_by(_.pop) { group_by(_.group) { {\"n\": count(), \"m\": median(_.ttlb), \"d\": count_distinct(_.rtt.minimum)} } }",
        "distinct(_.group)",
        "top(5, _.ttlb) >> map { |r| r.conn_id }",
        "sort(_.ttlb) >> _.conn_id",
        "select(_[\"num-ptos\"] == 2) >> [_.conn_id, _.group]",
        "_.conn_id >> reduce(0) { |acc, v| acc * 31 % 1000003 + v }",
        "_.nested.a >> flat >> count()",
    ];
    for q in queries {
        let one = run_ndq(&["-P", "1", "--chunk-bytes", "3000", q, path_str(&f)], None);
        let two = run_ndq(&["-P", "2", "--chunk-bytes", "3000", q, path_str(&f)], None);
        assert_eq!(one.status.code(), Some(0), "{q}: {}", stderr(&one));
        assert!(!one.stdout.is_empty(), "{q}");
        assert_eq!(one.stdout, two.stdout, "{q}");
    }
}

#[test]
fn chunking_does_not_change_exact_results() {
    let s = Scratch::new("chunks");
    let f = s.file("a.ndjson", stats_log(2000, 5).as_bytes());
    for q in [
        SEED_QUERY,
        "sum(_.ttlb)",
        "distinct(_.pop)",
        "select(_.ttlb < 50) >> _.conn_id",
    ] {
        let big = run_ndq(&["-P", "1", q, path_str(&f)], None);
        let small = run_ndq(&["-P", "2", "--chunk-bytes", "1", q, path_str(&f)], None);
        assert_eq!(big.stdout, small.stdout, "{q}");
    }
}

#[test]
fn emit_partial_then_merge_equals_single_pass() {
    let s = Scratch::new("shard");
    let data = stats_log(3000, 3);
    let lines: Vec<&str> = data.lines().collect();
    let full = s.file("all.ndjson", data.as_bytes());
    let mut parts = Vec::new();
    for (i, part) in lines.chunks(1000).enumerate() {
        let f = s.file(&format!("s{i}.ndjson"), (part.join("\n") + "\n").as_bytes());
        let o = run_ndq(&["--emit-partial", SEED_QUERY, path_str(&f)], None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).starts_with("{\"ndq_partial\":1,"));
        parts.push(s.file(&format!("p{i}.json"), &o.stdout));
    }
    let want = run_ndq(&[SEED_QUERY, path_str(&full)], None);
    let mut args = vec!["--merge", SEED_QUERY];
    args.extend(parts.iter().map(|p| path_str(p)));
    let got = run_ndq(&args, None);
    assert_eq!(got.status.code(), Some(0), "{}", stderr(&got));
    assert_eq!(stdout(&got), stdout(&want));
    // A state from another query is refused.
    let other = run_ndq(&["--merge", "count()", path_str(&parts[0])], None);
    assert_eq!(other.status.code(), Some(2));
    assert!(stderr(&other).contains("different query"));
}

#[test]
fn helpers_file_and_query_defs() {
    let s = Scratch::new("helpers");
    let h = s.file("h.ndq", b"# talk helpers\ndef base_cond(r, lo, hi) = r.content_length >= lo && r.content_length < hi;\ndef group_name(r) = r.group;\n");
    let f = s.file("a.ndjson", stats_log(500, 2).as_bytes());
    let a = run_ndq(
        &[
            "-f",
            path_str(&h),
            "select(base_cond(_, 200000, 400000)) >> group_by(group_name(_)) { count() }",
            path_str(&f),
        ],
        None,
    );
    let b = run_ndq(&["select(_.content_length >= 200000 && _.content_length < 400000) >> group_by(_.group) { count() }", path_str(&f)], None);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let bad = s.file("bad.ndq", b"def f(x) = x +;\n");
    let o = run_ndq(&["-f", path_str(&bad), "f(1)"], Some(b""));
    assert_fails_with(&o, 1, "bad.ndq:1:15: expected an expression");
}

#[test]
fn globs_stdin_and_multiple_files_keep_order() {
    let s = Scratch::new("glob");
    s.file("a1.ndjson", b"{\"i\":1}\n{\"i\":2}\n");
    s.file("a2.ndjson", b"{\"i\":3}\n");
    s.file("b.txt", b"{\"i\":99}\n");
    let pat = s.0.join("a*.ndjson");
    let o = run_ndq(&["-P", "2", "_.i", path_str(&pat)], None);
    assert_eq!(stdout(&o), "1\n2\n3\n");
    let o = run_ndq(&["sum(_.i)"], Some(b"{\"i\":5}\r\n\n{\"i\":6}"));
    assert_eq!(stdout(&o), "11\n");
    let o = run_ndq(&["count()", path_str(&s.0.join("nope*.ndjson"))], None);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn output_formats() {
    let input = b"{\"g\":\"a\",\"v\":1}\n{\"g\":\"b\",\"v\":2}\n{\"g\":\"a\",\"v\":3}\n";
    let q = "group_by(_.g) { [count(), sum(_.v)] }";
    assert_eq!(
        stdout(&run_ndq(&[q], Some(input))),
        "{\"a\":[2,4],\"b\":[1,2]}\n"
    );
    assert_eq!(
        stdout(&run_ndq(&["--tsv", q], Some(input))),
        "a\t2\t4\nb\t1\t2\n"
    );
    assert_eq!(
        stdout(&run_ndq(&["--csv", q], Some(input))),
        "a,2,4\nb,1,2\n"
    );
    assert_eq!(
        stdout(&run_ndq(&["--pretty", "{\"n\": count()}"], Some(input))),
        "{\n  \"n\": 3\n}\n"
    );
}

#[test]
fn approx_percentiles_are_within_one_percent() {
    let s = Scratch::new("approx");
    let f = s.file("a.ndjson", stats_log(3000, 9).as_bytes());
    let q = "percentile(_.ttlb, [0.1, 0.5, 0.9, 0.99])";
    let exact: Vec<f64> = serde_like_floats(&stdout(&run_ndq(&[q, path_str(&f)], None)));
    let approx: Vec<f64> = serde_like_floats(&stdout(&run_ndq(
        &[
            "--approx",
            "-P",
            "2",
            "--chunk-bytes",
            "5000",
            q,
            path_str(&f),
        ],
        None,
    )));
    assert_eq!(exact.len(), 4);
    for (e, a) in exact.iter().zip(&approx) {
        assert!((e - a).abs() <= 0.01 * e.abs(), "exact {e} approx {a}");
    }
}

fn serde_like_floats(s: &str) -> Vec<f64> {
    s.trim()
        .trim_matches(['[', ']'])
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

#[test]
fn explain_describes_projection_and_split() {
    let o = run_ndq(&["-v", "-P", "2", SEED_QUERY], Some(b""));
    let e = stderr(&o);
    assert!(
        e.contains("[\"content_length\", \"group\", \"ttlb\"]"),
        "{e}"
    );
    assert!(e.contains("partial states merged in input order"), "{e}");
}

#[test]
fn filter_only_queries_print_input_lines_verbatim() {
    let input = b"  {\"a\": 1.50, \"b\":[1]} \r\n{\"a\":0}\n{\"a\":2,\"b\":\"\\u00e9\"}\n";
    let o = run_ndq(&["select(_.a > 1)"], Some(input));
    assert_eq!(
        stdout(&o),
        "{\"a\": 1.50, \"b\":[1]}\n{\"a\":2,\"b\":\"\\u00e9\"}\n"
    );
    // Any other output format, or a transform, re-encodes.
    let o = run_ndq(&["select(_.a > 1) >> _"], Some(input));
    assert_eq!(
        stdout(&o),
        "{\"a\":1.5,\"b\":[1]}\n{\"a\":2,\"b\":\"\u{e9}\"}\n"
    );
    // Bad lines are still rejected in the verbatim path.
    let o = run_ndq(&["select(_.a > 1)"], Some(b"{\"a\":2,\"b\":[}\n"));
    assert_eq!(o.status.code(), Some(2));
    // The same rows as the re-encoding path, at any -P.
    let s = Scratch::new("raw");
    let f = s.file("a.ndjson", stats_log(2000, 8).as_bytes());
    let a = run_ndq(
        &[
            "-P",
            "2",
            "--chunk-bytes",
            "5000",
            "select(_.ttlb > 1000 && _.group != \"baseline\")",
            path_str(&f),
        ],
        None,
    );
    let b = run_ndq(
        &[
            "select(_.ttlb > 1000 && _.group != \"baseline\") >> _",
            path_str(&f),
        ],
        None,
    );
    assert!(!a.stdout.is_empty());
    let reencoded = run_ndq(&["_"], Some(&a.stdout));
    assert_eq!(reencoded.stdout, b.stdout);
}

#[test]
fn threads_are_capped_at_a_few_per_core_and_zero_is_refused() {
    let s = Scratch::new("threads");
    let f = s.file("in.ndjson", b"{\"x\":1}\n{\"x\":2}\n");
    let o = run_ndq(&["-P", "100000", "sum(_.x)", path_str(&f)], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout(&o), "3\n");
    assert!(String::from_utf8_lossy(&o.stderr).contains("capped at"));
    let o = run_ndq(&["-P", "0", "sum(_.x)", path_str(&f)], None);
    assert_fails_with(&o, 2, "-P must be at least 1");
}

#[test]
fn identity_stages_change_nothing_and_keep_the_projection() {
    let s = Scratch::new("identity");
    let f = s.file(
        "in.ndjson",
        b"{\"x\":1,\"y\":[1,2]}\n{\"x\":5,\"y\":{\"z\":null}}\n{\"x\":9}\n",
    );
    let plain = run_ndq(&["select(_.x > 2)", path_str(&f)], None);
    for q in ["select(_.x > 2) >> _", "_ >> select(_.x > 2) >> _ >> _"] {
        let o = run_ndq(&["--explain", q, path_str(&f)], None);
        assert_eq!(stdout(&o), stdout(&plain), "{q}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("1 stage(s)"), "{q}: {e}");
    }
    assert_eq!(
        stdout(&run_ndq(&["_ >> _", path_str(&f)], None))
            .lines()
            .count(),
        3
    );
}

#[test]
fn builtin_errors_use_the_name_the_user_wrote() {
    let o = run_ndq(&["_.a.sum"], Some(b"{\"a\":\"x\"}\n"));
    assert_fails_with(&o, 2, "sum needs an array");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("arrsum"));
}

#[test]
fn helpers_nesting_each_other_are_an_error_not_a_stack_overflow() {
    // Twenty helpers, each a dozen levels deep and far under the parser's
    // limit, calling each other: the inlined tree is ~250 levels deep.
    let mut q = String::from("def h0(x) = x;");
    for i in 1..20 {
        q.push_str(&format!(
            "def h{i}(x) = h{}(x{});",
            i - 1,
            " + 1".repeat(12)
        ));
    }
    q.push_str("h19(_.a)");
    let o = run_ndq(&[&q], None);
    assert_fails_with(&o, 1, "nested too deeply after inlining helpers");
}

#[test]
fn a_duplicate_def_and_a_wrong_arity_select_say_what_is_wrong() {
    let o = run_ndq(&["def f(x) = x; def f(x) = x + 1; f(_.a)"], None);
    assert_fails_with(&o, 1, "helper f is defined twice");
    let o = run_ndq(&["select()"], None);
    assert_fails_with(&o, 1, "select takes 1 argument (the condition), got 0");
}

#[test]
fn a_newline_less_stream_is_refused_once_a_line_passes_the_maximum() {
    // /dev/zero is a stream of NULs with no newline: refused after 64 MiB,
    // not when memory runs out.
    let o = run_ndq(&["count()", "/dev/zero"], None);
    assert_fails_with(&o, 2, "/dev/zero:1: line longer than the maximum of 64 MiB");
}

#[test]
fn a_merge_input_from_dev_zero_is_refused_after_a_bounded_read() {
    // `--merge` reads each partial-state file whole: the cap stops
    // `/dev/zero` after 1 GiB instead of when memory runs out.
    let o = run_ndq(&["--merge", "count()", "/dev/zero"], None);
    assert_fails_with(
        &o,
        1,
        "/dev/zero: longer than the maximum of 1024 MiB for an ndq partial-state file",
    );
}

#[test]
fn a_helper_file_from_dev_zero_is_refused_after_a_bounded_read() {
    let o = run_ndq(&["-f", "/dev/zero", "count()", "/dev/null"], None);
    assert_fails_with(
        &o,
        1,
        "/dev/zero: longer than the maximum of 1 MiB for an ndq helper file",
    );
}

/// Runs `ndq args` with `input` on stdin and a stderr whose read end is
/// already closed, as `ndq … 2>&1 | head -1` leaves it once `head` has its
/// line, but without the race of `head`: every write to stderr gets EPIPE.
fn run_ndq_with_closed_stderr(args: &[&str], input: &[u8]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = ndq()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(writer)
        .spawn()
        .expect("ndq binary runs");
    let mut w = child.stdin.take().expect("stdin is piped");
    // ndq stops before reading stdin on a usage or query error.
    let _ = w.write_all(input);
    drop(w);
    child.wait_with_output().expect("ndq ends")
}

#[test]
fn a_closed_stderr_pipe_is_not_a_panic_and_keeps_the_result_and_exit_status() {
    let input = b"{\"x\":1}\nnot json\n{\"x\":2}\n";
    // --explain, -P's cap and --skip-bad's count each print on stderr before
    // or after the result; none of them may turn exit 0 into a panic's 101.
    let o = run_ndq_with_closed_stderr(&["-v", "-P", "100000", "--skip-bad", "sum(_.x)"], input);
    assert_eq!(o.status.code(), Some(0), "a panic exits 101");
    assert_eq!(stdout(&o), "3\n");
    // An error's message is lost with stderr, but its exit status is not.
    let o = run_ndq_with_closed_stderr(&["-P", "0", "sum(_.x)"], input);
    assert_eq!(o.status.code(), Some(2));
    let o = run_ndq_with_closed_stderr(&["sum(_.x)"], input);
    assert_eq!(o.status.code(), Some(2), "the bad line is a data error");
    let o = run_ndq_with_closed_stderr(&["sum(_.x"], input);
    assert_eq!(o.status.code(), Some(1), "a query error");
}
