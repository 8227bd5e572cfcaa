//! `ramp relay --flow-log`: the relay's view of each client's flow
//! (`ramp_link::flowlog`), as `ramp shell --flow-log` keeps it at the IP
//! layer: one NDJSON record per client when the relay stops. The relay
//! sees UDP payloads, so bytes are UDP payload bytes.
//!
//! Delays are matched per client and direction in arrival order (the link
//! keeps a flow's datagrams in order), as the shell matches them.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;

use ramp_cc::Time;
use ramp_link::flowlog::{
    quic_has_short_header, Dir, FlowKey, FlowTable, PacketInfo, PROTO_UDP, QUIC_DATA_MIN_PAYLOAD,
};
use ramp_link::DropCause;

/// Every client's flow record so far.
pub(super) struct RelayFlows {
    server: SocketAddr,
    table: FlowTable,
    /// Arrival times of datagrams in the link, per client and direction.
    queued: HashMap<(SocketAddr, bool), VecDeque<Time>>,
}

impl RelayFlows {
    /// Flows to `server`.
    pub(super) fn new(server: SocketAddr) -> RelayFlows {
        RelayFlows {
            server,
            table: FlowTable::new(),
            queued: HashMap::new(),
        }
    }

    fn info(&self, client: SocketAddr, up: bool, data: &[u8]) -> PacketInfo {
        PacketInfo {
            key: FlowKey {
                proto: PROTO_UDP,
                client,
                server: self.server,
            },
            dir: if up { Dir::Up } else { Dir::Down },
            bytes: data.len() as u64,
            carries_data: data.len() as u64 >= QUIC_DATA_MIN_PAYLOAD,
            opens_request: quic_has_short_header(data),
        }
    }

    /// A datagram entered the link at `t`.
    pub(super) fn arrive(&mut self, t: Time, client: SocketAddr, up: bool, data: &[u8]) {
        let p = self.info(client, up, data);
        self.table.offered(t, &p);
        self.queued.entry((client, up)).or_default().push_back(t);
    }

    /// The datagram that just arrived was refused by the link.
    pub(super) fn refuse(&mut self, client: SocketAddr, up: bool, data: &[u8], cause: DropCause) {
        let p = self.info(client, up, data);
        if let Some(q) = self.queued.get_mut(&(client, up)) {
            q.pop_back();
        }
        self.table.dropped(&p, cause);
    }

    /// A datagram held in the link was dropped.
    pub(super) fn drop_queued(
        &mut self,
        client: SocketAddr,
        up: bool,
        data: &[u8],
        cause: DropCause,
    ) {
        let p = self.info(client, up, data);
        if let Some(q) = self.queued.get_mut(&(client, up)) {
            q.pop_front();
        }
        self.table.dropped(&p, cause);
    }

    /// A datagram left the link at `t`.
    pub(super) fn deliver(&mut self, t: Time, client: SocketAddr, up: bool, data: &[u8]) {
        let p = self.info(client, up, data);
        if let Some(q) = self.queued.get_mut(&(client, up)) {
            q.pop_front();
        }
        self.table.delivered(t, &p, false);
    }

    /// One NDJSON line per client.
    pub(super) fn records(&self) -> Vec<String> {
        self.table.records()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clients_transfer_is_timed_from_its_first_1rtt_datagram() {
        let server: SocketAddr = "127.0.0.1:4433".parse().unwrap();
        let client: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let mut f = RelayFlows::new(server);
        let initial = [0xc0u8; 1200];
        let mut short = vec![0x40u8; 200];
        f.arrive(Time::from_millis(0), client, true, &initial);
        f.deliver(Time::from_millis(10), client, true, &initial);
        f.arrive(Time::from_millis(40), client, true, &short);
        short.truncate(150);
        f.arrive(Time::from_millis(50), client, false, &short);
        f.refuse(client, false, &short, DropCause::Queue);
        f.arrive(Time::from_millis(51), client, false, &short);
        f.deliver(Time::from_millis(70), client, false, &short);
        let r = f.records();
        assert_eq!(r.len(), 1);
        assert!(r[0].contains("\"transfer-us\":30000"), "{}", r[0]);
        assert!(r[0].contains("\"queue\":1"), "{}", r[0]);
    }
}
