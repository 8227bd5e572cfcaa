//! ramp-query's (ndq's) integration tests in one binary: the command line,
//! the docs' examples, the DuckDB differential, the JSON model and the
//! property tests, with shared helpers in `common`.

// A test binary has no API: `pub` marks what its modules share.
#![allow(unreachable_pub)]

mod common;

mod cli;
mod doc_examples;
mod duckdb_diff;
mod exact_ints;
mod json_model;
mod props;
