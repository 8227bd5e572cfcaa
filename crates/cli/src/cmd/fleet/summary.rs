//! The fleet summary as printed on the terminal and as `summary.json`.

use ramp_sim::fleet::summary::Summary;
use ramp_sim::fleet::FleetPlan;

pub(super) fn print_headline(s: &Summary, plan: &FleetPlan) {
    let base = s.arms.first().cloned().unwrap_or_default();
    println!(
        "\n{}: {} connections x {} arms, {} completed in every arm; baseline `{base}`",
        plan.name,
        s.connections,
        s.arms.len(),
        s.global.connections
    );
    println!(
        "\n{} change against {base}, each candidate statistic: average of the per-percentile \
         change over p5..p95 (ten-pt) / over p1..p99 / change of the mean / of the median:",
        s.metric
    );
    let width = std::iter::once(&s.global)
        .chain(&s.by_pop)
        .chain(&s.by_bin)
        .map(|sl| sl.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(16);
    print!("{:<width$} {:>7}", "slice", "n");
    for a in s.arms.iter().skip(1) {
        print!(" {:>31}", a);
    }
    println!();
    for sl in std::iter::once(&s.global).chain(&s.by_pop).chain(&s.by_bin) {
        print!("{:<width$} {:>7}", sl.label, sl.connections);
        for a in sl.arms.iter().skip(1) {
            print!(
                " {:>31}",
                format!(
                    "{:+.1}% / {:+.1}% / {:+.1}% / {:+.1}%",
                    a.pctl_change_avg_pct,
                    a.pctl_1_99_change_avg_pct,
                    a.mean_change_pct,
                    a.median_change_pct
                )
            );
        }
        println!();
    }
    println!("\npacket loss ratio (per connection, lost/sent):");
    print!("{:<6}", "");
    for r in &s.loss {
        print!(" {:>14}", r.arm);
    }
    println!();
    print!("{:<6}", "avg.");
    for r in &s.loss {
        print!(" {:>13.2}%", r.avg_pct);
    }
    println!();
    for (i, p) in ramp_sim::fleet::summary::LOSS_PERCENTILES
        .iter()
        .enumerate()
    {
        print!("{:<6}", format!("P{p:.0}"));
        for r in &s.loss {
            print!(" {:>13.2}%", r.percentiles_pct[i]);
        }
        println!();
    }
}

pub(super) fn num(v: f64) -> serde_json::Value {
    if v.is_finite() {
        serde_json::json!((v * 1e4).round() / 1e4)
    } else {
        serde_json::Value::Null
    }
}

pub(super) fn summary_json(s: &Summary, plan: &FleetPlan) -> serde_json::Value {
    use serde_json::json;
    let slice = |sl: &ramp_sim::fleet::summary::Slice| {
        json!({
            "label": sl.label,
            "connections": sl.connections,
            "arms": sl.arms.iter().map(|a| json!({
                "arm": a.arm,
                "mean_ms": num(a.mean_ms),
                "mean_change_pct": num(a.mean_change_pct),
                "pctl_change_avg_pct": num(a.pctl_change_avg_pct),
                "pctl_1_99_change_avg_pct": num(a.pctl_1_99_change_avg_pct),
                "median_change_pct": num(a.median_change_pct),
                "deciles_ms": a.deciles_ms.iter().map(|v| num(*v)).collect::<Vec<_>>(),
                "decile_change_pct": a.decile_change_pct.iter().map(|v| num(*v)).collect::<Vec<_>>(),
                "mean_lost_packets": num(a.mean_lost_packets),
                "pctl_change_avg_pct_ci95_lo": num(a.ci.pctl_change_avg.lo),
                "pctl_change_avg_pct_ci95_hi": num(a.ci.pctl_change_avg.hi),
                "pctl_1_99_change_avg_pct_ci95_lo": num(a.ci.pctl_1_99_change_avg.lo),
                "pctl_1_99_change_avg_pct_ci95_hi": num(a.ci.pctl_1_99_change_avg.hi),
                "mean_change_pct_ci95_lo": num(a.ci.mean_change.lo),
                "mean_change_pct_ci95_hi": num(a.ci.mean_change.hi),
                "median_change_pct_ci95_lo": num(a.ci.median_change.lo),
                "median_change_pct_ci95_hi": num(a.ci.median_change.hi),
            })).collect::<Vec<_>>(),
        })
    };
    let loss = |rows: &[ramp_sim::fleet::summary::LossRow]| {
        rows.iter()
            .map(|r| {
                json!({
                    "arm": r.arm,
                    "connections": r.connections,
                    "avg_pct": num(r.avg_pct),
                    "p50_pct": num(r.percentiles_pct[0]),
                    "p90_pct": num(r.percentiles_pct[1]),
                    "p99_pct": num(r.percentiles_pct[2]),
                })
            })
            .collect::<Vec<_>>()
    };
    json!({
        "name": plan.name,
        "seed": plan.seed,
        "connections": s.connections,
        "excluded": s.excluded,
        "arms": plan.arms.iter().map(|a| json!({"label": a.label, "spec": a.spec.to_string()})).collect::<Vec<_>>(),
        "deciles": ramp_sim::fleet::summary::DECILES,
        // What the `*_ci95_lo`/`_hi` bounds are (docs/experiments.md,
        // "Sampling uncertainty of the headline").
        "ci95": {
            "uncertainty": "sampling: these connections, not the model's assumptions (ramp fleet --sensitivity)",
            "method": "paired Poisson bootstrap over connections; estimate +- z(0.975) x bootstrap standard error",
            "replicates": ramp_sim::fleet::bootstrap::REPLICATES,
            "seed": format!("{:#018x}", ramp_sim::fleet::bootstrap::SEED),
        },
        "global": slice(&s.global),
        "by_pop": s.by_pop.iter().map(slice).collect::<Vec<_>>(),
        "by_bin": s.by_bin.iter().map(slice).collect::<Vec<_>>(),
        "loss": loss(&s.loss),
        "loss_by_pop": s.loss_by_pop.iter().map(|(p, r)| json!({"pop": p, "arms": loss(r)})).collect::<Vec<_>>(),
    })
}

/// The grid table per arm: TTLB median and mean packets lost per axis value.
pub(super) fn print_grid_table(g: &ramp_plot::GridResult) {
    println!(
        "\nTTLB median / mean packets lost per connection, against {}{}:",
        g.axis.describe(),
        if g.pooled.is_empty() {
            String::new()
        } else {
            format!(" (pooled over {})", g.describe_pooled())
        }
    );
    print!("{:>12}", g.axis.name());
    for s in &g.series {
        print!(" {:>22}", s.arm);
    }
    println!();
    for &x in &g.values {
        print!("{:>12}", g.axis.format(x));
        for s in &g.series {
            let cell = match s.points.iter().find(|p| p.x == x) {
                Some(p) if p.ttlb_median_ms.is_finite() => {
                    format!("{:.0} ms / {:.1}", p.ttlb_median_ms, p.lost_mean)
                }
                Some(p) => format!("- / {:.1}", p.lost_mean),
                None => "-".to_string(),
            };
            print!(" {cell:>22}");
        }
        println!();
    }
}
