//! What `ramp serve` sends: `/bytes/N` (a deterministic pattern, any size,
//! streamed without allocating N) and files under `--root`.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use bytes::Bytes;

/// Size of each chunk handed to h3.
pub(crate) const CHUNK_BYTES: usize = 64 * 1024;

/// The pattern's period: byte `i` of every `/bytes/N` body is `i % 251`
/// (a prime, so chunk and packet boundaries never line up with it and a
/// misplaced or duplicated range shows).
pub(crate) const PATTERN_PERIOD: u64 = 251;

/// Byte `offset` of a `/bytes/N` body.
pub fn pattern_byte(offset: u64) -> u8 {
    (offset % PATTERN_PERIOD) as u8
}

/// The one buffer every `/bytes/N` chunk is a slice of: [`CHUNK_BYTES`]
/// plus one period of the pattern. The HTTP/3 send path recognises slices
/// of it and hands them to quinn without copying
/// (`crate::h3_tracked`).
pub(crate) fn pattern_buffer() -> &'static Bytes {
    static BUF: OnceLock<Bytes> = OnceLock::new();
    BUF.get_or_init(|| {
        let n = CHUNK_BYTES + PATTERN_PERIOD as usize;
        Bytes::from((0..n as u64).map(pattern_byte).collect::<Vec<u8>>())
    })
}

/// Bytes `offset .. offset + len` of a pattern body (`len` ≤ [`CHUNK_BYTES`]),
/// sharing one static buffer.
pub(crate) fn pattern_chunk(offset: u64, len: usize) -> Bytes {
    let start = (offset % PATTERN_PERIOD) as usize;
    let len = len.min(CHUNK_BYTES);
    pattern_buffer().slice(start..start + len)
}

/// A response body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Body {
    /// `N` pattern bytes.
    Pattern {
        /// Length, bytes.
        len: u64,
    },
    /// A regular file under the root.
    File {
        /// Its canonical path.
        path: PathBuf,
        /// Its length, bytes.
        len: u64,
    },
}

impl Body {
    /// Content length, bytes.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Body::Pattern { len } | Body::File { len, .. } => *len,
        }
    }

    /// Whether the body is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a path does not map to a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotServed {
    /// No such object (HTTP 404).
    NotFound,
    /// A malformed path or one that leaves the root (HTTP 400).
    BadPath,
}

/// A request path with its percent-encoding (RFC 3986 §2.1) undone: a
/// client may encode any byte (`/a%20b.txt`), so the file rules below
/// must see the decoded name. A `%` not followed by two hex digits, or a
/// decoding that is not UTF-8, is a malformed path.
fn percent_decoded(path: &str) -> Result<String, NotServed> {
    let b = path.as_bytes();
    let well_formed = b.iter().enumerate().all(|(i, &c)| {
        c != b'%' || (b.get(i + 1..i + 3)).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if !well_formed {
        return Err(NotServed::BadPath);
    }
    percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| NotServed::BadPath)
}

/// Maps a request path to a body.
pub(crate) fn resolve(path: &str, root: Option<&Path>) -> Result<Body, NotServed> {
    let path = percent_decoded(path.split('?').next().unwrap_or(""))?;
    let path = path.as_str();
    if let Some(n) = path.strip_prefix("/bytes/") {
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NotServed::BadPath);
        }
        return n
            .parse::<u64>()
            .map(|len| Body::Pattern { len })
            .map_err(|_| NotServed::BadPath);
    }
    let Some(root) = root else {
        return Err(NotServed::NotFound);
    };
    let rel = path.strip_prefix('/').ok_or(NotServed::BadPath)?;
    if rel.is_empty() || rel.contains('\0') || rel.contains('\\') {
        return Err(NotServed::BadPath);
    }
    let rel = Path::new(rel);
    // Only plain names: no `..`, `.`, root or prefix components.
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(NotServed::BadPath);
    }
    let root = root.canonicalize().map_err(|_| NotServed::NotFound)?;
    let full = root
        .join(rel)
        .canonicalize()
        .map_err(|_| NotServed::NotFound)?;
    // A symlink inside the root may still point outside it.
    if !full.starts_with(&root) {
        return Err(NotServed::BadPath);
    }
    let meta = std::fs::metadata(&full).map_err(|_| NotServed::NotFound)?;
    if !meta.is_file() {
        return Err(NotServed::NotFound);
    }
    Ok(Body::File {
        path: full,
        len: meta.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_chunks_continue_the_pattern() {
        let c = pattern_chunk(1000, 300);
        for (i, &b) in c.iter().enumerate() {
            assert_eq!(b, pattern_byte(1000 + i as u64));
        }
        assert_eq!(pattern_chunk(5, CHUNK_BYTES).len(), CHUNK_BYTES);
    }

    #[test]
    fn bytes_paths() {
        assert_eq!(resolve("/bytes/10", None), Ok(Body::Pattern { len: 10 }));
        assert_eq!(resolve("/bytes/0?x=1", None), Ok(Body::Pattern { len: 0 }));
        assert_eq!(resolve("/bytes/", None), Err(NotServed::BadPath));
        assert_eq!(resolve("/bytes/-1", None), Err(NotServed::BadPath));
        assert_eq!(
            resolve("/bytes/99999999999999999999999", None),
            Err(NotServed::BadPath)
        );
        assert_eq!(resolve("/index.html", None), Err(NotServed::NotFound));
    }

    #[test]
    fn files_stay_under_the_root() {
        let dir = std::env::temp_dir().join(format!("ramp-body-{}", std::process::id()));
        let root = dir.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.txt"), b"hello").unwrap();
        std::fs::write(dir.join("secret"), b"no").unwrap();
        let r = Some(root.as_path());
        assert!(matches!(
            resolve("/sub/a.txt", r),
            Ok(Body::File { len: 5, .. })
        ));
        assert_eq!(resolve("/../secret", r), Err(NotServed::BadPath));
        assert_eq!(resolve("/sub/../../secret", r), Err(NotServed::BadPath));
        assert_eq!(resolve("/./sub/a.txt", r), Err(NotServed::BadPath));
        assert_eq!(resolve("//etc/passwd", r), Err(NotServed::BadPath));
        assert_eq!(resolve("/sub", r), Err(NotServed::NotFound));
        assert_eq!(resolve("/missing", r), Err(NotServed::NotFound));
        #[cfg(unix)]
        {
            let _ = std::os::unix::fs::symlink(dir.join("secret"), root.join("link"));
            assert_eq!(resolve("/link", r), Err(NotServed::BadPath));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn rfc3986_2_1_paths_are_percent_decoded_and_stay_under_the_root() {
        let dir = std::env::temp_dir().join(format!("ramp-body-pct-{}", std::process::id()));
        let root = dir.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a b.txt"), b"hello").unwrap();
        std::fs::write(root.join("100%.txt"), b"hi").unwrap();
        std::fs::write(dir.join("secret"), b"no").unwrap();
        let r = Some(root.as_path());
        for ok in ["/sub/a%20b.txt", "/sub%2Fa%20b.txt", "/%73ub/a b.txt"] {
            assert!(
                matches!(resolve(ok, r), Ok(Body::File { len: 5, .. })),
                "{ok}"
            );
        }
        assert!(matches!(
            resolve("/100%25.txt", r),
            Ok(Body::File { len: 2, .. })
        ));
        assert_eq!(
            resolve("/bytes/%31%30", None),
            Ok(Body::Pattern { len: 10 })
        );
        // Traversal spelt in percent-encoding, and malformed encodings: 400.
        for bad in [
            "/%2e%2e/secret",
            "/%2E%2E%2Fsecret",
            "/sub/%2e%2e/%2e%2e/secret",
            "/100%.txt",
            "/%zz",
            "/%4",
            "/%ff",
            "/a%00b",
            "/sub%5ca%20b.txt",
        ] {
            assert_eq!(resolve(bad, r), Err(NotServed::BadPath), "{bad}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
