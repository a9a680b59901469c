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

/// Most times a passage's suspicious side may be longer than its source
/// side. A copy's two sides are about as long as each other: obfuscation
/// adds or drops words, not whole sentences (in every case of pan13-ta-train,
/// dev-en and the King James Bible corpus the suspicious side is at most 1.28
/// times the source side), and a summary is shorter than its source, not
/// longer. A passage several times longer than its source side matches many
/// of its sentences to a few of the source: one regnal formula of the source
/// against a chronicle's repeated formulas, whose neighbours the passage's
/// ends grew over ([`crate::align::extend::grow_ends`]). Such passages are
/// dropped at the end of a pair's alignment, verbatim-bounded ones excepted.
/// Measured 2026-11-29: the King James Bible corpus 0.8887 -> 0.8906,
/// 0.8381 -> 0.8417 and 0.7930 -> 0.8003 on seeds 2026-2028 (precision
/// 0.8170 -> 0.8202, 0.7327 -> 0.7382, 0.6659 -> 0.6763; every passage
/// dropped overlapped no case); pan13-ta-train with the pairs given 0.9365
/// -> 0.9364 (translation 0.9152 -> 0.9137: a passage over a case whose
/// source side fell short of it; summary 0.8244 -> 0.8260), full search
/// 0.9169 -> 0.9168; dev-en, Clough's answers, the six languages and the
/// independent corpora unchanged. Simulated on the reports, 2.5 gained the
/// Bible corpus 0.0009 on seed 2027 and 0.0061 on seed 2028, and 1.75 cost
/// pan13-ta-train 0.0007 (1.5: 0.002).
pub const MAX_EXPANSION_RATIO: u64 = 2;

/// Whether a passage of `suspicious` characters against `source` ones
/// expands its source past [`MAX_EXPANSION_RATIO`].
pub fn expands_its_source(suspicious: CharRange, source: CharRange) -> bool {
    u64::from(suspicious.len()) > MAX_EXPANSION_RATIO * u64::from(source.len())
}

/// Least content share ([`crate::align::extend::Pair::content_share`]) of a passage kept by a waiver (cosine or
/// structural seeds) rather than by shared word pairs. On a corpus built from
/// the King James Bible (`eval/formulaic.sh`), best's detections that overlap
/// no case fell from 260 to 143 and precision rose from 0.589 to 0.714: half
/// of those dropped were genealogies and laws matched to others that share
/// their scaffolding ("And ..., the son of ...") and under a quarter of their
/// words. pan13-ta-train, dev-en and clough-answers are unchanged; at 0.4
/// dev-en lost 0.008.
pub const MIN_WAIVED_CONTENT_SHARE: f32 = 0.3;

/// Seed sentence pairs that, with [`CORROBORATING_RARE_SHARE`], corroborate a
/// passage of a strong candidate region, which then needs only the lower
/// thresholds of given pairs ([`FilterParams::uncorroborated`]).
pub const CORROBORATING_SEEDS: u32 = 3;
/// ... and the share of its rare terms both sides must have. Measured on
/// 2026-11-27 in `best`'s full search: of the passages in regions holding
/// 0.3-1 % of the suspicious document's candidate chunks that only the given
/// pairs' thresholds keep, 3 seeds and 0.3 keep 130 of pan13-ta-train's 246
/// true ones and 1 of the King James Bible corpus's 47 false ones (laws,
/// regnal formulas, tribal lists). Against 3 and 0.3, 2 seeds cost the Bible
/// corpus 0.0044, a share of 0.25 cost dev-en 0.0011 for 0.0028 on
/// pan13-ta-train, and 0.4 cost pan13-ta-train 0.007.
pub const CORROBORATING_RARE_SHARE: f32 = 0.3;

/// The stricter thresholds a passage must also pass when nothing
/// corroborates it (fewer than `corroborating_seeds` seeds, usually
/// [`CORROBORATING_SEEDS`], or less than [`CORROBORATING_RARE_SHARE`] of its
/// rare terms shared).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Uncorroborated {
    /// Least characters on each side.
    pub min_chars: u32,
    /// Least share of shared nearby word pairs (unless waived as usual).
    pub min_pair_overlap: f32,
    /// Least share of rare terms both sides have (0: not asked).
    pub min_rare_share: f32,
    /// Seeds that corroborate a passage (`u32::MAX`: none do).
    pub corroborating_seeds: u32,
}

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
    /// Least share of rare terms both sides have (0: not asked).
    pub min_rare_share: f32,
    /// Stricter thresholds for passages that nothing corroborates (`None`: none).
    pub uncorroborated: Option<Uncorroborated>,
}

/// What the filter looks at first: where the passage lies and what it rests on.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    /// Characters in the suspicious document.
    pub suspicious: CharRange,
    /// Characters in the source document.
    pub source: CharRange,
    /// Seed sentence pairs inside.
    pub seeds: u32,
    /// ... counted once per hard-wrapped line of the longer sentence of each
    /// ([`crate::align::extend::Pair::seed_lines`]), which is how the
    /// stricter thresholds of [`FilterParams::uncorroborated`] count them.
    pub seed_lines: u32,
}

/// How alike a candidate's two sides are; each measure is computed only when
/// the filter asks for it, and most passages are settled by the first.
pub trait Likeness {
    /// Share of shared nearby word pairs
    /// ([`crate::align::extend::Pair::pair_overlap`]).
    fn pair_overlap(&self) -> f32;
    /// Tf-idf cosine of the two sides, and whether enough structural seeds
    /// (words replaced, sentence structure kept) support it.
    fn cosine_and_structure(&self) -> (f32, bool);
    /// Share of the content terms of the side with fewer of them found on the
    /// other side ([`crate::align::extend::Pair::content_share`]).
    fn content_share(&self) -> f32;
    /// Share of the rare terms that both sides have
    /// ([`crate::align::extend::Pair::rare_share`]).
    fn rare_share(&self) -> f32;
}

/// Least share of rare terms both sides have of a passage that a strong
/// candidate region aligns and only the thresholds of given pairs keep
/// ([`Verdict::IfTheDocumentCopies`]).
pub const DOCUMENT_CORROBORATED_RARE_SHARE: f32 = 0.2;

/// What the filter decides about a passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A passage.
    Kept,
    /// A passage only where the suspicious document already copies much
    /// elsewhere ([`crate::passages::COPYING_DOCUMENT_SHARE`]): it passes the
    /// lower thresholds, with as many seeds as a short passage needs, and
    /// shares [`DOCUMENT_CORROBORATED_RARE_SHARE`] of its rare terms, but
    /// nothing of its own corroborates it and it fails the stricter
    /// thresholds ([`FilterParams::uncorroborated`]).
    IfTheDocumentCopies,
    /// Not a passage.
    Dropped,
}

/// Kept when the passage is long enough on both sides, seeded enough,
/// sharing enough word pairs, or else alike as bags of words (or
/// structurally) while sharing enough content words, and sharing enough of
/// its rare words; and, when nothing corroborates it, all this by the
/// stricter thresholds of [`FilterParams::uncorroborated`].
pub fn judge(c: &Candidate, params: &FilterParams, likeness: &impl Likeness) -> Verdict {
    if !passes(c, params, likeness) {
        return Verdict::Dropped;
    }
    let Some(Uncorroborated { min_chars, min_pair_overlap, min_rare_share, corroborating_seeds }) =
        params.uncorroborated
    else {
        return Verdict::Kept;
    };
    // The stricter thresholds count a seed once per hard-wrapped line.
    let c = &Candidate { seeds: c.seed_lines, ..*c };
    let corroborated = c.seeds >= corroborating_seeds && likeness.rare_share() >= CORROBORATING_RARE_SHARE;
    if corroborated || passes(c, &FilterParams { min_chars, min_pair_overlap, min_rare_share, ..*params }, likeness) {
        Verdict::Kept
    } else if c.seeds >= params.min_seeds && likeness.rare_share() >= DOCUMENT_CORROBORATED_RARE_SHARE {
        Verdict::IfTheDocumentCopies
    } else {
        Verdict::Dropped
    }
}

/// True when the passage passes `params`' thresholds (not their `uncorroborated` ones).
fn passes(c: &Candidate, params: &FilterParams, likeness: &impl Likeness) -> bool {
    let shorter = c.suspicious.len().min(c.source.len());
    if shorter < params.min_chars || (c.seeds < params.min_seeds && shorter < 2 * params.min_chars) {
        return false;
    }
    let alike = likeness.pair_overlap() >= params.min_pair_overlap || {
        let (cosine, structural) = likeness.cosine_and_structure();
        (cosine >= params.waiver_cosine || structural) && likeness.content_share() >= MIN_WAIVED_CONTENT_SHARE
    };
    alike && (params.min_rare_share <= 0.0 || likeness.rare_share() >= params.min_rare_share)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(c: &Candidate, params: &FilterParams, likeness: &impl Likeness) -> bool {
        judge(c, params, likeness) == Verdict::Kept
    }

    /// Fixed measures; `None` panics when the filter asks for it.
    struct Fixed {
        pair_overlap: Option<f32>,
        cosine: Option<f32>,
        structural: bool,
        content_share: Option<f32>,
        rare_share: Option<f32>,
    }

    impl Likeness for Fixed {
        fn pair_overlap(&self) -> f32 {
            self.pair_overlap.expect("the pair overlap is not needed when the passage is too short")
        }

        fn cosine_and_structure(&self) -> (f32, bool) {
            (self.cosine.expect("the cosine is not needed when word pairs are shared"), self.structural)
        }

        fn content_share(&self) -> f32 {
            self.content_share.expect("the content share is not needed without a waiver")
        }

        fn rare_share(&self) -> f32 {
            self.rare_share.expect("the rare share is not needed when not asked or when the sides differ")
        }
    }

    #[test]
    fn a_passage_expands_its_source_past_twice_the_source_side() {
        let range = |len: u32| CharRange::new(500, 500 + len);
        assert!(!expands_its_source(range(400), range(200)));
        assert!(expands_its_source(range(401), range(200)));
        assert!(!expands_its_source(range(100), range(4000)), "a summary condenses its source");
        assert!(expands_its_source(range(1), range(0)));
        assert!(!expands_its_source(range(u32::MAX - 500), range(u32::MAX / 2)), "no overflow");
    }

    #[test]
    fn short_thinly_seeded_or_topical_passages_are_dropped() {
        let params = FilterParams {
            min_chars: 150,
            min_seeds: 2,
            min_pair_overlap: 0.2,
            waiver_cosine: 0.7,
            min_rare_share: 0.0,
            uncorroborated: None,
        };
        let range = |len: u32| CharRange::new(1000, 1000 + len);
        let candidate = |a, b, seeds| Candidate { suspicious: range(a), source: range(b), seeds, seed_lines: seeds };
        let alike = |cosine, pair_overlap| Fixed {
            pair_overlap: Some(pair_overlap),
            cosine: Some(cosine),
            structural: false,
            content_share: Some(0.5),
            rare_share: None,
        };
        assert!(keep(&candidate(200, 180, 2), &params, &alike(0.5, 0.3)));
        let unasked =
            Fixed { pair_overlap: None, cosine: None, structural: false, content_share: None, rare_share: None };
        assert!(!keep(&candidate(200, 149, 5), &params, &unasked), "too short on the source side");
        assert!(!keep(&candidate(250, 250, 1), &params, &unasked), "one seed needs twice the length");
        assert!(keep(&candidate(300, 310, 1), &params, &alike(0.5, 0.3)));
        assert!(
            !keep(&candidate(300, 310, 3), &params, &alike(0.5, 0.1)),
            "shared words but few shared pairs: same topic"
        );
        assert!(keep(&candidate(300, 310, 3), &params, &alike(0.8, 0.1)), "shuffled words: alike as bags");
        let scaffolding = Fixed { content_share: Some(0.2), ..alike(0.8, 0.1) };
        assert!(
            !keep(&candidate(300, 310, 3), &params, &scaffolding),
            "waived, but few content words shared: formulaic text"
        );
        let structural = Fixed { structural: true, ..alike(0.2, 0.1) };
        assert!(keep(&candidate(300, 310, 3), &params, &structural));
        let structural = Fixed { content_share: Some(0.2), ..structural };
        assert!(!keep(&candidate(300, 310, 3), &params, &structural));
        let pairs_shared =
            Fixed { pair_overlap: Some(0.4), cosine: None, structural: false, content_share: None, rare_share: None };
        assert!(keep(&candidate(300, 310, 3), &params, &pairs_shared), "pairs shared");
    }

    #[test]
    fn a_passage_whose_rare_words_differ_is_formulaic_text_and_dropped() {
        let params = FilterParams {
            min_chars: 150,
            min_seeds: 2,
            min_pair_overlap: 0.2,
            waiver_cosine: 0.7,
            min_rare_share: 0.15,
            uncorroborated: None,
        };
        let candidate =
            Candidate { suspicious: CharRange::new(0, 300), source: CharRange::new(0, 300), seeds: 3, seed_lines: 3 };
        let pairs_shared = |rare_share| Fixed {
            pair_overlap: Some(0.4),
            cosine: None,
            structural: false,
            content_share: None,
            rare_share: Some(rare_share),
        };
        assert!(keep(&candidate, &params, &pairs_shared(0.6)), "names and particulars kept: a copy");
        assert!(!keep(&candidate, &params, &pairs_shared(0.1)), "one scaffolding, other names: formulaic text");
        let unalike = Fixed { cosine: Some(0.3), content_share: Some(0.5), ..pairs_shared(0.6) };
        let unalike = Fixed { pair_overlap: Some(0.1), rare_share: None, ..unalike };
        assert!(!keep(&candidate, &params, &unalike), "the rare share is not asked of a passage already dropped");
    }

    #[test]
    fn an_uncorroborated_passage_must_pass_the_stricter_thresholds_too() {
        let strict = Uncorroborated {
            min_chars: 250,
            min_pair_overlap: 0.35,
            min_rare_share: 0.15,
            corroborating_seeds: CORROBORATING_SEEDS,
        };
        let params = FilterParams {
            min_chars: 150,
            min_seeds: 2,
            min_pair_overlap: 0.15,
            waiver_cosine: 0.55,
            min_rare_share: 0.0,
            uncorroborated: Some(strict),
        };
        let passage = |len: u32, seeds| Candidate {
            suspicious: CharRange::new(0, len),
            source: CharRange::new(500, 500 + len),
            seeds,
            seed_lines: seeds,
        };
        let shared = |pair_overlap, rare_share| Fixed {
            pair_overlap: Some(pair_overlap),
            cosine: Some(0.4),
            structural: false,
            content_share: Some(0.5),
            rare_share: Some(rare_share),
        };
        let seeds = CORROBORATING_SEEDS;
        let rare = CORROBORATING_RARE_SHARE;
        assert!(keep(&passage(200, seeds), &params, &shared(0.2, rare)), "corroborated: the lower thresholds");
        assert!(!keep(&passage(200, seeds - 1), &params, &shared(0.2, rare)), "too few seeds: too short");
        assert!(!keep(&passage(300, seeds), &params, &shared(0.2, rare - 0.01)), "rare words differ: too few pairs");
        assert!(keep(&passage(300, seeds - 1), &params, &shared(0.4, 0.2)), "passes the stricter thresholds");
        assert!(!keep(&passage(300, seeds - 1), &params, &shared(0.4, 0.1)), "and their rare share");
        let copying = DOCUMENT_CORROBORATED_RARE_SHARE;
        let verdict = |len, seeds, rare| judge(&passage(len, seeds), &params, &shared(0.2, rare));
        assert_eq!(verdict(200, seeds - 1, copying), Verdict::IfTheDocumentCopies, "only the lower thresholds");
        assert_eq!(verdict(300, seeds, rare - 0.01), Verdict::IfTheDocumentCopies, "rare words not enough alone");
        assert_eq!(verdict(200, seeds - 1, copying - 0.01), Verdict::Dropped, "rare words differ");
        assert_eq!(verdict(320, 1, rare), Verdict::Dropped, "a long passage of one seed");
        let wrapped = Candidate { seed_lines: seeds, ..passage(320, 1) };
        assert!(
            keep(&wrapped, &params, &shared(0.2, rare)),
            "one seed of hard-wrapped lines corroborates as they would"
        );
        let wrapped = Candidate { seed_lines: seeds, ..passage(200, 1) };
        assert!(!keep(&wrapped, &params, &shared(0.2, rare)), "but the lower thresholds count it once");
        let never =
            FilterParams { uncorroborated: Some(Uncorroborated { corroborating_seeds: u32::MAX, ..strict }), ..params };
        let judged = |len, seeds, rare| judge(&passage(len, seeds), &never, &shared(0.2, rare));
        assert_eq!(judged(300, 10, 1.0), Verdict::IfTheDocumentCopies, "no seeds corroborate it");
        assert_eq!(judge(&passage(300, 10), &never, &shared(0.4, 0.2)), Verdict::Kept, "the stricter thresholds");
        let unasked =
            Fixed { pair_overlap: None, cosine: None, structural: false, content_share: None, rare_share: None };
        assert!(!keep(&passage(140, seeds), &params, &unasked), "too short for either");
    }
}
