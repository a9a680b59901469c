//! `pan-detect detect` (also the default command): find plagiarised passages and
//! write one PAN XML report per suspicious document.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::ValueEnum;
use pan_detect::detect::{Summary, detect};
use pan_detect::params::{self, ChunkParams, DetectParams, IntervalParams, OverlapPolicy, TokenizerParams};
use pan_detect::report::PanXmlDirectory;

use crate::progress_bar::TerminalProgress;

/// Arguments of `pan-detect detect`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of source documents (`*.txt`; other files are ignored).
    #[arg(long, value_name = "DIR")]
    source_dir: PathBuf,
    /// Directory of suspicious documents (`*.txt`; other files, such as PAN's
    /// ground-truth `*.xml`, are ignored).
    #[arg(long, value_name = "DIR")]
    suspicious_dir: PathBuf,
    /// Directory for the reports, one `<name>.xml` per suspicious document;
    /// created when missing, other files in it are left alone.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Count digits as word characters (the default; scores best on PAN corpora).
    #[arg(long, overrides_with = "no_digits")]
    digits: bool,
    /// Letters only: digits separate words and are ignored (archive mode).
    #[arg(long, overrides_with = "digits")]
    no_digits: bool,
    /// Ignore words shorter than this many characters.
    #[arg(long, value_name = "N", default_value_t = params::DEFAULT_MIN_WORD_LEN)]
    min_word_len: usize,
    /// Words per chunk (1..=32).
    #[arg(long, value_name = "N", default_value_t = params::DEFAULT_CHUNK_WORDS)]
    chunk_words: usize,
    /// Keep the words of a chunk in text order instead of sorting them.
    #[arg(long)]
    no_sort: bool,
    /// Bits of MD5 kept as a chunk's hash (24..=64).
    #[arg(long, value_name = "BITS", default_value_t = params::DEFAULT_HASH_BITS)]
    hash_bits: u32,
    /// Source documents sharing fewer chunks with a suspicious document are not compared further.
    #[arg(long, value_name = "N", default_value_t = params::DEFAULT_MIN_COMMON)]
    min_common: usize,
    /// A valid interval holds at least this many matching chunks.
    #[arg(long, value_name = "N", default_value_t = params::DEFAULT_MIN_CHUNKS)]
    min_chunks: usize,
    /// At most this many unmatched chunks between neighbouring matching chunks of an interval.
    #[arg(long, value_name = "N", default_value_t = params::DEFAULT_MAX_GAP)]
    max_gap: usize,
    /// Levels of the valid-interval recursion: 1 checks the suspicious document, 2 both (1..=8).
    #[arg(long, value_name = "N", default_value_t = params::DEFAULT_DEPTH)]
    depth: usize,
    /// Passages that overlap in a suspicious document: keep the largest (PAN) or all (archive).
    #[arg(long, value_enum, default_value_t = Overlap::Largest)]
    overlap: Overlap,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// No progress bars (they are also off when stderr is not a terminal).
    #[arg(long)]
    quiet: bool,
}

/// `--overlap` values.
#[derive(Clone, Copy, ValueEnum)]
enum Overlap {
    /// Keep only the largest of overlapping passages.
    Largest,
    /// Keep every passage.
    KeepAll,
}

impl Args {
    fn params(&self) -> DetectParams {
        DetectParams {
            tokenizer: TokenizerParams { digits: !self.no_digits, min_word_len: self.min_word_len },
            chunks: ChunkParams { words: self.chunk_words, sorted: !self.no_sort, hash_bits: self.hash_bits },
            min_common: self.min_common,
            intervals: IntervalParams { min_chunks: self.min_chunks, max_gap: self.max_gap, depth: self.depth },
            overlap: match self.overlap {
                Overlap::Largest => OverlapPolicy::Largest,
                Overlap::KeepAll => OverlapPolicy::KeepAll,
            },
        }
    }
}

/// Runs `pan-detect detect`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let params = args.params();
    params.validate()?;
    crate::threads::configure(args.threads)?;
    let sink = PanXmlDirectory::create(&args.out)?;
    let progress = TerminalProgress::new(args.quiet);
    let summary = detect(&args.source_dir, &args.suspicious_dir, &params, &sink, &progress)
        .with_context(|| "detection stopped")?;
    eprintln!("{}", summary_line(&summary));
    Ok(ExitCode::SUCCESS)
}

fn summary_line(s: &Summary) -> String {
    let total = s.read_sources + s.build_index + s.matching;
    let skipped = if s.skipped_files > 0 { format!(", {} files skipped", s.skipped_files) } else { String::new() };
    format!(
        "pan-detect: {} source + {} suspicious documents ({:.1} MB){skipped}, {} + {} chunks, {} passages in {:.2} s \
         (read sources {:.2} s, build index {:.2} s, match {:.2} s)",
        s.source_documents,
        s.suspicious_documents,
        s.input_bytes as f64 / 1e6,
        s.source_chunks,
        s.suspicious_chunks,
        s.passages,
        total.as_secs_f64(),
        s.read_sources.as_secs_f64(),
        s.build_index.as_secs_f64(),
        s.matching.as_secs_f64(),
    )
}
