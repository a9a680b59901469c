//! `pan-detect similar`: the index's table of document similarities, as CSV,
//! JSON lines or a standalone SQLite database.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;
use pan_detect::archive::ArchiveError;
use pan_detect::archive::similar::{STORED_MIN_PERCENT, SimilarParams, SimilarRow, similar};
use pan_detect::archive::table::{SimilarityTable, SqliteExport};

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
    /// Leave out rows whose document has less than this share of its chunks
    /// in the other (percent; the table keeps pairs from 1).
    #[arg(long, value_name = "PERCENT", default_value_t = STORED_MIN_PERCENT)]
    min_percent: f64,
    /// Output format: csv and jsonl to stdout, sqlite into --out.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
    /// The database file to write (with --format sqlite), replaced whole.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Only the rows touching documents added or modified by the last update
    /// (and, on stderr, the documents it deleted).
    #[arg(long)]
    since_update: bool,
    /// Check every index file's CRC-32 first (reads the whole index).
    #[arg(long)]
    verify: bool,
}

/// `--format` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The table's columns with a header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// An SQLite database with the index's schema.
    Sqlite,
}

/// The CSV header: the table's columns.
const CSV_HEADER: &str = "document,other,document_in_other_percent,other_in_document_percent,common_chunks,\
                          aligned_chars,document_aligned_percent,other_aligned_percent";

/// Runs `pan-detect similar`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    if !(0.0..=100.0).contains(&args.min_percent) {
        anyhow::bail!("--min-percent {} is out of range (expected 0..=100)", args.min_percent);
    }
    match (args.format, &args.out) {
        (Format::Sqlite, None) => anyhow::bail!("--format sqlite needs --out FILE"),
        (Format::Csv | Format::Jsonl, Some(_)) => {
            anyhow::bail!("--out is for --format sqlite; csv and jsonl go to stdout")
        }
        _ => {}
    }
    let (index, table) = SimilarityTable::open(&args.index)?;
    if args.verify {
        index.verify()?;
    }
    let params = SimilarParams { top: args.top, min_percent: args.min_percent, since_update: args.since_update };
    let summary = match &args.out {
        Some(out) => {
            let mut export = SqliteExport::create(out, &index, &params)?;
            let summary = similar(&index, &table, &params, &mut |row| export.push(row))?;
            export.finish()?;
            summary
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
            let io = |source| ArchiveError::Io { path: PathBuf::from("<stdout>"), source };
            if args.format == Format::Csv {
                writeln!(out, "{CSV_HEADER}").map_err(io)?;
            }
            let format = args.format;
            let summary = similar(&index, &table, &params, &mut |row| write_row(&mut out, format, row).map_err(io))?;
            out.flush().map_err(io)?;
            summary
        }
    };
    for name in &summary.deleted {
        messages::note(format_args!("deleted by the last update: {name}"));
    }
    messages::note(format_args!(
        "{}, {} in {:.2} s",
        count(summary.documents, "document"),
        count(summary.rows, "row"),
        started.elapsed().as_secs_f64()
    ));
    Ok(ExitCode::SUCCESS)
}

/// Writes a row as a CSV line or a JSON line.
fn write_row(out: &mut impl Write, format: Format, row: &SimilarRow) -> std::io::Result<()> {
    if format == Format::Jsonl {
        // A row of strings and numbers always serializes.
        let line = serde_json::to_string(row).expect("row serializes");
        return writeln!(out, "{line}");
    }
    let optional = |value: Option<String>| value.unwrap_or_default();
    writeln!(
        out,
        "{},{},{:.2},{:.2},{},{},{},{}",
        csv_field(&row.document),
        csv_field(&row.other),
        row.document_in_other_percent,
        row.other_in_document_percent,
        row.common_chunks,
        optional(row.aligned_chars.map(|chars| chars.to_string())),
        optional(row.document_aligned_percent.map(|p| format!("{p:.2}"))),
        optional(row.other_aligned_percent.map(|p| format!("{p:.2}"))),
    )
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}
