//! The NDJSON trace (docs/formats.md): one JSON object per line, the header
//! first.

use std::fmt::{self, Write as _};
use std::io::{self, Write};

use ramp_cc::recovery::Space;

use super::{json_str, space_name, StreamRange, TraceEvent, TraceOutput};

/// Writes [`TraceEvent`]s as NDJSON lines.
pub(super) struct NdjsonTrace {
    w: Box<dyn Write + Send>,
    line: String,
    error: Option<io::Error>,
}

impl NdjsonTrace {
    pub(super) fn new(w: Box<dyn Write + Send>) -> NdjsonTrace {
        NdjsonTrace {
            w,
            line: String::new(),
            error: None,
        }
    }

    fn emit(&mut self) {
        self.line.push('\n');
        if let Err(e) = self.w.write_all(self.line.as_bytes()) {
            self.error.get_or_insert(e);
        }
        self.line.clear();
    }

    fn event(&mut self, us: u64, ev: &str, fields: fmt::Arguments<'_>) {
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

impl TraceOutput for NdjsonTrace {
    fn event(&mut self, us: u64, ev: &TraceEvent<'_>) {
        match *ev {
            TraceEvent::Meta(m) => {
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
            TraceEvent::Sent {
                pn,
                bytes,
                space,
                stream,
                retx,
            } => self.event(
                us,
                "sent",
                format_args!(
                    ",\"pn\":{pn},\"bytes\":{bytes}{}{},\"retx\":{retx}",
                    SpaceField(space),
                    StreamFields(stream)
                ),
            ),
            TraceEvent::Acked { pn, bytes } => {
                self.event(us, "acked", format_args!(",\"pn\":{pn},\"bytes\":{bytes}"))
            }
            TraceEvent::AckReceived { .. } => {}
            TraceEvent::Lost {
                pn,
                bytes,
                stream,
                trigger,
                ..
            } => self.event(
                us,
                "lost",
                format_args!(
                    ",\"pn\":{pn},\"bytes\":{bytes}{},\"trigger\":\"{}\"",
                    StreamFields(stream),
                    trigger.qlog_name()
                ),
            ),
            TraceEvent::Cc { now: s, .. } => self.event(
                us,
                "cc",
                format_args!(
                    ",\"cwnd\":{},\"inflight\":{},\"ssthresh\":{},\"pacing-bps\":{},\"state\":\"{}\"",
                    s.cwnd,
                    s.inflight,
                    opt(s.ssthresh),
                    opt(s.pacing_bps),
                    s.state
                ),
            ),
            TraceEvent::Rtt(r) => self.event(
                us,
                "rtt",
                format_args!(
                    ",\"latest-us\":{},\"min-us\":{},\"smoothed-us\":{},\"var-us\":{}",
                    r.latest_us, r.min_us, r.smoothed_us, r.var_us
                ),
            ),
            TraceEvent::Queue { bytes, delay_us } => self.event(
                us,
                "queue",
                format_args!(",\"bytes\":{bytes},\"delay-us\":{delay_us}"),
            ),
            TraceEvent::Drop { pn, bytes, at } => self.event(
                us,
                "drop",
                format_args!(",\"pn\":{pn},\"bytes\":{bytes},\"at\":\"{}\"", at.as_str()),
            ),
            TraceEvent::Delivered { bytes } => {
                self.event(us, "delivered", format_args!(",\"bytes\":{bytes}"))
            }
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Err(e) = self.w.flush() {
            self.error.get_or_insert(e);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// `,"space":"<space>"` for a packet outside the application space (the
/// default, left out to keep traces short), else nothing.
struct SpaceField(Space);

impl fmt::Display for SpaceField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Space::Application => Ok(()),
            space => write!(f, ",\"space\":\"{}\"", space_name(space)),
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
