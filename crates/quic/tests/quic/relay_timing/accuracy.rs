//! The relay keeps its model within 1 ms at 100 Mbit/s.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use ramp_cc::Rate;
use ramp_quic::relay::{Relay, RelayConfig};

use super::{client_initial, receiver};
use crate::common::exclusive;

/// One measurement: an idle one-way delay, then 400 back-to-back
/// 1200-byte datagrams through 100 Mbit/s with 10 ms RTT (5 ms each way).
fn measure() -> Result<String, String> {
    let server = receiver();
    server
        .set_read_timeout(Some(Duration::from_secs(2)))
        .map_err(|e| e.to_string())?;
    let rate = Rate::from_bits_per_sec(100_000_000);
    let cfg = RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        server.local_addr().unwrap(),
        rate,
        Duration::from_millis(10),
        Duration::from_millis(100),
        0.0,
        1,
    );
    let relay = Relay::start(cfg).map_err(|e| e.to_string())?;
    let client = UdpSocket::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    client
        .connect(relay.local_addr())
        .map_err(|e| e.to_string())?;
    let mut buf = [0u8; 2048];
    let tx = rate.transmit_time(1200);

    // Admit the client first (binding its upstream socket and starting its
    // thread takes a moment), then time an idle one-way trip.
    client.send(&client_initial(1200, u32::MAX)).unwrap();
    server
        .recv(&mut buf)
        .map_err(|e| format!("admission: {e}"))?;
    let t = Instant::now();
    client.send(&client_initial(1200, u32::MAX)).unwrap();
    server
        .recv(&mut buf)
        .map_err(|e| format!("idle trip: {e}"))?;
    let idle = t.elapsed();
    let idle_model = Duration::from_millis(5) + tx;

    const N: usize = 400;
    let start = Instant::now();
    for i in 0..N {
        client.send(&client_initial(1200, i as u32)).unwrap();
    }
    let hand_over = start.elapsed();
    let mut arrivals = vec![None; N];
    for _ in 0..N {
        let Ok(n) = server.recv(&mut buf) else { break };
        if n != 1200 {
            return Err(format!("datagram of {n} bytes"));
        }
        let seq = u32::from_be_bytes([buf[6], buf[7], buf[8], buf[9]]) as usize;
        if let Some(a) = arrivals.get_mut(seq) {
            *a = Some(start.elapsed());
        }
    }
    let c = relay.stop().map_err(|e| e.to_string())?;
    // Datagram i leaves the link (i+1)·96 µs after the burst began (the
    // link is busy from the first one on) and arrives 5 ms later. The
    // sender's own hand-over time bounds how late the first ones could
    // have reached the relay.
    let mut worst = 0f64;
    let mut within = 0;
    let mut errors = Vec::with_capacity(N);
    for (i, a) in arrivals.iter().enumerate() {
        let a = a.ok_or_else(|| format!("datagram {i} lost: {c:?}"))?;
        let model = Duration::from_millis(5) + tx * (i as u32 + 1);
        let err = a.as_secs_f64() - model.as_secs_f64();
        worst = worst.max(err.abs());
        errors.push(err);
        if err > -0.000_2 && err < 0.001 + hand_over.as_secs_f64() {
            within += 1;
        }
    }
    errors.sort_by(f64::total_cmp);
    let median = errors[N / 2];
    let report = format!(
        "idle one-way {idle:?} (model {idle_model:?}); burst hand-over {hand_over:?}, arrival error median {:.0} µs worst {:.0} µs, {within}/{N} within 1 ms; relay lateness mean {:?} max {:?}, {} of {} over 1 ms",
        median * 1e6,
        worst * 1e6,
        c.up.lateness_mean(),
        c.up.lateness_max(),
        c.up.late_over_1ms,
        c.up.delivered
    );
    // What the relay controls is when it sends: its lateness against the
    // model, measured on the monotonic clock at each send, is the
    // criterion. Arrival times also include the test thread's own wake-ups
    // (milliseconds on a loaded machine), so they are checked by median,
    // and the idle trip only for sanity.
    let ok = idle >= idle_model
        && idle < idle_model + Duration::from_millis(5)
        && median > -0.000_2
        && median < 0.001 + hand_over.as_secs_f64()
        && c.up.late_over_1ms * 100 <= c.up.delivered
        && c.up.lateness_mean() < Duration::from_micros(200)
        && c.up.dropped_queue == 0;
    if ok {
        Ok(report)
    } else {
        Err(report)
    }
}

/// The relay keeps its model within 1 ms at 100 Mbit/s. Timing needs the
/// CPU: on a machine loaded by other work an attempt can miss, so up to
/// five are made and one must pass. An attempt during which some task
/// waited for a CPU more than half the time (`/proc/pressure/cpu`) proves
/// nothing: it fails the test only if two on-time attempts missed, and
/// five misses all late are INCONCLUSIVE (`ramp_host::timing`).
#[test]
fn relay_timing_accuracy_at_100mbit() {
    let _machine = exclusive();
    let mut reports = Vec::new();
    let mut on_time_misses = 0;
    for attempt in 1..=5 {
        let pressure = ramp_host::timing::CpuPressure::now();
        let r = measure();
        let pressure = pressure.and_then(|p| p.share_since());
        let shown = pressure.map_or("unknown".into(), |p| format!("{:.0}%", p * 100.0));
        match r {
            Ok(r) => {
                eprintln!("attempt {attempt}: {r}; CPU pressure {shown}");
                return;
            }
            Err(r) => {
                eprintln!("attempt {attempt} missed: {r}; CPU pressure {shown}");
                if pressure.is_none_or(|p| p <= 0.5) {
                    on_time_misses += 1;
                }
                reports.push(format!("{r}; CPU pressure {shown}"));
            }
        }
    }
    assert!(
        on_time_misses < 2,
        "no attempt met the 1 ms bound, {on_time_misses} of them on time: {reports:#?}"
    );
    ramp_host::timing::inconclusive("relay_timing_accuracy_at_100mbit", &reports.join(" | "));
}
