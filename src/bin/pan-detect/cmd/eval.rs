//! `pan-detect eval` (being written).

use std::process::ExitCode;

/// Arguments of `pan-detect eval`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pan-detect eval`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not written yet")
}
