//! Post-processing: what to do with detected passages that overlap in the
//! suspicious document.

use crate::analysis::span::CharRange;

/// What to do with passages that overlap in the suspicious document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlapPolicy {
    /// Keep only the largest of overlapping passages (PAN mode).
    Largest,
    /// Keep the largest, passages bounded by verbatim runs first, and cut the
    /// overlapped part out of the others (the `best` preset: a neighbouring
    /// passage that runs a sentence too far must not remove or cut a case);
    /// between sources, the passage with the most alike characters first
    /// (length times [`Passage::likeness`]), so that a long, loosely alike
    /// passage of one source does not take a closer copy's place; [`Twins`]
    /// may both keep a stretch.
    Trim,
    /// Keep every passage (archive mode).
    KeepAll,
}

/// What [`OverlapPolicy::Trim`] does with *twins*: passages of two source
/// documents over the same stretch of the suspicious one, as alike as each
/// other (within [`TWIN_LIKENESS_TOLERANCE`]), because both sources hold the
/// text (web pages copied from one another).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Twins {
    /// Both are kept: in full search a reader learns every source that holds
    /// the text. pan13-ta-train's full search 0.9082 -> 0.9099 (no
    /// obfuscation 0.9874 -> 0.9903: verbatim cases had gone to the copy of
    /// their source); dev-en, Clough's answers, the King James Bible corpus,
    /// the six language corpora and the independent corpora unchanged.
    Kept,
    /// One of them keeps it (the longer source range, then the source first
    /// in name order): with the pairs given
    /// (PAN's protocol) only the listed pair that the truth names counts, and
    /// keeping both cost pan13-ta-train's translations 0.0019 of precision.
    Dropped,
}

/// Twins' likeness may fall short of each other's by this share: each pair is
/// measured with the idf of its own two documents, so one text in a page and
/// in a longer page that holds it measures a little apart. Measured on
/// 2026-11-30 against equal likeness: pan13-ta-train's full search 0.9175 ->
/// 0.9185 (no obfuscation 0.9894 -> 0.9898, random 0.9013 -> 0.9022,
/// translation 0.8728 -> 0.8750, summary 0.8216 -> 0.8221; pairs given are
/// not affected); within 3 %, 0.9184; within 10 %, 0.9184 (precision 0.9728
/// -> 0.9725); dev-en, Clough's answers, the King James Bible corpus (seeds
/// 2026-2028), the six language corpora and the independent corpora
/// unchanged. Passages that only overlap are no twins: keeping those whose
/// stretches share 80 % and whose likeness is within 10 % took 0.0056 of
/// precision from the Bible corpus (seed 2028).
pub const TWIN_LIKENESS_TOLERANCE: f64 = 0.05;

impl Twins {
    /// What becomes of twins in full search, or with the pairs given (PAN's
    /// protocol).
    pub fn when_pairs_given(given: bool) -> Twins {
        if given { Twins::Dropped } else { Twins::Kept }
    }
}

/// A detected passage: a range of the suspicious document and the range of a
/// source document it was copied from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Passage {
    /// Character range in the suspicious document.
    pub suspicious: CharRange,
    /// Source document number.
    pub source_doc: u32,
    /// Character range in the source document.
    pub source: CharRange,
    /// Bounded by the words it shares verbatim with its source (the
    /// alignment's verbatim chains): [`OverlapPolicy::Trim`] takes such
    /// passages first, so that a neighbour whose last sentence runs into a
    /// copy cannot cut the copy's start.
    pub exact: bool,
    /// How alike its two sides are, in thousandths: how much of the
    /// suspicious side the source side holds times their tf-idf cosine
    /// ([`crate::align::Aligner::likeness`]), or [`Passage::UNMEASURED`] for
    /// the paper's method, whose passages are all equally made of shared
    /// chunks.
    /// Between sources, [`OverlapPolicy::Trim`] weighs a passage's length by it.
    pub likeness: u16,
}

/// Applies `policy` to the passages of one suspicious document and sorts the
/// result by position in the suspicious document.
///
/// With [`OverlapPolicy::Largest`] passages are taken from the longest (in the
/// suspicious document; ties: longer source range, then lower document number,
/// then earlier position) and a passage is dropped when it overlaps one already
/// taken. [`OverlapPolicy::Trim`] cuts a passage down to its longest stretch
/// that no passage taken before covers instead, dropping it only when that is
/// less than half of it, and takes [`Passage::exact`] passages first. It
/// resolves each source document's passages on their own first, in the same
/// order (a summary before the pieces of it that another candidate region
/// found), then those of different sources, the ones with the most alike
/// characters first (length times [`Passage::likeness`]): where two sources
/// claim a stretch, the one whose text is more like it keeps it, not the one
/// whose passage runs further. With [`OverlapPolicy::KeepAll`] only
/// duplicates (the same ranges of the same documents) are dropped. `twins`
/// says whether [`OverlapPolicy::Trim`] keeps [`Twins`].
pub fn resolve_overlaps(passages: &mut Vec<Passage>, policy: OverlapPolicy, twins: Twins) {
    match policy {
        OverlapPolicy::KeepAll => {}
        OverlapPolicy::Largest => take_in_order(passages, Order::Largest, Twins::Dropped),
        OverlapPolicy::Trim => {
            passages.sort_unstable_by_key(|p| p.source_doc);
            let mut resolved = Vec::with_capacity(passages.len());
            for same_source in passages.chunk_by(|a, b| a.source_doc == b.source_doc) {
                let mut group = same_source.to_vec();
                take_in_order(&mut group, Order::ExactThenLargest, Twins::Dropped);
                resolved.append(&mut group);
            }
            take_in_order(&mut resolved, Order::ExactThenMostAlike, twins);
            *passages = resolved;
        }
    }
    passages.sort_unstable();
    passages.dedup_by_key(|p| (p.suspicious, p.source_doc, p.source, p.exact));
}

/// The order in which [`take_in_order`] takes passages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// The longest first; an overlapped passage is dropped.
    Largest,
    /// Exact passages first, then the longest; an overlapped passage is cut.
    ExactThenLargest,
    /// Exact passages first, then those with the most alike characters; an
    /// overlapped passage is cut.
    ExactThenMostAlike,
}

/// Takes `passages` one by one in `order`, each unless it overlaps one taken
/// before; with an order that cuts, an overlapped passage is cut to its
/// longest free stretch and kept when that is at least half of it. With
/// [`Twins::Kept`] a passage is not overlapped by its twin.
fn take_in_order(passages: &mut Vec<Passage>, order: Order, twins: Twins) {
    let cuts = order != Order::Largest;
    passages.sort_unstable_by_key(|p| {
        (
            std::cmp::Reverse(cuts && p.exact),
            std::cmp::Reverse(if order == Order::ExactThenMostAlike { p.alike_chars() } else { 0 }),
            std::cmp::Reverse(p.suspicious.len()),
            std::cmp::Reverse(p.source.len()),
            p.source_doc,
            p.suspicious,
            p.source,
        )
    });
    let mut kept: Vec<Passage> = Vec::with_capacity(passages.len());
    for passage in passages.drain(..) {
        let overlapped = kept
            .iter()
            .any(|k| k.suspicious.overlaps(&passage.suspicious) && !(twins == Twins::Kept && k.is_twin_of(&passage)));
        if !overlapped {
            kept.push(passage);
        } else if cuts {
            let free = longest_uncovered(passage.suspicious, kept.iter().map(|k| k.suspicious));
            if free.len() * 2 >= passage.suspicious.len() {
                kept.push(passage.restricted_to(free));
            }
        }
    }
    *passages = kept;
}

/// The longest part of `range` that none of `taken` overlaps (the first of
/// equally long parts; empty when all of it is covered).
fn longest_uncovered(range: CharRange, taken: impl Iterator<Item = CharRange>) -> CharRange {
    let mut covering: Vec<CharRange> = taken.filter(|t| t.overlaps(&range)).collect();
    covering.sort_unstable_by_key(|t| t.start);
    let mut best = CharRange::new(range.start, range.start);
    let mut free_from = range.start;
    for taken in covering.iter().chain(std::iter::once(&CharRange::new(range.end, range.end))) {
        if taken.start > free_from {
            let part = CharRange::new(free_from, taken.start.min(range.end));
            if part.len() > best.len() {
                best = part;
            }
        }
        free_from = free_from.max(taken.end).min(range.end);
    }
    best
}

impl Passage {
    /// [`Passage::likeness`] of a passage that was not measured.
    pub const UNMEASURED: u16 = 1000;

    /// Whether `other` is its twin ([`Twins`]): a passage of another source
    /// over the same stretch, as exact and as alike, within
    /// [`TWIN_LIKENESS_TOLERANCE`] (the paper's passages are all equally
    /// alike: of two sources, chunks over the same stretch).
    fn is_twin_of(&self, other: &Passage) -> bool {
        let (lower, higher) = (self.likeness.min(other.likeness), self.likeness.max(other.likeness));
        self.source_doc != other.source_doc
            && self.suspicious == other.suspicious
            && self.exact == other.exact
            && f64::from(lower) >= (1.0 - TWIN_LIKENESS_TOLERANCE) * f64::from(higher)
    }

    /// Its length in the suspicious document times its likeness.
    fn alike_chars(&self) -> u64 {
        u64::from(self.suspicious.len()) * u64::from(self.likeness)
    }

    /// The passage cut to `part` of its suspicious range, with the source range
    /// cut in proportion (the two sides of a passage run in parallel).
    fn restricted_to(&self, part: CharRange) -> Passage {
        let (this, source) = (self.suspicious, self.source);
        let scale = |at: u32| {
            let share = f64::from(at - this.start) / f64::from(this.len().max(1));
            source.start + (share * f64::from(source.len())).round() as u32
        };
        Passage { suspicious: part, source: CharRange::new(scale(part.start), scale(part.end)), ..*self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(start: u32, end: u32, source_doc: u32) -> Passage {
        Passage {
            suspicious: CharRange::new(start, end),
            source_doc,
            source: CharRange::new(start, end),
            exact: false,
            likeness: Passage::UNMEASURED,
        }
    }

    #[test]
    fn largest_keeps_the_longest_of_overlapping_passages() {
        let mut passages = vec![passage(0, 100, 1), passage(50, 300, 2), passage(290, 400, 3), passage(500, 600, 4)];
        resolve_overlaps(&mut passages, OverlapPolicy::Largest, Twins::Dropped);
        assert_eq!(passages, vec![passage(50, 300, 2), passage(500, 600, 4)]);
    }

    #[test]
    fn touching_passages_do_not_overlap() {
        let mut passages = vec![passage(100, 200, 2), passage(0, 100, 1)];
        resolve_overlaps(&mut passages, OverlapPolicy::Largest, Twins::Dropped);
        assert_eq!(passages, vec![passage(0, 100, 1), passage(100, 200, 2)]);
    }

    #[test]
    fn equal_lengths_break_ties_by_document() {
        let mut passages = vec![passage(0, 100, 7), passage(0, 100, 3)];
        resolve_overlaps(&mut passages, OverlapPolicy::Largest, Twins::Dropped);
        assert_eq!(passages, vec![passage(0, 100, 3)]);
    }

    #[test]
    fn trim_cuts_overlapped_passages_to_their_free_part() {
        let mut passages = vec![
            passage(0, 1000, 1),
            passage(1500, 2100, 4),
            // Overlaps the first by 100 of its 400 characters: cut to 1000..1300,
            // and its source range in proportion.
            Passage { source: CharRange::new(5000, 5800), ..passage(900, 1300, 2) },
            // Covered by more than half: dropped.
            passage(600, 1100, 3),
            // Both ends covered once the others are taken: the middle is kept.
            passage(1200, 1600, 5),
        ];
        resolve_overlaps(&mut passages, OverlapPolicy::Trim, Twins::Dropped);
        let expected = vec![
            passage(0, 1000, 1),
            Passage { source: CharRange::new(5200, 5800), ..passage(1000, 1300, 2) },
            passage(1300, 1500, 5),
            passage(1500, 2100, 4),
        ];
        assert_eq!(passages, expected);
    }

    #[test]
    fn trim_takes_exact_passages_first_and_largest_ignores_exactness() {
        // A longer neighbour runs 100 characters into a verbatim copy.
        let neighbour = passage(0, 1100, 1);
        let copy = Passage { exact: true, ..passage(1000, 1500, 2) };
        let mut trimmed = vec![neighbour, copy];
        resolve_overlaps(&mut trimmed, OverlapPolicy::Trim, Twins::Dropped);
        assert_eq!(trimmed, vec![passage(0, 1000, 1), copy]);
        let mut largest = vec![neighbour, copy];
        resolve_overlaps(&mut largest, OverlapPolicy::Largest, Twins::Dropped);
        assert_eq!(largest, vec![neighbour]);
    }

    #[test]
    fn trim_takes_the_passage_with_more_alike_characters_first() {
        // A long passage loosely alike to its source (1000 × 0.3) runs over a
        // shorter one of another source, closely alike (400 × 0.9).
        let loose = Passage { likeness: 300, ..passage(0, 1000, 1) };
        let close = Passage { likeness: 900, ..passage(600, 1000, 2) };
        let mut trimmed = vec![loose, close];
        resolve_overlaps(&mut trimmed, OverlapPolicy::Trim, Twins::Dropped);
        assert_eq!(trimmed, vec![Passage { likeness: 300, ..passage(0, 600, 1) }, close]);
        // Less alike characters (1000 × 0.3 > 400 × 0.7): cut, more than half covered.
        let fair = Passage { likeness: 700, ..close };
        let mut trimmed = vec![loose, fair];
        resolve_overlaps(&mut trimmed, OverlapPolicy::Trim, Twins::Dropped);
        assert_eq!(trimmed, vec![loose]);
        let mut largest = vec![loose, close];
        resolve_overlaps(&mut largest, OverlapPolicy::Largest, Twins::Dropped);
        assert_eq!(largest, vec![loose], "the largest, however alike");
    }

    #[test]
    fn within_one_source_trim_takes_the_largest_however_alike() {
        // A summary against the whole source is little alike to it as a whole;
        // a piece of it that another candidate region found is more so.
        let summary = Passage { source: CharRange::new(0, 9000), likeness: 300, ..passage(0, 600, 1) };
        let piece = Passage { likeness: 900, ..passage(100, 400, 1) };
        let mut trimmed = vec![piece, summary];
        resolve_overlaps(&mut trimmed, OverlapPolicy::Trim, Twins::Dropped);
        assert_eq!(trimmed, vec![summary]);
    }

    #[test]
    fn trim_keeps_twins_of_other_sources_when_asked() {
        let copy = Passage { likeness: 900, ..passage(100, 400, 1) };
        let twin = Passage { source_doc: 2, ..copy };
        // Another page holding the text, measured with its own idf.
        let measured_apart = Passage { source_doc: 4, likeness: 860, ..copy };
        let looser = Passage { source_doc: 3, likeness: 800, ..copy };
        let all = vec![looser, twin, measured_apart, copy];
        let mut kept = all.clone();
        resolve_overlaps(&mut kept, OverlapPolicy::Trim, Twins::Kept);
        assert_eq!(kept, vec![copy, twin, measured_apart]);
        let mut one = all;
        resolve_overlaps(&mut one, OverlapPolicy::Trim, Twins::Dropped);
        assert_eq!(one, vec![copy]);
        // Passages over different stretches are no twins, however alike.
        let mut shifted = vec![copy, Passage { suspicious: CharRange::new(101, 400), ..twin }];
        resolve_overlaps(&mut shifted, OverlapPolicy::Trim, Twins::Kept);
        assert_eq!(shifted, vec![copy]);
    }

    #[test]
    fn keep_all_keeps_overlaps_and_drops_duplicates() {
        let measured_twice = Passage { likeness: 500, ..passage(0, 100, 1) };
        let mut passages = vec![passage(50, 300, 2), passage(0, 100, 1), passage(0, 100, 1), measured_twice];
        resolve_overlaps(&mut passages, OverlapPolicy::KeepAll, Twins::Dropped);
        assert_eq!(passages, vec![measured_twice, passage(50, 300, 2)], "the same ranges once, however alike");
    }
}
