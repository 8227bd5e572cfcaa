//! The client endpoint: sends its Initial, acknowledges the server's
//! packets under its ACK policy, sends Finished with the request once the
//! handshake flight is complete, and reassembles the response — or, with a
//! request schedule (crate::page), sends each further request when the
//! workload says and reassembles every response.

use core::time::Duration;

use ramp_cc::recovery::{Space, TrackedAckFrame};
use ramp_cc::{EcnCodepoint, Time};

use crate::flow_control::{FlowWindows, ReceiveWindows};
use crate::receiver::{AckAction, AckPolicy, AckState, MAX_ACK_RANGES};
use crate::server::{Datagram, Payload};

/// The client's first datagram: an Initial padded to 1200 bytes (RFC 9000
/// §14.1) — counted at the full datagram size of the scenario.
pub(crate) const CLIENT_INITIAL_MIN_BYTES: u64 = 1200;
/// Client Handshake packet with Finished coalesced with the 1-RTT request
/// (HEADERS of a GET): about 200 bytes.
pub(crate) const CLIENT_FINISHED_REQUEST_BYTES: u64 = 200;
/// An ACK-only packet (short header, ACK frame with a few ranges, tag).
pub(crate) const ACK_PACKET_BYTES: u64 = 50;
/// Floor of the client's handshake PTO (RFC 9002 `kGranularity`).
pub(crate) const MIN_PTO: Duration = Duration::from_millis(1);

/// A packet from the client to the server.
#[derive(Clone, Debug)]
pub(crate) enum UpPacket {
    /// The client's Initial (ClientHello).
    Initial {
        /// Datagram bytes.
        bytes: u64,
        /// A 0-RTT packet with the request is coalesced with it.
        request: bool,
    },
    /// Handshake Finished coalesced with the request.
    FinishedRequest {
        /// Datagram bytes.
        bytes: u64,
    },
    /// A handshake probe after the client's PTO (RFC 9002 §6.2.2.1): it
    /// gives the server new anti-amplification credit, and, as a Handshake
    /// packet, validates the client's address.
    Probe {
        /// Datagram bytes.
        bytes: u64,
        /// A Handshake packet (the client has Handshake keys), else an
        /// Initial padded to the datagram size.
        handshake: bool,
    },
    /// Requests for objects `first .. first + count` (HEADERS frames on new
    /// streams) in one 1-RTT packet.
    Requests {
        /// Datagram bytes.
        bytes: u64,
        /// The first object requested.
        first: u32,
        /// How many.
        count: u32,
    },
    /// MAX_STREAM_DATA and MAX_DATA frames raising the server's limits
    /// (RFC 9000 §19.9, §19.10), in one 1-RTT packet.
    MaxData {
        /// The response stream's new limit, bytes.
        stream: u64,
        /// The connection's new limit, bytes.
        connection: u64,
    },
    /// An ACK-only packet.
    Ack {
        /// The space acknowledged.
        space: Space,
        /// Its frame: the client's [`AckSlot`], until the server has read
        /// it ([`Client::sent_ack`]).
        frame: AckSlot,
    },
}

/// Where a sent ACK frame waits for the server: an index into the
/// client's frames. A frame is written in place and read in place, so an
/// ACK on its way up moves 4 bytes, not the frame (its range list and
/// counts), and the packets on the reverse path stay small.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AckSlot(u32);

/// What the client wants done after an event.
#[derive(Debug, Default)]
pub(crate) struct ClientOut {
    /// Packets to send, in order.
    pub send: Vec<UpPacket>,
    /// New in-order delivered bytes total, if it changed.
    pub delivered: Option<u64>,
}

/// Bytes of one request in a 1-RTT packet (HEADERS of a GET), the size of
/// the request the client coalesces with Finished; requests leaving
/// together share datagrams of at most the datagram size.
pub(crate) const REQUEST_BYTES: u64 = CLIENT_FINISHED_REQUEST_BYTES;

/// RFC 9002 §6.2.2 `kInitialRtt`-based first PTO of the client: 3 x 333 ms
/// (smoothed RTT + 4 x rttvar with rttvar = RTT/2) before any RTT sample.
const CLIENT_FIRST_PTO: Duration = Duration::from_millis(999);

/// The client of one flow.
pub struct Client {
    acks: [AckState; 3],
    crypto_total: u16,
    crypto_got: Vec<bool>,
    crypto_count: u16,
    /// When the client sent its Initial.
    pub t_start: Time,
    /// When the handshake completed at the client.
    pub t_handshake: Option<Time>,
    /// The client's own handshake work (certificate verification, key
    /// derivation) before it answers the server's handshake flight
    /// ([`Client::with_handshake_processing`]).
    processing: Duration,
    /// Packets answering the handshake flight, held until `release_at`.
    held: Vec<UpPacket>,
    /// When the held packets leave: the first handshake datagram's arrival
    /// plus `processing`; None before it and after.
    release_at: Option<Time>,
    /// The processing is over (it happens once per connection).
    processed: bool,
    /// First response byte.
    pub t_first_byte: Option<Time>,
    /// Last response byte (all delivered in order).
    pub t_last_byte: Option<Time>,
    rtt_estimate: Duration,
    chunk_got: Vec<u64>,
    next_in_order: u32,
    chunks: u32,
    chunk_bytes: u64,
    total_bytes: u64,
    /// ACK frames, sent ones and spare ones; a spare keeps its range
    /// list's allocation for the next ACK.
    frames: Vec<TrackedAckFrame>,
    /// The spare frames' slots.
    spare: Vec<AckSlot>,
    initial_bytes: u64,
    hs_pto_at: Option<Time>,
    hs_pto_count: u32,
    /// Receive windows (None: unlimited).
    fc: Option<ReceiveWindows>,
    /// The request leaves with the first flight (0-RTT).
    zero_rtt: bool,
    /// When the request left.
    pub t_request_sent: Option<Time>,
    /// The request schedule (crate::page); None for one object.
    page: Option<Box<ClientPage>>,
    mds: u64,
    /// Closes the connection once the response is complete.
    closes_when_done: bool,
}

/// The client's side of a request schedule.
struct ClientPage {
    requests: crate::page::Requests,
    layout: crate::page::Layout,
    /// Chunks received per object.
    got: Vec<u32>,
    /// Per object: request sent, last byte received.
    times: Vec<crate::page::ObjectTimes>,
    /// Objects `0 .. done_prefix` have all arrived.
    done_prefix: usize,
    /// The next object to request.
    next: usize,
    /// When it is due (its trigger's prefix has arrived).
    due: Option<Time>,
}

impl ClientPage {
    /// When object `i`'s request is due: None until the objects its
    /// trigger waits for have all arrived.
    fn due_of(&self, i: usize) -> Option<Time> {
        match self.requests.objects[i].trigger {
            crate::page::Trigger::After { upto, delay } if self.done_prefix >= upto as usize => {
                let ready = self.times[..upto as usize]
                    .iter()
                    .filter_map(|t| t.done)
                    .max()?;
                Some(ready + delay)
            }
            _ => None,
        }
    }
}

impl Client {
    /// A client expecting `crypto_packets` handshake packets and a response
    /// of `total_bytes` in chunks of `chunk_bytes`.
    pub fn new(
        policy: AckPolicy,
        max_ack_delay: Duration,
        ecn: bool,
        crypto_packets: u16,
        total_bytes: u64,
        chunk_bytes: u64,
        mds: u64,
    ) -> Client {
        // Initial and Handshake packets are acknowledged at once (RFC 9000
        // §13.2.1).
        let immediate = AckPolicy::AckFrequency {
            packets: 1,
            delay: Duration::ZERO,
        };
        let chunks = u32::try_from(total_bytes.div_ceil(chunk_bytes)).unwrap_or(u32::MAX);
        Client {
            acks: [
                // RFC 9000 §13.4.1: ECN counts are kept per space.
                AckState::new(immediate, Duration::ZERO, ecn),
                AckState::new(immediate, Duration::ZERO, ecn),
                AckState::new(policy, max_ack_delay, ecn),
            ],
            crypto_total: crypto_packets,
            crypto_got: vec![false; usize::from(crypto_packets)],
            crypto_count: 0,
            t_start: Time::ZERO,
            t_handshake: None,
            processing: Duration::ZERO,
            held: Vec::new(),
            release_at: None,
            processed: false,
            t_first_byte: None,
            t_last_byte: None,
            rtt_estimate: Duration::ZERO,
            chunk_got: vec![0; (chunks as usize).div_ceil(64)],
            next_in_order: 0,
            chunks,
            chunk_bytes,
            total_bytes,
            frames: Vec::new(),
            spare: Vec::new(),
            initial_bytes: mds.max(CLIENT_INITIAL_MIN_BYTES),
            hs_pto_at: None,
            hs_pto_count: 0,
            fc: None,
            zero_rtt: false,
            t_request_sent: None,
            page: None,
            mds,
            closes_when_done: false,
        }
    }

    /// Fetches the objects of `requests` (laid out as `layout`, the
    /// server's) instead of one response.
    pub(crate) fn with_page(
        mut self,
        requests: crate::page::Requests,
        layout: crate::page::Layout,
    ) -> Client {
        self.chunks = layout.chunks();
        self.total_bytes = requests.total_bytes();
        self.chunk_got = vec![0; (self.chunks as usize).div_ceil(64)];
        let n = requests.objects.len();
        self.page = Some(Box::new(ClientPage {
            requests,
            layout,
            got: vec![0; n],
            times: vec![crate::page::ObjectTimes::default(); n],
            done_prefix: 0,
            next: 1,
            due: None,
        }));
        self
    }

    /// The page-load figures (None for one object).
    pub fn page_record(&self) -> Option<crate::page::PageRecord> {
        self.page
            .as_ref()
            .map(|p| crate::page::PageRecord::new(&p.requests, &p.times, self.t_start))
    }

    /// Object 0's request left at `now`.
    fn first_request_sent(&mut self, now: Time) {
        if let Some(p) = self.page.as_mut() {
            p.times[0].requested = Some(now);
        }
    }

    /// Sends every request that is due by `now` (those leaving together
    /// share datagrams), and finds when the next one is.
    fn send_due_requests(&mut self, now: Time, out: &mut ClientOut) {
        let per_datagram = u32::try_from((self.mds / REQUEST_BYTES).max(1)).unwrap_or(1);
        let Some(p) = self.page.as_mut() else {
            return;
        };
        let first = p.next;
        p.due = None;
        while p.next < p.times.len() {
            match p.due_of(p.next) {
                Some(t) if t <= now => {
                    p.times[p.next].requested = Some(now);
                    p.next += 1;
                }
                due => {
                    p.due = due;
                    break;
                }
            }
        }
        let (mut at, end) = (first as u32, p.next as u32);
        while at < end {
            let count = (end - at).min(per_datagram);
            out.send.push(UpPacket::Requests {
                bytes: u64::from(count) * REQUEST_BYTES,
                first: at,
                count,
            });
            at += count;
        }
    }

    /// Chunk `c` is new: count it against its object.
    fn page_chunk(&mut self, now: Time, c: u32, out: &mut ClientOut) {
        let Some(p) = self.page.as_mut() else {
            return;
        };
        let i = p.layout.object_of(c);
        p.got[i] += 1;
        let start = if i == 0 { 0 } else { p.layout.end(i - 1) };
        if p.got[i] == p.layout.end(i) - start {
            p.times[i].done = Some(now);
            while p.done_prefix < p.times.len() && p.times[p.done_prefix].done.is_some() {
                p.done_prefix += 1;
            }
            self.send_due_requests(now, out);
        }
    }

    /// The client closes the connection once it has the whole response
    /// (`[endpoint] client_closes`): the ACK it owes then leaves at once,
    /// in the packet that carries its CONNECTION_CLOSE.
    pub fn with_close_when_done(mut self, on: bool) -> Client {
        self.closes_when_done = on;
        self
    }

    /// A resumed connection sends its request in 0-RTT, with its Initial
    /// (crate::resumption).
    pub fn with_zero_rtt(mut self, on: bool) -> Client {
        self.zero_rtt = on;
        self
    }

    /// Bytes of an ACK-only datagram in `space`: with 0-RTT modelled, a
    /// datagram carrying an Initial packet is padded to the datagram size
    /// (RFC 9000 §14.1); otherwise every ACK counts 50 bytes, as the full
    /// handshake model always has.
    pub fn ack_bytes(&self, space: Space) -> u64 {
        if self.zero_rtt && space == Space::Initial {
            self.initial_bytes
        } else {
            ACK_PACKET_BYTES
        }
    }

    /// Sets the client's receive windows (RFC 9000 §4); unlimited unless
    /// called.
    pub fn with_flow_windows(mut self, w: Option<FlowWindows>) -> Client {
        self.fc = w.map(ReceiveWindows::new);
        self
    }

    /// Window updates sent (packets with MAX_STREAM_DATA / MAX_DATA).
    pub fn window_updates(&self) -> u64 {
        self.fc.as_ref().map_or(0, |f| f.updates)
    }

    /// Starts the connection: the Initial.
    /// The client's handshake processing time: everything it sends in
    /// answer to the server's Initial and Handshake packets (their ACKs,
    /// Finished with the request) leaves this long after the first of them
    /// arrived, so the server's handshake RTT samples include it while the
    /// path's minimum, set later by immediately acknowledged 1-RTT packets,
    /// does not. Zero (the default) answers at once.
    pub fn with_handshake_processing(mut self, d: Duration) -> Client {
        self.processing = d;
        self
    }

    pub(crate) fn start(&mut self, now: Time) -> UpPacket {
        self.t_start = now;
        self.hs_pto_at = Some(now + CLIENT_FIRST_PTO);
        if self.zero_rtt {
            self.t_request_sent = Some(now);
            self.first_request_sent(now);
        }
        UpPacket::Initial {
            bytes: self.initial_bytes,
            request: self.zero_rtt,
        }
    }

    /// The frame of a sent ACK, for the server to read.
    pub(crate) fn sent_ack(&self, slot: AckSlot) -> &TrackedAckFrame {
        &self.frames[slot.0 as usize]
    }

    /// The server has read the ACK in `slot`: its frame is spare again.
    /// Spare frames are kept: there are never more than were on the
    /// reverse path at once, which existed anyway, while a frame dropped
    /// here is allocated again for a later ACK (a 100 Mbit/s path with a
    /// 50 ms RTT carries a few hundred ACKs at once).
    pub(crate) fn recycle(&mut self, slot: AckSlot) {
        self.spare.push(slot);
    }

    fn ack(&mut self, now: Time, space: Space, out: &mut ClientOut) {
        let slot = self.spare.pop().unwrap_or_else(|| {
            // A new frame has room for the most ranges a frame carries, so
            // writing one never grows it.
            self.frames
                .push(TrackedAckFrame::with_capacity(MAX_ACK_RANGES));
            AckSlot(u32::try_from(self.frames.len() - 1).unwrap_or(u32::MAX))
        });
        let frame = &mut self.frames[slot.0 as usize];
        if self.acks[space.index()].write_ack(now, frame) {
            out.send.push(UpPacket::Ack { space, frame: slot });
        } else {
            self.spare.push(slot);
        }
    }

    /// A server datagram arrived.
    pub(crate) fn on_datagram(
        &mut self,
        now: Time,
        d: &Datagram,
        ecn: EcnCodepoint,
        out: &mut ClientOut,
    ) {
        let before = out.send.len();
        self.answer_datagram(now, d, ecn, out);
        // The handshake flight's answers wait for the client's own work.
        if !self.processing.is_zero() && !self.processed && d.space != Space::Application {
            let at = *self.release_at.get_or_insert(now + self.processing);
            if now < at {
                self.held.extend(out.send.drain(before..));
            }
        }
    }

    fn answer_datagram(&mut self, now: Time, d: &Datagram, ecn: EcnCodepoint, out: &mut ClientOut) {
        if self.rtt_estimate.is_zero() {
            self.rtt_estimate = now - self.t_start;
        }
        if d.space == Space::Handshake && !self.crypto_got.first().copied().unwrap_or(true) {
            // No Handshake keys before the server's Initial (ServerHello):
            // the packet cannot be decrypted and is dropped (RFC 9001
            // §4.1.4 allows buffering; dropping is the conservative choice,
            // and the server's loss recovery resends it).
            return;
        }
        let complete_before = self.t_last_byte.is_some();
        let si = d.space.index();
        let (new, action) = self.acks[si].on_packet(now, d.pn, true, ecn, self.rtt_estimate);
        if new {
            match d.payload {
                Payload::Crypto(i) => {
                    if let Some(g) = self.crypto_got.get_mut(usize::from(i)) {
                        if !*g {
                            *g = true;
                            self.crypto_count += 1;
                            // Progress: the handshake PTO restarts.
                            self.hs_pto_count = 0;
                            self.hs_pto_at = Some(now + self.pto());
                        }
                    }
                }
                Payload::Stream(c) => self.on_chunk(now, c, out),
                Payload::Ping => {}
            }
        }
        match action {
            AckAction::Now => self.ack(now, d.space, out),
            // Application ACK timers are read back through `next_timer`.
            AckAction::By(_) if d.space == Space::Application => {}
            AckAction::By(_) => self.ack(now, d.space, out),
            AckAction::None => {}
        }
        // The response is complete and the client closes: the delayed ACK
        // goes with its CONNECTION_CLOSE, now (quinn-proto 0.11.19 writes
        // ACK frames before CONNECTION_CLOSE "especially important with ack
        // delay"), not at max_ack_delay.
        if self.closes_when_done
            && !complete_before
            && self.t_last_byte.is_some()
            && self.ack_deadline().is_some()
        {
            self.ack(now, Space::Application, out);
        }
        if self.t_handshake.is_none() && self.crypto_count == self.crypto_total {
            self.t_handshake = Some(now);
            self.hs_pto_at = None;
            let bytes = if self.zero_rtt {
                // The request already left in 0-RTT: Finished alone.
                crate::resumption::CLIENT_FINISHED_BYTES
            } else {
                self.t_request_sent = Some(now);
                self.first_request_sent(now);
                CLIENT_FINISHED_REQUEST_BYTES
            };
            out.send.push(UpPacket::FinishedRequest { bytes });
        }
    }

    fn on_chunk(&mut self, now: Time, c: u32, out: &mut ClientOut) {
        let (w, b) = ((c / 64) as usize, c % 64);
        if w >= self.chunk_got.len() || self.chunk_got[w] & (1 << b) != 0 {
            return;
        }
        self.chunk_got[w] |= 1 << b;
        self.t_first_byte.get_or_insert(now);
        if self.page.is_some() {
            self.page_chunk(now, c, out);
        }
        // The in-order point is the first chunk not received, so only that
        // chunk's arrival moves it: any other returns here without a scan,
        // and this one's scan starts past it.
        if c != self.next_in_order || c >= self.chunks {
            return;
        }
        let mut n = c + 1;
        while n < self.chunks && self.chunk_got[(n / 64) as usize] & (1 << (n % 64)) != 0 {
            n += 1;
        }
        self.next_in_order = n;
        let delivered = self.delivered_bytes();
        out.delivered = Some(delivered);
        if delivered == self.total_bytes {
            self.t_last_byte = Some(now);
        } else if let Some((stream, connection)) =
            self.fc.as_mut().and_then(|f| f.on_consumed(delivered))
        {
            // The application reads at once; the update leaves now.
            out.send.push(UpPacket::MaxData { stream, connection });
        }
    }

    /// In-order response bytes received (of all responses, in stream
    /// order, with a request schedule).
    pub(crate) fn delivered_bytes(&self) -> u64 {
        match &self.page {
            Some(p) => p.layout.offset(self.next_in_order),
            None => (u64::from(self.next_in_order) * self.chunk_bytes).min(self.total_bytes),
        }
    }

    /// The client's PTO during the handshake: 3 x the RTT of the first
    /// server packet (RFC 9002 §6.2.1 after one sample), doubled per
    /// expiry; 999 ms before any sample.
    fn pto(&self) -> Duration {
        let base = if self.rtt_estimate.is_zero() {
            CLIENT_FIRST_PTO
        } else {
            (self.rtt_estimate * 3).max(crate::client::MIN_PTO)
        };
        base * 2u32.saturating_pow(self.hs_pto_count.min(16))
    }

    /// The client's next timer: the delayed ACK, the handshake PTO or the
    /// next request.
    pub(crate) fn next_timer(&self) -> Option<Time> {
        let t = match (self.ack_deadline(), self.hs_pto_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let t = match (t, self.release_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match (t, self.page.as_ref().and_then(|p| p.due)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A client timer fired: send the delayed ACK and/or the handshake
    /// probe that are due.
    pub(crate) fn on_timer(&mut self, now: Time, out: &mut ClientOut) {
        if self.release_at.is_some_and(|t| t <= now) {
            self.release_at = None;
            self.processed = true;
            out.send.append(&mut self.held);
        }
        let si = Space::Application.index();
        if self.acks[si].deadline().is_some_and(|d| d <= now) {
            self.ack(now, Space::Application, out);
        }
        if self
            .page
            .as_ref()
            .is_some_and(|p| p.due.is_some_and(|d| d <= now))
        {
            self.send_due_requests(now, out);
        }
        if self.hs_pto_at.is_some_and(|t| t <= now) {
            // Handshake keys once the server's Initial arrived.
            let handshake = self.crypto_got.first().copied().unwrap_or(false);
            out.send.push(UpPacket::Probe {
                bytes: if handshake {
                    ACK_PACKET_BYTES
                } else {
                    self.initial_bytes
                },
                handshake,
            });
            self.hs_pto_count += 1;
            self.hs_pto_at = Some(now + self.pto());
        }
    }

    /// When the pending application ACK is due, if one is pending.
    pub(crate) fn ack_deadline(&self) -> Option<Time> {
        self.acks[Space::Application.index()].deadline()
    }
}
