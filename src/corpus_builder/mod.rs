//! Builds PAN-style corpora with known plagiarism cases, the way the PAN-PC
//! corpora were made (Potthast et al. 2010, "An Evaluation Framework for
//! Plagiarism Detection").
//!
//! Pipeline ([`build()`]):
//! 1. [`texts`]: the input `.txt` files are read in blocks and split into
//!    sentences; consecutive sentences are cut into documents of a log-uniform size
//!    between `doc_chars.min` and `doc_chars.max`, each assigned to the source or
//!    the suspicious set. When the input runs out before the requested size, further
//!    documents are recombined from randomly drawn input sentences — source
//!    documents only from sentences of source documents, suspicious ones only from
//!    suspicious ones, and each recombined document in its own letter cipher
//!    (a random permutation of a-z), so that no two documents share text except
//!    through the cases, however often a sentence is drawn (`pool.rs`).
//!    In the reuse-heavy mode ([`reuse`], `--reuse-pool N`) every document is
//!    instead drawn from one shared pool of N input sentences, without a cipher,
//!    so that any two documents share a few sentences.
//! 2. [`plan`] + [`obfuscate`]: a share of the suspicious documents receives
//!    cases: a passage of a source document (short, medium or long) is obfuscated
//!    and inserted at a sentence boundary.
//! 3. The truth (`.xml` per suspicious document), then `cases.tsv`, `pairs` and,
//!    last, `README.txt` ([`stats`]) are written; the [`INCOMPLETE_MARKER`] written
//!    first is removed, and [`check()`] verifies what was written.
//!
//! Offsets are character offsets (Unicode scalar values), as everywhere in PAN.
//!
//! # Memory
//! Documents are written as soon as they are made; what stays in memory is one
//! input block (at most [`texts::BLOCK_BYTES`]), the documents being worked on (one
//! per thread, plus a batch of at most 32 recombined documents), the sentence pools
//! used for recombination (at most [`build::POOL_CAP_BYTES`] per set, or the N
//! sentences of the reuse-heavy mode's shared pool with two counters each) and a
//! few hundred bytes per document and case. Source documents are read back from disk
//! when a case needs a passage from them.
//!
//! # Determinism
//! Every random choice comes from [`plan::rng_for`] (ChaCha8 from `rand_chacha`,
//! keyed by the seed, a purpose and a document number), documents handled in
//! parallel are collected in document order, and input files are read in sorted
//! order: the same seed and the same input texts give a byte-identical corpus,
//! whatever the number of threads.

pub mod build;
pub mod check;
pub mod language;
pub mod obfuscate;
mod paths;
pub mod plan;
mod pool;
pub mod reuse;
pub mod stats;
pub mod texts;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::progress::Progress;

pub use check::{CheckReport, check};
pub use plan::ObfuscationMix;
pub use stats::{CorpusStats, ReuseStats};

/// Why a corpus could not be built or checked. Every variant that concerns a file
/// names it.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// Reading or writing a file or directory failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A text file is not valid UTF-8.
    #[error("{}: not valid UTF-8 at byte {byte}", .path.display())]
    Utf8 {
        /// The file.
        path: PathBuf,
        /// Offset of the first invalid byte.
        byte: u64,
    },
    /// An input directory holds no `.txt` file.
    #[error("{}: no .txt files in this directory", .path.display())]
    NoTexts {
        /// The directory.
        path: PathBuf,
    },
    /// The input texts are too small for even one source and one suspicious document.
    #[error(
        "the input texts ({chars} characters in sentences) are too small for a source and a suspicious document of at least {min} characters"
    )]
    TooLittleInput {
        /// Characters seen in the input.
        chars: u64,
        /// The smallest document size.
        min: usize,
    },
    /// The synonym file is malformed.
    #[error("{}: line {line}: {message}", .path.display())]
    Synonyms {
        /// The synonym file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The output directory exists and is not empty.
    #[error("{}: output directory exists and is not empty; remove it or choose another", .path.display())]
    OutputNotEmpty {
        /// The output directory.
        path: PathBuf,
    },
    /// The output directory and an input text directory overlap: one is, or is
    /// inside, the other, so a build would write into its own input.
    #[error("--out {}: {relation} --texts {}; choose an output directory outside the texts", .out.display(), .texts.display())]
    OutputOverlapsTexts {
        /// The output directory, as given.
        out: PathBuf,
        /// The text directory (or file), as given.
        texts: PathBuf,
        /// How they overlap: "is inside", "contains" or "is the same directory as".
        relation: &'static str,
    },
    /// The corpus was not completely written: its build was interrupted (or is
    /// still running).
    #[error("{}: incomplete corpus: {reason}", .path.display())]
    Incomplete {
        /// The corpus directory.
        path: PathBuf,
        /// The evidence and what is missing.
        reason: String,
    },
    /// An option has an invalid value.
    #[error("{option}: {message}")]
    InvalidOption {
        /// The command-line option, e.g. `--doc-chars`.
        option: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The check of a corpus found problems.
    #[error(
        "{}: check failed with {} problem(s); first: {}",
        .path.display(),
        .problems.len(),
        .problems.first().map_or("", String::as_str)
    )]
    CheckFailed {
        /// The corpus directory.
        path: PathBuf,
        /// One line per problem, each naming the file.
        problems: Vec<String>,
    },
}

/// Range of document sizes in characters, `MIN..MAX` on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocChars {
    /// Smallest document (characters).
    pub min: usize,
    /// Largest document (characters).
    pub max: usize,
}

impl Default for DocChars {
    /// 3,000 to 300,000 characters, about 1 to 100 pages.
    fn default() -> Self {
        DocChars { min: 3_000, max: 300_000 }
    }
}

impl FromStr for DocChars {
    type Err = String;

    /// Parses `MIN..MAX`; either number may end in `k` (thousand) or `M` (million).
    fn from_str(text: &str) -> Result<DocChars, String> {
        let usage = || format!("'{text}' is not MIN..MAX, e.g. 3000..300000 or 3k..300k");
        let (min, max) = text.split_once("..").ok_or_else(usage)?;
        let number = |part: &str| -> Result<usize, String> {
            let part = part.trim();
            let (digits, factor) = match part.strip_suffix(['k', 'K']) {
                Some(digits) => (digits, 1_000),
                None => match part.strip_suffix('M') {
                    Some(digits) => (digits, 1_000_000),
                    None => (part, 1),
                },
            };
            digits.parse::<usize>().ok().and_then(|n| n.checked_mul(factor)).ok_or_else(usage)
        };
        Ok(DocChars { min: number(min)?, max: number(max)? })
    }
}

/// How many documents to make.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeGoal {
    /// Cut all input texts into documents once (no recombination).
    AllInput,
    /// Exactly this many source and suspicious documents.
    Documents {
        /// Number of source documents.
        sources: usize,
        /// Number of suspicious documents.
        suspicious: usize,
    },
    /// Documents until source and suspicious texts reach this many bytes (before
    /// cases are inserted, so the corpus ends up somewhat larger).
    TargetBytes(u64),
}

/// What corpus to build: the options of `pan-detect corpus`.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusSpec {
    /// Directories (or files) of UTF-8 `.txt` texts, read in this order.
    pub texts: Vec<PathBuf>,
    /// Output directory; created, must be empty if it exists, and may not be, lie
    /// inside or contain one of `texts`.
    pub out: PathBuf,
    /// Seed of every random choice.
    pub seed: u64,
    /// Range of document sizes.
    pub doc_chars: DocChars,
    /// How many documents to make.
    pub size: SizeGoal,
    /// Share of suspicious documents that receive cases.
    pub plagiarised_fraction: f64,
    /// Optional synonym list (one comma-separated group per line) for semantic cases.
    pub synonyms: Option<PathBuf>,
    /// The reuse-heavy mode: every document is drawn from one pool of this many
    /// input sentences, without a cipher (see [`reuse`]).
    pub reuse_pool: Option<usize>,
    /// Which obfuscations the cases get.
    pub mix: ObfuscationMix,
}

impl CorpusSpec {
    /// A spec with the defaults: all input once, 3k..300k characters, half the
    /// suspicious documents plagiarised, no synonyms, no shared pool.
    pub fn new(texts: Vec<PathBuf>, out: PathBuf, seed: u64) -> CorpusSpec {
        CorpusSpec {
            texts,
            out,
            seed,
            doc_chars: DocChars::default(),
            size: SizeGoal::AllInput,
            plagiarised_fraction: 0.5,
            synonyms: None,
            reuse_pool: None,
            mix: ObfuscationMix::PanPc,
        }
    }

    /// Checks the options; the error names the offending option.
    pub fn validate(&self) -> Result<(), CorpusError> {
        let invalid = |option, message: String| Err(CorpusError::InvalidOption { option, message });
        if self.texts.is_empty() {
            return invalid("--texts", "give at least one directory of texts".into());
        }
        let DocChars { min, max } = self.doc_chars;
        if min < 200 {
            return invalid("--doc-chars", format!("documents of {min} characters are too small (at least 200)"));
        }
        if min > max {
            return invalid("--doc-chars", format!("MIN {min} is larger than MAX {max}"));
        }
        if max > 100_000_000 {
            return invalid("--doc-chars", format!("MAX {max} is larger than 100M characters"));
        }
        if !(0.0..=1.0).contains(&self.plagiarised_fraction) {
            return invalid("--plagiarised-fraction", format!("{} is not between 0 and 1", self.plagiarised_fraction));
        }
        match self.size {
            SizeGoal::Documents { sources, suspicious } if sources == 0 || suspicious == 0 => {
                return invalid(
                    "--sources/--suspicious",
                    "need at least one source and one suspicious document".into(),
                );
            }
            SizeGoal::TargetBytes(0) => return invalid("--target-mb", "the target size must be positive".into()),
            _ => {}
        }
        match (self.reuse_pool, self.size) {
            (Some(0), _) => invalid("--reuse-pool", "the pool must hold at least one sentence".into()),
            (Some(_), SizeGoal::AllInput) => invalid(
                "--reuse-pool",
                "give --target-mb or --sources/--suspicious too: documents drawn from a pool have no natural number"
                    .into(),
            ),
            _ => Ok(()),
        }
    }
}

/// What [`build()`] made: the corpus statistics (also in `README.txt`) and the
/// result of the check run on the written corpus.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Statistics of the corpus.
    pub stats: CorpusStats,
    /// The check of the written corpus.
    pub check: CheckReport,
}

/// Builds the corpus described by `spec` into `spec.out` and checks it.
pub fn build(spec: &CorpusSpec, progress: &dyn Progress) -> Result<Summary, CorpusError> {
    build::build(spec, progress)
}

/// The file a build writes into the output directory before anything else and
/// removes when everything else is written: while it is there, the corpus is
/// incomplete (being built, or its build was killed), and `--check` refuses it.
pub const INCOMPLETE_MARKER: &str = "INCOMPLETE";

/// The files a build writes after all documents and truth files, in this order:
/// `README.txt`, written last, marks a corpus whose files are all there (corpora
/// built before [`INCOMPLETE_MARKER`] existed have it too).
pub const SUMMARY_FILES: [&str; 3] = ["cases.tsv", "pairs", "README.txt"];

/// File name of source document `number` (1-based): `source-document00042.txt`.
pub fn source_name(number: usize) -> String {
    format!("source-document{number:05}.txt")
}

/// File name of suspicious document `number` (1-based): `suspicious-document00042.txt`.
pub fn suspicious_name(number: usize) -> String {
    format!("suspicious-document{number:05}.txt")
}

/// The `source-documents` directory of a corpus.
pub fn source_dir(corpus: &Path) -> PathBuf {
    corpus.join("source-documents")
}

/// The `suspicious-documents` directory of a corpus.
pub fn suspicious_dir(corpus: &Path) -> PathBuf {
    corpus.join("suspicious-documents")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_chars_parse_and_validate() {
        assert_eq!("3000..300000".parse(), Ok(DocChars { min: 3000, max: 300_000 }));
        assert_eq!("3k..1M".parse(), Ok(DocChars { min: 3000, max: 1_000_000 }));
        assert!("3000-5000".parse::<DocChars>().is_err());
        assert!("a..b".parse::<DocChars>().is_err());
        let mut spec = CorpusSpec::new(vec!["texts".into()], "out".into(), 1);
        assert!(spec.validate().is_ok());
        spec.doc_chars = DocChars { min: 5000, max: 3000 };
        assert_eq!(spec.validate().unwrap_err().to_string(), "--doc-chars: MIN 5000 is larger than MAX 3000");
        spec.doc_chars = DocChars::default();
        spec.plagiarised_fraction = 1.5;
        assert!(spec.validate().is_err());
        spec.plagiarised_fraction = 0.5;
        spec.size = SizeGoal::Documents { sources: 0, suspicious: 3 };
        assert!(spec.validate().is_err());
    }

    #[test]
    fn a_reuse_pool_needs_a_size_goal_and_a_sentence() {
        let mut spec = CorpusSpec::new(vec!["texts".into()], "out".into(), 1);
        spec.reuse_pool = Some(100);
        let error = spec.validate().unwrap_err().to_string();
        assert!(error.starts_with("--reuse-pool: give --target-mb or --sources/--suspicious too"), "{error}");
        spec.size = SizeGoal::TargetBytes(1_000_000);
        assert!(spec.validate().is_ok());
        spec.reuse_pool = Some(0);
        assert_eq!(spec.validate().unwrap_err().to_string(), "--reuse-pool: the pool must hold at least one sentence");
    }
}
