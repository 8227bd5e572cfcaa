//! Per-connection traces: NDJSON (docs/formats.md) and qlog 0.3 JSON-SEQ.
//!
//! A [`TraceSink`] is off unless a writer was given; the simulator checks
//! [`TraceSink::is_on`] before building any event, so an untraced run never
//! formats a string. Output is written by hand (numbers and fixed keys only)
//! so that it is byte-identical across runs and dependency versions.

use std::fmt::{self, Write as _};
use std::io::{self, Write};

use ramp_cc::recovery::AckFrame;
use ramp_cc::Time;

use crate::qlog::QlogWriter;

/// The header of a trace: what was simulated.
#[derive(Clone, Debug)]
pub struct TraceMeta<'a> {
    /// Controller name.
    pub cc: &'a str,
    /// Scenario name.
    pub scenario: &'a str,
    /// Seed.
    pub seed: u64,
    /// Bottleneck rate, bit/s.
    pub rate_bps: u64,
    /// Base RTT, ms (may be fractional).
    pub rtt_ms: f64,
    /// Queue, ms at the link rate.
    pub queue_ms: f64,
    /// Mean random loss.
    pub loss: f64,
    /// Maximum datagram size.
    pub mds: u64,
    /// Object size.
    pub content_length: u64,
    /// Flow index on the bottleneck (0 = the flow under test).
    pub flow: usize,
    /// The A/B arm's label (the record's `group`), empty if none.
    pub group: &'a str,
}

/// Stream data carried by a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamRange {
    /// Offset of the first byte.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
}

/// Controller state as traced (`cc` events are written when it changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CcSnapshot {
    /// Window, bytes.
    pub cwnd: u64,
    /// Bytes in flight.
    pub inflight: u64,
    /// ssthresh, bytes (None: infinite).
    pub ssthresh: Option<u64>,
    /// Pacing rate, bit/s (None: unpaced).
    pub pacing_bps: Option<u64>,
    /// State name.
    pub state: &'static str,
}

/// RTT estimator state after a sample, µs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttSnapshot {
    /// Latest raw sample.
    pub latest_us: u64,
    /// Minimum.
    pub min_us: u64,
    /// Smoothed.
    pub smoothed_us: u64,
    /// Variance.
    pub var_us: u64,
}

/// Where a connection's trace goes; off by default.
#[derive(Default)]
pub struct TraceSink {
    ndjson: Option<Box<dyn Write + Send>>,
    qlog: Option<QlogWriter>,
    last_cc: Option<CcSnapshot>,
    error: Option<io::Error>,
    /// Time subtracted from every event (the connection's start).
    origin: Time,
    line: String,
}

impl std::fmt::Debug for TraceSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceSink")
            .field("ndjson", &self.ndjson.is_some())
            .field("qlog", &self.qlog.is_some())
            .finish()
    }
}

impl TraceSink {
    /// A sink that writes nothing (and costs nothing).
    pub fn off() -> TraceSink {
        TraceSink::default()
    }

    /// Adds an NDJSON trace writer.
    pub fn with_ndjson(mut self, w: Box<dyn Write + Send>) -> TraceSink {
        self.ndjson = Some(w);
        self
    }

    /// Adds a qlog 0.3 JSON-SEQ writer.
    pub fn with_qlog(mut self, w: Box<dyn Write + Send>) -> TraceSink {
        self.qlog = Some(QlogWriter::new(w));
        self
    }

    /// Whether anything is written.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.ndjson.is_some() || self.qlog.is_some()
    }

    /// Flushes the writers; returns the first write error, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(w) = &mut self.ndjson {
            if let Err(e) = w.flush() {
                self.error.get_or_insert(e);
            }
        }
        if let Some(q) = &mut self.qlog {
            if let Err(e) = q.finish() {
                self.error.get_or_insert(e);
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn rel_us(&self, t: Time) -> u64 {
        (t - self.origin).as_micros() as u64
    }

    fn emit(&mut self) {
        if let Some(w) = &mut self.ndjson {
            self.line.push('\n');
            if let Err(e) = w.write_all(self.line.as_bytes()) {
                self.error.get_or_insert(e);
            }
        }
        self.line.clear();
    }

    /// Writes one NDJSON event line, `{"ev":"<ev>","t-us":<t>` then
    /// `fields` (each starting with a comma) then `}`, when NDJSON is on.
    fn event(&mut self, t: Time, ev: &str, fields: fmt::Arguments<'_>) {
        if self.ndjson.is_some() {
            let us = self.rel_us(t);
            // The constant parts as plain pushes: through write! they cost a
            // traced run ~6% more instructions (cachegrind, seed-100m 3 MB).
            self.line.push_str("{\"ev\":\"");
            self.line.push_str(ev);
            self.line.push_str("\",\"t-us\":");
            let _ = write!(self.line, "{us}");
            let _ = self.line.write_fmt(fields);
            self.line.push('}');
            self.emit();
        }
    }

    /// The header line. `origin` is the connection's start: event times are
    /// relative to it.
    pub fn meta(&mut self, origin: Time, m: &TraceMeta<'_>) {
        self.origin = origin;
        if self.ndjson.is_some() {
            let _ = write!(
                self.line,
                "{{\"ev\":\"meta\",\"cc\":{},\"group\":{},\"scenario\":{},\"seed\":{},\"flow\":{},\"path\":{{\"rate-bps\":{},\"rtt-ms\":{},\"queue-ms\":{},\"loss\":{}}},\"mds\":{},\"content_length\":{}}}",
                json_str(m.cc),
                json_str(m.group),
                json_str(m.scenario),
                m.seed,
                m.flow,
                m.rate_bps,
                m.rtt_ms,
                m.queue_ms,
                m.loss,
                m.mds,
                m.content_length
            );
            self.emit();
        }
        if let Some(q) = &mut self.qlog {
            q.header(m);
        }
    }

    /// A packet was sent.
    pub fn sent(
        &mut self,
        t: Time,
        pn: u64,
        bytes: u64,
        space: &'static str,
        stream: Option<StreamRange>,
        retx: bool,
    ) {
        self.event(
            t,
            "sent",
            format_args!(
                ",\"pn\":{pn},\"bytes\":{bytes}{}{},\"retx\":{retx}",
                SpaceField(space),
                StreamFields(stream)
            ),
        );
        let us = self.rel_us(t);
        if let Some(q) = &mut self.qlog {
            q.packet_sent(us, pn, bytes, space, stream);
        }
    }

    /// A packet was acknowledged.
    pub fn acked(&mut self, t: Time, pn: u64, bytes: u64) {
        self.event(t, "acked", format_args!(",\"pn\":{pn},\"bytes\":{bytes}"));
    }

    /// An ACK frame arrived at the sender (qlog `packet_received`).
    pub fn ack_received(&mut self, t: Time, space: &'static str, frame: &AckFrame) {
        let us = self.rel_us(t);
        if let Some(q) = &mut self.qlog {
            q.packet_received(us, space, frame);
        }
    }

    /// A packet was declared lost.
    pub fn lost(
        &mut self,
        t: Time,
        pn: u64,
        bytes: u64,
        space: &'static str,
        stream: Option<StreamRange>,
        trigger: &'static str,
    ) {
        self.event(
            t,
            "lost",
            format_args!(
                ",\"pn\":{pn},\"bytes\":{bytes}{},\"trigger\":\"{trigger}\"",
                StreamFields(stream)
            ),
        );
        let us = self.rel_us(t);
        if let Some(q) = &mut self.qlog {
            q.packet_lost(us, pn, space, trigger);
        }
    }

    /// Controller state; written only when it differs from the last one.
    pub fn cc(&mut self, t: Time, s: CcSnapshot) {
        let prev = self.last_cc;
        if prev == Some(s) {
            return;
        }
        self.last_cc = Some(s);
        self.event(
            t,
            "cc",
            format_args!(
                ",\"cwnd\":{},\"inflight\":{},\"ssthresh\":{},\"pacing-bps\":{},\"state\":\"{}\"",
                s.cwnd,
                s.inflight,
                opt(s.ssthresh),
                opt(s.pacing_bps),
                s.state
            ),
        );
        let us = self.rel_us(t);
        if let Some(q) = &mut self.qlog {
            q.metrics(us, &s, prev.as_ref());
            if prev.is_none_or(|p| p.state != s.state) {
                q.congestion_state(us, prev.map(|p| p.state), s.state);
            }
        }
    }

    /// An RTT sample.
    pub fn rtt(&mut self, t: Time, r: RttSnapshot) {
        self.event(
            t,
            "rtt",
            format_args!(
                ",\"latest-us\":{},\"min-us\":{},\"smoothed-us\":{},\"var-us\":{}",
                r.latest_us, r.min_us, r.smoothed_us, r.var_us
            ),
        );
        let us = self.rel_us(t);
        if let Some(q) = &mut self.qlog {
            q.rtt(us, &r);
        }
    }

    /// Bottleneck queue depth.
    pub fn queue(&mut self, t: Time, bytes: u64, delay_us: u64) {
        self.event(
            t,
            "queue",
            format_args!(",\"bytes\":{bytes},\"delay-us\":{delay_us}"),
        );
    }

    /// A packet was dropped on the path (`where_`: `queue`, `policer`, `random`).
    pub fn drop(&mut self, t: Time, pn: u64, bytes: u64, where_: &'static str) {
        self.event(
            t,
            "drop",
            format_args!(",\"pn\":{pn},\"bytes\":{bytes},\"at\":\"{where_}\""),
        );
    }

    /// In-order bytes available at the receiver, cumulative.
    pub fn delivered(&mut self, t: Time, bytes: u64) {
        self.event(t, "delivered", format_args!(",\"bytes\":{bytes}"));
    }
}

/// `,"space":"<space>"` for a packet outside the application space (the
/// default, left out to keep traces short), else nothing.
struct SpaceField(&'static str);

impl fmt::Display for SpaceField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            "1RTT" => Ok(()),
            space => write!(f, ",\"space\":\"{space}\""),
        }
    }
}

/// `,"offset":…,"len":…` for a packet carrying stream data, else nothing.
struct StreamFields(Option<StreamRange>);

impl fmt::Display for StreamFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(s) => write!(f, ",\"offset\":{},\"len\":{}", s.offset, s.len),
            None => Ok(()),
        }
    }
}

fn opt(v: Option<u64>) -> String {
    match v {
        Some(v) => v.to_string(),
        None => "null".to_string(),
    }
}

/// A JSON string literal (escapes quotes, backslashes and control bytes).
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
