//! Real transfers through the relay against ramp-sim on the same paths:
//! the table of docs/real-mode.md (run by bench/real/run.sh).
//!
//! For each scenario × controller: real 2 MB downloads (ramp serve's
//! stack in-process, the relay, ramp get's client) and two simulations of
//! the same path, one with the pacer the real server runs and one with the
//! other for reference. Besides TTLB and losses it measures the first data
//! flight: the bytes the server sends in the first RTT after its first
//! data send, and over how long it spreads them (full-RTT pacing spreads a
//! Rapid Start first flight over the whole RTT; quinn's pacer does not).
//!
//! The real server paces as `ramp serve` does by default, at the
//! controller's rate (`--pacing controller`), and is compared with the
//! simulator's leaky-bucket pacer; `--pacing quinn` runs stock quinn's pacer
//! against the simulator's model of it. `--runs N` repeats each real
//! download N times and reports the median TTLB with the fastest and
//! slowest (first flight and growth from the median run); the simulator
//! is deterministic.
//!
//! Usage: cargo run --release -p ramp-quic --example real_vs_sim --
//!   [--quick] [--runs N] [--pacing controller|quinn] [--path NAME]... [--cc SPEC]...
//!   [--cellular] (every path's downlink cellular, CellReplay's defaults:
//!               the relay's `--cellular` against the simulator's
//!               `[path.cellular]`, the two drawing the same delay drift)
//!   [--wifi-jitter] (every path's downlink with WiFiSeer's delay
//!               variation: `--wifi-jitter` against `[path.jitter]`)
//!   [--trace]   (each real controller's sends, ACK frames and congestion
//!               events on stderr, and the relay's per-datagram log and the
//!               simulator's NDJSON trace kept in the temporary directory:
//!               docs/real-pacing.md, ACK batching)

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use ramp_cc::{AckFrameSummary, CongestionEvent, Controller, Rate, RttEstimator, Time};
use ramp_quic::client::{self, GetConfig};
use ramp_quic::relay::{Relay, RelayConfig};
use ramp_quic::server::{AckTiming, SendPacing, ServeConfig, ServeOptions, Server};
use ramp_quic::CcChoice;
use ramp_quic::PathLabels;
use ramp_quic::{Identity, Trust};
use ramp_sim::{run_connection, Scenario, TraceSink};
use ramp_vocab::record_keys as k;

const SIZE: u64 = 2_000_000;

/// The process's clock origin for `--trace`'s `wall-us` and the relay
/// log's offset, so ACK processing can be set against datagram arrivals.
static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Microseconds since [`EPOCH`].
fn wall_us(t: Instant) -> f64 {
    t.saturating_duration_since(*EPOCH.get_or_init(Instant::now))
        .as_secs_f64()
        * 1e6
}

#[path = "real_vs_sim/fidelity.rs"]
mod fidelity;
#[path = "real_vs_sim/paths.rs"]
mod paths;

use paths::{paths, Path, SIM_SEED};

/// Send times of a connection, recorded around the real controller.
#[derive(Debug)]
struct Recording {
    inner: Box<dyn Controller>,
    sends: Arc<Mutex<Vec<(Instant, u64)>>>,
    /// The controller's time of every ACK frame.
    acks: Arc<Mutex<Vec<Time>>>,
    /// `--trace`: every send, ACK frame and congestion event on stderr,
    /// in the controller's time.
    trace: bool,
}

impl Controller for Recording {
    fn on_packet_sent(&mut self, now: Time, pn: Option<u64>, bytes: u64, in_flight: u64) {
        if let Ok(mut s) = self.sends.lock() {
            s.push((Instant::now(), bytes));
        }
        if self.trace {
            eprintln!(
                "sent t={:.3}ms pn={pn:?} bytes={bytes} inflight={in_flight}",
                now.as_millis_f64()
            );
        }
        self.inner.on_packet_sent(now, pn, bytes, in_flight)
    }
    fn on_ack_frame_end(&mut self, now: Time, s: &AckFrameSummary, rtt: &RttEstimator) {
        self.inner.on_ack_frame_end(now, s, rtt);
        if let Ok(mut a) = self.acks.lock() {
            a.push(now);
        }
        if self.trace {
            eprintln!(
                "ack t={:.3}ms wall-us={:.1} inflight={} cwnd={} pacing-bps={:?} srtt-us={} phase={}",
                now.as_millis_f64(),
                wall_us(Instant::now()),
                s.bytes_in_flight,
                self.inner.window(),
                self.inner.pacing_rate(rtt).map(|r| r.bits_per_sec()),
                rtt.smoothed().as_micros(),
                self.inner.phase()
            );
        }
    }
    fn on_congestion_event(&mut self, now: Time, e: &CongestionEvent, rtt: &RttEstimator) {
        if self.trace {
            eprintln!("congestion t={:.3}ms {:?}", now.as_millis_f64(), e.signal);
        }
        self.inner.on_congestion_event(now, e, rtt)
    }
    // Everything else is the real controller's, its pacing burst and a
    // resumed path included.
    ramp_cc::forward_controller!(|c| c.inner;
        on_packet_acked, on_spurious_congestion, on_mtu_update, resume_from, window,
        ssthresh, pacing_rate, pacing_burst, phase, metrics, initial_window, name);
    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(Recording {
            inner: self.inner.clone_box(),
            sends: Arc::new(Mutex::new(Vec::new())),
            acks: Arc::new(Mutex::new(Vec::new())),
            trace: self.trace,
        })
    }
}

/// The first flight: bytes sent in [first data send, +1 RTT), and the
/// time from the first to the last of those sends.
fn first_flight(sends_us: &[(u64, u64)], from_us: u64, rtt_us: u64) -> (u64, u64) {
    let mut it = sends_us.iter().filter(|(t, _)| *t >= from_us);
    let Some(&(t0, b0)) = it.next() else {
        return (0, 0);
    };
    let mut bytes = b0;
    let mut last = t0;
    for &(t, b) in it {
        if t >= t0 + rtt_us {
            break;
        }
        bytes += b;
        last = t;
    }
    (bytes, last - t0)
}

/// Bytes sent in each of the first `n` RTT-long bins from the first data
/// send on: the per-round growth of startup.
fn rounds(sends_us: &[(u64, u64)], from_us: u64, rtt_us: u64, n: usize) -> Vec<u64> {
    let mut out = vec![0u64; n];
    let mut it = sends_us.iter().filter(|(t, _)| *t >= from_us).peekable();
    let Some(&&(t0, _)) = it.peek() else {
        return out;
    };
    for &(t, b) in it {
        let k = ((t - t0) / rtt_us.max(1)) as usize;
        if let Some(slot) = out.get_mut(k) {
            *slot += b;
        }
    }
    out
}

fn fmt_rounds(r: &[u64]) -> String {
    r.iter()
        .map(|b| format!("{:.0}", *b as f64 / 1e3))
        .collect::<Vec<_>>()
        .join(" ")
}

struct Real {
    rounds: Vec<u64>,
    ttlb: Duration,
    lost: u64,
    flight_bytes: u64,
    flight_span_us: u64,
    /// ACK frames the controller saw, and how many of them shared their
    /// time with another frame.
    ack_frames: u64,
    ack_frames_shared: u64,
    /// The relay's counters (its drops, and how late it sent against its
    /// model): losses quinn declared beyond the link's drops, or late
    /// sends, point at the host rather than the model.
    relay: ramp_quic::relay::RelayCounters,
}

/// ACK frames, and those whose time another frame has too.
fn shared_times(times: &[Time]) -> (u64, u64) {
    let mut counts = std::collections::BTreeMap::<Time, u64>::new();
    for t in times {
        *counts.entry(*t).or_default() += 1;
    }
    let shared = counts.values().filter(|&&n| n > 1).sum();
    (times.len() as u64, shared)
}

async fn real(
    path: Path,
    cc: &str,
    o: &Options,
) -> Result<Real, Box<dyn std::error::Error + Send + Sync>> {
    let (pacing, ack_timing, trace) = (o.pacing, o.ack_timing, o.trace);
    let base = CcChoice::parse(cc)?;
    let sends = Arc::new(Mutex::new(Vec::new()));
    let acks = Arc::new(Mutex::new(Vec::new()));
    let (sends2, acks2) = (sends.clone(), acks.clone());
    let build = base.build.clone();
    let choice = CcChoice::custom(
        base.name.clone(),
        Arc::new(move |mtu| {
            Box::new(Recording {
                inner: build(mtu),
                sends: sends2.clone(),
                acks: acks2.clone(),
                trace,
            }) as Box<dyn Controller>
        }),
    );
    let stats =
        std::env::temp_dir().join(format!("ramp-real-vs-sim-{}.ndjson", std::process::id()));
    let server = Server::bind_with(
        ServeConfig {
            listen: "127.0.0.1:0".parse()?,
            cc: choice,
            identity: Identity::self_signed()?,
            root: None,
            stats: Some(stats.clone()),
            labels: PathLabels::default(),
            idle_timeout: Duration::from_secs(5),
        },
        ServeOptions {
            pacing,
            ack_timing,
            ..ServeOptions::default()
        },
    )?;
    let addr = server.local_addr()?;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.run(async move {
        let _ = stop_rx.await;
    }));
    let mut relay_cfg = RelayConfig::symmetric(
        "127.0.0.1:0".parse()?,
        addr,
        Rate::from_bits_per_sec(path.rate_mbit * 1_000_000),
        Duration::from_millis(path.rtt_ms),
        Duration::from_millis(path.queue_ms),
        path.loss,
        1,
    );
    path.configure_relay(&mut relay_cfg)?;
    let relay_log = trace.then(|| {
        static RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::env::temp_dir().join(format!(
            "ramp-real-vs-sim-relay-{}-{n}.ndjson",
            std::process::id()
        ))
    });
    relay_cfg.log = relay_log.clone();
    let relay = Relay::start(relay_cfg)?;
    if let Some(p) = &relay_log {
        eprintln!(
            "run cc={cc} path={} relay-log={} relay-epoch-us={:.1}",
            path.name,
            p.display(),
            wall_us(relay.epoch())
        );
    }
    let cfg = GetConfig {
        url: format!("https://{}/bytes/{SIZE}", relay.local_addr()).parse()?,
        n: 1,
        concurrency: 1,
        trust: Trust::Insecure,
        timeout: Duration::from_secs(60),
    };
    let started = Instant::now();
    let res = client::get(&cfg).await?;
    let r = res.first().ok_or("no result")?;
    if !r.is_ok() {
        return Err(format!("{cc}: {r:?}").into());
    }
    let mut rec = None;
    for _ in 0..100 {
        let text = std::fs::read_to_string(&stats).unwrap_or_default();
        if let Some(line) = text.lines().next() {
            rec = Some(serde_json::from_str::<serde_json::Value>(line)?);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = stop_tx.send(());
    let _ = task.await;
    let relay_counters = relay.stop()?;
    let rec = rec.ok_or("no stats record")?;
    let ttlb = Duration::from_micros(rec[k::TTLB_US].as_u64().ok_or("no ttlb")?);
    let lost = rec[k::PACKETS_LOST].as_u64().unwrap_or(0);
    // The request reaches the server one one-way delay after the client's
    // handshake; the client starts its request right after the handshake,
    // so data flows from about 1.5 RTT after `started` on. Sends before
    // that are the handshake.
    let sends: Vec<(u64, u64)> = sends
        .lock()
        .map_err(|_| "poisoned")?
        .iter()
        .map(|(t, b)| (t.saturating_duration_since(started).as_micros() as u64, *b))
        .collect();
    let rtt_us = path.rtt_ms * 1000;
    let (flight_bytes, flight_span_us) = first_flight(&sends, rtt_us * 3 / 2, rtt_us);
    let _ = std::fs::remove_file(&stats);
    let (ack_frames, ack_frames_shared) = shared_times(&acks.lock().map_err(|_| "poisoned")?);
    Ok(Real {
        rounds: rounds(&sends, rtt_us * 3 / 2, rtt_us, 6),
        ttlb,
        lost,
        flight_bytes,
        flight_span_us,
        ack_frames,
        ack_frames_shared,
        relay: relay_counters,
    })
}

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

struct Sim {
    rounds: Vec<u64>,
    ttlb: Duration,
    lost: u64,
    flight_bytes: u64,
    flight_span_us: u64,
}

/// One simulation of `path`; `batching` = Some(seed) turns on ACK batching
/// at the sender (the real server's measured wake-ups, `ramp_sim::WakeupLatency`)
/// with that seed; `keep_trace` writes its NDJSON trace to the temporary
/// directory.
fn sim(
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

/// Growth per round: each round's bytes over the previous round's, for
/// the rounds where both are at least 10 packets (smaller ones are the
/// first flight's and the tail's).
fn fmt_growth(r: &[u64]) -> String {
    r.windows(2)
        .filter(|w| w[0] >= 12_000 && w[1] >= 12_000)
        .map(|w| format!("x{:.2}", w[1] as f64 / w[0] as f64))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Command-line options.
struct Options {
    quick: bool,
    runs: usize,
    pacing: SendPacing,
    ack_timing: AckTiming,
    paths: Vec<String>,
    ccs: Vec<String>,
    trace: bool,
    fidelity: bool,
    cellular: bool,
    wifi_jitter: bool,
}

fn options() -> Result<Options, Box<dyn std::error::Error + Send + Sync>> {
    let mut o = Options {
        quick: false,
        runs: 0,
        pacing: SendPacing::Controller,
        ack_timing: AckTiming::default(),
        paths: Vec::new(),
        ccs: Vec::new(),
        trace: false,
        fidelity: false,
        cellular: false,
        wifi_jitter: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--quick" => o.quick = true,
            "--runs" => o.runs = value()?.parse::<usize>()?.max(1),
            "--pacing" => o.pacing = value()?.parse()?,
            "--ack-timing" => o.ack_timing = value()?.parse()?,
            "--path" => o.paths.push(value()?),
            "--cc" => o.ccs.push(value()?),
            "--trace" => o.trace = true,
            "--fidelity" => o.fidelity = true,
            "--cellular" => o.cellular = true,
            "--wifi-jitter" => o.wifi_jitter = true,
            _ => return Err(format!("unknown argument {a}").into()),
        }
    }
    if o.fidelity {
        if o.paths.is_empty() {
            o.paths = fidelity::PATHS.map(String::from).to_vec();
        }
        if o.runs == 0 {
            o.runs = fidelity::RUNS;
        }
    }
    o.runs = o.runs.max(1);
    if o.ccs.is_empty() {
        o.ccs = ramp_quic::COMPARED.map(String::from).to_vec();
    }
    Ok(o)
}

/// One path × controller: the real runs (fastest first) and the two
/// simulations.
struct Row {
    path: Path,
    cc: String,
    runs: Vec<Real>,
    /// The simulator with the real server's pacer.
    sim: Sim,
    /// The simulator with the other pacer.
    other: Sim,
    /// The simulator with ACK batching at the sender: median TTLB of 5 seeds.
    batched: Duration,
}

/// ACK batching draws wake-up latencies: the median TTLB of 5 seeds.
fn batched_median(
    path: Path,
    cc: &str,
    pacer: &str,
) -> Result<Duration, Box<dyn std::error::Error + Send + Sync>> {
    let mut b = (1..=5)
        .map(|s| sim(path, cc, pacer, Some(s), false).map(|x| x.ttlb))
        .collect::<Result<Vec<_>, _>>()?;
    b.sort();
    Ok(b[b.len() / 2])
}

impl Row {
    fn median(&self) -> &Real {
        &self.runs[self.runs.len() / 2]
    }

    /// Real median TTLB over simulated, less one.
    fn diff(&self) -> f64 {
        self.median().ttlb.as_secs_f64() / self.sim.ttlb.as_secs_f64() - 1.0
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print_row(row: &Row) {
    let (r, q, e) = (row.median(), &row.sim, &row.other);
    let (lo, hi) = (row.runs[0].ttlb, row.runs[row.runs.len() - 1].ttlb);
    let rtt_us = (row.path.rtt_ms * 1000) as f64;
    println!(
        "| {} | {} | {:.0} | {:.0}–{:.0} | {:.0} | {:+.1}% | {:.0} | {} | {} | {:.1} in {:.1} ({:.2}) | {:.1} in {:.1} ({:.2}) | {:.0} | {:+.1}% |",
        row.path.name,
        row.cc,
        ms(r.ttlb),
        ms(lo),
        ms(hi),
        ms(q.ttlb),
        row.diff() * 100.0,
        ms(e.ttlb),
        r.lost,
        q.lost,
        r.flight_bytes as f64 / 1e3,
        r.flight_span_us as f64 / 1e3,
        r.flight_span_us as f64 / rtt_us,
        q.flight_bytes as f64 / 1e3,
        q.flight_span_us as f64 / 1e3,
        q.flight_span_us as f64 / rtt_us,
        ms(row.batched),
        (ms(r.ttlb) / ms(row.batched) - 1.0) * 100.0,
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    EPOCH.get_or_init(Instant::now);
    let o = options()?;
    let mut paths = paths();
    if !o.paths.is_empty() {
        paths.retain(|p| o.paths.iter().any(|n| n == p.name));
    }
    if o.quick {
        paths.truncate(1);
    }
    for p in &mut paths {
        p.cellular = o.cellular;
        p.wifi_jitter = o.wifi_jitter;
    }
    let (sim_pacer, other_pacer) = match o.pacing {
        SendPacing::Controller => ("leaky-bucket", "quinn"),
        SendPacing::Quicly => ("quicly", "leaky-bucket"),
        SendPacing::Quinn => ("quinn", "leaky-bucket"),
    };
    println!(
        "real: pacing {}, ACK timing {}, median of {} run(s); sim: {sim_pacer} pacer (and {other_pacer} beside it){}",
        o.pacing,
        o.ack_timing,
        o.runs,
        paths::elements_note(o.cellular, o.wifi_jitter)
    );
    println!();
    println!("| path | cc | real TTLB ms | real min–max | sim ms | diff | sim ({other_pacer}) ms | real lost | sim lost | 1st flight real: KB in ms (RTTs) | sim | sim, ACK batching ms | diff |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    for path in &paths {
        for cc in &o.ccs {
            let mut runs = Vec::with_capacity(o.runs);
            for _ in 0..o.runs {
                runs.push(real(*path, cc, &o).await?);
            }
            runs.sort_by_key(|r| r.ttlb);
            let row = Row {
                path: *path,
                cc: cc.clone(),
                runs,
                sim: sim(*path, cc, sim_pacer, None, o.trace)?,
                other: sim(*path, cc, other_pacer, None, false)?,
                batched: batched_median(*path, cc, sim_pacer)?,
            };
            print_row(&row);
            rows.push(row);
        }
    }
    println!();
    println!("Bytes sent per RTT from the first data send on (KB, rounds 1-6), and growth between rounds of 10 packets or more:");
    println!();
    println!("| path | cc | real | growth | sim | growth |");
    println!("|---|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            row.path.name,
            row.cc,
            fmt_rounds(&row.median().rounds),
            fmt_growth(&row.median().rounds),
            fmt_rounds(&row.sim.rounds),
            fmt_growth(&row.sim.rounds),
        );
    }
    println!();
    println!("ACK frames the real controller saw with the same time as another frame (all runs; ACK timing {}):", o.ack_timing);
    println!();
    println!("| path | cc | ACK frames | sharing a time |");
    println!("|---|---|---:|---:|");
    for row in &rows {
        let frames: u64 = row.runs.iter().map(|r| r.ack_frames).sum();
        let shared: u64 = row.runs.iter().map(|r| r.ack_frames_shared).sum();
        println!(
            "| {} | {} | {frames} | {:.1}% |",
            row.path.name,
            row.cc,
            shared as f64 * 100.0 / frames.max(1) as f64
        );
    }
    println!();
    println!("The relay in the real runs (all runs): the link's drops beside the losses quinn declared, and its send lateness against the model (server to client):");
    println!();
    println!("| path | cc | real lost | link drops | lateness mean µs | max µs | over 1 ms |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for row in &rows {
        let lost: u64 = row.runs.iter().map(|r| r.lost).sum();
        let d = |f: fn(&ramp_link::ForwardCounters) -> u64| -> u64 {
            row.runs.iter().map(|r| f(&r.relay.down)).sum()
        };
        let drops = d(|c| c.dropped_queue + c.dropped_aqm + c.dropped_loss);
        let sent = d(|c| c.delivered).max(1);
        let max = row
            .runs
            .iter()
            .map(|r| r.relay.down.lateness_max())
            .max()
            .unwrap_or_default();
        println!(
            "| {} | {} | {lost} | {drops} | {:.0} | {:.0} | {} |",
            row.path.name,
            row.cc,
            d(|c| c.lateness_sum_ns) as f64 / sent as f64 / 1e3,
            max.as_secs_f64() * 1e6,
            d(|c| c.late_over_1ms),
        );
    }
    if o.fidelity {
        println!();
        let failed = fidelity::report(&rows);
        if failed > 0 {
            return Err(format!("{failed} fidelity check(s) failed").into());
        }
    }
    Ok(())
}
