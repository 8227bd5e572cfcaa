//! Errors: values that name the file, the line and the field at fault.

use std::fmt;

/// An error while reading input or drawing output.
///
/// Input errors carry the file (or other source name) and the 1-based line,
/// so a user can open the offending record directly.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A line of an NDJSON input is malformed or lacks a required field.
    Input {
        /// File path or other name of the input.
        source: String,
        /// 1-based line number (0 when the problem is the file as a whole).
        line: usize,
        /// What is wrong, naming the field where there is one.
        message: String,
    },
    /// Reading or writing a file failed.
    Io {
        /// The file concerned.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// The data cannot make the requested chart (e.g. no baseline arm).
    Data(String),
    /// The drawing library failed.
    Draw(String),
}

impl Error {
    /// An input error at `source:line`.
    pub fn input(source: &str, line: usize, message: impl Into<String>) -> Self {
        Error::Input {
            source: source.to_string(),
            line,
            message: message.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, err: &std::io::Error) -> Self {
        Error::Io {
            path: path.display().to_string(),
            message: err.to_string(),
        }
    }

    /// A drawing error from plotters.
    pub(crate) fn draw(err: impl fmt::Display) -> Self {
        Error::Draw(err.to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input {
                source,
                line,
                message,
            } if *line > 0 => write!(f, "{source}:{line}: {message}"),
            Error::Input {
                source, message, ..
            } => write!(f, "{source}: {message}"),
            Error::Io { path, message } => write!(f, "{path}: {message}"),
            Error::Data(message) => write!(f, "{message}"),
            Error::Draw(message) => write!(f, "drawing failed: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
