//! `ramp relay`: a UDP relay that emulates a bottleneck link in each
//! direction (rate, propagation delay, drop-tail queue, random loss).
//!
//! This machine's kernel has no netem, so the path is emulated in user
//! space. Threads, all blocking std sockets:
//!
//! - one receiver on the listening socket (client → server traffic);
//! - one receiver per client on that client's own upstream socket
//!   (server → client traffic);
//! - one sender per direction, a precise timer loop: it waits on a condition
//!   variable until about a millisecond before the head packet is due,
//!   sleeps until 250 µs before, then spins to the due time.
//!   tokio's timer wheel has 1 ms granularity; this loop keeps the send
//!   time within tens of microseconds of the model ([`RelayCounters`]
//!   `lateness` fields measure it, and `relay_timing_accuracy_at_100mbit`
//!   tests it).
//!
//! Clients: every client address gets its own upstream socket, so the
//! server sees one distinct address per client, and several clients share
//! the bottleneck (one link per direction for all of them, like a shared
//! access link). A new client is admitted only by a datagram that looks like
//! a QUIC client Initial (long header, Initial type, a non-zero version, at
//! least 1200 bytes: RFC 9000 §14.1); anything else from an unknown address
//! is counted as `unknown` and dropped. Datagrams that cannot be QUIC
//! (empty; a short header under 21 bytes, RFC 9000 §10.3; a long header
//! whose connection-ID lengths overrun the datagram or, for QUIC v1/v2,
//! exceed 20 bytes) are counted as `malformed` and dropped in either
//! direction. The fixed bit is not checked: quinn greases it (RFC 9287).
//! Clients idle for [`RelayConfig::client_idle`] are forgotten.

pub mod link;

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ramp_cc::Time;

pub use link::{Link, LinkParams, Verdict};

/// Largest UDP payload the relay accepts.
const MAX_DATAGRAM: usize = 65_535;
/// RFC 9000 §14.1: a client's Initial datagrams are at least 1200 bytes.
const MIN_INITIAL_DATAGRAM: usize = 1200;
/// How often blocking receivers and the sender loops look at the stop flag.
const POLL: Duration = Duration::from_millis(20);
/// Socket buffers large enough for a few hundred ms at 100 Mbit/s.
const SOCKET_BUFFER_BYTES: usize = 8 << 20;

/// How the relay is set up.
#[derive(Clone, Debug)]
pub struct RelayConfig {
    /// Where clients send.
    pub listen: SocketAddr,
    /// The server.
    pub upstream: SocketAddr,
    /// Client → server direction.
    pub up: LinkParams,
    /// Server → client direction.
    pub down: LinkParams,
    /// Seed of the random losses (each direction derives its own stream).
    pub seed: u64,
    /// NDJSON event log (queue depth on every enqueue, every drop).
    pub log: Option<PathBuf>,
    /// Most clients served at once; more are counted as `unknown`.
    pub max_clients: usize,
    /// A client silent this long is forgotten.
    pub client_idle: Duration,
}

impl RelayConfig {
    /// A symmetric path: `rtt` is split evenly between the directions, and
    /// both directions have the same rate, queue and loss.
    pub fn symmetric(
        listen: SocketAddr,
        upstream: SocketAddr,
        rate: ramp_cc::Rate,
        rtt: Duration,
        queue: Duration,
        loss: f64,
        seed: u64,
    ) -> RelayConfig {
        let p = LinkParams {
            rate,
            delay: rtt / 2,
            queue,
            loss,
        };
        RelayConfig {
            listen,
            upstream,
            up: p,
            down: p,
            seed,
            log: None,
            max_clients: 1024,
            client_idle: Duration::from_secs(30),
        }
    }
}

/// Counters of one direction.
#[derive(Debug, Default)]
struct DirCounters {
    received: AtomicU64,
    delivered: AtomicU64,
    delivered_bytes: AtomicU64,
    dropped_queue: AtomicU64,
    dropped_loss: AtomicU64,
    malformed: AtomicU64,
    send_errors: AtomicU64,
    max_queue_bytes: AtomicU64,
    lateness_max_ns: AtomicU64,
    lateness_sum_ns: AtomicU64,
    late_over_1ms: AtomicU64,
}

/// A snapshot of one direction's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirStats {
    /// Datagrams received for this direction (including malformed ones).
    pub received: u64,
    /// Datagrams sent on.
    pub delivered: u64,
    /// Their bytes.
    pub delivered_bytes: u64,
    /// Tail drops.
    pub dropped_queue: u64,
    /// Random losses.
    pub dropped_loss: u64,
    /// Not QUIC (dropped).
    pub malformed: u64,
    /// Datagrams the socket refused to send.
    pub send_errors: u64,
    /// Largest backlog seen, bytes.
    pub max_queue_bytes: u64,
    /// Latest a datagram left after its modelled time.
    pub lateness_max: Duration,
    /// Mean lateness.
    pub lateness_mean: Duration,
    /// Datagrams that left more than 1 ms late.
    pub late_over_1ms: u64,
}

impl DirCounters {
    fn snapshot(&self) -> DirStats {
        let delivered = self.delivered.load(Ordering::Relaxed);
        let sum = self.lateness_sum_ns.load(Ordering::Relaxed);
        DirStats {
            received: self.received.load(Ordering::Relaxed),
            delivered,
            delivered_bytes: self.delivered_bytes.load(Ordering::Relaxed),
            dropped_queue: self.dropped_queue.load(Ordering::Relaxed),
            dropped_loss: self.dropped_loss.load(Ordering::Relaxed),
            malformed: self.malformed.load(Ordering::Relaxed),
            send_errors: self.send_errors.load(Ordering::Relaxed),
            max_queue_bytes: self.max_queue_bytes.load(Ordering::Relaxed),
            lateness_max: Duration::from_nanos(self.lateness_max_ns.load(Ordering::Relaxed)),
            lateness_mean: Duration::from_nanos(sum.checked_div(delivered).unwrap_or(0)),
            late_over_1ms: self.late_over_1ms.load(Ordering::Relaxed),
        }
    }
}

/// A snapshot of the relay's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelayCounters {
    /// Client → server.
    pub up: DirStats,
    /// Server → client.
    pub down: DirStats,
    /// Datagrams from unknown addresses that were not a client Initial, or
    /// beyond `max_clients`.
    pub unknown: u64,
    /// Clients admitted so far.
    pub clients: u64,
}

/// Where a datagram goes once it leaves the link.
enum Dest {
    /// To the server, through the client's own upstream socket.
    Upstream(Arc<UdpSocket>),
    /// To a client, from the listening socket.
    Client(SocketAddr),
}

struct Packet {
    deliver_at: Time,
    data: Vec<u8>,
    dest: Dest,
}

struct DirState {
    link: Link,
    fifo: VecDeque<Packet>,
}

struct Direction {
    name: &'static str,
    state: Mutex<DirState>,
    ready: Condvar,
    counters: DirCounters,
}

impl Direction {
    fn lock(&self) -> MutexGuard<'_, DirState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

struct Client {
    socket: Arc<UdpSocket>,
    last_seen_ns: AtomicU64,
    gone: AtomicBool,
}

struct Shared {
    base: Instant,
    stop: AtomicBool,
    listen: Arc<UdpSocket>,
    upstream: SocketAddr,
    up: Direction,
    down: Direction,
    clients: Mutex<HashMap<SocketAddr, Arc<Client>>>,
    unknown: AtomicU64,
    admitted: AtomicU64,
    max_clients: usize,
    client_idle: Duration,
    log_enabled: bool,
    log: Mutex<Option<mpsc::Sender<String>>>,
}

impl Shared {
    fn now(&self) -> Time {
        Time::from_nanos(ramp_cc::time::duration_nanos(self.base.elapsed()))
    }

    fn log(&self, line: String) {
        if let Some(tx) = &*self.log.lock().unwrap_or_else(|p| p.into_inner()) {
            // A closed log (writer failed) must not stop the relay.
            let _ = tx.send(line);
        }
    }
}

/// A running relay. Dropping it stops it.
pub struct Relay {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
    threads: Vec<JoinHandle<()>>,
    client_threads: Arc<Mutex<Vec<JoinHandle<()>>>>,
    log_thread: Option<JoinHandle<io::Result<()>>>,
}

/// What a datagram looks like (RFC 9000 §17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatagramKind {
    /// Cannot be a QUIC packet.
    Malformed,
    /// A long-header Initial of at least 1200 bytes: may open a client.
    ClientInitial,
    /// Any other QUIC packet.
    Quic,
}

/// RFC 9000 §10.3: short-header packets smaller than 21 bytes are never
/// valid (with the AEADs of RFC 9001).
const MIN_SHORT_HEADER_PACKET: usize = 21;
/// RFC 9000 §17.2: QUIC v1 connection IDs are at most 20 bytes.
const MAX_CID_V1: usize = 20;
/// QUIC versions 1 (RFC 9000) and 2 (RFC 9369), whose header rules are known.
const KNOWN_VERSIONS: [u32; 2] = [0x0000_0001, 0x6b33_43cf];

/// Classifies a datagram by its first packet's header.
///
/// The fixed bit is not checked: peers that negotiate RFC 9287 (quinn does
/// by default) grease it.
pub fn classify(d: &[u8]) -> DatagramKind {
    let Some(&b0) = d.first() else {
        return DatagramKind::Malformed;
    };
    if b0 & 0x80 == 0 {
        return if d.len() < MIN_SHORT_HEADER_PACKET {
            DatagramKind::Malformed
        } else {
            DatagramKind::Quic
        };
    }
    // Long header (RFC 8999 §5.1): flags, version (4), DCID length, DCID,
    // SCID length, SCID.
    if d.len() < 7 {
        return DatagramKind::Malformed;
    }
    let version = u32::from_be_bytes([d[1], d[2], d[3], d[4]]);
    let dcid_len = usize::from(d[5]);
    let Some(&scid_len) = d.get(6 + dcid_len) else {
        return DatagramKind::Malformed;
    };
    if d.len() < 7 + dcid_len + usize::from(scid_len) {
        return DatagramKind::Malformed;
    }
    if KNOWN_VERSIONS.contains(&version)
        && (dcid_len > MAX_CID_V1 || usize::from(scid_len) > MAX_CID_V1)
    {
        return DatagramKind::Malformed;
    }
    // Initial is type 0 in v1 (RFC 9000 §17.2.2) and type 1 in v2 (RFC
    // 9369 §3.2); other versions may still open a connection (the server
    // answers with Version Negotiation).
    let packet_type = (b0 & 0x30) >> 4;
    let initial = match version {
        0 => false,
        0x6b33_43cf => packet_type == 1,
        _ => packet_type == 0,
    };
    if initial && d.len() >= MIN_INITIAL_DATAGRAM {
        DatagramKind::ClientInitial
    } else {
        DatagramKind::Quic
    }
}

fn bind_socket(addr: SocketAddr) -> io::Result<UdpSocket> {
    let domain = socket2::Domain::for_address(addr);
    let s = socket2::Socket::new(domain, socket2::Type::DGRAM, Some(socket2::Protocol::UDP))?;
    // Best effort: the kernel caps these at net.core.*mem_max.
    let _ = s.set_recv_buffer_size(SOCKET_BUFFER_BYTES);
    let _ = s.set_send_buffer_size(SOCKET_BUFFER_BYTES);
    s.bind(&addr.into())?;
    let s: UdpSocket = s.into();
    s.set_read_timeout(Some(POLL))?;
    Ok(s)
}

fn unspecified_port_like(addr: SocketAddr) -> SocketAddr {
    let mut a = addr;
    if a.ip().is_loopback() {
        a.set_port(0);
        a
    } else if addr.is_ipv4() {
        SocketAddr::from(([0, 0, 0, 0], 0))
    } else {
        SocketAddr::from(([0u16; 8], 0))
    }
}

impl Relay {
    /// Binds the listening socket and starts the threads.
    pub fn start(cfg: RelayConfig) -> io::Result<Relay> {
        let listen = Arc::new(bind_socket(cfg.listen)?);
        let local_addr = listen.local_addr()?;
        let (log, log_thread) = match &cfg.log {
            Some(path) => {
                let file = File::create(path).map_err(|e| {
                    io::Error::new(e.kind(), format!("relay log {}: {e}", path.display()))
                })?;
                let (tx, rx) = mpsc::channel::<String>();
                let h = std::thread::Builder::new()
                    .name("relay-log".into())
                    .spawn(move || {
                        let mut w = BufWriter::new(file);
                        for line in rx {
                            w.write_all(line.as_bytes())?;
                            w.write_all(b"\n")?;
                        }
                        w.flush()
                    })?;
                (Some(tx), Some(h))
            }
            None => (None, None),
        };
        let dir = |name, params, seed| Direction {
            name,
            state: Mutex::new(DirState {
                link: Link::new(params, seed),
                fifo: VecDeque::new(),
            }),
            ready: Condvar::new(),
            counters: DirCounters::default(),
        };
        let shared = Arc::new(Shared {
            base: Instant::now(),
            stop: AtomicBool::new(false),
            listen,
            upstream: cfg.upstream,
            up: dir("up", cfg.up, cfg.seed ^ 0x7570),
            down: dir("down", cfg.down, cfg.seed ^ 0x646f_776e),
            clients: Mutex::new(HashMap::new()),
            unknown: AtomicU64::new(0),
            admitted: AtomicU64::new(0),
            max_clients: cfg.max_clients,
            client_idle: cfg.client_idle,
            log_enabled: log.is_some(),
            log: Mutex::new(log),
        });
        let client_threads = Arc::new(Mutex::new(Vec::new()));
        let mut threads = Vec::new();
        {
            let s = shared.clone();
            let ct = client_threads.clone();
            threads.push(
                std::thread::Builder::new()
                    .name("relay-rx".into())
                    .spawn(move || client_rx_loop(&s, &ct))?,
            );
        }
        for up in [true, false] {
            let s = shared.clone();
            threads.push(
                std::thread::Builder::new()
                    .name(if up { "relay-tx-up" } else { "relay-tx-down" }.into())
                    .spawn(move || tx_loop(&s, if up { &s.up } else { &s.down }))?,
            );
        }
        Ok(Relay {
            shared,
            local_addr,
            threads,
            client_threads,
            log_thread,
        })
    }

    /// The address clients send to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The counters so far.
    pub fn counters(&self) -> RelayCounters {
        RelayCounters {
            up: self.shared.up.counters.snapshot(),
            down: self.shared.down.counters.snapshot(),
            unknown: self.shared.unknown.load(Ordering::Relaxed),
            clients: self.shared.admitted.load(Ordering::Relaxed),
        }
    }

    /// Stops every thread and flushes the log; returns the final counters.
    pub fn stop(mut self) -> io::Result<RelayCounters> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> io::Result<RelayCounters> {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.up.ready.notify_all();
        self.shared.down.ready.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        let clients: Vec<_> = self
            .client_threads
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        for t in clients {
            let _ = t.join();
        }
        let counters = self.counters();
        // Dropping the only sender ends the writer thread.
        *self.shared.log.lock().unwrap_or_else(|p| p.into_inner()) = None;
        if let Some(h) = self.log_thread.take() {
            match h.join() {
                Ok(r) => r?,
                Err(_) => return Err(io::Error::other("relay log writer panicked")),
            }
        }
        Ok(counters)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if !self.threads.is_empty() {
            let _ = self.shutdown();
        }
    }
}

fn enqueue(s: &Shared, dir: &Direction, data: Vec<u8>, dest: Dest) {
    let now = s.now();
    let bytes = data.len() as u64;
    let mut st = dir.lock();
    let verdict = st.link.arrive(now, bytes);
    let (ev, queue_bytes) = match verdict {
        Verdict::Deliver {
            deliver_at,
            queue_bytes,
        } => {
            st.fifo.push_back(Packet {
                deliver_at,
                data,
                dest,
            });
            drop(st);
            dir.ready.notify_one();
            dir.counters
                .max_queue_bytes
                .fetch_max(queue_bytes + bytes, Ordering::Relaxed);
            ("enqueue", queue_bytes)
        }
        Verdict::QueueFull { queue_bytes } => {
            drop(st);
            dir.counters.dropped_queue.fetch_add(1, Ordering::Relaxed);
            ("drop-queue", queue_bytes)
        }
        Verdict::Lost => {
            let q = st.link.queue_bytes(now);
            drop(st);
            dir.counters.dropped_loss.fetch_add(1, Ordering::Relaxed);
            ("drop-loss", q)
        }
    };
    if s.log_enabled {
        s.log(format!(
            "{{\"t-us\":{},\"dir\":\"{}\",\"ev\":\"{}\",\"bytes\":{},\"queue-bytes\":{}}}",
            now.as_micros(),
            dir.name,
            ev,
            bytes,
            queue_bytes
        ));
    }
}

fn log_other(s: &Shared, dir: &str, ev: &str, bytes: usize, from: SocketAddr) {
    if s.log_enabled {
        s.log(format!(
            "{{\"t-us\":{},\"dir\":\"{}\",\"ev\":\"{}\",\"bytes\":{},\"from\":\"{}\"}}",
            s.now().as_micros(),
            dir,
            ev,
            bytes,
            from
        ));
    }
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Receives from clients; admits new ones; feeds the up link.
fn client_rx_loop(s: &Arc<Shared>, client_threads: &Arc<Mutex<Vec<JoinHandle<()>>>>) {
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let mut last_sweep = Instant::now();
    while !s.stop.load(Ordering::Relaxed) {
        if last_sweep.elapsed() > Duration::from_secs(1) {
            last_sweep = Instant::now();
            sweep_idle_clients(s);
        }
        let (n, from) = match s.listen.recv_from(&mut buf) {
            Ok(v) => v,
            Err(e) if is_timeout(&e) => continue,
            // ICMP errors and the like surface here on some systems: skip.
            Err(_) => continue,
        };
        let c = &s.up.counters;
        c.received.fetch_add(1, Ordering::Relaxed);
        let kind = classify(&buf[..n]);
        if kind == DatagramKind::Malformed {
            c.malformed.fetch_add(1, Ordering::Relaxed);
            log_other(s, "up", "malformed", n, from);
            continue;
        }
        let known = s
            .clients
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&from)
            .cloned();
        let client = match known {
            Some(c) => c,
            None if kind == DatagramKind::ClientInitial => match admit(s, from, client_threads) {
                Some(c) => c,
                None => {
                    s.unknown.fetch_add(1, Ordering::Relaxed);
                    log_other(s, "up", "unknown", n, from);
                    continue;
                }
            },
            None => {
                s.unknown.fetch_add(1, Ordering::Relaxed);
                log_other(s, "up", "unknown", n, from);
                continue;
            }
        };
        client
            .last_seen_ns
            .store(s.now().as_nanos(), Ordering::Relaxed);
        enqueue(
            s,
            &s.up,
            buf[..n].to_vec(),
            Dest::Upstream(client.socket.clone()),
        );
    }
}

fn sweep_idle_clients(s: &Shared) {
    let now = s.now().as_nanos();
    let idle = ramp_cc::time::duration_nanos(s.client_idle);
    let mut map = s.clients.lock().unwrap_or_else(|p| p.into_inner());
    map.retain(|_, c| {
        let keep = now.saturating_sub(c.last_seen_ns.load(Ordering::Relaxed)) < idle;
        if !keep {
            c.gone.store(true, Ordering::Relaxed);
        }
        keep
    });
}

fn admit(
    s: &Arc<Shared>,
    from: SocketAddr,
    client_threads: &Arc<Mutex<Vec<JoinHandle<()>>>>,
) -> Option<Arc<Client>> {
    let mut map = s.clients.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= s.max_clients {
        return None;
    }
    let socket = bind_socket(unspecified_port_like(s.upstream)).ok()?;
    socket.connect(s.upstream).ok()?;
    let client = Arc::new(Client {
        socket: Arc::new(socket),
        last_seen_ns: AtomicU64::new(s.now().as_nanos()),
        gone: AtomicBool::new(false),
    });
    let s2 = s.clone();
    let c2 = client.clone();
    let h = std::thread::Builder::new()
        .name("relay-rx-client".into())
        .spawn(move || server_rx_loop(&s2, &c2, from))
        .ok()?;
    map.insert(from, client.clone());
    s.admitted.fetch_add(1, Ordering::Relaxed);
    let mut threads = client_threads.lock().unwrap_or_else(|p| p.into_inner());
    threads.retain(|t| !t.is_finished());
    threads.push(h);
    Some(client)
}

/// Receives the server's datagrams for one client; feeds the down link.
fn server_rx_loop(s: &Shared, client: &Client, to: SocketAddr) {
    let mut buf = vec![0u8; MAX_DATAGRAM];
    while !s.stop.load(Ordering::Relaxed) && !client.gone.load(Ordering::Relaxed) {
        let n = match client.socket.recv(&mut buf) {
            Ok(n) => n,
            Err(e) if is_timeout(&e) => continue,
            Err(_) => continue,
        };
        let c = &s.down.counters;
        c.received.fetch_add(1, Ordering::Relaxed);
        if classify(&buf[..n]) == DatagramKind::Malformed {
            c.malformed.fetch_add(1, Ordering::Relaxed);
            log_other(s, "down", "malformed", n, s.upstream);
            continue;
        }
        enqueue(s, &s.down, buf[..n].to_vec(), Dest::Client(to));
    }
}

/// Sends each packet of one direction at its modelled delivery time.
fn tx_loop(s: &Shared, dir: &Direction) {
    /// Beyond this, wait on the condition variable (coarse, ~1 ms jitter).
    const COARSE: Duration = Duration::from_micros(1_500);
    /// Below this, spin instead of sleeping (sleep overshoots by ~50-100 µs).
    const SPIN: Duration = Duration::from_micros(250);
    let mut st = dir.lock();
    loop {
        if s.stop.load(Ordering::Relaxed) {
            return;
        }
        let Some(due) = st.fifo.front().map(|p| p.deliver_at) else {
            st = dir
                .ready
                .wait_timeout(st, POLL)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            continue;
        };
        let now = s.now();
        if due <= now {
            let Some(p) = st.fifo.pop_front() else {
                continue;
            };
            drop(st);
            let late = now - due;
            let sent = match &p.dest {
                Dest::Upstream(sock) => sock.send(&p.data),
                Dest::Client(addr) => s.listen.send_to(&p.data, addr),
            };
            let c = &dir.counters;
            match sent {
                Ok(_) => {
                    c.delivered.fetch_add(1, Ordering::Relaxed);
                    c.delivered_bytes
                        .fetch_add(p.data.len() as u64, Ordering::Relaxed);
                    let late_ns = ramp_cc::time::duration_nanos(late);
                    c.lateness_sum_ns.fetch_add(late_ns, Ordering::Relaxed);
                    c.lateness_max_ns.fetch_max(late_ns, Ordering::Relaxed);
                    if late > Duration::from_millis(1) {
                        c.late_over_1ms.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Err(_) => {
                    c.send_errors.fetch_add(1, Ordering::Relaxed);
                }
            }
            st = dir.lock();
            continue;
        }
        let wait = due - now;
        if wait > COARSE {
            st = dir
                .ready
                .wait_timeout(st, (wait - Duration::from_millis(1)).min(POLL))
                .unwrap_or_else(|p| p.into_inner())
                .0;
            continue;
        }
        drop(st);
        if wait > SPIN {
            std::thread::sleep(wait - SPIN);
        }
        // Busy-wait the last stretch: yielding would give the CPU away for
        // a whole time slice on a loaded machine.
        while s.now() < due {
            std::hint::spin_loop();
        }
        st = dir.lock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9000_17_classify_datagrams() {
        assert_eq!(classify(&[]), DatagramKind::Malformed);
        // RFC 9000 §10.3: short headers under 21 bytes are never valid.
        assert_eq!(classify(&[0x40; 20]), DatagramKind::Malformed);
        assert_eq!(classify(&[0x40; 21]), DatagramKind::Quic);
        // RFC 9287: a greased (clear) fixed bit is still QUIC.
        assert_eq!(classify(&[0x00; 40]), DatagramKind::Quic);
        assert_eq!(classify(&[0xc0, 0, 0, 0]), DatagramKind::Malformed);
        let mut initial = vec![0u8; 1200];
        initial[..7].copy_from_slice(&[0xc3, 0, 0, 0, 1, 0, 0]);
        assert_eq!(classify(&initial), DatagramKind::ClientInitial);
        assert_eq!(classify(&initial[..1199]), DatagramKind::Quic);
        // Handshake type (0x20) is not an Initial.
        initial[0] = 0xe3;
        assert_eq!(classify(&initial), DatagramKind::Quic);
        // v1 connection IDs over 20 bytes.
        initial[0] = 0xc3;
        initial[5] = 21;
        assert_eq!(classify(&initial), DatagramKind::Malformed);
        // CID lengths that overrun the datagram.
        assert_eq!(
            classify(&[0xc3, 0, 0, 0, 1, 8, 1, 2]),
            DatagramKind::Malformed
        );
        // Version Negotiation.
        assert_eq!(classify(&[0x80, 0, 0, 0, 0, 0, 0]), DatagramKind::Quic);
    }

    proptest::proptest! {
        /// Any bytes at all: a verdict, never a panic; an admitting
        /// Initial is always a long header of at least 1200 bytes.
        #[test]
        fn classify_never_panics(d in proptest::collection::vec(proptest::num::u8::ANY, 0..1600)) {
            let k = classify(&d);
            if k == DatagramKind::ClientInitial {
                proptest::prop_assert!(d.len() >= MIN_INITIAL_DATAGRAM && d[0] & 0x80 != 0);
            }
        }
    }
}
