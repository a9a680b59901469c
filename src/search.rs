//! Matching: look every chunk of a suspicious document up in the index, group the
//! hits per source document, and keep the source documents that share enough
//! chunks to be worth the valid-interval search.

use crate::index::{ChunkIndex, ChunkKey};
use crate::intervals::ChunkMatch;

/// Lookups ahead whose directory entry is prefetched; the postings bucket is
/// prefetched half as far ahead, when its directory entry has arrived.
const PREFETCH_DISTANCE: usize = 32;

/// A chunk of the suspicious document found in a source document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Hit {
    source_doc: u32,
    chunk: ChunkMatch,
}

/// Finds candidate source documents for one suspicious document at a time;
/// reuse one per thread so the hit buffers are allocated once.
#[derive(Debug, Default)]
pub struct Matcher {
    hits: Vec<Hit>,
    matches: Vec<ChunkMatch>,
}

impl Matcher {
    /// Looks up `hashes` (the suspicious document's chunks, by sequence number) and
    /// calls `on_candidate(source_doc, matches)` for each source document that
    /// shares at least `min_common` chunks with it, in order of document number.
    /// `matches` holds every (suspicious chunk, source chunk) pair with equal
    /// hashes, repeated occurrences included; a chunk counts once towards
    /// `min_common` however often it repeats.
    pub fn for_each_candidate<K: ChunkKey>(
        &mut self,
        index: &ChunkIndex<K>,
        hashes: &[u64],
        min_common: usize,
        mut on_candidate: impl FnMut(u32, &mut [ChunkMatch]),
    ) {
        self.hits.clear();
        for (&hash, suspicious) in hashes.iter().zip(0u32..) {
            let ahead = suspicious as usize + PREFETCH_DISTANCE;
            if let Some(&later) = hashes.get(ahead) {
                index.prefetch_directory(later);
            }
            if let Some(&sooner) = hashes.get(ahead - PREFETCH_DISTANCE / 2) {
                index.prefetch_bucket(sooner);
            }
            let postings = index.lookup(hash);
            self.hits.extend(
                postings.iter().map(|p| Hit { source_doc: p.doc, chunk: ChunkMatch { suspicious, source: p.seq } }),
            );
        }
        self.hits.sort_unstable();
        for group in self.hits.chunk_by(|a, b| a.source_doc == b.source_doc) {
            // Sorted by (suspicious, source) inside the group: count distinct chunks.
            let common = 1 + group.windows(2).filter(|w| w[0].chunk.suspicious != w[1].chunk.suspicious).count();
            if common >= min_common {
                self.matches.clear();
                self.matches.extend(group.iter().map(|hit| hit.chunk));
                on_candidate(group[0].source_doc, &mut self.matches);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexBuilder;

    #[test]
    fn groups_hits_per_source_and_applies_the_threshold() {
        let mut builder = IndexBuilder::<u32>::new(32);
        builder.add_document(0, &[1, 2, 3, 4, 2]);
        builder.add_document(1, &[9, 9, 8]);
        builder.add_document(2, &[7]);
        let index = builder.build();
        let mut found = Vec::new();
        Matcher::default().for_each_candidate(&index, &[2, 3, 9, 7, 5], 2, |doc, matches| {
            found.push((doc, matches.to_vec()));
        });
        let m = |suspicious, source| ChunkMatch { suspicious, source };
        // Document 0 shares chunks 2 (twice in the source) and 3; document 1 shares
        // only chunk 9 (one suspicious chunk, two occurrences): below 2; document 2
        // shares one chunk.
        assert_eq!(found, vec![(0, vec![m(0, 1), m(0, 4), m(1, 2)])]);
        let mut all = Vec::new();
        Matcher::default().for_each_candidate(&index, &[2, 3, 9, 7, 5], 1, |doc, _| all.push(doc));
        assert_eq!(all, [0, 1, 2]);
    }
}
