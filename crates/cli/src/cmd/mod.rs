//! One module per subcommand.

pub mod compare;
