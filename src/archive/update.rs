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
//! 4. A new generation is written beside the live one: the changed
//!    documents' postings go to a new segment (postings
//!    spilled and sorted as `create` sorts them), the other segments are
//!    hard-linked, never read nor rewritten, and the document table is
//!    rewritten. A deleted or changed document's old postings stay in their
//!    segment as tombstones: its record no longer names that segment, so
//!    lookups skip them ([`ArchiveIndex::documents_with`]).
//! 5. The merge policy (`SegmentPlan`) may merge segments into the new one:
//!    a segment more than half of whose chunks are dead, and segments of the
//!    new one's size tier once there are `MERGE_FACTOR` of them. Merging
//!    copies the live postings, dropping the tombstones. `index merge` ([`merge`]) merges every segment
//!    into one, as a generation of its own with the same documents.
//! 6. The similarity table is copied from the live generation into the new
//!    one, loses there the rows naming a changed or deleted document, and
//!    gains the pairs of the added and changed documents, computed from the
//!    new generation's files and the chunk lists of the documents it
//!    analysed, kept in scratch files until then ([`super::similar`]).
//! 7. `CURRENT` is switched to the new generation with one rename (the commit)
//!    and the old generation is removed, and so are the cached texts of
//!    documents no longer in the index.
//!
//! The taboo set ([`super::taboo`]) is kept as stored unless the update
//! replaces it ([`TabooChange`]). A replaced set whose hashes differ changes
//! which chunks are postings and every document's distinct chunks, so every
//! document is then analysed again, as new function words or a similarity
//! table computed with other parameters make it: all of them go to the new
//! segment, and the table is computed whole.
//!
//! Every stored file whose bytes are read into the new generation is checked
//! against the CRC-32 its header records before they are used, each file
//! once ([`ArchiveIndex::verify_files`]): the document table and names (read
//! by step 1), the postings of merged segments, and the similarity table
//! it copies ([`ArchiveIndex::verify_similarity`]). The header has its own
//! CRC-32 and the taboo set is checked on opening. A mismatch stops the
//! update with [`ArchiveError::ChecksumMismatch`] naming the file, before the
//! new generation is begun: the live generation is untouched, and the damage
//! is not carried on under a fresh checksum but stays visible to `--verify`.
//! A hard-linked segment is not read: it keeps the checksums of its header
//! entry, so damage in it stays visible to `--verify` too, and the merge that
//! copies it refuses it.
//!
//! The cost is listing the documents, reading and hashing the ones whose
//! times changed, chunking the changed ones, sorting and writing their
//! postings, and rewriting the document table (72 bytes a document) and the
//! similarity table's copy; nothing grows with the postings of unchanged
//! documents, except when the merge policy merges (amortised: each chunk is
//! copied about log_8 of the archive's size times over its life).
//!
//! A crash before step 7 leaves the old generation live and the new
//! directory as garbage, which the next update removes (also one that finds
//! nothing to change). The crash tests kill an update at each step
//! ([`super::failpoints`]).

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::builder::{KeyDoc, PostingsWriter, ScratchWriter, TableBuilder, postings_of, remove_scratch};
use super::error::ArchiveError;
use super::failpoints::crash_point;
use super::format::{
    self, Changes, DocRecord, FORMAT_VERSION, GenerationWriter, Header, MAGIC, Settings, SettingsOverride,
};
use super::reader::ArchiveIndex;
use super::scan::{self, IndexedDoc};
use super::similar::{self, STORED_MIN_PERCENT, TableStart, TableSummary};
use super::spill::SpilledPostings;
use super::taboo::{self, TabooFiles, TabooSet};
use crate::align::stock::StockPhrases;
use crate::analysis::document::{self, Analyzer};
use crate::analysis::extract::cache::TextCache;
use crate::analysis::function_words::CollectionSample;
use crate::analysis::read::{self, TextReader};
use crate::matching::index::{ChunkKey, KeyWidth};
use crate::progress::{Progress, Stage};

/// A segment is merged when more than this share of its chunks belongs to
/// deleted documents.
const COMPACT_GARBAGE_SHARE: f64 = 0.5;
/// Segments are all merged into one when there would be more than this many.
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
    /// Unchanged documents analysed again because the collection's function
    /// words ([`crate::analysis::function_words`]), the taboo set or the
    /// similarity table's parameters changed (counted among the unchanged
    /// ones too).
    pub reanalysed: u64,
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
    /// Segments after the update.
    pub segments: u64,
    /// Old segments the merge policy merged into the update's new segment.
    pub merged_segments: u64,
}

/// One listed document after the scan.
enum Scanned {
    /// The id, and whether the file was read to tell.
    Unchanged(u32, bool),
    Changed(IndexedDoc),
    Skipped,
}

/// Updates the index in `root` from the documents under `docs`; refuses an
/// index directory that is, lies inside or contains `docs`.
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
    scan::refuse_overlap(docs, root)?;
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
    // The scan reads the document table, the merge the postings and directory;
    // the segments are checked once it is known which are kept.
    old.verify_files(&format::BODY_FILES)?;
    let scanned_ns = scan::now_ns();
    let read::Listing { documents: files, skipped } = scan::list_documents(docs, progress)?;
    if files.is_empty() && old.live_ids().next().is_some() {
        return Err(ArchiveError::NoDocumentsToKeep(docs.to_path_buf()));
    }
    // Read only when the function words or the stock phrases are derived.
    let sample = OnceCell::new();
    let sample = || {
        let listed = files.iter().map(|listed| &listed.file);
        sample.get_or_init(|| old.settings().detect_params().collection_sample(listed, reader))
    };
    let settings = new_settings(old, &options.taboo, sample);
    let taboo = NewTaboo::plan(old, &options.taboo, &settings);
    // Every document is analysed again, as a fresh `create` would analyse it,
    // when the collection's function words changed (its chunks change), when
    // the taboo set did (its postings change) and when the similarity table
    // is computed whole (from the chunk lists of every document, which the
    // index does not keep).
    let reanalyse = settings != *old.settings() || taboo.rebuild || similar::table_is_stale(old);
    // The similarity table is computed again only when every document is.
    let stock_phrases = match reanalyse {
        true => settings.detect_params().stock_phrases_of(sample(), None),
        false => old.header().stock_phrases.clone(),
    };
    let docs_root = docs.canonicalize().map_err(ArchiveError::io(docs))?;
    let old_ids: HashMap<&str, u32> = old.live_ids().map(|id| (old.name(id), id)).collect();
    let no_taboo = TabooSet::default();
    let taboo_chunks = &taboo.set.as_ref().unwrap_or(&no_taboo).chunks;

    // Size and modification time as recorded, recorded long enough after the
    // modification: unchanged without reading (as git's index does).
    let trusted = |listed: &scan::ListedDocument, record: &DocRecord| {
        !options.rehash
            && !reanalyse
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
                    let bytes = document::read_bytes(file, reader, progress)?;
                    let hash = read::content_hash(&bytes);
                    if let Some((id, record)) = &known
                        && record.content_hash == hash
                        && !reanalyse
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

    let mut summary = UpdateSummary { skipped_files: skipped, ..UpdateSummary::default() };
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
                match old_ids.get(listed.file.name.as_str()) {
                    // Read again only to be analysed again.
                    Some(&id) if old.record(id).content_hash == doc.content_hash => {
                        summary.unchanged += 1;
                        summary.reanalysed += 1;
                    }
                    Some(_) => summary.modified += 1,
                    None => summary.added += 1,
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
    // Pairs depend on the documents' chunks, which new function words and a
    // new taboo set change: the table is then computed whole, as it is for
    // an index made by a build that counted or aligned pairs with other
    // parameters.
    let rebuild_table = reanalyse;
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
    let changes =
        Changeset { changed: &changed, new_ids: &new_ids, kept: &kept, modified_ns: &modified_ns, id_slots: fresh };
    // The rows of these go from the table (an added document has none).
    let gone: Vec<String> = changed.iter().map(|(name, _, _)| name.to_string()).chain(deleted.clone()).collect();
    let target = Target {
        docs_root: docs_root.to_string_lossy().into_owned(),
        scanned_ns,
        last_update: Some(Changes {
            changed: changed.iter().map(|(name, _, _)| name.to_string()).collect(),
            deleted,
            taboo_changed: taboo.rebuild,
        }),
        table: if rebuild_table { TableStart::Empty } else { TableStart::Copy { old, gone: &gone, changed: &new_ids } },
        merge: if taboo.rebuild { MergeRequest::All } else { MergeRequest::Policy },
        settings,
        stock_phrases,
    };
    let written = write_generation::<K>(old, &changes, &taboo, target, progress)?;
    scan::prune_text_cache(cache, written.live_content_hashes.into_iter());
    summary.writing = started.elapsed().saturating_sub(written.similarity.time);
    summary.similarity = written.similarity;
    summary.committed = true;
    summary.documents = written.header.documents;
    summary.chunks = written.header.chunks;
    summary.segments = written.header.segments.len() as u64;
    summary.merged_segments = written.merged_segments;
    Ok(summary)
}

/// What a merge did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergeSummary {
    /// Segments merged into one (0: there was nothing to merge).
    pub merged_segments: u64,
    /// Segments after the merge.
    pub segments: u64,
    /// Time to write and commit the new generation.
    pub writing: Duration,
}

/// `index merge`: copies the live postings of every segment
/// of the index in `root` into one new segment, dropping the tombstones, and
/// commits that as a new generation. The documents, the taboo set and the
/// similarity table are those of the live generation (the documents
/// directory is not read): every answer stays the same.
pub fn merge(root: &Path, progress: &dyn Progress) -> Result<MergeSummary, ArchiveError> {
    if !root.join(format::CURRENT).exists() {
        return Err(ArchiveError::NotAnIndex(root.to_path_buf()));
    }
    let _lock = format::WriterLock::acquire(root)?;
    let old = ArchiveIndex::open(root)?;
    match KeyWidth::of(old.settings().hash_bits) {
        KeyWidth::U32 => merge_with::<u32>(&old, progress),
        KeyWidth::U64 => merge_with::<u64>(&old, progress),
    }
}

fn merge_with<K: ChunkKey>(old: &ArchiveIndex, progress: &dyn Progress) -> Result<MergeSummary, ArchiveError> {
    let started = Instant::now();
    let segments = &old.header().segments;
    let garbage = segments.iter().any(|s| s.live_chunks < s.chunks || s.postings.live < s.postings.count);
    if segments.len() <= 1 && !garbage {
        format::remove_other_generations(old.root(), old.header().generation);
        return Ok(MergeSummary { merged_segments: 0, segments: segments.len() as u64, writing: started.elapsed() });
    }
    old.verify_files(&format::BODY_FILES)?;
    let mut kept = vec![false; old.id_slots() as usize];
    let mut modified_ns = vec![0u64; old.id_slots() as usize];
    for id in old.live_ids() {
        kept[id as usize] = true;
        modified_ns[id as usize] = old.record(id).modified_ns;
    }
    let changes =
        Changeset { changed: &[], new_ids: &[], kept: &kept, modified_ns: &modified_ns, id_slots: old.id_slots() };
    let taboo = NewTaboo::plan(old, &TabooChange::Keep, old.settings());
    let header = old.header();
    let target = Target {
        docs_root: header.docs_root.clone(),
        scanned_ns: header.scanned_ns,
        last_update: header.last_update.clone(),
        table: TableStart::Copy { old, gone: &[], changed: &[] },
        merge: MergeRequest::All,
        settings: *old.settings(),
        stock_phrases: header.stock_phrases.clone(),
    };
    progress.start(Stage::BuildIndex, 0);
    let written = write_generation::<K>(old, &changes, &taboo, target, progress)?;
    progress.finish();
    Ok(MergeSummary {
        merged_segments: written.merged_segments,
        segments: written.header.segments.len() as u64,
        writing: started.elapsed(),
    })
}

/// The documents of a new generation: the changed ones (analysed, with the
/// ids they get) and the kept ones of the old generation.
struct Changeset<'a> {
    /// Added and modified documents: name, analysis, modification time.
    changed: &'a [(&'a str, IndexedDoc, u64)],
    /// The id of each changed document.
    new_ids: &'a [u32],
    /// Whether each old id is kept as it is.
    kept: &'a [bool],
    /// The modification time of each kept id.
    modified_ns: &'a [u64],
    /// Ids of the new document table.
    id_slots: u32,
}

impl Changeset<'_> {
    fn new_chunks(&self) -> u64 {
        self.changed.iter().map(|(_, doc, _)| doc.chunks.len() as u64).sum()
    }
}

/// The rest of what a new generation is written with.
struct Target<'a> {
    docs_root: String,
    scanned_ns: u64,
    last_update: Option<Changes>,
    table: TableStart<'a>,
    merge: MergeRequest,
    /// The settings of the new generation: the old ones, with the
    /// collection's function words derived again.
    settings: Settings,
    /// The stock phrases of the new generation ([`Header::stock_phrases`]).
    stock_phrases: Option<StockPhrases>,
}

/// A new generation, committed.
struct WrittenGeneration {
    header: Header,
    similarity: TableSummary,
    live_content_hashes: Vec<[u8; 16]>,
    merged_segments: u64,
}

/// Writes and commits a new generation of `old`'s index: the changed
/// documents and the documents of the merged segments in one new segment,
/// the other segments hard-linked, the document table, the taboo set and the
/// similarity table.
fn write_generation<K: ChunkKey>(
    old: &ArchiveIndex,
    changes: &Changeset<'_>,
    taboo: &NewTaboo,
    target: Target<'_>,
    progress: &dyn Progress,
) -> Result<WrittenGeneration, ArchiveError> {
    let settings = target.settings;
    let old_segments = &old.header().segments;
    let plan = SegmentPlan::new(old, changes.kept, changes.new_chunks(), target.merge);
    // The merged segments' postings are read and copied into the new
    // segment: checked first, so that damage is refused instead of carried on
    // under a fresh checksum. Linked segments are not read; they keep their
    // recorded checksums, which `--verify` checks.
    let read_files: Vec<&str> = (old_segments.iter().zip(&plan.merged))
        .filter(|&(_, &merged)| merged)
        .flat_map(|(entry, _)| [entry.postings.file.name.as_str(), entry.postings.directory.name.as_str()])
        .collect();
    old.verify_files(&read_files)?;
    if matches!(target.table, TableStart::Copy { .. }) {
        old.verify_similarity()?; // Copied into the new generation.
    }
    let mut generation = GenerationWriter::create(old.root(), old.header().generation + 1)?;
    let taboo_entry = taboo.set.as_ref().map(|set| taboo::write(&mut generation, set, &settings)).transpose()?;
    let mut segments = Vec::new();
    let mut segment_of_old = vec![u32::MAX; old_segments.len()];
    for (s, entry) in old_segments.iter().enumerate() {
        if plan.linked(s) {
            for name in [&entry.postings.file.name, &entry.postings.directory.name] {
                generation.link(old.generation_dir(), name)?;
            }
            segment_of_old[s] = segments.len() as u32;
            let postings = format::PostingsEntry { live: plan.live_postings[s], ..entry.postings.clone() };
            segments.push(format::SegmentEntry { live_chunks: plan.live_chunks[s], postings, ..entry.clone() });
        }
    }
    crash_point!(SEGMENTS_LINKED);
    let new_segment = segments.len() as u32;
    let mut scratch = ScratchWriter::new(&generation, &settings)?;
    let mut new_chunks = 0u64;
    let mut new_postings = SpilledPostings::<K>::new(&generation.dir, settings.hash_bits);
    let mut table = TableBuilder::default();
    if changes.id_slots > 0 {
        table.reserve(changes.id_slots - 1);
    }
    let by_id: HashMap<u32, usize> = changes.new_ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    for id in 0..changes.id_slots {
        if let Some(&i) = by_id.get(&id) {
            let (name, doc, modified_ns) = &changes.changed[i];
            table.push(id, name, doc, *modified_ns, new_segment);
            scratch.append(id, &doc.chunks.hashes, &doc.chunks.ranges)?;
            new_postings.push(postings_of::<K>(doc, id))?;
            new_chunks += doc.chunks.len() as u64;
        } else if changes.kept.get(id as usize).copied().unwrap_or(false) {
            let record = DocRecord { modified_ns: changes.modified_ns[id as usize], ..old.record(id) };
            let s = record.segment as usize;
            if record.chunk_count == 0 {
                // No chunks: the segment field is not used.
                table.set(id, old.name(id), DocRecord { segment: 0, ..record });
            } else if plan.merged[s] {
                // Its postings are copied below.
                new_chunks += u64::from(record.chunk_count);
                table.set(id, old.name(id), DocRecord { segment: new_segment, ..record });
            } else {
                table.set(id, old.name(id), DocRecord { segment: segment_of_old[s], ..record });
            }
        }
    }
    // The live postings of the kept documents of the merged segments.
    for s in (0..old_segments.len()).filter(|&s| plan.merged[s]) {
        old.for_each_live_posting(s, |hash, doc| {
            let kept = changes.kept.get(doc as usize).copied().unwrap_or(false);
            if kept { new_postings.push(std::iter::once(KeyDoc { key: K::from_hash(hash), doc })) } else { Ok(()) }
        })?;
    }
    let scratch = scratch.finish(&generation)?;
    if new_chunks > 0 {
        let mut postings_writer =
            PostingsWriter::new(&generation, &settings, new_postings.total(), u64::from(changes.id_slots))?;
        new_postings
            .drain_sorted(|sorted| sorted.iter().try_for_each(|p| postings_writer.push(p.key.to_hash(), p.doc)))?;
        let postings = postings_writer.finish(&mut generation)?;
        segments.push(format::SegmentEntry {
            generation: generation.number,
            chunks: new_chunks,
            live_chunks: new_chunks,
            postings,
        });
    } else {
        // Only deletions, or nothing but empty documents: no new segment.
        new_postings.drain_sorted(|_| Ok(()))?;
    }
    table.write(&mut generation)?;
    let live = table.records.iter().filter(|r| r.live);
    let (chunks, postings) =
        live.fold((0u64, 0u64), |(c, p), r| (c + u64::from(r.chunk_count), p + u64::from(r.postings)));

    let mut header = Header {
        magic: MAGIC.to_string(),
        format_version: FORMAT_VERSION,
        generation: generation.number,
        settings,
        docs_root: target.docs_root,
        scanned_ns: target.scanned_ns,
        documents: table.live,
        id_slots: u64::from(changes.id_slots),
        chunks,
        postings,
        files: generation.fixed_files(),
        segments,
        last_update: target.last_update,
        taboo: taboo_entry,
        stock_phrases: target.stock_phrases,
        similarity: None,
        header_crc32: None,
    };
    let view = ArchiveIndex::with_header(old.root(), generation.dir.clone(), header.clone())?;
    let view = view.with_scratch(scratch.open(&generation.dir)?);
    let min_percent = old.header().similarity.as_ref().map_or(STORED_MIN_PERCENT, |table| table.min_percent);
    let (entry, similarity) = similar::write_table(&view, target.table, min_percent, progress)?;
    drop(view);
    remove_scratch(&generation);
    header.similarity = Some(entry);
    generation.write_header(&header)?;
    format::commit(old.root(), generation.number)?;
    format::remove_other_generations(old.root(), generation.number);
    let merged_segments = plan.merged.iter().filter(|&&m| m).count() as u64;
    Ok(WrittenGeneration { header, similarity, live_content_hashes: table.live_content_hashes(), merged_segments })
}

/// Which segments an update merges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MergeRequest {
    /// Those the merge policy picks.
    Policy,
    /// All of them (`index merge`, and a replaced taboo set, which changes
    /// every document's postings).
    All,
}

/// Segments of about the same size are merged once there are this many
/// (the new segment counted): a logarithmic merge policy, as Lucene's, under
/// which each chunk is copied about log_8 of the archive's size times.
const MERGE_FACTOR: usize = 8;

/// What becomes of each stored segment: dropped (no live document in it),
/// hard-linked, or merged (its live postings copied into the
/// new segment).
struct SegmentPlan {
    /// Chunks of kept documents, per segment.
    live_chunks: Vec<u64>,
    /// Postings of kept documents, per segment.
    live_postings: Vec<u64>,
    /// Whether each segment is merged into the new one.
    merged: Vec<bool>,
}

impl SegmentPlan {
    /// The plan for `old`'s segments when the documents `kept` (by id) stay
    /// and the new segment gets `new_chunks` chunks of changed documents.
    ///
    /// The policy: a segment more than half of whose chunks are deleted ones
    /// is merged; then segments are grouped in tiers by size (powers of
    /// [`MERGE_FACTOR`] of their live chunks), and while the new segment's
    /// tier holds MERGE_FACTOR - 1 other segments, they are merged into it
    /// (which may lift it into the next tier). No more than [`MAX_SEGMENTS`]
    /// are kept.
    fn new(old: &ArchiveIndex, kept: &[bool], new_chunks: u64, request: MergeRequest) -> SegmentPlan {
        let segments = &old.header().segments;
        let mut live_chunks = vec![0u64; segments.len()];
        let mut live_postings = vec![0u64; segments.len()];
        for id in (0..old.id_slots()).filter(|&id| kept[id as usize]) {
            let record = old.record(id);
            if record.chunk_count > 0 {
                live_chunks[record.segment as usize] += u64::from(record.chunk_count);
                live_postings[record.segment as usize] += u64::from(record.postings);
            }
        }
        let mut merged: Vec<bool> = (segments.iter().zip(&live_chunks))
            .map(|(segment, &live)| {
                let garbage = segment.chunks - live;
                live > 0
                    && (request == MergeRequest::All || garbage as f64 > COMPACT_GARBAGE_SHARE * segment.chunks as f64)
            })
            .collect();
        let mut size = new_chunks + (0..segments.len()).filter(|&s| merged[s]).map(|s| live_chunks[s]).sum::<u64>();
        let tier = |chunks: u64| chunks.max(1).ilog(MERGE_FACTOR as u64);
        loop {
            let same_tier: Vec<usize> = (0..segments.len())
                .filter(|&s| !merged[s] && live_chunks[s] > 0 && tier(live_chunks[s]) <= tier(size))
                .collect();
            if same_tier.len() + 1 < MERGE_FACTOR {
                break;
            }
            for s in same_tier {
                merged[s] = true;
                size += live_chunks[s];
            }
        }
        let linked = (0..segments.len()).filter(|&s| !merged[s] && live_chunks[s] > 0).count();
        if linked + 1 > MAX_SEGMENTS {
            merged.iter_mut().zip(&live_chunks).for_each(|(m, &live)| *m = live > 0);
        }
        SegmentPlan { live_chunks, live_postings, merged }
    }

    /// Whether segment `s` is hard-linked into the new generation.
    fn linked(&self, s: usize) -> bool {
        self.live_chunks[s] > 0 && !self.merged[s]
    }
}

/// The settings of the generation an update writes from the `sample` of
/// the listed documents: `old`'s, with the function words of the collection
/// as it is now (those a fresh `create` would derive). An index whose stored
/// taboo set is kept keeps its function words too (and reads no sample):
/// the taboo chunks were cut with them, and the taboo texts are not at hand
/// to cut them again.
fn new_settings<'s>(
    old: &ArchiveIndex,
    taboo: &TabooChange,
    sample: impl FnOnce() -> &'s CollectionSample,
) -> Settings {
    if matches!(taboo, TabooChange::Keep) && old.header().taboo.is_some() {
        return *old.settings();
    }
    old.settings().with_function_words_of(sample())
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
    /// What `change` makes of `old`'s taboo set, cut into chunks as the new
    /// generation's `settings` say.
    fn plan(old: &ArchiveIndex, change: &TabooChange, settings: &Settings) -> NewTaboo {
        let stored = old.header().taboo.as_ref();
        let set = match change {
            TabooChange::Keep => {
                stored.map(|entry| TabooSet { chunks: old.taboo().clone(), texts: entry.texts.clone() })
            }
            TabooChange::Replace(files) => Some(TabooSet::of(files, settings)),
            TabooChange::Remove => None,
        };
        let hashes = set.as_ref().map_or(&[][..], |set| set.chunks.hashes());
        let rebuild = hashes != old.taboo().hashes();
        let changed = rebuild || set.as_ref().map(|s| &s.texts) != stored.map(|entry| &entry.texts);
        NewTaboo { set, rebuild, changed }
    }
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
        for segment in 0..index.segment_count() {
            index
                .for_each_live_posting(segment, |key, doc| {
                    postings.entry(doc).or_default().push(key);
                    Ok(())
                })
                .unwrap();
        }
        postings.values_mut().for_each(|keys| keys.sort_unstable());
        let mut docs: Vec<_> = index
            .live_ids()
            .map(|id| {
                let record = index.record(id);
                let chunks = index.document_chunks(id).unwrap().unwrap();
                let mut occurrences: Vec<u64> =
                    chunks.hashes.iter().copied().filter(|&hash| !index.taboo().contains(hash)).collect();
                occurrences.sort_unstable();
                assert_eq!(postings.remove(&id).unwrap_or_default(), occurrences, "postings of {}", index.name(id));
                assert_eq!(record.postings as usize, occurrences.len(), "postings of {}", index.name(id));
                occurrences.dedup();
                assert_eq!(record.distinct_chunks as usize, occurrences.len(), "distinct chunks of {}", index.name(id));
                let ranges = chunks.ranges.iter().map(|range| format!("{range:?}")).collect();
                (index.name(id).to_string(), chunks.hashes, ranges)
            })
            .collect();
        assert!(postings.is_empty(), "postings of free ids: {postings:?}");
        docs.sort();
        docs
    }

    /// A temporary directory holding an empty documents directory (`docs`)
    /// and the path of an index beside it (`idx`).
    fn archive_dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        let root = dir.path().join("idx");
        (dir, docs, root)
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
    fn a_table_computed_with_other_parameters_is_computed_whole_by_the_next_update() {
        let (_dir, docs, root) = archive_dirs();
        let shared: String = (0..40).map(|i| format!("shared{i} ")).collect();
        let mut seed = 5u64;
        for i in 0..4 {
            fs::write(docs.join(format!("{i}.txt")), format!("{shared}{}", text(&mut seed, 40))).unwrap();
        }
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        let index = ArchiveIndex::open(&root).unwrap();
        let method = index.header().similarity.as_ref().unwrap().method.clone();
        assert_eq!(method, Some(similar::table_method(&index)));
        assert!(!similar::table_is_stale(&index));
        // Nothing changed: nothing is written.
        assert!(!update_quietly(&docs, &root).committed);

        // The table of a build whose alignment had other defaults.
        let mut header = index.header().clone();
        header.similarity.as_mut().unwrap().method = Some("0123456789abcdef".to_string());
        header.write_sealed(index.generation_dir());
        drop(index);
        assert!(similar::table_is_stale(&ArchiveIndex::open(&root).unwrap()));
        let summary = update_quietly(&docs, &root);
        assert!(summary.committed, "{summary:?}");
        assert_eq!(summary.similarity.pairs, 6, "all pairs of the four documents: {summary:?}");
        assert!(!similar::table_is_stale(&ArchiveIndex::open(&root).unwrap()));

        // A merge copies the table with the method it has.
        let stale = ArchiveIndex::open(&root).unwrap();
        let mut header = stale.header().clone();
        header.similarity.as_mut().unwrap().method = None;
        header.write_sealed(stale.generation_dir());
        drop(stale);
        merge(&root, &Silent).unwrap();
        let merged = ArchiveIndex::open(&root).unwrap();
        assert_eq!(merged.header().similarity.as_ref().unwrap().method, None);
        assert!(similar::table_is_stale(&merged));
    }

    #[test]
    fn a_changed_taboo_set_gives_the_index_a_fresh_create_with_it_gives() {
        let (dir, docs, root) = archive_dirs();
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
    fn a_recycled_id_in_a_wider_table_leaves_its_old_postings_as_tombstones() {
        let (dir, docs, root) = archive_dirs();
        let mut seed = 3u64;
        for i in 0..256 {
            fs::write(docs.join(format!("{i:03}.txt")), text(&mut seed, 7)).unwrap();
        }
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        let doc_bytes = |root: &Path| {
            let index = ArchiveIndex::open(root).unwrap();
            index.header().segments.iter().map(|s| s.postings.doc_bytes).collect::<Vec<_>>()
        };
        assert_eq!(doc_bytes(&root), [1]);
        // Three freed ids are recycled; the 257th id needs two bytes in every posting.
        for i in 0..5 {
            fs::write(docs.join(format!("new-{i}.txt")), text(&mut seed, 7)).unwrap();
        }
        fs::remove_file(docs.join("000.txt")).unwrap();
        fs::write(docs.join("001.txt"), text(&mut seed, 9)).unwrap();
        fs::write(docs.join("002.txt"), text(&mut seed, 9)).unwrap();
        update_quietly(&docs, &root);
        // The old segment keeps its one-byte ids; the new one needs two.
        assert_eq!(doc_bytes(&root), [1, 2]);
        let fresh = dir.path().join("fresh");
        create(&docs, &fresh, &Settings::default(), None, &Silent).unwrap();
        assert_eq!(contents(&root), contents(&fresh));
    }

    #[test]
    fn many_small_updates_keep_few_segments_and_merge_gives_one() {
        let (dir, docs, root) = archive_dirs();
        let mut seed = 5u64;
        fs::write(docs.join("000.txt"), text(&mut seed, 300)).unwrap();
        create(&docs, &root, &Settings::default(), None, &Silent).unwrap();
        let mut most = 0;
        let mut merged = 0;
        for i in 1..=40 {
            fs::write(docs.join(format!("{i:03}.txt")), text(&mut seed, 30)).unwrap();
            if i % 7 == 0 {
                fs::remove_file(docs.join(format!("{:03}.txt", i - 3))).unwrap();
            }
            let summary = update_quietly(&docs, &root);
            most = most.max(summary.segments);
            merged += summary.merged_segments;
        }
        // Tiers of eight: the small segments are merged as they pile up.
        assert!(merged >= 7, "{merged} segments merged");
        assert!(most < 2 * MERGE_FACTOR as u64, "{most} segments at most");
        let fresh = dir.path().join("fresh");
        create(&docs, &fresh, &Settings::default(), None, &Silent).unwrap();
        assert_eq!(contents(&root), contents(&fresh));

        let summary = merge(&root, &Silent).unwrap();
        assert!(summary.merged_segments >= 2 && summary.segments == 1, "{summary:?}");
        let index = ArchiveIndex::open(&root).unwrap();
        let segment = &index.header().segments[0];
        assert_eq!((segment.chunks, segment.postings.count), (segment.live_chunks, segment.postings.live));
        drop(index);
        assert_eq!(contents(&root), contents(&fresh));
        assert_eq!(merge(&root, &Silent).unwrap().merged_segments, 0, "nothing left to merge");
    }

    fn set_modified(path: &Path, ago: std::time::Duration) {
        let file = fs::File::options().write(true).open(path).unwrap();
        file.set_modified(std::time::SystemTime::now() - ago).unwrap();
    }

    #[test]
    fn recorded_times_spare_reading_and_rehash_reads_everything() {
        let (_dir, docs, root) = archive_dirs();
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
        let (dir, docs, root) = archive_dirs();
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
        let mut docs = vec![7];
        index.documents_with(42, &mut docs).unwrap();
        assert!(docs.is_empty());
    }
}
