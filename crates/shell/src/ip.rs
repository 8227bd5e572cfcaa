//! What the link needs to know about an IP packet, read from its header:
//! the destination (for the reachability rule), the ECN field (RFC 3168
//! §5) and a flow identifier (FQ-CoDel's queue), and the one change the
//! link makes to a packet: setting CE.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ramp_vocab::EcnCodepoint;

/// The ECN field's codepoints (RFC 3168 §5): the two low bits of the IPv4
/// TOS byte / IPv6 Traffic Class.
const ECN_MASK: u8 = 0b11;
/// Congestion Experienced.
const ECN_CE: u8 = 0b11;

/// The header fields the link reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// Destination address.
    pub dst: IpAddr,
    /// The ECN field: the queue may mark ECT(0) and ECT(1) CE instead of
    /// dropping them; an L4S queue classifies ECT(1) and CE as L4S.
    pub ecn: EcnCodepoint,
    /// A hash of (source, destination, protocol, ports) for flow queueing.
    pub flow: u32,
}

/// Reads the header of an IPv4 or IPv6 packet; `None` if it is neither or
/// shorter than its header.
pub(crate) fn parse(p: &[u8]) -> Option<Header> {
    match p.first()? >> 4 {
        4 => {
            let ihl = usize::from(p[0] & 0x0f) * 4;
            if ihl < 20 || p.len() < ihl {
                return None;
            }
            let tos = p[1];
            let proto = p[9];
            let src = &p[12..16];
            let dst = Ipv4Addr::new(p[16], p[17], p[18], p[19]);
            // Ports only in the first fragment (offset 0).
            let first_fragment = u16::from_be_bytes([p[6], p[7]]) & 0x1fff == 0;
            let ports = if first_fragment {
                p.get(ihl..ihl + 4)
            } else {
                None
            };
            Some(Header {
                dst: IpAddr::V4(dst),
                ecn: codepoint(tos),
                flow: flow_hash(&[src, &p[16..20], &[proto], ports.unwrap_or(&[])]),
            })
        }
        6 => {
            if p.len() < 40 {
                return None;
            }
            let tc = (p[0] << 4) | (p[1] >> 4);
            let next = p[6];
            let mut dst = [0u8; 16];
            dst.copy_from_slice(&p[24..40]);
            // Ports when the transport header follows the fixed header
            // directly (no extension headers); otherwise the addresses and
            // the flow label still separate flows.
            let ports = matches!(next, 6 | 17 | 132)
                .then(|| p.get(40..44))
                .flatten();
            Some(Header {
                dst: IpAddr::V6(Ipv6Addr::from(dst)),
                ecn: codepoint(tc),
                flow: flow_hash(&[
                    &[p[1] & 0x0f, p[2], p[3]],
                    &p[8..40],
                    &[next],
                    ports.unwrap_or(&[]),
                ]),
            })
        }
        _ => None,
    }
}

/// The codepoint of a TOS / Traffic Class byte (RFC 3168 §5: Not-ECT 00,
/// ECT(1) 01, ECT(0) 10, CE 11).
fn codepoint(tos: u8) -> EcnCodepoint {
    match tos & ECN_MASK {
        0b00 => EcnCodepoint::NotEct,
        0b01 => EcnCodepoint::Ect1,
        0b10 => EcnCodepoint::Ect0,
        _ => EcnCodepoint::Ce,
    }
}

/// FNV-1a over the parts: deterministic across runs and machines (the
/// flow → queue mapping is part of what a seed reproduces).
fn flow_hash(parts: &[&[u8]]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in parts.iter().flat_map(|p| p.iter()) {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Marks an ECN-capable packet CE (RFC 3168 §6.1.1), updating the IPv4
/// header checksum incrementally (RFC 1624 eqn. 3). Packets `parse`
/// accepted only. False if the packet was CE already.
pub(crate) fn mark_ce(p: &mut [u8]) -> bool {
    match p[0] >> 4 {
        4 => {
            if p[1] & ECN_MASK == ECN_CE {
                return false;
            }
            let old = u16::from_be_bytes([p[0], p[1]]);
            p[1] |= ECN_CE;
            let new = u16::from_be_bytes([p[0], p[1]]);
            let hc = u16::from_be_bytes([p[10], p[11]]);
            // HC' = ~(~HC + ~m + m')
            let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            p[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
            true
        }
        6 => {
            // The ECN field is the low two bits of the Traffic Class, bits
            // 4..6 of byte 1; IPv6 has no header checksum.
            if (p[1] >> 4) & ECN_MASK == ECN_CE {
                return false;
            }
            p[1] |= ECN_CE << 4;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The RFC 791 header checksum, computed in full.
    fn checksum(h: &[u8]) -> u16 {
        let mut sum: u32 = h
            .chunks(2)
            .enumerate()
            .filter(|(i, _)| *i != 5)
            .map(|(_, c)| u32::from(u16::from_be_bytes([c[0], c[1]])))
            .sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    fn v4(tos: u8) -> Vec<u8> {
        let mut h = vec![
            0x45, tos, 0, 48, 0x12, 0x34, 0x40, 0, 64, 17, 0, 0, 100, 64, 0, 2, 100, 64, 0, 1,
        ];
        let c = checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        h.extend_from_slice(&[0x1f, 0x90, 0x11, 0x5c]);
        h.extend_from_slice(&[0; 24]);
        h
    }

    fn v6(tc: u8) -> Vec<u8> {
        let mut h = vec![0u8; 48];
        h[0] = 0x60 | (tc >> 4);
        h[1] = (tc << 4) | 0x0a;
        h[4..6].copy_from_slice(&8u16.to_be_bytes());
        h[6] = 17;
        h[7] = 64;
        h[8..24].copy_from_slice(&"fd72:616d:7000:1::2".parse::<Ipv6Addr>().unwrap().octets());
        h[24..40].copy_from_slice(&"fd72:616d:7000:1::1".parse::<Ipv6Addr>().unwrap().octets());
        h
    }

    #[test]
    fn rfc3168_5_ect_codepoints() {
        use EcnCodepoint::*;
        for (tos, cp) in [
            (0b00, NotEct),
            (0b01, Ect1),
            (0b10, Ect0),
            (0b11, Ce),
            (0xb8 | 0b10, Ect0),
        ] {
            assert_eq!(parse(&v4(tos)).unwrap().ecn, cp, "v4 tos {tos:#x}");
            assert_eq!(parse(&v6(tos)).unwrap().ecn, cp, "v6 tc {tos:#x}");
        }
    }

    #[test]
    fn rfc3168_6_1_1_ce_mark_keeps_the_ipv4_checksum_valid() {
        for tos in 0..=255u8 {
            if !codepoint(tos).is_ect() || codepoint(tos) == EcnCodepoint::Ce {
                continue;
            }
            let mut p = v4(tos);
            assert!(mark_ce(&mut p));
            assert_eq!(p[1], tos | ECN_CE);
            assert_eq!(
                u16::from_be_bytes([p[10], p[11]]),
                checksum(&p[..20]),
                "tos {tos:#x}"
            );
            // DSCP untouched.
            assert_eq!(p[1] >> 2, tos >> 2);
        }
    }

    #[test]
    fn rfc3168_6_1_1_ce_mark_on_ipv6_sets_only_the_ecn_bits() {
        let mut p = v6(0xb8 | 0b01);
        let before = p.clone();
        assert!(mark_ce(&mut p));
        assert!(!mark_ce(&mut p), "CE stays CE, marked once");
        let tc = (p[0] << 4) | (p[1] >> 4);
        assert_eq!(tc, 0xb8 | 0b11);
        assert_eq!(p[0], before[0]);
        assert_eq!(p[1] & 0x0f, before[1] & 0x0f, "flow label kept");
        assert_eq!(p[2..], before[2..]);
    }

    #[test]
    fn destinations_and_flows() {
        let h = parse(&v4(0)).unwrap();
        assert_eq!(h.dst, "100.64.0.1".parse::<IpAddr>().unwrap());
        let mut other_port = v4(0);
        other_port[21] ^= 1;
        assert_ne!(parse(&other_port).unwrap().flow, h.flow);
        // ECN bits do not move a packet to another flow queue.
        assert_eq!(parse(&v4(0b10)).unwrap().flow, h.flow);
        let h6 = parse(&v6(0)).unwrap();
        assert_eq!(parse(&v6(0b01)).unwrap().flow, h6.flow);
        assert_eq!(h6.dst, "fd72:616d:7000:1::1".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn short_or_unknown_packets_are_refused() {
        assert_eq!(parse(&[]), None);
        assert_eq!(parse(&v4(0)[..19]), None);
        assert_eq!(parse(&v6(0)[..39]), None);
        let mut bad_ihl = v4(0);
        bad_ihl[0] = 0x44;
        assert_eq!(parse(&bad_ihl), None);
        assert_eq!(parse(&[0x50; 40]), None);
    }
}
