//! ndq: a streaming, parallel NDJSON query engine.
//!
//! A query is a pipeline of stages joined by `>>`; `_` is the current value.
//! Stages are classified at compile time into per-value stages and
//! aggregations; aggregations run in one streaming pass with mergeable
//! partial states, which is what lets ndq split one large file across
//! threads (or shards across machines) and still print exactly the result
//! of a single serial pass. The language is documented in docs/ndq.md.
//!
//! ```
//! use ramp_query::{run_str, Format};
//! let out = run_str(r#"group_by(_.k) { sum(_.v) }"#, "{\"k\":\"a\",\"v\":1}\n{\"k\":\"a\",\"v\":2}\n", Format::Json).unwrap();
//! assert_eq!(out, "{\"a\":3}\n");
//! ```

pub mod agg;
mod error;
pub mod eval;
mod exec;
pub mod expr;
pub mod funcs;
pub mod input;
pub mod json;
pub mod lang;
mod output;
pub mod plan;
mod projection;
pub mod query;
mod rewrite;
pub mod value;

pub use error::{CompileError, StateError};
pub use exec::{merge, run, Options, RunError, Summary};
pub use output::Format;
pub use query::{HelperFile, Query};
pub use value::Value;

/// Runs `query` over NDJSON `input` held in memory (single-threaded);
/// convenient for tests and embedding.
pub fn run_str(query: &str, input: &str, format: Format) -> Result<String, RunError> {
    let q = Query::compile(query, &[], false).map_err(|e| RunError::Usage(e.0))?;
    let mut out = Vec::new();
    let opts = Options {
        threads: 1,
        format,
        skip_bad: false,
        emit_partial: false,
        chunk_bytes: input::CHUNK_BYTES,
    };
    let source = input::Source::Memory("input".into(), input.as_bytes().into());
    let r = run(&q, vec![source], &opts, &mut out);
    r?;
    String::from_utf8(out).map_err(|e| RunError::Data(e.to_string()))
}
