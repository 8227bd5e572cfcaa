//! `ramp compare`'s trace files and progress: a byte cap per trace, and a
//! progress bar in bytes delivered for large objects.
//!
//! A trace grows with the object: about a third of its size (10 MB per arm
//! for `--size 30MB`), so `--size 10GB` wrote 8.9 GB, and the report then
//! read every trace into memory. Each arm's trace stops at
//! [`MAX_TRACE_BYTES`], at a line boundary, and the run says so: the charts
//! then cover the start of the transfer, the phase ramp is about, while
//! the table and records cover all of it. `--no-traces` writes none.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use ramp_sim::trace::{TraceEvent, TraceOutput};

/// The largest trace written per arm: 128 MiB (objects up to about
/// 380 MB are traced whole).
pub const MAX_TRACE_BYTES: u64 = 128 << 20;

/// From this object size on, progress is shown in bytes delivered (on a
/// terminal only).
pub const PROGRESS_FROM_BYTES: u64 = 100_000_000;

/// A trace writer that keeps whole lines up to a byte cap and drops the
/// rest. The NDJSON trace hands it one line per `write_all`, so the file
/// it leaves is always a prefix of whole lines.
pub struct CappedTrace<W> {
    inner: W,
    written: u64,
    cap: u64,
    truncated: Arc<AtomicBool>,
}

impl<W: Write> CappedTrace<W> {
    /// Writes to `inner` up to `cap` bytes; `truncated` is set once a line
    /// is dropped.
    pub fn new(inner: W, cap: u64, truncated: Arc<AtomicBool>) -> Self {
        CappedTrace {
            inner,
            written: 0,
            cap,
            truncated,
        }
    }
}

impl<W: Write> Write for CappedTrace<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.truncated.load(Ordering::Relaxed) || self.written + buf.len() as u64 > self.cap {
            // Past the cap: dropped, and everything after it, so the file
            // stays a prefix of the trace.
            self.truncated.store(true, Ordering::Relaxed);
            return Ok(buf.len());
        }
        self.inner.write_all(buf)?;
        self.written += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A trace output that only counts the bytes delivered so far, for the
/// progress bar.
pub struct DeliveredCounter(pub Arc<AtomicU64>);

impl TraceOutput for DeliveredCounter {
    fn event(&mut self, _us: u64, ev: &TraceEvent<'_>) {
        if let TraceEvent::Delivered { bytes } = ev {
            self.0.store(*bytes, Ordering::Relaxed);
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The progress of a compare run: arms done, or, for large objects on a
/// terminal, bytes delivered over all arms.
pub struct Progress {
    /// The bar (hidden when stderr is not a terminal).
    pub bar: ProgressBar,
    /// Bytes delivered per arm, when counted.
    pub delivered: Option<Vec<Arc<AtomicU64>>>,
    stop: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Progress for `arms` arms of `size` bytes each (plus one step for
    /// the report when `report`).
    pub fn new(arms: usize, size: u64, report: bool) -> Progress {
        use std::io::IsTerminal as _;
        let stop = Arc::new(AtomicBool::new(false));
        let by_bytes = size >= PROGRESS_FROM_BYTES && io::stderr().is_terminal();
        if !by_bytes {
            let bar = ProgressBar::new(arms as u64 + u64::from(report));
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            return Progress {
                bar,
                delivered: None,
                stop,
                ticker: None,
            };
        }
        let total = size.saturating_mul(arms as u64);
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{bar:30}] {bytes}/{total_bytes} delivered, {elapsed} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        let slots: Vec<Arc<AtomicU64>> = (0..arms).map(|_| Arc::default()).collect();
        let (b, s, st) = (bar.clone(), slots.clone(), stop.clone());
        let ticker = std::thread::Builder::new()
            .name("ramp-progress".into())
            .spawn(move || {
                while !st.load(Ordering::Relaxed) {
                    b.set_position(s.iter().map(|a| a.load(Ordering::Relaxed)).sum());
                    std::thread::sleep(Duration::from_millis(200));
                }
            })
            .ok();
        Progress {
            bar,
            delivered: Some(slots),
            stop,
            ticker,
        }
    }

    /// Counts one arm done (the arm-count bar only).
    pub fn arm_done(&self) {
        if self.delivered.is_none() {
            self.bar.inc(1);
        }
    }

    /// Clears the bar.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_trace_keeps_whole_lines_up_to_the_cap() {
        let flag = Arc::new(AtomicBool::new(false));
        let mut w = CappedTrace::new(Vec::new(), 10, flag.clone());
        for line in ["abcd\n", "efgh\n", "ij\n", "k\n"] {
            w.write_all(line.as_bytes()).unwrap();
        }
        // "ij\n" would pass 10 bytes: it and every later line are dropped.
        assert_eq!(w.inner, b"abcd\nefgh\n");
        assert!(flag.load(Ordering::Relaxed));
    }
}
