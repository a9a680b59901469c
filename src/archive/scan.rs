//! Reading the archive's documents: listing them recursively, and analysing
//! them in parallel as the detector does ([`crate::analysis::document`]), into
//! chunk lists (for the similarity table) and postings; the texts extracted from PDF, DOCX and ODT
//! documents are kept in the index's cache ([`format::TEXT_CACHE`]).

use std::fs;
use std::path::Path;

use super::error::ArchiveError;
use super::format::{self, Settings};
use crate::analysis::chunk::Chunks;
use crate::analysis::document::{self, Document};
use crate::analysis::extract::cache::TextCache;
use crate::analysis::read::{self, DocumentFile, Listing, TextReader};
use crate::analysis::taboo::TabooChunks;
use crate::progress::Progress;
use crate::report::output;

/// A document found by [`list_documents`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDocument {
    /// Name (path relative to the documents directory), path and size.
    pub file: DocumentFile,
    /// Last modification time in nanoseconds since 1970 (0 when unknown).
    pub modified_ns: u64,
}

/// Every document under `dir`, recursively, named by its path relative to
/// `dir` with `/` separators, sorted by name: the detector's listing rule
/// ([`read::list_document_files_recursive`]: links to files followed, problems
/// warned about through `progress`).
pub fn list_documents(dir: &Path, progress: &dyn Progress) -> Result<Listing<ListedDocument>, ArchiveError> {
    let Listing { documents, skipped } = read::list_document_files_recursive(dir, progress)?;
    let documents =
        documents.into_iter().map(|(file, metadata)| ListedDocument { file, modified_ns: modified_ns(&metadata) });
    Ok(Listing { documents: documents.collect(), skipped })
}

/// Refuses an index directory that is, lies inside or contains the documents
/// directory, comparing paths with symbolic links resolved: the documents'
/// listing would read the index, and the index's cleanup would work among
/// the documents. A documents directory that does not exist is left to the
/// listing, which names it.
pub(crate) fn refuse_overlap(docs: &Path, index: &Path) -> Result<(), ArchiveError> {
    let Ok(docs_root) = docs.canonicalize() else { return Ok(()) };
    let resolved = output::resolve(index).map_err(ArchiveError::io(index))?;
    match output::overlap(&resolved, &docs_root) {
        Some(relation) => {
            Err(ArchiveError::OverlapsDocuments { index: index.to_path_buf(), docs: docs.to_path_buf(), relation })
        }
        None => Ok(()),
    }
}

/// A file's modification time in nanoseconds since 1970 (0 when unknown).
fn modified_ns(metadata: &fs::Metadata) -> u64 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(0))
}

/// Nanoseconds since 1970, now.
pub fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// A document analysed for the index: its chunk list and postings, without
/// its text.
#[derive(Debug, Clone, Default)]
pub struct IndexedDoc {
    /// XXH3-128 of the file's bytes ([`read::content_hash`]).
    pub content_hash: [u8; 16],
    /// Bytes of the file.
    pub bytes: u64,
    /// Characters of its text.
    pub chars: u32,
    /// Chunk hashes and ranges in sequence order: content chunks, then
    /// structure chunks (candidate chunks only).
    pub chunks: Chunks,
    /// Content chunks at the start of `chunks`.
    pub content_chunks: u32,
    /// The chunk hashes that are not taboo, sorted, a hash once per
    /// occurrence: the document's postings.
    pub postings: Vec<u64>,
    /// Distinct chunk hashes among them (the denominator of similarity).
    distinct: u32,
}

impl IndexedDoc {
    /// The analysed `document`, with the chunks in `taboo` left out of its
    /// postings (not of its chunk list).
    pub(crate) fn of(document: Document, taboo: &TabooChunks) -> Self {
        let mut postings: Vec<u64> = document.chunks.hashes.iter().copied().filter(|&h| !taboo.contains(h)).collect();
        postings.sort_unstable();
        let distinct = postings.chunk_by(|a, b| a == b).count();
        let distinct = u32::try_from(distinct).unwrap_or(u32::MAX);
        // Decoding refuses texts beyond 32-bit offsets.
        let chars = u32::try_from(document.text.chars().count()).unwrap_or(u32::MAX);
        let Document { content_hash, bytes, chunks, content_chunks, .. } = document;
        IndexedDoc { content_hash, bytes, chars, chunks, content_chunks, postings, distinct }
    }

    /// Number of distinct chunks that are not taboo.
    pub(crate) fn distinct(&self) -> u32 {
        self.distinct
    }

    /// Number of chunks that are not taboo: its postings.
    pub(crate) fn posting_count(&self) -> u32 {
        u32::try_from(self.postings.len()).unwrap_or(u32::MAX)
    }
}

/// The distinct values of `hashes` that are not in `taboo`, sorted.
pub(crate) fn distinct_outside(hashes: impl Iterator<Item = u64>, taboo: &TabooChunks) -> Vec<u64> {
    let mut distinct: Vec<u64> = hashes.filter(|&hash| !taboo.contains(hash)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
}

/// Splits `files` into the analysis's batches ([`document::batches`]).
pub(crate) fn batches(files: &[ListedDocument]) -> impl Iterator<Item = &[ListedDocument]> {
    document::batches(files, |f| f.file.bytes)
}

/// Reads (with `reader`) and analyses a batch in parallel with `settings`,
/// leaving the chunks in `taboo` out of the postings; `None` for skipped files.
pub(crate) fn index_batch(
    batch: &[ListedDocument],
    settings: &Settings,
    taboo: &TabooChunks,
    reader: TextReader<'_>,
    progress: &dyn Progress,
) -> Vec<Option<IndexedDoc>> {
    let analysed = document::analyse_batch(batch, |listed| &listed.file, &settings.analysis(), reader, progress);
    analysed.into_iter().map(|document| Some(IndexedDoc::of(document?, taboo))).collect()
}

/// The cache of extracted texts of the index in `root`, for `create` and
/// `update` (which hold the writer lock).
pub(crate) fn text_cache(root: &Path) -> Result<TextCache, ArchiveError> {
    let dir = root.join(format::TEXT_CACHE);
    TextCache::open(&dir).map_err(ArchiveError::io(&dir))
}

/// Removes the cached texts of documents no longer in the index (deleted or
/// changed since): `live` gives the content hashes of its documents. Best
/// effort, as the removal of old generations: a failure leaves texts that
/// the next update removes.
pub(crate) fn prune_text_cache(cache: &TextCache, live: impl Iterator<Item = [u8; 16]>) {
    let live: std::collections::HashSet<[u8; 16]> = live.collect();
    let _ = cache.retain(|key| live.contains(key));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::document::Analyzer;
    use crate::progress::Silent;

    #[test]
    fn lists_text_files_recursively_by_relative_name() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.txt", "a/z.txt", "a/b/c.txt", "a/notes.md", "c.xml"] {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x").unwrap();
        }
        let listed = list_documents(dir.path(), &Silent).unwrap().documents;
        assert!(listed.iter().all(|d| d.modified_ns > 0));
        let names: Vec<_> = listed.into_iter().map(|d| d.file.name).collect();
        assert_eq!(names, ["a/b/c.txt", "a/z.txt", "b.txt"]);
        assert!(list_documents(&dir.path().join("missing"), &Silent).is_err());
    }

    #[test]
    fn indexed_doc_counts_distinct_hashes() {
        let text = "alpha beta gamma delta epsilon alpha beta gamma delta epsilon";
        let analyse = || {
            let mut analyzer = Analyzer::new(&Settings::default().analysis());
            analyzer.analyse_text(text.to_string(), text.len() as u64, read::content_hash(text.as_bytes()))
        };
        let doc = IndexedDoc::of(analyse(), &TabooChunks::default());
        assert_eq!(doc.chunks.len(), 6);
        // Sorted chunks: the windows are permutations of the same five words,
        // one posting per occurrence.
        assert_eq!((doc.distinct(), doc.posting_count()), (1, 6));
        // A taboo chunk stays in the chunk list but is no posting.
        let taboo = TabooChunks::new(vec![doc.chunks.hashes[0]]);
        let doc = IndexedDoc::of(analyse(), &taboo);
        assert_eq!((doc.chunks.len(), doc.distinct(), doc.posting_count()), (6, 0, 0));
    }
}
