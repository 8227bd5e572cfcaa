//! The server under abuse: garbage datagrams, a client that vanishes
//! mid-transfer, 200 concurrent connections. No completed request may lose
//! its stats record.

use std::net::UdpSocket;
use std::time::Duration;

use crate::common::*;
use ramp_cc::Rate;
use ramp_quic::load::{LoadConfig, Outcome, Progress, Protocol};
use ramp_quic::relay::{Relay, RelayConfig};
use ramp_quic::{PathLabels, Trust};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_survives_garbage_datagrams() {
    let server = start_server("cubic", "garbage.ndjson", PathLabels::default()).await;
    let g = UdpSocket::bind("127.0.0.1:0").unwrap();
    g.connect(server.addr).unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..2000usize {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = match i % 4 {
            0 => (x % 32) as usize,
            1 => 1200 + (x % 300) as usize,
            _ => (x % 1500) as usize,
        };
        let mut d: Vec<u8> = (0..len)
            .map(|k| (x.rotate_left(k as u32 % 64)) as u8)
            .collect();
        if i % 4 == 1 {
            // Looks like a v1 Initial: the server must parse and reject it.
            d[..7].copy_from_slice(&[0xc3, 0, 0, 0, 1, 8, 0]);
        }
        let _ = g.send(&d);
    }
    let res = fetch(server.addr, "/bytes/100000", 2, 1).await;
    assert!(res.iter().all(|r| r.is_ok()), "{res:?}");
    wait_records(&server, 2).await;
    assert_eq!(server.records().len(), 2);
    server.stop().await;
}

/// Under [`run_exclusive`]: the relay's threads run at real-time priority.
#[test]
fn client_vanishing_mid_transfer_leaves_an_error_record_and_the_server_serving() {
    run_exclusive(client_vanishing());
}

async fn client_vanishing() {
    let server = start_server("newreno", "vanish.ndjson", PathLabels::default()).await;
    // A slow path, so the transfer is still running when the client goes.
    let relay = Relay::start(RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        server.addr,
        Rate::from_bits_per_sec(5_000_000),
        Duration::from_millis(20),
        Duration::from_millis(40),
        0.0,
        1,
    ))
    .expect("relay");
    let relay_addr = relay.local_addr();
    let client = tokio::spawn(async move { fetch(relay_addr, "/bytes/20000000", 1, 1).await });
    // Let the download start, then cut the path: the client vanishes
    // without a CONNECTION_CLOSE reaching the server.
    for _ in 0..100 {
        if relay.counters().down.delivered > 100 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        relay.counters().down.delivered > 100,
        "the transfer started"
    );
    tokio::task::spawn_blocking(move || relay.stop())
        .await
        .expect("join")
        .expect("relay stops");
    client.abort();
    // The server gives up after its idle timeout (2 s in these tests).
    wait_records(&server, 1).await;
    let recs = server.records();
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert!(recs[0].get("error").is_some(), "{:?}", recs[0]);
    assert!(
        recs[0].get("ttlb").is_none(),
        "an aborted transfer has no ttlb"
    );
    assert_eq!(server.handle.counters().requests_failed, 1);
    // And it still serves.
    let res = fetch(server.addr, "/bytes/50000", 1, 1).await;
    assert!(res[0].is_ok(), "{res:?}");
    wait_records(&server, 2).await;
    let recs = server.records();
    assert_eq!(recs.len(), 2);
    assert!(recs[1].get("error").is_none() && recs[1].get("ttlb").is_some());
    server.stop().await;
}

/// Under [`run_exclusive`]: 200 handshakes load both cores.
#[test]
fn two_hundred_concurrent_connections_lose_no_record() {
    run_exclusive(two_hundred_connections());
}

async fn two_hundred_connections() {
    let pressure = ramp_host::timing::CpuPressure::now();
    let server = start_server("cubic+hystart", "many.ndjson", PathLabels::default()).await;
    let res = fetch(server.addr, "/bytes/20000", 200, 200).await;
    assert_eq!(res.len(), 200);
    let ok = res.iter().filter(|r| r.is_ok()).count();
    let conns: std::collections::HashSet<_> = res.iter().map(|r| r.conn).collect();
    assert_eq!(conns.len(), 200, "one request per connection");
    wait_records(&server, ok as u64).await;
    let c = server.handle.counters();
    let recs = server.records();
    // Every request the client saw complete has its record, and every
    // record of a completed request has its ttlb.
    assert_eq!(
        ok,
        200,
        "first failure: {:?}",
        res.iter().find(|r| !r.is_ok())
    );
    let complete = recs.iter().filter(|r| r.get("ttlb-us").is_some()).count();
    // The client closes each connection once it has read its response.
    // The server learns of delivery only from the ACKs, sent before or with
    // the CONNECTION_CLOSE, and a close is not retransmitted (RFC 9000
    // §10.2): where they were lost or late the record says "connection
    // ended before the whole response was acknowledged". At load 30 on 2
    // cores that was 3 records of 200, reproducibly; on a machine that kept
    // up it is a failure.
    let unconfirmed = recs
        .iter()
        .filter(|r| {
            r.get("ttlb-us").is_none()
                && r.get("error")
                    .and_then(|e| e.as_str())
                    .is_some_and(|e| e.contains("before the whole response was acknowledged"))
        })
        .count();
    let share = pressure.and_then(|p| p.share_since());
    if complete < ok
        && complete + unconfirmed >= ok
        && share.is_some_and(|x| x > ramp_host::timing::BUSY_SHARE)
    {
        ramp_host::timing::inconclusive(
            "two_hundred_concurrent_connections_lose_no_record",
            &format!(
                "{unconfirmed} records of completed requests lack the final ACK, CPU pressure {:.0}%",
                share.unwrap_or(0.0) * 100.0
            ),
        );
        server.stop().await;
        return;
    }
    assert!(
        complete >= ok,
        "{complete} complete records of {} for {ok} completed requests; {c:?}; first without ttlb: {:?}",
        recs.len(),
        recs.iter().find(|r| r.get("ttlb-us").is_none())
    );
    assert_eq!(c.record_errors, 0);
    assert_eq!(recs.len() as u64, c.records);
    server.stop().await;
}

/// More clients than the relay's client table holds, all handshaking at
/// once through it: `ramp load -c 1030` against the 1,024-client table,
/// scaled down to 110 against a table of 100 (the same ratio, and seconds
/// instead of a minute). Those beyond the table are refused until clients
/// finish; they get in when their Initial is sent again on the probe
/// timeout, each taking the place of a finished flow. A client the server
/// has answered and that is still handshaking must never be evicted: its
/// next datagrams would reach the server from a new relay port, which the
/// server drops before the handshake is confirmed, and the handshake fails
/// (21 to 42 of 1,030 `ramp load` requests did, before 5aba4a7). So every
/// request succeeds, and the table did fill and did make room.
///
/// Real time: with the machine so busy that the server cannot answer
/// an Initial within the handshake grace (1 s), the relay may rightly
/// evict that client as abandoned. A run with failures, unanswered
/// clients evicted and CPU pressure over `BUSY_SHARE` is INCONCLUSIVE,
/// not a failure (a failure under RAMP_STRICT_TIMING=1).
#[test]
fn a_crowd_beyond_the_relay_table_is_not_evicted_mid_handshake() {
    run_exclusive(crowd_beyond_the_table());
}

async fn crowd_beyond_the_table() {
    const TABLE: usize = 100;
    const CLIENTS: usize = 110;
    let pressure = ramp_host::timing::CpuPressure::now();
    let server = start_server("cubic", "crowd.ndjson", PathLabels::default()).await;
    let mut cfg = RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        server.addr,
        Rate::from_bits_per_sec(100_000_000),
        Duration::from_millis(10),
        Duration::from_millis(20),
        0.0,
        1,
    );
    cfg.max_clients = TABLE;
    // Finished flows make room after this long silent (1 s by default);
    // shorter keeps the test short. A handshake is never silent this long
    // but while waiting for its probe timeout, and then it is unanswered:
    // the grace (1 s, kept) protects it.
    cfg.client_quiet = Duration::from_millis(300);
    let relay = Relay::start(cfg).expect("relay starts");
    // `ramp load`'s clients: each its own endpoint, so its own UDP port,
    // a client of its own to the relay.
    let load = LoadConfig {
        url: format!("https://localhost:{}/bytes/1000", relay.local_addr().port())
            .parse()
            .expect("url"),
        protocol: Protocol::H3,
        requests: CLIENTS,
        clients: CLIENTS,
        max_streams: 1,
        trust: Trust::Insecure,
        request_timeout: Duration::from_secs(20),
        connect_timeout: Duration::from_secs(20),
        duration_cap: Some(Duration::from_secs(60)),
    };
    let report = ramp_quic::load::run(&load, std::sync::Arc::new(Progress::default()))
        .await
        .expect("load runs");
    let c = relay.stop().expect("relay stops");
    server.stop().await;
    let ok = report
        .requests
        .iter()
        .filter(|r| r.outcome == Outcome::Complete && r.status == Some(200))
        .count();
    let failed = CLIENTS.saturating_sub(ok);
    let first = report
        .requests
        .iter()
        .find(|r| r.outcome != Outcome::Complete || r.status != Some(200));
    let share = pressure.and_then(|p| p.share_since());
    // The one way a busy machine fails this run: the server did not answer
    // some Initials within the handshake grace, and the relay took those
    // clients for abandoned. This test's own 110 handshakes keep the CPU
    // pressure high even on an idle machine, so the strict CI step
    // (RAMP_STRICT_TIMING=1) is where an eviction of young handshakes
    // shows as a failure.
    if failed > 0
        && c.evicted_unanswered > 0
        && share.is_some_and(|x| x > ramp_host::timing::BUSY_SHARE)
    {
        ramp_host::timing::inconclusive(
            "a_crowd_beyond_the_relay_table_is_not_evicted_mid_handshake",
            &format!(
                "{failed} of {CLIENTS} failed at CPU pressure {:.0}%; relay {c:?}; first: {first:?}",
                share.unwrap_or(0.0) * 100.0,
            ),
        );
        return;
    }
    assert_eq!(
        failed, 0,
        "{failed} of {CLIENTS} failed; relay {c:?}; first: {first:?}"
    );
    assert!(c.refused > 0, "the table never filled: {c:?}");
    assert!(c.evicted > 0, "nobody made room: {c:?}");
    // Every client was real and answered within the grace: each place was
    // made by a finished flow, none by a handshake.
    assert_eq!(c.evicted_unanswered, 0, "{c:?}");
    assert!(c.clients >= CLIENTS as u64, "{c:?}");
}
