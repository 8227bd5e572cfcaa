//! `ramp report`: the self-contained HTML report of a run directory.

use ramp_plot::{write_report, RunData};
use std::path::PathBuf;

/// Arguments of `ramp report`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run directory: records.ndjson, traces/*.ndjson, optional scenario.toml
    /// (docs/charts.md).
    run_dir: PathBuf,
    /// Output HTML file (default: RUN_DIR/report.html).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Arm the others are compared against (default: `baseline` if present,
    /// else the first arm).
    #[arg(long)]
    baseline: Option<String>,
    /// Report title (default: the scenario name).
    #[arg(long)]
    title: Option<String>,
}

/// Runs `ramp report`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(out) = &args.output {
        let d = &args.run_dir;
        let (records, scenario, traces) = (
            d.join("records.ndjson"),
            d.join("scenario.toml"),
            d.join("traces"),
        );
        use crate::clobber::Input;
        crate::clobber::refuse_output_over(
            "--output",
            out,
            &[
                Input::File(&records),
                Input::File(&scenario),
                Input::DirContents(&traces),
            ],
        )?;
    }
    let mut run = RunData::load(&args.run_dir)?;
    if let Some(b) = &args.baseline {
        run.set_baseline(b)?;
    }
    if let Some(t) = args.title {
        run.title = t;
    }
    let out = args
        .output
        .unwrap_or_else(|| args.run_dir.join("report.html"));
    write_report(&run, &out)?;
    ramp_vocab::note!("wrote {}", out.display());
    Ok(())
}
