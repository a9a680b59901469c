//! Reading the input texts and splitting text into tokens and sentences, with
//! byte *and* character offsets.
//!
//! Input files are read in blocks of at most [`BLOCK_BYTES`] (cut at a line
//! break), so that a single huge input file never has to fit in memory. Each block
//! is cleaned ([`clean`]: no CR, no byte-order mark, no control characters other
//! than newline and tab), because PAN corpora contain no CR and a CR would make the
//! character offsets of other tools disagree with ours.

use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use unicode_segmentation::UnicodeSegmentation;

use super::CorpusError;

/// Largest block of an input file handled at once.
pub const BLOCK_BYTES: usize = 4 << 20;

/// A sentence is cut after the token that makes it this long (in characters), so
/// that a text without sentence punctuation still yields document-sized pieces.
pub const MAX_SENTENCE_CHARS: usize = 1000;

/// A run of non-whitespace longer than this (in characters) is split into several
/// tokens, for the same reason.
pub const MAX_TOKEN_CHARS: usize = 200;

/// The `.txt` files under `path` (recursively, hidden entries skipped), sorted by
/// path so that the corpus does not depend on directory order; `path` itself when
/// it is a file.
pub fn list_texts(path: &Path) -> Result<Vec<PathBuf>, CorpusError> {
    let io_error = |source| CorpusError::Io { path: path.to_path_buf(), source };
    let metadata = std::fs::metadata(path).map_err(io_error)?;
    if metadata.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    collect_texts(path, &mut files)?;
    if files.is_empty() {
        return Err(CorpusError::NoTexts { path: path.to_path_buf() });
    }
    Ok(files)
}

fn collect_texts(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), CorpusError> {
    let io_error = |source| CorpusError::Io { path: dir.to_path_buf(), source };
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error)? {
        let entry = entry.map_err(io_error)?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        entries.push(entry.path());
    }
    entries.sort();
    for path in entries {
        let metadata = std::fs::metadata(&path).map_err(|source| CorpusError::Io { path: path.clone(), source })?;
        if metadata.is_dir() {
            collect_texts(&path, files)?;
        } else if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt")) {
            files.push(path);
        }
    }
    Ok(())
}

/// Reads a text file as a sequence of cleaned UTF-8 blocks of at most about
/// [`BLOCK_BYTES`] each, cut after a newline where there is one.
pub struct TextBlocks {
    path: PathBuf,
    file: File,
    /// Bytes read but not yet returned (the tail after the last cut).
    pending: Vec<u8>,
    /// File offset of `pending[0]`, for error messages.
    offset: u64,
    eof: bool,
}

impl TextBlocks {
    /// Opens `path` for reading.
    pub fn open(path: &Path) -> Result<TextBlocks, CorpusError> {
        let file = File::open(path).map_err(|source| CorpusError::Io { path: path.to_path_buf(), source })?;
        Ok(TextBlocks { path: path.to_path_buf(), file, pending: Vec::new(), offset: 0, eof: false })
    }

    /// The next cleaned block, or `None` at the end of the file.
    pub fn next_block(&mut self) -> Result<Option<String>, CorpusError> {
        while !self.eof && self.pending.len() < BLOCK_BYTES {
            let start = self.pending.len();
            self.pending.resize(BLOCK_BYTES, 0);
            let read = self
                .file
                .read(&mut self.pending[start..])
                .map_err(|source| CorpusError::Io { path: self.path.clone(), source })?;
            self.pending.truncate(start + read);
            if read == 0 {
                self.eof = true;
            }
        }
        if self.pending.is_empty() {
            return Ok(None);
        }
        let cut = if self.eof { self.pending.len() } else { cut_point(&self.pending) };
        let rest = self.pending.split_off(cut);
        let block = std::mem::replace(&mut self.pending, rest);
        let block_offset = self.offset;
        self.offset += cut as u64;
        let text = String::from_utf8(block).map_err(|e| CorpusError::Utf8 {
            path: self.path.clone(),
            byte: block_offset + e.utf8_error().valid_up_to() as u64,
        })?;
        Ok(Some(clean(&text)))
    }
}

/// Where to cut a full buffer: after its last newline, else after its last ASCII
/// whitespace, else at its last UTF-8 character boundary.
fn cut_point(buffer: &[u8]) -> usize {
    if let Some(i) = buffer.iter().rposition(|&b| b == b'\n') {
        return i + 1;
    }
    if let Some(i) = buffer.iter().rposition(|b| b.is_ascii_whitespace()) {
        return i + 1;
    }
    // A UTF-8 continuation byte looks like 0b10xx_xxxx; back up to a lead byte.
    let mut cut = buffer.len();
    while cut > 0 && buffer[cut - 1] & 0xC0 == 0x80 {
        cut -= 1;
    }
    // `cut - 1` is now a lead byte (or ASCII); cut before it unless it is ASCII.
    if cut > 0 && buffer[cut - 1] >= 0x80 {
        cut -= 1;
    }
    if cut == 0 { buffer.len() } else { cut }
}

/// `text` without CR (CR LF and lone CR become LF), byte-order marks and control
/// characters other than newline and tab.
pub fn clean(text: &str) -> String {
    let needs_cleaning = text.chars().any(|c| is_removed(c) || c == '\r');
    if !needs_cleaning {
        return text.to_string();
    }
    let mut cleaned = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() != Some(&'\n') {
                cleaned.push('\n');
            }
        } else if !is_removed(c) {
            cleaned.push(c);
        }
    }
    cleaned
}

fn is_removed(c: char) -> bool {
    c == '\u{feff}' || (c.is_control() && c != '\n' && c != '\t' && c != '\r')
}

/// A whitespace-separated token: its byte and character range in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Byte range in the text.
    pub bytes: Range<usize>,
    /// Character range in the text.
    pub chars: Range<usize>,
}

/// The whitespace-separated tokens of `text` (runs longer than
/// [`MAX_TOKEN_CHARS`] are split).
pub fn tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::with_capacity(text.len() / 6 + 1);
    let mut current: Option<(usize, usize)> = None;
    let mut char_index = 0;
    let mut byte = 0;
    while byte < bytes.len() {
        // ASCII is decided from the byte; other characters are decoded.
        let (width, whitespace) = if bytes[byte] < 0x80 {
            (1, matches!(bytes[byte], b' ' | b'\t'..=b'\r'))
        } else {
            // `byte` always sits on a character boundary: it advances by whole characters.
            let c = text[byte..].chars().next().unwrap_or(' ');
            (c.len_utf8(), c.is_whitespace())
        };
        if whitespace {
            if let Some((start_byte, start_char)) = current.take() {
                tokens.push(Token { bytes: start_byte..byte, chars: start_char..char_index });
            }
        } else {
            match current {
                Some((start_byte, start_char)) if char_index - start_char >= MAX_TOKEN_CHARS => {
                    tokens.push(Token { bytes: start_byte..byte, chars: start_char..char_index });
                    current = Some((byte, char_index));
                }
                Some(_) => {}
                None => current = Some((byte, char_index)),
            }
        }
        byte += width;
        char_index += 1;
    }
    if let Some((start_byte, start_char)) = current {
        tokens.push(Token { bytes: start_byte..text.len(), chars: start_char..char_index });
    }
    tokens
}

/// True when a token counts as a word: it holds a letter or digit.
pub fn is_word(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
}

/// The number of words (tokens holding a letter or digit) in `text`.
pub fn count_words(text: &str) -> usize {
    text.split_whitespace().filter(|t| is_word(t)).count()
}

/// The tokens a word shuffle moves: each whitespace-separated token of `text`
/// ([`tokens`]) cut at its Unicode (UAX #29) word boundaries, so that every
/// punctuation mark is a token of its own (`wick,` → `wick` `,`; `«oui»` → `«`
/// `oui` `»`), while a word keeps its inner apostrophes and dots and its
/// combining marks (`don't`, `3.5`, Arabic harakat) and each Han ideograph is a
/// token. Joined by spaces, the tokens cut the same way again.
pub fn words_and_marks(text: &str) -> Vec<&str> {
    tokens(text).into_iter().flat_map(|token| text[token.bytes].split_word_bounds()).collect()
}

/// Marks after which a clause or sentence ends: `, ; : . ! ? …` and the Arabic,
/// Devanagari, Armenian, Ethiopic, Greek and CJK ones.
const CLAUSE_MARKS: &[char] = &[
    ',', ';', ':', '.', '!', '?', '…', '،', '؛', '؟', '۔', '।', '॥', '։', '።', '፣', '፤', '\u{37e}', '。', '，', '、',
    '；', '：', '！', '？', '｡', '､',
];

/// Clause marks of scripts written without spaces: a phrase ends after them even
/// when no whitespace follows.
const UNSPACED_CLAUSE_MARKS: &[char] = &['。', '，', '、', '；', '：', '！', '？', '｡', '､'];

/// The phrases of `text`, each trimmed of whitespace. A phrase ends after a
/// clause mark (`, ; : . ! ? …` and the Arabic, Devanagari, Armenian, Ethiopic,
/// Greek and CJK ones, with the closing quotes and brackets that follow it) that
/// whitespace or the end of the text follows, and after any CJK clause mark; so
/// `3.5`, `12:30` and `http://` do not end one. A piece without a word (a lone
/// `...`) joins the phrase before it (the first phrase when there is none). The
/// phrases cover every non-whitespace character of `text`, in order.
pub fn phrases(text: &str) -> Vec<&str> {
    let mut ends = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if !CLAUSE_MARKS.contains(&c) {
            continue;
        }
        while chars.next_if(|&(_, next)| CLOSERS.contains(&next)).is_some() {}
        let end = chars.peek().map_or(text.len(), |&(at, _)| at);
        if UNSPACED_CLAUSE_MARKS.contains(&c) || chars.peek().is_none_or(|&(_, next)| next.is_whitespace()) {
            ends.push(end);
        }
    }
    ends.push(text.len());
    let mut phrases: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for end in ends {
        if is_word(&text[start..end]) {
            phrases.push(start..end);
        } else if let Some(last) = phrases.last_mut() {
            last.end = end;
        } else {
            // No word yet: the piece joins the first phrase.
            continue;
        }
        start = end;
    }
    if phrases.is_empty() && !text.trim().is_empty() {
        phrases.push(0..text.len());
    }
    phrases.into_iter().map(|range| text[range].trim()).collect()
}

/// One sentence: byte and character range (from its first to its last
/// non-whitespace character) and its number of words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Byte range in the text.
    pub bytes: Range<usize>,
    /// Character range in the text.
    pub chars: Range<usize>,
    /// Index of the sentence's first token in [`Sentences::tokens`].
    pub first_token: usize,
    /// One past the index of the sentence's last token.
    pub end_token: usize,
    /// Number of words.
    pub words: usize,
}

/// A text split into tokens and sentences.
#[derive(Debug, Clone, Default)]
pub struct Sentences {
    /// All tokens of the text.
    pub tokens: Vec<Token>,
    /// The sentences, in order, covering all tokens.
    pub sentences: Vec<Sentence>,
}

/// Characters that may close a sentence after its final punctuation.
const CLOSERS: &[char] = &['"', '\'', ')', ']', '}', '”', '’', '»', '«', '›', '‹', '“', '*'];
/// Characters that may open a token before its first letter.
const OPENERS: &[char] = &['"', '\'', '(', '[', '{', '“', '‘', '„', '»', '«', '¿', '¡', '*'];

/// Lower-case abbreviations (without their final dot) after which a dot does not
/// end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "vs", "etc", "no", "nr", "fig", "vol", "ca", "cf", "approx",
    "dept", "gen", "col", "lt", "sgt", "capt", "rev", "hon", "mt", "bzw", "usw", "vgl", "ggf", "tzv", "např", "resp",
    "atd", "apod", "str", "hl", "sv", "ing", "mgr",
];

/// Splits `text` into sentences.
///
/// A sentence ends after a token whose last character (before closing quotes or
/// brackets) is `.`, `!`, `?` or `…` when the next token does not start with a
/// lower-case letter and the token is not an abbreviation or initial; at a blank
/// line; once it reaches [`MAX_SENTENCE_CHARS`]; and at the end of the text.
pub fn split_sentences(text: &str) -> Sentences {
    let tokens = tokens(text);
    let mut sentences = Vec::with_capacity(tokens.len() / 15 + 1);
    let mut start = 0;
    let mut words = 0;
    for i in 0..tokens.len() {
        let token = &text[tokens[i].bytes.clone()];
        if is_word(token) {
            words += 1;
        }
        let ends = match tokens.get(i + 1) {
            None => true,
            Some(next) => {
                let gap = &text[tokens[i].bytes.end..next.bytes.start];
                gap.bytes().filter(|&b| b == b'\n').count() >= 2
                    || ends_sentence(token, &text[next.bytes.clone()])
                    || tokens[i].chars.end - tokens[start].chars.start >= MAX_SENTENCE_CHARS
            }
        };
        if ends {
            sentences.push(Sentence {
                bytes: tokens[start].bytes.start..tokens[i].bytes.end,
                chars: tokens[start].chars.start..tokens[i].chars.end,
                first_token: start,
                end_token: i + 1,
                words,
            });
            start = i + 1;
            words = 0;
        }
    }
    Sentences { tokens, sentences }
}

fn ends_sentence(token: &str, next: &str) -> bool {
    let trimmed = token.trim_end_matches(CLOSERS);
    let Some(last) = trimmed.chars().last() else { return false };
    if !matches!(last, '.' | '!' | '?' | '…') {
        return false;
    }
    let next_first = next.trim_start_matches(OPENERS).chars().next();
    if next_first.is_some_and(char::is_lowercase) {
        return false;
    }
    !(last == '.' && is_abbreviation(trimmed))
}

fn is_abbreviation(token: &str) -> bool {
    let core = token.trim_start_matches(OPENERS).trim_end_matches('.');
    if core.is_empty() {
        return false;
    }
    let mut chars = core.chars();
    let single_letter = chars.next().is_some_and(char::is_alphabetic) && chars.next().is_none();
    if single_letter || core.contains('.') {
        return true;
    }
    let lower = core.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence_texts(text: &str) -> Vec<&str> {
        split_sentences(text).sentences.iter().map(|s| &text[s.bytes.clone()]).collect()
    }

    #[test]
    fn splits_at_sentence_punctuation_but_not_after_abbreviations() {
        let text = "Dr. Novák came at 5 p.m. to the lab. He said: \"It works!\" Then he left.\n\nNew paragraph without a dot\nNext line continues. e.g. lower case stays.";
        assert_eq!(
            sentence_texts(text),
            vec![
                "Dr. Novák came at 5 p.m. to the lab.",
                "He said: \"It works!\"",
                "Then he left.",
                "New paragraph without a dot\nNext line continues. e.g. lower case stays.",
            ]
        );
    }

    #[test]
    fn character_offsets_differ_from_byte_offsets_on_multibyte_text() {
        let text = "Žluťoučký kůň úpěl. Ďábelské ódy zněly.";
        let split = split_sentences(text);
        assert_eq!(split.sentences.len(), 2);
        let second = &split.sentences[1];
        assert_eq!(&text[second.bytes.clone()], "Ďábelské ódy zněly.");
        assert_eq!(second.chars, 20..39);
        assert_ne!(second.bytes.start, second.chars.start);
        let chars: String = text.chars().skip(second.chars.start).take(second.chars.len()).collect();
        assert_eq!(chars, "Ďábelské ódy zněly.");
        assert_eq!(second.words, 3);
    }

    #[test]
    fn long_runs_are_cut() {
        let text = "word ".repeat(400);
        let split = split_sentences(&text);
        assert!(split.sentences.len() >= 2);
        assert!(split.sentences.iter().all(|s| s.chars.len() <= MAX_SENTENCE_CHARS + MAX_TOKEN_CHARS));
        let blob = "x".repeat(450);
        assert_eq!(tokens(&blob).len(), 3);
    }

    #[test]
    fn tokens_count_characters_and_split_on_unicode_whitespace() {
        let text = " naïve\u{a0}café\u{2003}x\t\u{17d}luť ";
        let found: Vec<(&str, std::ops::Range<usize>)> =
            tokens(text).into_iter().map(|t| (&text[t.bytes], t.chars)).collect();
        assert_eq!(found, vec![("naïve", 1..6), ("café", 7..11), ("x", 12..13), ("Žluť", 14..18)]);
    }

    #[test]
    fn words_and_marks_cut_punctuation_off_words_in_any_script() {
        assert_eq!(
            words_and_marks("He trimmed the wick, (polished) «it»; don't 3.5 e.g."),
            [
                "He", "trimmed", "the", "wick", ",", "(", "polished", ")", "«", "it", "»", ";", "don't", "3.5", "e.g",
                "."
            ]
        );
        // Arabic: the comma and question mark go, the harakat stay on their letters.
        assert_eq!(words_and_marks("الكتابُ، مفيدٌ؟"), ["الكتابُ", "،", "مفيدٌ", "؟"]);
        assert_eq!(words_and_marks("Это, да."), ["Это", ",", "да", "."]);
        assert_eq!(words_and_marks("我们去公园。"), ["我", "们", "去", "公", "园", "。"]);
        assert!(words_and_marks(" \n ").is_empty());
    }

    #[test]
    fn phrases_end_at_clause_marks_followed_by_space_or_cjk_marks() {
        assert_eq!(
            phrases("He came at 12:30, with 3.5 kg; then he left! \"Why?\" Nobody knew"),
            ["He came at 12:30,", "with 3.5 kg;", "then he left!", "\"Why?\"", "Nobody knew"]
        );
        assert_eq!(
            phrases("قال المعلم: الكتاب مفيد، والقلم أيضا؟ نعم."),
            ["قال المعلم:", "الكتاب مفيد،", "والقلم أيضا؟", "نعم."]
        );
        assert_eq!(phrases("我们去公园，然后回家。好吗？"), ["我们去公园，", "然后回家。", "好吗？"]);
        // A piece without a word joins the phrase before it, or the first one.
        assert_eq!(phrases("... Wait. . . and see."), ["... Wait. . .", "and see."]);
        assert_eq!(phrases("no marks at all"), ["no marks at all"]);
        assert_eq!(phrases(" ... "), ["..."]);
        assert!(phrases("  ").is_empty());
    }

    #[test]
    fn cleaning_removes_cr_bom_and_controls() {
        assert_eq!(clean("\u{feff}a\r\nb\rc\u{0}d\te"), "a\nb\ncd\te");
        assert_eq!(clean("plain"), "plain");
    }

    #[test]
    fn blocks_are_cut_at_newlines_and_bad_utf8_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        let line = "ab\u{e9}cd\n".repeat(BLOCK_BYTES / 5);
        std::fs::write(&path, &line).unwrap();
        let mut blocks = TextBlocks::open(&path).unwrap();
        let mut total = String::new();
        while let Some(block) = blocks.next_block().unwrap() {
            assert!(block.ends_with('\n'));
            total.push_str(&block);
        }
        assert_eq!(total, line);

        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, b"abc\xffdef").unwrap();
        let error = TextBlocks::open(&bad).unwrap().next_block().unwrap_err();
        assert_eq!(error.to_string(), format!("{}: not valid UTF-8 at byte 3", bad.display()));
    }

    #[test]
    fn lists_txt_files_recursively_in_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for name in ["b.txt", "a.txt", "sub/c.TXT", "notes.xml", ".hidden.txt"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let names: Vec<String> = list_texts(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["a.txt", "b.txt", "sub/c.TXT"]);
        let empty = tempfile::tempdir().unwrap();
        assert!(matches!(list_texts(empty.path()), Err(CorpusError::NoTexts { .. })));
        assert!(matches!(list_texts(&dir.path().join("missing")), Err(CorpusError::Io { .. })));
    }
}
