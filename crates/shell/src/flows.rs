//! `ramp shell --flow-log` / `--packet-log`: the forwarding loop's view of
//! each flow (`ramp_link::flowlog`), read from the IP packets it carries.
//!
//! A packet's delay through the link is its delivery time less its
//! arrival: the arrivals of each flow and direction wait in a FIFO, taken
//! from the front when a packet of that flow is delivered or dropped from
//! the queue (the link keeps a flow's packets in order: one queue per
//! flow, and drops from the queue take its head), from the back when the
//! arriving packet itself is refused.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use ramp_link::flowlog::{
    packet_line, quic_has_short_header, Dir, FlowKey, FlowTable, PacketEvent, PacketInfo,
    PROTO_TCP, PROTO_UDP, QUIC_DATA_MIN_PAYLOAD,
};
use ramp_link::DropCause;
use ramp_vocab::Time;

/// The flow log's outputs and state.
pub(crate) struct Flows {
    table: FlowTable,
    /// Where the flow records go when the shell ends.
    records: Option<BufWriter<File>>,
    /// The per-packet log.
    packets: Option<BufWriter<File>>,
    /// Arrival times of packets in the link, per flow and direction.
    queued: HashMap<(FlowKey, bool), VecDeque<Time>>,
}

impl Flows {
    /// A flow log writing records to `records` at the end and, if given,
    /// one line per packet event to `packets`.
    pub(crate) fn new(records: Option<File>, packets: Option<File>) -> Flows {
        Flows {
            table: FlowTable::new(),
            records: records.map(BufWriter::new),
            packets: packets.map(BufWriter::new),
            queued: HashMap::new(),
        }
    }

    fn line(&mut self, t: Time, p: &PacketInfo, ev: PacketEvent) {
        if let Some(w) = &mut self.packets {
            // Best effort once open, as the event log: a full disk must
            // not stop the forwarding.
            let _ = writeln!(w, "{}", packet_line(t, p, ev));
        }
    }

    fn fifo(&mut self, p: &PacketInfo) -> &mut VecDeque<Time> {
        self.queued.entry((p.key, p.dir == Dir::Up)).or_default()
    }

    /// A packet entered the link at `t` (`up`: from the command).
    pub(crate) fn arrive(&mut self, t: Time, pkt: &[u8], up: bool) {
        let Some(p) = info(pkt, up) else {
            return;
        };
        self.table.offered(t, &p);
        self.fifo(&p).push_back(t);
        self.line(t, &p, PacketEvent::Arrive);
    }

    /// The packet that just arrived was refused by the link (`cause`).
    pub(crate) fn refuse(&mut self, t: Time, pkt: &[u8], up: bool, cause: DropCause) {
        let Some(p) = info(pkt, up) else {
            return;
        };
        self.fifo(&p).pop_back();
        self.table.dropped(&p, cause);
        self.line(t, &p, PacketEvent::Drop(cause));
    }

    /// A packet held in the link was dropped at `t` (`cause`).
    pub(crate) fn drop_queued(&mut self, t: Time, pkt: &[u8], up: bool, cause: DropCause) {
        let Some(p) = info(pkt, up) else {
            return;
        };
        self.fifo(&p).pop_front();
        self.table.dropped(&p, cause);
        self.line(t, &p, PacketEvent::Drop(cause));
    }

    /// A packet left the link at `t`.
    pub(crate) fn deliver(&mut self, t: Time, pkt: &[u8], up: bool) {
        let Some(p) = info(pkt, up) else {
            return;
        };
        let ce = crate::ip::parse(pkt).is_some_and(|h| h.ecn == ramp_vocab::EcnCodepoint::Ce);
        let arrived = self.fifo(&p).pop_front().unwrap_or(t);
        self.table.delivered(t, &p, ce);
        let delay_us = t.saturating_since(arrived).as_micros();
        let delay_us = u64::try_from(delay_us).unwrap_or(u64::MAX);
        self.line(t, &p, PacketEvent::Deliver { delay_us, ce });
    }

    /// Writes the flow records and flushes both logs.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if let Some(w) = &mut self.records {
            for r in self.table.records() {
                writeln!(w, "{r}")?;
            }
            w.flush()?;
        }
        if let Some(w) = &mut self.packets {
            w.flush()?;
        }
        Ok(())
    }
}

/// The flow log's reading of an IP packet going `up` (from the command) or
/// down: protocol, ends (the command's first), whether it carries data and
/// may open the request. `None` for what is not IPv4/IPv6 or a later
/// fragment.
pub(crate) fn info(p: &[u8], up: bool) -> Option<PacketInfo> {
    let (proto, src, dst, l4) = match p.first()? >> 4 {
        4 => {
            let ihl = usize::from(p[0] & 0x0f) * 4;
            if ihl < 20 || p.len() < ihl || u16::from_be_bytes([p[6], p[7]]) & 0x1fff != 0 {
                return None;
            }
            let src = IpAddr::V4(Ipv4Addr::new(p[12], p[13], p[14], p[15]));
            let dst = IpAddr::V4(Ipv4Addr::new(p[16], p[17], p[18], p[19]));
            (p[9], src, dst, &p[ihl..])
        }
        6 => {
            let src: [u8; 16] = p.get(8..24)?.try_into().ok()?;
            let dst: [u8; 16] = p.get(24..40)?.try_into().ok()?;
            (
                p[6],
                IpAddr::V6(Ipv6Addr::from(src)),
                IpAddr::V6(Ipv6Addr::from(dst)),
                &p[40..],
            )
        }
        _ => return None,
    };
    let port = |at: usize| {
        l4.get(at..at + 2)
            .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]))
    };
    let (sport, dport) = match proto {
        PROTO_TCP | PROTO_UDP => (port(0), port(2)),
        _ => (0, 0),
    };
    let (carries_data, opens_request) = match proto {
        PROTO_TCP => {
            let off = l4.get(12).map_or(20, |b| usize::from(b >> 4) * 4);
            let data = l4.len() > off;
            (data, data)
        }
        PROTO_UDP => {
            let payload = l4.get(8..).unwrap_or(&[]);
            (
                payload.len() as u64 >= QUIC_DATA_MIN_PAYLOAD,
                quic_has_short_header(payload),
            )
        }
        _ => (true, false),
    };
    let (s, d) = (SocketAddr::new(src, sport), SocketAddr::new(dst, dport));
    let (client, server) = if up { (s, d) } else { (d, s) };
    Some(PacketInfo {
        key: FlowKey {
            proto,
            client,
            server,
        },
        dir: if up { Dir::Up } else { Dir::Down },
        bytes: p.len() as u64,
        carries_data,
        opens_request,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4 packet of `proto` from 10.0.0.2:5000 to 10.0.0.1:443 with
    /// `l4` after the ports.
    fn v4(proto: u8, l4: &[u8]) -> Vec<u8> {
        let mut p = vec![
            0x45, 0, 0, 0, 0, 0, 0, 0, 64, proto, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1,
        ];
        p.extend_from_slice(&[0x13, 0x88, 0x01, 0xbb]);
        p.extend_from_slice(l4);
        p
    }

    #[test]
    fn udp_ends_and_quic_short_header_are_read() {
        // UDP: ports, length, checksum, then a QUIC short header.
        let p = v4(PROTO_UDP, &[0, 20, 0, 0, 0x40, 1, 2]);
        let i = info(&p, true).unwrap();
        assert_eq!(i.key.client, "10.0.0.2:5000".parse().unwrap());
        assert_eq!(i.key.server, "10.0.0.1:443".parse().unwrap());
        assert!(i.opens_request);
        // The same packet seen coming down names the ends the other way.
        let d = info(&p, false).unwrap();
        assert_eq!(d.key.client, "10.0.0.1:443".parse().unwrap());
    }

    #[test]
    fn tcp_payload_is_data_and_a_bare_ack_is_not() {
        // seq, ack, data offset 5 words, flags, window, checksum, urgent.
        let hdr = [0, 0, 0, 1, 0, 0, 0, 1, 0x50, 0x10, 0, 1, 0, 0, 0, 0];
        let ack = v4(PROTO_TCP, &hdr);
        assert!(!info(&ack, true).unwrap().carries_data);
        let mut get = hdr.to_vec();
        get.extend_from_slice(b"GET / HTTP/1.1\r\n");
        let get = v4(PROTO_TCP, &get);
        let i = info(&get, true).unwrap();
        assert!(i.carries_data && i.opens_request);
    }

    #[test]
    fn the_delay_is_the_flows_own_fifo() {
        let mut f = Flows::new(None, None);
        let p = v4(PROTO_UDP, &[0, 20, 0, 0, 0x40, 1, 2]);
        f.arrive(Time::from_millis(1), &p, false);
        f.arrive(Time::from_millis(2), &p, false);
        f.refuse(Time::from_millis(2), &p, false, DropCause::Queue);
        f.deliver(Time::from_millis(31), &p, false);
        let (_, s) = f.table.flows().next().unwrap();
        assert_eq!(s.down.delivered, 1);
        assert_eq!(s.down.drops[DropCause::Queue.index()], 1);
        assert_eq!(s.down.last_delivered_us, Some(31_000));
        assert!(f.fifo(&info(&p, false).unwrap()).is_empty());
    }
}
