//! Per-connection traces: the NDJSON event stream of docs/formats.md.
//!
//! The first line is the `meta` header; every later line is one event with
//! an integer `t-us` and a kind `ev`. Unknown event kinds and unknown keys
//! are ignored (the format says consumers must ignore what they do not know).

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::path::Path;

/// The path a trace ran over, from the header (all optional: real runs may
/// not know them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathInfo {
    /// Bottleneck rate in bit/s.
    pub rate_bps: Option<f64>,
    /// Base (idle) round-trip time in ms.
    pub rtt_ms: Option<f64>,
    /// Drop-tail queue at the link rate, in ms.
    pub queue_ms: Option<f64>,
    /// Random loss probability.
    pub loss: Option<f64>,
}

/// The `meta` header line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceMeta {
    /// Controller name, e.g. `cubic+rapidstart`.
    pub cc: String,
    /// Scenario name, e.g. `seed-100m`.
    pub scenario: Option<String>,
    /// Path seed.
    pub seed: Option<u64>,
    /// Path parameters.
    pub path: PathInfo,
    /// Maximum datagram size in bytes.
    pub mds: Option<u64>,
    /// Object size in bytes.
    pub content_length: Option<u64>,
    /// The A/B arm name, when the producer wrote one (`group`).
    pub group: Option<String>,
}

impl TraceMeta {
    /// A one-line description of the path, e.g. `100 Mbit/s, RTT 30 ms, queue 30 ms`.
    pub fn path_summary(&self) -> String {
        let mut parts = Vec::new();
        if let Some(r) = self.path.rate_bps {
            parts.push(crate::units::format_rate(r));
        }
        if let Some(r) = self.path.rtt_ms {
            parts.push(format!("RTT {} ms", crate::units::format_number(r)));
        }
        if let Some(q) = self.path.queue_ms {
            parts.push(format!("queue {} ms", crate::units::format_number(q)));
        }
        if let Some(l) = self.path.loss {
            if l > 0.0 {
                parts.push(format!("loss {}%", crate::units::format_number(l * 100.0)));
            }
        }
        if let Some(c) = self.content_length {
            parts.push(format!("object {}", crate::units::format_bytes(c as f64)));
        }
        parts.join(", ")
    }

    /// The name to show for this trace in a legend or title: the arm if
    /// known, else the controller without its options
    /// (`newreno+rapidstart`). A canonical spec is too long for a legend;
    /// [`TraceMeta::spec`] gives it for a key or caption.
    pub fn label(&self) -> String {
        match &self.group {
            Some(g) if !g.is_empty() => g.clone(),
            _ => short_controller(&self.cc),
        }
    }

    /// The full controller spec, when the label does not already say all
    /// of it.
    pub fn spec(&self) -> Option<&str> {
        (!self.cc.is_empty() && self.label() != self.cc).then_some(self.cc.as_str())
    }
}

/// A controller spec without its options: `newreno(iw=30x1472,…)+rapidstart(k=11/18)`
/// becomes `newreno+rapidstart`.
pub fn short_controller(spec: &str) -> String {
    let mut out = String::with_capacity(spec.len());
    let mut depth = 0usize;
    for c in spec.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// A packet sent (`sent`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sent {
    /// µs since connection start.
    pub t_us: u64,
    /// Packet number.
    pub pn: u64,
    /// Packet size on the wire.
    pub bytes: u64,
    /// Stream data carried: (offset, len), if any.
    pub stream: Option<(u64, u64)>,
    /// This packet retransmits data sent before.
    pub retx: bool,
}

/// A packet acknowledged (`acked`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Acked {
    /// µs since connection start.
    pub t_us: u64,
    /// Packet number.
    pub pn: u64,
    /// Packet size on the wire.
    pub bytes: u64,
}

/// A packet declared lost (`lost`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lost {
    /// µs since connection start.
    pub t_us: u64,
    /// Packet number.
    pub pn: u64,
    /// Packet size on the wire.
    pub bytes: u64,
    /// Stream data carried: (offset, len), if any.
    pub stream: Option<(u64, u64)>,
}

/// Controller state (`cc`).
#[derive(Debug, Clone, PartialEq)]
pub struct CcSample {
    /// µs since connection start.
    pub t_us: u64,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Bytes in flight.
    pub inflight: u64,
    /// Slow-start threshold, bytes (`None` while infinite).
    pub ssthresh: Option<u64>,
    /// Pacing rate, bit/s (`None` when unpaced).
    pub pacing_bps: Option<u64>,
    /// Controller state name.
    pub state: String,
}

/// An RTT sample (`rtt`), all in µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RttSample {
    /// µs since connection start.
    pub t_us: u64,
    /// latest_rtt.
    pub latest_us: u64,
    /// min_rtt.
    pub min_us: u64,
    /// smoothed_rtt.
    pub smoothed_us: u64,
}

/// Bottleneck queue depth (`queue`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueSample {
    /// µs since connection start.
    pub t_us: u64,
    /// Bytes queued.
    pub bytes: u64,
    /// Queueing delay of the queue's content, µs.
    pub delay_us: u64,
}

/// In-order bytes available at the receiver (`delivered`, cumulative).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Delivered {
    /// µs since connection start.
    pub t_us: u64,
    /// Cumulative in-order stream bytes.
    pub bytes: u64,
}

/// One connection's trace, split by event kind, each in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// The file or name it was read from.
    pub source: String,
    /// Header.
    pub meta: TraceMeta,
    /// `sent` events.
    pub sent: Vec<Sent>,
    /// `acked` events.
    pub acked: Vec<Acked>,
    /// `lost` events.
    pub lost: Vec<Lost>,
    /// `cc` events.
    pub cc: Vec<CcSample>,
    /// `rtt` events.
    pub rtt: Vec<RttSample>,
    /// `queue` events.
    pub queue: Vec<QueueSample>,
    /// `delivered` events.
    pub delivered: Vec<Delivered>,
}

impl Trace {
    /// The last event time in µs (0 for an empty trace).
    pub fn end_us(&self) -> u64 {
        let last = |v: Option<u64>| v.unwrap_or(0);
        [
            last(self.sent.last().map(|e| e.t_us)),
            last(self.acked.last().map(|e| e.t_us)),
            last(self.lost.last().map(|e| e.t_us)),
            last(self.cc.last().map(|e| e.t_us)),
            last(self.rtt.last().map(|e| e.t_us)),
            last(self.queue.last().map(|e| e.t_us)),
            last(self.delivered.last().map(|e| e.t_us)),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }
}

/// One line's fields, with its location for error messages.
struct Line<'a> {
    obj: &'a Map<String, Value>,
    source: &'a str,
    line: usize,
}

impl Line<'_> {
    fn err(&self, message: String) -> Error {
        Error::input(self.source, self.line, message)
    }

    fn u64(&self, key: &str) -> Result<u64> {
        match self.obj.get(key) {
            Some(v) => v.as_u64().ok_or_else(|| {
                self.err(format!(
                    "field `{key}` must be a non-negative integer, got {v}"
                ))
            }),
            None => Err(self.err(format!("missing field `{key}`"))),
        }
    }

    /// An optional integer: absent and `null` both give `None`.
    fn opt_u64(&self, key: &str) -> Result<Option<u64>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                self.err(format!(
                    "field `{key}` must be a non-negative integer or null, got {v}"
                ))
            }),
        }
    }

    fn opt_f64(&self, obj: &Map<String, Value>, key: &str) -> Result<Option<f64>> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.err(format!("field `{key}` must be a number, got {v}"))),
        }
    }

    fn opt_str(&self, key: &str) -> Result<Option<String>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.err(format!("field `{key}` must be a string, got {v}"))),
        }
    }

    fn stream(&self) -> Result<Option<(u64, u64)>> {
        match (self.opt_u64("offset")?, self.opt_u64("len")?) {
            (Some(o), Some(l)) => Ok(Some((o, l))),
            (None, None) => Ok(None),
            _ => Err(self.err("fields `offset` and `len` must come together".to_string())),
        }
    }
}

fn parse_meta(l: &Line<'_>) -> Result<TraceMeta> {
    let cc = l
        .opt_str("cc")?
        .ok_or_else(|| l.err("missing field `cc` in the meta header".to_string()))?;
    let path = match l.obj.get("path") {
        None | Some(Value::Null) => PathInfo::default(),
        Some(Value::Object(p)) => PathInfo {
            rate_bps: l.opt_f64(p, "rate-bps")?,
            rtt_ms: l.opt_f64(p, "rtt-ms")?,
            queue_ms: l.opt_f64(p, "queue-ms")?,
            loss: l.opt_f64(p, "loss")?,
        },
        Some(v) => return Err(l.err(format!("field `path` must be an object, got {v}"))),
    };
    Ok(TraceMeta {
        cc,
        scenario: l.opt_str("scenario")?,
        seed: l.opt_u64("seed")?,
        path,
        mds: l.opt_u64("mds")?,
        content_length: l.opt_u64("content_length")?,
        group: l.opt_str("group")?,
    })
}

/// Parses a trace from NDJSON text; `source` names it in errors.
pub fn parse_trace(text: &str, source: &str) -> Result<Trace> {
    trace_from(text.as_bytes(), source)
}

/// Parses a trace line by line from `reader` (lines bounded as they
/// arrive, see [`crate::record::for_each_line`]).
fn trace_from(reader: impl std::io::BufRead, source: &str) -> Result<Trace> {
    let mut trace = Trace {
        source: source.to_string(),
        ..Trace::default()
    };
    let mut have_meta = false;
    crate::record::for_each_line(reader, source, |line, raw| {
        if raw.trim().is_empty() {
            return Ok(());
        }
        let value: Value = serde_json::from_str(raw)
            .map_err(|e| Error::input(source, line, format!("invalid JSON: {e}")))?;
        let Value::Object(obj) = &value else {
            return Err(Error::input(
                source,
                line,
                "expected a JSON object (one event per line)",
            ));
        };
        let l = Line { obj, source, line };
        let ev = l
            .opt_str("ev")?
            .ok_or_else(|| l.err("missing field `ev`".to_string()))?;
        if !have_meta {
            if ev != "meta" {
                return Err(l.err(format!(
                    "the first line must be the `meta` header, found `ev`=\"{ev}\""
                )));
            }
            trace.meta = parse_meta(&l)?;
            have_meta = true;
            return Ok(());
        }
        match ev.as_str() {
            "sent" => trace.sent.push(Sent {
                t_us: l.u64("t-us")?,
                pn: l.u64("pn")?,
                bytes: l.u64("bytes")?,
                stream: l.stream()?,
                retx: match obj.get("retx") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(v) => {
                        return Err(l.err(format!("field `retx` must be a boolean, got {v}")))
                    }
                },
            }),
            "acked" => trace.acked.push(Acked {
                t_us: l.u64("t-us")?,
                pn: l.u64("pn")?,
                bytes: l.u64("bytes")?,
            }),
            "lost" => trace.lost.push(Lost {
                t_us: l.u64("t-us")?,
                pn: l.u64("pn")?,
                bytes: l.u64("bytes")?,
                stream: l.stream()?,
            }),
            "cc" => trace.cc.push(CcSample {
                t_us: l.u64("t-us")?,
                cwnd: l.u64("cwnd")?,
                inflight: l.u64("inflight")?,
                ssthresh: l.opt_u64("ssthresh")?,
                pacing_bps: l.opt_u64("pacing-bps")?,
                state: l.opt_str("state")?.unwrap_or_default(),
            }),
            "rtt" => trace.rtt.push(RttSample {
                t_us: l.u64("t-us")?,
                latest_us: l.u64("latest-us")?,
                min_us: l.u64("min-us")?,
                smoothed_us: l.u64("smoothed-us")?,
            }),
            "queue" => trace.queue.push(QueueSample {
                t_us: l.u64("t-us")?,
                bytes: l.u64("bytes")?,
                delay_us: l.u64("delay-us")?,
            }),
            "delivered" => trace.delivered.push(Delivered {
                t_us: l.u64("t-us")?,
                bytes: l.u64("bytes")?,
            }),
            "meta" => return Err(l.err("a second `meta` header".to_string())),
            // Unknown kinds are ignored: producers may add events.
            _ => {}
        }
        Ok(())
    })?;
    if !have_meta {
        return Err(Error::input(source, 0, "empty trace: no `meta` header"));
    }
    Ok(trace)
}

/// Reads a trace file.
pub fn read_trace(path: &Path) -> Result<Trace> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, &e))?;
    trace_from(
        std::io::BufReader::with_capacity(1 << 20, file),
        &path.display().to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"{"ev":"meta","cc":"rapidstart","scenario":"seed-100m","seed":1,"path":{"rate-bps":100000000,"rtt-ms":30,"queue-ms":30,"loss":0},"mds":1200,"content_length":3000000}
{"ev":"sent","t-us":30512,"pn":17,"bytes":1252,"offset":18000,"len":1200,"retx":false}
{"ev":"acked","t-us":61020,"pn":17,"bytes":1252}
{"ev":"lost","t-us":90000,"pn":40,"bytes":1252,"offset":46800,"len":1200}
{"ev":"cc","t-us":61020,"cwnd":36000,"inflight":24000,"ssthresh":null,"pacing-bps":9600000,"state":"slow_start"}
{"ev":"rtt","t-us":61020,"latest-us":30508,"min-us":30508,"smoothed-us":30508}
{"ev":"queue","t-us":61020,"bytes":15000,"delay-us":1200}
{"ev":"delivered","t-us":61100,"bytes":19200}
{"ev":"future-kind","t-us":61200}
"#;

    #[test]
    fn parses_the_formats_md_example() {
        let t = parse_trace(EXAMPLE, "t").unwrap();
        assert_eq!(t.meta.cc, "rapidstart");
        assert_eq!(t.meta.path.rate_bps, Some(100e6));
        assert_eq!(t.meta.content_length, Some(3_000_000));
        assert_eq!(t.sent[0].stream, Some((18000, 1200)));
        assert!(!t.sent[0].retx);
        assert_eq!(t.acked[0].pn, 17);
        assert_eq!(t.lost[0].stream, Some((46800, 1200)));
        assert_eq!(t.cc[0].ssthresh, None);
        assert_eq!(t.cc[0].pacing_bps, Some(9_600_000));
        assert_eq!(t.rtt[0].smoothed_us, 30508);
        assert_eq!(t.queue[0].delay_us, 1200);
        assert_eq!(t.delivered[0].bytes, 19200);
        assert_eq!(t.end_us(), 90000);
    }

    #[test]
    fn missing_field_names_file_line_and_field() {
        let text = "{\"ev\":\"meta\",\"cc\":\"x\"}\n{\"ev\":\"sent\",\"t-us\":1,\"pn\":2}\n";
        let err = parse_trace(text, "a.ndjson").unwrap_err().to_string();
        assert_eq!(err, "a.ndjson:2: missing field `bytes`");
    }

    #[test]
    fn header_must_come_first() {
        let err = parse_trace("{\"ev\":\"sent\"}\n", "a")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("a:1: the first line must be the `meta` header"),
            "{err}"
        );
        let err = parse_trace("", "a").unwrap_err().to_string();
        assert!(err.contains("no `meta` header"), "{err}");
    }

    #[test]
    fn wrong_type_is_reported() {
        let text = "{\"ev\":\"meta\",\"cc\":\"x\"}\n{\"ev\":\"queue\",\"t-us\":-1,\"bytes\":1,\"delay-us\":1}\n";
        let err = parse_trace(text, "q").unwrap_err().to_string();
        assert!(
            err.starts_with("q:2: field `t-us` must be a non-negative integer"),
            "{err}"
        );
    }
}
