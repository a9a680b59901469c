//! `pan-detect serve`: the archive index over HTTP ([`crate::server`]).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::analysis::read;
use crate::archive::ArchiveIndex;
use crate::archive::check::CheckParams;
use crate::error::ParamError;
use crate::server::{Server, ServerConfig};
use anyhow::Context;

use crate::cli::{messages, threads};

/// Arguments of `pan-detect serve`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect serve --index /tmp/pd-index --listen 127.0.0.1:8080")]
pub struct Args {
    /// Index directory to serve (made with `index create`).
    #[arg(long, value_name = "IDX")]
    index: PathBuf,
    /// Documents directory that writes go to and the index is updated from
    /// [default: the one the index was last updated from].
    #[arg(long, value_name = "DIR")]
    docs: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// File holding the bearer token that PUT and DELETE need; without it
    /// writes are refused.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// File holding the bearer token that reads (checks, similar) need;
    /// without it reads are open.
    #[arg(long, value_name = "FILE")]
    read_token_file: Option<PathBuf>,
    /// Largest request body, in MB (413 above).
    #[arg(long, value_name = "MB", default_value_t = 64)]
    max_body_mb: usize,
    /// Checks waiting or running at most (429 beyond).
    #[arg(long, value_name = "N", default_value_t = 128)]
    max_queued_checks: usize,
    /// Checks running at once [default: the cores].
    #[arg(long, value_name = "N")]
    workers: Option<usize>,
    /// Document changes waiting to be indexed at most (429 beyond).
    #[arg(long, value_name = "N", default_value_t = 1024)]
    max_queued_writes: usize,
    /// Seconds a check may take, waiting included (503 beyond, and the
    /// check is stopped).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    timeout: f64,
    /// Seconds a connection may wait for a request's headers to arrive
    /// whole, idle kept-alive connections included (closed beyond).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    header_timeout: f64,
    /// Seconds a request's body may take to arrive whole (408 beyond).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    body_timeout: f64,
    /// Seconds a stop (SIGINT, SIGTERM) waits for the requests under way.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    shutdown_grace: f64,
    /// Milliseconds the writer waits for more changes to index with the first.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    batch_ms: u64,
}

/// The largest `--max-body-mb`: a body is held in memory whole.
const MAX_BODY_MB: u64 = 4096;
/// The longest queues (`--max-queued-checks`, `--max-queued-writes`; the
/// writes' queue is allocated whole at start).
const MAX_QUEUE: u64 = 65_536;
/// The longest `--batch-ms`: a write is answered only once its batch is committed.
const MAX_BATCH_MS: u64 = 60_000;
/// The longest `--timeout`, `--header-timeout`, `--body-timeout` and
/// `--shutdown-grace`, in seconds.
const MAX_TIMEOUT_SECONDS: f64 = 3600.0;

/// Runs `pan-detect serve`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    check_ranges(&args)?;
    let index = ArchiveIndex::open(&args.index)?;
    let docs = args.docs.unwrap_or_else(|| PathBuf::from(&index.header().docs_root));
    let check = CheckParams::for_index(index.settings());
    drop(index);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let config = ServerConfig {
        write_token: args.token_file.as_deref().map(read_token).transpose()?,
        read_token: args.read_token_file.as_deref().map(read_token).transpose()?,
        index: args.index,
        docs,
        listen: args.listen,
        max_body_bytes: args.max_body_mb << 20,
        max_queued_checks: args.max_queued_checks,
        check_workers: threads::capped("--workers", args.workers.unwrap_or(cores))?,
        max_queued_writes: args.max_queued_writes,
        timeout: Duration::from_secs_f64(args.timeout),
        header_timeout: Duration::from_secs_f64(args.header_timeout),
        body_timeout: Duration::from_secs_f64(args.body_timeout),
        shutdown_grace: Duration::from_secs_f64(args.shutdown_grace),
        batch_window: Duration::from_millis(args.batch_ms),
        check,
    };
    let server = Server::bind(config)?;
    let config = server.config();
    messages::note(format_args!(
        "serving {} on http://{} (documents in {}; writes {}, reads {})",
        config.index.display(),
        server.local_addr(),
        config.docs.display(),
        if config.write_token.is_some() { "with a token" } else { "refused" },
        if config.read_token.is_some() { "with a token" } else { "open" },
    ));
    server.run().context("serve stopped")?;
    messages::note(format_args!("stopped"));
    Ok(ExitCode::SUCCESS)
}

/// Refuses a flag out of its range, before anything is opened or printed.
fn check_ranges(args: &Args) -> anyhow::Result<()> {
    for (flag, seconds) in [
        ("--timeout", args.timeout),
        ("--header-timeout", args.header_timeout),
        ("--body-timeout", args.body_timeout),
        ("--shutdown-grace", args.shutdown_grace),
    ] {
        if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_TIMEOUT_SECONDS) {
            anyhow::bail!(
                "{flag} {seconds:?} is out of range (expected seconds above 0, at most {MAX_TIMEOUT_SECONDS})"
            );
        }
    }
    ParamError::check("--max-body-mb", args.max_body_mb as u64, 1..=MAX_BODY_MB)?;
    ParamError::check("--max-queued-checks", args.max_queued_checks as u64, 1..=MAX_QUEUE)?;
    ParamError::check("--max-queued-writes", args.max_queued_writes as u64, 1..=MAX_QUEUE)?;
    ParamError::check("--batch-ms", args.batch_ms, 0..=MAX_BATCH_MS)?;
    Ok(())
}

/// The token in `path`: its first line, which must not be empty.
fn read_token(path: &Path) -> anyhow::Result<String> {
    let text =
        read::read_input_to_string(path).with_context(|| format!("{}: cannot read the token", path.display()))?;
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() {
        anyhow::bail!("{}: the token file is empty", path.display());
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// `serve`'s flags on a command line.
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn ranges_of(flags: &[&str]) -> Result<(), String> {
        let args = Cli::try_parse_from([&["serve", "--index", "idx"][..], flags].concat()).unwrap().args;
        check_ranges(&args).map_err(|e| e.to_string())
    }

    #[test]
    fn the_defaults_and_the_bounds_are_in_range() {
        assert_eq!(ranges_of(&[]), Ok(()));
        let bounds = ["--max-body-mb", "4096", "--max-queued-checks", "65536", "--batch-ms", "0", "--timeout", "3600"];
        assert_eq!(ranges_of(&bounds), Ok(()));
    }

    #[test]
    fn a_flag_out_of_range_is_named_with_its_range() {
        for (flags, error) in [
            (["--max-body-mb", "0"], "--max-body-mb 0 is out of range (expected 1..=4096)"),
            (["--max-queued-checks", "0"], "--max-queued-checks 0 is out of range (expected 1..=65536)"),
            (["--max-queued-writes", "70000"], "--max-queued-writes 70000 is out of range (expected 1..=65536)"),
            (["--batch-ms", "99999999999"], "--batch-ms 99999999999 is out of range (expected 0..=60000)"),
            (["--timeout", "1e300"], "--timeout 1e300 is out of range (expected seconds above 0, at most 3600)"),
            (
                ["--header-timeout", "0"],
                "--header-timeout 0.0 is out of range (expected seconds above 0, at most 3600)",
            ),
            (["--body-timeout", "NaN"], "--body-timeout NaN is out of range (expected seconds above 0, at most 3600)"),
            (
                ["--shutdown-grace", "5000"],
                "--shutdown-grace 5000.0 is out of range (expected seconds above 0, at most 3600)",
            ),
        ] {
            assert_eq!(ranges_of(&flags), Err(error.to_string()));
        }
    }
}
