//! Meaning-level alignment (issue 63): sentence pairs whose embeddings
//! ([`crate::embed`], `detect --model`) are close seed passages even where
//! they share few words, as in passages a language model rewrote.
//!
//! The model looks only where words fail: at sentence pairs that no passage
//! covers ([`covered`]), that share some words all the same
//! ([`SEMANTIC_CANDIDATE_SIMILARITY`]) and lie beside another such pair
//! ([`keep_in_runs`]). Only their sentences are embedded, once each per
//! pair and from the cache where they were before
//! ([`keep_close_in_meaning`]); a pair where the model finds nothing keeps
//! its passages as they were.
//!
//! The seeds are clustered into fragments as word seeds are
//! ([`extend`](mod@crate::align::extend), with no tf-idf cosine asked of the
//! whole), and a fragment long enough and seeded enough is a passage from its
//! first sentence's first character to its last one's last, on both sides.
//! A passage found by words on the same stretch of both sides (or next to
//! it) is extended over it; one of another stretch of the source keeps its
//! place.

use crate::align::extend::{ExtendParams, Pair, extend};
use crate::align::params::AlignParams;
use crate::align::seed::Seed;
use crate::align::sentences::Sentences;
use crate::align::{ADJACENT_SOURCE_GAP, ADJACENT_SUSPICIOUS_GAP, AlignedPassage, covering};
use crate::analysis::span::{CharRange, union_len};
use crate::embed::{Embedder, cosine};

/// Least tf-idf cosine (with the pair's idf) of a sentence pair that no
/// passage covers for its embeddings to be compared: the model is slow (some
/// 20 sentences a second a core with all-MiniLM-L6-v2), and a rewrite keeps
/// some of its source's words. Measured on 2026-12-08 with the pairs given,
/// together with [`SEMANTIC_CANDIDATE_REACH`] (reach 2 unless said): on 200
/// pairs of pan13-ta-train (40 of each sub-corpus) any shared word made
/// 19,123 sentences to encode (reach 0: no neighbour asked), 0.05 11,384,
/// 0.1 2,372, 0.15 605; pan25-spotcheck-dev's plagdet 0.6120, 0.6137,
/// 0.6147, 0.6122 (0.15 with reach 1: 366 sentences, 0.5992).
pub const SEMANTIC_CANDIDATE_SIMILARITY: f32 = 0.15;

/// A candidate sentence pair ([`SEMANTIC_CANDIDATE_SIMILARITY`]) is compared
/// only when another pairs a sentence within this many of each of its own
/// (another suspicious sentence): a passage found by meaning takes two
/// seeds, or one twice as long ([`semantic_passages`]).
pub const SEMANTIC_CANDIDATE_REACH: u32 = 2;

/// Keeps of `candidates` (sentence pairs ordered by suspicious sentence)
/// those beside another: one whose suspicious sentence is another within
/// `reach` sentences of its own, and whose source sentence is within `reach`
/// of its own.
pub fn keep_in_runs(candidates: &mut Vec<Seed>, reach: u32) {
    let sorted: Vec<(u32, u32)> = candidates.iter().map(|s| (s.suspicious, s.source)).collect();
    debug_assert!(sorted.is_sorted());
    let near = |&Seed { suspicious: i, source: j, .. }: &Seed| {
        let first = sorted.partition_point(|&(a, _)| a < i.saturating_sub(reach));
        sorted[first..].iter().take_while(|&&(a, _)| a <= i + reach).any(|&(a, b)| a != i && b.abs_diff(j) <= reach)
    };
    candidates.retain(near);
}

/// Keeps of `candidates` (sentence pairs of `suspicious` and `source`) those
/// whose embeddings' cosine reaches `min_cosine`. Each sentence they name is
/// embedded once, in one batch, by `embedder` (from its cache where it can);
/// none is kept when the sentences kept no texts or the model failed (the
/// embedder keeps the failure for the run to report).
pub fn keep_close_in_meaning(
    embedder: &Embedder,
    suspicious: &Sentences,
    source: &Sentences,
    min_cosine: f32,
    candidates: &mut Vec<Seed>,
) {
    let mut texts = Vec::new();
    let (Some(this), Some(that)) = (
        slots(suspicious, candidates.iter().map(|s| s.suspicious), &mut texts),
        slots(source, candidates.iter().map(|s| s.source), &mut texts),
    ) else {
        candidates.clear();
        return;
    };
    let mut vectors = Vec::new();
    if embedder.embed(&texts, &mut vectors).is_err() {
        candidates.clear();
        return;
    }
    let dim = embedder.dim();
    let vector = |slot: u32| &vectors[slot as usize * dim..(slot as usize + 1) * dim];
    candidates.retain(|s| cosine(vector(this[s.suspicious as usize]), vector(that[s.source as usize])) >= min_cosine);
}

/// For each of `sentences`, where its text is in `texts` when `named` names
/// it (its text added once); `None` when the sentences kept no texts.
fn slots<'s>(sentences: &'s Sentences, named: impl Iterator<Item = u32>, texts: &mut Vec<&'s str>) -> Option<Vec<u32>> {
    let mut slots = vec![u32::MAX; sentences.len()];
    for i in named {
        if slots[i as usize] == u32::MAX {
            slots[i as usize] = texts.len() as u32;
            texts.push(sentences.text(i as usize)?);
        }
    }
    Some(slots)
}

/// Whether each of `sentences` overlaps one of `ranges`.
pub fn covered(sentences: &Sentences, ranges: impl Iterator<Item = CharRange> + Clone) -> Vec<bool> {
    sentences.sentences.iter().map(|s| ranges.clone().any(|range| range.overlaps(&s.range))).collect()
}

/// The passages that `seeds` (semantic seeds of `pair`, reordered in place)
/// make: fragments whose sides both reach `params.min_passage_chars`, and
/// twice that when a single seed makes them (one alike sentence pair is
/// more often a shared topic than a rewritten passage).
pub fn semantic_passages(pair: &Pair<'_>, params: &AlignParams, seeds: &mut [Seed], out: &mut Vec<AlignedPassage>) {
    let extend_params = ExtendParams {
        max_gap: params.max_gap,
        min_cosine: 0.0,
        merge_gap_ratio: params.merge_gap_ratio,
        merge_gap_chars: params.merge_gap_chars,
    };
    for fragment in extend(pair, seeds, &extend_params) {
        let (suspicious, source) = pair.ranges(&fragment);
        let least = if fragment.seeds >= 2 { params.min_passage_chars } else { 2 * params.min_passage_chars };
        if suspicious.len() >= least && source.len() >= least {
            out.push(AlignedPassage { suspicious, source, exact: false });
        }
    }
}

/// Drops each summary of `passages` (a passage that condenses its source)
/// whose suspicious side `found` (passages found by meaning) hold at least
/// half of, out of their source's order: sentences that each say what one
/// sentence of the source says, taken from here and there, are rewritten
/// pieces, not a summary, and the pieces take its place. Pieces in their
/// source's order may be the summary's own sentences, which it keeps.
pub fn drop_summaries_made_of(found: &[AlignedPassage], passages: &mut Vec<AlignedPassage>) {
    passages.retain(|p| {
        if p.exact || !crate::align::condenses_its_source(p) {
            return true;
        }
        let mut pieces: Vec<&AlignedPassage> = found.iter().filter(|f| f.suspicious.overlaps(&p.suspicious)).collect();
        pieces.sort_by_key(|f| f.suspicious);
        let in_order = pieces.windows(2).all(|w| w[0].source.start <= w[1].source.start);
        let mut held: Vec<CharRange> = pieces.iter().map(|f| within(f.suspicious, p.suspicious)).collect();
        in_order || 2 * union_len(&mut held) < u64::from(p.suspicious.len())
    });
}

/// The part of `range` that lies within `bounds` (which it overlaps).
fn within(range: CharRange, bounds: CharRange) -> CharRange {
    CharRange::new(range.start.max(bounds.start), range.end.min(bounds.end))
}

/// Adds each of `found` (passages found by meaning) to `passages`: a
/// passage not exact on the same stretch of both sides, or next to it
/// ([`ADJACENT_SUSPICIOUS_GAP`], [`ADJACENT_SOURCE_GAP`]), is widened to
/// cover it; where the widened passage overlaps another passage's
/// suspicious side, it is not added (the words found that stretch elsewhere).
pub fn add_semantic_passages(found: &[AlignedPassage], passages: &mut Vec<AlignedPassage>) {
    for &semantic in found {
        let near = |p: &AlignedPassage| {
            !p.exact
                && p.suspicious.gap(&semantic.suspicious) <= ADJACENT_SUSPICIOUS_GAP
                && p.source.gap(&semantic.source) <= ADJACENT_SOURCE_GAP
        };
        let widened = passages.iter().filter(|p| near(p)).fold(semantic, |w, p| covering(&w, p));
        if passages.iter().any(|p| !near(p) && p.suspicious.overlaps(&widened.suspicious)) {
            continue;
        }
        passages.retain(|p| !near(p));
        passages.push(widened);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(suspicious: (u32, u32), source: (u32, u32), exact: bool) -> AlignedPassage {
        let range = |(start, end)| CharRange::new(start, end);
        AlignedPassage { suspicious: range(suspicious), source: range(source), exact }
    }

    /// The sentences of `text`, with their texts when `keep_texts`.
    fn sentences(text: &str, keep_texts: bool) -> Sentences {
        let model = tempfile::tempdir().unwrap();
        let embedder = crate::embed::tests::tiny_embedder(model.path());
        let mut out = Sentences::default();
        let params = AlignParams { min_sentence_words: 1, ..Default::default() };
        let aligner = crate::align::Aligner::new(Default::default(), params, None);
        aligner.with_embedder(keep_texts.then_some(&embedder)).analyse(text, &mut out);
        out
    }

    #[test]
    fn candidates_are_kept_by_their_embeddings_cosine_and_each_sentence_is_encoded_once() {
        let model = tempfile::tempdir().unwrap();
        let embedder = crate::embed::tests::tiny_embedder(model.path());
        let suspicious = sentences("The cat sat on the mat. A dog ran.", true);
        let source = sentences("The cats sat on a dog. A dog ran.", true);
        let seed = |suspicious, source| Seed { suspicious, source, structural: false };
        let all = vec![seed(0, 0), seed(0, 1), seed(1, 0), seed(1, 1)];
        let mut kept = all.clone();
        keep_close_in_meaning(&embedder, &suspicious, &source, 0.999_999, &mut kept);
        assert_eq!(kept, [seed(1, 1)], "only the same sentence reaches a cosine of 1");
        assert_eq!(embedder.encoded(), 3, "\"A dog ran.\" is encoded once for both documents");
        let mut everything = all.clone();
        keep_close_in_meaning(&embedder, &suspicious, &source, -1.0, &mut everything);
        assert_eq!(everything, all);
        let mut without_texts = all.clone();
        keep_close_in_meaning(&embedder, &suspicious, &sentences("A dog ran.", false), -1.0, &mut without_texts);
        assert!(without_texts.is_empty(), "no texts, no embeddings, no seeds");
    }

    #[test]
    fn a_candidate_is_kept_only_beside_another_pairing_other_sentences_within_reach() {
        let seed = |suspicious, source| Seed { suspicious, source, structural: false };
        let mut candidates = vec![seed(0, 40), seed(3, 10), seed(3, 11), seed(5, 12), seed(9, 30), seed(12, 30)];
        keep_in_runs(&mut candidates, 2);
        // (3, 11) alone has no neighbour of another suspicious sentence but (5, 12);
        // (0, 40) is alone; (9, 30) and (12, 30) are 3 suspicious sentences apart.
        assert_eq!(candidates, [seed(3, 10), seed(3, 11), seed(5, 12)]);
    }

    #[test]
    fn a_summary_that_passages_found_by_meaning_hold_half_of_is_dropped() {
        let summary = passage((1000, 2000), (0, 80_000), false);
        let other = passage((3000, 3400), (0, 90_000), false);
        let words = passage((5000, 5400), (9000, 9400), false);
        let mut passages = vec![summary, other, words];
        // Two pieces that overlap each other hold 600 of the summary's 1000
        // characters, the second from earlier in the source.
        let pieces = [passage((900, 1300), (50_000, 50_400), false), passage((1200, 1600), (20_000, 20_400), false)];
        drop_summaries_made_of(&pieces, &mut passages);
        assert_eq!(passages, [other, words]);
        let mut kept = vec![summary];
        drop_summaries_made_of(&[pieces[0], passage((1450, 1550), (20_000, 20_100), false)], &mut kept);
        assert_eq!(kept, [summary], "pieces of 500 characters are less than half");
        let in_order = [pieces[1], passage((1400, 1800), (50_000, 50_400), false)];
        drop_summaries_made_of(&in_order, &mut kept);
        assert_eq!(kept, [summary], "pieces in their source's order may be the summary's own sentences");
    }

    #[test]
    fn a_sentence_is_covered_when_a_range_overlaps_it() {
        let sentences = sentences("The cat sat on the mat. A dog ran. The mat ran.", false);
        let ranges = [CharRange::new(0, 5), CharRange::new(40, 41)];
        assert_eq!(covered(&sentences, ranges.iter().copied()), [true, false, true]);
    }

    #[test]
    fn a_passage_found_by_meaning_widens_the_passage_beside_it_and_yields_to_another_source_stretch() {
        let words = passage((100, 300), (1000, 1200), false);
        let mut passages = vec![words];
        // Beside the word passage on both sides: one passage covering both.
        add_semantic_passages(&[passage((350, 600), (1250, 1500), false)], &mut passages);
        assert_eq!(passages, [passage((100, 600), (1000, 1500), false)]);
        // Over the same suspicious stretch but another stretch of the source: the words win.
        add_semantic_passages(&[passage((200, 400), (5000, 5200), false)], &mut passages);
        assert_eq!(passages, [passage((100, 600), (1000, 1500), false)]);
        // An exact passage is not widened, and keeps its stretch.
        let mut exact = vec![passage((100, 300), (1000, 1200), true)];
        add_semantic_passages(&[passage((250, 500), (1150, 1400), false)], &mut exact);
        assert_eq!(exact, [passage((100, 300), (1000, 1200), true)]);
        // Elsewhere: added as it is.
        add_semantic_passages(&[passage((2000, 2400), (3000, 3400), false)], &mut exact);
        assert_eq!(exact.len(), 2);
    }
}
