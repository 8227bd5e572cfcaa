//! A flow log kept at the network's side of a forwarder (`ramp shell`,
//! `ramp relay`): one record per flow (protocol and the two ends), so that
//! any program's transfer can be timed the same way, from the link,
//! whatever the program itself reports.
//!
//! Each record ([`FlowTable::records`], one NDJSON line per flow) holds, per
//! direction (`up`: from the client, the shell's command or the relay's
//! client; `down`: towards it):
//!
//! - packets and bytes offered to the link, and the times the first and
//!   the last entered it (`first-us`, `last-us`);
//! - packets and bytes delivered, the first and last delivery times;
//! - drops by cause ([`DropCause::as_str`]) and CE marks;
//!
//! and, for the flow, `request-us` and `last-data-us`, whose difference is
//! `transfer-us`:
//!
//! - `request-us`: when the first uplink packet of the request entered the
//!   link. QUIC (UDP): the first datagram that carries a 1-RTT (short
//!   header) packet, alone or coalesced behind long-header packets
//!   (RFC 9000 §12.2, §17): a client sends its request in the first 1-RTT
//!   packets once the handshake gives it the keys. TCP: the first segment
//!   with payload (for plain HTTP, the request; over TLS this is the
//!   ClientHello, so the transfer then includes the handshake);
//! - `last-data-us`: when the last downlink packet carrying data was
//!   delivered. TCP: the last segment with payload. QUIC's frames are
//!   encrypted, so an ACK-only packet is told from data by its size only:
//!   a datagram of at least [`QUIC_DATA_MIN_PAYLOAD`] bytes carries data;
//!   and of those, the last delivered before the client's last uplink
//!   packet entered the link (a client that has the whole response
//!   acknowledges it or closes, and the server sends no data after that).
//!   quicly's `cli`, for one, closes only after the server's ACK-only
//!   packet for its last ACK-eliciting packet arrives, up to the server's
//!   ACK delay after the last data.
//!
//! Times are microseconds on the forwarder's clock (its start is 0), as in
//! its event log. The optional per-packet log ([`packet_line`]) is in the
//! spirit of Mahimahi's `--downlink-log` (arrivals, deliveries with their
//! delay through the link, drops), as NDJSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;

use ramp_vocab::Time;

use crate::DropCause;

/// The smallest UDP payload taken as a QUIC datagram with data, bytes (an
/// assumption, range 60–200): an ACK-only 1-RTT packet is 1 byte of flags,
/// a destination connection ID of up to 20 bytes, a packet number of up to
/// 4, an ACK frame (about 5–30 bytes unless it lists many ranges) and the
/// 16-byte AEAD tag (RFC 9000 §17.3, §19.3; RFC 9001 §5.3): 30–70 bytes
/// for the stacks measured (quicly's server: 32, ramp's: 31–41). A last
/// STREAM frame of under about 30 bytes of data is missed; it leaves the
/// queue right behind the full packet before it.
pub const QUIC_DATA_MIN_PAYLOAD: u64 = 100;

/// IP protocol numbers (IANA): TCP.
pub const PROTO_TCP: u8 = 6;
/// IP protocol numbers (IANA): UDP.
pub const PROTO_UDP: u8 = 17;

/// A flow: protocol and its two ends, the client's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowKey {
    /// IP protocol number ([`PROTO_TCP`], [`PROTO_UDP`], ...).
    pub proto: u8,
    /// The client's end (the side the shell's command or the relay's
    /// client is on).
    pub client: SocketAddr,
    /// The far end.
    pub server: SocketAddr,
}

/// Which way a packet goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// From the client.
    Up,
    /// Towards the client.
    Down,
}

impl Dir {
    /// `up` or `down`, as the forwarders' event logs name them.
    pub const fn as_str(self) -> &'static str {
        match self {
            Dir::Up => "up",
            Dir::Down => "down",
        }
    }
}

/// What the forwarder read of a packet for the flow log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketInfo {
    /// Its flow.
    pub key: FlowKey,
    /// Its way.
    pub dir: Dir,
    /// IP packet bytes (the relay: UDP payload bytes).
    pub bytes: u64,
    /// TCP: the segment has payload. UDP: the payload is at least
    /// [`QUIC_DATA_MIN_PAYLOAD`] bytes (see the module notes).
    pub carries_data: bool,
    /// The packet may open the request: TCP with payload, or a UDP
    /// datagram carrying a QUIC 1-RTT packet ([`quic_has_short_header`]).
    pub opens_request: bool,
}

/// One direction of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirStats {
    /// Packets offered to the link.
    pub packets: u64,
    /// Their bytes.
    pub bytes: u64,
    /// First and last offer, µs.
    pub first_us: Option<u64>,
    /// Last offer, µs.
    pub last_us: Option<u64>,
    /// Packets delivered past the link.
    pub delivered: u64,
    /// Their bytes.
    pub delivered_bytes: u64,
    /// First delivery, µs.
    pub first_delivered_us: Option<u64>,
    /// Last delivery, µs.
    pub last_delivered_us: Option<u64>,
    /// Drops by cause ([`DropCause::index`]).
    pub drops: [u64; DropCause::ALL.len()],
    /// CE marks.
    pub ce: u64,
}

/// One flow's record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowStats {
    /// From the client.
    pub up: DirStats,
    /// Towards the client.
    pub down: DirStats,
    /// When the request's first packet entered the link, µs.
    pub request_us: Option<u64>,
    /// The last downlink delivery of a packet with data, µs.
    last_data_any_us: Option<u64>,
    /// That, as of the latest uplink offer, µs.
    data_before_last_up_us: Option<u64>,
}

impl FlowStats {
    fn dir(&mut self, d: Dir) -> &mut DirStats {
        match d {
            Dir::Up => &mut self.up,
            Dir::Down => &mut self.down,
        }
    }

    /// The last downlink delivery that carried data, µs (module notes).
    pub fn last_data_us(&self, proto: u8) -> Option<u64> {
        if proto == PROTO_TCP {
            self.last_data_any_us
        } else {
            // A client that never spoke after the last data (it vanished):
            // the last data.
            match (self.up.last_us, self.last_data_any_us) {
                (Some(up), Some(down)) if down > up => self.data_before_last_up_us.or(Some(down)),
                (_, d) => d,
            }
        }
    }

    /// Request to last data byte, µs.
    pub fn transfer_us(&self, proto: u8) -> Option<u64> {
        let end = self.last_data_us(proto)?;
        end.checked_sub(self.request_us?)
    }
}

/// Every flow a forwarder saw.
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    flows: BTreeMap<FlowKey, FlowStats>,
}

impl FlowTable {
    /// An empty table.
    pub fn new() -> FlowTable {
        FlowTable::default()
    }

    /// A packet entered the link at `t`.
    pub fn offered(&mut self, t: Time, p: &PacketInfo) {
        let us = t.as_micros();
        let f = self.flows.entry(p.key).or_default();
        if p.dir == Dir::Up {
            if p.opens_request && f.request_us.is_none() {
                f.request_us = Some(us);
            }
            f.data_before_last_up_us = f.last_data_any_us;
        }
        let d = f.dir(p.dir);
        d.packets += 1;
        d.bytes += p.bytes;
        d.first_us.get_or_insert(us);
        d.last_us = Some(us);
    }

    /// A packet left the link at `t` (`ce`: it was marked on the way).
    pub fn delivered(&mut self, t: Time, p: &PacketInfo, ce: bool) {
        let us = t.as_micros();
        let f = self.flows.entry(p.key).or_default();
        if p.dir == Dir::Down && p.carries_data {
            f.last_data_any_us = Some(us);
        }
        let d = f.dir(p.dir);
        d.delivered += 1;
        d.delivered_bytes += p.bytes;
        d.first_delivered_us.get_or_insert(us);
        d.last_delivered_us = Some(us);
        d.ce += u64::from(ce);
    }

    /// A packet was dropped.
    pub fn dropped(&mut self, p: &PacketInfo, cause: DropCause) {
        let f = self.flows.entry(p.key).or_default();
        f.dir(p.dir).drops[cause.index()] += 1;
    }

    /// The flows, in key order.
    pub fn flows(&self) -> impl Iterator<Item = (&FlowKey, &FlowStats)> {
        self.flows.iter()
    }

    /// One NDJSON line per flow, in key order (deterministic).
    pub fn records(&self) -> Vec<String> {
        self.flows.iter().map(|(k, f)| record(k, f)).collect()
    }
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "null".into(), |v| v.to_string())
}

fn dir_json(d: &DirStats) -> String {
    let mut drops = String::new();
    for c in DropCause::ALL {
        if !drops.is_empty() {
            drops.push(',');
        }
        let _ = write!(drops, "\"{}\":{}", c.as_str(), d.drops[c.index()]);
    }
    format!(
        "{{\"packets\":{},\"bytes\":{},\"first-us\":{},\"last-us\":{},\"delivered\":{},\"delivered-bytes\":{},\"first-delivered-us\":{},\"last-delivered-us\":{},\"drops\":{{{drops}}},\"ce\":{}}}",
        d.packets,
        d.bytes,
        opt(d.first_us),
        opt(d.last_us),
        d.delivered,
        d.delivered_bytes,
        opt(d.first_delivered_us),
        opt(d.last_delivered_us),
        d.ce
    )
}

fn proto_name(p: u8) -> String {
    match p {
        PROTO_TCP => "tcp".into(),
        PROTO_UDP => "udp".into(),
        n => n.to_string(),
    }
}

/// A flow's NDJSON record.
pub fn record(k: &FlowKey, f: &FlowStats) -> String {
    format!(
        "{{\"proto\":\"{}\",\"client\":\"{}\",\"server\":\"{}\",\"request-us\":{},\"last-data-us\":{},\"transfer-us\":{},\"up\":{},\"down\":{}}}",
        proto_name(k.proto),
        k.client,
        k.server,
        opt(f.request_us),
        opt(f.last_data_us(k.proto)),
        opt(f.transfer_us(k.proto)),
        dir_json(&f.up),
        dir_json(&f.down)
    )
}

/// What happened to a packet, for the per-packet log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    /// It entered the link (Mahimahi's `+`).
    Arrive,
    /// It left the link after `delay_us` in it (Mahimahi's `-`), CE-marked
    /// or not.
    Deliver {
        /// Time from entering to leaving the link, µs.
        delay_us: u64,
        /// Marked CE on the way.
        ce: bool,
    },
    /// It was dropped.
    Drop(DropCause),
}

/// One line of the per-packet log: `{"t-us", "dir", "ev", "bytes",
/// "flow": "proto client server"[, "delay-us"][, "ce"][, "cause"]}`.
pub fn packet_line(t: Time, p: &PacketInfo, ev: PacketEvent) -> String {
    let head = format!(
        "{{\"t-us\":{},\"dir\":\"{}\",\"bytes\":{},\"flow\":\"{} {} {}\"",
        t.as_micros(),
        p.dir.as_str(),
        p.bytes,
        proto_name(p.key.proto),
        p.key.client,
        p.key.server
    );
    match ev {
        PacketEvent::Arrive => format!("{head},\"ev\":\"arrive\"}}"),
        PacketEvent::Deliver { delay_us, ce } => {
            format!("{head},\"ev\":\"deliver\",\"delay-us\":{delay_us},\"ce\":{ce}}}")
        }
        PacketEvent::Drop(c) => format!("{head},\"ev\":\"drop\",\"cause\":\"{}\"}}", c.as_str()),
    }
}

/// Whether a UDP payload carries a QUIC short-header (1-RTT) packet, alone
/// or coalesced after long-header packets (RFC 9000 §12.2). Long headers
/// are walked by their Length field (RFC 9000 §17.2; Initial's token
/// first, §17.2.2); a Retry or Version Negotiation packet, or a header that
/// overruns the datagram, ends the walk with `false`.
pub fn quic_has_short_header(mut d: &[u8]) -> bool {
    loop {
        let Some(&first) = d.first() else {
            return false;
        };
        if first & 0x80 == 0 {
            return true;
        }
        // Long header: flags, version, DCID len + DCID, SCID len + SCID.
        let Some(version) = d.get(1..5) else {
            return false;
        };
        if version == [0, 0, 0, 0] {
            return false; // Version Negotiation
        }
        let mut i = 5;
        for _ in 0..2 {
            let Some(&len) = d.get(i) else {
                return false;
            };
            i += 1 + usize::from(len);
        }
        // QUIC v1 packet types (RFC 9000 §17.2): 0 Initial, 1 0-RTT,
        // 2 Handshake, 3 Retry.
        let kind = (first >> 4) & 0x03;
        if kind == 3 {
            return false;
        }
        if kind == 0 {
            let Some((token, n)) = varint(d.get(i..).unwrap_or(&[])) else {
                return false;
            };
            i = i
                .saturating_add(n)
                .saturating_add(usize::try_from(token).unwrap_or(usize::MAX));
        }
        let Some((length, n)) = varint(d.get(i..).unwrap_or(&[])) else {
            return false;
        };
        let end = i
            .saturating_add(n)
            .saturating_add(usize::try_from(length).unwrap_or(usize::MAX));
        match d.get(end..) {
            Some(rest) => d = rest,
            None => return false,
        }
    }
}

/// A QUIC variable-length integer (RFC 9000 §16) and its length.
fn varint(d: &[u8]) -> Option<(u64, usize)> {
    let first = *d.first()?;
    let len = 1usize << (first >> 6);
    let bytes = d.get(..len)?;
    let mut v = u64::from(first & 0x3f);
    for &b in &bytes[1..] {
        v = (v << 8) | u64::from(b);
    }
    Some((v, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(proto: u8) -> FlowKey {
        FlowKey {
            proto,
            client: "10.0.0.2:5000".parse().unwrap(),
            server: "10.0.0.1:443".parse().unwrap(),
        }
    }

    fn pkt(proto: u8, dir: Dir, bytes: u64, data: bool, opens: bool) -> PacketInfo {
        PacketInfo {
            key: key(proto),
            dir,
            bytes,
            carries_data: data,
            opens_request: opens,
        }
    }

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    #[test]
    fn rfc9000_17_short_header_found_alone_and_coalesced() {
        assert!(quic_has_short_header(&[0x40, 1, 2, 3]));
        // Handshake (type 2): DCID 1 byte, SCID 0, Length 3, then a short
        // header packet.
        let mut hs = vec![0xe0, 0, 0, 0, 1, 1, 0xaa, 0, 3, 9, 9, 9];
        assert!(!quic_has_short_header(&hs));
        hs.extend_from_slice(&[0x41, 7, 7]);
        assert!(quic_has_short_header(&hs));
        // Initial (type 0) with a 2-byte token: the token is skipped.
        let init = [0xc0, 0, 0, 0, 1, 0, 0, 2, 5, 5, 1, 9, 0x40, 0];
        assert!(quic_has_short_header(&init));
        // Truncated, Retry, Version Negotiation.
        assert!(!quic_has_short_header(&[0xe0, 0, 0, 0, 1, 5]));
        assert!(!quic_has_short_header(&[0xf0, 0, 0, 0, 1, 0, 0]));
        assert!(!quic_has_short_header(&[0xc0, 0, 0, 0, 0, 0, 0]));
        assert!(!quic_has_short_header(&[]));
    }

    #[test]
    fn quic_transfer_runs_from_the_first_1rtt_datagram_to_the_last_delivery_before_the_close() {
        let mut t = FlowTable::new();
        let up = |opens| pkt(PROTO_UDP, Dir::Up, 1252, true, opens);
        let down = pkt(PROTO_UDP, Dir::Down, 1252, true, false);
        t.offered(ms(0), &up(false)); // Initial
        t.offered(ms(40), &up(true)); // Finished + request
        let ack_only = pkt(PROTO_UDP, Dir::Down, 60, false, false);
        t.delivered(ms(60), &down, false);
        t.delivered(ms(90), &down, false); // the last data
        t.offered(ms(91), &up(true)); // the client's ACK
        t.delivered(ms(104), &ack_only, false); // the server's delayed ACK
        t.offered(ms(105), &up(true)); // CONNECTION_CLOSE
        t.delivered(ms(106), &down, false); // a probe after the close left
        let (k, f) = t.flows().next().unwrap();
        assert_eq!(f.request_us, Some(40_000));
        assert_eq!(f.last_data_us(k.proto), Some(90_000));
        assert_eq!(f.transfer_us(k.proto), Some(50_000));
    }

    #[test]
    fn tcp_transfer_ends_at_the_last_segment_with_payload() {
        let mut t = FlowTable::new();
        t.offered(ms(0), &pkt(PROTO_TCP, Dir::Up, 60, false, false)); // SYN
        t.offered(ms(40), &pkt(PROTO_TCP, Dir::Up, 200, true, true)); // GET
        t.delivered(ms(80), &pkt(PROTO_TCP, Dir::Down, 1500, true, false), false);
        t.delivered(ms(81), &pkt(PROTO_TCP, Dir::Down, 52, false, false), false); // FIN
        let (k, f) = t.flows().next().unwrap();
        assert_eq!(f.transfer_us(k.proto), Some(40_000));
    }

    #[test]
    fn records_count_drops_by_cause_and_are_valid_lines() {
        let mut t = FlowTable::new();
        let p = pkt(PROTO_UDP, Dir::Down, 1000, true, false);
        t.offered(ms(1), &p);
        t.dropped(&p, DropCause::Queue);
        t.dropped(&p, DropCause::Aqm);
        t.dropped(&p, DropCause::Queue);
        let r = t.records();
        assert_eq!(r.len(), 1);
        assert!(r[0].contains("\"drops\":{\"queue\":2,\"aqm\":1,\"random\":0,\"policer\":0}"));
        assert!(r[0].contains("\"client\":\"10.0.0.2:5000\""));
        assert!(r[0].contains("\"transfer-us\":null"));
        let line = packet_line(
            ms(2),
            &p,
            PacketEvent::Deliver {
                delay_us: 30,
                ce: true,
            },
        );
        assert!(
            line.ends_with("\"ev\":\"deliver\",\"delay-us\":30,\"ce\":true}"),
            "{line}"
        );
    }
}
