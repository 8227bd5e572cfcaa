//! The relay's timing against its own model, with real sockets on loopback.
//! Every test here holds [`exclusive`]: the timing tests need the CPU, and
//! the relay's threads run at real-time priority.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use ramp_cc::Rate;
use ramp_quic::relay::{Relay, RelayConfig};

use crate::common::exclusive;

/// A socket on loopback that receives a relay's bursts: with a 4 MiB
/// receive buffer (the kernel caps it at `net.core.rmem_max`), because
/// with the default (about 208 KiB, some 90 datagrams of 1200 bytes) a
/// burst the relay delivered whole overflowed it whenever this test's
/// thread was not scheduled in time, on a busy machine.
fn receiver() -> UdpSocket {
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
fn on_time(test: &str, mut attempt: impl FnMut() -> Result<(), String>) {
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

fn client_initial(len: usize, seq: u32) -> Vec<u8> {
    // Long header, fixed bit, Initial type, version 1, an 8-byte DCID
    // carrying the sequence number, no SCID: admits the client.
    let mut d = vec![0u8; len];
    d[..6].copy_from_slice(&[0xc3, 0, 0, 0, 1, 8]);
    d[6..10].copy_from_slice(&seq.to_be_bytes());
    d
}

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

/// A cellular direction with Wi-Fi delay variation and ACK aggregation
/// (the elements `--cellular`, `--wifi-jitter` and `--ack-aggregation`
/// put on a relay's directions, here all on one) delivers every datagram,
/// in the order sent: the elements delay without reordering, which the
/// relay's delivery queue relies on. Counts and order only, no timing.
#[test]
fn relay_with_cellular_wifi_and_aggregation_delivers_every_datagram_in_order() {
    let _machine = exclusive();
    let server = receiver();
    server
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let rtt = Duration::from_millis(20);
    let mut cfg = RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        server.local_addr().unwrap(),
        Rate::from_bits_per_sec(50_000_000),
        rtt,
        Duration::from_secs(1),
        0.0,
        7,
    );
    cfg.up.elements.cellular = Some(ramp_link::Cellular::CELLREPLAY);
    cfg.up.base_rtt = rtt;
    cfg.up.elements.jitter = Some(ramp_link::Jitter::WIFI_SUI_2016);
    cfg.up.elements.aggregation = ramp_link::AckAggregation::new(Duration::from_millis(4));
    let relay = Relay::start(cfg).unwrap();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client.connect(relay.local_addr()).unwrap();
    let mut buf = [0u8; 2048];
    client.send(&client_initial(1200, u32::MAX)).unwrap();
    server.recv(&mut buf).unwrap();
    const BURSTS: u32 = 3;
    const PER_BURST: u32 = 100;
    let mut seen = Vec::new();
    for b in 0..BURSTS {
        for i in 0..PER_BURST {
            client
                .send(&client_initial(1200, b * PER_BURST + i))
                .unwrap();
        }
        for _ in 0..PER_BURST {
            let Ok(_) = server.recv(&mut buf) else { break };
            seen.push(u32::from_be_bytes([buf[6], buf[7], buf[8], buf[9]]));
        }
        // Idle past the cellular idle reset: the next burst starts light.
        std::thread::sleep(Duration::from_millis(80));
    }
    let c = relay.stop().unwrap();
    let want: Vec<u32> = (0..BURSTS * PER_BURST).collect();
    assert_eq!(seen, want, "{c:?}");
    assert_eq!(c.up.delivered, u64::from(BURSTS * PER_BURST) + 1, "{c:?}");
    assert_eq!(c.up.dropped_queue + c.up.send_errors, 0, "{c:?}");
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

/// The relay the client-table tests use: 100 Mbit/s each way, no path
/// delay, a 40 ms queue, no loss, seed 1, listening on a free local port
/// and forwarding to `upstream`.
fn table_relay(upstream: std::net::SocketAddr) -> RelayConfig {
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
