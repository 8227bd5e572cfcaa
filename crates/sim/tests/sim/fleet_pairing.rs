//! Paired design: every arm of a connection sees the same sampled path and
//! the same random-loss draws; a connection's path depends only on the run
//! seed and its index.

use ramp_sim::fleet::{experiments, parse_arms, FleetPlan};

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let k = format!("\"{key}\":");
    let at = line
        .find(&k)
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        + k.len();
    let rest = &line[at..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    &rest[..end]
}

/// The record's controller name (a JSON string with commas in it).
fn cc_name(line: &str) -> &str {
    let k = "\"cc.algorithm\":\"";
    let at = line.find(k).expect("cc.algorithm") + k.len();
    let rest = &line[at..];
    &rest[..rest.find('"').expect("closing quote")]
}

fn plan(arms: &str, n: u64) -> FleetPlan {
    let mut p = experiments::plan("rapid-start-2026", n, 7).unwrap();
    p.arms = parse_arms(arms).unwrap();
    p
}

#[test]
fn every_arm_sees_the_same_path() {
    let p = plan(
        &ramp_cc::spec::SEED_ARMS
            .map(|(l, s)| format!("{l}={s}"))
            .join(","),
        40,
    );
    const PATH_KEYS: [&str; 10] = [
        "seed",
        "content_length",
        "path.rate-bps",
        "path.rtt-ms",
        "path.queue-ms",
        "path.loss",
        "path.ack-policy",
        "pop",
        "access",
        "size-bin",
    ];
    for i in 0..40 {
        let lines = p.run_connection(i).unwrap();
        assert_eq!(lines.len(), 4);
        for l in &lines[1..] {
            for k in PATH_KEYS {
                assert_eq!(field(l, k), field(&lines[0], k), "connection {i}, key {k}");
            }
            assert_eq!(field(l, "conn"), i.to_string());
        }
    }
}

#[test]
fn identical_arms_get_identical_losses() {
    // Two arms with the same controller differ only in their label: the
    // random losses (and everything else) come from the path's seed.
    let p = plan("a=rapidstart(iw=30),b=rapidstart(iw=30)", 60);
    let mut lossy = 0;
    for i in 0..60 {
        let lines = p.run_connection(i).unwrap();
        let strip = |l: &str| {
            l.replace("\"group\":\"a\"", "")
                .replace("\"group\":\"b\"", "")
        };
        assert_eq!(strip(&lines[0]), strip(&lines[1]), "connection {i}");
        if field(&lines[0], "path.drops-random") != "0" {
            lossy += 1;
        }
    }
    assert!(
        lossy > 0,
        "the fixture should include paths with random losses"
    );
}

#[test]
fn a_connection_depends_only_on_seed_and_index() {
    let a = plan("x=newreno", 10);
    let mut b = plan("y=cubic,z=rapidstart", 1_000_000);
    assert_eq!(a.connection(5).scenario, b.connection(5).scenario);
    assert_eq!(a.connection(5).pop, b.connection(5).pop);
    b.seed = 8;
    assert_ne!(a.connection(5).scenario, b.connection(5).scenario);
    assert_ne!(a.connection(5).path_seed, a.connection(6).path_seed);
}

#[test]
fn population_covers_every_region_and_bin() {
    let p = plan("x=newreno", 2000);
    let mut pops = std::collections::BTreeSet::new();
    let mut bins = std::collections::BTreeSet::new();
    for i in 0..2000 {
        let c = p.connection(i);
        pops.insert(c.pop);
        bins.insert(c.bin);
    }
    assert_eq!(pops.len(), 7, "{pops:?}");
    assert_eq!(bins.len(), 4, "{bins:?}");
}

/// quicly draws per connection whether its CC respects the app-limited
/// state (`ramp_sim::fleet::app_limited`): every arm with quicly's rule runs
/// the connection's draw, so the arms stay paired; other arms run as
/// written.
#[test]
fn every_arm_of_a_connection_runs_its_servers_app_limited_draw() {
    use ramp_sim::fleet::assumptions::Param;
    let seed_arms = ramp_cc::spec::SEED_ARMS
        .map(|(l, s)| format!("{l}={s}"))
        .join(",");
    let mut p = plan(&format!("{seed_arms},rfc=newreno(iw=30)"), 60);
    Param::RespectAppLimitedShare.set(&mut p.population, 0.5);
    let mut quicly = 0;
    for i in 0..60 {
        let lines = p.run_connection(i).unwrap();
        let rule = |l: &str| {
            let cc = cc_name(l);
            ["quicly", "always"]
                .into_iter()
                .find(|r| cc.contains(&format!("cc_limited={r}")))
                .map(str::to_string)
        };
        let first = rule(&lines[0]).expect("the baseline runs quicly's rule");
        for l in &lines[1..4] {
            assert_eq!(rule(l).as_deref(), Some(first.as_str()), "connection {i}");
        }
        assert_eq!(rule(&lines[4]), None, "RFC 9002's arm runs as written");
        let want = ramp_sim::fleet::app_limited::connection_rule(0.5, p.connection(i).path_seed);
        assert_eq!(p.connection(i).cc_limited, Some(want));
        if first == "quicly" {
            quicly += 1;
        }
    }
    assert!((15..=45).contains(&quicly), "{quicly} of 60 respect it");
    // The ends: every connection alike, and the draw moves no other key.
    let at = |share: f64| {
        let mut q = p.clone();
        Param::RespectAppLimitedShare.set(&mut q.population, share);
        (0..20).map(|i| q.connection(i)).collect::<Vec<_>>()
    };
    let (none, all) = (at(0.0), at(1.0));
    for (a, b) in none.iter().zip(&all) {
        assert_eq!(
            a.cc_limited,
            Some(ramp_cc::loss_based::CcLimitedRule::Always)
        );
        assert_eq!(
            b.cc_limited,
            Some(ramp_cc::loss_based::CcLimitedRule::Quicly)
        );
        assert_eq!(a.scenario, b.scenario);
    }
}

/// At share 1 every connection runs the arms as written (quicly's rule):
/// the fleet's records are those of the model before the share existed.
#[test]
fn at_share_one_the_arms_run_as_written() {
    use ramp_sim::fleet::assumptions::Param;
    let seed_arms = ramp_cc::spec::SEED_ARMS
        .map(|(l, s)| format!("{l}={s}"))
        .join(",");
    let always = seed_arms.replace("cc_limited=quicly", "cc_limited=always");
    let mut p = plan(&seed_arms, 12);
    let mut q = plan(&always, 12);
    // Share 0 runs `always` whatever the arms say ...
    for i in 0..12 {
        assert_eq!(p.run_connection(i).unwrap(), q.run_connection(i).unwrap());
    }
    // ... and share 1 `quicly`.
    Param::RespectAppLimitedShare.set(&mut p.population, 1.0);
    Param::RespectAppLimitedShare.set(&mut q.population, 1.0);
    for i in 0..12 {
        let lines = p.run_connection(i).unwrap();
        assert_eq!(lines, q.run_connection(i).unwrap());
        assert!(cc_name(&lines[0]).contains("cc_limited=quicly"));
    }
}

/// A share of objects are video segments whose size is the rung dash.js's
/// throughput rule picks at the path's rate times the HLS target duration
/// (`ramp_sim::fleet::video`): each arm of a connection fetches the same
/// object, a segment only where it fits the workload's sizes, and the
/// draw moves nothing else.
#[test]
fn video_segments_follow_the_ladder_at_the_paths_rate_in_every_arm() {
    use ramp_sim::fleet::assumptions::Param;
    use ramp_sim::fleet::video;
    let seed_arms = ramp_cc::spec::SEED_ARMS
        .map(|(l, s)| format!("{l}={s}"))
        .join(",");
    let n = 400;
    let base = plan(&seed_arms, n);
    let mut all = base.clone();
    Param::VideoShare.set(&mut all.population, 1.0);
    let (mut segments, mut kept) = (0, 0);
    for i in 0..n {
        let (a, b) = (base.connection(i), all.connection(i));
        let rate = b.scenario.path.rate.bits_per_sec();
        let seg = video::segment_bytes(rate);
        if (200_000..3_200_000).contains(&seg) {
            assert_eq!(b.scenario.size_bytes, seg, "connection {i} at {rate} bit/s");
            assert_eq!(b.bin, ramp_sim::fleet::Workload::seed().bin_of(seg));
            segments += 1;
        } else {
            // Outside the workload's sizes: the drawn object stays.
            assert_eq!(b.scenario.size_bytes, a.scenario.size_bytes, "{i}");
            kept += 1;
        }
        // Nothing but the object moves.
        let mut same = b.scenario.clone();
        same.size_bytes = a.scenario.size_bytes;
        assert_eq!(same, a.scenario, "connection {i}");
        assert_eq!((b.pop.as_str(), b.access), (a.pop.as_str(), a.access));
    }
    assert!(segments > 0 && kept > 0, "{segments} segments, {kept} kept");
    // Every arm of a connection fetches the same object.
    let mut half = base.clone();
    Param::VideoShare.set(&mut half.population, 0.5);
    for i in 0..24 {
        let lines = half.run_connection(i).unwrap();
        let want = half.connection(i).scenario.size_bytes.to_string();
        for l in &lines {
            assert_eq!(field(l, "content_length"), want, "connection {i}");
        }
    }
    // Share 0 is the model without segments, connection for connection.
    let mut zero = base.clone();
    Param::VideoShare.set(&mut zero.population, 0.0);
    for i in 0..n {
        assert_eq!(zero.connection(i), base.connection(i));
    }
}
