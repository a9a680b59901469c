//! `pan-detect corpus`: builds a PAN-style corpus with known plagiarism cases, or
//! checks one (`--check DIR`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use crate::corpus_builder::{self, CorpusSpec, DocChars, ObfuscationMix, SizeGoal};
use anyhow::Context;

use crate::cli::messages::{self, count};
use crate::cli::progress_bar::TerminalProgress;

/// Arguments of `pan-detect corpus`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect corpus --texts corpus-fixtures/texts --out /tmp/my-corpus --seed 7 --sources 10 --suspicious 10
  pan-detect corpus --texts corpus-fixtures/texts --out /tmp/ocr-corpus --seed 7 --sources 10 --suspicious 10 --obfuscation ocr
  pan-detect corpus --texts corpus-fixtures/texts --out /tmp/reuse-corpus --seed 7 --target-mb 2 --doc-chars 3k..15k --reuse-pool 1000")]
pub struct Args {
    /// Directories (or files) of plain UTF-8 texts; their .txt files are read
    /// recursively in sorted order.
    #[arg(long, value_name = "DIR", num_args = 1.., required_unless_present = "check")]
    texts: Vec<PathBuf>,

    /// Directory to write the corpus to (created; must be empty if it exists, and
    /// may not be, lie inside or contain a --texts directory).
    #[arg(long, value_name = "DIR", required_unless_present = "check")]
    out: Option<PathBuf>,

    /// Seed of every random choice: the same seed and texts give the same corpus.
    #[arg(long, value_name = "N", required_unless_present = "check")]
    seed: Option<u64>,

    /// Range of document sizes in characters (log-uniform), e.g. 3k..300k.
    #[arg(long, value_name = "MIN..MAX", default_value = "3000..300000")]
    doc_chars: DocChars,

    /// Number of source documents (default: cut all texts once, half and half).
    #[arg(long, value_name = "N", conflicts_with = "target_mb")]
    sources: Option<usize>,

    /// Number of suspicious documents (default: as many as --sources).
    #[arg(long, value_name = "M", conflicts_with = "target_mb")]
    suspicious: Option<usize>,

    /// Make documents until they hold about this many megabytes (10^6 bytes),
    /// recombining input sentences when the texts are smaller.
    #[arg(long, value_name = "MB")]
    target_mb: Option<f64>,

    /// Share of suspicious documents that receive plagiarism cases.
    #[arg(long, value_name = "F", default_value_t = 0.5)]
    plagiarised_fraction: f64,

    /// Synonym list for semantic obfuscation: one group of comma-separated
    /// synonyms per line.
    #[arg(long, value_name = "FILE")]
    synonyms: Option<PathBuf>,

    /// Reuse-heavy corpus: draw every document, source and suspicious, from one
    /// pool of N input sentences (of 5+ words, sampled by the seed), written
    /// without a cipher, so that any two documents share a few sentences, as
    /// theses share a template and quotations; cases are planted as usual. The
    /// pool does not depend on the corpus size. Needs --target-mb or
    /// --sources/--suspicious.
    #[arg(long, value_name = "N")]
    reuse_pool: Option<usize>,

    /// Which obfuscations cases get: `pan-pc` (the kinds of PAN-PC-10: random
    /// operations, shuffles, synonyms, normalisation; none 33 %, low 40 %,
    /// high 27 %), `ocr` (OCR noise: confusable letters such as rn/m, l/1,
    /// O/0, broken and merged words, lost punctuation; none 20 %, low 40 %,
    /// high 40 %) or `reorder` (word order destroyed: none 20 %,
    /// phrase-shuffle 30 %: the phrases between clause punctuation in another
    /// order; word-shuffle 50 %: every word and punctuation mark in a random
    /// order; a passage of fewer than 3 phrases is word-shuffled).
    #[arg(long, value_name = "MIX", default_value = "pan-pc")]
    obfuscation: Mix,

    /// Check an existing corpus instead of building one; a corpus whose build did
    /// not finish is refused.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["texts", "out", "seed", "sources", "suspicious", "target_mb", "synonyms", "reuse_pool", "obfuscation"])]
    check: Option<PathBuf>,

    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// The values of `--obfuscation`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Mix {
    PanPc,
    Ocr,
    Reorder,
}

/// Runs `pan-detect corpus`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let progress = TerminalProgress::new(args.quiet);
    if let Some(dir) = &args.check {
        let report = corpus_builder::check(dir, &progress)?;
        let reordered = match report.reordered_cases {
            0 => String::new(),
            n => format!(" and {n} reordered"),
        };
        messages::print(&format!(
            "{}: ok: {} source and {}, {} ({} verbatim{reordered} compared), {}\n",
            dir.display(),
            report.source_documents,
            count(report.suspicious_documents as u64, "suspicious document"),
            count(report.cases as u64, "case"),
            report.verbatim_cases,
            count(report.pairs as u64, "pair")
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let spec = spec_from(&args)?;
    let summary = corpus_builder::build(&spec, &progress)?;
    let stats = &summary.stats;
    let classes: Vec<String> = stats.class_counts().iter().map(|(class, n)| format!("{class} {n}")).collect();
    messages::print(&format!(
        "{}: {} source + {} ({:.1} MB), {} ({}) in {}, {:.1} s; check ok\n",
        spec.out.display(),
        stats.source_documents,
        count(stats.suspicious_documents as u64, "suspicious document"),
        stats.total_bytes() as f64 / 1e6,
        count(stats.cases as u64, "case"),
        classes.join(", "),
        count(stats.plagiarised_documents as u64, "document"),
        started.elapsed().as_secs_f64()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// Turns the command line into a library spec (clap guarantees the required ones).
fn spec_from(args: &Args) -> anyhow::Result<CorpusSpec> {
    let out = args.out.clone().context("--out is required")?;
    let seed = args.seed.context("--seed is required")?;
    let mut spec = CorpusSpec::new(args.texts.clone(), out, seed);
    spec.doc_chars = args.doc_chars;
    spec.plagiarised_fraction = args.plagiarised_fraction;
    spec.synonyms = args.synonyms.clone();
    spec.reuse_pool = args.reuse_pool;
    spec.mix = match args.obfuscation {
        Mix::PanPc => ObfuscationMix::PanPc,
        Mix::Ocr => ObfuscationMix::Ocr,
        Mix::Reorder => ObfuscationMix::Reorder,
    };
    spec.size = match (args.sources, args.suspicious, args.target_mb) {
        (None, None, None) => SizeGoal::AllInput,
        (None, None, Some(mb)) => {
            anyhow::ensure!(mb.is_finite() && mb > 0.0, "--target-mb: {mb} is not a positive number");
            SizeGoal::TargetBytes((mb * 1e6).round() as u64)
        }
        (sources, suspicious, _) => {
            // One of the two is given (clap rules out --target-mb with them).
            let sources = sources.or(suspicious).unwrap_or(1);
            SizeGoal::Documents { sources, suspicious: suspicious.unwrap_or(sources) }
        }
    };
    Ok(spec)
}
