//! Flags and flag values shared by several subcommands.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::cluster::{Cluster, DEFAULT_CONNECT_TIMEOUT};
use clap::{CommandFactory, FromArgMatches, ValueEnum};

use crate::analysis::tokenize::TokenizerKind;
use crate::archive::SettingsOverride;
use crate::cli::messages::count;
use crate::detect::params::Preset;
use crate::matching::overlap::OverlapPolicy;

/// `--preset` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PresetArg {
    /// Candidate pairs from the chunk index, then sentence alignment.
    Best,
    /// The PAN'09 paper's method with its exact defaults.
    Pan09,
}

impl From<PresetArg> for Preset {
    fn from(preset: PresetArg) -> Self {
        match preset {
            PresetArg::Best => Preset::Best,
            PresetArg::Pan09 => Preset::Pan09,
        }
    }
}

/// `--overlap` values.
#[derive(Clone, Copy, ValueEnum)]
pub enum Overlap {
    /// Keep only the largest of overlapping passages (PAN).
    Largest,
    /// Keep the largest (passages bounded by verbatim runs first; between sources, the most alike characters first: length times the cosine of the sides times the share of the suspicious side's words the source side holds) and cut the overlapped parts out of the others; in full search two sources that both hold a stretch (the same passage, as alike within 5 %) both keep it.
    Trim,
    /// Keep every passage (archive).
    KeepAll,
}

impl From<Overlap> for OverlapPolicy {
    fn from(overlap: Overlap) -> Self {
        match overlap {
            Overlap::Largest => OverlapPolicy::Largest,
            Overlap::Trim => OverlapPolicy::Trim,
            Overlap::KeepAll => OverlapPolicy::KeepAll,
        }
    }
}

/// `--hashing` values: which words make a chunk.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HashingArg {
    /// Consecutive words (the papers' chunks).
    Contiguous,
    /// Every other word: two streams, of even and of odd words (dupi).
    Interleaved,
}

/// `--threads`, for the commands that run in parallel.
#[derive(clap::Args)]
pub struct ThreadsArg {
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

impl ThreadsArg {
    /// Sizes rayon's global pool (see [`crate::cli::threads::configure`]).
    pub fn configure(&self) -> anyhow::Result<()> {
        crate::cli::threads::configure(self.threads)
    }

    /// Runs `work` on a pool of `--threads` threads of its own (counted as
    /// [`crate::cli::threads::capped`]), or without the flag on rayon's
    /// global pool, which it leaves alone: for the calls of the Python
    /// module, each of which may ask for another count.
    pub fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> anyhow::Result<T> {
        let Some(threads) = self.threads else { return Ok(work()) };
        let threads = crate::cli::threads::capped("--threads", threads)?;
        Ok(rayon::ThreadPoolBuilder::new().num_threads(threads).build()?.install(work))
    }
}

/// Parses `flags`, the command line of a command after its name (`--docs
/// DIR --min-word-len 4`), into its arguments `A`, refused as the command
/// refuses them with the first line of clap's message: for callers other
/// than the command line, such as the Python module.
pub fn parse_flags<A: clap::Args + clap::FromArgMatches>(flags: &[OsString]) -> anyhow::Result<A> {
    /// The arguments as a command of their own.
    #[derive(clap::Parser)]
    #[command(name = "pan-detect", no_binary_name = true)]
    struct Flags<A: clap::Args> {
        #[command(flatten)]
        args: A,
    }
    let command = crate::cli::allow_negative_numbers(Flags::<A>::command());
    let matches = command.try_get_matches_from(flags).map_err(|error| anyhow::anyhow!(clap_line(&error)))?;
    Ok(Flags::<A>::from_arg_matches(&matches)?.args)
}

/// The first line of a clap error, without its `error: `.
fn clap_line(error: &clap::Error) -> String {
    let text = error.render().to_string();
    let line = text.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// `--strict`, for the commands that skip files they cannot read as text.
#[derive(clap::Args)]
pub struct StrictArg {
    /// Fail (exit status 1) when any file was skipped; without it a skipped file
    /// is a warning and the summary counts it.
    #[arg(long)]
    strict: bool,
}

impl StrictArg {
    /// An error after a run that skipped `skipped` files, with `--strict`; the
    /// warnings have named them.
    pub fn check(&self, skipped: u64) -> anyhow::Result<()> {
        if self.strict && skipped > 0 {
            anyhow::bail!("{} skipped (named above); failing because of --strict", count(skipped, "file"));
        }
        Ok(())
    }
}

/// The tokenizer and chunker flags of the archive commands (`index create`,
/// `index update`, `check`). `index create` takes the defaults for the flags not
/// given; the other commands take the index's values and refuse different ones.
///
/// `detect` declares its own: there they override a preset's values, it has no
/// `--sort`, and its help texts differ.
#[derive(clap::Args)]
pub struct SettingsArgs {
    /// Count digits as word characters (default when creating).
    #[arg(long, conflicts_with = "no_digits")]
    digits: bool,
    /// Letters only: digits separate words and are ignored.
    #[arg(long)]
    no_digits: bool,
    /// Ignore words shorter than this many characters (default when creating: 3).
    #[arg(long, value_name = "N")]
    min_word_len: Option<usize>,
    /// Words per chunk, 1..=32 (default when creating: 5).
    #[arg(long, value_name = "N")]
    chunk_words: Option<usize>,
    /// Sort the words of a chunk before hashing (default when creating).
    #[arg(long, conflicts_with = "no_sort")]
    sort: bool,
    /// Keep the words of a chunk in text order.
    #[arg(long)]
    no_sort: bool,
    /// Bits of MD5 kept as a chunk's hash, 24..=64 (default when creating: 32).
    #[arg(long, value_name = "BITS")]
    hash_bits: Option<u32>,
    /// The method the index serves (default when creating: pan09): `best`
    /// indexes the alignment stage's candidate chunks, and `check` then aligns
    /// each candidate document as `detect --preset best` does, so that
    /// paraphrased passages are found too.
    #[arg(long, value_enum, value_name = "PRESET")]
    preset: Option<PresetArg>,
    /// What a token is: `words`, `chars:N` (every N consecutive letters, for
    /// scripts without spaces) or `code` (source code tokens, identifiers and
    /// literals normalised; chunks of 10 tokens in text order by default)
    /// (default when creating: words). `chars:N` and `code` work with the
    /// pan09 preset only.
    #[arg(long, value_name = "KIND", value_parser = parse_tokenizer)]
    tokenizer: Option<TokenizerKind>,
    /// Which words make a chunk: `contiguous` (consecutive words) or
    /// `interleaved` (every other word: robust to OCR noise) (default when
    /// creating: contiguous).
    #[arg(long, value_enum, value_name = "KIND")]
    hashing: Option<HashingArg>,
}

/// Parses a `--tokenizer` value (the library's parser; its message is the error).
pub fn parse_tokenizer(value: &str) -> Result<TokenizerKind, String> {
    value.parse()
}

/// Refuses `--preset best` with a tokenizer other than words: the alignment
/// stage reads words (stop words, stems, sentences).
pub fn check_tokenizer_preset(tokenizer: Option<TokenizerKind>, preset: Option<PresetArg>) -> anyhow::Result<()> {
    match (tokenizer, preset) {
        (Some(kind), Some(PresetArg::Best)) if !kind.is_words() => anyhow::bail!(
            "--tokenizer {kind} works with --preset pan09 only (the best preset's sentence alignment reads words)"
        ),
        _ => Ok(()),
    }
}

impl SettingsArgs {
    /// The flags given, as the library's override; `--preset best` with a
    /// tokenizer other than words is refused.
    pub fn to_override(&self) -> anyhow::Result<SettingsOverride> {
        check_tokenizer_preset(self.tokenizer, self.preset)?;
        let flag = |yes: bool, no: bool| {
            if yes {
                Some(true)
            } else if no {
                Some(false)
            } else {
                None
            }
        };
        Ok(SettingsOverride {
            digits: flag(self.digits, self.no_digits),
            min_word_len: self.min_word_len,
            chunk_words: self.chunk_words,
            sorted: flag(self.sort, self.no_sort),
            hash_bits: self.hash_bits,
            preset: self.preset.map(Preset::from),
            tokenizer: self.tokenizer,
            interleaved: self.hashing.map(|hashing| hashing == HashingArg::Interleaved),
        })
    }
}

/// The options of a run on timely dataflow, over worker threads and processes.
#[derive(clap::Args)]
#[command(next_help_heading = "Running on several machines")]
pub struct ClusterArgs {
    /// Run on timely dataflow with W worker threads per process; each worker
    /// reads its share of the documents and holds one range of the index.
    #[arg(long, value_name = "W")]
    workers: Option<usize>,
    /// Processes of the run (each started with the same command and its own
    /// --process); with no --hostfile they listen on 127.0.0.1:2101 onwards.
    #[arg(long, value_name = "N")]
    processes: Option<usize>,
    /// This process's number, from 0 to N-1.
    #[arg(long, value_name = "I", default_value_t = 0)]
    process: usize,
    /// A file of `host:port` lines, one per process in process order, the same
    /// on every machine.
    #[arg(long, value_name = "FILE")]
    hostfile: Option<PathBuf>,
    /// Seconds to wait for the other processes to connect.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_CONNECT_TIMEOUT.as_secs())]
    connect_timeout: u64,
}

impl ClusterArgs {
    /// The cluster these options describe; `None` when none was given (the
    /// run stays in this process, on rayon's threads).
    pub fn cluster(&self) -> anyhow::Result<Option<Cluster>> {
        if self.workers.is_none() && self.processes.is_none() && self.hostfile.is_none() && self.process == 0 {
            return Ok(None);
        }
        let workers = self.workers.unwrap_or(1);
        // Unlike --threads, not lowered: every process of a run needs the same count.
        let limit = crate::cli::threads::thread_limit();
        if workers > limit {
            anyhow::bail!(
                "--workers {workers} is out of range (at most {} × the {} cores: {limit})",
                crate::cli::threads::MAX_THREADS_PER_CORE,
                crate::cli::threads::cores()
            );
        }
        let mut cluster = Cluster::new(workers, self.processes, self.process, self.hostfile.as_deref())?;
        cluster.connect_timeout = Duration::from_secs(self.connect_timeout);
        Ok(Some(cluster))
    }
}

/// The line of a process of several about the bytes it sent to the others.
pub fn note_traffic(cluster: &Cluster, sent: u64) {
    if cluster.processes() > 1 {
        let (process, processes, mb) = (cluster.process, cluster.processes(), sent as f64 / 1e6);
        crate::cli::messages::note(format_args!("process {process} of {processes}: sent {mb:.1} MB to the others"));
    }
}
