//! The library's error types (what the `ndq` binary prints is their
//! `Display`).

use core::fmt;

/// A query that does not compile; the message names the position, the
/// helper file or the construct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError(pub String);

/// Partial aggregation states (`--emit-partial` output) that cannot be read
/// or merged: written by another query, another version, or damaged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateError(pub String);

macro_rules! message_error {
    ($t:ident) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::error::Error for $t {}

        impl From<String> for $t {
            fn from(message: String) -> $t {
                $t(message)
            }
        }

        impl From<&str> for $t {
            fn from(message: &str) -> $t {
                $t(message.to_string())
            }
        }
    };
}

message_error!(CompileError);
message_error!(StateError);
