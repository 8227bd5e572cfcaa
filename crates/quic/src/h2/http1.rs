//! HTTP/1.1 (RFC 9112) on the `ramp serve --h2` TCP listener, for
//! clients that ask for ALPN `http/1.1` or for no protocol at all
//! (RFC 7301 §3.2 leaves the choice to the server; HTTP/1.1 is the
//! default over TLS, RFC 9112 §1). It serves the same routes as HTTP/2
//! and HTTP/3 (`crate::route`), so a kernel-TCP download over plain
//! HTTP/1.1 is compared with the other two on the same server.
//!
//! Only what a download needs: GET and HEAD, persistent connections
//! (RFC 9112 §9.3), pipelined requests answered in order. A request with
//! a body is refused (400) and the connection closed, since no route
//! takes one and skipping it would need the full framing rules.

use std::path::Path;
use std::time::Duration;

use http::{Method, StatusCode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::route::{self, Chunks};

/// Largest request head (request line and headers) read; a larger one is
/// answered with 431 (RFC 6585 §5) and the connection closed.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// How long a persistent connection may sit idle between requests.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// The parts of a request head the server acts on.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct RequestHead {
    pub(crate) method: Method,
    /// The path of the origin-form target, without the query.
    pub(crate) path: String,
    /// The client asked to close after this response (RFC 9112 §9.3), or
    /// spoke HTTP/1.0, whose connections are not persistent by default.
    pub(crate) close: bool,
}

/// Why a request head was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum HeadError {
    /// Not parseable as RFC 9112 §3 request line and §5 fields.
    Malformed(&'static str),
    /// An HTTP/1.1 request without a Host field (RFC 9112 §3.2: 400).
    NoHost,
    /// The request has a body (Content-Length other than 0, or
    /// Transfer-Encoding; RFC 9112 §6.1, §6.2).
    HasBody,
}

/// The offset just past the blank line ending a head in `buf`, if the
/// head is complete. A bare LF is accepted as a line end (RFC 9112 §2.2).
pub(crate) fn head_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(lf) = buf[i..].iter().position(|&b| b == b'\n') {
        let line_start = i;
        i += lf + 1;
        let line = &buf[line_start..i - 1];
        if line.is_empty() || line == b"\r" {
            // A blank line before any request line is skipped as RFC 9112
            // §2.2 allows; it does not end a head.
            if line_start > 0 && !buf[..line_start].iter().all(|&b| b == b'\r' || b == b'\n') {
                return Some(i);
            }
        }
    }
    None
}

/// Parses a complete head (as found by [`head_end`]).
pub(crate) fn parse_head(head: &[u8]) -> Result<RequestHead, HeadError> {
    let text = std::str::from_utf8(head).map_err(|_| HeadError::Malformed("not UTF-8"))?;
    let mut lines = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .skip_while(|l| l.is_empty());
    let request_line = lines
        .next()
        .ok_or(HeadError::Malformed("no request line"))?;
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(HeadError::Malformed(
            "request line is not METHOD TARGET VERSION",
        ));
    };
    let http11 = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => return Err(HeadError::Malformed("version is not HTTP/1.1 or HTTP/1.0")),
    };
    let method =
        Method::from_bytes(method.as_bytes()).map_err(|_| HeadError::Malformed("bad method"))?;
    if !target.starts_with('/') {
        // Only origin-form (RFC 9112 §3.2.1): this is not a proxy.
        return Err(HeadError::Malformed("target is not origin-form"));
    }
    let path = target
        .split(['?', '#'])
        .next()
        .unwrap_or(target)
        .to_string();
    let mut host = false;
    let mut close = !http11;
    for line in lines.take_while(|l| !l.is_empty()) {
        let (name, value) = line
            .split_once(':')
            .ok_or(HeadError::Malformed("field line without a colon"))?;
        if name.is_empty() || name.ends_with([' ', '\t']) {
            // RFC 9112 §5.1: no whitespace between name and colon.
            return Err(HeadError::Malformed("bad field name"));
        }
        let value = value.trim_matches([' ', '\t']);
        let tokens = || value.split(',').map(|t| t.trim().to_ascii_lowercase());
        match name.to_ascii_lowercase().as_str() {
            "host" => host = true,
            "connection" => {
                if tokens().any(|t| t == "close") {
                    close = true;
                } else if tokens().any(|t| t == "keep-alive") && !http11 {
                    close = false;
                }
            }
            "content-length" if value.trim() != "0" => return Err(HeadError::HasBody),
            "transfer-encoding" => return Err(HeadError::HasBody),
            _ => {}
        }
    }
    if http11 && !host {
        return Err(HeadError::NoHost);
    }
    Ok(RequestHead {
        method,
        path,
        close,
    })
}

/// The status line and fields of a response (RFC 9112 §4, §6.2).
fn response_head(status: StatusCode, content_length: u64, close: bool) -> String {
    let mut h = format!(
        "HTTP/1.1 {} {}\r\ncontent-length: {content_length}\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    if status == StatusCode::OK {
        h.push_str("content-type: application/octet-stream\r\n");
    }
    if close {
        h.push_str("connection: close\r\n");
    }
    h.push_str("\r\n");
    h
}

/// What one connection did, for the server's counters.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ConnOutcome {
    /// Responses written completely (any status).
    pub(crate) ok: u64,
    /// Responses that failed part-way (connection lost, file error).
    pub(crate) failed: u64,
}

/// Serves requests on one connection until the client closes it, asks to
/// close, idles for [`IDLE_TIMEOUT`] or sends something unparseable.
pub(crate) async fn serve_connection<S>(mut io: S, root: Option<&Path>) -> ConnOutcome
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut out = ConnOutcome::default();
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    loop {
        // Read until a whole head is buffered (pipelined requests may
        // already be there).
        let end = loop {
            if let Some(end) = head_end(&buf) {
                break Some(end);
            }
            if buf.len() > MAX_HEAD_BYTES {
                break None;
            }
            let mut chunk = [0u8; 4096];
            match tokio::time::timeout(IDLE_TIMEOUT, io.read(&mut chunk)).await {
                Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return out,
                Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let Some(end) = end else {
            let _ = refuse(&mut io, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE).await;
            out.ok += 1;
            return out;
        };
        let parsed = parse_head(&buf[..end]);
        buf.drain(..end);
        let head = match parsed {
            Ok(h) => h,
            Err(_) => {
                // Framing is unknown past a bad head: answer and close.
                if refuse(&mut io, StatusCode::BAD_REQUEST).await.is_ok() {
                    out.ok += 1;
                }
                return out;
            }
        };
        match respond(&mut io, &head, root).await {
            Ok(()) => out.ok += 1,
            Err(_) => {
                out.failed += 1;
                return out;
            }
        }
        if head.close {
            let _ = io.shutdown().await;
            return out;
        }
    }
}

/// Answers `status` with an empty body and `connection: close`.
async fn refuse<S: AsyncWrite + Unpin>(io: &mut S, status: StatusCode) -> std::io::Result<()> {
    io.write_all(response_head(status, 0, true).as_bytes())
        .await?;
    io.flush().await?;
    io.shutdown().await
}

async fn respond<S: AsyncWrite + Unpin>(
    io: &mut S,
    head: &RequestHead,
    root: Option<&Path>,
) -> std::io::Result<()> {
    let body = match route::route(&head.method, &head.path, root) {
        Ok(b) => b,
        Err(status) => {
            io.write_all(response_head(status, 0, head.close).as_bytes())
                .await?;
            return io.flush().await;
        }
    };
    let mut chunks = match Chunks::open(&body).await {
        Ok(c) => c,
        Err(e) => {
            io.write_all(
                response_head(StatusCode::INTERNAL_SERVER_ERROR, 0, head.close).as_bytes(),
            )
            .await?;
            io.flush().await?;
            return Err(e);
        }
    };
    io.write_all(response_head(StatusCode::OK, body.len(), head.close).as_bytes())
        .await?;
    if head.method != Method::HEAD {
        while let Some(chunk) = chunks.next().await? {
            io.write_all(&chunk).await?;
        }
    }
    io.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::pattern_byte;

    fn parse(s: &str) -> Result<RequestHead, HeadError> {
        let end = head_end(s.as_bytes()).expect("complete head");
        parse_head(&s.as_bytes()[..end])
    }

    #[test]
    fn rfc9112_3_request_line_and_path() {
        let h = parse("GET /bytes/10?x=1 HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
        assert_eq!(h.method, Method::GET);
        assert_eq!(h.path, "/bytes/10");
        assert!(!h.close);
        assert!(parse("GET /x HTTP/2.0\r\nHost: a\r\n\r\n").is_err());
        assert!(parse("GET  /x HTTP/1.1\r\nHost: a\r\n\r\n").is_err());
        assert!(parse("GET http://a/x HTTP/1.1\r\nHost: a\r\n\r\n").is_err());
    }

    #[test]
    fn rfc9112_2_2_bare_lf_and_leading_blank_lines() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\r\n"), None);
        let h = parse("\r\nGET /bytes/1 HTTP/1.1\nHost: a\n\n").unwrap();
        assert_eq!(h.path, "/bytes/1");
    }

    #[test]
    fn rfc9112_3_2_http11_without_host_is_400() {
        assert_eq!(parse("GET / HTTP/1.1\r\n\r\n"), Err(HeadError::NoHost));
        assert!(parse("GET / HTTP/1.0\r\n\r\n").is_ok());
    }

    #[test]
    fn rfc9112_5_1_no_space_before_colon() {
        assert!(parse("GET / HTTP/1.1\r\nHost : a\r\n\r\n").is_err());
    }

    #[test]
    fn rfc9112_9_3_persistence() {
        assert!(
            parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Close\r\n\r\n")
                .unwrap()
                .close
        );
        assert!(parse("GET / HTTP/1.0\r\n\r\n").unwrap().close);
        assert!(
            !parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                .unwrap()
                .close
        );
    }

    #[test]
    fn rfc9112_6_requests_with_bodies_refused() {
        assert_eq!(
            parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n"),
            Err(HeadError::HasBody)
        );
        assert_eq!(
            parse("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"),
            Err(HeadError::HasBody)
        );
        assert!(parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n").is_ok());
    }

    /// Splits a response stream into (head, body) by Content-Length.
    fn split_response(buf: &[u8]) -> (String, &[u8], &[u8]) {
        let end = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let head = String::from_utf8(buf[..end].to_vec()).unwrap();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .unwrap()
            .parse()
            .unwrap();
        (head, &buf[end..end + len], &buf[end + len..])
    }

    #[tokio::test]
    async fn pipelined_requests_answered_in_order_then_close() {
        let (client, server) = tokio::io::duplex(1 << 20);
        let task = tokio::spawn(async move { serve_connection(server, None).await });
        let (mut rd, mut wr) = tokio::io::split(client);
        wr.write_all(
            b"GET /bytes/300000 HTTP/1.1\r\nHost: a\r\n\r\n\
              POST /bytes/1 HTTP/1.1\r\nHost: a\r\n\r\n\
              HEAD /bytes/7 HTTP/1.1\r\nHost: a\r\n\r\n\
              GET /nope HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        )
        .await
        .unwrap();
        let mut all = Vec::new();
        rd.read_to_end(&mut all).await.unwrap();
        let (h, body, rest) = split_response(&all);
        assert!(h.starts_with("HTTP/1.1 200 OK\r\n"), "{h}");
        assert_eq!(body.len(), 300_000);
        assert!(body
            .iter()
            .enumerate()
            .all(|(i, &b)| b == pattern_byte(i as u64)));
        let (h, _, rest) = split_response(rest);
        assert!(h.starts_with("HTTP/1.1 405 "), "{h}");
        // HEAD: the length of the GET, no body.
        let end = rest.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let head = std::str::from_utf8(&rest[..end]).unwrap();
        assert!(
            head.starts_with("HTTP/1.1 200 OK\r\ncontent-length: 7\r\n"),
            "{head}"
        );
        let (h, body, rest) = split_response(&rest[end..]);
        assert!(h.starts_with("HTTP/1.1 404 "), "{h}");
        assert!(h.contains("connection: close"), "{h}");
        assert!(body.is_empty() && rest.is_empty());
        assert_eq!(task.await.unwrap(), ConnOutcome { ok: 4, failed: 0 });
    }

    #[tokio::test]
    async fn bad_and_oversized_heads_get_an_error_and_close() {
        for (req, status) in [
            (b"GET / HTTP/1.1\r\n\r\n".to_vec(), "400"),
            (
                [
                    b"GET / HTTP/1.1\r\nX: ".to_vec(),
                    vec![b'a'; MAX_HEAD_BYTES + 10],
                ]
                .concat(),
                "431",
            ),
        ] {
            let (client, server) = tokio::io::duplex(1 << 20);
            let task = tokio::spawn(async move { serve_connection(server, None).await });
            let (mut rd, mut wr) = tokio::io::split(client);
            wr.write_all(&req).await.unwrap();
            let mut all = Vec::new();
            rd.read_to_end(&mut all).await.unwrap();
            let text = String::from_utf8_lossy(&all);
            assert!(text.starts_with(&format!("HTTP/1.1 {status} ")), "{text}");
            task.await.unwrap();
        }
    }
}
