//! `pan-detect similar`: the table of document similarities, as CSV or JSON lines.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;
use pan_detect::archive::similar::{SimilarParams, SimilarRow, similar};
use pan_detect::archive::{ArchiveError, ArchiveIndex};

use super::args::ThreadsArg;
use crate::messages::{self, count};

/// Arguments of `pan-detect similar`.
#[derive(clap::Args)]
pub struct Args {
    /// Index directory.
    #[arg(long, value_name = "IDX")]
    index: PathBuf,
    /// Rows kept per document, most similar first.
    #[arg(long, value_name = "N", default_value_t = 100)]
    top: usize,
    /// Leave out rows below this similarity (percent).
    #[arg(long, value_name = "PERCENT", default_value_t = 1.0)]
    min_percent: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
    /// Only the rows touching documents added or modified by the last update
    /// (and, on stderr, the documents it deleted).
    #[arg(long)]
    since_update: bool,
    /// Leave out chunks with more postings than this (boilerplate); the number
    /// left out is reported. Default: none is.
    #[arg(long, value_name = "N")]
    max_postings: Option<u64>,
    /// Check every index file's CRC-32 first (reads the whole index).
    #[arg(long)]
    verify: bool,
    #[command(flatten)]
    threads: ThreadsArg,
}

/// `--format` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// `document,other,similarity,common_chunks` with a header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// Runs `pan-detect similar`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    args.threads.configure()?;
    let started = Instant::now();
    let index = ArchiveIndex::open(&args.index)?;
    if args.verify {
        index.verify()?;
    }
    if !(0.0..=100.0).contains(&args.min_percent) {
        anyhow::bail!("--min-percent {} is out of range (expected 0..=100)", args.min_percent);
    }
    let params = SimilarParams {
        top: args.top,
        min_percent: args.min_percent,
        since_update: args.since_update,
        max_postings: args.max_postings,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let io = |source| ArchiveError::Io { path: PathBuf::from("<stdout>"), source };
    if args.format == Format::Csv {
        writeln!(out, "document,other,similarity,common_chunks").map_err(io)?;
    }
    let format = args.format;
    let mut write_row = |row: &SimilarRow| -> Result<(), ArchiveError> {
        match format {
            Format::Csv => writeln!(
                out,
                "{},{},{:.2},{}",
                csv_field(&row.document),
                csv_field(&row.other),
                row.similarity,
                row.common_chunks
            ),
            Format::Jsonl => {
                // A row of strings and numbers always serializes.
                let line = serde_json::to_string(row).expect("row serializes");
                writeln!(out, "{line}")
            }
        }
        .map_err(io)
    };
    let summary = similar(&index, &params, &mut write_row)?;
    out.flush().map_err(io)?;
    let skipped = if summary.frequent_chunks_skipped > 0 {
        format!(", {} left out (--max-postings)", count(summary.frequent_chunks_skipped, "frequent chunk lookup"))
    } else {
        String::new()
    };
    for name in &summary.deleted {
        messages::note(format_args!("deleted by the last update: {name}"));
    }
    messages::note(format_args!(
        "{}, {}{skipped} in {:.2} s",
        count(summary.documents, "document"),
        count(summary.rows, "row"),
        started.elapsed().as_secs_f64()
    ));
    Ok(ExitCode::SUCCESS)
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}
