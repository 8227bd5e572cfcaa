//! One accepted connection: its controller, transport settings and
//! pacing, then one task per HTTP/3 request on it.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;

use crate::adapter::{ConnWake, RampFactory};
use crate::body;
use crate::h3_tracked::{AckTimes, TrackedConnection};

use super::record::ConnState;
use crate::probe::ConnProbe;
use crate::transport::transport_config;

use super::request::{handle_request, Ids};
use super::{SendPacing, Shared, SEND_WINDOW_BYTES};

pub(super) async fn handle_connection(shared: Arc<Shared>, incoming: quinn::Incoming) {
    let accepted = Instant::now();
    let index = shared.counters.connections.fetch_add(1, Ordering::Relaxed);
    let probe = Arc::new(ConnProbe::new());
    let mut factory = RampFactory::with_probe(shared.cc.build.clone(), probe.clone());
    let pacing = shared.pacing.for_arm(shared.cc.pacer);
    let wake = (pacing != SendPacing::Quinn).then(ConnWake::new);
    if let Some(w) = &wake {
        factory = factory.paced_by_controller(w.clone());
        if pacing == SendPacing::Quicly {
            factory = factory.with_quicly_pacer();
        }
        factory = factory.with_send_rule(shared.cc.send_rule);
    }
    if let Some(log) = &shared.arrivals {
        factory = factory.with_arrivals(log.clone());
    }
    let mut cfg = quinn::ServerConfig::with_crypto(shared.tls.clone());
    let mut transport = transport_config(Some(Arc::new(factory)), shared.idle_timeout);
    transport.send_window(SEND_WINDOW_BYTES);
    if let Some(n) = shared.datagram_bytes {
        transport.initial_mtu(n).min_mtu(n);
    } else if shared.pmtud {
        transport.mtu_discovery_config(Some(crate::transport::path_mtu_discovery()));
    }
    if let Some(dir) = &shared.qlog {
        let path = super::qlog::file_of(dir, index);
        match super::qlog::stream(&path, &shared.cc.name, accepted) {
            Ok(s) => {
                transport.qlog_stream(Some(s));
            }
            // The connection is served without its trace rather than
            // refused: the trace is an observer.
            Err(e) => ramp_vocab::note!("ramp serve: warning: qlog {}: {e}", path.display()),
        }
    }
    cfg.transport_config(Arc::new(transport));
    let Ok(connecting) = incoming.accept_with(Arc::new(cfg)) else {
        return;
    };
    let Ok(conn) = connecting.await else {
        return;
    };
    if let Some(w) = wake {
        // From here the controller paces (the handshake was quinn's). The
        // connection owns the controller, which owns `w`: detach when the
        // connection is gone so neither keeps the other alive.
        if w.attach(conn.clone(), SEND_WINDOW_BYTES) {
            let closed = conn.clone();
            tokio::spawn(async move {
                closed.closed().await;
                w.detach();
            });
        }
    }
    let conn_id = shared.conn_seq.fetch_add(1, Ordering::Relaxed);
    let acks = {
        let (conn, probe) = (conn.clone(), probe.clone());
        AckTimes::new(move || ConnState::now(&conn, &probe))
    };
    let Ok(mut h3c) = h3::server::Connection::<_, Bytes>::new(TrackedConnection::new(
        conn.clone(),
        acks.clone(),
        body::pattern_buffer().clone(),
    ))
    .await
    else {
        return;
    };
    let mut request_seq = 0u64;
    // `accept` ends with Ok(None) or an error when the peer closes or
    // vanishes; either way the connection is done.
    while let Ok(Some(resolver)) = h3c.accept().await {
        let shared = shared.clone();
        let conn = conn.clone();
        let probe = probe.clone();
        let acks = acks.clone();
        let seq = request_seq;
        request_seq += 1;
        tokio::spawn(async move {
            let ids = Ids {
                conn: conn_id,
                request: seq,
            };
            handle_request(&shared, &conn, &probe, &acks, ids, resolver).await;
        });
    }
}
