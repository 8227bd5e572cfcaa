//! One module per subcommand.

pub mod bench;
pub mod compare;
pub mod get;
pub mod plot;
pub mod relay;
pub mod report;
pub mod serve;
pub mod sim;
