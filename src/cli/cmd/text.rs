//! `pan-detect text`: write the text of each document, the text whose
//! characters the offsets of its PAN XML reports count.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::report::texts::extract_texts;
use anyhow::Context;

use super::args::StrictArg;
use crate::cli::messages::{self, count, skipped_files};
use crate::cli::progress_bar::TerminalProgress;

/// Arguments of `pan-detect text`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect text --out /tmp/pd-texts corpus-fixtures/documents/suspicious-document00007.pdf corpus-fixtures/documents/suspicious-document00007.docx")]
pub struct Args {
    /// Documents: PDF, DOCX, ODT, HTML or plain text, the format told by content.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Directory for the texts, one `<name>.txt` per document (`thesis.pdf.txt`
    /// for `thesis.pdf`, `a.txt` for `a.txt`); created when missing. An existing
    /// file there is replaced only by the same text; any other stops the run
    /// before anything is written.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    strict: StrictArg,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// Runs `pan-detect text`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let progress = TerminalProgress::new(args.quiet);
    let summary = extract_texts(&args.files, &args.out, &progress).context("text extraction stopped")?;
    let unchanged = if summary.unchanged > 0 { format!(", {} unchanged", summary.unchanged) } else { String::new() };
    messages::note(format_args!(
        "extracted {} into {} ({}){unchanged}{}",
        count(summary.written + summary.unchanged, "text"),
        args.out.display(),
        count(summary.chars, "character"),
        skipped_files(summary.skipped),
    ));
    args.strict.check(summary.skipped)?;
    Ok(ExitCode::SUCCESS)
}
