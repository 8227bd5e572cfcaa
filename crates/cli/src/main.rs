//! `ramp`: simulate, run for real, and analyse QUIC congestion control.
//!
//! A thin command line over the library crates: every subcommand lives in
//! its own module under `cmd/` and only parses arguments, calls a library,
//! and prints.

mod cmd;

use clap::{Parser, Subcommand};

/// A laboratory for QUIC congestion control, built around the startup phase.
#[derive(Parser, Debug)]
#[command(name = "ramp", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compare startup algorithms on one path: table, charts and report.
    Compare(cmd::compare::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Compare(args) => cmd::compare::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ramp: error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
