//! Determinism, and end-to-end checks of the path and endpoint model.

use crate::common;

use common::*;
use ramp_link::LossModel;
use ramp_sim::{run_arms, Scenario};

#[test]
fn same_seed_gives_byte_identical_records_traces_and_qlog() {
    let mut sc = scenario("seed-100m");
    sc.path.elements.loss = LossModel::Bernoulli { p: 0.01 };
    for cc in ["newreno(iw=30)", "cubic+rapidstart(iw=30)"] {
        let a = run_traced(&sc, cc, 7);
        let b = run_traced(&sc, cc, 7);
        assert_eq!(a.record.to_json(), b.record.to_json());
        assert!(
            !a.trace.is_empty() && a.trace == b.trace,
            "{cc}: traces differ"
        );
        assert!(!a.qlog.is_empty() && a.qlog == b.qlog, "{cc}: qlogs differ");
        // Tracing changes nothing in the record.
        assert_eq!(run(&sc, cc, 7).to_json(), a.record.to_json());
    }
    // Another seed draws other losses.
    let c = run(&sc, "newreno(iw=30)", 8);
    assert_ne!(c.to_json(), run(&sc, "newreno(iw=30)", 7).to_json());
}

#[test]
fn arms_are_identical_at_1_and_2_threads() {
    let mut sc = scenario("vdsl");
    sc.path.elements.loss = LossModel::Bernoulli { p: 0.005 };
    let specs = ramp_cc::spec::parse_list("newreno,rapidstart,jumpstart,cubic").unwrap();
    let one = run_arms(&sc, &specs, 3, 1).unwrap();
    let two = run_arms(&sc, &specs, 3, 2).unwrap();
    let j = |v: &[ramp_sim::Record]| v.iter().map(|r| r.to_json()).collect::<Vec<_>>();
    assert_eq!(j(&one), j(&two));
}

#[test]
fn handshake_takes_one_rtt_and_response_starts_after_it() {
    let sc = scenario("seed-100m");
    let r = run(&sc, "newreno(iw=30)", 1);
    // Client Initial -> server flight (3 packets, serialised) -> client:
    // 30 ms plus serialisation of 3 packets at 100 Mbit/s.
    assert!(
        (30_000..30_500).contains(&r.handshake_us),
        "{}",
        r.handshake_us
    );
    // TTFB at the client: request (15 ms) + first packet (15 ms + 0.1 ms).
    assert!((30_000..30_300).contains(&r.ttfb_us), "{}", r.ttfb_us);
}

#[test]
fn rfc9000_8_1_anti_amplification_limits_a_large_server_flight() {
    // A 6000-byte flight exceeds 3 x 1252 received bytes: the 4th and 5th
    // packets wait for the client's next packet (its ACK), costing ~1 RTT.
    let small = scenario("seed-100m");
    let mut big = small.clone();
    big.endpoint.server_flight_bytes = 6000;
    let a = run(&small, "newreno(iw=30)", 1);
    let b = run(&big, "newreno(iw=30)", 1);
    assert!(
        b.handshake_us >= a.handshake_us + 29_000,
        "{} vs {}",
        b.handshake_us,
        a.handshake_us
    );
    assert!(b.handshake_us < a.handshake_us + 32_000);
}

#[test]
fn random_loss_is_repaired_and_ttlb_includes_it() {
    let mut sc = scenario("seed-100m");
    sc.size_bytes = 1_000_000;
    let clean = run(&sc, "newreno(iw=30)", 1);
    sc.path.elements.loss = LossModel::Bernoulli { p: 0.02 };
    let lossy = run(&sc, "newreno(iw=30)", 1);
    assert!(lossy.completed);
    assert!(lossy.drops_random > 0 && lossy.packets_lost >= lossy.drops_random);
    assert!(lossy.stream_bytes_resent > 0);
    assert!(lossy.ttlb_us > clean.ttlb_us);
}

#[test]
fn gilbert_elliott_and_policer_paths_complete() {
    let mut sc = scenario("dsl");
    sc.size_bytes = 500_000;
    sc.path.elements.loss = LossModel::GilbertElliott(ramp_link::GilbertElliott {
        p_good_to_bad: 0.01,
        p_bad_to_good: 0.3,
        loss_good: 0.0,
        loss_bad: 0.5,
    });
    let ge = run(&sc, "cubic(iw=30)", 2);
    assert!(ge.completed && ge.drops_random > 0);
    let mut pol = scenario("seed-100m");
    pol.size_bytes = 1_000_000;
    pol.path.elements.policer = Some(ramp_link::TokenBucket {
        rate: ramp_cc::Rate::from_bits_per_sec(10_000_000),
        burst: 32_000,
    });
    let p = run(&pol, "newreno(iw=30)", 1);
    assert!(p.completed && p.drops_policer > 0 && p.drops_queue == 0);
    // A policed path cannot deliver faster than its token rate.
    assert!(
        p.ttlb_us > 1_000_000 * 8 / 10 * 1000 / 1000,
        "{}",
        p.ttlb_us
    );
}

#[test]
fn ecn_ce_marks_give_ecn_loss_episodes_without_drops() {
    let mut sc = scenario("seed-100m");
    sc.size_bytes = 2_000_000;
    sc.endpoint.ecn = ramp_cc::EcnCodepoint::Ect0;
    sc.path.aqm = ramp_link::Aqm::Step {
        threshold: std::time::Duration::from_millis(1),
    };
    let r = run(&sc, "newreno(iw=30)", 1);
    assert!(r.completed);
    assert!(r.num_ecn_loss_episodes >= 1, "{}", r.to_json());
    assert_eq!(
        r.drops_queue, 0,
        "CE at 1 ms should keep the 30 ms queue from overflowing"
    );
}

#[test]
fn chrome_ack_decimation_sends_fewer_acks() {
    let mut sc = scenario("seed-100m");
    sc.size_bytes = 1_000_000;
    let rfc = run_traced(&sc, "newreno(iw=30)", 1);
    sc.endpoint.ack_policy = ramp_sim::AckPolicy::Chrome;
    let chrome = run_traced(&sc, "newreno(iw=30)", 1);
    let acks = |t: &Traced| {
        std::str::from_utf8(&t.qlog)
            .unwrap()
            .matches("transport:packet_received")
            .count()
    };
    assert!(
        acks(&chrome) * 3 < acks(&rfc),
        "{} vs {}",
        acks(&chrome),
        acks(&rfc)
    );
}

#[test]
fn cross_traffic_shares_the_bottleneck() {
    let sc = Scenario::from_toml(
        "preset = \"seed-100m\"\nsize = \"2MB\"\n[[flow]]\ncc = \"cubic\"\nsize = \"20MB\"\n",
        "cross",
    )
    .unwrap();
    let alone = run(&scenario("seed-100m"), "newreno", 1);
    let out = ramp_sim::simulate(
        &sc,
        ramp_sim::flows_for(&sc, &ramp_cc::spec::parse("newreno").unwrap(), "a", 1).unwrap(),
        1,
        &mut ramp_sim::TraceSink::off(),
    );
    assert_eq!(out.records.len(), 2);
    assert!(out.records.iter().all(|r| r.completed));
    assert_eq!(out.records[0].group, "a");
    assert_eq!(out.records[1].cc_algorithm, "cubic(iw=30)");
    assert!(out.records[0].ttlb_us > alone.ttlb_us * 2 / 3);
}

#[test]
fn qlog_is_json_seq_with_qvis_names() {
    let t = run_traced(&scenario("vdsl"), "rapidstart", 1);
    let text = std::str::from_utf8(&t.qlog).unwrap();
    let records: Vec<serde_json::Value> = text
        .split('\u{1e}')
        .filter(|s| !s.is_empty())
        .map(|s| serde_json::from_str(s.trim_end()).unwrap())
        .collect();
    assert_eq!(records[0]["qlog_version"], "0.3");
    assert_eq!(records[0]["qlog_format"], "JSON-SEQ");
    for name in [
        "transport:packet_sent",
        "transport:packet_received",
        "recovery:metrics_updated",
        "recovery:congestion_state_updated",
    ] {
        assert!(records.iter().any(|r| r["name"] == name), "{name} missing");
    }
    let sent = records
        .iter()
        .find(|r| r["name"] == "transport:packet_sent")
        .unwrap();
    assert!(sent["data"]["raw"]["length"].as_u64().unwrap() > 0);
    let ack = records
        .iter()
        .find(|r| r["name"] == "transport:packet_received")
        .unwrap();
    assert!(ack["data"]["frames"][0]["acked_ranges"][0][1].is_u64());
    // The NDJSON trace's header follows docs/formats.md.
    let header: serde_json::Value = serde_json::from_str(
        std::str::from_utf8(&t.trace)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["ev"], "meta");
    assert_eq!(header["path"]["rate-bps"], 55_000_000);
    assert_eq!(header["mds"], 1252);
}

#[test]
fn example_scenario_files_load_and_run() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let sc = Scenario::load(p.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
        let spec = ramp_cc::spec::parse("rapidstart").unwrap();
        let out = ramp_sim::simulate(
            &sc,
            ramp_sim::flows_for(&sc, &spec, "", sc.seed).unwrap(),
            sc.seed,
            &mut ramp_sim::TraceSink::off(),
        );
        assert!(out.records.iter().all(|r| r.completed), "{}", p.display());
        n += 1;
    }
    assert!(n >= 5);
}
