//! Connections as users make them: client flow-control windows (RFC 9000
//! §4), each rule tested by its section.

use crate::common::*;
use ramp_sim::FlowWindows;
use ramp_sim::Scenario;

/// 100 Mbit/s, 100 ms RTT: a bandwidth-delay product of 1.25 MB.
fn long_fat(size: u64) -> Scenario {
    let mut sc = Scenario::from_toml(
        "preset = \"seed-100m\"\n[path]\nrtt = \"100ms\"\nqueue = \"100ms\"\n",
        "long-fat",
    )
    .expect("scenario");
    sc.size_bytes = size;
    sc
}

#[test]
fn rfc9000_4_1_a_window_below_the_bdp_limits_the_transfer() {
    let size = 2_000_000;
    let mut sc = long_fat(size);
    let free = run(&sc, "newreno", 1);
    let window = 100_000;
    sc.endpoint.flow_windows = Some(FlowWindows {
        stream: window,
        connection: 15 * window,
    });
    let limited = run(&sc, "newreno", 1);
    assert!(free.completed && limited.completed);
    // At most one window of new data per round trip can be outstanding
    // beyond what the client consumed: the transfer takes at least
    // size / (window per RTT) round trips' worth of time.
    let floor_us = size * 100_000 / window;
    assert!(
        limited.ttlb_us >= floor_us * 9 / 10,
        "{} µs < {floor_us} µs",
        limited.ttlb_us
    );
    assert!(
        limited.ttlb_us > 2 * free.ttlb_us,
        "{} vs {}",
        limited.ttlb_us,
        free.ttlb_us
    );
    let [updates, blocked] = limited.flow_control.expect("flow-control keys");
    assert!(updates >= size / window, "{updates} updates");
    assert!(blocked >= 1);
    // Flow control is not congestion: nothing was lost to it.
    assert_eq!(limited.packets_lost, free.packets_lost);
    assert!(limited
        .to_json()
        .contains("\"num-frames-sent.stream_data_blocked\":"));
    assert!(!free.to_json().contains("stream_data_blocked"));
}

#[test]
fn rfc9000_4_1_the_connection_window_binds_when_smaller_than_the_stream_window() {
    let mut sc = long_fat(1_000_000);
    sc.endpoint.flow_windows = Some(FlowWindows {
        stream: 6_000_000,
        connection: 50_000,
    });
    let r = run(&sc, "newreno", 1);
    assert!(r.completed);
    assert!(
        r.ttlb_us >= 1_000_000 * 100_000 / 50_000 * 9 / 10,
        "{}",
        r.ttlb_us
    );
}

#[test]
fn chrome_windows_above_the_bdp_change_nothing() {
    // seed-100m: 100 Mbit/s, 30 ms, BDP 375 KB, far under 6 MiB / 2.
    let mut sc = scenario("seed-100m");
    sc.size_bytes = 3_000_000;
    let free = run(&sc, "rapidstart", 1);
    sc.endpoint.flow_windows = Some(FlowWindows::CHROME);
    let chrome = run(&sc, "rapidstart", 1);
    assert_eq!(chrome.ttlb_us, free.ttlb_us);
    assert_eq!(chrome.packets_sent, free.packets_sent);
    assert_eq!(
        chrome.flow_control,
        Some([0, 0]),
        "no update below half of 6 MiB"
    );
}

#[test]
fn scenario_files_set_and_range_check_the_windows() {
    let sc = Scenario::from_toml(
        "preset = \"seed-100m\"\n[endpoint]\nflow_control = \"chrome\"\nstream_window = \"1MiB\"\n",
        "fc",
    )
    .expect("scenario");
    assert_eq!(
        sc.endpoint.flow_windows,
        Some(FlowWindows {
            stream: 1 << 20,
            connection: 15 << 20
        })
    );
    let tiny = Scenario::from_toml(
        "preset = \"seed-100m\"\n[endpoint]\nstream_window = \"100B\"\n",
        "fc",
    );
    let e = match tiny {
        Err(e) => e.to_string(),
        Ok(s) => s.validate().unwrap_err().to_string(),
    };
    assert!(e.contains("endpoint.stream_window"), "{e}");
    let e = Scenario::from_toml(
        "preset = \"seed-100m\"\n[endpoint]\nflow_control = \"firefox\"\n",
        "fc",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("endpoint.flow_control"), "{e}");
}

#[test]
fn population_users_table_sets_the_windows_and_is_invisible_when_off() {
    use ramp_sim::fleet::population_file::PopulationFile;
    let base = "[[region]]\nname = \"west-europe\"\n";
    let off = PopulationFile::parse(base, "p").unwrap();
    assert!(off.workload.users.is_off());
    assert!(!format!("{:?}", off.workload).contains("users"));
    let on =
        PopulationFile::parse(&format!("{base}[users]\nflow_control = \"chrome\"\n"), "p").unwrap();
    assert_eq!(on.workload.users.flow_windows, Some(FlowWindows::CHROME));
    assert!(format!("{:?}", on.workload).contains("users"));
    let e = PopulationFile::parse(&format!("{base}[users]\nflow_control = \"edge\"\n"), "p")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 4: users.flow_control"), "{e}");
}

// ---- 0-RTT resumption and anti-amplification (crate::resumption) ----

use ramp_sim::Resumption;

/// seed-100m (30 ms RTT, 15 ms each way) with `r`.
fn resumed(r: Resumption) -> Scenario {
    let mut sc = scenario("seed-100m");
    sc.size_bytes = 1_000_000;
    sc.endpoint.resumption = r;
    sc
}

/// Bytes the server sent before `t_us`.
fn server_bytes_before(t: &Traced, t_us_end: u64) -> u64 {
    t.events()
        .iter()
        .filter(|e| ev(e) == "sent" && t_us(e) < t_us_end)
        .map(|e| e["bytes"].as_u64().unwrap())
        .sum()
}

#[test]
fn rfc9000_8_1_server_sends_at_most_three_times_received_before_validation() {
    let t = run_traced(
        &resumed(Resumption::ZeroRtt { token: false }),
        "rapidstart",
        1,
    );
    assert!(t.record.completed);
    // The client's Initial (with the 0-RTT request, 1252 B) reaches the
    // server at 15 ms; its Finished, which validates the address, at 45 ms.
    let before = server_bytes_before(&t, 45_000);
    assert!(before <= 3 * 1252, "{before} B before validation");
    // The credit is used: the padded flight and two full data packets.
    assert_eq!(before, 3 * 1252);
    // Once validated the window's packets follow.
    assert!(server_bytes_before(&t, 60_000) > 10 * 1252);
}

#[test]
fn rfc9000_8_1_3_a_token_validates_the_address_at_the_first_initial() {
    let t = run_traced(
        &resumed(Resumption::ZeroRtt { token: true }),
        "rapidstart",
        1,
    );
    assert!(t.record.completed);
    assert!(server_bytes_before(&t, 45_000) > 3 * 1252);
}

#[test]
fn rfc9001_4_6_the_0rtt_request_leaves_with_the_first_flight() {
    let full = run(&resumed(Resumption::Full), "rapidstart", 1);
    let token = run(
        &resumed(Resumption::ZeroRtt { token: true }),
        "rapidstart",
        1,
    );
    let no_token = run(
        &resumed(Resumption::ZeroRtt { token: false }),
        "rapidstart",
        1,
    );
    assert!(full.completed && token.completed && no_token.completed);
    // The request reaches the server half an RTT after the client starts
    // instead of one and a half, so the first byte reaches the client one
    // RTT (30 ms) sooner.
    let first_byte = |r: &ramp_sim::Record| {
        if r.resumption.is_some() {
            r.ttfb_us
        } else {
            r.handshake_us + r.ttfb_us
        }
    };
    assert!(
        first_byte(&token) + 25_000 < first_byte(&full),
        "{} vs {}",
        first_byte(&token),
        first_byte(&full)
    );
    assert!(
        (30_000..40_000).contains(&token.ttfb_us),
        "{}",
        token.ttfb_us
    );
    // The last byte comes sooner too, but by much less than an RTT: the
    // 0.5-RTT data leaves before the server has an RTT sample, so the
    // pacer spreads the first window over RFC 9002's 333 ms initial RTT
    // until the first ACK arrives (docs/simulator.md).
    eprintln!(
        "client TTLB: full {} µs, 0-RTT with token {} µs, without {} µs",
        full.client_ttlb_us, token.client_ttlb_us, no_token.client_ttlb_us
    );
    assert!(token.client_ttlb_us < full.client_ttlb_us);
    assert!(no_token.client_ttlb_us <= full.client_ttlb_us + 1_000);
    assert_eq!(token.resumption, Some("0rtt-token"));
    assert!(token.to_json().contains("\"resumption\":\"0rtt-token\""));
    assert!(!full.to_json().contains("resumption"));
}

#[test]
fn rfc9000_14_1_client_initial_datagrams_are_padded_with_0rtt() {
    use ramp_cc::recovery::Space;
    let c = ramp_sim::internals::Client::new(
        ramp_sim::AckPolicy::Rfc9000,
        std::time::Duration::from_millis(25),
        false,
        1,
        1000,
        1200,
        1252,
    );
    assert_eq!(
        c.ack_bytes(Space::Initial),
        50,
        "the full handshake model is unchanged"
    );
    let c = c.with_zero_rtt(true);
    assert_eq!(c.ack_bytes(Space::Initial), 1252);
    assert_eq!(c.ack_bytes(Space::Handshake), 50);
}

#[test]
fn resumed_connections_complete_on_lossy_paths() {
    // Lost handshake and 0.5-RTT packets are recovered in every mode.
    for r in [
        Resumption::ZeroRtt { token: false },
        Resumption::ZeroRtt { token: true },
    ] {
        for seed in 1..=20 {
            let mut sc = resumed(r);
            sc.path.elements.loss = ramp_link::LossModel::Bernoulli { p: 0.1 };
            sc.size_bytes = 50_000;
            let rec = run(&sc, "cubic", seed);
            assert!(rec.completed, "{r:?} seed {seed}: {}", rec.to_json());
        }
    }
}

#[test]
fn population_resumed_share_draws_0rtt_without_moving_the_paths() {
    use ramp_sim::fleet::population_file::PopulationFile;
    use ramp_sim::fleet::FleetPlan;
    let base = "[[region]]\nname = \"west-europe\"\n";
    let plan = |text: &str| {
        let f = PopulationFile::parse(text, "p").unwrap();
        FleetPlan {
            name: f.name,
            population: f.population,
            workload: f.workload,
            arms: ramp_sim::fleet::parse_arms("a=newreno,b=cubic").unwrap(),
            connections: 400,
            seed: 1,
            base: ramp_sim::fleet::experiments::base_scenario().unwrap(),
        }
    };
    let off = plan(base);
    let on = plan(&format!(
        "{base}[users]\nresumed_share = 0.5\ntoken_share = 0.5\n"
    ));
    let (mut resumed, mut token) = (0, 0);
    for i in 0..400 {
        let (a, b) = (off.connection(i), on.connection(i));
        assert_eq!(a.scenario.path, b.scenario.path, "connection {i}");
        assert_eq!(a.scenario.size_bytes, b.scenario.size_bytes);
        assert_eq!(a.scenario.endpoint.resumption, Resumption::Full);
        match b.scenario.endpoint.resumption {
            Resumption::Full => {}
            Resumption::ZeroRtt { token: t } => {
                resumed += 1;
                token += usize::from(t);
            }
        }
    }
    assert!((160..240).contains(&resumed), "{resumed} of 400 resumed");
    assert!(
        (resumed / 4..resumed * 3 / 4).contains(&token),
        "{token} of {resumed}"
    );
    let e = PopulationFile::parse(&format!("{base}[users]\nresumed_share = 1.5\n"), "p")
        .unwrap_err()
        .to_string();
    assert!(e.contains("users.resumed_share: must lie in [0, 1]"), "{e}");
}

// ---- resume-jumpstart (RFC 9959 saved parameters, ramp_cc::resume) ----

#[test]
fn rfc9959_a_confirmed_saved_window_sizes_the_jump() {
    use ramp_cc::resume::SavedPath;
    let mut sc = resumed(Resumption::ZeroRtt { token: true });
    sc.size_bytes = 3_000_000;
    let plain = run(&sc, "jumpstart", 1);
    // The previous connection saw the path's 100 Mbit/s and 30 ms: a
    // saved window of 375 000 B, a jump of half that (150 packets, not 60).
    sc.endpoint.resume = Some(SavedPath {
        rate: ramp_cc::Rate::from_bits_per_sec(100_000_000),
        rtt: std::time::Duration::from_millis(30),
    });
    let resumed_jump = run(&sc, "jumpstart", 1);
    assert!(plain.completed && resumed_jump.completed);
    assert!(
        resumed_jump.cwnd_maximum >= 187_000,
        "{}",
        resumed_jump.cwnd_maximum
    );
    // The client has every byte sooner (the server's TTLB also carries
    // the client's delayed ACK of the last packet, which can hide it).
    assert!(
        resumed_jump.client_ttlb_us < plain.client_ttlb_us,
        "{} vs {}",
        resumed_jump.client_ttlb_us,
        plain.client_ttlb_us
    );
    // Controllers that do not jump ignore the saved window.
    let base = run(&sc, "newreno(iw=30)", 1);
    sc.endpoint.resume = None;
    assert_eq!(run(&sc, "newreno(iw=30)", 1), base);
}

#[test]
fn rfc9959_an_unconfirmed_rtt_falls_back_to_the_plain_jump() {
    use ramp_cc::resume::SavedPath;
    let mut sc = resumed(Resumption::ZeroRtt { token: true });
    sc.size_bytes = 3_000_000;
    let plain = run(&sc, "jumpstart", 1);
    // The RTT is about 30 ms now: a saved 400 ms fails `current ≥
    // saved/2`, a saved 2 ms fails `current < 10 × saved`.
    for saved_ms in [400, 2] {
        sc.endpoint.resume = Some(SavedPath {
            rate: ramp_cc::Rate::from_bits_per_sec(1_000_000_000),
            rtt: std::time::Duration::from_millis(saved_ms),
        });
        let r = run(&sc, "jumpstart", 1);
        assert_eq!(r.ttlb_us, plain.ttlb_us, "saved RTT {saved_ms} ms");
        assert_eq!(r.cwnd_maximum, plain.cwnd_maximum);
    }
}
