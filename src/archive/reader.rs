//! Opening an index: the header is parsed, the arrays are memory-mapped and
//! read in place (little-endian, whatever the machine), never parsed into
//! memory, so an index of many gigabytes opens in milliseconds.
//!
//! [`ArchiveIndex::open`] is cheap: it checks the header (magic, version,
//! settings), that every file has the length the header records and the counts
//! imply, and the document table's internal references and counts (one pass
//! over the table, 72 bytes per document). A file cut short or overwritten
//! with a different length is reported there. [`ArchiveIndex::verify`] also
//! checks every file's CRC-32, which reads the whole index: `index stats
//! --verify`, `check --verify` and `similar --verify` call it. `index update`
//! and `index merge` check every file whose bytes they read into the new
//! generation before using it ([`ArchiveIndex::verify_files`]): the document
//! table and names, and the postings of the segments they merge.
//!
//! The index keeps no chunk lists ([`super::format`]): the chunks of a
//! document, where a check, the alignment or `extract` needs them, come from
//! its text read back ([`ArchiveIndex::document_text`]) and analysed again
//! with the index's settings ([`ArchiveIndex::document_chunks`]); `None` when
//! the text can no longer be read as it was indexed (changed or deleted
//! since). A generation being written reads the chunk lists of the documents
//! it analysed from its scratch files instead (`ScratchChunkLists`).
//! Lookups go through every segment's postings and keep the live ones
//! ([`ArchiveIndex::documents_with`]). `check` and `similar` do not verify by
//! default, to answer within a second on an index of gigabytes; a flipped bit
//! in the postings then goes unnoticed, but it can never make them read
//! outside the arrays (every document id and chunk number read is
//! bounds-checked). The taboo set is the exception: it is small, read whole
//! and its CRC-32 checked on opening ([`super::taboo`]).

use std::collections::HashMap;
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use hashlink::LruCache;

use memmap2::{Mmap, UncheckedAdvice};
use rayon::prelude::*;

use super::error::ArchiveError;
use super::format::{
    self, DOC_RECORD_BYTES, DocRecord, FileEntry, HEADER, Header, PostingsEntry, RANGE_BYTES, Settings, read_key,
    read_u32,
};
use super::taboo;
use crate::align::stock::StockPhrases;
use crate::analysis::chunk::Chunks;
use crate::analysis::document::{Analyzer, Document};
use crate::analysis::extract::cache::TextCache;
use crate::analysis::read::{DocumentFile, Loaded, TextOrigin, TextReader, content_hash};
use crate::analysis::span::CharRange;
use crate::analysis::taboo::TabooChunks;
use crate::matching::index::prefetch;
use crate::matching::search::PREFETCH_DISTANCE;

/// A read-only memory map of one file, with the CRC-32 the header records.
#[derive(Debug)]
struct Mapped {
    name: String,
    path: PathBuf,
    map: Mmap,
    crc32: u32,
    /// The CRC-32 was checked and matched: it is not computed again.
    verified: AtomicBool,
}

impl Mapped {
    /// Drops the file's pages from this process's resident set; they stay in
    /// the page cache and are mapped again on the next access.
    fn release_pages(&self) {
        // SAFETY: the mapping is shared and read-only, of a generation file
        // that nothing writes (generations are immutable once written): a page
        // dropped here reads back with the same bytes, so no borrow of the
        // mapping sees a change. Failing is harmless (the pages stay).
        let _ = unsafe { self.map.unchecked_advise(UncheckedAdvice::DontNeed) };
    }

    /// Maps `dir/entry.name` and checks its length against the header's.
    fn open(dir: &Path, entry: &FileEntry) -> Result<Mapped, ArchiveError> {
        let path = dir.join(&entry.name);
        let file = File::open(&path).map_err(ArchiveError::io(&path))?;
        // # Safety
        //
        // A memory map is undefined behaviour in Rust's model if the file is
        // changed or truncated while it is mapped. The files of a generation
        // are never modified after they are written: an update writes a new
        // generation directory (hard-linking the immutable segments
        // it keeps) and switches `CURRENT`, then deletes the old directory,
        // which on Unix keeps the mapped data alive until it is unmapped. Only
        // a process that ignores this protocol and rewrites the files in place
        // could break the assumption (reads would then see other bytes, or
        // SIGBUS for a truncated file); every offset read from the maps is
        // bounds-checked, so other bytes can give wrong answers but no
        // out-of-bounds access.
        let map = unsafe { Mmap::map(&file) }.map_err(ArchiveError::io(&path))?;
        let got = map.len() as u64;
        if got != entry.bytes {
            return Err(ArchiveError::Truncated { path, expected: entry.bytes, got });
        }
        Ok(Mapped { name: entry.name.clone(), path, map, crc32: entry.crc32, verified: AtomicBool::new(false) })
    }

    fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Checks the CRC-32 against the header's, hashing large files in
    /// parallel pieces; a file that matched once is not hashed again.
    fn verify(&self) -> Result<(), ArchiveError> {
        const PIECE: usize = 64 << 20;
        if self.verified.load(Ordering::Relaxed) {
            return Ok(());
        }
        let crcs: Vec<(u32, u64)> = self
            .bytes()
            .par_chunks(PIECE)
            .map(|piece| {
                let mut hasher = crc32fast::Hasher::new();
                hasher.update(piece);
                (hasher.finalize(), piece.len() as u64)
            })
            .collect();
        let mut hasher = crc32fast::Hasher::new();
        for (crc, len) in crcs {
            hasher.combine(&crc32fast::Hasher::new_with_initial_len(crc, len));
        }
        let got = hasher.finalize();
        if got != self.crc32 {
            return Err(ArchiveError::ChecksumMismatch { path: self.path.clone(), expected: self.crc32, got });
        }
        self.verified.store(true, Ordering::Relaxed);
        Ok(())
    }
}

/// One segment, mapped: its postings.
#[derive(Debug)]
struct Segment {
    postings: SegmentPostings,
}

/// The chunk lists of the documents a generation being written analysed (the
/// chunk hashes of each in sequence order, then their character ranges, start
/// and end u32), in its scratch files until its similarity table is computed
/// ([`super::format`]).
#[derive(Debug)]
pub(crate) struct ScratchChunkLists {
    hashes: Mapped,
    ranges: Mapped,
    /// The position of each listed document's first chunk, by id.
    starts: HashMap<u32, u64>,
}

impl ScratchChunkLists {
    /// Maps the finished scratch files `hashes` and `ranges` of `dir`, whose
    /// documents start at `starts`.
    pub(crate) fn open(
        dir: &Path,
        (hashes, ranges): (&FileEntry, &FileEntry),
        starts: HashMap<u32, u64>,
    ) -> Result<Self, ArchiveError> {
        Ok(ScratchChunkLists { hashes: Mapped::open(dir, hashes)?, ranges: Mapped::open(dir, ranges)?, starts })
    }
}

/// The little-endian integer of `len` bytes (at most 8) at `at` of `bytes`,
/// as [`read_key`] reads it: one 8-byte load, masked, where 8 bytes remain.
#[inline(always)]
fn read_masked(bytes: &[u8], at: usize, len: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(word) => {
            let mask = u64::MAX.checked_shr(64 - 8 * len as u32).unwrap_or(0);
            u64::from_le_bytes(word.try_into().expect("8 bytes")) & mask
        }
        None => read_key(&bytes[at..], len),
    }
}

/// Buckets of at most this many postings are scanned rather than searched
/// by halves ([`SegmentPostings::find_in_bucket`]).
const SCANNED_BUCKET_POSTINGS: u64 = 32;

/// The postings of one segment and their byte layout.
#[derive(Debug)]
struct SegmentPostings {
    postings: Mapped,
    directory: Mapped,
    count: u64,
    directory_bits: u32,
    residue_bytes: usize,
    doc_bytes: usize,
    directory_entry_bytes: usize,
    residue_mask: u64,
    posting_bytes: usize,
    shift: u32,
}

impl SegmentPostings {
    fn open(dir: &Path, entry: &PostingsEntry, hash_bits: u32) -> Result<SegmentPostings, ArchiveError> {
        let shift = entry.residue_bits(hash_bits);
        Ok(SegmentPostings {
            postings: Mapped::open(dir, &entry.file)?,
            directory: Mapped::open(dir, &entry.directory)?,
            count: entry.count,
            directory_bits: entry.directory_bits,
            residue_bytes: format::residue_bytes(shift),
            doc_bytes: entry.doc_bytes as usize,
            directory_entry_bytes: format::directory_entry_bytes(entry.count),
            residue_mask: if shift == 0 { 0 } else { u64::MAX >> (64 - shift) },
            posting_bytes: entry.posting_bytes(hash_bits),
            shift,
        })
    }

    /// The document of posting `i` (`i < count`).
    #[inline]
    fn doc(&self, i: u64) -> u32 {
        let at = i as usize * self.posting_bytes + self.residue_bytes;
        // At most 4 bytes: the value fits.
        read_masked(self.postings.bytes(), at, self.doc_bytes) as u32
    }

    #[inline]
    fn residue(&self, i: u64) -> u64 {
        read_masked(self.postings.bytes(), i as usize * self.posting_bytes, self.residue_bytes)
    }

    /// The positions of the postings of `hash`, in document order.
    fn lookup(&self, hash: u64) -> Range<u64> {
        self.find_in_bucket(self.bucket_range(self.bucket_of(hash)), hash & self.residue_mask)
    }

    /// Asks the CPU to start loading the directory entry of `hash`.
    fn prefetch_directory(&self, hash: u64) {
        let at = self.bucket_of(hash).saturating_mul(self.directory_entry_bytes);
        if let Some(entry) = self.directory.bytes().get(at) {
            prefetch(entry);
        }
    }

    /// Asks the CPU to start loading the postings bucket of `hash`; best
    /// after [`prefetch_directory`](Self::prefetch_directory) had time to
    /// complete.
    fn prefetch_bucket(&self, hash: u64) {
        let start = self.bucket_range(self.bucket_of(hash)).start as usize;
        if let Some(posting) = self.postings.bytes().get(start.saturating_mul(self.posting_bytes)) {
            prefetch(posting);
        }
    }

    /// The directory bucket of `hash`.
    #[inline]
    fn bucket_of(&self, hash: u64) -> usize {
        hash.checked_shr(self.shift).unwrap_or(0) as usize
    }

    /// The positions in `bucket` of the postings whose residue is `residue`.
    /// A bucket holds a few postings on average: they are scanned in order,
    /// which reads a cache line or two; a crowded bucket is searched by
    /// halves.
    #[inline]
    fn find_in_bucket(&self, bucket: Range<u64>, residue: u64) -> Range<u64> {
        if bucket.end - bucket.start <= SCANNED_BUCKET_POSTINGS {
            let start = bucket.clone().find(|&i| self.residue(i) >= residue).unwrap_or(bucket.end);
            let end = (start..bucket.end).find(|&i| self.residue(i) != residue).unwrap_or(bucket.end);
            return start..end;
        }
        let start = self.partition(bucket.clone(), |r| r >= residue);
        start..self.partition(start..bucket.end, |r| r > residue)
    }

    /// The first position in `range` whose residue passes `is_after` (which
    /// the residues, in ascending order, pass from some position on).
    fn partition(&self, range: Range<u64>, is_after: impl Fn(u64) -> bool) -> u64 {
        let Range { start: mut low, end: mut high } = range;
        while low < high {
            let mid = low + (high - low) / 2;
            if is_after(self.residue(mid)) { high = mid } else { low = mid + 1 }
        }
        low
    }

    /// The positions of the postings of directory bucket `bucket`.
    fn bucket_range(&self, bucket: usize) -> Range<u64> {
        let (directory, width) = (self.directory.bytes(), self.directory_entry_bytes);
        if (bucket + 2) * width > directory.len() {
            return 0..0;
        }
        let end = read_masked(directory, (bucket + 1) * width, width).min(self.count);
        read_masked(directory, bucket * width, width).min(end)..end
    }

    /// Calls `f(hash, doc)` for every posting whose hash is from `first` to
    /// `last` (inclusive), in (hash, document) order: the buckets of that
    /// range, read in one sequential pass.
    fn for_each_between(
        &self,
        first: u64,
        last: u64,
        mut f: impl FnMut(u64, u32) -> Result<(), ArchiveError>,
    ) -> Result<(), ArchiveError> {
        let postings = self.postings.bytes();
        for bucket in self.bucket_of(first)..=self.bucket_of(last) {
            let range = self.bucket_range(bucket);
            let high = (bucket as u64).checked_shl(self.shift).unwrap_or(0);
            let bytes = &postings[range.start as usize * self.posting_bytes..range.end as usize * self.posting_bytes];
            for record in bytes.chunks_exact(self.posting_bytes) {
                let key = high | read_key(record, self.residue_bytes);
                if (first..=last).contains(&key) {
                    // At most 4 bytes: the value fits.
                    f(key, read_key(&record[self.residue_bytes..], self.doc_bytes) as u32)?;
                }
            }
        }
        Ok(())
    }

    /// Calls `f(hash, doc)` for every posting in (hash, document) order.
    fn for_each(&self, mut f: impl FnMut(u64, u32) -> Result<(), ArchiveError>) -> Result<(), ArchiveError> {
        let postings = self.postings.bytes();
        for bucket in 0..1usize << self.directory_bits {
            let range = self.bucket_range(bucket);
            let high = (bucket as u64) << self.shift;
            let bytes = &postings[range.start as usize * self.posting_bytes..range.end as usize * self.posting_bytes];
            for record in bytes.chunks_exact(self.posting_bytes) {
                let key = high | read_key(record, self.residue_bytes);
                // At most 4 bytes: the value fits.
                f(key, read_key(&record[self.residue_bytes..], self.doc_bytes) as u32)?;
            }
        }
        Ok(())
    }

    /// The error of a posting of document `doc`, past the document table.
    fn past_the_table(&self, doc: u32) -> ArchiveError {
        let message = format!("posting of document {doc} past the table");
        ArchiveError::Corrupt { path: self.postings.path.clone(), message }
    }

    /// Checks that the directory ends at the last posting.
    fn check_directory(&self) -> Result<(), ArchiveError> {
        let (directory, width) = (self.directory.bytes(), self.directory_entry_bytes);
        if read_key(&directory[directory.len() - width..], width) != self.count {
            return Err(ArchiveError::Corrupt {
                path: self.directory.path.clone(),
                message: "directory does not end at the last posting".into(),
            });
        }
        Ok(())
    }
}

/// Chunks of documents analysed again ([`ArchiveIndex::document_chunks`])
/// that an index keeps for the next request of the same document (another
/// pair of the similarity table, the next check of a server): at most
/// [`CACHED_CHUNKS`] chunks, the least recently used dropped first. A cached
/// analysis is used only once the document's text was read again and found
/// as indexed, so a document changed since gives no chunks, cached or not.
#[derive(Debug)]
struct AnalysisCache {
    documents: LruCache<u32, Chunks>,
    chunks: usize,
}

/// Chunks the analysis cache holds at most (16 bytes each: 64 MiB).
const CACHED_CHUNKS: usize = 1 << 22;

impl AnalysisCache {
    fn get(&mut self, id: u32) -> Option<Chunks> {
        self.documents.get(&id).cloned()
    }

    fn insert(&mut self, id: u32, chunks: &Chunks) {
        if chunks.len() > CACHED_CHUNKS / 4 {
            return; // A huge document would push out everything else.
        }
        self.chunks += chunks.len();
        if let Some(replaced) = self.documents.insert(id, chunks.clone()) {
            self.chunks -= replaced.len();
        }
        while self.chunks > CACHED_CHUNKS {
            let Some((_, dropped)) = self.documents.remove_lru() else { break };
            self.chunks -= dropped.len();
        }
    }
}

/// An open index: the header and zero-copy views of the arrays.
#[derive(Debug)]
pub struct ArchiveIndex {
    root: PathBuf,
    generation_dir: PathBuf,
    header: Header,
    docs: Mapped,
    names: Mapped,
    segments: Vec<Segment>,
    taboo: TabooChunks,
    /// The texts extracted from the documents, for lookups only.
    text_cache: TextCache,
    key_bytes: usize,
    /// The scratch chunk lists of a generation being written.
    scratch: Option<ScratchChunkLists>,
    analysed: Mutex<AnalysisCache>,
}

impl ArchiveIndex {
    /// Opens the live generation of the index in `root`.
    pub fn open(root: &Path) -> Result<ArchiveIndex, ArchiveError> {
        Self::open_from(root, format::current_generation(root)?)
    }

    /// Opens generation `generation` of the index in `root`, or the live one
    /// when that one is gone: an update may commit a newer generation and
    /// remove this one between the reading of `CURRENT` and the opening of its
    /// files (readers take no lock). Tries a few times, then gives up with the
    /// error.
    fn open_from(root: &Path, mut generation: u64) -> Result<ArchiveIndex, ArchiveError> {
        const ATTEMPTS: usize = 5;
        for _ in 1..ATTEMPTS {
            match Self::open_generation(root, generation) {
                Err(error) if error.is_not_found() => {
                    let live = format::current_generation(root)?;
                    if live == generation {
                        return Err(error);
                    }
                    generation = live;
                }
                result => return result,
            }
        }
        Self::open_generation(root, generation)
    }

    fn open_generation(root: &Path, generation: u64) -> Result<ArchiveIndex, ArchiveError> {
        let generation_dir = root.join(format::generation_name(generation));
        let header_path = generation_dir.join(HEADER);
        let text = std::fs::read_to_string(&header_path).map_err(ArchiveError::io(&header_path))?;
        let header = Header::parse(&text, &header_path)?;
        Self::with_header(root, generation_dir, header)
    }

    /// Opens the files of `generation_dir` as `header` describes them, the
    /// names checked against their CRC-32: also a generation being written,
    /// whose body files are finished and whose header is not written yet
    /// (the similarity table is computed from it before the commit).
    pub(crate) fn with_header(
        root: &Path,
        generation_dir: PathBuf,
        header: Header,
    ) -> Result<ArchiveIndex, ArchiveError> {
        let header_path = generation_dir.join(HEADER);
        for (entry, implied) in header.files.iter().zip(header.expected_lengths()) {
            if implied.is_some_and(|implied| implied != entry.bytes) {
                return Err(ArchiveError::Corrupt {
                    path: header_path,
                    message: format!("{} has {} bytes, the counts imply {implied:?}", entry.name, entry.bytes),
                });
            }
        }
        let map = |entry: &FileEntry| Mapped::open(&generation_dir, entry);
        let (docs, names) = (map(&header.files[0])?, map(&header.files[1])?);
        // The names are small (a few dozen bytes a document) and a damaged
        // byte in one would pass every structural check and attribute a
        // passage to another document: checked on every opening.
        names.verify()?;
        let hash_bits = header.settings.hash_bits;
        let segments = header
            .segments
            .iter()
            .map(|s| Ok(Segment { postings: SegmentPostings::open(&generation_dir, &s.postings, hash_bits)? }))
            .collect::<Result<Vec<_>, ArchiveError>>()?;
        let taboo = match &header.taboo {
            Some(entry) => taboo::read(&generation_dir, entry, &header.settings)?,
            None => TabooChunks::default(),
        };
        if let Some(table) = &header.similarity {
            let path = generation_dir.join(&table.file.name);
            let got = std::fs::metadata(&path).map_err(ArchiveError::io(&path))?.len();
            if got != table.file.bytes {
                return Err(ArchiveError::Truncated { path, expected: table.file.bytes, got });
            }
        }
        let index = ArchiveIndex {
            root: root.to_path_buf(),
            text_cache: TextCache::read_only(&root.join(format::TEXT_CACHE)),
            generation_dir,
            key_bytes: header.settings.key_bytes(),
            header,
            docs,
            names,
            segments,
            taboo,
            scratch: None,
            analysed: Mutex::new(AnalysisCache { documents: LruCache::new_unbounded(), chunks: 0 }),
        };
        index.check_table()?;
        Ok(index)
    }

    /// This view of a generation being written, with the chunk lists of the
    /// documents it analysed in `scratch`.
    pub(crate) fn with_scratch(self, scratch: ScratchChunkLists) -> Self {
        ArchiveIndex { scratch: Some(scratch), ..self }
    }

    /// Checks the document table's references into the names and segments
    /// and its counts against the header, and that the names are UTF-8, so
    /// that accessors can slice without fear.
    fn check_table(&self) -> Result<(), ArchiveError> {
        let corrupt = |message: String| ArchiveError::Corrupt { path: self.docs.path.clone(), message };
        let Ok(names) = std::str::from_utf8(self.names.bytes()) else {
            return Err(ArchiveError::Corrupt { path: self.names.path.clone(), message: "names are not UTF-8".into() });
        };
        let (mut live, mut chunks, mut postings) = (0u64, 0u64, 0u64);
        let mut segment_chunks = vec![0u64; self.segments.len()];
        let mut segment_postings = vec![0u64; self.segments.len()];
        for id in 0..self.id_slots() {
            let record = self.record(id);
            let name_end = record.name_start.checked_add(u64::from(record.name_len));
            let name_ok = name_end.is_some_and(|end| {
                end <= names.len() as u64
                    && names.is_char_boundary(record.name_start as usize)
                    && names.is_char_boundary(end as usize)
            });
            if !name_ok {
                return Err(corrupt(format!("document {id}: name out of bounds")));
            }
            if !record.live {
                continue;
            }
            live += 1;
            if record.distinct_chunks > record.postings || record.postings > record.chunk_count {
                return Err(corrupt(format!("document {id}: more distinct chunks than postings or chunks")));
            }
            if record.chunk_count == 0 {
                continue; // No chunks: the segment field is not used.
            }
            if record.segment as usize >= self.segments.len() {
                return Err(corrupt(format!("document {id}: segment out of bounds")));
            }
            chunks += u64::from(record.chunk_count);
            postings += u64::from(record.postings);
            segment_chunks[record.segment as usize] += u64::from(record.chunk_count);
            segment_postings[record.segment as usize] += u64::from(record.postings);
        }
        let header = &self.header;
        let segments_ok = (header.segments.iter().zip(&segment_chunks).zip(&segment_postings))
            .all(|((s, &chunks), &postings)| s.live_chunks == chunks && s.postings.live == postings);
        if live != header.documents || chunks != header.chunks || postings != header.postings || !segments_ok {
            return Err(corrupt(format!(
                "{live} documents, {chunks} chunks and {postings} postings, the header says {}, {} and {}",
                header.documents, header.chunks, header.postings
            )));
        }
        self.segments.iter().try_for_each(|segment| segment.postings.check_directory())
    }

    /// Checks every file's CRC-32 against the header (reads the whole index;
    /// the names' and the taboo set's were checked on opening).
    pub fn verify(&self) -> Result<(), ArchiveError> {
        self.mapped_files().collect::<Vec<_>>().par_iter().try_for_each(|file| file.verify())?;
        self.verify_similarity()
    }

    /// Checks the similarity table's CRC-32 against the header (nothing
    /// without a table). The table is not memory-mapped: it is read for this.
    /// `index update` calls it before it copies the table into a new
    /// generation.
    pub fn verify_similarity(&self) -> Result<(), ArchiveError> {
        let Some(table) = &self.header.similarity else { return Ok(()) };
        let path = self.similarity_path();
        let got = file_crc32(&path)?;
        if got != table.file.crc32 {
            return Err(ArchiveError::ChecksumMismatch { path, expected: table.file.crc32, got });
        }
        Ok(())
    }

    /// Where this generation's similarity table is (or would be).
    pub fn similarity_path(&self) -> PathBuf {
        self.generation_dir.join(format::SIMILARITY)
    }

    /// Checks the CRC-32 of the files `names` of this generation against the
    /// header, in parallel, and fails with [`ArchiveError::ChecksumMismatch`]
    /// naming a file that differs. A file that matched once (here or in
    /// [`verify`](Self::verify)) is not hashed again. Every reader of stored
    /// bytes that writes them on (`index update`: the postings it merges, the
    /// table it rewrites, the segments it links or compacts) calls this
    /// first, so that a damaged file is refused instead of carried into a new
    /// generation under a fresh checksum. The taboo set is not among the
    /// names: it was checked on opening.
    pub fn verify_files(&self, names: &[&str]) -> Result<(), ArchiveError> {
        let files = names
            .iter()
            .map(|&name| {
                self.mapped_files().find(|file| file.name == name).ok_or_else(|| ArchiveError::Corrupt {
                    path: self.generation_dir.join(HEADER),
                    message: format!("{name} is not a file of this generation"),
                })
            })
            .collect::<Result<Vec<_>, ArchiveError>>()?;
        files.par_iter().try_for_each(|file| file.verify())
    }

    /// The memory-mapped files: the body files, then the segments'.
    /// Drops the pages of every mapped file from the resident set (they stay
    /// in the page cache): a pass over the whole index calls it now and then,
    /// so that its peak memory follows what it works on, not the index's size.
    pub(crate) fn release_pages(&self) {
        self.mapped_files().for_each(Mapped::release_pages);
    }

    fn mapped_files(&self) -> impl Iterator<Item = &Mapped> {
        let segments = self.segments.iter().flat_map(|s| [&s.postings.postings, &s.postings.directory]);
        let scratch = self.scratch.iter().flat_map(|s| [&s.hashes, &s.ranges]);
        [&self.docs, &self.names].into_iter().chain(segments).chain(scratch)
    }

    /// The index directory this was opened from.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The live generation's directory.
    pub fn generation_dir(&self) -> &Path {
        &self.generation_dir
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The tokenizer and chunker settings.
    pub fn settings(&self) -> &Settings {
        &self.header.settings
    }

    /// The collection's stock phrases ([`Header::stock_phrases`]).
    pub fn stock_phrases(&self) -> Option<&StockPhrases> {
        self.header.stock_phrases.as_ref()
    }

    /// The taboo set: chunks that have no postings and that `check` leaves
    /// out of the checked file (empty when the index has none).
    pub fn taboo(&self) -> &TabooChunks {
        &self.taboo
    }

    /// Records in the document table (live documents and free ids).
    pub fn id_slots(&self) -> u32 {
        // Ids are u32: docs.bin's length was checked against id_slots, and
        // tables are only ever built with u32 ids.
        u32::try_from(self.header.id_slots).unwrap_or(u32::MAX)
    }

    /// The record of document `id` (`id < id_slots()`).
    pub fn record(&self, id: u32) -> DocRecord {
        let at = id as usize * DOC_RECORD_BYTES;
        let mut bytes = [0u8; DOC_RECORD_BYTES];
        bytes.copy_from_slice(&self.docs.bytes()[at..at + DOC_RECORD_BYTES]);
        DocRecord::decode(&bytes)
    }

    /// The name of document `id` (empty for a free id).
    pub fn name(&self, id: u32) -> &str {
        let record = self.record(id);
        let start = record.name_start as usize;
        let bytes = &self.names.bytes()[start..start + record.name_len as usize];
        // check_table verified on opening that names.bin is UTF-8 and that every
        // name starts and ends on a character boundary.
        std::str::from_utf8(bytes).unwrap_or("")
    }

    /// The live document ids.
    pub fn live_ids(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.id_slots()).filter(|&id| self.record(id).live)
    }

    /// Number of live postings.
    pub fn postings_len(&self) -> u64 {
        self.header.postings
    }

    /// Number of segments.
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    /// Sets `docs` to the live documents holding chunk `hash`, in id order:
    /// the postings of every segment, those of a deleted document or of
    /// another segment than the document's record names (tombstones) left
    /// out. Fails on a posting of an id past the table.
    pub fn documents_with(&self, hash: u64, docs: &mut Vec<u32>) -> Result<(), ArchiveError> {
        self.occurrences_of(hash, docs)?;
        docs.dedup();
        Ok(())
    }

    /// Sets `docs` to the live documents holding chunk `hash`, in id order,
    /// each as often as the chunk occurs in it (a posting per occurrence).
    pub fn occurrences_of(&self, hash: u64, docs: &mut Vec<u32>) -> Result<(), ArchiveError> {
        docs.clear();
        let mut segments_found = 0;
        for (s, segment) in (0u32..).zip(&self.segments) {
            let range = segment.postings.lookup(hash);
            segments_found += usize::from(!range.is_empty());
            for i in range {
                let doc = segment.postings.doc(i);
                if doc >= self.id_slots() {
                    return Err(segment.postings.past_the_table(doc));
                }
                if self.holds_postings_of(doc, s) {
                    docs.push(doc);
                }
            }
        }
        if segments_found > 1 {
            docs.sort_unstable();
        }
        Ok(())
    }

    /// Calls `f(i, documents)` for each hash `hashes[i]`, in order, with the
    /// live documents holding it, each once, in id order: [`documents_with`]
    /// for many hashes, with the directory entries and buckets of the hashes
    /// ahead prefetched, so that the reads from memory overlap (a walk
    /// through an index of gigabytes waits on memory, not on computation).
    ///
    /// [`documents_with`]: Self::documents_with
    pub fn documents_with_each(&self, hashes: &[u64], mut f: impl FnMut(usize, &[u32])) -> Result<(), ArchiveError> {
        let mut docs = Vec::new();
        for (i, &hash) in hashes.iter().enumerate() {
            for segment in &self.segments {
                if let Some(&later) = hashes.get(i + PREFETCH_DISTANCE) {
                    segment.postings.prefetch_directory(later);
                }
                if let Some(&sooner) = hashes.get(i + PREFETCH_DISTANCE / 2) {
                    segment.postings.prefetch_bucket(sooner);
                }
            }
            self.documents_with(hash, &mut docs)?;
            f(i, &docs);
        }
        Ok(())
    }

    /// Calls `f(hash, documents)` for every chunk hash from `first` to `last`
    /// (inclusive) that live documents hold, in hash order, with those
    /// documents in id order (tombstones left out, as [`documents_with`]
    /// does): one pass over that range of every segment's postings, which
    /// are held in memory together, 12 bytes each.
    ///
    /// [`documents_with`]: Self::documents_with
    pub fn for_each_chunk_between(
        &self,
        first: u64,
        last: u64,
        mut f: impl FnMut(u64, &[u32]),
    ) -> Result<(), ArchiveError> {
        let mut postings: Vec<(u64, u32)> = Vec::new();
        for (s, segment) in (0u32..).zip(&self.segments) {
            segment.postings.for_each_between(first, last, |hash, doc| {
                if doc >= self.id_slots() {
                    return Err(segment.postings.past_the_table(doc));
                }
                if self.holds_postings_of(doc, s) {
                    postings.push((hash, doc));
                }
                Ok(())
            })?;
        }
        if self.segments.len() > 1 {
            postings.sort_unstable();
        }
        let mut docs = Vec::new();
        for group in postings.chunk_by(|a, b| a.0 == b.0) {
            docs.clear();
            docs.extend(group.iter().map(|&(_, doc)| doc));
            docs.dedup(); // A posting per occurrence.
            f(group[0].0, &docs);
        }
        Ok(())
    }

    /// Whether document `id`'s live postings are those of segment `segment`:
    /// the document is live, has postings, and its record names the segment.
    #[inline]
    fn holds_postings_of(&self, id: u32, segment: u32) -> bool {
        let at = id as usize * DOC_RECORD_BYTES;
        let record = &self.docs.bytes()[at..at + DOC_RECORD_BYTES];
        // The record's live flag, distinct chunks and segment (see DocRecord::encode).
        read_u32(record, 28) != 0 && read_u32(record, 12) != 0 && read_u32(record, 56) == segment
    }

    /// Calls `f(hash, doc)` for every live posting of segment `segment` in
    /// (hash, document) order: one sequential pass over its postings.
    pub(crate) fn for_each_live_posting(
        &self,
        segment: usize,
        mut f: impl FnMut(u64, u32) -> Result<(), ArchiveError>,
    ) -> Result<(), ArchiveError> {
        let postings = &self.segments[segment].postings;
        postings.for_each(|key, doc| {
            if doc >= self.id_slots() {
                return Err(postings.past_the_table(doc));
            }
            if self.holds_postings_of(doc, segment as u32) { f(key, doc) } else { Ok(()) }
        })
    }

    /// The chunks of document `id` as it was indexed: its text read back and
    /// analysed again with the index's settings (or, in a generation being
    /// written, its scratch chunk list); `None` when the text can no longer be
    /// read as it was indexed.
    pub fn document_chunks(&self, id: u32) -> Result<Option<Chunks>, ArchiveError> {
        if let Some(chunks) = self.scratch_chunks(id)? {
            return Ok(Some(chunks));
        }
        // The text is read and checked each time; its analysis may be cached.
        let Some(text) = self.document_text(id) else { return Ok(None) };
        Ok(self.cached(id).or_else(|| self.analyse(id, text).map(|document| document.chunks)))
    }

    /// The chunks of document `id` in the analysis cache.
    fn cached(&self, id: u32) -> Option<Chunks> {
        self.analysed.lock().ok()?.get(id)
    }

    /// The chunk list of document `id` in the scratch lists, when it is there;
    /// fails on a reversed range, which only damage makes.
    fn scratch_chunks(&self, id: u32) -> Result<Option<Chunks>, ArchiveError> {
        let Some(scratch) = &self.scratch else { return Ok(None) };
        let Some(&start) = scratch.starts.get(&id) else { return Ok(None) };
        let (start, count) = (start as usize, self.record(id).chunk_count as usize);
        let key_bytes = self.key_bytes;
        let hashes = scratch.hashes.bytes()[start * key_bytes..(start + count) * key_bytes]
            .chunks_exact(key_bytes)
            .map(|b| read_key(b, key_bytes))
            .collect();
        let ranges = scratch.ranges.bytes()[start * RANGE_BYTES..(start + count) * RANGE_BYTES]
            .chunks_exact(RANGE_BYTES)
            .map(|b| (read_u32(b, 0), read_u32(b, 4)))
            .map(|(start, end)| (start <= end).then(|| CharRange::new(start, end)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| ArchiveError::Corrupt {
                path: scratch.ranges.path.clone(),
                message: format!("a reversed chunk range of document {id}"),
            })?;
        Ok(Some(Chunks { hashes, ranges }))
    }

    /// Document `id` analysed from its `text` with the index's settings;
    /// `None` when the analysis does not give the chunks the record counts
    /// (an index written with other settings than its header's).
    fn analyse(&self, id: u32, text: String) -> Option<Document> {
        let record = self.record(id);
        let mut analyzer = Analyzer::new(&self.header.settings.analysis());
        let document = analyzer.analyse_text(text, record.bytes, record.content_hash);
        let same =
            document.chunks.len() == record.chunk_count as usize && document.content_chunks == record.content_chunks();
        if same && let Ok(mut cache) = self.analysed.lock() {
            cache.insert(id, &document.chunks);
        }
        same.then_some(document)
    }

    /// The text of document `id` read from the documents directory, when the
    /// file is still the indexed version (same content hash); `None` when it
    /// is missing, unreadable or changed since. An extracted text is read from
    /// the index's cache: the text its chunks were computed from.
    pub fn document_text(&self, id: u32) -> Option<String> {
        let record = self.record(id);
        let name = self.name(id);
        let path = Path::new(&self.header.docs_root).join(name);
        let bytes = std::fs::read(&path).ok()?;
        if content_hash(&bytes) != record.content_hash {
            return None;
        }
        let file = DocumentFile { name: name.to_string(), path, bytes: bytes.len() as u64 };
        match TextReader::new(Some(&self.text_cache)).decode(&file, bytes) {
            Loaded::Text(text, _) => Some(text),
            Loaded::Skipped(_) => None,
        }
    }

    /// Document `id` as it was indexed, for the alignment: its text read back
    /// (`None` when missing, unreadable or changed since), its chunks
    /// ([`document_chunks`](Self::document_chunks)), and the text that taboo
    /// chunks cover blanked, as `check` blanks it.
    pub(crate) fn stored_document(&self, id: u32) -> Result<Option<Document>, ArchiveError> {
        let Some(text) = self.document_text(id) else { return Ok(None) };
        let mut document = match self.scratch_chunks(id)?.or_else(|| self.cached(id)) {
            Some(chunks) => {
                let record = self.record(id);
                let (bytes, content_hash, content_chunks) =
                    (record.bytes, record.content_hash, record.content_chunks());
                // An index holds no word chunks (`AlignParams::unordered_min_chunks` is 0 there).
                Document {
                    text,
                    bytes,
                    content_hash,
                    chunks,
                    content_chunks,
                    word_chunks: 0,
                    origin: TextOrigin::Other,
                    translated: None,
                }
            }
            None => match self.analyse(id, text) {
                Some(document) => document,
                None => return Ok(None),
            },
        };
        document.blank_taboo(self.taboo());
        Ok(Some(document))
    }

    /// Bytes of every file, by name.
    pub fn file_sizes(&self) -> Vec<(&str, u64)> {
        let fixed = self.header.files.iter().map(|f| (f.name.as_str(), f.bytes));
        let segments = self.header.segments.iter().flat_map(|s| [&s.postings.file, &s.postings.directory]);
        let taboo = self.header.taboo.iter().map(|t| &t.file);
        let similarity = self.header.similarity.iter().map(|t| &t.file);
        fixed.chain(segments.chain(taboo).chain(similarity).map(|f| (f.name.as_str(), f.bytes))).collect()
    }

    /// The corrupt-index error of document `id`'s record, which its
    /// analysis contradicts.
    pub(crate) fn corrupt_record(&self, id: u32, message: String) -> ArchiveError {
        ArchiveError::Corrupt { path: self.docs.path.clone(), message: format!("document {id}: {message}") }
    }
}

/// The CRC-32 of the file at `path`, read in pieces.
pub(crate) fn file_crc32(path: &Path) -> Result<u32, ArchiveError> {
    use std::io::Read;
    let mut file = File::open(path).map_err(ArchiveError::io(path))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = file.read(&mut buffer).map_err(ArchiveError::io(path))?;
        if read == 0 {
            return Ok(hasher.finalize());
        }
        hasher.update(&buffer[..read]);
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::archive::builder::create;
    use crate::progress::Silent;

    fn build(dir: &Path, docs: &[(&str, &str)]) -> PathBuf {
        let docs_dir = dir.join("docs");
        for (name, text) in docs {
            let path = docs_dir.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let index = dir.join("idx");
        create(&docs_dir, &index, &Settings::default(), None, &Silent).unwrap();
        index
    }

    #[test]
    fn a_reader_that_read_current_before_an_update_opens_the_new_generation() {
        let dir = tempfile::tempdir().unwrap();
        let index = build(dir.path(), &[("a.txt", "one two three four five six seven eight nine ten")]);
        fs::write(dir.path().join("docs/b.txt"), "eleven twelve thirteen fourteen fifteen sixteen").unwrap();
        let options = crate::archive::UpdateOptions::default();
        crate::archive::update(&dir.path().join("docs"), &index, &Default::default(), &options, &Silent).unwrap();
        // Generation 1 is gone; a reader still holding its number moves on to 2.
        assert!(ArchiveIndex::open_generation(&index, 1).unwrap_err().is_not_found());
        let opened = ArchiveIndex::open_from(&index, 1).unwrap();
        assert_eq!(opened.header().documents, 2);
    }

    #[test]
    fn lookups_find_every_chunk_of_every_document() {
        let dir = tempfile::tempdir().unwrap();
        let text_a = "one two three four five six seven eight nine ten eleven";
        let text_b = "three four five six seven zzz yyy xxx www";
        let index = build(dir.path(), &[("b.txt", text_b), ("sub/a.txt", text_a), ("empty.txt", "")]);
        let index = ArchiveIndex::open(&index).unwrap();
        index.verify().unwrap();
        assert_eq!(index.header().documents, 3);
        let names: Vec<_> = index.live_ids().map(|id| index.name(id).to_string()).collect();
        assert_eq!(names, ["b.txt", "empty.txt", "sub/a.txt"]);
        let holders = |hash: u64| {
            let mut docs = Vec::new();
            index.documents_with(hash, &mut docs).unwrap();
            docs
        };
        for id in index.live_ids() {
            let chunks = index.document_chunks(id).unwrap().unwrap();
            assert_eq!(chunks.len(), index.record(id).chunk_count as usize);
            for &hash in &chunks.hashes {
                assert_eq!(holders(hash).iter().filter(|&&doc| doc == id).count(), 1);
            }
        }
        // "three four five six seven" is in both documents.
        let a = index.document_chunks(2).unwrap().unwrap();
        assert_eq!(holders(a.hashes[2]), [0, 2]);
        assert_eq!(a.ranges[0], CharRange::new(0, 23));
        // The index holds postings, no chunk lists.
        let mut files: Vec<String> = fs::read_dir(index.generation_dir())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        assert_eq!(
            files,
            ["docs.bin", "header.json", "names.bin", "segment-000001.directory", "segment-000001.postings"]
                .into_iter()
                .chain(["similarity.sqlite"])
                .collect::<Vec<_>>()
        );
        // Analysed once, a document's chunks are cached for the next request.
        assert_eq!(index.cached(2).map(|chunks| chunks.hashes), Some(a.hashes.clone()));
        // A document changed since it was indexed has no chunks to give, cached or not.
        fs::write(dir.path().join("docs/sub/a.txt"), "one two three four five six seven eight nine ten").unwrap();
        assert!(index.document_chunks(2).unwrap().is_none());
        assert!(index.stored_document(2).unwrap().is_none());
        // The sequential walk gives every posting with its full hash.
        let mut walked = Vec::new();
        index
            .for_each_live_posting(0, |key, doc| {
                walked.push((key, doc));
                Ok(())
            })
            .unwrap();
        assert_eq!(walked.len() as u64, index.postings_len());
        assert!(walked.windows(2).all(|w| w[0] < w[1]));
        for (key, doc) in walked {
            assert!(holders(key).contains(&doc));
        }
    }

    #[test]
    fn lookups_agree_with_a_walk_of_the_postings_in_crowded_and_sparse_buckets() {
        let dir = tempfile::tempdir().unwrap();
        let quoted = "the same sentence that every document of this archive quotes word for word";
        let texts: Vec<(String, String)> = (0..40)
            .map(|i| {
                (format!("d{i:02}.txt"), format!("{quoted} and then words of its own {i} alpha{i} beta{i} gamma{i}"))
            })
            .collect();
        let docs: Vec<(&str, &str)> = texts.iter().map(|(name, text)| (name.as_str(), text.as_str())).collect();
        let index = ArchiveIndex::open(&build(dir.path(), &docs)).unwrap();
        let mut expected: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
        index
            .for_each_live_posting(0, |hash, doc| {
                expected.entry(hash).or_default().push(doc);
                Ok(())
            })
            .unwrap();
        assert!(expected.values().any(|docs| docs.len() as u64 > SCANNED_BUCKET_POSTINGS), "no crowded bucket");
        let mut found = Vec::new();
        for (&hash, docs) in &expected {
            index.occurrences_of(hash, &mut found).unwrap();
            assert_eq!(&found, docs);
            for absent in [hash.checked_sub(1), Some(hash + 1)].into_iter().flatten() {
                if !expected.contains_key(&absent) {
                    index.occurrences_of(absent, &mut found).unwrap();
                    assert!(found.is_empty(), "{absent:x}: {found:?}");
                }
            }
        }
        // The batch walk, with its prefetching, gives each document once.
        let hashes: Vec<u64> = expected.keys().copied().collect();
        assert!(hashes.len() > PREFETCH_DISTANCE);
        let mut given = 0;
        index
            .documents_with_each(&hashes, |i, docs| {
                let mut holders = expected[&hashes[i]].clone();
                holders.dedup();
                assert_eq!(docs, holders);
                given += 1;
            })
            .unwrap();
        assert_eq!(given, hashes.len());
    }

    #[test]
    fn masked_reads_are_the_stored_integers() {
        let bytes: Vec<u8> = (1..=20).collect();
        for len in 0..=8 {
            for at in 0..=bytes.len() - len {
                assert_eq!(read_masked(&bytes, at, len), read_key(&bytes[at..], len), "{len} bytes at {at}");
            }
        }
    }

    #[test]
    fn truncation_and_corruption_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = build(dir.path(), &[("a.txt", "one two three four five six seven")]);
        let generation = ArchiveIndex::open(&root).unwrap().generation_dir().to_path_buf();
        let postings = generation.join("segment-000001.postings");
        let mut bytes = fs::read(&postings).unwrap();
        bytes[0] ^= 0xff;
        fs::write(&postings, &bytes).unwrap();
        let index = ArchiveIndex::open(&root).unwrap();
        match index.verify() {
            Err(ArchiveError::ChecksumMismatch { path, .. }) => assert_eq!(path, postings),
            other => panic!("{other:?}"),
        }
        drop(index);
        bytes.pop();
        fs::write(&postings, &bytes).unwrap();
        match ArchiveIndex::open(&root) {
            Err(ArchiveError::Truncated { path, expected, got }) => {
                // Three postings of a 3-byte residue and a 1-byte document id.
                assert_eq!((path, expected, got), (postings, 12, 11));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_directory_without_current_is_not_an_index() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(ArchiveIndex::open(dir.path()), Err(ArchiveError::NotAnIndex(_))));
    }
}
