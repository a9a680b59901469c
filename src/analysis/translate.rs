//! Cross-language detection (issue 67): a suspicious document written in
//! another language than the sources has its words mapped into the sources'
//! language with a bilingual dictionary before it is chunked, looked up and
//! aligned, so that a passage translated from a source meets that source's
//! words. The passages found in the mapped text are reported at the original
//! text's character offsets ([`OriginalOffsets::original_range`]).
//!
//! The dictionaries are FreeDict's, in the dictd format that Debian's
//! `dict-freedict-*` packages install into [`DEFAULT_DICTIONARY_DIR`]
//! (`scripts/install-dictionaries.sh`); nothing is fetched at run time. A
//! language pair's dictionary is `freedict-FFF-SSS.index` with
//! `freedict-FFF-SSS.dict.dz` (foreign → sources' language, ISO 639-3 codes),
//! and the reverse dictionary `freedict-SSS-FFF`, inverted, adds the words it
//! translates with one word. A dictionary is loaded when the first document
//! of its language needs it.
//!
//! A document's language is forced ([`CrossLanguage::suspicious`]) or guessed
//! from its function words ([`guess_language`]); a document in the sources'
//! language, in a language not guessed, or in one without a dictionary keeps
//! its text exactly: it takes the same-language path.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::analysis::span::{CharRange, skip_chars};
use crate::analysis::stem::{LANGUAGES, Language, guess_language};
use crate::analysis::tokenize::{Tokenizer, TokenizerParams, Tokens};

/// Where Debian's `dict-freedict-*` packages install their dictionaries.
pub const DEFAULT_DICTIONARY_DIR: &str = "/usr/share/dictd";

/// Translations a foreign word is mapped to, the dictionary's first ones
/// ([`CrossLanguage::max_translations`]): on `xlang-dev-europarl` 1, 2 and 3
/// gave plagdet 0.78, 0.69 and 0.45 (es) and 0.89, 0.90 and 0.25 (fr) with
/// the pairs given, and all of them nothing: every further word dilutes the
/// mapped sentence.
pub const DEFAULT_MAX_TRANSLATIONS: usize = 1;

/// Least characters that a word and its cognate ([`Dictionary::cognate`])
/// begin with alike.
const MIN_COGNATE_PREFIX: usize = 5;

/// Lexicon words either side of where a word would be that are tried as its
/// cognate.
const COGNATE_SCAN: usize = 32;

/// Words of a document's start that its language is guessed from (as the
/// alignment stage guesses it).
const LANGUAGE_SAMPLE_WORDS: usize = 2000;

/// Bytes of a document's start tokenized to guess its language: more than
/// [`LANGUAGE_SAMPLE_WORDS`] words of prose.
const LANGUAGE_SAMPLE_BYTES: usize = 32 << 10;

/// A dictionary file that could not be used.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: cannot load dictionary: {message}", path.display())]
pub struct DictionaryError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

/// How suspicious documents in another language than the sources are mapped
/// into the sources' language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrossLanguage {
    /// The directory of the dictionaries.
    pub dictionary_dir: PathBuf,
    /// The sources' language; `None`: guessed from the sources.
    pub sources: Option<Language>,
    /// Every suspicious document's language; `None`: guessed per document.
    pub suspicious: Option<Language>,
    /// Translations of a word kept, the dictionary's first (0: all).
    pub max_translations: usize,
}

impl Default for CrossLanguage {
    fn default() -> Self {
        CrossLanguage {
            dictionary_dir: PathBuf::from(DEFAULT_DICTIONARY_DIR),
            sources: None,
            suspicious: None,
            max_translations: DEFAULT_MAX_TRANSLATIONS,
        }
    }
}

/// A bilingual dictionary: folded foreign words to translations, each the
/// content words of one sense in the target language, most likely first.
#[derive(Debug, Default)]
pub struct Dictionary {
    /// Folded headword → its translations.
    words: HashMap<String, Vec<String>>,
    /// The foreign stem of a headword → that headword, for inflected forms.
    stems: HashMap<String, String>,
    /// The target language's words that the dictionary holds: the
    /// cognates of the words it does not translate are found among them.
    lexicon: Lexicon,
    /// The foreign language (for its stemmer).
    foreign: Option<Language>,
}

impl Dictionary {
    /// The dictionary of `foreign` into `target` in `dir`: its dictd
    /// dictionary, then the reverse one inverted; `None` when neither is
    /// there.
    pub fn load(dir: &Path, foreign: Language, target: Language) -> Result<Option<Dictionary>, DictionaryError> {
        let forward = dictd_files(dir, foreign, target);
        let reverse = dictd_files(dir, target, foreign);
        if forward.is_none() && reverse.is_none() {
            return Ok(None);
        }
        let mut dictionary = Dictionary { foreign: Some(foreign), ..Dictionary::default() };
        let target_words = TargetWords::new(target);
        if let Some((index, dict)) = forward {
            for (headword, entry) in read_dictd(&index, &dict)? {
                dictionary.add_entry(&headword, &entry, &target_words);
            }
        }
        if let Some((index, dict)) = reverse {
            let mut confirmed = HashMap::new();
            for (headword, entry) in read_dictd(&index, &dict)? {
                dictionary.add_reverse_entry(&headword, &entry, &mut confirmed);
            }
            dictionary.put_confirmed_first(&confirmed);
        }
        dictionary.index_stems();
        dictionary.collect_lexicon();
        Ok(Some(dictionary))
    }

    /// Adds a dictd entry: `headword` (one word, else skipped) translated by
    /// the senses of `entry`.
    fn add_entry(&mut self, headword: &str, entry: &str, target_words: &TargetWords) {
        let Some(headword) = one_folded_word(headword) else { return };
        let translations = self.words.entry(headword).or_default();
        for sense in senses(entry) {
            let words = target_words.content_words(sense);
            if !words.is_empty() && !translations.contains(&words) {
                translations.push(words);
            }
        }
    }

    /// Adds an entry of the reverse dictionary: `headword` (a word of the
    /// target language) becomes a translation of each foreign sense of
    /// `entry` that is one word, and is noted in `confirmed` as that
    /// word's translation both ways.
    fn add_reverse_entry(&mut self, headword: &str, entry: &str, confirmed: &mut HashMap<String, Vec<String>>) {
        let Some(translation) = one_folded_word(headword) else { return };
        for sense in senses(entry) {
            if let Some(word) = one_folded_word(sense) {
                let translations = self.words.entry(word.clone()).or_default();
                if !translations.contains(&translation) {
                    translations.push(translation.clone());
                }
                confirmed.entry(word).or_default().push(translation.clone());
            }
        }
    }

    /// Puts first, in their order, each word's translations that the
    /// reverse dictionary gives it too (`confirmed`): FreeDict lists a
    /// sense's words alphabetically (`creer`: account, accredit, believe,
    /// deem), and the one that translates back is the usual one (`believe`:
    /// creer). On `xlang-dev-europarl`, with the pairs given: es 0.782 ->
    /// 0.877, fr 0.888 -> 0.931; in full search: es 0.818 -> 0.824, fr 0.888
    /// -> 0.931.
    fn put_confirmed_first(&mut self, confirmed: &HashMap<String, Vec<String>>) {
        for (word, back) in confirmed {
            if let Some(translations) = self.words.get_mut(word) {
                translations.sort_by_key(|translation| !back.contains(translation));
            }
        }
    }

    /// Indexes the headwords by their foreign stems (the first headword of a
    /// stem wins).
    fn index_stems(&mut self) {
        let Some(stemmer) = self.foreign.map(Language::stemmer) else { return };
        let mut headwords: Vec<&String> = self.words.keys().collect();
        headwords.sort_unstable();
        for headword in headwords {
            self.stems.entry(stemmer.stem(headword).into_owned()).or_insert_with(|| headword.clone());
        }
    }

    /// Gathers the target language's words of the translations into the
    /// sorted lexicon.
    fn collect_lexicon(&mut self) {
        let words = self.words.values().flatten().flat_map(|translation| translation.split(' '));
        self.lexicon = Lexicon::new(words.map(str::to_string).collect());
    }

    /// The translations of the folded word `word`, of its headword or of the
    /// headword of its stem (`stem`).
    fn translations(&self, word: &str, stem: &str) -> Option<&[String]> {
        let found = self.words.get(word).filter(|t| !t.is_empty());
        found.or_else(|| self.stems.get(stem).and_then(|headword| self.words.get(headword))).map(Vec::as_slice)
    }

    /// Number of headwords.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when the dictionary has no headword.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// Words of the target language, folded and sorted, among which the
/// foreign words no dictionary translates find their cognates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexicon {
    words: Vec<String>,
}

impl Lexicon {
    /// The lexicon of `words` (folded).
    pub fn new(mut words: Vec<String>) -> Self {
        words.retain(|word| !word.is_empty());
        words.sort_unstable();
        words.dedup();
        Lexicon { words }
    }

    /// The cognate of the folded word `word`: the word that shares the
    /// longest start with it, of at least [`MIN_COGNATE_PREFIX`] characters
    /// and half of each word (the closest in length among equals), so that
    /// `discusion` meets `discussion` and `importante` `important`; with
    /// the characters it shares.
    fn cognate(&self, word: &str) -> Option<(usize, &str)> {
        let length = word.chars().count();
        if length < MIN_COGNATE_PREFIX {
            return None;
        }
        let at = self.words.partition_point(|w| w.as_str() < word);
        // The words sharing the longest start with `word` lie next to where it would be.
        let near = self.words[at.saturating_sub(COGNATE_SCAN)..(at + COGNATE_SCAN).min(self.words.len())].iter();
        let shared = |w: &str| w.chars().zip(word.chars()).take_while(|(a, b)| a == b).count();
        near.map(|w| (shared(w), w.chars().count(), w.as_str()))
            .filter(|&(shared, len, _)| shared >= MIN_COGNATE_PREFIX && 2 * shared >= length && 2 * shared >= len)
            .max_by_key(|&(shared, len, w)| (shared, std::cmp::Reverse(len.abs_diff(length)), std::cmp::Reverse(w)))
            .map(|(shared, _, w)| (shared, w))
    }
}

/// Calls its argument with the text of each source document.
pub type ForEachSource<'a> = dyn Fn(&mut dyn FnMut(&str)) + Send + Sync + 'a;

impl Lexicon {
    /// The words of at least `MIN_COGNATE_PREFIX` letters of the texts
    /// that `for_each` gives.
    pub fn of_texts(for_each: &ForEachSource<'_>) -> Self {
        let (tokenizer, mut tokens) = (word_tokenizer(), Tokens::default());
        let mut words = std::collections::HashSet::new();
        for_each(&mut |text| {
            tokenizer.tokenize(text, &mut tokens);
            for word in tokens.words().filter(|word| word.chars().nth(MIN_COGNATE_PREFIX - 1).is_some()) {
                if !words.contains(word) {
                    words.insert(word.to_string());
                }
            }
        });
        Lexicon::new(words.into_iter().collect())
    }
}

/// The languages guessed of at least one of the texts that `for_each`
/// gives (each from its start).
fn languages_of(for_each: &ForEachSource<'_>) -> Vec<Language> {
    let (tokenizer, mut tokens) = (word_tokenizer(), Tokens::default());
    let mut languages = Vec::new();
    for_each(&mut |text| {
        tokenizer.tokenize(sample(text), &mut tokens);
        if let Some(language) = guess_language(&tokens, LANGUAGE_SAMPLE_WORDS)
            && !languages.contains(&language)
        {
            languages.push(language);
        }
    });
    languages
}

/// The index and data files of the dictd dictionary of `from` into `to` in
/// `dir`, when both are there.
fn dictd_files(dir: &Path, from: Language, to: Language) -> Option<(PathBuf, PathBuf)> {
    let stem = format!("freedict-{}-{}", from.code3(), to.code3());
    let (index, dict) = (dir.join(format!("{stem}.index")), dir.join(format!("{stem}.dict.dz")));
    (index.is_file() && dict.is_file()).then_some((index, dict))
}

/// The entries of a dictd dictionary: each headword of `index` with the text
/// of its entry in `dict` (gzip-compressed, as dictzip files are).
fn read_dictd(index: &Path, dict: &Path) -> Result<Vec<(String, String)>, DictionaryError> {
    let error = |path: &Path, message: String| DictionaryError { path: path.to_path_buf(), message };
    let index_text = std::fs::read_to_string(index).map_err(|e| error(index, e.to_string()))?;
    let file = std::fs::File::open(dict).map_err(|e| error(dict, e.to_string()))?;
    let mut data = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut data)
        .map_err(|e| error(dict, format!("not a gzip-compressed dictd file ({e})")))?;
    let mut entries = Vec::new();
    for (number, line) in index_text.lines().enumerate().filter(|(_, line)| !line.is_empty()) {
        let at_line = |message: &str| error(index, format!("line {}: {message}", number + 1));
        let mut fields = line.split('\t');
        let (Some(headword), Some(offset), Some(length), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(at_line("expected a headword, an offset and a length separated by tabs"));
        };
        if headword.starts_with("00database") || headword.starts_with("00-database") {
            continue;
        }
        let (Some(offset), Some(length)) = (base64_number(offset), base64_number(length)) else {
            return Err(at_line("offset or length is not a dictd base64 number"));
        };
        let bytes = offset.checked_add(length).and_then(|end| data.get(offset..end));
        let bytes = bytes.ok_or_else(|| at_line(&format!("entry past the end of {}", dict.display())))?;
        let entry = std::str::from_utf8(bytes).map_err(|_| at_line("entry is not valid UTF-8"))?;
        entries.push((headword.to_string(), entry.to_string()));
    }
    Ok(entries)
}

/// A number written in dictd's base64 digits (`A`–`Z`, `a`–`z`, `0`–`9`,
/// `+`, `/`), most significant first.
fn base64_number(digits: &str) -> Option<usize> {
    if digits.is_empty() || digits.len() > 10 {
        return None;
    }
    digits.bytes().try_fold(0usize, |n, b| {
        let digit = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        Some(n * 64 + usize::from(digit))
    })
}

/// The senses of a dictd entry of FreeDict: the phrases of the lines after
/// the headword line, split at commas and semicolons, with sense numbers,
/// bracketed notes (`<n>`, `[transp.]`, `{see}`, `(informal)`) and the
/// `Synonyms:`/`see:` cross-references left out.
fn senses(entry: &str) -> impl Iterator<Item = &str> {
    entry
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("Synonyms:") && !line.starts_with("see:"))
        .map(without_sense_number)
        .flat_map(|line| line.split([',', ';']))
        .map(str::trim)
        .filter(|sense| !sense.is_empty())
}

/// `line` without a leading sense number (`2. than` → `than`).
fn without_sense_number(line: &str) -> &str {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match line[digits..].strip_prefix('.') {
        Some(rest) if digits > 0 => rest.trim_start(),
        _ => line,
    }
}

/// The folded form of `text` when it is one word.
fn one_folded_word(text: &str) -> Option<String> {
    let tokens = fold_words(text);
    (tokens.len() == 1).then(|| tokens.word(0).to_string())
}

/// The words of `text`, folded as the tokenizer folds them, digits kept and
/// of any length, with the text between brackets left out.
fn fold_words(text: &str) -> Tokens {
    let mut tokens = Tokens::default();
    word_tokenizer().tokenize(&without_brackets(text), &mut tokens);
    tokens
}

/// The tokenizer of the mapping: every word, digits included.
fn word_tokenizer() -> Tokenizer {
    Tokenizer::new(TokenizerParams { digits: true, min_word_len: 1, ..TokenizerParams::default() })
}

/// `text` without what `<>`, `[]`, `{}` and `()` enclose, nor the brackets.
fn without_brackets(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['<', '[', '{', '(']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut depth = 0usize;
    let kept = text.chars().filter(|&c| {
        match c {
            '<' | '[' | '{' | '(' => depth += 1,
            '>' | ']' | '}' | ')' => depth = depth.saturating_sub(1),
            _ => return depth == 0,
        }
        false
    });
    std::borrow::Cow::Owned(kept.collect())
}

/// The content words of a translation in the target language.
struct TargetWords {
    stop_words: Vec<&'static str>,
}

impl TargetWords {
    fn new(target: Language) -> Self {
        let mut stop_words = target.stop_words().to_vec();
        stop_words.sort_unstable();
        TargetWords { stop_words }
    }

    /// The folded words of `sense` but its stop words and words of one or
    /// two letters (the stop lists hold the longer ones),
    /// joined by spaces; its first word when they are all such (a function
    /// word translates a function word).
    fn content_words(&self, sense: &str) -> String {
        let tokens = fold_words(sense);
        let content: Vec<&str> = tokens
            .words()
            .filter(|word| word.chars().nth(2).is_some() && self.stop_words.binary_search(word).is_err())
            .collect();
        match content.is_empty() {
            true => tokens.words().next().unwrap_or_default().to_string(),
            false => content.join(" "),
        }
    }
}

/// Where the pieces of a mapped text came from in the original text, to
/// report a passage of the mapped text at the original's offsets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OriginalOffsets {
    /// The pieces in text order: text copied as it was, or a word replaced
    /// by its translations.
    pieces: Vec<Piece>,
}

/// A piece of a mapped text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    /// Its first character in the mapped text.
    mapped: u32,
    /// Its characters in the original text.
    original: CharRange,
    /// A replaced word (else copied text, character for character).
    word: bool,
}

impl OriginalOffsets {
    /// The original characters of the mapped text's characters `range`: a
    /// boundary inside copied text stays at its character, one inside (or
    /// at the edge of) a replaced word takes that word's edge.
    pub fn original_range(&self, range: CharRange) -> CharRange {
        let start = self.piece_at(range.start, false).map_or(0, |piece| match piece.word {
            true => piece.original.start,
            false => piece.original.start + (range.start - piece.mapped),
        });
        let end = self.piece_at(range.end, true).map_or(0, |piece| match piece.word {
            true => piece.original.end,
            false => (piece.original.start + (range.end - piece.mapped)).min(piece.original.end),
        });
        CharRange::new(start, end.max(start))
    }

    /// The piece holding mapped character `at`, or whose end `at` is with
    /// `end` (the last piece starting before it).
    fn piece_at(&self, at: u32, end: bool) -> Option<&Piece> {
        let after = self.pieces.partition_point(|piece| if end { piece.mapped < at } else { piece.mapped <= at });
        after.checked_sub(1).map(|i| &self.pieces[i])
    }
}

/// A text mapped into another language, with where its pieces came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MappedText {
    /// The mapped text.
    pub text: String,
    /// The original offsets of its pieces.
    pub offsets: OriginalOffsets,
}

/// Builds a [`MappedText`] piece by piece.
struct MappedTextBuilder<'t> {
    original: &'t str,
    /// Bytes and characters of the original consumed.
    byte: usize,
    char: u32,
    mapped: MappedText,
    mapped_chars: u32,
}

impl<'t> MappedTextBuilder<'t> {
    fn new(original: &'t str) -> Self {
        MappedTextBuilder { original, byte: 0, char: 0, mapped: MappedText::default(), mapped_chars: 0 }
    }

    /// Copies the original up to character `to`, as it is.
    fn copy_to(&mut self, to: u32) {
        if to <= self.char {
            return;
        }
        let end = skip_chars(self.original, self.byte, (to - self.char) as usize).unwrap_or(self.original.len());
        let original = self.original;
        self.push_piece(&original[self.byte..end], CharRange::new(self.char, to), false);
        (self.byte, self.char) = (end, to);
    }

    /// Replaces the original's characters `word` (the next ones) by `text`,
    /// or copies them when `text` is `None`.
    fn replace(&mut self, word: CharRange, text: Option<&str>) {
        self.copy_to(word.start);
        let Some(text) = text else { return self.copy_to(word.end) };
        let end = skip_chars(self.original, self.byte, word.len() as usize).unwrap_or(self.original.len());
        let capitalised = self.original[self.byte..end].starts_with(char::is_uppercase);
        let text = if capitalised { capitalise(text) } else { text.to_string() };
        self.push_piece(&text, word, true);
        (self.byte, self.char) = (end, word.end);
    }

    fn push_piece(&mut self, text: &str, original: CharRange, word: bool) {
        self.mapped.offsets.pieces.push(Piece { mapped: self.mapped_chars, original, word });
        self.mapped.text.push_str(text);
        self.mapped_chars += text.chars().count() as u32;
    }

    fn finish(mut self) -> MappedText {
        let end = self.char + self.original[self.byte..].chars().count() as u32;
        self.copy_to(end);
        self.mapped
    }
}

/// `text` with its first letter upper-case.
fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// Maps the words of `text` (tokenized into `tokens`) into the target
/// language of `dictionary`: each word it translates becomes its first
/// `max_translations` translations (all with 0) separated by spaces; every
/// other word becomes its cognate among the dictionary's words or those of
/// `lexicon` (the one sharing the longer start), or is kept as it is, as is
/// the text between words.
pub fn map_text(
    text: &str,
    tokens: &Tokens,
    dictionary: &Dictionary,
    lexicon: &Lexicon,
    max_translations: usize,
) -> MappedText {
    let stemmer = dictionary.foreign.map(Language::stemmer);
    let mut builder = MappedTextBuilder::new(text);
    for seq in 0..tokens.len() {
        let word = tokens.word(seq);
        let stem = stemmer.as_ref().map_or(std::borrow::Cow::Borrowed(word), |s| s.stem(word));
        let mapped = match dictionary.translations(word, &stem) {
            Some(translations) => {
                let kept = if max_translations == 0 { translations.len() } else { max_translations };
                Some(translations.iter().take(kept).map(String::as_str).collect::<Vec<_>>().join(" "))
            }
            None => {
                let cognates = [dictionary.lexicon.cognate(word), lexicon.cognate(word)];
                cognates.into_iter().flatten().max_by_key(|&(shared, _)| shared).map(|(_, cognate)| cognate.to_string())
            }
        };
        builder.replace(tokens.range(seq), mapped.as_deref());
    }
    builder.finish()
}

/// Maps suspicious documents into the sources' language, loading each
/// language's dictionary, and the sources' words, when a document first
/// needs them.
pub struct Translator<'a> {
    settings: CrossLanguage,
    /// The sources' language.
    sources: Language,
    /// The languages of the sources, their words, and how they are read.
    source_languages: OnceLock<Vec<Language>>,
    source_words: OnceLock<Lexicon>,
    for_each_source: Box<ForEachSource<'a>>,
    /// Each language's dictionary, once loaded (by [`LANGUAGES`] order).
    dictionaries: [OnceLock<Result<Option<Dictionary>, DictionaryError>>; LANGUAGES.len()],
    /// The first dictionary that could not be loaded.
    failure: OnceLock<DictionaryError>,
}

impl std::fmt::Debug for Translator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translator").field("settings", &self.settings).field("sources", &self.sources).finish()
    }
}

impl<'a> Translator<'a> {
    /// A translator into `sources`, the sources' language, whose texts
    /// `for_each_source` gives (read when a document first needs their
    /// languages, and again for their words when one is mapped).
    pub fn new(
        settings: CrossLanguage,
        sources: Language,
        for_each_source: impl Fn(&mut dyn FnMut(&str)) + Send + Sync + 'a,
    ) -> Self {
        Translator {
            settings,
            sources,
            source_languages: OnceLock::new(),
            source_words: OnceLock::new(),
            for_each_source: Box::new(for_each_source),
            dictionaries: std::array::from_fn(|_| OnceLock::new()),
            failure: OnceLock::new(),
        }
    }

    /// The sources' language.
    pub fn sources(&self) -> Language {
        self.sources
    }

    /// `text` mapped into the sources' language, when it is in another
    /// language, that no source is written in and that a dictionary
    /// translates; `None` otherwise (the text is used as it is). A
    /// dictionary that cannot be loaded is an error.
    pub fn translate(&self, text: &str) -> Result<Option<MappedText>, DictionaryError> {
        let mut tokens = Tokens::default();
        let tokenizer = word_tokenizer();
        let language = match self.settings.suspicious {
            Some(language) => Some(language),
            None => {
                tokenizer.tokenize(sample(text), &mut tokens);
                guess_language(&tokens, LANGUAGE_SAMPLE_WORDS)
            }
        };
        let Some(language) = language.filter(|&language| language != self.sources) else { return Ok(None) };
        let source_languages = self.source_languages.get_or_init(|| languages_of(&self.for_each_source));
        if source_languages.contains(&language) {
            return Ok(None);
        }
        let Some(dictionary) = self.dictionary(language)? else { return Ok(None) };
        tokenizer.tokenize(text, &mut tokens);
        let source_words = self.source_words.get_or_init(|| Lexicon::of_texts(&self.for_each_source));
        Ok(Some(map_text(text, &tokens, dictionary, source_words, self.settings.max_translations)))
    }

    /// [`translate`](Self::translate), but a dictionary that cannot be
    /// loaded is kept for [`failure`](Self::failure) and the text is used
    /// as it is.
    pub fn translate_or_keep(&self, text: &str) -> Option<MappedText> {
        self.translate(text).unwrap_or_else(|error| {
            let _ = self.failure.set(error);
            None
        })
    }

    /// The first dictionary that [`translate_or_keep`](Self::translate_or_keep)
    /// could not load.
    pub fn failure(&self) -> Option<&DictionaryError> {
        self.failure.get()
    }

    /// The dictionary of `language` into the sources', loaded once.
    fn dictionary(&self, language: Language) -> Result<Option<&Dictionary>, DictionaryError> {
        let slot = LANGUAGES.iter().position(|&l| l == language).expect("every language is listed");
        let loaded = self.dictionaries[slot]
            .get_or_init(|| Dictionary::load(&self.settings.dictionary_dir, language, self.sources));
        loaded.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }
}

/// The start of `text` that a language is guessed from.
fn sample(text: &str) -> &str {
    let mut end = text.len().min(LANGUAGE_SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The language guessed of `text`, from its start.
pub fn text_language(text: &str) -> Option<Language> {
    let mut tokens = Tokens::default();
    word_tokenizer().tokenize(sample(text), &mut tokens);
    guess_language(&tokens, LANGUAGE_SAMPLE_WORDS)
}

/// The language most of `languages` are (the first listed of equals).
pub fn majority_language(languages: impl IntoIterator<Item = Language>) -> Option<Language> {
    let mut votes = [0usize; LANGUAGES.len()];
    for language in languages {
        votes[LANGUAGES.iter().position(|&l| l == language).expect("listed")] += 1;
    }
    let (best, &most) = votes.iter().enumerate().rev().max_by_key(|&(_, votes)| votes)?;
    (most > 0).then_some(LANGUAGES[best])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a dictd dictionary `name` of `entries` (headword, entry text)
    /// into `dir`, its data gzip-compressed.
    pub(crate) fn write_dictd(dir: &Path, name: &str, entries: &[(&str, &str)]) {
        let (mut data, mut index) = (String::new(), String::new());
        for (headword, entry) in entries {
            index.push_str(&format!("{headword}\t{}\t{}\n", base64(data.len()), base64(entry.len())));
            data.push_str(entry);
        }
        std::fs::write(dir.join(format!("{name}.index")), index).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, data.as_bytes()).unwrap();
        std::fs::write(dir.join(format!("{name}.dict.dz")), gz.finish().unwrap()).unwrap();
    }

    fn base64(mut n: usize) -> String {
        const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut digits = vec![DIGITS[n % 64]];
        while n >= 64 {
            n /= 64;
            digits.push(DIGITS[n % 64]);
        }
        digits.iter().rev().map(|&d| d as char).collect()
    }

    fn spanish_dictionary(dir: &Path) {
        write_dictd(
            dir,
            "freedict-spa-eng",
            &[
                ("00databaseinfo", "about\n"),
                ("parlamento", "parlamento /paɾlamˈento/ <n, masc>\nparliament\n"),
                ("aprobar", "aprobar <v>\n1. approve, pass\n2. [school] pass an exam\n"),
                ("que", "que /kˈe/\n1. that\n2. than\n"),
                ("discutir", "discutir\ndiscuss; discussion\n"),
                ("el", "el\nthe\n"),
                ("resolución", "resolución\nresolution; decision (formal)\n"),
                ("a bordo", "a bordo\naboard\n"),
            ],
        );
    }

    /// No source texts.
    fn no_sources(_: &mut dyn FnMut(&str)) {}

    #[test]
    fn base64_numbers_are_read_most_significant_digit_first() {
        assert_eq!(base64_number("A"), Some(0));
        assert_eq!(base64_number("BL"), Some(75));
        assert_eq!(base64_number("/"), Some(63));
        assert_eq!(base64(75), "BL");
        assert_eq!(base64_number("a-b"), None);
        assert_eq!(base64_number(""), None);
    }

    #[test]
    fn a_dictd_dictionary_gives_folded_content_words_per_sense() {
        let dir = tempfile::tempdir().unwrap();
        spanish_dictionary(dir.path());
        let dictionary = Dictionary::load(dir.path(), Language::Spanish, Language::English).unwrap().unwrap();
        assert_eq!(dictionary.translations("parlamento", ""), Some(&["parliament".to_string()][..]));
        let approve = ["approve", "pass", "pass exam"].map(String::from);
        assert_eq!(dictionary.translations("aprobar", ""), Some(&approve[..]));
        assert_eq!(dictionary.translations("el", ""), Some(&["the".to_string()][..]), "a function word");
        let that = ["that", "than"].map(String::from);
        assert_eq!(dictionary.translations("que", ""), Some(&that[..]), "sense numbers left out");
        let resolution = ["resolution", "decision"].map(String::from);
        assert_eq!(dictionary.translations("resolucion", ""), Some(&resolution[..]), "folded, notes left out");
        assert_eq!(dictionary.translations("bordo", ""), None, "phrases are no headwords");
        assert_eq!(dictionary.len(), 6);
    }

    #[test]
    fn words_the_dictionary_lacks_meet_their_cognates_among_its_words() {
        let dir = tempfile::tempdir().unwrap();
        spanish_dictionary(dir.path());
        let dictionary = Dictionary::load(dir.path(), Language::Spanish, Language::English).unwrap().unwrap();
        let cognate = |word| dictionary.lexicon.cognate(word).map(|(_, cognate)| cognate);
        assert_eq!(cognate("discusion"), Some("discussion"));
        assert_eq!(cognate("resoluciones"), Some("resolution"));
        assert_eq!(cognate("parlamentario"), None, "parliament shares 4 characters");
        assert_eq!(cognate("parl"), None, "too short");
        assert_eq!(cognate("aprobacion"), None, "approve shares 2 characters");
        let sources = Lexicon::of_texts(&|each: &mut dyn FnMut(&str)| {
            ["The Republic of Macedonia.", "A dignified debate"].into_iter().for_each(each)
        });
        let text = "La República yugoslava de Macedonia discusión";
        let mapped = map_text(text, &fold_words(text), &dictionary, &sources, 1);
        assert_eq!(
            mapped.text, "La Republic yugoslava de Macedonia discussion",
            "the sources' words and the dictionary's"
        );
    }

    #[test]
    fn inflected_forms_find_the_headword_of_their_stem() {
        let dir = tempfile::tempdir().unwrap();
        spanish_dictionary(dir.path());
        let dictionary = Dictionary::load(dir.path(), Language::Spanish, Language::English).unwrap().unwrap();
        let text = "Los parlamentos aprobaron";
        let tokens = fold_words(text);
        let mapped = map_text(text, &tokens, &dictionary, &Lexicon::default(), 1);
        assert_eq!(mapped.text, "Los parliament approve");
    }

    #[test]
    fn the_reverse_dictionary_adds_its_one_word_translations() {
        let dir = tempfile::tempdir().unwrap();
        write_dictd(
            dir.path(),
            "freedict-eng-fra",
            &[("Belgium", "Belgium /bɛl/\nBelgique\n"), ("hello", "hello\nbon jour\n")],
        );
        let dictionary = Dictionary::load(dir.path(), Language::French, Language::English).unwrap().unwrap();
        assert_eq!(dictionary.translations("belgique", ""), Some(&["belgium".to_string()][..]));
        assert_eq!(dictionary.len(), 1, "two-word senses are left out");
        assert!(Dictionary::load(dir.path(), Language::German, Language::English).unwrap().is_none());
    }

    #[test]
    fn translations_the_reverse_dictionary_confirms_come_first() {
        let dir = tempfile::tempdir().unwrap();
        write_dictd(
            dir.path(),
            "freedict-spa-eng",
            &[("creer", "creer\n1. account, accredit, believe, deem\n2. create\n"), ("informe", "informe\nreport\n")],
        );
        write_dictd(dir.path(), "freedict-eng-spa", &[("believe", "believe\ncreer\n"), ("deem", "deem\ncreer\n")]);
        let dictionary = Dictionary::load(dir.path(), Language::Spanish, Language::English).unwrap().unwrap();
        let believe = ["believe", "deem", "account", "accredit", "create"].map(String::from);
        assert_eq!(dictionary.translations("creer", ""), Some(&believe[..]));
        assert_eq!(dictionary.translations("informe", ""), Some(&["report".to_string()][..]), "none confirmed");
    }

    #[test]
    fn a_mapped_passage_is_reported_at_the_original_offsets() {
        let dir = tempfile::tempdir().unwrap();
        spanish_dictionary(dir.path());
        let dictionary = Dictionary::load(dir.path(), Language::Spanish, Language::English).unwrap().unwrap();
        let text = "¡Sí! El parlamento aprobó la resolución. Fin";
        let mapped = map_text(text, &fold_words(text), &dictionary, &Lexicon::default(), 0);
        assert_eq!(mapped.text, "¡Sí! The parliament approve pass pass exam la resolution decision. Fin");
        let chars = |s: &str| s.chars().count() as u32;
        let find = |s: &str, needle: &str| chars(&s[..s.find(needle).unwrap()]);
        // "parliament approve" (inside the second translation's words) is "parlamento aprobó".
        let (start, end) = (find(&mapped.text, "parliament"), find(&mapped.text, " pass pass"));
        let original = mapped.offsets.original_range(CharRange::new(start, end - 3));
        assert_eq!(crate::analysis::span::char_slice(text, original), Some("parlamento aprobó"));
        // A boundary inside a replaced word takes the word's edge; one in copied text keeps its character.
        let start = find(&mapped.text, "decision.") + 2;
        let original = mapped.offsets.original_range(CharRange::new(start, chars(&mapped.text) - 2));
        assert_eq!(crate::analysis::span::char_slice(text, original), Some("resolución. F"));
        assert_eq!(
            mapped.offsets.original_range(CharRange::new(0, chars(&mapped.text))),
            CharRange::new(0, chars(text))
        );
    }

    #[test]
    fn texts_in_the_sources_language_or_without_a_dictionary_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        spanish_dictionary(dir.path());
        let settings = CrossLanguage { dictionary_dir: dir.path().to_path_buf(), ..CrossLanguage::default() };
        let translator = Translator::new(settings.clone(), Language::English, no_sources);
        let english = "The parliament and the council of the union have to be in the same place with all of the \
                       members that they have for this and that and the other thing which is there";
        assert_eq!(translator.translate(english).unwrap(), None);
        let spanish = "El parlamento y el consejo de la unión tienen que estar en el mismo lugar con todos los \
                       miembros que tienen para esto y para lo que es de la otra cosa que está allí por el parlamento";
        let mapped = translator.translate(spanish).unwrap().expect("Spanish is mapped");
        assert!(mapped.text.starts_with("The parliament"), "{}", mapped.text);
        let german = "Das Parlament und der Rat der Union müssen an demselben Ort sein mit allen Mitgliedern, die \
                      sie dafür haben, und das ist nicht mit der anderen Sache, die dort ist, und auch nicht hier";
        assert_eq!(translator.translate(german).unwrap(), None, "no German dictionary");
        let spanish_sources = Translator::new(settings.clone(), Language::English, |each: &mut dyn FnMut(&str)| {
            [english, spanish].into_iter().for_each(each)
        });
        assert_eq!(spanish_sources.translate(spanish).unwrap(), None, "a source is in Spanish");
        let forced = Translator::new(
            CrossLanguage { suspicious: Some(Language::Spanish), ..settings },
            Language::English,
            no_sources,
        );
        assert!(forced.translate("parlamento").unwrap().is_some(), "a forced language needs no guess");
    }

    #[test]
    fn a_broken_dictionary_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        spanish_dictionary(dir.path());
        std::fs::write(dir.path().join("freedict-spa-eng.index"), "parlamento\tA\tzzzz\n").unwrap();
        let error = Dictionary::load(dir.path(), Language::Spanish, Language::English).unwrap_err().to_string();
        assert!(
            error.contains("freedict-spa-eng.index: cannot load dictionary: line 1: entry past the end"),
            "{error}"
        );
        std::fs::write(dir.path().join("freedict-spa-eng.index"), "parlamento A\n").unwrap();
        let error = Dictionary::load(dir.path(), Language::Spanish, Language::English).unwrap_err().to_string();
        assert!(error.contains("line 1: expected a headword, an offset and a length"), "{error}");
        std::fs::write(dir.path().join("freedict-spa-eng.dict.dz"), "not gzip").unwrap();
        let error = Dictionary::load(dir.path(), Language::Spanish, Language::English).unwrap_err().to_string();
        assert!(error.contains("freedict-spa-eng.dict.dz: cannot load dictionary: not a gzip"), "{error}");
        let translator = Translator::new(
            CrossLanguage {
                dictionary_dir: dir.path().to_path_buf(),
                suspicious: Some(Language::Spanish),
                ..Default::default()
            },
            Language::English,
            no_sources,
        );
        assert_eq!(translator.translate_or_keep("parlamento"), None);
        assert!(translator.failure().is_some());
    }

    #[test]
    fn the_majority_language_of_texts_is_guessed() {
        let english = "The parliament and the council of the union have to be in the same place with all of the \
                       members that they have for this and that and the other thing which is there";
        let guessed = [english, english, "x"].into_iter().filter_map(text_language);
        assert_eq!(majority_language(guessed), Some(Language::English));
        assert_eq!(text_language("x"), None);
        assert_eq!(majority_language([]), None);
    }
}
