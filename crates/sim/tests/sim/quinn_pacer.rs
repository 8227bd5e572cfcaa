//! The quinn pacer model against what real quinn was measured to do with
//! Rapid Start's first flight (docs/real-mode.md): two 10-packet bursts about
//! 0.4 RTT apart, not one 20-packet burst.

use crate::common;

use std::collections::BTreeMap;

use common::run_traced;
use ramp_sim::Scenario;

/// Send times (µs) of the application-space packets, in order.
fn app_send_times(pacer: &str) -> Vec<u64> {
    let toml = format!(
        "[path]\nrate = \"100mbit\"\nrtt = \"40ms\"\nqueue = \"40ms\"\n\
         [endpoint]\niw = 10\nmds = 1200\npacer = \"{pacer}\"\n"
    );
    let sc = Scenario::from_toml(&toml, "quinn-pacer").expect("scenario");
    let traced = run_traced(&sc, "rapidstart", 1);
    let text = String::from_utf8(traced.trace).expect("utf8");
    text.lines()
        .filter(|l| l.contains("\"ev\":\"sent\"") && l.contains("\"offset\""))
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            v["t-us"].as_u64()
        })
        .collect()
}

#[test]
fn quinn_pacer_sends_rapid_start_first_flight_as_two_bursts() {
    let times = app_send_times("quinn");
    let mut bursts: BTreeMap<u64, usize> = BTreeMap::new();
    for t in times.iter().take(20) {
        *bursts.entry(*t).or_default() += 1;
    }
    let sizes: Vec<usize> = bursts.values().copied().collect();
    assert_eq!(
        sizes[0], 10,
        "first burst is quinn's 10-packet minimum capacity: {bursts:?}"
    );
    assert!(
        sizes[1] >= 9,
        "second burst refills a whole bucket: {bursts:?}"
    );
    let first: Vec<u64> = bursts.keys().copied().collect();
    let gap_us = first[1] - first[0];
    // 0.8 x (srtt x capacity / window) = 0.8 x 40 ms x 12000 / 24000 = 16 ms.
    assert!((15_000..=17_000).contains(&gap_us), "gap {gap_us} us");
}

#[test]
fn leaky_bucket_spreads_the_same_flight() {
    let times = app_send_times("leaky");
    let mut distinct = times.iter().take(20).collect::<Vec<_>>();
    distinct.dedup();
    assert!(
        distinct.len() > 5,
        "ramp's own pacer spreads the first flight: {times:?}"
    );
}
