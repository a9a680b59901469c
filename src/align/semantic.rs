//! Meaning-level alignment (issue 63): sentence pairs whose embeddings
//! ([`crate::embed`], `detect --model`) are close seed passages even where
//! they share few words, as in passages a language model rewrote.
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

/// Appends to `out` the sentence pairs of `suspicious` and `source` whose
/// embeddings' cosine reaches `min_cosine`, ordered by suspicious sentence;
/// nothing when either has no embeddings.
pub fn semantic_seeds(suspicious: &Sentences, source: &Sentences, min_cosine: f32, out: &mut Vec<Seed>) {
    if suspicious.embeddings.is_empty() || source.embeddings.is_empty() {
        return;
    }
    let norms = |sentences: &Sentences| -> Vec<f32> {
        (0..sentences.len()).map(|i| norm(sentences.embedding(i).expect("embeddings"))).collect()
    };
    let (suspicious_norms, source_norms) = (norms(suspicious), norms(source));
    for (i, suspicious_norm) in suspicious_norms.iter().enumerate() {
        let a = suspicious.embedding(i).expect("embeddings");
        for (j, source_norm) in source_norms.iter().enumerate() {
            let b = source.embedding(j).expect("embeddings");
            let denominator = suspicious_norm * source_norm;
            let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            if denominator > 0.0 && dot / denominator >= min_cosine {
                out.push(Seed { suspicious: i as u32, source: j as u32, structural: false });
            }
        }
    }
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
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
    use crate::analysis::span::CharRange;

    fn passage(suspicious: (u32, u32), source: (u32, u32), exact: bool) -> AlignedPassage {
        let range = |(start, end)| CharRange::new(start, end);
        AlignedPassage { suspicious: range(suspicious), source: range(source), exact }
    }

    /// Sentences of one word each, with the given embeddings.
    fn sentences(embeddings: &[[f32; 2]]) -> Sentences {
        let text: String = (0..embeddings.len()).map(|i| format!("word{i}. ")).collect();
        let mut out = Sentences::default();
        crate::align::Aligner::new(
            Default::default(),
            AlignParams { min_sentence_words: 1, ..Default::default() },
            None,
        )
        .analyse(&text, &mut out);
        assert_eq!(out.len(), embeddings.len());
        out.embeddings = embeddings.concat();
        out
    }

    #[test]
    fn sentence_pairs_with_close_embeddings_seed_and_others_do_not() {
        let suspicious = sentences(&[[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]);
        let source = sentences(&[[0.0, 2.0], [1.0, 0.1]]);
        let mut found = Vec::new();
        semantic_seeds(&suspicious, &source, 0.9, &mut found);
        let pairs: Vec<(u32, u32)> = found.iter().map(|s| (s.suspicious, s.source)).collect();
        assert_eq!(pairs, [(0, 1), (1, 0)], "cosine, not dot product: the source's norm is 2");
        let (mut none, mut without) = (Vec::new(), source.clone());
        without.embeddings.clear();
        semantic_seeds(&suspicious, &without, 0.0, &mut none);
        assert!(none.is_empty(), "no embeddings, no seeds");
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
