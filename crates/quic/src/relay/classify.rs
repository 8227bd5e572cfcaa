//! Which datagrams the relay forwards: a header check of the first QUIC
//! packet (RFC 9000 §17, RFC 8999 §5), enough to tell garbage from QUIC and
//! a client's first Initial (which opens a relay client) from the rest.

/// RFC 9000 §14.1: a client's Initial datagrams are at least 1200 bytes.
const MIN_INITIAL_DATAGRAM: usize = 1200;

/// What a datagram looks like (RFC 9000 §17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatagramKind {
    /// An empty datagram: no QUIC packet, but not garbage either. `ramp
    /// get` and `ramp load` send one beside each handshake to hear an ICMP
    /// port unreachable from a server address where nothing listens
    /// (`crate::unreachable`); a healthy client sends it, so it is counted
    /// on its own, not as malformed.
    Empty,
    /// Cannot be a QUIC packet.
    Malformed,
    /// A long-header Initial of at least 1200 bytes: may open a client.
    ClientInitial,
    /// Any other QUIC packet.
    Quic,
}

/// RFC 9000 §10.3: short-header packets smaller than 21 bytes are never
/// valid (with the AEADs of RFC 9001).
const MIN_SHORT_HEADER_PACKET: usize = 21;
/// RFC 9000 §17.2: QUIC v1 connection IDs are at most 20 bytes.
const MAX_CID_V1: usize = 20;
/// QUIC versions 1 (RFC 9000) and 2 (RFC 9369), whose header rules are known.
const KNOWN_VERSIONS: [u32; 2] = [0x0000_0001, 0x6b33_43cf];

/// Classifies a datagram by its first packet's header.
///
/// The fixed bit is not checked: peers that negotiate RFC 9287 (quinn does
/// by default) grease it.
pub fn classify(d: &[u8]) -> DatagramKind {
    let Some(&b0) = d.first() else {
        return DatagramKind::Empty;
    };
    if b0 & 0x80 == 0 {
        return if d.len() < MIN_SHORT_HEADER_PACKET {
            DatagramKind::Malformed
        } else {
            DatagramKind::Quic
        };
    }
    // Long header (RFC 8999 §5.1): flags, version (4), DCID length, DCID,
    // SCID length, SCID.
    if d.len() < 7 {
        return DatagramKind::Malformed;
    }
    let version = u32::from_be_bytes([d[1], d[2], d[3], d[4]]);
    let dcid_len = usize::from(d[5]);
    let Some(&scid_len) = d.get(6 + dcid_len) else {
        return DatagramKind::Malformed;
    };
    if d.len() < 7 + dcid_len + usize::from(scid_len) {
        return DatagramKind::Malformed;
    }
    if KNOWN_VERSIONS.contains(&version)
        && (dcid_len > MAX_CID_V1 || usize::from(scid_len) > MAX_CID_V1)
    {
        return DatagramKind::Malformed;
    }
    // Initial is type 0 in v1 (RFC 9000 §17.2.2) and type 1 in v2 (RFC
    // 9369 §3.2); other versions may still open a connection (the server
    // answers with Version Negotiation).
    let packet_type = (b0 & 0x30) >> 4;
    let initial = match version {
        0 => false,
        0x6b33_43cf => packet_type == 1,
        _ => packet_type == 0,
    };
    if initial && d.len() >= MIN_INITIAL_DATAGRAM {
        DatagramKind::ClientInitial
    } else {
        DatagramKind::Quic
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9000_17_classify_datagrams() {
        assert_eq!(classify(&[]), DatagramKind::Empty);
        // RFC 9000 §10.3: short headers under 21 bytes are never valid.
        assert_eq!(classify(&[0x40; 20]), DatagramKind::Malformed);
        assert_eq!(classify(&[0x40; 21]), DatagramKind::Quic);
        // RFC 9287: a greased (clear) fixed bit is still QUIC.
        assert_eq!(classify(&[0x00; 40]), DatagramKind::Quic);
        assert_eq!(classify(&[0xc0, 0, 0, 0]), DatagramKind::Malformed);
        let mut initial = vec![0u8; 1200];
        initial[..7].copy_from_slice(&[0xc3, 0, 0, 0, 1, 0, 0]);
        assert_eq!(classify(&initial), DatagramKind::ClientInitial);
        assert_eq!(classify(&initial[..1199]), DatagramKind::Quic);
        // Handshake type (0x20) is not an Initial.
        initial[0] = 0xe3;
        assert_eq!(classify(&initial), DatagramKind::Quic);
        // v1 connection IDs over 20 bytes.
        initial[0] = 0xc3;
        initial[5] = 21;
        assert_eq!(classify(&initial), DatagramKind::Malformed);
        // CID lengths that overrun the datagram.
        assert_eq!(
            classify(&[0xc3, 0, 0, 0, 1, 8, 1, 2]),
            DatagramKind::Malformed
        );
        // Version Negotiation.
        assert_eq!(classify(&[0x80, 0, 0, 0, 0, 0, 0]), DatagramKind::Quic);
    }

    proptest::proptest! {
        /// Any bytes at all: a verdict, never a panic; an admitting
        /// Initial is always a long header of at least 1200 bytes.
        #[test]
        fn classify_never_panics(d in proptest::collection::vec(proptest::num::u8::ANY, 0..1600)) {
            let k = classify(&d);
            if k == DatagramKind::ClientInitial {
                proptest::prop_assert!(d.len() >= MIN_INITIAL_DATAGRAM && d[0] & 0x80 != 0);
            }
        }
    }
}
