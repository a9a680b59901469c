//! `pan-detect extract`: every passage duplicated inside one collection of
//! documents (dupi's extraction, no query), as text, JSON lines or one PAN XML
//! report per document.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::archive::{ArchiveIndex, SettingsOverride};
use crate::detect::params::{DetectParams, Preset};
use crate::extraction::{
    ExtractOptions, Extraction, GroupFormat, check_groups_file, extract_dir, extract_index, write_groups_file,
};
use crate::report::output::NewDirectories;
use crate::report::{DetectionSink, PanXmlDirectory};
use anyhow::Context;
use clap::ValueEnum;

use super::args::{Overlap, PresetArg, StrictArg, ThreadsArg};
use crate::cli::messages::{self, count, skipped_files};
use crate::cli::progress_bar::TerminalProgress;

/// Arguments of `pan-detect extract`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect extract --docs corpus-fixtures/duplicates
  pan-detect extract --docs corpus-fixtures/duplicates --format jsonl --out /tmp/pd-duplicates.jsonl")]
pub struct Args {
    /// Directory of the documents (`*.txt`, `*.pdf`, `*.docx`, `*.odt`,
    /// `*.html`, `*.htm` directly in it, or in its subfolders too with
    /// --recursive, as `detect` reads them).
    #[arg(long, value_name = "DIR", required_unless_present = "index", conflicts_with = "index")]
    docs: Option<PathBuf>,
    /// Read the documents in the subfolders of --docs too, named by their
    /// path relative to it (`2026/thesis.pdf`), as `detect --recursive` does.
    #[arg(long, conflicts_with = "index")]
    recursive: bool,
    /// An archive index (`pan-detect index create`) instead of --docs: its
    /// documents' stored chunks and settings, their texts read back from its
    /// documents directory, its taboo set left out.
    #[arg(long, value_name = "IDX")]
    index: Option<PathBuf>,
    /// Method: `best` (chunks shared, then sentence alignment) or `pan09` (valid
    /// intervals of shared chunks) [default: best; with --index: the index's].
    #[arg(long, value_enum)]
    preset: Option<PresetArg>,
    /// Keep only chunks found in at least μ + K·σ documents (μ, σ: mean and
    /// standard deviation of the document frequency of all the collection's
    /// chunks), and in at least 2 [default: every chunk in 2 documents or more].
    #[arg(long, value_name = "K")]
    sigma: Option<f64>,
    /// Passages of a document that overlap among its pairs with later
    /// documents: keep all (the groups join them), or keep the largest, or
    /// trim the others, as `detect` does per suspicious document [default: keep-all].
    #[arg(long, value_enum)]
    overlap: Option<Overlap>,
    /// Output: text (groups with excerpts) or jsonl (one JSON object per
    /// group), to stdout or --out FILE; pan-xml (one report per document
    /// naming the other documents as sources) into --out DIR.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The file (text, jsonl) or directory (pan-xml) to write; a file already
    /// there is replaced only when it is output of this format.
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    strict: StrictArg,
    /// No progress bars (they are also off when stderr is not a terminal).
    #[arg(long)]
    quiet: bool,
}

/// `--format` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Groups with their documents, character ranges and an excerpt.
    Text,
    /// One JSON object per group.
    Jsonl,
    /// One PAN XML report per document.
    PanXml,
}

/// Where the result goes, checked before any document is read.
enum Output {
    /// Groups on stdout.
    Stdout(GroupFormat),
    /// Groups into a file.
    File(GroupFormat, PathBuf),
    /// PAN XML reports into a directory.
    PanXml(PanXmlDirectory),
}

impl Output {
    /// The output of `--format` and `--out`; a file is checked here, a
    /// directory by the extraction before it reads anything.
    fn create(args: &Args) -> anyhow::Result<Output> {
        let groups = match args.format {
            Format::Text => GroupFormat::Text,
            Format::Jsonl => GroupFormat::Jsonl,
            Format::PanXml => {
                let Some(out) = &args.out else { anyhow::bail!("--format pan-xml needs --out DIR") };
                return Ok(Output::PanXml(PanXmlDirectory::create(out)?));
            }
        };
        match &args.out {
            None => Ok(Output::Stdout(groups)),
            Some(out) => {
                check_groups_file(out, groups, args.docs.as_deref())?;
                Ok(Output::File(groups, out.clone()))
            }
        }
    }

    /// The sink of the PAN XML reports, if they are the output.
    fn sink(&self) -> Option<&dyn DetectionSink> {
        match self {
            Output::PanXml(directory) => Some(directory),
            _ => None,
        }
    }

    /// Writes the groups (the reports are written by the extraction).
    fn write(&self, extraction: &Extraction) -> anyhow::Result<()> {
        match self {
            Output::Stdout(format) => {
                let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
                format.write(extraction, &mut out)?;
                out.flush()?;
            }
            Output::File(format, path) => write_groups_file(extraction, *format, path)?,
            Output::PanXml(_) => {}
        }
        Ok(())
    }
}

/// Runs `pan-detect extract`; a run that stops removes the output
/// directories it made and left empty.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match &args.out {
        Some(out) => NewDirectories::removed_on_failure(out, || extract(&args)),
        None => extract(&args),
    }
}

fn extract(args: &Args) -> anyhow::Result<ExitCode> {
    args.threads.configure()?;
    let options =
        ExtractOptions { sigma: args.sigma, overlap: args.overlap.map(Into::into), recursive: args.recursive };
    options.validate()?;
    let output = Output::create(args)?;
    let progress = TerminalProgress::new(args.quiet);
    let extraction = match (&args.docs, &args.index) {
        (Some(docs), _) => {
            let params = DetectParams::preset(args.preset.map_or(Preset::Best, Preset::from));
            extract_dir(docs, &params, &options, output.sink(), &progress)
        }
        (None, Some(index)) => {
            let index = open_index(index, args.preset)?;
            extract_index(&index, &options, output.sink(), &progress)
        }
        (None, None) => anyhow::bail!("give the documents: --docs DIR or --index IDX"),
    }
    .context("extraction stopped")?;
    output.write(&extraction)?;
    messages::note(summary_line(&extraction));
    args.strict.check(extraction.summary.skipped_files)?;
    Ok(ExitCode::SUCCESS)
}

/// Opens the archive index at `dir`, refusing a `--preset` other than its own.
fn open_index(dir: &Path, preset: Option<PresetArg>) -> anyhow::Result<ArchiveIndex> {
    let index = ArchiveIndex::open(dir)?;
    let given = SettingsOverride { preset: preset.map(Preset::from), ..SettingsOverride::default() };
    given.check_against(index.settings(), dir)?;
    Ok(index)
}

/// The run in one line: documents, chunks kept, passages and groups, times.
fn summary_line(extraction: &Extraction) -> String {
    let (s, blots) = (&extraction.summary, &extraction.blots);
    let total = s.read + s.build_index + s.matching;
    let aligned =
        if s.aligned_pairs > 0 { format!(" ({} aligned)", count(s.aligned_pairs, "pair")) } else { String::new() };
    format!(
        "{} ({:.1} MB){}, {}: {} of {} in {} documents or more (df mean {:.2}, sd {:.2}){aligned}, {} in {} \
         in {:.2} s (read {:.2} s, index {:.2} s, match {:.2} s)",
        count(s.documents, "document"),
        s.input_bytes as f64 / 1e6,
        skipped_files(s.skipped_files),
        count(s.chunks, "chunk"),
        blots.kept_chunks,
        count(blots.distinct_chunks, "distinct chunk"),
        blots.min_df,
        blots.mean,
        blots.std_dev,
        count(extraction.passages.len() as u64, "passage"),
        count(extraction.groups.len() as u64, "group"),
        total.as_secs_f64(),
        s.read.as_secs_f64(),
        s.build_index.as_secs_f64(),
        s.matching.as_secs_f64(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_the_threshold_and_counts() {
        let mut extraction = Extraction { names: vec!["a.txt".into(), "b.txt".into()], ..Extraction::default() };
        extraction.summary.documents = 2;
        extraction.blots.min_df = 2;
        extraction.blots.kept_chunks = 3;
        extraction.blots.distinct_chunks = 10;
        let line = summary_line(&extraction);
        assert!(
            line.starts_with("2 documents (0.0 MB), 0 chunks: 3 of 10 distinct chunks in 2 documents or more"),
            "{line}"
        );
        assert!(line.contains("0 passages in 0 groups"), "{line}");
    }
}
