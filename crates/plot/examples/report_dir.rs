//! `ramp report` without the CLI: `cargo run -p ramp-plot --example
//! report_dir -- RUN_DIR OUT.html`.

use ramp_plot::{write_report, RunData};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, out] = args.as_slice() else {
        return Err("usage: report_dir RUN_DIR OUT.html".into());
    };
    let run = RunData::load(Path::new(dir))?;
    write_report(&run, Path::new(out))?;
    Ok(())
}
