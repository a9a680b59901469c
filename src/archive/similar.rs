//! The similarity table: for every pair of archive documents that share
//! chunks, how much of each is in the other, by shared chunks and by aligned
//! text. `index create` computes it, `index update` maintains it, the index
//! keeps it in SQLite ([`super::table`]) and `similar` reads it back.
//!
//! The similarity of A to B is `100 × common / distinct chunks of A`, where
//! `common` is the number of distinct chunk hashes A and B share; it is not
//! symmetric, but `common` is. A pair is in the table, with a row each way,
//! when one of the two documents has at least `min_percent` (the header's,
//! [`STORED_MIN_PERCENT`] when created) of its distinct chunks in the other.
//! No row is cut to a top N: an update could not know which row becomes an
//! old document's N-th when one above it goes, so `similar --top` cuts when
//! it reads. Chunks of the taboo set ([`super::taboo`]) have no postings and
//! are not among a document's distinct chunks: they count neither in
//! `common` nor in the denominator. The aligned characters of a pair come
//! from its passages, found by checking the document whose name sorts first
//! against the other alone ([`super::pair`]).
//!
//! Every row depends on its two documents only (their chunks, texts and the
//! taboo set), so an update maintains the table as the ITA'09 paper's
//! algorithm does: the rows naming a changed or deleted document are removed,
//! the pairs of the added and changed documents are computed (both rows:
//! their own and the reverse rows of the old documents), and no other pair
//! is computed again; the table is then row for row the one a fresh `create`
//! of the same documents writes. An update that changes the taboo set
//! changes every document's distinct chunks and computes the whole table.
//!
//! Counting: the documents are taken in batches; a batch's distinct chunk
//! hashes (from the chunk lists in the scratch files of the generation being
//! written, [`super::format`]) are sorted and looked up in the
//! postings, which hold one posting per (hash, document). The cost is the
//! sum over hashes of (documents holding it)², as in the paper's pair
//! counting.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use super::error::ArchiveError;
use super::failpoints::crash_point;
use super::format::{self, SimilarityEntry};
use super::pair::{AlignedChars, PairAligner};
use super::reader::ArchiveIndex;
use super::table::{self, SimilarityTable, TableWriter};
use crate::progress::{Progress, Stage};
use crate::report::model::percent;

/// The `min_percent` of a new table: `similar`'s default `--min-percent`.
pub const STORED_MIN_PERCENT: f64 = 1.0;

/// One row of the similarity table: document A, document B, and how similar
/// they are (the columns of the SQLite table, [`super::table`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimilarRow {
    /// Document A.
    pub document: String,
    /// Document B.
    pub other: String,
    /// `100 × common / distinct chunks of A`, two decimals.
    pub document_in_other_percent: f64,
    /// `100 × common / distinct chunks of B`, two decimals.
    pub other_in_document_percent: f64,
    /// Distinct chunk hashes A and B share.
    pub common_chunks: u64,
    /// Characters of A in passages with B, overlaps counted once (`None`:
    /// a text could not be read back as indexed).
    pub aligned_chars: Option<u64>,
    /// `100 × aligned_chars / characters of A`, two decimals: the ICEIS'08
    /// paper's "% of A in B" from aligned text.
    pub document_aligned_percent: Option<f64>,
    /// The same share of B's characters in passages with A.
    pub other_aligned_percent: Option<f64>,
}

/// Parameters of `similar`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimilarParams {
    /// Rows kept per document, most similar first.
    pub top: usize,
    /// Rows below this `document_in_other_percent` are left out; at least
    /// the table's `min_percent`.
    pub min_percent: f64,
    /// Only rows touching the documents changed by the last update.
    pub since_update: bool,
}

impl Default for SimilarParams {
    fn default() -> Self {
        SimilarParams { top: 100, min_percent: STORED_MIN_PERCENT, since_update: false }
    }
}

/// What a `similar` run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimilarSummary {
    /// Documents whose rows were read.
    pub documents: u64,
    /// Rows written.
    pub rows: u64,
    /// Documents deleted by the last update (with `since_update`): their rows
    /// are to be dropped from a copy of the table.
    pub deleted: Vec<String>,
}

/// What writing a generation's similarity table did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableSummary {
    /// Rows in the table.
    pub rows: u64,
    /// Pairs computed (two rows each).
    pub pairs: u64,
    /// Pairs left without aligned characters: a text could not be read back
    /// as indexed (changed or deleted during the run).
    pub unaligned_pairs: u64,
    /// Time taken.
    pub time: Duration,
}

/// Where a new generation's table starts from.
pub(crate) enum TableStart<'a> {
    /// Nothing: every pair is computed (`create`; an update that changed the
    /// taboo set or found no table).
    Empty,
    /// The live generation's table, less the rows naming a document of
    /// `gone` (changed or deleted); the pairs of `changed` (ids of the new
    /// generation) are computed.
    Copy { old: &'a ArchiveIndex, gone: &'a [String], changed: &'a [u32] },
}

/// Writes the similarity table of the generation `new` is a view of (its
/// body files written, its header not yet), with pairs from `min_percent`,
/// starting from `start`. Crash points follow the removal of old rows and
/// the finished file.
pub(crate) fn write_table(
    new: &ArchiveIndex,
    start: TableStart<'_>,
    min_percent: f64,
    progress: &dyn Progress,
) -> Result<(SimilarityEntry, TableSummary), ArchiveError> {
    let started = Instant::now();
    let path = new.similarity_path();
    let generation = new.header().generation;
    // A copied table keeps the method its rows were computed with (an
    // update computes the whole table when that is not this build's).
    let method = match &start {
        TableStart::Empty => Some(table_method(new)),
        TableStart::Copy { old, .. } => old.header().similarity.as_ref().and_then(|table| table.method.clone()),
    };
    let all: Vec<u32>;
    let (mut writer, docs) = match start {
        TableStart::Empty => {
            let about = [
                ("preset", format::preset_name(new.settings().preset()).to_string()),
                ("generation", generation.to_string()),
                ("min_percent", min_percent.to_string()),
            ];
            all = new.live_ids().collect();
            (TableWriter::create(&path, &about)?, &all[..])
        }
        TableStart::Copy { old, gone, changed } => {
            let mut writer = TableWriter::copy(old, &path, generation)?;
            writer.remove_documents(gone)?;
            crash_point!(SIMILARITY_ROWS_REMOVED);
            (writer, changed)
        }
    };
    let mut summary = add_pairs(new, docs, min_percent, &mut writer, progress)?;
    summary.rows = writer.finish()?;
    crash_point!(SIMILARITY_WRITTEN);
    summary.time = started.elapsed();
    Ok((table::entry(&path, min_percent, summary.rows, method)?, summary))
}

/// The method of `index`'s similarity rows in this build: a hash of the
/// detector's parameters its pairs are counted and aligned with, which
/// tuning a default of the alignment changes.
pub fn table_method(index: &ArchiveIndex) -> String {
    let params = format!("{:?}", index.settings().detect_params());
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(params.as_bytes()))
}

/// Whether `index`'s similarity table must be computed whole by the next
/// update: it has none, or its rows were computed with another method.
pub fn table_is_stale(index: &ArchiveIndex) -> bool {
    let method = index.header().similarity.as_ref().map(|table| table.method.as_deref());
    method != Some(Some(table_method(index).as_str()))
}

/// A pair of documents sharing chunks: `first` is the one whose name sorts
/// first, the one checked against the other ([`super::pair`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Pair {
    first: u32,
    second: u32,
    common: u64,
}

/// Computes and inserts the pairs of `docs` (ids): each pair of a document
/// of `docs` with any other document, computed once (when both are in
/// `docs`, from the one whose name sorts first), and kept when one of the
/// two has `min_percent` of its distinct chunks in the other.
fn add_pairs(
    index: &ArchiveIndex,
    docs: &[u32],
    min_percent: f64,
    writer: &mut TableWriter,
    progress: &dyn Progress,
) -> Result<TableSummary, ArchiveError> {
    let mut in_docs = vec![false; index.id_slots() as usize];
    for &id in docs {
        in_docs[id as usize] = true;
    }
    let mut summary = TableSummary::default();
    progress.start(Stage::Similarities, docs.len() as u64);
    let tasks = tasks(index, docs);
    // A few tasks per thread at a time keeps the pairs in memory bounded.
    for window in tasks.chunks(2 * rayon::current_num_threads()) {
        let counted: Vec<Result<Vec<Pair>, ArchiveError>> =
            window.par_iter().map(|task| pairs_of(index, task, &in_docs, min_percent)).collect();
        let mut pairs = Vec::new();
        for result in counted {
            pairs.extend(result?);
        }
        pairs.sort_unstable();
        let groups: Vec<&[Pair]> = pairs.chunk_by(|a, b| a.first == b.first).collect();
        let aligned: Vec<Result<Vec<AlignedPair>, ArchiveError>> = groups
            .par_iter()
            .map_init(|| PairAligner::new(index), |aligner, group| align_group(aligner, group))
            .collect();
        let mut rows = Vec::with_capacity(2 * pairs.len());
        for result in aligned {
            for AlignedPair { pair, chars } in result? {
                summary.pairs += 1;
                summary.unaligned_pairs += u64::from(chars.is_none());
                rows.extend(rows_of(index, pair, chars));
            }
        }
        rows.sort_unstable_by(|a, b| (&a.document, &a.other).cmp(&(&b.document, &b.other)));
        writer.insert(&rows)?;
        // The window's pages of the postings and scratch chunk lists are not needed again.
        index.release_pages();
        progress.advance(window.iter().map(|task| task.len() as u64).sum());
    }
    progress.finish();
    Ok(summary)
}

/// The pairs of the documents of `task` to compute (see [`add_pairs`]).
fn pairs_of(index: &ArchiveIndex, task: &[u32], in_docs: &[bool], min_percent: f64) -> Result<Vec<Pair>, ArchiveError> {
    let counts = count_batch(index, task)?;
    let distinct = |id: u32| u64::from(index.record(id).distinct_chunks);
    let mut pairs = Vec::new();
    for (&a, counts) in task.iter().zip(&counts) {
        for &(b, common) in counts {
            let a_first = index.name(a) < index.name(b);
            if in_docs[b as usize] && !a_first {
                continue; // Computed from b.
            }
            let common = u64::from(common);
            if percent(common, distinct(a)).max(percent(common, distinct(b))) < min_percent {
                continue;
            }
            let (first, second) = if a_first { (a, b) } else { (b, a) };
            pairs.push(Pair { first, second, common });
        }
    }
    Ok(pairs)
}

/// A pair with the characters of each document in passages with the other.
struct AlignedPair {
    pair: Pair,
    /// `None`: a text could not be read back as indexed.
    chars: Option<AlignedChars>,
}

/// Aligns the pairs of one first document.
fn align_group(aligner: &mut PairAligner<'_>, group: &[Pair]) -> Result<Vec<AlignedPair>, ArchiveError> {
    let first = aligner.first(group[0].first)?;
    group.iter().map(|&pair| Ok(AlignedPair { pair, chars: aligner.aligned(&first, pair.second)? })).collect()
}

/// The two rows of a pair.
fn rows_of(index: &ArchiveIndex, pair: Pair, chars: Option<AlignedChars>) -> [SimilarRow; 2] {
    let (first, second) = (index.record(pair.first), index.record(pair.second));
    let chunks_percent = |distinct: u32| percent(pair.common, distinct.into());
    let first_aligned = chars.map(|c| percent(c.first, first.chars.into()));
    let second_aligned = chars.map(|c| percent(c.second, second.chars.into()));
    let row = |(a, b): (u32, u32), (pa, pb), aligned, (aa, ab)| SimilarRow {
        document: index.name(a).to_string(),
        other: index.name(b).to_string(),
        document_in_other_percent: pa,
        other_in_document_percent: pb,
        common_chunks: pair.common,
        aligned_chars: aligned,
        document_aligned_percent: aa,
        other_aligned_percent: ab,
    };
    let (pf, ps) = (chunks_percent(first.distinct_chunks), chunks_percent(second.distinct_chunks));
    [
        row((pair.first, pair.second), (pf, ps), chars.map(|c| c.first), (first_aligned, second_aligned)),
        row((pair.second, pair.first), (ps, pf), chars.map(|c| c.second), (second_aligned, first_aligned)),
    ]
}

/// Common distinct chunks of each of `docs` with every other document, as
/// `(other, common)` pairs per document. The documents' distinct hashes are
/// looked up together in hash order, so the walk through the directory and
/// postings moves forward (an index of gigabytes is then read almost like a
/// stream), and a hash that several of them hold is looked up once. The
/// threads walk ranges of hashes side by side: one pass over the postings
/// in all.
fn count_batch(index: &ArchiveIndex, docs: &[u32]) -> Result<Vec<Vec<(u32, u32)>>, ArchiveError> {
    let mut lookups: Vec<(u64, u32)> = Vec::new();
    for (local, &a) in (0u32..).zip(docs) {
        let chunks = index.document_chunks(a)?.ok_or_else(|| {
            index.corrupt_record(a, "its chunks are in no scratch list and its text is not as indexed".into())
        })?;
        lookups.extend(chunks.hashes.into_iter().map(|hash| (hash, local)));
    }
    lookups.par_sort_unstable();
    lookups.dedup();
    let parts = split_between_hashes(&lookups, PARTS_PER_THREAD * rayon::current_num_threads());
    let counted: Vec<Result<Vec<HashMap<u32, u32>>, ArchiveError>> =
        parts.par_iter().map(|part| count_part(index, docs, part)).collect();
    let mut counts: Vec<HashMap<u32, u32>> = vec![HashMap::new(); docs.len()];
    for part in counted {
        for (total, part) in counts.iter_mut().zip(part?) {
            for (doc, common) in part {
                *total.entry(doc).or_default() += common;
            }
        }
    }
    Ok(counts.into_iter().map(|m| m.into_iter().collect()).collect())
}

/// Parts of a task's lookups per thread ([`count_batch`]): a few, so that
/// a thread that finishes early takes another.
const PARTS_PER_THREAD: usize = 4;

/// `lookups` (sorted) in `parts` slices of about the same length, each
/// ending where a hash does.
fn split_between_hashes(lookups: &[(u64, u32)], parts: usize) -> Vec<&[(u64, u32)]> {
    let mut slices = Vec::with_capacity(parts);
    let mut rest = lookups;
    for left in (1..=parts).rev() {
        let mut end = rest.len().div_ceil(left);
        while end > 0 && end < rest.len() && rest[end].0 == rest[end - 1].0 {
            end += 1;
        }
        let (slice, tail) = rest.split_at(end);
        slices.push(slice);
        rest = tail;
    }
    slices
}

/// The common chunks that `lookups` (sorted (hash, position in `docs`)
/// pairs) give each of `docs` with every other document.
fn count_part(
    index: &ArchiveIndex,
    docs: &[u32],
    lookups: &[(u64, u32)],
) -> Result<Vec<HashMap<u32, u32>>, ArchiveError> {
    let mut counts: Vec<HashMap<u32, u32>> = vec![HashMap::new(); docs.len()];
    let groups: Vec<&[(u64, u32)]> = lookups.chunk_by(|x, y| x.0 == y.0).collect();
    let hashes: Vec<u64> = groups.iter().map(|group| group[0].0).collect();
    index.documents_with_each(&hashes, |i, holders| {
        if holders.len() <= 1 {
            return; // Only the document itself holds it (or, taboo, none).
        }
        // Each holder is given once: each other document counts once.
        for &doc in holders {
            for &(_, local) in groups[i] {
                if doc != docs[local as usize] {
                    *counts[local as usize].entry(doc).or_default() += 1;
                }
            }
        }
    })?;
    Ok(counts)
}

/// Splits `ids` into consecutive tasks of about the same number of chunks:
/// a few tasks per thread, of [`MIN_TASK_CHUNKS`] to [`MAX_TASK_CHUNKS`]
/// chunks (a task's lookup buffer) each. Each task walks through the
/// postings once: a small batch (an update's) is one task, whose lookups the
/// threads share ([`count_batch`]).
fn tasks<'a>(index: &ArchiveIndex, ids: &'a [u32]) -> Vec<&'a [u32]> {
    let total: u64 = ids.iter().map(|&id| u64::from(index.record(id).chunk_count)).sum();
    let per_task = (total / (4 * rayon::current_num_threads() as u64)).clamp(MIN_TASK_CHUNKS, MAX_TASK_CHUNKS);
    let mut tasks = Vec::new();
    let (mut start, mut chunks) = (0, 0u64);
    for (i, &id) in ids.iter().enumerate() {
        chunks += u64::from(index.record(id).chunk_count);
        if chunks >= per_task {
            tasks.push(&ids[start..=i]);
            (start, chunks) = (i + 1, 0);
        }
    }
    if start < ids.len() {
        tasks.push(&ids[start..]);
    }
    tasks
}

/// The fewest chunks of a task of [`add_pairs`] (but for the last).
const MIN_TASK_CHUNKS: u64 = 1 << 19;
/// The most chunks of a task of [`add_pairs`] (but for one large document):
/// 16 bytes each in its lookup buffer, 32 MiB.
const MAX_TASK_CHUNKS: u64 = 1 << 21;

/// Reads the similarity table of `index` and hands each selected row to
/// `sink`, ordered by document name, then by `document_in_other_percent`
/// (highest first), then by other name: per document its `top` rows from
/// `min_percent`, or with `since_update` only the rows touching documents
/// that the last update added or changed (the changed documents' own rows,
/// top `top`, and the rows of other documents naming them, which are not
/// cut). After an update that changed the taboo set every document counts
/// as changed.
pub fn similar(
    index: &ArchiveIndex,
    table: &SimilarityTable,
    params: &SimilarParams,
    sink: &mut dyn FnMut(&SimilarRow) -> Result<(), ArchiveError>,
) -> Result<SimilarSummary, ArchiveError> {
    let stored = table.entry().min_percent;
    if params.min_percent < stored {
        let index = index.root().to_path_buf();
        return Err(ArchiveError::BelowTableMinimum { index, given: params.min_percent, stored });
    }
    if params.since_update {
        return since_update(index, table, params, sink);
    }
    let mut summary = SimilarSummary { documents: index.header().documents, ..SimilarSummary::default() };
    let mut current = (String::new(), 0);
    table.for_each_row(params.min_percent, &mut |row| {
        if row.document != current.0 {
            current = (row.document.clone(), 0);
        }
        current.1 += 1;
        if current.1 > params.top {
            return Ok(());
        }
        summary.rows += 1;
        sink(&row)
    })?;
    Ok(summary)
}

/// [`similar`] with `since_update`.
fn since_update(
    index: &ArchiveIndex,
    table: &SimilarityTable,
    params: &SimilarParams,
    sink: &mut dyn FnMut(&SimilarRow) -> Result<(), ArchiveError>,
) -> Result<SimilarSummary, ArchiveError> {
    let changes = index.header().last_update.clone().unwrap_or_default();
    let changed: Vec<String> = if changes.taboo_changed {
        let mut names: Vec<String> = index.live_ids().map(|id| index.name(id).to_string()).collect();
        names.sort();
        names
    } else {
        changes.changed
    };
    let is_changed: HashSet<&str> = changed.iter().map(String::as_str).collect();
    let mut rows = Vec::new();
    for name in &changed {
        let mut own = Vec::new();
        table.for_each_row_of(name, &mut |row| {
            own.push(row);
            Ok(())
        })?;
        // A pair has both rows or none: the others naming `name` are its partners.
        for row in &own {
            if !is_changed.contains(row.other.as_str())
                && let Some(reverse) = table.row(&row.other, name)?
            {
                rows.push(reverse);
            }
        }
        rows.extend(own.into_iter().take(params.top));
    }
    rows.retain(|row| row.document_in_other_percent >= params.min_percent);
    rows.sort_by(|x, y| {
        x.document
            .cmp(&y.document)
            .then_with(|| y.document_in_other_percent.total_cmp(&x.document_in_other_percent))
            .then_with(|| x.other.cmp(&y.other))
    });
    for row in &rows {
        sink(row)?;
    }
    Ok(SimilarSummary { documents: changed.len() as u64, rows: rows.len() as u64, deleted: changes.deleted })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use super::*;
    use crate::archive::builder::create;
    use crate::archive::check::{CheckParams, Checker};
    use crate::archive::format::Settings;
    use crate::archive::update::{UpdateOptions, update};
    use crate::detect::params::Preset;
    use crate::progress::Silent;
    use crate::testutil::prose;

    fn words(prefix: &str, count: usize) -> String {
        (0..count).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>().join(" ")
    }

    /// Every row of the table of the index in `root`, by document and other.
    fn stored_rows(root: &Path) -> Vec<SimilarRow> {
        let (_, table) = SimilarityTable::open(root).unwrap();
        let mut rows = Vec::new();
        table
            .for_each_row(0.0, &mut |row| {
                rows.push(row);
                Ok(())
            })
            .unwrap();
        rows.sort_by(|a, b| (&a.document, &a.other).cmp(&(&b.document, &b.other)));
        rows
    }

    fn exported(index: &ArchiveIndex, table: &SimilarityTable, params: SimilarParams) -> Vec<(String, String)> {
        let mut rows = Vec::new();
        similar(index, table, &params, &mut |row| {
            rows.push((row.document.clone(), row.other.clone()));
            Ok(())
        })
        .unwrap();
        rows
    }

    proptest::proptest! {
        #[test]
        fn split_lookups_keep_every_hash_in_one_part(
            mut hashes in proptest::collection::vec(0u64..40, 0..200),
            parts in 1usize..6,
        ) {
            hashes.sort_unstable();
            let lookups: Vec<(u64, u32)> = (0u32..).zip(hashes).map(|(local, hash)| (hash, local)).collect();
            let split = split_between_hashes(&lookups, parts);
            proptest::prop_assert_eq!(split.len(), parts);
            proptest::prop_assert_eq!(split.concat(), lookups.clone());
            for pair in split.windows(2) {
                if let (Some(last), Some(first)) = (pair[0].last(), pair[1].first()) {
                    proptest::prop_assert_ne!(last.0, first.0);
                }
            }
            // About equal parts: none longer than its share and the longest run of one hash.
            let longest_run = lookups.chunk_by(|x, y| x.0 == y.0).map(<[_]>::len).max().unwrap_or(0);
            for part in &split {
                proptest::prop_assert!(part.len() <= lookups.len().div_ceil(parts) + longest_run);
            }
        }
    }

    #[test]
    fn a_pair_has_both_rows_with_both_shares_and_the_passages_check_finds() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        // a: 104 words = 100 chunks; b holds 30 of a's words plus its own: the
        // 26 chunks inside the shared run are common, a valid interval.
        let a_text = words("wd", 104);
        fs::write(docs.join("a.txt"), &a_text).unwrap();
        fs::write(docs.join("b.txt"), format!("{} {}", words("wd", 30), words("bb", 40))).unwrap();
        fs::write(docs.join("c.txt"), words("cc", 50)).unwrap();
        let root = dir.path().join("idx");
        let summary = create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        assert_eq!((summary.similarity.rows, summary.similarity.pairs), (2, 1));
        let rows = stored_rows(&root);
        let (index, table) = SimilarityTable::open(&root).unwrap();
        // The pair as `check` of a's text (a's name sorts first) finds it.
        let report = Checker::new(&index, CheckParams::default()).unwrap().check_text("a.txt", &a_text).unwrap();
        let found = report.documents.iter().find(|d| d.document == "b.txt").unwrap();
        assert!(found.file_aligned_chars > 100, "{found:?}");
        let a_row = SimilarRow {
            document: "a.txt".into(),
            other: "b.txt".into(),
            document_in_other_percent: 26.0,
            other_in_document_percent: percent(26, 66),
            common_chunks: 26,
            aligned_chars: Some(found.file_aligned_chars),
            document_aligned_percent: Some(found.file_aligned_percent),
            other_aligned_percent: Some(found.document_aligned_percent),
        };
        assert_eq!((found.common_chunks, found.document_in_file_percent), (26, a_row.other_in_document_percent));
        assert_eq!(rows[0], a_row);
        // The reverse row: the same pair from b's side.
        let b_row = &rows[1];
        assert_eq!((b_row.document.as_str(), b_row.other.as_str(), b_row.common_chunks), ("b.txt", "a.txt", 26));
        assert_eq!(b_row.document_in_other_percent, a_row.other_in_document_percent);
        assert_eq!(b_row.document_aligned_percent, a_row.other_aligned_percent);
        assert_eq!(b_row.other_aligned_percent, a_row.document_aligned_percent);
        // The cut: the most similar rows of each document from --min-percent.
        let all = exported(&index, &table, SimilarParams::default());
        assert_eq!(all, [("a.txt".into(), "b.txt".into()), ("b.txt".into(), "a.txt".into())]);
        let strict = SimilarParams { min_percent: 30.0, ..SimilarParams::default() };
        assert_eq!(exported(&index, &table, strict), [("b.txt".into(), "a.txt".into())]);
        assert!(exported(&index, &table, SimilarParams { top: 0, ..SimilarParams::default() }).is_empty());
        let below = SimilarParams { min_percent: 0.5, ..SimilarParams::default() };
        let error = similar(&index, &table, &below, &mut |_| Ok(())).unwrap_err();
        assert!(error.to_string().contains("--min-percent 0.5 is below the 1 %"), "{error}");
    }

    /// Writes document `i` of round `round`: passages from a shared pool (so
    /// that documents copy from each other) around text of its own.
    fn write_document(docs: &Path, i: u64, round: u64, seed: &mut u64) {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let pool = |k: u64| prose(1000 + k, 60 + 5 * k as usize);
        let shared: String = (0..1 + *seed % 3).map(|j| pool((*seed >> (8 * j + 20)) % 6)).collect();
        let text = format!("{}{shared}{}", prose(100 * round + i, 30), prose(5000 + 100 * round + i, 20));
        fs::write(docs.join(format!("d{}/{i}.txt", i % 3)), text).unwrap();
    }

    #[test]
    fn updates_keep_the_table_a_fresh_create_writes() {
        for preset in [Preset::Pan09, Preset::Best] {
            let settings = Settings::of_preset(preset);
            let dir = tempfile::tempdir().unwrap();
            let docs = dir.path().join("docs");
            let root = dir.path().join("idx");
            for sub in 0..3 {
                fs::create_dir_all(docs.join(format!("d{sub}"))).unwrap();
            }
            let mut seed = 5u64;
            for i in 0..12 {
                write_document(&docs, i, 0, &mut seed);
            }
            create(&docs, &root, &settings, None, &Silent).unwrap();
            let mut aligned = 0;
            for round in 1..=5u64 {
                for i in 0..16u64 {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(round * 31 + i);
                    match (seed >> 40) % 8 {
                        0 => {
                            let _ = fs::remove_file(docs.join(format!("d{}/{i}.txt", i % 3)));
                        }
                        1 | 2 => write_document(&docs, i, round, &mut seed),
                        _ => {}
                    }
                }
                let summary = update(&docs, &root, &Default::default(), &UpdateOptions::default(), &Silent).unwrap();
                let fresh = dir.path().join(format!("fresh-{round}"));
                create(&docs, &fresh, &settings, None, &Silent).unwrap();
                let rows = stored_rows(&root);
                assert_eq!(rows, stored_rows(&fresh), "{preset:?}, round {round}");
                assert!(rows.iter().all(|row| row.aligned_chars.is_some()), "{preset:?}: every text was read");
                aligned += rows.iter().filter(|row| row.aligned_chars > Some(0)).count();
                if summary.committed {
                    assert_eq!(summary.similarity.rows, rows.len() as u64);
                }
            }
            assert!(aligned > 0, "{preset:?}: the documents share passages");
        }
    }
}
