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
