//! `ramp bench`.

/// Arguments of `ramp bench`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `ramp bench`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("ramp bench is not built yet")
}
