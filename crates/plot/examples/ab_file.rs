//! The A/B chart of a records file, streamed, with timing; for trying
//! large production-style logs: `cargo run --release -p ramp-plot --example
//! ab_file -- RECORDS.ndjson BASELINE [BY] OUT.png`.

use ramp_plot::chart::{save, AbChart, PairedChart, Theme};
use ramp_plot::{ab_curves_of, paired_deltas_of, AbOptions, AbSamples, Facet};
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [records, baseline, rest @ ..] = args.as_slice() else {
        return Err("usage: ab_file RECORDS BASELINE [BY] OUT".into());
    };
    let (by, out) = match rest {
        [out] => (None, out),
        [by, out] => (Some(by), out),
        _ => return Err("usage: ab_file RECORDS BASELINE [BY] OUT".into()),
    };
    let mut o = AbOptions::new(baseline);
    if let Some(by) = by {
        o.facet = Facet::parse(by)?;
    }
    let t = Instant::now();
    let samples = AbSamples::read(Path::new(records), &o)?;
    let read = t.elapsed();
    let t = Instant::now();
    let ab = ab_curves_of(&samples, &o)?;
    let curves = t.elapsed();
    save(&AbChart::new(&ab), Path::new(out), Theme::Light)?;
    eprintln!(
        "{} samples ({} skipped): read {:.2?}, curves+bootstrap {:.2?}",
        samples.samples.len(),
        samples.skipped,
        read,
        curves
    );
    if let Ok(p) = paired_deltas_of(&samples, &o) {
        save(
            &PairedChart::new(&p),
            &Path::new(out).with_extension("paired.png"),
            Theme::Light,
        )?;
    }
    Ok(())
}
