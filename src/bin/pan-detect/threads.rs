//! The `--threads` flag shared by the commands that run in parallel.

/// Sizes rayon's global pool: `None` means all cores.
pub fn configure(threads: Option<usize>) -> anyhow::Result<()> {
    let Some(threads) = threads else { return Ok(()) };
    if threads == 0 || threads > 1024 {
        anyhow::bail!("--threads {threads} is out of range (expected 1..=1024)");
    }
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global()?;
    Ok(())
}
