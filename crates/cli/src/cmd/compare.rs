//! `ramp compare`: the main job.

/// Arguments of `ramp compare`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the comparison.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("ramp compare is not built yet")
}
