//! The relay's sending threads, one per direction: each sends the head
//! packet of its link's queue at the packet's modelled delivery time, and
//! runs the dequeues of a dequeue-time discipline (CoDel, FQ-CoDel) when
//! they fall due.

use std::sync::atomic::Ordering;
use std::time::Duration;

use ramp_cc::Time;
use ramp_link::{drop_event, Delivery};

use super::{Dest, DirState, Direction, Packet, Shared, POLL};

/// Runs the link's dequeues due by `now`: departures join the delivery
/// FIFO (in departure order, so it stays sorted), drops are counted.
fn run_dequeues(s: &Shared, dir: &Direction, st: &mut DirState, now: Time) {
    let mut decided = Vec::new();
    st.link.poll(now, |d| decided.push(d));
    for d in decided {
        match d {
            Delivery::Arrives {
                payload: (data, dest),
                at,
                ..
            } => st.fifo.push_back(Packet {
                deliver_at: at,
                data,
                dest,
            }),
            Delivery::Dropped {
                payload: (data, dest),
                at,
                cause,
            } => {
                dir.counters.count_drop(cause);
                let up = matches!(dest, Dest::Upstream(..));
                s.flows(|f| f.drop_queued(dest.client(), up, &data, cause));
                if s.log_enabled {
                    s.log(format!(
                        "{{\"t-us\":{},\"dir\":\"{}\",\"ev\":\"{}\",\"bytes\":{},\"queue-bytes\":{}}}",
                        at.as_micros(),
                        dir.name,
                        drop_event(cause),
                        data.len(),
                        st.link.bottleneck_ref().backlog_bytes()
                    ));
                }
            }
        }
    }
}

/// Sends each packet of one direction at its modelled delivery time.
///
/// Between packets it sleeps on the direction's condition variable (an
/// arrival wakes it early, to look at the new head). It never spins: a
/// busy-wait before each of 8,300 packets a second is a core, taken from
/// the endpoints (docs/real-mode.md, "Fidelity at 100 Mbit/s").
pub(super) fn tx_loop(s: &Shared, dir: &Direction) {
    s.thread_timing();
    let mut st = dir.lock();
    loop {
        if s.stop.load(Ordering::Relaxed) {
            return;
        }
        let now = s.now();
        if st.link.next_wake().is_some_and(|t| t <= now) {
            run_dequeues(s, dir, &mut st, now);
        }
        let head = st.fifo.front().map(|p| p.deliver_at);
        let due = match (head, st.link.next_wake()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let Some(due) = due else {
            st = dir
                .ready
                .wait_timeout(st, POLL)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            continue;
        };
        let now = s.now();
        if due <= now {
            if head.is_none_or(|h| h > now) {
                // The link's next dequeue is due: run it first.
                continue;
            }
            let Some(p) = st.fifo.pop_front() else {
                continue;
            };
            drop(st);
            let late = now - due;
            let sent = match &p.dest {
                Dest::Upstream(sock, _) => sock.send(&p.data),
                Dest::Client(addr) => s.listen.send_to(&p.data, addr),
            };
            let c = &dir.counters;
            match sent {
                Ok(_) => {
                    let up = matches!(p.dest, Dest::Upstream(..));
                    s.flows(|f| f.deliver(now, p.dest.client(), up, &p.data));
                    c.delivered.fetch_add(1, Ordering::Relaxed);
                    c.delivered_bytes
                        .fetch_add(p.data.len() as u64, Ordering::Relaxed);
                    let late_ns = ramp_vocab::time::duration_nanos(late);
                    c.lateness_sum_ns.fetch_add(late_ns, Ordering::Relaxed);
                    c.lateness_max_ns.fetch_max(late_ns, Ordering::Relaxed);
                    if late > Duration::from_millis(1) {
                        c.late_over_1ms.fetch_add(1, Ordering::Relaxed);
                    }
                    if s.log_enabled {
                        // When the datagram really left (after the send
                        // call), for receive-path measurements at the far
                        // end (docs/real-pacing.md, ACK batching).
                        s.log(format!(
                            "{{\"t-us\":{},\"dir\":\"{}\",\"ev\":\"deliver\",\"bytes\":{}}}",
                            s.now().as_micros(),
                            dir.name,
                            p.data.len()
                        ));
                    }
                }
                Err(e) => {
                    c.send_errors.fetch_add(1, Ordering::Relaxed);
                    if matches!(p.dest, Dest::Upstream(..)) {
                        s.note_upstream_error(&e);
                    }
                }
            }
            st = dir.lock();
            continue;
        }
        st = dir
            .ready
            .wait_timeout(st, (due - now).min(POLL))
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}
