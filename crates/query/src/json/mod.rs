//! JSON reading and writing, hand-written for NDJSON throughput.
//!
//! * [`parse`]: a full parser into [`Value`](crate::value::Value) and a
//!   projecting scanner that validates a whole line while materialising only
//!   the top-level fields a query reads.
//! * [`write`](mod@write): compact and pretty serialisation.

pub mod parse;
mod simd;
pub mod write;

pub use parse::{parse_line, parse_line_at, scan_fields, scan_line, JsonError, Scan};
pub use write::{to_string, write_compact, write_pretty};
