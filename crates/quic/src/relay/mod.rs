//! `ramp relay`: a UDP relay that emulates a bottleneck link in each
//! direction (rate, propagation delay, queue discipline, random loss), with
//! the simulator's own link model (`ramp-link`).
//!
//! This machine's kernel has no netem, so the path is emulated in user
//! space. Threads, all blocking std sockets:
//!
//! - one receiver on the listening socket (client → server traffic);
//! - one receiver per client on that client's own upstream socket
//!   (server → client traffic);
//! - one sender per direction, a timer loop: it sleeps on a condition
//!   variable until the head packet is due, with the thread's timer slack
//!   at 1 ns (tokio's timer wheel has 1 ms granularity; a futex timeout is
//!   a high-resolution timer). It never spins: at 100 Mbit/s a sender that
//!   busy-waited the last stretch before each packet ran without a break
//!   and took a whole core, and on a 2-core machine the server it relays
//!   for then fell behind its own congestion window (docs/real-mode.md,
//!   "Fidelity at 100 Mbit/s"). [`RelayCounters`] `lateness` fields
//!   measure the send times against the model, and
//!   `relay_timing_accuracy_at_100mbit` tests them.
//!
//! Every relay thread asks for real-time priority (SCHED_FIFO 10, as
//! `ramp shell`'s loop does) unless [`RelayConfig::realtime`] is off; they
//! all block between datagrams, so they take only the CPU they need.
//!
//! Clients: every client address gets its own upstream socket, so the
//! server sees one distinct address per client, and several clients share
//! the bottleneck (one link per direction for all of them, like a shared
//! access link). A new client is admitted only by a datagram that looks like
//! a QUIC client Initial (long header, Initial type, a non-zero version, at
//! least 1200 bytes: RFC 9000 §14.1); anything else from an unknown address
//! is counted as `unknown` and dropped. Empty datagrams are the
//! reachability probes of ramp's own clients (`ramp get`, `ramp load`): they
//! are dropped and counted as `empty`, in neither `received` nor
//! `malformed`. Datagrams that cannot be QUIC
//! (a short header under 21 bytes, RFC 9000 §10.3; a long header
//! whose connection-ID lengths overrun the datagram or, for QUIC v1/v2,
//! exceed 20 bytes) are counted as `malformed` and dropped in either
//! direction. The fixed bit is not checked: quinn greases it (RFC 9287).
//! Clients idle for [`RelayConfig::client_idle`] are forgotten.
//!
//! A relay cannot see a QUIC connection close (CONNECTION_CLOSE is
//! encrypted), only that its datagrams stop. When the table is full, a new
//! client takes the place of the quietest client the server never answered
//! (spoofed or abandoned handshakes); failing that, of the quietest one
//! that has sent and received nothing for [`RelayConfig::client_quiet`]
//! (a closed or finished flow: a live transfer sends every RTT). Only
//! when every client is busy are new ones refused, and the first refusal
//! is reported once on stderr.

mod classify;
mod flows;
pub mod link;
mod receive;
mod transmit;

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
use ramp_link::{DropCause, ForwardCounters, Link};

pub use classify::{classify, DatagramKind};
pub use link::LinkParams;
use receive::client_rx_loop;
use transmit::tx_loop;

/// Largest UDP payload the relay accepts.
const MAX_DATAGRAM: usize = 65_535;
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
    /// NDJSON event log (queue depth on every enqueue, every drop, every
    /// delivery).
    pub log: Option<PathBuf>,
    /// NDJSON flow log, written when the relay stops: one record per
    /// client (`ramp_link::flowlog`; docs/shell.md describes the fields).
    pub flow_log: Option<PathBuf>,
    /// Most clients served at once; more are counted as `unknown`.
    pub max_clients: usize,
    /// A client silent this long (no datagram either way) is forgotten.
    pub client_idle: Duration,
    /// With the table full, a client silent this long is taken as
    /// finished and may give its place to a new one.
    pub client_quiet: Duration,
    /// With the table full, a client the server has not answered yet is
    /// taken as abandoned or spoofed only once silent this long plus the
    /// path's round trip and both queues (the time its Initial may spend
    /// on the link). Until then it is mid-handshake and keeps its place.
    /// The default, 1 s, is QUIC's first probe timeout with no RTT sample
    /// (RFC 9002 §6.2.2: kInitialRtt 333 ms, PTO = 333 + 4 × 333/2 ms),
    /// after which a live client sends its Initial again.
    pub handshake_grace: Duration,
    /// Ask for real-time priority (SCHED_FIFO) for the relay's threads, so
    /// that on a loaded machine a datagram is stamped when it arrives and
    /// sent when the model says; without the privilege (root or
    /// CAP_SYS_NICE) the relay says so once on stderr and runs on.
    pub realtime: bool,
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
        let p = LinkParams::new(rate, rtt / 2, queue, loss, ramp_link::Aqm::DropTail);
        RelayConfig {
            listen,
            upstream,
            up: p.clone(),
            down: p,
            seed,
            log: None,
            flow_log: None,
            max_clients: 1024,
            client_idle: Duration::from_secs(30),
            client_quiet: Duration::from_secs(1),
            handshake_grace: Duration::from_secs(1),
            realtime: true,
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
    dropped_aqm: AtomicU64,
    dropped_loss: AtomicU64,
    malformed: AtomicU64,
    send_errors: AtomicU64,
    max_queue_bytes: AtomicU64,
    lateness_max_ns: AtomicU64,
    lateness_sum_ns: AtomicU64,
    late_over_1ms: AtomicU64,
}

impl DirCounters {
    fn snapshot(&self) -> ForwardCounters {
        ForwardCounters {
            received: self.received.load(Ordering::Relaxed),
            delivered: self.delivered.load(Ordering::Relaxed),
            delivered_bytes: self.delivered_bytes.load(Ordering::Relaxed),
            dropped_queue: self.dropped_queue.load(Ordering::Relaxed),
            dropped_aqm: self.dropped_aqm.load(Ordering::Relaxed),
            dropped_loss: self.dropped_loss.load(Ordering::Relaxed),
            malformed: self.malformed.load(Ordering::Relaxed),
            send_errors: self.send_errors.load(Ordering::Relaxed),
            max_queue_bytes: self.max_queue_bytes.load(Ordering::Relaxed),
            lateness_sum_ns: self.lateness_sum_ns.load(Ordering::Relaxed),
            lateness_max_ns: self.lateness_max_ns.load(Ordering::Relaxed),
            late_over_1ms: self.late_over_1ms.load(Ordering::Relaxed),
        }
    }
}

/// A snapshot of the relay's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelayCounters {
    /// Client → server.
    pub up: ForwardCounters,
    /// Server → client.
    pub down: ForwardCounters,
    /// Datagrams from unknown addresses that were not a client Initial, or
    /// beyond `max_clients`.
    pub unknown: u64,
    /// Clients admitted so far.
    pub clients: u64,
    /// Clients dropped from a full table to admit a new one: the
    /// quietest of those the server never answered and silent past
    /// [`RelayConfig::handshake_grace`] (an abandoned or spoofed
    /// handshake), else the quietest silent for
    /// [`RelayConfig::client_quiet`] (a finished flow).
    pub evicted: u64,
    /// Of `evicted`, those the server had never answered (abandoned or
    /// spoofed handshakes); the rest were finished flows. Real clients
    /// whose server answers within the grace never count here.
    pub evicted_unanswered: u64,
    /// Client Initials refused because the table was full of clients the
    /// server had answered or that were mid-handshake (counted in
    /// `unknown` too).
    pub refused: u64,
    /// Empty datagrams, either direction, dropped: the reachability probes
    /// `ramp get` and `ramp load` send beside a handshake. Not in
    /// `received` or `malformed`.
    pub empty: u64,
    /// ICMP port or host unreachable errors the upstream sockets reported:
    /// nothing listens at the upstream address (the first one is also
    /// reported on stderr).
    pub upstream_unreachable: u64,
}

/// Where a datagram goes once it leaves the link.
enum Dest {
    /// To the server, through the client's own upstream socket; the
    /// client's address (for the flow log).
    Upstream(Arc<UdpSocket>, SocketAddr),
    /// To a client, from the listening socket.
    Client(SocketAddr),
}

impl Dest {
    /// The client the datagram is from or to.
    fn client(&self) -> SocketAddr {
        match self {
            Dest::Upstream(_, c) | Dest::Client(c) => *c,
        }
    }
}

struct Packet {
    deliver_at: Time,
    data: Vec<u8>,
    dest: Dest,
}

/// What the link carries: the datagram and where it goes.
type Carried = (Vec<u8>, Dest);

struct DirState {
    link: Link<Carried>,
    /// Datagrams whose fate is decided, in delivery order.
    fifo: VecDeque<Packet>,
}

impl DirCounters {
    /// Counts a drop by its cause.
    fn count_drop(&self, cause: DropCause) {
        let c = match cause {
            DropCause::Queue | DropCause::Policer => &self.dropped_queue,
            DropCause::Aqm => &self.dropped_aqm,
            DropCause::Random => &self.dropped_loss,
        };
        c.fetch_add(1, Ordering::Relaxed);
    }
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
    /// The server has sent this client something: its first Initial was
    /// a real handshake, not a spoofed or abandoned one.
    answered: AtomicBool,
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
    empty: AtomicU64,
    upstream_unreachable: AtomicU64,
    admitted: AtomicU64,
    evicted: AtomicU64,
    evicted_unanswered: AtomicU64,
    refused: AtomicU64,
    max_clients: usize,
    client_idle: Duration,
    client_quiet: Duration,
    /// [`RelayConfig::handshake_grace`] plus the path's round trip and
    /// both queues.
    handshake_grace: Duration,
    /// The full table has been reported on stderr.
    full_reported: AtomicBool,
    /// Threads ask for real-time priority.
    realtime: bool,
    /// A refused real-time priority has been reported on stderr.
    realtime_reported: AtomicBool,
    log_enabled: bool,
    log: Mutex<Option<mpsc::Sender<String>>>,
    /// The flow log's records and where they go.
    flows: Option<(Mutex<flows::RelayFlows>, PathBuf)>,
}

impl Shared {
    /// Sets up the calling relay thread's timing: tight timer slack, and
    /// real-time priority if asked for (a refusal is reported once).
    fn thread_timing(&self) {
        ramp_host::tight_timer_slack();
        if self.realtime {
            if let Err(e) = ramp_host::realtime_priority() {
                if !self.realtime_reported.swap(true, Ordering::Relaxed) {
                    ramp_vocab::note!(
                        "ramp relay: no real-time priority ({e}); datagrams may be stamped and sent late on a busy machine"
                    );
                }
            }
        }
    }

    /// Counts an error an upstream socket reported; the first ICMP
    /// unreachable is also reported on stderr, once: without it a relay
    /// whose upstream is down looks healthy, and its clients just time out.
    fn note_upstream_error(&self, e: &io::Error) {
        if !crate::unreachable::is_unreachable(e) {
            return;
        }
        if self.upstream_unreachable.fetch_add(1, Ordering::Relaxed) == 0 {
            ramp_vocab::note!(
                "ramp relay: the upstream {} is unreachable: {e} (nothing listens there for UDP?); \
                 clients will time out (reported once, counted in the closing line)",
                self.upstream
            );
        }
    }

    fn now(&self) -> Time {
        Time::from_nanos(ramp_vocab::time::duration_nanos(self.base.elapsed()))
    }

    /// Runs `f` on the flow log, if there is one.
    fn flows(&self, f: impl FnOnce(&mut flows::RelayFlows)) {
        if let Some((m, _)) = &self.flows {
            f(&mut m.lock().unwrap_or_else(|p| p.into_inner()));
        }
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
        let dir = |name, params: &LinkParams, seed| Direction {
            name,
            state: Mutex::new(DirState {
                link: params.link(seed),
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
            up: dir("up", &cfg.up, ramp_link::uplink_seed(cfg.seed)),
            down: dir("down", &cfg.down, ramp_link::downlink_seed(cfg.seed)),
            clients: Mutex::new(HashMap::new()),
            unknown: AtomicU64::new(0),
            empty: AtomicU64::new(0),
            upstream_unreachable: AtomicU64::new(0),
            admitted: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            evicted_unanswered: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            max_clients: cfg.max_clients,
            client_idle: cfg.client_idle,
            client_quiet: cfg.client_quiet,
            handshake_grace: cfg.handshake_grace
                + cfg.up.delay
                + cfg.down.delay
                + cfg.up.queue
                + cfg.down.queue,
            full_reported: AtomicBool::new(false),
            realtime: cfg.realtime,
            realtime_reported: AtomicBool::new(false),
            log_enabled: log.is_some(),
            log: Mutex::new(log),
            flows: cfg
                .flow_log
                .clone()
                .map(|p| (Mutex::new(flows::RelayFlows::new(cfg.upstream)), p)),
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

    /// The instant the log's `t-us` counts from.
    pub fn epoch(&self) -> Instant {
        self.shared.base
    }

    /// The counters so far.
    pub fn counters(&self) -> RelayCounters {
        RelayCounters {
            up: self.shared.up.counters.snapshot(),
            down: self.shared.down.counters.snapshot(),
            unknown: self.shared.unknown.load(Ordering::Relaxed),
            clients: self.shared.admitted.load(Ordering::Relaxed),
            evicted: self.shared.evicted.load(Ordering::Relaxed),
            evicted_unanswered: self.shared.evicted_unanswered.load(Ordering::Relaxed),
            refused: self.shared.refused.load(Ordering::Relaxed),
            empty: self.shared.empty.load(Ordering::Relaxed),
            upstream_unreachable: self.shared.upstream_unreachable.load(Ordering::Relaxed),
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
        if let Some((m, path)) = &self.shared.flows {
            let records = m.lock().unwrap_or_else(|p| p.into_inner()).records();
            let mut text = records.join("\n");
            if !text.is_empty() {
                text.push('\n');
            }
            std::fs::write(path, text).map_err(|e| {
                io::Error::new(e.kind(), format!("relay flow log {}: {e}", path.display()))
            })?;
        }
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
