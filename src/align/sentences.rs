//! Documents as sentences of stemmed content words, each sentence with its
//! character range.
//!
//! A sentence ends at `.`, `!`, `?` (and their CJK forms) followed by white space
//! or run into the next sentence (`botanist.On`), or at a line break, unless one
//! line break alone comes before a small letter: a hard-wrapped sentence goes on
//! there ([`Sentence::lines`]). Its range runs from its first non-space character to the
//! last non-space character before the break, so it includes the opening quote and
//! the final full stop. Sentences with fewer than `min_words` content words are
//! joined to the next one (headings, "he says."), and very long ones are cut after
//! [`MAX_SENTENCE_TERMS`] content words (texts without punctuation). A sentence's
//! terms are the 64-bit hashes of the stems of its words that are not stop words,
//! after synonym normalisation.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::analysis::span::CharRange;
use crate::analysis::stem::{Language, WordStemmer};
use crate::analysis::synonyms::Synonyms;
use crate::analysis::tokenize::Tokens;

/// A sentence holds at most this many content words; longer runs are cut.
pub const MAX_SENTENCE_TERMS: usize = 60;

/// A hasher for keys that already are hashes (terms): one multiplication.
#[derive(Debug, Default, Clone, Copy)]
pub struct TermHasher(u64);

impl Hasher for TermHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by terms.
pub type TermMap<V> = HashMap<u64, V, BuildHasherDefault<TermHasher>>;

/// One term of a sentence and how often it occurs there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TermCount {
    /// Hash of the stem.
    pub term: u64,
    /// Occurrences in the sentence.
    pub count: u32,
}

/// A sentence: its character range and its terms (`terms` indexes
/// [`Sentences::terms`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Characters of the sentence in the document.
    pub range: CharRange,
    /// Its distinct terms, sorted by hash, in [`Sentences::terms`].
    pub terms: std::ops::Range<usize>,
    /// Its terms in text order, in [`Sentences::sequence`].
    pub words: std::ops::Range<usize>,
    /// The hard-wrapped lines it joins (1 for a sentence on one line).
    /// pan13-ta-train's suspicious documents break lines inside sentences
    /// 31,279 times, its sources 1,688 times, and the novels of
    /// `eval/independent-corpus.sh` 59,440 times before a small letter; a
    /// line of a sentence shares too few words with the sentence it was
    /// copied from to seed. Joined (2026-11-29): pan13-ta-train with the
    /// pairs given 0.9275 -> 0.9313 (random 0.9145 -> 0.9207, translation
    /// 0.9034 -> 0.9080), the independent corpora 0.9818 / 0.9829 / 0.9791 ->
    /// 0.9888 / 0.9889 / 0.9886, dev-en 0.9701 -> 0.9696. Full search gained
    /// only 0.0011 until the stricter thresholds of full search counted a seed
    /// once per line ([`crate::align::filter::Candidate::seed_lines`]): 0.9099
    /// -> 0.9136.
    pub lines: u32,
}

/// The sentences of one document.
#[derive(Debug, Clone, Default)]
pub struct Sentences {
    /// Sentences in text order.
    pub sentences: Vec<Sentence>,
    /// Terms of all sentences, one sorted run per sentence.
    pub terms: Vec<TermCount>,
    /// Terms of all sentences in text order.
    pub sequence: Vec<u64>,
    /// The characters of each word of `sequence`.
    pub word_ranges: Vec<CharRange>,
    /// How each word of `sequence` is written ([`WordCase`]).
    pub cases: Vec<WordCase>,
    /// Each sentence's text, when the aligner has a model, for the
    /// sentences the meaning-level alignment embeds
    /// ([`crate::align::semantic`]); empty without one.
    pub texts: SentenceTexts,
    /// The terms of the sentence being closed, sorted (a buffer kept).
    sorted: Vec<u64>,
}

/// The texts of a document's sentences, one after the other.
#[derive(Debug, Clone, Default)]
pub struct SentenceTexts {
    text: String,
    /// Where each sentence's text ends in `text`, in bytes.
    ends: Vec<usize>,
}

impl SentenceTexts {
    /// Adds the next sentence's text.
    pub fn push(&mut self, text: &str) {
        self.text.push_str(text);
        self.ends.push(self.text.len());
    }

    /// The text of sentence `i`, if it was kept.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.text[start..end])
    }

    /// Adds the texts of `other`'s sentences `range`, when it kept them.
    fn extend_from(&mut self, other: &SentenceTexts, range: std::ops::Range<usize>) {
        for i in range {
            match other.get(i) {
                Some(text) => self.push(text),
                None => return,
            }
        }
    }

    /// Drops every text, keeping the buffers.
    fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }
}

/// How a word is written, by its first letter: what tells names
/// ([`crate::align::names`]) from other words in scripts with capitals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordCase {
    /// In small letters.
    Small,
    /// With a capital letter, first in its sentence or on its line.
    CapitalFirst,
    /// With a capital letter inside its sentence, as names are.
    CapitalInside,
    /// In a script without capitals, or starting with a digit.
    Uncased,
}

impl WordCase {
    /// The case of a word whose first character is `first`, `inside` its
    /// sentence or first in it.
    fn of(first: Option<char>, inside: bool) -> Self {
        match first {
            Some(c) if c.is_lowercase() => WordCase::Small,
            Some(c) if c.is_uppercase() => {
                if inside {
                    WordCase::CapitalInside
                } else {
                    WordCase::CapitalFirst
                }
            }
            _ => WordCase::Uncased,
        }
    }
}

impl Sentences {
    /// The words (indices into [`sequence`](Self::sequence)) that lie in `range`.
    pub fn words_in(&self, range: CharRange) -> std::ops::Range<usize> {
        let first = self.word_ranges.partition_point(|word| word.start < range.start);
        let last = first + self.word_ranges[first..].partition_point(|word| word.end <= range.end);
        first..last
    }

    /// The distinct terms of sentence `i`.
    pub fn terms_of(&self, i: usize) -> &[TermCount] {
        &self.terms[self.sentences[i].terms.clone()]
    }

    /// Moves every range `offset` characters on (for a text cut out of a longer one).
    pub fn shift(&mut self, offset: u32) {
        for sentence in &mut self.sentences {
            sentence.range = CharRange::new(sentence.range.start + offset, sentence.range.end + offset);
        }
        for range in &mut self.word_ranges {
            *range = CharRange::new(range.start + offset, range.end + offset);
        }
    }

    /// Drops every sentence, keeping the buffers.
    pub fn clear(&mut self) {
        self.sentences.clear();
        self.terms.clear();
        self.sequence.clear();
        self.word_ranges.clear();
        self.cases.clear();
        self.texts.clear();
    }

    /// Replaces `out` with the sentences of `self` that overlap `window`,
    /// whole: the sentences of a window cut out of a region analysed once.
    pub fn copy_window(&self, window: CharRange, out: &mut Sentences) {
        let first = self.sentences.partition_point(|s| s.range.end <= window.start);
        let last = first + self.sentences[first..].partition_point(|s| s.range.start < window.end);
        let kept = &self.sentences[first..last];
        out.clear();
        let (Some(head), Some(tail)) = (kept.first(), kept.last()) else { return };
        let (terms, words) = (head.terms.start..tail.terms.end, head.words.start..tail.words.end);
        out.terms.extend_from_slice(&self.terms[terms.clone()]);
        out.sequence.extend_from_slice(&self.sequence[words.clone()]);
        out.word_ranges.extend_from_slice(&self.word_ranges[words.clone()]);
        out.cases.extend_from_slice(&self.cases[words.clone()]);
        out.texts.extend_from(&self.texts, first..last);
        out.sentences.extend(kept.iter().map(|s| Sentence {
            range: s.range,
            terms: s.terms.start - terms.start..s.terms.end - terms.start,
            words: s.words.start - words.start..s.words.end - words.start,
            lines: s.lines,
        }));
    }

    /// The text of sentence `i`, when the sentences keep their texts
    /// ([`texts`](Self::texts)).
    pub fn text(&self, i: usize) -> Option<&str> {
        self.texts.get(i)
    }

    /// The characters from the first sentence's start to the last one's end
    /// (empty at 0 when there is no sentence).
    pub fn span(&self) -> CharRange {
        match (self.sentences.first(), self.sentences.last()) {
            (Some(first), Some(last)) => first.range.cover(&last.range),
            _ => CharRange::new(0, 0),
        }
    }

    /// Number of sentences.
    pub fn len(&self) -> usize {
        self.sentences.len()
    }

    /// True when the document has no sentence with a content word.
    pub fn is_empty(&self) -> bool {
        self.sentences.is_empty()
    }
}

/// FNV-1a, 64 bits: terms are compared by hash; a collision between two stems
/// of one document pair merely adds a spurious common word.
pub fn term_hash(stem: &str) -> u64 {
    stem.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '…')
}

/// What lies between two words (or before the first, after the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Gap {
    /// End of the previous sentence when the gap breaks one: one past the last
    /// non-space character before the break.
    sentence_end: Option<u32>,
    /// Where the next sentence starts when the gap breaks one: its first
    /// non-space character after the break.
    sentence_start: Option<u32>,
    /// One past the previous word's trailing punctuation (first space after it).
    trail: u32,
    /// Start of the next word's leading punctuation (after the last space).
    lead: u32,
    /// The gap breaks a sentence by one line break alone, with no
    /// terminator, blank line or run-together sentence: a hard-wrapped line
    /// may go on after it.
    line_break_only: bool,
    /// The first character other than a space after that line break, if the
    /// gap holds one.
    after_break: Option<char>,
}

/// Reads a text's characters forward: byte by byte when the text is ASCII
/// (characters are bytes then, and a word is skipped by moving on), decoded
/// otherwise.
enum Cursor<'t> {
    Ascii(&'t [u8]),
    Decoded(std::str::Chars<'t>),
}

impl<'t> Cursor<'t> {
    fn new(text: &'t str) -> Self {
        if text.is_ascii() { Cursor::Ascii(text.as_bytes()) } else { Cursor::Decoded(text.chars()) }
    }

    /// Describes the gap from character `from`, where the cursor is, to
    /// character `to` (or the end of the text), and moves to `to`. `glued`
    /// has seen the text before the gap.
    fn gap(&mut self, from: u32, to: u32, glued: &mut GluedStop) -> Gap {
        match self {
            Cursor::Ascii(bytes) => {
                let end = (to as usize).min(bytes.len());
                let gap = bytes.get(from as usize..end).unwrap_or_default();
                scan_gap(gap.iter().map(|&b| char::from(b)), from, to, glued)
            }
            Cursor::Decoded(chars) => scan_gap(chars, from, to, glued),
        }
    }

    /// The character at `at`, where the cursor is, without moving.
    fn peek(&self, at: u32) -> Option<char> {
        match self {
            Cursor::Ascii(bytes) => bytes.get(at as usize).map(|&b| char::from(b)),
            Cursor::Decoded(chars) => chars.clone().next(),
        }
    }

    /// Moves from character `from`, where the cursor is, to character `to`
    /// (or the end of the text), and returns the last character passed.
    fn skip(&mut self, from: u32, to: u32) -> Option<char> {
        if to <= from {
            return None;
        }
        match self {
            Cursor::Ascii(bytes) => bytes.get(to as usize - 1).map(|&b| char::from(b)),
            Cursor::Decoded(chars) => chars.nth((to - from - 1) as usize),
        }
    }
}

/// Scans `chars` (positioned at character `from`) up to character `to` and
/// describes the gap; `glued` looks for sentences run together.
fn scan_gap(mut chars: impl Iterator<Item = char>, from: u32, to: u32, glued: &mut GluedStop) -> Gap {
    let mut gap = Gap {
        sentence_end: None,
        sentence_start: None,
        trail: to,
        lead: from,
        line_break_only: false,
        after_break: None,
    };
    let mut last_non_space_end = from;
    let mut pending_terminator = false;
    let mut seen_space = false;
    // Line breaks ("\r\n" one), and whether a terminator or a run-together
    // sentence broke one.
    let (mut line_breaks, mut stopped, mut previous) = (0, false, None);
    for pos in from..to {
        let Some(c) = chars.next() else {
            // The text ended (the gap after the last word).
            if !seen_space {
                gap.trail = pos;
            }
            break;
        };
        if c.is_whitespace() {
            glued.feed(c, pos);
            if !seen_space {
                gap.trail = pos;
                seen_space = true;
            }
            gap.lead = pos + 1;
            line_breaks += u32::from(c == '\r' || (c == '\n' && previous != Some('\r')));
            stopped |= pending_terminator;
            if c == '\n' || c == '\r' || pending_terminator {
                gap.sentence_end = Some(last_non_space_end);
                gap.sentence_start = None;
                pending_terminator = false;
            }
        } else {
            if gap.sentence_end.is_some() && gap.sentence_start.is_none() {
                gap.sentence_start = Some(pos);
                gap.after_break = Some(c);
            }
            if let Some((end, start)) = glued.feed(c, pos)
                && gap.sentence_end.is_none()
            {
                (gap.sentence_end, gap.sentence_start) = (Some(end), Some(start));
                stopped = true;
            }
            pending_terminator = is_terminator(c) || (pending_terminator && !c.is_alphanumeric());
            last_non_space_end = pos + 1;
        }
        previous = Some(c);
    }
    gap.line_break_only = gap.sentence_end.is_some() && !stopped && line_breaks == 1;
    if gap.sentence_end.is_some() && gap.sentence_start.is_none() {
        gap.sentence_start = Some(to);
    }
    gap
}

/// Finds sentences run together with no space between them, as web text
/// that lost its line breaks has (`botanist.On`: 3,498 times in
/// pan13-ta-train's source documents): a full stop, question or exclamation
/// mark, closing quotes or brackets after it, between a word of two or more
/// letters that ends in a small letter and a capitalised word of two or more
/// letters. Not `U.S.A`, `e.g.The`, `www.example` or `NEWS.Debian`, nor
/// Chinese and Japanese, which leave no space after `。` and keep their longer
/// sentences: split there, the Chinese corpus of `eval/languages.sh` lost
/// 0.018 and the Japanese one 0.073; split in `NEWS.Debian` too, the
/// Japanese one lost 0.025 (a false summary).
#[derive(Debug, Default)]
struct GluedStop {
    /// Letters of the run that ends at the last character fed.
    letters: u32,
    /// Whether the last character fed is a small letter.
    small: bool,
    /// One past the terminator (and its closers) after such a word.
    stop_end: Option<u32>,
    /// A capital right after that.
    capital: Option<u32>,
}

impl GluedStop {
    /// Has seen a word of `len` characters ending in `last`.
    fn after_word(&mut self, len: u32, last: Option<char>) {
        let letter = last.is_some_and(char::is_alphabetic);
        *self = GluedStop {
            letters: if letter { len } else { 0 },
            small: last.is_some_and(char::is_lowercase),
            ..GluedStop::default()
        };
    }

    /// Feeds the first character of a word of `len` characters at `pos`;
    /// returns the end of a sentence and the start of the next when it begins
    /// a sentence run into the last.
    fn starts_word(&mut self, first: char, pos: u32, len: u32) -> Option<(u32, u32)> {
        let found = self.feed(first, pos);
        match (self.stop_end, self.capital) {
            (Some(end), Some(capital)) if len >= 2 => Some((end, capital)),
            _ => found,
        }
    }

    /// Feeds the character at `pos`; returns the end of a sentence and the
    /// start of the next once a break is certain.
    fn feed(&mut self, c: char, pos: u32) -> Option<(u32, u32)> {
        let found = match (self.stop_end, self.capital.take()) {
            (Some(end), Some(capital)) if c.is_alphabetic() => Some((end, capital)),
            _ => None,
        };
        match c {
            '.' | '!' | '?' if self.letters >= 2 && self.small => self.stop_end = Some(pos + 1),
            '"' | '\'' | ')' | ']' | '”' | '’' if self.stop_end.is_some() && found.is_none() => {
                self.stop_end = Some(pos + 1);
            }
            c if c.is_uppercase() && self.stop_end.is_some() && found.is_none() => self.capital = Some(pos),
            _ => self.stop_end = None,
        }
        if c.is_alphabetic() {
            self.letters += 1;
            self.small = c.is_lowercase();
        } else {
            (self.letters, self.small) = (0, false);
        }
        if found.is_some() {
            self.stop_end = None;
        }
        found
    }
}

/// Words remembered by a [`Terms`] before it starts afresh.
const TERM_CACHE_WORDS: usize = 1 << 19;

/// Folded word → term (`None` for a stop word) for one language, remembered:
/// words repeat (Zipf's law) and stemming is the costly part of alignment.
#[derive(Debug)]
pub struct Terms<'a> {
    stemmer: WordStemmer,
    synonyms: Option<&'a Synonyms>,
    cache: HashMap<Box<str>, Option<u64>, BuildHasherDefault<TermHasher>>,
}

impl<'a> Terms<'a> {
    /// Terms with `stemmer`'s language, after synonym normalisation.
    pub fn new(stemmer: WordStemmer, synonyms: Option<&'a Synonyms>) -> Self {
        Terms { stemmer, synonyms, cache: HashMap::default() }
    }

    /// The language of the stemmer.
    pub fn language(&self) -> Option<Language> {
        self.stemmer.language()
    }

    /// The term of a folded word, `None` for a stop word.
    pub fn term(&mut self, word: &str) -> Option<u64> {
        if self.stemmer.language().is_none() {
            // Nothing to stem and no stop words: hashing is cheaper than the cache.
            return Some(term_hash(self.synonyms.map_or(word, |s| s.canonical(word))));
        }
        if let Some(&term) = self.cache.get(word) {
            return term;
        }
        let term = if self.stemmer.is_stop_word(word) {
            None
        } else {
            let canonical = self.synonyms.map_or(word, |s| s.canonical(word));
            Some(term_hash(&self.stemmer.stem(canonical)))
        };
        if self.cache.len() >= TERM_CACHE_WORDS {
            self.cache.clear();
        }
        self.cache.insert(word.into(), term);
        term
    }
}

/// Builds the sentences of `text`, whose words are `tokens`.
pub fn sentences_of(text: &str, tokens: &Tokens, terms: &mut Terms<'_>, min_words: usize, out: &mut Sentences) {
    out.clear();
    let mut cursor = Cursor::new(text);
    let mut pos: u32 = 0;
    let mut open: Option<u32> = None; // start of the sentence being built
    let mut open_terms = out.terms.len();
    let mut last_word_end = 0;
    let mut open_lines = 1;
    let mut glued = GluedStop::default();
    for seq in 0..tokens.len() {
        let range = tokens.range(seq);
        let mut gap = cursor.gap(pos, range.start, &mut glued);
        // The next word's first letter may be the capital of a sentence run
        // into the last.
        let first = cursor.peek(range.start);
        if let Some(first) = first
            && let Some((end, start)) = glued.starts_word(first, range.start, range.len())
            && gap.sentence_end.is_none()
        {
            (gap.sentence_end, gap.sentence_start) = (Some(end), Some(start));
        }
        // A line that starts with a small letter goes on a hard-wrapped sentence.
        let wrapped = gap.line_break_only && gap.after_break.or(first).is_some_and(char::is_lowercase);
        glued.after_word(range.len(), cursor.skip(range.start, range.end));
        pos = range.end;
        let long = out.terms.len() - open_terms >= MAX_SENTENCE_TERMS;
        let inside_sentence = open.is_some() && gap.sentence_end.is_none();
        if let Some(start) = open {
            let (end, next_start) = match (gap.sentence_end, gap.sentence_start) {
                (Some(end), Some(next)) if !wrapped => (Some(end), next),
                _ if long => (Some(gap.trail), gap.lead),
                _ => (None, 0),
            };
            if let Some(end) = end
                && (out.terms.len() - open_terms >= min_words || long)
            {
                let words = out.sequence.len() - (out.terms.len() - open_terms)..out.sequence.len();
                close(out, CharRange::new(start, end.max(start)), open_terms, words, open_lines);
                open_terms = out.terms.len();
                open_lines = 1;
                open = Some(next_start.max(end).min(range.start));
            } else if wrapped {
                open_lines += 1;
            }
        } else {
            open = Some(gap.lead.min(range.start));
        }
        if let Some(term) = terms.term(tokens.word(seq)) {
            out.terms.push(TermCount { term, count: 1 });
            out.sequence.push(term);
            out.word_ranges.push(range);
            out.cases.push(WordCase::of(first, inside_sentence));
        }
        last_word_end = range.end;
    }
    if let Some(start) = open {
        let tail = cursor.gap(pos, u32::MAX, &mut glued);
        let end = tail.trail.max(last_word_end);
        if out.terms.len() > open_terms || out.sentences.is_empty() {
            if out.terms.len() - open_terms < min_words && !out.sentences.is_empty() {
                // A short last sentence joins the previous one, whose terms are
                // stored just before its own.
                let previous = out.sentences.pop().expect("checked non-empty");
                let words = previous.words.start..out.sequence.len();
                close(out, CharRange::new(previous.range.start, end), previous.terms.start, words, previous.lines);
            } else {
                let words = out.sequence.len() - (out.terms.len() - open_terms)..out.sequence.len();
                close(out, CharRange::new(start, end), open_terms, words, open_lines);
            }
        }
    }
}

/// Ends the sentence whose terms were pushed since `first_term`, those of its
/// `words`: they are replaced by its distinct terms, sorted, with their
/// counts. (Sorting the bare terms is faster than sorting the counted ones.)
fn close(out: &mut Sentences, range: CharRange, first_term: usize, words: std::ops::Range<usize>, lines: u32) {
    out.sorted.clear();
    out.sorted.extend_from_slice(&out.sequence[words.clone()]);
    out.sorted.sort_unstable();
    out.terms.truncate(first_term);
    for run in out.sorted.chunk_by(|a, b| a == b) {
        out.terms.push(TermCount { term: run[0], count: run.len() as u32 });
    }
    if out.terms.len() > first_term {
        out.sentences.push(Sentence { range, terms: first_term..out.terms.len(), words, lines });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::span::char_slice;
    use crate::analysis::tokenize::{Tokenizer, TokenizerParams};

    proptest::proptest! {
        #[test]
        fn an_ascii_text_read_as_bytes_gives_the_gaps_of_its_decoded_characters(
            pieces in proptest::collection::vec((0usize..8, 1usize..5), 0..40),
            cuts in proptest::collection::vec(0u32..200, 0..12),
        ) {
            const PIECES: [&str; 8] = ["word", " ", ". ", "\n", "?\" ", "\t", ".On", "Word"];
            let text: String = pieces.iter().map(|&(p, n)| PIECES[p].repeat(n)).collect();
            let mut cuts = cuts;
            cuts.sort_unstable();
            cuts.push(u32::MAX);
            let (mut ascii, mut decoded) = (Cursor::new(&text), Cursor::Decoded(text.chars()));
            let (mut ascii_glued, mut decoded_glued) = (GluedStop::default(), GluedStop::default());
            proptest::prop_assert!(matches!(ascii, Cursor::Ascii(_)));
            let mut from = 0;
            for (i, &to) in cuts.iter().enumerate() {
                // Gaps and skipped words take turns, as between words.
                if i % 2 == 0 {
                    let gaps = (ascii.gap(from, to, &mut ascii_glued), decoded.gap(from, to, &mut decoded_glued));
                    proptest::prop_assert_eq!(gaps.0, gaps.1);
                    proptest::prop_assert_eq!(ascii.peek(to), decoded.peek(to));
                } else {
                    proptest::prop_assert_eq!(ascii.skip(from, to), decoded.skip(from, to));
                }
                from = to.min(text.len() as u32);
            }
        }
    }

    #[test]
    fn words_are_told_by_case_and_by_where_in_their_sentence_they_stand() {
        let text = "Then Josiah went up to Bethel.\nAltars stood there of stones.";
        let (_, out) = split(text, 1);
        let case_of = |word: &str| {
            let at = out.word_ranges.iter().position(|&r| char_slice(text, r) == Some(word));
            out.cases[at.unwrap_or_else(|| panic!("{word} is no term"))]
        };
        assert_eq!(out.cases.len(), out.sequence.len());
        assert_eq!(case_of("Josiah"), WordCase::CapitalInside);
        assert_eq!(case_of("Bethel"), WordCase::CapitalInside);
        assert_eq!(case_of("went"), WordCase::Small);
        assert_eq!(case_of("Altars"), WordCase::CapitalFirst, "first on its line, after a stop");
        assert_eq!(WordCase::of(Some('3'), true), WordCase::Uncased);
        assert_eq!(WordCase::of(Some('م'), true), WordCase::Uncased, "Arabic has no capitals");
        assert_eq!(WordCase::of(Some('Ж'), true), WordCase::CapitalInside);
        // A window copied out of the sentences keeps its words' cases.
        let mut window = Sentences::default();
        out.copy_window(CharRange::new(31, 40), &mut window);
        assert_eq!(window.cases.len(), window.sequence.len());
        assert_eq!(window.cases[0], WordCase::CapitalFirst);
    }

    fn split(text: &str, min_words: usize) -> (Vec<String>, Sentences) {
        let mut tokens = Tokens::default();
        Tokenizer::new(TokenizerParams::default()).tokenize(text, &mut tokens);
        let mut out = Sentences::default();
        let mut terms = Terms::new(WordStemmer::new(Some(Language::English)), None);
        sentences_of(text, &tokens, &mut terms, min_words, &mut out);
        let texts = out.sentences.iter().map(|s| char_slice(text, s.range).unwrap().to_string()).collect();
        (texts, out)
    }

    #[test]
    fn sentences_keep_quotes_and_full_stops_and_count_characters() {
        let text = "  Žluťoučký kůň úpěl ďábelské ódy. \"Telescopes found pulsars quickly!\" he said.\nNew line here";
        let (texts, sentences) = split(text, 1);
        // "he said." has no content word and joins the next sentence.
        assert_eq!(
            texts,
            ["Žluťoučký kůň úpěl ďábelské ódy.", "\"Telescopes found pulsars quickly!\"", "he said.\nNew line here"]
        );
        assert_eq!(sentences.sentences[0].range, CharRange::new(2, 34));
    }

    #[test]
    fn short_sentences_join_the_next_and_stems_are_counted() {
        let text = "Chapter one. The telescopes found the pulsar and another telescope found it quickly. End.";
        let (texts, sentences) = split(text, 3);
        assert_eq!(
            texts,
            ["Chapter one. The telescopes found the pulsar and another telescope found it quickly. End."],
            "the heading joins the next sentence, the short last one the previous"
        );
        let counts: Vec<u32> = sentences.terms_of(0).iter().map(|t| t.count).collect();
        // chapter, telescop ×2, found ×2, pulsar, quick, end ("one", "the", "another" are stop words)
        assert_eq!(counts.iter().sum::<u32>(), 8);
        assert_eq!(counts.len(), 6);
    }

    /// Sentence `i` of `sentences` as its range, distinct terms and words.
    fn sentence(sentences: &Sentences, i: usize) -> (CharRange, Vec<TermCount>, Vec<u64>, Vec<CharRange>) {
        let s = &sentences.sentences[i];
        let words = s.words.clone();
        (
            s.range,
            sentences.terms_of(i).to_vec(),
            sentences.sequence[words.clone()].to_vec(),
            sentences.word_ranges[words].to_vec(),
        )
    }

    #[test]
    fn a_window_copies_the_sentences_it_overlaps_whole() {
        let text = "Telescopes found pulsars. Astronomers measured the spin quickly. \
                    Radio waves reached the dish. Engineers cooled the receiver.";
        let (_, whole) = split(text, 1);
        assert_eq!(whole.len(), 4);
        let mut window = Sentences::default();
        // From inside the second sentence to inside the third.
        let (second, third) = (whole.sentences[1].range, whole.sentences[2].range);
        whole.copy_window(CharRange::new(second.start + 5, third.start + 3), &mut window);
        assert_eq!(window.len(), 2);
        for i in 0..2 {
            assert_eq!(sentence(&window, i), sentence(&whole, i + 1));
        }
        // A window over all of them copies everything; one past them, nothing.
        whole.copy_window(CharRange::new(0, u32::MAX), &mut window);
        assert_eq!(
            (window.sentences, window.terms, window.sequence),
            (whole.sentences.clone(), whole.terms.clone(), whole.sequence.clone())
        );
        let mut past = Sentences::default();
        whole.copy_window(CharRange::new(text.len() as u32 + 1, u32::MAX), &mut past);
        assert!(past.is_empty() && past.sequence.is_empty());
    }

    #[test]
    fn a_full_stop_without_a_space_ends_a_sentence_only_between_words() {
        let text = "Deam became a botanist.On visits to Mexico he found plants!Thus he stayed. \
                    The U.S.A and e.g.The cases, NEWS.Debian and www.example.com stay whole.";
        let (texts, _) = split(text, 1);
        assert_eq!(
            texts,
            [
                "Deam became a botanist.",
                "On visits to Mexico he found plants!",
                "Thus he stayed.",
                "The U.S.A and e.g.The cases, NEWS.Debian and www.example.com stay whole."
            ]
        );
        // Chinese and Japanese leave no space after a full stop and keep their sentences.
        assert_eq!(split("東京の天気。Debian の説明。", 1).0.len(), 1);
    }

    #[test]
    fn a_line_that_starts_with_a_small_letter_goes_on_a_hard_wrapped_sentence() {
        let text = "Deam became a botanist and went\nto Mexico in 1900 to find\r\nplants.\nHe stayed there\n\n\
                    the next year.\nA heading\nThe next line";
        let (texts, sentences) = split(text, 1);
        assert_eq!(
            texts,
            [
                "Deam became a botanist and went\nto Mexico in 1900 to find\r\nplants.",
                "He stayed there",
                "the next year.",
                "A heading",
                "The next line"
            ],
            "not after a full stop, a blank line or before a capital"
        );
        let lines: Vec<u32> = sentences.sentences.iter().map(|s| s.lines).collect();
        assert_eq!(lines, [3, 1, 1, 1, 1]);
    }

    #[test]
    fn text_without_words_has_no_sentences() {
        assert!(split("... !!! 12", 1).1.is_empty());
        assert!(split("", 1).1.is_empty());
    }
}
