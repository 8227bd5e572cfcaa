//! `ramp plot`.

/// Arguments of `ramp plot`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `ramp plot`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("ramp plot is not built yet")
}
