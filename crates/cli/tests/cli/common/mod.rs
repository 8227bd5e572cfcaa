//! What every module of the CLI's integration tests shares.

use std::process::Command;

/// The `ramp` binary under test.
pub(crate) fn ramp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ramp"))
}
