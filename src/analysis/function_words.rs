//! Function words derived from the collection itself: the words that occur in
//! most of its documents. The candidate chunks of the `best` preset leave them
//! out, as they leave out the typed stop lists of [`crate::analysis::stem`],
//! so that text in a language without such a list (Arabic, Persian, Chinese,
//! Greek, …) still gets candidate chunks of content words.
//!
//! A sample of the source documents is read before the run: up to
//! [`SAMPLE_DOCUMENTS`] of them, those whose names hash lowest, each up to
//! [`SAMPLE_CHARS`] characters. A word is a function word when it is in at
//! least half of the sampled documents and makes up at least
//! [`MIN_WORD_SHARE`] of their counted words; the [`MAX_FUNCTION_WORDS`] most
//! widespread are kept. A sample of fewer than [`MIN_SAMPLE_DOCUMENTS`]
//! documents says nothing about a language's function words: none are derived.
//! The archive derives them when it is created and keeps them in its settings,
//! so that `check` cuts chunks as `create` did; an update derives them again
//! and, when they changed, cuts every document again, as a fresh `create`
//! would. Only words that the candidate chunks would otherwise keep are
//! counted (not the typed stop words, nor words too short to be kept), so
//! English text, whose function words the typed lists hold, rarely has any.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::analysis::document::read_text;
use crate::analysis::read::{DocumentFile, TextReader};
use crate::analysis::tokenize::{AnyTokenizer, Tokenize, TokenizerParams, Tokens, sort_key};
use crate::progress::Silent;

/// Most function words kept (Stamatatos's stop-word n-grams use the 50 most
/// frequent words of English).
pub const MAX_FUNCTION_WORDS: usize = 50;

/// Most documents read for the sample.
pub const SAMPLE_DOCUMENTS: usize = 200;

/// Characters read of each sampled document at most.
pub const SAMPLE_CHARS: usize = 64 * 1024;

/// Largest file read for the sample, in bytes: a sample of a few long
/// documents would cost more than it tells.
pub const SAMPLE_MAX_FILE_BYTES: u64 = 4 << 20;

/// Fewest sampled documents from which function words are derived.
pub const MIN_SAMPLE_DOCUMENTS: usize = 10;

/// Least share of the sample's counted words that a function word makes up:
/// a function word is frequent, not only widespread (common content words of
/// English, such as "people" or "years", are in half of the documents of a
/// collection but make up about 0.1 % of its words; "unto" makes up 0.9 % of
/// the King James Bible's, the Chinese 的 some 4 % of its characters).
pub const MIN_WORD_SHARE: f64 = 0.004;

/// Longest function word, in bytes of its folded form: the tokenizer's sort
/// key identifies words up to this long.
const MAX_WORD_BYTES: usize = 8;

/// A set of at most [`MAX_FUNCTION_WORDS`] folded words of up to 8 bytes, kept
/// as the tokenizer's sort keys (so that it is `Copy`, like the parameters that
/// carry it). Written as a list of words in an archive's header.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FunctionWords {
    /// Sort keys, sorted, in `keys[..len]`.
    keys: [u64; MAX_FUNCTION_WORDS],
    len: usize,
}

impl FunctionWords {
    /// No function words.
    pub const NONE: FunctionWords = FunctionWords { keys: [0; MAX_FUNCTION_WORDS], len: 0 };

    /// The words of `words` (folded, each of at most 8 bytes; longer ones and
    /// those beyond [`MAX_FUNCTION_WORDS`] are left out).
    pub fn of<'w>(words: impl IntoIterator<Item = &'w str>) -> Self {
        let mut keys: Vec<u64> = words
            .into_iter()
            .filter(|w| !w.is_empty() && w.len() <= MAX_WORD_BYTES)
            .map(|w| sort_key(w.as_bytes()))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        FunctionWords::of_keys(&keys)
    }

    /// The first [`MAX_FUNCTION_WORDS`] of `keys` (distinct sort keys).
    fn of_keys(keys: &[u64]) -> Self {
        let mut set = FunctionWords::NONE;
        set.len = keys.len().min(MAX_FUNCTION_WORDS);
        set.keys[..set.len].copy_from_slice(&keys[..set.len]);
        set.keys[..set.len].sort_unstable();
        set
    }

    /// The function words of the documents whose texts are `texts` (see the
    /// module documentation), as `tokenizer` cuts them into words.
    /// Only the words for which `counts(tokens, seq)` is true are counted:
    /// those the candidate chunks would otherwise keep.
    pub fn derive<T: AsRef<str> + Sync>(
        texts: &[T],
        tokenizer: &AnyTokenizer,
        counts: impl Fn(&Tokens, usize) -> bool + Sync,
    ) -> Self {
        let per_document: Vec<Vec<(u64, u32)>> = texts
            .par_iter()
            .map_init(Tokens::default, |tokens, text| counted_words(text.as_ref(), tokenizer, &counts, tokens))
            .collect();
        let documents = per_document.len();
        let counted: u64 = per_document.iter().flatten().map(|&(_, n)| u64::from(n)).sum();
        let mut all: Vec<(u64, u32)> = per_document.into_iter().flatten().collect();
        all.sort_unstable();
        // (key, (documents, occurrences)) of each counted word.
        let in_documents = all
            .chunk_by(|a, b| a.0 == b.0)
            .map(|group| (group[0].0, (group.len() as u32, group.iter().map(|&(_, n)| n).sum::<u32>())));
        if documents < MIN_SAMPLE_DOCUMENTS {
            return FunctionWords::NONE;
        }
        let frequent = |occurrences: u32| f64::from(occurrences) >= MIN_WORD_SHARE * counted as f64;
        let mut widespread: Vec<(u64, (u32, u32))> = in_documents
            .filter(|&(_, (docs, occurrences))| docs as usize * 2 >= documents && frequent(occurrences))
            .collect();
        // Most documents first, then most occurrences, then the key: a stable choice.
        widespread.sort_unstable_by_key(|&(key, (docs, occurrences))| {
            (std::cmp::Reverse(docs), std::cmp::Reverse(occurrences), key)
        });
        let keys: Vec<u64> = widespread.iter().map(|&(key, _)| key).collect();
        FunctionWords::of_keys(&keys)
    }

    /// The function words of the collection that `sample` was read from,
    /// its texts cut into words as `tokenizer` says (every word, however
    /// short).
    pub fn of_sample(
        sample: &CollectionSample,
        tokenizer: TokenizerParams,
        counts: impl Fn(&Tokens, usize) -> bool + Sync,
    ) -> Self {
        let tokenizer = AnyTokenizer::new(TokenizerParams { min_word_len: 1, ..tokenizer });
        FunctionWords::derive(sample.texts(), &tokenizer, counts)
    }

    /// True when there is no function word.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The sort keys of the words, sorted.
    pub fn keys(&self) -> &[u64] {
        &self.keys[..self.len]
    }

    /// The words, in key order (a key is the word's bytes, zero-padded).
    pub fn words(&self) -> Vec<String> {
        self.keys()
            .iter()
            .map(|key| {
                let bytes = key.to_be_bytes();
                let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                String::from_utf8_lossy(&bytes[..len]).into_owned()
            })
            .collect()
    }
}

/// The sample of a collection's documents that its function words and its
/// stock phrases ([`crate::align::stock`]) are derived from: up to
/// [`SAMPLE_DOCUMENTS`] of the files of at most [`SAMPLE_MAX_FILE_BYTES`],
/// those whose names hash lowest, each cut to its first [`SAMPLE_CHARS`]
/// characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CollectionSample {
    texts: Vec<String>,
}

impl CollectionSample {
    /// Reads the sample of `files` (a collection's documents, sorted by
    /// name) with `reader`. Files that cannot be read are left out of the
    /// sample without a warning; the run that reads them warns.
    pub fn read<'f>(files: impl IntoIterator<Item = &'f DocumentFile>, reader: TextReader<'_>) -> Self {
        let mut sampled: Vec<&DocumentFile> = files.into_iter().filter(|f| f.bytes <= SAMPLE_MAX_FILE_BYTES).collect();
        // The documents whose names hash lowest: a sample that an added or
        // deleted document changes by at most one document.
        sampled.sort_by_cached_key(|file| (xxh3_64(file.name.as_bytes()), file.name.clone()));
        sampled.truncate(SAMPLE_DOCUMENTS);
        let texts = sampled.par_iter().filter_map(|file| read_text(file, reader, &Silent)).map(cut_to_sample).collect();
        CollectionSample { texts }
    }

    /// A sample of `texts`, each cut to its first [`SAMPLE_CHARS`] characters.
    #[cfg(test)]
    pub(crate) fn of_texts(texts: impl IntoIterator<Item = String>) -> Self {
        CollectionSample { texts: texts.into_iter().map(cut_to_sample).collect() }
    }

    /// The sampled texts.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }
}

/// `text` cut to its first [`SAMPLE_CHARS`] characters.
fn cut_to_sample(mut text: String) -> String {
    text.truncate(prefix(&text, SAMPLE_CHARS).len());
    text
}

impl Default for FunctionWords {
    fn default() -> Self {
        FunctionWords::NONE
    }
}

/// The words of `text` for which
/// `counts` is true and that a sort key identifies, with their occurrences,
/// sorted; `tokens` is a buffer.
fn counted_words(
    text: &str,
    tokenizer: &AnyTokenizer,
    counts: impl Fn(&Tokens, usize) -> bool,
    tokens: &mut Tokens,
) -> Vec<(u64, u32)> {
    tokenizer.tokenize(text, tokens);
    let mut keys: Vec<u64> = (0..tokens.len())
        .filter(|&seq| tokens.word_bytes(seq).len() <= MAX_WORD_BYTES && counts(tokens, seq))
        .map(|seq| tokens.sort_key(seq))
        .collect();
    keys.sort_unstable();
    keys.chunk_by(|a, b| a == b).map(|group| (group[0], group.len() as u32)).collect()
}

/// At most the first `chars` characters of `text`.
fn prefix(text: &str, chars: usize) -> &str {
    text.char_indices().nth(chars).map_or(text, |(at, _)| &text[..at])
}

impl fmt::Debug for FunctionWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.words()).finish()
    }
}

impl Serialize for FunctionWords {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.words().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for FunctionWords {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let words = Vec::<String>::deserialize(deserializer)?;
        if words.len() > MAX_FUNCTION_WORDS || words.iter().any(|w| w.is_empty() || w.len() > MAX_WORD_BYTES) {
            return Err(serde::de::Error::custom(format!(
                "at most {MAX_FUNCTION_WORDS} function words of 1 to {MAX_WORD_BYTES} bytes"
            )));
        }
        Ok(FunctionWords::of(words.iter().map(String::as_str)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tokenize::TokenizerParams;

    fn tokenizer() -> AnyTokenizer {
        AnyTokenizer::new(TokenizerParams { min_word_len: 1, ..TokenizerParams::default() })
    }

    #[test]
    fn words_in_half_of_the_documents_are_function_words() {
        let texts = [
            "kai o anthropos kai i gata",
            "kai to spiti einai megalo",
            "o dromos kai i thalassa",
            "to vivlio einai edo",
            "pou einai o kipos",
            "mia mera kai mia nychta",
            "kai o ilios",
            "to fengari einai",
            "o ouranos kai i gi",
            "pou einai to nero",
        ];
        let words = FunctionWords::derive(&texts, &tokenizer(), |_, _| true);
        assert_eq!(words.words(), ["einai", "kai", "o"]);
        let counted = FunctionWords::derive(&texts, &tokenizer(), |tokens, seq| tokens.word(seq) != "kai");
        assert_eq!(counted.words(), ["einai", "o"], "only counted words are function words");
    }

    #[test]
    fn a_sample_too_small_derives_none_and_long_words_never_count() {
        let texts = ["alpha beta"; MIN_SAMPLE_DOCUMENTS - 1];
        assert!(FunctionWords::derive(&texts, &tokenizer(), |_, _| true).is_empty());
        let texts = ["extraordinary word"; MIN_SAMPLE_DOCUMENTS];
        assert_eq!(FunctionWords::derive(&texts, &tokenizer(), |_, _| true).words(), ["word"]);
    }

    #[test]
    fn ideographs_are_words_of_their_own() {
        let texts = [
            "我的书在这里",
            "你的猫很小",
            "他的家很大",
            "这是我们的学校",
            "她的狗",
            "我们的老师",
            "他们的车",
            "好的",
            "我的朋友",
            "你的名字",
        ];
        let words = FunctionWords::derive(&texts, &tokenizer(), |_, _| true);
        assert!(words.words().contains(&"的".to_string()), "{words:?}");
    }

    #[test]
    fn the_set_is_written_and_read_as_a_list_of_words() {
        let words = FunctionWords::of(["kai", "o", "einai"]);
        let json = serde_json::to_string(&words).unwrap();
        assert_eq!(json, r#"["einai","kai","o"]"#);
        assert_eq!(serde_json::from_str::<FunctionWords>(&json).unwrap(), words);
        assert!(serde_json::from_str::<FunctionWords>(r#"["averyverylongword"]"#).is_err());
    }
}
