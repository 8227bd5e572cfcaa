//! The wide differential against quicly's simulator (docs/simulator.md,
//! "ramp vs quicly: the grid"): 60 paths (5–100 Mbit/s, 20–200 ms, drop-tail
//! queues of 0.5–2 BDP) x 1 MB and 3 MB x the four seed arms, quicly's
//! figures in `data/quicly/grid.tsv` (quicly 45bf8a37, the production
//! experiment's commit), each row with the command that made it. ramp's
//! path is read off that command, so the two sides cannot drift apart.
//!
//! Conventions as in `quicly_differential.rs`: quicly's path (all delay on
//! the data path, an instantaneous ACK path, 1280-byte packets), ramp's
//! `client-ttlb-us`, the `SEED_ARMS`. Windows are counted as quicly counts
//! them: IW 30 and jump 60 of 1472-byte units (44,160 B and 88,320 B, what
//! `quicly_cc_calc_initial_cwnd` gives h2o's default payload size), and let
//! packets out as quicly's sender does (`send_rule=quicly`: while bytes in
//! flight are below the window), so IW 30 sends 35 packets of 1280 B.
//!
//! quicly's stream is unbounded and ramp's response is not: on deep
//! buffers the data quicly sends past `size_bytes` overflows the queue and
//! the losses land inside the first `size_bytes`. Every cell outside 10 %
//! is therefore run a second time with ramp sending 4x the size and timed
//! at the moment its client holds `size_bytes` (as quicly's figure is);
//! the cell is explained by that mechanism when this lands within 10 %.
//! The few cells it does not explain are listed in [`OPEN`] with the bound
//! they have (docs/simulator.md, "ramp vs quicly: the grid").
//!
//! The whole grid runs in a few seconds, so the default test runs all of it.

use ramp_cc::spec::SEED_ARMS;
use ramp_sim::{run_connection, Scenario, TraceSink};

/// quicly's window unit: min(max_udp_payload_size, 1472) with h2o's and
/// the simulator's default payload size (lib/cc-reno.c at 45bf8a37).
const QUICLY_WINDOW_UNIT: u64 = 1472;
/// The packet size on quicly's simulated wire.
const WIRE_PACKET: u64 = 1280;

/// Cells outside 10 % that the unbounded-stream rerun does not bring
/// within 10 %, with the ramp/quicly ratio range they have today:
/// (scenario, arm, size, lo, hi). docs/simulator.md says what is known of
/// them; they are open, not explained. None since the seed arms send as
/// quicly's sender does (`send_rule=quicly`).
const OPEN: &[(&str, &str, u64, f64, f64)] = &[];

struct Cell {
    scenario: String,
    arm: String,
    size: u64,
    quicly_ms: f64,
    /// `-b` bytes/s, `-d` s, `-q` s.
    rate_bytes: u64,
    delay_s: f64,
    queue_s: f64,
}

fn flag(cmd: &str, name: &str) -> f64 {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let i = words
        .iter()
        .position(|w| *w == name)
        .unwrap_or_else(|| panic!("{cmd}: no {name}"));
    words[i + 1].parse().unwrap()
}

fn cells() -> Vec<Cell> {
    include_str!("data/quicly/grid.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("scenario\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "malformed row: {l}");
            Cell {
                scenario: f[0].to_string(),
                arm: f[1].to_string(),
                size: f[2].parse().unwrap(),
                quicly_ms: f[3].parse().unwrap(),
                rate_bytes: flag(f[4], "-b") as u64,
                delay_s: flag(f[4], "-d"),
                queue_s: flag(f[4], "-q"),
            }
        })
        .collect()
}

fn scenario(c: &Cell) -> Scenario {
    let toml = format!(
        "size = \"{}B\"\n\
         [path]\nrate = \"{}bit\"\nforward_delay = \"{}us\"\n\
         reverse_delay = \"0ms\"\nqueue = \"{}us\"\n\
         [endpoint]\nmds = {WIRE_PACKET}\niw = 30\njump_window = 60\n",
        c.size,
        c.rate_bytes * 8,
        (c.delay_s * 1e6).round() as u64,
        (c.queue_s * 1e6).round() as u64,
    );
    Scenario::from_toml(&toml, &c.scenario).unwrap()
}

fn spec(c: &Cell) -> ramp_cc::spec::ControllerSpec {
    let (_, name) = SEED_ARMS
        .iter()
        .find(|(label, _)| *label == c.arm)
        .unwrap_or_else(|| panic!("unknown arm {}", c.arm));
    ramp_cc::spec::parse(name).unwrap()
}

fn ramp_ms(c: &Cell) -> f64 {
    let rec = run_connection(&scenario(c), &spec(c), 1, &mut TraceSink::off()).unwrap();
    rec.client_ttlb_us as f64 / 1000.0
}

/// ramp's time to `size` bytes at the client when it sends 4x `size`, as
/// quicly's unbounded stream keeps sending past it: the first `delivered`
/// trace event that reaches `size`, ms from connection start.
fn ramp_unbounded_ms(c: &Cell) -> f64 {
    let mut sc = scenario(c);
    sc.size_bytes = 4 * c.size;
    let t = crate::common::Shared::default();
    let mut sink = TraceSink::off().with_ndjson(Box::new(t.clone()));
    run_connection(&sc, &spec(c), 1, &mut sink).unwrap();
    sink.finish().unwrap();
    let text = String::from_utf8(t.bytes()).unwrap();
    text.lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["ev"] == "delivered" && e["bytes"].as_u64().unwrap_or(0) >= c.size)
        .map(|e| e["t-us"].as_u64().unwrap() as f64 / 1000.0)
        .unwrap_or_else(|| panic!("{}: {} bytes never delivered", c.scenario, c.size))
}

fn open(c: &Cell) -> Option<(f64, f64)> {
    OPEN.iter()
        .find(|e| e.0 == c.scenario && e.1 == c.arm && e.2 == c.size)
        .map(|e| (e.3, e.4))
}

/// Runs `cells`, prints every one, and checks: every cell within 10 % of
/// quicly, or within 10 % once ramp sends past the size as quicly does
/// (the unbounded-stream mechanism), or open and inside its bound; and at
/// least 95 % of cells within 10 % with the mechanism accounted for.
fn check(cells: &[Cell]) {
    let (mut within, mut explained) = (0, 0);
    let mut failures = Vec::new();
    for c in cells {
        let m = ramp_ms(c);
        let ratio = m / c.quicly_ms;
        let pct = |r: f64| (r - 1.0) * 100.0;
        if (0.90..=1.10).contains(&ratio) {
            within += 1;
            eprintln!(
                "{}\t{}\t{}\t{m:.1}\t{:.1}\t{:+.1}%",
                c.scenario,
                c.arm,
                c.size,
                c.quicly_ms,
                pct(ratio)
            );
            continue;
        }
        let u = ramp_unbounded_ms(c);
        let u_ratio = u / c.quicly_ms;
        let by_stream = (0.90..=1.10).contains(&u_ratio);
        explained += usize::from(by_stream);
        eprintln!(
            "{}\t{}\t{}\t{m:.1}\t{:.1}\t{:+.1}%\tunbounded {u:.1} ({:+.1}%){}",
            c.scenario,
            c.arm,
            c.size,
            c.quicly_ms,
            pct(ratio),
            pct(u_ratio),
            if by_stream { "" } else { "\tOPEN" }
        );
        match (by_stream, open(c)) {
            (true, None) => {}
            (false, Some((lo, hi))) if (lo..=hi).contains(&ratio) => {}
            (true, Some(_)) => failures.push(format!(
                "{} {} {} B: listed as open but the unbounded stream explains it now",
                c.scenario, c.arm, c.size
            )),
            _ => failures.push(format!(
                "{} {} {} B: ramp {m:.1} ms vs quicly {:.1} ms ({:+.1} %); with ramp sending past \
                 the size {u:.1} ms ({:+.1} %): unexplained",
                c.scenario,
                c.arm,
                c.size,
                c.quicly_ms,
                pct(ratio),
                pct(u_ratio)
            )),
        }
    }
    eprintln!(
        "{within} of {} within 10 % of quicly; {explained} more within 10 % with ramp sending past \
         the size as quicly does; {} open",
        cells.len(),
        cells.len() - within - explained
    );
    // Today's counts (docs/simulator.md): a regression guard on the raw
    // agreement, and the 95 % the grid must reach with the mechanism in.
    assert!(within >= 449, "{within} of {} within 10 %", cells.len());
    assert!(
        (within + explained) * 100 >= cells.len() * 95,
        "{} of {} within 10 % with the unbounded stream accounted for",
        within + explained,
        cells.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_grid_holds_480_cells_with_their_commands() {
    let all = cells();
    assert_eq!(all.len(), 5 * 4 * 3 * 2 * 4);
    // The arms count windows in quicly's unit and send as quicly does.
    for (arm, spec) in SEED_ARMS {
        let s = ramp_cc::spec::parse(spec).unwrap();
        assert!(
            spec.contains(&format!("iw=30x{QUICLY_WINDOW_UNIT},")),
            "{arm}"
        );
        assert_eq!(s.send_rule(), ramp_cc::SendRule::Quicly, "{arm}");
    }
    // Every queue is 0.5, 1 or 2 BDP (the RTT, in time).
    for c in &all {
        let bdp = c.queue_s / c.delay_s;
        assert!(
            [0.5, 1.0, 2.0].iter().any(|b| (b - bdp).abs() < 1e-9),
            "{}",
            c.scenario
        );
    }
}

#[test]
fn seed_arms_land_within_10_percent_of_quicly_on_the_grid_or_by_a_known_mechanism() {
    check(&cells());
}
