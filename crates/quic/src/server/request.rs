//! One request: resolve it, send the response, wait until every byte
//! is acknowledged, then write its record.

use std::sync::atomic::Ordering;
use std::time::Instant;

use bytes::Bytes;
use http::{Method, Response, StatusCode};

use crate::h3_tracked::{AckTimes, SendEnd, TrackedBidi, TrackedConnection};
use crate::probe::ConnProbe;
use crate::route::{self, Chunks};

use super::record::{record, Baseline, ConnState};
use super::Shared;

/// The outcome of one request, for its record.
pub(super) struct Outcome {
    /// Counters at the start (zero for a connection's first request, whose
    /// record includes the handshake, as the simulator's does).
    pub(super) base: Baseline,
    pub(super) status: StatusCode,
    pub(super) path: String,
    pub(super) content_length: u64,
    pub(super) started: Instant,
    /// When the last byte was acknowledged; `None` if it never was.
    pub(super) acked_at: Option<Instant>,
    /// The connection at `acked_at`.
    pub(super) at_ack: Option<ConnState>,
    pub(super) error: Option<String>,
}

/// A connection's acknowledgement tracking, with the connection's state
/// at each response's last acknowledgement.
pub(super) type Acks = AckTimes<ConnState>;
type Resolver = h3::server::RequestResolver<TrackedConnection<ConnState>, Bytes>;
type Stream = h3::server::RequestStream<TrackedBidi<Bytes>, Bytes>;

/// Which connection and which request on it.
#[derive(Clone, Copy)]
pub(super) struct Ids {
    pub(super) conn: u64,
    pub(super) request: u64,
}

pub(super) async fn handle_request(
    shared: &Shared,
    conn: &quinn::Connection,
    probe: &ConnProbe,
    acks: &Acks,
    ids: Ids,
    resolver: Resolver,
) {
    let Ok((req, mut stream)) = resolver.resolve_request().await else {
        // No request ever arrived: nothing to record.
        return;
    };
    let started = Instant::now();
    let path = req.uri().path().to_string();
    let base = if ids.request == 0 {
        Baseline::default()
    } else {
        Baseline::of(&ConnState::now(conn, probe))
    };
    let mut out = Outcome {
        base,
        status: StatusCode::OK,
        path,
        content_length: 0,
        started,
        acked_at: None,
        at_ack: None,
        error: None,
    };
    if let Err(e) = respond(shared, acks, req.method(), &mut stream, &mut out).await {
        out.error = Some(e);
    }
    let ok = out.error.is_none() && out.acked_at.is_some();
    let counter = if ok {
        &shared.counters.requests_ok
    } else {
        &shared.counters.requests_failed
    };
    counter.fetch_add(1, Ordering::Relaxed);
    if let Some(w) = &shared.stats {
        #[cfg(test)]
        super::tests::hold(shared, ids).await;
        // A request that never completed is described as it ended.
        let end = out
            .at_ack
            .take()
            .unwrap_or_else(|| ConnState::now(conn, probe));
        let rec = record(shared, &end, ids, &out);
        match w.write(&rec) {
            Ok(()) => shared.counters.records.fetch_add(1, Ordering::Relaxed),
            Err(_) => shared
                .counters
                .record_errors
                .fetch_add(1, Ordering::Relaxed),
        };
    }
}

async fn respond(
    shared: &Shared,
    acks: &Acks,
    method: &Method,
    stream: &mut Stream,
    out: &mut Outcome,
) -> Result<(), String> {
    let body = match route::route(method, &out.path, shared.root.as_deref()) {
        Ok(body) => Some(body),
        Err(status) => {
            out.status = status;
            None
        }
    };
    let mut resp = Response::builder().status(out.status);
    if let Some(body) = &body {
        out.content_length = body.len();
        resp = resp
            .header(http::header::CONTENT_LENGTH, body.len())
            .header(http::header::CONTENT_TYPE, "application/octet-stream");
    }
    let resp = resp.body(()).map_err(|e| e.to_string())?;
    stream
        .send_response(resp)
        .await
        .map_err(|e| e.to_string())?;
    if let (Some(body), true) = (&body, method == Method::GET) {
        let mut chunks = Chunks::open(body).await.map_err(|e| e.to_string())?;
        while let Some(chunk) = chunks.next().await.map_err(|e| e.to_string())? {
            stream.send_data(chunk).await.map_err(|e| e.to_string())?;
        }
    }
    stream.finish().await.map_err(|e| e.to_string())?;
    wait_acked(acks, stream, out).await
}

async fn wait_acked(acks: &Acks, stream: &Stream, out: &mut Outcome) -> Result<(), String> {
    let id = stream.id().into_inner();
    let rx = acks
        .take(id)
        .ok_or_else(|| format!("stream {id} is not tracked"))?;
    // No timeout of our own: `stopped()` ends when the connection does
    // (idle timeout for a vanished client), and a large response on a slow
    // path may legitimately take minutes.
    match rx.await {
        Ok(SendEnd::Acked(t, state)) => {
            out.acked_at = Some(t);
            out.at_ack = Some(state);
            Ok(())
        }
        Ok(SendEnd::Stopped(code)) => Err(format!("client stopped the stream (code {code})")),
        Ok(SendEnd::Lost(why)) => Err(format!(
            "connection ended before the whole response was acknowledged: {why}"
        )),
        Err(_) => Err("connection ended before the whole response was acknowledged".into()),
    }
}
