//! Renders every chart from synthetic fixtures into a directory, for
//! looking at: `cargo run -p ramp-plot --features fixtures --example gallery -- OUT_DIR`.

use ramp_plot::chart::{save, AbChart, DeliveryChart, PairedChart, Theme, TimeSeqChart};
use ramp_plot::fixtures::{arms, run, ToyRun};
use ramp_plot::parse_trace;
use ramp_plot::{ab_curves, paired_deltas, parse_records, AbOptions, Facet};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "gallery".into()));
    std::fs::create_dir_all(&out)?;
    let mut traces = Vec::new();
    for (group, cc, growth) in arms() {
        let cfg = ToyRun {
            group: group.into(),
            cc: cc.into(),
            growth,
            rate_bps: 100e6,
            rtt_ms: 30.0,
            queue_ms: 30.0,
            loss: 0.0,
            content_length: 3_000_000,
            seed: 1,
            pop: "ams".into(),
        };
        let (text, _) = run(&cfg);
        std::fs::write(out.join(format!("trace-{group}.ndjson")), &text)?;
        traces.push(parse_trace(&text, group)?);
    }
    for (t, theme) in [(&traces[0], Theme::Light), (&traces[1], Theme::Dark)] {
        let name = format!(
            "timeseq-{}-{theme:?}.png",
            t.meta.group.as_deref().unwrap_or("x")
        );
        save(&TimeSeqChart::new(t), &out.join(name), theme)?;
    }
    save(
        &TimeSeqChart::new(&traces[0]),
        &out.join("timeseq.svg"),
        Theme::Light,
    )?;
    let refs: Vec<_> = traces.iter().collect();
    save(
        &DeliveryChart::new(refs.clone()),
        &out.join("delivery.png"),
        Theme::Light,
    )?;
    save(
        &DeliveryChart::new(refs),
        &out.join("delivery-dark.png"),
        Theme::Dark,
    )?;
    let (records, traces) = ramp_plot::fixtures::fleet(400, 1);
    let run = out.join("run");
    std::fs::create_dir_all(run.join("traces"))?;
    std::fs::write(run.join("records.ndjson"), &records)?;
    for (name, text) in traces {
        std::fs::write(run.join("traces").join(name), text)?;
    }
    std::fs::write(out.join("records.ndjson"), &records)?;
    let records = parse_records(&records, "fleet")?;
    let mut opts = AbOptions::new("baseline");
    let ab = ab_curves(&records, &opts)?;
    save(&AbChart::new(&ab), &out.join("ab.png"), Theme::Light)?;
    opts.facet = Facet::Key("pop".into());
    let ab = ab_curves(&records, &opts)?;
    save(&AbChart::new(&ab), &out.join("ab-pop.png"), Theme::Dark)?;
    opts.facet = Facet::decade_size_bins();
    let ab = ab_curves(&records, &opts)?;
    save(&AbChart::new(&ab), &out.join("ab-size.svg"), Theme::Light)?;
    opts.facet = Facet::None;
    let paired = paired_deltas(&records, &opts)?;
    save(
        &PairedChart::new(&paired),
        &out.join("paired.png"),
        Theme::Light,
    )?;
    Ok(())
}
