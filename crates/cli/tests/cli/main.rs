//! The `ramp` command's integration tests in one binary (one link instead
//! of one per file): one module per command or concern, sharing `common`.

mod browser;
mod common;

mod docs;
mod errors;
mod explorer_e2e;
mod fleet;
mod fleet_grid;
mod flowlog;
mod interop;
mod load;
mod load_close;
mod real;
mod report;
mod report_e2e;
mod shell;
mod shell_exit;
mod sim;
mod stop_signals;
