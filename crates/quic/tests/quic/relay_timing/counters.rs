//! What the relay does not forward is dropped and counted: garbage, empty
//! datagrams (a client's reachability probe) and an upstream that is not there.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use ramp_cc::Rate;
use ramp_quic::relay::{Relay, RelayConfig};

use super::{client_initial, table_relay};
use crate::common::exclusive;

/// Garbage never crashes the relay; it is counted and dropped.
#[test]
fn relay_counts_and_drops_garbage() {
    let _machine = exclusive();
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
    let mut empty = 0;
    for i in 0..500usize {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = if i % 2 == 0 {
            (x % 21) as usize // too short for a short header: malformed
        } else {
            21 + (x % 1400) as usize // a short header from nobody known
        };
        let mut d: Vec<u8> = (0..len).map(|k| (x >> (k % 56)) as u8).collect();
        if let Some(b) = d.first_mut() {
            *b &= 0x7f;
        }
        if len == 0 {
            // An empty datagram is a client's reachability probe.
            empty += 1;
        } else if len < 21 {
            malformed += 1;
        }
        let _ = g.send(&d);
    }
    std::thread::sleep(Duration::from_millis(200));
    let c = relay.stop().unwrap();
    assert_eq!(c.up.malformed, malformed, "{c:?}");
    assert_eq!(c.empty, empty, "{c:?}");
    assert_eq!(c.unknown, 500 - malformed - empty, "{c:?}");
    assert_eq!(c.clients, 0);
    let mut buf = [0u8; 2048];
    assert!(server.recv(&mut buf).is_err(), "nothing reaches the server");
}

/// Issue #36: the empty datagrams `ramp get` and `ramp load` send beside a
/// handshake (their reachability probe) are healthy clients' traffic:
/// counted as `empty`, not as `malformed`, and not in `received`.
#[test]
fn empty_datagrams_are_counted_on_their_own_not_as_malformed() {
    let _machine = exclusive();
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    let relay = Relay::start(table_relay(server.local_addr().unwrap())).unwrap();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    for _ in 0..3 {
        client.send_to(&[], relay.local_addr()).unwrap();
    }
    // Garbage: a short header under 21 bytes (RFC 9000 §10.3).
    client.send_to(&[0x40; 5], relay.local_addr()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while relay.counters().up.malformed < 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let c = relay.stop().unwrap();
    assert_eq!((c.empty, c.up.malformed, c.up.received), (3, 1, 1), "{c:?}");
}

/// Issue #36: a relay whose upstream has nothing listening used to look
/// healthy while every client timed out. The upstream socket's ICMP port
/// unreachable is now counted (and reported once on stderr).
#[test]
fn a_dead_upstream_is_counted_from_its_icmp_unreachable() {
    let _machine = exclusive();
    // A port where nothing listens: bound, then closed.
    let dead = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let relay = Relay::start(table_relay(dead)).unwrap();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while relay.counters().upstream_unreachable == 0 && Instant::now() < deadline {
        client
            .send_to(&client_initial(1200, 1), relay.local_addr())
            .unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    let c = relay.stop().unwrap();
    assert!(c.upstream_unreachable >= 1, "{c:?}");
    assert_eq!(c.clients, 1, "{c:?}");
}
