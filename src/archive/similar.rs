//! `similar`: for every document, the archive documents most similar to it.
//!
//! The similarity of A to B is `100 × common / distinct chunks of A`, where
//! `common` is the number of distinct chunk hashes A and B share; it is not
//! symmetric, but `common` is. The documents are taken in batches; a batch's
//! distinct chunk hashes (from the stored chunk lists) are sorted and looked
//! up in the postings, which hold one posting per (hash, document). The cost is the sum over hashes of (documents holding it)², as in the
//! paper's pair counting; `max_postings` can leave out very frequent chunks
//! (boilerplate), and the summary says how many were left out. Chunks of the
//! index's taboo set ([`super::taboo`]) have no postings and are not among a
//! document's distinct chunks, so they count neither in `common` nor in the
//! denominator.
//!
//! With `since_update`, only the rows touching documents added or modified by
//! the last update are computed: the changed documents' own rows (top `top`),
//! and for every other document B sharing chunks with a changed document A the
//! row B → A, whose similarity comes from `common` and B's stored chunk count
//! without reading B's chunks (these rows are not cut to B's top `top`).
//! Together with the update's list of deleted documents this is the delta to
//! apply to a stored similarity table. After an update that changed the taboo
//! set, every document counts as changed: every row is computed.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::Serialize;

use super::check::percent;
use super::error::ArchiveError;
use super::reader::ArchiveIndex;

/// Parameters of `similar`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimilarParams {
    /// Rows kept per document, most similar first.
    pub top: usize,
    /// Rows below this similarity (percent) are left out.
    pub min_percent: f64,
    /// Only rows touching the documents changed by the last update.
    pub since_update: bool,
    /// Chunks with more postings than this are left out (`None`: none is).
    pub max_postings: Option<u64>,
}

impl Default for SimilarParams {
    fn default() -> Self {
        SimilarParams { top: 100, min_percent: 1.0, since_update: false, max_postings: None }
    }
}

/// One row of the similarity table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimilarRow {
    /// Document A.
    pub document: String,
    /// Document B.
    pub other: String,
    /// `100 × common / distinct chunks of A`, two decimals.
    pub similarity: f64,
    /// Distinct chunk hashes A and B share.
    pub common_chunks: u64,
}

/// What a `similar` run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimilarSummary {
    /// Documents whose rows were computed.
    pub documents: u64,
    /// Rows written.
    pub rows: u64,
    /// Chunk lookups left out for having more than `max_postings` postings.
    pub frequent_chunks_skipped: u64,
    /// Documents deleted by the last update (with `since_update`): their rows
    /// are to be dropped from a stored table.
    pub deleted: Vec<String>,
}

/// Common distinct chunks of each of `docs` with every other document, as
/// `(other, common)` pairs per document, and the lookups left out for
/// `max_postings`. The documents' distinct hashes are looked up together in
/// hash order, so the walk through the directory and postings moves forward
/// (an index of gigabytes is then read almost like a stream), and a hash that
/// several of them hold is looked up once.
fn count_batch(index: &ArchiveIndex, docs: &[u32], max_postings: Option<u64>) -> Result<BatchCounts, ArchiveError> {
    let mut lookups: Vec<(u64, u32)> = Vec::new();
    for (local, &a) in (0u32..).zip(docs) {
        lookups.extend(index.chunk_hashes(&index.record(a)).map(|hash| (hash, local)));
    }
    lookups.sort_unstable();
    lookups.dedup();
    let mut counts: Vec<HashMap<u32, u32>> = vec![HashMap::new(); docs.len()];
    let mut skipped = 0;
    for group in lookups.chunk_by(|x, y| x.0 == y.0) {
        let range = index.lookup(group[0].0);
        let postings = range.end - range.start;
        if postings <= 1 {
            continue; // Only the document itself holds it.
        }
        if max_postings.is_some_and(|max| postings > max) {
            skipped += group.len() as u64;
            continue;
        }
        // One posting per (hash, document): each other document counts once.
        for i in range {
            let doc = index.posting_doc(i);
            if doc >= index.id_slots() {
                return Err(index.corrupt_postings(format!("posting of document {doc} past the table")));
            }
            for &(_, local) in group {
                if doc != docs[local as usize] {
                    *counts[local as usize].entry(doc).or_default() += 1;
                }
            }
        }
    }
    Ok(BatchCounts { counts: counts.into_iter().map(|m| m.into_iter().collect()).collect(), skipped })
}

/// What [`count_batch`] counted.
struct BatchCounts {
    /// Per document of the batch, `(other document, common chunks)`.
    counts: Vec<Vec<(u32, u32)>>,
    /// Lookups left out for `max_postings`.
    skipped: u64,
}

/// The rows of a task's documents, and the lookups left out.
type TaskRows = (Vec<Vec<SimilarRow>>, u64);

/// The top rows of `a`, given its common chunk counts.
fn rows_of(index: &ArchiveIndex, a: u32, counts: &[(u32, u32)], params: &SimilarParams) -> Vec<SimilarRow> {
    let distinct = u64::from(index.record(a).distinct_chunks);
    let mut rows: Vec<(f64, u32, u64)> = counts
        .iter()
        .map(|&(b, common)| (percent(u64::from(common), distinct), b, u64::from(common)))
        .filter(|&(similarity, _, _)| similarity >= params.min_percent)
        .collect();
    rows.sort_by(|x, y| y.0.total_cmp(&x.0).then_with(|| index.name(x.1).cmp(index.name(y.1))));
    rows.truncate(params.top);
    let document = index.name(a);
    rows.into_iter()
        .map(|(similarity, b, common)| SimilarRow {
            document: document.to_string(),
            other: index.name(b).to_string(),
            similarity,
            common_chunks: common,
        })
        .collect()
}

/// Chunks looked up per parallel task: bounds a task's lookup buffer.
const LOOKUPS_PER_TASK: u64 = 1 << 21;

/// Splits `ids` into consecutive tasks of about [`LOOKUPS_PER_TASK`] chunks.
fn tasks<'a>(index: &ArchiveIndex, ids: &'a [u32]) -> Vec<&'a [u32]> {
    let mut tasks = Vec::new();
    let (mut start, mut chunks) = (0, 0u64);
    for (i, &id) in ids.iter().enumerate() {
        chunks += u64::from(index.record(id).chunk_count);
        if chunks >= LOOKUPS_PER_TASK {
            tasks.push(&ids[start..=i]);
            (start, chunks) = (i + 1, 0);
        }
    }
    if start < ids.len() {
        tasks.push(&ids[start..]);
    }
    tasks
}

/// Computes the similarity table and hands each row to `sink`, ordered by
/// document name, then by similarity (highest first), then by other name.
pub fn similar(
    index: &ArchiveIndex,
    params: &SimilarParams,
    sink: &mut dyn FnMut(&SimilarRow) -> Result<(), ArchiveError>,
) -> Result<SimilarSummary, ArchiveError> {
    let mut summary = SimilarSummary::default();
    let mut ids: Vec<u32> = index.live_ids().collect();
    ids.sort_by(|&a, &b| index.name(a).cmp(index.name(b)));
    if params.since_update {
        return since_update(index, params, &ids, sink);
    }
    let tasks = tasks(index, &ids);
    // A few tasks per thread at a time keeps the rows in memory bounded and in order.
    for window in tasks.chunks(2 * rayon::current_num_threads()) {
        let done: Vec<Result<TaskRows, ArchiveError>> = window
            .par_iter()
            .map(|docs| {
                let BatchCounts { counts, skipped } = count_batch(index, docs, params.max_postings)?;
                let rows = docs.iter().zip(&counts).map(|(&a, counts)| rows_of(index, a, counts, params)).collect();
                Ok((rows, skipped))
            })
            .collect();
        for result in done {
            let (per_document, skipped) = result?;
            summary.frequent_chunks_skipped += skipped;
            for rows in per_document {
                summary.documents += 1;
                for row in &rows {
                    sink(row)?;
                    summary.rows += 1;
                }
            }
        }
    }
    Ok(summary)
}

fn since_update(
    index: &ArchiveIndex,
    params: &SimilarParams,
    ids: &[u32],
    sink: &mut dyn FnMut(&SimilarRow) -> Result<(), ArchiveError>,
) -> Result<SimilarSummary, ArchiveError> {
    let changes = index.header().last_update.clone().unwrap_or_default();
    let by_name: HashMap<&str, u32> = ids.iter().map(|&id| (index.name(id), id)).collect();
    let changed: Vec<u32> = if changes.taboo_changed {
        ids.to_vec()
    } else {
        changes.changed.iter().filter_map(|name| by_name.get(name.as_str()).copied()).collect()
    };
    let is_changed: std::collections::HashSet<u32> = changed.iter().copied().collect();
    let done: Vec<Result<(Vec<SimilarRow>, u64), ArchiveError>> = tasks(index, &changed)
        .par_iter()
        .map(|docs| {
            let BatchCounts { counts, skipped } = count_batch(index, docs, params.max_postings)?;
            let mut rows = Vec::new();
            for (&a, counts) in docs.iter().zip(&counts) {
                rows.extend(rows_of(index, a, counts, params));
                for &(b, common) in counts {
                    if is_changed.contains(&b) {
                        continue; // B's own row is computed in full.
                    }
                    let similarity = percent(u64::from(common), u64::from(index.record(b).distinct_chunks));
                    if similarity >= params.min_percent {
                        rows.push(SimilarRow {
                            document: index.name(b).to_string(),
                            other: index.name(a).to_string(),
                            similarity,
                            common_chunks: u64::from(common),
                        });
                    }
                }
            }
            Ok((rows, skipped))
        })
        .collect();
    let mut summary =
        SimilarSummary { deleted: changes.deleted, documents: changed.len() as u64, ..Default::default() };
    let mut rows = Vec::new();
    for result in done {
        let (mine, skipped) = result?;
        summary.frequent_chunks_skipped += skipped;
        rows.extend(mine);
    }
    rows.sort_by(|x, y| {
        x.document
            .cmp(&y.document)
            .then_with(|| y.similarity.total_cmp(&x.similarity))
            .then_with(|| x.other.cmp(&y.other))
    });
    for row in &rows {
        sink(row)?;
    }
    summary.rows = rows.len() as u64;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::archive::builder::create;
    use crate::archive::format::Settings;
    use crate::progress::Silent;

    fn words(prefix: &str, count: usize) -> String {
        (0..count).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>().join(" ")
    }

    fn table(index: &ArchiveIndex, params: SimilarParams) -> Vec<(String, String, f64, u64)> {
        let mut rows = Vec::new();
        similar(index, &params, &mut |row| {
            rows.push((row.document.clone(), row.other.clone(), row.similarity, row.common_chunks));
            Ok(())
        })
        .unwrap();
        rows
    }

    #[test]
    fn similarity_is_common_over_own_chunks_and_ordered() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        // a: 104 words = 100 chunks; b holds 20 of a's words plus its own: the
        // 16 chunks inside the shared run are common.
        fs::write(docs.join("a.txt"), words("wd", 104)).unwrap();
        fs::write(
            docs.join("b.txt"),
            format!("{} {}", (0..20).map(|i| format!("wd{i}")).collect::<Vec<_>>().join(" "), words("bb", 40)),
        )
        .unwrap();
        fs::write(docs.join("c.txt"), words("cc", 50)).unwrap();
        let root = dir.path().join("idx");
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        let index = ArchiveIndex::open(&root).unwrap();
        let rows = table(&index, SimilarParams::default());
        assert_eq!(
            rows,
            [("a.txt".into(), "b.txt".into(), 16.0, 16), ("b.txt".into(), "a.txt".into(), percent(16, 56), 16)]
        );
        let strict = table(&index, SimilarParams { min_percent: 20.0, ..SimilarParams::default() });
        assert_eq!(strict.len(), 1);
        let capped = SimilarParams { max_postings: Some(1), ..SimilarParams::default() };
        let mut skipped = 0;
        let summary = similar(&index, &capped, &mut |_| {
            skipped += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!((summary.rows, summary.frequent_chunks_skipped), (0, 32));
    }
}
