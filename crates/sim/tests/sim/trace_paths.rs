//! Trace-driven links (Mahimahi's format) and Wi-Fi delay variation end
//! to end: a trace of one opportunity per millisecond runs as a 12 Mbit/s
//! link; a bursty trace is deterministic and loses its idle
//! opportunities; jitter adds delay, never reorders, and is seeded.

use std::sync::Arc;
use std::time::Duration;

use ramp_link::DeliveryTrace;

use crate::common::*;

fn on_trace(text: &str) -> ramp_sim::Scenario {
    let mut sc = scenario("seed-100m");
    let t = DeliveryTrace::parse(text, "t.trace").expect("trace");
    sc.path.rate = t.mean_rate();
    sc.path.trace = Some(Arc::new(t));
    sc.path.forward_delay = Duration::from_millis(20);
    sc.path.reverse_delay = Duration::from_millis(20);
    sc.path.queue = ramp_sim::scenario::QueueLimit::Time(Duration::from_millis(200));
    sc.size_bytes = 1_000_000;
    sc
}

#[test]
fn a_trace_of_one_opportunity_per_ms_runs_as_a_12_mbit_link() {
    let trace: String = (1..=1000).map(|i| format!("{i}\n")).collect();
    let traced = run(&on_trace(&trace), "newreno", 1);
    let mut constant = on_trace(&trace);
    constant.path.trace = None;
    let flat = run(&constant, "newreno", 1);
    assert!(traced.completed && flat.completed);
    assert_eq!(traced.path_rate_bps, 12_000_000);
    // The same bytes per second, delivered at whole milliseconds: the
    // transfer times agree within a few per cent.
    let r = traced.ttlb_us as f64 / flat.ttlb_us as f64;
    assert!(
        (0.95..1.05).contains(&r),
        "trace {} vs constant {}",
        traced.ttlb_us,
        flat.ttlb_us
    );
}

#[test]
fn a_trace_run_is_deterministic_and_idle_opportunities_are_lost() {
    // 8 opportunities in a burst every 8 ms (12 Mbit/s on average).
    let trace: String = (1..=125)
        .flat_map(|i| std::iter::repeat_n(format!("{}\n", 8 * i), 8))
        .collect();
    let sc = on_trace(&trace);
    let a = run(&sc, "cubic", 3);
    let b = run(&sc, "cubic", 3);
    assert_eq!(a.to_json(), b.to_json());
    assert!(a.completed);
    // 1 MB at 12 Mbit/s takes at least 667 ms plus the handshake.
    assert!(a.ttlb_us > 667_000 + 40_000, "{}", a.ttlb_us);
}

#[test]
fn wifi_jitter_delays_without_reordering_and_is_seeded() {
    let base = "size = \"1MB\"\n[path]\nrate = \"50mbit\"\nrtt = \"20ms\"\nqueue = \"50ms\"\n";
    let plain = ramp_sim::Scenario::from_toml(base, "plain").unwrap();
    let jit = ramp_sim::Scenario::from_toml(
        &format!("{base}[path.jitter]\nmedian = \"3ms\"\np90 = \"20ms\"\n"),
        "jitter",
    )
    .unwrap();
    let (a, b) = (run(&jit, "cubic", 4), run(&jit, "cubic", 4));
    assert_eq!(a.to_json(), b.to_json());
    let p = run(&plain, "cubic", 4);
    assert!(a.completed && p.completed);
    // Extra delay on every packet: a larger minimum RTT and a longer
    // transfer; no reordering, so no packet is declared lost by reordering
    // (nothing is dropped on this 50 ms buffer without jitter either).
    assert!(
        a.rtt_min_us > p.rtt_min_us,
        "{} vs {}",
        a.rtt_min_us,
        p.rtt_min_us
    );
    assert!(a.ttlb_us > p.ttlb_us);
    assert_eq!(a.packets_lost_spurious, 0, "{}", a.to_json());
    let bad = ramp_sim::Scenario::from_toml(
        &format!("{base}[path.jitter]\nmedian = \"30ms\"\np90 = \"20ms\"\n"),
        "bad",
    );
    let msg = bad.map(|_| ()).unwrap_err().to_string();
    assert!(msg.contains("path.jitter"), "{msg}");
}

#[test]
fn a_population_file_turns_wifi_jitter_on_for_wifi_paths_only() {
    let text = "[[region]]\nname = \"west-europe\"\n[paths]\nwifi_jitter = true\n";
    let f = ramp_sim::fleet::population_file::PopulationFile::parse(text, "j").unwrap();
    let ramp_sim::fleet::Population::Regions(rs) = &f.population else {
        panic!("regions")
    };
    let mut rng = ramp_vocab::rng::Rng::from_u64(3);
    for _ in 0..300 {
        let p = rs[0].sample(&mut rng);
        assert_eq!(
            p.jitter.is_some(),
            p.access == ramp_sim::fleet::Access::Wifi,
            "{p:?}"
        );
    }
}

#[test]
fn a_population_file_reads_wifi_jitter_keys_through_the_element_table() {
    use ramp_sim::fleet::population_file::PopulationFile;
    let model = |value: &str| {
        let text = format!("[[region]]\nname = \"west-europe\"\n[paths]\nwifi_jitter = {value}\n");
        PopulationFile::parse(&text, "j").map(|f| match f.population {
            ramp_sim::fleet::Population::Regions(rs) => rs[0].paths.wifi_jitter,
            ramp_sim::fleet::Population::Grid(_) => panic!("regions"),
        })
    };
    // The boolean form reads as before: on is WiFiSeer's defaults.
    assert_eq!(
        model("true").unwrap(),
        Some(ramp_link::Jitter::WIFI_SUI_2016)
    );
    assert_eq!(model("false").unwrap(), None);
    // A spec: keys over the defaults, as `--wifi-jitter=…` takes them.
    assert_eq!(
        model("\"p90=15ms\"").unwrap(),
        Some(ramp_link::Jitter {
            median: std::time::Duration::from_millis(3),
            p90: std::time::Duration::from_millis(15),
        })
    );
    assert_eq!(
        model("\"\"").unwrap(),
        Some(ramp_link::Jitter::WIFI_SUI_2016)
    );
    let e = model("\"p90=2s\"").unwrap_err().to_string();
    assert!(
        e.contains("line 4: paths.wifi_jitter: p90: need 0 < median"),
        "{e}"
    );
    let e = model("\"delay=1ms\"").unwrap_err().to_string();
    assert!(
        e.contains("wifi_jitter: delay: unknown key (keys: median, p90)"),
        "{e}"
    );
}

#[test]
fn a_cellular_link_slows_a_short_transfer_more_than_a_long_one_and_is_seeded() {
    // CellReplay's mechanism: the first 280 KB of a burst after idle go at
    // half the rate. A 200 KB object lies wholly in that phase; a 4 MB one
    // mostly after it.
    let base = "[path]\nrate = \"20mbit\"\nrtt = \"40ms\"\nqueue = \"200ms\"\n";
    let ttlb = |size: &str, cellular: bool| {
        let text = format!(
            "size = \"{size}\"\n{base}{}",
            if cellular {
                "[path.cellular]\ndrift_mean = 0\n"
            } else {
                ""
            }
        );
        let sc = ramp_sim::Scenario::from_toml(&text, "cell").unwrap();
        let r = run(&sc, "cubic", 1);
        assert!(r.completed);
        r.ttlb_us as f64
    };
    let short = ttlb("200KB", true) / ttlb("200KB", false);
    let long = ttlb("4MB", true) / ttlb("4MB", false);
    assert!(
        short > long && long > 1.0,
        "short ×{short:.3}, long ×{long:.3}"
    );
    // With the drift on, runs are seeded and the RTT grows.
    let drift =
        ramp_sim::Scenario::from_toml(&format!("size = \"1MB\"\n{base}[path.cellular]\n"), "drift")
            .unwrap();
    let (a, b) = (run(&drift, "cubic", 5), run(&drift, "cubic", 5));
    assert_eq!(a.to_json(), b.to_json());
    assert_eq!(a.packets_lost_spurious, 0, "{}", a.to_json());
    // Each refusal names the key and the line of its value (line 7: after
    // the four lines of `base`, the table's and one good key's).
    for (bad, key) in [
        ("light_fraction = 0", "path.cellular.light_fraction"),
        ("drift_mean = 2", "path.cellular.drift_mean"),
        ("idle_reset = \"soon\"", "path.cellular.idle_reset"),
        ("nonsense = 1", "path.cellular.nonsense: unknown key"),
    ] {
        let text = format!("{base}[path.cellular]\nlight_bytes = \"100KB\"\n{bad}\n");
        let e = ramp_sim::Scenario::from_toml(&text, "bad")
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains(key) && e.contains("line 7"), "{e}");
    }
}

#[test]
fn a_population_file_reads_the_cellular_key_through_the_element_table() {
    use ramp_sim::fleet::population_file::PopulationFile;
    let model = |value: &str| {
        let text = format!("[[region]]\nname = \"africa\"\n[paths]\ncellular = {value}\n");
        PopulationFile::parse(&text, "c").map(|f| match f.population {
            ramp_sim::fleet::Population::Regions(rs) => rs.into_iter().next().unwrap(),
            ramp_sim::fleet::Population::Grid(_) => panic!("regions"),
        })
    };
    let cellreplay = Some(ramp_link::Cellular::CELLREPLAY);
    // Left out or `true`: CellReplay's defaults, as before the key.
    assert_eq!(model("true").unwrap().paths.cellular, cellreplay);
    let none = PopulationFile::parse("[[region]]\nname = \"africa\"\n", "c").unwrap();
    match none.population {
        ramp_sim::fleet::Population::Regions(rs) => assert_eq!(rs[0].paths.cellular, cellreplay),
        ramp_sim::fleet::Population::Grid(_) => panic!("regions"),
    }
    // A spec: keys over the defaults, as `--cellular=…` takes them; the
    // mobile paths get that link, and no other draw moves.
    let spec = model("\"drift_mean=0.05,light_bytes=100KB\"").unwrap();
    let want =
        ramp_link::parse_spec::<ramp_link::Cellular>("drift_mean=0.05,light_bytes=100KB").unwrap();
    assert_eq!(spec.paths.cellular, Some(want));
    let (mut r1, mut r2) = (
        ramp_vocab::rng::Rng::from_u64(9),
        ramp_vocab::rng::Rng::from_u64(9),
    );
    let on = model("true").unwrap();
    let mut mobile = 0;
    for seed in 0..200u64 {
        let mut a = on.sample(&mut r1);
        let mut b = spec.sample(&mut r2);
        on.cellular_links(&mut a, seed);
        spec.cellular_links(&mut b, seed);
        assert_eq!((a.rate, a.rtt, a.access), (b.rate, b.rtt, b.access));
        assert_eq!(a.cellular.is_some(), b.cellular.is_some());
        if let Some(c) = b.cellular {
            assert_eq!(c, want);
            mobile += 1;
        }
    }
    assert!(mobile > 20, "{mobile} cellular paths of 200 in Africa");
    // `false`: no mobile path is cellular.
    let off = model("false").unwrap();
    let mut p = off.sample(&mut ramp_vocab::rng::Rng::from_u64(1));
    off.cellular_links(&mut p, 1);
    assert_eq!((off.paths.cellular, p.cellular), (None, None));
    // Refusals name the line and the key, in the table's words.
    let e = model("\"light_fraction=0\"").unwrap_err().to_string();
    assert!(
        e.contains("line 4: paths.cellular: light_fraction: must lie in (0, 1]"),
        "{e}"
    );
}

#[test]
fn a_population_file_makes_mobile_paths_cellular_without_moving_other_draws() {
    let parse = |extra: &str| {
        let text = format!("[[region]]\nname = \"africa\"\n[paths]\n{extra}");
        let f = ramp_sim::fleet::population_file::PopulationFile::parse(&text, "c").unwrap();
        let ramp_sim::fleet::Population::Regions(rs) = f.population else {
            panic!("regions")
        };
        rs.into_iter().next().unwrap()
    };
    let (off, on) = (parse(""), parse("cellular_share = 1.0\n"));
    let (mut r1, mut r2) = (
        ramp_vocab::rng::Rng::from_u64(9),
        ramp_vocab::rng::Rng::from_u64(9),
    );
    let mut cellular = 0;
    for seed in 0..400u64 {
        let a = off.sample(&mut r1);
        let mut b = on.sample(&mut r2);
        on.cellular_links(&mut b, seed);
        assert_eq!((a.rate, a.rtt, a.access), (b.rate, b.rtt, b.access));
        assert_eq!(
            b.cellular.is_some(),
            b.access == ramp_sim::fleet::Access::Mobile
        );
        cellular += usize::from(b.cellular.is_some());
    }
    assert!(cellular > 100, "{cellular} cellular paths of 400 in Africa");
    let e = ramp_sim::fleet::population_file::PopulationFile::parse(
        "[[region]]\nname = \"africa\"\n[paths]\ntrace_share = 0.5\n",
        "t",
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(e.contains("trace_share"), "{e}");
}
