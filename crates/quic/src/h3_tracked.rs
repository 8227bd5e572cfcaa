//! An h3 QUIC backend for the server that reports when each request
//! stream's response has been completely acknowledged.
//!
//! h3-quinn keeps its `quinn::SendStream`s private, and only a
//! `quinn::SendStream` can tell when the peer has acknowledged every byte
//! of a finished stream (`SendStream::stopped()` yields `Ok(None)` then).
//! This backend therefore accepts request (bidirectional) streams from
//! quinn itself, starts a watcher on `stopped()` for each, and delegates
//! everything else (unidirectional control and QPACK streams) to
//! h3-quinn. The server looks the completion time up by stream id in
//! [`AckTimes`]: that is its `ttlb` end point, "last byte acknowledged".
//! The watcher also takes the server's snapshot of the connection (its
//! counters) at that moment, not when the request's task next runs: by
//! then the next request on the connection may have been sent and
//! acknowledged too.
//!
//! Zero-copy sends: h3 hands a request stream each DATA frame as a
//! [`WriteBuf`] (frame header, then the payload), which exposes its payload
//! only as `&[u8]`; writing that with `poll_write` makes quinn copy it into
//! a fresh allocation before it copies it again into packets. A payload that
//! lies inside the connection's *shared buffer* (the `/bytes/N` pattern,
//! [`crate::body::pattern_buffer`]) is instead handed to quinn as a
//! reference-counted slice of that buffer (`SendStream::write_chunks`), so
//! the only copy left is the one into the packet. Other payloads (files)
//! are copied as before.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{self, Poll};
use std::time::Instant;

use bytes::{Buf, Bytes};
use h3::quic::{self, ConnectionErrorIncoming, StreamErrorIncoming, StreamId, WriteBuf};
use quinn::VarInt;
use tokio::sync::oneshot;

/// How a request stream's send side ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SendEnd<S> {
    /// Finished, and the peer acknowledged every byte, at this time; with
    /// the connection's snapshot taken then.
    Acked(Instant, S),
    /// The peer stopped the stream (STOP_SENDING) with this code.
    Stopped(u64),
    /// The connection ended first (quinn's reason).
    Lost(String),
}

/// Takes what the server records about the connection (its counters) at
/// the moment a response is completely acknowledged.
type Snapshot<S> = Arc<dyn Fn() -> S + Send + Sync>;

/// Per connection: stream id → the receiver of that stream's end.
pub(crate) struct AckTimes<S> {
    map: Arc<Mutex<HashMap<u64, oneshot::Receiver<SendEnd<S>>>>>,
    snapshot: Snapshot<S>,
}

impl<S> Clone for AckTimes<S> {
    fn clone(&self) -> Self {
        AckTimes {
            map: self.map.clone(),
            snapshot: self.snapshot.clone(),
        }
    }
}

impl<S: Send + 'static> AckTimes<S> {
    /// Tracking for one connection; `snapshot` is taken as each response
    /// is found completely acknowledged.
    pub(crate) fn new(snapshot: impl Fn() -> S + Send + Sync + 'static) -> AckTimes<S> {
        AckTimes {
            map: Arc::default(),
            snapshot: Arc::new(snapshot),
        }
    }

    /// Takes the receiver for stream `id` (once).
    pub(crate) fn take(&self, id: u64) -> Option<oneshot::Receiver<SendEnd<S>>> {
        self.map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id)
    }

    fn watch(&self, send: &quinn::SendStream) {
        let id = u64::from(send.id());
        let stopped = send.stopped();
        let (tx, rx) = oneshot::channel();
        self.map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, rx);
        let snapshot = self.snapshot.clone();
        tokio::spawn(async move {
            let end = match stopped.await {
                // The time and the counters right here, as quinn reports
                // the last byte acknowledged: the request's own task runs
                // later (one more wake-up, then its other work), and on a
                // busy machine late enough that the next request on the
                // connection has been answered in between.
                Ok(None) => SendEnd::Acked(Instant::now(), snapshot()),
                Ok(Some(code)) => SendEnd::Stopped(code.into_inner()),
                Err(e) => SendEnd::Lost(e.to_string()),
            };
            // The request task may be gone (client vanished): fine.
            let _ = tx.send(end);
        });
    }
}

type AcceptBiFuture = Pin<
    Box<
        dyn Future<Output = Result<(quinn::SendStream, quinn::RecvStream), quinn::ConnectionError>>
            + Send
            + Sync,
    >,
>;

fn accept_bi(conn: &quinn::Connection) -> AcceptBiFuture {
    let conn = conn.clone();
    Box::pin(async move { conn.accept_bi().await })
}

/// The server side of an h3 connection over quinn, with acknowledgement
/// tracking of request streams.
pub(crate) struct TrackedConnection<S> {
    conn: quinn::Connection,
    inner: h3_quinn::Connection,
    accepting: AcceptBiFuture,
    acks: AckTimes<S>,
    shared: Bytes,
    /// The connection's own stream opener: its `OpenStreams` calls go here.
    opener: Opener,
}

impl<S> TrackedConnection<S> {
    /// Wraps an established quinn connection. Response payloads that are
    /// slices of `shared` go to quinn without a copy (module docs).
    pub(crate) fn new(
        conn: quinn::Connection,
        acks: AckTimes<S>,
        shared: Bytes,
    ) -> TrackedConnection<S> {
        let inner = h3_quinn::Connection::new(conn.clone());
        let opener = Opener {
            inner: <h3_quinn::Connection as quic::Connection<Bytes>>::opener(&inner),
        };
        TrackedConnection {
            inner,
            opener,
            accepting: accept_bi(&conn),
            conn,
            acks,
            shared,
        }
    }
}

fn connection_error(e: quinn::ConnectionError) -> ConnectionErrorIncoming {
    match e {
        quinn::ConnectionError::ApplicationClosed(c) => ConnectionErrorIncoming::ApplicationClose {
            error_code: c.error_code.into_inner(),
        },
        quinn::ConnectionError::TimedOut => ConnectionErrorIncoming::Timeout,
        other => ConnectionErrorIncoming::Undefined(Arc::new(other)),
    }
}

fn stream_id(id: quinn::StreamId) -> StreamId {
    let v = u64::from(id);
    // A quinn stream id is a QUIC varint (< 2^62), exactly the range h3
    // accepts, so this cannot fail.
    StreamId::try_from(v).unwrap_or_else(|_| unreachable!("stream id {v} is not a varint"))
}

impl<B: Buf, S: Send + 'static> quic::Connection<B> for TrackedConnection<S> {
    type RecvStream = h3_quinn::RecvStream;
    type OpenStreams = Opener;

    fn poll_accept_recv(
        &mut self,
        cx: &mut task::Context<'_>,
    ) -> Poll<Result<Self::RecvStream, ConnectionErrorIncoming>> {
        <h3_quinn::Connection as quic::Connection<B>>::poll_accept_recv(&mut self.inner, cx)
    }

    fn poll_accept_bidi(
        &mut self,
        cx: &mut task::Context<'_>,
    ) -> Poll<Result<Self::BidiStream, ConnectionErrorIncoming>> {
        let r = std::task::ready!(self.accepting.as_mut().poll(cx));
        self.accepting = accept_bi(&self.conn);
        let (send, recv) = r.map_err(connection_error)?;
        self.acks.watch(&send);
        Poll::Ready(Ok(TrackedBidi {
            send: TrackedSend {
                stream: send,
                writing: None,
                shared: self.shared.clone(),
            },
            recv: TrackedRecv { stream: recv },
        }))
    }

    fn opener(&self) -> Self::OpenStreams {
        Opener {
            inner: <h3_quinn::Connection as quic::Connection<B>>::opener(&self.inner),
        }
    }
}

impl<B: Buf, S: Send + 'static> quic::OpenStreams<B> for TrackedConnection<S> {
    type BidiStream = TrackedBidi<B>;
    type SendStream = h3_quinn::SendStream<B>;

    fn poll_open_bidi(
        &mut self,
        cx: &mut task::Context<'_>,
    ) -> Poll<Result<Self::BidiStream, StreamErrorIncoming>> {
        quic::OpenStreams::<B>::poll_open_bidi(&mut self.opener, cx)
    }

    fn poll_open_send(
        &mut self,
        cx: &mut task::Context<'_>,
    ) -> Poll<Result<Self::SendStream, StreamErrorIncoming>> {
        quic::OpenStreams::<B>::poll_open_send(&mut self.opener, cx)
    }

    fn close(&mut self, code: h3::error::Code, reason: &[u8]) {
        quic::OpenStreams::<B>::close(&mut self.opener, code, reason)
    }
}

fn server_opens_no_bidi() -> StreamErrorIncoming {
    StreamErrorIncoming::Unknown("an HTTP/3 server opens no bidirectional streams".into())
}

/// Opens the server's unidirectional streams (via h3-quinn).
pub(crate) struct Opener {
    inner: h3_quinn::OpenStreams,
}

impl<B: Buf> quic::OpenStreams<B> for Opener {
    type BidiStream = TrackedBidi<B>;
    type SendStream = h3_quinn::SendStream<B>;

    fn poll_open_bidi(
        &mut self,
        _cx: &mut task::Context<'_>,
    ) -> Poll<Result<Self::BidiStream, StreamErrorIncoming>> {
        Poll::Ready(Err(server_opens_no_bidi()))
    }

    fn poll_open_send(
        &mut self,
        cx: &mut task::Context<'_>,
    ) -> Poll<Result<Self::SendStream, StreamErrorIncoming>> {
        <h3_quinn::OpenStreams as quic::OpenStreams<B>>::poll_open_send(&mut self.inner, cx)
    }

    fn close(&mut self, code: h3::error::Code, reason: &[u8]) {
        <h3_quinn::OpenStreams as quic::OpenStreams<B>>::close(&mut self.inner, code, reason)
    }
}

/// A request stream.
pub(crate) struct TrackedBidi<B: Buf> {
    send: TrackedSend<B>,
    recv: TrackedRecv,
}

/// The send half of a request stream.
pub(crate) struct TrackedSend<B: Buf> {
    stream: quinn::SendStream,
    writing: Option<WriteBuf<B>>,
    /// Payload bytes inside this buffer are sent without a copy.
    shared: Bytes,
}

/// `chunk` as a slice of `shared` if it lies entirely inside it.
fn shared_slice(shared: &Bytes, chunk: &[u8]) -> Option<Bytes> {
    let base = shared.as_ptr() as usize;
    let start = chunk.as_ptr() as usize;
    let inside = !chunk.is_empty() && start >= base && start + chunk.len() <= base + shared.len();
    inside.then(|| shared.slice_ref(chunk))
}

/// Offers `chunk` to quinn by reference; the bytes it took.
fn poll_write_shared(
    stream: &mut quinn::SendStream,
    cx: &mut task::Context<'_>,
    chunk: Bytes,
) -> Poll<Result<usize, StreamErrorIncoming>> {
    let mut bufs = [chunk];
    // `write_chunks` is cancellation safe (nothing is written unless it
    // resolves) and, when blocked, leaves the waker with the connection,
    // so a fresh future per poll is correct.
    let write = std::pin::pin!(stream.write_chunks(&mut bufs));
    write
        .poll(cx)
        .map(|r| r.map(|w| w.bytes).map_err(write_error))
}

/// The receive half of a request stream.
pub(crate) struct TrackedRecv {
    stream: quinn::RecvStream,
}

fn write_error(e: quinn::WriteError) -> StreamErrorIncoming {
    match e {
        quinn::WriteError::Stopped(code) => StreamErrorIncoming::StreamTerminated {
            error_code: code.into_inner(),
        },
        quinn::WriteError::ConnectionLost(e) => StreamErrorIncoming::ConnectionErrorIncoming {
            connection_error: connection_error(e),
        },
        other => StreamErrorIncoming::Unknown(Box::new(other)),
    }
}

fn read_error(e: quinn::ReadError) -> StreamErrorIncoming {
    match e {
        quinn::ReadError::Reset(code) => StreamErrorIncoming::StreamTerminated {
            error_code: code.into_inner(),
        },
        quinn::ReadError::ConnectionLost(e) => StreamErrorIncoming::ConnectionErrorIncoming {
            connection_error: connection_error(e),
        },
        other => StreamErrorIncoming::Unknown(Box::new(other)),
    }
}

impl<B: Buf> quic::SendStream<B> for TrackedSend<B> {
    fn poll_ready(&mut self, cx: &mut task::Context<'_>) -> Poll<Result<(), StreamErrorIncoming>> {
        if let Some(data) = &mut self.writing {
            while data.has_remaining() {
                let chunk = data.chunk();
                let n = match shared_slice(&self.shared, chunk) {
                    Some(b) => std::task::ready!(poll_write_shared(&mut self.stream, cx, b))?,
                    None => std::task::ready!(Pin::new(&mut self.stream).poll_write(cx, chunk))
                        .map_err(write_error)?,
                };
                data.advance(n);
            }
        }
        self.writing = None;
        Poll::Ready(Ok(()))
    }

    fn send_data<T: Into<WriteBuf<B>>>(&mut self, data: T) -> Result<(), StreamErrorIncoming> {
        if self.writing.is_some() {
            return Err(StreamErrorIncoming::ConnectionErrorIncoming {
                connection_error: ConnectionErrorIncoming::InternalError(
                    "send_data called while the stream is not ready".into(),
                ),
            });
        }
        self.writing = Some(data.into());
        Ok(())
    }

    fn poll_finish(
        &mut self,
        _cx: &mut task::Context<'_>,
    ) -> Poll<Result<(), StreamErrorIncoming>> {
        Poll::Ready(
            self.stream
                .finish()
                .map_err(|e| StreamErrorIncoming::Unknown(Box::new(e))),
        )
    }

    fn reset(&mut self, reset_code: u64) {
        let _ = self
            .stream
            .reset(VarInt::from_u64(reset_code).unwrap_or(VarInt::MAX));
    }

    fn send_id(&self) -> StreamId {
        stream_id(self.stream.id())
    }
}

impl quic::RecvStream for TrackedRecv {
    type Buf = Bytes;

    fn poll_data(
        &mut self,
        cx: &mut task::Context<'_>,
    ) -> Poll<Result<Option<Self::Buf>, StreamErrorIncoming>> {
        // Request streams carry only headers (and tiny bodies): a small
        // copy per read is fine.
        let mut buf = vec![0u8; 16 * 1024];
        let n = std::task::ready!(self.stream.poll_read(cx, &mut buf)).map_err(read_error)?;
        if n == 0 {
            return Poll::Ready(Ok(None));
        }
        buf.truncate(n);
        Poll::Ready(Ok(Some(Bytes::from(buf))))
    }

    fn stop_sending(&mut self, error_code: u64) {
        let _ = self
            .stream
            .stop(VarInt::from_u64(error_code).unwrap_or(VarInt::MAX));
    }

    fn recv_id(&self) -> StreamId {
        stream_id(self.stream.id())
    }
}

impl<B: Buf> quic::SendStream<B> for TrackedBidi<B> {
    fn poll_ready(&mut self, cx: &mut task::Context<'_>) -> Poll<Result<(), StreamErrorIncoming>> {
        self.send.poll_ready(cx)
    }
    fn send_data<T: Into<WriteBuf<B>>>(&mut self, data: T) -> Result<(), StreamErrorIncoming> {
        self.send.send_data(data)
    }
    fn poll_finish(&mut self, cx: &mut task::Context<'_>) -> Poll<Result<(), StreamErrorIncoming>> {
        self.send.poll_finish(cx)
    }
    fn reset(&mut self, reset_code: u64) {
        quic::SendStream::<B>::reset(&mut self.send, reset_code)
    }
    fn send_id(&self) -> StreamId {
        quic::SendStream::<B>::send_id(&self.send)
    }
}

impl<B: Buf> quic::RecvStream for TrackedBidi<B> {
    type Buf = Bytes;
    fn poll_data(
        &mut self,
        cx: &mut task::Context<'_>,
    ) -> Poll<Result<Option<Self::Buf>, StreamErrorIncoming>> {
        self.recv.poll_data(cx)
    }
    fn stop_sending(&mut self, error_code: u64) {
        self.recv.stop_sending(error_code)
    }
    fn recv_id(&self) -> StreamId {
        self.recv.recv_id()
    }
}

impl<B: Buf> quic::BidiStream<B> for TrackedBidi<B> {
    type SendStream = TrackedSend<B>;
    type RecvStream = TrackedRecv;
    fn split(self) -> (Self::SendStream, Self::RecvStream) {
        (self.send, self.recv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_chunks_inside_the_shared_buffer_are_shared() {
        let shared = Bytes::from((0..100u8).collect::<Vec<u8>>());
        let inside = shared_slice(&shared, &shared[10..60]).unwrap();
        assert_eq!(&inside[..], &shared[10..60]);
        assert_eq!(inside.as_ptr(), shared[10..].as_ptr(), "not a copy");
        assert!(shared_slice(&shared, &shared[..]).is_some());
        assert!(shared_slice(&shared, &shared[5..5]).is_none());
        let other = vec![7u8; 50];
        assert!(shared_slice(&shared, &other).is_none());
        // Overlapping the end: a longer buffer starting inside `shared`
        // cannot be built safely, so check a prefix of `shared` against a
        // shorter view of it instead.
        let short = shared.slice(..50);
        assert!(shared_slice(&short, &shared[40..60]).is_none());
        assert!(shared_slice(&short, &shared[40..50]).is_some());
    }
}
