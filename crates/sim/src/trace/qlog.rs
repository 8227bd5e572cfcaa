//! qlog 0.3 JSON-SEQ output (RFC 7464 records), the dialect qvis loads.
//!
//! qvis (HEAD 2025-10-08) accepts a JSON-SEQ header with
//! `qlog_version: "0.3"` and `qlog_format: "JSON-SEQ"`, and its congestion
//! graph looks up `transport:packet_sent` (needs `raw.length`),
//! `transport:packet_received` (ACK frames with `acked_ranges`),
//! `recovery:metrics_updated`, `recovery:packet_lost` and
//! `recovery:congestion_state_updated` (draft-ietf-quic-qlog-quic-events, as qvis reads it).
//! The server is the vantage point; times are ms since the connection
//! started, as floats with µs precision.

use std::fmt::Write as _;
use std::io::{self, Write};

use ramp_cc::recovery::{AckFrame, LossTrigger, Space};

use super::{
    json_str, space_name, CcSnapshot, RttSnapshot, StreamRange, TraceEvent, TraceMeta, TraceOutput,
    TraceSink,
};

/// RFC 7464 record separator.
const RS: char = '\u{1e}';

/// Writes one connection's qlog.
pub(crate) struct QlogWriter {
    w: Box<dyn Write + Send>,
    buf: String,
    error: Option<io::Error>,
    received_pn: u64,
}

fn ms(us: u64) -> String {
    // µs as ms with 3 decimals, exact (no float formatting).
    format!("{}.{:03}", us / 1000, us % 1000)
}

impl QlogWriter {
    /// A writer to `w`.
    pub(crate) fn new(w: Box<dyn Write + Send>) -> QlogWriter {
        QlogWriter {
            w,
            buf: String::new(),
            error: None,
            received_pn: 0,
        }
    }

    fn flush_record(&mut self) {
        self.buf.push('\n');
        if let Err(e) = self.w.write_all(self.buf.as_bytes()) {
            self.error.get_or_insert(e);
        }
        self.buf.clear();
    }

    fn event(&mut self, us: u64, name: &str) {
        self.buf.push(RS);
        let _ = write!(
            self.buf,
            "{{\"time\":{},\"name\":\"{name}\",\"data\":",
            ms(us)
        );
    }

    /// The file header.
    pub(crate) fn header(&mut self, m: &TraceMeta<'_>) {
        self.buf.push(RS);
        let title = format!("ramp-sim {} {} seed {}", m.scenario, m.cc, m.seed);
        let _ = write!(
            self.buf,
            "{{\"qlog_version\":\"0.3\",\"qlog_format\":\"JSON-SEQ\",\"title\":{},\"description\":\"ramp-sim deterministic simulation\",\"trace\":{{\"title\":{},\"vantage_point\":{{\"name\":\"ramp-sim server\",\"type\":\"server\"}},\"common_fields\":{{\"protocol_type\":[\"QUIC\"],\"time_format\":\"relative\",\"reference_time\":0,\"group_id\":\"flow-{}\"}},\"configuration\":{{\"time_offset\":0}}}}}}",
            json_str(&title),
            json_str(&title),
            m.flow
        );
        self.flush_record();
        self.event(0, "simulation:scenario");
        let _ = write!(
            self.buf,
            "{{\"name\":{},\"details\":{{\"cc\":{},\"seed\":{},\"rate_bps\":{},\"rtt_ms\":{},\"queue_ms\":{},\"loss\":{},\"max_datagram_size\":{},\"content_length\":{}}}}}}}",
            json_str(m.scenario),
            json_str(m.cc),
            m.seed,
            m.rate_bps,
            m.rtt_ms,
            m.queue_ms,
            m.loss,
            m.mds,
            m.content_length
        );
        self.flush_record();
    }

    /// `transport:packet_sent`.
    pub(crate) fn packet_sent(
        &mut self,
        us: u64,
        pn: u64,
        bytes: u64,
        space: Space,
        stream: Option<StreamRange>,
    ) {
        self.event(us, "transport:packet_sent");
        let _ = write!(
            self.buf,
            "{{\"header\":{{\"packet_type\":\"{}\",\"packet_number\":{pn}}},\"raw\":{{\"length\":{bytes}}}",
            space_name(space)
        );
        match stream {
            Some(s) => {
                let _ = write!(
                    self.buf,
                    ",\"frames\":[{{\"frame_type\":\"stream\",\"stream_id\":0,\"offset\":{},\"length\":{}}}]}}}}",
                    s.offset, s.len
                );
            }
            None if space == Space::Application => self
                .buf
                .push_str(",\"frames\":[{\"frame_type\":\"ping\"}]}}"),
            None => self
                .buf
                .push_str(",\"frames\":[{\"frame_type\":\"crypto\"}]}}"),
        }
        self.flush_record();
    }

    /// `transport:packet_received` carrying one ACK frame.
    pub(crate) fn packet_received(&mut self, us: u64, space: Space, f: &AckFrame) {
        self.event(us, "transport:packet_received");
        let pn = self.received_pn;
        self.received_pn += 1;
        let _ = write!(
            self.buf,
            "{{\"header\":{{\"packet_type\":\"{}\",\"packet_number\":{pn}}},\"frames\":[{{\"frame_type\":\"ack\",\"ack_delay\":{},\"acked_ranges\":[",
            space_name(space),
            ms(f.ack_delay.as_micros() as u64)
        );
        for (i, r) in f.ranges.iter().rev().enumerate() {
            if i > 0 {
                self.buf.push(',');
            }
            let _ = write!(self.buf, "[{},{}]", r.start(), r.end());
        }
        self.buf.push(']');
        if let Some(e) = f.ecn {
            let _ = write!(
                self.buf,
                ",\"ect0\":{},\"ect1\":{},\"ce\":{}",
                e.ect0, e.ect1, e.ce
            );
        }
        self.buf.push_str("}]}}");
        self.flush_record();
    }

    /// `recovery:packet_lost`.
    pub(crate) fn packet_lost(&mut self, us: u64, pn: u64, space: Space, trigger: LossTrigger) {
        self.event(us, "recovery:packet_lost");
        let _ = write!(
            self.buf,
            "{{\"header\":{{\"packet_type\":\"{}\",\"packet_number\":{pn}}},\"trigger\":\"{}\"}}}}",
            space_name(space),
            trigger.qlog_name()
        );
        self.flush_record();
    }

    /// `recovery:metrics_updated` with the fields that changed.
    pub(crate) fn metrics(&mut self, us: u64, s: &CcSnapshot, prev: Option<&CcSnapshot>) {
        self.event(us, "recovery:metrics_updated");
        self.buf.push('{');
        let mut first = true;
        let mut field = |buf: &mut String, k: &str, v: String| {
            if !first {
                buf.push(',');
            }
            first = false;
            let _ = write!(buf, "\"{k}\":{v}");
        };
        if prev.is_none_or(|p| p.cwnd != s.cwnd) {
            field(&mut self.buf, "congestion_window", s.cwnd.to_string());
        }
        if prev.is_none_or(|p| p.inflight != s.inflight) {
            field(&mut self.buf, "bytes_in_flight", s.inflight.to_string());
        }
        if prev.is_none_or(|p| p.ssthresh != s.ssthresh) {
            if let Some(t) = s.ssthresh {
                field(&mut self.buf, "ssthresh", t.to_string());
            }
        }
        if prev.is_none_or(|p| p.pacing_bps != s.pacing_bps) {
            if let Some(r) = s.pacing_bps {
                field(&mut self.buf, "pacing_rate", r.to_string());
            }
        }
        self.buf.push_str("}}");
        self.flush_record();
    }

    /// `recovery:metrics_updated` with the RTT fields.
    pub(crate) fn rtt(&mut self, us: u64, r: &RttSnapshot) {
        self.event(us, "recovery:metrics_updated");
        let _ = write!(
            self.buf,
            "{{\"min_rtt\":{},\"smoothed_rtt\":{},\"latest_rtt\":{},\"rtt_variance\":{}}}}}",
            ms(r.min_us),
            ms(r.smoothed_us),
            ms(r.latest_us),
            ms(r.var_us)
        );
        self.flush_record();
    }

    /// `recovery:congestion_state_updated`.
    pub(crate) fn congestion_state(&mut self, us: u64, old: Option<&str>, new: &str) {
        self.event(us, "recovery:congestion_state_updated");
        match old {
            Some(o) => {
                let _ = write!(self.buf, "{{\"old\":\"{o}\",\"new\":\"{new}\"}}}}");
            }
            None => {
                let _ = write!(self.buf, "{{\"new\":\"{new}\"}}}}");
            }
        }
        self.flush_record();
    }

    /// Flushes; returns the first write error.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if let Err(e) = self.w.flush() {
            self.error.get_or_insert(e);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl TraceOutput for QlogWriter {
    fn event(&mut self, us: u64, ev: &TraceEvent<'_>) {
        match *ev {
            TraceEvent::Meta(m) => self.header(m),
            TraceEvent::Sent {
                pn,
                bytes,
                space,
                stream,
                ..
            } => self.packet_sent(us, pn, bytes, space, stream),
            TraceEvent::AckReceived { space, frame } => self.packet_received(us, space, frame),
            TraceEvent::Lost {
                pn, space, trigger, ..
            } => self.packet_lost(us, pn, space, trigger),
            TraceEvent::Cc { now, prev } => {
                self.metrics(us, &now, prev.as_ref());
                if prev.is_none_or(|p| p.state != now.state) {
                    self.congestion_state(us, prev.map(|p| p.state), now.state);
                }
            }
            TraceEvent::Rtt(r) => self.rtt(us, &r),
            TraceEvent::Acked { .. }
            | TraceEvent::Queue { .. }
            | TraceEvent::Drop { .. }
            | TraceEvent::Delivered { .. } => {}
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        QlogWriter::finish(self)
    }
}

impl TraceSink {
    /// Adds the qlog 0.3 JSON-SEQ trace written to `w`.
    pub fn with_qlog(self, w: Box<dyn Write + Send>) -> TraceSink {
        self.with_output(Box::new(QlogWriter::new(w)))
    }
}
