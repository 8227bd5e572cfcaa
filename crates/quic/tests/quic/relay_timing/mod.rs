//! The relay's timing against its own model, with real sockets on loopback.
//! Every test here holds [`exclusive`](crate::common::exclusive): the timing tests need the CPU, and
//! the relay's threads run at real-time priority.
//!
//! - accuracy: the relay's sends against its model at 100 Mbit/s;
//! - sender_cpu: its sender threads sleep between datagrams, not spin;
//! - client_table: spoofed, unanswered and finished clients and the table;
//! - counters: garbage, empty datagrams and a dead upstream are counted;
//! - elements: cellular, Wi-Fi jitter and ACK aggregation keep the order.

mod accuracy;
mod client_table;
mod counters;
mod elements;
mod sender_cpu;

use std::net::UdpSocket;
use std::time::Duration;

use ramp_cc::Rate;
use ramp_quic::relay::RelayConfig;

/// A socket on loopback that receives a relay's bursts: with a 4 MiB
/// receive buffer (the kernel caps it at `net.core.rmem_max`), because
/// with the default (about 208 KiB, some 90 datagrams of 1200 bytes) a
/// burst the relay delivered whole overflowed it whenever this test's
/// thread was not scheduled in time, on a busy machine.
pub(super) fn receiver() -> UdpSocket {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None)
        .expect("udp socket");
    // Best effort: the default only makes a busy machine drop more.
    let _ = sock.set_recv_buffer_size(4 << 20);
    let addr: std::net::SocketAddr = "127.0.0.1:0".parse().expect("address");
    sock.bind(&addr.into()).expect("bind on loopback");
    sock.into()
}

/// Attempts of a test whose run can be late (the test thread descheduled
/// past one of the relay's timers) before it ends INCONCLUSIVE.
const LATE_ATTEMPTS: usize = 3;

/// Runs `attempt` until it is on time (it asserts what it checks then),
/// at most [`LATE_ATTEMPTS`] times; `attempt` returns `Err` with its
/// lateness when it was late, which proves nothing either way.
pub(super) fn on_time(test: &str, mut attempt: impl FnMut() -> Result<(), String>) {
    let mut late = Vec::new();
    for _ in 0..LATE_ATTEMPTS {
        match attempt() {
            Ok(()) => return,
            Err(why) => {
                eprintln!("{test}: attempt discarded as late: {why}");
                late.push(why);
            }
        }
    }
    ramp_host::timing::inconclusive(test, &late.join("; "));
}

pub(super) fn client_initial(len: usize, seq: u32) -> Vec<u8> {
    // Long header, fixed bit, Initial type, version 1, an 8-byte DCID
    // carrying the sequence number, no SCID: admits the client.
    let mut d = vec![0u8; len];
    d[..6].copy_from_slice(&[0xc3, 0, 0, 0, 1, 8]);
    d[6..10].copy_from_slice(&seq.to_be_bytes());
    d
}

/// The relay the client-table tests use: 100 Mbit/s each way, no path
/// delay, a 40 ms queue, no loss, seed 1, listening on a free local port
/// and forwarding to `upstream`.
pub(super) fn table_relay(upstream: std::net::SocketAddr) -> RelayConfig {
    RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        upstream,
        Rate::from_bits_per_sec(100_000_000),
        Duration::ZERO,
        Duration::from_millis(40),
        0.0,
        1,
    )
}
