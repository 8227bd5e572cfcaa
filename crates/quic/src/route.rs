//! What a request maps to, for every server protocol: the method and path
//! rules (405 / 400 / 404) and the body streamed in bounded chunks.
//!
//! Both servers use this module: HTTP/2 ([`crate::h2`]) and HTTP/3
//! ([`crate::server`]), so they answer every request alike.

use std::path::Path;

use bytes::{Bytes, BytesMut};
use http::{Method, StatusCode};
use tokio::io::AsyncReadExt;

use crate::body::{self, Body, NotServed, CHUNK_BYTES};

/// The body for `method path`, or the error status to answer with:
/// 405 for anything but GET and HEAD (RFC 9110 §15.5.6), 400 for a
/// malformed path or one leaving the root, 404 for no such object.
pub(crate) fn route(method: &Method, path: &str, root: Option<&Path>) -> Result<Body, StatusCode> {
    if method != Method::GET && method != Method::HEAD {
        return Err(StatusCode::METHOD_NOT_ALLOWED);
    }
    body::resolve(path, root).map_err(|e| match e {
        NotServed::NotFound => StatusCode::NOT_FOUND,
        NotServed::BadPath => StatusCode::BAD_REQUEST,
    })
}

/// Reads a [`Body`] as chunks of at most [`CHUNK_BYTES`], so a response of
/// any size holds at most one chunk in memory here.
pub(crate) struct Chunks {
    source: Source,
    left_bytes: u64,
}

enum Source {
    Pattern { offset: u64 },
    File { file: tokio::fs::File, path: String },
}

impl Chunks {
    /// Opens the body (the file, for [`Body::File`]); the error names the
    /// file.
    pub(crate) async fn open(body: &Body) -> std::io::Result<Chunks> {
        let source = match body {
            Body::Pattern { .. } => Source::Pattern { offset: 0 },
            Body::File { path, .. } => Source::File {
                file: tokio::fs::File::open(path).await.map_err(|e| {
                    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
                })?,
                path: path.display().to_string(),
            },
        };
        Ok(Chunks {
            source,
            left_bytes: body.len(),
        })
    }

    /// Bytes not yet returned.
    pub(crate) fn left_bytes(&self) -> u64 {
        self.left_bytes
    }

    /// The next chunk, `None` at the end. A file that shrinks while being
    /// sent is an error (the Content-Length already went out).
    pub(crate) async fn next(&mut self) -> std::io::Result<Option<Bytes>> {
        if self.left_bytes == 0 {
            return Ok(None);
        }
        let want = self.left_bytes.min(CHUNK_BYTES as u64) as usize;
        let chunk = match &mut self.source {
            Source::Pattern { offset } => {
                let c = body::pattern_chunk(*offset, want);
                *offset += c.len() as u64;
                c
            }
            Source::File { file, path } => {
                let mut buf = BytesMut::with_capacity(want);
                let n = file
                    .read_buf(&mut buf)
                    .await
                    .map_err(|e| std::io::Error::new(e.kind(), format!("{path}: {e}")))?;
                if n == 0 {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!("{path}: file shrank while being sent"),
                    ));
                }
                buf.truncate(want);
                buf.freeze()
            }
        };
        self.left_bytes -= chunk.len() as u64;
        Ok(Some(chunk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::pattern_byte;

    #[test]
    fn rfc9110_15_5_6_methods_other_than_get_and_head_get_405() {
        for m in [Method::POST, Method::PUT, Method::DELETE, Method::OPTIONS] {
            assert_eq!(
                route(&m, "/bytes/10", None),
                Err(StatusCode::METHOD_NOT_ALLOWED)
            );
        }
        assert!(route(&Method::HEAD, "/bytes/10", None).is_ok());
    }

    #[test]
    fn bad_and_missing_paths() {
        assert_eq!(
            route(&Method::GET, "/bytes/x", None),
            Err(StatusCode::BAD_REQUEST)
        );
        assert_eq!(
            route(&Method::GET, "/nothing", None),
            Err(StatusCode::NOT_FOUND)
        );
    }

    #[tokio::test]
    async fn pattern_chunks_cover_the_body_once() {
        let len = 3 * CHUNK_BYTES as u64 + 17;
        let mut c = Chunks::open(&Body::Pattern { len }).await.unwrap();
        let mut off = 0u64;
        while let Some(chunk) = c.next().await.unwrap() {
            assert!(chunk.len() <= CHUNK_BYTES);
            for (i, &b) in chunk.iter().enumerate() {
                assert_eq!(b, pattern_byte(off + i as u64));
            }
            off += chunk.len() as u64;
        }
        assert_eq!(off, len);
        assert_eq!(c.left_bytes(), 0);
    }
}
