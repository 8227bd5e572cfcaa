//! The Rapid Start slides' simulator figures (IETF 125 slides and the step-by-step talk),
//! reproduced on ramp-sim with the real ramp-cc controllers.

use crate::common;

use common::*;

/// Packet size on the wire (docs/simulator.md): 1252-byte datagrams.
const PKT: u64 = 1252;

#[test]
fn vdsl_iw30_slow_start_sends_30_60_120_240_and_fills_the_link_in_round_4() {
    let sc = scenario("vdsl");
    let t = run_traced(&sc, "newreno(iw=30)", 1);
    let r = rounds(&t.events());
    let counts: Vec<usize> = r.iter().take(4).map(|x| x.len()).collect();
    assert_eq!(counts, [30, 60, 120, 240]);
    // Idle BDP = 55 Mbit/s x 39 ms = 268,125 bytes = 214 packets of 1252 B
    // (the talk: "209 packets" of 1280 B). Round 3 sends less than the
    // link carries in a round trip, round 4 more: the first to fill it.
    let bdp = sc.path.rate.bytes_per_sec() * 39 / 1000;
    let bytes = |k: usize| r[k].len() as u64 * PKT;
    assert!(bytes(2) < bdp, "round 3: {} >= {bdp}", bytes(2));
    assert!(bytes(3) >= bdp, "round 4: {} < {bdp}", bytes(3));
    // The link was never busy a whole round before round 4: the queue seen
    // by packets of rounds 1-3 stays under one round trip's worth (it only
    // holds a pacing burst), and grows beyond it in round 4 or later.
    let evs = t.events();
    let round4_start = r[3][0];
    let max_q_before = evs
        .iter()
        .filter(|e| ev(e) == "queue" && t_us(e) < round4_start)
        .map(|e| e["bytes"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(
        max_q_before < bdp / 2,
        "queue before round 4: {max_q_before}"
    );
}

#[test]
fn vdsl_rapid_start_grows_3x_per_round_from_a_2iw_first_flight() {
    let sc = scenario("vdsl");
    let t = run_traced(&sc, "rapidstart(iw=30)", 1);
    let counts: Vec<usize> = rounds(&t.events())
        .iter()
        .take(3)
        .map(|x| x.len())
        .collect();
    assert_eq!(counts, [60, 180, 540]);
}

/// The first period in `state`: (start µs, end µs, cwnd on leaving it,
/// cwnd and bytes in flight just before entering it).
fn period(events: &[serde_json::Value], state: &str) -> Option<(u64, u64, u64, u64, u64)> {
    let mut start = None;
    let mut prev = (0, 0);
    for e in events.iter().filter(|e| ev(e) == "cc") {
        let s = e["state"].as_str().unwrap();
        let cwnd = e["cwnd"].as_u64().unwrap();
        match start {
            None if s == state => start = Some((t_us(e), prev.0, prev.1)),
            Some((st, c0, i0)) if s != state => return Some((st, t_us(e), cwnd, c0, i0)),
            _ => {}
        }
        prev = (cwnd, e["inflight"].as_u64().unwrap());
    }
    None
}

/// When the first recovery period ends and when the next one starts (µs).
fn second_recovery(events: &[serde_json::Value]) -> Option<(u64, u64)> {
    let (_, first_end, _, _, _) = period(events, "recovery")?;
    let second = events
        .iter()
        .filter(|e| ev(e) == "cc" && t_us(e) > first_end)
        .find(|e| e["state"] == "recovery")
        .map(t_us)?;
    Some((first_end, second))
}

fn acked_bytes_between(events: &[serde_json::Value], from: u64, to: u64) -> u64 {
    events
        .iter()
        .filter(|e| ev(e) == "acked" && t_us(e) >= from && t_us(e) < to)
        .map(|e| e["bytes"].as_u64().unwrap())
        .sum()
}

/// The draft's landing rule: cwnd at recovery exit = β x bytes acknowledged
/// during recovery. Checked with an object large enough that the sender is
/// still window-limited when the loss is detected (10 MB); see the next
/// test for 3 MB.
#[test]
fn seed_100m_rapid_start_one_recovery_landing_at_beta_times_bytes_acked() {
    let mut sc = scenario("seed-100m");
    sc.size_bytes = 10_000_000;
    for (cc, beta) in [
        ("rapidstart(iw=30)", 0.5),
        ("rapidstart(iw=30,beta=0.7)", 0.7),
    ] {
        let t = run_traced(&sc, cc, 1);
        assert!(t.record.completed);
        assert_eq!(t.record.num_loss_episodes, 1, "{cc}");
        let evs = t.events();
        let (start, end, cwnd_exit, _, _) = period(&evs, "rapid_start_recovery").unwrap();
        let acked = acked_bytes_between(&evs, start, end);
        let target = beta * acked as f64;
        let err = (cwnd_exit as f64 - target).abs() / target;
        assert!(
            err < 0.10,
            "{cc}: cwnd at exit {cwnd_exit}, beta x acked {target:.0} ({:.1}% off)",
            err * 100.0
        );
        // Bytes acknowledged during recovery approximate the full BDP
        // (idle BDP + queue = 750 kB), the draft's assumption.
        assert!((650_000..=850_000).contains(&acked), "{cc}: acked {acked}");
    }
}

/// With the 3 MB object of the figure, the sender has sent its last new
/// byte just before the loss is detected: bytes in flight are 52 kB below
/// the window at recovery entry. Scaling the window (`pre=cwnd`) breaks the
/// draft's premise (window = bytes acked + lost during recovery), and the
/// exit lands 13% above β x bytes acked — exactly by silence_factor x
/// (cwnd - bytes in flight). Scaling `min(cwnd, flight)` (`pre=flight`,
/// docs/algorithms.md ambiguity #35) lands on β x acked.
#[test]
fn seed_100m_rapid_start_3mb_lands_at_beta_times_acked_when_scaling_the_flight() {
    let sc = scenario("seed-100m");
    for (cc, shortfall_survives) in [
        ("rapidstart(iw=30,pre=flight)", false),
        ("rapidstart(iw=30)", true),
    ] {
        let t = run_traced(&sc, cc, 1);
        assert_eq!(t.record.num_loss_episodes, 1, "{cc}");
        let evs = t.events();
        let (start, end, cwnd_exit, cwnd0, inflight0) =
            period(&evs, "rapid_start_recovery").unwrap();
        let acked = acked_bytes_between(&evs, start, end) as f64;
        let shortfall = (cwnd0 - inflight0) as f64;
        assert!(shortfall > 40_000.0, "{cc}: shortfall {shortfall}");
        let predicted = if shortfall_survives {
            0.5 * acked + 5.0 / 6.0 * shortfall
        } else {
            0.5 * acked
        };
        assert!(
            (cwnd_exit as f64 - predicted).abs() / predicted < 0.01,
            "{cc}: exit {cwnd_exit} vs predicted {predicted:.0}"
        );
        // The response ends inside the recovery, so fewer bytes than the
        // full BDP (750 kB) are acknowledged in it (≈ 703 kB): the landing
        // sits 6.3% below β x full BDP with the flight, 6% above without.
        let off_full_bdp = (cwnd_exit as f64 - 375_000.0).abs() / 375_000.0;
        assert!(
            off_full_bdp < 0.07,
            "{cc}: {:.1}% from beta x full BDP",
            off_full_bdp * 100.0
        );
    }
}

/// Paced slow start (NewReno, β = 0.5) on seed-100m has ONE recovery
/// episode in our model, where the slides show a second one almost at once.
/// The slides' simulator is quicly, whose Reno uses β = 0.7
/// (`QUICLY_RENO_BETA`); with β = 0.7 we too see the second recovery ~40 ms
/// after the first ends. See docs/simulator.md, "Deviations".
#[test]
fn seed_100m_paced_slow_start_recovery_episodes() {
    let sc = scenario("seed-100m");
    let half = run(&sc, "newreno(iw=30)", 1);
    assert_eq!(half.num_loss_episodes, 1);
    let quicly_beta = run_traced(&sc, "newreno(iw=30,beta=0.7)", 1);
    assert_eq!(quicly_beta.record.num_loss_episodes, 2);
    let evs = quicly_beta.events();
    let (first_end, second) = second_recovery(&evs).unwrap();
    // "Almost immediately": within two round trips of leaving the first.
    assert!(
        second - first_end < 60_000,
        "second recovery {} µs later",
        second - first_end
    );
}

/// On the talk's VDSL path, paced slow start with β = 0.5 does enter a
/// second recovery soon after the first (the talk's chart), while Rapid
/// Start recovers once: halving lands a hair above the full BDP there.
#[test]
fn vdsl_paced_slow_start_enters_a_second_recovery_rapid_start_one() {
    let sc = scenario("vdsl");
    let ss = run_traced(&sc, "newreno(iw=30)", 1);
    assert_eq!(ss.record.num_loss_episodes, 2);
    let evs = ss.events();
    let (first_end, second) = second_recovery(&evs).unwrap();
    assert!(
        second - first_end < 4 * 39_000,
        "second recovery {} µs later",
        second - first_end
    );
    assert_eq!(run(&sc, "rapidstart(iw=30)", 1).num_loss_episodes, 1);
}

#[test]
fn seed_100m_rapid_start_ttlb_beats_paced_slow_start_for_3mb() {
    let sc = scenario("seed-100m");
    assert_eq!(sc.size_bytes, 3_000_000);
    let ss = run(&sc, "newreno(iw=30)", 1);
    let rs = run(&sc, "rapidstart(iw=30)", 1);
    assert!(ss.completed && rs.completed);
    assert!(
        rs.ttlb_us < ss.ttlb_us,
        "rapidstart {} µs vs slow start {} µs",
        rs.ttlb_us,
        ss.ttlb_us
    );
    // The slides: Rapid Start loses more packets in its one recovery.
    assert!(rs.packets_lost > ss.packets_lost);
}

/// Largest gap (µs) between consecutive 1-RTT sends from the first response
/// packet up to the first packet of round 2.
fn round1_max_gap(t: &Traced) -> (u64, u64) {
    let evs = t.events();
    let r = rounds(&evs);
    let mut times = r[0].clone();
    times.push(r[1][0]);
    let gap = times.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    (gap, r[1][0] - r[0][0])
}

#[test]
fn rapid_start_02_3_1_first_flight_is_paced_over_the_rtt_unless_an_initial_burst_is_set() {
    let sc = scenario("seed-100m");
    let rtt_us = 30_000;
    let (gap_rs, span_rs) = round1_max_gap(&run_traced(&sc, "rapidstart(iw=30)", 1));
    let (gap_ss, _) = round1_max_gap(&run_traced(&sc, "newreno(iw=30)", 1));
    // Paced slow start sends its IW in under half an RTT, then idles.
    assert!(gap_ss > rtt_us * 4 / 10, "slow start gap {gap_ss}");
    // Rapid Start's 2xIW first flight is paced across the round trip from
    // its first packet (the endpoints' default, as real mode sends it).
    assert!(gap_rs < rtt_us / 20, "rapid start gap {gap_rs}");
    assert!(span_rs >= rtt_us, "round 1 lasted {span_rs}");
    // With Google QUIC's 10-packet initial burst the rest is paced, and
    // the burst comes back as spare time at the end (10 of 60 packets,
    // 1/6 RTT).
    let mut sc10 = sc.clone();
    sc10.endpoint.pacer = ramp_cc::pacer::PacerKind::LeakyBucket(ramp_cc::pacer::PacerConfig {
        initial_burst_packets: ramp_cc::pacer::INITIAL_BURST_PACKETS,
        max_datagram_size: 1252,
        ..ramp_cc::pacer::PacerConfig::default()
    });
    let (gap10, _) = round1_max_gap(&run_traced(&sc10, "rapidstart(iw=30)", 1));
    assert!(
        (rtt_us / 10..rtt_us / 5).contains(&gap10),
        "10-packet burst gap {gap10}"
    );
}
