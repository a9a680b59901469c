//! `index create`: chunk every document in parallel, sort the postings (bucket
//! sort, as the detector's in-memory index), and write a first generation.
//!
//! The postings (8 bytes per chunk of a document, 12 above 32 hash bits) are spilled to disk and sorted; the chunk lists are streamed to the
//! generation's scratch files batch by batch in document order. Chunks of the
//! taboo set ([`super::taboo`]) get no posting. The similarity table is
//! computed from the written generation and its scratch chunk lists, which
//! are then removed, before its header is written ([`super::similar`]).

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use super::error::ArchiveError;
use super::failpoints::crash_point;
use super::format::{
    self, DOCS, DocRecord, FORMAT_VERSION, FileEntry, FileWriter, GenerationWriter, Header, MAGIC, NAMES,
    PostingsEntry, SegmentEntry, Settings,
};
use super::reader::{ArchiveIndex, ScratchChunkLists};
use super::scan::{self, IndexedDoc};
use super::similar::{self, STORED_MIN_PERCENT, TableStart, TableSummary};
use super::spill::SpilledPostings;
use super::taboo::{self, TabooFiles, TabooSet};
use crate::align::stock::StockPhrases;
use crate::analysis::extract::cache::TextCache;
use crate::analysis::read::{self, TextReader};
use crate::analysis::span::CharRange;
use crate::matching::bucket_sort;
use crate::matching::index::{ChunkKey, KeyWidth};
use crate::progress::{Progress, Stage};
use crate::report::output;

/// What `index create` did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CreateSummary {
    /// Documents indexed.
    pub documents: u64,
    /// Files skipped as unreadable or binary.
    pub skipped_files: u64,
    /// Bytes of the indexed files.
    pub text_bytes: u64,
    /// Chunks in the index.
    pub chunks: u64,
    /// Postings (chunk occurrences, taboo chunks left out) in the index.
    pub postings: u64,
    /// Chunks in the taboo set (0 without one).
    pub taboo_chunks: u64,
    /// Bytes of the index files on disk.
    pub index_bytes: u64,
    /// Time to read and chunk the documents.
    pub chunking: Duration,
    /// Time to sort the postings and write the index, the similarity table
    /// left out.
    pub writing: Duration,
    /// The similarity table written.
    pub similarity: TableSummary,
}

/// A posting in memory while the index is built: the hash and the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct KeyDoc<K> {
    pub(crate) key: K,
    pub(crate) doc: u32,
}

/// The postings of a document: one per occurrence of a chunk that is not taboo.
pub(crate) fn postings_of<K: ChunkKey>(doc: &IndexedDoc, id: u32) -> impl Iterator<Item = KeyDoc<K>> + '_ {
    doc.postings.iter().map(move |&hash| KeyDoc { key: K::from_hash(hash), doc: id })
}

/// Sorts postings by (hash, document).
pub(crate) fn sort_postings<K: ChunkKey>(postings: &mut [KeyDoc<K>], hash_bits: u32) {
    bucket_sort::sort_by_hash(postings, hash_bits, |p| p.key.to_hash());
}

/// Builds a new index in `index` from every document under `docs`, storing the
/// taboo set of `taboo` in it when given.
///
/// Refuses a directory that already holds an index, one that holds anything
/// else (but what a killed `create` left there), and one that is, lies
/// inside or contains `docs`. Nothing is visible under `index` until the
/// final commit (the rename of `CURRENT`).
pub fn create(
    docs: &Path,
    index: &Path,
    settings: &Settings,
    taboo: Option<&TabooFiles>,
    progress: &dyn Progress,
) -> Result<CreateSummary, ArchiveError> {
    settings.validate()?;
    if index.join(format::CURRENT).exists() {
        return Err(ArchiveError::AlreadyExists(index.to_path_buf()));
    }
    scan::refuse_overlap(docs, index)?;
    refuse_foreign_directory(index)?;
    let scanned_ns = scan::now_ns();
    let read::Listing { documents: files, skipped } = scan::list_documents(docs, progress)?;
    let docs_root = docs.canonicalize().map_err(ArchiveError::io(docs))?;
    std::fs::create_dir_all(index).map_err(ArchiveError::io(index))?;
    let _lock = format::WriterLock::acquire(index)?;
    // Checked again under the lock: another `create` may have finished meanwhile.
    if index.join(format::CURRENT).exists() {
        return Err(ArchiveError::AlreadyExists(index.to_path_buf()));
    }
    let cache = scan::text_cache(index)?;
    let listed = files.iter().map(|listed| &listed.file);
    let sample = settings.detect_params().collection_sample(listed, TextReader::new(Some(&cache)));
    let settings = &settings.with_function_words_of(&sample);
    let stock = settings.detect_params().stock_phrases_of(&sample, None);
    let listing = Listing { files: &files, docs_root: &docs_root, scanned_ns, cache: &cache, stock };
    let taboo = taboo.map(|files| TabooSet::of(files, settings));
    let mut summary = match KeyWidth::of(settings.hash_bits) {
        KeyWidth::U32 => create_with::<u32>(&listing, index, settings, taboo.as_ref(), progress),
        KeyWidth::U64 => create_with::<u64>(&listing, index, settings, taboo.as_ref(), progress),
    }?;
    summary.skipped_files += skipped;
    Ok(summary)
}

/// Refuses an `index` directory that holds anything but what a `create`
/// killed before its commit leaves there (its `LOCK` file, made first, then
/// generation directories, the text cache and `CURRENT`'s temporary file):
/// the index removes the generation directories it does not use, so it
/// must own its directory. A missing or empty directory is taken.
fn refuse_foreign_directory(index: &Path) -> Result<(), ArchiveError> {
    let entries = match fs::read_dir(index) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(ArchiveError::Io { path: index.to_path_buf(), source: error }),
    };
    let names: Vec<OsString> = entries
        .map(|entry| entry.map(|entry| entry.file_name()))
        .collect::<Result<_, _>>()
        .map_err(ArchiveError::io(index))?;
    let left_by_create = |name: &OsString| {
        name.to_str().is_some_and(|name| {
            name == format::LOCK
                || name == format::TEXT_CACHE
                || format::generation_number(name).is_some()
                || output::temporary_of(name).is_some_and(|(target, _)| target == format::CURRENT)
        })
    };
    let locked = names.iter().any(|name| name == format::LOCK);
    if names.is_empty() || (locked && names.iter().all(left_by_create)) {
        Ok(())
    } else {
        Err(ArchiveError::NotEmpty(index.to_path_buf()))
    }
}

/// The documents `create` indexes: listed under `docs_root` at `scanned_ns`,
/// their extracted texts kept in `cache`, and their collection's stock
/// phrases.
struct Listing<'a> {
    files: &'a [scan::ListedDocument],
    docs_root: &'a Path,
    scanned_ns: u64,
    cache: &'a TextCache,
    stock: Option<StockPhrases>,
}

fn create_with<K: ChunkKey>(
    listing: &Listing<'_>,
    index: &Path,
    settings: &Settings,
    taboo: Option<&TabooSet>,
    progress: &dyn Progress,
) -> Result<CreateSummary, ArchiveError> {
    let Listing { files, docs_root, scanned_ns, cache, ref stock } = *listing;
    let reader = TextReader::new(Some(cache));
    let mut summary = CreateSummary::default();
    let started = Instant::now();
    let mut generation = GenerationWriter::create(index, 1)?;
    let taboo_entry = taboo.map(|set| taboo::write(&mut generation, set, settings)).transpose()?;
    let no_taboo = TabooSet::default();
    let taboo_chunks = &taboo.unwrap_or(&no_taboo).chunks;
    let mut scratch = ScratchWriter::new(&generation, settings)?;
    let mut table = TableBuilder::default();
    let mut postings = SpilledPostings::<K>::new(&generation.dir, settings.hash_bits);
    progress.start(Stage::ReadSources, files.iter().map(|f| f.file.bytes).sum());
    for batch in scan::batches(files) {
        for (listed, doc) in batch.iter().zip(scan::index_batch(batch, settings, taboo_chunks, reader, progress)) {
            let Some(doc) = doc else {
                summary.skipped_files += 1;
                continue;
            };
            let id = table.records.len() as u32;
            table.push(id, &listed.file.name, &doc, listed.modified_ns, 0);
            scratch.append(id, &doc.chunks.hashes, &doc.chunks.ranges)?;
            postings.push(postings_of::<K>(&doc, id))?;
            summary.text_bytes += listed.file.bytes;
        }
    }
    progress.finish();
    summary.chunking = started.elapsed();

    let started = Instant::now();
    progress.start(Stage::BuildIndex, 0);
    let scratch = scratch.finish(&generation)?;
    let id_slots = table.records.len() as u64;
    let mut writer = PostingsWriter::new(&generation, settings, postings.total(), id_slots)?;
    postings.drain_sorted(|sorted| sorted.iter().try_for_each(|p| writer.push(p.key.to_hash(), p.doc)))?;
    let chunks = scratch.chunks;
    let postings = writer.finish(&mut generation)?;
    let segment = SegmentEntry { generation: generation.number, chunks, live_chunks: chunks, postings };
    let postings = segment.postings.count;
    table.write(&mut generation)?;
    progress.finish();
    let mut header = Header {
        magic: MAGIC.to_string(),
        format_version: FORMAT_VERSION,
        generation: generation.number,
        settings: *settings,
        docs_root: docs_root.to_string_lossy().into_owned(),
        scanned_ns,
        documents: table.live,
        id_slots: table.records.len() as u64,
        chunks: segment.chunks,
        postings,
        files: generation.fixed_files(),
        segments: vec![segment],
        last_update: None,
        taboo: taboo_entry,
        stock_phrases: stock.clone(),
        similarity: None,
        header_crc32: None,
    };
    let view = ArchiveIndex::with_header(index, generation.dir.clone(), header.clone())?;
    let view = view.with_scratch(scratch.open(&generation.dir)?);
    let (entry, similarity) = similar::write_table(&view, TableStart::Empty, STORED_MIN_PERCENT, progress)?;
    drop(view);
    remove_scratch(&generation);
    header.similarity = Some(entry);
    generation.write_header(&header)?;
    format::commit(index, generation.number)?;
    format::remove_other_generations(index, generation.number);
    // Texts a crashed `create` left of documents since changed or deleted.
    scan::prune_text_cache(cache, table.live_content_hashes().into_iter());
    summary.writing = started.elapsed().saturating_sub(similarity.time);
    summary.similarity = similarity;
    summary.documents = table.live;
    summary.chunks = header.chunks;
    summary.postings = postings;
    summary.taboo_chunks = header.taboo.as_ref().map_or(0, |t| t.chunks);
    summary.index_bytes = index_bytes(&header);
    Ok(summary)
}

/// Bytes of all files of a generation (as the header records them).
pub(crate) fn index_bytes(header: &Header) -> u64 {
    let fixed: u64 = header.files.iter().map(|f| f.bytes).sum();
    let taboo = header.taboo.as_ref().map_or(0, |t| t.file.bytes);
    let similarity = header.similarity.as_ref().map_or(0, |t| t.file.bytes);
    let segments: u64 = header.segments.iter().map(|s| s.postings.file.bytes + s.postings.directory.bytes).sum();
    fixed + taboo + similarity + segments
}

/// Writes the scratch chunk lists of a generation ([`ScratchChunkLists`]):
/// the chunk hashes and ranges of the documents it analysed, in order.
pub(crate) struct ScratchWriter {
    hashes: FileWriter,
    ranges: FileWriter,
    key_bytes: usize,
    /// Chunks written so far: where the next document's list starts.
    chunks: u64,
    starts: HashMap<u32, u64>,
}

impl ScratchWriter {
    pub(crate) fn new(generation: &GenerationWriter, settings: &Settings) -> Result<Self, ArchiveError> {
        let (hashes, ranges) = format::segment_names(generation.number);
        Ok(ScratchWriter {
            hashes: generation.file(&hashes)?,
            ranges: generation.file(&ranges)?,
            key_bytes: settings.key_bytes(),
            chunks: 0,
            starts: HashMap::new(),
        })
    }

    /// Appends the chunk list of document `id`.
    pub(crate) fn append(&mut self, id: u32, hashes: &[u64], ranges: &[CharRange]) -> Result<(), ArchiveError> {
        self.starts.insert(id, self.chunks);
        for (&hash, range) in hashes.iter().zip(ranges) {
            self.hashes.write_key(hash, self.key_bytes)?;
            self.ranges.write_u32(range.start)?;
            self.ranges.write_u32(range.end)?;
        }
        self.chunks += hashes.len() as u64;
        Ok(())
    }

    /// Finishes the two files.
    pub(crate) fn finish(self, generation: &GenerationWriter) -> Result<ScratchFiles, ArchiveError> {
        let hashes = generation.finish_scratch(self.hashes)?;
        crash_point!(SEGMENT_HASHES_WRITTEN);
        let ranges = generation.finish_scratch(self.ranges)?;
        crash_point!(SEGMENT_RANGES_WRITTEN);
        Ok(ScratchFiles { chunks: self.chunks, hashes, ranges, starts: self.starts })
    }
}

/// The finished scratch chunk lists of a generation being written.
pub(crate) struct ScratchFiles {
    /// Chunks in the lists.
    pub(crate) chunks: u64,
    hashes: FileEntry,
    ranges: FileEntry,
    starts: HashMap<u32, u64>,
}

impl ScratchFiles {
    /// The lists, mapped for reading.
    pub(crate) fn open(self, dir: &Path) -> Result<ScratchChunkLists, ArchiveError> {
        ScratchChunkLists::open(dir, (&self.hashes, &self.ranges), self.starts)
    }
}

/// Removes the scratch chunk lists of `generation` (once nothing reads them).
pub(crate) fn remove_scratch(generation: &GenerationWriter) {
    let (hashes, ranges) = format::segment_names(generation.number);
    let _ = std::fs::remove_file(generation.dir.join(hashes));
    let _ = std::fs::remove_file(generation.dir.join(ranges));
}

/// Writes a segment's postings, given in (hash, document) order, and its
/// bucket directory.
pub(crate) struct PostingsWriter {
    file: FileWriter,
    directory_name: String,
    directory_bits: u32,
    residue_bytes: usize,
    doc_bytes: usize,
    residue_mask: u64,
    shift: u32,
    counts: Vec<u64>,
    expected: u64,
    written: u64,
}

impl PostingsWriter {
    /// A writer for exactly `total` postings of a table of `id_slots` ids.
    pub(crate) fn new(
        generation: &GenerationWriter,
        settings: &Settings,
        total: u64,
        id_slots: u64,
    ) -> Result<Self, ArchiveError> {
        let directory_bits = format::directory_bits(total, settings.hash_bits);
        let shift = settings.hash_bits - directory_bits;
        let (postings, directory_name) = format::postings_names(generation.number);
        Ok(PostingsWriter {
            file: generation.file(&postings)?,
            directory_name,
            directory_bits,
            residue_bytes: format::residue_bytes(shift),
            doc_bytes: format::doc_id_bytes(id_slots),
            residue_mask: if shift == 0 { 0 } else { u64::MAX >> (64 - shift) },
            shift,
            counts: vec![0; 1 << directory_bits],
            expected: total,
            written: 0,
        })
    }

    #[inline]
    pub(crate) fn push(&mut self, key: u64, doc: u32) -> Result<(), ArchiveError> {
        let bucket = key.checked_shr(self.shift).unwrap_or(0) as usize;
        let Some(count) = self.counts.get_mut(bucket) else {
            return Err(ArchiveError::Corrupt {
                path: self.file.path().to_path_buf(),
                message: format!("hash {key:#x} wider than the index's hash bits"),
            });
        };
        *count += 1;
        let (r, d) = (self.residue_bytes, self.doc_bytes);
        let mut record = [0u8; 16];
        record[..8].copy_from_slice(&(key & self.residue_mask).to_le_bytes());
        record[r..r + 4].copy_from_slice(&doc.to_le_bytes());
        self.written += 1;
        self.file.write(&record[..r + d])
    }

    /// Finishes the postings and writes the directory.
    pub(crate) fn finish(self, generation: &mut GenerationWriter) -> Result<PostingsEntry, ArchiveError> {
        if self.written != self.expected {
            return Err(ArchiveError::Corrupt {
                path: self.file.path().to_path_buf(),
                message: format!("{} postings written, the document table counts {}", self.written, self.expected),
            });
        }
        let file = generation.finish(self.file)?;
        crash_point!(POSTINGS_WRITTEN);
        let mut directory = generation.file(&self.directory_name)?;
        let entry_bytes = format::directory_entry_bytes(self.written);
        let mut start = 0u64;
        directory.write_key(0, entry_bytes)?;
        for count in &self.counts {
            start += count;
            directory.write_key(start, entry_bytes)?;
        }
        let directory = generation.finish(directory)?;
        crash_point!(DIRECTORY_WRITTEN);
        Ok(PostingsEntry {
            count: self.written,
            live: self.written,
            directory_bits: self.directory_bits,
            doc_bytes: self.doc_bytes as u32,
            file,
            directory,
        })
    }
}

/// The document table being built, by id.
#[derive(Default)]
pub(crate) struct TableBuilder {
    pub(crate) records: Vec<DocRecord>,
    names: Vec<u8>,
    pub(crate) live: u64,
}

impl TableBuilder {
    /// The content hashes of the live documents.
    pub(crate) fn live_content_hashes(&self) -> Vec<[u8; 16]> {
        self.records.iter().filter(|record| record.live).map(|record| record.content_hash).collect()
    }

    /// Sets the record of `id` for a newly chunked document.
    pub(crate) fn push(&mut self, id: u32, name: &str, doc: &IndexedDoc, modified_ns: u64, segment: u32) {
        let record = DocRecord {
            modified_ns,
            chunk_count: doc.chunks.len() as u32,
            structure_chunks: doc.chunks.len() as u32 - doc.content_chunks,
            distinct_chunks: doc.distinct(),
            postings: doc.posting_count(),
            live: true,
            content_hash: doc.content_hash,
            bytes: doc.bytes,
            chars: doc.chars,
            segment,
            ..DocRecord::default()
        };
        self.set(id, name, record);
    }

    /// Sets the record of `id` with `name` (name fields are filled in here).
    pub(crate) fn set(&mut self, id: u32, name: &str, mut record: DocRecord) {
        let id = id as usize;
        if self.records.len() <= id {
            self.records.resize(id + 1, DocRecord::default());
        }
        record.name_start = self.names.len() as u64;
        record.name_len = name.len() as u32;
        self.names.extend_from_slice(name.as_bytes());
        self.live += u64::from(record.live);
        self.records[id] = record;
    }

    /// Makes sure slot `id` exists (a free id when nothing is set there).
    pub(crate) fn reserve(&mut self, id: u32) {
        let id = id as usize;
        if self.records.len() <= id {
            self.records.resize(id + 1, DocRecord::default());
        }
    }

    pub(crate) fn write(&self, generation: &mut GenerationWriter) -> Result<(), ArchiveError> {
        let mut docs = generation.file(DOCS)?;
        for record in &self.records {
            docs.write(&record.encode())?;
        }
        generation.finish(docs)?;
        crash_point!(DOCS_WRITTEN);
        let mut names = generation.file(NAMES)?;
        names.write(&self.names)?;
        generation.finish(names)?;
        crash_point!(NAMES_WRITTEN);
        Ok(())
    }
}
