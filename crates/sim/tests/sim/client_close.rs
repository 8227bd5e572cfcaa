//! A client that closes the connection once it has the whole response
//! (`[endpoint] client_closes`, as `ramp get` does in real mode): the ACK
//! it owes for the last packets leaves at once, in the packet that carries
//! its CONNECTION_CLOSE, instead of after max_ack_delay (RFC 9000 §13.2.2
//! lets a receiver hold an ACK for a single ack-eliciting packet that
//! long). TTLB is measured at the server, at that ACK.

use crate::common::*;
use ramp_sim::Scenario;

#[test]
fn rfc9000_13_2_2_a_closing_client_acks_a_lone_last_packet_at_once_not_after_max_ack_delay() {
    // seed-100m: 100 Mbit/s, 30 ms, max_ack_delay 25 ms. A 1000-byte
    // response is one packet: one ack-eliciting packet, under the
    // every-second-packet rule, so an open client holds its ACK.
    let mut sc = scenario("seed-100m");
    sc.size_bytes = 1000;
    let rtt_us = sc.path.rtt().as_micros() as u64;
    let delay_us = sc.endpoint.max_ack_delay.as_micros() as u64;
    assert!(!sc.endpoint.client_closes, "off by default");
    let open = run(&sc, "newreno", 1);
    sc.endpoint.client_closes = true;
    let closing = run(&sc, "newreno", 1);
    assert!(open.completed && closing.completed);
    assert!(
        open.ttlb_us >= rtt_us + delay_us,
        "open client: ttlb {} us",
        open.ttlb_us
    );
    assert!(
        closing.ttlb_us < rtt_us + 5_000,
        "closing client: ttlb {} us",
        closing.ttlb_us
    );
    // The client has the bytes at the same time either way.
    assert_eq!(open.client_ttlb_us, closing.client_ttlb_us);
}

#[test]
fn a_scenario_file_turns_client_closes_on_and_rejects_a_non_boolean() {
    let base = "[path]\nrate = \"10mbit\"\nrtt = \"40ms\"\n[endpoint]\n";
    let on = Scenario::from_toml(&format!("{base}client_closes = true\n"), "t").unwrap();
    assert!(on.endpoint.client_closes);
    let off = Scenario::from_toml(base, "t").unwrap();
    assert!(!off.endpoint.client_closes);
    let bad = Scenario::from_toml(&format!("{base}client_closes = \"yes\"\n"), "t").unwrap_err();
    // The error names the key's line (line 5) and what was expected.
    assert!(
        bad.line == Some(5) && bad.message.contains("boolean"),
        "{bad}"
    );
}
