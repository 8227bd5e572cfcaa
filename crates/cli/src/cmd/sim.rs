//! `ramp sim`.

/// Arguments of `ramp sim`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `ramp sim`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("ramp sim is not built yet")
}
