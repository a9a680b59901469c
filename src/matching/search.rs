//! Matching: look the chunks of suspicious documents up in the index, group the
//! hits per source document, and keep the source documents that share enough
//! chunks to be worth the valid-interval search.
//!
//! Lookups are made for a batch of documents at once, in hash order: the batch's
//! chunks are sorted by hash, so the walk through the index's directory and
//! postings only moves forward. An index of hundreds of megabytes is then read
//! almost like a stream instead of paying a cache and TLB miss per chunk.
//! A pass's lookups are few enough (16 MB) to be sorted with a second copy, by
//! a stable LSD radix sort on the hash (radsort); made in document and chunk
//! order, they end up in the order of their whole (hash, document, chunk).

use std::ops::Range;

use rayon::prelude::*;

use crate::matching::index::{ChunkIndex, ChunkKey};
use crate::matching::intervals::ChunkMatch;

/// A source document is a candidate when it shares at least this many chunks
/// with the suspicious document (PAN'09: 20).
pub const DEFAULT_MIN_COMMON: usize = 20;

/// Lookups ahead (in hash order) whose directory entry is prefetched; the
/// postings bucket is prefetched half as far ahead.
pub(crate) const PREFETCH_DISTANCE: usize = 16;

/// Sorted lookups handed to one parallel task.
const LOOKUPS_PER_TASK: usize = 1 << 16;

/// A chunk of a suspicious document found in a source document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Hit {
    /// The source document.
    pub source_doc: u32,
    /// The suspicious and the source chunk.
    pub chunk: ChunkMatch,
}

/// One chunk of a batch document to look up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Lookup {
    hash: u64,
    doc: u32,
    seq: u32,
}

/// Finds the hits of a batch of suspicious documents; reuse one to keep its
/// lookup buffer.
#[derive(Debug, Default)]
pub struct BatchLookup {
    lookups: Vec<Lookup>,
}

impl BatchLookup {
    /// Looks up every chunk of every document of the batch (`docs[d][seq]` is
    /// the hash of chunk `seq` of document `d`) and returns each document's
    /// found chunks, from which its hits are made ([`FoundChunks::hits`]),
    /// bounded by `budget`: a chunk with more than [`HitBudget::max_postings`]
    /// occurrences in the index yields no hit (a stop chunk, too common to
    /// tell documents apart), and a document gets at most
    /// [`HitBudget::per_chunk`] hits per chunk it has. When its chunks would
    /// give more, the rarest chunks are taken first (fewest postings, then
    /// lowest hash, so that two documents sample the same chunks). The work
    /// per document then grows with its length, not with how often its text
    /// occurs elsewhere. With [`HitBudget::UNBOUNDED`], every occurrence is a
    /// hit.
    pub fn found<K: ChunkKey>(
        &mut self,
        index: &ChunkIndex<K>,
        docs: &[&[u64]],
        budget: HitBudget,
    ) -> Vec<FoundChunks> {
        self.found_in_passes(index, docs, budget, LOOKUPS_PER_PASS)
    }

    /// [`found`](Self::found) with at most `per_pass` lookups sorted at once.
    fn found_in_passes<K: ChunkKey>(
        &mut self,
        index: &ChunkIndex<K>,
        docs: &[&[u64]],
        budget: HitBudget,
        per_pass: usize,
    ) -> Vec<FoundChunks> {
        let mut per_doc: Vec<FoundChunks> = docs
            .iter()
            .map(|hashes| FoundChunks { found: Vec::new(), allowed: budget.per_chunk.saturating_mul(hashes.len()) })
            .collect();
        for pass in lookup_passes(docs, per_pass) {
            self.lookups.clear();
            for (doc, seqs) in pass {
                let hashes = &docs[doc as usize][seqs.start as usize..seqs.end as usize];
                self.lookups.extend(seqs.zip(hashes).map(|(seq, &hash)| Lookup { hash, doc, seq }));
            }
            radsort::sort_by_key(&mut self.lookups, |lookup| lookup.hash);
            let found: Vec<Vec<(u32, Found)>> = self
                .lookups
                .par_chunks(LOOKUPS_PER_TASK)
                .map(|sorted| lookup_sorted(index, sorted, budget.max_postings))
                .collect();
            for (doc, found) in found.into_iter().flatten() {
                per_doc[doc as usize].found.push(found);
            }
        }
        per_doc
    }
}

/// The chunks of one document found in the index (12 bytes each). Its hits
/// are made from them when the document's turn comes, so that a batch of
/// documents never holds all its hits at once: a chunk found in many
/// documents makes a hit (12 bytes) for each.
pub struct FoundChunks {
    found: Vec<Found>,
    /// Hits allowed: the budget's hits per chunk times the document's chunks.
    allowed: usize,
}

/// Found chunks turned into hits at a time, their memory given back before
/// the next ones, so that a long document holds hardly more than its hits.
const HITS_STEP: usize = 1 << 16;

impl FoundChunks {
    /// The hits of the document whose chunk hashes are `hashes` (those it
    /// was looked up with), in no particular order, within its budget (the
    /// rarest chunks first, [`keep_rarest`]).
    pub fn hits<K: ChunkKey>(mut self, index: &ChunkIndex<K>, hashes: &[u64]) -> Vec<Hit> {
        keep_rarest(&mut self.found, self.allowed, |f| (f.postings.len(), hashes[f.seq as usize], f.seq));
        let mut hits = Vec::new();
        while !self.found.is_empty() {
            let rest = self.found.len().saturating_sub(HITS_STEP);
            hits.extend(self.found[rest..].iter().flat_map(|f| f.hits(index)));
            self.found.truncate(rest);
            self.found.shrink_to_fit();
        }
        hits
    }
}

/// Lookups sorted and made at once: a long document is looked up in passes,
/// so that its lookups (16 bytes per chunk) are never all held together.
const LOOKUPS_PER_PASS: usize = 1 << 20;

/// The chunks of `docs` in passes of at most `per_pass` lookups, each pass a
/// list of (document, chunk numbers).
fn lookup_passes(docs: &[&[u64]], per_pass: usize) -> Vec<Vec<(u32, std::ops::Range<u32>)>> {
    let mut passes = vec![Vec::new()];
    let mut room = per_pass;
    for (doc, hashes) in (0u32..).zip(docs) {
        let mut start = 0;
        while start < hashes.len() {
            if room == 0 {
                passes.push(Vec::new());
                room = per_pass;
            }
            let end = hashes.len().min(start + room);
            if let Some(pass) = passes.last_mut() {
                pass.push((doc, start as u32..end as u32));
            }
            room -= end - start;
            start = end;
        }
    }
    passes
}

/// Bounds on the hits of one suspicious document (see
/// [`BatchLookup::found`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitBudget {
    /// A chunk with more postings than this yields no hit.
    pub max_postings: usize,
    /// Hits allowed per chunk of the document.
    pub per_chunk: usize,
}

impl HitBudget {
    /// No bound at all.
    pub const UNBOUNDED: HitBudget = HitBudget { max_postings: usize::MAX, per_chunk: usize::MAX };
}

/// A looked-up chunk of a batch document: its sequence number and where its
/// postings are in the index.
struct Found {
    seq: u32,
    postings: Range<u32>,
}

impl Found {
    fn hits<'a, K: ChunkKey>(&self, index: &'a ChunkIndex<K>) -> impl Iterator<Item = Hit> + 'a {
        let suspicious = self.seq;
        let postings = index.postings(self.postings.start as usize..self.postings.end as usize);
        index
            .occurrences(postings)
            .map(move |(source_doc, source)| Hit { source_doc, chunk: ChunkMatch { suspicious, source } })
    }
}

/// Keeps the rarest of one document's `found` chunks whose postings add up to
/// at most `allowed`; all of them when they fit. `rarity` gives a found
/// chunk's (postings, hash, position in the document): the fewest postings
/// come first, then the lowest hash, so that two documents sample the same
/// chunks. The archive's `check` bounds its hits with this too.
pub fn keep_rarest<T>(found: &mut Vec<T>, allowed: usize, rarity: impl Fn(&T) -> (usize, u64, u32)) {
    let total: usize = found.iter().map(|f| rarity(f).0).sum();
    if total <= allowed {
        return;
    }
    found.sort_unstable_by_key(&rarity);
    let mut used = 0usize;
    let kept = found.iter().take_while(|f| {
        used += rarity(f).0;
        used <= allowed
    });
    let kept = kept.count();
    found.truncate(kept);
}

/// Keeps those of one document's `hits` that [`FoundChunks::hits`] keeps
/// within `budget`, given all the hits of its chunks (`hashes`) that have at
/// most [`HitBudget::max_postings`] occurrences. For a document whose chunks
/// were looked up in several parts of an index (the cluster's, each holding
/// a range of hashes), the budget is spent once all its hits are together: a
/// chunk's occurrences are its hits.
pub fn keep_within_budget(hits: &mut Vec<Hit>, hashes: &[u64], budget: HitBudget) {
    let allowed = budget.per_chunk.saturating_mul(hashes.len());
    if hits.len() <= allowed {
        return;
    }
    hits.sort_unstable_by_key(|hit| hit.chunk.suspicious);
    let mut chunks: Vec<(u32, usize)> = hits
        .chunk_by(|a, b| a.chunk.suspicious == b.chunk.suspicious)
        .map(|g| (g[0].chunk.suspicious, g.len()))
        .collect();
    keep_rarest(&mut chunks, allowed, |&(seq, occurrences)| (occurrences, hashes[seq as usize], seq));
    chunks.sort_unstable();
    hits.retain(|hit| chunks.binary_search_by_key(&hit.chunk.suspicious, |c| c.0).is_ok());
}

/// Looks up `sorted` (sorted by hash) in order, prefetching ahead; skips chunks
/// with no postings or more than `max_postings`.
fn lookup_sorted<K: ChunkKey>(index: &ChunkIndex<K>, sorted: &[Lookup], max_postings: usize) -> Vec<(u32, Found)> {
    let mut found = Vec::new();
    for (i, lookup) in sorted.iter().enumerate() {
        if let Some(later) = sorted.get(i + PREFETCH_DISTANCE) {
            index.prefetch_directory(later.hash);
        }
        if let Some(sooner) = sorted.get(i + PREFETCH_DISTANCE / 2) {
            index.prefetch_bucket(sooner.hash);
        }
        let postings = index.lookup_range(lookup.hash);
        if !postings.is_empty() && postings.len() <= max_postings {
            // Chunk numbers are u32, so positions among the postings fit.
            let postings = postings.start as u32..postings.end as u32;
            found.push((lookup.doc, Found { seq: lookup.seq, postings }));
        }
    }
    found
}

/// Groups one suspicious document's hits per source document; reuse one per
/// thread so the buffer is allocated once.
#[derive(Debug, Default)]
pub struct Candidates {
    matches: Vec<ChunkMatch>,
}

impl Candidates {
    /// Sorts `hits` and calls `on_candidate(source_doc, matches)` for each source
    /// document that shares at least `min_common` chunks with the suspicious
    /// document, in order of document number. `matches` holds every (suspicious
    /// chunk, source chunk) pair with equal hashes; a chunk counts once towards
    /// `min_common` however often it repeats.
    pub fn for_each(
        &mut self,
        hits: &mut [Hit],
        min_common: usize,
        mut on_candidate: impl FnMut(u32, &mut [ChunkMatch]),
    ) {
        hits.sort_unstable();
        for group in hits.chunk_by(|a, b| a.source_doc == b.source_doc) {
            // Sorted by (suspicious, source) inside the group.
            let common = distinct_in_order(group.iter().map(|hit| hit.chunk.suspicious));
            if common >= min_common {
                self.matches.clear();
                self.matches.extend(group.iter().map(|hit| hit.chunk));
                on_candidate(group[0].source_doc, &mut self.matches);
            }
        }
    }
}

/// The distinct chunk numbers among `chunks`, given in sorted order (a chunk
/// that repeats counts once): what [`Candidates::for_each`] counts towards
/// `min_common`, of the suspicious chunks of one source's matches.
pub fn distinct_in_order(chunks: impl Iterator<Item = u32>) -> usize {
    let mut last = None;
    chunks.filter(|&chunk| last.replace(chunk) != Some(chunk)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::index::IndexBuilder;

    #[test]
    fn distinct_in_order_counts_a_repeated_chunk_once() {
        assert_eq!(distinct_in_order([].into_iter()), 0);
        assert_eq!(distinct_in_order([3, 3].into_iter()), 1);
        assert_eq!(distinct_in_order([3, 3, 5].into_iter()), 2);
        assert_eq!(distinct_in_order([0, 1, 1, 2].into_iter()), 3);
    }

    /// Each document's hits (see [`BatchLookup::found`]).
    fn hits_of(index: &ChunkIndex<u32>, docs: &[&[u64]], budget: HitBudget) -> Vec<Vec<Hit>> {
        let found = BatchLookup::default().found(index, docs, budget);
        found.into_iter().zip(docs).map(|(found, hashes)| found.hits(index, hashes)).collect()
    }

    fn m(suspicious: u32, source: u32) -> ChunkMatch {
        ChunkMatch { suspicious, source }
    }

    #[test]
    fn batch_lookups_return_each_documents_hits() {
        let mut builder = IndexBuilder::<u32>::new(32);
        builder.add_document(0, &[1, 2, 3, 4, 2]);
        builder.add_document(1, &[9, 9, 8]);
        let index = builder.build();
        let mut hits = hits_of(&index, &[&[2, 5, 9], &[], &[8, 3]], HitBudget::UNBOUNDED);
        hits.iter_mut().for_each(|h| h.sort_unstable());
        let hit = |source_doc, s, t| Hit { source_doc, chunk: m(s, t) };
        assert_eq!(hits[0], vec![hit(0, 0, 1), hit(0, 0, 4), hit(1, 2, 0), hit(1, 2, 1)]);
        assert!(hits[1].is_empty());
        assert_eq!(hits[2], vec![hit(0, 1, 2), hit(1, 0, 2)]);
    }

    #[test]
    fn groups_hits_per_source_and_applies_the_threshold() {
        let mut builder = IndexBuilder::<u32>::new(32);
        builder.add_document(0, &[1, 2, 3, 4, 2]);
        builder.add_document(1, &[9, 9, 8]);
        builder.add_document(2, &[7]);
        let index = builder.build();
        let mut hits = hits_of(&index, &[&[2, 3, 9, 7, 5]], HitBudget::UNBOUNDED).remove(0);
        let mut found = Vec::new();
        Candidates::default().for_each(&mut hits, 2, |doc, matches| found.push((doc, matches.to_vec())));
        // Document 0 shares chunks 2 (twice in the source) and 3; document 1 shares
        // only chunk 9 (one suspicious chunk, two occurrences): below 2; document 2
        // shares one chunk.
        assert_eq!(found, vec![(0, vec![m(0, 1), m(0, 4), m(1, 2)])]);
        let mut all = Vec::new();
        Candidates::default().for_each(&mut hits, 1, |doc, _| all.push(doc));
        assert_eq!(all, [0, 1, 2]);
    }

    #[test]
    fn capped_lookups_skip_common_chunks() {
        let mut builder = IndexBuilder::<u32>::new(32);
        builder.add_document(0, &[1, 2, 2, 2]);
        builder.add_document(1, &[2, 3]);
        let index = builder.build();
        let budget = HitBudget { max_postings: 2, ..HitBudget::UNBOUNDED };
        let hits = hits_of(&index, &[&[1, 2, 3]], budget).remove(0);
        let mut found: Vec<(u32, u32)> = hits.iter().map(|h| (h.source_doc, h.chunk.suspicious)).collect();
        found.sort_unstable();
        assert_eq!(found, [(0, 0), (1, 2)], "chunk 2 occurs four times: skipped");
    }

    /// The budgeted lookup written plainly: every chunk's postings, rarest
    /// first, while they fit.
    fn rarest_first_reference(index: &ChunkIndex<u32>, hashes: &[u64], allowed: usize) -> Vec<Hit> {
        let mut chunks: Vec<(usize, u64, u32)> = (0u32..)
            .zip(hashes)
            .map(|(seq, &hash)| (index.lookup(hash).len(), hash, seq))
            .filter(|c| c.0 > 0)
            .collect();
        chunks.sort_unstable();
        let total: usize = chunks.iter().map(|c| c.0).sum();
        let mut used = 0;
        let mut hits = Vec::new();
        for (count, hash, seq) in chunks {
            used += count;
            if total > allowed && used > allowed {
                break;
            }
            let postings = index.lookup(hash);
            hits.extend(
                index.occurrences(postings).map(|(doc, source)| Hit { source_doc: doc, chunk: m(seq, source) }),
            );
        }
        hits.sort_unstable();
        hits
    }

    #[test]
    fn a_document_over_its_budget_keeps_its_rarest_chunks() {
        let mut builder = IndexBuilder::<u32>::new(32);
        // Chunk 5 is in every source, 6 in two, 7 in one: boilerplate, shared, rare.
        for doc in 0..10 {
            let own = 100 + u64::from(doc);
            match doc {
                0 => builder.add_document(doc, &[5, 6, 7, own]),
                1 => builder.add_document(doc, &[5, 6, own]),
                _ => builder.add_document(doc, &[5, own]),
            }
        }
        let index = builder.build();
        let suspicious: &[u64] = &[5, 7, 6, 42];
        // Four chunks, one hit each allowed: 7 (1 posting) and 6 (2) fit, 5 (10) does not.
        let budget = HitBudget { max_postings: usize::MAX, per_chunk: 1 };
        let mut hits = hits_of(&index, &[suspicious, &[5]], budget);
        hits.iter_mut().for_each(|h| h.sort_unstable());
        let hit = |source_doc, s, t| Hit { source_doc, chunk: m(s, t) };
        assert_eq!(hits[0], [hit(0, 1, 2), hit(0, 2, 1), hit(1, 2, 1)]);
        assert_eq!(hits[0], rarest_first_reference(&index, suspicious, 4));
        assert!(hits[1].is_empty(), "one chunk allows one hit, and chunk 5 has ten");
        let generous = HitBudget { max_postings: usize::MAX, per_chunk: 4 };
        let all = hits_of(&index, &[suspicious], generous).remove(0);
        assert_eq!(all.len(), 13, "within the budget every hit is kept");
    }

    proptest::proptest! {
        #[test]
        fn budgeted_lookups_match_the_plain_version(
            sources in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..30), 1..8),
            suspicious in proptest::collection::vec(0u64..40, 0..40),
            per_chunk in 0usize..6,
        ) {
            let mut builder = IndexBuilder::<u32>::new(32);
            for (doc, hashes) in (0u32..).zip(&sources) {
                builder.add_document(doc, hashes);
            }
            let index = builder.build();
            let budget = HitBudget { max_postings: usize::MAX, per_chunk };
            let mut found = hits_of(&index, &[&suspicious], budget).remove(0);
            found.sort_unstable();
            let expected = rarest_first_reference(&index, &suspicious, per_chunk * suspicious.len());
            proptest::prop_assert_eq!(found, expected);
        }

        #[test]
        fn a_budget_spent_on_all_hits_keeps_what_the_lookup_keeps(
            sources in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..30), 1..8),
            suspicious in proptest::collection::vec(0u64..40, 0..40),
            per_chunk in 0usize..6,
            max_postings in 1usize..12,
        ) {
            let mut builder = IndexBuilder::<u32>::new(32);
            for (doc, hashes) in (0u32..).zip(&sources) {
                builder.add_document(doc, hashes);
            }
            let index = builder.build();
            let budget = HitBudget { max_postings, per_chunk };
            let mut expected = hits_of(&index, &[&suspicious], budget).remove(0);
            expected.sort_unstable();
            let unbudgeted = HitBudget { max_postings, per_chunk: usize::MAX };
            let mut kept = hits_of(&index, &[&suspicious], unbudgeted).remove(0);
            keep_within_budget(&mut kept, &suspicious, budget);
            kept.sort_unstable();
            proptest::prop_assert_eq!(kept, expected);
        }

        #[test]
        fn lookups_in_small_passes_find_what_one_pass_finds(
            sources in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..30), 1..8),
            suspicious in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..40), 1..4),
            per_chunk in proptest::prop_oneof![proptest::strategy::Just(usize::MAX), 0usize..6],
            per_pass in 1usize..50,
        ) {
            let mut builder = IndexBuilder::<u32>::new(32);
            for (doc, hashes) in (0u32..).zip(&sources) {
                builder.add_document(doc, hashes);
            }
            let index = builder.build();
            let docs: Vec<&[u64]> = suspicious.iter().map(Vec::as_slice).collect();
            let budget = HitBudget { max_postings: usize::MAX, per_chunk };
            let sorted = |mut hits: Vec<Vec<Hit>>| {
                hits.iter_mut().for_each(|h| h.sort_unstable());
                hits
            };
            let in_passes = |per_pass| {
                let found = BatchLookup::default().found_in_passes(&index, &docs, budget, per_pass);
                found.into_iter().zip(&docs).map(|(found, hashes)| found.hits(&index, hashes)).collect()
            };
            let passes = sorted(in_passes(per_pass));
            let one = sorted(in_passes(usize::MAX));
            proptest::prop_assert_eq!(passes, one);
            let pieces = lookup_passes(&docs, per_pass);
            proptest::prop_assert!(pieces.iter().all(|pass| pass.iter().map(|(_, r)| r.len()).sum::<usize>() <= per_pass));
        }
    }

    #[test]
    fn many_lookups_across_tasks_find_everything() {
        // Multiplying by an odd constant modulo 2^40 is a bijection: distinct hashes.
        let mut builder = IndexBuilder::<u64>::new(40);
        let source: Vec<u64> =
            (0..200_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & ((1 << 40) - 1)).collect();
        builder.add_document(0, &source);
        let index = builder.build();
        let queries: Vec<u64> = source.iter().rev().copied().collect();
        let found = BatchLookup::default().found(&index, &[&queries], HitBudget::UNBOUNDED);
        let hits = found.into_iter().next().unwrap().hits(&index, &queries);
        assert_eq!(hits.len(), source.len());
        assert!(hits.iter().all(|h| h.chunk.suspicious + h.chunk.source == source.len() as u32 - 1));
    }
}
