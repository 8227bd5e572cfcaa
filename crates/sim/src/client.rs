//! The client endpoint: sends its Initial, acknowledges the server's
//! packets under its ACK policy, sends Finished with the request once the
//! handshake flight is complete, and reassembles the response.

use core::time::Duration;

use ramp_cc::recovery::{AckFrame, Space};
use ramp_cc::Time;

use crate::receiver::{AckAction, AckPolicy, AckState};
use crate::server::{Datagram, Payload};

/// The client's first datagram: an Initial padded to 1200 bytes (RFC 9000
/// §14.1) — counted at the full datagram size of the scenario.
pub const CLIENT_INITIAL_MIN_BYTES: u64 = 1200;
/// Client Handshake packet with Finished coalesced with the 1-RTT request
/// (HEADERS of a GET): about 200 bytes.
pub const CLIENT_FINISHED_REQUEST_BYTES: u64 = 200;
/// An ACK-only packet (short header, ACK frame with a few ranges, tag).
pub const ACK_PACKET_BYTES: u64 = 50;

/// A packet from the client to the server.
#[derive(Clone, Debug)]
pub enum UpPacket {
    /// The client's Initial (ClientHello).
    Initial {
        /// Datagram bytes.
        bytes: u64,
    },
    /// Handshake Finished coalesced with the request.
    FinishedRequest {
        /// Datagram bytes.
        bytes: u64,
    },
    /// An ACK-only packet.
    Ack {
        /// The space acknowledged.
        space: Space,
        /// The frame.
        frame: AckFrame,
    },
}

/// What the client wants done after an event.
#[derive(Debug, Default)]
pub struct ClientOut {
    /// Packets to send, in order.
    pub send: Vec<UpPacket>,
    /// New in-order delivered bytes total, if it changed.
    pub delivered: Option<u64>,
    /// Arm the application ACK timer at this time.
    pub ack_timer: Option<Time>,
}

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
    frames: Vec<AckFrame>,
    initial_bytes: u64,
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
                AckState::new(immediate, Duration::ZERO, false),
                AckState::new(immediate, Duration::ZERO, false),
                AckState::new(policy, max_ack_delay, ecn),
            ],
            crypto_total: crypto_packets,
            crypto_got: vec![false; usize::from(crypto_packets)],
            crypto_count: 0,
            t_start: Time::ZERO,
            t_handshake: None,
            t_first_byte: None,
            t_last_byte: None,
            rtt_estimate: Duration::ZERO,
            chunk_got: vec![0; (chunks as usize).div_ceil(64)],
            next_in_order: 0,
            chunks,
            chunk_bytes,
            total_bytes,
            frames: Vec::new(),
            initial_bytes: mds.max(CLIENT_INITIAL_MIN_BYTES),
        }
    }

    /// Starts the connection: the Initial.
    pub fn start(&mut self, now: Time) -> UpPacket {
        self.t_start = now;
        UpPacket::Initial {
            bytes: self.initial_bytes,
        }
    }

    /// Returns an ACK frame to the pool (after the server consumed it).
    pub fn recycle(&mut self, frame: AckFrame) {
        if self.frames.len() < 16 {
            self.frames.push(frame);
        }
    }

    fn ack(&mut self, now: Time, space: Space, out: &mut ClientOut) {
        let mut frame = self.frames.pop().unwrap_or_default();
        if self.acks[space.index()].write_ack(now, &mut frame) {
            out.send.push(UpPacket::Ack { space, frame });
        }
    }

    /// A server datagram arrived.
    pub fn on_datagram(&mut self, now: Time, d: &Datagram, ce: bool, out: &mut ClientOut) {
        if self.rtt_estimate.is_zero() {
            self.rtt_estimate = now - self.t_start;
        }
        let si = d.space.index();
        let (new, action) = self.acks[si].on_packet(now, d.pn, true, ce, d.ect, self.rtt_estimate);
        if new {
            match d.payload {
                Payload::Crypto(i) => {
                    if let Some(g) = self.crypto_got.get_mut(usize::from(i)) {
                        if !*g {
                            *g = true;
                            self.crypto_count += 1;
                        }
                    }
                }
                Payload::Stream(c) => self.on_chunk(now, c, out),
                Payload::Ping => {}
            }
        }
        match action {
            AckAction::Now => self.ack(now, d.space, out),
            AckAction::By(t) if d.space == Space::Application => out.ack_timer = Some(t),
            AckAction::By(_) => self.ack(now, d.space, out),
            AckAction::None => {}
        }
        if self.t_handshake.is_none() && self.crypto_count == self.crypto_total {
            self.t_handshake = Some(now);
            out.send.push(UpPacket::FinishedRequest {
                bytes: CLIENT_FINISHED_REQUEST_BYTES,
            });
        }
    }

    fn on_chunk(&mut self, now: Time, c: u32, out: &mut ClientOut) {
        let (w, b) = ((c / 64) as usize, c % 64);
        if w >= self.chunk_got.len() || self.chunk_got[w] & (1 << b) != 0 {
            return;
        }
        self.chunk_got[w] |= 1 << b;
        self.t_first_byte.get_or_insert(now);
        let before = self.next_in_order;
        while self.next_in_order < self.chunks {
            let n = self.next_in_order;
            if self.chunk_got[(n / 64) as usize] & (1 << (n % 64)) == 0 {
                break;
            }
            self.next_in_order += 1;
        }
        if self.next_in_order != before {
            let delivered = self.delivered_bytes();
            out.delivered = Some(delivered);
            if delivered == self.total_bytes {
                self.t_last_byte = Some(now);
            }
        }
    }

    /// In-order response bytes received.
    pub fn delivered_bytes(&self) -> u64 {
        (u64::from(self.next_in_order) * self.chunk_bytes).min(self.total_bytes)
    }

    /// The application ACK timer fired (if `now` is still its deadline).
    pub fn on_ack_timer(&mut self, now: Time, out: &mut ClientOut) {
        let si = Space::Application.index();
        if self.acks[si].deadline().is_some_and(|d| d <= now) {
            self.ack(now, Space::Application, out);
        }
    }

    /// When the pending application ACK is due, if one is pending.
    pub fn ack_deadline(&self) -> Option<Time> {
        self.acks[Space::Application.index()].deadline()
    }
}
