//! A request's stats record: the keys the simulator writes too, with the
//! connection's counters as differences over the request, from its start
//! to the moment its response was completely acknowledged.

use serde_json::{Map, Value};

use crate::probe::{ConnProbe, ProbeSnapshot};
use crate::stats::{ms, us};
use ramp_vocab::record_keys as k;

use super::request::{Ids, Outcome};
use super::Shared;

/// The connection counters a request's record reports, as differences
/// (at its end minus at its start), in record order.
const COUNTED: [&str; 9] = [
    k::PACKETS_SENT,
    k::PACKETS_LOST,
    k::PACKETS_ACKED,
    k::BYTES_SENT,
    k::BYTES_LOST,
    k::BYTES_ACKED,
    "num-congestion-events",
    k::LOSS_EPISODES,
    k::ECN_LOSS_EPISODES,
];

/// The connection at one moment, as a record reports it: quinn's
/// statistics and the controller's probe, read together.
#[derive(Clone)]
pub(super) struct ConnState {
    stats: quinn::ConnectionStats,
    probe: ProbeSnapshot,
}

impl ConnState {
    pub(super) fn now(conn: &quinn::Connection, probe: &ConnProbe) -> ConnState {
        ConnState {
            stats: crate::adapter::stats_of(conn),
            probe: probe.snapshot(),
        }
    }
}

/// The [`COUNTED`] counters at one moment: a request's record counts from
/// its start.
#[derive(Clone, Copy, Default)]
pub(super) struct Baseline([u64; COUNTED.len()]);

impl Baseline {
    pub(super) fn of(state: &ConnState) -> Baseline {
        let (qs, snap) = (&state.stats, &state.probe);
        Baseline([
            qs.path.sent_packets,
            qs.path.lost_packets,
            snap.counters.packets_acked,
            qs.udp_tx.bytes,
            qs.path.lost_bytes,
            snap.counters.bytes_acked,
            qs.path.congestion_events,
            snap.metrics.num_loss_episodes,
            snap.metrics.num_ecn_loss_episodes,
        ])
    }
}

/// The record of request `ids`, whose connection was `end` when its
/// response was completely acknowledged (or when the request ended, if it
/// never was).
pub(super) fn record(
    shared: &Shared,
    end: &ConnState,
    ids: Ids,
    out: &Outcome,
) -> Map<String, Value> {
    let snap = &end.probe;
    let b = out.base;
    let mut r = Map::new();
    if let Some(t) = out.acked_at {
        let ttlb = t.saturating_duration_since(out.started);
        r.insert(k::TTLB_MS.into(), ms(ttlb));
        r.insert(k::TTLB_US.into(), us(ttlb));
    }
    r.insert(k::CONTENT_LENGTH.into(), out.content_length.into());
    r.insert("http.status".into(), out.status.as_u16().into());
    r.insert("request.path".into(), out.path.clone().into());
    r.insert("conn.id".into(), ids.conn.into());
    r.insert("conn.request".into(), ids.request.into());
    for ((key, now), base) in COUNTED.iter().zip(Baseline::of(end).0).zip(b.0) {
        r.insert((*key).into(), now.saturating_sub(base).into());
    }
    if let Some(rtt) = &snap.rtt {
        r.insert(k::RTT_MIN_MS.into(), ms(rtt.min()));
        r.insert(k::RTT_SMOOTHED_MS.into(), ms(rtt.smoothed()));
        r.insert(k::RTT_VARIANCE_MS.into(), ms(rtt.var()));
        r.insert(k::RTT_LATEST_MS.into(), ms(rtt.latest()));
        r.insert(k::RTT_MIN_US.into(), us(rtt.min()));
        r.insert(k::RTT_SMOOTHED_US.into(), us(rtt.smoothed()));
    }
    let m = &snap.metrics;
    r.insert(k::CC_ALGORITHM.into(), shared.cc.name.clone().into());
    r.insert(k::CWND.into(), m.cwnd_bytes.into());
    if let Some(s) = m.ssthresh_bytes {
        r.insert(k::SSTHRESH.into(), s.into());
    }
    if let Some(c) = m.cwnd_exiting_slow_start_bytes {
        r.insert(k::CWND_EXITING_SLOW_START.into(), c.into());
    }
    shared.labels.add_to(&mut r);
    if let Some(e) = &out.error {
        r.insert("error".into(), e.clone().into());
    }
    r
}
