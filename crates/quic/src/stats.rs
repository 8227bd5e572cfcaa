//! Stats records of `ramp serve`: one NDJSON line per request, with the
//! keys of docs/formats.md, written and flushed as each request ends.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use ramp_vocab::record_keys as k;
use serde_json::{Map, Value};

/// Appends records to an NDJSON file, one flushed line per record, so a
/// record is on disk once [`StatsWriter::write`] returns.
pub(crate) struct StatsWriter {
    path: PathBuf,
    file: Mutex<BufWriter<File>>,
}

impl StatsWriter {
    /// Creates (truncates) `path`.
    pub(crate) fn create(path: &Path) -> io::Result<StatsWriter> {
        let f = File::create(path)
            .map_err(|e| io::Error::new(e.kind(), format!("stats file {}: {e}", path.display())))?;
        Ok(StatsWriter {
            path: path.to_path_buf(),
            file: Mutex::new(BufWriter::new(f)),
        })
    }

    /// Writes one record as one line and flushes it.
    pub(crate) fn write(&self, record: &Map<String, Value>) -> io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        f.write_all(&line).and_then(|()| f.flush()).map_err(|e| {
            io::Error::new(e.kind(), format!("stats file {}: {e}", self.path.display()))
        })
    }
}

/// The path the records describe (`path.*` and `seed` keys), as given on
/// the command line: the server cannot see the emulated path itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathLabels {
    /// `path.rate-bps`.
    pub rate_bps: Option<u64>,
    /// `path.rtt-ms`.
    pub rtt: Option<Duration>,
    /// `path.queue-ms`.
    pub queue: Option<Duration>,
    /// `path.loss`.
    pub loss: Option<f64>,
    /// `seed`.
    pub seed: Option<u64>,
    /// `group`.
    pub group: Option<String>,
}

impl PathLabels {
    /// Adds the labels that are set to `rec`.
    pub fn add_to(&self, rec: &mut Map<String, Value>) {
        if let Some(v) = self.rate_bps {
            rec.insert(k::PATH_RATE_BPS.into(), v.into());
        }
        if let Some(v) = self.rtt {
            rec.insert(k::PATH_RTT_MS.into(), ms_f(v));
        }
        if let Some(v) = self.queue {
            rec.insert(k::PATH_QUEUE_MS.into(), ms_f(v));
        }
        if let Some(v) = self.loss {
            rec.insert(k::PATH_LOSS.into(), v.into());
        }
        if let Some(v) = self.seed {
            rec.insert(k::SEED.into(), v.into());
        }
        if let Some(v) = &self.group {
            rec.insert(k::GROUP.into(), v.clone().into());
        }
    }
}

/// Whole milliseconds when exact, else a fraction.
fn ms_f(d: Duration) -> Value {
    if d.as_nanos().is_multiple_of(1_000_000) {
        Value::from(d.as_millis() as u64)
    } else {
        Value::from(ramp_vocab::time::duration_millis_f64(d))
    }
}

/// A duration as h2o's integer milliseconds (truncated).
pub(crate) fn ms(d: Duration) -> Value {
    Value::from(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A duration as integer microseconds.
pub(crate) fn us(d: Duration) -> Value {
    Value::from(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}
