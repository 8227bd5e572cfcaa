//! `ramp report`.

/// Arguments of `ramp report`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `ramp report`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("ramp report is not built yet")
}
