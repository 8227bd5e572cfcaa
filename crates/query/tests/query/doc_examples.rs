//! Runs every ```ndq-test block of docs/ndq.md (the jrf README examples, the
//! talk's queries and their ndq equivalents), serially and on two threads
//! with one line per chunk, so each example also exercises the merge path.

use std::path::PathBuf;

use ramp_query::input::Source;
use ramp_query::{run, Format, Options, Query};

struct Example {
    line: usize,
    query: String,
    input: Vec<String>,
    output: Vec<String>,
}

fn examples() -> Vec<Example> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/ndq.md");
    let text = std::fs::read_to_string(&path).expect("docs/ndq.md is readable");
    let mut out = Vec::new();
    let mut cur: Option<Example> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim() == "```ndq-test" {
            cur = Some(Example {
                line: i + 1,
                query: String::new(),
                input: vec![],
                output: vec![],
            });
        } else if line.trim() == "```" {
            if let Some(e) = cur.take() {
                out.push(e);
            }
        } else if let Some(e) = cur.as_mut() {
            if let Some(q) = line.strip_prefix("ndq:") {
                e.query = q.trim().to_string();
            } else if let Some(v) = line.strip_prefix("in:") {
                e.input.push(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("out:") {
                e.output.push(v.trim().to_string());
            }
        }
    }
    out
}

fn run_example(
    e: &Example,
    threads: usize,
    chunk_bytes: usize,
    dir: &std::path::Path,
) -> Result<String, String> {
    let q = Query::compile(&e.query, &[], false).map_err(|e| e.0)?;
    let path = dir.join(format!("ex{}.ndjson", e.line));
    std::fs::write(&path, e.input.join("\n") + "\n").map_err(|e| e.to_string())?;
    let opts = Options {
        threads,
        format: Format::Json,
        skip_bad: false,
        emit_partial: false,
        chunk_bytes,
    };
    let mut out = Vec::new();
    run(&q, vec![Source::File(path)], &opts, &mut out).map_err(|e| format!("{e:?}"))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn every_doc_example_runs_and_matches() {
    let exs = examples();
    assert!(exs.len() >= 45, "found only {} examples", exs.len());
    let dir = std::env::temp_dir().join(format!("ndq-doc-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    for e in &exs {
        assert!(
            !e.query.is_empty(),
            "docs/ndq.md:{}: example without ndq: line",
            e.line
        );
        let want = e
            .output
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        for (threads, chunk) in [(1, 1 << 20), (2, 1)] {
            match run_example(e, threads, chunk, &dir) {
                Ok(got) if got == want => {}
                Ok(got) => failures.push(format!(
                    "docs/ndq.md:{} (-P {threads}, chunk {chunk}): {}\n  want: {want:?}\n  got:  {got:?}",
                    e.line, e.query
                )),
                Err(m) => failures.push(format!("docs/ndq.md:{}: {}\n  error: {m}", e.line, e.query)),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
