//! Reading a whole small input file with a size cap, checked as the bytes
//! arrive.
//!
//! Some inputs are read whole before they are parsed (population files, PEM
//! certificates and keys, chart CSVs, query helper files). Each is small in
//! real use, but the path a user types can name `/dev/zero`, a FIFO or a
//! multi-gigabyte records file by mistake. [`read_capped`] stops after the
//! cap plus one byte and says so, instead of growing until the kernel kills
//! the process. Line-oriented data inputs stream instead (see
//! [`crate::lines`]).

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

/// Why [`read_capped`] returned no bytes.
#[derive(Debug)]
pub enum BoundedReadError {
    /// The file could not be opened or read.
    Io(io::Error),
    /// The file is longer than the cap.
    TooLong {
        /// The cap, bytes.
        max: u64,
        /// What the file is, for the message (e.g. "a population file").
        what: &'static str,
    },
    /// [`read_capped_to_string`] found bytes that are not UTF-8.
    NotUtf8(std::string::FromUtf8Error),
}

/// `n` bytes in the largest whole binary unit (`1 MiB`, `64 KiB`, `100 bytes`).
fn size(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

impl fmt::Display for BoundedReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundedReadError::Io(e) => e.fmt(f),
            BoundedReadError::TooLong { max, what } => {
                write!(f, "longer than the maximum of {} for {what}", size(*max))
            }
            BoundedReadError::NotUtf8(e) => write!(f, "not UTF-8 text: {e}"),
        }
    }
}

impl std::error::Error for BoundedReadError {}

/// The bytes of the file at `path`, refused once more than `max` bytes have
/// arrived; `what` names the kind of file in the error.
pub fn read_capped(path: &Path, max: u64, what: &'static str) -> Result<Vec<u8>, BoundedReadError> {
    let f = std::fs::File::open(path).map_err(BoundedReadError::Io)?;
    read_capped_from(f, max, what)
}

/// As [`read_capped`], from any reader.
pub fn read_capped_from(
    r: impl Read,
    max: u64,
    what: &'static str,
) -> Result<Vec<u8>, BoundedReadError> {
    let mut bytes = Vec::new();
    r.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(BoundedReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(BoundedReadError::TooLong { max, what });
    }
    Ok(bytes)
}

/// As [`read_capped`], for a text file.
pub fn read_capped_to_string(
    path: &Path,
    max: u64,
    what: &'static str,
) -> Result<String, BoundedReadError> {
    String::from_utf8(read_capped(path, max, what)?).map_err(BoundedReadError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_input_stops_after_the_cap_plus_one_byte() {
        let e = read_capped_from(io::repeat(0), 1 << 20, "a population file").unwrap_err();
        assert_eq!(
            e.to_string(),
            "longer than the maximum of 1 MiB for a population file"
        );
    }

    #[test]
    fn an_input_of_exactly_the_cap_is_read_whole() {
        let b = read_capped_from(&b"abcd"[..], 4, "x").unwrap();
        assert_eq!(b, b"abcd");
        assert!(read_capped_from(&b"abcde"[..], 4, "x").is_err());
    }

    #[test]
    fn dev_zero_fails_fast() {
        if !Path::new("/dev/zero").exists() {
            crate::note!("SKIPPED: dev_zero_fails_fast: no /dev/zero on this system");
            return;
        }
        let e = read_capped(Path::new("/dev/zero"), 1 << 16, "a test file").unwrap_err();
        assert!(
            matches!(e, BoundedReadError::TooLong { max: 65536, .. }),
            "{e}"
        );
        assert_eq!(size(65536), "64 KiB");
    }
}
