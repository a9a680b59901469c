//! `pan-detect check`: what in the archive each given file is similar to (the
//! thesis-upload case), as text, JSON or PAN XML reports. The index's taboo
//! set is left out of every file; the text output and the summary line on
//! stderr say how many characters that was.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::ValueEnum;
use pan_detect::archive::check::{CheckParams, CheckReport, Checker};
use pan_detect::archive::{ArchiveError, ArchiveIndex};
use pan_detect::matching::intervals::{DEFAULT_DEPTH, DEFAULT_MAX_GAP, DEFAULT_MIN_CHUNKS, IntervalParams};

use super::args::{Overlap, SettingsArgs, StrictArg};
use crate::messages::{self, count};
use crate::progress_bar::TerminalProgress;
use pan_detect::analysis::span::CharRange;
use pan_detect::report::{Detection, DetectionSink, PanXmlDirectory};

/// Arguments of `pan-detect check`.
#[derive(clap::Args)]
pub struct Args {
    /// Index directory.
    #[arg(long, value_name = "IDX")]
    index: PathBuf,
    /// Files to check: plain text, PDF, DOCX, ODT or HTML, the format told by content.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output: text (readable), json (stdout, stable order), pan-xml (one report per file into --out).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Directory for the PAN XML reports (with --format pan-xml).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Archive documents sharing fewer distinct chunks with the file are not listed.
    #[arg(long, value_name = "N", default_value_t = 1)]
    min_common: usize,
    /// A passage (valid interval) holds at least this many matching chunks.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_CHUNKS)]
    min_chunks: usize,
    /// At most this many unmatched chunks between neighbouring matching chunks of a passage.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_GAP)]
    max_gap: usize,
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
    /// One JSON document on stdout.
    Json,
    /// One PAN XML report per checked file, written into --out.
    PanXml,
}

/// Runs `pan-detect check`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.format == Format::PanXml && args.out.is_none() {
        anyhow::bail!("--format pan-xml needs --out DIR");
    }
    let index = ArchiveIndex::open(&args.index)?;
    args.settings.to_override().check_against(index.settings(), &args.index)?;
    if args.verify {
        index.verify()?;
    }
    let params = CheckParams {
        min_common: args.min_common,
        intervals: IntervalParams { min_chunks: args.min_chunks, max_gap: args.max_gap, depth: args.depth },
        overlap: args.overlap.into(),
    };
    let mut checker = Checker::new(&index, params)?;
    let progress = TerminalProgress::new(true);
    let sink = match (&args.out, args.format) {
        (Some(out), Format::PanXml) => {
            let sink = PanXmlDirectory::create(out)?;
            let names: Vec<&str> = args.files.iter().filter_map(|f| f.file_name()?.to_str()).collect();
            sink.prepare(&[args.index.as_path()], &names, &progress)?;
            Some(sink)
        }
        _ => None,
    };
    let mut reports = Vec::with_capacity(args.files.len());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut skipped = 0;
    let mut taboo_chars = 0;
    for file in &args.files {
        let display = file.display().to_string();
        let report = match checker.check_file(file, &display) {
            Ok(report) => report,
            // One bad file does not stop the batch, as in detect.
            Err(ArchiveError::Unreadable(warning)) => {
                messages::warn(warning);
                skipped += 1;
                continue;
            }
            Err(error) => return Err(error.into()),
        };
        taboo_chars += report.taboo_chars;
        match (args.format, &sink) {
            (Format::Text, _) => write_text(&mut out, &report)?,
            (Format::Json, _) => reports.push(report),
            (Format::PanXml, Some(sink)) => write_pan_xml(sink, file, &report)?,
            (Format::PanXml, None) => {} // Refused above: pan-xml needs --out.
        }
    }
    if args.format == Format::Json {
        serde_json::to_writer_pretty(&mut out, &JsonOutput { files: &reports })?;
        writeln!(out)?;
    }
    if let Some(sink) = &sink {
        sink.finish()?;
    }
    out.flush()?;
    if skipped > 0 {
        let total = args.files.len() as u64;
        messages::note(format_args!("{} of {} checked, {skipped} skipped", total - skipped, count(total, "file")));
    }
    if taboo_chars > 0 {
        messages::note(format_args!("{} of taboo text left out", count(taboo_chars, "character")));
    }
    args.strict.check(skipped)?;
    Ok(ExitCode::SUCCESS)
}

/// The JSON document of `--format json`.
#[derive(serde::Serialize)]
struct JsonOutput<'a> {
    files: &'a [CheckReport],
}

fn write_text(out: &mut impl Write, report: &CheckReport) -> anyhow::Result<()> {
    let taboo = if report.taboo_chars > 0 {
        format!(" ({} of taboo text left out)", count(report.taboo_chars, "character"))
    } else {
        String::new()
    };
    writeln!(
        out,
        "{}: {}{taboo}, {} chunks with it",
        report.file,
        count(report.chunks, "chunk"),
        match report.documents.len() {
            1 => "1 archive document shares".to_string(),
            n => format!("{n} archive documents share"),
        }
    )?;
    for doc in &report.documents {
        writeln!(
            out,
            "  {}: {}, {:.2}% of the file in it, {:.2}% of it in the file; {}, {:.2}% of the file aligned, {:.2}% of it",
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
                "    file {}..{} = document {}..{} ({})",
                p.file.offset,
                p.file.offset + p.file.length,
                p.document.offset,
                p.document.offset + p.document.length,
                count(p.matching_chunks, "matching chunk")
            )?;
            let show = |e: &Option<String>| e.clone().unwrap_or_else(|| "(document changed or missing)".into());
            writeln!(out, "      file:     {}", show(&p.file.excerpt))?;
            writeln!(out, "      document: {}", show(&p.document.excerpt))?;
        }
    }
    Ok(())
}

/// One PAN XML report per checked file, named after the file, exactly as the
/// detector writes them (the archive document's name is the source reference).
fn write_pan_xml(sink: &PanXmlDirectory, file: &std::path::Path, report: &CheckReport) -> anyhow::Result<()> {
    let name =
        file.file_name().and_then(|n| n.to_str()).with_context(|| format!("{}: no file name", file.display()))?;
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
    sink.document(name, &detections)?;
    Ok(())
}
