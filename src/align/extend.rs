//! Extension: seeds → passages.
//!
//! Seeds are clustered by proximity on both sides at once, the way the PAN'09
//! valid intervals alternate between the documents: sort by suspicious sentence
//! and cut where more than `max_gap` sentences separate neighbours, then do the
//! same on the source side inside each part, and so on until neither side cuts.
//! A cluster becomes a fragment spanning its first to its last sentence on each
//! side. A fragment whose two sides are not alike as wholes (tf-idf cosine) is
//! clustered again with a smaller gap (Sanchez-Perez et al.'s adaptive gap), so
//! that a stray seed cannot glue two passages together. Finally neighbouring
//! fragments are merged when the gaps between them on both sides are small
//! compared with the fragments (a gap that grows with the passage: a 5000-word
//! case may have a whole paragraph without a seed), or when they follow each
//! other on both sides with gaps of about the same size (one diagonal of the
//! dot plot: the pieces of one heavily obfuscated passage), provided the merged
//! passage is still alike as a whole. A fragment may merge with any fragment in
//! reach, not only the next one, since stray one-sentence fragments pointing
//! elsewhere lie between the pieces; the closest pair merges first, so that the
//! pieces of one copy join before one of them can join a neighbouring copy.

use std::cell::RefCell;
use std::sync::OnceLock;

use crate::align::seed::{Idf, Seed};
use crate::align::sentences::{Sentences, term_hash};
use crate::analysis::candidates::STRUCTURE_WORDS;
use crate::analysis::span::CharRange;

/// A run of sentences on each side, first and last inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fragment {
    /// First and last sentence in the suspicious document.
    pub suspicious: (u32, u32),
    /// First and last sentence in the source document.
    pub source: (u32, u32),
    /// Seeds inside.
    pub seeds: u32,
    /// Seeds inside counted once per hard-wrapped line ([`Pair::seed_lines`]).
    pub seed_lines: u32,
    /// Seeds inside found by shared structure chunks.
    pub structural: u32,
}

/// Structural seeds that vouch for a fragment whose words were replaced.
pub const MIN_STRUCTURAL_SEEDS: u32 = 3;
/// Least tf-idf cosine of a fragment vouched for by structural seeds: some
/// content words survive any paraphrase, while repetitive texts (lists,
/// scripture) share function-word runs and nothing else.
pub const MIN_STRUCTURAL_COSINE: f32 = 0.1;

impl Fragment {
    /// The sentences `suspicious` and `source` (first and last, inclusive),
    /// with no seeds: a stretch whose likeness is measured.
    pub fn unseeded(suspicious: (u32, u32), source: (u32, u32)) -> Fragment {
        Fragment { suspicious, source, seeds: 0, seed_lines: 0, structural: 0 }
    }

    /// True when enough structural seeds support the fragment, whose sides have
    /// tf-idf cosine `cosine`: at least [`MIN_STRUCTURAL_SEEDS`] and one per
    /// three suspicious sentences, about as many sentences on both sides (at most
    /// twice as many, plus two), and a cosine of [`MIN_STRUCTURAL_COSINE`].
    pub fn structurally_supported(&self, cosine: f32) -> bool {
        let this = self.suspicious.1 - self.suspicious.0 + 1;
        let source = self.source.1 - self.source.0 + 1;
        let balanced = this.max(source) <= 2 * this.min(source) + 2;
        self.structural >= MIN_STRUCTURAL_SEEDS
            && self.structural * 3 >= this
            && balanced
            && cosine >= MIN_STRUCTURAL_COSINE
    }
}

/// What extension needs to know.
#[derive(Debug, Clone, Copy)]
pub struct ExtendParams {
    /// Largest number of sentences without a seed inside a cluster.
    pub max_gap: usize,
    /// Least tf-idf cosine of a fragment's two sides.
    pub min_cosine: f32,
    /// Merge when both gaps are at most this share of the shorter fragment ...
    pub merge_gap_ratio: f64,
    /// ... or at most this many characters.
    pub merge_gap_chars: u32,
}

/// Word pairs for [`Pair::pair_overlap`]: each word with the next two.
pub const PAIR_REACH: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Suspicious,
    Source,
}

fn position(seed: &Seed, side: Side) -> u32 {
    match side {
        Side::Suspicious => seed.suspicious,
        Side::Source => seed.source,
    }
}

/// The documents of a pair, their idf, and buffers to score fragments.
pub struct Pair<'a> {
    /// The suspicious document's sentences.
    pub suspicious: &'a Sentences,
    /// The source document's sentences.
    pub source: &'a Sentences,
    /// Idf over both.
    pub idf: &'a Idf,
    /// Per-term counts of the two sides of a fragment, and the terms touched.
    counts: RefCell<(Vec<f32>, Vec<f32>, Vec<u32>)>,
}

impl<'a> Pair<'a> {
    /// A pair whose `idf` was computed over `suspicious` and `source`.
    pub fn new(suspicious: &'a Sentences, source: &'a Sentences, idf: &'a Idf) -> Self {
        let counts = RefCell::new((vec![0.0; idf.len()], vec![0.0; idf.len()], Vec::new()));
        Pair { suspicious, source, idf, counts }
    }

    /// Tf-idf cosine of the fragment's two sides (summed term counts of its
    /// sentences), in time proportional to the fragment's terms.
    pub fn cosine(&self, fragment: &Fragment) -> f32 {
        let (mut dot, mut norm_a, mut norm_b) = (0.0f32, 0.0f32, 0.0f32);
        self.for_each_weighted_term(fragment, |x, y| {
            dot += x * y;
            norm_a += x * x;
            norm_b += y * y;
        });
        let denominator = (norm_a * norm_b).sqrt();
        if denominator > 0.0 { dot / denominator } else { 0.0 }
    }

    /// How much of the fragment's suspicious side its source side holds, and
    /// the tf-idf cosine of its two sides ([`Pair::cosine`]), in one pass. The
    /// first is the share of the suspicious side's squared tf-idf weight that
    /// lies in terms of the source side, each counted up to as often as the
    /// source side has it: 1 when the source side holds every term as often,
    /// and source text the suspicious side lacks costs nothing, unlike in the
    /// cosine.
    pub fn coverage_and_cosine(&self, fragment: &Fragment) -> (f32, f32) {
        let (mut held, mut dot, mut norm_a, mut norm_b) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        self.for_each_weighted_term(fragment, |x, y| {
            held += x * x.min(y);
            dot += x * y;
            norm_a += x * x;
            norm_b += y * y;
        });
        let coverage = if norm_a > 0.0 { held / norm_a } else { 0.0 };
        let denominator = (norm_a * norm_b).sqrt();
        (coverage, if denominator > 0.0 { dot / denominator } else { 0.0 })
    }

    /// Calls `visit` with the tf-idf weights (summed term counts times idf) of
    /// each term of the fragment on its suspicious and its source side, one of
    /// them 0 where only one side has the term.
    fn for_each_weighted_term(&self, fragment: &Fragment, mut visit: impl FnMut(f32, f32)) {
        let mut counts = self.counts.borrow_mut();
        let (a, b, touched) = &mut *counts;
        let mut add = |s: &Sentences, ids: &[u32], (first, last): (u32, u32), side: &mut Vec<f32>, other: &[f32]| {
            let terms = s.sentences[first as usize].terms.start..s.sentences[last as usize].terms.end;
            for (term, &id) in s.terms[terms.clone()].iter().zip(&ids[terms]) {
                if side[id as usize] == 0.0 && other[id as usize] == 0.0 {
                    touched.push(id);
                }
                side[id as usize] += term.count as f32;
            }
        };
        add(self.suspicious, self.idf.suspicious_ids(), fragment.suspicious, a, b);
        add(self.source, self.idf.source_ids(), fragment.source, b, a);
        for &id in touched.iter() {
            let idf = self.idf.by_id(id);
            visit(a[id as usize] * idf, b[id as usize] * idf);
            a[id as usize] = 0.0;
            b[id as usize] = 0.0;
        }
        touched.clear();
    }

    /// Share of the word pairs of the fragment's shorter side (two content words
    /// at most [`PAIR_REACH`] apart, in either order) that occur on the other
    /// side too. Copies keep many such pairs even when a third of the words
    /// change; texts on the same topic share words but seldom pairs.
    pub fn pair_overlap(&self, fragment: &Fragment) -> f32 {
        let pairs = |s: &Sentences, (first, last): (u32, u32)| {
            let words = &s.sequence[s.sentences[first as usize].words.start..s.sentences[last as usize].words.end];
            let mut pairs: Vec<u64> = Vec::with_capacity(words.len() * PAIR_REACH);
            for (i, &a) in words.iter().enumerate() {
                for &b in words.iter().skip(i + 1).take(PAIR_REACH) {
                    let (low, high) = if a <= b { (a, b) } else { (b, a) };
                    pairs.push(low.rotate_left(17) ^ high);
                }
            }
            pairs
        };
        share_of_smaller(pairs(self.suspicious, fragment.suspicious), pairs(self.source, fragment.source))
    }

    /// Share of the distinct content terms of the fragment's side with fewer
    /// of them that the other side has too. Content terms are those that are
    /// neither English function words ([`STRUCTURE_WORDS`]) nor common in the
    /// pair ([`Idf::is_common`]): formulaic texts (genealogies, laws, lists)
    /// share their scaffolding and little else.
    pub fn content_share(&self, fragment: &Fragment) -> f32 {
        let terms = |s: &Sentences, ids: &[u32], (first, last): (u32, u32)| {
            let range = s.sentences[first as usize].terms.start..s.sentences[last as usize].terms.end;
            s.terms[range.clone()]
                .iter()
                .zip(&ids[range])
                .filter(|&(t, &id)| !self.idf.is_common(id) && scaffolding_terms().binary_search(&t.term).is_err())
                .map(|(t, _)| t.term)
                .collect()
        };
        share_of_smaller(
            terms(self.suspicious, self.idf.suspicious_ids(), fragment.suspicious),
            terms(self.source, self.idf.source_ids(), fragment.source),
        )
    }

    /// Share of the rare terms of the fragment ([`Idf::is_rare`]), taken over
    /// both sides, that both sides have: a copy, even reworded, keeps its
    /// names and particular words, while formulaic text (regnal formulas,
    /// tribal lists, offerings) repeats its scaffolding around other ones.
    /// 1 when the fragment has no rare term.
    pub fn rare_share(&self, fragment: &Fragment) -> f32 {
        let this = self.distinct_terms(Side::Suspicious, fragment, true);
        let other = self.distinct_terms(Side::Source, fragment, true);
        let shared = this.iter().filter(|t| other.binary_search(t).is_ok()).count();
        let either = this.len() + other.len() - shared;
        if either == 0 { 1.0 } else { shared as f32 / either as f32 }
    }

    /// Share of the rare terms of the fragment's suspicious side
    /// ([`Idf::is_rare`]) that its source side has anywhere: how much of what
    /// is particular to a text (names, numbers, terms) it took from the
    /// source, whatever words it put around them. 0 when it has no rare term.
    pub fn rare_taken(&self, fragment: &Fragment) -> f32 {
        let rare = self.distinct_terms(Side::Suspicious, fragment, true);
        let source = self.distinct_terms(Side::Source, fragment, false);
        let taken = rare.iter().filter(|t| source.binary_search(t).is_ok()).count();
        if rare.is_empty() { 0.0 } else { taken as f32 / rare.len() as f32 }
    }

    /// The distinct rare terms ([`Idf::is_rare`]) of the fragment's suspicious
    /// side, sorted.
    pub fn suspicious_rare_terms(&self, fragment: &Fragment) -> Vec<u64> {
        self.distinct_terms(Side::Suspicious, fragment, true)
    }

    /// The distinct terms (only the rare ones with `rare_only`) of one side of
    /// the fragment, sorted.
    fn distinct_terms(&self, side: Side, fragment: &Fragment, rare_only: bool) -> Vec<u64> {
        let (sentences, ids, (first, last)) = match side {
            Side::Suspicious => (self.suspicious, self.idf.suspicious_ids(), fragment.suspicious),
            Side::Source => (self.source, self.idf.source_ids(), fragment.source),
        };
        let range = sentences.sentences[first as usize].terms.start..sentences.sentences[last as usize].terms.end;
        let mut terms: Vec<u64> = sentences.terms[range.clone()]
            .iter()
            .zip(&ids[range])
            .filter(|&(_, &id)| !rare_only || self.idf.is_rare(id))
            .map(|(t, _)| t.term)
            .collect();
        terms.sort_unstable();
        terms.dedup();
        terms
    }

    /// The source sentence among `first..=last` most alike (tf-idf cosine) to
    /// suspicious sentence `suspicious` of those sharing
    /// [`MIN_GROWN_END_TERMS`] terms with it, if it reaches
    /// [`MIN_GROWN_END_COSINE`].
    fn closest_alike_sentence(&self, suspicious: u32, (first, last): (u32, u32)) -> Option<u32> {
        let cosine = |there| self.cosine(&Fragment::unseeded((suspicious, suspicious), (there, there)));
        (first..=last)
            .filter(|&there| self.shared_terms(suspicious, there) >= MIN_GROWN_END_TERMS)
            .map(|there| (cosine(there), there))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .filter(|&(alike, _)| alike >= MIN_GROWN_END_COSINE)
            .map(|(_, there)| there)
    }

    /// `seeds` counted once per hard-wrapped line of the longer sentence of
    /// each ([`crate::align::sentences::Sentence::lines`]): as many seeds as
    /// the lines could have made apart.
    pub fn seed_lines(&self, seeds: &[Seed]) -> u32 {
        let lines = |s: &Sentences, i: u32| s.sentences[i as usize].lines;
        seeds.iter().map(|seed| lines(self.suspicious, seed.suspicious).max(lines(self.source, seed.source))).sum()
    }

    /// Distinct terms that sentence `suspicious` of the suspicious document
    /// and sentence `source` of the source document share (both runs of terms
    /// are sorted by hash).
    pub fn shared_terms(&self, suspicious: u32, source: u32) -> usize {
        let terms = |s: &'a Sentences, sentence: u32| &s.terms[s.sentences[sentence as usize].terms.clone()];
        let (a, b) = (terms(self.suspicious, suspicious), terms(self.source, source));
        let (mut i, mut j, mut shared) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].term.cmp(&b[j].term) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        shared
    }

    /// Characters of the fragment in the suspicious and the source document.
    pub fn ranges(&self, fragment: &Fragment) -> (CharRange, CharRange) {
        let range = |s: &Sentences, (first, last): (u32, u32)| {
            s.sentences[first as usize].range.cover(&s.sentences[last as usize].range)
        };
        (range(self.suspicious, fragment.suspicious), range(self.source, fragment.source))
    }
}

/// Share of the distinct values of the side with fewer of them that the other
/// side has too (0 when it has none).
fn share_of_smaller(mut a: Vec<u64>, mut b: Vec<u64>) -> f32 {
    for side in [&mut a, &mut b] {
        side.sort_unstable();
        side.dedup();
    }
    let (small, large) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
    if small.is_empty() {
        return 0.0;
    }
    small.iter().filter(|x| large.binary_search(x).is_ok()).count() as f32 / small.len() as f32
}

/// The terms of [`STRUCTURE_WORDS`] (as words are hashed without stemming),
/// sorted.
fn scaffolding_terms() -> &'static [u64] {
    static TERMS: OnceLock<Vec<u64>> = OnceLock::new();
    TERMS.get_or_init(|| {
        let mut terms: Vec<u64> = STRUCTURE_WORDS.iter().map(|word| term_hash(word)).collect();
        terms.sort_unstable();
        terms
    })
}

/// Turns `seeds` (reordered in place) into fragments.
pub fn extend(pair: &Pair<'_>, seeds: &mut [Seed], params: &ExtendParams) -> Vec<Fragment> {
    let mut fragments = Vec::new();
    cluster_validated(pair, seeds, params.max_gap, params, &mut fragments);
    merge_neighbours(pair, &mut fragments, params);
    fragments
}

/// Least tf-idf cosine of the sentence pair by which an end of a fragment
/// grows ([`grow_ends`]): as alike as an end past a verbatim copy that the
/// alignment keeps ([`crate::align::MIN_END_COSINE`]) ...
pub const MIN_GROWN_END_COSINE: f32 = 0.25;
/// ... and the terms it must share.
pub const MIN_GROWN_END_TERMS: usize = 2;
/// Sentences beyond the end of a fragment's source side that the sentence
/// its suspicious side grows by may match (or any sentence of the source
/// side: random obfuscation and translation move sentences about).
pub const GROWN_END_SOURCE_REACH: u32 = 2;

/// `fragment` with each end of its suspicious side grown by the next
/// sentence when that sentence is alike ([`MIN_GROWN_END_COSINE`],
/// [`MIN_GROWN_END_TERMS`]) to a sentence of the source side or of the
/// [`GROWN_END_SOURCE_REACH`] sentences beyond the same end, which the source
/// side then takes in. The first or last sentence of an obfuscated case often
/// shares too little with its source to seed: on pan13-ta-train, with the
/// pairs given, 183 randomly obfuscated cases were found only in part, 63 of
/// them missing more than 50 characters at the start and 88 at the end.
pub fn grow_ends(pair: &Pair<'_>, mut fragment: Fragment) -> Fragment {
    if let Some(before) = fragment.suspicious.0.checked_sub(1) {
        let reach = (fragment.source.0.saturating_sub(GROWN_END_SOURCE_REACH), fragment.source.1);
        if let Some(there) = pair.closest_alike_sentence(before, reach) {
            fragment.suspicious.0 = before;
            fragment.source = (fragment.source.0.min(there), fragment.source.1.max(there));
        }
    }
    let after = fragment.suspicious.1 + 1;
    if (after as usize) < pair.suspicious.len() {
        let last_source = pair.source.len() as u32 - 1;
        let reach = (fragment.source.0, (fragment.source.1 + GROWN_END_SOURCE_REACH).min(last_source));
        if let Some(there) = pair.closest_alike_sentence(after, reach) {
            fragment.suspicious.1 = after;
            fragment.source = (fragment.source.0.min(there), fragment.source.1.max(there));
        }
    }
    fragment
}

fn cluster_validated(
    pair: &Pair<'_>,
    seeds: &mut [Seed],
    max_gap: usize,
    params: &ExtendParams,
    out: &mut Vec<Fragment>,
) {
    let mut clusters = Vec::new();
    cluster(seeds, max_gap, Side::Suspicious, false, &mut clusters);
    let mut chains = Vec::new();
    for (start, end) in clusters {
        split_diagonals(&mut seeds[start..end], start, max_gap, &mut chains);
    }
    for (start, end) in chains {
        let part = &mut seeds[start..end];
        let fragment = Fragment { seed_lines: pair.seed_lines(part), ..fragment_of(part) };
        let cosine = pair.cosine(&fragment);
        if cosine >= params.min_cosine || fragment.structurally_supported(cosine) {
            out.push(fragment);
        } else if max_gap > 0 {
            cluster_validated(pair, part, max_gap - 1, params, out);
        }
    }
}

/// Cuts `seeds` into clusters (index ranges into `seeds`, which is reordered)
/// whose neighbours are at most `max_gap` sentences apart on both sides.
/// `other_stable` tells that the other side did not cut the slice last time.
fn cluster(seeds: &mut [Seed], max_gap: usize, side: Side, other_stable: bool, out: &mut Vec<(usize, usize)>) {
    let base = out.len();
    cluster_at(seeds, 0, max_gap, side, other_stable, out);
    debug_assert!(out[base..].iter().all(|&(a, b)| a < b));
}

fn cluster_at(
    seeds: &mut [Seed],
    offset: usize,
    max_gap: usize,
    side: Side,
    other_stable: bool,
    out: &mut Vec<(usize, usize)>,
) {
    if seeds.is_empty() {
        return;
    }
    seeds.sort_unstable_by_key(|s| (position(s, side), position(s, other(side))));
    let mut cuts = vec![0];
    for i in 1..seeds.len() {
        let unmatched = position(&seeds[i], side).saturating_sub(position(&seeds[i - 1], side) + 1);
        if unmatched as usize > max_gap {
            cuts.push(i);
        }
    }
    cuts.push(seeds.len());
    if cuts.len() == 2 && other_stable {
        out.push((offset, offset + seeds.len()));
        return;
    }
    let stable = cuts.len() == 2;
    let mut rest = seeds;
    let mut at = 0;
    for window in cuts.windows(2) {
        let (part, tail) = rest.split_at_mut(window[1] - window[0]);
        cluster_at(part, offset + at, max_gap, other(side), stable, out);
        at += part.len();
        rest = tail;
    }
}

/// Most a chain's diagonal may shift between two of its seeds, in sentences (a
/// sentence split or joined by the obfuscation, or one without a seed).
const MAX_DIAGONAL_SHIFT: i64 = 2;

/// Cuts a cluster of seeds (at `offset` in the whole list; reordered) into
/// chains that each follow one diagonal, appending their index ranges to `out`.
///
/// Seeds are taken in suspicious order, a sentence at a time; each joins the
/// chain whose end is at most `max_gap` sentences before it on both sides and
/// off its diagonal by at most [`MAX_DIAGONAL_SHIFT`], the closest one, or
/// starts a new chain. A chain's new end is its seed in that sentence closest
/// to its diagonal, so that a stray seed does not lead it astray. Two
/// passages copied from one source in another order (or one source passage
/// copied twice) interleave within `max_gap` and would otherwise make one
/// cluster; a stray seed among the seeds of a passage makes a chain of its own
/// instead of breaking the passage.
fn split_diagonals(seeds: &mut [Seed], offset: usize, max_gap: usize, out: &mut Vec<(usize, usize)>) {
    seeds.sort_unstable_by_key(|s| (s.suspicious, s.source));
    let reach = max_gap as i64 + 1;
    let position = |seed: &Seed| (i64::from(seed.suspicious), i64::from(seed.source));
    // Per chain: its end, and the best candidate for its next end with its shift.
    let mut ends: Vec<(i64, i64)> = Vec::new();
    let mut next_ends: Vec<Option<(i64, (i64, i64))>> = Vec::new();
    let mut chain_of: Vec<(usize, Seed)> = Vec::with_capacity(seeds.len());
    for sentence in seeds.chunk_by(|a, b| a.suspicious == b.suspicious) {
        for seed in sentence {
            let (this, source) = position(seed);
            let closest = ends
                .iter()
                .enumerate()
                .map(|(chain, &(t, s))| (chain, this - t, source - s))
                .filter(|&(_, dt, ds)| {
                    dt <= reach && (0..=reach).contains(&ds) && (ds - dt).abs() <= MAX_DIAGONAL_SHIFT
                })
                .min_by_key(|&(_, dt, ds)| (ds - dt).abs());
            let (chain, shift) = match closest {
                Some((chain, dt, ds)) => (chain, (ds - dt).abs()),
                None => {
                    ends.push((this, source));
                    next_ends.push(None);
                    (ends.len() - 1, 0)
                }
            };
            if next_ends[chain].is_none_or(|(best, _)| shift < best) {
                next_ends[chain] = Some((shift, (this, source)));
            }
            chain_of.push((chain, *seed));
        }
        for (end, next) in ends.iter_mut().zip(next_ends.iter_mut()) {
            if let Some((_, position)) = next.take() {
                *end = position;
            }
        }
    }
    chain_of.sort_by_key(|&(chain, _)| chain);
    for (slot, (_, seed)) in seeds.iter_mut().zip(&chain_of) {
        *slot = *seed;
    }
    for (start, end) in chain_ranges(&chain_of) {
        out.push((offset + start, offset + end));
    }
}

/// Index ranges of the runs of equal chain numbers.
fn chain_ranges(chain_of: &[(usize, Seed)]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut start = 0;
    chain_of.chunk_by(|a, b| a.0 == b.0).map(move |run| {
        start += run.len();
        (start - run.len(), start)
    })
}

fn other(side: Side) -> Side {
    match side {
        Side::Suspicious => Side::Source,
        Side::Source => Side::Suspicious,
    }
}

fn fragment_of(seeds: &[Seed]) -> Fragment {
    let bounds = |side: Side| {
        let positions = seeds.iter().map(|s| position(s, side));
        (positions.clone().min().unwrap_or(0), positions.max().unwrap_or(0))
    };
    Fragment {
        suspicious: bounds(Side::Suspicious),
        source: bounds(Side::Source),
        seeds: seeds.len() as u32,
        seed_lines: seeds.len() as u32,
        structural: seeds.iter().filter(|s| s.structural).count() as u32,
    }
}

/// Largest gap between two fragments on one diagonal ([`on_one_diagonal`]):
/// the longer fragment's length, but at least ...
const DIAGONAL_GAP_MIN: u32 = 1000;
/// ... and at most this many characters.
const DIAGONAL_GAP_MAX: u32 = 3000;
/// How much the two gaps may differ: this share of the larger ...
const DIAGONAL_SKEW_RATIO: f64 = 0.25;
/// ... plus this many characters.
const DIAGONAL_SKEW_CHARS: u32 = 350;

/// Largest gap on one diagonal when a fragment has a single seed: a lone
/// sentence pair that happens to lie on a passage's diagonal (texts from one
/// book share many) must not stretch it over a neighbouring case.
const LONE_SEED_GAP_MAX: u32 = 600;

/// Terms a fragment of a single seed (not a structural one) must share across
/// its sentence pair to join a passage along its diagonal
/// ([`on_one_diagonal`]): two sentences that share a word or three of the
/// page's topic lie on a copy's diagonal by chance and would stretch it over
/// the unrelated sentences between (on pan13-ta-train a randomly obfuscated
/// case of 288 characters was reported as 733 against 1,340 of its source;
/// now as 320 against 279). Measured 2026-11-27 (against none): pan13-ta-train pairs given
/// 0.9182 -> 0.9188 (random 0.9079 -> 0.9093, translation 0.8972 -> 0.8978),
/// full search 0.8987 -> 0.8991, dev-en 0.9633 -> 0.9634, the independent
/// corpus with synonyms 0.9805 -> 0.9795 and seed 2027 0.9836 -> 0.9840, the
/// Bible corpus and the six languages unchanged. At 5 and more no more is
/// gained; with no lone seed joining this way summaries lose 0.012.
const MIN_DIAGONAL_LONE_SEED_TERMS: usize = 4;

/// True when `fragment` is a single seed that shares too few terms to join a
/// passage along its diagonal ([`MIN_DIAGONAL_LONE_SEED_TERMS`]).
fn weak_lone_seed(pair: &Pair<'_>, fragment: &Fragment) -> bool {
    fragment.seeds == 1
        && fragment.structural == 0
        && pair.shared_terms(fragment.suspicious.0, fragment.source.0) < MIN_DIAGONAL_LONE_SEED_TERMS
}

fn diagonal_reach(a: CharRange, b: CharRange, lone_seed: bool) -> u32 {
    match lone_seed {
        true => LONE_SEED_GAP_MAX,
        false => a.len().max(b.len()).clamp(DIAGONAL_GAP_MIN, DIAGONAL_GAP_MAX),
    }
}

/// True when fragment `b` follows fragment `a` on both sides with gaps of about
/// the same size (the pieces of one heavily obfuscated passage, whose seedless
/// stretches can be long), and the gaps are within [`diagonal_reach`];
/// `lone_seed` tells that one of them has a single seed.
fn on_one_diagonal(
    (a_this, a_source): (CharRange, CharRange),
    (b_this, b_source): (CharRange, CharRange),
    lone_seed: bool,
) -> bool {
    let gap = |a: CharRange, b: CharRange| i64::from(b.start) - i64::from(a.end);
    let (this_gap, source_gap) = (gap(a_this, b_this), gap(a_source, b_source));
    let (larger, smaller) = (this_gap.max(source_gap), this_gap.min(source_gap));
    let skew = (DIAGONAL_SKEW_RATIO * larger as f64) as i64 + i64::from(DIAGONAL_SKEW_CHARS);
    smaller >= 0
        && larger - smaller <= skew
        && this_gap <= i64::from(diagonal_reach(a_this, b_this, lone_seed))
        && source_gap <= i64::from(diagonal_reach(a_source, b_source, lone_seed))
}

/// Share of the shorter source range that two fragments may share and still
/// merge (a sentence cut between two fragments), unless they overlap as much in
/// the suspicious document.
const MAX_SHARED_SOURCE: f64 = 0.2;

/// True when two fragments share more of the source than of the suspicious
/// document: one source passage copied to two places, which are two cases.
fn same_source_twice((a_this, a_source): (CharRange, CharRange), (b_this, b_source): (CharRange, CharRange)) -> bool {
    let shared_source = a_source.overlap_len(&b_source);
    let shorter = a_source.len().min(b_source.len());
    f64::from(shared_source) > MAX_SHARED_SOURCE * f64::from(shorter) && shared_source > a_this.overlap_len(&b_this)
}

/// Merges fragments whose gaps on both sides are small for their size. A
/// fragment may merge with any later one in reach in the suspicious document,
/// not only the next: stray one-sentence fragments that point elsewhere in the
/// source often lie between the pieces of one obfuscated passage.
fn merge_neighbours(pair: &Pair<'_>, fragments: &mut Vec<Fragment>, params: &ExtendParams) {
    // Pairs whose merged passage was not alike as a whole.
    let mut refused: Vec<(Fragment, Fragment)> = Vec::new();
    loop {
        fragments.sort_unstable();
        let Some((i, j)) = closest_joinable(pair, fragments, params, &refused) else { break };
        let (a, b) = (fragments[i], fragments[j]);
        let merged = Fragment {
            suspicious: (a.suspicious.0.min(b.suspicious.0), a.suspicious.1.max(b.suspicious.1)),
            source: (a.source.0.min(b.source.0), a.source.1.max(b.source.1)),
            seeds: a.seeds + b.seeds,
            seed_lines: a.seed_lines + b.seed_lines,
            structural: a.structural + b.structural,
        };
        let cosine = pair.cosine(&merged);
        if let Some(stray) = stray_within(pair, (i, &a), (j, &b), cosine) {
            fragments.remove(stray);
        } else if cosine >= params.min_cosine || merged.structurally_supported(cosine) {
            fragments[i] = merged;
            fragments.remove(j);
        } else {
            refused.push((a, b));
        }
    }
}

/// Of two fragments about to merge into one of tf-idf cosine `merged_cosine`,
/// the index of the one that is a stray: a single seed whose suspicious
/// sentence the other fragment holds already, and whose merge would lower the
/// other's cosine. Such a seed is a sentence that also resembles another
/// source sentence on the same topic; merged, it would stretch the passage's
/// source side over the sentences between (fa-IR low 0.9896 -> 0.9957;
/// pan13-ta-train random 0.9054 -> 0.9085, translation 0.8894 -> 0.8922).
fn stray_within(pair: &Pair<'_>, a: (usize, &Fragment), b: (usize, &Fragment), merged_cosine: f32) -> Option<usize> {
    let holds = |outer: &Fragment, inner: &Fragment| {
        outer.suspicious.0 <= inner.suspicious.0 && inner.suspicious.1 <= outer.suspicious.1
    };
    [(a, b), (b, a)].into_iter().find_map(|((_, outer), (index, inner))| {
        (inner.seeds == 1 && holds(outer, inner) && merged_cosine < pair.cosine(outer)).then_some(index)
    })
}

/// The two `fragments` (sorted) that may merge with the smallest gap between
/// them, not counting `refused` pairs. Closest first, so that the pieces of
/// one copy join before one of them can join a neighbouring copy.
fn closest_joinable(
    pair: &Pair<'_>,
    fragments: &[Fragment],
    params: &ExtendParams,
    refused: &[(Fragment, Fragment)],
) -> Option<(usize, usize)> {
    let allowed_gap = |shorter: u32| ((params.merge_gap_ratio * f64::from(shorter)) as u32).max(params.merge_gap_chars);
    let mut closest: Option<(u32, usize, usize)> = None;
    for (i, a) in fragments.iter().enumerate() {
        let (a_this, a_source) = pair.ranges(a);
        for (j, b) in fragments.iter().enumerate().skip(i + 1) {
            let (b_this, b_source) = pair.ranges(b);
            // Later fragments start later: none is in reach after the first one
            // beyond the widest gap any rule allows `a` (which must not depend on `b`).
            if a_this.gap(&b_this) > allowed_gap(a_this.len()).max(DIAGONAL_GAP_MAX) {
                break;
            }
            let shorter = a_this.len().min(b_this.len()).min(a_source.len()).min(b_source.len());
            let allowed = allowed_gap(shorter);
            let close = a_this.gap(&b_this) <= allowed && a_source.gap(&b_source) <= allowed;
            let lone_seed = a.seeds.min(b.seeds) < 2;
            let diagonal = on_one_diagonal((a_this, a_source), (b_this, b_source), lone_seed)
                && !weak_lone_seed(pair, a)
                && !weak_lone_seed(pair, b);
            let joinable = close || diagonal;
            if !joinable || same_source_twice((a_this, a_source), (b_this, b_source)) || refused.contains(&(*a, *b)) {
                continue;
            }
            let gap = a_this.gap(&b_this).max(a_source.gap(&b_source));
            if closest.is_none_or(|(best, ..)| gap < best) {
                closest = Some((gap, i, j));
            }
        }
    }
    closest.map(|(_, i, j)| (i, j))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::align::Aligner;
    use crate::align::params::AlignParams;
    use crate::analysis::tokenize::TokenizerParams;

    /// The two texts analysed as the aligner does, and their idf.
    pub(crate) fn analysed(suspicious: &str, source: &str) -> (Sentences, Sentences, Idf) {
        let mut aligner = Aligner::new(TokenizerParams::default(), AlignParams::default(), None);
        let (mut a, mut b) = (Sentences::default(), Sentences::default());
        aligner.analyse(suspicious, &mut a);
        aligner.analyse(source, &mut b);
        let idf = Idf::of(&a, &b);
        (a, b, idf)
    }

    /// A measure of two texts aligned whole.
    fn measure_whole(suspicious: &str, source: &str, measure: impl Fn(&Pair<'_>, &Fragment) -> f32) -> f32 {
        let (a, b, idf) = analysed(suspicious, source);
        let pair = Pair::new(&a, &b, &idf);
        let whole = Fragment {
            suspicious: (0, a.len() as u32 - 1),
            source: (0, b.len() as u32 - 1),
            seeds: 1,
            seed_lines: 1,
            structural: 0,
        };
        measure(&pair, &whole)
    }

    /// Content share of two texts aligned whole.
    fn content_share_of(suspicious: &str, source: &str) -> f32 {
        measure_whole(suspicious, source, |pair, whole| pair.content_share(whole))
    }

    #[test]
    fn coverage_counts_what_the_source_side_holds_of_the_suspicious_words_and_not_its_surplus() {
        let copied = "Package maintainers may also fix serious bugs there between two point releases.";
        let surplus = "Apples ripen late in the valleys of the north. The ferry to the island leaves twice a day.";
        let with_surplus = format!("{copied} {surplus}");
        let coverage =
            |suspicious: &str, source: &str| measure_whole(suspicious, source, |p, f| p.coverage_and_cosine(f).0);
        let cosine = |suspicious: &str, source: &str| measure_whole(suspicious, source, |p, f| p.cosine(f));
        let both_cosines = measure_whole(copied, &with_surplus, |p, f| p.coverage_and_cosine(f).1 - p.cosine(f));
        assert_eq!(both_cosines, 0.0, "the one pass gives the cosine as `cosine` does");
        // (idf counts sentences of both sides, so each pair has sentences the other lacks)
        assert!((coverage(copied, &with_surplus) - 1.0).abs() < 1e-6, "source text beyond the copy costs nothing");
        assert!(cosine(copied, &with_surplus) < 0.9, "while it lowers the cosine");
        let half = coverage(copied, &format!("Package maintainers may also fix serious bugs. {surplus}"));
        assert!(0.2 < half && half < 0.8, "{half}");
        let twice = coverage(&format!("{copied} {copied}"), &with_surplus);
        assert!((twice - 0.5).abs() < 1e-6, "a word counts as often as the source has it: {twice}");
        assert_eq!(coverage(copied, surplus), 0.0);
    }

    #[test]
    fn an_end_grows_by_a_sentence_alike_to_one_of_the_source_side_or_just_beyond_it() {
        let source = "The ferry to the island leaves twice a day in summer. \
                      Security updates are published in their own repository for every stable release. \
                      Package maintainers may also fix serious bugs there between two point releases. \
                      Users should add that repository to their sources list and upgrade regularly. \
                      Apples ripen late in the valleys of the north.";
        let grown = |suspicious: &str| {
            let (a, b, idf) = analysed(suspicious, source);
            let pair = Pair::new(&a, &b, &idf);
            let seeded = Fragment { suspicious: (2, 2), source: (2, 2), seeds: 1, seed_lines: 1, structural: 0 };
            let fragment = grow_ends(&pair, seeded);
            (fragment.suspicious, fragment.source)
        };
        let copied = "Package maintainers may also fix serious bugs there between two point releases.";
        let before = "For every stable release, security updates appear in a repository of their own.";
        let after = "Users should upgrade regularly and add that repository to their list of sources.";
        let unrelated = ["Our choir sings old songs on Sunday mornings.", "The bridge was painted green last spring."];
        assert_eq!(grown(&[unrelated[0], before, copied, unrelated[1]].join(" ")), ((1, 2), (1, 2)));
        assert_eq!(grown(&[unrelated[0], unrelated[1], copied, after].join(" ")), ((2, 3), (2, 3)));
        assert_eq!(grown(&[before, unrelated[0], copied, unrelated[1]].join(" ")), ((2, 2), (2, 2)), "not alike");
        // A sentence alike to one before the source side does not grow the end after it.
        assert_eq!(grown(&[unrelated[0], unrelated[1], copied, before].join(" ")), ((2, 2), (2, 2)));
    }

    #[test]
    fn a_seed_counts_once_per_hard_wrapped_line_of_its_longer_sentence() {
        let (a, b, idf) = analysed(
            "Security updates are published\nin their own repository for every release.\n\
             Package maintainers fix bugs there.",
            "Security updates are published in their own repository for every release. \
             Package maintainers\nmay fix\nserious bugs there.",
        );
        let pair = Pair::new(&a, &b, &idf);
        let seed = |suspicious, source| Seed { suspicious, source, structural: false };
        assert_eq!((a.len(), b.len()), (2, 2));
        assert_eq!(pair.seed_lines(&[seed(0, 0)]), 2);
        assert_eq!(pair.seed_lines(&[seed(1, 1)]), 3);
        assert_eq!(pair.seed_lines(&[seed(0, 0), seed(1, 1)]), 5);
    }

    #[test]
    fn regnal_formulas_share_their_word_pairs_but_not_their_names() {
        let reign = "And Nadab the son of Jeroboam began to reign over Israel in the second year of Asa king \
                     of Judah, and reigned over Israel two years. And he did evil in the sight of the LORD, \
                     and walked in the way of his father, and in his sin wherewith he made Israel to sin.";
        let other = "Now Jehoram the son of Ahab began to reign over Israel in Samaria the eighteenth year of \
                     Jehoshaphat king of Judah, and reigned twelve years. And he wrought evil in the sight of \
                     the LORD; but not like his father, and like his mother.";
        let retold = "Nadab, son of Jeroboam, became king of Israel in the second year of Asa of Judah, and \
                      ruled two years. He did evil before the LORD and walked in his father's way and sin.";
        // The chapters around them, where the formula's own words recur.
        let chapter = " The king of Judah did evil in the sight of the LORD and walked in the way of his father. \
                       In that year Israel sinned, and the LORD was angry with the king of Israel. \
                       The son of the king began to reign over Judah, and reigned in the sight of the LORD.";
        let rare_share = |suspicious: &str, source: &str| {
            let (a, b, idf) = analysed(&format!("{suspicious}{chapter}"), &format!("{source}{chapter}"));
            let pair = Pair::new(&a, &b, &idf);
            pair.rare_share(&Fragment { suspicious: (0, 1), source: (0, 1), seeds: 2, seed_lines: 2, structural: 0 })
        };
        assert!(rare_share(reign, other) < 0.15, "{}", rare_share(reign, other));
        assert!(rare_share(reign, retold) > 0.3, "{}", rare_share(reign, retold));
        assert_eq!(
            measure_whole("The LORD. The LORD.", "The LORD. The LORD.", |pair, whole| pair.rare_share(whole)),
            1.0
        );
    }

    #[test]
    fn a_lone_seed_that_would_stretch_the_source_side_is_a_stray() {
        let copied = [
            "Security updates are published in their own repository for every stable release.",
            "Package maintainers may also fix serious bugs there between two point releases.",
            "Users should add that repository to their sources list and upgrade regularly.",
        ];
        let source = format!(
            "Stable releases receive security updates over their whole lifetime. \
             The ferry to the island leaves twice a day in summer. \
             Apples ripen late in the valleys of the north. {}",
            copied.join(" ")
        );
        let (a, b, idf) = analysed(&copied.join(" "), &source);
        let pair = Pair::new(&a, &b, &idf);
        let copy = Fragment { suspicious: (0, 2), source: (3, 5), seeds: 3, seed_lines: 3, structural: 0 };
        let lone = Fragment { suspicious: (0, 0), source: (0, 0), seeds: 1, seed_lines: 1, structural: 0 };
        let merged = Fragment { suspicious: (0, 2), source: (0, 5), seeds: 4, seed_lines: 4, structural: 0 };
        assert!(pair.cosine(&merged) < pair.cosine(&copy));
        assert_eq!(stray_within(&pair, (0, &lone), (1, &copy), pair.cosine(&merged)), Some(0));
        assert_eq!(stray_within(&pair, (0, &copy), (1, &lone), pair.cosine(&merged)), Some(1));
        // Two seeds, or a merge that does not lower the cosine, are no stray.
        let two = Fragment { seeds: 2, ..lone };
        assert_eq!(stray_within(&pair, (0, &two), (1, &copy), pair.cosine(&merged)), None);
        assert_eq!(stray_within(&pair, (0, &lone), (1, &copy), pair.cosine(&copy)), None);
    }

    #[test]
    fn a_lone_seed_on_the_diagonal_joins_a_copy_only_when_it_shares_enough_terms() {
        let copied = "Security updates are published in their own repository for every stable release. \
                      Package maintainers may also fix serious bugs there between two point releases. \
                      Users should add that repository to their sources list and upgrade regularly.";
        let joined = |lone_here: &str, lone_there: &str| {
            let suspicious = format!(
                "{copied} The ferry to the island leaves twice a day in summer. \
                 Apples ripen late in the valleys of the north. {lone_here}"
            );
            let source = format!(
                "{copied} Parliament debated the tax on machinery for three days. \
                 The orchestra rehearsed the symphony twice before dawn. {lone_there}"
            );
            let (a, b, idf) = analysed(&suspicious, &source);
            let pair = Pair::new(&a, &b, &idf);
            let copy = Fragment { suspicious: (0, 2), source: (0, 2), seeds: 3, seed_lines: 3, structural: 0 };
            let lone = Fragment { suspicious: (5, 5), source: (5, 5), seeds: 1, seed_lines: 1, structural: 0 };
            // Only the diagonal may join them: no gap is small enough.
            let params = ExtendParams { max_gap: 0, min_cosine: 0.0, merge_gap_ratio: 0.0, merge_gap_chars: 0 };
            (pair.shared_terms(5, 5), closest_joinable(&pair, &[copy, lone], &params, &[]).is_some())
        };
        let (shared, join) = joined(
            "Our old dog sleeps on the sofa every afternoon.",
            "Adopters may meet the dog at the shelter first.",
        );
        assert!(shared < MIN_DIAGONAL_LONE_SEED_TERMS && !join, "{shared} terms shared");
        let (shared, join) = joined(
            "Volunteers walk every rescued greyhound along the quiet harbour beach.",
            "Every rescued greyhound walks with volunteers along the harbour beach.",
        );
        assert!(shared >= MIN_DIAGONAL_LONE_SEED_TERMS && join, "{shared} terms shared");
    }

    #[test]
    fn genealogies_share_their_scaffolding_but_little_content() {
        let genealogy = "And Joel, and Jehu the son of Josibiah, the son of Seraiah, the son of Asiel. \
                         And Elioenai, and Jaakobah, and Jeshohaiah, and Asaiah, and Adiel, and Jesimiel.";
        let other = "And their brethren that did the work of the house were eight hundred twenty and two. \
                     And Adaiah the son of Jeroham, the son of Pelaliah, the son of Amzi, the son of Zechariah.";
        assert!(content_share_of(genealogy, other) < 0.3, "{}", content_share_of(genealogy, other));
        let paraphrase = "And Joel, and Jehu the child of Josibiah, the child of Seraiah, the child of Asiel. \
                          Elioenai too, and Jaakobah, Jeshohaiah, Asaiah, Adiel and Jesimiel.";
        assert!(content_share_of(genealogy, paraphrase) > 0.8, "{}", content_share_of(genealogy, paraphrase));
    }

    fn seeds(pairs: &[(u32, u32)]) -> Vec<Seed> {
        pairs.iter().map(|&(suspicious, source)| Seed { suspicious, source, structural: false }).collect()
    }

    fn clusters(pairs: &[(u32, u32)], max_gap: usize) -> Vec<Fragment> {
        let mut seeds = seeds(pairs);
        let mut ranges = Vec::new();
        cluster(&mut seeds, max_gap, Side::Suspicious, false, &mut ranges);
        let mut fragments: Vec<Fragment> = ranges.iter().map(|&(a, b)| fragment_of(&seeds[a..b])).collect();
        fragments.sort_unstable();
        fragments
    }

    #[test]
    fn seeds_within_the_gap_on_both_sides_form_one_fragment() {
        let found = clusters(&[(10, 100), (12, 103), (16, 104), (17, 109)], 4);
        assert_eq!(
            found,
            [Fragment { suspicious: (10, 17), source: (100, 109), seeds: 4, seed_lines: 4, structural: 0 }]
        );
    }

    #[test]
    fn a_gap_on_either_side_cuts() {
        // Close in the suspicious document, but the source jumps by 50 sentences.
        let found = clusters(&[(10, 100), (11, 101), (12, 150), (13, 151)], 4);
        assert_eq!(
            found,
            [
                Fragment { suspicious: (10, 11), source: (100, 101), seeds: 2, seed_lines: 2, structural: 0 },
                Fragment { suspicious: (12, 13), source: (150, 151), seeds: 2, seed_lines: 2, structural: 0 },
            ]
        );
        // Five unmatched sentences in the suspicious document are one too many for gap 4.
        assert_eq!(clusters(&[(0, 0), (6, 1)], 4).len(), 2);
        assert_eq!(clusters(&[(0, 0), (5, 1)], 4).len(), 1);
    }

    #[test]
    fn fragments_on_one_diagonal_follow_each_other_with_gaps_of_about_one_size() {
        let r = CharRange::new;
        let a = (r(1000, 1600), r(5000, 5700));
        // Gaps of 555 and 869 characters: skew 314 <= 0.25 * 869 + 350.
        assert!(on_one_diagonal(a, (r(2155, 2800), r(6569, 7200)), false));
        // The same gap in the suspicious document but the source jumps back.
        assert!(!on_one_diagonal(a, (r(2155, 2800), r(4000, 4600)), false));
        // Gaps too different: 555 against 1400.
        assert!(!on_one_diagonal(a, (r(2155, 2800), r(7100, 7600)), false));
        // Gaps beyond the reach (1000 characters for fragments this short).
        assert!(!on_one_diagonal(a, (r(2700, 3300), r(6800, 7400)), false));
        // Long fragments reach further, up to 3000 characters.
        let long = (r(0, 9000), r(0, 9000));
        assert!(on_one_diagonal(long, (r(11_500, 12_000), r(11_600, 12_100)), false));
        assert!(!on_one_diagonal(long, (r(12_500, 13_000), r(12_500, 13_000)), false));
        // A fragment of a single seed reaches 600 characters at most.
        assert!(on_one_diagonal(long, (r(9_600, 9_800), r(9_550, 9_750)), true));
        assert!(!on_one_diagonal(long, (r(9_700, 9_900), r(9_700, 9_900)), true));
    }

    fn chains(pairs: &[(u32, u32)], max_gap: usize) -> Vec<Fragment> {
        let mut seeds = seeds(pairs);
        let mut ranges = Vec::new();
        split_diagonals(&mut seeds, 0, max_gap, &mut ranges);
        let mut fragments: Vec<Fragment> = ranges.iter().map(|&(a, b)| fragment_of(&seeds[a..b])).collect();
        fragments.sort_unstable();
        fragments
    }

    #[test]
    fn interleaved_diagonals_become_separate_chains() {
        // Sentences 10-13 copy source 50-53, sentences 14-17 copy source 20-23: one
        // cluster for the gap rule (all within 3 sentences on both sides), two
        // passages.
        let found = chains(&[(10, 50), (11, 51), (12, 52), (13, 53), (14, 20), (15, 21), (16, 22), (17, 23)], 3);
        assert_eq!(
            found,
            [
                Fragment { suspicious: (10, 13), source: (50, 53), seeds: 4, seed_lines: 4, structural: 0 },
                Fragment { suspicious: (14, 17), source: (20, 23), seeds: 4, seed_lines: 4, structural: 0 },
            ]
        );
        // One source passage copied twice, close together.
        let twice = chains(&[(10, 50), (11, 51), (12, 52), (14, 50), (15, 51), (16, 52)], 3);
        assert_eq!(twice.len(), 2, "{twice:?}");
    }

    #[test]
    fn a_stray_seed_neither_breaks_nor_leads_a_chain() {
        // Sentence 12 also matches source sentence 54 (two off the diagonal); the
        // chain goes on from 52, and a far stray seed makes its own chain.
        let found = chains(&[(10, 50), (11, 51), (12, 52), (12, 54), (13, 53), (13, 90), (14, 54)], 3);
        assert_eq!(
            found,
            [
                Fragment { suspicious: (10, 14), source: (50, 54), seeds: 6, seed_lines: 6, structural: 0 },
                Fragment { suspicious: (13, 13), source: (90, 90), seeds: 1, seed_lines: 1, structural: 0 },
            ]
        );
        // A sentence split in two by the obfuscation shifts the diagonal by one.
        assert_eq!(chains(&[(10, 50), (11, 51), (13, 52), (14, 53)], 3).len(), 1);
    }

    #[test]
    fn fragments_sharing_their_source_are_two_copies() {
        let r = CharRange::new;
        // The second copies 200 of the first's 300 source characters again.
        assert!(same_source_twice((r(0, 300), r(1000, 1300)), (r(400, 700), r(1100, 1400))));
        // A shared sentence boundary of 20 characters is not a second copy.
        assert!(!same_source_twice((r(0, 300), r(1000, 1300)), (r(300, 600), r(1280, 1580))));
        // Overlapping as much on both sides: one passage seen twice, not two copies.
        assert!(!same_source_twice((r(0, 300), r(1000, 1300)), (r(100, 400), r(1100, 1400))));
    }
}
