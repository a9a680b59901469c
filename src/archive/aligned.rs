//! The hits of a checked file in an index made with the `best` preset, found
//! as `detect --preset best` finds them in its in-memory index of the same
//! documents, so that [`crate::passages`] aligns the same candidates and
//! `check` reports the same passages as `detect`.
//!
//! A posting names a document, not a chunk position, so the hits come in two
//! steps: the postings of the file's distinct chunks give the documents that
//! share them; the chunks of those documents, analysed again from their texts
//! ([`ArchiveIndex::document_chunks`]), give every occurrence (document,
//! chunk number). The bounds are detect's
//! ([`crate::matching::search::HitBudget`]): a chunk with more occurrences
//! than `max_postings` makes no hit (a document holds an occurrence per
//! posting at least, so a chunk with more postings is skipped before any
//! document is analysed), and the file gets at most `per_chunk` hits per
//! chunk, rarest chunks first ([`keep_rarest`]). A document whose text can no
//! longer be read as it was indexed makes no hit.
//!
//! Documents are numbered in name order among those the file shares chunks
//! with, which keeps the relative order of detect's numbering (all sources in
//! name order): ties fall the same way in both.

use rayon::prelude::*;

use super::error::ArchiveError;
use super::format::DocRecord;
use super::reader::ArchiveIndex;
use crate::align::sentences::TermMap;
use crate::analysis::chunk::Chunks;
use crate::analysis::span::CharRange;
use crate::matching::intervals::ChunkMatch;
use crate::matching::search::{Hit, HitBudget, keep_rarest};
use crate::passages::SourceDocuments;

/// Where a chunk occurs: (document number, chunk number) pairs, sorted.
type Occurrences = [(u32, u32)];

/// The archive documents a checked file shares chunks with, numbered in name
/// order ([`SourceDocuments`] for [`crate::passages::PassageFinder`]).
pub struct SharingDocuments<'a> {
    index: &'a ArchiveIndex,
    /// Document ids by number.
    ids: Vec<u32>,
    records: Vec<DocRecord>,
    /// Distinct chunks of the file each document holds (chunks in more than
    /// `max_postings` documents left out).
    common: Vec<u64>,
    /// The chunk ranges of each document (`None` when its text could not be
    /// read as indexed).
    ranges: Vec<Option<Vec<CharRange>>>,
}

impl SharingDocuments<'_> {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the file shares no chunk with the archive.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id of document number `doc`.
    pub fn id(&self, doc: u32) -> u32 {
        self.ids[doc as usize]
    }

    /// The distinct chunks of the file that document number `doc` holds.
    pub fn common(&self, doc: u32) -> u64 {
        self.common[doc as usize]
    }

    /// Whether the text of document number `doc` could not be read as it was
    /// indexed (changed or deleted since): it makes no hit.
    pub fn unread(&self, doc: u32) -> bool {
        self.ranges[doc as usize].is_none()
    }
}

impl SourceDocuments for SharingDocuments<'_> {
    type Ranges<'b>
        = &'b [CharRange]
    where
        Self: 'b;

    fn chunk_ranges(&self, doc: u32) -> &[CharRange] {
        self.ranges[doc as usize].as_deref().unwrap_or_default()
    }

    fn content_chunks(&self, doc: u32) -> u32 {
        self.records[doc as usize].content_chunks()
    }

    fn bytes(&self, doc: u32) -> u64 {
        self.records[doc as usize].bytes
    }

    fn text(&self, doc: u32) -> Option<String> {
        self.index.document_text(self.id(doc))
    }
}

/// The hits of a file whose chunk hashes are `hashes` (in sequence order), and
/// the documents they point into (see the module documentation).
pub fn archive_hits<'a>(
    index: &'a ArchiveIndex,
    hashes: &[u64],
    budget: HitBudget,
) -> Result<(SharingDocuments<'a>, Vec<Hit>), ArchiveError> {
    let (shared, postings) = shared_hashes(index, hashes, budget.max_postings)?;
    let mut documents = sharing_documents(index, &postings);
    let chunks: Vec<Option<Chunks>> =
        documents.ids.par_iter().map(|&id| index.document_chunks(id)).collect::<Result<_, _>>()?;
    let occurrences = occurrences(&shared, &chunks, budget.max_postings);
    documents.ranges = chunks.into_iter().map(|chunks| chunks.map(|c| c.ranges)).collect();
    Ok((documents, budgeted_hits(hashes, &shared, &occurrences, budget)))
}

/// A checked file's chunks numbered for [`pair_hits`], which takes the file
/// to many documents one at a time: each distinct hash has a slot.
pub struct FileSlots {
    /// The slot of each distinct hash.
    slots: TermMap<u32>,
    /// The slot of each chunk's hash, in sequence order.
    of_chunk: Vec<u32>,
}

impl FileSlots {
    /// The slots of a file whose chunk hashes are `hashes`.
    pub fn new(hashes: &[u64]) -> Self {
        let mut slots = TermMap::default();
        let of_chunk = hashes
            .iter()
            .map(|&hash| {
                let next = slots.len() as u32;
                *slots.entry(hash).or_insert(next)
            })
            .collect();
        FileSlots { slots, of_chunk }
    }
}

/// The hits of a file whose chunk hashes are `hashes` (numbered by `file`)
/// in the archive document whose chunk hashes are `document` alone: those
/// [`archive_hits`] finds in an index that holds only that document (its
/// number is 0), whatever else the index holds. They depend on the two
/// documents only, which the similarity table needs ([`super::pair`]). One
/// pass over the document's chunks.
pub fn pair_hits(
    index: &ArchiveIndex,
    hashes: &[u64],
    file: &FileSlots,
    budget: HitBudget,
    document: &[u64],
) -> Vec<Hit> {
    let taboo = index.taboo();
    // Where each distinct hash of the file occurs in the document (taboo
    // chunks have no postings: they are shared with no file).
    let mut lists: Vec<Vec<(u32, u32)>> = vec![Vec::new(); file.slots.len()];
    for (seq, &hash) in (0u32..).zip(document) {
        if let Some(&slot) = file.slots.get(&hash)
            && !taboo.contains(hash)
        {
            lists[slot as usize].push((0, seq));
        }
    }
    // A hash the document holds has one posting, which no bound below 1 refuses.
    let found = (0u32..).zip(hashes).zip(&file.of_chunk).filter_map(|((seq, &hash), &slot)| {
        let list = &lists[slot as usize];
        let held = !list.is_empty() && budget.max_postings >= 1 && list.len() <= budget.max_postings;
        held.then_some((seq, hash, &list[..]))
    });
    rarest_hits(found.collect(), budget, hashes.len())
}

/// Each chunk of a file (`hashes` in sequence order) whose hash is among the
/// `shared` ones (sorted) with its `occurrences` (by slot of `shared`) makes
/// a hit per occurrence, at most `per_chunk` per chunk of the file, rarest
/// chunks first: detect's lookups.
fn budgeted_hits(
    hashes: &[u64],
    shared: &[u64],
    occurrences: &[Option<Vec<(u32, u32)>>],
    budget: HitBudget,
) -> Vec<Hit> {
    let found = (0u32..).zip(hashes).filter_map(|(seq, &hash)| {
        let slot = shared.binary_search(&hash).ok()?;
        let list = occurrences[slot].as_deref()?;
        Some((seq, hash, list))
    });
    rarest_hits(found.collect(), budget, hashes.len())
}

/// The hits of `found` (chunk number, hash, occurrences) of a file of
/// `chunks` chunks: at most `per_chunk` per chunk of the file, rarest chunks
/// first ([`keep_rarest`]).
fn rarest_hits(mut found: Vec<(u32, u64, &Occurrences)>, budget: HitBudget, chunks: usize) -> Vec<Hit> {
    keep_rarest(&mut found, budget.per_chunk.saturating_mul(chunks), |&(seq, hash, list)| (list.len(), hash, seq));
    found
        .iter()
        .flat_map(|&(seq, _, list)| {
            list.iter()
                .map(move |&(doc, source)| Hit { source_doc: doc, chunk: ChunkMatch { suspicious: seq, source } })
        })
        .collect()
}

/// (hash slot, document id) postings.
type SlotPostings = Vec<(u32, u32)>;

/// The distinct `hashes` held by at least one and at most `max_documents`
/// archive documents, sorted, and their postings.
fn shared_hashes(
    index: &ArchiveIndex,
    hashes: &[u64],
    max_documents: usize,
) -> Result<(Vec<u64>, SlotPostings), ArchiveError> {
    let mut distinct = hashes.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let mut shared = Vec::new();
    let mut postings = Vec::new();
    let mut docs = Vec::new();
    for hash in distinct {
        index.documents_with(hash, &mut docs)?;
        if docs.is_empty() || docs.len() > max_documents {
            continue;
        }
        let slot = shared.len() as u32;
        shared.push(hash);
        postings.extend(docs.iter().map(|&doc| (slot, doc)));
    }
    Ok((shared, postings))
}

/// The documents of `postings` (hash slot, document id), numbered in name
/// order, with the number of shared hashes each holds.
fn sharing_documents<'a>(index: &'a ArchiveIndex, postings: &[(u32, u32)]) -> SharingDocuments<'a> {
    let mut by_id: Vec<u32> = postings.iter().map(|&(_, id)| id).collect();
    by_id.sort_unstable();
    by_id.dedup();
    let mut ids = by_id.clone();
    ids.sort_by(|&a, &b| index.name(a).cmp(index.name(b)));
    // Numbers by id, in the order of `by_id`.
    let mut numbers = vec![0u32; ids.len()];
    for (number, id) in (0u32..).zip(&ids) {
        if let Ok(at) = by_id.binary_search(id) {
            numbers[at] = number;
        }
    }
    let mut common = vec![0u64; ids.len()];
    for (_, id) in postings {
        if let Ok(at) = by_id.binary_search(id) {
            common[numbers[at] as usize] += 1;
        }
    }
    let records = ids.iter().map(|&id| index.record(id)).collect();
    SharingDocuments { index, ids, records, common, ranges: Vec::new() }
}

/// For each of the `shared` hashes, every (document number, chunk number)
/// where it occurs in the documents (their chunks by number, `None` for a
/// text that could not be read), sorted; `None` for a hash with more than
/// `max_postings` occurrences.
fn occurrences(shared: &[u64], documents: &[Option<Chunks>], max_postings: usize) -> Vec<Option<Vec<(u32, u32)>>> {
    let found: Vec<(u32, u32, u32)> = (0u32..)
        .zip(documents)
        .collect::<Vec<_>>()
        .par_iter()
        .flat_map_iter(|&(number, chunks)| {
            let hashes = chunks.as_ref().map_or(&[][..], |c| &c.hashes[..]);
            (0u32..).zip(hashes).filter_map(move |(seq, hash)| {
                let slot = shared.binary_search(hash).ok()? as u32;
                Some((slot, number, seq))
            })
        })
        .collect();
    let mut by_slot: Vec<Vec<(u32, u32)>> = vec![Vec::new(); shared.len()];
    for (slot, number, seq) in found {
        by_slot[slot as usize].push((number, seq));
    }
    by_slot
        .into_iter()
        .map(|mut list| {
            list.sort_unstable();
            (list.len() <= max_postings).then_some(list)
        })
        .collect()
}
