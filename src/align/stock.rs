//! Stock phrases: the pairs of neighbouring content words that many documents
//! of a collection use, such as the King James Bible's "slept with his
//! fathers" and "began to reign", a review site's rating scale, or a
//! template's headings. A passage whose two sides share mostly stock phrases
//! repeats the collection's formulas around other particulars (a regnal
//! formula with another king's name and years), not a text of its source.
//!
//! The phrases are derived from the sample of the source documents that the
//! collection's function words come from
//! ([`crate::analysis::function_words::CollectionSample`]), cut into the
//! aligner's terms (its words, stemmed and without stop words when a
//! language is set). Terms in at least half of the sampled documents that
//! make up at least [`MIN_WORD_SHARE`] of their terms are the collection's
//! own function words ("the", "that", the Bible's "unto" and "shall"), left
//! out of the pairs, so that a pair is one of neighbouring content words. A pair of neighbouring terms is a stock
//! phrase when at least [`STOCK_MIN_DOCUMENTS`] and at least
//! [`STOCK_MIN_DOCUMENT_SHARE`] of the sampled documents have it. A sample of
//! fewer than [`MIN_SAMPLE_DOCUMENTS`] documents says nothing about a
//! collection's formulas: it has no stock phrases.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::align::AlignedPassage;
use crate::align::sentences::Sentences;
use crate::analysis::function_words::{CollectionSample, MIN_SAMPLE_DOCUMENTS, MIN_WORD_SHARE};
use crate::analysis::span::CharRange;

/// Fewest sampled documents that have a stock phrase.
pub const STOCK_MIN_DOCUMENTS: usize = 4;

/// Least share of the sampled documents that have a stock phrase: in a
/// large collection a pair of words that four documents share is a topic's
/// (pan13-ta-train's sources come in groups on one topic each: tornado
/// safety, motorcycle helmets), not a formula.
pub const STOCK_MIN_DOCUMENT_SHARE: f64 = 0.02;

/// Fewest distinct word pairs the two sides of a passage must share before
/// their stock share says anything.
pub const FORMULA_MIN_SHARED_PAIRS: usize = 6;

/// A passage whose shared word pairs are more than this share stock phrases
/// is formulaic text, not a copy.
pub const FORMULA_STOCK_SHARE: f64 = 0.5;

/// The stock phrases of a collection, and the collection's function words
/// that they leave out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockPhrases {
    /// Hashes of the stock phrases (ordered pairs of terms), sorted.
    pairs: Vec<u64>,
    /// The terms left out of the pairs, sorted.
    common: Vec<u64>,
}

impl StockPhrases {
    /// The stock phrases of the collection that `sample` was read from, its
    /// texts cut into terms by `analyse` (each thread's `analyser`, for
    /// instance an [`crate::align::Aligner`]).
    pub fn of_sample<A>(
        sample: &CollectionSample,
        analyser: impl Fn() -> A + Sync,
        analyse: impl Fn(&mut A, &str, &mut Sentences) + Sync,
    ) -> Self {
        let texts = sample.texts();
        if texts.len() < MIN_SAMPLE_DOCUMENTS {
            return StockPhrases::default();
        }
        let sequences: Vec<Vec<u64>> = texts
            .par_iter()
            .map_init(
                || (analyser(), Sentences::default()),
                |(analyser, sentences), text| {
                    analyse(analyser, text, sentences);
                    std::mem::take(&mut sentences.sequence)
                },
            )
            .collect();
        let mut stock = StockPhrases { pairs: Vec::new(), common: common_terms(&sequences) };
        let least = STOCK_MIN_DOCUMENTS.max((STOCK_MIN_DOCUMENT_SHARE * texts.len() as f64).ceil() as usize);
        stock.pairs = in_documents(sequences.iter().map(|words| stock.pairs_of(words)), least);
        stock
    }

    /// True when there is no stock phrase.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// True when the two sides of `passage` (whose words `suspicious` and
    /// `source` hold) share at least [`FORMULA_MIN_SHARED_PAIRS`] distinct
    /// pairs of neighbouring terms and more than [`FORMULA_STOCK_SHARE`] of
    /// them are stock phrases.
    pub fn is_formulaic(&self, suspicious: &Sentences, source: &Sentences, passage: &AlignedPassage) -> bool {
        if self.is_empty() {
            return false;
        }
        let this = self.pairs_of(words_in(suspicious, passage.suspicious));
        let other = self.pairs_of(words_in(source, passage.source));
        let shared: Vec<u64> = this.into_iter().filter(|pair| other.binary_search(pair).is_ok()).collect();
        if shared.len() < FORMULA_MIN_SHARED_PAIRS {
            return false;
        }
        let stock = shared.iter().filter(|pair| self.pairs.binary_search(pair).is_ok()).count();
        stock as f64 > FORMULA_STOCK_SHARE * shared.len() as f64
    }

    /// The distinct pairs of neighbouring terms of `words`, the common terms
    /// left out, sorted.
    fn pairs_of(&self, words: &[u64]) -> Vec<u64> {
        let mut content = words.iter().copied().filter(|term| self.common.binary_search(term).is_err());
        let mut pairs = Vec::with_capacity(words.len());
        if let Some(mut last) = content.next() {
            for term in content {
                pairs.push(pair_hash(last, term));
                last = term;
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}

/// The terms of `sequences` (one per document) that are in at least half of
/// them and make up at least [`MIN_WORD_SHARE`] of all their terms, sorted.
fn common_terms(sequences: &[Vec<u64>]) -> Vec<u64> {
    let widespread = in_documents(sequences.iter().cloned(), sequences.len().div_ceil(2));
    let total: usize = sequences.iter().map(Vec::len).sum();
    let mut occurrences: Vec<u64> =
        sequences.iter().flatten().copied().filter(|term| widespread.binary_search(term).is_ok()).collect();
    occurrences.sort_unstable();
    occurrences
        .chunk_by(|a, b| a == b)
        .filter(|run| run.len() as f64 >= MIN_WORD_SHARE * total as f64)
        .map(|run| run[0])
        .collect()
}

/// The hash of the ordered pair of neighbouring terms `a`, `b`.
fn pair_hash(a: u64, b: u64) -> u64 {
    a.rotate_left(29) ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The items that at least `least` of `documents` have, sorted.
fn in_documents(documents: impl Iterator<Item = Vec<u64>>, least: usize) -> Vec<u64> {
    let mut all: Vec<u64> = documents
        .flat_map(|mut items| {
            items.sort_unstable();
            items.dedup();
            items
        })
        .collect();
    all.sort_unstable();
    all.chunk_by(|a, b| a == b).filter(|run| run.len() >= least).map(|run| run[0]).collect()
}

/// The words of `sentences` that lie in `range`.
fn words_in(sentences: &Sentences, range: CharRange) -> &[u64] {
    &sentences.sequence[sentences.words_in(range)]
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;
    use crate::align::Aligner;
    use crate::align::params::AlignParams;
    use crate::analysis::span::char_slice;
    use crate::analysis::tokenize::TokenizerParams;

    fn aligner() -> Aligner<'static> {
        Aligner::new(TokenizerParams::default(), AlignParams::default(), None)
    }

    fn analysed(text: &str) -> Sentences {
        let mut sentences = Sentences::default();
        aligner().analyse(text, &mut sentences);
        sentences
    }

    fn stock_of(texts: &[String]) -> StockPhrases {
        let sample = CollectionSample::of_texts(texts.iter().cloned());
        StockPhrases::of_sample(&sample, aligner, |aligner, text, out| aligner.analyse(text, out))
    }

    /// One entry of an invented kingdom's annals: a regnal formula around
    /// the particulars of one king.
    fn annal(king: &str, father: &str, years: &str, city: &str, mother: &str) -> String {
        format!(
            "{king} the son of {father} began to reign over the hill country, and he reigned {years} years in \
             {city}. And his mother's name was {mother}. Now the rest of the acts of {king}, and all that he did, \
             are they not written in the book of the annals of the kings of the hill country? And {king} slept \
             with his fathers, and was buried in {city}. "
        )
    }

    const KINGS: [(&str, &str, &str, &str, &str); 5] = [
        ("Abidor", "Melchan", "seven", "Tarsel", "Naomel"),
        ("Jorvath", "Abidor", "twelve", "Hebrin", "Zillah"),
        ("Ozrahel", "Jorvath", "three", "Migdor", "Ketura"),
        ("Benhadur", "Ozrahel", "forty", "Samrach", "Atarah"),
        ("Eliphan", "Benhadur", "nine", "Dothrim", "Mahalath"),
    ];

    /// A text on a topic of its own: words no other text uses.
    fn particular(topic: usize) -> String {
        let words = ["harbour", "lantern", "orchard", "glacier", "violin", "quarry", "meadow"];
        (0..6)
            .map(|i| {
                format!(
                    "The {w}{topic}x of vale{topic}{i} keeps ferns{topic}{i} beside stones{topic}{i}. ",
                    w = words[i]
                )
            })
            .collect()
    }

    /// Twelve documents: the annals of a king in five, topics of their own in seven.
    fn collection() -> Vec<String> {
        let annals = KINGS.iter().enumerate().map(|(i, k)| annal(k.0, k.1, k.2, k.3, k.4) + &particular(100 + i));
        annals.chain((0..7).map(particular)).collect()
    }

    fn whole(text: &str) -> CharRange {
        CharRange::new(0, text.chars().count() as u32)
    }

    fn passage(suspicious: &str, source: &str) -> AlignedPassage {
        AlignedPassage { suspicious: whole(suspicious), source: whole(source), exact: false }
    }

    #[test]
    fn pairs_that_four_sampled_documents_share_are_stock_phrases_and_a_small_sample_has_none() {
        let texts = collection();
        let stock = stock_of(&texts);
        let formula = stock.pairs_of(&analysed("the book of the annals").sequence);
        assert_eq!(formula.len(), 1);
        assert!(stock.pairs.binary_search(&formula[0]).is_ok(), "five documents have the formula");
        // Four documents still make a stock phrase, three do not.
        let without = |n: usize| -> Vec<String> {
            texts.iter().enumerate().map(|(i, t)| if i < n { particular(200 + i) } else { t.clone() }).collect()
        };
        assert!(stock_of(&without(1)).pairs.binary_search(&formula[0]).is_ok());
        assert!(stock_of(&without(2)).pairs.binary_search(&formula[0]).is_err());
        assert!(stock_of(&texts[..MIN_SAMPLE_DOCUMENTS - 1]).is_empty(), "nine documents say nothing");
        // A particular pair, in one document, is no stock phrase.
        let names = stock.pairs_of(&analysed("Jorvath Abidor").sequence);
        assert!(stock.pairs.binary_search(&names[0]).is_err());
    }

    #[test]
    fn a_regnal_formula_around_other_particulars_is_formulaic_and_a_copy_is_not() {
        let stock = stock_of(&collection());
        let source = annal(KINGS[1].0, KINGS[1].1, KINGS[1].2, KINGS[1].3, KINGS[1].4) + &particular(101);
        let other_king = annal("Hazrimon", "Tobrael", "eleven", "Pelgad", "Serah");
        let (this, other) = (analysed(&other_king), analysed(&source));
        let formula = AlignedPassage { source: CharRange::new(0, annal_chars()), ..passage(&other_king, &source) };
        assert!(stock.is_formulaic(&this, &other, &formula), "only the scaffolding is shared");
        // A copy of the entry with what follows it shares its particulars.
        let copy = source.clone();
        assert!(!stock.is_formulaic(&analysed(&copy), &other, &passage(&copy, &source)));
        // Without stock phrases nothing is formulaic.
        assert!(!StockPhrases::default().is_formulaic(&this, &other, &formula));
    }

    /// Characters of the first king's entry (all entries are about as long).
    fn annal_chars() -> u32 {
        let k = KINGS[1];
        annal(k.0, k.1, k.2, k.3, k.4).chars().count() as u32
    }

    #[test]
    fn a_passage_sharing_fewer_pairs_than_the_least_is_not_judged() {
        let stock = stock_of(&collection());
        // Five shared pairs, all of them stock phrases.
        let short = "the book of the annals of the kings of the hill country";
        let sentences = analysed(short);
        let pairs = stock.pairs_of(&sentences.sequence);
        assert!(pairs.len() < FORMULA_MIN_SHARED_PAIRS, "{pairs:?}");
        assert!(pairs.iter().all(|p| stock.pairs.binary_search(p).is_ok()));
        assert!(!stock.is_formulaic(&sentences, &sentences, &passage(short, short)));
    }

    #[test]
    fn the_collections_own_function_words_are_left_out_of_the_pairs() {
        // "Verily" in every document, a tenth of the words.
        let texts: Vec<String> = collection().into_iter().map(|t| t.replace(". ", ". Verily ")).collect();
        let stock = stock_of(&texts);
        let verily = analysed("verily").sequence;
        assert!(stock.common.binary_search(&verily[0]).is_ok(), "{:?}", stock.common);
        assert!(stock_of(&collection()).common.binary_search(&verily[0]).is_err());
        assert_eq!(
            stock.pairs_of(&analysed("annals verily kings").sequence),
            stock.pairs_of(&analysed("annals kings").sequence)
        );
    }

    #[test]
    fn the_words_of_a_passage_are_those_inside_its_range_on_its_side() {
        let text = "First sentence here. The book of the annals. Last words there.";
        let sentences = analysed(text);
        let start = text.find("The book").unwrap() as u32;
        let end = text.find(" Last").unwrap() as u32;
        let inside = words_in(&sentences, CharRange::new(start, end));
        assert_eq!(inside, analysed(char_slice(text, CharRange::new(start, end)).unwrap()).sequence);
    }

    proptest::proptest! {
        #[test]
        fn items_in_enough_documents_are_those_a_count_finds(
            documents in proptest::collection::vec(proptest::collection::vec(0u64..12, 0..10), 0..12),
            least in 1usize..5,
        ) {
            let mut counts: HashMap<u64, usize> = HashMap::new();
            for items in &documents {
                for item in items.iter().collect::<HashSet<_>>() {
                    *counts.entry(*item).or_default() += 1;
                }
            }
            let mut expected: Vec<u64> = counts.into_iter().filter(|&(_, n)| n >= least).map(|(item, _)| item).collect();
            expected.sort_unstable();
            proptest::prop_assert_eq!(in_documents(documents.into_iter(), least), expected);
        }

        #[test]
        fn the_pairs_of_words_are_the_neighbours_once_common_terms_are_gone(
            words in proptest::collection::vec(0u64..8, 0..20),
            common in proptest::collection::btree_set(0u64..8, 0..3),
        ) {
            let stock = StockPhrases { pairs: Vec::new(), common: common.iter().copied().collect() };
            let content: Vec<u64> = words.iter().copied().filter(|w| !common.contains(w)).collect();
            let mut expected: Vec<u64> = content.windows(2).map(|w| pair_hash(w[0], w[1])).collect::<HashSet<_>>().into_iter().collect();
            expected.sort_unstable();
            proptest::prop_assert_eq!(stock.pairs_of(&words), expected);
        }
    }
}
