//! End to end on loopback without the relay: the server, the client, the
//! stats record.

use crate::common::*;
use ramp_quic::PathLabels;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytes_download_is_verified_and_recorded() {
    let server = start_server("cubic", "direct.ndjson", PathLabels::default()).await;
    let res = fetch(server.addr, "/bytes/1000000", 3, 1).await;
    assert_eq!(res.len(), 3);
    for r in &res {
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(r.bytes, 1_000_000);
        assert_eq!(r.verified, Some(true));
        assert!(r.ttfb <= r.ttlb);
    }
    wait_records(&server, 3).await;
    let recs = server.records();
    assert_eq!(recs.len(), 3, "{recs:?}");
    for rec in &recs {
        assert_eq!(rec["content_length"], 1_000_000);
        assert_eq!(rec["cc.algorithm"], "cubic");
        assert!(rec["ttlb-us"].as_u64().is_some(), "{rec:?}");
        assert!(rec["num-packets.sent"].as_u64().unwrap() > 800);
        // Counters are per request (three requests share the connection):
        // each acknowledged 1 MB plus overhead, not a running total.
        let acked = rec["num-bytes.ack-received"].as_u64().unwrap();
        assert!((1_000_000..1_300_000).contains(&acked), "{rec:?}");
        assert!(rec["cc.cwnd"].as_u64().unwrap() > 0);
        assert!(rec.get("error").is_none(), "{rec:?}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_found_and_bad_paths_get_statuses_and_records() {
    let server = start_server("newreno", "statuses.ndjson", PathLabels::default()).await;
    let r = fetch(server.addr, "/nope", 1, 1).await;
    assert_eq!(r[0].status, Some(404));
    let r = fetch(server.addr, "/bytes/12x", 1, 1).await;
    assert_eq!(r[0].status, Some(400));
    let r = fetch(server.addr, "/bytes/0", 1, 1).await;
    assert_eq!(
        (r[0].status, r[0].bytes, r[0].verified),
        (Some(200), 0, Some(true))
    );
    wait_records(&server, 3).await;
    let statuses: Vec<_> = server
        .records()
        .iter()
        .map(|r| r["http.status"].clone())
        .collect();
    assert_eq!(statuses.len(), 3);
    server.stop().await;
}
