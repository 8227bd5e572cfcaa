//! `ramp serve`.

/// Arguments of `ramp serve`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `ramp serve`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("ramp serve is not built yet")
}
