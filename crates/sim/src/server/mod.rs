//! The server endpoint: handshake flight under the anti-amplification limit,
//! then one response of N bytes (or, with a request schedule, one response
//! per request, crate::page) sent with a ramp-cc controller, the ramp-cc
//! loss detector and a pacer; lost data is retransmitted until every byte is
//! acknowledged.

use std::collections::VecDeque;

use ramp_cc::pacer::{AnyPacer, PacerKind, PacingInput};
use ramp_cc::recovery::{
    AckOutcome, LossDetector, RecoveryConfig, Space, TimeoutKind, TimeoutOutcome, TrackedAckFrame,
};
use ramp_cc::SendRule;
use ramp_cc::{Controller, EcnCodepoint, Time};

mod send;

/// RFC 9000 §8.1: before validating the client's address, a server sends at
/// most three times the bytes it has received.
pub(crate) const AMPLIFICATION_FACTOR: u64 = 3;

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Payload {
    /// Handshake data: packet `n` of the server's flight.
    Crypto(u16),
    /// Response data: chunk `n` (offset `n x chunk_bytes`).
    Stream(u32),
    /// A PING (a probe with nothing else to send).
    Ping,
}

/// A datagram on its way from the server to the client.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Datagram {
    /// Packet-number space.
    pub space: Space,
    /// Packet number.
    pub pn: u64,
    /// UDP payload bytes.
    pub size: u32,
    /// Content.
    pub payload: Payload,
    /// Whether this resends data sent before.
    pub retx: bool,
    /// Its ECN codepoint as sent.
    pub ecn: EcnCodepoint,
}

/// Server phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Waiting for the client's Initial.
    Idle,
    /// Handshake flight sent, waiting for the request.
    Handshake,
    /// Sending the response.
    Serving,
    /// Every response byte acknowledged.
    Done,
}

/// The server of one flow.
pub(crate) struct Server {
    /// RFC 9002 loss detection (ramp-cc).
    pub ld: LossDetector<Payload>,
    /// The controller (ramp-cc).
    pub cc: Box<dyn Controller>,
    pacer: AnyPacer,
    /// The controller's burst limit, asked once: it is a property of the
    /// controller's kind, and asking per packet is a dynamic call in the
    /// simulator's hot path.
    pacing_burst: Option<core::time::Duration>,
    /// Which pacer, so the quinn model can be restarted with the response.
    pacer_kind: PacerKind,
    /// Which packets the congestion window lets out.
    send_rule: SendRule,
    mds: u64,
    /// The codepoint the controller's spec (or the endpoint) chose.
    ecn: EcnCodepoint,
    /// Current phase.
    pub phase: Phase,
    next_pn: [u64; 3],
    amp_received: u64,
    amp_sent: u64,
    validated: bool,
    crypto_sizes: Vec<u32>,
    crypto_acked: Vec<bool>,
    crypto_next: usize,
    crypto_retx: VecDeque<u16>,
    /// Stream bytes per full packet.
    pub chunk_bytes: u64,
    /// Bytes of a stream packet that are not stream data.
    packet_overhead: u64,
    /// Response size.
    pub total_bytes: u64,
    /// Number of chunks.
    pub chunks: u32,
    acked: Vec<u64>,
    acked_count: u32,
    next_chunk: u32,
    retx: VecDeque<u32>,
    lowest_unacked: u32,
    probes: u8,
    probe_space: Space,
    app_limited: bool,
    /// When the request arrived.
    pub t_request: Option<Time>,
    /// When the last response byte was acknowledged.
    pub t_done: Option<Time>,
    /// Stream bytes sent more than once.
    pub resent_bytes: u64,
    /// Largest window seen.
    pub cwnd_max: u64,
    /// Outcome of the last ACK (for traces).
    pub ack_out: AckOutcome<Payload>,
    /// Outcome of the last timeout (for traces).
    pub timeout_out: TimeoutOutcome<Payload>,
    /// The packet the pacer last held back, for the wake-up that follows
    /// ([`Server::on_wake`]); `try_send` drops it.
    held: Option<Held>,
    /// `try_send` runs for the wake-up that `held` is for.
    woken: bool,
    /// Stream bytes the client allows (RFC 9000 §4.1: the smaller of
    /// MAX_STREAM_DATA and MAX_DATA, one stream); `u64::MAX` without flow
    /// control.
    fc_limit: u64,
    /// The request arrived in 0-RTT: the response is sent during the
    /// handshake, once the flight is out (0.5-RTT data).
    early: bool,
    /// Whether the sender is blocked by flow control now.
    fc_blocked: bool,
    /// Times the sender became blocked by flow control (each would send a
    /// STREAM_DATA_BLOCKED or DATA_BLOCKED frame, RFC 9000 §4.1).
    pub fc_blocked_count: u64,
    /// New data may be sent up to this chunk: the end of the requested
    /// objects (all chunks for one object, whose request the phase gates).
    requested_end: u32,
    /// Several responses (crate::page); None for one object.
    page: Option<Box<ServerPage>>,
}

/// What the pacer said about the packet it held back: the pacing input it
/// was asked with, and when it said the packet may leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    input: PacingInput,
    at: Time,
}

/// The server's side of a request schedule.
struct ServerPage {
    layout: crate::page::Layout,
    /// Which objects' requests arrived.
    requested: Vec<bool>,
    /// Objects `0 .. prefix` are all requested: responses go out in
    /// stream order (RFC 9218 §10 defaults, crate::page).
    prefix: usize,
}

impl Server {
    /// A server sending `total_bytes`, with a handshake flight of
    /// `flight_bytes`, in packets of at most `mds` bytes of which
    /// `packet_overhead` are not stream data.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        cc: Box<dyn Controller>,
        recovery: RecoveryConfig,
        pacer: PacerKind,
        mds: u64,
        packet_overhead: u64,
        total_bytes: u64,
        flight_bytes: u64,
        ecn: EcnCodepoint,
    ) -> Server {
        let chunk_bytes = mds - packet_overhead;
        let chunks = u32::try_from(total_bytes.div_ceil(chunk_bytes)).unwrap_or(u32::MAX);
        let mut crypto_sizes = Vec::new();
        let mut left = flight_bytes;
        while left > 0 {
            let s = left.min(mds);
            // A packet is never smaller than a minimal QUIC packet.
            crypto_sizes.push(u32::try_from(s.max(64)).unwrap_or(u32::MAX));
            left -= s;
        }
        let cwnd = cc.window();
        let ld = LossDetector::new(recovery);
        let input = PacingInput {
            rate: cc.pacing_rate(ld.rtt()),
            window: cwnd,
            smoothed_rtt: ld.rtt().smoothed(),
            max_datagram_size: mds,
            burst: cc.pacing_burst(),
        };
        let pacing_burst = input.burst;
        let pacer_kind = pacer;
        let pacer = pacer.build(Time::ZERO, &input);
        Server {
            ld,
            cc,
            pacer,
            pacing_burst,
            pacer_kind,
            send_rule: SendRule::default(),
            mds,
            ecn,
            phase: Phase::Idle,
            next_pn: [0; 3],
            amp_received: 0,
            amp_sent: 0,
            validated: false,
            crypto_acked: vec![false; crypto_sizes.len()],
            crypto_sizes,
            crypto_next: 0,
            crypto_retx: VecDeque::new(),
            chunk_bytes,
            packet_overhead,
            total_bytes,
            chunks,
            acked: vec![0; (chunks as usize).div_ceil(64)],
            acked_count: 0,
            next_chunk: 0,
            retx: VecDeque::new(),
            lowest_unacked: 0,
            probes: 0,
            probe_space: Space::Application,
            app_limited: false,
            t_request: None,
            t_done: None,
            resent_bytes: 0,
            cwnd_max: cwnd,
            ack_out: AckOutcome::new(),
            timeout_out: TimeoutOutcome::new(),
            held: None,
            woken: false,
            fc_limit: u64::MAX,
            early: false,
            fc_blocked: false,
            fc_blocked_count: 0,
            requested_end: chunks,
            page: None,
        }
    }

    /// Serves one response per object of `layout` (crate::page), each once
    /// its request has arrived, instead of one response of `total_bytes`.
    pub(crate) fn with_page(mut self, layout: crate::page::Layout) -> Server {
        self.chunks = layout.chunks();
        self.total_bytes = (0..layout.objects()).map(|i| layout.size(i)).sum();
        self.acked = vec![0; (self.chunks as usize).div_ceil(64)];
        self.requested_end = 0;
        self.page = Some(Box::new(ServerPage {
            requested: vec![false; layout.objects()],
            prefix: 0,
            layout,
        }));
        self
    }

    /// The requests for objects `first .. first + count` arrived.
    fn mark_requested(&mut self, first: u32, count: u32) {
        let Some(p) = self.page.as_mut() else {
            return;
        };
        for i in first..first.saturating_add(count) {
            if let Some(r) = p.requested.get_mut(i as usize) {
                *r = true;
            }
        }
        while p.prefix < p.requested.len() && p.requested[p.prefix] {
            p.prefix += 1;
        }
        if p.prefix > 0 {
            self.requested_end = p.layout.end(p.prefix - 1);
        }
    }

    /// A 1-RTT packet with further requests (HEADERS frames on new
    /// streams) arrived on the open connection.
    pub(crate) fn on_requests(
        &mut self,
        now: Time,
        first: u32,
        count: u32,
        bytes: u64,
        out: &mut Vec<Datagram>,
    ) -> Option<Time> {
        self.on_client_handshake(bytes);
        self.mark_requested(first, count);
        self.try_send(now, out)
    }

    /// Sets the client's initial flow-control limit on the response's
    /// stream bytes (from its transport parameters).
    pub(crate) fn with_flow_limit(mut self, limit: Option<u64>) -> Server {
        self.fc_limit = limit.unwrap_or(u64::MAX);
        self
    }

    /// The congestion window lets packets out by `rule` (the arm's
    /// `send_rule=`).
    pub(crate) fn with_send_rule(mut self, rule: SendRule) -> Server {
        self.send_rule = rule;
        self
    }

    /// The server holds an address-validation token for the client (RFC
    /// 9000 §8.1.3): no anti-amplification limit from the start.
    pub(crate) fn with_token(mut self, token: bool) -> Server {
        self.validated = token;
        self
    }

    /// The client's Initial arrived with a 0-RTT request coalesced: the
    /// response starts as soon as the handshake flight is out, still under
    /// the anti-amplification limit (RFC 9000 §8.1) until the address is
    /// validated.
    pub(crate) fn on_client_initial_with_request(
        &mut self,
        now: Time,
        bytes: u64,
        out: &mut Vec<Datagram>,
    ) -> Option<Time> {
        if self.phase == Phase::Idle {
            self.early = true;
            self.t_request = Some(now);
            self.mark_requested(0, 1);
        }
        self.on_client_initial(now, bytes, out)
    }

    /// MAX_STREAM_DATA / MAX_DATA arrived: limits only ever rise (RFC 9000
    /// §4.1: a frame that does not raise the limit is ignored).
    pub(crate) fn on_max_data(
        &mut self,
        now: Time,
        stream: u64,
        connection: u64,
        out: &mut Vec<Datagram>,
    ) -> Option<Time> {
        self.fc_limit = self.fc_limit.max(stream.min(connection));
        self.try_send(now, out)
    }

    /// Number of packets in the handshake flight.
    pub(crate) fn crypto_packets(&self) -> u16 {
        u16::try_from(self.crypto_sizes.len()).unwrap_or(u16::MAX)
    }

    /// Stream bytes of chunk `c`.
    pub(crate) fn chunk_len(&self, c: u32) -> u64 {
        if let Some(p) = &self.page {
            return p.layout.chunk_len(c);
        }
        let off = u64::from(c) * self.chunk_bytes;
        self.chunk_bytes.min(self.total_bytes - off)
    }

    /// Response bytes before chunk `c` (with several responses, their
    /// total in stream order).
    pub(crate) fn offset(&self, c: u32) -> u64 {
        match &self.page {
            Some(p) => p.layout.offset(c),
            None => u64::from(c) * self.chunk_bytes,
        }
    }

    fn is_acked(&self, c: u32) -> bool {
        self.acked[(c / 64) as usize] & (1 << (c % 64)) != 0
    }

    /// The client's Initial arrived.
    pub(crate) fn on_client_initial(
        &mut self,
        now: Time,
        bytes: u64,
        out: &mut Vec<Datagram>,
    ) -> Option<Time> {
        self.amp_received += bytes;
        if self.phase == Phase::Idle {
            self.phase = Phase::Handshake;
        }
        self.try_send(now, out)
    }

    /// A client Handshake packet arrived (validates the address, RFC 9000
    /// §8.1; the server then drops its Initial keys, RFC 9001 §4.9.1).
    pub(crate) fn on_client_handshake(&mut self, bytes: u64) {
        self.amp_received += bytes;
        if !self.validated {
            self.validated = true;
            self.ld.discard_space(Space::Initial);
        }
    }

    /// The client's Finished and the request arrived: the handshake is
    /// confirmed (RFC 9001 §4.1.2) and the response starts.
    pub(crate) fn on_request(
        &mut self,
        now: Time,
        bytes: u64,
        out: &mut Vec<Datagram>,
    ) -> Option<Time> {
        self.on_client_handshake(bytes);
        if self.phase == Phase::Handshake {
            self.ld.set_handshake_confirmed();
            self.ld.discard_space(Space::Handshake);
            self.crypto_retx.clear();
            self.phase = Phase::Serving;
            if self.t_request.is_none() {
                self.t_request = Some(now);
                self.mark_requested(0, 1);
            }
            if self.pacer_kind == PacerKind::Quinn {
                // A real quinn server sends HANDSHAKE_DONE, session tickets
                // and the HTTP/3 control and QPACK streams through the same
                // pacer right after the handshake, which refreshes its lazy
                // refill clock. Started at connection start instead, the
                // model would credit the whole handshake at the first refill
                // and release two full bursts at once, which real quinn was
                // measured not to do (docs/real-mode.md: two 10-packet bursts
                // 0.4 RTT apart).
                let input = self.pacing_input();
                self.pacer = self.pacer_kind.build(now, &input);
            }
        }
        self.try_send(now, out)
    }

    /// An ACK frame arrived. Returns when to wake to send next.
    pub(crate) fn on_ack(
        &mut self,
        now: Time,
        space: Space,
        frame: &TrackedAckFrame,
        out: &mut Vec<Datagram>,
    ) -> Option<Time> {
        let app_limited = self.app_limited;
        let mut ack_out = std::mem::take(&mut self.ack_out);
        let r = self.ld.on_tracked_ack_received(
            now,
            space,
            frame,
            app_limited,
            self.cc.as_mut(),
            &mut ack_out,
        );
        if r.is_ok() {
            for p in &ack_out.acked {
                self.mark_acked(p.payload);
            }
            for p in &ack_out.lost {
                self.requeue(p.payload);
            }
        }
        self.ack_out = ack_out;
        self.cwnd_max = self.cwnd_max.max(self.cc.window());
        let serving =
            self.phase == Phase::Serving || (self.early && self.phase == Phase::Handshake);
        if serving && self.acked_count == self.chunks {
            self.phase = Phase::Done;
            self.t_done = Some(now);
        }
        self.try_send(now, out)
    }

    /// The loss-detection timer fired.
    pub(crate) fn on_timer(&mut self, now: Time, out: &mut Vec<Datagram>) -> Option<Time> {
        let mut to = std::mem::take(&mut self.timeout_out);
        self.ld.on_timeout(now, self.cc.as_mut(), &mut to);
        match to.kind {
            TimeoutKind::Idle => {}
            TimeoutKind::LossTimer { .. } => {
                for p in &to.lost {
                    self.requeue(p.payload);
                }
            }
            TimeoutKind::Pto { space, probes } => {
                self.probes = probes;
                self.probe_space = space;
            }
        }
        self.timeout_out = to;
        self.try_send(now, out)
    }

    fn mark_acked(&mut self, p: Payload) {
        match p {
            Payload::Crypto(i) => {
                if let Some(a) = self.crypto_acked.get_mut(usize::from(i)) {
                    *a = true;
                }
            }
            Payload::Stream(c) => {
                let (w, b) = ((c / 64) as usize, c % 64);
                if self.acked[w] & (1 << b) == 0 {
                    self.acked[w] |= 1 << b;
                    self.acked_count += 1;
                }
                while self.lowest_unacked < self.chunks && self.is_acked(self.lowest_unacked) {
                    self.lowest_unacked += 1;
                }
            }
            Payload::Ping => {}
        }
    }

    fn requeue(&mut self, p: Payload) {
        match p {
            Payload::Crypto(i) => {
                if self.phase == Phase::Handshake
                    && !self
                        .crypto_acked
                        .get(usize::from(i))
                        .copied()
                        .unwrap_or(true)
                {
                    self.crypto_retx.push_back(i);
                }
            }
            Payload::Stream(c) => {
                if !self.is_acked(c) {
                    self.retx.push_back(c);
                }
            }
            Payload::Ping => {}
        }
    }

    /// The ECN codepoint the flow was set up to send.
    pub(crate) fn ecn(&self) -> EcnCodepoint {
        self.ecn
    }

    /// The loss-detection timer deadline.
    pub(crate) fn timer(&self) -> Option<Time> {
        if self.phase == Phase::Done {
            return None;
        }
        self.ld.timer()
    }
}
