//! gQUIC's initial-RTT hint (the client hello's `IRTT` tag): a resumed
//! client sends the smoothed RTT of its previous connection, and the
//! server starts its RTT estimate from it (quiche's
//! `QuicSentPacketManager::SetFromConfig` → `SetInitialRtt(rtt, untrusted)`).

use crate::common::*;
use core::time::Duration;
use ramp_sim::Scenario;
use ramp_sim::{server_initial_rtt, Resumption};

/// seed-100m (100 Mbit/s, 30 ms), a 1 MB object, resumed with 0-RTT and a
/// token, with or without the client's hint.
fn zero_rtt(hint: Option<Duration>) -> Scenario {
    let mut sc = scenario("seed-100m");
    sc.size_bytes = 1_000_000;
    sc.endpoint.resumption = Resumption::ZeroRtt { token: true };
    sc.endpoint.client_rtt_hint = hint;
    sc
}

#[test]
fn quiche_set_initial_rtt_clamps_an_untrusted_hint_to_10ms_1s() {
    // kMinUntrustedInitialRoundTripTimeUs, kMaxInitialRoundTripTimeUs
    // (quic_constants.h).
    assert_eq!(
        server_initial_rtt(Duration::from_millis(1)),
        Duration::from_millis(10)
    );
    assert_eq!(
        server_initial_rtt(Duration::from_millis(40)),
        Duration::from_millis(40)
    );
    assert_eq!(
        server_initial_rtt(Duration::from_secs(5)),
        Duration::from_secs(1)
    );
}

#[test]
fn gquic_irtt_a_0rtt_server_paces_its_first_window_at_the_cached_rtt() {
    let cc = "cubic(iw=32)";
    let plain = run_traced(&zero_rtt(None), cc, 1);
    let hinted = run_traced(&zero_rtt(Some(Duration::from_millis(30))), cc, 1);
    assert!(plain.record.completed && hinted.record.completed);
    // Before the first ACK (one RTT after the first 0.5-RTT packet) the
    // server paces at 2·IW/srtt: over RFC 9002's 333 ms it sends a few
    // packets of its 32-packet window; over the cached 30 ms, all of it.
    let first_window = |t: &Traced| {
        let sent = app_sent(&t.events())
            .iter()
            .map(|e| t_us(e))
            .collect::<Vec<_>>();
        let start = sent[0];
        sent.iter().filter(|&&s| s < start + 25_000).count()
    };
    let (p, h) = (first_window(&plain), first_window(&hinted));
    assert!(p <= 8, "without the hint: {p} packets in 25 ms");
    assert!(h >= 30, "with the hint: {h} packets in 25 ms");
    // And the object arrives sooner.
    assert!(
        hinted.record.client_ttlb_us + 10_000 < plain.record.client_ttlb_us,
        "{} vs {}",
        hinted.record.client_ttlb_us,
        plain.record.client_ttlb_us
    );
}

#[test]
fn gquic_irtt_changes_nothing_on_a_full_handshake() {
    // A full handshake gives the server an RTT sample before its first
    // data: the hint is only an initial value.
    let mut sc = zero_rtt(Some(Duration::from_millis(30)));
    sc.endpoint.resumption = Resumption::Full;
    let hinted = run(&sc, "cubic(iw=32)", 1);
    sc.endpoint.client_rtt_hint = None;
    let plain = run(&sc, "cubic(iw=32)", 1);
    assert_eq!(hinted.to_json(), plain.to_json());
}

#[test]
fn scenario_file_reads_client_rtt_hint() {
    let sc = Scenario::from_toml(
        "preset = \"seed-100m\"\n[endpoint]\nresumption = \"0rtt\"\nclient_rtt_hint = \"40ms\"\n",
        "hint",
    )
    .unwrap();
    assert_eq!(sc.endpoint.client_rtt_hint, Some(Duration::from_millis(40)));
    let e = Scenario::from_toml(
        "preset = \"seed-100m\"\n[endpoint]\nclient_rtt_hint = \"0ms\"\n",
        "hint",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("endpoint.client_rtt_hint"), "{e}");
}

#[test]
fn population_rtt_hint_sends_the_paths_rtt_on_resumed_connections_only() {
    use ramp_sim::fleet::population_file::PopulationFile;
    use ramp_sim::fleet::FleetPlan;
    let base = "[[region]]\nname = \"west-europe\"\n";
    let f = PopulationFile::parse(
        &format!("{base}[users]\nresumed_share = 0.5\nrtt_hint = true\n"),
        "p",
    )
    .unwrap();
    let plan = FleetPlan {
        name: f.name,
        population: f.population,
        workload: f.workload,
        arms: ramp_sim::fleet::parse_arms("a=newreno").unwrap(),
        connections: 200,
        seed: 1,
        base: ramp_sim::fleet::experiments::base_scenario().unwrap(),
    };
    let mut hinted = 0;
    for i in 0..200 {
        let sc = plan.connection(i).scenario;
        match sc.endpoint.resumption {
            Resumption::Full => assert_eq!(sc.endpoint.client_rtt_hint, None),
            Resumption::ZeroRtt { .. } => {
                assert_eq!(sc.endpoint.client_rtt_hint, Some(sc.path.rtt()));
                hinted += 1;
            }
        }
    }
    assert!((60..140).contains(&hinted), "{hinted} of 200");
    let e = PopulationFile::parse(&format!("{base}[users]\nrtt_hint = true\n"), "p")
        .unwrap_err()
        .to_string();
    assert!(e.contains("rtt_hint: needs resumed connections"), "{e}");
    // The Google page-load presets send it (Chromium does on every hello).
    assert!(
        ramp_sim::fleet::experiments::google_page_loads()
            .users
            .rtt_hint
    );
}

/// The client's handshake processing time (`[endpoint] client_processing`):
/// the server's handshake RTT samples include it, so its jump is paced
/// over the longer RTT, while the path's minimum (set by 1-RTT ACKs) is
/// the path's alone.
#[test]
fn client_handshake_processing_delays_the_handshake_samples_not_the_path_minimum() {
    let sc = |ms: u64| {
        Scenario::from_toml(
            &format!("preset = \"seed-100m\"\nsize = \"1MB\"\n[endpoint]\nclient_processing = \"{ms}ms\"\n"),
            "processing",
        )
        .unwrap()
    };
    let jump = ramp_cc::spec::SEED_ARMS[1].1;
    let (quick, slow) = (run(&sc(0), jump, 1), run(&sc(40), jump, 1));
    // The path's minimum RTT is the same 30 ms path.
    assert_eq!(quick.rtt_min_us / 1000, slow.rtt_min_us / 1000);
    // The whole exchange waits 40 ms more for the client's Finished.
    assert!(
        slow.client_ttlb_us >= quick.client_ttlb_us + 40_000,
        "{} vs {}",
        slow.client_ttlb_us,
        quick.client_ttlb_us
    );
    // The jump (88,320 B, the first 70 packets) is paced over the
    // handshake's RTT, 30 + 40 ms instead of 30 ms: it takes longer to
    // send (packets 11..60, after the pacer's first burst; quicly's pacer
    // grants at least 2 packets per ms, so not the full 70/30).
    let span = |ms: u64| {
        let t = run_traced(&sc(ms), jump, 1);
        let sent: Vec<u64> = app_sent(&t.events()).iter().map(|e| t_us(e)).collect();
        sent[60] - sent[10]
    };
    let (a, b) = (span(0), span(40));
    assert!(b as f64 > 1.5 * a as f64, "jump sent over {a} µs vs {b} µs");
    // Zero is the default and changes nothing.
    assert_eq!(
        run(&sc(0), jump, 1),
        run(
            &Scenario::from_toml("preset = \"seed-100m\"\nsize = \"1MB\"\n", "processing").unwrap(),
            jump,
            1
        )
    );
}
