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
    /// Digits count as word characters (`--digits`).
    pub digits: bool,
    /// Words with fewer characters (after folding) are ignored; Han ideographs
    /// are kept however short.
    pub min_word_len: usize,
}

impl Default for TokenizerParams {
    fn default() -> Self {
        TokenizerParams { digits: DEFAULT_DIGITS, min_word_len: DEFAULT_MIN_WORD_LEN }
    }
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

    /// Replaces the content with words derived from `from`: for each word,
    /// `derive(seq, folded, out)` appends a new folded form to `out` and returns
    /// true to keep it (under the original word's range), or returns false to drop
    /// the word. Used by the alignment preset to chunk stop-word-free, truncated
    /// words with the ordinary chunker.
    pub fn derive_from(&mut self, from: &Tokens, mut derive: impl FnMut(usize, &str, &mut String) -> bool) {
        self.clear();
        for seq in 0..from.len() {
            let folded_start = self.folded.len();
            if derive(seq, from.word(seq), &mut self.folded) && self.folded.len() > folded_start {
                self.finish_word(folded_start, from.range(seq), 1);
            } else {
                self.folded.truncate(folded_start);
            }
        }
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
            self.sort_keys.push(sort_key(folded.as_bytes()));
            self.folded_ends.push(self.folded.len() as u32);
            self.ranges.push(range);
        } else {
            self.folded.truncate(folded_start);
        }
    }
}

/// The sort key of a folded word (see [`Tokens::sort_key`]): its first 8 bytes,
/// big-endian, zero-padded.
pub const fn sort_key(word: &[u8]) -> u64 {
    let mut prefix = [0u8; 8];
    let len = if word.len() < 8 { word.len() } else { 8 };
    prefix.split_at_mut(len).0.copy_from_slice(word.split_at(len).0);
    u64::from_be_bytes(prefix)
}

/// Splits texts into kept words; reuse one per thread to avoid allocations.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    params: TokenizerParams,
    /// What each byte is to the scanner: [`BOUNDARY`], [`ASCII_WORD`] or
    /// [`NON_ASCII`].
    byte_class: [u8; 256],
}

/// An ASCII byte that is not a word character: always a word boundary.
const BOUNDARY: u8 = 0;
/// An ASCII letter (or digit, with digits on).
const ASCII_WORD: u8 = 1;
/// A byte of a multi-byte character.
const NON_ASCII: u8 = 2;

impl Tokenizer {
    /// A tokenizer with validated parameters.
    pub fn new(params: TokenizerParams) -> Self {
        let mut byte_class = [BOUNDARY; 256];
        for (b, class) in byte_class.iter_mut().enumerate() {
            let b = b as u8;
            if b >= 0x80 {
                *class = NON_ASCII;
            } else if b.is_ascii_alphabetic() || (params.digits && b.is_ascii_digit()) {
                *class = ASCII_WORD;
            }
        }
        Tokenizer { params, byte_class }
    }

    /// Tokenizes `text` into `out`, replacing its previous content.
    pub fn tokenize(&self, text: &str, out: &mut Tokens) {
        out.clear();
        let bytes = text.as_bytes();
        let mut byte = 0;
        let mut char_pos: u32 = 0;
        while byte < bytes.len() {
            if self.byte_class[bytes[byte] as usize] == BOUNDARY {
                byte += 1;
                char_pos += 1;
                continue;
            }
            let (end, ascii) = self.region_end(bytes, byte);
            let region = &text[byte..end];
            char_pos = if ascii {
                self.ascii_region(region, char_pos, out)
            } else {
                self.unicode_region(region, char_pos, out)
            };
            byte = end;
        }
        out.folded.extend(std::iter::repeat_n('\0', WORD_WINDOW));
    }

    /// End of the run of word bytes and non-ASCII bytes starting at `start`, and
    /// whether it is all ASCII. It ends at an ASCII non-word byte, which is
    /// always a word boundary.
    fn region_end(&self, bytes: &[u8], start: usize) -> (usize, bool) {
        let mut classes = 0;
        for (end, &b) in bytes.iter().enumerate().skip(start) {
            let class = self.byte_class[b as usize];
            if class == BOUNDARY {
                return (end, classes & NON_ASCII == 0);
            }
            classes |= class;
        }
        (bytes.len(), classes & NON_ASCII == 0)
    }

    /// An ASCII region is one word.
    fn ascii_region(&self, region: &str, char_pos: u32, out: &mut Tokens) -> u32 {
        let folded_start = out.folded.len();
        out.folded.push_str(region);
        out.folded[folded_start..].make_ascii_lowercase();
        let end = char_pos + region.len() as u32;
        out.finish_word(folded_start, CharRange::new(char_pos, end), self.params.min_word_len);
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

    proptest::proptest! {
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
