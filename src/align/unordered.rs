//! Order-free alignment: copies whose word order was destroyed.
//!
//! A passage whose every word was put in a random order (word shuffling),
//! or whose clauses were moved about, keeps no run of three words and no
//! sentence of its source, so sentence seeds ([`crate::align::seed`]) miss it.
//! It keeps the source's bag of words. On the two sides of such a copy the
//! words that are rare in the pair lie densely within one stretch each: a
//! rectangle of the pair's dot plot, not a diagonal.
//!
//! 1. **Anchors**: every pair of positions (suspicious, source) of a term that
//!    both windows hold, and each at most [`ANCHOR_MAX_OCCURRENCES`] times.
//! 2. **Rectangles**: chance anchors of two long windows spread over the
//!    whole dot plot; a reordered copy's crowd into its rectangle. The plot
//!    is cut into cells of each size of [`CELL_WORDS`] (twice, the second
//!    grid shifted by half a cell), and a cell holding [`MIN_ANCHORS`] and
//!    [`DENSE_FACTOR`] times the anchors its area would hold by chance is a
//!    seed, the densest first (and last the whole plot). A seed's anchors
//!    are cut where neighbours lie far apart on one side, then on the other,
//!    and again (the paper's valid intervals, with words for chunks and no
//!    order); each part is a rectangle.
//! 3. **Boundaries**: each side of a rectangle is grown or shrunk to the
//!    stretch of words, around its anchors, that scores most when a word the
//!    other side holds scores its weight and any other word
//!    [`MISS_COST`] times its weight, twice.
//! 4. **Verdict**: the passage is kept when each side's words, weighted by
//!    their rarity in the pair, are held by the other side's words (as
//!    multisets) to at least [`UnorderedParams::min_share`], and each side
//!    has [`MIN_WORDS`] content words and the least passage length, and
//!    their share exceeds by [`MIN_MARGIN`] what a stretch near the
//!    source side holds of the suspicious side (the share that the two
//!    documents' vocabularies give any two stretches; a passage that fills
//!    both windows must have [`UNCONTROLLED_MIN_SHARE`]).
//!
//! Words already in a passage of the pair are no anchors and no boundary
//! moves over them: this stage adds only what the ordered alignment left.
//! Its work is linear in the two windows' words (one pass to count, one for
//! the anchors, bounded passes per rectangle).

use std::collections::HashMap;
use std::ops::Range;

use crate::align::AlignedPassage;
use crate::align::sentences::{Sentences, TermMap};
use crate::analysis::span::CharRange;

/// A term with more occurrences than this in either window makes no anchor:
/// common words would make every stretch alike.
pub const ANCHOR_MAX_OCCURRENCES: u32 = 2;

/// Words a side of the cells of the dot plot in which anchors are counted:
/// a short copy crowds into the smallest, a long one only into larger ones.
pub const CELL_WORDS: [u32; 4] = [128, 512, 2048, 8192];

/// Least anchors of a dense cell and of a rectangle.
pub const MIN_ANCHORS: usize = 5;

/// A dense cell holds at least this many times the anchors that its area
/// would hold if they were spread evenly over the plot.
pub const DENSE_FACTOR: f32 = 4.0;

/// Least gap, in words, between neighbouring anchors that cuts a seed's
/// anchors; a larger one where they lie sparser ([`GAP_SPACINGS`]).
pub const MIN_ANCHOR_GAP: u32 = 25;

/// A seed's anchors are cut where neighbours lie more than this many times
/// their mean spacing apart (when that exceeds [`MIN_ANCHOR_GAP`]): a long
/// copy's anchors lie some five words apart, with gaps ten times that rare.
pub const GAP_SPACINGS: u32 = 10;

/// Least margin by which an order-free passage's share
/// ([`Reordered::share`]) must exceed the share of its suspicious side held
/// by a stretch of as many words near its source side (or the other
/// way round where the source has no room): long stretches of two texts of
/// one kind hold most of each other's words as multisets, copy or not.
pub const MIN_MARGIN: f32 = 0.2;

/// Least share of an order-free passage that fills both windows, where no
/// stretch beside it tells what the vocabularies share: a copy's.
pub const UNCONTROLLED_MIN_SHARE: f32 = 0.85;

/// Least share of each side's rare words (at most
/// [`ANCHOR_MAX_OCCURRENCES`] times in its window: names, numbers, the
/// particulars of a passage) that the other side has: a reordered copy
/// keeps them, parallel texts written on one scaffolding (genealogies,
/// laws, offerings) do not.
pub const MIN_RARE_SHARE: f32 = 0.7;

/// Most seeds tried per pair, densest first: bounds the work of a pair of
/// long windows.
pub const MAX_SEEDS: usize = 16;

/// Least content words on each side of an order-free passage.
pub const MIN_WORDS: usize = 15;

/// What a word that the other side does not hold costs, in units of its
/// weight: a stretch pays for itself while more than 1 / (1 + cost) of its
/// weight is held by the other side (60 % at 1.5).
pub const MISS_COST: f32 = 1.5;

/// The thresholds of the order-free stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnorderedParams {
    /// Least weighted share of each side's words that the other side holds.
    pub min_share: f32,
    /// Least characters on each side.
    pub min_chars: u32,
}

/// An order-free passage and how alike its sides are as bags of words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reordered {
    /// The passage.
    pub passage: AlignedPassage,
    /// The lesser of the two weighted shares of a side's words that the
    /// other side holds.
    pub share: f32,
}

/// The mark of a term that the bag holds, beside its count (which falls to
/// zero as [`UnorderedScratch::held_shares`] spends it).
const IN_BAG: u32 = 1 << 31;

/// A cell of the dot plot: its size (an index into [`CELL_WORDS`]), its
/// grid (0, or 1 for the one shifted by half a cell) and its place on each
/// side.
type Cell = (u8, u8, u32, u32);

/// One anchor: a word position on each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Anchor {
    this: u32,
    there: u32,
}

/// The buffers of the order-free stage, kept between pairs.
#[derive(Debug, Default)]
pub struct UnorderedScratch {
    /// Term → its number in the pair, so that the passes below index arrays.
    numbers: TermMap<u32>,
    /// The term number of each word of the suspicious and of the source window.
    this_terms: Vec<u32>,
    there_terms: Vec<u32>,
    /// Per term number: occurrences in the suspicious and the source window.
    counts: Vec<(u32, u32)>,
    /// Per term number: its weight ([`weigh`](Self::weigh)); empty until a
    /// rectangle of the pair is judged.
    weights: Vec<f32>,
    /// Per term number: the (at most two) source positions of an anchor term.
    source_positions: Vec<[u32; 2]>,
    anchors: Vec<Anchor>,
    /// Anchors (indices) per cell.
    cells: HashMap<Cell, Vec<u32>>,
    /// Whether each anchor lies in a passage found already.
    used: Vec<bool>,
    /// Per term number: its count in a bag of words (the other side of a stretch).
    bag: Vec<u32>,
    /// The terms the bag holds, to empty it.
    bag_terms: Vec<u32>,
    /// Whether each suspicious word lies in a passage already.
    taken: Vec<bool>,
}

/// Appends to `out` the order-free passages of `suspicious` and `source`
/// that lie outside the suspicious sides of `taken` passages.
pub fn unordered_passages<'p>(
    suspicious: &Sentences,
    source: &Sentences,
    params: &UnorderedParams,
    taken: impl IntoIterator<Item = &'p AlignedPassage>,
    scratch: &mut UnorderedScratch,
    out: &mut Vec<Reordered>,
) {
    let (this, there) = (&suspicious.sequence, &source.sequence);
    if this.len() < MIN_WORDS || there.len() < MIN_WORDS {
        return;
    }
    scratch.mark_taken(suspicious, taken);
    scratch.count(this, there);
    scratch.find_anchors();
    scratch.used.clear();
    scratch.used.resize(scratch.anchors.len(), false);
    let mut found: Vec<Reordered> = Vec::new();
    for seed in scratch.seeds(this.len(), there.len()) {
        let mut members: Vec<Anchor> =
            seed.iter().filter(|&&k| !scratch.used[k as usize]).map(|&k| scratch.anchors[k as usize]).collect();
        let mut groups = Vec::new();
        let all = 0..members.len();
        cut_range(&mut members, all, 0, 0, &mut groups);
        groups.sort_unstable_by_key(|g| (std::cmp::Reverse(g.len()), g.start));
        for group in groups {
            let Some(passage) = scratch.passage_of(&members[group], suspicious, source, params) else { continue };
            if found.iter().any(|f| f.passage.suspicious.overlaps(&passage.passage.suspicious)) {
                continue;
            }
            scratch.use_anchors_in(suspicious, source, &passage.passage);
            found.push(passage);
        }
    }
    out.extend(found);
}

/// Cuts the anchors `range` of `anchors` into runs whose neighbours lie
/// close, by suspicious position at even `depth`s and by source position at
/// odd ones, each run again at the next depth until a cut on each side
/// splits it no more (`unsplit` counts the cuts that did not) or four cuts
/// were made; appends the runs of at least [`MIN_ANCHORS`] to `groups`,
/// reordering `anchors` in place.
fn cut_range(anchors: &mut [Anchor], range: Range<usize>, depth: u8, unsplit: u8, groups: &mut Vec<Range<usize>>) {
    if range.len() < MIN_ANCHORS {
        return;
    }
    let by_source = depth % 2 == 1;
    let part = &mut anchors[range.clone()];
    let key = move |a: &Anchor| if by_source { a.there } else { a.this };
    part.sort_unstable_by_key(|a| (key(a), if by_source { a.this } else { a.there }));
    let span = key(&part[part.len() - 1]) - key(&part[0]) + 1;
    let gap = MIN_ANCHOR_GAP.max(GAP_SPACINGS * span / part.len() as u32);
    let mut runs = Vec::new();
    let mut start = 0;
    for k in 1..=part.len() {
        if k == part.len() || key(&part[k]) > key(&part[k - 1]) + gap {
            if k - start >= MIN_ANCHORS {
                runs.push(range.start + start..range.start + k);
            }
            start = k;
        }
    }
    let whole = runs.len() == 1 && runs[0] == range;
    for run in runs {
        // Stable after a cut on each side, or after four cuts.
        if (whole && unsplit >= 1) || depth >= 3 {
            groups.push(run);
        } else {
            cut_range(anchors, run, depth + 1, if whole { unsplit + 1 } else { 0 }, groups);
        }
    }
}

impl UnorderedScratch {
    /// Marks the suspicious words that `taken` passages cover.
    fn mark_taken<'p>(&mut self, suspicious: &Sentences, taken: impl IntoIterator<Item = &'p AlignedPassage>) {
        self.taken.clear();
        self.taken.resize(suspicious.sequence.len(), false);
        for passage in taken {
            for word in suspicious.words_in(passage.suspicious) {
                self.taken[word] = true;
            }
        }
    }

    /// Numbers the terms of the two windows and counts each term's
    /// occurrences in each.
    fn count(&mut self, this: &[u64], there: &[u64]) {
        self.numbers.clear();
        self.counts.clear();
        self.weights.clear();
        for (words, terms, is_this) in [(this, &mut self.this_terms, true), (there, &mut self.there_terms, false)] {
            terms.clear();
            for &term in words {
                let next = self.counts.len() as u32;
                let number = *self.numbers.entry(term).or_insert(next);
                if number == next {
                    self.counts.push((0, 0));
                }
                let count = &mut self.counts[number as usize];
                if is_this {
                    count.0 += 1
                } else {
                    count.1 += 1
                }
                terms.push(number);
            }
        }
    }

    /// Weighs each term, once per pair and only for a pair with a rectangle
    /// to judge: ln(1 + the pair's words over the term's occurrences in both
    /// windows), so that the words particular to a passage count most.
    fn weigh(&mut self) {
        if !self.weights.is_empty() {
            return;
        }
        let total = (self.this_terms.len() + self.there_terms.len()) as f32;
        self.weights.extend(self.counts.iter().map(|&(a, b)| (total / (a + b).max(1) as f32).ln_1p()));
    }

    /// Whether the term numbered `term` makes anchors: both windows hold it,
    /// each at most [`ANCHOR_MAX_OCCURRENCES`] times.
    fn is_anchor(&self, term: u32) -> bool {
        let (a, b) = self.counts[term as usize];
        a > 0 && b > 0 && a.max(b) <= ANCHOR_MAX_OCCURRENCES
    }

    /// Every anchor of the pair, sorted by suspicious position (then source
    /// position).
    fn find_anchors(&mut self) {
        self.source_positions.clear();
        self.source_positions.resize(self.counts.len(), [u32::MAX; 2]);
        for (j, &term) in self.there_terms.iter().enumerate() {
            if self.is_anchor(term) {
                let slots = &mut self.source_positions[term as usize];
                let free = usize::from(slots[0] != u32::MAX);
                slots[free] = j as u32;
            }
        }
        self.anchors.clear();
        for (i, &term) in self.this_terms.iter().enumerate() {
            if self.taken[i] || !self.is_anchor(term) {
                continue;
            }
            let positions = self.source_positions[term as usize].into_iter().take_while(|&j| j != u32::MAX);
            self.anchors.extend(positions.map(|j| Anchor { this: i as u32, there: j }));
        }
    }

    /// The seeds of rectangles, as lists of anchors: the dense cells of
    /// every size and grid, the densest first (at most [`MAX_SEEDS`]), and
    /// last every anchor (a copy that fills both windows is dense nowhere).
    fn seeds(&mut self, this_words: usize, there_words: usize) -> Vec<Vec<u32>> {
        self.cells.clear();
        let sizes = CELL_WORDS.iter().take_while(|&&size| (size as usize) < 2 * this_words.max(there_words));
        let sizes: Vec<u32> = sizes.copied().collect();
        for (k, anchor) in self.anchors.iter().enumerate() {
            for (level, &size) in sizes.iter().enumerate() {
                for grid in 0..2u8 {
                    let shift = u32::from(grid) * size / 2;
                    let cell = (level as u8, grid, (anchor.this + shift) / size, (anchor.there + shift) / size);
                    self.cells.entry(cell).or_default().push(k as u32);
                }
            }
        }
        let plot = this_words as f32 * there_words as f32;
        let anchors = self.anchors.len() as f32;
        let expected =
            |size: u32| anchors * (size as f32).min(this_words as f32) * (size as f32).min(there_words as f32) / plot;
        let mut dense: Vec<(&Cell, &Vec<u32>)> = self
            .cells
            .iter()
            .filter(|(cell, members)| {
                members.len() >= MIN_ANCHORS && members.len() as f32 >= DENSE_FACTOR * expected(sizes[cell.0 as usize])
            })
            .collect();
        dense.sort_unstable_by_key(|(cell, members)| (std::cmp::Reverse(members.len()), **cell));
        let mut seeds: Vec<Vec<u32>> = dense.into_iter().take(MAX_SEEDS).map(|(_, m)| m.clone()).collect();
        if self.anchors.len() >= MIN_ANCHORS {
            seeds.push((0..self.anchors.len() as u32).collect());
        }
        seeds
    }

    /// Marks the anchors inside `passage`'s rectangle as used.
    fn use_anchors_in(&mut self, suspicious: &Sentences, source: &Sentences, passage: &AlignedPassage) {
        let (this, there) = (suspicious.words_in(passage.suspicious), source.words_in(passage.source));
        for (k, anchor) in self.anchors.iter().enumerate() {
            if this.contains(&(anchor.this as usize)) && there.contains(&(anchor.there as usize)) {
                self.used[k] = true;
            }
        }
    }

    /// The passage a group of anchors makes, when it passes the verdict.
    fn passage_of(
        &mut self,
        anchors: &[Anchor],
        suspicious: &Sentences,
        source: &Sentences,
        params: &UnorderedParams,
    ) -> Option<Reordered> {
        self.weigh();
        let this_core = span(anchors.iter().map(|a| a.this));
        let there_core = span(anchors.iter().map(|a| a.there));
        let (mut this_span, mut there_span) = (this_core.clone(), there_core.clone());
        for _ in 0..2 {
            self.fill_bag(false, there_span.clone());
            this_span = self.best_stretch(this_core.clone(), true);
            self.fill_bag(true, this_span.clone());
            there_span = self.best_stretch(there_core.clone(), false);
        }
        if this_span.len() < MIN_WORDS || there_span.len() < MIN_WORDS {
            return None;
        }
        let (this_share, this_rare) = self.held_shares(this_span.clone(), true, there_span.clone());
        let (there_share, there_rare) = self.held_shares(there_span.clone(), false, this_span.clone());
        if this_share.min(there_share) < params.min_share {
            return None;
        }
        // A copy keeps its particulars; text written on one scaffolding changes them.
        if this_rare.min(there_rare) < MIN_RARE_SHARE {
            return None;
        }
        // Alike only as much as the documents' vocabularies make any two stretches?
        let there_control = control(self.there_terms.len(), &there_span).map(|c| (this_span.clone(), true, c));
        let this_control = control(self.this_terms.len(), &this_span).map(|c| (there_span.clone(), false, c));
        let chance = match there_control.or(this_control) {
            Some((stretch, is_this, other)) => self.held_shares(stretch, is_this, other).0 + MIN_MARGIN,
            None => UNCONTROLLED_MIN_SHARE,
        };
        if this_share.min(there_share) < chance {
            return None;
        }
        let passage = AlignedPassage {
            suspicious: char_span(suspicious, &this_span),
            source: char_span(source, &there_span),
            exact: false,
        };
        let long_enough = passage.suspicious.len() >= params.min_chars && passage.source.len() >= params.min_chars;
        long_enough.then_some(Reordered { passage, share: this_share.min(there_share) })
    }

    /// The term numbers of the suspicious window's words (`this`) or the source window's.
    fn terms(&self, this: bool) -> &[u32] {
        if this { &self.this_terms } else { &self.there_terms }
    }

    /// Fills the bag with the terms of the words `words` of the suspicious
    /// window (`this`) or the source window; each term it holds is marked
    /// with [`IN_BAG`] beside its count.
    fn fill_bag(&mut self, this: bool, words: Range<usize>) {
        for &term in &self.bag_terms {
            self.bag[term as usize] = 0;
        }
        self.bag.resize(self.counts.len(), 0);
        self.bag_terms.clear();
        let terms = if this { &self.this_terms } else { &self.there_terms };
        for &term in &terms[words] {
            self.bag[term as usize] = (self.bag[term as usize] + 1) | IN_BAG;
            self.bag_terms.push(term);
        }
    }

    /// The stretch of the suspicious window's words (`this`) or the source
    /// window's within reach of `core` (as far again as the core is long on
    /// each side) that scores most when a word the bag holds scores its
    /// weight and any other word [`MISS_COST`] times its weight (Kadane's
    /// maximum subarray); the core itself when that stretch lies elsewhere.
    /// On the suspicious side the reach stops at words a passage holds
    /// already.
    fn best_stretch(&self, core: Range<usize>, this: bool) -> Range<usize> {
        let words = self.terms(this);
        let free = |i: usize| !this || !self.taken[i];
        let reach = core.len().max(MIN_WORDS);
        let mut low = core.start;
        while low > core.start.saturating_sub(reach) && free(low - 1) {
            low -= 1;
        }
        let mut high = core.end;
        while high < (core.end + reach).min(words.len()) && free(high) {
            high += 1;
        }
        let (mut sum, mut start) = (0.0f32, low);
        let (mut best, mut stretch) = (f32::MIN, core.clone());
        for (i, &term) in words.iter().enumerate().take(high).skip(low) {
            let weight = self.weights[term as usize];
            sum += if self.bag[term as usize] != 0 { weight } else { -MISS_COST * weight };
            if sum > best {
                (best, stretch) = (sum, start..i + 1);
            }
            if sum < 0.0 {
                (sum, start) = (0.0, i + 1);
            }
        }
        if stretch.start < core.end && core.start < stretch.end { stretch } else { core }
    }

    /// How much of the words `stretch` of the suspicious window (when
    /// `this`, else of the source window) the words `other` of the other
    /// window hold, in one pass: the weighted share, each word of `other`
    /// holding one occurrence, and the share of the rare words (at most
    /// [`ANCHOR_MAX_OCCURRENCES`] times in their window) whose terms `other`
    /// has (1 when the stretch has none).
    fn held_shares(&mut self, stretch: Range<usize>, this: bool, other: Range<usize>) -> (f32, f32) {
        self.fill_bag(!this, other);
        let words = if this { &self.this_terms } else { &self.there_terms };
        let (mut held, mut all) = (0.0f32, 0.0f32);
        let (mut rare_held, mut rare) = (0usize, 0usize);
        for &term in &words[stretch] {
            let weight = self.weights[term as usize];
            all += weight;
            let (a, b) = self.counts[term as usize];
            let is_rare = (if this { a } else { b }) <= ANCHOR_MAX_OCCURRENCES;
            rare += usize::from(is_rare);
            let count = &mut self.bag[term as usize];
            if *count == 0 {
                continue;
            }
            rare_held += usize::from(is_rare);
            if *count != IN_BAG {
                *count -= 1;
                held += weight;
            }
        }
        let weighted = if all > 0.0 { held / all } else { 0.0 };
        (weighted, if rare == 0 { 1.0 } else { rare_held as f32 / rare as f32 })
    }
}

/// A stretch of as many words as `stretch`, one such length away from it
/// (so that words of a copy that its ends missed are not in it), before it
/// where there is room and else after it, in a window of `words` words;
/// `None` when there is no room on either side.
fn control(words: usize, stretch: &Range<usize>) -> Option<Range<usize>> {
    let len = stretch.len();
    if stretch.start >= 2 * len {
        Some(stretch.start - 2 * len..stretch.start - len)
    } else if stretch.end + 2 * len <= words {
        Some(stretch.end + len..stretch.end + 2 * len)
    } else {
        None
    }
}

/// The smallest range of positions that holds every one of `positions`.
fn span(positions: impl Iterator<Item = u32>) -> Range<usize> {
    let (first, last) = positions.fold((u32::MAX, 0), |(lo, hi), p| (lo.min(p), hi.max(p)));
    first as usize..last as usize + 1
}

/// The characters from the first to the last word of `words`.
fn char_span(sentences: &Sentences, words: &Range<usize>) -> CharRange {
    sentences.word_ranges[words.start].cover(&sentences.word_ranges[words.end - 1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::Aligner;
    use crate::align::params::AlignParams;
    use crate::analysis::tokenize::TokenizerParams;

    /// `n` words drawn from a vocabulary of `vocabulary` made-up words, in
    /// sentences of 12, from a seeded generator.
    fn text(seed: u64, n: usize, vocabulary: u64) -> Vec<String> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let word = format!("w{}x", state % vocabulary);
                if i % 12 == 11 { format!("{word}.") } else { word }
            })
            .collect()
    }

    /// `words` in the order a seeded shuffle gives.
    fn shuffled(words: &[String], seed: u64) -> Vec<String> {
        let mut keyed: Vec<(u64, &String)> =
            words.iter().enumerate().map(|(i, w)| ((i as u64 + seed).wrapping_mul(0x2545_F491_4F6C_DD1D), w)).collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, w)| w.clone()).collect()
    }

    fn sentences(text: &str) -> Sentences {
        let mut aligner = Aligner::new(TokenizerParams::default(), AlignParams::default(), None);
        let mut out = Sentences::default();
        aligner.analyse(text, &mut out);
        out
    }

    const PARAMS: UnorderedParams = UnorderedParams { min_share: 0.6, min_chars: 250 };

    fn found(suspicious: &str, source: &str, taken: &[AlignedPassage]) -> Vec<Reordered> {
        let (a, b) = (sentences(suspicious), sentences(source));
        let mut out = Vec::new();
        unordered_passages(&a, &b, &PARAMS, taken, &mut UnorderedScratch::default(), &mut out);
        out
    }

    /// A source of 3000 words, and a suspicious document of 2000 other
    /// words with the source's words 1000..1400 shuffled in after its first
    /// 900; the passage's ranges in both.
    fn shuffled_copy(words: usize) -> (String, String, CharRange, CharRange) {
        let source = text(1, 3000, 5000);
        let other = text(2, 2000, 5000);
        let copied = &source[1000..1000 + words];
        let before = other[..900].join(" ") + " ";
        let copy = shuffled(copied, 7).join(" ");
        let suspicious = format!("{before}{copy} {}", other[900..].join(" "));
        let source_before = source[..1000].join(" ").chars().count() as u32 + 1;
        let source_range = CharRange::new(source_before, source_before + copied.join(" ").chars().count() as u32);
        let this_start = before.chars().count() as u32;
        let this_range = CharRange::new(this_start, this_start + copy.chars().count() as u32);
        (suspicious, source.join(" "), this_range, source_range)
    }

    /// Characters that `a` and `b` do not share, over both.
    fn missed(a: CharRange, b: CharRange) -> u32 {
        a.len() + b.len() - 2 * a.overlap_len(&b)
    }

    #[test]
    fn a_word_shuffled_copy_is_one_passage_with_the_source_range_of_its_words() {
        for words in [60, 400] {
            let (suspicious, source, this_range, source_range) = shuffled_copy(words);
            let passages = found(&suspicious, &source, &[]);
            assert_eq!(passages.len(), 1, "{words} words: {passages:?}");
            let passage = passages[0].passage;
            // The ends may miss a word whose occurrences elsewhere make it common.
            assert!(missed(passage.suspicious, this_range) < 40, "{words} words: {passage:?} {this_range:?}");
            assert!(missed(passage.source, source_range) < 40, "{words} words: {passage:?} {source_range:?}");
            assert!(passages[0].share > 0.95);
        }
    }

    #[test]
    fn documents_of_one_vocabulary_without_a_copy_give_nothing() {
        // A small vocabulary: every word is in both documents, few are rare.
        let small = found(&text(3, 3000, 800).join(" "), &text(4, 3000, 800).join(" "), &[]);
        assert!(small.is_empty(), "{small:?}");
        assert!(found(&text(3, 3000, 5000).join(" "), &text(4, 3000, 5000).join(" "), &[]).is_empty());
    }

    #[test]
    fn a_copy_where_a_passage_lies_already_is_not_found_again() {
        let (suspicious, source, this_range, source_range) = shuffled_copy(400);
        let taken = AlignedPassage { suspicious: this_range, source: source_range, exact: true };
        assert!(found(&suspicious, &source, &[taken]).is_empty());
    }

    #[test]
    fn a_shuffled_copy_of_a_whole_short_source_is_found_in_a_short_document() {
        let source = text(5, 120, 5000);
        let copy = shuffled(&source, 3).join(" ");
        let passages = found(&copy, &source.join(" "), &[]);
        assert_eq!(passages.len(), 1, "{passages:?}");
        assert!(passages[0].passage.suspicious.len() as usize > copy.chars().count() * 9 / 10);
    }
}
