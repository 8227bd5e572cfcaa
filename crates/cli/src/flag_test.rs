//! Test-only: a flattened flag group (`PathFlags`, `ForwarderLink`, …)
//! parsed alone, as a command of its own, so that each group's tests share
//! one parser instead of each writing its own `Cli` struct.

use clap::{Args, CommandFactory, Parser};

/// A command that is the group `T` and nothing else.
#[derive(Parser)]
struct Alone<T: Args> {
    #[command(flatten)]
    group: T,
}

/// `args` (without the program name) parsed as the group `T`.
pub(crate) fn parse<T: Args>(args: &[&str]) -> Result<T, clap::Error> {
    Alone::<T>::try_parse_from(std::iter::once("t").chain(args.iter().copied())).map(|a| a.group)
}

/// The command of the group `T` alone, for its help text.
pub(crate) fn command<T: Args>() -> clap::Command {
    Alone::<T>::command()
}
