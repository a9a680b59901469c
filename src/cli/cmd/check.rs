//! `pan-detect check`: what in the archive each given file is similar to (the
//! thesis-upload case), as text, JSON, HTML or PAN XML reports. The index's
//! taboo set is left out of every file; the text output and the summary line
//! on stderr say how many characters that was.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::analysis::code::CodeDefaults;
use crate::analysis::read::{DocumentFile, layout_of};
use crate::archive::check::{CheckParams, CheckReport, Checker, DocumentMatch};
use crate::archive::{ArchiveError, ArchiveIndex};
use crate::matching::intervals::{DEFAULT_DEPTH, DEFAULT_MAX_GAP, DEFAULT_MIN_CHUNKS, IntervalParams};
use anyhow::Context;
use clap::ValueEnum;

use super::args::{Overlap, SettingsArgs, StrictArg, parse_flags};
use crate::analysis::span::CharRange;
use crate::cli::messages::{self, count};
use crate::cli::progress_bar::TerminalProgress;
use crate::error::Warning;
use crate::progress::Progress;
use crate::report::json::Report;
use crate::report::model::DocumentReport;
use crate::report::{Detection, DetectionSink, PanXmlDirectory, ReadableFormat, ReadableReports};

/// Arguments of `pan-detect check`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect check --index /tmp/pd-index corpus-fixtures/pan/suspicious-documents/suspicious-document00001.txt
  pan-detect check --index /tmp/pd-index corpus-fixtures/documents/suspicious-document00007.pdf --format html --out /tmp/pd-check")]
pub struct Args {
    /// Index directory.
    #[arg(long, value_name = "IDX")]
    index: PathBuf,
    /// Files to check: plain text, PDF, DOCX, ODT or HTML, the format told by content.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output: text (readable), json (the schema `detect --format json` writes,
    /// docs/report-json.md: one report of every file on stdout, or one per checked file
    /// with --out), html (one page per file and index.html into --out), pan-xml
    /// (one report per file into --out).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Directory for the reports, one per checked file, named after it (needed
    /// by --format pan-xml and html; with json, instead of stdout).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Archive documents sharing fewer distinct chunks with the file are not listed.
    #[arg(long, value_name = "N", default_value_t = 1)]
    min_common: usize,
    #[arg(long, value_name = "N", help = by_tokenizer(
        "A passage (valid interval) holds at least this many matching chunks",
        DEFAULT_MIN_CHUNKS,
        CodeDefaults::default().min_chunks,
    ))]
    min_chunks: Option<usize>,
    #[arg(long, value_name = "N", help = by_tokenizer(
        "At most this many unmatched chunks between neighbouring matching chunks of a passage",
        DEFAULT_MAX_GAP,
        CodeDefaults::default().max_gap,
    ))]
    max_gap: Option<usize>,
    /// Levels of the valid-interval recursion (1..=8).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_DEPTH)]
    depth: usize,
    /// Passages that overlap in the file: keep all (archive mode), the largest (PAN), or
    /// the largest with the others trimmed.
    #[arg(long, value_enum, default_value_t = Overlap::KeepAll)]
    overlap: Overlap,
    /// Check every index file's CRC-32 first (reads the whole index).
    #[arg(long)]
    verify: bool,
    #[command(flatten)]
    strict: StrictArg,
}

/// `--format` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Readable text.
    Text,
    /// One JSON report of every file on stdout, or one per checked file into --out.
    Json,
    /// One HTML page per checked file and index.html, written into --out.
    Html,
    /// One PAN XML report per checked file, written into --out.
    PanXml,
}

impl Format {
    /// The name of the value, for messages.
    fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Html => "html",
            Format::PanXml => "pan-xml",
        }
    }
}

/// Where the answers go.
enum Output {
    /// Readable text on stdout.
    Text,
    /// One JSON report on stdout, of the documents collected.
    JsonStdout(Vec<DocumentReport>),
    /// PAN XML reports in a directory.
    PanXml(PanXmlDirectory),
    /// HTML or JSON reports in a directory.
    Readable(ReadableReports),
}

impl Output {
    /// The output of `--format` and `--out`, its directory checked before any
    /// file is: it is not the index, and no report would replace a file that
    /// is not one or be shared by two files.
    fn create(args: &Args, progress: &TerminalProgress) -> anyhow::Result<Output> {
        let names: Vec<&str> = args.files.iter().filter_map(|f| f.file_name()?.to_str()).collect();
        let inputs = [args.index.as_path()];
        let output = match (args.format, &args.out) {
            (Format::Text, Some(_)) => anyhow::bail!("--out applies to --format json, html and pan-xml, not text"),
            (Format::Text, None) => Output::Text,
            (Format::Json, None) => Output::JsonStdout(Vec::new()),
            (format @ (Format::Html | Format::PanXml), None) => {
                anyhow::bail!("--format {} needs --out DIR", format.name())
            }
            (Format::PanXml, Some(out)) => {
                let sink = PanXmlDirectory::create(out)?;
                sink.prepare(&inputs, &names, &[], progress)?;
                Output::PanXml(sink)
            }
            (format @ (Format::Json | Format::Html), Some(out)) => {
                let format = if format == Format::Html { ReadableFormat::Html } else { ReadableFormat::Json };
                let reports = ReadableReports::create(out, format)?;
                reports.prepare(&inputs, &names, progress)?;
                Output::Readable(reports)
            }
        };
        Ok(output)
    }

    /// Writes (or keeps, for JSON on stdout) the answer for `file`, whose text is `text`.
    fn add(
        &mut self,
        out: &mut impl Write,
        checker: &Checker<'_>,
        file: &Path,
        (report, text): (CheckReport, String),
    ) -> anyhow::Result<()> {
        match self {
            Output::Text => write_text(out, &report, text.chars().count() as u64),
            Output::PanXml(sink) => write_pan_xml(sink, file, &report),
            Output::JsonStdout(documents) => {
                documents.push(checker.document_report(&file_name(file)?, &report, text).0);
                Ok(())
            }
            Output::Readable(reports) => {
                let name = file_name(file)?;
                let (document, mut texts) = checker.document_report(&name, &report, text);
                if reports.shows_layout() {
                    let bytes = std::fs::metadata(file).map_or(0, |metadata| metadata.len());
                    let checked = DocumentFile { name, path: file.to_path_buf(), bytes };
                    texts.document_layout = layout_of(&checked, &texts.document);
                }
                Ok(reports.write(&document, &texts)?)
            }
        }
    }

    /// Ends the output: the JSON on stdout, or the directory's last file and sync.
    fn finish(self, out: &mut impl Write) -> anyhow::Result<()> {
        match self {
            Output::Text => {}
            Output::JsonStdout(documents) => out.write_all(Report::new(documents).to_json().as_bytes())?,
            Output::PanXml(sink) => sink.finish()?,
            Output::Readable(reports) => reports.finish()?,
        }
        Ok(())
    }
}

/// A flag's help with its default, which follows the index's tokenizer as
/// in detect ([`CheckParams::for_index`]).
fn by_tokenizer(text: &str, words: usize, code: usize) -> String {
    format!("{text} [default: {words}; {code} with an index of the code tokenizer]")
}

/// The file name of a checked file, which its reports are named after.
fn file_name(file: &Path) -> anyhow::Result<String> {
    let name = file.file_name().and_then(|n| n.to_str());
    Ok(name.with_context(|| format!("{}: no file name in UTF-8", file.display()))?.to_string())
}

/// Refuses a file to check that is missing or a folder, before anything is
/// read or written: a mistyped path is the user's error, not an upload to
/// skip with a warning as an unreadable document is (such as a broken link,
/// which a listing skips with a warning too).
fn check_files_exist(files: &[PathBuf]) -> anyhow::Result<()> {
    for file in files {
        if let Err(error) = std::fs::symlink_metadata(file) {
            anyhow::bail!("{}: cannot check: {error}", file.display());
        }
        if std::fs::metadata(file).is_ok_and(|metadata| metadata.is_dir()) {
            anyhow::bail!("{}: cannot check: a folder, not a file", file.display());
        }
    }
    Ok(())
}

/// The index of `args`, opened, its settings checked against the settings
/// flags given, and verified with `--verify`.
fn open_index(args: &Args) -> anyhow::Result<ArchiveIndex> {
    let index = ArchiveIndex::open(&args.index)?;
    args.settings.to_override()?.check_against(index.settings(), &args.index)?;
    if args.verify {
        index.verify()?;
    }
    Ok(index)
}

/// The checker of `index` with the parameters of `args`.
fn checker<'a>(args: &Args, index: &'a ArchiveIndex) -> anyhow::Result<Checker<'a>> {
    let defaults = CheckParams::for_index(index.settings()).intervals;
    let params = CheckParams {
        min_common: args.min_common,
        intervals: IntervalParams {
            min_chunks: args.min_chunks.unwrap_or(defaults.min_chunks),
            max_gap: args.max_gap.unwrap_or(defaults.max_gap),
            depth: args.depth,
        },
        overlap: args.overlap.into(),
    };
    Ok(Checker::new(index, params)?)
}

/// The warning that the archive document `name` of the index `index` was
/// not read for its passages.
fn unread_warning(index: &Path, name: &str) -> Warning {
    let message = format!(
        "archive document {name} changed or went since the index was updated: its passages are left out \
         (`pan-detect index update` brings the index up to date)"
    );
    Warning { path: index.to_path_buf(), message }
}

/// What `check --format json` prints, for the Python module: `flags` are
/// its command line after `check` but `--format` and `--out` (`--index IDX`,
/// the files and any other flag). With `text`, that text is checked instead
/// of the one file named, and named by it. As the command does, a file that
/// cannot be read is left out with a warning, sent to `progress` with the
/// others (and fails the call with `--strict`).
pub fn json_with_flags(flags: &[OsString], text: Option<&str>, progress: &dyn Progress) -> anyhow::Result<String> {
    let args: Args = parse_flags(flags)?;
    if args.format != Format::Text || args.out.is_some() {
        anyhow::bail!("--format and --out do not apply here: the answer is that of --format json on stdout");
    }
    if text.is_none() {
        check_files_exist(&args.files)?;
    }
    let index = open_index(&args)?;
    let mut checker = checker(&args, &index)?;
    let mut documents = Vec::new();
    let mut unread = std::collections::BTreeSet::new();
    let mut skipped = 0;
    for file in &args.files {
        let display = file.display().to_string();
        let (report, text) = match text {
            Some(text) => (checker.check_text(&display, text)?, text.to_string()),
            None => match checker.check_file_with_text(file, &display) {
                Ok(checked) => checked,
                Err(ArchiveError::Unreadable(warning)) => {
                    progress.warn(&warning);
                    skipped += 1;
                    continue;
                }
                Err(error) => return Err(error.into()),
            },
        };
        unread.extend(report.unread.iter().cloned());
        documents.push(checker.document_report(&file_name(file)?, &report, text).0);
    }
    for name in unread {
        progress.warn(&unread_warning(&args.index, &name));
    }
    args.strict.check(skipped)?;
    Ok(Report::new(documents).to_json())
}

/// Runs `pan-detect check`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    check_files_exist(&args.files)?;
    let progress = TerminalProgress::new(true);
    let mut output = Output::create(&args, &progress)?;
    let index = open_index(&args)?;
    let mut checker = checker(&args, &index)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut skipped = 0;
    let mut taboo_chars = 0;
    let mut unread = std::collections::BTreeSet::new();
    for file in &args.files {
        let display = file.display().to_string();
        let checked = match checker.check_file_with_text(file, &display) {
            Ok(checked) => checked,
            // One bad file does not stop the batch, as in detect.
            Err(ArchiveError::Unreadable(warning)) => {
                messages::warn(warning);
                skipped += 1;
                continue;
            }
            Err(error) => return Err(error.into()),
        };
        taboo_chars += checked.0.taboo_chars;
        unread.extend(checked.0.unread.iter().cloned());
        output.add(&mut out, &checker, file, checked)?;
    }
    output.finish(&mut out)?;
    out.flush()?;
    if skipped > 0 {
        let total = args.files.len() as u64;
        messages::note(format_args!("{} of {} checked, {skipped} skipped", total - skipped, count(total, "file")));
    }
    if taboo_chars > 0 {
        messages::note(format_args!("{} of taboo text left out", count(taboo_chars, "character")));
    }
    for name in unread {
        messages::warn(unread_warning(&args.index, &name));
    }
    args.strict.check(skipped)?;
    Ok(ExitCode::SUCCESS)
}

/// The overall line of a checked file of `file_chars` characters: the share
/// of its characters in passages (overlaps counted once), the passages, the
/// archive documents they are with, the chunks the file shares with those,
/// and the `taboo` text left out.
fn overall_line(report: &CheckReport, file_chars: u64, taboo: &str) -> String {
    let sources: Vec<&DocumentMatch> = report.documents.iter().filter(|doc| !doc.passages.is_empty()).collect();
    let passages: usize = sources.iter().map(|doc| doc.passages.len()).sum();
    let common: u64 = sources.iter().map(|doc| doc.common_chunks).sum();
    let share = if file_chars == 0 { 0.0 } else { 100.0 * report.file_aligned_chars() as f64 / file_chars as f64 };
    format!(
        "{}: {share:.1} % of the file in {} from {} ({}){taboo}",
        report.file,
        count(passages as u64, "passage"),
        count(sources.len() as u64, "source"),
        count(common, "common chunk")
    )
}

/// The readable answer for one file of `file_chars` characters: its overall
/// line, then what it shares with each archive document and their passages.
fn write_text(out: &mut impl Write, report: &CheckReport, file_chars: u64) -> anyhow::Result<()> {
    let taboo = if report.taboo_chars > 0 {
        format!(", {} of taboo text left out", count(report.taboo_chars, "character"))
    } else {
        String::new()
    };
    writeln!(out, "{}", overall_line(report, file_chars, &taboo))?;
    writeln!(
        out,
        "  {}, {} chunks with it",
        count(report.chunks, "chunk"),
        match report.documents.len() {
            1 => "1 archive document shares".to_string(),
            n => format!("{n} archive documents share"),
        }
    )?;
    for doc in &report.documents {
        writeln!(
            out,
            "    {}: {}, {:.2}% of the file in it, {:.2}% of it in the file; {}, {:.2}% of the file aligned, {:.2}% of it",
            doc.document,
            count(doc.common_chunks, "common chunk"),
            doc.file_in_document_percent,
            doc.document_in_file_percent,
            count(doc.passages.len() as u64, "passage"),
            doc.file_aligned_percent,
            doc.document_aligned_percent
        )?;
        for p in &doc.passages {
            writeln!(
                out,
                "      file {}..{} = document {}..{} ({})",
                p.file.offset,
                p.file.offset + p.file.length,
                p.document.offset,
                p.document.offset + p.document.length,
                count(p.matching_chunks, "matching chunk")
            )?;
            let show = |e: &Option<String>| e.clone().unwrap_or_else(|| "(document changed or missing)".into());
            writeln!(out, "        file:     {}", show(&p.file.excerpt))?;
            writeln!(out, "        document: {}", show(&p.document.excerpt))?;
        }
    }
    Ok(())
}

/// One PAN XML report per checked file, named after the file, exactly as the
/// detector writes them (the archive document's name is the source reference).
fn write_pan_xml(sink: &PanXmlDirectory, file: &Path, report: &CheckReport) -> anyhow::Result<()> {
    let name = file_name(file)?;
    let mut detections: Vec<Detection<'_>> = report
        .documents
        .iter()
        .flat_map(|doc| {
            doc.passages.iter().map(|p| Detection {
                this: CharRange::new(p.file.offset, p.file.offset + p.file.length),
                source_reference: doc.document.as_str(),
                source: CharRange::new(p.document.offset, p.document.offset + p.document.length),
            })
        })
        .collect();
    detections.sort_by(|a, b| (a.this, a.source_reference, a.source).cmp(&(b.this, b.source_reference, b.source)));
    sink.document(&name, &detections)?;
    Ok(())
}
