//! quicly's send rule in the simulator's sender (`send_rule=quicly`,
//! `ramp_cc::SendRule`): h2o/quicly 45bf8a37 sends while its bytes in
//! flight are below the window (lib/quicly.c `calc_send_window`, and
//! `do_allocate_frame`'s `send_window <= 0` test), so the last packet of a
//! window may cross it; RFC 9002 §7 sends only a packet that fits.

use crate::common::*;
use ramp_sim::Scenario;

/// quicly's simulated wire: 1,280-byte packets, all delay on the data path.
fn quicly_wire() -> Scenario {
    Scenario::from_toml(
        "preset = \"seed-100m\"\nsize = \"1MB\"\n\
         [path]\nforward_delay = \"30ms\"\nreverse_delay = \"0ms\"\n\
         [endpoint]\nmds = 1280\n",
        "quicly-wire",
    )
    .unwrap()
}

/// Packets in the response's first round (sent before the first of them
/// is acknowledged).
fn first_round(cc: &str) -> usize {
    let t = run_traced(&quicly_wire(), cc, 1);
    rounds(&t.events())[0].len()
}

#[test]
fn quicly_send_rule_lets_35_packets_of_1280_bytes_out_of_iw_30x1472() {
    // 30 × 1,472 = 44,160 B: 34 packets of 1,280 B fit (43,520 B); quicly
    // sends a 35th because 43,520 B is still below the window.
    let rfc = "newreno(iw=30x1472,pacer=quicly)";
    let quicly = "newreno(iw=30x1472,pacer=quicly,send_rule=quicly)";
    assert_eq!((first_round(rfc), first_round(quicly)), (34, 35));
}

#[test]
fn rfc9002_7_is_the_default_send_rule() {
    for name in ["newreno", "newreno(send_rule=rfc)", "bbr3"] {
        let spec = ramp_cc::spec::parse(name).unwrap();
        assert_eq!(spec.send_rule(), ramp_cc::SendRule::Rfc9002, "{name}");
    }
    let spec = ramp_cc::spec::parse("newreno(send_rule=quicly)").unwrap();
    assert_eq!(spec.send_rule(), ramp_cc::SendRule::Quicly);
    assert_eq!(spec.to_string(), "newreno(send_rule=quicly)");
    let e = ramp_cc::spec::parse("newreno(send_rule=fit)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("rfc or quicly"), "{e}");
}
