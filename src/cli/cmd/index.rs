//! `pan-detect index create|update|stats`: build, update and describe the
//! persistent archive index.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::archive::similar::TableSummary;
use crate::archive::{
    self, ArchiveIndex, CreateSummary, TabooChange, TabooFiles, UpdateOptions, UpdateSummary, hashing_name,
};
use crate::progress::Progress;
use anyhow::Context;
use clap::Subcommand;

use super::args::{SettingsArgs, StrictArg, ThreadsArg, parse_flags};
use crate::cli::messages::{self, count, skipped_files};
use crate::cli::progress_bar::TerminalProgress;

/// Arguments of `pan-detect index`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect index create --docs corpus-fixtures/pan/source-documents --index /tmp/pd-index
  pan-detect index update --docs corpus-fixtures/pan/source-documents --index /tmp/pd-index
  pan-detect index stats --index /tmp/pd-index")]
pub struct Args {
    #[command(subcommand)]
    command: IndexCommand,
}

#[derive(Subcommand)]
enum IndexCommand {
    /// Build an index from every document under a directory (recursively):
    /// *.txt, *.pdf, *.docx, *.odt, *.html, *.htm.
    Create(CreateArgs),
    /// Bring an index up to date: index added and modified documents, drop deleted ones.
    Update(UpdateArgs),
    /// Merge all segments of an index into one, dropping deleted documents'
    /// chunks and postings (updates merge small segments on their own).
    Merge(MergeArgs),
    /// Print an index's documents, chunks, postings, segments and bytes.
    Stats(StatsArgs),
}

/// Arguments of `pan-detect index merge`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect index merge --index /tmp/pd-index")]
struct MergeArgs {
    /// Index directory.
    #[arg(long, value_name = "IDX")]
    index: PathBuf,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

/// Arguments of `pan-detect index create`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect index create --docs corpus-fixtures/pan/source-documents --index /tmp/pd-index")]
struct CreateArgs {
    /// Directory of the documents: every *.txt, *.pdf, *.docx, *.odt, *.html
    /// and *.htm below it, named by its relative path.
    #[arg(long, value_name = "DIR")]
    docs: PathBuf,
    /// Index directory to create (must not hold an index yet).
    #[arg(long, value_name = "IDX")]
    index: PathBuf,
    /// Taboo texts, such as a thesis template, the assignment or a licence:
    /// their chunks are stored in the index as its taboo set, are not indexed,
    /// and `check` and `similar` never find similarity or passages in them.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    taboo: Vec<PathBuf>,
    #[command(flatten)]
    settings: SettingsArgs,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    strict: StrictArg,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

/// Arguments of `pan-detect index update`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect index update --docs corpus-fixtures/pan/source-documents --index /tmp/pd-index")]
struct UpdateArgs {
    /// Directory of the documents, as given to `index create`.
    #[arg(long, value_name = "DIR")]
    docs: PathBuf,
    /// Index directory to update.
    #[arg(long, value_name = "IDX")]
    index: PathBuf,
    /// Replace the index's taboo set with that of these texts (without it the
    /// stored set is kept); when the set changes, every document is analysed
    /// again and the postings go to one new segment.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "no_taboo")]
    taboo: Vec<PathBuf>,
    /// Remove the index's taboo set.
    #[arg(long)]
    no_taboo: bool,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Read and hash every document, also those whose size and modification
    /// time are unchanged (after restoring files with their old times).
    #[arg(long)]
    rehash: bool,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    strict: StrictArg,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
}

/// Arguments of `pan-detect index stats`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect index stats --index /tmp/pd-index")]
struct StatsArgs {
    /// Index directory.
    #[arg(long, value_name = "IDX")]
    index: PathBuf,
    /// Also check every file's CRC-32 (reads the whole index).
    #[arg(long)]
    verify: bool,
}

/// Runs `pan-detect index ...`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        IndexCommand::Create(args) => create(args),
        IndexCommand::Update(args) => update(args),
        IndexCommand::Merge(args) => merge(args),
        IndexCommand::Stats(args) => stats(args),
    }
}

/// The taboo texts of `--taboo`, read before anything is written (`None`
/// when the flag is not given).
fn taboo_files(paths: &[PathBuf]) -> anyhow::Result<Option<TabooFiles>> {
    Ok((!paths.is_empty()).then(|| TabooFiles::load(paths)).transpose()?)
}

/// ", taboo set of N chunks" for a summary line; nothing without a taboo set.
fn taboo_note(chunks: Option<u64>) -> String {
    chunks.map_or_else(String::new, |chunks| format!(", taboo set of {}", count(chunks, "chunk")))
}

/// "similarity table of N rows (M pairs computed)" for a summary line, with
/// the pairs left unaligned when there are any.
fn table_note(table: &TableSummary) -> String {
    let unaligned = if table.unaligned_pairs > 0 {
        format!(", {} unaligned: a document changed during the run", count(table.unaligned_pairs, "pair"))
    } else {
        String::new()
    };
    format!("similarity table of {} ({} computed{unaligned})", count(table.rows, "row"), count(table.pairs, "pair"))
}

/// `index create` as a call of the library, for the Python module: `flags`
/// its command line after `index create` (`--docs DIR --index IDX` and any
/// other of its flags), refused as the command refuses them, run with
/// `progress` on a pool of `--threads` threads of its own. `--strict` fails
/// the call when a file was skipped.
pub fn create_with_flags(flags: &[OsString], progress: &dyn Progress) -> anyhow::Result<()> {
    let args: CreateArgs = parse_flags(flags)?;
    let s = args.threads.install(|| create_index(&args, progress))??;
    args.strict.check(s.skipped_files)
}

/// `index update` as a call of the library, as [`create_with_flags`]:
/// whether the index changed.
pub fn update_with_flags(flags: &[OsString], progress: &dyn Progress) -> anyhow::Result<bool> {
    let args: UpdateArgs = parse_flags(flags)?;
    let s = args.threads.install(|| update_index(&args, progress))??;
    args.strict.check(s.skipped_files)?;
    Ok(s.committed)
}

/// What `index create` does with `args` but print.
fn create_index(args: &CreateArgs, progress: &dyn Progress) -> anyhow::Result<CreateSummary> {
    let settings = args.settings.to_override()?.or_defaults();
    let taboo = taboo_files(&args.taboo)?;
    archive::create(&args.docs, &args.index, &settings, taboo.as_ref(), progress).context("index create stopped")
}

/// What `index update` does with `args` but print.
fn update_index(args: &UpdateArgs, progress: &dyn Progress) -> anyhow::Result<UpdateSummary> {
    let taboo = match taboo_files(&args.taboo)? {
        Some(files) => TabooChange::Replace(files),
        None if args.no_taboo => TabooChange::Remove,
        None => TabooChange::Keep,
    };
    let options = UpdateOptions { rehash: args.rehash, taboo };
    archive::update(&args.docs, &args.index, &args.settings.to_override()?, &options, progress)
        .context("index update stopped")
}

fn create(args: CreateArgs) -> anyhow::Result<ExitCode> {
    args.threads.configure()?;
    let progress = TerminalProgress::new(args.quiet);
    let s = create_index(&args, &progress)?;
    messages::note(format_args!(
        "indexed {} ({:.1} MB){}, {}, {}{}, {}, index {:.1} MB in {:.2} s \
         (chunk {:.2} s, sort and write {:.2} s, similarities {:.2} s)",
        count(s.documents, "document"),
        s.text_bytes as f64 / 1e6,
        skipped_files(s.skipped_files),
        count(s.chunks, "chunk"),
        count(s.postings, "posting"),
        taboo_note((!args.taboo.is_empty()).then_some(s.taboo_chunks)),
        table_note(&s.similarity),
        s.index_bytes as f64 / 1e6,
        (s.chunking + s.writing + s.similarity.time).as_secs_f64(),
        s.chunking.as_secs_f64(),
        s.writing.as_secs_f64(),
        s.similarity.time.as_secs_f64(),
    ));
    args.strict.check(s.skipped_files)?;
    Ok(ExitCode::SUCCESS)
}

fn update(args: UpdateArgs) -> anyhow::Result<ExitCode> {
    args.threads.configure()?;
    let progress = TerminalProgress::new(args.quiet);
    let s = update_index(&args, &progress)?;
    let what = if s.committed { "updated" } else { "up to date" };
    let taboo = if s.taboo_changed {
        format!("; taboo set changed to {}, postings rebuilt", count(s.taboo_chunks, "chunk"))
    } else {
        String::new()
    };
    let reanalysed = match s.reanalysed {
        0 => String::new(),
        n => format!("; {} analysed again", count(n, "unchanged document")),
    };
    let table = if s.committed { format!("; {}", table_note(&s.similarity)) } else { String::new() };
    let segments = match (s.committed, s.merged_segments) {
        (false, _) => String::new(),
        (true, 0) => format!(", {}", count(s.segments, "segment")),
        (true, merged) => format!(", {} ({merged} merged into the new one)", count(s.segments, "segment")),
    };
    messages::note(format_args!(
        "index {what}: {} added, {} modified, {} deleted, {} unchanged{} ({} read); \
         {} recycled; {}, {}{segments}{taboo}{reanalysed}{table} in {:.2} s (scan {:.2} s, write {:.2} s, similarities {:.2} s)",
        s.added,
        s.modified,
        s.deleted,
        s.unchanged,
        skipped_files(s.skipped_files),
        count(s.hashed, "file"),
        count(s.recycled_ids, "id"),
        count(s.documents, "document"),
        count(s.chunks, "chunk"),
        (s.scanning + s.writing + s.similarity.time).as_secs_f64(),
        s.scanning.as_secs_f64(),
        s.writing.as_secs_f64(),
        s.similarity.time.as_secs_f64(),
    ));
    args.strict.check(s.skipped_files)?;
    Ok(ExitCode::SUCCESS)
}

fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let progress = TerminalProgress::new(args.quiet);
    let s = archive::merge(&args.index, &progress).context("index merge stopped")?;
    match s.merged_segments {
        0 => messages::note(format_args!("index merge: nothing to merge ({})", count(s.segments, "segment"))),
        merged => messages::note(format_args!(
            "index merged: {} into {} in {:.2} s",
            count(merged, "segment"),
            count(s.segments, "segment"),
            s.writing.as_secs_f64()
        )),
    }
    Ok(ExitCode::SUCCESS)
}

fn stats(args: StatsArgs) -> anyhow::Result<ExitCode> {
    let index = ArchiveIndex::open(&args.index)?;
    if args.verify {
        index.verify()?;
    }
    let header = index.header();
    let s = &header.settings;
    let bytes: u64 = index.file_sizes().iter().map(|(_, b)| b).sum();
    let mut text = format!("index:      {} (generation {})\n", args.index.display(), header.generation);
    text += &format!("documents:  {}\n", header.documents);
    text += &format!("free ids:   {}\n", header.id_slots - header.documents);
    text += &format!("chunks:     {}\n", header.chunks);
    text += &format!("postings:   {}\n", header.postings);
    let stored: u64 = header.segments.iter().map(|s| s.postings.count).sum();
    text += &format!(
        "segments:   {} ({} of deleted or changed documents, dropped by a merge)\n",
        header.segments.len(),
        count(stored - header.postings, "posting")
    );
    text += &format!("bytes:      {bytes}\n");
    for (name, bytes) in index.file_sizes() {
        text += &format!("  {name:26} {bytes}\n");
    }
    text += &format!(
        "settings:   digits={} min-word-len={} chunk-words={} sorted={} hash-bits={} tokenizer={} hashing={}\n",
        s.digits,
        s.min_word_len,
        s.chunk_words,
        s.sorted,
        s.hash_bits,
        s.tokenizer,
        hashing_name(s.interleaved)
    );
    text += &match s.candidates {
        Some(c) => format!(
            "preset:     best (candidate chunks: {}-character word prefixes, {} function words per structure chunk)\n",
            c.prefix, c.structure_words
        ),
        None => "preset:     pan09\n".to_string(),
    };
    if let Some(c) = s.candidates {
        text += &match c.function_words.words() {
            words if words.is_empty() => "function words: none derived from the documents\n".to_string(),
            words => format!("function words: {} derived from the documents: {}\n", words.len(), words.join(" ")),
        };
    }
    text += &format!("docs:       {}\n", header.docs_root);
    text += &match &header.taboo {
        Some(taboo) => format!("taboo:      {} from {}\n", count(taboo.chunks, "chunk"), taboo.texts.join(", ")),
        None => "taboo:      none\n".to_string(),
    };
    text += &match &header.similarity {
        Some(table) => format!(
            "similarity: {} (pairs where one document has {} % of its chunks in the other) in {}\n",
            count(table.rows, "row"),
            table.min_percent,
            index.similarity_path().display()
        ),
        None => "similarity: none (made before format version 4; the next update builds it)\n".to_string(),
    };
    if args.verify {
        text += "verified:   every checksum matches\n";
    }
    messages::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
