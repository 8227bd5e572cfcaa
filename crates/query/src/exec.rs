//! The parallel driver: chunks are processed by a rayon pool in batches and
//! their results consumed strictly in input order, so output order, partial
//! state merge order and the first reported error never depend on `-P`.
//!
//! The pipeline splits at the first aggregating stage `k`:
//! * no aggregation: workers run every stage and format output bytes;
//! * mergeable aggregation: workers run stages `0..=k` into a partial state
//!   per chunk, merged in chunk order;
//! * non-mergeable (`reduce`): workers run `0..k`, the main thread feeds
//!   stage `k` in input order.
//!
//! Later stages run serially on the (small) aggregated output.

use std::io::Write;

use rayon::prelude::*;

use crate::agg::partial;
use crate::agg::State;
use crate::eval::Env;
use crate::input::{Chunk, Chunks, Source};
use crate::output::{format_value, Format};
use crate::plan::StageKind;
use crate::query::{flow_msg, Query, StageError, Tail};
use crate::value::{Map, Value};

/// Run options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Worker threads (`-P`).
    pub threads: usize,
    /// Output format.
    pub format: Format,
    /// Skip (and count) malformed lines instead of stopping.
    pub skip_bad: bool,
    /// Write the partial aggregation state instead of the result.
    pub emit_partial: bool,
    /// Chunk size in bytes (results do not depend on it except for the
    /// last bits of float sums; tests use small chunks).
    pub chunk_bytes: usize,
}

/// Why a run failed. The binary maps `Usage` to exit 1 and `Data` to 2.
#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    /// Query, option or I/O problem.
    Usage(String),
    /// Bad input line or runtime type error.
    Data(String),
}

impl core::fmt::Display for RunError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RunError::Usage(m) | RunError::Data(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RunError {}

/// What a successful run reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Malformed lines skipped under `--skip-bad`.
    pub skipped: u64,
    /// The first skipped line, `file:line: reason`.
    pub first_skipped: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Stream,
    Merge,
    Collect,
}

enum Fail {
    Json(String),
    Stage(StageError),
}

#[derive(Default)]
struct ChunkResult {
    bytes: Vec<u8>,
    state: Option<State>,
    values: Vec<(Value, usize)>,
    skipped: u64,
    first_skipped: Option<(usize, String)>,
    fail: Option<(usize, Fail)>,
}

fn process(q: &Query, chunk: &Chunk, mode: Mode, opts: &Options) -> ChunkResult {
    let mut r = ChunkResult {
        state: if mode == Mode::Merge {
            q.new_state()
        } else {
            None
        },
        ..Default::default()
    };
    chunk.prefault();
    let data = chunk.bytes();
    let mut env = Env::new(q.n_vars);
    let mut scratch = Vec::new();
    let mut start = 0;
    let agg_plan = match q.stages.get(q.split).map(|s| &s.kind) {
        Some(StageKind::Agg { plan, .. }) => Some(plan),
        _ => None,
    };
    while start < data.len() {
        let pos = start;
        let (read, end) = q.read_at(data, start, &mut scratch);
        let end = end.min(data.len());
        start = end + 1;
        let v = match read {
            Ok(Some(v)) => v,
            Ok(None) => continue,
            Err(e) if opts.skip_bad => {
                r.skipped += 1;
                if r.first_skipped.is_none() {
                    r.first_skipped = Some((pos, json_msg(&e)));
                }
                continue;
            }
            Err(e) => {
                r.fail = Some((pos, Fail::Json(json_msg(&e))));
                return r;
            }
        };
        let res = match mode {
            Mode::Stream if q.raw => {
                let mut pass = false;
                let r2 = q.run_map_stages(0, q.split, v, &mut env, &mut |_, _| {
                    pass = true;
                    Ok(())
                });
                if pass {
                    let line = data[pos..end].trim_ascii();
                    match (q.reencode, crate::json::parse_line(line)) {
                        // Validated already by the scan; parsed whole only now.
                        (true, Ok(full)) => format_value(&full, opts.format, &mut r.bytes),
                        _ => {
                            r.bytes.extend_from_slice(line);
                            r.bytes.push(b'\n');
                        }
                    }
                }
                r2
            }
            Mode::Stream => q.run_map_stages(0, q.split, v, &mut env, &mut |v, _| {
                format_value(&v, opts.format, &mut r.bytes);
                Ok(())
            }),
            Mode::Collect => q.run_map_stages(0, q.split, v, &mut env, &mut |v, _| {
                r.values.push((v, pos));
                Ok(())
            }),
            Mode::Merge => {
                let (Some(plan), Some(state)) = (agg_plan, r.state.as_mut()) else {
                    return r;
                };
                q.run_map_stages(0, q.split, v, &mut env, &mut |v, env| {
                    state.update_plan(plan, &v, env).map_err(|f| StageError {
                        stage: q.split,
                        msg: flow_msg(f),
                    })
                })
            }
        };
        if let Err(e) = res {
            r.fail = Some((pos, Fail::Stage(e)));
            return r;
        }
    }
    r
}

fn json_msg(e: &crate::json::JsonError) -> String {
    format!("invalid JSON at column {}: {}", e.offset + 1, e.msg)
}

fn stage_msg(q: &Query, e: &StageError) -> String {
    let src = q.stages.get(e.stage).map_or("", |s| s.src.as_str());
    format!("stage {} `{}`: {}", e.stage + 1, src, e.msg)
}

fn io_err(e: std::io::Error) -> RunError {
    RunError::Usage(format!("writing output: {e}"))
}

/// Runs `q` over `sources`, writing results to `out`.
pub fn run(
    q: &Query,
    sources: Vec<Source>,
    opts: &Options,
    out: &mut dyn Write,
) -> Result<Summary, RunError> {
    let mode = if q.split == q.stages.len() {
        Mode::Stream
    } else if q.mergeable() {
        Mode::Merge
    } else {
        Mode::Collect
    };
    if opts.emit_partial && mode != Mode::Merge {
        return Err(RunError::Usage(if mode == Mode::Stream {
            "--emit-partial needs a query with an aggregation".into()
        } else {
            "--emit-partial: this query's aggregation (reduce) cannot be merged".into()
        }));
    }
    // Filter-only queries print matching lines verbatim (JSON output only).
    let raw;
    let q = match (mode, opts.format, q.raw_rows()) {
        (Mode::Stream, Format::Json, Some(r)) => {
            raw = r;
            &raw
        }
        _ => q,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.max(1))
        .build()
        .map_err(|e| RunError::Usage(format!("cannot start worker threads: {e}")))?;
    let mut chunks = Chunks::new(sources, opts.chunk_bytes);
    let batch_n = (opts.threads.max(1) * 2).max(2);
    let mut summary = Summary::default();
    let mut merged: Option<State> = None;
    let mut tail = Tail::new(q, q.split, None);
    let mut buffered: Vec<u8> = Vec::new();
    let plan = match q.stages.get(q.split).map(|s| &s.kind) {
        Some(StageKind::Agg { plan, .. }) => Some(plan),
        _ => None,
    };
    loop {
        let mut batch = Vec::with_capacity(batch_n);
        while batch.len() < batch_n {
            match chunks.next_chunk().map_err(RunError::Usage)? {
                Some(c) => batch.push(c),
                None => break,
            }
        }
        if batch.is_empty() {
            break;
        }
        let results: Vec<ChunkResult> = pool.install(|| {
            batch
                .par_iter()
                .map(|c| process(q, c, mode, opts))
                .collect()
        });
        for (c, r) in batch.iter().zip(results) {
            let name = chunks
                .sources()
                .get(c.source)
                .map_or(String::new(), Source::name);
            let loc = |pos: usize| format!("{name}:{}", c.line_of(pos));
            summary.skipped += r.skipped;
            if let (None, Some((pos, m))) = (&summary.first_skipped, &r.first_skipped) {
                summary.first_skipped = Some(format!("{}: {m}", loc(*pos)));
            }
            match mode {
                Mode::Stream => match out.write_all(&r.bytes) {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(summary),
                    other => other.map_err(io_err)?,
                },
                Mode::Merge => {
                    if let (Some(s), Some(plan)) = (r.state, plan) {
                        match merged.as_mut() {
                            None => merged = Some(s),
                            Some(m) => m.merge(s, plan).map_err(|e| RunError::Data(e.0))?,
                        }
                    }
                }
                Mode::Collect => {
                    for (v, pos) in r.values {
                        tail.push(q.split, v, &mut |v| {
                            format_value(&v, opts.format, &mut buffered)
                        })
                        .map_err(|e| {
                            RunError::Data(format!("{}: {}", loc(pos), stage_msg(q, &e)))
                        })?;
                    }
                }
            }
            if let Some((pos, f)) = r.fail {
                let msg = match f {
                    Fail::Json(m) => m,
                    Fail::Stage(e) => stage_msg(q, &e),
                };
                let _ = out.flush();
                return Err(RunError::Data(format!("{}: {msg}", loc(pos))));
            }
        }
    }
    match mode {
        Mode::Stream => {}
        Mode::Merge => {
            let state = merged.or_else(|| q.new_state());
            if opts.emit_partial {
                let Some(s) = state else { return Ok(summary) };
                write_partial(q, &s, out)?;
            } else {
                finish(q, state, opts, out)?;
            }
        }
        Mode::Collect => {
            tail.finish(&mut |v| format_value(&v, opts.format, &mut buffered))
                .map_err(|e| RunError::Data(stage_msg(q, &e)))?;
            write_out(out, &buffered)?;
        }
    }
    out.flush().or_else(|e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Ok(())
        } else {
            Err(io_err(e))
        }
    })?;
    Ok(summary)
}

fn write_out(out: &mut dyn Write, b: &[u8]) -> Result<(), RunError> {
    match out.write_all(b) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(io_err),
    }
}

fn finish(
    q: &Query,
    state: Option<State>,
    opts: &Options,
    out: &mut dyn Write,
) -> Result<(), RunError> {
    let mut buffered = Vec::new();
    let tail = Tail::new(q, q.split, state);
    tail.finish(&mut |v| format_value(&v, opts.format, &mut buffered))
        .map_err(|e| RunError::Data(stage_msg(q, &e)))?;
    write_out(out, &buffered)
}

fn write_partial(q: &Query, s: &State, out: &mut dyn Write) -> Result<(), RunError> {
    let mut m = Map::default();
    m.insert("ndq_partial".into(), Value::Int(partial::VERSION));
    m.insert("plan".into(), Value::Str(q.plan_hash()));
    m.insert("query".into(), Value::Str(q.text.clone()));
    m.insert("approx".into(), Value::Bool(q.approx));
    m.insert("stage".into(), Value::Int(q.split as i128 + 1));
    m.insert("state".into(), partial::state_to_value(s));
    let mut b = Vec::new();
    crate::json::write_compact(&Value::Object(m), &mut b);
    b.push(b'\n');
    write_out(out, &b)
}

/// `--merge`: combines partial-state files (in the order given) and prints
/// the result, or a merged partial state with `emit_partial`.
pub fn merge(
    q: &Query,
    files: &[(String, Vec<u8>)],
    opts: &Options,
    out: &mut dyn Write,
) -> Result<(), RunError> {
    if !q.mergeable() {
        return Err(RunError::Usage(
            "--merge needs a query whose first aggregation can be merged".into(),
        ));
    }
    let Some(StageKind::Agg { plan, .. }) = q.stages.get(q.split).map(|s| &s.kind) else {
        return Err(RunError::Usage(
            "--merge needs a query with an aggregation".into(),
        ));
    };
    let want = q.plan_hash();
    let mut merged: Option<State> = None;
    for (name, bytes) in files {
        for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let at = format!("{name}:{}", i + 1);
            let v = crate::json::parse_line(line)
                .map_err(|e| RunError::Data(format!("{at}: {}", json_msg(&e))))?;
            let field = |k: &str| match &v {
                Value::Object(m) => m.get(k).cloned().unwrap_or(Value::Null),
                _ => Value::Null,
            };
            if field("ndq_partial") != Value::Int(partial::VERSION) {
                return Err(RunError::Data(format!(
                    "{at}: not an ndq partial state (version {})",
                    partial::VERSION
                )));
            }
            if field("plan") != Value::Str(want.clone()) {
                return Err(RunError::Data(format!(
                    "{at}: partial state is from a different query or --approx setting (its query: {})",
                    crate::json::to_string(&field("query"))
                )));
            }
            let s = partial::state_from_value(&field("state"), q.approx)
                .map_err(|m| RunError::Data(format!("{at}: {m}")))?;
            if s.slots.len() != plan.aggs.len() {
                return Err(RunError::Data(format!(
                    "{at}: partial state does not match the query"
                )));
            }
            match merged.as_mut() {
                None => merged = Some(s),
                Some(m) => m
                    .merge(s, plan)
                    .map_err(|m| RunError::Data(format!("{at}: {m}")))?,
            }
        }
    }
    let state = merged.or_else(|| q.new_state());
    if opts.emit_partial {
        if let Some(s) = state {
            write_partial(q, &s, out)?;
        }
        return Ok(());
    }
    finish(q, state, opts, out)?;
    out.flush().map_err(io_err)
}
