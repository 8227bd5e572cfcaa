//! Path elements on a real relay deliver every datagram, in order.

use std::net::UdpSocket;
use std::time::Duration;

use ramp_cc::Rate;
use ramp_quic::relay::{Relay, RelayConfig};

use super::{client_initial, receiver};
use crate::common::exclusive;

/// A cellular direction with Wi-Fi delay variation and ACK aggregation
/// (the elements `--cellular`, `--wifi-jitter` and `--ack-aggregation`
/// put on a relay's directions, here all on one) delivers every datagram,
/// in the order sent: the elements delay without reordering, which the
/// relay's delivery queue relies on. Counts and order only, no timing.
#[test]
fn relay_with_cellular_wifi_and_aggregation_delivers_every_datagram_in_order() {
    let _machine = exclusive();
    let server = receiver();
    server
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let rtt = Duration::from_millis(20);
    let mut cfg = RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        server.local_addr().unwrap(),
        Rate::from_bits_per_sec(50_000_000),
        rtt,
        Duration::from_secs(1),
        0.0,
        7,
    );
    cfg.up.elements.cellular = Some(ramp_link::Cellular::CELLREPLAY);
    cfg.up.base_rtt = rtt;
    cfg.up.elements.jitter = Some(ramp_link::Jitter::WIFI_SUI_2016);
    cfg.up.elements.aggregation = ramp_link::AckAggregation::new(Duration::from_millis(4));
    let relay = Relay::start(cfg).unwrap();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client.connect(relay.local_addr()).unwrap();
    let mut buf = [0u8; 2048];
    client.send(&client_initial(1200, u32::MAX)).unwrap();
    server.recv(&mut buf).unwrap();
    const BURSTS: u32 = 3;
    const PER_BURST: u32 = 100;
    let mut seen = Vec::new();
    for b in 0..BURSTS {
        for i in 0..PER_BURST {
            client
                .send(&client_initial(1200, b * PER_BURST + i))
                .unwrap();
        }
        for _ in 0..PER_BURST {
            let Ok(_) = server.recv(&mut buf) else { break };
            seen.push(u32::from_be_bytes([buf[6], buf[7], buf[8], buf[9]]));
        }
        // Idle past the cellular idle reset: the next burst starts light.
        std::thread::sleep(Duration::from_millis(80));
    }
    let c = relay.stop().unwrap();
    let want: Vec<u32> = (0..BURSTS * PER_BURST).collect();
    assert_eq!(seen, want, "{c:?}");
    assert_eq!(c.up.delivered, u64::from(BURSTS * PER_BURST) + 1, "{c:?}");
    assert_eq!(c.up.dropped_queue + c.up.send_errors, 0, "{c:?}");
}
