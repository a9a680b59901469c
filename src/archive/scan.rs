//! Reading the archive's documents: listing `*.txt` recursively, hashing their
//! content, and chunking them in parallel with the detector's tokenizer and
//! chunker.

use std::fs;
use std::path::Path;

use rayon::prelude::*;

use super::error::ArchiveError;
use super::format::Settings;
use crate::chunk::{Chunker, Chunks};
use crate::corpus::{self, DocumentFile, Loaded};
use crate::error::Warning;
use crate::progress::Progress;
use crate::span::CharRange;
use crate::taboo::TabooChunks;
use crate::tokenize::{Tokenizer, Tokens};

/// A document found by [`list_documents`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDocument {
    /// Name (path relative to the documents directory), path and size.
    pub file: DocumentFile,
    /// Last modification time in nanoseconds since 1970 (0 when unknown).
    pub modified_ns: u64,
}

/// Every `*.txt` file under `dir`, recursively, named by its path relative to
/// `dir` with `/` separators, sorted by name: the detector's listing rule
/// ([`corpus::list_text_files_recursive`]: links to files followed, problems
/// warned about through `progress`).
pub fn list_documents(dir: &Path, progress: &dyn Progress) -> Result<Vec<ListedDocument>, ArchiveError> {
    let files = corpus::list_text_files_recursive(dir, progress)?;
    Ok(files.into_iter().map(|(file, metadata)| ListedDocument { file, modified_ns: modified_ns(&metadata) }).collect())
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

/// A document read and chunked.
#[derive(Debug, Clone, Default)]
pub struct ChunkedDoc {
    /// XXH3-128 of the file's bytes ([`content_hash`]).
    pub content_hash: [u8; 16],
    /// Bytes of the file.
    pub bytes: u64,
    /// Chunk hashes in sequence order.
    pub hashes: Vec<u64>,
    /// Character range of each chunk.
    pub ranges: Vec<CharRange>,
    /// Distinct values in `hashes` that are not taboo, sorted: the document's
    /// postings.
    pub distinct_hashes: Vec<u64>,
    /// Number of distinct hashes that are not taboo (the denominator of similarity).
    pub distinct: u32,
}

/// XXH3-128 of a file's bytes: the content hash that tells modified
/// documents. Not cryptographic (nothing here defends against a crafted
/// collision), but 128 bits make an accidental one out of reach, and it
/// hashes at memory speed, where MD5 was half of an update's scan.
pub fn content_hash(bytes: &[u8]) -> [u8; 16] {
    xxhash_rust::xxh3::xxh3_128(bytes).to_le_bytes()
}

/// The distinct values of `hashes` that are not in `taboo`, sorted.
pub(crate) fn distinct_outside(hashes: impl Iterator<Item = u64>, taboo: &TabooChunks) -> Vec<u64> {
    let mut distinct: Vec<u64> = hashes.filter(|&hash| !taboo.contains(hash)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
}

/// Per-thread tokenizer and chunker with their buffers.
pub(crate) struct ChunkingState<'a> {
    tokenizer: Tokenizer,
    chunker: Chunker,
    tokens: Tokens,
    chunks: Chunks,
    taboo: &'a TabooChunks,
}

impl<'a> ChunkingState<'a> {
    /// A state chunking with `settings`; the chunks in `taboo` are left out
    /// of a document's postings and distinct chunks (not of its chunk list).
    pub(crate) fn new(settings: &Settings, taboo: &'a TabooChunks) -> Self {
        ChunkingState {
            tokenizer: Tokenizer::new(settings.tokenizer()),
            chunker: Chunker::new(settings.chunks()),
            tokens: Tokens::default(),
            chunks: Chunks::default(),
            taboo,
        }
    }

    /// The chunk hashes of `text`, in sequence order.
    pub(crate) fn chunk_hashes(&mut self, text: &str) -> &[u64] {
        self.tokenizer.tokenize(text, &mut self.tokens);
        self.chunker.chunk(&self.tokens, &mut self.chunks);
        &self.chunks.hashes
    }

    /// Chunks `text`, the decoded content of a file of `bytes` bytes whose
    /// content hash is `content_hash`.
    pub(crate) fn chunk_text(&mut self, text: &str, bytes: u64, content_hash: [u8; 16]) -> ChunkedDoc {
        self.chunk_hashes(text);
        let sorted = distinct_outside(self.chunks.hashes.iter().copied(), self.taboo);
        ChunkedDoc {
            content_hash,
            bytes,
            hashes: self.chunks.hashes.clone(),
            ranges: self.chunks.ranges.clone(),
            distinct: u32::try_from(sorted.len()).unwrap_or(u32::MAX),
            distinct_hashes: sorted,
        }
    }
}

/// Reads a document's bytes; an unreadable file's warning goes to `progress`.
pub(crate) fn read_bytes(file: &DocumentFile, progress: &dyn Progress) -> Option<Vec<u8>> {
    match fs::read(&file.path) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            progress.warn(&Warning { path: file.path.clone(), message: format!("cannot read: {error}; skipped") });
            None
        }
    }
}

/// Decodes a document's bytes as the detector does; a binary file's warning
/// (or a lossy decoding's) goes to `progress`.
pub(crate) fn decode(file: &DocumentFile, bytes: Vec<u8>, progress: &dyn Progress) -> Option<String> {
    match corpus::decode(file, bytes) {
        Loaded::Text(text, warning) => {
            if let Some(warning) = warning {
                progress.warn(&warning);
            }
            Some(text)
        }
        Loaded::Skipped(warning) => {
            progress.warn(&warning);
            None
        }
    }
}

/// Reads, hashes, decodes and chunks one document; `None` when it is skipped.
pub(crate) fn read_and_chunk(
    state: &mut ChunkingState<'_>,
    file: &DocumentFile,
    progress: &dyn Progress,
) -> Option<ChunkedDoc> {
    let bytes = read_bytes(file, progress)?;
    let hash = content_hash(&bytes);
    let size = bytes.len() as u64;
    let text = decode(file, bytes, progress)?;
    Some(state.chunk_text(&text, size, hash))
}

/// Bytes of text chunked per parallel batch, per thread: bounds the chunk
/// lists held in memory at once.
const BATCH_BYTES_PER_THREAD: u64 = 8 << 20;

/// Splits `files` into consecutive batches of about `BATCH_BYTES_PER_THREAD` ×
/// threads bytes (at least one file per batch).
pub(crate) fn batches(files: &[ListedDocument]) -> impl Iterator<Item = &[ListedDocument]> {
    let max_bytes = BATCH_BYTES_PER_THREAD * rayon::current_num_threads() as u64;
    crate::corpus::batches_by_bytes(files, max_bytes, |f| f.file.bytes)
}

/// Reads and chunks a batch in parallel, leaving the chunks in `taboo` out
/// of the postings; `None` for skipped files.
pub(crate) fn chunk_batch(
    batch: &[ListedDocument],
    settings: &Settings,
    taboo: &TabooChunks,
    progress: &dyn Progress,
) -> Vec<Option<ChunkedDoc>> {
    batch
        .par_iter()
        .map_init(
            || ChunkingState::new(settings, taboo),
            |state, listed| {
                let chunked = read_and_chunk(state, &listed.file, progress);
                progress.advance(listed.file.bytes);
                chunked
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    #[test]
    fn lists_text_files_recursively_by_relative_name() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.txt", "a/z.txt", "a/b/c.txt", "a/notes.md", "c.xml"] {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x").unwrap();
        }
        let listed = list_documents(dir.path(), &Silent).unwrap();
        assert!(listed.iter().all(|d| d.modified_ns > 0));
        let names: Vec<_> = listed.into_iter().map(|d| d.file.name).collect();
        assert_eq!(names, ["a/b/c.txt", "a/z.txt", "b.txt"]);
        assert!(list_documents(&dir.path().join("missing"), &Silent).is_err());
    }

    #[test]
    fn chunked_doc_counts_distinct_hashes() {
        let none = TabooChunks::default();
        let mut state = ChunkingState::new(&Settings::default(), &none);
        let text = "alpha beta gamma delta epsilon alpha beta gamma delta epsilon";
        let doc = state.chunk_text(text, text.len() as u64, content_hash(text.as_bytes()));
        assert_eq!(doc.hashes.len(), 6);
        // Sorted chunks: the windows are permutations of the same five words.
        assert_eq!(doc.distinct, 1);
        assert_eq!(doc.distinct_hashes.len(), 1);
        assert_ne!(content_hash(text.as_bytes()), content_hash(b"other"));
        // A taboo chunk stays in the chunk list but is no posting.
        let taboo = TabooChunks::new(vec![doc.hashes[0]]);
        let mut state = ChunkingState::new(&Settings::default(), &taboo);
        let doc = state.chunk_text(text, text.len() as u64, content_hash(text.as_bytes()));
        assert_eq!((doc.hashes.len(), doc.distinct, doc.distinct_hashes.len()), (6, 0, 0));
    }
}
