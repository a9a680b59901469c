//! A long suspicious document aligned in parts (the `best` preset).
//!
//! The alignment stage holds about ten bytes per byte of the document it
//! aligns (its words, candidate and structure chunks, hits, sentences), so a
//! document of hundreds of megabytes aligned whole takes over ten times its
//! size. A document longer than [`PART_BYTES`] is cut after white space into
//! parts of that size, each sharing its last [`OVERLAP_BYTES`] with the next.
//! Each part is analysed, looked up and aligned as a document of its own;
//! its passages are moved to the document's offsets, and the two pieces of a
//! passage that runs across a cut (found in both parts, overlapping in the
//! shared text) are joined into one. A passage shorter than the overlap lies
//! whole in one part, so only passages longer than it are ever cut.
//!
//! The paper's method does not need this: it keeps exact valid intervals
//! over the whole document and already tokenizes a long one a window at a
//! time ([`crate::analysis::document`]).

use std::ops::Range;

use crate::analysis::document::{Analyzer, Document, cut_after_space};
use crate::analysis::read;
use crate::analysis::span::CharRange;
use crate::analysis::taboo::TabooChunks;
use crate::matching::overlap::Passage;

/// Bytes of text in a part of a long document.
pub(crate) const PART_BYTES: usize = 8 << 20;

/// Bytes a part shares with the next: longer than any passage the alignment
/// is meant to find whole within a part.
pub(crate) const OVERLAP_BYTES: usize = 512 << 10;

/// How a long document is cut into parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PartSizes {
    /// Bytes of a part; a document of at most this many is aligned whole.
    pub(crate) part: usize,
    /// Bytes a part shares with the next.
    pub(crate) overlap: usize,
}

impl Default for PartSizes {
    fn default() -> Self {
        PartSizes { part: PART_BYTES, overlap: OVERLAP_BYTES }
    }
}

/// One part of a long document's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// Its bytes in the text.
    pub(crate) bytes: Range<usize>,
    /// The character position of its first byte in the text.
    pub(crate) first_char: u32,
    /// The character where the next part begins (`u32::MAX` for the last):
    /// the part's chunks that start before it are counted as the part's, the
    /// others as the next part's.
    pub(crate) next_char: u32,
}

/// The parts of `text`: consecutive, each ending after white space (or at
/// the end) about `sizes.part` bytes after its start, each but the first
/// starting after white space about `sizes.overlap` bytes before the end of
/// the one before. A text of at most `sizes.part` bytes is one part.
pub(crate) fn parts(text: &str, sizes: PartSizes) -> Vec<Part> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let (mut start, mut first_char) = (0usize, 0u32);
    loop {
        if bytes.len() - start <= sizes.part {
            parts.push(Part { bytes: start..bytes.len(), first_char, next_char: u32::MAX });
            return parts;
        }
        let end = cut_after_space(bytes, start + sizes.part);
        // The next part starts within the overlap, never after this one's end
        // (a stretch without white space would leave a gap) nor at its start.
        let next = cut_after_space(bytes, end.saturating_sub(sizes.overlap).max(start + 1)).min(end);
        let next_char = first_char + chars(&text[start..next]);
        parts.push(Part { bytes: start..end, first_char, next_char });
        (start, first_char) = (next, next_char);
    }
}

/// Characters of `text`, as a character offset.
fn chars(text: &str) -> u32 {
    u32::try_from(text.chars().count()).unwrap_or(u32::MAX)
}

/// A part analysed as a document of its own.
pub(crate) struct AnalysedPart {
    /// The part's analysis (offsets from its start), taboo text blanked.
    pub(crate) document: Document,
    /// The regions its taboo chunks cover, in the whole text's offsets.
    pub(crate) taboo: Vec<CharRange>,
    /// Its chunks that start before the next part (the document's chunks,
    /// each counted in one part).
    pub(crate) own_chunks: u64,
}

impl Part {
    /// Analyses the part of `text` with `analyzer`, the text that `taboo`
    /// chunks cover blanked.
    pub(crate) fn analyse(&self, analyzer: &mut Analyzer<'_>, text: &str, taboo: &TabooChunks) -> AnalysedPart {
        let piece = &text[self.bytes.clone()];
        let hash = read::content_hash(piece.as_bytes());
        let mut document = analyzer.analyse_text(piece.to_string(), piece.len() as u64, hash);
        let taboo = document.blank_taboo(taboo).into_iter().map(|r| self.in_text(r)).collect();
        let own = |range: &&CharRange| self.in_text(**range).start < self.next_char;
        let own_chunks = document.chunks.ranges.iter().filter(own).count() as u64;
        AnalysedPart { document, taboo, own_chunks }
    }

    /// `range` of the part in the whole text's offsets.
    pub(crate) fn in_text(&self, range: CharRange) -> CharRange {
        CharRange::new(range.start + self.first_char, range.end + self.first_char)
    }

    /// A passage of the part in the whole text's offsets (its suspicious
    /// side moves, its source side stays).
    pub(crate) fn passage_in_text(&self, passage: &Passage) -> Passage {
        Passage { suspicious: self.in_text(passage.suspicious), ..*passage }
    }
}

/// The passages of all parts (each tagged with its part's number, in the
/// whole text's offsets) with the pieces of each passage cut by a part
/// boundary joined: two passages of different parts with the same source
/// document whose suspicious ranges overlap and whose source ranges overlap
/// are one passage found twice, and become the range covering both on each
/// side. Passages of one part are never joined: the part's overlap policy
/// already dealt with them. Sorted by source document, then position.
pub(crate) fn join_across_cuts(mut found: Vec<(usize, Passage)>) -> Vec<Passage> {
    found.sort_unstable_by_key(|&(part, p)| (p.source_doc, p.suspicious.start, p.suspicious.end, part));
    let mut joined: Vec<(usize, Passage)> = Vec::with_capacity(found.len());
    for (part, passage) in found {
        if let Some((last_part, last)) = joined.last_mut()
            && *last_part != part
            && last.source_doc == passage.source_doc
            && last.suspicious.overlaps(&passage.suspicious)
            && last.source.overlaps(&passage.source)
        {
            *last = Passage {
                suspicious: last.suspicious.cover(&passage.suspicious),
                source: last.source.cover(&passage.source),
                exact: last.exact && passage.exact,
                likeness: last.likeness.max(passage.likeness),
                ..*last
            };
            *last_part = part;
            continue;
        }
        joined.push((part, passage));
    }
    joined.into_iter().map(|(_, passage)| passage).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(source_doc: u32, suspicious: (u32, u32), source: (u32, u32)) -> Passage {
        let range = |(start, end)| CharRange::new(start, end);
        Passage { suspicious: range(suspicious), source_doc, source: range(source), exact: true, likeness: 900 }
    }

    #[test]
    fn a_short_text_is_one_part() {
        let sizes = PartSizes { part: 100, overlap: 10 };
        assert_eq!(parts("one two three", sizes), [Part { bytes: 0..13, first_char: 0, next_char: u32::MAX }]);
        assert_eq!(parts("", sizes), [Part { bytes: 0..0, first_char: 0, next_char: u32::MAX }]);
    }

    #[test]
    fn parts_end_after_white_space_and_overlap_the_next() {
        let text = "ab cd ef gh ij kl mn op qr st uv wx yz";
        let sizes = PartSizes { part: 10, overlap: 4 };
        let found = parts(text, sizes);
        assert_eq!(found[0].bytes, 0..12, "ends after the space that follows byte 10");
        assert_eq!(found[1].bytes.start, 9, "starts after the space at or after byte 12 - 4");
        for pair in found.windows(2) {
            assert!(pair[1].bytes.start < pair[0].bytes.end, "overlapping: {pair:?}");
            assert_eq!(text.as_bytes()[pair[1].bytes.start - 1], b' ');
            assert_eq!(pair[0].next_char, pair[1].bytes.start as u32, "ASCII: characters are bytes");
        }
        assert_eq!(found.last().unwrap().bytes.end, text.len());
    }

    #[test]
    fn part_offsets_count_characters_not_bytes() {
        // Two-byte letters: byte and character positions differ by half.
        let text = "čč řř žž šš ťť ďď ňň ěě ůů";
        let found = parts(text, PartSizes { part: 8, overlap: 3 });
        for part in &found {
            assert_eq!(part.first_char as usize, text[..part.bytes.start].chars().count());
        }
        assert!(found.len() > 2);
    }

    #[test]
    fn a_stretch_without_white_space_leaves_no_gap() {
        let text = format!("a {} b c", "x".repeat(50));
        let found = parts(&text, PartSizes { part: 4, overlap: 2 });
        for pair in found.windows(2) {
            assert!(pair[1].bytes.start <= pair[0].bytes.end && pair[1].bytes.start > pair[0].bytes.start);
        }
        assert_eq!(found.last().unwrap().bytes.end, text.len());
    }

    proptest::proptest! {
        #[test]
        fn parts_cover_the_text_in_order(
            words in proptest::collection::vec((1usize..12, 0usize..3), 0..200),
            part in 1usize..64,
            overlap in 0usize..32,
        ) {
            const LETTERS: [&str; 3] = ["a", "é", "日"];
            let text: String = words.iter().map(|&(n, l)| format!("{} ", LETTERS[l].repeat(n))).collect();
            let found = parts(&text, PartSizes { part, overlap });
            proptest::prop_assert_eq!(found[0].bytes.start, 0);
            proptest::prop_assert_eq!(found.last().unwrap().bytes.end, text.len());
            for pair in found.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                proptest::prop_assert!(b.bytes.start > a.bytes.start && b.bytes.start <= a.bytes.end);
                proptest::prop_assert_eq!(b.first_char as usize, text[..b.bytes.start].chars().count());
                proptest::prop_assert_eq!(a.next_char, b.first_char);
            }
        }
    }

    #[test]
    fn moved_passages_shift_the_suspicious_side_only() {
        let part = Part { bytes: 150..300, first_char: 100, next_char: 180 };
        let moved = part.passage_in_text(&passage(2, (5, 9), (40, 44)));
        assert_eq!(moved, passage(2, (105, 109), (40, 44)));
    }

    #[test]
    fn the_two_pieces_of_a_cut_passage_become_one() {
        let found = vec![
            (0, passage(1, (100, 200), (1000, 1100))),
            (1, passage(1, (150, 260), (1050, 1160))),
            (1, passage(1, (400, 500), (3000, 3100))),
        ];
        assert_eq!(
            join_across_cuts(found),
            [passage(1, (100, 260), (1000, 1160)), passage(1, (400, 500), (3000, 3100))]
        );
    }

    #[test]
    fn passages_of_one_part_other_sources_or_elsewhere_in_the_source_stay_apart() {
        let found = vec![
            (0, passage(1, (100, 200), (1000, 1100))),
            (0, passage(1, (150, 260), (1050, 1160))),
            (1, passage(2, (150, 260), (1050, 1160))),
            (1, passage(1, (190, 260), (5000, 5070))),
        ];
        assert_eq!(join_across_cuts(found.clone()).len(), 4);
    }

    #[test]
    fn a_piece_found_in_three_parts_is_joined_once() {
        let found = vec![
            (0, passage(3, (0, 120), (0, 120))),
            (1, passage(3, (100, 220), (100, 220))),
            (2, passage(3, (200, 300), (200, 300))),
        ];
        assert_eq!(join_across_cuts(found), [passage(3, (0, 300), (0, 300))]);
    }
}
