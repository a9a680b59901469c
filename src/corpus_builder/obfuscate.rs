//! Obfuscation strategies: each a pure function of a passage and a random number
//! generator that returns the text to insert into the suspicious document.
//!
//! They imitate the artificial obfuscation of PAN-PC-10 (Potthast et al. 2010,
//! section 3): random text operations (shuffle, delete, insert, replace words; the
//! inserted words come from the document that receives the passage), word-order
//! changes within a sentence, semantic word variation (here: synonyms from a word
//! list the user supplies) and normalisation changes (case, punctuation,
//! whitespace, diacritics). `low` touches roughly 10-20 % of the words, `high`
//! 30-50 %. Beside them, [`ocr_noise`] imitates the errors of optical character
//! recognition (confusable letters, broken and merged words, lost punctuation),
//! for corpora that test noise-robust hashing; [`word_shuffle`] and
//! [`phrase_shuffle`] destroy the passage's word order (every token, or every
//! phrase, in a random order), as some corpora made by others do.

use std::collections::HashMap;
use std::path::Path;

use rand::seq::{SliceRandom, index};
use rand::{Rng, RngExt};
use unicode_normalization::UnicodeNormalization;

use super::CorpusError;
use super::texts::{self, is_word};
use crate::analysis::read::read_input;

/// How strongly a passage is obfuscated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Roughly 10-20 % of the words touched.
    Low,
    /// Roughly 30-50 % of the words touched.
    High,
}

impl Level {
    /// The value of the `obfuscation` attribute: `low` or `high`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Low => "low",
            Level::High => "high",
        }
    }

    /// A fraction of words to touch, drawn uniformly from the level's range.
    pub fn touched_fraction<R: Rng + ?Sized>(self, rng: &mut R) -> f64 {
        match self {
            Level::Low => rng.random_range(0.10..=0.20),
            Level::High => rng.random_range(0.30..=0.50),
        }
    }
}

/// How a passage is changed before it is inserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strategy {
    /// Copied verbatim (`obfuscation="none"`).
    Verbatim,
    /// Random word operations: shuffle, delete, insert, replace.
    Random(Level),
    /// Word-order changes within sentences.
    Shuffle(Level),
    /// Synonym replacement from the user's word list.
    Semantic(Level),
    /// Case, punctuation, whitespace and diacritics changes only; labelled `low`.
    Normalise,
    /// OCR noise ([`ocr_noise`]): confusable letters, broken and merged words,
    /// dropped punctuation.
    Ocr(Level),
    /// Every token, words and punctuation marks, in a random order
    /// ([`word_shuffle`]; `obfuscation="word-shuffle"`).
    WordShuffle,
    /// The phrases in a random order, each keeping its words' order
    /// ([`phrase_shuffle`]; `obfuscation="phrase-shuffle"`).
    PhraseShuffle,
}

impl Strategy {
    /// The value of the `obfuscation` attribute: `none`, `low`, `high`,
    /// `word-shuffle` or `phrase-shuffle`.
    pub fn obfuscation(self) -> &'static str {
        match self {
            Strategy::Verbatim => "none",
            Strategy::Normalise => "low",
            Strategy::Random(level) | Strategy::Shuffle(level) | Strategy::Semantic(level) | Strategy::Ocr(level) => {
                level.name()
            }
            Strategy::WordShuffle | Strategy::PhraseShuffle => self.name(),
        }
    }

    /// The strategy's name in `cases.tsv`: verbatim, random, shuffle, semantic,
    /// normalise, ocr, word-shuffle or phrase-shuffle.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Verbatim => "verbatim",
            Strategy::Random(_) => "random",
            Strategy::Shuffle(_) => "shuffle",
            Strategy::Semantic(_) => "semantic",
            Strategy::Normalise => "normalise",
            Strategy::Ocr(_) => "ocr",
            Strategy::WordShuffle => "word-shuffle",
            Strategy::PhraseShuffle => "phrase-shuffle",
        }
    }

    /// The strategy the builder uses instead when this one left the passage
    /// unchanged (or, for synonyms, changed too little): random operations at the
    /// same level (low for normalisation) for the kinds of PAN-PC-10; word
    /// shuffling for phrase shuffling (a passage of fewer than [`MIN_PHRASES`]
    /// phrases); a verbatim copy for word shuffling (a passage without two
    /// different tokens, whose order cannot change). The case is labelled with the
    /// strategy its text comes from.
    pub fn fallback(self) -> Strategy {
        match self {
            Strategy::Random(level) | Strategy::Shuffle(level) | Strategy::Semantic(level) | Strategy::Ocr(level) => {
                Strategy::Random(level)
            }
            Strategy::Normalise => Strategy::Random(Level::Low),
            Strategy::PhraseShuffle => Strategy::WordShuffle,
            Strategy::WordShuffle | Strategy::Verbatim => Strategy::Verbatim,
        }
    }
}

/// Groups of interchangeable words, read from a file with one group per line,
/// the words separated by commas (`big, large, huge`). Blank lines and lines
/// starting with `#` are skipped. Words are matched case-insensitively.
#[derive(Debug, Clone, Default)]
pub struct Synonyms {
    groups: Vec<Vec<String>>,
    /// Lower-case word → index of the first group that holds it.
    group_of: HashMap<String, usize>,
}

impl Synonyms {
    /// Reads a synonym file of at most [`crate::analysis::read::MAX_INPUT_BYTES`];
    /// errors name the file and line.
    pub fn load(path: &Path) -> Result<Synonyms, CorpusError> {
        let bytes = read_input(path).map_err(|source| CorpusError::Io { path: path.to_path_buf(), source })?;
        let text = String::from_utf8(bytes)
            .map_err(|e| CorpusError::Utf8 { path: path.to_path_buf(), byte: e.utf8_error().valid_up_to() as u64 })?;
        Synonyms::parse(&text).map_err(|(line, message)| CorpusError::Synonyms {
            path: path.to_path_buf(),
            line,
            message,
        })
    }

    /// Parses the text of a synonym file; an error gives the 1-based line and the problem.
    pub fn parse(text: &str) -> Result<Synonyms, (usize, String)> {
        let mut synonyms = Synonyms::default();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut group: Vec<String> = Vec::new();
            for word in line.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                let word = word.to_lowercase();
                if !group.contains(&word) {
                    group.push(word);
                }
            }
            if group.len() < 2 {
                return Err((number + 1, format!("a synonym group needs at least two different words: '{line}'")));
            }
            let index = synonyms.groups.len();
            for word in &group {
                synonyms.group_of.entry(word.clone()).or_insert(index);
            }
            synonyms.groups.push(group);
        }
        if synonyms.groups.is_empty() {
            return Err((1, "no synonym groups".to_string()));
        }
        Ok(synonyms)
    }

    /// Number of synonym groups.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// True when there is no group (never after a successful [`Synonyms::parse`]).
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The group holding the lower-case `word`, if any.
    pub fn group(&self, word: &str) -> Option<&[String]> {
        self.group_of.get(word).map(|&i| self.groups[i].as_slice())
    }
}

/// Applies `strategy` to `passage`. `context` holds words of the receiving
/// document, used by random insertions and replacements. A semantic strategy
/// without synonyms behaves like the random one at the same level.
///
/// The result has no leading or trailing whitespace; for every strategy but
/// [`Strategy::Verbatim`] it may equal the passage when there was nothing to change
/// (the caller then picks another strategy).
pub fn obfuscate<R: Rng + ?Sized>(
    strategy: Strategy,
    passage: &str,
    context: &[&str],
    synonyms: Option<&Synonyms>,
    rng: &mut R,
) -> String {
    let result = match (strategy, synonyms) {
        (Strategy::Verbatim, _) => passage.to_string(),
        (Strategy::Random(level), _) | (Strategy::Semantic(level), None) => {
            random_operations(passage, level, context, rng)
        }
        (Strategy::Shuffle(level), _) => shuffle_within_sentences(passage, level, rng),
        (Strategy::Semantic(level), Some(synonyms)) => replace_synonyms(passage, level, synonyms, rng),
        (Strategy::Normalise, _) => normalise(passage, rng),
        (Strategy::Ocr(level), _) => ocr_noise(passage, level, rng),
        (Strategy::WordShuffle, _) => word_shuffle(passage, rng),
        (Strategy::PhraseShuffle, _) => phrase_shuffle(passage, rng),
    };
    result.trim().to_string()
}

/// How many of `count` items a fraction touches: at least one (when there is
/// one), at most all.
fn touched(count: usize, fraction: f64) -> usize {
    ((count as f64 * fraction).round() as usize).clamp(1, count.max(1)).min(count)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Operation {
    Keep,
    Shuffle,
    Delete,
    Insert,
    Replace,
}

/// Random text operations: a fraction of the level's range of the tokens is
/// shuffled (swapped with a token up to three places on), deleted, followed by an
/// inserted word or replaced by a word; inserted and replacing words are drawn
/// from `context` (the passage's own tokens when `context` is empty). Tokens are
/// joined by single spaces.
pub fn random_operations<R: Rng + ?Sized>(passage: &str, level: Level, context: &[&str], rng: &mut R) -> String {
    let mut tokens: Vec<&str> = passage.split_whitespace().collect();
    let n = tokens.len();
    if n == 0 {
        return String::new();
    }
    let own: Vec<&str> = tokens.clone();
    let pool: &[&str] = if context.is_empty() { &own } else { context };
    let count = touched(n, level.touched_fraction(rng));
    let mut operations = vec![Operation::Keep; n];
    for position in index::sample(rng, n, count) {
        operations[position] = match rng.random_range(0..4u8) {
            0 => Operation::Shuffle,
            1 => Operation::Delete,
            2 => Operation::Insert,
            _ => Operation::Replace,
        };
    }
    for (i, operation) in operations.iter().enumerate() {
        if *operation == Operation::Shuffle && n > 1 {
            let j = (i + rng.random_range(1..=3usize)).min(n - 1);
            let j = if j == i { i - 1 } else { j };
            tokens.swap(i, j);
        }
    }
    let mut words: Vec<&str> = Vec::with_capacity(n + count);
    for (token, operation) in tokens.iter().zip(&operations) {
        match operation {
            Operation::Keep | Operation::Shuffle => words.push(token),
            Operation::Delete => {}
            Operation::Insert => {
                words.push(token);
                words.push(pool[rng.random_range(0..pool.len())]);
            }
            Operation::Replace => words.push(pool[rng.random_range(0..pool.len())]),
        }
    }
    if words.is_empty() {
        words.push(tokens[0]);
    }
    words.join(" ")
}

/// Characters that end a sentence-final token and stay at the end of the
/// sentence when its words are shuffled.
fn is_final_punctuation(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '"' | '\'' | '”' | '’' | '»' | ')' | ']')
}

/// Word-order changes within sentences: a fraction of the level's range of the
/// tokens is picked, and in each sentence the picked tokens swap places among
/// themselves (a sentence with one picked token also gets its neighbour). The
/// sentence-final punctuation stays at the end and the capital letter at the start.
/// Sentences are joined by single spaces.
pub fn shuffle_within_sentences<R: Rng + ?Sized>(passage: &str, level: Level, rng: &mut R) -> String {
    let split = texts::split_sentences(passage);
    let n = split.tokens.len();
    if n == 0 {
        return String::new();
    }
    let mut picked = vec![false; n];
    let count = touched(n, level.touched_fraction(rng)).max(2).min(n);
    for position in index::sample(rng, n, count) {
        picked[position] = true;
    }
    let mut sentences = Vec::with_capacity(split.sentences.len());
    for sentence in &split.sentences {
        let mut words: Vec<String> = split.tokens[sentence.first_token..sentence.end_token]
            .iter()
            .map(|t| passage[t.bytes.clone()].to_string())
            .collect();
        let mut positions: Vec<usize> = (0..words.len()).filter(|&i| picked[sentence.first_token + i]).collect();
        if positions.len() == 1 && words.len() > 1 {
            let other = if positions[0] + 1 < words.len() { positions[0] + 1 } else { positions[0] - 1 };
            positions.push(other);
            positions.sort_unstable();
        }
        if positions.len() >= 2 {
            shuffle_positions(&mut words, &positions, rng);
        }
        sentences.push(words.join(" "));
    }
    sentences.join(" ")
}

fn shuffle_positions<R: Rng + ?Sized>(words: &mut [String], positions: &[usize], rng: &mut R) {
    let last = words.len() - 1;
    // Keep the final punctuation of the sentence in place.
    let final_word = &words[last];
    let core_end = final_word
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_final_punctuation(c))
        .last()
        .map_or(final_word.len(), |(i, _)| i);
    let suffix = if core_end > 0 { final_word[core_end..].to_string() } else { String::new() };
    let kept = words[last].len() - suffix.len();
    words[last].truncate(kept);
    let capitalised = words[0].chars().next().is_some_and(char::is_uppercase);
    let first_before = words[0].clone();

    let original: Vec<String> = positions.iter().map(|&i| words[i].clone()).collect();
    let mut moved = original.clone();
    moved.shuffle(rng);
    if moved == original {
        moved.rotate_left(1);
    }
    for (&i, word) in positions.iter().zip(moved) {
        words[i] = word;
    }
    if capitalised && words[0] != first_before {
        if let Some(i) = words.iter().position(|w| *w == first_before) {
            words[i] = with_first_letter(&words[i], false);
        }
        words[0] = with_first_letter(&words[0], true);
    }
    words[last].push_str(&suffix);
}

/// `word` with its first letter upper-cased (`upper`) or lower-cased.
fn with_first_letter(word: &str, upper: bool) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) if upper => first.to_uppercase().chain(chars).collect(),
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Word shuffling: the passage's tokens, words and punctuation marks alike
/// ([`texts::words_and_marks`]), in a uniformly random order that differs from
/// theirs, joined by single spaces: no run of words and no sentence survives, but
/// the bag of tokens is the passage's. Works for any script (a Han ideograph is a
/// token). The passage itself when it has no two different tokens.
pub fn word_shuffle<R: Rng + ?Sized>(passage: &str, rng: &mut R) -> String {
    let tokens = texts::words_and_marks(passage);
    match reordered(&tokens, rng) {
        Some(shuffled) => shuffled.join(" "),
        None => passage.to_string(),
    }
}

/// A passage with fewer phrases is not phrase-shuffled (see [`Strategy::fallback`]):
/// two phrases could only swap.
pub const MIN_PHRASES: usize = 3;

/// Phrase shuffling: the passage cut into phrases at clause punctuation
/// ([`texts::phrases`]: `, ; : . ! ?` and their Arabic and CJK forms) and the
/// phrases put in a uniformly random order that differs from theirs, joined by
/// single spaces; the words of a phrase keep their order. The passage itself when
/// it has fewer than [`MIN_PHRASES`] phrases or no two different ones.
pub fn phrase_shuffle<R: Rng + ?Sized>(passage: &str, rng: &mut R) -> String {
    let phrases = texts::phrases(passage);
    if phrases.len() < MIN_PHRASES {
        return passage.to_string();
    }
    match reordered(&phrases, rng) {
        Some(shuffled) => shuffled.join(" "),
        None => passage.to_string(),
    }
}

/// `items` in a uniformly random order other than theirs (redrawn until it
/// differs); `None` when no other order exists (no two different items).
fn reordered<'a, R: Rng + ?Sized>(items: &[&'a str], rng: &mut R) -> Option<Vec<&'a str>> {
    let first = items.first()?;
    if items.iter().all(|item| item == first) {
        return None;
    }
    let mut shuffled = items.to_vec();
    loop {
        shuffled.shuffle(rng);
        if shuffled != items {
            return Some(shuffled);
        }
    }
}

/// Semantic word variation: a fraction of the level's range of the words is
/// replaced by another word of its synonym group, keeping surrounding punctuation
/// and capitalisation; whitespace is kept. Words without synonyms stay, so fewer
/// words change when few have synonyms; none change when none has.
pub fn replace_synonyms<R: Rng + ?Sized>(passage: &str, level: Level, synonyms: &Synonyms, rng: &mut R) -> String {
    let tokens = texts::tokens(passage);
    let words = tokens.iter().filter(|t| is_word(&passage[t.bytes.clone()])).count();
    let mut candidates = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let (_, core, _) = split_word(&passage[token.bytes.clone()]);
        if !core.is_empty() && synonyms.group(&core.to_lowercase()).is_some() {
            candidates.push(i);
        }
    }
    if candidates.is_empty() {
        return passage.to_string();
    }
    let count = touched(words, level.touched_fraction(rng)).min(candidates.len());
    let mut replacements: Vec<(usize, String)> = Vec::with_capacity(count);
    for pick in index::sample(rng, candidates.len(), count) {
        let i = candidates[pick];
        let (prefix, core, suffix) = split_word(&passage[tokens[i].bytes.clone()]);
        let lower = core.to_lowercase();
        let Some(group) = synonyms.group(&lower) else { continue };
        let others: Vec<&String> = group.iter().filter(|w| **w != lower).collect();
        let Some(choice) = others.get(rng.random_range(0..others.len())) else { continue };
        replacements.push((i, format!("{prefix}{}{suffix}", match_case(core, choice))));
    }
    replacements.sort_unstable_by_key(|(i, _)| *i);
    let mut result = String::with_capacity(passage.len() + 16);
    let mut copied = 0;
    for (i, replacement) in replacements {
        result.push_str(&passage[copied..tokens[i].bytes.start]);
        result.push_str(&replacement);
        copied = tokens[i].bytes.end;
    }
    result.push_str(&passage[copied..]);
    result
}

/// Splits a token into leading punctuation, the word, and trailing punctuation.
fn split_word(token: &str) -> (&str, &str, &str) {
    let start = token.find(char::is_alphanumeric).unwrap_or(token.len());
    let end = token
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_alphanumeric())
        .map_or(start, |(i, c)| i + c.len_utf8())
        .max(start);
    (&token[..start], &token[start..end], &token[end..])
}

/// `replacement` written in the case pattern of `original`: all capitals, a
/// capital first letter, or as given.
fn match_case(original: &str, replacement: &str) -> String {
    let letters: Vec<char> = original.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() > 1 && letters.iter().all(|c| c.is_uppercase()) {
        replacement.to_uppercase()
    } else if original.chars().next().is_some_and(char::is_uppercase) {
        with_first_letter(replacement, true)
    } else {
        replacement.to_string()
    }
}

/// Normalisation changes: diacritics are removed, and each of case, punctuation
/// and whitespace changes is applied with probability 1/2; at least one change is
/// made whenever the passage allows one.
pub fn normalise<R: Rng + ?Sized>(passage: &str, rng: &mut R) -> String {
    let mut text = strip_diacritics(passage);
    if rng.random_bool(0.5) {
        text = change_case(&text, rng);
    }
    if rng.random_bool(0.5) {
        text = change_punctuation(&text, rng);
    }
    if rng.random_bool(0.5) {
        text = change_whitespace(&text, rng);
    }
    if text == passage {
        text = change_case(&text, rng);
    }
    if text == passage {
        text = change_punctuation(&text, rng);
    }
    if text == passage {
        text = change_whitespace(&text, rng);
    }
    text
}

/// `text` without diacritics: canonical decomposition, combining marks dropped,
/// recomposition; letters whose stroke is not a combining mark (ł, ø, đ, ħ, ı)
/// map to their base letter. `naïve` → `naive`, `Žluťoučký` → `Zlutoucky`.
pub fn strip_diacritics(text: &str) -> String {
    if text.is_ascii() {
        return text.to_string();
    }
    text.nfd()
        .filter(|&c| !unicode_normalization::char::is_combining_mark(c))
        .map(|c| match c {
            'ł' => 'l',
            'Ł' => 'L',
            'ø' => 'o',
            'Ø' => 'O',
            'đ' => 'd',
            'Đ' => 'D',
            'ħ' => 'h',
            'Ħ' => 'H',
            'ı' => 'i',
            other => other,
        })
        .nfc()
        .collect()
}

/// Case changes: either the whole text in lower case, or the first letter of
/// about a fifth of the words (at least one) flipped between upper and lower case.
pub fn change_case<R: Rng + ?Sized>(text: &str, rng: &mut R) -> String {
    let lower = text.to_lowercase();
    if rng.random_bool(0.5) && lower != text {
        return lower;
    }
    let tokens = texts::tokens(text);
    let flippable: Vec<usize> = (0..tokens.len())
        .filter(|&i| text[tokens[i].bytes.clone()].chars().next().is_some_and(char::is_alphabetic))
        .collect();
    if flippable.is_empty() {
        return text.to_string();
    }
    let mut flip = vec![false; tokens.len()];
    for pick in index::sample(rng, flippable.len(), touched(flippable.len(), 0.2)) {
        flip[flippable[pick]] = true;
    }
    let mut result = String::with_capacity(text.len());
    let mut copied = 0;
    for (token, flip) in tokens.iter().zip(flip) {
        if flip {
            result.push_str(&text[copied..token.bytes.start]);
            let word = &text[token.bytes.clone()];
            let upper = !word.chars().next().is_some_and(char::is_uppercase);
            result.push_str(&with_first_letter(word, upper));
            copied = token.bytes.end;
        }
    }
    result.push_str(&text[copied..]);
    result
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || matches!(c, '–' | '—' | '„' | '“' | '”' | '‘' | '’' | '«' | '»' | '…' | '‚')
}

/// Punctuation changes: each punctuation mark is dropped with probability 0.4 (a
/// hyphen or dash between letters becomes a space); at least one mark goes when
/// the text has any.
pub fn change_punctuation<R: Rng + ?Sized>(text: &str, rng: &mut R) -> String {
    let marks = text.chars().filter(|&c| is_punctuation(c)).count();
    if marks == 0 {
        return text.to_string();
    }
    let mut drop: Vec<bool> = (0..marks).map(|_| rng.random_bool(0.4)).collect();
    if !drop.contains(&true) {
        drop[rng.random_range(0..marks)] = true;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut result = String::with_capacity(text.len());
    let mut mark = 0;
    for (i, &c) in chars.iter().enumerate() {
        if !is_punctuation(c) {
            result.push(c);
            continue;
        }
        let dropped = drop[mark];
        mark += 1;
        if !dropped {
            result.push(c);
        } else if matches!(c, '-' | '–' | '—')
            && i > 0
            && chars[i - 1].is_alphabetic()
            && chars.get(i + 1).is_some_and(|n| n.is_alphabetic())
        {
            result.push(' ');
        }
    }
    result
}

/// Whitespace changes: either every run of whitespace (line breaks included)
/// becomes one space, or an extra space or line break follows about a tenth of
/// the words (at least one).
pub fn change_whitespace<R: Rng + ?Sized>(text: &str, rng: &mut R) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if rng.random_bool(0.5) && collapsed != text {
        return collapsed;
    }
    let tokens = texts::tokens(text);
    if tokens.len() < 2 {
        return text.to_string();
    }
    let gaps = tokens.len() - 1;
    let mut widen = vec![false; gaps];
    for pick in index::sample(rng, gaps, touched(gaps, 0.1)) {
        widen[pick] = true;
    }
    let mut result = String::with_capacity(text.len() + gaps / 5);
    for (i, token) in tokens.iter().enumerate() {
        result.push_str(&text[token.bytes.clone()]);
        if let Some(next) = tokens.get(i + 1) {
            result.push_str(&text[token.bytes.end..next.bytes.start]);
            if widen[i] {
                result.push(if rng.random_bool(0.8) { ' ' } else { '\n' });
            }
        }
    }
    result
}

/// Letter groups that optical character recognition confuses, each with what
/// it is misread as: `rn`/`m`, `l`/`1`, `O`/`0` and a few more of the same kind.
const CONFUSABLES: [(&str, &str); 11] = [
    ("rn", "m"),
    ("m", "rn"),
    ("l", "1"),
    ("1", "l"),
    ("I", "l"),
    ("O", "0"),
    ("0", "O"),
    ("cl", "d"),
    ("d", "cl"),
    ("e", "c"),
    ("h", "li"),
];

/// OCR noise: a share of the words given by `level` is damaged, each in one of
/// three ways: a confusable letter group misread (6 in 10, see [`misread`]),
/// the word broken in two by a space (2 in 10, see [`break_word`]), or the word
/// merged with the next one (2 in 10). Independently, each punctuation mark is
/// lost with the same probability as a word is damaged.
pub fn ocr_noise<R: Rng + ?Sized>(passage: &str, level: Level, rng: &mut R) -> String {
    let tokens = texts::tokens(passage);
    let fraction = level.touched_fraction(rng);
    let words: Vec<usize> = (0..tokens.len()).filter(|&i| is_word(&passage[tokens[i].bytes.clone()])).collect();
    let mut damaged = vec![false; tokens.len()];
    for pick in index::sample(rng, words.len(), touched(words.len(), fraction)) {
        damaged[words[pick]] = true;
    }
    let mut result = String::with_capacity(passage.len() + 16);
    for (i, token) in tokens.iter().enumerate() {
        let word = drop_punctuation(&passage[token.bytes.clone()], fraction, rng);
        let mut merge_with_next = false;
        let noisy = if damaged[i] {
            match rng.random_range(0..10u32) {
                0..6 => misread(&word, rng).or_else(|| break_word(&word, rng)),
                6..8 => break_word(&word, rng).or_else(|| misread(&word, rng)),
                _ => {
                    merge_with_next = true;
                    None
                }
            }
        } else {
            None
        };
        result.push_str(noisy.as_deref().unwrap_or(&word));
        if let Some(next) = tokens.get(i + 1)
            && !merge_with_next
        {
            result.push_str(&passage[token.bytes.end..next.bytes.start]);
        }
    }
    result
}

/// `word` with each punctuation mark dropped with probability `probability`.
fn drop_punctuation<R: Rng + ?Sized>(word: &str, probability: f64, rng: &mut R) -> String {
    word.chars().filter(|&c| !(is_punctuation(c) && rng.random_bool(probability))).collect()
}

/// `word` with one of its `CONFUSABLES` (drawn uniformly among the places
/// where one occurs) misread; `None` when it has none.
pub fn misread<R: Rng + ?Sized>(word: &str, rng: &mut R) -> Option<String> {
    let sites: Vec<(usize, &str, &str)> = word
        .char_indices()
        .flat_map(|(at, _)| {
            CONFUSABLES
                .iter()
                .filter(move |(seen, _)| word[at..].starts_with(seen))
                .map(move |&(seen, read)| (at, seen, read))
        })
        .collect();
    let &(at, seen, read) = sites.get(rng.random_range(0..sites.len().max(1)))?;
    Some(format!("{}{read}{}", &word[..at], &word[at + seen.len()..]))
}

/// `word` broken in two by a space between two of its letters, each part
/// keeping at least two characters; `None` for words of fewer than four letters.
pub fn break_word<R: Rng + ?Sized>(word: &str, rng: &mut R) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    let places: Vec<usize> = (2..chars.len().saturating_sub(1))
        .filter(|&at| chars[at - 1].is_alphabetic() && chars[at].is_alphabetic())
        .collect();
    let &at = places.get(rng.random_range(0..places.len().max(1)))?;
    let (head, tail) = chars.split_at(at);
    Some(format!("{} {}", head.iter().collect::<String>(), tail.iter().collect::<String>()))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;

    const PASSAGE: &str = "The old lighthouse keeper climbed the stairs every evening. He trimmed the wick, \
        polished the great lens and wrote the weather into a worn logbook. Ships passed far out at sea, \
        and none of their crews ever knew his name. In winter the storms shook the tower until the glass rattled.";

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    fn words(text: &str) -> Vec<&str> {
        text.split_whitespace().collect()
    }

    /// Fraction of positions where the two word sequences differ (a rough measure).
    fn changed_fraction(a: &str, b: &str) -> f64 {
        let (a, b) = (words(a), words(b));
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        1.0 - same as f64 / a.len().max(b.len()) as f64
    }

    #[test]
    fn verbatim_copies_exactly() {
        let passage = "Žluťoučký kůň\núpěl ďábelské ódy.";
        assert_eq!(obfuscate(Strategy::Verbatim, passage, &[], None, &mut rng(1)), passage);
    }

    #[test]
    fn random_operations_touch_the_level_s_share_of_words() {
        let context = ["harbour", "granite", "lantern"];
        for seed in 0..20 {
            let low = random_operations(PASSAGE, Level::Low, &context, &mut rng(seed));
            let high = random_operations(PASSAGE, Level::High, &context, &mut rng(seed));
            assert_ne!(low, PASSAGE);
            assert!(!low.starts_with(' ') && !low.ends_with(' '));
            let n = words(PASSAGE).len() as f64;
            let low_len = words(&low).len() as f64;
            let high_len = words(&high).len() as f64;
            assert!((low_len - n).abs() <= 0.2 * n + 1.0, "{low}");
            assert!((high_len - n).abs() <= 0.5 * n + 1.0, "{high}");
            // Every word comes from the passage or the context.
            for word in words(&high) {
                assert!(PASSAGE.contains(word) || context.contains(&word), "{word}");
            }
        }
        let average = |level| {
            (0..30)
                .map(|seed| changed_fraction(PASSAGE, &random_operations(PASSAGE, level, &context, &mut rng(seed))))
                .sum::<f64>()
                / 30.0
        };
        assert!(average(Level::Low) < average(Level::High));
    }

    #[test]
    fn random_operations_use_the_passage_when_there_is_no_context() {
        let passage = "one two three four five six seven eight nine ten";
        let result = random_operations(passage, Level::High, &[], &mut rng(3));
        for word in words(&result) {
            assert!(words(passage).contains(&word), "{word}");
        }
        assert_eq!(random_operations("   ", Level::Low, &[], &mut rng(3)), "");
    }

    #[test]
    fn shuffle_keeps_the_words_of_each_sentence() {
        let normalised = |sentence: &str| {
            let mut words: Vec<String> =
                words(sentence).iter().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).collect();
            words.sort();
            words
        };
        for seed in 0..20 {
            let shuffled = shuffle_within_sentences(PASSAGE, Level::High, &mut rng(seed));
            assert_ne!(shuffled, PASSAGE);
            // Sentence i of the result holds as many tokens as sentence i of the passage.
            let original = texts::split_sentences(PASSAGE);
            let tokens = words(&shuffled);
            assert_eq!(tokens.len(), original.tokens.len());
            let mut start = 0;
            for sentence in &original.sentences {
                let count = sentence.end_token - sentence.first_token;
                let changed = tokens[start..start + count].join(" ");
                start += count;
                assert_eq!(normalised(&PASSAGE[sentence.bytes.clone()]), normalised(&changed));
                // Final punctuation stays at the end, the capital at the start.
                assert!(changed.ends_with('.'), "{changed}");
                assert!(changed.chars().next().is_some_and(char::is_uppercase), "{changed}");
            }
        }
        let low = shuffle_within_sentences(PASSAGE, Level::Low, &mut rng(5));
        assert!(changed_fraction(PASSAGE, &low) > 0.0);
    }

    #[test]
    fn synonyms_replace_words_and_keep_case_and_punctuation() {
        let synonyms =
            Synonyms::parse("# comment\nold, ancient, aged\nship, vessel\n\nstorm, gale\ngreat, huge").unwrap();
        assert_eq!(synonyms.len(), 4);
        let text = "Old ships met a storm. The great SHIP, old and worn, survived the storms.";
        let replaced = replace_synonyms(text, Level::High, &synonyms, &mut rng(7));
        assert_ne!(replaced, text);
        assert_eq!(words(&replaced).len(), words(text).len());
        for (a, b) in words(text).iter().zip(words(&replaced)) {
            if *a != b {
                let (pa, ca, sa) = split_word(a);
                let (pb, cb, sb) = split_word(b);
                assert_eq!((pa, sa), (pb, sb));
                let group = synonyms.group(&ca.to_lowercase()).unwrap();
                assert!(group.contains(&cb.to_lowercase()), "{a} -> {b}");
                assert_eq!(
                    ca.chars().next().is_some_and(char::is_uppercase),
                    cb.chars().next().is_some_and(char::is_uppercase)
                );
            }
        }
        assert!(replaced.contains("VESSEL") || replaced.contains("SHIP,"));
        // Nothing to replace: unchanged, so the builder falls back to another strategy.
        assert_eq!(
            replace_synonyms("Nothing matches here.", Level::High, &synonyms, &mut rng(7)),
            "Nothing matches here."
        );
    }

    #[test]
    fn synonym_files_are_validated() {
        assert_eq!(Synonyms::parse("big, large\nlonely\n").unwrap_err().0, 2);
        assert!(Synonyms::parse("# only a comment\n").is_err());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("syn.txt");
        std::fs::write(&path, "a, b\nc\n").unwrap();
        let error = Synonyms::load(&path).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}: line 2:", path.display())), "{error}");
    }

    #[test]
    fn diacritics_are_stripped() {
        assert_eq!(strip_diacritics("naïve café"), "naive cafe");
        assert_eq!(strip_diacritics("Žluťoučký kůň úpěl ďábelské ódy"), "Zlutoucky kun upel dabelske ody");
        assert_eq!(strip_diacritics("Grüße aus Łódź, Ørsted"), "Gruße aus Lodz, Orsted");
        assert_eq!(strip_diacritics("plain ASCII"), "plain ASCII");
        // Decomposed input (e + combining acute) loses its mark too.
        assert_eq!(strip_diacritics("cafe\u{301}"), "cafe");
    }

    #[test]
    fn case_changes_only_change_case() {
        for seed in 0..10 {
            let changed = change_case(PASSAGE, &mut rng(seed));
            assert_ne!(changed, PASSAGE);
            assert_eq!(changed.to_lowercase(), PASSAGE.to_lowercase());
        }
    }

    #[test]
    fn punctuation_changes_only_touch_punctuation() {
        let text = "Well-known, he said; \"yes\" (or no) – fine.";
        let letters = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).collect::<String>();
        for seed in 0..10 {
            let changed = change_punctuation(text, &mut rng(seed));
            assert_ne!(changed, text);
            assert_eq!(letters(&changed), letters(text));
        }
        assert_eq!(change_punctuation("no marks here", &mut rng(1)), "no marks here");
    }

    #[test]
    fn whitespace_changes_only_touch_whitespace() {
        let text = "Line one\nline  two and three four five six seven";
        for seed in 0..10 {
            let changed = change_whitespace(text, &mut rng(seed));
            assert_ne!(changed, text);
            assert_eq!(words(&changed), words(text));
        }
    }

    #[test]
    fn normalise_changes_form_but_not_words() {
        let text = "Der naïve Bäcker, sagte er, backt „gutes“ Brot.";
        let core =
            |s: &str| strip_diacritics(s).to_lowercase().chars().filter(|c| c.is_alphanumeric()).collect::<String>();
        for seed in 0..10 {
            let normalised = normalise(text, &mut rng(seed));
            assert_ne!(normalised, text);
            assert_eq!(core(&normalised), core(text));
            assert!(!normalised.contains('ï') && !normalised.contains('ä'));
        }
        // An all-lower-case ASCII text without punctuation still changes.
        assert_ne!(normalise("plain words only here", &mut rng(2)), "plain words only here");
    }

    #[test]
    fn strategies_are_labelled_like_pan_pc_10() {
        assert_eq!(Strategy::Verbatim.obfuscation(), "none");
        assert_eq!(Strategy::Normalise.obfuscation(), "low");
        assert_eq!(Strategy::Shuffle(Level::High).obfuscation(), "high");
        assert_eq!(Strategy::Semantic(Level::Low).name(), "semantic");
        // Semantic without a word list falls back to random operations.
        let a = obfuscate(Strategy::Semantic(Level::Low), PASSAGE, &[], None, &mut rng(4));
        let b = obfuscate(Strategy::Random(Level::Low), PASSAGE, &[], None, &mut rng(4));
        assert_eq!(a, b);
    }

    #[test]
    fn same_seed_same_result() {
        for strategy in [Strategy::Random(Level::High), Strategy::Shuffle(Level::Low), Strategy::Normalise] {
            let a = obfuscate(strategy, PASSAGE, &["x"], None, &mut rng(9));
            let b = obfuscate(strategy, PASSAGE, &["x"], None, &mut rng(9));
            assert_eq!(a, b);
        }
    }

    #[test]
    fn misreading_replaces_one_confusable_group() {
        let word = "modern";
        let expected: Vec<String> = (0..word.len())
            .flat_map(|at| {
                CONFUSABLES
                    .iter()
                    .filter(move |(seen, _)| word[at..].starts_with(seen))
                    .map(move |(seen, read)| format!("{}{read}{}", &word[..at], &word[at + seen.len()..]))
            })
            .collect();
        let seen: std::collections::BTreeSet<String> =
            (0..200).filter_map(|seed| misread(word, &mut rng(seed))).collect();
        assert!(seen.iter().all(|read| expected.contains(read)), "{seen:?} not among {expected:?}");
        assert!(seen.contains("modem") && seen.contains("rnodern"), "{seen:?}");
        assert_eq!(misread("xyz", &mut rng(1)), None);
    }

    #[test]
    fn broken_words_keep_their_letters_in_two_parts() {
        for seed in 0..50 {
            let broken = break_word("lighthouse", &mut rng(seed)).unwrap();
            let parts: Vec<&str> = broken.split(' ').collect();
            assert_eq!(parts.len(), 2);
            assert!(parts.iter().all(|part| part.chars().count() >= 2), "{broken}");
            assert_eq!(parts.concat(), "lighthouse");
        }
        assert_eq!(break_word("cat", &mut rng(1)), None);
        assert_eq!(break_word("a-b-c", &mut rng(1)), None);
    }

    /// Share of the passage's words (punctuation stripped) found unchanged, in
    /// order, as words of `noisy`.
    fn intact_share(noisy: &str) -> f64 {
        let strip = |w: &str| w.chars().filter(|c| c.is_alphanumeric()).collect::<String>();
        let kept: std::collections::HashSet<String> = noisy.split_whitespace().map(strip).collect();
        let words: Vec<String> = PASSAGE.split_whitespace().map(strip).collect();
        words.iter().filter(|w| kept.contains(*w)).count() as f64 / words.len() as f64
    }

    #[test]
    fn ocr_noise_damages_about_the_levels_share_of_words() {
        let mean =
            |level| (0..40).map(|seed| intact_share(&ocr_noise(PASSAGE, level, &mut rng(seed)))).sum::<f64>() / 40.0;
        let (low, high) = (mean(Level::Low), mean(Level::High));
        assert!((0.75..0.95).contains(&low), "low keeps {low}");
        assert!((0.45..0.75).contains(&high), "high keeps {high}");
        let noisy = obfuscate(Strategy::Ocr(Level::High), PASSAGE, &[], None, &mut rng(3));
        assert_ne!(noisy, PASSAGE);
        let letters = |t: &str| t.chars().filter(|c| c.is_alphanumeric()).count() as f64;
        assert!((letters(&noisy) / letters(PASSAGE) - 1.0).abs() < 0.1);
        assert_eq!(Strategy::Ocr(Level::Low).obfuscation(), "low");
        assert_eq!(Strategy::Ocr(Level::High).name(), "ocr");
    }

    const ARABIC: &str = "قال المعلمُ للطلاب: الكتابُ مفيدٌ جدا، والقراءةُ تفتح العقول. هل قرأتم الفصل الأول؟ \
        نعم، قرأناه أمس في المكتبة، وكتبنا ملخصا قصيرا له.";

    /// The tokens of `text` ([`texts::words_and_marks`]), sorted: its bag of tokens.
    fn bag(text: &str) -> Vec<&str> {
        let mut tokens = texts::words_and_marks(text);
        tokens.sort_unstable();
        tokens
    }

    /// Share of the passage's pairs of neighbouring tokens that are neighbours,
    /// in the same order, in `changed`.
    fn kept_neighbours(passage: &str, changed: &str) -> f64 {
        let pairs = |text| {
            let tokens = texts::words_and_marks(text);
            tokens.windows(2).map(|pair| (pair[0], pair[1])).collect::<Vec<_>>()
        };
        let after: std::collections::HashSet<(&str, &str)> = pairs(changed).into_iter().collect();
        let before = pairs(passage);
        before.iter().filter(|pair| after.contains(*pair)).count() as f64 / before.len() as f64
    }

    #[test]
    fn word_shuffle_keeps_the_bag_of_tokens_and_destroys_their_order() {
        for passage in [PASSAGE, ARABIC, "我们去公园，然后回家。明天再来，好吗？"] {
            for seed in 0..20 {
                let shuffled = word_shuffle(passage, &mut rng(seed));
                assert_eq!(bag(&shuffled), bag(passage), "{shuffled}");
                assert_ne!(texts::words_and_marks(&shuffled), texts::words_and_marks(passage));
                assert!(!shuffled.contains("  ") && shuffled.trim() == shuffled, "{shuffled}");
            }
            let mean =
                (0..20).map(|seed| kept_neighbours(passage, &word_shuffle(passage, &mut rng(seed)))).sum::<f64>()
                    / 20.0;
            assert!(mean < 0.2, "{mean} of the neighbours kept");
        }
        // Punctuation marks are tokens of their own, moved like words.
        let shuffled = word_shuffle(ARABIC, &mut rng(1));
        assert!(shuffled.split(' ').any(|token| token == "،"), "{shuffled}");
        assert!(shuffled.split(' ').filter(|token| token.contains('،')).all(|token| token == "،"), "{shuffled}");
        assert!(shuffled.contains("المعلمُ") && shuffled.contains("مفيدٌ"), "harakat kept: {shuffled}");
    }

    #[test]
    fn word_shuffle_leaves_a_passage_whose_order_cannot_change() {
        assert_eq!(word_shuffle("ha  ha\nha", &mut rng(1)), "ha  ha\nha");
        assert_eq!(word_shuffle("", &mut rng(1)), "");
        assert_eq!(word_shuffle("a b", &mut rng(1)), "b a");
    }

    #[test]
    fn phrase_shuffle_moves_whole_phrases() {
        for passage in [PASSAGE, ARABIC, "我们去公园，然后回家。明天再来，好吗？"] {
            let mut phrases = texts::phrases(passage);
            phrases.sort_unstable();
            for seed in 0..20 {
                let shuffled = phrase_shuffle(passage, &mut rng(seed));
                assert_ne!(shuffled, passage);
                let mut moved = texts::phrases(&shuffled);
                assert_ne!(moved, texts::phrases(passage));
                moved.sort_unstable();
                assert_eq!(moved, phrases, "{shuffled}");
            }
        }
        // Fewer than three phrases: unchanged, the builder falls back to word shuffling.
        assert_eq!(phrase_shuffle("One phrase, and two", &mut rng(1)), "One phrase, and two");
        assert_eq!(phrase_shuffle("Echo. Echo. Echo.", &mut rng(1)), "Echo. Echo. Echo.");
        assert_eq!(Strategy::PhraseShuffle.fallback(), Strategy::WordShuffle);
        assert_eq!(Strategy::WordShuffle.fallback(), Strategy::Verbatim);
        assert_eq!(Strategy::Normalise.fallback(), Strategy::Random(Level::Low));
        assert_eq!(Strategy::Shuffle(Level::High).fallback(), Strategy::Random(Level::High));
    }

    #[test]
    fn reordering_strategies_are_labelled_by_name_and_repeat_for_a_seed() {
        assert_eq!(Strategy::WordShuffle.obfuscation(), "word-shuffle");
        assert_eq!(Strategy::PhraseShuffle.obfuscation(), "phrase-shuffle");
        assert_eq!(Strategy::WordShuffle.name(), "word-shuffle");
        for strategy in [Strategy::WordShuffle, Strategy::PhraseShuffle] {
            for passage in [PASSAGE, ARABIC] {
                let a = obfuscate(strategy, passage, &[], None, &mut rng(9));
                assert_eq!(a, obfuscate(strategy, passage, &[], None, &mut rng(9)));
                assert_ne!(a, obfuscate(strategy, passage, &[], None, &mut rng(10)));
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn ocr_noise_takes_any_text(text in "\\PC{0,80}", seed in 0u64..1000) {
            let noisy = ocr_noise(&text, Level::High, &mut rng(seed));
            proptest::prop_assert!(noisy.chars().count() <= 2 * text.chars().count() + 1);
        }

        #[test]
        fn word_shuffle_keeps_the_tokens_of_any_text(text in "(\\PC|\\s){0,120}", seed in 0u64..1000) {
            let shuffled = word_shuffle(&text, &mut rng(seed));
            proptest::prop_assert_eq!(bag(&shuffled), bag(&text));
        }

        #[test]
        fn phrase_shuffle_keeps_the_characters_of_any_text(text in "[a-z ,.;:!?،؟。，]{0,120}", seed in 0u64..1000) {
            let characters = |text: &str| {
                let mut characters: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
                characters.sort_unstable();
                characters
            };
            proptest::prop_assert_eq!(characters(&phrase_shuffle(&text, &mut rng(seed))), characters(&text));
        }
    }
}
