//! The real side of a row: a download through `ramp serve`'s stack (in
//! process), the relay and `ramp get`'s client, its controller wrapped to
//! record the sends and ACK frames the startup measures are taken from.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use ramp_cc::{AckFrameSummary, CongestionEvent, Controller, Rate, RttEstimator, Time};
use ramp_quic::client::{self, GetConfig};
use ramp_quic::relay::{Relay, RelayConfig};
use ramp_quic::server::{ServeConfig, ServeOptions, Server};
use ramp_quic::CcChoice;
use ramp_quic::PathLabels;
use ramp_quic::{Identity, Trust};
use ramp_vocab::record_keys as k;

use super::options::Options;
use super::paths::Path;
use super::startup::{first_flight, rounds};
use super::SIZE;

/// The process's clock origin for `--trace`'s `wall-us` and the relay
/// log's offset, so ACK processing can be set against datagram arrivals.
pub(crate) static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Microseconds since [`EPOCH`].
fn wall_us(t: Instant) -> f64 {
    t.saturating_duration_since(*EPOCH.get_or_init(Instant::now))
        .as_secs_f64()
        * 1e6
}

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

pub(crate) struct Real {
    pub(crate) rounds: Vec<u64>,
    pub(crate) ttlb: Duration,
    pub(crate) lost: u64,
    pub(crate) flight_bytes: u64,
    pub(crate) flight_span_us: u64,
    /// ACK frames the controller saw, and how many of them shared their
    /// time with another frame.
    pub(crate) ack_frames: u64,
    pub(crate) ack_frames_shared: u64,
    /// The relay's counters (its drops, and how late it sent against its
    /// model): losses quinn declared beyond the link's drops, or late
    /// sends, point at the host rather than the model.
    pub(crate) relay: ramp_quic::relay::RelayCounters,
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

pub(crate) async fn real(
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
