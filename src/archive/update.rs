//! `index update`: bring an index up to date with its documents directory.
//!
//! 1. Every document is listed. A document whose size and modification time are
//!    the recorded ones (and were recorded more than [`format::RACY_NS`] after
//!    the modification) is unchanged without being read, as git's index does;
//!    the others are read and their content hashed (XXH3-128), and one whose
//!    name and hash are in the table is unchanged too. Unchanged documents are
//!    not chunked. `rehash` reads and hashes every document.
//! 2. Added and modified documents are chunked (in parallel) and their postings
//!    sorted in memory; deleted and modified documents' ids are freed. The
//!    text of a PDF, DOCX or ODT document comes from the index's cache
//!    when its content was extracted before ([`format::TEXT_CACHE`]).
//! 3. Freed ids are recycled, lowest first, for the changed documents in name
//!    order; fresh ids are appended after them.
//! 4. A new generation is written beside the live one: the changed documents'
//!    chunk lists go to a new segment and the kept segments are hard-linked
//!    (a segment is compacted, that is its live chunk lists copied into the
//!    new segment, once more than half of its chunks are deleted ones); the
//!    stored postings, minus those of freed ids, are merged with the new ones
//!    in (hash, document) order in one sequential pass; the document table is
//!    rewritten.
//! 5. The similarity table is copied from the live generation into the new
//!    one, loses there the rows naming a changed or deleted document, and
//!    gains the pairs of the added and changed documents, computed from the
//!    new generation's files ([`super::similar`]).
//! 6. `CURRENT` is switched to the new generation with one rename (the commit)
//!    and the old generation is removed, and so are the cached texts of
//!    documents no longer in the index.
//!
//! The taboo set ([`super::taboo`]) is kept as stored unless the update
//! replaces it ([`TabooChange`]). A replaced set whose hashes differ changes
//! which chunks are postings and every document's distinct chunks, so the
//! postings are then rebuilt from the stored chunk lists (which hold taboo
//! chunks too) instead of merged: a sort of every posting in memory, as
//! `create` does, but no document is read again; the similarity table is
//! then computed whole, as it is for an index made before it existed
//! (format version 3 or older), whose update writes a new generation even
//! when no document changed.
//!
//! Every stored file whose bytes go into the new generation is checked
//! against the CRC-32 its header records before they are used, each file
//! once ([`ArchiveIndex::verify_files`]): the document table and names (read
//! by step 1), the postings and directory (merged in step 4), and every
//! segment that keeps a document, whether hard-linked, compacted or read for
//! a rebuild of the postings, and the similarity table it copies
//! ([`ArchiveIndex::verify_similarity`]). The header has its own CRC-32 and
//! the taboo set is checked on opening. A mismatch stops the update with
//! [`ArchiveError::ChecksumMismatch`] naming the file, before the new
//! generation is begun: the live generation is untouched, and the damage is
//! not carried on (a linked segment would keep its header entry, a compacted
//! one would get a fresh CRC-32 of damaged bytes) but stays visible to
//! `--verify`.
//!
//! The cost is listing the documents, reading and hashing the ones whose
//! times changed, chunking the changed ones, one read and one write of the
//! postings, and one read of the kept segments for their CRC-32; unchanged
//! documents are never chunked again and their chunk lists are not copied.
//! The similarity table adds one read (for its CRC-32) and one copy of it,
//! and the pairs of the changed documents: their chunks looked up, and the
//! passages of each pair they are in. The segment checks cost nothing measurable with the index in the page
//! cache (CRC-32 at memory speed: about 15 ms for the 422 MB of segments of
//! a 578 MB index of 256 MB of text) and 0.24 s when its files are read
//! from disk (0.58 → 0.82 s for that update adding and deleting 1%; 2-core
//! EPYC, 2026-11-24).
//!
//! A crash before step 6 leaves the old generation live and the new
//! directory as garbage, which the next update removes (also one that finds
//! nothing to change). The crash tests kill an update at each step
//! ([`super::failpoints`]).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::builder::{KeyDoc, PostingsWriter, SegmentWriter, TableBuilder, postings_of, sort_postings};
use super::error::ArchiveError;
use super::failpoints::crash_point;
use super::format::{self, Changes, DocRecord, FORMAT_VERSION, GenerationWriter, Header, MAGIC, SettingsOverride};
use super::reader::ArchiveIndex;
use super::scan::{self, IndexedDoc};
use super::similar::{self, STORED_MIN_PERCENT, TableStart, TableSummary};
use super::taboo::{self, TabooFiles, TabooSet};
use crate::analysis::document::{self, Analyzer};
use crate::analysis::extract::cache::TextCache;
use crate::analysis::read::{self, TextReader};
use crate::matching::index::{ChunkKey, KeyWidth};
use crate::progress::{Progress, Stage};

/// The format version whose document records hold the characters and the
/// structure chunks.
const RECORD_CHARS_VERSION: u32 = 3;

/// A segment is compacted when more than this share of its chunks belongs to
/// deleted documents.
const COMPACT_GARBAGE_SHARE: f64 = 0.5;
/// Segments are all compacted into one when there would be more than this many.
const MAX_SEGMENTS: usize = 32;

/// What an update does with the index's taboo set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TabooChange {
    /// Keep the stored set (`index update` without `--taboo`).
    #[default]
    Keep,
    /// Replace it with the set of these texts (`--taboo FILE...`).
    Replace(TabooFiles),
    /// Remove it (`--no-taboo`).
    Remove,
}

/// Options of an update.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateOptions {
    /// Read and hash every document, even those whose size and modification
    /// time are the recorded ones (for files restored with old times).
    pub rehash: bool,
    /// Keep, replace or remove the taboo set.
    pub taboo: TabooChange,
}

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UpdateSummary {
    /// Documents added.
    pub added: u64,
    /// Documents whose content changed.
    pub modified: u64,
    /// Documents removed.
    pub deleted: u64,
    /// Documents unchanged (not chunked).
    pub unchanged: u64,
    /// Documents read and hashed (the others had their recorded size and
    /// modification time).
    pub hashed: u64,
    /// Files skipped as unreadable or binary.
    pub skipped_files: u64,
    /// Changed documents that got a recycled id.
    pub recycled_ids: u64,
    /// Live documents after the update.
    pub documents: u64,
    /// Chunks (postings) after the update.
    pub chunks: u64,
    /// Chunks in the taboo set after the update (0 without one).
    pub taboo_chunks: u64,
    /// The taboo set's hashes changed, and the postings were rebuilt.
    pub taboo_changed: bool,
    /// False when nothing changed and no new generation was written.
    pub committed: bool,
    /// Time to verify the old index and read, hash and chunk the documents.
    pub scanning: Duration,
    /// Time to write and commit the new generation, the similarity table
    /// left out.
    pub writing: Duration,
    /// The similarity table written (its rows, and the pairs computed: those
    /// of the added and changed documents, or every pair when it was built
    /// whole).
    pub similarity: TableSummary,
}

/// One listed document after the scan.
enum Scanned {
    /// The id, and whether the file was read to tell.
    Unchanged(u32, bool),
    Changed(IndexedDoc),
    Skipped,
}

/// Updates the index in `root` from the documents under `docs`.
pub fn update(
    docs: &Path,
    root: &Path,
    given: &SettingsOverride,
    options: &UpdateOptions,
    progress: &dyn Progress,
) -> Result<UpdateSummary, ArchiveError> {
    // Before the lock, which would create a LOCK file in a directory that is no index.
    if !root.join(format::CURRENT).exists() {
        return Err(ArchiveError::NotAnIndex(root.to_path_buf()));
    }
    let _lock = format::WriterLock::acquire(root)?;
    let old = ArchiveIndex::open(root)?;
    let cache = scan::text_cache(root)?;
    given.check_against(old.settings(), root)?;
    match KeyWidth::of(old.settings().hash_bits) {
        KeyWidth::U32 => update_with::<u32>(docs, &old, options, &cache, progress),
        KeyWidth::U64 => update_with::<u64>(docs, &old, options, &cache, progress),
    }
}

fn update_with<K: ChunkKey>(
    docs: &Path,
    old: &ArchiveIndex,
    options: &UpdateOptions,
    cache: &TextCache,
    progress: &dyn Progress,
) -> Result<UpdateSummary, ArchiveError> {
    let reader = TextReader::new(Some(cache));
    let started = Instant::now();
    let settings = *old.settings();
    let taboo = NewTaboo::plan(old, &options.taboo);
    // The scan reads the document table, the merge the postings and directory;
    // the segments are checked once it is known which are kept.
    old.verify_files(&format::BODY_FILES)?;
    let scanned_ns = scan::now_ns();
    let files = scan::list_documents(docs, progress)?;
    let docs_root = docs.canonicalize().map_err(ArchiveError::io(docs))?;
    // Records of an index before version 3 lack the characters and structure
    // chunks: every document is analysed again, once.
    let old_ids: HashMap<&str, u32> = if old.header().format_version < RECORD_CHARS_VERSION {
        HashMap::new()
    } else {
        old.live_ids().map(|id| (old.name(id), id)).collect()
    };
    let no_taboo = TabooSet::default();
    let taboo_chunks = &taboo.set.as_ref().unwrap_or(&no_taboo).chunks;

    // Size and modification time as recorded, recorded long enough after the
    // modification: unchanged without reading (as git's index does).
    let trusted = |listed: &scan::ListedDocument, record: &DocRecord| {
        !options.rehash
            && listed.modified_ns > 0
            && record.bytes == listed.file.bytes
            && record.modified_ns == listed.modified_ns
            && record.modified_ns.saturating_add(format::RACY_NS) < old.header().scanned_ns
    };
    progress.start(Stage::ReadSources, files.iter().map(|f| f.file.bytes).sum());
    let scanned: Vec<Scanned> = files
        .par_iter()
        .map_init(
            || Analyzer::new(&settings.analysis()),
            |analyzer, listed| {
                let file = &listed.file;
                let known = old_ids.get(file.name.as_str()).map(|&id| (id, old.record(id)));
                // Unchanged documents are hashed (when their times do not tell),
                // never decoded nor chunked.
                let mut scan = || {
                    if let Some((id, record)) = &known
                        && trusted(listed, record)
                    {
                        return Some(Scanned::Unchanged(*id, false));
                    }
                    let bytes = document::read_bytes(file, progress)?;
                    let hash = read::content_hash(&bytes);
                    if let Some((id, record)) = &known
                        && record.content_hash == hash
                    {
                        return Some(Scanned::Unchanged(*id, true));
                    }
                    let analysed = analyzer.analyse_bytes(file, bytes, reader, progress)?;
                    Some(Scanned::Changed(IndexedDoc::of(analysed, taboo_chunks)))
                };
                let result = scan().unwrap_or(Scanned::Skipped);
                progress.advance(file.bytes);
                result
            },
        )
        .collect();
    progress.finish();

    let mut summary = UpdateSummary::default();
    let mut kept = vec![false; old.id_slots() as usize];
    let mut modified_ns = vec![0u64; old.id_slots() as usize];
    let mut changed: Vec<(&str, IndexedDoc, u64)> = Vec::new();
    for (listed, scanned) in files.iter().zip(scanned) {
        match scanned {
            Scanned::Unchanged(id, hashed) => {
                kept[id as usize] = true;
                modified_ns[id as usize] = listed.modified_ns;
                summary.unchanged += 1;
                summary.hashed += u64::from(hashed);
            }
            Scanned::Changed(doc) => {
                if old_ids.contains_key(listed.file.name.as_str()) {
                    summary.modified += 1;
                } else {
                    summary.added += 1;
                }
                summary.hashed += 1;
                changed.push((&listed.file.name, doc, listed.modified_ns));
            }
            Scanned::Skipped => summary.skipped_files += 1,
        }
    }
    let present: HashSet<&str> = changed.iter().map(|(name, _, _)| *name).collect();
    let deleted: Vec<String> = old
        .live_ids()
        .filter(|&id| !kept[id as usize] && !present.contains(old.name(id)))
        .map(|id| old.name(id).to_string())
        .collect();
    summary.deleted = deleted.len() as u64;
    summary.scanning = started.elapsed();
    summary.taboo_chunks = taboo_chunks.hashes().len() as u64;
    summary.taboo_changed = taboo.rebuild;
    // Pairs depend on the documents' distinct chunks, which a new taboo set
    // changes: the table is then computed whole, as it is for an index made
    // before it existed.
    let rebuild_table = taboo.rebuild || old.header().similarity.is_none();
    if changed.is_empty() && deleted.is_empty() && !taboo.changed && !rebuild_table {
        // Nothing to write; what a crashed run left is removed all the same.
        format::remove_other_generations(old.root(), old.header().generation);
        scan::prune_text_cache(cache, old.live_ids().map(|id| old.record(id).content_hash));
        summary.documents = old.header().documents;
        summary.chunks = old.header().chunks;
        return Ok(summary);
    }

    let started = Instant::now();
    progress.start(Stage::BuildIndex, 0);
    // Ids: freed ones first (lowest first), then fresh ones.
    let free: Vec<u32> = (0..old.id_slots()).filter(|&id| !kept[id as usize]).collect();
    let mut fresh = old.id_slots();
    let mut new_ids = Vec::with_capacity(changed.len());
    for i in 0..changed.len() {
        if let Some(&id) = free.get(i) {
            new_ids.push(id);
            summary.recycled_ids += 1;
        } else {
            new_ids.push(fresh);
            fresh += 1;
        }
    }
    let id_slots = fresh;

    let old_segments = &old.header().segments;
    let SegmentPlan { live_chunks, compact } = SegmentPlan::new(old, &kept);
    // The kept segments' bytes go into the new generation (linked, copied, or
    // read for a rebuild of the postings): checked first, so that damage is
    // refused instead of carried on under a fresh checksum.
    let kept_files: Vec<&str> = (old_segments.iter().zip(&live_chunks))
        .filter(|&(_, &live)| live > 0)
        .flat_map(|(entry, _)| [entry.hashes.name.as_str(), entry.ranges.name.as_str()])
        .collect();
    old.verify_files(&kept_files)?;
    if !rebuild_table {
        old.verify_similarity()?; // Copied into the new generation.
    }

    let mut generation = GenerationWriter::create(old.root(), old.header().generation + 1)?;
    let taboo_entry = taboo.set.as_ref().map(|set| taboo::write(&mut generation, set, &settings)).transpose()?;
    let mut segments = Vec::new();
    let mut segment_of_old = vec![u32::MAX; old_segments.len()];
    for (s, entry) in old_segments.iter().enumerate() {
        if live_chunks[s] > 0 && !compact[s] {
            generation.link(old.generation_dir(), &entry.hashes.name)?;
            generation.link(old.generation_dir(), &entry.ranges.name)?;
            segment_of_old[s] = segments.len() as u32;
            segments.push(format::SegmentEntry { live_chunks: live_chunks[s], ..entry.clone() });
        }
    }
    crash_point!(SEGMENTS_LINKED);
    let new_segment = segments.len() as u32;
    let mut writer = SegmentWriter::new(&generation, &settings)?;
    let mut table = TableBuilder::default();
    if id_slots > 0 {
        table.reserve(id_slots - 1);
    }
    let by_id: HashMap<u32, usize> = new_ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    // With a changed taboo set: the postings of the kept documents, from their chunk lists.
    let mut kept_postings: Vec<KeyDoc<K>> = Vec::new();
    for id in 0..id_slots {
        if let Some(&i) = by_id.get(&id) {
            let (name, doc, modified_ns) = &changed[i];
            table.push(id, name, doc, *modified_ns, new_segment, writer.chunks);
            writer.append(&doc.chunks.hashes, &doc.chunks.ranges)?;
        } else if kept.get(id as usize).copied().unwrap_or(false) {
            let mut record = DocRecord { modified_ns: modified_ns[id as usize], ..old.record(id) };
            if taboo.rebuild {
                let distinct = scan::distinct_outside(old.chunk_hashes(&record), taboo_chunks);
                record.distinct_chunks = distinct.len() as u32;
                kept_postings.extend(distinct.into_iter().map(|hash| KeyDoc { key: K::from_hash(hash), doc: id }));
            }
            let s = record.segment as usize;
            if record.chunk_count == 0 {
                // No chunk list: the segment field is not used.
                table.set(id, old.name(id), DocRecord { segment: 0, chunk_start: 0, ..record });
            } else if compact[s] {
                let (hashes, ranges) = old.chunk_list_bytes(&record);
                let moved = DocRecord { segment: new_segment, chunk_start: writer.chunks, ..record };
                writer.append_raw(hashes, ranges, u64::from(record.chunk_count))?;
                table.set(id, old.name(id), moved);
            } else {
                table.set(id, old.name(id), DocRecord { segment: segment_of_old[s], ..record });
            }
        }
    }
    let written = writer.finish(&mut generation)?;
    if written.chunks > 0 {
        segments.push(written);
    } else {
        // An update that only deletes writes no segment; the empty files go.
        let _ = std::fs::remove_file(generation.dir.join(&written.hashes.name));
        let _ = std::fs::remove_file(generation.dir.join(&written.ranges.name));
    }

    let mut new_postings: Vec<KeyDoc<K>> = kept_postings;
    for ((_, doc, _), &id) in changed.iter().zip(&new_ids) {
        new_postings.extend(postings_of::<K>(doc, id));
    }
    sort_postings(&mut new_postings, settings.hash_bits);
    let postings: u64 = table.records.iter().filter(|r| r.live).map(|r| u64::from(r.distinct_chunks)).sum();
    let chunks: u64 = table.records.iter().filter(|r| r.live).map(|r| u64::from(r.chunk_count)).sum();
    let mut postings_writer = PostingsWriter::new(&generation, &settings, postings, u64::from(id_slots))?;
    if taboo.rebuild {
        // Every posting is in `new_postings`: none of the stored ones is kept.
        for p in &new_postings {
            postings_writer.push(p.key.to_hash(), p.doc)?;
        }
    } else if postings_writer.layout() == old.postings_layout() {
        merge_same_layout(old, &kept, &new_postings, &mut postings_writer)?;
    } else {
        merge_postings(old, &kept, &new_postings, &mut postings_writer)?;
    }
    let (postings, directory_bits) = postings_writer.finish(&mut generation)?;
    table.write(&mut generation)?;
    progress.finish();

    // The rows of these go from the table (an added document has none).
    let gone: Vec<String> = changed.iter().map(|(name, _, _)| name.to_string()).chain(deleted.clone()).collect();
    let mut header = Header {
        magic: MAGIC.to_string(),
        format_version: FORMAT_VERSION,
        generation: generation.number,
        settings,
        docs_root: docs_root.to_string_lossy().into_owned(),
        scanned_ns,
        documents: table.live,
        id_slots: u64::from(id_slots),
        chunks,
        postings,
        directory_bits,
        files: generation.fixed_files(),
        segments,
        last_update: Some(Changes {
            changed: changed.iter().map(|(name, _, _)| name.to_string()).collect(),
            deleted,
            taboo_changed: taboo.rebuild,
        }),
        taboo: taboo_entry,
        similarity: None,
        header_crc32: None,
    };
    let view = ArchiveIndex::with_header(old.root(), generation.dir.clone(), header.clone())?;
    let min_percent = old.header().similarity.as_ref().map_or(STORED_MIN_PERCENT, |table| table.min_percent);
    let start =
        if rebuild_table { TableStart::Empty } else { TableStart::Copy { old, gone: &gone, changed: &new_ids } };
    let (entry, similarity) = similar::write_table(&view, start, min_percent, progress)?;
    drop(view);
    header.similarity = Some(entry);
    generation.write_header(&header)?;
    format::commit(old.root(), generation.number)?;
    format::remove_other_generations(old.root(), generation.number);
    scan::prune_text_cache(cache, table.live_content_hashes().into_iter());
    summary.writing = started.elapsed().saturating_sub(similarity.time);
    summary.similarity = similarity;
    summary.committed = true;
    summary.documents = header.documents;
    summary.chunks = chunks;
    Ok(summary)
}

/// What becomes of each stored chunk-list segment: dropped (no chunk of a
/// kept document in it), hard-linked, or compacted (its kept chunk lists
/// copied into the new segment).
struct SegmentPlan {
    /// Chunks of kept documents, per segment.
    live_chunks: Vec<u64>,
    /// Whether each segment is compacted.
    compact: Vec<bool>,
}

impl SegmentPlan {
    /// The plan for `old`'s segments when the documents `kept` (by id) stay.
    fn new(old: &ArchiveIndex, kept: &[bool]) -> SegmentPlan {
        let segments = &old.header().segments;
        let mut live_chunks = vec![0u64; segments.len()];
        for id in (0..old.id_slots()).filter(|&id| kept[id as usize]) {
            let record = old.record(id);
            live_chunks[record.segment as usize] += u64::from(record.chunk_count);
        }
        let linked_count = live_chunks.iter().filter(|&&live| live > 0).count();
        let compact_all = linked_count + 1 > MAX_SEGMENTS;
        let compact = (segments.iter().zip(&live_chunks))
            .map(|(segment, &live)| {
                let garbage = segment.chunks - live;
                compact_all || garbage as f64 > COMPACT_GARBAGE_SHARE * segment.chunks as f64
            })
            .collect();
        SegmentPlan { live_chunks, compact }
    }
}

/// The taboo set of the new generation, and how it differs from the old one.
struct NewTaboo {
    /// The set to write (`None`: the new generation has none).
    set: Option<TabooSet>,
    /// Its hashes differ from the old set's: every posting is rebuilt.
    rebuild: bool,
    /// Its hashes or texts differ: a new generation is written even when no
    /// document changed.
    changed: bool,
}

impl NewTaboo {
    /// What `change` makes of `old`'s taboo set.
    fn plan(old: &ArchiveIndex, change: &TabooChange) -> NewTaboo {
        let stored = old.header().taboo.as_ref();
        let set = match change {
            TabooChange::Keep => {
                stored.map(|entry| TabooSet { chunks: old.taboo().clone(), texts: entry.texts.clone() })
            }
            TabooChange::Replace(files) => Some(TabooSet::of(files, old.settings())),
            TabooChange::Remove => None,
        };
        let hashes = set.as_ref().map_or(&[][..], |set| set.chunks.hashes());
        let rebuild = hashes != old.taboo().hashes();
        let changed = rebuild || set.as_ref().map(|s| &s.texts) != stored.map(|entry| &entry.texts);
        NewTaboo { set, rebuild, changed }
    }
}

/// [`merge_postings`] for the common case where the stored postings have the
/// layout of the new ones (same directory bits and id width): the spans of
/// stored postings between the buckets that receive new postings are copied
/// as they are, less the postings of freed ids, and only the receiving buckets
/// are merged posting by posting. The bucket counts start from the stored
/// directory and are corrected for what is dropped or merged.
fn merge_same_layout<K: ChunkKey>(
    old: &ArchiveIndex,
    kept: &[bool],
    new: &[KeyDoc<K>],
    writer: &mut PostingsWriter,
) -> Result<(), ArchiveError> {
    let layout = old.postings_layout();
    let shift = old.settings().hash_bits - layout.directory_bits;
    let bucket_of = |key: u64| key.checked_shr(shift).unwrap_or(0) as usize;
    writer.start_counts(
        (0..1usize << layout.directory_bits).map(|b| old.bucket_range(b).end - old.bucket_range(b).start).collect(),
    );
    let mut copied_to = 0u64;
    let mut rest = new;
    while let Some(first) = rest.first() {
        let bucket = bucket_of(first.key.to_hash());
        let (mine, tail) = rest.split_at(rest.partition_point(|p| bucket_of(p.key.to_hash()) == bucket));
        rest = tail;
        let stored = old.bucket_range(bucket);
        copy_kept(old, kept, copied_to..stored.start, writer)?;
        copied_to = stored.end;
        writer.clear_count(bucket);
        let mut mine = mine.iter().map(|p| (p.key.to_hash(), p.doc)).peekable();
        for i in stored {
            let record = &old.postings_bytes()[i as usize * layout.posting_bytes()..];
            let key = ((bucket as u64) << shift) | format::read_key(record, layout.residue_bytes);
            // At most 4 bytes: the value fits.
            let doc = format::read_key(&record[layout.residue_bytes..], layout.doc_bytes) as u32;
            while let Some(&next) = mine.peek() {
                if next >= (key, doc) {
                    break;
                }
                writer.push(next.0, next.1)?;
                mine.next();
            }
            match kept.get(doc as usize) {
                Some(true) => writer.push(key, doc)?,
                Some(false) => {}
                None => return Err(old.corrupt_postings(format!("posting of document {doc} past the table"))),
            }
        }
        for (key, doc) in mine {
            writer.push(key, doc)?;
        }
    }
    copy_kept(old, kept, copied_to..old.postings_len(), writer)
}

/// Copies the stored postings `range` as they are, less those of freed ids.
fn copy_kept(
    old: &ArchiveIndex,
    kept: &[bool],
    range: std::ops::Range<u64>,
    writer: &mut PostingsWriter,
) -> Result<(), ArchiveError> {
    let layout = old.postings_layout();
    let width = layout.posting_bytes();
    let bytes = &old.postings_bytes()[range.start as usize * width..range.end as usize * width];
    let mut run_start = 0;
    for (i, record) in bytes.chunks_exact(width).enumerate() {
        // At most 4 bytes: the value fits.
        let doc = format::read_key(&record[layout.residue_bytes..], layout.doc_bytes) as usize;
        match kept.get(doc) {
            Some(true) => {}
            Some(false) => {
                writer.push_span(&bytes[run_start * width..i * width])?;
                run_start = i + 1;
                writer.uncount(old.bucket_of_posting(range.start + i as u64));
            }
            None => return Err(old.corrupt_postings(format!("posting of document {doc} past the table"))),
        }
    }
    writer.push_span(&bytes[run_start * width..])
}

/// Writes the stored postings of kept documents merged with `new` (sorted),
/// in (hash, document) order: one sequential pass over the stored postings.
fn merge_postings<K: ChunkKey>(
    old: &ArchiveIndex,
    kept: &[bool],
    new: &[KeyDoc<K>],
    writer: &mut PostingsWriter,
) -> Result<(), ArchiveError> {
    let mut new = new.iter().map(|p| (p.key.to_hash(), p.doc)).peekable();
    old.for_each_posting(|key, doc| {
        match kept.get(doc as usize) {
            Some(true) => {}
            Some(false) => return Ok(()),
            None => return Err(old.corrupt_postings(format!("posting of document {doc} past the table"))),
        }
        while let Some(&next) = new.peek() {
            if next >= (key, doc) {
                break;
            }
            writer.push(next.0, next.1)?;
            new.next();
        }
        writer.push(key, doc)
    })?;
    for (key, doc) in new {
        writer.push(key, doc)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;

    use super::*;
    use crate::archive::builder::create;
    use crate::archive::format::Settings;
    use crate::progress::Silent;

    /// Everything an index says, by document name (ids left out).
    fn contents(root: &Path) -> Vec<(String, Vec<u64>, Vec<String>)> {
        let index = ArchiveIndex::open(root).unwrap();
        index.verify().unwrap();
        let mut postings: HashMap<u32, Vec<u64>> = HashMap::new();
        index
            .for_each_posting(|key, doc| {
                postings.entry(doc).or_default().push(key);
                Ok(())
            })
            .unwrap();
        let mut docs: Vec<_> = index
            .live_ids()
            .map(|id| {
                let record = index.record(id);
                let hashes: Vec<u64> = index.chunk_hashes(&record).collect();
                let distinct = scan::distinct_outside(hashes.iter().copied(), index.taboo());
                assert_eq!(postings.remove(&id).unwrap_or_default(), distinct, "postings of {}", index.name(id));
                assert_eq!(record.distinct_chunks as usize, distinct.len(), "distinct chunks of {}", index.name(id));
                let ranges =
                    (0..record.chunk_count).map(|seq| format!("{:?}", index.chunk_range(&record, seq))).collect();
                (index.name(id).to_string(), hashes, ranges)
            })
            .collect();
        assert!(postings.is_empty(), "postings of free ids: {postings:?}");
        docs.sort();
        docs
    }

    /// A text of `words` words from a vocabulary of 12, so documents share chunks.
    fn text(seed: &mut u64, words: usize) -> String {
        const VOCABULARY: [&str; 12] =
            ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta", "iota", "rho", "tau"];
        (0..words)
            .map(|_| {
                *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                VOCABULARY[(*seed >> 33) as usize % VOCABULARY.len()]
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn update_quietly(docs: &Path, root: &Path) -> UpdateSummary {
        update(docs, root, &SettingsOverride::default(), &UpdateOptions::default(), &Silent).unwrap()
    }

    fn update_taboo(docs: &Path, root: &Path, taboo: TabooChange) -> UpdateSummary {
        let options = UpdateOptions { taboo, ..UpdateOptions::default() };
        update(docs, root, &SettingsOverride::default(), &options, &Silent).unwrap()
    }

    #[test]
    fn a_changed_taboo_set_gives_the_index_a_fresh_create_with_it_gives() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        let root = dir.path().join("idx");
        fs::create_dir_all(&docs).unwrap();
        let template: String = (0..30).map(|i| format!("template{i} ")).collect();
        let mut seed = 11u64;
        for i in 0..5 {
            fs::write(docs.join(format!("{i}.txt")), format!("{template}{}", text(&mut seed, 40))).unwrap();
        }
        let template_file = dir.path().join("template.txt");
        fs::write(&template_file, &template).unwrap();
        let files = TabooFiles::load(&[template_file]).unwrap();
        let fresh = |name: &str, taboo: Option<&TabooFiles>| {
            let fresh = dir.path().join(name);
            create(&docs, &fresh, &Settings::default(), taboo, &Silent).unwrap();
            contents(&fresh)
        };
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        let without = ArchiveIndex::open(&root).unwrap().postings_len();

        // Replaced: the postings are rebuilt without the template's 26 chunks per document.
        let summary = update_taboo(&docs, &root, TabooChange::Replace(files.clone()));
        assert!(summary.committed && summary.taboo_changed, "{summary:?}");
        assert_eq!((summary.unchanged, summary.taboo_chunks), (5, 26));
        let index = ArchiveIndex::open(&root).unwrap();
        assert_eq!(index.postings_len(), without - 5 * 26);
        assert!(index.header().last_update.as_ref().unwrap().taboo_changed);
        drop(index);
        assert_eq!(contents(&root), fresh("fresh-1", Some(&files)));
        // The same set again changes nothing.
        assert!(!update_taboo(&docs, &root, TabooChange::Replace(files.clone())).committed);

        // Kept through a document change (new documents' template chunks are no postings).
        fs::write(docs.join("new.txt"), format!("{}{template}", text(&mut seed, 30))).unwrap();
        fs::remove_file(docs.join("0.txt")).unwrap();
        let summary = update_quietly(&docs, &root);
        assert!(!summary.taboo_changed && summary.taboo_chunks == 26, "{summary:?}");
        assert_eq!(ArchiveIndex::open(&root).unwrap().taboo(), &files.chunks(&Settings::default()));
        assert_eq!(contents(&root), fresh("fresh-2", Some(&files)));

        // Removed: the template's postings are back.
        let summary = update_taboo(&docs, &root, TabooChange::Remove);
        assert!(summary.taboo_changed && summary.taboo_chunks == 0, "{summary:?}");
        assert!(ArchiveIndex::open(&root).unwrap().header().taboo.is_none());
        assert_eq!(contents(&root), fresh("fresh-3", None));
    }

    #[test]
    fn updates_give_the_index_a_fresh_create_gives() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        let root = dir.path().join("idx");
        let mut seed = 7u64;
        let names: Vec<PathBuf> = (0..12).map(|i| docs.join(format!("d{}/{i}.txt", i % 3))).collect();
        for name in &names[..6] {
            fs::create_dir_all(name.parent().unwrap()).unwrap();
            fs::write(name, text(&mut seed, 40)).unwrap();
        }
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        for round in 0..8u64 {
            for (i, name) in names.iter().enumerate() {
                seed = seed.wrapping_add(round * 31 + i as u64);
                match (seed >> 7) % 4 {
                    0 => {
                        let _ = fs::remove_file(name);
                    }
                    1 => {
                        fs::create_dir_all(name.parent().unwrap()).unwrap();
                        let words = 10 + (seed % 50) as usize;
                        fs::write(name, text(&mut seed, words)).unwrap();
                    }
                    _ => {}
                }
            }
            update_quietly(&docs, &root);
            let fresh = dir.path().join(format!("fresh-{round}"));
            create(&docs, &fresh, &Settings::default(), None, &Silent).unwrap();
            assert_eq!(contents(&root), contents(&fresh), "round {round}");
        }
    }

    #[test]
    fn a_change_of_postings_layout_takes_the_general_merge() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        let root = dir.path().join("idx");
        fs::create_dir_all(&docs).unwrap();
        let mut seed = 3u64;
        for i in 0..256 {
            fs::write(docs.join(format!("{i:03}.txt")), text(&mut seed, 7)).unwrap();
        }
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        let before = ArchiveIndex::open(&root).unwrap().postings_layout();
        // Three freed ids are recycled; the 257th id needs two bytes in every posting.
        for i in 0..5 {
            fs::write(docs.join(format!("new-{i}.txt")), text(&mut seed, 7)).unwrap();
        }
        fs::remove_file(docs.join("000.txt")).unwrap();
        fs::write(docs.join("001.txt"), text(&mut seed, 9)).unwrap();
        fs::write(docs.join("002.txt"), text(&mut seed, 9)).unwrap();
        update_quietly(&docs, &root);
        let after = ArchiveIndex::open(&root).unwrap().postings_layout();
        assert_eq!((before.doc_bytes, after.doc_bytes), (1, 2));
        let fresh = dir.path().join("fresh");
        create(&docs, &fresh, &Settings::default(), None, &Silent).unwrap();
        assert_eq!(contents(&root), contents(&fresh));
    }

    fn set_modified(path: &Path, ago: std::time::Duration) {
        let file = fs::File::options().write(true).open(path).unwrap();
        file.set_modified(std::time::SystemTime::now() - ago).unwrap();
    }

    #[test]
    fn recorded_times_spare_reading_and_rehash_reads_everything() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        let root = dir.path().join("idx");
        fs::create_dir_all(&docs).unwrap();
        let hour = std::time::Duration::from_secs(3600);
        for name in ["a.txt", "b.txt"] {
            fs::write(docs.join(name), "one two three four five six").unwrap();
            set_modified(&docs.join(name), hour);
        }
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        let summary = update_quietly(&docs, &root);
        assert_eq!((summary.unchanged, summary.hashed, summary.committed), (2, 0, false));
        // Touched, same content: read, found unchanged.
        set_modified(&docs.join("a.txt"), std::time::Duration::from_secs(10));
        let summary = update_quietly(&docs, &root);
        assert_eq!((summary.unchanged, summary.hashed, summary.modified), (2, 1, 0));
        // Rewritten with the same size and given back its old time: only a
        // rehash sees it (as with git).
        let old_time = fs::metadata(docs.join("b.txt")).unwrap().modified().unwrap();
        fs::write(docs.join("b.txt"), "one two three four five SIX").unwrap();
        fs::File::options().write(true).open(docs.join("b.txt")).unwrap().set_modified(old_time).unwrap();
        assert_eq!(update_quietly(&docs, &root).modified, 0);
        let options = UpdateOptions { rehash: true, ..UpdateOptions::default() };
        let summary = update(&docs, &root, &SettingsOverride::default(), &options, &Silent).unwrap();
        assert_eq!((summary.modified, summary.hashed), (1, 2));
        // A file modified within RACY_NS of the recording scan is read again.
        fs::write(docs.join("c.txt"), "seven eight nine ten eleven").unwrap();
        update_quietly(&docs, &root);
        assert_eq!(update_quietly(&docs, &root).hashed, 1, "c.txt was racily recorded");
    }

    #[test]
    fn kept_segments_are_linked_and_mostly_deleted_ones_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        let root = dir.path().join("idx");
        fs::create_dir_all(&docs).unwrap();
        let mut seed = 1u64;
        for i in 0..4 {
            fs::write(docs.join(format!("{i}.txt")), text(&mut seed, 30)).unwrap();
        }
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        fs::write(docs.join("new.txt"), text(&mut seed, 30)).unwrap();
        let summary = update_quietly(&docs, &root);
        assert_eq!((summary.added, summary.recycled_ids), (1, 0));
        let index = ArchiveIndex::open(&root).unwrap();
        let generations: Vec<u64> = index.header().segments.iter().map(|s| s.generation).collect();
        assert_eq!(generations, [1, 2], "the first segment is kept as it is");
        drop(index);
        // Deleting three of the first segment's four documents compacts it.
        for i in 0..3 {
            fs::remove_file(docs.join(format!("{i}.txt"))).unwrap();
        }
        let summary = update_quietly(&docs, &root);
        assert_eq!(summary.deleted, 3);
        let index = ArchiveIndex::open(&root).unwrap();
        let segments: Vec<(u64, u64, u64)> =
            index.header().segments.iter().map(|s| (s.generation, s.chunks, s.live_chunks)).collect();
        assert_eq!(segments, [(2, 26, 26), (3, 26, 26)], "3.txt moved into the new segment");
        assert_eq!(index.header().id_slots, 5);
        let fresh = dir.path().join("fresh");
        create(&docs, &fresh, &Settings::default(), None, &Silent).unwrap();
        assert_eq!(contents(&root), contents(&fresh));
        // Deleting everything leaves an empty, valid index.
        for name in ["3.txt", "new.txt"] {
            fs::remove_file(docs.join(name)).unwrap();
        }
        fs::write(docs.join("empty.txt"), "").unwrap();
        update_quietly(&docs, &root);
        let index = ArchiveIndex::open(&root).unwrap();
        assert_eq!((index.header().documents, index.header().postings), (1, 0));
        assert!(index.header().segments.is_empty());
        assert!(index.lookup(42).is_empty());
    }
}
