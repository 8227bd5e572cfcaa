//! The relay's receiving threads: one on the listening socket (clients →
//! server: admits new clients, feeds the up link) and one per client on its
//! upstream socket (server → client: feeds the down link), plus the
//! bookkeeping they share (admission, idle sweep, the event log).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ramp_cc::EcnCodepoint;
use ramp_link::{drop_event, Delivery, Offer, Packet};

use super::{
    bind_socket, classify, unspecified_port_like, Client, DatagramKind, Dest, Direction, Shared,
    MAX_DATAGRAM,
};

/// The flow a datagram belongs to, for flow queueing: its client (a fixed
/// hash, so runs are repeatable).
fn flow_of(client: SocketAddr) -> u32 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    client.hash(&mut h);
    h.finish() as u32
}

fn enqueue(s: &Shared, dir: &Direction, data: Vec<u8>, dest: Dest, client: SocketAddr) {
    let now = s.now();
    let bytes = data.len() as u64;
    let flow = flow_of(client);
    let up = matches!(dest, Dest::Upstream(..));
    s.flows(|f| f.arrive(now, client, up, &data));
    let mut st = dir.lock();
    // The backlog this datagram finds: what has left by now is gone.
    st.link.bottleneck().drain_reporting(now, |_, _, _| {});
    let queue_bytes = st.link.bottleneck_ref().backlog_bytes();
    let packet = Packet {
        payload: (data, dest),
        size: u32::try_from(bytes).unwrap_or(u32::MAX),
        ecn: EcnCodepoint::NotEct,
        flow,
    };
    let ev = match st.link.offer(now, packet) {
        Offer::Now(Delivery::Arrives {
            payload: (data, dest),
            at,
            ..
        }) => {
            st.fifo.push_back(super::Packet {
                deliver_at: at,
                data,
                dest,
            });
            // Delivery times follow arrival order, so only a new head
            // changes when the sender must wake; otherwise it sleeps on
            // (a wake-up per arrival doubled its CPU time at 100 Mbit/s).
            let new_head = st.fifo.len() == 1;
            drop(st);
            if new_head {
                dir.ready.notify_one();
            }
            dir.counters
                .max_queue_bytes
                .fetch_max(queue_bytes + bytes, Ordering::Relaxed);
            "enqueue"
        }
        Offer::Now(Delivery::Dropped {
            cause,
            payload: (data, _),
            ..
        }) => {
            drop(st);
            dir.counters.count_drop(cause);
            s.flows(|f| f.refuse(client, up, &data, cause));
            drop_event(cause)
        }
        Offer::Held { evicted } => {
            drop(st);
            // The sender thread runs the discipline's dequeues.
            dir.ready.notify_one();
            dir.counters
                .max_queue_bytes
                .fetch_max(queue_bytes + bytes, Ordering::Relaxed);
            for d in evicted {
                if let Delivery::Dropped {
                    cause,
                    payload: (data, dest),
                    ..
                } = d
                {
                    dir.counters.count_drop(cause);
                    s.flows(|f| f.drop_queued(dest.client(), up, &data, cause));
                }
            }
            "enqueue"
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
pub(super) fn client_rx_loop(s: &Arc<Shared>, client_threads: &Arc<Mutex<Vec<JoinHandle<()>>>>) {
    s.thread_timing();
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
        let kind = classify(&buf[..n]);
        if kind == DatagramKind::Empty {
            s.empty.fetch_add(1, Ordering::Relaxed);
            log_other(s, "up", "empty", n, from);
            continue;
        }
        let c = &s.up.counters;
        c.received.fetch_add(1, Ordering::Relaxed);
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
            Dest::Upstream(client.socket.clone(), from),
            from,
        );
    }
}

fn sweep_idle_clients(s: &Shared) {
    let now = s.now().as_nanos();
    let idle = ramp_vocab::time::duration_nanos(s.client_idle);
    let mut map = s.clients.lock().unwrap_or_else(|p| p.into_inner());
    map.retain(|_, c| {
        let keep = now.saturating_sub(c.last_seen_ns.load(Ordering::Relaxed)) < idle;
        if !keep {
            c.gone.store(true, Ordering::Relaxed);
        }
        keep
    });
}

/// Makes room in a full client table: drops the least recently seen client
/// the server never answered and silent past the handshake grace (spoofed
/// sources, abandoned handshakes), so that such datagrams cannot lock real
/// clients out for longer than the grace; a client whose Initial may still
/// be on the link, or that is waiting for its probe timeout, keeps its
/// place (evicting it loses the server's answer, and a crowd beyond the
/// table then evicts itself into failed handshakes); failing that, the
/// least recently seen client silent both ways for `client_quiet`, a
/// finished flow (its connection closed, or its transfer ended), so that
/// clients that came and went cannot lock new ones out until the idle
/// sweep. A busy client is never dropped.
fn evict_finished(s: &Shared, map: &mut HashMap<SocketAddr, Arc<Client>>) -> bool {
    let seen = |c: &Arc<Client>| c.last_seen_ns.load(Ordering::Relaxed);
    let now = s.now().as_nanos();
    let abandoned_since = now.saturating_sub(ramp_vocab::time::duration_nanos(s.handshake_grace));
    let unanswered = map
        .iter()
        .filter(|(_, c)| !c.answered.load(Ordering::Relaxed) && seen(c) <= abandoned_since)
        .min_by_key(|(_, c)| seen(c))
        .map(|(a, _)| *a);
    let quiet_since = now.saturating_sub(ramp_vocab::time::duration_nanos(s.client_quiet));
    let victim = unanswered.or_else(|| {
        map.iter()
            .filter(|(_, c)| seen(c) <= quiet_since)
            .min_by_key(|(_, c)| seen(c))
            .map(|(a, _)| *a)
    });
    let Some(addr) = victim else {
        return false;
    };
    if let Some(c) = map.remove(&addr) {
        c.gone.store(true, Ordering::Relaxed);
    }
    s.evicted.fetch_add(1, Ordering::Relaxed);
    if unanswered.is_some() {
        s.evicted_unanswered.fetch_add(1, Ordering::Relaxed);
    }
    log_other(s, "up", "evicted", 0, addr);
    true
}

fn admit(
    s: &Arc<Shared>,
    from: SocketAddr,
    client_threads: &Arc<Mutex<Vec<JoinHandle<()>>>>,
) -> Option<Arc<Client>> {
    let mut map = s.clients.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= s.max_clients && !evict_finished(s, &mut map) {
        s.refused.fetch_add(1, Ordering::Relaxed);
        log_other(s, "up", "refused", 0, from);
        if !s.full_reported.swap(true, Ordering::Relaxed) {
            ramp_vocab::note!(
                "ramp relay: the client table is full ({} clients, each active within {:?} or \
                 mid-handshake within {:?}); new clients are refused until one goes quiet \
                 (reported once)",
                s.max_clients,
                s.client_quiet,
                s.handshake_grace
            );
        }
        return None;
    }
    let socket = bind_socket(unspecified_port_like(s.upstream)).ok()?;
    socket.connect(s.upstream).ok()?;
    let client = Arc::new(Client {
        socket: Arc::new(socket),
        last_seen_ns: AtomicU64::new(s.now().as_nanos()),
        gone: AtomicBool::new(false),
        answered: AtomicBool::new(false),
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
    s.thread_timing();
    let mut buf = vec![0u8; MAX_DATAGRAM];
    while !s.stop.load(Ordering::Relaxed) && !client.gone.load(Ordering::Relaxed) {
        let n = match client.socket.recv(&mut buf) {
            Ok(n) => n,
            Err(e) if is_timeout(&e) => continue,
            Err(e) => {
                s.note_upstream_error(&e);
                continue;
            }
        };
        client.answered.store(true, Ordering::Relaxed);
        // Activity either way keeps a client: a download's client may
        // send little while the server sends a lot.
        client
            .last_seen_ns
            .store(s.now().as_nanos(), Ordering::Relaxed);
        let kind = classify(&buf[..n]);
        if kind == DatagramKind::Empty {
            s.empty.fetch_add(1, Ordering::Relaxed);
            log_other(s, "down", "empty", n, s.upstream);
            continue;
        }
        let c = &s.down.counters;
        c.received.fetch_add(1, Ordering::Relaxed);
        if kind == DatagramKind::Malformed {
            c.malformed.fetch_add(1, Ordering::Relaxed);
            log_other(s, "down", "malformed", n, s.upstream);
            continue;
        }
        enqueue(s, &s.down, buf[..n].to_vec(), Dest::Client(to), to);
    }
}
