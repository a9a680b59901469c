//! Valid intervals: the recursive algorithm of Kasprzak, Brandejs and Křipač
//! (PAN'09).
//!
//! Given the matching chunk pairs of a suspicious document D1 and a source document
//! D2, a *valid interval* of D1 is a run of D1's chunks whose first and last chunks
//! match, that holds at least `min_chunks` matching chunks, and in which
//! neighbouring matching chunks are separated by at most `max_gap` unmatched
//! chunks. Each valid interval of D1 must map to a valid interval of D2 as well:
//! the algorithm takes the matches inside the interval, swaps the roles of the two
//! documents and searches again, down to `depth` levels (PAN'09: 2, i.e. D1 then
//! D2). The matches that survive the last level form an [`IntervalPair`].

use crate::analysis::span::{CharRange, ChunkRanges};

/// A valid interval holds at least this many matching chunks (PAN'09: 20).
pub const DEFAULT_MIN_CHUNKS: usize = 20;
/// At most this many unmatched chunks between neighbouring matching chunks of a
/// valid interval (PAN'09: 49).
pub const DEFAULT_MAX_GAP: usize = 49;
/// Depth of the valid-interval recursion: 1 checks the suspicious document only,
/// 2 also the source document (PAN'09: 2).
pub const DEFAULT_DEPTH: usize = 2;

/// Valid-interval thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalParams {
    /// Minimum matching chunks in an interval.
    pub min_chunks: usize,
    /// Maximum unmatched chunks between neighbouring matching chunks.
    pub max_gap: usize,
    /// Recursion depth (1 or 2 and more: sides alternate at each level).
    pub depth: usize,
}

impl Default for IntervalParams {
    fn default() -> Self {
        IntervalParams { min_chunks: DEFAULT_MIN_CHUNKS, max_gap: DEFAULT_MAX_GAP, depth: DEFAULT_DEPTH }
    }
}

/// A chunk of the suspicious document and a chunk of the source document with the
/// same hash, by sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct ChunkMatch {
    /// Chunk sequence number in the suspicious document.
    pub suspicious: u32,
    /// Chunk sequence number in the source document.
    pub source: u32,
}

/// A valid interval on both sides: first and last chunk (inclusive) in the
/// suspicious and in the source document, and the matches it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct IntervalPair {
    /// First and last matching chunk in the suspicious document.
    pub suspicious: (u32, u32),
    /// First and last matching chunk in the source document.
    pub source: (u32, u32),
    /// Number of chunk matches in the interval.
    pub matches: usize,
}

impl IntervalPair {
    /// The characters the interval covers in the suspicious document (whose
    /// chunks are `this`) and in the source document (`source`); `None` when a
    /// chunk number is past the last chunk (chunks that do not belong to the
    /// intervals).
    pub fn char_ranges(
        &self,
        this: &(impl ChunkRanges + ?Sized),
        source: &(impl ChunkRanges + ?Sized),
    ) -> Option<(CharRange, CharRange)> {
        let (first, last) = self.suspicious;
        let (source_first, source_last) = self.source;
        Some((this.cover(first, last)?, source.cover(source_first, source_last)?))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Suspicious,
    Source,
}

impl Side {
    fn position(self, m: &ChunkMatch) -> u32 {
        match self {
            Side::Suspicious => m.suspicious,
            Side::Source => m.source,
        }
    }

    fn other(self) -> Side {
        match self {
            Side::Suspicious => Side::Source,
            Side::Source => Side::Suspicious,
        }
    }
}

/// Appends to `out` the valid interval pairs found among `matches` (reordered in
/// place), starting on the suspicious side, in order of their first suspicious
/// chunk.
pub fn valid_intervals(matches: &mut [ChunkMatch], params: &IntervalParams, out: &mut Vec<IntervalPair>) {
    let first = out.len();
    search(matches, Side::Suspicious, params.depth, params, out);
    out[first..].sort_unstable();
}

fn search(matches: &mut [ChunkMatch], side: Side, depth: usize, params: &IntervalParams, out: &mut Vec<IntervalPair>) {
    match side {
        Side::Suspicious => matches.sort_unstable_by_key(|m| (m.suspicious, m.source)),
        Side::Source => matches.sort_unstable_by_key(|m| (m.source, m.suspicious)),
    }
    let mut rest = matches;
    while !rest.is_empty() {
        let (run_len, distinct) = run_within_gap(rest, side, params.max_gap);
        let (run, tail) = rest.split_at_mut(run_len);
        if distinct >= params.min_chunks {
            if depth <= 1 {
                out.push(interval_pair(run));
            } else {
                search(run, side.other(), depth - 1, params, out);
            }
        }
        rest = tail;
    }
}

/// Length of the leading run of `sorted` (sorted by `side`) in which neighbouring
/// positions are at most `max_gap` unmatched chunks apart, and the number of
/// distinct positions in it.
fn run_within_gap(sorted: &[ChunkMatch], side: Side, max_gap: usize) -> (usize, usize) {
    let mut distinct = 1;
    for (i, pair) in sorted.windows(2).enumerate() {
        let (previous, next) = (side.position(&pair[0]), side.position(&pair[1]));
        let unmatched_between = (next - previous).saturating_sub(1);
        if unmatched_between as usize > max_gap {
            return (i + 1, distinct);
        }
        if next != previous {
            distinct += 1;
        }
    }
    (sorted.len(), distinct)
}

fn interval_pair(run: &[ChunkMatch]) -> IntervalPair {
    let bounds = |side: Side| {
        let positions = run.iter().map(|m| side.position(m));
        (positions.clone().min().unwrap_or(0), positions.max().unwrap_or(0))
    };
    IntervalPair { suspicious: bounds(Side::Suspicious), source: bounds(Side::Source), matches: run.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> IntervalParams {
        IntervalParams::default()
    }

    fn find(matches: &[(u32, u32)], params: IntervalParams) -> Vec<IntervalPair> {
        let mut matches: Vec<_> =
            matches.iter().map(|&(suspicious, source)| ChunkMatch { suspicious, source }).collect();
        let mut out = Vec::new();
        valid_intervals(&mut matches, &params, &mut out);
        out
    }

    /// `count` matches starting at (a, b), both sides advancing by `step`.
    fn diagonal(a: u32, b: u32, count: u32, step: u32) -> Vec<(u32, u32)> {
        (0..count).map(|i| (a + i * step, b + i * step)).collect()
    }

    #[test]
    fn twenty_matching_chunks_make_an_interval_nineteen_do_not() {
        assert_eq!(
            find(&diagonal(100, 500, 20, 1), params()),
            [IntervalPair { suspicious: (100, 119), source: (500, 519), matches: 20 }]
        );
        assert!(find(&diagonal(100, 500, 19, 1), params()).is_empty());
    }

    #[test]
    fn a_gap_of_49_unmatched_chunks_joins_a_gap_of_50_splits() {
        // Ten matches, 49 unmatched chunks, ten more: one interval of 20.
        let mut joined = diagonal(0, 0, 10, 1);
        joined.extend(diagonal(59, 59, 10, 1));
        assert_eq!(find(&joined, params()), [IntervalPair { suspicious: (0, 68), source: (0, 68), matches: 20 }]);
        // With 50 unmatched chunks between them neither half reaches 20.
        let mut split = diagonal(0, 0, 10, 1);
        split.extend(diagonal(60, 60, 10, 1));
        assert!(find(&split, params()).is_empty());
        // Sparse matches every 50th chunk (49 unmatched between) still form one run.
        assert_eq!(find(&diagonal(0, 0, 20, 50), params()).len(), 1);
        assert!(find(&diagonal(0, 0, 20, 51), params()).is_empty());
    }

    #[test]
    fn two_separate_intervals_are_both_found_in_order() {
        let mut matches = diagonal(1000, 0, 25, 1);
        matches.extend(diagonal(0, 3000, 30, 1));
        let found = find(&matches, params());
        assert_eq!(found.len(), 2);
        assert_eq!(found[0], IntervalPair { suspicious: (0, 29), source: (3000, 3029), matches: 30 });
        assert_eq!(found[1], IntervalPair { suspicious: (1000, 1024), source: (0, 24), matches: 25 });
    }

    #[test]
    fn an_interval_valid_in_the_suspicious_document_must_be_valid_in_the_source() {
        // 30 consecutive suspicious chunks whose matches are scattered over the
        // source with gaps of 100: valid in D1, not in D2.
        let scattered: Vec<_> = (0..30).map(|i| (i, i * 100)).collect();
        assert!(find(&scattered, params()).is_empty());
        // With depth 1 only the suspicious side is checked.
        let shallow = IntervalParams { depth: 1, ..params() };
        assert_eq!(find(&scattered, shallow), [IntervalPair { suspicious: (0, 29), source: (0, 2900), matches: 30 }]);
    }

    #[test]
    fn the_source_side_splits_an_interval_into_its_valid_parts() {
        // One suspicious run of 45 chunks that maps to two distant source places:
        // 25 chunks to 0.., 20 chunks to 5000.. — two pairs; a third part of 10
        // chunks mapped elsewhere is too short on the source side.
        let mut matches = diagonal(0, 0, 25, 1);
        matches.extend(diagonal(25, 5000, 20, 1));
        matches.extend(diagonal(45, 9000, 10, 1));
        let found = find(&matches, params());
        assert_eq!(
            found,
            [
                IntervalPair { suspicious: (0, 24), source: (0, 24), matches: 25 },
                IntervalPair { suspicious: (25, 44), source: (5000, 5019), matches: 20 },
            ]
        );
    }

    #[test]
    fn repeated_chunks_count_once_per_position() {
        // 19 distinct suspicious positions, one of which matches twice: not enough.
        let mut matches = diagonal(0, 0, 19, 1);
        matches.push((5, 300));
        assert!(find(&matches, IntervalParams { depth: 1, ..params() }).is_empty());
        // 20 distinct positions with a repeated source match: one interval whose
        // source side is split off the stray match by the second level.
        let mut matches = diagonal(0, 0, 20, 1);
        matches.push((5, 300));
        assert_eq!(find(&matches, params()), [IntervalPair { suspicious: (0, 19), source: (0, 19), matches: 20 }]);
    }

    #[test]
    fn empty_and_thresholds_from_parameters() {
        assert!(find(&[], params()).is_empty());
        let loose = IntervalParams { min_chunks: 3, max_gap: 0, depth: 2 };
        assert_eq!(find(&[(0, 0), (1, 1), (2, 2), (4, 4)], loose).len(), 1);
        assert!(find(&[(0, 0), (2, 2), (4, 4)], loose).is_empty());
    }
}
