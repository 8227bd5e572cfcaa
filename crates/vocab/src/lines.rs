//! Input lines with a maximum length, checked as the bytes arrive.
//!
//! Every ramp tool that reads line-oriented input (ndq, the chart and
//! report readers) refuses a line longer than [`MAX_LINE_BYTES`] once that
//! many bytes have arrived without a newline, so a newline-less stream
//! (`/dev/zero`, a binary file given by mistake) ends in one error naming
//! the input and line instead of taking all memory. [`CappedLines`] is the
//! reader; ndq's chunker, which cuts many lines at a time, applies the same
//! bound and error ([`LineTooLong`]) while it extends a chunk to a newline.

use std::fmt;
use std::io::{self, BufRead};

/// The longest input line: 64 MiB. ramp's own records are about 1.2 KB
/// and trace events under 200 bytes; DuckDB's JSON reader stops at 16 MB
/// by default.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// A line passed the maximum length before its newline arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineTooLong {
    /// The 1-based number of the line.
    pub line: u64,
    /// The maximum it passed, bytes.
    pub max: usize,
}

impl fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.max >= 1 << 20 && self.max.is_multiple_of(1 << 20) {
            write!(f, "line longer than the maximum of {} MiB", self.max >> 20)
        } else {
            write!(f, "line longer than the maximum of {} bytes", self.max)
        }
    }
}

impl std::error::Error for LineTooLong {}

/// Why [`CappedLines::next_line`] gave no line.
#[derive(Debug)]
pub enum LineError {
    /// The reader failed.
    Io(io::Error),
    /// The line passed the maximum length.
    TooLong(LineTooLong),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Io(e) => e.fmt(f),
            LineError::TooLong(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LineError {}

/// The lines of a reader, each at most `max` bytes (newline excluded).
///
/// Lines end at `\n`; a `\r` before it is removed, as [`str::lines`] does.
/// The last line needs no newline. Numbering starts at 1.
pub struct CappedLines<R> {
    reader: R,
    max: usize,
    line: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> CappedLines<R> {
    /// Lines of `reader` of at most `max` bytes ([`MAX_LINE_BYTES`] is the
    /// usual bound).
    pub fn new(reader: R, max: usize) -> Self {
        CappedLines {
            reader,
            max,
            line: 0,
            buf: Vec::new(),
        }
    }

    /// The next line and its number, or `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<(u64, &[u8])>, LineError> {
        self.buf.clear();
        let mut any = false;
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(LineError::Io(e)),
            };
            if avail.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let (take, done) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            // Checked before the bytes are kept: memory stays under `max`
            // plus one read buffer however long the line is.
            if self.buf.len() + take > self.max {
                return Err(LineError::TooLong(LineTooLong {
                    line: self.line + 1,
                    max: self.max,
                }));
            }
            self.buf.extend_from_slice(&avail[..take]);
            self.reader.consume(take + usize::from(done));
            if done {
                break;
            }
        }
        self.line += 1;
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        Ok(Some((self.line, &self.buf)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    fn all(text: &[u8], max: usize, chunk: usize) -> Result<Vec<(u64, Vec<u8>)>, LineError> {
        let mut l = CappedLines::new(BufReader::with_capacity(chunk, text), max);
        let mut out = Vec::new();
        while let Some((n, line)) = l.next_line()? {
            out.push((n, line.to_vec()));
        }
        Ok(out)
    }

    #[test]
    fn lines_as_str_lines_splits_them_at_any_read_size() {
        let text = b"a\r\nbb\n\nccc";
        let want: Vec<(u64, Vec<u8>)> = std::str::from_utf8(text)
            .unwrap()
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u64 + 1, l.as_bytes().to_vec()))
            .collect();
        for chunk in 1..12 {
            assert_eq!(all(text, 3, chunk).unwrap(), want, "read size {chunk}");
        }
    }

    #[test]
    fn a_line_past_the_maximum_is_refused_naming_its_number() {
        for chunk in [1, 2, 7, 64] {
            match all(b"abc\nabcd\n", 3, chunk) {
                Err(LineError::TooLong(e)) => assert_eq!(e, LineTooLong { line: 2, max: 3 }),
                other => panic!("read size {chunk}: {other:?}"),
            }
        }
        assert_eq!(
            LineTooLong {
                line: 1,
                max: MAX_LINE_BYTES
            }
            .to_string(),
            "line longer than the maximum of 64 MiB"
        );
    }

    #[test]
    fn an_endless_newline_less_stream_ends_after_the_maximum() {
        // io::repeat never ends: only the bound can stop the read.
        let endless = BufReader::new(io::repeat(0).take(u64::MAX));
        let mut l = CappedLines::new(endless, 1 << 16);
        assert!(matches!(l.next_line(), Err(LineError::TooLong(_))));
    }
}
