//! Summary maths against hand-computed values.

use ramp_sim::fleet::summary::{percentile, summarize, Row};

fn row(conn: u64, arm: &str, pop: &str, bin: &str, ttlb_ms: u64, sent: u64, lost: u64) -> Row {
    Row {
        conn,
        arm: arm.into(),
        pop: pop.into(),
        bin: bin.into(),
        size_bytes: 0,
        completed: true,
        ttlb_us: ttlb_ms * 1000,
        packets_sent: sent,
        packets_lost: lost,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn percentile_is_linear_between_order_statistics() {
    let v = [10.0, 20.0, 30.0, 40.0, 50.0];
    assert!(close(percentile(&v, 50.0), 30.0));
    assert!(close(percentile(&v, 10.0), 14.0)); // h = 0.4
    assert!(close(percentile(&v, 90.0), 46.0)); // h = 3.6
    assert!(close(percentile(&v, 99.0), 49.6));
    assert!(close(percentile(&[7.0], 90.0), 7.0));
    assert!(percentile(&[], 50.0).is_nan());
}

#[test]
fn ttlb_and_loss_tables_match_hand_computation() {
    let rows = vec![
        // conn, arm, pop, bin, ttlb ms, sent, lost
        row(0, "base", "eu", "small", 100, 100, 0),
        row(0, "new", "eu", "small", 80, 100, 2),
        row(1, "base", "eu", "big", 200, 200, 4),
        row(1, "new", "eu", "big", 150, 200, 6),
        row(2, "base", "af", "small", 300, 50, 1),
        row(2, "new", "af", "small", 330, 50, 5),
        row(3, "base", "af", "big", 400, 400, 0),
        Row {
            completed: false,
            ..row(3, "new", "af", "big", 999, 400, 40)
        },
    ];
    let arms = vec!["base".to_string(), "new".to_string()];
    let s = summarize(
        &rows,
        &arms,
        &["eu".into(), "af".into()],
        &["small".into(), "big".into()],
    )
    .unwrap();
    assert_eq!(s.connections, 4);
    assert_eq!(s.excluded, 1, "conn 3 did not complete in `new`");
    // Global, paired over conns 0..2: base 100,200,300 (mean 200);
    // new 80,150,330 (mean 186.667): change -6.667 %.
    let g = &s.global;
    assert_eq!(g.connections, 3);
    assert!(close(g.arms[0].mean_ms, 200.0));
    assert!(close(g.arms[1].mean_ms, 560.0 / 3.0));
    assert!(close(
        g.arms[1].mean_change_pct,
        100.0 * (560.0 / 600.0 - 1.0)
    ));
    assert!(close(g.arms[0].mean_change_pct, 0.0));
    // p50: 200 vs 150 -> -25 %; p10: base 100+0.2*100=120, new 80+0.2*70=94.
    assert!(close(g.arms[1].decile_change_pct[4], -25.0));
    assert!(close(g.arms[0].deciles_ms[0], 120.0));
    assert!(close(g.arms[1].deciles_ms[0], 94.0));
    // Mean packets lost over the paired connections: new (2+6+5)/3.
    assert!(close(g.arms[1].mean_lost_packets, 13.0 / 3.0));
    // Per pop, in the given order.
    assert_eq!(s.by_pop[0].label, "eu");
    assert!(close(
        s.by_pop[0].arms[1].mean_change_pct,
        100.0 * (230.0 / 300.0 - 1.0)
    ));
    assert_eq!(s.by_pop[1].label, "af");
    assert_eq!(s.by_pop[1].connections, 1);
    assert!(close(s.by_pop[1].arms[1].mean_change_pct, 10.0));
    // Per bin.
    assert_eq!(s.by_bin[0].label, "small");
    assert!(close(
        s.by_bin[0].arms[1].mean_change_pct,
        100.0 * (410.0 / 400.0 - 1.0)
    ));
    assert_eq!(s.by_bin[1].connections, 1);
    // Loss ratios count every connection: base 0, 2, 2, 0 % -> avg 1 %,
    // P50 1 %, P90 2 %, P99 2 %; new 2, 3, 10, 10 % -> avg 6.25 %,
    // P50 6.5 %, P90 10 %, P99 10 %.
    assert!(close(s.loss[0].avg_pct, 1.0));
    assert!(close(s.loss[0].percentiles_pct[0], 1.0));
    assert!(close(s.loss[0].percentiles_pct[1], 2.0));
    assert!(close(s.loss[1].avg_pct, 6.25));
    assert!(close(s.loss[1].percentiles_pct[0], 6.5));
    assert!(close(s.loss[1].percentiles_pct[2], 10.0));
    assert_eq!(s.loss_by_pop[1].0, "af");
    assert!(close(s.loss_by_pop[1].1[1].avg_pct, 10.0));
    let md = s.to_markdown("t");
    assert!(md.contains("| avg. | 1.00% | 6.25% |"), "{md}");
    // Percentile-delta average over p5..p95 (h = 2p/100 over 3 values):
    // base 110,130,150,170,190,210,230,250,270,290; new 87,101,115,129,
    // 143,168,204,240,276,312.
    let b = [
        110.0, 130.0, 150.0, 170.0, 190.0, 210.0, 230.0, 250.0, 270.0, 290.0,
    ];
    let n = [
        87.0, 101.0, 115.0, 129.0, 143.0, 168.0, 204.0, 240.0, 276.0, 312.0,
    ];
    let want: f64 = b
        .iter()
        .zip(&n)
        .map(|(b, n)| 100.0 * (n / b - 1.0))
        .sum::<f64>()
        / 10.0;
    assert!(
        close(g.arms[1].pctl_change_avg_pct, want),
        "{} vs {want}",
        g.arms[1].pctl_change_avg_pct
    );
    assert!(md.contains("| all | 3 | 200 ms | "), "{md}");
    assert!(md.contains(" -6.7% |"), "{md}");
}

/// Every candidate reading of "average TTLB reduction" on a case where
/// they differ: the new arm is 20 % faster on 99 connections and 100 %
/// slower on the slowest one.
#[test]
fn every_candidate_statistic_by_its_definition() {
    let mut rows = Vec::new();
    for c in 0..100u64 {
        let base = 100 + 10 * c;
        let new = if c == 99 { 2 * base } else { base * 8 / 10 };
        rows.push(row(c, "base", "eu", "small", base, 10, 0));
        rows.push(row(c, "new", "eu", "small", new, 10, 0));
    }
    let arms = vec!["base".to_string(), "new".to_string()];
    let s = summarize(&rows, &arms, &[], &[]).unwrap();
    let a = &s.global.arms[1];
    let base: Vec<f64> = (0..100).map(|c| 100.0 + 10.0 * c as f64).collect();
    let mut new: Vec<f64> = base.iter().map(|b| b * 0.8).collect();
    new[99] = 2.0 * base[99];
    new.sort_by(f64::total_cmp);
    let d = |p: f64| 100.0 * (percentile(&new, p) / percentile(&base, p) - 1.0);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let ten: Vec<f64> = (0..10).map(|i| d(5.0 + 10.0 * i as f64)).collect();
    let whole: Vec<f64> = (1..=99).map(|p| d(p as f64)).collect();
    assert!(close(a.pctl_change_avg_pct, mean(&ten)));
    assert!(close(a.pctl_1_99_change_avg_pct, mean(&whole)));
    assert!(close(a.median_change_pct, d(50.0)));
    assert!(close(a.median_change_pct, -20.0));
    assert!(close(
        a.mean_change_pct,
        100.0 * (mean(&new) / mean(&base) - 1.0)
    ));
    // The one slow connection moves the mean and the top percentiles, not
    // the median: the readings differ.
    assert!(a.mean_change_pct > a.pctl_1_99_change_avg_pct);
    assert!(a.pctl_1_99_change_avg_pct > a.median_change_pct);
    let md = s.to_markdown("t");
    assert!(
        md.contains("new ten-pt | new 1-99 | new mean | new median"),
        "{md}"
    );
}
