//! `pan-detect corpus` (being written).

use std::process::ExitCode;

/// Arguments of `pan-detect corpus`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pan-detect corpus`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not written yet")
}
