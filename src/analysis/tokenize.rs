//! Rich tokenisation: words are runs of Unicode letters (and digits, optionally),
//! folded to lower-case ASCII where the script allows, each with its character
//! range in the original text and its sequence number among the kept words.
//!
//! Word boundaries follow Unicode's UAX #29 (unicode-segmentation), so that scripts
//! written without spaces (Chinese, Japanese) split into words too; inside a UAX #29
//! word only the runs of letters (plus the combining marks that follow them) count.
//! For ASCII text UAX #29 never breaks inside a run of letters and digits, so a fast
//! byte scan gives the same words; only regions with non-ASCII bytes go through the
//! segmenter.
//!
//! Folding lower-cases, applies compatibility decomposition (NFKD) and drops
//! combining marks (`tučňák` → `tucnak`, `ﬁle` → `file`; Arabic harakat and the
//! hamza on alef go the same way), and maps the letters that do not decompose:
//! Latin `ł`, `ø`, `đ`, `ß`, `æ`, ... to ASCII; Arabic alef wasla to alef, alef
//! maksura and Persian yeh to yeh, teh marbuta to heh, Persian keheh to kaf, and
//! tatweel (a stretching stroke) to nothing; Greek final sigma to sigma.
//!
//! Han ideographs are UAX #29 words of one character: they are kept whatever
//! `min_word_len` says, so that Chinese text has words at all.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use unicode_normalization::char::{decompose_compatible, is_combining_mark};
use unicode_segmentation::UnicodeSegmentation;

use crate::analysis::span::CharRange;

/// Words shorter than this many characters are ignored (the papers skip words of
/// one and two letters).
pub const DEFAULT_MIN_WORD_LEN: usize = 3;
/// Digits count as word characters by default: on the dev-en corpus (PAN-PC-10
/// layout) the paper's method scores plagdet 0.8513 with digits and 0.8498 without.
/// Archive users who want years and numbers ignored pass `--no-digits`.
pub const DEFAULT_DIGITS: bool = true;

/// How words are cut out of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenizerParams {
    /// Digits count as word characters (`--digits`; words and `chars:N`).
    pub digits: bool,
    /// Words with fewer characters (after folding) are ignored; Han ideographs
    /// are kept however short. Applies to words only.
    pub min_word_len: usize,
    /// What a token is (`--tokenizer`).
    pub kind: TokenizerKind,
}

impl Default for TokenizerParams {
    fn default() -> Self {
        TokenizerParams { digits: DEFAULT_DIGITS, min_word_len: DEFAULT_MIN_WORD_LEN, kind: TokenizerKind::Words }
    }
}

/// Accepted `N` of `--tokenizer chars:N`: one character is as many tokens as
/// the text has letters; beyond 8 a token is longer than most Chinese and
/// Japanese words and a changed character breaks too many of them.
pub const CHARS_RANGE: std::ops::RangeInclusive<usize> = 1..=8;

/// What a token is: the `--tokenizer` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TokenizerKind {
    /// Words ([`Tokenizer`]): the paper's tokens.
    #[default]
    Words,
    /// Every run of this many consecutive word characters ([`CharTokenizer`]),
    /// for scripts written without spaces.
    Chars(usize),
    /// Source code tokens ([`crate::analysis::code`]).
    Code,
}

impl TokenizerKind {
    /// True for [`TokenizerKind::Words`].
    pub fn is_words(&self) -> bool {
        *self == TokenizerKind::Words
    }
}

impl std::fmt::Display for TokenizerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenizerKind::Words => f.write_str("words"),
            TokenizerKind::Chars(n) => write!(f, "chars:{n}"),
            TokenizerKind::Code => f.write_str("code"),
        }
    }
}

impl std::str::FromStr for TokenizerKind {
    type Err = String;

    /// Parses `words`, `chars:N` (N in [`CHARS_RANGE`]) or `code`.
    fn from_str(value: &str) -> Result<Self, String> {
        let (lo, hi) = (CHARS_RANGE.start(), CHARS_RANGE.end());
        match value {
            "words" => Ok(TokenizerKind::Words),
            "code" => Ok(TokenizerKind::Code),
            _ => match value.strip_prefix("chars:") {
                Some(n) => match n.parse::<usize>() {
                    Ok(n) if CHARS_RANGE.contains(&n) => Ok(TokenizerKind::Chars(n)),
                    _ => Err(format!("N of chars:N must be a number from {lo} to {hi}")),
                },
                None => Err(format!("expected words, chars:N with N from {lo} to {hi}, or code")),
            },
        }
    }
}

impl serde::Serialize for TokenizerKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for TokenizerKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Cuts a text into tokens: one trait for words, character n-grams and code
/// tokens, so that every stage that reads tokens reads them one way.
pub trait Tokenize {
    /// Tokenizes `text` into `out`, replacing its previous content; every
    /// token keeps its character range in `text`.
    fn tokenize(&self, text: &str, out: &mut Tokens);
}

/// The tokenizer of a [`TokenizerKind`]; reuse one per thread. An enum rather
/// than a trait object, so that the words tokenizer's hot loop is called
/// directly (see `benches/stages.rs`, `tokenize` and `tokenize (any words)`).
// The words tokenizer's tables make its variant large; there is one value per
// thread, never moved in a loop, and a box would add a load to every call.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum AnyTokenizer {
    /// Words.
    Words(Tokenizer),
    /// Character n-grams.
    Chars(CharTokenizer),
    /// Code tokens.
    Code(crate::analysis::code::CodeTokenizer),
}

impl AnyTokenizer {
    /// The tokenizer `params.kind` names, with validated parameters.
    pub fn new(params: TokenizerParams) -> Self {
        match params.kind {
            TokenizerKind::Words => AnyTokenizer::Words(Tokenizer::new(params)),
            TokenizerKind::Chars(n) => AnyTokenizer::Chars(CharTokenizer::new(n, params.digits)),
            TokenizerKind::Code => AnyTokenizer::Code(crate::analysis::code::CodeTokenizer),
        }
    }
}

impl Tokenize for AnyTokenizer {
    fn tokenize(&self, text: &str, out: &mut Tokens) {
        match self {
            AnyTokenizer::Words(words) => words.tokenize(text, out),
            AnyTokenizer::Chars(chars) => chars.tokenize(text, out),
            AnyTokenizer::Code(code) => code.tokenize(text, out),
        }
    }
}

/// What `Tokens::push_derived` makes of a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derived<'w> {
    /// The word's first this many bytes (at a character boundary).
    Prefix(usize),
    /// Another folded word in its place.
    Replaced(&'w str),
}

/// Bytes of the folded buffer readable from any word's start: the buffer is
/// padded with this many NUL bytes after the last word, so that the chunker can
/// copy every word of up to this length as one fixed-size window.
pub const WORD_WINDOW: usize = 16;

/// The kept words of one text, as parallel arrays indexed by sequence number.
#[derive(Debug, Default, Clone)]
pub struct Tokens {
    folded: String,
    folded_ends: Vec<u32>,
    sort_keys: Vec<u64>,
    ranges: Vec<CharRange>,
}

impl Tokens {
    /// Number of kept words.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// True when no word was kept.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The folded form of word `seq`.
    pub fn word(&self, seq: usize) -> &str {
        &self.folded[self.folded_bounds(seq)]
    }

    /// The folded form of word `seq` as UTF-8 bytes (no char-boundary checks, for
    /// the hashing loop).
    pub fn word_bytes(&self, seq: usize) -> &[u8] {
        &self.folded.as_bytes()[self.folded_bounds(seq)]
    }

    /// The [`WORD_WINDOW`] bytes of the folded buffer starting at word `seq`,
    /// and the word's length, when the word is at most that long. The bytes
    /// after the word belong to the next words or to the buffer's padding.
    pub fn word_window(&self, seq: usize) -> Option<(&[u8; WORD_WINDOW], usize)> {
        let bounds = self.folded_bounds(seq);
        let len = bounds.len();
        let window = self.folded.as_bytes().get(bounds.start..bounds.start + WORD_WINDOW)?;
        // The slice has exactly WORD_WINDOW bytes, so the conversion cannot fail.
        (len <= WORD_WINDOW).then(|| (window.try_into().expect("window of WORD_WINDOW bytes"), len))
    }

    fn folded_bounds(&self, seq: usize) -> std::ops::Range<usize> {
        let start = if seq == 0 { 0 } else { self.folded_ends[seq - 1] as usize };
        start..self.folded_ends[seq] as usize
    }

    /// A key whose order agrees with the order of the folded words wherever the
    /// keys differ: the word's first 8 bytes, big-endian, zero-padded. Equal keys
    /// need a full comparison of the words.
    pub fn sort_key(&self, seq: usize) -> u64 {
        self.sort_keys[seq]
    }

    /// The character range of word `seq` in the original text.
    pub fn range(&self, seq: usize) -> CharRange {
        self.ranges[seq]
    }

    /// Character ranges of all words, by sequence number.
    pub fn ranges(&self) -> &[CharRange] {
        &self.ranges
    }

    /// The folded forms of the words, in sequence order.
    pub fn words(&self) -> impl Iterator<Item = &str> + '_ {
        let mut start = 0;
        self.folded_ends.iter().map(move |&end| {
            let word = &self.folded[start..end as usize];
            start = end as usize;
            word
        })
    }

    /// Appends what `derived` makes of word `seq` of `from` (whose folded
    /// form is `word`) under that word's range, between
    /// [`begin`](Self::begin) and [`end`](Self::end); an empty result is
    /// dropped. Used by the alignment preset to chunk stop-word-free,
    /// truncated words with the ordinary chunker.
    #[inline(always)]
    pub(crate) fn push_derived(&mut self, from: &Tokens, seq: usize, word: &str, derived: Derived<'_>) {
        match derived {
            // A prefix's sort key is the word's, cut to the prefix's bytes.
            Derived::Prefix(len @ 1..) => {
                self.folded.push_str(&word[..len]);
                self.keep(key_prefix(from.sort_keys[seq], len), from.ranges[seq]);
            }
            Derived::Replaced(other) if !other.is_empty() => {
                let folded_start = self.folded.len();
                self.folded.push_str(other);
                self.push_word(folded_start, from.ranges[seq]);
            }
            Derived::Prefix(_) | Derived::Replaced(_) => {}
        }
    }

    /// Starts a new text: drops the previous content (for the tokenizers
    /// outside this module and for derived words, with [`push`](Self::push)
    /// or [`push_derived`](Self::push_derived), and [`end`](Self::end)).
    pub(crate) fn begin(&mut self) {
        self.clear();
    }

    /// Appends a token whose folded form is `token` (an empty one is dropped).
    pub(crate) fn push(&mut self, token: &str, range: CharRange) {
        let folded_start = self.folded.len();
        self.folded.push_str(token);
        self.finish_word(folded_start, range, 1);
    }

    /// Ends the text: pads the folded buffer for [`word_window`](Self::word_window).
    pub(crate) fn end(&mut self) {
        self.folded.extend(std::iter::repeat_n('\0', WORD_WINDOW));
    }

    fn clear(&mut self) {
        self.folded.clear();
        self.folded_ends.clear();
        self.sort_keys.clear();
        self.ranges.clear();
    }

    /// Ends the word whose folded form was pushed since `folded_start`: keeps it
    /// when long enough, otherwise takes the folded bytes back.
    fn finish_word(&mut self, folded_start: usize, range: CharRange, min_len: usize) {
        let folded = &self.folded[folded_start..];
        // Folded words are mostly ASCII, where bytes are characters.
        let long_enough = folded.len() >= min_len && (folded.is_ascii() || folded.chars().count() >= min_len);
        if long_enough {
            self.push_word(folded_start, range);
        } else {
            self.folded.truncate(folded_start);
        }
    }

    /// Keeps the word whose folded form was pushed since `folded_start`.
    fn push_word(&mut self, folded_start: usize, range: CharRange) {
        self.keep(sort_key(&self.folded.as_bytes()[folded_start..]), range);
    }

    /// Keeps the word that ends the folded buffer, whose sort key is `key`.
    fn keep(&mut self, key: u64, range: CharRange) {
        self.sort_keys.push(key);
        self.folded_ends.push(self.folded.len() as u32);
        self.ranges.push(range);
    }

    /// Appends the ASCII word `text[word]` (letters and digits only),
    /// lower-cased, under `range`.
    #[inline]
    fn push_ascii_word(&mut self, text: &str, word: std::ops::Range<usize>, range: CharRange) {
        let bytes = text.as_bytes();
        // Upper-case letters differ from lower-case ones in bit 5 alone, which
        // digits have set already.
        const LOWER: u64 = 0x2020_2020_2020_2020;
        let len = word.len();
        let key = match bytes.get(word.start..word.start + 8) {
            Some(eight) => {
                let key = u64::from_be_bytes(eight.try_into().expect("eight bytes")) | LOWER;
                key_prefix(key, len)
            }
            None => sort_key(&bytes[word.clone()]) | key_prefix(LOWER, len),
        };
        let folded_start = self.folded.len();
        if len <= 8 {
            // The key holds the whole word, lower-cased, then zero bytes: eight
            // bytes copied at once and cut back, rather than a call to memcpy
            // (a word is five bytes on average).
            let eight = key.to_be_bytes();
            debug_assert!(eight.is_ascii());
            // SAFETY: `key_prefix` kept the word's own bytes, ASCII letters and
            // digits with bit 5 set (still ASCII), and zeroed the rest, so the
            // bytes are ASCII and thus UTF-8. Checking them cost a seventh of
            // the tokenizer's time.
            self.folded.push_str(unsafe { std::str::from_utf8_unchecked(&eight) });
            self.folded.truncate(folded_start + len);
        } else {
            self.folded.push_str(&text[word]);
            self.folded[folded_start..].make_ascii_lowercase();
        }
        debug_assert_eq!(key, sort_key(&self.folded.as_bytes()[folded_start..]));
        self.keep(key, range);
    }
}

/// A run of bytes between ASCII word boundaries: `bytes[start..end]`, all
/// ASCII (one word) or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Region {
    start: usize,
    end: usize,
    ascii: bool,
}

/// Bytes classified at a time, as bits of one integer.
const BLOCK: usize = 64;

/// The regions of a text, found 64 bytes at a time: each block's word bytes
/// and non-ASCII bytes become bit masks, and regions are read off them with
/// bit scans, so that a word costs a few instructions rather than a branch
/// per byte whose exit is mispredicted.
struct Regions<'t> {
    bytes: &'t [u8],
    region_bytes: &'t [bool; 256],
    /// Start of the current block.
    base: usize,
    /// Its region bytes ([`Tokenizer::region_bytes`]) not yet taken, as bits.
    words: u64,
    /// Its non-ASCII bytes, as bits.
    non_ascii: u64,
}

impl<'t> Regions<'t> {
    fn new(bytes: &'t [u8], region_bytes: &'t [bool; 256]) -> Self {
        let mut regions = Regions { bytes, region_bytes, base: 0, words: 0, non_ascii: 0 };
        regions.load(0);
        regions
    }

    /// Makes the block at `base` current.
    fn load(&mut self, base: usize) {
        self.base = base;
        let block = &self.bytes[base.min(self.bytes.len())..];
        let block = &block[..block.len().min(BLOCK)];
        let (mut words, mut non_ascii) = (0u64, 0u64);
        for (i, &b) in block.iter().enumerate() {
            words |= u64::from(self.region_bytes[b as usize]) << i;
            non_ascii |= u64::from(b >> 7) << i;
        }
        (self.words, self.non_ascii) = (words, non_ascii);
    }
}

impl Iterator for Regions<'_> {
    type Item = Region;

    #[inline]
    fn next(&mut self) -> Option<Region> {
        while self.words == 0 {
            if self.base + BLOCK >= self.bytes.len() {
                return None;
            }
            self.load(self.base + BLOCK);
        }
        let first = self.words.trailing_zeros() as usize;
        let start = self.base + first;
        // The region's length in this block: up to its first boundary byte.
        let in_block = (!(self.words >> first)).trailing_zeros() as usize;
        if first + in_block < BLOCK {
            let bits = (u64::MAX >> (BLOCK - in_block)) << first;
            self.words &= !bits;
            return Some(Region { start, end: start + in_block, ascii: self.non_ascii & bits == 0 });
        }
        // The region runs on into the next blocks.
        let mut ascii = self.non_ascii >> first == 0;
        loop {
            if self.base + BLOCK >= self.bytes.len() {
                self.words = 0;
                return Some(Region { start, end: self.bytes.len(), ascii });
            }
            self.load(self.base + BLOCK);
            let length = (!self.words).trailing_zeros() as usize;
            let bits = if length == BLOCK { u64::MAX } else { (1 << length) - 1 };
            ascii &= self.non_ascii & bits == 0;
            if length < BLOCK {
                self.words &= !bits;
                return Some(Region { start, end: self.base + length, ascii });
            }
        }
    }
}

/// The sort key of a folded word (see [`Tokens::sort_key`]): its first 8 bytes,
/// big-endian, zero-padded.
#[inline]
pub const fn sort_key(word: &[u8]) -> u64 {
    // Byte by byte into a register: copying the bytes to a buffer read back
    // as one integer stalled on store forwarding, a quarter of tokenizing.
    let mut key = 0;
    let mut i = 0;
    while i < 8 {
        key <<= 8;
        if i < word.len() {
            key |= word[i] as u64;
        }
        i += 1;
    }
    key
}

/// The first `len` bytes of the 8 that `key` holds (all of them from 8 on),
/// the rest zero: the sort key of a word's first `len` bytes.
#[inline]
const fn key_prefix(key: u64, len: usize) -> u64 {
    if len >= 8 { key } else { key & !(u64::MAX >> (8 * len)) }
}

/// A set of words of at most 8 bytes, kept as their sort keys
/// ([`sort_key`]) and looked up by hashing: the stop lists of every language
/// hold over a thousand words, and a binary search over them for every word
/// was a tenth of the `best` preset's time.
#[derive(Debug, Clone, Default)]
pub struct KeySet(HashSet<u64, BuildHasherDefault<KeyHasher>>);

impl KeySet {
    /// True when the word whose sort key is `key` is in the set (the word
    /// must be at most 8 bytes long for its key to identify it).
    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }

    /// The keys, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().copied()
    }
}

impl FromIterator<u64> for KeySet {
    fn from_iter<I: IntoIterator<Item = u64>>(keys: I) -> Self {
        KeySet(keys.into_iter().collect())
    }
}

/// Hashes a sort key by a folded multiplication (the high and low halves of
/// its 128-bit product XORed): the keys of short words are zero in their low
/// bytes, which a plain multiplication would leave zero.
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, key: u64) {
        let product = u128::from(key ^ self.0) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Splits texts into kept words; reuse one per thread to avoid allocations.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    params: TokenizerParams,
    /// The bytes that belong to regions: ASCII letters (and digits, with
    /// digits on) and every byte of a multi-byte character. Any other byte is
    /// an ASCII non-word character, always a word boundary.
    region_bytes: [bool; 256],
}

impl Tokenizer {
    /// A tokenizer with validated parameters.
    pub fn new(params: TokenizerParams) -> Self {
        let region_bytes = std::array::from_fn(|b| {
            let b = b as u8;
            b >= 0x80 || b.is_ascii_alphabetic() || (params.digits && b.is_ascii_digit())
        });
        Tokenizer { params, region_bytes }
    }

    /// Tokenizes `text` into `out`, replacing its previous content.
    #[inline]
    pub fn tokenize(&self, text: &str, out: &mut Tokens) {
        out.clear();
        let bytes = text.as_bytes();
        // Characters before byte `scanned`, which every region starts at or after.
        let (mut scanned, mut char_pos) = (0, 0u32);
        for Region { start, end, ascii } in Regions::new(bytes, &self.region_bytes) {
            // Between regions lie only ASCII bytes: a character each.
            char_pos += (start - scanned) as u32;
            char_pos = if ascii {
                self.ascii_region(text, start..end, char_pos, out)
            } else {
                self.unicode_region(&text[start..end], char_pos, out)
            };
            scanned = end;
        }
        out.folded.extend(std::iter::repeat_n('\0', WORD_WINDOW));
    }

    /// An ASCII region is one word: its letters, lower-cased.
    fn ascii_region(&self, text: &str, region: std::ops::Range<usize>, char_pos: u32, out: &mut Tokens) -> u32 {
        let end = char_pos + region.len() as u32;
        if region.len() >= self.params.min_word_len {
            out.push_ascii_word(text, region, CharRange::new(char_pos, end));
        }
        end
    }

    /// A region with non-ASCII characters: UAX #29 words, and inside each the runs
    /// of word characters.
    fn unicode_region(&self, region: &str, mut char_pos: u32, out: &mut Tokens) -> u32 {
        for segment in region.split_word_bounds() {
            // (folded start, character start, minimum length) of the open word.
            let mut word: Option<(usize, u32, usize)> = None;
            for c in segment.chars() {
                let continues = word.is_some() && is_combining_mark(c);
                if continues || self.is_word_char(c) {
                    if word.is_none() {
                        let min_len = if is_ideographic(c) { 1 } else { self.params.min_word_len };
                        word = Some((out.folded.len(), char_pos, min_len));
                    }
                    fold_char(c, &mut out.folded);
                } else if let Some((folded_start, start, min_len)) = word.take() {
                    out.finish_word(folded_start, CharRange::new(start, char_pos), min_len);
                }
                char_pos += 1;
            }
            if let Some((folded_start, start, min_len)) = word {
                out.finish_word(folded_start, CharRange::new(start, char_pos), min_len);
            }
        }
        char_pos
    }

    fn is_word_char(&self, c: char) -> bool {
        c.is_alphabetic() || (self.params.digits && c.is_numeric())
    }
}

impl Tokenize for Tokenizer {
    #[inline]
    fn tokenize(&self, text: &str, out: &mut Tokens) {
        Tokenizer::tokenize(self, text, out);
    }
}

/// Splits texts into character n-grams (`--tokenizer chars:N`), for scripts
/// written without spaces, where a word segmenter would need a dictionary.
///
/// A token is every run of `n` consecutive word characters (letters, and
/// digits unless `--no-digits`), folded as words are (`fold_char`); the
/// characters between them (white space, punctuation, symbols) are skipped, so
/// a run may span them and a changed comma or line break changes no token.
/// The stride is one character: a token starts at every word character, so
/// that an inserted or deleted character shifts nothing after it and breaks
/// only the `n` tokens that contain it (tokens cut end to end would all change
/// after it). A combining mark belongs to the word character before it (and
/// is skipped after any other character); a letter that folds to nothing
/// (tatweel) is skipped like punctuation. A token's range runs from its first
/// character's start to its last character's end.
/// The minimum word length does not apply.
#[derive(Debug, Clone)]
pub struct CharTokenizer {
    n: usize,
    digits: bool,
}

impl CharTokenizer {
    /// Tokens of `n` characters (`n` in [`CHARS_RANGE`]); digits count with `digits`.
    pub fn new(n: usize, digits: bool) -> Self {
        CharTokenizer { n, digits }
    }

    /// The word characters of `text`: per character its start and end in the
    /// text (in characters, the end past the combining marks that follow it)
    /// and the end of its folded form in the returned string, which holds
    /// their folded forms one after another.
    fn units(&self, text: &str) -> (Vec<(u32, u32, u32)>, String) {
        let mut units: Vec<(u32, u32, u32)> = Vec::new();
        let mut folded = String::new();
        for (pos, c) in (0u32..).zip(text.chars()) {
            if is_combining_mark(c) {
                if let Some(last) = units.last_mut().filter(|last| last.1 == pos) {
                    last.1 = pos + 1;
                }
            } else if c.is_alphabetic() || (self.digits && c.is_numeric()) {
                let before = folded.len();
                fold_char(c, &mut folded);
                // A letter that folds to nothing (tatweel) is skipped as punctuation is.
                if folded.len() > before {
                    units.push((pos, pos + 1, folded.len() as u32));
                }
            }
        }
        (units, folded)
    }
}

impl Tokenize for CharTokenizer {
    fn tokenize(&self, text: &str, out: &mut Tokens) {
        out.begin();
        let (units, folded) = self.units(text);
        let n = self.n.max(1);
        for first in 0..units.len().saturating_sub(n - 1) {
            let last = first + n - 1;
            let folded_start = if first == 0 { 0 } else { units[first - 1].2 as usize };
            let token = &folded[folded_start..units[last].2 as usize];
            out.push(token, CharRange::new(units[first].0, units[last].1));
        }
        out.end();
    }
}

/// True for Han ideographs: written without spaces, one UAX #29 word each, and
/// kept however short. (Kana are not: katakana runs are words of their own, and
/// hiragana are mostly particles and endings, which as one-character words made
/// every Japanese document look like every other.)
pub fn is_ideographic(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{20000}'..='\u{3FFFF}') // CJK extensions B and later
}

/// Appends the folded form of `c`: lower-case, compatibility-decomposed, without
/// combining marks, with undecomposable letters spelled as in [`letter_spelling`].
fn fold_char(c: char, folded: &mut String) {
    if c.is_ascii() {
        folded.push(c.to_ascii_lowercase());
        return;
    }
    decompose_compatible(c, |part| {
        if is_combining_mark(part) {
            return;
        }
        for lower in part.to_lowercase() {
            match letter_spelling(lower) {
                Some(spelling) => folded.push_str(spelling),
                None => folded.push(lower),
            }
        }
    });
}

/// Spellings of lower-case letters that NFKD leaves alone: Latin letters in
/// ASCII, Arabic and Persian letter variants as their common form (tatweel as
/// nothing), Greek final sigma as sigma.
fn letter_spelling(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{0640}' => "",                      // tatweel
        '\u{0671}' => "\u{0627}",              // alef wasla → alef
        '\u{0649}' | '\u{06CC}' => "\u{064A}", // alef maksura, Persian yeh → yeh
        '\u{0629}' => "\u{0647}",              // teh marbuta → heh
        '\u{06A9}' => "\u{0643}",              // keheh (Persian kaf) → kaf
        'ς' => "σ",
        'ß' => "ss",
        'æ' => "ae",
        'œ' => "oe",
        'ø' => "o",
        'ł' => "l",
        'đ' | 'ð' => "d",
        'þ' => "th",
        'ı' => "i",
        'ħ' => "h",
        'ŀ' => "l",
        'ŧ' => "t",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::span::char_slice;

    fn words(text: &str, params: TokenizerParams) -> Vec<(String, u32, u32)> {
        let mut tokens = Tokens::default();
        Tokenizer::new(params).tokenize(text, &mut tokens);
        (0..tokens.len()).map(|i| (tokens.word(i).to_string(), tokens.range(i).start, tokens.range(i).len())).collect()
    }

    fn default_words(text: &str) -> Vec<(String, u32, u32)> {
        words(text, TokenizerParams::default())
    }

    #[test]
    fn multi_byte_text_keeps_character_offsets() {
        let found = default_words("Žluťoučký kůň úpěl ďábelské ódy.");
        let expected = [("zlutoucky", 0, 9), ("kun", 10, 3), ("upel", 14, 4), ("dabelske", 19, 8), ("ody", 28, 3)];
        let expected: Vec<_> = expected.iter().map(|&(w, o, l)| (w.to_string(), o, l)).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn short_words_digits_and_punctuation() {
        let text = "It's a 2024 test: don't re-use x86 CPUs!";
        let letters_only = TokenizerParams { digits: false, ..TokenizerParams::default() };
        let plain: Vec<_> = words(text, letters_only).into_iter().map(|w| w.0).collect();
        assert_eq!(plain, ["test", "don", "use", "cpus"]);
        let with_digits: Vec<_> = default_words(text).into_iter().map(|w| w.0).collect();
        assert_eq!(with_digits, ["2024", "test", "don", "use", "x86", "cpus"]);
    }

    #[test]
    fn folding_strips_diacritics_and_maps_special_letters() {
        let found: Vec<_> = default_words("Tučňák STRAẞE Łódź naïve Æsir ﬁnal Øre").into_iter().map(|w| w.0).collect();
        assert_eq!(found, ["tucnak", "strasse", "lodz", "naive", "aesir", "final", "ore"]);
    }

    #[test]
    fn decomposed_input_keeps_marks_inside_the_word_range() {
        // "cafe" + COMBINING ACUTE ACCENT: five characters, one word.
        let found = default_words("le cafe\u{301} noir");
        assert_eq!(found[0], ("cafe".to_string(), 3, 5));
        assert_eq!(found[1], ("noir".to_string(), 9, 4));
    }

    #[test]
    fn other_scripts_are_lower_cased_and_split_by_uax29() {
        let found: Vec<_> = default_words("Привет МИР, Ελληνικά").into_iter().map(|w| w.0).collect();
        assert_eq!(found, ["привет", "мир", "ελληνικα"]);
    }

    #[test]
    fn ideographs_are_words_of_their_own_whatever_their_length() {
        // UAX #29 makes each Han ideograph a word; offsets count characters.
        let found = default_words("我们的Debian系统, ok 安装");
        let expected = [("我", 0, 1), ("们", 1, 1), ("的", 2, 1), ("debian", 3, 6), ("系", 9, 1), ("统", 10, 1)];
        let mut expected: Vec<_> = expected.iter().map(|&(w, o, l)| (w.to_string(), o, l)).collect();
        expected.extend([("安".to_string(), 16, 1), ("装".to_string(), 17, 1)]);
        assert_eq!(found, expected);
    }

    #[test]
    fn arabic_persian_and_greek_letter_variants_fold_to_one_form() {
        let fold = |text: &str| default_words(text).into_iter().map(|w| w.0).collect::<Vec<_>>();
        // Harakat, hamza on alef, alef wasla, tatweel, alef maksura, teh marbuta.
        assert_eq!(fold("أَحْمَد إسلام آمال ٱلكتاب كـــتاب مستشفى مدرسة"), fold("احمد اسلام امال الكتاب كتاب مستشفي مدرسه"));
        // Persian yeh and keheh; Greek final sigma.
        assert_eq!(fold("کتابی"), ["كتابي"]);
        assert_eq!(fold("ΛΟΓΟΣ λόγος"), ["λογοσ", "λογοσ"]);
        // Offsets still count the original characters, tatweel and harakat included.
        assert_eq!(default_words("في كـــتابٍ")[0], ("كتاب".to_string(), 3, 8));
    }

    #[test]
    fn sequence_numbers_count_kept_words_only() {
        let mut tokens = Tokens::default();
        Tokenizer::new(TokenizerParams::default()).tokenize("a bb ccc dd eeee", &mut tokens);
        assert_eq!(tokens.len(), 2);
        assert_eq!((tokens.word(0), tokens.word(1)), ("ccc", "eeee"));
    }

    fn char_tokens(text: &str, n: usize, digits: bool) -> Vec<(String, u32, u32)> {
        let mut tokens = Tokens::default();
        CharTokenizer::new(n, digits).tokenize(text, &mut tokens);
        (0..tokens.len()).map(|i| (tokens.word(i).to_string(), tokens.range(i).start, tokens.range(i).end)).collect()
    }

    fn expect(expected: &[(&str, u32, u32)]) -> Vec<(String, u32, u32)> {
        expected.iter().map(|&(t, s, e)| (t.to_string(), s, e)).collect()
    }

    #[test]
    fn character_ngrams_count_characters_and_span_punctuation() {
        // 東0 京1 の2 天3 気4 、5 晴6 れ7 。8
        let found = char_tokens("東京の天気、晴れ。", 2, true);
        let expected = [("東京", 0, 2), ("京の", 1, 3), ("の天", 2, 4), ("天気", 3, 5), ("気晴", 4, 7), ("晴れ", 6, 8)];
        assert_eq!(found, expect(&expected));
        assert_eq!(char_tokens("東京の天気", 5, true), expect(&[("東京の天気", 0, 5)]));
        assert!(char_tokens("東京", 3, true).is_empty());
        assert!(char_tokens("", 1, true).is_empty());
    }

    #[test]
    fn character_ngrams_fold_and_keep_marks_with_their_letter() {
        // C0 a1 f2 e3 U+0301 4, space 5, A6 u7: the mark widens the e's range.
        let found = char_tokens("Cafe\u{301} Au", 3, true);
        assert_eq!(found, expect(&[("caf", 0, 3), ("afe", 1, 5), ("fea", 2, 7), ("eau", 3, 8)]));
        // ß folds to two letters but is one character of the range.
        assert_eq!(char_tokens("Maß", 2, true), expect(&[("ma", 0, 2), ("ass", 1, 3)]));
        // Tatweel folds to nothing and is skipped; so are digits without --digits.
        assert_eq!(char_tokens("كـتب", 2, true), expect(&[("كت", 0, 3), ("تب", 2, 4)]));
        assert_eq!(char_tokens("a1b", 2, false), expect(&[("ab", 0, 3)]));
        assert_eq!(char_tokens("a1b", 2, true), expect(&[("a1", 0, 2), ("1b", 1, 3)]));
    }

    #[test]
    fn tokenizer_kinds_parse_what_they_print() {
        for kind in [TokenizerKind::Words, TokenizerKind::Chars(1), TokenizerKind::Chars(8), TokenizerKind::Code] {
            assert_eq!(kind.to_string().parse::<TokenizerKind>(), Ok(kind));
        }
        assert_eq!("chars:3".parse::<TokenizerKind>(), Ok(TokenizerKind::Chars(3)));
        for bad in ["chars:0", "chars:9", "chars:", "chars:x"] {
            assert_eq!(bad.parse::<TokenizerKind>().unwrap_err(), "N of chars:N must be a number from 1 to 8");
        }
        let unknown = "ngrams".parse::<TokenizerKind>().unwrap_err();
        assert_eq!(unknown, "expected words, chars:N with N from 1 to 8, or code");
    }

    #[test]
    fn any_tokenizer_gives_what_its_kind_gives() {
        let text = "Žluťoučký kůň; x = y + 1;";
        let tokens_of = |params: TokenizerParams| {
            let mut tokens = Tokens::default();
            AnyTokenizer::new(params).tokenize(text, &mut tokens);
            (0..tokens.len())
                .map(|i| (tokens.word(i).to_string(), tokens.range(i).start, tokens.range(i).len()))
                .collect::<Vec<_>>()
        };
        assert_eq!(tokens_of(TokenizerParams::default()), default_words(text));
        let chars = TokenizerParams { kind: TokenizerKind::Chars(4), ..TokenizerParams::default() };
        let expected: Vec<_> = char_tokens(text, 4, true).into_iter().map(|(t, s, e)| (t, s, e - s)).collect();
        assert_eq!(tokens_of(chars), expected);
        let code = tokens_of(TokenizerParams { kind: TokenizerKind::Code, ..TokenizerParams::default() });
        let code: Vec<&str> = code.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(code.join(" "), "$id $id ; $id = $id + $num ;");
    }

    /// The n-grams as a plain reading of their definition: the word characters
    /// (not combining marks, not folding to nothing) with their positions, every
    /// window of `n` of them folded, its range widened over the marks after it.
    fn reference_ngrams(text: &str, n: usize, digits: bool) -> Vec<(String, u32, u32)> {
        let chars: Vec<char> = text.chars().collect();
        let folded = |c: char| {
            let mut out = String::new();
            fold_char(c, &mut out);
            out
        };
        let word_chars: Vec<usize> = (0..chars.len())
            .filter(|&i| {
                let c = chars[i];
                !is_combining_mark(c) && (c.is_alphabetic() || (digits && c.is_numeric())) && !folded(c).is_empty()
            })
            .collect();
        word_chars
            .windows(n)
            .map(|window| {
                let token: String = window.iter().map(|&i| folded(chars[i])).collect();
                let last = window[n - 1];
                let end = last + 1 + chars[last + 1..].iter().take_while(|&&c| is_combining_mark(c)).count();
                (token, window[0] as u32, end as u32)
            })
            .collect()
    }

    /// The words of `text` as a plain reading of the tokenizer's definition,
    /// a character at a time: regions are the runs of characters other than
    /// ASCII non-word characters; an ASCII region is one word, lower-cased;
    /// the others go to the Unicode path. With each word's range and sort key.
    fn reference_words(text: &str, params: TokenizerParams) -> Vec<(String, CharRange, u64)> {
        let tokenizer = Tokenizer::new(params);
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let byte_at = |i: usize| chars.get(i).map_or(text.len(), |&(at, _)| at);
        let boundary = |c: char| c.is_ascii() && !(c.is_ascii_alphabetic() || (params.digits && c.is_ascii_digit()));
        let mut out = Tokens::default();
        let mut i = 0;
        while i < chars.len() {
            if boundary(chars[i].1) {
                i += 1;
                continue;
            }
            let end = (i..chars.len()).find(|&j| boundary(chars[j].1)).unwrap_or(chars.len());
            let region = &text[byte_at(i)..byte_at(end)];
            if !region.is_ascii() {
                tokenizer.unicode_region(region, i as u32, &mut out);
            } else if region.len() >= params.min_word_len {
                out.push(&region.to_ascii_lowercase(), CharRange::new(i as u32, end as u32));
            }
            i = end;
        }
        (0..out.len()).map(|seq| (out.word(seq).to_string(), out.range(seq), out.sort_key(seq))).collect()
    }

    proptest::proptest! {
        #[test]
        fn character_ngrams_agree_with_the_reference(
            text in "[a-zA-Zčßá \u{301}\u{64E},.1-9漢字のカـ]{0,40}",
            n in 1usize..=8,
            digits: bool,
        ) {
            proptest::prop_assert_eq!(char_tokens(&text, n, digits), reference_ngrams(&text, n, digits));
        }

        #[test]
        fn words_agree_with_the_reference(
            text in "([a-zA-Z0-9]{0,150}|[ ,.'\\-]{1,3}|[čřžÉß漢€]{1,3}){0,14}",
            min_word_len in 1usize..=4,
            digits: bool,
        ) {
            let params = TokenizerParams { min_word_len, digits, ..TokenizerParams::default() };
            let mut tokens = Tokens::default();
            Tokenizer::new(params).tokenize(&text, &mut tokens);
            let found: Vec<_> =
                (0..tokens.len()).map(|seq| (tokens.word(seq).to_string(), tokens.range(seq), tokens.sort_key(seq))).collect();
            proptest::prop_assert_eq!(found, reference_words(&text, params));
            let padding = &tokens.folded.as_bytes()[tokens.folded.len() - WORD_WINDOW..];
            proptest::prop_assert!(padding.iter().all(|&b| b == 0));
        }

        #[test]
        fn slicing_a_word_range_gives_the_word(text in "[a-zA-Zčřžýáíéůú ,.'\\-\u{301}0-9أإآٱىةکیـًٌَُِّْ漢字の]{0,80}") {
            let mut tokens = Tokens::default();
            Tokenizer::new(TokenizerParams::default()).tokenize(&text, &mut tokens);
            for seq in 0..tokens.len() {
                let original = char_slice(&text, tokens.range(seq)).unwrap();
                let mut refolded = String::new();
                original.chars().for_each(|c| fold_char(c, &mut refolded));
                proptest::prop_assert_eq!(refolded.as_str(), tokens.word(seq));
                if seq > 0 {
                    proptest::prop_assert!(tokens.range(seq - 1).end <= tokens.range(seq).start);
                    let by_key = tokens.sort_key(seq - 1).cmp(&tokens.sort_key(seq));
                    let by_word = tokens.word(seq - 1).cmp(tokens.word(seq));
                    proptest::prop_assert!(by_key == by_word || by_key == std::cmp::Ordering::Equal);
                }
            }
        }
    }
}
