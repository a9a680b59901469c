//! The `--threads` flag shared by the commands that run in parallel.

use crate::messages;

/// Threads per core above which `--threads` is lowered (and `--workers` refused): more only add
/// per-thread buffers and contention (`--threads 1000` ran 75× slower on 2 cores).
pub const MAX_THREADS_PER_CORE: usize = 4;

/// Sizes rayon's global pool: `None` means all cores. A count above
/// [`MAX_THREADS_PER_CORE`] × the cores is lowered to that with a warning rather
/// than refused, so that a script written for a large machine still runs on a small one.
pub fn configure(threads: Option<usize>) -> anyhow::Result<()> {
    let Some(threads) = threads else { return Ok(()) };
    if threads == 0 {
        anyhow::bail!("--threads 0 is out of range (expected 1 or more)");
    }
    let (cores, limit) = (cores(), thread_limit());
    let threads = if threads > limit {
        messages::warn(format_args!(
            "--threads {threads} is more than {MAX_THREADS_PER_CORE} × the {cores} cores; using {limit}"
        ));
        limit
    } else {
        threads
    };
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global()?;
    Ok(())
}

/// The cores of this machine.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most threads worth running here: [`MAX_THREADS_PER_CORE`] × the cores.
pub fn thread_limit() -> usize {
    MAX_THREADS_PER_CORE * cores()
}
