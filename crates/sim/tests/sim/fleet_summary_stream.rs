//! The streaming, spilling fleet summary against the in-memory summary it
//! replaced (kept here verbatim as the reference): the same figures, bit
//! for bit, on random rows, in memory and with every spill size.

use std::collections::BTreeMap;

use ramp_sim::fleet::summary::{
    percentile, summarize, whole_percentiles, LossRow, Row, Slice, Summarizer, Summary, TtlbChange,
    DECILES, DELTA_PERCENTILES, LOSS_PERCENTILES,
};
use ramp_vocab::rng::Rng;

fn change(v: f64, base: f64) -> f64 {
    if base > 0.0 {
        100.0 * (v / base - 1.0)
    } else {
        f64::NAN
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Per connection: (pop, bin, per arm (ttlb ms if completed, lost, sent)).
type PerConn = (String, String, Vec<Option<(Option<f64>, u64, u64)>>);

fn slice(label: &str, arms: &[String], conns: &[&PerConn]) -> Slice {
    let paired: Vec<&&PerConn> = conns
        .iter()
        .filter(|c| c.2.iter().all(|a| matches!(a, Some((Some(_), _, _)))))
        .collect();
    let mut out = Vec::new();
    type Base = (f64, Vec<f64>, Vec<f64>, Vec<f64>, f64);
    let mut base: Option<Base> = None;
    for (k, arm) in arms.iter().enumerate() {
        let mut ttlb: Vec<f64> = paired
            .iter()
            .filter_map(|c| c.2[k].and_then(|a| a.0))
            .collect();
        let lost: Vec<f64> = paired
            .iter()
            .filter_map(|c| c.2[k].map(|a| a.1 as f64))
            .collect();
        ttlb.sort_by(f64::total_cmp);
        let m = mean(&ttlb);
        let dec: Vec<f64> = DECILES.iter().map(|&p| percentile(&ttlb, p)).collect();
        let steps: Vec<f64> = DELTA_PERCENTILES
            .iter()
            .map(|&p| percentile(&ttlb, p))
            .collect();
        let whole: Vec<f64> = whole_percentiles().map(|p| percentile(&ttlb, p)).collect();
        let median = percentile(&ttlb, 50.0);
        let (bm, bd, bs, bw, bmed) = base
            .get_or_insert_with(|| (m, dec.clone(), steps.clone(), whole.clone(), median))
            .clone();
        let step_changes: Vec<f64> = steps.iter().zip(&bs).map(|(v, b)| change(*v, *b)).collect();
        let whole_changes: Vec<f64> = whole.iter().zip(&bw).map(|(v, b)| change(*v, *b)).collect();
        out.push(TtlbChange {
            arm: arm.clone(),
            mean_ms: m,
            mean_change_pct: change(m, bm),
            decile_change_pct: dec.iter().zip(&bd).map(|(v, b)| change(*v, *b)).collect(),
            deciles_ms: dec,
            pctl_change_avg_pct: mean(&step_changes),
            pctl_1_99_change_avg_pct: mean(&whole_changes),
            median_change_pct: change(median, bmed),
            mean_lost_packets: mean(&lost),
        });
    }
    Slice {
        label: label.to_string(),
        connections: paired.len(),
        arms: out,
    }
}

fn loss_rows(arms: &[String], conns: &[&PerConn]) -> Vec<LossRow> {
    arms.iter()
        .enumerate()
        .map(|(k, arm)| {
            let mut r: Vec<f64> = conns
                .iter()
                .filter_map(|c| c.2[k])
                .filter(|a| a.2 > 0)
                .map(|a| 100.0 * a.1 as f64 / a.2 as f64)
                .collect();
            r.sort_by(f64::total_cmp);
            LossRow {
                arm: arm.clone(),
                connections: r.len(),
                avg_pct: mean(&r),
                percentiles_pct: LOSS_PERCENTILES
                    .iter()
                    .map(|&p| percentile(&r, p))
                    .collect(),
            }
        })
        .collect()
}

/// Orders `seen` labels: those in `order` first, in its order, then the
/// rest sorted.
fn ordered(order: &[String], seen: &BTreeMap<String, ()>) -> Vec<String> {
    let mut out: Vec<String> = order
        .iter()
        .filter(|o| seen.contains_key(*o))
        .cloned()
        .collect();
    out.extend(seen.keys().filter(|k| !order.contains(k)).cloned());
    out
}

/// The summary as it was computed with every value in memory (ramp
/// 04fc0bd, crates/sim/src/fleet/summary.rs): summarises `rows` for `arms` (baseline first). `pops` and `bins` give
/// the report order of regions and bins (others follow, sorted). Rows of
/// arms not listed are ignored.
pub fn reference(rows: &[Row], arms: &[String], pops: &[String], bins: &[String]) -> Summary {
    let mut per: BTreeMap<u64, PerConn> = BTreeMap::new();
    for r in rows {
        let Some(k) = arms.iter().position(|a| *a == r.arm) else {
            continue;
        };
        let e = per
            .entry(r.conn)
            .or_insert_with(|| (r.pop.clone(), r.bin.clone(), vec![None; arms.len()]));
        let ttlb = r.completed.then_some(r.ttlb_us as f64 / 1000.0);
        e.2[k] = Some((ttlb, r.packets_lost, r.packets_sent));
    }
    let all: Vec<&PerConn> = per.values().collect();
    let global = slice("all", arms, &all);
    let mut pop_seen = BTreeMap::new();
    let mut bin_seen = BTreeMap::new();
    for c in &all {
        pop_seen.insert(c.0.clone(), ());
        bin_seen.insert(c.1.clone(), ());
    }
    let pops = ordered(pops, &pop_seen);
    let bins = ordered(bins, &bin_seen);
    let of_pop = |p: &str| -> Vec<&PerConn> { all.iter().copied().filter(|c| c.0 == p).collect() };
    let of_bin = |b: &str| -> Vec<&PerConn> { all.iter().copied().filter(|c| c.1 == b).collect() };
    Summary {
        metric: "TTLB",
        arms: arms.to_vec(),
        connections: all.len(),
        excluded: all.len() - global.connections,
        by_pop: pops.iter().map(|p| slice(p, arms, &of_pop(p))).collect(),
        by_bin: bins.iter().map(|b| slice(b, arms, &of_bin(b))).collect(),
        loss: loss_rows(arms, &all),
        loss_by_pop: pops
            .iter()
            .map(|p| (p.clone(), loss_rows(arms, &of_pop(p))))
            .collect(),
        global,
    }
}

/// Random rows: a few regions and bins, some connections incomplete in an
/// arm, missing an arm, or with rows of an arm not summarised; sizes of
/// slices from empty to hundreds; TTLB with µs resolution and ties.
fn random_rows(seed: u64, conns: u64) -> Vec<Row> {
    let mut rng = Rng::from_u64(seed);
    let pops = ["eu", "asia", "af", "na"];
    let bins = ["small", "mid", "big"];
    let arms = ["base", "a", "b", "other"];
    let mut rows = Vec::new();
    for conn in 0..conns {
        let pop = pops[(rng.next_u64() % 4) as usize];
        let bin = bins[(rng.next_u64() % 3) as usize];
        for arm in arms {
            if rng.next_u64().is_multiple_of(50) {
                continue; // a missing arm
            }
            let sent = rng.next_u64() % 40;
            rows.push(Row {
                conn,
                arm: arm.into(),
                pop: pop.into(),
                bin: bin.into(),
                size_bytes: 1000,
                completed: !rng.next_u64().is_multiple_of(20),
                // Ties are common: whole ms half the time.
                ttlb_us: if rng.next_u64().is_multiple_of(2) {
                    1000 * (1 + rng.next_u64() % 300)
                } else {
                    1 + rng.next_u64() % 3_000_000
                },
                packets_sent: sent,
                packets_lost: rng.next_u64() % (sent + 1),
            });
        }
    }
    rows
}

fn labels(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn streaming_summary_equals_the_in_memory_one_bit_for_bit() {
    let arms = labels(&["base", "a", "b"]);
    let pops = labels(&["na", "eu"]);
    let bins = labels(&["small", "mid", "big"]);
    for (seed, conns) in [(1, 0), (2, 1), (3, 7), (4, 300), (5, 2000)] {
        let rows = random_rows(seed, conns);
        let want = format!("{:?}", reference(&rows, &arms, &pops, &bins));
        // In memory, rows in any order.
        let mut shuffled = rows.clone();
        shuffled.reverse();
        let got = summarize(&shuffled, &arms, &pops, &bins).unwrap();
        assert_eq!(format!("{got:?}"), want, "seed {seed}, in memory");
        // Streamed in connection order, spilling every few entries.
        for spill in [1, 7, 1000] {
            let dir = std::env::temp_dir().join(format!(
                "ramp-summary-diff-{}-{seed}-{spill}",
                std::process::id()
            ));
            let mut s = Summarizer::new(&arms, Some(dir.clone()), spill);
            for r in &rows {
                s.push(r).unwrap();
            }
            if conns >= 300 {
                assert!(s.spilled_runs() > 0, "seed {seed}: the test must spill");
            }
            let got = s.finish(&pops, &bins).unwrap();
            assert_eq!(format!("{got:?}"), want, "seed {seed}, spill {spill}");
            assert!(!dir.exists(), "the spill directory is removed");
        }
    }
}

#[test]
fn a_stream_out_of_connection_order_is_refused() {
    let arms = labels(&["base"]);
    let rows: Vec<Row> = random_rows(9, 3)
        .into_iter()
        .filter(|r| r.arm == "base")
        .collect();
    let mut s = Summarizer::new(&arms, None, usize::MAX);
    s.push(&rows[rows.len() - 1]).unwrap();
    let e = s.push(&rows[0]).unwrap_err();
    assert!(e.to_string().contains("not in connection order"), "{e}");
}
