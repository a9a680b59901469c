//! The `--threads` flag shared by the commands that run in parallel, and the
//! cap that it and `serve --workers` share.

use crate::cli::messages;

/// Threads per core above which `--threads` is lowered (and the cluster's
/// `--workers` refused): more only add per-thread buffers and contention
/// (`--threads 1000` ran 75× slower on 2 cores).
pub const MAX_THREADS_PER_CORE: usize = 4;

/// Sizes rayon's global pool: `None` means all cores; other counts as [`capped`].
pub fn configure(threads: Option<usize>) -> anyhow::Result<()> {
    let Some(threads) = threads else { return Ok(()) };
    let threads = capped("--threads", threads)?;
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global()?;
    Ok(())
}

/// The thread count `threads` given with `flag`: 0 is refused, and a count above
/// [`MAX_THREADS_PER_CORE`] × the cores is lowered to that with a warning rather
/// than refused, so that a script written for a large machine still runs on a small one.
pub fn capped(flag: &str, threads: usize) -> anyhow::Result<usize> {
    if threads == 0 {
        anyhow::bail!("{flag} 0 is out of range (expected 1 or more)");
    }
    let (cores, limit) = (cores(), thread_limit());
    if threads <= limit {
        return Ok(threads);
    }
    messages::warn(format_args!(
        "{flag} {threads} is more than {MAX_THREADS_PER_CORE} × the {cores} cores; using {limit}"
    ));
    Ok(limit)
}

/// The cores of this machine.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most threads worth running here: [`MAX_THREADS_PER_CORE`] × the cores.
pub fn thread_limit() -> usize {
    MAX_THREADS_PER_CORE * cores()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_threads_are_refused_and_too_many_lowered() {
        let error = capped("--workers", 0).unwrap_err().to_string();
        assert_eq!(error, "--workers 0 is out of range (expected 1 or more)");
        assert_eq!(capped("--workers", 1).unwrap(), 1);
        assert_eq!(capped("--workers", usize::MAX).unwrap(), thread_limit());
    }
}
