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
    /// passage that runs a sentence too far must not remove or cut a case).
    Trim,
    /// Keep every passage (archive mode).
    KeepAll,
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
}

/// Applies `policy` to the passages of one suspicious document and sorts the
/// result by position in the suspicious document.
///
/// With [`OverlapPolicy::Largest`] passages are taken from the longest (in the
/// suspicious document; ties: longer source range, then lower document number,
/// then earlier position) and a passage is dropped when it overlaps one already
/// taken. [`OverlapPolicy::Trim`] takes them in the same order but cuts a
/// passage down to its longest stretch that no passage taken before covers,
/// and drops it only when that is less than half of it. With
/// [`OverlapPolicy::KeepAll`] only exact duplicates are dropped. Under
/// `Trim`, [`Passage::exact`] passages come before all others.
pub fn resolve_overlaps(passages: &mut Vec<Passage>, policy: OverlapPolicy) {
    match policy {
        OverlapPolicy::KeepAll => {}
        OverlapPolicy::Largest | OverlapPolicy::Trim => {
            passages.sort_unstable_by_key(|p| {
                (
                    std::cmp::Reverse(policy == OverlapPolicy::Trim && p.exact),
                    std::cmp::Reverse(p.suspicious.len()),
                    std::cmp::Reverse(p.source.len()),
                    p.source_doc,
                    p.suspicious,
                    p.source,
                )
            });
            let mut kept: Vec<Passage> = Vec::with_capacity(passages.len());
            for passage in passages.drain(..) {
                let overlapped = kept.iter().any(|k| k.suspicious.overlaps(&passage.suspicious));
                if !overlapped {
                    kept.push(passage);
                } else if policy == OverlapPolicy::Trim {
                    let free = longest_uncovered(passage.suspicious, kept.iter().map(|k| k.suspicious));
                    if free.len() * 2 >= passage.suspicious.len() {
                        kept.push(passage.restricted_to(free));
                    }
                }
            }
            *passages = kept;
        }
    }
    passages.sort_unstable();
    passages.dedup();
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
    /// The passage cut to `part` of its suspicious range, with the source range
    /// cut in proportion (the two sides of a passage run in parallel).
    fn restricted_to(&self, part: CharRange) -> Passage {
        let (this, source) = (self.suspicious, self.source);
        let scale = |at: u32| {
            let share = f64::from(at - this.start) / f64::from(this.len().max(1));
            source.start + (share * f64::from(source.len())).round() as u32
        };
        Passage {
            suspicious: part,
            source_doc: self.source_doc,
            source: CharRange::new(scale(part.start), scale(part.end)),
            exact: self.exact,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(start: u32, end: u32, source_doc: u32) -> Passage {
        Passage { suspicious: CharRange::new(start, end), source_doc, source: CharRange::new(start, end), exact: false }
    }

    #[test]
    fn largest_keeps_the_longest_of_overlapping_passages() {
        let mut passages = vec![passage(0, 100, 1), passage(50, 300, 2), passage(290, 400, 3), passage(500, 600, 4)];
        resolve_overlaps(&mut passages, OverlapPolicy::Largest);
        assert_eq!(passages, vec![passage(50, 300, 2), passage(500, 600, 4)]);
    }

    #[test]
    fn touching_passages_do_not_overlap() {
        let mut passages = vec![passage(100, 200, 2), passage(0, 100, 1)];
        resolve_overlaps(&mut passages, OverlapPolicy::Largest);
        assert_eq!(passages, vec![passage(0, 100, 1), passage(100, 200, 2)]);
    }

    #[test]
    fn equal_lengths_break_ties_by_document() {
        let mut passages = vec![passage(0, 100, 7), passage(0, 100, 3)];
        resolve_overlaps(&mut passages, OverlapPolicy::Largest);
        assert_eq!(passages, vec![passage(0, 100, 3)]);
    }

    #[test]
    fn trim_cuts_overlapped_passages_to_their_free_part() {
        let mut passages = vec![
            passage(0, 1000, 1),
            passage(1500, 2100, 4),
            // Overlaps the first by 100 of its 400 characters: cut to 1000..1300,
            // and its source range in proportion.
            Passage {
                suspicious: CharRange::new(900, 1300),
                source_doc: 2,
                source: CharRange::new(5000, 5800),
                exact: false,
            },
            // Covered by more than half: dropped.
            passage(600, 1100, 3),
            // Both ends covered once the others are taken: the middle is kept.
            passage(1200, 1600, 5),
        ];
        resolve_overlaps(&mut passages, OverlapPolicy::Trim);
        let expected = vec![
            passage(0, 1000, 1),
            Passage {
                suspicious: CharRange::new(1000, 1300),
                source_doc: 2,
                source: CharRange::new(5200, 5800),
                exact: false,
            },
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
        resolve_overlaps(&mut trimmed, OverlapPolicy::Trim);
        assert_eq!(trimmed, vec![passage(0, 1000, 1), copy]);
        let mut largest = vec![neighbour, copy];
        resolve_overlaps(&mut largest, OverlapPolicy::Largest);
        assert_eq!(largest, vec![neighbour]);
    }

    #[test]
    fn keep_all_keeps_overlaps_and_drops_duplicates() {
        let mut passages = vec![passage(50, 300, 2), passage(0, 100, 1), passage(0, 100, 1)];
        resolve_overlaps(&mut passages, OverlapPolicy::KeepAll);
        assert_eq!(passages, vec![passage(0, 100, 1), passage(50, 300, 2)]);
    }
}
