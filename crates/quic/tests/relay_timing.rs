//! The relay's timing against its own model, with real sockets on loopback.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use ramp_cc::Rate;
use ramp_quic::relay::{Relay, RelayConfig};

fn client_initial(len: usize, seq: u32) -> Vec<u8> {
    // Long header, fixed bit, Initial type, version 1: admits the client.
    let mut d = vec![0u8; len];
    d[..5].copy_from_slice(&[0xc3, 0, 0, 0, 1]);
    d[5..9].copy_from_slice(&seq.to_be_bytes());
    d
}

/// 400 back-to-back 1200-byte datagrams through a 100 Mbit/s link with
/// 10 ms RTT: the n-th must arrive at 5 ms + n·96 µs after the first was
/// sent (plus loopback noise), and the relay's own send times must stay
/// within 1 ms of the model.
#[test]
fn relay_timing_accuracy_at_100mbit() {
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    server
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
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
    let relay = Relay::start(cfg).unwrap();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client.connect(relay.local_addr()).unwrap();

    const N: usize = 400;
    let start = Instant::now();
    for i in 0..N {
        client.send(&client_initial(1200, i as u32)).unwrap();
    }
    let sent_all = start.elapsed();
    let mut buf = [0u8; 2048];
    let mut arrivals = vec![None; N];
    for _ in 0..N {
        let Ok(n) = server.recv(&mut buf) else { break };
        assert_eq!(n, 1200);
        let seq = u32::from_be_bytes([buf[5], buf[6], buf[7], buf[8]]) as usize;
        arrivals[seq] = Some(start.elapsed());
    }
    let c = relay.stop().unwrap();
    assert_eq!(c.up.delivered, N as u64, "{c:?}");
    assert_eq!(c.up.dropped_queue, 0);

    // Model: packet i leaves the link at max(arrival, previous) + 96 µs and
    // arrives 5 ms later. The sender took `sent_all` to hand them over,
    // which bounds how early the relay could have started each one.
    let tx = rate.transmit_time(1200);
    let mut errors = Vec::new();
    for (i, a) in arrivals.iter().enumerate() {
        let a = a.expect("every datagram arrives");
        let model = Duration::from_millis(5) + tx * (i as u32 + 1);
        let err = a.as_secs_f64() - model.as_secs_f64();
        errors.push(err);
    }
    // The link is busy from the first datagram: arrivals may only be later
    // than the model by the sender's own hand-over time and loopback noise.
    let slack = sent_all.as_secs_f64();
    let within = errors
        .iter()
        .filter(|e| **e > -0.000_2 && **e < 0.001 + slack)
        .count();
    eprintln!(
        "relay accuracy: sender hand-over {:?}, error min {:.1} µs max {:.1} µs; relay lateness mean {:?} max {:?}, {} over 1 ms",
        sent_all,
        errors.iter().cloned().fold(f64::INFINITY, f64::min) * 1e6,
        errors.iter().cloned().fold(f64::NEG_INFINITY, f64::max) * 1e6,
        c.up.lateness_mean,
        c.up.lateness_max,
        c.up.late_over_1ms
    );
    assert!(within * 100 >= N * 99, "{within} of {N} within 1 ms of the model");
    // The relay's own measure of when it sent against the model.
    assert!(
        c.up.late_over_1ms * 100 <= c.up.delivered,
        "more than 1% of datagrams left over 1 ms late: {c:?}"
    );
    assert!(c.up.lateness_mean < Duration::from_micros(200), "{c:?}");
}

/// Garbage never crashes the relay; it is counted and dropped.
#[test]
fn relay_counts_and_drops_garbage() {
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    server
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let cfg = RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        server.local_addr().unwrap(),
        Rate::from_bits_per_sec(20_000_000),
        Duration::from_millis(2),
        Duration::from_millis(40),
        0.0,
        1,
    );
    let relay = Relay::start(cfg).unwrap();
    let g = UdpSocket::bind("127.0.0.1:0").unwrap();
    g.connect(relay.local_addr()).unwrap();
    let mut x = 0x1234_5678u64;
    let mut malformed = 0;
    for i in 0..500usize {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 1500) as usize;
        let mut d: Vec<u8> = (0..len).map(|k| (x >> (k % 56)) as u8).collect();
        if let Some(b) = d.first_mut() {
            if i % 2 == 0 {
                *b &= !0x40; // fixed bit clear: malformed
            } else {
                *b = 0x40; // short header from an unknown address
            }
        }
        if d.first().is_none_or(|b| b & 0x40 == 0) {
            malformed += 1;
        }
        let _ = g.send(&d);
    }
    std::thread::sleep(Duration::from_millis(200));
    let c = relay.stop().unwrap();
    assert_eq!(c.up.malformed, malformed, "{c:?}");
    assert_eq!(c.unknown, 500 - malformed, "{c:?}");
    assert_eq!(c.clients, 0);
    let mut buf = [0u8; 2048];
    assert!(server.recv(&mut buf).is_err(), "nothing reaches the server");
}
