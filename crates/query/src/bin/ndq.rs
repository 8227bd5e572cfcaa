//! `ndq [OPTIONS] QUERY [FILES...]`: query NDJSON files (see docs/ndq.md).

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use ramp_query::{input, Format, HelperFile, Options, Query, RunError};

/// Whole-row queries allocate a map and a string per field of every line;
/// mimalloc's per-thread free lists make that allocation several times
/// cheaper than glibc's (docs/benchmarks.md, "Whole-row queries").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `-P` above this many workers per core is capped.
const MAX_THREADS_PER_CORE: usize = 4;

#[derive(Clone, Copy, ValueEnum)]
enum OutFmt {
    Json,
    Pretty,
    Tsv,
    Csv,
}

/// Streaming, parallel NDJSON query engine.
///
/// Stages are joined by `>>`; `_` is the current value. Example:
///   ndq 'select(_.content_length >= 200000) >> group_by(_.group) { percentile(_.ttlb, [0.5, 0.9]) }' logs/*.ndjson.gz
///
/// Exit status: 0 success, 1 query/usage/I/O error, 2 bad input line or runtime type error.
#[derive(Parser)]
#[command(name = "ndq", version, verbatim_doc_comment)]
struct Cli {
    /// The query (see docs/ndq.md for the language).
    query: String,
    /// Input files (globs, `.gz`, `.zst`; `-` or none for stdin).
    files: Vec<String>,
    /// Worker threads [default: all cores].
    #[arg(short = 'P', long = "threads")]
    threads: Option<usize>,
    /// Load `def` helpers from a file (repeatable).
    #[arg(short = 'f', long = "helpers", value_name = "FILE")]
    helpers: Vec<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "json")]
    output: OutFmt,
    /// Pretty-print JSON (same as -o pretty).
    #[arg(long)]
    pretty: bool,
    /// Tab-separated output (same as -o tsv).
    #[arg(long)]
    tsv: bool,
    /// Comma-separated output (same as -o csv).
    #[arg(long)]
    csv: bool,
    /// Skip malformed lines (their count goes to stderr) instead of stopping.
    #[arg(long)]
    skip_bad: bool,
    /// Bounded-memory percentiles: DDSketch, relative error <= 1%.
    #[arg(long)]
    approx: bool,
    /// Print the partial aggregation state (for --merge) instead of the result.
    #[arg(long)]
    emit_partial: bool,
    /// Treat FILES as partial states from --emit-partial and merge them.
    #[arg(long)]
    merge: bool,
    /// Chunk size for splitting inputs across threads (testing aid).
    #[arg(long, hide = true, default_value_t = input::CHUNK_BYTES)]
    chunk_bytes: usize,
    /// Print the compiled plan (stages, projection, parallel split) to stderr.
    #[arg(short = 'v', long)]
    explain: bool,
}

fn main() -> ExitCode {
    // clap would exit 2 on usage errors; 2 is reserved for bad data here.
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    let mut helpers = Vec::new();
    for h in &cli.helpers {
        // Helper files are a few lines of ndq; the cap refuses `/dev/zero`
        // at once instead of reading it whole.
        const MAX_HELPER_FILE_BYTES: u64 = 1 << 20;
        match ramp_vocab::bounded_read::read_capped_to_string(
            std::path::Path::new(h),
            MAX_HELPER_FILE_BYTES,
            "an ndq helper file",
        ) {
            Ok(text) => helpers.push(HelperFile {
                name: h.clone(),
                text,
            }),
            Err(e) => return fail(1, &format!("{h}: {e}")),
        }
    }
    let q = match Query::compile(&cli.query, &helpers, cli.approx) {
        Ok(q) => q,
        Err(m) => return fail(1, &m.0),
    };
    let format = if cli.pretty {
        Format::Pretty
    } else if cli.tsv {
        Format::Tsv
    } else if cli.csv {
        Format::Csv
    } else {
        match cli.output {
            OutFmt::Json => Format::Json,
            OutFmt::Pretty => Format::Pretty,
            OutFmt::Tsv => Format::Tsv,
            OutFmt::Csv => Format::Csv,
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = match cli.threads {
        None => cores,
        Some(0) => {
            ramp_vocab::note!("ndq: -P must be at least 1");
            return ExitCode::from(2);
        }
        // More workers than a few per core only adds memory and thread
        // start-up; tens of thousands abort the process.
        Some(n) if n > MAX_THREADS_PER_CORE * cores => {
            let cap = MAX_THREADS_PER_CORE * cores;
            ramp_vocab::note!(
                "ndq: -P {n} capped at {cap} ({MAX_THREADS_PER_CORE} per core, {cores} cores)"
            );
            cap
        }
        Some(n) => n,
    };
    if cli.explain {
        explain(&q, threads);
    }
    let opts = Options {
        threads,
        format,
        skip_bad: cli.skip_bad,
        emit_partial: cli.emit_partial,
        chunk_bytes: cli.chunk_bytes,
    };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let r = if cli.merge {
        let mut files = Vec::new();
        let sources = match input::expand(&cli.files) {
            Ok(s) => s,
            Err(m) => return fail(1, &m.to_string()),
        };
        // Partial states are read whole. An exact aggregation's state keeps
        // about 20 bytes per row it saw, so 1 GiB covers some 50 million rows
        // per file (more wants `--approx`); the cap refuses `/dev/zero` or a
        // mistyped records file at once instead of growing until the kernel
        // kills the process.
        const MAX_PARTIAL_FILE_BYTES: u64 = 1 << 30;
        const WHAT: &str = "an ndq partial-state file";
        for s in sources {
            let bytes = match &s {
                input::Source::File(p) => {
                    ramp_vocab::bounded_read::read_capped(p, MAX_PARTIAL_FILE_BYTES, WHAT)
                }
                input::Source::Stdin => ramp_vocab::bounded_read::read_capped_from(
                    io::stdin().lock(),
                    MAX_PARTIAL_FILE_BYTES,
                    WHAT,
                ),
                input::Source::Memory(_, bytes) => Ok(bytes.to_vec()),
            };
            match bytes {
                Ok(b) => files.push((s.name(), b)),
                Err(e) => return fail(1, &format!("{}: {e}", s.name())),
            }
        }
        ramp_query::merge(&q, &files, &opts, &mut out).map(|_| Default::default())
    } else {
        match input::expand(&cli.files) {
            Ok(s) => ramp_query::run(&q, s, &opts, &mut out),
            Err(m) => return fail(1, &m.to_string()),
        }
    };
    let _ = out.flush();
    match r {
        Ok(sum) => {
            if sum.skipped > 0 {
                ramp_vocab::note!(
                    "ndq: skipped {} bad line(s); first: {}",
                    sum.skipped,
                    sum.first_skipped.unwrap_or_default()
                );
            }
            ExitCode::SUCCESS
        }
        Err(RunError::Usage(m)) => fail(1, &m),
        Err(RunError::Data(m)) => fail(2, &m),
    }
}

/// Prints the plan on stderr. Like every other ndq notice it goes through
/// `ramp_vocab::note!`: `eprintln!` panics when stderr is a closed pipe
/// (`ndq -v … 2>&1 | head -1`), which would lose the query's result and exit
/// status.
fn explain(q: &Query, threads: usize) {
    ramp_vocab::note!("ndq: {} stage(s), {} thread(s)", q.stages.len(), threads);
    for (i, s) in q.stages.iter().enumerate() {
        let kind = match &s.kind {
            ramp_query::plan::StageKind::Map(_) => "per-value",
            ramp_query::plan::StageKind::Flat(_) => "flat",
            ramp_query::plan::StageKind::Agg { .. } => "aggregation",
        };
        ramp_vocab::note!("  stage {}: {kind}: {}", i + 1, s.src);
    }
    match &q.projection {
        Some(k) => {
            ramp_vocab::note!("  lines: validated, only these top-level keys are decoded: {k:?}")
        }
        None => ramp_vocab::note!("  lines: fully parsed (a stage uses the whole value)"),
    }
    let split = if q.split == q.stages.len() {
        "all stages run in parallel chunks; output in input order".to_string()
    } else if q.mergeable() {
        format!(
            "stages 1..={} run in parallel chunks; partial states merged in input order",
            q.split + 1
        )
    } else {
        format!(
            "stages 1..{} run in parallel; stage {} (not mergeable) runs in input order",
            q.split,
            q.split + 1
        )
    };
    ramp_vocab::note!("  parallel: {split}");
}

fn fail(code: u8, msg: &str) -> ExitCode {
    ramp_vocab::note!("ndq: {msg}");
    ExitCode::from(code)
}
