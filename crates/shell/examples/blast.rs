//! The forwarding benchmark's traffic: `blast send ADDR MBIT SECONDS`
//! sends 1500-byte IP packets (1472-byte UDP payloads) at MBIT Mbit/s of
//! IP bytes, each stamped with the wall clock; `blast recv PORT SECONDS`
//! counts what arrives and prints the rate and the one-way delay's
//! percentiles. Sender and receiver run on one machine, so they share the
//! clock. Used by bench/shell/forward.sh.

use std::net::UdpSocket;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const PAYLOAD: usize = 1472;
const IP_BYTES: u64 = 1500;

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn arg<T: std::str::FromStr>(a: &[String], i: usize, what: &str) -> Result<T, String> {
    a.get(i)
        .ok_or_else(|| format!("missing {what}"))?
        .parse()
        .map_err(|_| format!("bad {what}: {:?}", a[i]))
}

fn send(a: &[String]) -> Result<(), String> {
    let to: String = arg(a, 2, "ADDR")?;
    let mbit: u64 = arg(a, 3, "MBIT")?;
    let secs: u64 = arg(a, 4, "SECONDS")?;
    let sock = UdpSocket::bind("0.0.0.0:0").map_err(|e| e.to_string())?;
    sock.connect(&to).map_err(|e| format!("{to}: {e}"))?;
    let pps = mbit * 1_000_000 / (IP_BYTES * 8);
    let start = Instant::now();
    let mut sent = 0u64;
    let mut buf = [0u8; PAYLOAD];
    while start.elapsed() < Duration::from_secs(secs) {
        // Send what is due by now, in one burst per wake-up.
        let due = (start.elapsed().as_secs_f64() * pps as f64) as u64;
        while sent < due {
            buf[..8].copy_from_slice(&now_ns().to_be_bytes());
            if sock.send(&buf).is_ok() {
                sent += 1;
            } else {
                break;
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    println!("sent {sent} packets");
    Ok(())
}

fn recv(a: &[String]) -> Result<(), String> {
    let port: u16 = arg(a, 2, "PORT")?;
    let secs: u64 = arg(a, 3, "SECONDS")?;
    let sock = UdpSocket::bind(("0.0.0.0", port)).map_err(|e| e.to_string())?;
    sock.set_read_timeout(Some(Duration::from_millis(200)))
        .map_err(|e| e.to_string())?;
    println!("listening");
    let mut delays = Vec::new();
    let mut first: Option<Instant> = None;
    let mut last = Instant::now();
    let mut buf = [0u8; 2048];
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        let Ok(n) = sock.recv(&mut buf) else {
            if first.is_some() {
                break;
            }
            continue;
        };
        if n < 8 {
            continue;
        }
        let t = now_ns();
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&buf[..8]);
        delays.push(t.saturating_sub(u64::from_be_bytes(ts)));
        last = Instant::now();
        first.get_or_insert(last);
    }
    let Some(first) = first else {
        return Err("nothing arrived".into());
    };
    let span = last.duration_since(first).as_secs_f64().max(1e-9);
    let n = delays.len();
    delays.sort_unstable();
    let q = |p: f64| delays[((n - 1) as f64 * p).round() as usize] as f64 / 1000.0;
    println!(
        "received {n} packets, {:.0} Mbit/s of IP bytes; one-way delay us: p50 {:.0} p99 {:.0} p99.9 {:.0} max {:.0}",
        n as f64 * (IP_BYTES * 8) as f64 / span / 1e6,
        q(0.5),
        q(0.99),
        q(0.999),
        q(1.0)
    );
    Ok(())
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let r = match a.get(1).map(String::as_str) {
        Some("send") => send(&a),
        Some("recv") => recv(&a),
        _ => Err("usage: blast send ADDR MBIT SECONDS | blast recv PORT SECONDS".into()),
    };
    if let Err(e) = r {
        eprintln!("blast: {e}");
        std::process::exit(2);
    }
}
