//! One module per subcommand.

pub mod bench;
mod bench_all;
pub mod compare;
mod compare_traces;
pub mod fleet;
pub mod get;
pub mod load;
pub mod plot;
pub mod relay;
pub mod report;
pub mod serve;
pub mod shell;
pub mod sim;
