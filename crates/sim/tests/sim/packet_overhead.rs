//! `[endpoint] packet_overhead`: the bytes of a full response packet that
//! are not stream data. The default is h2o's (52 B of a 1,252-B packet);
//! a harness that compares the simulator with another stack gives that
//! stack's, so that the same object is as many packets as that stack
//! sends (docs/interop.md, "The object's packet count").

use crate::common::*;
use ramp_sim::scenario::{DEFAULT_PACKET_OVERHEAD_BYTES, MIN_PACKET_OVERHEAD_BYTES};
use ramp_sim::Scenario;

const BASE: &str =
    "[path]\nrate = \"100mbit\"\nrtt = \"30ms\"\nqueue = \"30ms\"\n[endpoint]\nmds = 1200\n";

#[test]
fn the_default_overhead_is_h2os_and_an_object_is_size_over_mds_minus_it_packets() {
    let sc = Scenario::from_toml(BASE, "t").unwrap();
    assert_eq!(sc.endpoint.packet_overhead, DEFAULT_PACKET_OVERHEAD_BYTES);
    let mut sc = sc;
    sc.size_bytes = 1_000_000;
    let h2o = run(&sc, "newreno(iw=1000)", 1);
    // 1,000,000 / 1,148 = 871.1: 872 packets of data, nothing lost (the
    // window holds the whole object and the path's queue takes it).
    assert_eq!(
        h2o.packets_sent - h2o.packets_lost,
        872 + handshake_packets(&sc)
    );
    let mut quinn = Scenario::from_toml(&format!("{BASE}packet_overhead = 40\n"), "t").unwrap();
    quinn.size_bytes = 1_000_000;
    let r = run(&quinn, "newreno(iw=1000)", 1);
    // 1,000,000 / 1,160 = 862.1: 863 packets.
    assert_eq!(
        r.packets_sent - r.packets_lost,
        863 + handshake_packets(&quinn)
    );
}

/// The server's handshake packets (its flight in datagrams of `mds`).
fn handshake_packets(sc: &Scenario) -> u64 {
    sc.endpoint.server_flight_bytes.div_ceil(sc.endpoint.mds)
}

#[test]
fn an_overhead_below_a_minimal_packets_or_not_below_mds_is_refused_by_name() {
    for v in [MIN_PACKET_OVERHEAD_BYTES - 1, 1200, 5000] {
        let err = Scenario::from_toml(&format!("{BASE}packet_overhead = {v}\n"), "t")
            .unwrap_err()
            .to_string();
        assert!(err.contains("endpoint.packet_overhead"), "{v}: {err}");
    }
    Scenario::from_toml(
        &format!("{BASE}packet_overhead = {MIN_PACKET_OVERHEAD_BYTES}\n"),
        "t",
    )
    .unwrap();
}

/// `[path] header_bytes`: what each packet costs the links beyond its
/// datagram (28 for the IPv4 and UDP headers `ramp shell`'s links carry).
/// A transfer the link paces takes that much longer per packet, and the
/// records still count datagrams.
#[test]
fn header_bytes_cost_the_link_not_the_endpoints() {
    let base =
        "[path]\nrate = \"20mbit\"\nrtt = \"40ms\"\nqueue = \"2s\"\n[endpoint]\nmds = 1200\n";
    let mut plain = Scenario::from_toml(base, "t").unwrap();
    assert_eq!(plain.path.header_bytes, 0);
    let mut ip = Scenario::from_toml(
        &base.replace("[endpoint]", "header_bytes = 28\n[endpoint]"),
        "t",
    )
    .unwrap();
    assert_eq!(ip.path.header_bytes, 28);
    plain.size_bytes = 3_000_000;
    ip.size_bytes = 3_000_000;
    let a = run(&plain, "newreno(iw=1000)", 1);
    let b = run(&ip, "newreno(iw=1000)", 1);
    assert_eq!((a.packets_lost, b.packets_lost), (0, 0));
    assert_eq!(a.packets_sent, b.packets_sent);
    // 2,614 data packets × 28 B at 20 Mbit/s = 29.3 ms more on the link.
    let extra_us = b.ttlb_us - a.ttlb_us;
    assert!((25_000..=34_000).contains(&extra_us), "{extra_us} us");
    let err = Scenario::from_toml(
        &base.replace("[endpoint]", "header_bytes = 101\n[endpoint]"),
        "t",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("path.header_bytes"), "{err}");
}
