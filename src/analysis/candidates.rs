//! The candidate stage of the `best` preset: which words go into the chunks of
//! the inverted index.
//!
//! The paper's 5-word chunks rarely survive heavy obfuscation: with 40 % of the
//! words changed only 0.6⁵ ≈ 8 % of them do. Candidate chunks are shorter (3
//! words), skip stop words (so an inserted or deleted "the" does not break
//! them), and keep only a short prefix of each word, a stem that costs nothing
//! (`connected`, `connection` → `conne`). Words keep their character ranges.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::analysis::chunk::{ChunkParams, Chunker, Chunks};
use crate::analysis::document::AnalysisParams;
use crate::analysis::function_words::FunctionWords;
use crate::analysis::span::CharRange;
use crate::analysis::stem::LANGUAGES;
use crate::analysis::synonyms::Synonyms;
use crate::analysis::tokenize::{
    Derived, KeyHasher, KeySet, Tokenizer, TokenizerParams, Tokens, is_ideographic, sort_key,
};

/// Function words whose order survives when the content words are replaced by
/// synonyms (Stamatatos 2011, "Plagiarism detection using stopword n-grams": the
/// 50 most frequent English words), folded.
pub const STRUCTURE_WORDS: [&str; 48] = [
    "a", "all", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "for", "from", "had", "has", "have",
    "he", "her", "his", "i", "if", "in", "is", "it", "not", "of", "on", "or", "said", "she", "that", "the", "their",
    "there", "they", "this", "to", "was", "we", "were", "what", "which", "who", "will", "with", "would", "you",
];

/// Longest structure chunk kept, in characters. English function words are
/// dense (about every other word), so six of them span some 60–100 characters;
/// in other languages only a few short words happen to be on the list, far
/// apart, and chunks of them join unrelated documents (on German text from one
/// handbook they made a third of all false detections).
pub const MAX_STRUCTURE_CHUNK_CHARS: u32 = 120;

/// Turns a document's words into the words of its candidate chunks.
#[derive(Debug, Clone)]
pub struct CandidateWords<'a> {
    /// Stop words of every supported language of at most 8 bytes.
    stop_words: KeySet,
    /// What the words of at most 8 bytes with a [`WordClass`] are, by sort
    /// key: one lookup per word tells both whether it is left out and whether
    /// it is a structure word.
    classes: HashMap<u64, WordClass, BuildHasherDefault<KeyHasher>>,
    prefix: usize,
    min_len: usize,
    synonyms: Option<&'a Synonyms>,
}

impl<'a> CandidateWords<'a> {
    /// Keeps `prefix` characters of each word (0: whole words) of at least
    /// `min_len` characters, after mapping it to its synonym group's first word.
    pub fn new(prefix: usize, min_len: usize, synonyms: Option<&'a Synonyms>) -> Self {
        let stop_words: KeySet = LANGUAGES
            .iter()
            .flat_map(|l| l.stop_words())
            .filter(|w| w.len() <= 8)
            .map(|w| sort_key(w.as_bytes()))
            .collect();
        let classes = word_classes(stop_words.iter());
        CandidateWords { classes, stop_words, prefix, min_len, synonyms }
    }

    /// These candidate words, leaving out `function_words` too.
    pub fn without(self, function_words: FunctionWords) -> Self {
        let classes = word_classes(self.stop_words.iter().chain(function_words.keys().iter().copied()));
        CandidateWords { classes, ..self }
    }

    /// The class of word `seq` of `tokens`, whose folded form is `word`.
    #[inline]
    fn class(&self, tokens: &Tokens, seq: usize, word: &str) -> WordClass {
        match word.len() <= 8 {
            true => self.classes.get(&tokens.sort_key(seq)).copied().unwrap_or_default(),
            false => WordClass::default(),
        }
    }

    /// True when word `seq` of `tokens` would be a candidate word but for
    /// the collection's function words: the words among which those are
    /// sought ([`FunctionWords::derive`]).
    pub fn keeps_but_for_function_words(&self, tokens: &Tokens, seq: usize) -> bool {
        let word = tokens.word(seq);
        !(self.is_short(word) || Self::is_in(&self.stop_words, tokens, seq, word))
    }

    /// True when `word` is too short to be a candidate word; ideographs are
    /// words of one character, kept as the tokenizer keeps them.
    #[inline]
    fn is_short(&self, word: &str) -> bool {
        word.len() < self.min_len
            && (word.is_ascii() || word.chars().count() < self.min_len)
            && !word.starts_with(is_ideographic)
    }

    /// True when `word`, word `seq` of `tokens`, is one of `words`.
    #[inline]
    fn is_in(words: &KeySet, tokens: &Tokens, seq: usize, word: &str) -> bool {
        word.len() <= 8 && words.contains(tokens.sort_key(seq))
    }

    /// Writes the candidate words of `tokens` into `out`, and with
    /// `structure` their [`STRUCTURE_WORDS`] into that, in text order.
    /// Candidate words are the words not left out: not too short
    /// (ideographs, words of one character, never are), no stop word of any
    /// language and none of the collection's function words.
    pub fn derive(&self, tokens: &Tokens, out: &mut Tokens, mut structure: Option<&mut Tokens>) {
        out.begin();
        if let Some(structure) = structure.as_deref_mut() {
            structure.begin();
        }
        for (seq, word) in tokens.words().enumerate() {
            let class = self.class(tokens, seq, word);
            if let Some(structure) = structure.as_deref_mut()
                && class.structure
            {
                structure.push_derived(tokens, seq, word, Derived::Prefix(word.len()));
            }
            // Too short (ideographs, words of one character, never are), a
            // stop word of some language or one of the collection's
            // function words.
            if class.left_out || self.is_short(word) {
                continue;
            }
            let derived = match self.synonyms.and_then(|s| s.group_word(word)) {
                Some(group_word) => Derived::Replaced(prefix(group_word, self.prefix)),
                None => Derived::Prefix(prefix(word, self.prefix).len()),
            };
            out.push_derived(tokens, seq, word, derived);
        }
        out.end();
        if let Some(structure) = structure {
            structure.end();
        }
    }
}

/// Cuts chunks of `words` candidate words out of one stretch of a document
/// at a time, as the analysis cuts a whole document's candidate chunks (the
/// same words, prefixes and synonyms, sorted and hashed alike): the pair
/// chunks ([`crate::align::params::DEFAULT_PAIR_WORDS`]) of the places where
/// a suspicious and a source document share too few candidate chunks, which
/// are never indexed.
#[derive(Debug)]
pub struct StretchChunker<'a> {
    tokenizer: Tokenizer,
    words: CandidateWords<'a>,
    chunker: Chunker,
    tokens: Tokens,
    derived: Tokens,
}

impl<'a> StretchChunker<'a> {
    /// A chunker of `words`-word chunks of `analysis`'s candidate words;
    /// `None` without candidate chunks.
    pub fn new(analysis: &AnalysisParams<'a>, words: usize) -> Option<Self> {
        let candidates = analysis.candidates?;
        let min_len = analysis.tokenizer.min_word_len;
        let words_of =
            CandidateWords::new(candidates.prefix, min_len, candidates.synonyms).without(candidates.function_words);
        Some(StretchChunker {
            // As the analysis: short words are dropped when candidate words are derived.
            tokenizer: Tokenizer::new(TokenizerParams { min_word_len: 1, ..analysis.tokenizer }),
            words: words_of,
            chunker: Chunker::new(ChunkParams { words, ..analysis.chunks }),
            tokens: Tokens::default(),
            derived: Tokens::default(),
        })
    }

    /// The chunks of `text`, the stretch of a document from its character
    /// `first_char` on, into `out`, their ranges in the document's characters.
    pub fn chunk(&mut self, text: &str, first_char: u32, out: &mut Chunks) {
        self.tokenizer.tokenize(text, &mut self.tokens);
        self.words.derive(&self.tokens, &mut self.derived, None);
        self.chunker.chunk(&self.derived, out);
        for range in &mut out.ranges {
            *range = CharRange::new(range.start + first_char, range.end + first_char);
        }
    }
}

/// The first `chars` characters of `word` (all of it for 0).
#[inline(always)]
fn prefix(word: &str, chars: usize) -> &str {
    if chars == 0 || word.len() <= chars {
        return word;
    }
    // Folded words are mostly ASCII, where bytes are characters.
    if word.as_bytes()[..chars].is_ascii() {
        return &word[..chars];
    }
    word.char_indices().nth(chars).map_or(word, |(end, _)| &word[..end])
}

/// The chunks of structure words ([`CandidateWords::derive`]) that span at most
/// [`MAX_STRUCTURE_CHUNK_CHARS`], as (hash, range).
pub fn dense_structure_chunks(chunks: &Chunks) -> impl Iterator<Item = (u64, CharRange)> + '_ {
    chunks
        .hashes
        .iter()
        .zip(&chunks.ranges)
        .filter(|(_, range)| range.len() <= MAX_STRUCTURE_CHUNK_CHARS)
        .map(|(&h, &r)| (h, r))
}

/// The tokenizer's sort keys of [`STRUCTURE_WORDS`] (each word is shorter than
/// 8 bytes, so its key identifies it), in the same order.
const STRUCTURE_KEYS: [u64; STRUCTURE_WORDS.len()] = {
    let mut keys = [0; STRUCTURE_WORDS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = sort_key(STRUCTURE_WORDS[i].as_bytes());
        i += 1;
    }
    keys
};

/// What [`CandidateWords`] knows of a word.
#[derive(Debug, Clone, Copy, Default)]
struct WordClass {
    /// Not a candidate word: a stop word or a function word.
    left_out: bool,
    /// One of [`STRUCTURE_WORDS`].
    structure: bool,
}

/// The classes of the words whose sort keys are `left_out` and of
/// [`STRUCTURE_WORDS`].
fn word_classes(left_out: impl Iterator<Item = u64>) -> HashMap<u64, WordClass, BuildHasherDefault<KeyHasher>> {
    let mut classes: HashMap<u64, WordClass, _> = HashMap::default();
    for key in left_out {
        classes.entry(key).or_default().left_out = true;
    }
    for key in STRUCTURE_KEYS {
        classes.entry(key).or_default().structure = true;
    }
    classes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tokenize::{Tokenizer, TokenizerParams};

    fn candidate_words(text: &str, prefix: usize, synonyms: Option<&Synonyms>) -> Vec<(String, u32)> {
        let mut tokens = Tokens::default();
        Tokenizer::new(TokenizerParams { min_word_len: 1, ..TokenizerParams::default() }).tokenize(text, &mut tokens);
        let mut out = Tokens::default();
        CandidateWords::new(prefix, 3, synonyms).derive(&tokens, &mut out, None);
        (0..out.len()).map(|seq| (out.word(seq).to_string(), out.range(seq).start)).collect()
    }

    #[test]
    fn stop_words_go_and_prefixes_stay_with_their_offsets() {
        let found = candidate_words("The connections were made with the Übersetzungen", 5, None);
        assert_eq!(found, [("conne".to_string(), 4), ("ubers".to_string(), 35)]);
        let whole = candidate_words("The connections", 0, None);
        assert_eq!(whole, [("connections".to_string(), 4)]);
    }

    #[test]
    fn ideographs_are_candidate_words_however_short() {
        let found = candidate_words("安装 the 系统", 5, None);
        let expected = [("安", 0), ("装", 1), ("系", 7), ("统", 8)];
        assert_eq!(found, expected.map(|(w, o)| (w.to_string(), o)));
    }

    #[test]
    fn the_collections_function_words_go_too() {
        let mut tokens = Tokens::default();
        let text = "Η εγκατάσταση του συστήματος και του δικτύου";
        Tokenizer::new(TokenizerParams { min_word_len: 1, ..TokenizerParams::default() }).tokenize(text, &mut tokens);
        let derive = |words: CandidateWords<'_>| {
            let mut out = Tokens::default();
            words.derive(&tokens, &mut out, None);
            (0..out.len()).map(|seq| out.word(seq).to_string()).collect::<Vec<_>>()
        };
        assert_eq!(derive(CandidateWords::new(5, 3, None)), ["εγκατ", "του", "συστη", "και", "του", "δικτυ"]);
        let function_words = FunctionWords::of(["του", "και"]);
        assert_eq!(derive(CandidateWords::new(5, 3, None).without(function_words)), ["εγκατ", "συστη", "δικτυ"]);
    }

    #[test]
    fn structure_words_keep_their_order_and_offsets() {
        assert!(STRUCTURE_WORDS.windows(2).all(|w| w[0] < w[1]), "sorted for binary search");
        assert!(STRUCTURE_KEYS.windows(2).all(|k| k[0] < k[1]), "keys in the words' order");
        let mut tokens = Tokens::default();
        let text = "It is one of the finest films of the year";
        Tokenizer::new(TokenizerParams { min_word_len: 1, ..TokenizerParams::default() }).tokenize(text, &mut tokens);
        let mut out = Tokens::default();
        structure_words(&tokens, &mut out);
        let words: Vec<(&str, u32)> = (0..out.len()).map(|s| (out.word(s), out.range(s).start)).collect();
        assert_eq!(words, [("it", 0), ("is", 3), ("of", 10), ("the", 13), ("of", 30), ("the", 33)]);
    }

    #[test]
    fn only_dense_runs_of_function_words_make_structure_chunks() {
        let structure_chunks = |text: &str| {
            let mut tokens = Tokens::default();
            Tokenizer::new(TokenizerParams { min_word_len: 1, ..TokenizerParams::default() })
                .tokenize(text, &mut tokens);
            let mut words = Tokens::default();
            structure_words(&tokens, &mut words);
            let mut chunks = Chunks::default();
            let params = crate::analysis::chunk::ChunkParams { words: 6, sorted: false, ..Default::default() };
            crate::analysis::chunk::Chunker::new(params).chunk(&words, &mut chunks);
            (chunks.len(), dense_structure_chunks(&chunks).count())
        };
        let english = "He said that it was not in his power to have all of the letters sent to her at once.";
        let (all, dense) = structure_chunks(english);
        assert!(all > 0 && dense == all, "{all} {dense}");
        // German: "in", "an" and "was" are on the list, a sentence or more apart.
        let german = "Die Platten werden in gleicher Weise partitioniert, und man muss an die Daten denken. \
            Was in vg_raid erstellt wird, bleibt erhalten, wenn eine Platte ausfällt; in vg_bulk nicht. \
            Wir erstellen daher in der Gruppe zwei Volumes, an denen die Dateisysteme hängen, was reicht.";
        let (all, dense) = structure_chunks(german);
        assert!(all > 0 && dense == 0, "{all} {dense}");
    }

    #[test]
    fn synonyms_are_mapped_before_truncation() {
        let synonyms = Synonyms::parse("enormous, gigantic\n");
        let found = candidate_words("gigantic telescope", 5, Some(&synonyms));
        assert_eq!(found, [("enorm".to_string(), 0), ("teles".to_string(), 9)]);
    }

    /// A derived word: its folded form, range and sort key.
    type Listed = (String, CharRange, u64);

    /// The structure words of `tokens`, written into `out`.
    fn structure_words(tokens: &Tokens, out: &mut Tokens) {
        CandidateWords::new(5, 3, None).derive(tokens, &mut Tokens::default(), Some(out));
    }

    /// The candidate and structure words as first written: the stop and
    /// function words compared as strings, every kept word's prefix counted
    /// in characters, its sort key computed afresh.
    fn reference_words(
        tokens: &Tokens,
        prefix: usize,
        synonyms: Option<&Synonyms>,
        function_words: &[&str],
    ) -> (Vec<Listed>, Vec<Listed>) {
        let stop_word =
            |word: &str| word.len() <= 8 && LANGUAGES.iter().flat_map(|l| l.stop_words()).any(|stop| *stop == word);
        let short = |word: &str| word.chars().count() < 3 && !word.starts_with(is_ideographic);
        let entry = |seq: usize, kept: String| {
            let key = sort_key(kept.as_bytes());
            (kept, tokens.range(seq), key)
        };
        let candidates = (0..tokens.len())
            .filter(|&seq| {
                let word = tokens.word(seq);
                !short(word) && !stop_word(word) && !function_words.contains(&word)
            })
            .map(|seq| {
                let word = synonyms.map_or(tokens.word(seq), |s| s.canonical(tokens.word(seq)));
                entry(seq, if prefix == 0 { word.to_string() } else { word.chars().take(prefix).collect() })
            })
            .filter(|(kept, _, _)| !kept.is_empty())
            .collect();
        let structure = (0..tokens.len())
            .filter(|&seq| STRUCTURE_WORDS.contains(&tokens.word(seq)))
            .map(|seq| entry(seq, tokens.word(seq).to_string()))
            .collect();
        (candidates, structure)
    }

    fn listed(tokens: &Tokens) -> Vec<Listed> {
        (0..tokens.len()).map(|s| (tokens.word(s).to_string(), tokens.range(s), tokens.sort_key(s))).collect()
    }

    proptest::proptest! {
        #[test]
        fn candidate_and_structure_words_agree_with_the_reference(
            text in "([a-zA-Z]{1,12}|the|and|there|said|yellowish|[čřžÉß漢]{1,4}[a-z]{0,5}|[ ,.]{1,2}){0,20}",
            prefix in 0usize..=9,
            with_synonyms: bool,
            with_function_words: bool,
        ) {
            let synonyms = Synonyms::parse("enormous, gigantic, ab\nžluť, yellow\n");
            let synonyms = with_synonyms.then_some(&synonyms);
            let function_words: &[&str] = if with_function_words { &["yellow", "there", "abc"] } else { &[] };
            let mut tokens = Tokens::default();
            Tokenizer::new(TokenizerParams { min_word_len: 1, ..TokenizerParams::default() }).tokenize(&text, &mut tokens);
            let words = CandidateWords::new(prefix, 3, synonyms).without(FunctionWords::of(function_words.iter().copied()));
            let (mut candidates, mut structure) = (Tokens::default(), Tokens::default());
            words.derive(&tokens, &mut candidates, Some(&mut structure));
            let (expected_candidates, expected_structure) = reference_words(&tokens, prefix, synonyms, function_words);
            proptest::prop_assert_eq!(listed(&candidates), expected_candidates);
            proptest::prop_assert_eq!(listed(&structure), expected_structure);
            let mut alone = Tokens::default();
            words.derive(&tokens, &mut alone, None);
            proptest::prop_assert_eq!(listed(&alone), listed(&candidates));
        }
    }

    #[test]
    fn a_stretch_is_chunked_as_the_whole_text_is_there_in_the_documents_characters() {
        use crate::analysis::chunk::{ChunkHash, ChunkParams};
        use crate::analysis::document::{AnalysisParams, Analyzer, CandidateChunks};
        let candidates = CandidateChunks {
            prefix: 5,
            structure_words: 0,
            synonyms: None,
            function_words: FunctionWords::NONE,
            word_chunks: false,
        };
        let chunks = ChunkParams { words: 2, sorted: true, hash: ChunkHash::Xxh3, ..ChunkParams::default() };
        let analysis = AnalysisParams {
            candidates: Some(candidates),
            chunks,
            tokenizer: TokenizerParams::default(),
            translator: None,
        };
        let text = "Große Übersetzungen: the keepers trimmed wicks nightly while storms battered distant cliffs.";
        let whole = Analyzer::new(&analysis).chunk(text).clone();
        // The stretch from "keepers" on, as the document's characters 31 on.
        let first_char = text.chars().position(|c| c == 'k').unwrap() as u32;
        let stretch: String = text.chars().skip(first_char as usize).collect();
        let mut chunker =
            StretchChunker::new(&AnalysisParams { chunks: ChunkParams { words: 3, ..chunks }, ..analysis }, 2).unwrap();
        let mut out = Chunks::default();
        chunker.chunk(&stretch, first_char, &mut out);
        let from = whole.ranges.iter().position(|r| r.start >= first_char).unwrap();
        assert_eq!(out.hashes, whole.hashes[from..]);
        assert_eq!(out.ranges, whole.ranges[from..]);
        assert!(StretchChunker::new(&AnalysisParams::words(TokenizerParams::default(), chunks), 2).is_none());
    }
}
