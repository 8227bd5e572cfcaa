//! `ramp`: simulate, run for real, and analyse QUIC congestion control.
//!
//! A thin command line over the library crates: every subcommand lives in
//! its own module under `cmd/` and only parses arguments, calls a library,
//! and prints.

// A binary has no API: `pub` in cmd/ marks what main.rs and the commands
// share.
#![allow(unreachable_pub)]

mod cc_list;
mod clobber;
mod cmd;
mod file_stem;
#[cfg(test)]
mod flag_test;
mod forwarder_flags;
mod interrupt;
mod link_elements;
mod path_flags;
mod ranges;
mod run_dir;
mod stdout_line;
mod writable;

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
    /// Simulate controllers on one path (deterministic).
    Sim(cmd::sim::Args),
    /// Fleet-scale A/B experiment in simulation (e.g. the Rapid Start production experiment).
    Fleet(cmd::fleet::Args),
    /// Benchmarks: simulator speed and more.
    Bench(cmd::bench::Args),
    /// Draw one chart from a trace or records file.
    Plot(cmd::plot::Args),
    /// Write the self-contained HTML report of a run directory.
    Report(cmd::report::Args),
    /// HTTP/3 server with a ramp-cc controller, writing stats records.
    Serve(cmd::serve::Args),
    /// HTTP/3 client: download and measure TTFB/TTLB.
    Get(cmd::get::Args),
    /// h2load-style load generator for HTTP/3 (and HTTP/2 over TLS).
    Load(cmd::load::Args),
    /// UDP relay emulating a bottleneck link (rate, delay, queue, loss).
    Relay(cmd::relay::Args),
    /// Run a command in a network namespace behind an emulated link (IP level: TCP, UDP, anything).
    Shell(cmd::shell::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if !matches!(
        cli.command,
        Command::Serve(_) | Command::Relay(_) | Command::Load(_) | Command::Shell(_)
    ) {
        die_quietly_on_broken_pipe();
    }
    let result = match cli.command {
        Command::Compare(args) => cmd::compare::run(args),
        Command::Sim(args) => cmd::sim::run(args),
        Command::Fleet(args) => cmd::fleet::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Plot(args) => cmd::plot::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Get(args) => cmd::get::run(args),
        Command::Load(args) => cmd::load::run(args),
        Command::Relay(args) => cmd::relay::run(args),
        Command::Shell(args) => cmd::shell::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            ramp_vocab::note!("ramp: error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

/// `ramp sim --list-presets | head` must end quietly when `head` closes the
/// pipe, as other Unix filters do, not panic inside `println!`. Rust ignores
/// SIGPIPE by default; the report and print commands take the default action
/// back. Network commands (serve, relay, load) keep ignoring it, so a peer
/// that resets a TCP connection can never kill a server.
fn die_quietly_on_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any thread exists; SIG_DFL is
    // a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
