//! Trace-driven link capacity in Mahimahi's format (Netravali et al.,
//! "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC 2015;
//! `mm-link`, `src/packet/link_queue.cc`).
//!
//! A trace file has one line per *delivery opportunity*: a whole number of
//! milliseconds since the link started, non-decreasing, at which the link
//! may deliver one MTU-sized packet's worth of bytes (1500 B). Several
//! lines with the same time are several opportunities at that instant. The
//! file repeats: the last line's time is the period, and opportunity `i` of
//! repetition `c` falls at `c * period + t_i`.
//!
//! As in `mm-link`, an opportunity that finds the queue empty is lost, and
//! the bytes of one opportunity are shared by the packets queued when it
//! fires: a packet smaller than 1500 B leaves the rest for the next packet,
//! a larger one uses as many opportunities as it needs and leaves at the
//! last of them. (`mm-link` counts 1504 B per opportunity, an MTU plus its
//! tunnel's 4-byte header; ramp counts the MTU, since its packets are UDP
//! payloads without that header.)

use std::fmt;
use std::path::Path;
use std::time::Duration;

use ramp_vocab::{Rate, Time};

/// Bytes one delivery opportunity carries: one 1500-byte MTU.
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// Longest accepted period, ms (one day): a longer trace is almost surely
/// microseconds or a timestamp mistaken for milliseconds.
const MAX_PERIOD_MS: u64 = 86_400_000;
/// The slowest mean rate a trace may have: 1 kbit/s, the simulator's
/// slowest `rate` (docs/simulator.md, "Ranges"). Found by fuzzing: a trace
/// of one opportunity at 1 802 879 ms averaged 0 bytes/s.
const MIN_MEAN_BYTES_PER_SEC: u64 = 125;

/// Most opportunities accepted in one file (about 18 Gbit/s for a minute).
const MAX_OPPORTUNITIES: usize = 100_000_000;

/// A delivery schedule read from a Mahimahi trace.
#[derive(Clone, PartialEq, Eq)]
pub struct DeliveryTrace {
    /// Where it came from (for messages and records).
    name: String,
    /// Opportunity times within one period, ms, non-decreasing.
    ms: Vec<u64>,
    /// The last line's time: the trace repeats after it.
    period_ms: u64,
}

/// Name, size, period and a hash of the times: enough to tell traces
/// apart (fleet fingerprints print plans with `{:?}`) without printing
/// every line.
impl fmt::Debug for DeliveryTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // FNV-1a over the times' little-endian bytes.
        let mut hash = ramp_vocab::fnv::Fnv1a64::new();
        for t in &self.ms {
            hash.write(&t.to_le_bytes());
        }
        let hash = hash.finish();
        f.debug_struct("DeliveryTrace")
            .field("name", &self.name)
            .field("opportunities", &self.ms.len())
            .field("period_ms", &self.period_ms)
            .field("fnv1a", &format_args!("{hash:016x}"))
            .finish()
    }
}

/// A trace that could not be read: the file, the line (1-based) when the
/// fault is on one, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The file.
    pub file: String,
    /// The line, when the fault is on one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for TraceError {}

/// The longest trace line accepted, bytes: a line is one whole number of
/// milliseconds (at most 9 digits below [`MAX_PERIOD_MS`]) with some
/// blanks. A longer line is not a trace (`/dev/zero`, a binary file) and is
/// refused as soon as it arrives.
const MAX_LINE_BYTES: usize = 256;

/// Builds a trace one line at a time, checking each as it comes, so a file
/// is never held whole: its memory is the opportunities kept.
struct Builder<'a> {
    file: &'a str,
    ms: Vec<u64>,
}

impl Builder<'_> {
    fn err(&self, line: Option<usize>, message: String) -> TraceError {
        TraceError {
            file: self.file.to_string(),
            line,
            message,
        }
    }

    fn push(&mut self, line: usize, raw: &str) -> Result<(), TraceError> {
        let s = raw.trim();
        let t: u64 = s.parse().map_err(|_| {
            self.err(
                Some(line),
                format!("`{s}` is not a whole number of milliseconds"),
            )
        })?;
        if let Some(&prev) = self.ms.last() {
            if t < prev {
                return Err(self.err(
                    Some(line),
                    format!(
                        "{t} ms is before the previous line's {prev} ms (times must not decrease)"
                    ),
                ));
            }
        }
        if t > MAX_PERIOD_MS {
            return Err(self.err(
                Some(line),
                format!("{t} ms is above the longest accepted trace ({MAX_PERIOD_MS} ms)"),
            ));
        }
        if self.ms.len() == MAX_OPPORTUNITIES {
            return Err(self.err(
                Some(line),
                format!("more than {MAX_OPPORTUNITIES} delivery opportunities"),
            ));
        }
        self.ms.push(t);
        Ok(())
    }

    fn finish(self) -> Result<DeliveryTrace, TraceError> {
        let period_ms = match self.ms.last() {
            None => return Err(self.err(None, "the trace has no delivery opportunities".into())),
            Some(0) => {
                return Err(self.err(
                    Some(self.ms.len()),
                    "the trace must last a non-zero time (its last line is its period)".into(),
                ))
            }
            Some(&p) => p,
        };
        // One opportunity of 1500 bytes per 12 s is 1 kbit/s: a sparser
        // trace has a mean rate that rounds to 0 bytes/s, which sizes a
        // zero buffer and never drains.
        let bytes_per_ms = self.ms.len() as u64 * u64::from(OPPORTUNITY_BYTES);
        if bytes_per_ms.saturating_mul(1000) < MIN_MEAN_BYTES_PER_SEC.saturating_mul(period_ms) {
            return Err(self.err(
                None,
                format!(
                    "{} delivery opportunities of {OPPORTUNITY_BYTES} bytes in {period_ms} ms \
                     average below 1 kbit/s, the slowest rate ramp accepts",
                    self.ms.len()
                ),
            ));
        }
        Ok(DeliveryTrace {
            name: self.file.to_string(),
            ms: self.ms,
            period_ms,
        })
    }
}

impl DeliveryTrace {
    /// Reads the trace file at `path`, line by line (the file is streamed,
    /// never held whole; a line longer than a trace line is refused at once).
    pub fn load(path: &Path) -> Result<DeliveryTrace, TraceError> {
        use ramp_vocab::lines::{CappedLines, LineError};
        let file = path.display().to_string();
        let cannot = |line: Option<usize>, e: &dyn fmt::Display| TraceError {
            file: file.clone(),
            line,
            message: format!("cannot read the trace: {e}"),
        };
        let f = std::fs::File::open(path).map_err(|e| cannot(None, &e))?;
        let mut lines = CappedLines::new(std::io::BufReader::new(f), MAX_LINE_BYTES);
        let mut b = Builder {
            file: &file,
            ms: Vec::new(),
        };
        loop {
            let next = lines.next_line();
            let (n, raw) = match next {
                Ok(Some(l)) => l,
                Ok(None) => break,
                Err(LineError::TooLong(e)) => {
                    return Err(TraceError {
                        file: file.clone(),
                        line: Some(e.line as usize),
                        message: format!("{e}: not a trace"),
                    })
                }
                Err(LineError::Io(e)) => return Err(cannot(None, &e)),
            };
            let n = n as usize;
            let text = std::str::from_utf8(raw).map_err(|_| TraceError {
                file: file.clone(),
                line: Some(n),
                message: "not UTF-8 text".into(),
            })?;
            b.push(n, text)?;
        }
        b.finish()
    }

    /// Parses a trace's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<DeliveryTrace, TraceError> {
        let mut b = Builder {
            file,
            ms: Vec::new(),
        };
        for (i, raw) in text.lines().enumerate() {
            b.push(i + 1, raw)?;
        }
        b.finish()
    }

    /// The file it was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The period after which the trace repeats.
    pub fn period(&self) -> Duration {
        Duration::from_millis(self.period_ms)
    }

    /// Delivery opportunities in one period.
    pub fn opportunities(&self) -> usize {
        self.ms.len()
    }

    /// The long-run rate: one period's bytes over the period.
    pub fn mean_rate(&self) -> Rate {
        let bytes = self.ms.len() as u64 * u64::from(OPPORTUNITY_BYTES);
        Rate::from_bytes_over(bytes, self.period())
    }

    /// When opportunity `k` (counted from the start, over repetitions)
    /// fires.
    pub fn at(&self, k: u64) -> Time {
        let n = self.ms.len() as u64;
        let ms = (k / n) * self.period_ms + self.ms[(k % n) as usize];
        Time::from_millis(ms)
    }

    /// The first opportunity that fires strictly after `t`: the one a
    /// packet arriving at `t` can use. mahimahi's `read_packet` runs
    /// `rationalize(now)`, which uses up every opportunity at or before
    /// the arrival's millisecond, before it enqueues the packet, so an
    /// opportunity at exactly `t` is already gone.
    pub fn first_after(&self, t: Time) -> u64 {
        let n = self.ms.len() as u64;
        let period_ns = self.period_ms * 1_000_000;
        let cycle = t.as_nanos() / period_ns;
        let within = t.as_nanos() - cycle * period_ns;
        let i = self.ms.partition_point(|&m| m * 1_000_000 <= within) as u64;
        cycle * n + i
    }
}

/// A server that delivers at a trace's opportunities: where the last
/// accepted packet ended (opportunity index, bytes it left unused).
#[derive(Clone, Debug)]
pub(crate) struct TraceServer {
    trace: std::sync::Arc<DeliveryTrace>,
    last: Option<(u64, u32)>,
}

impl TraceServer {
    pub(crate) fn new(trace: std::sync::Arc<DeliveryTrace>) -> TraceServer {
        TraceServer { trace, last: None }
    }

    pub(crate) fn trace(&self) -> &DeliveryTrace {
        &self.trace
    }

    /// A packet of `size` bytes arrives at `now`, behind every packet
    /// accepted before it: returns the time of the opportunity that
    /// carries its last byte and of the first one it uses.
    pub(crate) fn accept(&mut self, now: Time, size: u32) -> (Time, Time) {
        let tr = &self.trace;
        // An opportunity still to fire after `now` with bytes left is
        // shared with the packet before; otherwise the first one after
        // now (one at exactly `now` has fired: see `first_after`).
        let (mut k, mut left) = match self.last {
            Some((k, left)) if tr.at(k) > now => {
                if left > 0 {
                    (k, left)
                } else {
                    (k + 1, OPPORTUNITY_BYTES)
                }
            }
            _ => (tr.first_after(now), OPPORTUNITY_BYTES),
        };
        let first = tr.at(k);
        let mut need = size;
        while need > left {
            need -= left;
            k += 1;
            left = OPPORTUNITY_BYTES;
        }
        left -= need;
        self.last = Some((k, left));
        (tr.at(k), first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(text: &str) -> DeliveryTrace {
        DeliveryTrace::parse(text, "t.trace").unwrap()
    }

    /// Found by fuzzing (`sim/mahimahi_trace`): one opportunity at
    /// 1 802 879 ms averages 0 bytes/s, a link that never drains and a
    /// zero buffer. Below 1 kbit/s is refused; exactly 1 kbit/s loads.
    #[test]
    fn a_trace_below_1_kbit_per_s_is_refused() {
        let e = DeliveryTrace::parse("1802879\n", "sparse.trace").unwrap_err();
        assert!(e.to_string().contains("below 1 kbit/s"), "{e}");
        assert!(e.to_string().starts_with("sparse.trace: "), "{e}");
        let t = trace("12000\n");
        assert_eq!(t.mean_rate().bits_per_sec(), 1000);
        assert!(DeliveryTrace::parse("12001\n", "t").is_err());
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        let e = DeliveryTrace::parse("1\n2\nx3\n", "up.trace").unwrap_err();
        assert_eq!(
            e.to_string(),
            "up.trace:3: `x3` is not a whole number of milliseconds"
        );
        let e = DeliveryTrace::parse("5\n4\n", "up.trace").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("must not decrease"), "{e}");
        let e = DeliveryTrace::parse("0\n0\n", "z.trace").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = DeliveryTrace::parse("", "e.trace").unwrap_err();
        assert_eq!(
            e.to_string(),
            "e.trace: the trace has no delivery opportunities"
        );
        let e = DeliveryTrace::parse("1\n-2\n", "n.trace").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = DeliveryTrace::parse("1\n\n3\n", "b.trace").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = DeliveryTrace::load(Path::new("/nonexistent/x.trace")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/x.trace: cannot read"),
            "{e}"
        );
    }

    #[test]
    fn a_file_streams_to_the_same_trace_and_dev_zero_fails_at_its_first_line() {
        let p = std::env::temp_dir().join(format!("ramp-trace-load-{}", std::process::id()));
        let text = "1\r\n1\n  4\n9";
        std::fs::write(&p, text).unwrap();
        let loaded = DeliveryTrace::load(&p).unwrap();
        let mut parsed = DeliveryTrace::parse(text, &p.display().to_string()).unwrap();
        parsed.name = loaded.name.clone();
        assert_eq!(loaded, parsed);
        std::fs::write(&p, b"1\n\xff\n").unwrap();
        let e = DeliveryTrace::load(&p).unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (Some(2), "not UTF-8 text"));
        let _ = std::fs::remove_file(&p);
        if !Path::new("/dev/zero").exists() {
            ramp_vocab::note!(
                "SKIPPED: a_file_streams_to_the_same_trace_and_dev_zero_fails_at_its_first_line: \
                 the /dev/zero half (no /dev/zero here)"
            );
            return;
        }
        let e = DeliveryTrace::load(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        assert!(
            e.message
                .contains("line longer than the maximum of 256 bytes"),
            "{e}"
        );
    }

    #[test]
    fn opportunities_repeat_with_the_last_time_as_period() {
        let t = trace("0\n3\n3\n10\n");
        assert_eq!(t.period(), Duration::from_millis(10));
        let times: Vec<u64> = (0..9).map(|k| t.at(k).as_nanos() / 1_000_000).collect();
        assert_eq!(times, [0, 3, 3, 10, 10, 13, 13, 20, 20]);
        assert_eq!(t.first_after(Time::ZERO), 1);
        assert_eq!(t.first_after(Time::from_micros(1)), 1);
        assert_eq!(t.first_after(Time::from_millis(3)), 3);
        assert_eq!(t.first_after(Time::from_millis(4)), 3);
        assert_eq!(t.first_after(Time::from_micros(10_001)), 5);
        assert_eq!(t.first_after(Time::from_millis(25)), 11);
    }

    #[test]
    fn mean_rate_is_a_period_of_mtus() {
        // 12 Mbit/s = one 1500-byte opportunity per ms.
        let text: String = (1..=1000).map(|i| format!("{i}\n")).collect();
        assert_eq!(trace(&text).mean_rate().bits_per_sec(), 12_000_000);
    }

    #[test]
    fn packets_share_and_span_opportunities_in_order() {
        let tr = std::sync::Arc::new(trace("1\n2\n3\n4\n"));
        let mut s = TraceServer::new(tr);
        let ms = |t: Time| t.as_nanos() / 1_000_000;
        // Two 750-byte packets share the 1 ms opportunity.
        assert_eq!(ms(s.accept(Time::ZERO, 750).0), 1);
        assert_eq!(ms(s.accept(Time::ZERO, 750).0), 1);
        // A 2000-byte packet spans 2 ms and 3 ms; 1000 bytes of 3 ms are left.
        let (dep, first) = s.accept(Time::ZERO, 2000);
        assert_eq!((ms(dep), ms(first)), (3, 2));
        assert_eq!(ms(s.accept(Time::ZERO, 1000).0), 3);
        // The queue is empty after 3 ms: opportunities 4 ms and 5 ms (the
        // repetition's first) pass unused; a packet at 5.5 ms waits for 6.
        assert_eq!(ms(s.accept(Time::from_micros(5_500), 100).0), 6);
    }
}
