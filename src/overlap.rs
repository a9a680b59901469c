//! Post-processing: what to do with detected passages that overlap in the
//! suspicious document.

use crate::params::OverlapPolicy;
use crate::span::CharRange;

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
}

/// Applies `policy` to the passages of one suspicious document and sorts the
/// result by position in the suspicious document.
///
/// With [`OverlapPolicy::Largest`] passages are taken from the longest (in the
/// suspicious document; ties: longer source range, then lower document number,
/// then earlier position) and a passage is dropped when it overlaps one already
/// taken. With [`OverlapPolicy::KeepAll`] only exact duplicates are dropped.
pub fn resolve_overlaps(passages: &mut Vec<Passage>, policy: OverlapPolicy) {
    match policy {
        OverlapPolicy::KeepAll => {}
        OverlapPolicy::Largest => {
            passages.sort_unstable_by_key(|p| {
                (
                    std::cmp::Reverse(p.suspicious.len()),
                    std::cmp::Reverse(p.source.len()),
                    p.source_doc,
                    p.suspicious,
                    p.source,
                )
            });
            let mut kept: Vec<Passage> = Vec::with_capacity(passages.len());
            for passage in passages.drain(..) {
                if !kept.iter().any(|k| k.suspicious.overlaps(&passage.suspicious)) {
                    kept.push(passage);
                }
            }
            *passages = kept;
        }
    }
    passages.sort_unstable();
    passages.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(start: u32, end: u32, source_doc: u32) -> Passage {
        Passage { suspicious: CharRange::new(start, end), source_doc, source: CharRange::new(start, end) }
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
    fn keep_all_keeps_overlaps_and_drops_duplicates() {
        let mut passages = vec![passage(50, 300, 2), passage(0, 100, 1), passage(0, 100, 1)];
        resolve_overlaps(&mut passages, OverlapPolicy::KeepAll);
        assert_eq!(passages, vec![passage(0, 100, 1), passage(50, 300, 2)]);
    }
}
