//! The discrete-event engine: a binary heap of events on an integer-ns
//! clock, ties broken by insertion order, driving the flows over the path.
//!
//! The event queue is in `queue`, what the flow under test writes to its
//! trace in `trace_events`, and the record built from a finished flow in
//! `flow_record`.

mod flow_record;
mod queue;
mod trace_events;

use std::collections::VecDeque;

use core::time::Duration;

use ramp_cc::recovery::{RecoveryConfig, Space};
use ramp_cc::{Controller, EcnCodepoint, Time};

use crate::client::{Client, ClientOut, UpPacket, ACK_PACKET_BYTES};
use crate::path::{Carried, Path};
use crate::record::Record;
use crate::resumption::Resumption;
use crate::scenario::Scenario;
use crate::server::{Datagram, Phase, Server};
use crate::trace::{TraceMeta, TraceSink};
use flow_record::make_record;
use queue::{Kind, Queue, TimerKind};
use ramp_link::{Delivery, Offer};
use trace_events::{cc_snapshot, describe, trace_ack_outcome, trace_lost};

/// One flow to simulate.
pub struct FlowSetup {
    /// Its controller (built by the caller from a spec).
    pub controller: Box<dyn Controller>,
    /// The ECN codepoint its packets carry; when ECN-capable, its client
    /// reports ECN counts.
    pub ecn: EcnCodepoint,
    /// Its pacer: the spec's (`pacer=`) or the endpoint's.
    pub pacer: ramp_cc::pacer::PacerKind,
    /// Which packets its congestion window lets out: the spec's
    /// (`send_rule=`), RFC 9002 §7's by default.
    pub send_rule: ramp_cc::SendRule,
    /// A/B arm label for the record (`group`).
    pub group: String,
    /// When its client starts.
    pub start: Duration,
    /// Response size, bytes.
    pub size_bytes: u64,
}

/// What a simulation produced.
#[derive(Debug)]
pub struct SimOutput {
    /// One record per flow, in flow order.
    pub records: Vec<Record>,
    /// Server datagrams offered to the path (all flows).
    pub packets: u64,
    /// Events processed.
    pub events: u64,
}

pub(crate) use ramp_link::DropCause;

/// Drops per [`DropCause`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Drops {
    counts: [u64; DropCause::ALL.len()],
}

impl core::ops::Index<DropCause> for Drops {
    type Output = u64;

    fn index(&self, c: DropCause) -> &u64 {
        &self.counts[c.index()]
    }
}

impl core::ops::IndexMut<DropCause> for Drops {
    fn index_mut(&mut self, c: DropCause) -> &mut u64 {
        &mut self.counts[c.index()]
    }
}

/// What carries the flows' packets and orders their events: the path and
/// the event queue.
struct Wire {
    net: Path,
    q: Queue,
    /// Fates decided after the offer (a dequeue-time discipline's
    /// departures and drops, FQ-CoDel's evictions), to be settled against
    /// their flows.
    later: Vec<Delivery<Carried>>,
    /// The queued link wake-up event, if any.
    link_wake: Option<Time>,
}

/// One flow's endpoints and the engine's bookkeeping for it.
struct Flow {
    server: Server,
    client: Client,
    up: VecDeque<UpPacket>,
    group: String,
    wake_at: Option<Time>,
    timer_event: Option<Time>,
    ack_timer_at: Option<Time>,
    drops: Drops,
    size_bytes: u64,
}

/// Runs `flows` over the path of `scenario` with `seed`. `trace` records
/// flow 0.
pub fn simulate(
    scenario: &Scenario,
    flows: Vec<FlowSetup>,
    seed: u64,
    trace: &mut TraceSink,
) -> SimOutput {
    let mut w = Wire {
        net: Path::new(&scenario.path, seed),
        q: Queue::new(),
        later: Vec::new(),
        link_wake: None,
    };
    let mut fl = set_up(scenario, flows, seed, &mut w.q, trace);
    let limit = Time::ZERO + scenario.time_limit;
    let tracing = trace.is_on();
    let mut dgs: Vec<Datagram> = Vec::with_capacity(64);
    let mut cout = ClientOut::default();
    let mut packets = 0u64;
    let mut events = 0u64;
    let mut remaining = fl.len();

    while let Some(ev) = w.q.pop() {
        if ev.at > limit {
            break;
        }
        events += 1;
        let now = ev.at;
        if let Kind::Link = ev.kind {
            if w.link_wake == Some(now) {
                w.link_wake = None;
                let later = &mut w.later;
                w.net.poll(now, |d| later.push(d));
                let tr = if tracing { Some(&mut *trace) } else { None };
                settle(&mut w, &mut fl, tr);
                arm_link(&mut w);
            }
            continue;
        }
        let traced = tracing && ev.flow == 0;
        let flow = &mut fl[ev.flow as usize];
        let was_done = flow.server.phase == Phase::Done;
        dgs.clear();
        let mut tr = if traced { Some(&mut *trace) } else { None };
        let server = match ev.kind {
            Kind::Start | Kind::Data { .. } | Kind::AckTimer => {
                client_event(
                    ev.kind,
                    now,
                    ev.flow,
                    flow,
                    &mut w,
                    &mut cout,
                    tr.as_deref_mut(),
                );
                None
            }
            Kind::Up | Kind::Wake | Kind::Timer => {
                server_event(ev.kind, now, flow, &mut dgs, tr.as_deref_mut())
            }
            Kind::Link => None,
        };
        if let Some(wake) = server {
            packets += dgs.len() as u64;
            route(&dgs, now, ev.flow, flow, &mut w, tr.as_deref_mut());
            let only_sent = matches!(ev.kind, Kind::Wake);
            rearm(flow, ev.flow, now, wake, only_sent, &mut w.q);
            if let Some(t) = tr {
                t.cc(now, cc_snapshot(&flow.server));
            }
        }
        if !was_done && flow.server.phase == Phase::Done {
            remaining -= 1;
            if remaining == 0 {
                break;
            }
        }
        if !w.later.is_empty() {
            let tr = if tracing { Some(&mut *trace) } else { None };
            settle(&mut w, &mut fl, tr);
        }
        arm_link(&mut w);
    }

    if tracing {
        // The queue's tail: departures after the last packet was offered.
        w.net.drain_queue(Time::MAX, |t, bytes, delay| {
            trace.queue(t, bytes, delay.as_micros() as u64);
        });
    }
    let records = fl
        .iter()
        .enumerate()
        .map(|(i, f)| make_record(scenario, seed, i, f))
        .collect();
    SimOutput {
        records,
        packets,
        events,
    }
}

/// Builds each flow's server and client, queues its start, and writes the
/// trace header of flow 0.
fn set_up(
    scenario: &Scenario,
    flows: Vec<FlowSetup>,
    seed: u64,
    q: &mut Queue,
    trace: &mut TraceSink,
) -> Vec<Flow> {
    let ep = &scenario.endpoint;
    let recovery = RecoveryConfig {
        max_ack_delay: ep.max_ack_delay,
        ..RecoveryConfig::default()
    };
    let mut fl: Vec<Flow> = Vec::with_capacity(flows.len());
    for (i, f) in flows.into_iter().enumerate() {
        // Resumption is the flow under test's: other flows are other
        // users' connections.
        let resumption = if i == 0 {
            ep.resumption
        } else {
            Resumption::Full
        };
        let mut controller = f.controller;
        if let (0, Some(saved)) = (i, ep.resume) {
            controller.resume_from(saved);
        }
        // A 0-RTT client's cached RTT (gQUIC's IRTT) seeds the server's
        // estimate: its 0.5-RTT data is paced, and its PTO armed, at it.
        let mut flow_recovery = recovery.clone();
        if let (true, Some(hint)) = (i == 0 && resumption.zero_rtt(), ep.client_rtt_hint) {
            flow_recovery.initial_rtt = crate::resumption::server_initial_rtt(hint);
        }
        let server = Server::new(
            controller,
            flow_recovery,
            f.pacer,
            ep.mds,
            ep.packet_overhead,
            f.size_bytes,
            if resumption.zero_rtt() {
                // A PSK handshake's flight, one padded datagram
                // (crate::resumption).
                ep.mds.max(crate::client::CLIENT_INITIAL_MIN_BYTES)
            } else {
                ep.server_flight_bytes
            },
            f.ecn,
        )
        .with_flow_limit(ep.flow_windows.map(|w| w.initial_limit()))
        .with_send_rule(f.send_rule)
        .with_token(resumption.validated_at_start());
        // The request schedule is the flow under test's.
        let page = match (i, &scenario.requests) {
            (0, Some(r)) => {
                let sizes: Vec<u64> = r.objects.iter().map(|o| o.size_bytes).collect();
                Some((
                    r.clone(),
                    crate::page::Layout::new(&sizes, server.chunk_bytes),
                ))
            }
            _ => None,
        };
        let server = match &page {
            Some((_, layout)) => server.with_page(layout.clone()),
            None => server,
        };
        let client = Client::new(
            ep.ack_policy,
            ep.max_ack_delay,
            f.ecn.is_ect(),
            server.crypto_packets(),
            f.size_bytes,
            server.chunk_bytes,
            ep.mds,
        )
        .with_flow_windows(ep.flow_windows)
        .with_zero_rtt(resumption.zero_rtt())
        .with_close_when_done(ep.client_closes)
        .with_handshake_processing(ep.client_handshake_processing);
        let client = match page {
            Some((r, layout)) => client.with_page(r, layout),
            None => client,
        };
        // The flow under test may start within its sender's millisecond
        // (crate::clock_phase); 0 unless the scenario asks.
        let phase = if i == 0 {
            ep.clock_phase.offset(seed)
        } else {
            core::time::Duration::ZERO
        };
        let start = Time::ZERO + f.start + phase;
        q.push(start, i as u32, TimerKind::Start);
        if i == 0 && trace.is_on() {
            let name = server.cc.name();
            trace.meta(
                start,
                &TraceMeta {
                    cc: &name,
                    scenario: &scenario.name,
                    seed,
                    rate_bps: scenario.path.rate.bits_per_sec(),
                    rtt_ms: ramp_vocab::time::duration_millis_f64(scenario.path.rtt()),
                    queue_ms: ramp_vocab::time::duration_millis_f64(scenario.path.queue_time()),
                    loss: scenario.path.elements.loss.mean_loss(),
                    mds: ep.mds,
                    content_length: f.size_bytes,
                    flow: 0,
                    group: &f.group,
                },
            );
        }
        fl.push(Flow {
            server,
            client,
            up: VecDeque::new(),
            group: f.group,
            wake_at: None,
            timer_event: None,
            ack_timer_at: None,
            drops: Drops::default(),
            size_bytes: f.size_bytes,
        });
    }
    fl
}

/// The client side of an event: it starts, receives a datagram, or its
/// ACK timer fires; what it sends goes up the reverse path.
#[inline]
fn client_event(
    kind: Kind,
    now: Time,
    fi: u32,
    flow: &mut Flow,
    w: &mut Wire,
    cout: &mut ClientOut,
    trace: Option<&mut TraceSink>,
) {
    match kind {
        Kind::Start => {
            let p = flow.client.start(now);
            send_up(w, flow, fi, now, p);
        }
        Kind::Data { d, ecn } => {
            flow.client.on_datagram(now, &d, ecn, cout);
            if let (Some(t), Some(b)) = (trace, cout.delivered) {
                t.delivered(now, b);
            }
            cout.delivered = None;
            for p in cout.send.drain(..) {
                send_up(w, flow, fi, now, p);
            }
        }
        Kind::AckTimer => {
            if flow.ack_timer_at != Some(now) {
                return;
            }
            flow.ack_timer_at = None;
            flow.client.on_timer(now, cout);
            for p in cout.send.drain(..) {
                send_up(w, flow, fi, now, p);
            }
        }
        Kind::Up | Kind::Wake | Kind::Timer | Kind::Link => return,
    }
    // The deadline may have moved later since a queued timer event was
    // pushed.
    arm_client_timer(&mut w.q, flow, fi);
}

/// The server side of an event: a client packet arrives, a pacing wake-up
/// or the loss-detection timer fires. Returns `None` when the server did
/// not act (a stale wake-up or timer), else its next wake-up (if any);
/// what it sent is in `dgs`.
#[inline]
fn server_event(
    kind: Kind,
    now: Time,
    flow: &mut Flow,
    dgs: &mut Vec<Datagram>,
    mut trace: Option<&mut TraceSink>,
) -> Option<Option<Time>> {
    match kind {
        Kind::Up => Some(match flow.up.pop_front() {
            Some(UpPacket::Initial { bytes, request }) => {
                if request {
                    flow.server.on_client_initial_with_request(now, bytes, dgs)
                } else {
                    flow.server.on_client_initial(now, bytes, dgs)
                }
            }
            Some(UpPacket::FinishedRequest { bytes }) => flow.server.on_request(now, bytes, dgs),
            Some(UpPacket::Probe { bytes, handshake }) => {
                if handshake {
                    flow.server.on_client_handshake(bytes);
                    flow.server.try_send(now, dgs)
                } else {
                    flow.server.on_client_initial(now, bytes, dgs)
                }
            }
            Some(UpPacket::MaxData { stream, connection }) => {
                flow.server.on_max_data(now, stream, connection, dgs)
            }
            Some(UpPacket::Requests {
                bytes,
                first,
                count,
            }) => flow.server.on_requests(now, first, count, bytes, dgs),
            Some(UpPacket::Ack { space, frame: slot }) => {
                let frame = flow.client.sent_ack(slot);
                let bytes = flow.client.ack_bytes(space);
                if space == Space::Initial {
                    flow.server.on_client_initial(now, bytes, dgs);
                } else {
                    flow.server.on_client_handshake(bytes);
                }
                if let Some(t) = trace.as_deref_mut() {
                    t.ack_received(now, space, frame.frame());
                }
                let wake = flow.server.on_ack(now, space, frame, dgs);
                if let Some(t) = trace {
                    trace_ack_outcome(t, now, &flow.server);
                }
                flow.client.recycle(slot);
                wake
            }
            None => None,
        }),
        Kind::Wake => {
            if flow.wake_at != Some(now) {
                return None;
            }
            flow.wake_at = None;
            Some(flow.server.on_wake(now, dgs))
        }
        Kind::Timer => {
            if flow.timer_event != Some(now) {
                return None;
            }
            flow.timer_event = None;
            let mut wake = None;
            if flow.server.timer().is_some_and(|t| t <= now) {
                wake = flow.server.on_timer(now, dgs);
                // Only a timeout that ran has losses to report: the
                // outcome is kept between timeouts, and tracing it on a
                // stale timer event would declare its packets lost again.
                if let Some(t) = trace {
                    let to = &flow.server.timeout_out;
                    trace_lost(t, now, &flow.server, &to.lost, &to.lost_by);
                }
            }
            Some(wake)
        }
        Kind::Start | Kind::Data { .. } | Kind::AckTimer | Kind::Link => None,
    }
}

/// Offers what the server sent to the path and queues each arrival; drops
/// are counted by cause.
#[inline]
fn route(
    dgs: &[Datagram],
    now: Time,
    fi: u32,
    flow: &mut Flow,
    w: &mut Wire,
    mut trace: Option<&mut TraceSink>,
) {
    for d in dgs {
        if let Some(trace) = trace.as_deref_mut() {
            let (space, stream) = describe(&flow.server, d.payload);
            let sp = if d.space == Space::Application {
                Space::Application
            } else {
                space
            };
            trace.sent(now, d.pn, u64::from(d.size), sp, stream, d.retx);
            w.net.drain_queue(now, |t, bytes, delay| {
                trace.queue(t, bytes, delay.as_micros() as u64);
            });
        }
        let offer = w.net.forward(now, fi, *d);
        if let Some(trace) = trace.as_deref_mut() {
            let (bytes, delay) = w.net.queue_state(now);
            trace.queue(now, bytes, delay.as_micros() as u64);
        }
        match offer {
            Offer::Now(Delivery::Arrives { payload, at, ecn }) => {
                w.q.push_fwd(at, fi, payload.1, ecn);
            }
            Offer::Now(Delivery::Dropped { cause, .. }) => {
                flow.drops[cause] += 1;
                if let Some(trace) = trace.as_deref_mut() {
                    trace.drop(now, d.pn, u64::from(d.size), cause);
                }
            }
            Offer::Held { evicted } => w.later.extend(evicted),
        }
    }
}

/// Settles the fates decided after their offer (a dequeue-time
/// discipline's departures and drops, FQ-CoDel's evictions): arrivals are
/// queued, drops counted against their flows.
fn settle(w: &mut Wire, fl: &mut [Flow], mut trace: Option<&mut TraceSink>) {
    for d in w.later.drain(..) {
        match d {
            Delivery::Arrives {
                payload: (fi, d),
                at,
                ecn,
            } => w.q.push_fwd(at, fi, d, ecn),
            Delivery::Dropped {
                payload: (fi, d),
                at,
                cause,
            } => {
                if let Some(f) = fl.get_mut(fi as usize) {
                    f.drops[cause] += 1;
                }
                if fi == 0 {
                    if let Some(t) = trace.as_deref_mut() {
                        t.drop(at, d.pn, u64::from(d.size), cause);
                    }
                }
            }
        }
    }
}

/// Queues the link's next dequeue (CoDel, FQ-CoDel) if it is earlier than
/// the one already queued.
#[inline]
fn arm_link(w: &mut Wire) {
    if let Some(t) = w.net.next_wake() {
        if w.link_wake.is_none_or(|queued| t < queued) {
            w.link_wake = Some(t);
            w.q.push(t, 0, TimerKind::Link);
        }
    }
}

/// Queues the server's next wake-up and loss-detection timer. An event is
/// pushed only when the new deadline is earlier than the one already
/// queued; a later deadline is picked up when the queued event fires (and
/// finds it is early), so the heap stays a handful of events.
#[inline]
fn rearm(flow: &mut Flow, fi: u32, now: Time, wake: Option<Time>, only_sent: bool, q: &mut Queue) {
    if let Some(t) = wake {
        if flow.wake_at.is_none_or(|w| t < w) {
            flow.wake_at = Some(t);
            q.push_wake(t, fi);
        }
    }
    // Sending only moves the loss-detection timer later (the PTO counts
    // from the newest ack-eliciting send; loss times depend on ACKs), so
    // after a pure send wake-up the queued timer event still fires early
    // enough, and re-reading the timer (a scan of all spaces) is needed
    // only when none is queued.
    let timer = if only_sent && flow.timer_event.is_some() {
        None
    } else {
        flow.server.timer()
    };
    if let Some(t) = timer {
        let t = t.max(now);
        if flow.timer_event.is_none_or(|e| t < e) {
            flow.timer_event = Some(t);
            q.push(t, fi, TimerKind::Timer);
        }
    }
}

/// Queues the client's timer (delayed ACK or handshake PTO) if it is
/// earlier than the one already queued; a queued event that finds its
/// deadline moved later re-arms through here.
fn arm_client_timer(q: &mut Queue, flow: &mut Flow, fi: u32) {
    if let Some(t) = flow.client.next_timer() {
        if flow.ack_timer_at.is_none_or(|queued| t < queued) {
            flow.ack_timer_at = Some(t);
            q.push(t, fi, TimerKind::AckTimer);
        }
    }
}

fn send_up(w: &mut Wire, flow: &mut Flow, fi: u32, now: Time, p: UpPacket) {
    let bytes = match &p {
        UpPacket::Initial { bytes, .. }
        | UpPacket::FinishedRequest { bytes }
        | UpPacket::Probe { bytes, .. }
        | UpPacket::Requests { bytes, .. } => *bytes,
        UpPacket::Ack { space, .. } => flow.client.ack_bytes(*space),
        // MAX_STREAM_DATA and MAX_DATA fit a packet the size of an ACK.
        UpPacket::MaxData { .. } => ACK_PACKET_BYTES,
    };
    let at = w.net.reverse(now, bytes as u32);
    flow.up.push_back(p);
    w.q.push_rev(at, fi);
}
