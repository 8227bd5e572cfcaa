//! What the engine writes to the trace of the flow under test: packet
//! descriptions, ACK outcomes (acked, lost with its RFC 9002 trigger, RTT
//! samples) and controller snapshots.

use ramp_cc::recovery::{LossTrigger, SentPacket, Space};
use ramp_cc::Time;

use crate::server::{Payload, Server};
use crate::trace::{CcSnapshot, RttSnapshot, StreamRange, TraceSink};

/// The space a payload is traced in (CRYPTO at offset 0 is the Initial's)
/// and the stream data it carries.
pub(super) fn describe(server: &Server, p: Payload) -> (Space, Option<StreamRange>) {
    match p {
        Payload::Crypto(0) => (Space::Initial, None),
        Payload::Crypto(_) => (Space::Handshake, None),
        Payload::Stream(c) => (
            Space::Application,
            Some(StreamRange {
                offset: server.offset(c),
                len: server.chunk_len(c),
            }),
        ),
        Payload::Ping => (Space::Application, None),
    }
}

/// Each lost packet with the RFC 9002 §6.1 trigger the detector reported.
pub(super) fn trace_lost(
    trace: &mut TraceSink,
    now: Time,
    server: &Server,
    lost: &[SentPacket<Payload>],
    lost_by: &[LossTrigger],
) {
    for (p, by) in lost.iter().zip(lost_by) {
        let (space, stream) = describe(server, p.payload);
        trace.lost(now, p.packet_number, p.size, space, stream, *by);
    }
}

pub(super) fn trace_ack_outcome(trace: &mut TraceSink, now: Time, server: &Server) {
    let o = &server.ack_out;
    for p in &o.acked {
        trace.acked(now, p.packet_number, p.size);
    }
    trace_lost(trace, now, server, &o.lost, &o.lost_by);
    if o.rtt_sample.is_some() {
        let r = server.ld.rtt();
        trace.rtt(
            now,
            RttSnapshot {
                latest_us: r.latest().as_micros() as u64,
                min_us: r.min().as_micros() as u64,
                smoothed_us: r.smoothed().as_micros() as u64,
                var_us: r.var().as_micros() as u64,
            },
        );
    }
}

pub(super) fn cc_snapshot(s: &Server) -> CcSnapshot {
    CcSnapshot {
        cwnd: s.cc.window(),
        inflight: s.ld.bytes_in_flight(),
        ssthresh: s.cc.ssthresh(),
        pacing_bps: s.cc.pacing_rate(s.ld.rtt()).map(|r| r.bits_per_sec()),
        state: s.cc.phase().as_str(),
    }
}
