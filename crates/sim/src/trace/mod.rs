//! Per-connection traces: typed events ([`TraceEvent`]) that the engine
//! hands to a [`TraceSink`], which timestamps them and passes them to its
//! outputs ([`TraceOutput`]): NDJSON (`ndjson`, docs/formats.md) and qlog
//! 0.3 JSON-SEQ (`qlog`). Another format is one more
//! implementation of the trait.
//!
//! A sink is off unless an output was given; the simulator checks
//! [`TraceSink::is_on`] before building any event, so an untraced run never
//! formats a string. Output is written by hand (numbers and fixed keys only)
//! so that it is byte-identical across runs and dependency versions.

use std::io::{self, Write};

use ramp_cc::recovery::{AckFrame, LossTrigger, Space};
use ramp_cc::Time;
use ramp_link::DropCause;

mod ndjson;
pub(crate) mod qlog;

use ndjson::NdjsonTrace;

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

/// One trace event, typed; times are given separately, in microseconds
/// since the flow started.
#[derive(Clone, Copy, Debug)]
pub enum TraceEvent<'a> {
    /// The header: what was simulated.
    Meta(&'a TraceMeta<'a>),
    /// A packet was sent.
    Sent {
        /// Packet number.
        pn: u64,
        /// UDP payload bytes.
        bytes: u64,
        /// Its packet-number space (written as [`space_name`]).
        space: Space,
        /// The stream data it carries, if any.
        stream: Option<StreamRange>,
        /// It retransmits data.
        retx: bool,
    },
    /// A packet was acknowledged.
    Acked {
        /// Packet number.
        pn: u64,
        /// Bytes.
        bytes: u64,
    },
    /// An ACK frame arrived at the sender.
    AckReceived {
        /// Its packet-number space.
        space: Space,
        /// The frame.
        frame: &'a AckFrame,
    },
    /// A packet was declared lost.
    Lost {
        /// Packet number.
        pn: u64,
        /// Bytes.
        bytes: u64,
        /// Its space.
        space: Space,
        /// The stream data it carried, if any.
        stream: Option<StreamRange>,
        /// What declared it lost (RFC 9002 §6.1; written as its qlog
        /// name).
        trigger: LossTrigger,
    },
    /// The controller's state changed.
    Cc {
        /// Now.
        now: CcSnapshot,
        /// The previous snapshot written, if any.
        prev: Option<CcSnapshot>,
    },
    /// An RTT sample.
    Rtt(RttSnapshot),
    /// Bottleneck queue depth.
    Queue {
        /// Bytes queued.
        bytes: u64,
        /// Queueing delay, µs.
        delay_us: u64,
    },
    /// A packet was dropped on the path.
    Drop {
        /// Packet number.
        pn: u64,
        /// Bytes.
        bytes: u64,
        /// Where it was dropped (written as [`DropCause::as_str`]).
        at: DropCause,
    },
    /// In-order bytes available at the receiver, cumulative.
    Delivered {
        /// Bytes.
        bytes: u64,
    },
}

/// A trace format: writes each event it cares about, keeps the first write
/// error for [`TraceOutput::finish`].
pub trait TraceOutput: Send {
    /// One event, `us` microseconds after the flow started.
    fn event(&mut self, us: u64, ev: &TraceEvent<'_>);
    /// Flushes; returns the first write error.
    fn finish(&mut self) -> io::Result<()>;
}

/// Where a flow's trace goes: any number of [`TraceOutput`]s, none for an
/// untraced run.
#[derive(Default)]
pub struct TraceSink {
    outputs: Vec<Box<dyn TraceOutput>>,
    last_cc: Option<CcSnapshot>,
    origin: Time,
}

impl std::fmt::Debug for TraceSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceSink")
            .field("outputs", &self.outputs.len())
            .finish()
    }
}

impl TraceSink {
    /// A sink that writes nothing.
    pub fn off() -> TraceSink {
        TraceSink::default()
    }

    /// Adds an output.
    pub fn with_output(mut self, out: Box<dyn TraceOutput>) -> TraceSink {
        self.outputs.push(out);
        self
    }

    /// Adds the NDJSON trace (docs/formats.md) written to `w`.
    pub fn with_ndjson(self, w: Box<dyn Write + Send>) -> TraceSink {
        self.with_output(Box::new(NdjsonTrace::new(w)))
    }

    /// Whether any output is attached.
    #[inline]
    pub fn is_on(&self) -> bool {
        !self.outputs.is_empty()
    }

    /// Flushes every output; returns the first write error.
    pub fn finish(&mut self) -> io::Result<()> {
        let mut first = None;
        for o in &mut self.outputs {
            if let Err(e) = o.finish() {
                first.get_or_insert(e);
            }
        }
        match first {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn emit(&mut self, t: Time, ev: TraceEvent<'_>) {
        let us = (t - self.origin).as_micros() as u64;
        for o in &mut self.outputs {
            o.event(us, &ev);
        }
    }

    /// The trace header; `origin` is the flow's start, and event times are
    /// relative to it.
    pub fn meta(&mut self, origin: Time, m: &TraceMeta<'_>) {
        self.origin = origin;
        self.emit(origin, TraceEvent::Meta(m));
    }

    /// A packet was sent.
    pub fn sent(
        &mut self,
        t: Time,
        pn: u64,
        bytes: u64,
        space: Space,
        stream: Option<StreamRange>,
        retx: bool,
    ) {
        self.emit(
            t,
            TraceEvent::Sent {
                pn,
                bytes,
                space,
                stream,
                retx,
            },
        );
    }

    /// A packet was acknowledged.
    pub fn acked(&mut self, t: Time, pn: u64, bytes: u64) {
        self.emit(t, TraceEvent::Acked { pn, bytes });
    }

    /// An ACK frame arrived at the sender (qlog `packet_received`).
    pub fn ack_received(&mut self, t: Time, space: Space, frame: &AckFrame) {
        self.emit(t, TraceEvent::AckReceived { space, frame });
    }

    /// A packet was declared lost.
    pub fn lost(
        &mut self,
        t: Time,
        pn: u64,
        bytes: u64,
        space: Space,
        stream: Option<StreamRange>,
        trigger: LossTrigger,
    ) {
        self.emit(
            t,
            TraceEvent::Lost {
                pn,
                bytes,
                space,
                stream,
                trigger,
            },
        );
    }

    /// Controller state; written only when it differs from the last one.
    pub fn cc(&mut self, t: Time, s: CcSnapshot) {
        let prev = self.last_cc;
        if prev == Some(s) {
            return;
        }
        self.last_cc = Some(s);
        self.emit(t, TraceEvent::Cc { now: s, prev });
    }

    /// An RTT sample.
    pub fn rtt(&mut self, t: Time, r: RttSnapshot) {
        self.emit(t, TraceEvent::Rtt(r));
    }

    /// Bottleneck queue depth.
    pub fn queue(&mut self, t: Time, bytes: u64, delay_us: u64) {
        self.emit(t, TraceEvent::Queue { bytes, delay_us });
    }

    /// A packet was dropped on the path.
    pub fn drop(&mut self, t: Time, pn: u64, bytes: u64, at: DropCause) {
        self.emit(t, TraceEvent::Drop { pn, bytes, at });
    }

    /// In-order bytes available at the receiver, cumulative.
    pub fn delivered(&mut self, t: Time, bytes: u64) {
        self.emit(t, TraceEvent::Delivered { bytes });
    }
}

/// A packet-number space as traces name it: qlog's packet types
/// `initial`, `handshake` and `1RTT` (draft-ietf-quic-qlog-quic-events
/// `PacketType`).
pub fn space_name(space: Space) -> &'static str {
    match space {
        Space::Initial => "initial",
        Space::Handshake => "handshake",
        Space::Application => "1RTT",
    }
}

/// A JSON string literal (escapes quotes, backslashes and control bytes).
pub(crate) fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_str(&mut out, s);
    out
}

/// Appends `s` as a JSON string literal to `out` ([`json_str`]'s text):
/// the runs between escapes are copied whole, not a character at a time,
/// which every fleet record's five strings made a measurable cost. The
/// bytes escaped are all ASCII, so a UTF-8 sequence is never split.
pub(crate) fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            out.push_str(&format!("\\u{b:04x}"));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::json_str;

    #[test]
    fn json_strings_escape_quotes_backslashes_and_control_bytes_only() {
        // The character-at-a-time reference the run copying replaced.
        let reference = |s: &str| {
            let mut out = String::from("\"");
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
        };
        for s in [
            "",
            "rapid-start-2026",
            "a\"b\\c",
            "\"",
            "\u{1}x\n\t\u{1f}",
            "é\"ü\\日本\u{7f}\u{80}",
            "newreno(iw=32,cc_limited=quicly)",
        ] {
            assert_eq!(json_str(s), reference(s), "{s:?}");
        }
    }
}
