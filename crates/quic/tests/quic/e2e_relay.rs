//! Real transfers through the relay, compared with ramp-sim on the same
//! path: 20 Mbit/s, 40 ms RTT, 40 ms buffer, no random loss; drop-tail and
//! CoDel, the relay running the simulator's own queue (`ramp-link`).

use std::time::Duration;

use crate::common::*;
use ramp_cc::Rate;
use ramp_link::Aqm;
use ramp_quic::relay::{Relay, RelayConfig};
use ramp_quic::PathLabels;
use ramp_quic::COMPARED as CONTROLLERS;
use ramp_sim::{run_connection, Scenario, TraceSink};

const SIZE: u64 = 2_000_000;

/// The simulator's version of the relay path, with the real server's
/// settings: 1200-byte datagrams, IW 10, the controller's pacing (the
/// server's default, `SendPacing::Controller`) as the leaky-bucket pacer,
/// and a client that closes once it has the response, as `ramp get` does.
fn scenario(aqm: Aqm) -> Scenario {
    let toml = format!(
        r#"
        seed = 1
        [path]
        rate = "20mbit"
        rtt = "40ms"
        queue = "40ms"
        aqm = "{aqm}"
        [endpoint]
        mds = 1200
        iw = 10
        pacer = "leaky-bucket"
        client_closes = true
    "#
    );
    let mut sc = Scenario::from_toml(&toml, "real-20m-40ms").expect("scenario");
    sc.size_bytes = SIZE;
    sc
}

fn sim_ttlb(cc: &str, aqm: Aqm) -> (Duration, u64) {
    let spec = ramp_cc::spec::parse(cc).expect("controller name");
    let rec = run_connection(&scenario(aqm), &spec, 1, &mut TraceSink::off()).expect("simulation");
    (Duration::from_micros(rec.ttlb_us), rec.packets_lost)
}

/// One real 2 MB download of `cc` through a fresh relay and server:
/// (TTLB, packets lost, relay tail drops). Completion and the record are
/// asserted here.
async fn real_run(cc: &str, aqm: Aqm, attempt: usize) -> (Duration, u64, u64) {
    let labels = PathLabels {
        rate_bps: Some(20_000_000),
        rtt: Some(Duration::from_millis(40)),
        queue: Some(Duration::from_millis(40)),
        loss: Some(0.0),
        seed: Some(1),
        group: Some(cc.to_string()),
    };
    let server = start_server(cc, &format!("relay-{aqm}-{cc}-{attempt}.ndjson"), labels).await;
    let mut cfg = RelayConfig::symmetric(
        "127.0.0.1:0".parse().unwrap(),
        server.addr,
        Rate::from_bits_per_sec(20_000_000),
        Duration::from_millis(40),
        Duration::from_millis(40),
        0.0,
        1,
    );
    cfg.up.aqm = aqm;
    cfg.down.aqm = aqm;
    let relay = Relay::start(cfg).expect("relay");
    let res = fetch(relay.local_addr(), &format!("/bytes/{SIZE}"), 1, 1).await;
    assert!(
        res[0].is_ok(),
        "{cc}: {:?} relay {:?}",
        res[0],
        relay.counters()
    );
    assert_eq!(res[0].bytes, SIZE);
    wait_records(&server, 1).await;
    let recs = server.records();
    assert_eq!(recs.len(), 1, "{cc}: one record per request");
    let rec = &recs[0];
    assert!(rec.get("error").is_none(), "{cc}: {rec:?}");
    assert_eq!(rec["content_length"], SIZE);
    assert_eq!(rec["path.rate-bps"], 20_000_000);
    let real = Duration::from_micros(rec["ttlb-us"].as_u64().expect("ttlb-us"));
    let lost = rec["num-packets.lost"].as_u64().unwrap_or(0);
    let counters = tokio::task::spawn_blocking(move || relay.stop())
        .await
        .expect("join")
        .expect("relay stops");
    server.stop().await;
    (
        real,
        lost,
        counters.down.dropped_queue + counters.down.dropped_aqm,
    )
}

/// One test, so that the real transfers never share the CPU with each
/// other (a test binary runs its tests in parallel).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_2mb_download_with_each_controller_matches_sim_within_15_percent() {
    within_15_percent(Aqm::DropTail, &CONTROLLERS).await;
    within_15_percent(
        "codel".parse().expect("aqm"),
        &["newreno", "cubic", "rapidstart"],
    )
    .await;
}

async fn within_15_percent(aqm: Aqm, controllers: &[&str]) {
    let mut rows = Vec::new();
    for &cc in controllers {
        let (sim, sim_lost) = sim_ttlb(cc, aqm);
        // Real time needs the CPU: on a machine loaded by other work one
        // run can be delayed, so a second run is made when the first
        // misses the bound; both must complete with a record.
        for attempt in 0..2 {
            let (real, lost, drops) = real_run(cc, aqm, attempt).await;
            let diff = real.as_secs_f64() / sim.as_secs_f64() - 1.0;
            if diff.abs() <= 0.15 || attempt == 1 {
                rows.push((cc, real, sim, lost, sim_lost, drops));
                break;
            }
            eprintln!("{cc}: first run {real:?} vs sim {sim:?}; running again");
        }
    }
    eprintln!("queue discipline: {aqm}");
    eprintln!(
        "{:<14} {:>10} {:>10} {:>7} {:>9} {:>9} {:>11}",
        "cc", "real ms", "sim ms", "diff", "lost", "sim lost", "relay drops"
    );
    let mut bad = Vec::new();
    for (cc, real, sim, lost, sim_lost, drops) in &rows {
        let diff = real.as_secs_f64() / sim.as_secs_f64() - 1.0;
        eprintln!(
            "{:<14} {:>10.1} {:>10.1} {:>+6.1}% {:>9} {:>9} {:>11}",
            cc,
            real.as_secs_f64() * 1e3,
            sim.as_secs_f64() * 1e3,
            diff * 100.0,
            lost,
            sim_lost,
            drops
        );
        if diff.abs() > 0.15 {
            bad.push(*cc);
        }
    }
    assert!(
        bad.is_empty(),
        "real TTLB more than 15% from the simulator for {bad:?}"
    );
}
