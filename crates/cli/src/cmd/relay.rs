//! `ramp relay`.

/// Arguments of `ramp relay`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `ramp relay`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("ramp relay is not built yet")
}
