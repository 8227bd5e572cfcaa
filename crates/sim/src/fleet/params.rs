//! A fleet run's parameters as text (`fleet.params`): `key = value` lines
//! a reader can check at a glance, and a digest of the whole model, so
//! that `--resume` and `ramp fleet merge` continue a run only with the
//! plan that started it.
//!
//! The readable lines name what a user chose (preset or population name,
//! seed, connections, arms) and the outline of the model (regions and
//! weights, or the grid's axes; sizes and bins; the endpoint). The model
//! has far more numbers than that (each region's quantile tables, access
//! mix, element shares), so `model.fnv1a64` hashes all of it: two plans
//! with the same readable lines but any other difference in population,
//! workload or endpoint get different digests. The digest is an FNV-1a
//! 64 of the model's in-memory description; it is the same run to run and
//! on every platform, and changes when a ramp version changes the model.

use ramp_vocab::time::duration_millis_f64;

use super::{FleetPlan, Population, SizeDist};
use crate::trace::json_str;

/// The parameters of `plan`, one `key = value` per line (`arm` and
/// `region` repeat, in order; every other key appears once).
pub(super) fn params_text(plan: &FleetPlan) -> String {
    let mut lines: Vec<(String, String)> = vec![
        ("name".into(), json_str(&plan.name)),
        ("seed".into(), plan.seed.to_string()),
        ("connections".into(), plan.connections.to_string()),
    ];
    for a in &plan.arms {
        lines.push(("arm".into(), json_str(&format!("{}={}", a.label, a.spec))));
    }
    lines.extend(model_outline(plan));
    let e = &plan.base.endpoint;
    let ms = |d: core::time::Duration| duration_millis_f64(d).to_string();
    lines.push(("endpoint.mds".into(), e.mds.to_string()));
    lines.push(("endpoint.iw_packets".into(), e.iw_packets.to_string()));
    lines.push(("endpoint.jump_packets".into(), e.jump_packets.to_string()));
    lines.push((
        "endpoint.ack_policy".into(),
        json_str(&e.ack_policy.to_string()),
    ));
    lines.push(("endpoint.max_ack_delay_ms".into(), ms(e.max_ack_delay)));
    // The servers' draw per connection (regions only: a grid's arms run
    // as written).
    let respect = super::assumptions::Param::RespectAppLimitedShare;
    if let Some(v) = respect.get(&plan.population) {
        lines.push((respect.key().into(), v.to_string()));
    }
    lines.push(("time_limit_ms".into(), ms(plan.base.time_limit)));
    lines.push((
        "model.fnv1a64".into(),
        json_str(&format!("{:016x}", model_digest(plan))),
    ));
    let mut s = String::from(
        "# ramp fleet: this run's parameters; --resume and `ramp fleet merge` continue it only \
         with the same ones.\n# model.fnv1a64 covers every number of the population, workload \
         and endpoint.\n",
    );
    for (k, v) in lines {
        s.push_str(&format!("{k} = {v}\n"));
    }
    s
}

/// The outline of a plan's population and workload as `(key, value)`
/// pairs, values in TOML syntax: `population`, then each `region` with its
/// weight or the `grid.*` axes, then (regions only: a grid's cells carry
/// their own sizes) the `workload.*` sizes, bins and whether connections
/// load pages. `fleet.params` and the report's run description show it.
pub fn model_outline(plan: &FleetPlan) -> Vec<(String, String)> {
    let mut lines = Vec::new();
    let list = |v: Vec<String>| format!("[{}]", v.join(", "));
    let ms = |d: core::time::Duration| duration_millis_f64(d).to_string();
    match &plan.population {
        Population::Regions(rs) => {
            lines.push(("population".into(), json_str("regions")));
            for r in rs {
                lines.push((
                    "region".into(),
                    json_str(&format!("{} weight {}", r.name, r.weight)),
                ));
            }
        }
        Population::Grid(g) => {
            lines.push(("population".into(), json_str("grid")));
            let rates = g.rates.iter().map(|r| r.bits_per_sec().to_string());
            lines.push(("grid.rates_bps".into(), list(rates.collect())));
            lines.push((
                "grid.rtts_ms".into(),
                list(g.rtts.iter().map(|&d| ms(d)).collect()),
            ));
            lines.push((
                "grid.queues_ms".into(),
                list(g.queues.iter().map(|&d| ms(d)).collect()),
            ));
            let losses = g.losses.iter().map(f64::to_string);
            lines.push(("grid.losses".into(), list(losses.collect())));
            let sizes = g.sizes.iter().map(u64::to_string);
            lines.push(("grid.sizes_bytes".into(), list(sizes.collect())));
            lines.push(("grid.seeds".into(), g.seeds_per_cell.to_string()));
            lines.push(("grid.aqm".into(), json_str(&g.aqm.to_string())));
            lines.push((
                "grid.ack_policy".into(),
                json_str(&g.ack_policy.to_string()),
            ));
        }
    }
    let w = &plan.workload;
    // A grid's cells carry their own sizes: the workload's would mislead.
    if let Population::Regions(_) = plan.population {
        lines.push((
            "workload.sizes".into(),
            json_str(&match w.sizes {
                SizeDist::Fixed(b) => format!("{b} bytes"),
                SizeDist::LogUniform { lo, hi } => format!("log-uniform {lo}..{hi} bytes"),
            }),
        ));
        let edges = w.bin_edges.iter().map(u64::to_string);
        lines.push(("workload.bin_edges_bytes".into(), list(edges.collect())));
        lines.push(("workload.pages".into(), w.pages.is_some().to_string()));
        let video = super::assumptions::Param::VideoShare;
        if let Some(v) = video.get(&plan.population) {
            lines.push((video.key().into(), v.to_string()));
        }
    }
    lines
}

/// FNV-1a 64 of the model's full description (population, workload,
/// endpoint), in order.
fn model_digest(plan: &FleetPlan) -> u64 {
    let text = format!(
        "{:?}\n{:?}\n{:?}",
        plan.population, plan.workload, plan.base.endpoint
    );
    ramp_vocab::fnv::fnv1a64(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::super::experiments;

    #[test]
    fn params_are_readable_lines_and_a_digest_of_the_whole_model() {
        let plan = experiments::plan("rapid-start-2026", 24, 5).unwrap();
        let text = plan.fingerprint();
        assert_eq!(text, plan.fingerprint(), "the same plan, the same text");
        for l in text.lines().filter(|l| !l.starts_with('#')) {
            let (k, v) = l.split_once(" = ").unwrap();
            assert!(!k.is_empty() && !v.is_empty(), "{l}");
            // No Rust Debug dump: no struct or enum syntax.
            assert!(!v.contains('{') && !v.contains("(["), "{l}");
        }
        assert!(text.contains("name = \"rapid-start-2026\"\nseed = 5\nconnections = 24\n"));
        assert!(text.contains("population = \"regions\"\n"));
        assert!(text.contains("\nregion = \"east-asia weight "), "{text}");
        assert!(
            text.contains("\nendpoint.respect_app_limited_share = 0\n"),
            "{text}"
        );
        // A change the readable lines do not show changes the digest.
        let mut other = plan.clone();
        if let super::Population::Regions(rs) = &mut other.population {
            rs[0].chrome_ack_share += 0.01;
        }
        let digest = |t: &str| {
            t.lines()
                .find(|l| l.starts_with("model.fnv1a64 = "))
                .unwrap()
                .to_string()
        };
        assert_ne!(digest(&text), digest(&other.fingerprint()));
        let strip = |t: &str| t.replace(&digest(t), "");
        assert_eq!(strip(&text), strip(&other.fingerprint()));
    }
}
