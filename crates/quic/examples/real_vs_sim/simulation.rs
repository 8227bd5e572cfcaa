//! The simulated side of a row: one `ramp-sim` connection on the same path,
//! its data sends read back from its NDJSON trace.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ramp_sim::{run_connection, Scenario, TraceSink};

use super::paths::{Path, SIM_SEED};
use super::startup::{first_flight, rounds};
use super::SIZE;

/// A Write that appends to a shared buffer (for the simulator's trace).
#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub(crate) struct Sim {
    pub(crate) rounds: Vec<u64>,
    pub(crate) ttlb: Duration,
    pub(crate) lost: u64,
    pub(crate) flight_bytes: u64,
    pub(crate) flight_span_us: u64,
}

/// One simulation of `path`; `batching` = Some(seed) turns on ACK batching
/// at the sender (the real server's measured wake-ups, `ramp_sim::WakeupLatency`)
/// with that seed; `keep_trace` writes its NDJSON trace to the temporary
/// directory.
pub(crate) fn sim(
    path: Path,
    cc: &str,
    pacer: &str,
    batching: Option<u64>,
    keep_trace: bool,
) -> Result<Sim, Box<dyn std::error::Error + Send + Sync>> {
    // `client_closes`: `ramp get` closes the connection once it has the
    // response, and quinn sends the ACK it owes with its CONNECTION_CLOSE
    // (docs/real-mode.md, "The last ACK").
    let toml = format!(
        "seed = {}\n[path]\nrate = \"{}mbit\"\nrtt = \"{}ms\"\nqueue = \"{}ms\"\nloss = \"{}%\"\naqm = \"{}\"\nack_batching = \"{}\"\n{}[endpoint]\nmds = 1200\niw = 10\npacer = \"{pacer}\"\nclient_closes = true\n",
        batching.unwrap_or(1),
        path.rate_mbit,
        path.rtt_ms,
        path.queue_ms,
        path.loss * 100.0,
        path.aqm,
        if batching.is_some() { "real-mode" } else { "off" },
        path.sim_tables(),
    );
    let mut sc = Scenario::from_toml(&toml, path.name).map_err(|e| e.message)?;
    sc.size_bytes = SIZE;
    let spec = ramp_cc::spec::parse(cc)?;
    let buf = Buf::default();
    let mut trace = TraceSink::off().with_ndjson(Box::new(buf.clone()));
    let rec = run_connection(&sc, &spec, SIM_SEED, &mut trace)?;
    trace.finish()?;
    let text = String::from_utf8(buf.0.lock().map_err(|_| "poisoned")?.clone())?;
    if keep_trace {
        // `--trace`: the simulator's side, to set against the real
        // controller's trace and the relay's log.
        static RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!(
            "ramp-real-vs-sim-sim-{}-{n}.ndjson",
            std::process::id()
        ));
        std::fs::write(&p, &text)?;
        eprintln!("sim cc={cc} path={} trace={}", path.name, p.display());
    }
    // Data packets (those carrying stream bytes) of the server.
    let mut sends = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line)?;
        if v["ev"] == "sent" && v.get("offset").is_some() {
            sends.push((
                v["t-us"].as_u64().unwrap_or(0),
                v["bytes"].as_u64().unwrap_or(0),
            ));
        }
    }
    let from = sends.first().map(|s| s.0).unwrap_or(0);
    let (flight_bytes, flight_span_us) = first_flight(&sends, from, path.rtt_ms * 1000);
    Ok(Sim {
        rounds: rounds(&sends, from, path.rtt_ms * 1000, 6),
        ttlb: Duration::from_micros(rec.ttlb_us),
        lost: rec.packets_lost,
        flight_bytes,
        flight_span_us,
    })
}
