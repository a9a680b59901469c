//! The hits of a checked file in an index made with the `best` preset, found
//! as `detect --preset best` finds them in its in-memory index of the same
//! documents, so that [`crate::passages`] aligns the same candidates and
//! `check` reports the same passages as `detect`.
//!
//! A posting names a document, not a chunk position, so the hits come in
//! three steps. The postings of the file's distinct chunks give the documents
//! that share them and how often each chunk occurs in each (a posting per
//! occurrence). The bounds are detect's
//! ([`crate::matching::search::HitBudget`]), spent on those counts alone: a
//! chunk with more occurrences than `max_postings` makes no hit, and the file
//! gets at most `per_chunk` hits per chunk, rarest chunks first
//! ([`keep_rarest`]). That tells which documents the kept hits can make
//! candidates of the alignment ([`CandidateRule`]); only those are analysed
//! again from their texts
//! ([`ArchiveIndex::document_chunks`]), which gives the chunk numbers of their
//! hits. The hits of the other documents, which the alignment would pass
//! over, are left out. A candidate whose text can no longer be read as it was
//! indexed makes no hit.
//!
//! Documents are numbered in name order among those the file shares chunks
//! with, which keeps the relative order of detect's numbering (all sources in
//! name order): ties fall the same way in both.

use rayon::prelude::*;

use super::error::ArchiveError;
use super::format::DocRecord;
use super::reader::ArchiveIndex;
use crate::align::sentences::TermMap;
use crate::analysis::span::CharRange;
use crate::matching::intervals::ChunkMatch;
use crate::matching::search::{Hit, HitBudget, keep_rarest};
use crate::passages::{MIN_PLACE_CHUNKS, SourceDocuments};

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
    /// The chunk ranges of each candidate document (empty for the others).
    ranges: Vec<Vec<CharRange>>,
    /// Whether each document is a candidate whose text could not be read as
    /// indexed.
    unread: Vec<bool>,
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

    /// Whether document number `doc` is a candidate whose text could not be
    /// read as it was indexed (changed or deleted since): it makes no hit.
    pub fn unread(&self, doc: u32) -> bool {
        self.unread[doc as usize]
    }
}

impl SourceDocuments for SharingDocuments<'_> {
    type Ranges<'b>
        = &'b [CharRange]
    where
        Self: 'b;

    fn chunk_ranges(&self, doc: u32) -> &[CharRange] {
        &self.ranges[doc as usize]
    }

    fn content_chunks(&self, doc: u32) -> u32 {
        self.records[doc as usize].content_chunks()
    }

    fn chars(&self, doc: u32) -> Option<u32> {
        self.records[doc as usize].chars_or_count(|| self.text(doc))
    }

    fn text(&self, doc: u32) -> Option<String> {
        self.index.document_text(self.id(doc))
    }
}

/// What the alignment's candidate stage
/// ([`crate::passages::PassageFinder`]) needs of a source document's hits
/// before it looks at the document, all of it known from the file's side of
/// the hits: at least `min_common` of the file's chunks hit, `max_gap`
/// unmatched chunks at most between neighbours (a valid interval on the
/// file's side), and at least `min_content` matches of the file's first
/// `content_chunks` chunks; or, with `pair_places`, a run of
/// [`MIN_PLACE_CHUNKS`] content chunks, where pair chunks may make a
/// candidate region. A document that falls short makes no candidate pair,
/// whatever its chunk numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateRule {
    /// Distinct chunks of the file in a run.
    pub min_common: usize,
    /// Unmatched chunks between neighbours of a run.
    pub max_gap: usize,
    /// Matches of content chunks.
    pub min_content: usize,
    /// The file's content chunks (its structure chunks follow).
    pub content_chunks: u32,
    /// The alignment seeks pair chunks where a source shares too few
    /// candidate chunks ([`crate::align::params::AlignParams::pair_words`]).
    pub pair_places: bool,
}

impl CandidateRule {
    /// Whether hits at the file's chunks `positions` (sorted, distinct), with
    /// `content` matches of content chunks, may make a candidate pair.
    fn admits(&self, positions: &[u32], content: usize) -> bool {
        if self.pair_places {
            let content_positions = &positions[..positions.partition_point(|&p| p < self.content_chunks)];
            if self.has_run(content_positions, MIN_PLACE_CHUNKS) {
                return true;
            }
        }
        content >= self.min_content && self.has_run(positions, self.min_common)
    }

    /// Whether `positions` (sorted, distinct) hold a run of `len` with at
    /// most `max_gap` unmatched chunks between neighbours.
    fn has_run(&self, positions: &[u32], len: usize) -> bool {
        if positions.len() < len {
            return false;
        }
        let mut run = 1;
        for pair in positions.windows(2) {
            run = if (pair[1] - pair[0] - 1) as usize <= self.max_gap { run + 1 } else { 1 };
            if run >= len {
                return true;
            }
        }
        run >= len
    }
}

/// The hits of a file whose chunk hashes are `hashes` (in sequence order) in
/// the documents that `rule` admits as candidates of the alignment, and the
/// documents sharing chunks with the file (see the module documentation).
pub fn archive_hits<'a>(
    index: &'a ArchiveIndex,
    hashes: &[u64],
    budget: HitBudget,
    rule: CandidateRule,
) -> Result<(SharingDocuments<'a>, Vec<Hit>), ArchiveError> {
    let shared = shared_hashes(index, hashes, budget.max_postings)?;
    let (mut documents, postings) = sharing_documents(index, &shared.postings);
    let kept = kept_chunks(hashes, &shared, budget);
    let candidates = candidate_documents(&kept, &postings, shared.hashes.len(), documents.len(), rule);
    let numbers: Vec<u32> = (0u32..).zip(&candidates).filter(|&(_, &is)| is).map(|(number, _)| number).collect();
    // The slots of the hashes that make hits: the candidates' other chunks are passed over.
    let mut kept_slots: TermMap<u32> = TermMap::default();
    kept_slots.extend(kept.iter().map(|&(_, slot)| (shared.hashes[slot as usize], slot)));
    // Each candidate analysed again: its chunk ranges, and where the kept hashes occur in it.
    let analysed: Vec<(u32, Option<AnalysedCandidate>)> = numbers
        .par_iter()
        .map(|&number| {
            let found = index.document_chunks(documents.id(number))?.map(|chunks| {
                let slots = (0u32..).zip(&chunks.hashes).filter_map(|(seq, hash)| Some((*kept_slots.get(hash)?, seq)));
                let slots = slots.collect();
                (chunks.ranges, slots)
            });
            Ok((number, found))
        })
        .collect::<Result<_, ArchiveError>>()?;
    documents.ranges = vec![Vec::new(); documents.len()];
    documents.unread = vec![false; documents.len()];
    let mut occurrences: Vec<Vec<(u32, u32)>> = vec![Vec::new(); shared.hashes.len()];
    for (number, found) in analysed {
        let Some((ranges, found)) = found else {
            documents.unread[number as usize] = true;
            continue;
        };
        for (slot, seq) in found {
            occurrences[slot as usize].push((number, seq));
        }
        documents.ranges[number as usize] = ranges;
    }
    let hits = kept
        .iter()
        .flat_map(|&(seq, slot)| {
            occurrences[slot as usize]
                .iter()
                .map(move |&(doc, source)| Hit { source_doc: doc, chunk: ChunkMatch { suspicious: seq, source } })
        })
        .collect();
    Ok((documents, hits))
}

/// A candidate document analysed again: its chunk ranges, and (hash slot,
/// chunk number) of each of its chunks whose hash makes hits.
type AnalysedCandidate = (Vec<CharRange>, Vec<(u32, u32)>);

/// The chunks of a file (`hashes` in sequence order) that make hits, as
/// (chunk number, slot of its hash in `shared`): those whose hash has at most
/// `max_postings` occurrences, at most `per_chunk` hits per chunk of the
/// file, rarest chunks first (detect's lookups).
fn kept_chunks(hashes: &[u64], shared: &SharedHashes, budget: HitBudget) -> Vec<(u32, u32)> {
    let mut found: Vec<(u32, u64, u32)> = (0u32..)
        .zip(hashes)
        .filter_map(|(seq, &hash)| {
            let slot = shared.hashes.binary_search(&hash).ok()?;
            (shared.occurrences[slot] <= budget.max_postings).then_some((seq, hash, slot as u32))
        })
        .collect();
    let occurrences = |slot: u32| shared.occurrences[slot as usize];
    keep_rarest(&mut found, budget.per_chunk.saturating_mul(hashes.len()), |&(seq, hash, slot)| {
        (occurrences(slot), hash, seq)
    });
    found.into_iter().map(|(seq, _, slot)| (seq, slot)).collect()
}

/// Whether `rule` admits each of `documents` documents with the hits of the
/// `kept` chunks (chunk number, hash slot) in it (`postings`: (hash slot,
/// document number, occurrences), of `slots` slots).
fn candidate_documents(
    kept: &[(u32, u32)],
    postings: &[(u32, u32, u32)],
    slots: usize,
    documents: usize,
    rule: CandidateRule,
) -> Vec<bool> {
    let mut holders: Vec<Vec<(u32, u32)>> = vec![Vec::new(); slots];
    for &(slot, doc, occurrences) in postings {
        holders[slot as usize].push((doc, occurrences));
    }
    let mut positions: Vec<Vec<u32>> = vec![Vec::new(); documents];
    let mut content = vec![0usize; documents];
    for &(seq, slot) in kept {
        for &(doc, occurrences) in &holders[slot as usize] {
            positions[doc as usize].push(seq);
            if seq < rule.content_chunks {
                content[doc as usize] += occurrences as usize;
            }
        }
    }
    positions
        .iter_mut()
        .zip(content)
        .map(|(positions, content)| {
            positions.sort_unstable();
            rule.admits(positions, content)
        })
        .collect()
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

/// The distinct chunks of a checked file that archive documents hold.
struct SharedHashes {
    /// Those held by at least one and at most `max_documents` documents, sorted.
    hashes: Vec<u64>,
    /// Occurrences of each in those documents.
    occurrences: Vec<usize>,
    /// (hash slot, document id, occurrences) of each holding document, by slot.
    postings: Vec<(u32, u32, u32)>,
}

/// The distinct `hashes` held by at least one and at most `max_documents`
/// archive documents, with their occurrences and postings.
fn shared_hashes(index: &ArchiveIndex, hashes: &[u64], max_documents: usize) -> Result<SharedHashes, ArchiveError> {
    let mut distinct = hashes.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let mut shared = SharedHashes { hashes: Vec::new(), occurrences: Vec::new(), postings: Vec::new() };
    let mut docs = Vec::new();
    for hash in distinct {
        index.occurrences_of(hash, &mut docs)?;
        let holders = docs.chunk_by(|a, b| a == b).count();
        if holders == 0 || holders > max_documents {
            continue;
        }
        let slot = shared.hashes.len() as u32;
        shared.hashes.push(hash);
        shared.occurrences.push(docs.len());
        shared.postings.extend(docs.chunk_by(|a, b| a == b).map(|same| (slot, same[0], same.len() as u32)));
    }
    Ok(shared)
}

/// The documents of `postings` (hash slot, document id, occurrences),
/// numbered in name order, with the number of shared hashes each holds, and
/// the postings with document numbers.
fn sharing_documents<'a>(
    index: &'a ArchiveIndex,
    postings: &[(u32, u32, u32)],
) -> (SharingDocuments<'a>, Vec<(u32, u32, u32)>) {
    let mut by_id: Vec<u32> = postings.iter().map(|&(_, id, _)| id).collect();
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
    let mut numbered = Vec::with_capacity(postings.len());
    for &(slot, id, occurrences) in postings {
        if let Ok(at) = by_id.binary_search(&id) {
            common[numbers[at] as usize] += 1;
            numbered.push((slot, numbers[at], occurrences));
        }
    }
    let records = ids.iter().map(|&id| index.record(id)).collect();
    (SharingDocuments { index, ids, records, common, ranges: Vec::new(), unread: Vec::new() }, numbered)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fs;

    use super::*;
    use crate::analysis::chunk::Chunks;
    use crate::archive::builder::create;
    use crate::archive::format::Settings;
    use crate::detect::params::Preset;
    use crate::matching::intervals::{IntervalParams, valid_intervals};
    use crate::progress::Silent;
    use crate::testutil::prose;

    /// Every hit as detect finds them, from every document's analysed
    /// chunks, by document name: each shared chunk's occurrences, dropped
    /// above `max_postings`, the rarest kept within the budget.
    fn reference_hits(index: &ArchiveIndex, hashes: &[u64], budget: HitBudget) -> BTreeMap<String, Vec<ChunkMatch>> {
        let ids: Vec<u32> = index.live_ids().collect();
        let chunks: Vec<Chunks> = ids.iter().map(|&id| index.document_chunks(id).unwrap().unwrap()).collect();
        let taboo = index.taboo();
        let occurrences = |hash: u64| -> Vec<(u32, u32)> {
            let mut list = Vec::new();
            for (number, document) in (0u32..).zip(&chunks) {
                for (seq, &h) in (0u32..).zip(&document.hashes) {
                    if h == hash && !taboo.contains(h) {
                        list.push((number, seq));
                    }
                }
            }
            list
        };
        let lists: Vec<Vec<(u32, u32)>> = hashes.iter().map(|&hash| occurrences(hash)).collect();
        let mut found: Vec<(u32, u64, &Occurrences)> = (0u32..)
            .zip(hashes)
            .zip(&lists)
            .filter(|(_, list)| !list.is_empty() && list.len() <= budget.max_postings)
            .map(|((seq, &hash), list)| (seq, hash, &list[..]))
            .collect();
        keep_rarest(&mut found, budget.per_chunk * hashes.len(), |&(seq, hash, list)| (list.len(), hash, seq));
        let mut hits: BTreeMap<String, Vec<ChunkMatch>> = BTreeMap::new();
        for &(seq, _, list) in &found {
            for &(doc, source) in list {
                let name = index.name(ids[doc as usize]).to_string();
                hits.entry(name).or_default().push(ChunkMatch { suspicious: seq, source });
            }
        }
        hits.values_mut().for_each(|matches| matches.sort_unstable());
        hits
    }

    /// Whether the alignment's candidate stage makes a candidate pair of a
    /// document with these `matches` (`passages::align_document`).
    fn makes_a_candidate(matches: &[ChunkMatch], rule: CandidateRule) -> bool {
        let mut distinct: Vec<u32> = matches.iter().map(|m| m.suspicious).collect();
        distinct.dedup();
        let content = matches.iter().filter(|m| m.suspicious < rule.content_chunks).count();
        let mut content_matches: Vec<ChunkMatch> =
            matches.iter().filter(|m| m.suspicious < rule.content_chunks).copied().collect();
        let pair_params = IntervalParams { min_chunks: MIN_PLACE_CHUNKS, max_gap: rule.max_gap, depth: 2 };
        let mut places = Vec::new();
        valid_intervals(&mut content_matches, &pair_params, &mut places);
        if rule.pair_places && !places.is_empty() {
            return true;
        }
        let params = IntervalParams { min_chunks: rule.min_common, max_gap: rule.max_gap, depth: 2 };
        let mut intervals = Vec::new();
        valid_intervals(&mut matches.to_vec(), &params, &mut intervals);
        distinct.len() >= rule.min_common && content >= rule.min_content && !intervals.is_empty()
    }

    #[test]
    fn archive_hits_are_detects_for_every_candidate_with_repeated_chunks_and_a_tight_budget() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        let (passage, repeated) = (prose(1, 150), prose(2, 12));
        // The source of the passage, which holds the repeated sentence too.
        fs::write(docs.join("a-source.txt"), format!("{} {passage} {repeated} {}", prose(3, 80), prose(4, 60)))
            .unwrap();
        // Documents that repeat the sentence: its chunks occur more often
        // than they have documents, past `max_postings` in all.
        for i in 0..7 {
            let text = format!(
                "{} {repeated} {} {repeated} {} {repeated}",
                prose(10 + i, 40),
                prose(20 + i, 30),
                prose(30 + i, 30)
            );
            fs::write(docs.join(format!("repeats-{i}.txt")), text).unwrap();
        }
        fs::write(docs.join("z-other.txt"), format!("{} {}", prose(5, 100), &passage[..200])).unwrap();
        let root = dir.path().join("idx");
        create(&docs, &root, &Settings::of_preset(Preset::Best), None, &Silent).unwrap();
        let index = ArchiveIndex::open(&root).unwrap();
        let file = format!("{} {passage} {repeated} {}", prose(6, 50), prose(7, 50));
        let mut analyzer = crate::analysis::document::Analyzer::new(&index.settings().analysis());
        let analysed = analyzer.analyse_text(file.clone(), file.len() as u64, [0; 16]);
        let hashes = &analysed.chunks.hashes;
        let mut left_out = 0;
        for (max_postings, per_chunk) in [(20, 8), (20, 1), (3, 8), (usize::MAX, usize::MAX / hashes.len())] {
            let budget = HitBudget { max_postings, per_chunk };
            let rules = [(3, 30, 2, false), (1, 0, 0, false), (3, 2, 1, false), (40, 30, 2, false), (40, 30, 2, true)];
            for (min_common, max_gap, min_content, pair_places) in rules {
                let content_chunks = analysed.content_chunks;
                let rule = CandidateRule { min_common, max_gap, min_content, content_chunks, pair_places };
                let (documents, hits) = archive_hits(&index, hashes, budget, rule).unwrap();
                let mut found: BTreeMap<String, Vec<ChunkMatch>> = BTreeMap::new();
                for hit in &hits {
                    found.entry(index.name(documents.id(hit.source_doc)).to_string()).or_default().push(hit.chunk);
                }
                found.values_mut().for_each(|matches| matches.sort_unstable());
                let reference = reference_hits(&index, hashes, budget);
                for (name, matches) in &reference {
                    if makes_a_candidate(matches, rule) {
                        assert_eq!(found.get(name), Some(matches), "{name}: {budget:?}, {rule:?}");
                    }
                }
                left_out += reference.len() - found.len();
                assert!(found.keys().all(|name| reference.contains_key(name)), "{budget:?}, {rule:?}");
            }
        }
        assert!(left_out > 0, "some documents' hits are left out");
    }
}
