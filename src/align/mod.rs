//! Text alignment for obfuscated and paraphrased passages (the `best` preset).
//!
//! PAN's two-stage design: the chunk index finds *candidate* document pairs
//! fast (with permissive chunks, see [`crate::analysis::candidates`]); this module then aligns the
//! sentences of each candidate pair, after the strongest PAN 2012–2015 text
//! alignment systems (Sanchez-Perez, Sidorov and Gelbukh 2014; Torrejón and
//! Ramos; Glinos):
//!
//! 1. [`sentences`]: each document as sentences with character ranges, each
//!    sentence a bag of stemmed content words ([`crate::analysis::stem`], optional
//!    [`crate::analysis::synonyms`]);
//! 2. [`seed`]: sentence pairs with tf-idf cosine and Dice coefficient above
//!    their thresholds;
//! 3. [`extend`](mod@extend): seeds clustered into passages on both sides with a gap that
//!    shrinks until the passage is alike as a whole, and neighbouring passages
//!    merged over gaps that grow with their length; in pairs without a
//!    verbatim run each end grown by one alike sentence ([`grow_ends`]);
//! 4. [`filter`]: short and thinly seeded passages dropped;
//! 5. [`stock`]: passages whose sides share mostly the collection's stock
//!    phrases (its formulas) dropped, and [`names`]: passages whose sides
//!    each name other particulars than the other's dropped.
//!
//! A passage runs from its first sentence's first character to its last
//! sentence's last, on each side.

pub mod extend;
pub mod filter;
pub mod params;
pub mod seed;
pub mod names;
pub mod semantic;
pub mod sentences;
pub mod stock;
pub mod summary;
pub mod unordered;
pub mod verbatim;

use std::cell::OnceCell;

use crate::align::params::AlignParams;

use crate::analysis::stem::LanguageSetting;

use crate::analysis::span::{CharIndexed, CharRange, skip_chars};
use crate::analysis::stem::{Language, WordStemmer, guess_language};
use crate::analysis::tokenize::{Tokenizer, TokenizerParams, Tokens};

use crate::analysis::synonyms::Synonyms;
use crate::embed::Embedder;
use extend::{ExtendParams, Fragment, Pair, extend, grow_ends};
use filter::{Candidate, FilterParams, Likeness, Verdict, expands_its_source, judge};
use names::names_differ;
use seed::{Idf, Seed, SeedScratch, seeds};
use semantic::{
    SEMANTIC_CANDIDATE_REACH, SEMANTIC_CANDIDATE_SIMILARITY, add_semantic_passages, covered, drop_summaries_made_of,
    keep_close_in_meaning, keep_in_runs, semantic_passages,
};
use sentences::{Sentence, Sentences, Terms, sentences_of};
use stock::StockPhrases;
use summary::{
    SummaryCriteria, condense_their_sources, is_copy_of_stretch, replace_pieces, retold_whole, summaries,
    summaries_from_pieces, summary_adds_particulars, summary_grows_pieces, summary_source,
};
use unordered::{Reordered, UnorderedParams, UnorderedScratch, unordered_passages};
use verbatim::{
    Chain, MIN_STANDALONE_WORDS, VerbatimScratch, bound_by_chains, is_mostly_verbatim, verbatim_chains, verbatim_core,
};

/// The order-free stage's thresholds under `params`: their least share, and
/// their least passage length but at least [`UNORDERED_MIN_CHARS`].
fn unordered_params(params: &AlignParams) -> UnorderedParams {
    UnorderedParams {
        min_share: params.unordered_min_share as f32,
        min_chars: params.min_passage_chars.max(UNORDERED_MIN_CHARS),
    }
}

/// Words of a document read to guess its language.
const LANGUAGE_SAMPLE_WORDS: usize = 2000;

/// An aligned passage: its range in the suspicious and in the source document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct AlignedPassage {
    /// Characters in the suspicious document.
    pub suspicious: CharRange,
    /// Characters in the source document.
    pub source: CharRange,
    /// Bounded by verbatim runs ([`verbatim`]) rather than by sentences.
    pub exact: bool,
}

/// Prepares documents and aligns pairs of them; one per thread, to reuse its
/// buffers and stemmers.
#[derive(Debug)]
pub struct Aligner<'a> {
    params: AlignParams,
    tokenizer: Tokenizer,
    synonyms: Option<&'a Synonyms>,
    stock: Option<&'a StockPhrases>,
    /// The sentence encoder of the meaning-level alignment ([`semantic`]).
    embedder: Option<&'a Embedder>,
    terms: Vec<Terms<'a>>,
    tokens: Tokens,
    idf: Idf,
    scratch: SeedScratch,
    seeds: Vec<Seed>,
    verbatim: VerbatimScratch,
    chains: Vec<Chain>,
    passages: Vec<AlignedPassage>,
    held: Vec<AlignedPassage>,
    /// The passages of the pair being aligned as their seeds made them, and
    /// with their ends grown ([`grow_ends`]).
    grown: Vec<(AlignedPassage, AlignedPassage)>,
    unordered: UnorderedScratch,
    /// The order-free passages of the pair being aligned (a buffer).
    reordered: Vec<Reordered>,
}

impl<'a> Aligner<'a> {
    /// An aligner with validated parameters.
    pub fn new(tokenizer: TokenizerParams, params: AlignParams, synonyms: Option<&'a Synonyms>) -> Self {
        Aligner {
            params,
            tokenizer: Tokenizer::new(tokenizer),
            synonyms,
            stock: None,
            embedder: None,
            terms: Vec::new(),
            tokens: Tokens::default(),
            idf: Idf::default(),
            scratch: SeedScratch::default(),
            seeds: Vec::new(),
            verbatim: VerbatimScratch::default(),
            chains: Vec::new(),
            passages: Vec::new(),
            held: Vec::new(),
            grown: Vec::new(),
            unordered: UnorderedScratch::default(),
            reordered: Vec::new(),
        }
    }

    /// This aligner with the collection's stock phrases: passages that share
    /// mostly stock phrases are dropped ([`StockPhrases::is_formulaic`]).
    pub fn with_stock_phrases(self, stock: Option<&'a StockPhrases>) -> Self {
        Aligner { stock, ..self }
    }

    /// This aligner with a sentence encoder: the sentences it analyses get
    /// their embeddings, and sentence pairs whose embeddings are close seed
    /// passages too ([`semantic`], [`AlignParams::semantic_seed_cosine`]).
    pub fn with_embedder(self, embedder: Option<&'a Embedder>) -> Self {
        Aligner { embedder, ..self }
    }

    fn terms(&mut self, language: Option<Language>) -> &mut Terms<'a> {
        let index = match self.terms.iter().position(|t| t.language() == language) {
            Some(index) => index,
            None => {
                self.terms.push(Terms::new(WordStemmer::new(language), self.synonyms));
                self.terms.len() - 1
            }
        };
        &mut self.terms[index]
    }

    /// Cuts `text` into sentences of stemmed content words.
    pub fn analyse(&mut self, text: &str, out: &mut Sentences) {
        self.tokenizer.tokenize(text, &mut self.tokens);
        let language = match self.params.language {
            LanguageSetting::Auto => guess_language(&self.tokens, LANGUAGE_SAMPLE_WORDS),
            LanguageSetting::None => None,
            LanguageSetting::Fixed(language) => Some(language),
        };
        let min_words = self.params.min_sentence_words;
        let tokens = std::mem::take(&mut self.tokens);
        sentences_of(text, &tokens, self.terms(language), min_words, out);
        self.tokens = tokens;
        if self.embedder.is_some() {
            for sentence in sentence_texts(text, &out.sentences) {
                out.texts.push(sentence);
            }
        }
    }

    /// Like [`analyse`](Self::analyse) for the characters `window` of `text` only
    /// (the window may run past the end of the text); ranges still count from
    /// the start of `text`.
    pub fn analyse_window(&mut self, text: &CharIndexed<'_>, window: CharRange, out: &mut Sentences) {
        let (start, slice) = text.window(window);
        self.analyse(slice, out);
        out.shift(start);
    }

    /// Appends to `out` the passages of `suspicious` aligned with `source`,
    /// with the seed, passage and summary thresholds of `thresholds` (the
    /// aligner's own, or those [`AlignParams::for_candidate`] gives a candidate
    /// region). `anchors` are the ranges of structure chunks the two share;
    /// each makes a seed of the sentences it starts in. Mostly verbatim
    /// passages are bounded by their verbatim runs, the others that hold a
    /// copy lose the ends that run on past it over unrelated sentences, and
    /// long runs no passage covers are added ([`verbatim`]). With the
    /// collection's stock phrases, formulaic passages are dropped, held back
    /// ones too ([`stock`]); so are passages that are not verbatim and whose
    /// sides each name other particulars ([`names`]), and passages more than
    /// twice as long as their source side ([`filter::MAX_EXPANSION_RATIO`]).
    pub fn align(
        &mut self,
        thresholds: &AlignParams,
        suspicious: &Sentences,
        source: &Sentences,
        anchors: &[(CharRange, CharRange)],
        out: &mut Vec<AlignedPassage>,
    ) {
        self.held.clear();
        if suspicious.is_empty() || source.is_empty() {
            return;
        }
        let mut passages = std::mem::take(&mut self.passages);
        passages.clear();
        verbatim_chains(&suspicious.sequence, &source.sequence, &mut self.verbatim, &mut self.chains);
        let has_verbatim_run = self.chains.iter().any(|c| c.words() >= MIN_STANDALONE_WORDS);
        let params = thresholds.for_pair(has_verbatim_run);
        self.align_sentences(&params, suspicious, source, anchors, !has_verbatim_run, &mut passages);
        if params.second_seed_similarity > 0.0 && !has_verbatim_run && passages.is_empty() && self.held.is_empty() {
            let lower = params.second_seed_similarity;
            // `params` already hold this pair's seeds (no verbatim run): the lower ones replace them.
            let second = AlignParams { seed_cosine: lower, seed_dice: lower, ..params };
            self.align_sentences(&second, suspicious, source, anchors, true, &mut passages);
        }
        if !has_verbatim_run {
            merge_adjacent(&mut passages);
        }
        let is_copy = |p: &AlignedPassage| is_mostly_verbatim(suspicious, source, &self.chains, p);
        if params.summary_seed_similarity > 0.0 && may_be_summary_pieces(has_verbatim_run, &passages, is_copy) {
            // The pair (with its term counts) is made only for a run that
            // passes for a summary, and once for all such runs.
            let pair = OnceCell::new();
            let source_of = |this| summary_source(pair.get_or_init(|| Pair::new(suspicious, source, &self.idf)), this);
            summaries_from_pieces(source_of, &mut passages);
        }
        bound_by_chains(suspicious, source, &self.chains, &mut passages);
        if has_verbatim_run {
            self.cut_unmatched_ends(suspicious, source, &mut passages);
        }
        drop_contained(&mut passages);
        if has_verbatim_run {
            merge_continuations(&mut passages);
        }
        if params.semantic_seed_cosine > 0.0 {
            self.add_semantic(&params, suspicious, source, &mut passages);
        }
        if params.unordered_min_share > 0.0 {
            let unordered = unordered_params(&params);
            self.reordered.clear();
            let exact = passages.iter().filter(|p| p.exact);
            unordered_passages(suspicious, source, &unordered, exact, &mut self.unordered, &mut self.reordered);
            take_their_places(&mut self.reordered, &mut passages);
            take_their_places(&mut self.reordered, &mut self.held);
            passages.extend(self.reordered.iter().map(|r| r.passage));
        }
        passages.retain(|p| self.is_told_from_scaffolding(suspicious, source, p));
        let mut held = std::mem::take(&mut self.held);
        held.retain(|p| self.is_told_from_scaffolding(suspicious, source, p));
        self.held = held;
        let expands = |p: &AlignedPassage| !p.exact && expands_its_source(p.suspicious, p.source);
        passages.retain(|p| !expands(p));
        self.held.retain(|p| !expands(p));
        out.extend_from_slice(&passages);
        self.passages = passages;
    }

    /// Appends to `out` the order-free passages of `suspicious` and `source`
    /// alone ([`unordered`]), with the filters [`align`](Self::align) applies
    /// to every passage: for a region where the pair shares no chunk in
    /// order, which the sentence alignment would search at a cost for
    /// nothing.
    pub fn align_unordered(
        &mut self,
        thresholds: &AlignParams,
        suspicious: &Sentences,
        source: &Sentences,
        out: &mut Vec<AlignedPassage>,
    ) {
        self.held.clear();
        if thresholds.unordered_min_share <= 0.0 || suspicious.is_empty() || source.is_empty() {
            return;
        }
        let unordered = unordered_params(thresholds);
        self.reordered.clear();
        unordered_passages(suspicious, source, &unordered, [], &mut self.unordered, &mut self.reordered);
        if self.reordered.is_empty() {
            return;
        }
        // The pair's idf tells names apart, for the passages found only.
        self.idf.compute(suspicious, source);
        out.extend(
            self.reordered.iter().map(|r| r.passage).filter(|p| self.is_told_from_scaffolding(suspicious, source, p)),
        );
    }

    /// Adds to `passages` those that sentence pairs with close embeddings
    /// make ([`semantic`]), where words fail: of the sentences that no
    /// passage covers on either side (a summary aside: its source side
    /// covers too much to say where its sentences come from), pairs that
    /// share some words ([`SEMANTIC_CANDIDATE_SIMILARITY`]) beside another
    /// such pair ([`keep_in_runs`]) are embedded and compared. Summaries
    /// that passages found so hold half of, out of their source's order, are
    /// dropped ([`drop_summaries_made_of`]). Nothing without a model. The pair's idf
    /// is that of the last [`align_sentences`](Self::align_sentences).
    fn add_semantic(
        &mut self,
        params: &AlignParams,
        suspicious: &Sentences,
        source: &Sentences,
        passages: &mut Vec<AlignedPassage>,
    ) {
        let Some(embedder) = self.embedder else { return };
        self.seeds.clear();
        let low = SEMANTIC_CANDIDATE_SIMILARITY;
        seeds(suspicious, source, &self.idf, low, 0.0, &mut self.scratch, &mut self.seeds);
        let words = passages.iter().filter(|p| !condenses_its_source(p));
        let this_covered = covered(suspicious, words.clone().map(|p| p.suspicious));
        let that_covered = covered(source, words.map(|p| p.source));
        self.seeds.retain(|s| !this_covered[s.suspicious as usize] && !that_covered[s.source as usize]);
        keep_in_runs(&mut self.seeds, SEMANTIC_CANDIDATE_REACH);
        keep_close_in_meaning(embedder, suspicious, source, params.semantic_seed_cosine as f32, &mut self.seeds);
        if self.seeds.is_empty() {
            return;
        }
        let pair = Pair::new(suspicious, source, &self.idf);
        let mut found = Vec::new();
        semantic_passages(&pair, params, &mut self.seeds, &mut found);
        drop_summaries_made_of(&found, passages);
        add_semantic_passages(&found, passages);
    }

    /// Whether `passage` is more than text written on one scaffolding: it
    /// does not share mostly the collection's stock phrases
    /// ([`StockPhrases::is_formulaic`]), and, unless exact, its sides do not
    /// each name other particulars ([`names_differ`], with the pair's idf).
    fn is_told_from_scaffolding(&self, suspicious: &Sentences, source: &Sentences, passage: &AlignedPassage) -> bool {
        !self.stock.is_some_and(|stock| stock.is_formulaic(suspicious, source, passage))
            && (passage.exact || !names_differ(suspicious, source, &self.idf, passage))
    }

    /// Cuts each passage that holds a verbatim copy back to the copy where an
    /// end runs on over unrelated text ([`without_unmatched_ends`]).
    fn cut_unmatched_ends(&self, suspicious: &Sentences, source: &Sentences, passages: &mut [AlignedPassage]) {
        let pair = Pair::new(suspicious, source, &self.idf);
        for passage in passages.iter_mut().filter(|p| !p.exact) {
            if let Some(core) = verbatim_core(suspicious, source, &self.chains, passage) {
                *passage = without_unmatched_ends(&pair, passage, &core);
            }
        }
    }

    /// How alike the two sides of `passage`, a passage of the pair last
    /// aligned ([`align`](Self::align)), are, in thousandths, as the overlap
    /// policy weighs passages of different sources over one stretch
    /// ([`crate::matching::overlap::Passage::likeness`]): of the sentences its
    /// ranges reach into, how much of the suspicious side the source side
    /// holds ([`Pair::coverage_and_cosine`]) times their tf-idf cosine (both with that
    /// pair's idf).
    ///
    /// The cosine alone is lowered by every source sentence the passage ran on
    /// over, so a true source whose side ran a few alike sentences too far lost
    /// the stretch to a source holding a parallel text (a word-shuffled copy
    /// of Exodus 36 went to Exodus 26, whose curtains it lacks the wording of);
    /// the coverage counts what each source holds of the suspicious words.
    /// Measured on 2026-11-30 against the cosine alone: pan13-ta-train 0.9364
    /// -> 0.9369 with the pairs given (translation 0.9137 -> 0.9149), 0.9168
    /// -> 0.9175 in full search; the King James Bible corpus, seed 2028, 0.8003
    /// -> 0.8025 (seeds 2026 and 2027, dev-en, Clough's answers, the language
    /// and the independent corpora unchanged). The coverage alone cost
    /// translation 0.0008 with the pairs given (a long source side holds more);
    /// times the cosine squared or cubed, within 0.0003 of this.
    pub fn likeness(&self, suspicious: &Sentences, source: &Sentences, passage: &AlignedPassage) -> u16 {
        let (Some(this), Some(that)) =
            (sentences_reached(suspicious, passage.suspicious), sentences_reached(source, passage.source))
        else {
            return 0;
        };
        let (coverage, cosine) =
            Pair::new(suspicious, source, &self.idf).coverage_and_cosine(&Fragment::unseeded(this, that));
        ((coverage * cosine).clamp(0.0, 1.0) * 1000.0).round() as u16
    }

    /// The passages of the last [`align`](Self::align) that are passages only
    /// where the suspicious document copies much elsewhere
    /// ([`Verdict::IfTheDocumentCopies`]).
    pub fn held(&self) -> &[AlignedPassage] {
        &self.held
    }

    /// The passages of the sentence alignment alone; with `grow`, their ends
    /// grown ([`grow_ends`]).
    fn align_sentences(
        &mut self,
        params: &AlignParams,
        suspicious: &Sentences,
        source: &Sentences,
        anchors: &[(CharRange, CharRange)],
        grow: bool,
        out: &mut Vec<AlignedPassage>,
    ) {
        self.idf.compute(suspicious, source);
        self.seeds.clear();
        let (min_cosine, min_dice) = (params.seed_cosine as f32, params.seed_dice as f32);
        seeds(suspicious, source, &self.idf, min_cosine, min_dice, &mut self.scratch, &mut self.seeds);
        for (a, b) in anchors {
            if let (Some(i), Some(j)) = (sentence_at(suspicious, a.start), sentence_at(source, b.start)) {
                self.seeds.push(Seed { suspicious: i, source: j, structural: true });
            }
        }
        // One seed per sentence pair; structural when any of its duplicates is.
        self.seeds.sort_unstable_by_key(|s| (s.suspicious, s.source, std::cmp::Reverse(s.structural)));
        self.seeds.dedup_by_key(|s| (s.suspicious, s.source));
        let pair = Pair::new(suspicious, source, &self.idf);
        self.grown.clear();
        if !self.seeds.is_empty() {
            let grown = grow.then_some(&mut self.grown);
            passages_from_seeds(params, &pair, &mut self.seeds, out, &mut self.held, grown);
        }
        let is_verbatim = |p: &AlignedPassage| is_mostly_verbatim(suspicious, source, &self.chains, p);
        // No summary takes a copy in; with none, the one summary found replaces
        // passages that condense their source, and others it must grow.
        if params.summary_seed_similarity > 0.0 && !out.iter().any(|p| is_copy_of_stretch(p, is_verbatim)) {
            let condensing = out.is_empty() || condense_their_sources(out, is_verbatim);
            let low = params.summary_seed_similarity as f32;
            self.seeds.clear();
            seeds(suspicious, source, &self.idf, low, low, &mut self.scratch, &mut self.seeds);
            // A document condenses one source once: several clusters that
            // each pass for a summary of it are a shared topic instead. A
            // short text with none may retell the source whole.
            match summaries(&pair, &mut self.seeds, SummaryCriteria::LOW_SEEDS.under(params))[..] {
                [(this, source)]
                    if (condensing && summary_adds_particulars(&pair, this, out))
                        || summary_grows_pieces(&pair, &self.seeds, this, out) =>
                {
                    replace_pieces(AlignedPassage { suspicious: this, source, exact: false }, out)
                }
                [] if out.is_empty() => out.extend(retold_whole(&pair, &self.seeds)),
                _ => {}
            }
        }
        with_grown_ends(out, &self.grown);
    }
}

/// Drops each order-free passage of `reordered` that passages of the same
/// stretch of the source hold three quarters of, and makes each other one with the
/// passages (not exact ones) whose suspicious side overlaps it. A summary (a passage that
/// condenses its source [`filter::MAX_EXPANSION_RATIO`] times or more) that
/// holds half of an order-free passage's suspicious side keeps its place,
/// and the order-free passage, a piece of it, is dropped, unless its sides
/// hold each other's words as a copy's do ([`REORDERED_COPY_SHARE`]): then
/// the summary was made of a reordered copy's sentences. Passages whose
/// source side overlaps its source side (summaries aside) are pieces of the
/// same copy and widen it on both sides; the others that lie for at least
/// half of their suspicious side within it are dropped (a stray seed's
/// piece).
fn take_their_places(reordered: &mut Vec<Reordered>, passages: &mut Vec<AlignedPassage>) {
    let holds_half =
        |p: &AlignedPassage, r: &AlignedPassage| 2 * p.suspicious.overlap_len(&r.suspicious) >= r.suspicious.len();
    let is_piece_of = |r: &Reordered, summary: &AlignedPassage| {
        condenses_its_source(summary) && holds_half(summary, &r.passage) && r.share < REORDERED_COPY_SHARE
    };
    // Where passages of the same stretch of the source (summaries aside) hold
    // three quarters of an order-free passage, the copy kept enough of its
    // order for them, and their sentence boundaries are the better ones.
    let found_in_order = |r: &Reordered| {
        let held: u32 = passages
            .iter()
            .filter(|p| !condenses_its_source(p) && p.source.overlaps(&r.passage.source))
            .map(|p| p.suspicious.overlap_len(&r.passage.suspicious))
            .sum();
        4 * held >= 3 * r.passage.suspicious.len()
    };
    reordered.retain(|r| !found_in_order(r) && !passages.iter().any(|p| is_piece_of(r, p)));
    passages.retain(|p| {
        if p.exact {
            return true;
        }
        let Some(r) = reordered.iter_mut().find(|r| r.passage.suspicious.overlaps(&p.suspicious)) else {
            return true;
        };
        if r.passage.source.overlaps(&p.source) && !condenses_its_source(p) {
            r.passage = covering(&r.passage, p);
            false
        } else {
            !holds_half(&r.passage, p)
        }
    });
}

/// Whether `passage` is a summary: its source side expands its suspicious
/// side past [`filter::MAX_EXPANSION_RATIO`].
fn condenses_its_source(passage: &AlignedPassage) -> bool {
    expands_its_source(passage.source, passage.suspicious)
}

/// The text of each of `sentences` (in order, not overlapping, with
/// character ranges into `text`).
fn sentence_texts<'t, 's>(text: &'t str, sentences: &'s [Sentence]) -> impl Iterator<Item = &'t str> + 's
where
    't: 's,
{
    let (mut byte, mut char) = (0, 0);
    sentences.iter().map(move |sentence| {
        let start = skip_chars(text, byte, (sentence.range.start - char) as usize).unwrap_or(text.len());
        let end = skip_chars(text, start, sentence.range.len() as usize).unwrap_or(text.len());
        (byte, char) = (start, sentence.range.start);
        &text[start..end]
    })
}

/// Least characters on each side of an order-free passage, also where
/// document pairs are given: a shorter one is a sentence or two that share
/// their words, most often in their order and then not a reordered copy
/// (pan13-ta-train's summaries held such).
const UNORDERED_MIN_CHARS: u32 = 250;

/// An order-free passage whose sides hold this share of each other's words
/// ([`Reordered::share`]) is a reordered copy, not a piece of a summary.
const REORDERED_COPY_SHARE: f32 = 0.85;

/// Each of `passages` that `grown` has as its seeds made it, with its ends
/// grown.
fn with_grown_ends(passages: &mut [AlignedPassage], grown: &[(AlignedPassage, AlignedPassage)]) {
    for passage in passages {
        if let Some((_, with_ends)) = grown.iter().find(|(seeded, _)| seeded == passage) {
            *passage = *with_ends;
        }
    }
}

/// The passages of `pair` that `seeds` extend to, and the summaries among
/// them; those the filter keeps only where the document copies elsewhere go
/// to `held`. With `grown`, each fragment is judged with its ends grown
/// ([`grow_ends`]), but goes to `out` as its seeds made it and to `grown`
/// both ways: whether a summary of the source replaces the passages is
/// weighed on them as seeded (a grown end may reach past the summary's
/// sentences, which must hold them all; pan13-ta-train's summaries lost
/// 0.006 with the pairs given).
///
/// Ends are grown in pairs without a verbatim run (where verbatim chains
/// do not bound the passages; in all pairs, no obfuscation lost 0.0017 with
/// the pairs given). Measured 2026-11-29 against none: pan13-ta-train with
/// the pairs given 0.9313 -> 0.9346 (random 0.9207 -> 0.9275, translation
/// 0.9080 -> 0.9122), full search 0.9136 -> 0.9169 (random 0.8912 ->
/// 0.8999); dev-en 0.9696 -> 0.9685; the King James Bible corpus 0.8888 ->
/// 0.8887, 0.8373 -> 0.8381 and 0.7967 -> 0.7930 on seeds 2026-2028 (the
/// Bible's own parallels, which its truth does not list, grew longer);
/// Clough's answers, the six languages and the independent corpora within
/// 0.0002. With a cosine of 0.2 the pairs given gained 0.0010 more and full
/// search 0.0014 less, with 0.3 both 0.0010 less; a second sentence per end
/// or a reach of 1 or 3 gained nothing.
fn passages_from_seeds(
    params: &AlignParams,
    pair: &Pair<'_>,
    seeds: &mut [Seed],
    out: &mut Vec<AlignedPassage>,
    held: &mut Vec<AlignedPassage>,
    mut grown: Option<&mut Vec<(AlignedPassage, AlignedPassage)>>,
) {
    let extend_params = ExtendParams {
        max_gap: params.max_gap,
        min_cosine: params.min_passage_cosine as f32,
        merge_gap_ratio: params.merge_gap_ratio,
        merge_gap_chars: params.merge_gap_chars,
    };
    let filter = FilterParams {
        min_chars: params.min_passage_chars,
        min_seeds: params.min_seeds as u32,
        min_pair_overlap: params.min_pair_overlap as f32,
        waiver_cosine: params.pair_overlap_waiver_cosine as f32,
        min_rare_share: params.min_rare_share as f32,
        uncorroborated: params.uncorroborated,
    };
    for seeded in extend(pair, seeds, &extend_params) {
        let fragment = if grown.is_some() { grow_ends(pair, seeded) } else { seeded };
        let (this, source) = pair.ranges(&fragment);
        let candidate = Candidate { suspicious: this, source, seeds: fragment.seeds, seed_lines: fragment.seed_lines };
        let passage = AlignedPassage { suspicious: this, source, exact: false };
        match judge(&candidate, &filter, &FragmentLikeness::new(pair, &fragment)) {
            Verdict::Kept => out.push(match grown.as_deref_mut() {
                Some(grown) if fragment != seeded => {
                    let (this, source) = pair.ranges(&seeded);
                    let as_seeded = AlignedPassage { suspicious: this, source, exact: false };
                    grown.push((as_seeded, passage));
                    as_seeded
                }
                _ => passage,
            }),
            Verdict::IfTheDocumentCopies => held.push(passage),
            Verdict::Dropped => {}
        }
    }
    for (this, source) in summaries(pair, seeds, SummaryCriteria::PASSAGE_SEEDS.under(params)) {
        add_summary(AlignedPassage { suspicious: this, source, exact: false }, out);
    }
}

/// The measures of a fragment of a pair, for the filter, each computed once:
/// a passage that nothing corroborates is filtered twice
/// ([`crate::align::filter::judge`]), and asks for its rare-term share up to
/// three times.
struct FragmentLikeness<'p> {
    pair: &'p Pair<'p>,
    fragment: &'p Fragment,
    pair_overlap: OnceCell<f32>,
    cosine_and_structure: OnceCell<(f32, bool)>,
    content_share: OnceCell<f32>,
    rare_share: OnceCell<f32>,
}

impl<'p> FragmentLikeness<'p> {
    fn new(pair: &'p Pair<'p>, fragment: &'p Fragment) -> Self {
        FragmentLikeness {
            pair,
            fragment,
            pair_overlap: OnceCell::new(),
            cosine_and_structure: OnceCell::new(),
            content_share: OnceCell::new(),
            rare_share: OnceCell::new(),
        }
    }
}

impl Likeness for FragmentLikeness<'_> {
    fn pair_overlap(&self) -> f32 {
        *self.pair_overlap.get_or_init(|| self.pair.pair_overlap(self.fragment))
    }

    fn cosine_and_structure(&self) -> (f32, bool) {
        *self.cosine_and_structure.get_or_init(|| {
            let cosine = self.pair.cosine(self.fragment);
            (cosine, self.fragment.structurally_supported(cosine))
        })
    }

    fn content_share(&self) -> f32 {
        *self.content_share.get_or_init(|| self.pair.content_share(self.fragment))
    }

    fn rare_share(&self) -> f32 {
        *self.rare_share.get_or_init(|| self.pair.rare_share(self.fragment))
    }
}

/// Passages at most this many characters apart in the suspicious document ...
pub const ADJACENT_SUSPICIOUS_GAP: u32 = 200;
/// ... whose source sides overlap or lie at most this many characters apart
/// are one passage.
pub const ADJACENT_SOURCE_GAP: u32 = 300;

/// Merges neighbouring passages of a pair that are adjacent in the suspicious
/// document and whose sources overlap or nearly touch
/// ([`ADJACENT_SUSPICIOUS_GAP`], [`ADJACENT_SOURCE_GAP`]); for pairs without
/// a verbatim run only. Random obfuscation moves words and phrases, so a
/// case's seeds leave one diagonal and the alignment cuts it where they jump
/// back; its pieces then overlap in the source, which the merge of
/// [`extend`](mod@extend) refuses. On pan13-ta-train 30 of 1267 random cases
/// were cut in two (random 0.8914 -> 0.9054, translation 0.8833 -> 0.8917,
/// granularity 1.023 -> 1.002). Verbatim copies of one source in another
/// order also lie side by side with touching sources, and stay apart.
fn merge_adjacent(passages: &mut Vec<AlignedPassage>) {
    merge_sorted(passages, |last, next| {
        let adjacent = last.suspicious.gap(&next.suspicious) <= ADJACENT_SUSPICIOUS_GAP
            && last.source.gap(&next.source) <= ADJACENT_SOURCE_GAP;
        adjacent.then(|| AlignedPassage { exact: last.exact, ..covering(last, next) })
    });
}

/// Sorts `passages` and replaces each one and the last kept before it by
/// what `join` makes of the two, where it makes one.
fn merge_sorted(
    passages: &mut Vec<AlignedPassage>,
    join: impl Fn(&AlignedPassage, &AlignedPassage) -> Option<AlignedPassage>,
) {
    passages.sort_unstable();
    let mut kept = 0;
    for i in 0..passages.len() {
        let next = passages[i];
        if kept > 0
            && let Some(joined) = join(&passages[kept - 1], &next)
        {
            passages[kept - 1] = joined;
            continue;
        }
        passages[kept] = next;
        kept += 1;
    }
    passages.truncate(kept);
}

/// The passage that covers both sides of `a` and of `b`, not exact.
fn covering(a: &AlignedPassage, b: &AlignedPassage) -> AlignedPassage {
    AlignedPassage { suspicious: a.suspicious.cover(&b.suspicious), source: a.source.cover(&b.source), exact: false }
}

/// Whether the passages of a pair may be pieces of one summary
/// ([`summaries_from_pieces`]): in a pair without a verbatim run, or with one
/// (a summary may copy a sentence) where none of them is a copy (`is_copy`).
fn may_be_summary_pieces(
    has_verbatim_run: bool,
    passages: &[AlignedPassage],
    is_copy: impl Fn(&AlignedPassage) -> bool,
) -> bool {
    !has_verbatim_run || !passages.iter().any(is_copy)
}

/// How far the next passage's source side may start ahead of the last one's,
/// as a share of how far its suspicious side starts ahead, for the two to be
/// one passage (`merge_continuations`): on one diagonal, give or take half.
pub const CONTINUATION_ADVANCE: std::ops::RangeInclusive<f32> = 0.5..=1.5;

/// Merges neighbouring passages of a pair with a verbatim run where the next
/// continues the last: adjacent in the suspicious document
/// ([`ADJACENT_SUSPICIOUS_GAP`]), their sources overlapping, and the next's
/// source starting ahead of the last's by about as much as its suspicious
/// side does ([`CONTINUATION_ADVANCE`]). The alignment ended a case there and
/// a verbatim chain or a second passage of the same case goes on: in
/// Chinese and Japanese text the last characters of a case came out as a
/// second passage. Verbatim copies of one source in another order (sources
/// side by side, not overlapping) and a repeat of the source's own text (a
/// source side behind the last's) stay apart, and an exact passage stays
/// exact when it holds the other. The Chinese corpus 0.9666 -> 0.9954 and
/// the Japanese one 0.9253 -> 0.9902 (granularity 1.04 and 1.10 -> 1.00),
/// the King James Bible corpus 0.8890 -> 0.8909 and 0.7991 -> 0.8003 on
/// seeds 2026 and 2028 (precision 0.8181 -> 0.8213 and 0.6746 -> 0.6764),
/// pan13-ta-train 0.92140 -> 0.92144 with the pairs given and 0.90272 ->
/// 0.90275 in full search (translation +0.0002 and +0.0001); dev-en, Clough's
/// answers, the other language corpora and the independent corpus unchanged.
/// Merging wherever the sources overlap cost pan13-ta-train's verbatim cases
/// 0.0012 in full search: a passage with a wrong source side, where the
/// source repeats itself, took in its neighbour.
fn merge_continuations(passages: &mut Vec<AlignedPassage>) {
    merge_sorted(passages, |last, next| {
        continues(last, next).then(|| {
            let merged = covering(last, next);
            let is_merged = |p: &AlignedPassage| p.suspicious == merged.suspicious && p.source == merged.source;
            AlignedPassage { exact: (last.exact && is_merged(last)) || (next.exact && is_merged(next)), ..merged }
        })
    });
}

/// Whether `next`, which starts no earlier than `last` in the suspicious
/// document, continues it ([`merge_continuations`]).
fn continues(last: &AlignedPassage, next: &AlignedPassage) -> bool {
    let advance = (next.suspicious.start - last.suspicious.start) as f32;
    let source_advance = next.source.start as f32 - last.source.start as f32;
    last.suspicious.gap(&next.suspicious) <= ADJACENT_SUSPICIOUS_GAP
        && last.source.overlaps(&next.source)
        && CONTINUATION_ADVANCE.contains(&(source_advance / advance.max(1.0)))
}

/// Ends of a passage beyond its verbatim core whose sentences on the two
/// sides are less alike than this (tf-idf cosine) are cut off
/// (`without_unmatched_ends`).
pub const MIN_END_COSINE: f32 = 0.25;

/// A passage whose source side is at least this many times as long as its
/// suspicious side has the shape of a summary and keeps its ends.
pub const CONDENSED_RATIO: f64 = 2.0;

/// `passage` without the ends that reach past `core`, its verbatim copy, over
/// whole sentences on both sides that are less alike than [`MIN_END_COSINE`]:
/// the alignment carried a copy on into the unrelated text around it, as
/// formulaic narrative invites ("And the elders of Jabesh said unto him" after
/// a copy of 2 Kings 10, against "And when they went in to offer sacrifices").
/// An end with whole sentences on one side only is kept, and so are the ends
/// of a passage with a summary's shape ([`CONDENSED_RATIO`]): cutting the
/// former cost pan13-ta-train 0.0003 with the pairs given and 0.0007 in full
/// search, the latter its summaries 0.003 and 0.008. On pan13-ta-train
/// 0.9208 -> 0.9214 with the pairs given and 0.9019 -> 0.9027 in full search
/// (no obfuscation 0.9823 -> 0.9842 and 0.9836 -> 0.9861), the Bible corpus
/// 0.8859 -> 0.8890; dev-en 0.9699 -> 0.9701. Cosines of 0.2 and 0.25 gave the
/// same, 0.3 and 0.35 less.
fn without_unmatched_ends(pair: &Pair<'_>, passage: &AlignedPassage, core: &AlignedPassage) -> AlignedPassage {
    let mut trimmed = *passage;
    if f64::from(passage.source.len()) >= CONDENSED_RATIO * f64::from(passage.suspicious.len()) {
        return trimmed;
    }
    let head = (
        CharRange::new(passage.suspicious.start, core.suspicious.start.max(passage.suspicious.start)),
        CharRange::new(passage.source.start, core.source.start.max(passage.source.start)),
    );
    if !end_is_alike(pair, head) {
        trimmed.suspicious.start = head.0.end;
        trimmed.source.start = head.1.end;
    }
    let tail = (
        CharRange::new(core.suspicious.end.min(passage.suspicious.end), passage.suspicious.end),
        CharRange::new(core.source.end.min(passage.source.end), passage.source.end),
    );
    if !end_is_alike(pair, tail) {
        trimmed.suspicious.end = tail.0.start;
        trimmed.source.end = tail.1.start;
    }
    trimmed
}

/// Whether the end `(this, there)` of a passage (characters of the
/// suspicious and of the source document) is alike enough to keep: unless
/// both hold whole sentences, it is.
fn end_is_alike(pair: &Pair<'_>, (this, there): (CharRange, CharRange)) -> bool {
    match (sentences_within(pair.suspicious, this), sentences_within(pair.source, there)) {
        (Some(suspicious), Some(source)) => pair.cosine(&Fragment::unseeded(suspicious, source)) >= MIN_END_COSINE,
        _ => true,
    }
}

/// The first and last of the sentences that lie wholly inside `range`, if any.
fn sentences_within(sentences: &Sentences, range: CharRange) -> Option<(u32, u32)> {
    let first = sentences.sentences.partition_point(|s| s.range.start < range.start);
    let end = sentences.sentences.partition_point(|s| s.range.end <= range.end);
    (first < end).then(|| (first as u32, end as u32 - 1))
}

/// Drops each passage that another of the pair holds on both sides (a piece
/// cut to its verbatim runs inside a longer passage): as an exact passage it
/// would win the overlap and cut the longer one in two.
fn drop_contained(passages: &mut Vec<AlignedPassage>) {
    let holds = |outer: &AlignedPassage, inner: &AlignedPassage| {
        outer.suspicious.holds(&inner.suspicious) && outer.source.holds(&inner.source)
    };
    let mut i = 0;
    while i < passages.len() {
        let inner = passages[i];
        if passages.iter().enumerate().any(|(j, outer)| j != i && *outer != inner && holds(outer, &inner)) {
            passages.swap_remove(i);
        } else {
            i += 1;
        }
    }
}

/// Adds `summary` in place of the passages it takes in: those overlapping it in
/// the suspicious document that lie inside it in the source and are pieces of
/// it (shorter than half of it, or themselves condensing twice their length).
/// Any other overlapping passage, such as a copy found whole, keeps its place
/// and the summary is dropped.
fn add_summary(summary: AlignedPassage, passages: &mut Vec<AlignedPassage>) {
    let overlapping = |p: &AlignedPassage| p.suspicious.overlaps(&summary.suspicious);
    let inside = |p: &AlignedPassage| summary.source.holds(&p.source);
    let small = |p: &AlignedPassage| {
        2 * p.suspicious.len() < summary.suspicious.len() || p.source.len() >= 2 * p.suspicious.len()
    };
    if passages.iter().any(|p| overlapping(p) && !(inside(p) && small(p))) {
        return;
    }
    passages.retain(|p| !overlapping(p));
    passages.push(summary);
}

/// The first and last of the sentences that `range` reaches into, if any.
fn sentences_reached(sentences: &Sentences, range: CharRange) -> Option<(u32, u32)> {
    let first = sentences.sentences.partition_point(|s| s.range.end <= range.start);
    let end = sentences.sentences.partition_point(|s| s.range.start < range.end);
    (first < end).then(|| (first as u32, end as u32 - 1))
}

/// The sentence that holds character `at`.
fn sentence_at(sentences: &Sentences, at: u32) -> Option<u32> {
    let after = sentences.sentences.partition_point(|s| s.range.start <= at);
    let index = after.checked_sub(1)?;
    (sentences.sentences[index].range.end > at).then_some(index as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::span::char_slice;

    fn align(suspicious: &str, source: &str) -> Vec<(String, String)> {
        align_with(suspicious, source, AlignParams::default())
    }

    /// The aligner that aligned the pair, the two documents' sentences and the
    /// passages.
    fn aligned_pair(
        suspicious: &str,
        source: &str,
        params: AlignParams,
    ) -> (Aligner<'static>, Sentences, Sentences, Vec<AlignedPassage>) {
        let mut aligner = Aligner::new(TokenizerParams::default(), params, None);
        let (mut a, mut b) = (Sentences::default(), Sentences::default());
        aligner.analyse(suspicious, &mut a);
        aligner.analyse(source, &mut b);
        let mut out = Vec::new();
        aligner.align(&params, &a, &b, &[], &mut out);
        (aligner, a, b, out)
    }

    fn align_with(suspicious: &str, source: &str, params: AlignParams) -> Vec<(String, String)> {
        let (_, _, _, out) = aligned_pair(suspicious, source, params);
        out.iter()
            .map(|p| {
                (
                    char_slice(suspicious, p.suspicious).unwrap().to_string(),
                    char_slice(source, p.source).unwrap().to_string(),
                )
            })
            .collect()
    }

    /// The likeness of each passage `align` finds in the pair, in order.
    fn likenesses(suspicious: &str, source: &str) -> Vec<u16> {
        let (aligner, a, b, out) = aligned_pair(suspicious, source, AlignParams::default());
        out.iter().map(|p| aligner.likeness(&a, &b, p)).collect()
    }

    const COPY: &str = "The lighthouse keeper climbed the spiral stair each evening and trimmed the wick of the great lamp. \
        He logged every vessel that passed the headland and the hour it passed. \
        In the storms of that winter three schooners ran aground on the reef below the tower. ";

    /// `passage` over the whole of `suspicious` and `source`, with its core the
    /// copy ([`COPY`]) that both hold, after [`without_unmatched_ends`], as the
    /// text of each side.
    fn ends_kept(suspicious: &str, source: &str) -> (String, String) {
        let (a, b, idf) = extend::tests::analysed(suspicious, source);
        let pair = Pair::new(&a, &b, &idf);
        let whole = |text: &str| CharRange::new(0, text.chars().count() as u32);
        let copy_in = |text: &str| {
            let start = text.find(COPY.trim_end()).unwrap() as u32; // ASCII: bytes are characters
            CharRange::new(start, start + COPY.trim_end().len() as u32)
        };
        let passage = AlignedPassage { suspicious: whole(suspicious), source: whole(source), exact: false };
        let core = AlignedPassage { suspicious: copy_in(suspicious), source: copy_in(source), exact: true };
        let kept = without_unmatched_ends(&pair, &passage, &core);
        (
            char_slice(suspicious, kept.suspicious).unwrap().to_string(),
            char_slice(source, kept.source).unwrap().to_string(),
        )
    }

    #[test]
    fn ends_past_a_copy_over_unrelated_sentences_are_cut_and_alike_ones_kept() {
        let suspicious = format!(
            "Merchants gathered on the quay when the ice broke in spring. {COPY}\
             The elders of the valley asked for seven days to send their messengers."
        );
        let source = format!(
            "Goats grazed on the high pastures above the village all summer. {COPY}\
             The elders of the valley asked for seven days before they sent messengers."
        );
        let (this, there) = ends_kept(&suspicious, &source);
        // The unrelated openings are cut; the reworded closing stays.
        assert!(this.starts_with("The lighthouse keeper") && there.starts_with("The lighthouse keeper"));
        assert!(this.ends_with("their messengers.") && there.ends_with("sent messengers."), "{this:?} {there:?}");
    }

    #[test]
    fn an_end_on_one_side_only_and_a_summary_keep_their_ends() {
        let one_sided = format!("Merchants gathered on the quay when the ice broke in spring. {COPY}");
        assert_eq!(ends_kept(&one_sided, COPY.trim_end()).0, one_sided);
        // A source side twice as long as the suspicious side: a summary's shape.
        let long_source = format!(
            "Goats grazed on the high pastures above the village all summer. {COPY}{}",
            "Shepherds counted the flock at dusk and mended the fences of the fold. ".repeat(6)
        );
        let suspicious = format!("Merchants gathered on the quay. {COPY}");
        assert_eq!(ends_kept(&suspicious, &long_source), (suspicious.clone(), long_source.clone()));
    }

    #[test]
    fn a_copy_is_more_alike_to_its_source_than_a_paraphrase() {
        let copy = likenesses(ORIGINAL, ORIGINAL);
        let paraphrase = likenesses(PARAPHRASE, ORIGINAL);
        assert_eq!(copy, [1000]);
        assert_eq!(paraphrase.len(), 1);
        assert!((300..900).contains(&paraphrase[0]), "{paraphrase:?}");
    }

    #[test]
    fn a_true_source_whose_side_runs_on_is_more_alike_than_a_tight_parallel_text() {
        let suspicious = "The length of one curtain was twenty and eight cubits, and the breadth four cubits: \
            the curtains were all of one size. He coupled five curtains one unto another, and the other five \
            he coupled one unto another. He made loops of blue on the edge of the curtain from the selvedge.";
        let copied = "The length of one curtain was eight and twenty cubits, and the breadth of one curtain four \
            cubits: the curtains were all of one size. And he coupled five curtains one unto another: and the \
            other five curtains he coupled one unto another. And he made loops of blue on the edge of one \
            curtain from the selvedge in the coupling.";
        let ran_on = format!(
            "{copied} And he made boards for the tabernacle of shittim wood, standing up. The length of a \
             board was ten cubits, and the breadth of a board one cubit and a half. One board had two tenons, \
             equally distant one from another. And forty sockets of silver he made under the twenty boards; \
             two sockets under one board for his two tenons, and two sockets under another board. And for the \
             north corner he made twenty boards, and their forty sockets of silver. And for the sides of the \
             tabernacle westward he made six boards, and two boards for the corners in the two sides."
        );
        let parallel = "The length of one curtain shall be eight and twenty cubits, and the breadth of one \
            curtain four cubits: and every one of the curtains shall have one measure. The five curtains \
            shall be coupled together one to another; and the other five curtains shall be coupled one to \
            another. And thou shalt make loops of blue on the edge of the curtain from the selvedge.";
        let measured = |source: &str| {
            let (aligner, a, b, _) = aligned_pair(suspicious, source, AlignParams::default());
            let whole = AlignedPassage { suspicious: a.span(), source: b.span(), exact: false };
            let (this, that) =
                (sentences_reached(&a, whole.suspicious).unwrap(), sentences_reached(&b, whole.source).unwrap());
            let cosine = Pair::new(&a, &b, &aligner.idf).cosine(&Fragment::unseeded(this, that));
            (aligner.likeness(&a, &b, &whole), cosine)
        };
        let (true_source, true_cosine) = measured(&ran_on);
        let (parallel_text, parallel_cosine) = measured(parallel);
        assert!(true_cosine < parallel_cosine, "the cosine alone takes the parallel: {true_cosine} {parallel_cosine}");
        assert!(true_source > parallel_text, "{true_source} against {parallel_text}");
    }

    #[test]
    fn the_sentences_a_range_reaches_into() {
        let mut aligner = Aligner::new(TokenizerParams::default(), AlignParams::default(), None);
        let mut sentences = Sentences::default();
        aligner.analyse(&OTHER.join(" "), &mut sentences);
        let (first, second) = (sentences.sentences[0].range, sentences.sentences[1].range);
        assert_eq!(sentences_reached(&sentences, first), Some((0, 0)));
        assert_eq!(sentences_reached(&sentences, CharRange::new(first.end - 1, second.start + 1)), Some((0, 1)));
        assert_eq!(sentences_reached(&sentences, CharRange::new(first.end, second.start)), None, "the space between");
        let past = sentences.span().end;
        assert_eq!(sentences_reached(&sentences, CharRange::new(past, past + 10)), None);
    }

    const ORIGINAL: &str = include_str!("../../corpus-fixtures/align/original.txt");

    /// The same passage paraphrased: words replaced, inserted, dropped and swapped
    /// inside sentences (about a third of them).
    const PARAPHRASE: &str = include_str!("../../corpus-fixtures/align/paraphrase.txt");

    const OTHER: &[&str] = &[
        "The bakery on the corner sells bread and pastries every morning before dawn.",
        "Children walked to school along the river, counting ducks and throwing pebbles.",
        "Parliament debated the new tax on imported machinery for three long afternoons.",
        "A storm of letters followed the decision, most of them angry and some of them funny.",
        "The gardener planted tulips, roses and a row of small apple trees behind the house.",
        "Nobody remembered who had left the bicycle leaning against the library wall.",
    ];

    const OTHER_SOURCE: &[&str] = &[
        "Fishermen mended their nets on the quay while gulls circled over the harbour.",
        "The orchestra rehearsed the symphony twice before the conductor was satisfied.",
        "Snow closed the mountain pass for a week, and the village ran short of flour.",
        "Her grandmother kept every letter in a tin box under the kitchen stairs.",
    ];

    fn padded(before: &[&str], passage: &str, after: &[&str]) -> (String, usize) {
        let prefix = before.join(" ") + " ";
        (format!("{prefix}{passage} {}", after.join(" ")), prefix.chars().count())
    }

    #[test]
    fn a_passage_only_a_copying_document_keeps_is_held_back_by_the_last_alignment_only() {
        // Stricter thresholds no passage passes, and no seeds corroborate.
        let strict = filter::Uncorroborated {
            min_chars: u32::MAX,
            min_pair_overlap: 1.0,
            min_rare_share: 1.0,
            corroborating_seeds: u32::MAX,
        };
        // No order-free passage takes the held one's place: the paraphrase keeps most of its words.
        let params = AlignParams {
            uncorroborated: Some(strict),
            unordered_min_share: 0.0,
            ..AlignParams::default().for_pair_region()
        };
        let mut aligner = Aligner::new(TokenizerParams::default(), params, None);
        let (mut paraphrase, mut original) = (Sentences::default(), Sentences::default());
        aligner.analyse(PARAPHRASE, &mut paraphrase);
        aligner.analyse(ORIGINAL, &mut original);
        let mut out = Vec::new();
        aligner.align(&params, &paraphrase, &original, &[], &mut out);
        assert!(!aligner.held().is_empty(), "the paraphrase passes the lower thresholds");
        assert!(out.iter().all(|p| !aligner.held().contains(p)));
        aligner.align(&params, &Sentences::default(), &original, &[], &mut out);
        assert!(aligner.held().is_empty(), "an empty document holds nothing back");
    }

    #[test]
    fn a_paraphrased_passage_is_aligned_to_its_sentence_boundaries() {
        let (suspicious, _) = padded(&OTHER[..3], PARAPHRASE, &OTHER[3..]);
        let (source, _) = padded(&OTHER_SOURCE[..2], ORIGINAL, &OTHER_SOURCE[2..]);
        let found = align(&suspicious, &source);
        assert_eq!(found, [(PARAPHRASE.to_string(), ORIGINAL.to_string())]);
        // With English stems and stop words dropped, too.
        let english = AlignParams { language: LanguageSetting::Fixed(Language::English), ..AlignParams::default() };
        assert_eq!(align_with(&suspicious, &source, english), found);
        let guessed = AlignParams { language: LanguageSetting::Auto, ..AlignParams::default() };
        assert_eq!(align_with(&suspicious, &source, guessed), found);
    }

    #[test]
    fn a_passage_whose_suspicious_side_grows_over_alike_sentences_past_twice_its_source_is_dropped() {
        let copied = "The old keeper of the northern lighthouse recorded in his leather logbook every fishing boat, \
            schooner and steamer that passed the rocky headland during the long winter storms, together with the \
            hour of its passing, the direction of the wind, the height of the waves and the name of its master.";
        let reworded = "The old keeper of the northern lighthouse wrote in his leather logbook each fishing boat, \
            schooner and steamer that went past the rocky headland in the long winter storms, with the hour it \
            passed, where the wind came from, how high the waves were and what its master was called.";
        let before = "The young keeper of the southern lighthouse painted the iron railings of the gallery, oiled \
            the great lamp and polished its brass before the long winter storms, and he wrote the hour of each \
            task in his leather logbook as the old keeper had taught him.";
        let after = "Every fishing boat and schooner in the harbour waited for the winter storms to pass before \
            sailing round the rocky headland to the north, and their masters watched the height of the waves \
            from the quay while the wind came from the sea.";
        let (source, _) = padded(&OTHER_SOURCE[..2], copied, &OTHER_SOURCE[2..]);
        let (suspicious, _) = padded(&OTHER[..2], &format!("{before} {reworded} {after}"), &OTHER[2..]);
        // The reworded sentence seeds; the two beside it are alike enough to
        // grow its ends, and the passage would be 2.6 times its source side.
        let found = align_with(&suspicious, &source, AlignParams::default().for_listed_pairs());
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_word_shuffled_copy_is_aligned_as_one_passage() {
        let source = "The lighthouse keeper Ansgar Thorvald logged every passing schooner in a leather ledger. \
            Storms from the northwest battered the granite tower for eleven winters without pause. \
            His daughter Liesel painted the lamp room walls with cobalt and ochre pigments. \
            Smugglers avoided the cove because the beam swept across the reef each minute. \
            Supply boats arrived monthly carrying kerosene, flour, salted herring and letters.";
        let words: Vec<&str> = source.split_whitespace().collect();
        // Every word of the source in another order: no run of three words survives.
        let copy: Vec<&str> = (0..words.len()).map(|i| words[(i * 37 + 11) % words.len()]).collect();
        let suspicious =
            format!("Railway timetables changed twice that year. {} Nobody remembered why.", copy.join(" "));
        let found = align(&suspicious, source);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].0.len() > copy.join(" ").len() * 9 / 10, "{found:?}");
    }

    #[test]
    fn unrelated_documents_align_nothing() {
        let (suspicious, _) = padded(OTHER, ORIGINAL, &[]);
        let source = OTHER_SOURCE.join(" ");
        assert!(align(&suspicious, &source).is_empty());
    }

    #[test]
    fn two_copies_from_distant_places_stay_two_passages() {
        let first: Vec<&str> = ORIGINAL.split_inclusive(". ").collect();
        let (a, b) = (first[..3].concat(), first[3..].concat());
        let filler: String =
            (0..30).map(|i| format!("Filler sentence number {i} talks about weather and crops. ")).collect();
        let source = format!("{a}{filler}{b}");
        let suspicious = format!("{} {} {}", OTHER[0], b.trim_end(), a.trim_end());
        // The second part is two sentences, shorter than the default minimum.
        let found = align_with(&suspicious, &source, AlignParams { min_passage_chars: 100, ..AlignParams::default() });
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].1.trim_end(), b.trim_end());
        assert_eq!(found[1].1.trim_end(), a.trim_end());
    }

    #[test]
    fn a_verbatim_copy_is_bounded_by_the_copied_words_not_by_whole_sentences() {
        // The copy starts in the middle of the source's first sentence, after
        // words of the suspicious document's own.
        let first_space = ORIGINAL.match_indices(' ').nth(4).unwrap().0;
        let copied = &ORIGINAL[first_space + 1..];
        let suspicious = format!("{} Our own words lead into it: {copied}", OTHER[0]);
        let (source, _) = padded(&OTHER_SOURCE[..2], ORIGINAL, &OTHER_SOURCE[2..]);
        let found = align(&suspicious, &source);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0.trim_end(), copied.trim_end());
        assert_eq!(found[0].1.trim_end(), copied.trim_end());
    }

    #[test]
    fn a_long_verbatim_copy_is_found_even_where_sentence_alignment_rejects_it() {
        // One long "sentence" of 40 words with no punctuation, copied inside
        // otherwise unrelated text: too short for the sentence stage's filters.
        let words: Vec<String> = (0..40).map(|i| format!("token{i}")).collect();
        let copy = words.join(" ");
        let suspicious = format!("{} {copy}. {}", OTHER[1], OTHER[2]);
        let source = format!("{} {copy}. {}", OTHER_SOURCE[0], OTHER_SOURCE[1]);
        let strict = AlignParams { min_passage_chars: 10_000, ..AlignParams::default() };
        let found = align_with(&suspicious, &source, strict);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, format!("{copy}."));
    }

    fn passage(suspicious: (u32, u32), source: (u32, u32)) -> AlignedPassage {
        AlignedPassage {
            suspicious: CharRange::new(suspicious.0, suspicious.1),
            source: CharRange::new(source.0, source.1),
            exact: false,
        }
    }

    /// `pieces` after `merge`.
    fn merged(merge: fn(&mut Vec<AlignedPassage>), mut pieces: Vec<AlignedPassage>) -> Vec<AlignedPassage> {
        merge(&mut pieces);
        pieces
    }

    #[test]
    fn adjacent_pieces_whose_sources_overlap_or_nearly_touch_are_merged() {
        // Random obfuscation cut into two: adjacent in the suspicious document,
        // the second piece's source inside the first's.
        let pieces =
            vec![passage((1000, 1400), (0, 600)), passage((100, 300), (5000, 5300)), passage((1400, 1600), (300, 450))];
        assert_eq!(
            merged(merge_adjacent, pieces),
            [passage((100, 300), (5000, 5300)), passage((1000, 1600), (0, 600))]
        );
        // Sources 300 characters apart still merge; 301 do not.
        let near = vec![passage((0, 400), (0, 400)), passage((500, 900), (700, 1100))];
        assert_eq!(merged(merge_adjacent, near), [passage((0, 900), (0, 1100))]);
        let far = vec![passage((0, 400), (0, 400)), passage((500, 900), (701, 1100))];
        assert_eq!(merged(merge_adjacent, far).len(), 2);
        // Suspicious sides more than 200 characters apart stay apart.
        let apart = vec![passage((0, 400), (0, 400)), passage((601, 900), (100, 300))];
        assert_eq!(merged(merge_adjacent, apart).len(), 2);
    }

    #[test]
    fn a_passage_that_continues_the_last_on_its_diagonal_is_merged_with_it() {
        // The end of a case cut off as an exact piece: its source inside the
        // passage's, 1500 characters on in both documents.
        let tail = AlignedPassage { exact: true, ..passage((2501, 2620), (1700, 1819)) };
        let pieces = vec![tail, passage((1000, 2500), (200, 1830))];
        assert_eq!(merged(merge_continuations, pieces), [passage((1000, 2620), (200, 1830))]);
        // A repeat of the source's text: the next source side lies behind.
        let repeat = vec![passage((1000, 2500), (200, 1830)), passage((2501, 2620), (250, 369))];
        assert_eq!(merged(merge_continuations, repeat).len(), 2);
        // Copies in another order: the sources touch but do not overlap.
        let reordered = vec![passage((1000, 2500), (200, 1700)), passage((2501, 2620), (1700, 1819))];
        assert_eq!(merged(merge_continuations, reordered).len(), 2);
        // Far from the diagonal: the source side runs ahead three times as far.
        let ahead = vec![passage((1000, 2500), (200, 5000)), passage((2000, 2700), (4700, 5400))];
        assert_eq!(merged(merge_continuations, ahead).len(), 2);
        // An exact passage that holds its neighbour stays exact.
        let copy = AlignedPassage { exact: true, ..passage((1000, 2500), (200, 1700)) };
        let held = vec![copy, passage((1200, 1400), (400, 600))];
        assert_eq!(merged(merge_continuations, held), [copy]);
    }

    #[test]
    fn a_passage_held_by_another_on_both_sides_is_dropped() {
        let long = passage((100, 2000), (50, 1900));
        let piece = AlignedPassage { exact: true, ..passage((300, 700), (250, 650)) };
        let elsewhere = passage((2500, 3000), (300, 800));
        let mut passages = vec![piece, long, elsewhere, long];
        drop_contained(&mut passages);
        passages.sort_unstable();
        assert_eq!(passages, [long, long, elsewhere]);
    }

    /// `ORIGINAL` after a round trip through German, as PAN 2013's cyclic
    /// translation obfuscation made its cases.
    const TRANSLATION: &str = include_str!("../../corpus-fixtures/align/translation.txt");

    #[test]
    fn passages_may_be_pieces_of_a_summary_in_a_pair_with_a_verbatim_run_unless_one_is_a_copy() {
        let pieces = [passage((1000, 1300), (0, 400)), passage((1350, 1600), (2000, 2300))];
        let copy = |p: &AlignedPassage| p.suspicious.start == 1350;
        assert!(may_be_summary_pieces(false, &pieces, copy));
        assert!(may_be_summary_pieces(true, &pieces, |_| false));
        assert!(!may_be_summary_pieces(true, &pieces, copy));
    }

    #[test]
    fn a_summary_that_copies_a_long_sentence_is_one_passage_with_its_whole_source() {
        // The copied sentence gives the pair a verbatim run; the summary must
        // still be one passage against its whole source, not cut to the copy.
        let history = include_str!("../../corpus-fixtures/summary/canal-history.txt");
        let summary = include_str!("../../corpus-fixtures/summary/canal-summary.txt").trim_end();
        // The summary copies one sentence of 25 words word for word.
        let copied = "Penhallow surveyed a route of twenty-three miles that followed the valley of the river Lisle \
                      and avoided the steep ground north of Harrowfield.";
        assert!(history.contains(copied));
        let railway = "When the railway came to Wexbridge in 1849, the railway company undercut the tolls of the canal, \
                       and its traffic declined steadily. The last commercial boat went through the locks in 1921, \
                       and then the tunnel was sealed and the aqueduct fell into disrepair.";
        let copying = summary.replacen("Penhallow, trained", &format!("{copied} Penhallow, trained"), 1).replacen(
            "at Marford. ",
            &format!("at Marford. {railway} "),
            1,
        );
        let (suspicious, _) = padded(&OTHER[..2], &copying, &OTHER[2..]);
        let found = align_with(&suspicious, history, AlignParams::default().for_listed_pairs());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].0.starts_with(copied) && found[0].0.ends_with("disrepair."), "{:?}", found[0].0);
        assert_eq!(found[0].1, history.trim_end(), "the whole source");
    }

    #[test]
    fn a_second_search_with_lower_seeds_is_made_only_where_the_first_found_nothing() {
        let (suspicious, _) = padded(&OTHER[..2], TRANSLATION.trim_end(), &OTHER[2..]);
        let (source, _) = padded(&OTHER_SOURCE[..3], ORIGINAL.trim_end(), &OTHER_SOURCE[3..]);
        let listed = AlignParams::default().for_listed_pairs();
        // First-search seeds no sentence pair reaches, no summary search, and
        // no order-free stage (the translation keeps most of the words).
        let unreachable = AlignParams {
            obfuscated_seed_similarity: Some(0.99),
            summary_seed_similarity: 0.0,
            unordered_min_share: 0.0,
            ..listed
        };
        let found = align_with(&suspicious, &source, unreachable);
        assert_eq!(found, [(TRANSLATION.trim_end().to_string(), ORIGINAL.trim_end().to_string())]);
        assert!(
            align_with(&suspicious, &source, AlignParams { second_seed_similarity: 0.0, ..unreachable }).is_empty()
        );
        // Unrelated documents stay apart.
        let (unrelated, _) = padded(OTHER, ORIGINAL, &[]);
        assert!(align_with(&unrelated, &OTHER_SOURCE.join(" "), unreachable).is_empty());
    }

    #[test]
    fn a_cyclic_translation_is_aligned_to_its_sentence_boundaries() {
        let (suspicious, _) = padded(&OTHER[..2], TRANSLATION.trim_end(), &OTHER[2..]);
        let (source, _) = padded(&OTHER_SOURCE[..3], ORIGINAL.trim_end(), &OTHER_SOURCE[3..]);
        // As with given pairs (PAN's protocol, under which the corpus was scored).
        let listed = AlignParams::default().for_listed_pairs();
        let found = align_with(&suspicious, &source, listed);
        assert_eq!(found, [(TRANSLATION.trim_end().to_string(), ORIGINAL.trim_end().to_string())]);
    }
}
