//! `pan-detect similar`: the index's table of document similarities, as CSV,
//! JSON lines or a standalone SQLite database; or, with `--method minhash`,
//! likely near-duplicates screened by MinHash signatures and LSH.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::archive::ArchiveError;
use crate::archive::similar::{STORED_MIN_PERCENT, SimilarParams, SimilarRow, similar, table_is_stale};
use crate::archive::table::{SimilarityTable, SqliteExport};
use crate::cluster::Cluster;
use anyhow::Context;
use clap::ValueEnum;

use crate::analysis::minhash::{DEFAULT_SEED, DEFAULT_SHINGLE_WIDTH};
use crate::analysis::read::{DocumentFile, Loaded, TextReader};
use crate::archive::ArchiveIndex;
use crate::archive::format::current_generation;
use crate::archive::minhash::{SignatureStore, signatures_path};
use crate::matching::lsh::{Banding, DEFAULT_BANDS, DEFAULT_ROWS};
use crate::screening::{ScreenedPair, Screening};

use super::args::{ClusterArgs, note_traffic, parse_flags};
use crate::cli::messages::{self, count};
use crate::cli::progress_bar::TerminalProgress;
use crate::error::Warning;
use crate::progress::Progress;

/// Arguments of `pan-detect similar`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect similar --index /tmp/pd-index --top 5")]
pub struct Args {
    /// How similar documents are found: `table` reads the index's similarity
    /// table; `minhash` screens documents by MinHash signatures banded by LSH
    /// (`--docs DIR [--against DIR]`, `--index IDX --build`, `--index IDX --file F`).
    #[arg(long, value_enum, default_value_t = Method::Table)]
    method: Method,
    /// Index directory.
    #[arg(long, value_name = "IDX")]
    index: Option<PathBuf>,
    /// Rows kept per document, most similar first [default: 100] (table).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Leave out rows whose document has less than this share of its chunks
    /// in the other (percent; the table keeps pairs from 1) [default: 1] (table).
    #[arg(long, value_name = "PERCENT")]
    min_percent: Option<f64>,
    /// Output format: csv and jsonl to stdout, sqlite into --out (table only).
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
    /// The database file to write (with --format sqlite), replaced whole.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Only the rows touching documents added or modified by the last update
    /// (and, on stderr, the documents it deleted) (table).
    #[arg(long)]
    since_update: bool,
    /// Check every index file's CRC-32 first (reads the whole index) (table).
    #[arg(long)]
    verify: bool,
    /// The documents to screen, recursively (minhash): the similar pairs
    /// among them, or with --against between them and those.
    #[arg(long, value_name = "DIR")]
    docs: Option<PathBuf>,
    /// The second set of documents (minhash, with --docs).
    #[arg(long, value_name = "DIR")]
    against: Option<PathBuf>,
    /// Compute and store the signatures of the index's documents in
    /// IDX/minhash/ (minhash, with --index).
    #[arg(long)]
    build: bool,
    /// A document to screen against the signatures stored beside --index
    /// (minhash; repeatable).
    #[arg(long, value_name = "FILE")]
    file: Vec<PathBuf>,
    /// LSH bands (minhash) [default: 20; with --file: the stored signatures'].
    #[arg(long, value_name = "B")]
    bands: Option<usize>,
    /// Signature values per band (minhash) [default: 5; with --file: the
    /// stored signatures'].
    #[arg(long, value_name = "R")]
    rows: Option<usize>,
    /// Characters per shingle (minhash) [default: 10; with --file: the stored
    /// signatures'].
    #[arg(long, value_name = "N")]
    shingle: Option<usize>,
    /// Also compute the exact Jaccard similarity of each candidate pair's
    /// shingle sets (minhash; keeps them in memory).
    #[arg(long)]
    exact: bool,
    /// No progress bars (minhash).
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// `--method` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Method {
    /// The index's similarity table (shared chunks and aligned text).
    Table,
    /// MinHash signatures of character shingles, banded by LSH.
    Minhash,
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

/// The CSV header of `--method minhash`.
const MINHASH_CSV_HEADER: &str = "document,other,estimated_jaccard,exact_jaccard";

/// Runs `pan-detect similar`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.method {
        Method::Table => run_table(args),
        Method::Minhash => run_minhash(args),
    }
}

/// Refuses the flags in `given` that are set: they do not apply to `method`.
fn refuse(method: &str, given: &[(&str, bool)]) -> anyhow::Result<()> {
    match given.iter().find(|(_, set)| *set) {
        Some((flag, _)) => anyhow::bail!("{flag} does not apply to --method {method}"),
        None => Ok(()),
    }
}

/// `similar --method table`: the index's similarity table.
fn run_table(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let (index_dir, min_percent) = table_flags(&args)?;
    match (args.format, &args.out) {
        (Format::Sqlite, None) => anyhow::bail!("--format sqlite needs --out FILE"),
        (Format::Csv | Format::Jsonl, Some(_)) => {
            anyhow::bail!("--out is for --format sqlite; csv and jsonl go to stdout")
        }
        _ => {}
    }
    if let Some(cluster) = args.cluster.cluster()? {
        return run_table_on_cluster(&args, index_dir, &cluster, min_percent, started);
    }
    let (index, table, params) = open_table(&args, index_dir, min_percent, &|warning| messages::warn(warning))?;
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

/// The index directory and the least percent of `--method table`, checked;
/// the flags of `--method minhash` are refused.
fn table_flags(args: &Args) -> anyhow::Result<(&Path, f64)> {
    refuse(
        "table",
        &[
            ("--docs", args.docs.is_some()),
            ("--against", args.against.is_some()),
            ("--build", args.build),
            ("--file", !args.file.is_empty()),
            ("--bands", args.bands.is_some()),
            ("--rows", args.rows.is_some()),
            ("--shingle", args.shingle.is_some()),
            ("--exact", args.exact),
            ("--quiet", args.quiet),
        ],
    )?;
    let Some(index_dir) = &args.index else { anyhow::bail!("--method table needs --index IDX") };
    let min_percent = args.min_percent.unwrap_or(STORED_MIN_PERCENT);
    if !(0.0..=100.0).contains(&min_percent) {
        anyhow::bail!("--min-percent {min_percent} is out of range (expected 0..=100)");
    }
    Ok((index_dir, min_percent))
}

/// The index at `index_dir`, its similarity table and the parameters of
/// `args` with `min_percent`, verified with `--verify`; a table computed
/// with other parameters is named in a warning to `warn`.
fn open_table(
    args: &Args,
    index_dir: &Path,
    min_percent: f64,
    warn: &dyn Fn(Warning),
) -> anyhow::Result<(ArchiveIndex, SimilarityTable, SimilarParams)> {
    let (index, table) = SimilarityTable::open(index_dir)?;
    if args.verify {
        index.verify()?;
    }
    if table_is_stale(&index) {
        let message = "the table was computed by a build that counts or aligns pairs with other parameters; \
                       the next `index update` computes it again";
        warn(Warning { path: index_dir.to_path_buf(), message: message.into() });
    }
    let top = args.top.unwrap_or(SimilarParams::default().top);
    Ok((index, table, SimilarParams { top, min_percent, since_update: args.since_update }))
}

/// The rows `similar --method table --format jsonl` prints, for the Python
/// module: `flags` are its command line after `similar` (`--index IDX` and
/// any of `--top`, `--min-percent`, `--since-update`, `--verify`), refused
/// as the command refuses them; warnings go to `progress`.
pub fn rows_with_flags(flags: &[OsString], progress: &dyn Progress) -> anyhow::Result<Vec<SimilarRow>> {
    let args: Args = parse_flags(flags)?;
    let other_output = args.format != Format::Csv || args.out.is_some();
    if args.method != Method::Table || other_output || args.cluster.cluster()?.is_some() {
        anyhow::bail!(
            "only the similarity table's rows are given here (no --method, --format, --out or cluster flags)"
        );
    }
    let (index_dir, min_percent) = table_flags(&args)?;
    let (index, table, params) = open_table(&args, index_dir, min_percent, &|warning| progress.warn(&warning))?;
    let mut rows = Vec::new();
    similar(&index, &table, &params, &mut |row| {
        rows.push(row.clone());
        Ok(())
    })?;
    Ok(rows)
}

/// `similar --method table` on a cluster: the chunk columns of the table
/// computed afresh over the workers and processes, printed by process 0.
fn run_table_on_cluster(
    args: &Args,
    index_dir: &Path,
    cluster: &Cluster,
    min_percent: f64,
    started: Instant,
) -> anyhow::Result<ExitCode> {
    refuse(
        "table with --workers or --processes",
        &[("--format sqlite", args.format == Format::Sqlite), ("--since-update", args.since_update)],
    )?;
    let index = ArchiveIndex::open(index_dir)?;
    if args.verify {
        index.verify()?;
    }
    let top = args.top.unwrap_or(SimilarParams::default().top);
    let params = SimilarParams { top, min_percent, since_update: false };
    crate::cluster::report_lost_processes();
    let shared = format!(
        "{index_dir:?} {:?} {} {:?} {:?}",
        params,
        args.format == Format::Csv,
        cluster.workers,
        cluster.addresses
    );
    let job = xxhash_rust::xxh3::xxh3_64(shared.as_bytes());
    let (rows, summary, sent) =
        crate::cluster::similar::similar(cluster, job, &index, &params).with_context(|| "similarity stopped")?;
    if cluster.process == 0 {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        if args.format == Format::Csv {
            writeln!(out, "{CSV_HEADER}")?;
        }
        for row in &rows {
            write_row(&mut out, args.format, row)?;
        }
        out.flush()?;
    }
    note_traffic(cluster, sent);
    messages::note(format_args!(
        "{}, {} in {:.2} s (chunk columns computed afresh; aligned columns empty)",
        count(summary.documents, "document"),
        count(summary.rows, "row"),
        started.elapsed().as_secs_f64()
    ));
    Ok(ExitCode::SUCCESS)
}

/// `similar --method minhash`: screening by MinHash signatures and LSH.
fn run_minhash(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    refuse(
        "minhash",
        &[
            ("--top", args.top.is_some()),
            ("--min-percent", args.min_percent.is_some()),
            ("--since-update", args.since_update),
            ("--verify", args.verify),
            ("--out", args.out.is_some()),
            ("--format sqlite", args.format == Format::Sqlite),
        ],
    )?;
    let progress = TerminalProgress::new(args.quiet);
    let (documents, pairs) = match (&args.docs, &args.index) {
        (Some(_), Some(_)) => anyhow::bail!("--docs and --index are two uses of --method minhash; give one"),
        (Some(docs), None) => {
            if args.build || !args.file.is_empty() {
                anyhow::bail!("--build and --file go with --index IDX, not --docs");
            }
            let screening = screening_from_flags(&args)?;
            let screened = screening.screen_directory(docs, &progress)?;
            match &args.against {
                None => (count(screened.len() as u64, "document"), screening.pairs_within(&screened)),
                Some(against) => {
                    let other = screening.screen_directory(against, &progress)?;
                    let documents = count((screened.len() + other.len()) as u64, "document");
                    (documents, screening.pairs_between(&screened, &other))
                }
            }
        }
        (None, Some(index)) if args.build => return build_signatures(&args, index, &progress, started),
        (None, Some(index)) => query_signatures(&args, index)?,
        (None, None) => {
            anyhow::bail!("--method minhash needs --docs DIR [--against DIR] or --index IDX (--build | --file F)")
        }
    };
    write_pairs(&pairs, args.format)?;
    messages::note(format_args!(
        "{documents} screened, {} in {:.2} s",
        count(pairs.len() as u64, "candidate pair"),
        started.elapsed().as_secs_f64()
    ));
    Ok(ExitCode::SUCCESS)
}

/// The screening settings of `--shingle`, `--bands`, `--rows` and `--exact`.
fn screening_from_flags(args: &Args) -> anyhow::Result<Screening> {
    let banding = Banding::new(args.bands.unwrap_or(DEFAULT_BANDS), args.rows.unwrap_or(DEFAULT_ROWS))?;
    Ok(Screening::new(args.shingle.unwrap_or(DEFAULT_SHINGLE_WIDTH), banding, DEFAULT_SEED, args.exact)?)
}

/// `--index IDX --build`: computes and stores the signatures of the index's documents.
fn build_signatures(
    args: &Args,
    index: &Path,
    progress: &TerminalProgress,
    started: Instant,
) -> anyhow::Result<ExitCode> {
    if args.against.is_some() || !args.file.is_empty() || args.exact {
        anyhow::bail!("--build takes no --against, --file or --exact");
    }
    let screening = screening_from_flags(args)?;
    let archive = ArchiveIndex::open(index)?;
    let summary = SignatureStore::build(&archive, &screening, progress)?;
    messages::note(format_args!(
        "{}: signatures of {} (generation {}){} in {:.2} s",
        signatures_path(index).display(),
        count(summary.documents, "document"),
        summary.generation,
        messages::skipped_files(summary.skipped),
        started.elapsed().as_secs_f64()
    ));
    Ok(ExitCode::SUCCESS)
}

/// `--index IDX --file F...`: each file against the stored signatures.
/// The candidate pairs of `--file`s against the stored signatures, and what
/// was screened (for the summary line).
fn query_signatures(args: &Args, index: &Path) -> anyhow::Result<(String, Vec<ScreenedPair>)> {
    if args.file.is_empty() {
        anyhow::bail!("--index IDX with --method minhash needs --build or --file F");
    }
    if args.against.is_some() {
        anyhow::bail!("--against goes with --docs DIR, not --index");
    }
    let store = SignatureStore::open(index)?;
    store.check_settings(args.shingle, args.bands, args.rows)?;
    let current = current_generation(index)?;
    if current != store.generation() {
        messages::warn(format_args!(
            "{}: computed from generation {}, the index is at {}; --build again to include its changes",
            signatures_path(index).display(),
            store.generation(),
            current
        ));
    }
    let archive = if args.exact { Some(ArchiveIndex::open(index)?) } else { None };
    let screening = store.screening(args.exact)?;
    let mut pairs = Vec::new();
    for path in &args.file {
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let file = DocumentFile { name: path.display().to_string(), path: path.clone(), bytes };
        let text = match TextReader::new(None).load(&file) {
            Loaded::Text(text, _) => text,
            Loaded::Skipped(warning) => {
                let reason = warning.message.strip_suffix("; skipped").unwrap_or(&warning.message);
                anyhow::bail!("{}: {reason}", path.display())
            }
        };
        let Some(doc) = screening.screen_text(&file.name, &text) else {
            anyhow::bail!("{}: no text to shingle", path.display());
        };
        pairs.extend(store.query(&doc, archive.as_ref()));
    }
    let screened =
        format!("{} against {}", count(args.file.len() as u64, "file"), count(store.len() as u64, "stored signature"));
    Ok((screened, pairs))
}

/// Writes candidate pairs to stdout as CSV (with a header line) or JSON lines.
fn write_pairs(pairs: &[ScreenedPair], format: Format) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if format == Format::Csv {
        writeln!(out, "{MINHASH_CSV_HEADER}")?;
    }
    for pair in pairs {
        if format == Format::Jsonl {
            // A pair of strings and numbers always serializes.
            writeln!(out, "{}", serde_json::to_string(pair).expect("pair serializes"))?;
        } else {
            let exact = pair.exact_jaccard.map(|j| format!("{j:.4}")).unwrap_or_default();
            let (document, other) = (csv_field(&pair.document), csv_field(&pair.other));
            writeln!(out, "{document},{other},{:.4},{exact}", pair.estimated_jaccard)?;
        }
    }
    out.flush()?;
    Ok(())
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
