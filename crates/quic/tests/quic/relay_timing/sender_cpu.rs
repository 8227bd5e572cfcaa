//! The relay's sender threads sleep until a datagram is due, not spin.

use std::net::UdpSocket;
use std::time::Duration;

use ramp_cc::Rate;
use ramp_quic::relay::{Relay, RelayConfig};

use super::{client_initial, receiver};
use crate::common::exclusive;

/// CPU time (user + system) of this process's thread named `name`, from
/// /proc (Linux); `None` where there is no such file or thread.
fn thread_cpu(name: &str) -> Option<Duration> {
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
        // pid (comm) state ppid ... : utime and stime are the 14th and
        // 15th fields, in clock ticks (USER_HZ, 100 on Linux).
        let (open, close) = (stat.find('(')?, stat.rfind(')')?);
        if &stat[open + 1..close] != name {
            continue;
        }
        let f: Vec<&str> = stat[close + 2..].split(' ').collect();
        let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
        return Some(Duration::from_millis(ticks * 10));
    }
    None
}

/// A sender thread sleeps until each datagram is due instead of spinning:
/// at 100 Mbit/s (a 1200-byte datagram every 96 µs) a sender that
/// busy-waited before each send ran without a break and took a whole
/// core, which on a 2-core machine starved the server it relays for
/// (docs/real-mode.md, "Fidelity at 100 Mbit/s"). Here the link is busy
/// for 230 ms in all; the up direction's sender may use at most half of
/// that in CPU time (it spent all of it when it spun on an idle machine,
/// and 61 % on the loaded 2-core VM).
#[test]
fn relay_sender_sleeps_between_datagrams_instead_of_spinning() {
    let _machine = exclusive();
    if std::fs::metadata("/proc/self/task").is_err() {
        ramp_vocab::note!(
            "SKIPPED: relay_sender_sleeps_between_datagrams_instead_of_spinning: no /proc/self/task to read thread CPU times from"
        );
        return;
    }
    // A spinning sender burns the whole link time on every attempt; a
    // sleeping one stays near a third of it (80-90 ms of 230 ms in a debug
    // build on the idle 2-core VM) but read 120 ms once in CI, cause not
    // found. So an attempt over the bound is repeated, and only three
    // attempts all over it fail the test.
    let mut attempts = Vec::new();
    for _ in 0..3 {
        let (used, busy) = sender_cpu_over_link_time();
        if used.as_secs_f64() <= 0.5 * busy.as_secs_f64() {
            return;
        }
        attempts.push(used);
    }
    panic!(
        "the sender used {attempts:?} of CPU over 230.4ms of link time in three attempts: it spins"
    );
}

/// One attempt: three bursts of 800 datagrams through a 100 Mbit/s relay;
/// the up sender thread's CPU time and the link time they took.
fn sender_cpu_over_link_time() -> (Duration, Duration) {
    let server = receiver();
    server
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let rate = Rate::from_bits_per_sec(100_000_000);
    let cfg = RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        server.local_addr().unwrap(),
        rate,
        Duration::from_millis(2),
        Duration::from_millis(100),
        0.0,
        1,
    );
    let relay = Relay::start(cfg).unwrap();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client.connect(relay.local_addr()).unwrap();
    let mut buf = [0u8; 2048];
    client.send(&client_initial(1200, u32::MAX)).unwrap();
    server.recv(&mut buf).unwrap();
    let before = thread_cpu("relay-tx-up").expect("the relay's up sender thread");
    const BURSTS: u32 = 3;
    const PER_BURST: u32 = 800;
    for b in 0..BURSTS {
        for i in 0..PER_BURST {
            client
                .send(&client_initial(1200, b * PER_BURST + i))
                .unwrap();
        }
        // 800 datagrams keep the link busy for 77 ms: receive them all,
        // then leave it idle a moment.
        for _ in 0..PER_BURST {
            if server.recv(&mut buf).is_err() {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let used = thread_cpu("relay-tx-up").expect("the relay's up sender thread") - before;
    let c = relay.stop().unwrap();
    let busy = rate.transmit_time(1200) * BURSTS * PER_BURST;
    eprintln!(
        "up sender: {used:?} of CPU over {busy:?} of link time; {} delivered, lateness mean {:?}",
        c.up.delivered,
        c.up.lateness_mean()
    );
    assert_eq!(c.up.dropped_queue, 0, "{c:?}");
    (used, busy)
}
