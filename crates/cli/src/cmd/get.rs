//! `ramp get`.

/// Arguments of `ramp get`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `ramp get`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("ramp get is not built yet")
}
