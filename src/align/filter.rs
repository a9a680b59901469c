//! Filtering: drop the passages too short or too thinly seeded to be plagiarism.
//!
//! PAN's measures punish every false detection in precision and every extra
//! piece of a case in granularity, so a fragment must span `min_chars`
//! characters on both sides (Sanchez-Perez et al. use 150), and one resting on
//! fewer than `min_seeds` sentence pairs must be twice as long: a single pair of
//! alike sentences is more often a common phrase than a copied passage.
//! Overlaps between the passages of all sources of a document are resolved after
//! this by [`crate::matching::overlap::resolve_overlaps`].

use crate::analysis::span::CharRange;

/// Least content share ([`crate::align::extend::Pair::content_share`]) of a passage kept by a waiver (cosine or
/// structural seeds) rather than by shared word pairs. On a corpus built from
/// the King James Bible (`eval/formulaic.sh`), best's detections that overlap
/// no case fell from 260 to 143 and precision rose from 0.589 to 0.714: half
/// of those dropped were genealogies and laws matched to others that share
/// their scaffolding ("And ..., the son of ...") and under a quarter of their
/// words. pan13-ta-train, dev-en and clough-answers are unchanged; at 0.4
/// dev-en lost 0.008.
pub const MIN_WAIVED_CONTENT_SHARE: f32 = 0.3;

/// Filtering thresholds.
#[derive(Debug, Clone, Copy)]
pub struct FilterParams {
    /// Least characters on each side.
    pub min_chars: u32,
    /// Least seeds of a passage shorter than `2 * min_chars`.
    pub min_seeds: u32,
    /// Least share of shared nearby word pairs ...
    pub min_pair_overlap: f32,
    /// ... unless the passage's sides have at least this cosine.
    pub waiver_cosine: f32,
}

/// What the filter looks at.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    /// Characters in the suspicious document.
    pub suspicious: CharRange,
    /// Characters in the source document.
    pub source: CharRange,
    /// Seed sentence pairs inside.
    pub seeds: u32,
    /// Tf-idf cosine of the two sides.
    pub cosine: f32,
    /// Share of shared nearby word pairs.
    pub pair_overlap: f32,
    /// Enough structural seeds (words replaced, sentence structure kept).
    pub structural: bool,
}

/// True when the passage is kept. `content_share` gives the share of the
/// content terms of the side with fewer of them found on the other side
/// ([`crate::align::extend::Pair::content_share`]); it is asked for only when
/// a waiver would keep the passage.
pub fn keep(c: &Candidate, params: &FilterParams, content_share: impl FnOnce() -> f32) -> bool {
    let shorter = c.suspicious.len().min(c.source.len());
    shorter >= params.min_chars
        && (c.seeds >= params.min_seeds || shorter >= 2 * params.min_chars)
        && (c.pair_overlap >= params.min_pair_overlap
            || ((c.cosine >= params.waiver_cosine || c.structural) && content_share() >= MIN_WAIVED_CONTENT_SHARE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_thinly_seeded_or_topical_passages_are_dropped() {
        let params = FilterParams { min_chars: 150, min_seeds: 2, min_pair_overlap: 0.2, waiver_cosine: 0.7 };
        let range = |len: u32| CharRange::new(1000, 1000 + len);
        let candidate = |a, b, seeds, cosine, pair_overlap| Candidate {
            suspicious: range(a),
            source: range(b),
            seeds,
            cosine,
            pair_overlap,
            structural: false,
        };
        let half = || 0.5;
        assert!(keep(&candidate(200, 180, 2, 0.5, 0.3), &params, half));
        assert!(!keep(&candidate(200, 149, 5, 0.5, 0.3), &params, half), "too short on the source side");
        assert!(!keep(&candidate(250, 250, 1, 0.5, 0.3), &params, half), "one seed needs twice the length");
        assert!(keep(&candidate(300, 310, 1, 0.5, 0.3), &params, half));
        assert!(
            !keep(&candidate(300, 310, 3, 0.5, 0.1), &params, half),
            "shared words but few shared pairs: same topic"
        );
        assert!(keep(&candidate(300, 310, 3, 0.8, 0.1), &params, half), "shuffled words: alike as bags");
        let scaffolding = candidate(300, 310, 3, 0.8, 0.1);
        assert!(!keep(&scaffolding, &params, || 0.2), "waived, but few content words shared: formulaic text");
        let structural = Candidate { structural: true, ..candidate(300, 310, 3, 0.2, 0.1) };
        assert!(keep(&structural, &params, half));
        assert!(!keep(&structural, &params, || 0.2));
        let unasked = || -> f32 { panic!("the content share is not needed when word pairs are shared") };
        assert!(keep(&candidate(300, 310, 3, 0.5, 0.4), &params, unasked), "pairs shared");
    }
}
