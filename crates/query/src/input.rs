//! Inputs cut into newline-aligned chunks.
//!
//! Plain files are memory-mapped; `.gz`, `.zst`, stdin and anything that
//! cannot be mapped are streamed. Either way a chunk is "the next
//! [`CHUNK_BYTES`] bytes, cut after their last newline" (longer if one line
//! is longer), so chunk boundaries depend only on the data, never on the
//! thread count: this is what makes `-P 1` and `-P N` results bit-identical.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;

/// Target chunk size.
pub const CHUNK_BYTES: usize = 4 << 20;

/// An input named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file path (decompressed by extension).
    File(PathBuf),
    /// Standard input.
    Stdin,
    /// Text already in memory (`run_str`, notebooks), named for errors.
    Memory(String, Arc<[u8]>),
}

impl Source {
    /// The name used in error messages.
    pub fn name(&self) -> String {
        match self {
            Source::File(p) => p.display().to_string(),
            Source::Stdin => "<stdin>".into(),
            Source::Memory(name, _) => name.clone(),
        }
    }
}

/// Why the file arguments cannot be expanded.
#[derive(Debug)]
pub enum InputError {
    /// A wildcard pattern that matches no file.
    NoMatch(String),
    /// A wildcard outside the file name (`logs/*/a.ndjson`).
    WildcardInDirectory(String),
    /// The pattern's directory could not be listed.
    ReadDir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        error: io::Error,
    },
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::NoMatch(pat) => write!(f, "{pat}: no file matches this pattern"),
            InputError::WildcardInDirectory(pat) => {
                write!(f, "{pat}: wildcards are supported in the file name only")
            }
            InputError::ReadDir { dir, error } => write!(f, "{}: {error}", dir.display()),
        }
    }
}

impl std::error::Error for InputError {}

/// Expands glob patterns (`*`, `?`, `[...]`) in arguments the shell left
/// unexpanded; `-` is stdin; no arguments means stdin.
pub fn expand(args: &[String]) -> Result<Vec<Source>, InputError> {
    if args.is_empty() {
        return Ok(vec![Source::Stdin]);
    }
    let mut out = Vec::new();
    for a in args {
        if a == "-" {
            out.push(Source::Stdin);
        } else if a.contains(['*', '?', '[']) && !Path::new(a).exists() {
            let mut hits = glob_paths(a)?;
            if hits.is_empty() {
                return Err(InputError::NoMatch(a.clone()));
            }
            hits.sort();
            out.extend(hits.into_iter().map(Source::File));
        } else {
            out.push(Source::File(PathBuf::from(a)));
        }
    }
    Ok(out)
}

fn glob_paths(pat: &str) -> Result<Vec<PathBuf>, InputError> {
    let path = Path::new(pat);
    let (dir, name) = match (path.parent(), path.file_name()) {
        (Some(d), Some(n)) if !d.as_os_str().is_empty() => {
            (d.to_path_buf(), n.to_string_lossy().into_owned())
        }
        _ => (PathBuf::from("."), pat.to_string()),
    };
    if dir.to_string_lossy().contains(['*', '?', '[']) {
        return Err(InputError::WildcardInDirectory(pat.to_string()));
    }
    let rd = std::fs::read_dir(&dir).map_err(|error| InputError::ReadDir {
        dir: dir.clone(),
        error,
    })?;
    let mut out = Vec::new();
    for ent in rd.flatten() {
        let n = ent.file_name().to_string_lossy().into_owned();
        if wildcard(name.as_bytes(), n.as_bytes()) {
            out.push(if dir == Path::new(".") && !pat.starts_with("./") {
                PathBuf::from(n)
            } else {
                dir.join(n)
            });
        }
    }
    Ok(out)
}

/// Shell-style wildcard match.
fn wildcard(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => wildcard(&p[1..], s) || (!s.is_empty() && wildcard(p, &s[1..])),
        (Some(b'?'), Some(_)) => wildcard(&p[1..], &s[1..]),
        (Some(b'['), Some(c)) => match p.iter().position(|&b| b == b']') {
            Some(end) if end > 1 => {
                let set = &p[1..end];
                let (neg, set) = if set[0] == b'!' || set[0] == b'^' {
                    (true, &set[1..])
                } else {
                    (false, set)
                };
                let mut hit = false;
                let mut i = 0;
                while i < set.len() {
                    if i + 2 < set.len() && set[i + 1] == b'-' {
                        hit |= (set[i]..=set[i + 2]).contains(c);
                        i += 3;
                    } else {
                        hit |= set[i] == *c;
                        i += 1;
                    }
                }
                hit != neg && wildcard(&p[end + 1..], &s[1..])
            }
            _ => false,
        },
        (Some(a), Some(b)) => a == b && wildcard(&p[1..], &s[1..]),
        _ => false,
    }
}

/// Chunk bytes: a range of a mapped file or an owned buffer.
#[derive(Debug)]
pub enum ChunkData {
    /// Part of a memory-mapped file.
    Mapped(Arc<Mmap>, usize, usize),
    /// A streamed buffer.
    Owned(Vec<u8>),
}

/// A newline-aligned piece of one input.
#[derive(Debug)]
pub struct Chunk {
    /// The bytes.
    pub data: ChunkData,
    /// Index of the source in the input list.
    pub source: usize,
    /// 1-based line number of the chunk's first line, when known up front
    /// (streams); mapped files count lines only when reporting an error.
    pub first_line: Option<u64>,
    /// Byte offset of the chunk in the (decompressed) input.
    pub offset: u64,
}

impl Chunk {
    /// The chunk's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            ChunkData::Mapped(m, a, b) => m.get(*a..*b).unwrap_or(&[]),
            ChunkData::Owned(v) => v,
        }
    }

    /// Maps the chunk's pages in one call (Linux `MADV_POPULATE_READ`), run
    /// by the worker that is about to read them: far fewer page faults than
    /// touching a cold mapping, and the work is spread over the threads.
    /// Best effort; older kernels simply fault as usual.
    pub fn prefault(&self) {
        #[cfg(target_os = "linux")]
        if let ChunkData::Mapped(m, a, b) = &self.data {
            let _ = m.advise_range(memmap2::Advice::PopulateRead, *a, b - a);
        }
    }

    /// 1-based line number of the byte at `pos` within this chunk.
    pub fn line_of(&self, pos: usize) -> u64 {
        let here = self
            .bytes()
            .get(..pos)
            .map_or(0, |b| memchr::memchr_iter(b'\n', b).count()) as u64;
        match (&self.data, self.first_line) {
            (_, Some(l)) => l + here,
            (ChunkData::Mapped(m, a, _), None) => {
                memchr::memchr_iter(b'\n', m.get(..*a).unwrap_or(&[])).count() as u64 + 1 + here
            }
            (ChunkData::Owned(_), None) => 1 + here,
        }
    }
}

enum Open {
    Mapped(Arc<Mmap>, usize),
    Stream(Box<dyn Read + Send>, Vec<u8>, bool, u64),
}

/// Yields the chunks of all sources in order.
pub struct Chunks {
    sources: Vec<Source>,
    next_source: usize,
    cur: Option<(usize, Open)>,
    offset: u64,
    chunk_bytes: usize,
}

impl Chunks {
    /// Chunks of about `chunk_bytes` over `sources` ([`CHUNK_BYTES`] is the default).
    pub fn new(sources: Vec<Source>, chunk_bytes: usize) -> Self {
        Chunks {
            sources,
            next_source: 0,
            cur: None,
            offset: 0,
            chunk_bytes: chunk_bytes.max(1),
        }
    }

    /// The sources.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    fn open(src: &Source) -> io::Result<Open> {
        let stream = |r: Box<dyn Read + Send>| Ok(Open::Stream(r, Vec::new(), false, 1));
        match src {
            Source::Stdin => stream(Box::new(io::stdin())),
            Source::Memory(_, bytes) => stream(Box::new(io::Cursor::new(bytes.clone()))),
            Source::File(p) => {
                let f = File::open(p)?;
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
                match ext {
                    "gz" => stream(Box::new(flate2::read::MultiGzDecoder::new(
                        io::BufReader::with_capacity(1 << 20, f),
                    ))),
                    "zst" | "zstd" => stream(Box::new(zstd::Decoder::new(f)?)),
                    _ => {
                        let meta = f.metadata()?;
                        if meta.is_file() && meta.len() > 0 {
                            // SAFETY: the map is read-only; if another process
                            // truncates the file while we read it we may see
                            // SIGBUS, the documented caveat of mapping files
                            // (the same trade-off ripgrep makes).
                            match unsafe { Mmap::map(&f) } {
                                Ok(m) => return Ok(Open::Mapped(Arc::new(m), 0)),
                                Err(_) => return stream(Box::new(f)),
                            }
                        }
                        stream(Box::new(f))
                    }
                }
            }
        }
    }

    /// The next chunk, or `None` at the end of all inputs. Errors name the source.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, ChunkError> {
        loop {
            if self.cur.is_none() {
                if self.next_source >= self.sources.len() {
                    return Ok(None);
                }
                let i = self.next_source;
                self.next_source += 1;
                let o = Self::open(&self.sources[i])
                    .map_err(|e| ChunkError::Io(format!("{}: {e}", self.sources[i].name())))?;
                self.cur = Some((i, o));
                self.offset = 0;
            }
            let Some((src, open)) = self.cur.as_mut() else {
                continue;
            };
            let src = *src;
            match open {
                Open::Mapped(m, pos) => {
                    let len = m.len();
                    if *pos >= len {
                        self.cur = None;
                        continue;
                    }
                    let start = *pos;
                    let end = cut(&m[..], start, self.chunk_bytes);
                    *pos = end;
                    self.offset = end as u64;
                    return Ok(Some(Chunk {
                        data: ChunkData::Mapped(m.clone(), start, end),
                        source: src,
                        first_line: None,
                        offset: start as u64,
                    }));
                }
                Open::Stream(r, carry, eof, line) => {
                    let mut buf = std::mem::take(carry);
                    let name = self.sources[src].name();
                    let chunk = self.chunk_bytes;
                    // Fill to exactly chunk (or EOF) so cut points do
                    // not depend on how the reader returns data, then cut as
                    // `cut` does for mapped files.
                    fill(r, &mut buf, chunk, eof)
                        .map_err(|e| ChunkError::Io(format!("{name}: {e}")))?;
                    if buf.is_empty() {
                        self.cur = None;
                        continue;
                    }
                    let end = if *eof && buf.len() <= chunk {
                        buf.len()
                    } else if let Some(i) = memchr::memrchr(b'\n', &buf[..chunk.min(buf.len())]) {
                        i + 1
                    } else {
                        // One line longer than a chunk: read to its end.
                        let mut from = chunk.min(buf.len());
                        loop {
                            if let Some(i) = memchr::memchr(b'\n', &buf[from..]) {
                                break from + i + 1;
                            }
                            if *eof {
                                break buf.len();
                            }
                            if buf.len() > MAX_LINE_BYTES {
                                // Checked as the bytes arrive: a newline-less
                                // stream (`/dev/zero`) must not take all memory.
                                // The bound and message are ramp-vocab's, as
                                // for every line reader of ramp's.
                                let e = LineTooLong {
                                    line: *line,
                                    max: MAX_LINE_BYTES,
                                };
                                return Err(ChunkError::Data(format!("{name}:{line}: {e}")));
                            }
                            from = buf.len();
                            let want = buf.len() + chunk;
                            fill(r, &mut buf, want, eof)
                                .map_err(|e| ChunkError::Io(format!("{name}: {e}")))?;
                        }
                    };
                    *carry = buf.split_off(end);
                    let first = *line;
                    *line += memchr::memchr_iter(b'\n', &buf).count() as u64;
                    let offset = self.offset;
                    self.offset += buf.len() as u64;
                    return Ok(Some(Chunk {
                        data: ChunkData::Owned(buf),
                        source: src,
                        first_line: Some(first),
                        offset,
                    }));
                }
            }
        }
    }
}

/// Why the next chunk could not be read.
#[derive(Debug)]
pub enum ChunkError {
    /// A source could not be opened or read.
    Io(String),
    /// The input itself is bad (a line past [`MAX_LINE_BYTES`]).
    Data(String),
}

use ramp_vocab::lines::LineTooLong;
/// The longest input line a stream may have: ramp-vocab's one bound for
/// every line reader. A mapped file is not copied, so only streams need it.
pub use ramp_vocab::lines::MAX_LINE_BYTES;

/// Reads until `buf` holds `want` bytes or the reader ends.
fn fill(
    r: &mut Box<dyn Read + Send>,
    buf: &mut Vec<u8>,
    want: usize,
    eof: &mut bool,
) -> io::Result<()> {
    while buf.len() < want && !*eof {
        let old = buf.len();
        buf.resize(want, 0);
        match r.read(&mut buf[old..]) {
            Ok(0) => {
                buf.truncate(old);
                *eof = true;
            }
            Ok(n) => buf.truncate(old + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(old),
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// End of the chunk starting at `start`: after the last newline within
/// `size` bytes, or after the first newline beyond if a line is longer.
fn cut(b: &[u8], start: usize, size: usize) -> usize {
    let lim = start.saturating_add(size).min(b.len());
    if lim == b.len() {
        return lim;
    }
    match memchr::memrchr(b'\n', &b[start..lim]) {
        Some(i) => start + i + 1,
        None => memchr::memchr(b'\n', &b[lim..]).map_or(b.len(), |i| lim + i + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(wildcard(b"*.ndjson", b"a.ndjson"));
        assert!(wildcard(b"log-[0-9].gz", b"log-7.gz"));
        assert!(!wildcard(b"log-[!0-9].gz", b"log-7.gz"));
        assert!(wildcard(b"a?c", b"abc"));
        assert!(!wildcard(b"a?c", b"ac"));
    }

    #[test]
    fn cut_is_newline_aligned() {
        let b = b"aa\nbbbb\ncc\n";
        assert_eq!(cut(b, 0, 5), 3);
        assert_eq!(cut(b, 0, 1), 3);
        assert_eq!(cut(b, 3, 100), b.len());
    }
}
