//! The relay's table of clients: spoofed Initials cannot lock a client
//! out, and finished flows make room.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use ramp_quic::relay::Relay;

use super::{client_initial, on_time, table_relay};
use crate::common::exclusive;

/// Spoofed or abandoned Initials fill the table, but lock a real client
/// out only for the handshake grace: the real client, sending its Initial
/// again as QUIC does on a probe timeout, gets in once they are past it,
/// by evicting one. Until then the young unanswered clients keep their
/// places (they may be real clients mid-handshake: with 1030 `ramp load`
/// clients, evicting those failed 21 to 42 handshakes) and the newcomer is
/// refused.
///
/// Late when the ten Initials and the check that six were refused took
/// over 150 ms: the first spoofers were then near the end of their grace
/// (100 ms plus both 40 ms queues) and could be evicted.
#[test]
fn a_full_client_table_evicts_never_answered_clients_so_spoofing_cannot_lock_out() {
    let _machine = exclusive();
    on_time(
        "relay: spoofed Initials cannot lock a client out",
        spoofing_attempt,
    );
}

fn spoofing_attempt() -> Result<(), String> {
    // The "server" never answers: every admitted client stays unanswered.
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    server
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut cfg = table_relay(server.local_addr().unwrap());
    cfg.max_clients = 4;
    cfg.handshake_grace = Duration::from_millis(100);
    let relay = Relay::start(cfg).unwrap();
    // Ten "spoofed" sources, each sending one Initial and going away.
    let spoofers: Vec<UdpSocket> = (0..10)
        .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
        .collect();
    let spoofing = Instant::now();
    for (i, s) in spoofers.iter().enumerate() {
        s.send_to(&client_initial(1200, i as u32), relay.local_addr())
            .unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    // The six beyond the table find it full of young handshakes: refused.
    std::thread::sleep(Duration::from_millis(20));
    let refused = relay.counters().refused;
    let took = spoofing.elapsed();
    if took > Duration::from_millis(150) {
        let _ = relay.stop();
        return Err(format!("spoofing and the check took {took:?}"));
    }
    assert_eq!(refused, 6, "{:?}", relay.counters());
    // A real client still gets through, sending its Initial every 50 ms:
    // refused while the spoofers are young, admitted once the grace (100
    // ms plus both 40 ms queues) has passed.
    let real = UdpSocket::bind("127.0.0.1:0").unwrap();
    server
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let mut buf = [0u8; 2048];
    let mut saw_real = false;
    let start = std::time::Instant::now();
    while !saw_real && start.elapsed() < Duration::from_secs(3) {
        real.send_to(&client_initial(1200, 999), relay.local_addr())
            .unwrap();
        while let Ok((n, _)) = server.recv_from(&mut buf) {
            if n >= 10 && buf[6..10] == 999u32.to_be_bytes() {
                saw_real = true;
                break;
            }
        }
    }
    let c = relay.stop().unwrap();
    assert!(saw_real, "the real client was locked out: {c:?}");
    assert_eq!(
        (c.clients, c.evicted, c.evicted_unanswered),
        (5, 1, 1),
        "{c:?}"
    );
    assert!(c.refused >= 6, "{c:?}");
    Ok(())
}

/// Clients that came and went: a full table of clients the server
/// answered, all silent since, admits a new client once they have been
/// quiet for `client_quiet` (the table held them for the 30 s idle sweep
/// before, locking every new client out); while they are busy, a new
/// client is refused.
///
/// Late when the four clients' exchanges and the check that the fifth was
/// refused took over 250 ms: the first clients were then near their
/// `client_quiet` (300 ms) and could count as finished.
#[test]
fn a_full_table_of_finished_flows_admits_new_clients() {
    let _machine = exclusive();
    on_time("relay: finished flows make room", finished_flows_attempt);
}

fn finished_flows_attempt() -> Result<(), String> {
    // The "server" answers every datagram, then reports what it saw.
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    server
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let server_addr = server.local_addr().unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let echo = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 2048];
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
            if let Ok((n, from)) = server.recv_from(&mut buf) {
                seen.push(u32::from_be_bytes([buf[6], buf[7], buf[8], buf[9]]));
                let _ = server.send_to(&buf[..n], from);
            }
        }
        seen
    });
    let mut cfg = table_relay(server_addr);
    cfg.max_clients = 4;
    cfg.client_quiet = Duration::from_millis(300);
    let relay = Relay::start(cfg).unwrap();
    let clients: Vec<UdpSocket> = (0..5)
        .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
        .collect();
    for c in &clients {
        c.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    }
    let mut buf = [0u8; 2048];
    // Four clients, each answered: the table is full of real flows.
    let busy = Instant::now();
    for (i, c) in clients[..4].iter().enumerate() {
        c.send_to(&client_initial(1200, i as u32), relay.local_addr())
            .unwrap();
        c.recv_from(&mut buf).expect("answered through the relay");
    }
    // While they are fresh, a fifth is refused.
    clients[4]
        .send_to(&client_initial(1200, 100), relay.local_addr())
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let refused = relay.counters().refused;
    let took = busy.elapsed();
    if took > Duration::from_millis(250) {
        let _ = relay.stop();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = echo.join();
        return Err(format!("the exchanges and the check took {took:?}"));
    }
    assert_eq!(refused, 1, "{:?}", relay.counters());
    // Once they have finished (quiet past client_quiet), it gets in.
    std::thread::sleep(Duration::from_millis(400));
    clients[4]
        .send_to(&client_initial(1200, 101), relay.local_addr())
        .unwrap();
    clients[4]
        .recv_from(&mut buf)
        .expect("the new client is answered");
    let c = relay.stop().unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let seen = echo.join().unwrap();
    assert!(seen.contains(&101) && !seen.contains(&100), "{seen:?}");
    assert_eq!(
        (c.clients, c.evicted, c.evicted_unanswered, c.refused),
        (5, 1, 0, 1),
        "{c:?}"
    );
    Ok(())
}
