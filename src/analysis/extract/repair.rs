//! Repairs of what text extraction breaks.
//!
//! - [`clean`]: soft hyphens and zero-width characters removed, typographic
//!   ligatures (ﬁ, ﬂ, …) unfolded; for every extracted format.
//! - [`drop_running_lines`]: running headers, footers and page numbers, lines
//!   repeated at the same edge of most pages, dropped; for PDF.
//! - [`Dehyphenator`]: words hyphenated at line ends joined again, as
//!   Celozzi and Ciabini's PDF-to-text cleaning does; for PDF. A hyphen is kept
//!   when the document spells the word with one elsewhere and never without
//!   (`well-known`), or when the word goes on with a capital or a digit
//!   (`Anglo-Saxon`, `pre-1990`).

use std::collections::{HashMap, HashSet};

/// Characters no reader sees: the soft hyphen, zero-width space, non-joiner
/// and joiner, word joiner, and the byte-order mark inside a text.
const INVISIBLE: [char; 6] = ['\u{AD}', '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'];

/// `text` without invisible characters and with ligatures unfolded.
pub fn clean(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        match unfold_ligature(c) {
            Some(letters) => cleaned.push_str(letters),
            None if INVISIBLE.contains(&c) => {}
            None => cleaned.push(c),
        }
    }
    cleaned
}

/// The letters of a Latin typographic ligature (the Alphabetic Presentation
/// Forms U+FB00..U+FB06); `None` for any other character.
fn unfold_ligature(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{FB00}' => "ff",
        '\u{FB01}' => "fi",
        '\u{FB02}' => "fl",
        '\u{FB03}' => "ffi",
        '\u{FB04}' => "ffl",
        '\u{FB05}' | '\u{FB06}' => "st",
        _ => return None,
    })
}

/// Lines looked at, from the top and from the bottom of each page, for
/// running headers and footers.
const EDGE_LINES: usize = 2;
/// A line repeated at the same edge of at least this share of the pages…
const RUNNING_SHARE: f64 = 0.4;
/// …and of at least this many pages is a running header or footer. Books
/// alternate two headers, each on half of the pages.
const MIN_RUNNING_PAGES: usize = 3;

/// Drops running headers, footers and page numbers from `pages` (each a list
/// of lines, `text` giving a line's text): lines within two lines of the
/// top or bottom of a page that repeat at the same edge of at least 40 % of
/// the pages (and of 3), compared with digits and Roman numerals as one
/// placeholder (`Page 3 of 9` repeats `Page 7 of 9`). Returns how many lines
/// were dropped.
pub fn drop_running_lines<L>(pages: &mut [Vec<L>], text: impl Fn(&L) -> &str) -> usize {
    let min_pages = MIN_RUNNING_PAGES.max((RUNNING_SHARE * pages.len() as f64).ceil() as usize);
    let key = |line: &L| running_key(text(line));
    let top = repeated_keys(pages.iter().map(|page| page.iter().take(EDGE_LINES).map(key)), min_pages);
    let bottom = repeated_keys(pages.iter().map(|page| page.iter().rev().take(EDGE_LINES).map(key)), min_pages);
    let mut dropped = 0;
    for page in pages.iter_mut() {
        let from_top = page.iter().take(EDGE_LINES).take_while(|line| top.contains(&key(line))).count();
        page.drain(..from_top);
        let from_bottom = page.iter().rev().take(EDGE_LINES).take_while(|line| bottom.contains(&key(line))).count();
        page.truncate(page.len() - from_bottom);
        dropped += from_top + from_bottom;
    }
    dropped
}

/// The keys found on at least `min_pages` of the pages (each page counted
/// once per key); blank lines have no key.
fn repeated_keys(pages: impl Iterator<Item = impl Iterator<Item = String>>, min_pages: usize) -> HashSet<String> {
    let mut pages_of: HashMap<String, usize> = HashMap::new();
    for keys in pages {
        let distinct: HashSet<String> = keys.filter(|key| !key.is_empty()).collect();
        for key in distinct {
            *pages_of.entry(key).or_default() += 1;
        }
    }
    pages_of.into_iter().filter(|&(_, pages)| pages >= min_pages).map(|(key, _)| key).collect()
}

/// A line as running lines are compared: lower case, white space collapsed,
/// each number (a run of digits, or a word of Roman numerals) as `#`.
fn running_key(line: &str) -> String {
    let words: Vec<String> = line
        .split_whitespace()
        .map(|word| {
            if is_roman_numeral(word) {
                return "#".to_string();
            }
            let mut key = String::new();
            for c in word.chars().flat_map(char::to_lowercase) {
                if !(c.is_ascii_digit() && key.ends_with('#')) {
                    key.push(if c.is_ascii_digit() { '#' } else { c });
                }
            }
            key
        })
        .collect();
    words.join(" ")
}

fn is_roman_numeral(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    !lower.is_empty() && lower.chars().all(|c| "ivxlcdm".contains(c))
}

/// How two consecutive lines of a paragraph are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// With a space between them.
    Space,
    /// Directly: the first ends with a hyphen or dash that stays.
    Direct,
    /// Directly, without the hyphen that ends the first: a word hyphenated
    /// at the line end, joined again.
    DropHyphen,
}

/// Decides how lines are joined, from the words of the whole document.
#[derive(Debug, Default)]
pub struct Dehyphenator {
    /// Every word of the document, lower case, trimmed of punctuation.
    words: HashSet<String>,
}

impl Dehyphenator {
    /// Learns the words of a document's `lines`.
    pub fn new<'a>(lines: impl Iterator<Item = &'a str>) -> Self {
        let words = lines.flat_map(str::split_whitespace).map(word_key).filter(|w| !w.is_empty()).collect();
        Dehyphenator { words }
    }

    /// How the line ending with `end` is joined to the next, starting with `next`.
    pub fn join(&self, end: &str, next: &str) -> Join {
        let mut last = end.chars().rev();
        let (Some(hyphen), Some(before)) = (last.next(), last.next()) else { return Join::Space };
        let Some(first) = next.chars().next() else { return Join::Space };
        match hyphen {
            '\u{AD}' => Join::DropHyphen,
            '-' | '\u{2010}' if before.is_alphabetic() && first.is_alphanumeric() => {
                let left = end.rsplit(char::is_whitespace).next().unwrap_or(end);
                let right = next.split(char::is_whitespace).next().unwrap_or(next);
                if first.is_lowercase() && !self.keeps_hyphen(left, right) { Join::DropHyphen } else { Join::Direct }
            }
            '\u{2013}' | '\u{2014}' if !before.is_whitespace() => Join::Direct,
            _ => Join::Space,
        }
    }

    /// Whether the document writes `left` (ending with its hyphen) and
    /// `right` as one hyphenated word and never as one word.
    fn keeps_hyphen(&self, left: &str, right: &str) -> bool {
        let stem = &left[..left.len() - left.chars().last().map_or(0, char::len_utf8)];
        let hyphenated = word_key(&format!("{stem}-{right}"));
        let joined = word_key(&format!("{stem}{right}"));
        self.words.contains(&hyphenated) && !self.words.contains(&joined)
    }
}

/// A word as the dehyphenator compares words: lower case, without the
/// punctuation around it.
fn word_key(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_go_and_ligatures_unfold() {
        assert_eq!(clean("of\u{FB01}ce \u{FB00}\u{FB02}y co\u{AD}operate\u{200B}s"), "office fffly cooperates");
        assert_eq!(clean("zero\u{200D}width\u{FEFF}"), "zerowidth");
        assert_eq!(clean("Straße — naïve"), "Straße — naïve");
    }

    fn page(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|line| line.to_string()).collect()
    }

    #[test]
    fn headers_footers_and_page_numbers_repeated_on_most_pages_are_dropped() {
        let mut pages = vec![
            page(&["A Study of Mills", "First page text.", "More text.", "1"]),
            page(&["A Study of Mills", "Second page text.", "Page 2 of 4"]),
            page(&["A Study of Mills", "Third page text.", "3"]),
            page(&["Fourth page text.", "iv"]),
        ];
        let dropped = drop_running_lines(&mut pages, |line| line.as_str());
        assert_eq!(dropped, 6);
        assert_eq!(
            pages,
            [
                page(&["First page text.", "More text."]),
                page(&["Second page text.", "Page 2 of 4"]),
                page(&["Third page text."]),
                page(&["Fourth page text."]),
            ]
        );
    }

    #[test]
    fn a_document_of_two_pages_keeps_every_line() {
        let mut pages = vec![page(&["Title", "text", "1"]), page(&["Title", "more", "2"])];
        assert_eq!(drop_running_lines(&mut pages, |line| line.as_str()), 0);
    }

    #[test]
    fn only_lines_at_the_edges_are_dropped() {
        let repeated = "The same sentence.";
        let words = ["alpha", "beta", "gamma", "delta"];
        let mut pages: Vec<Vec<String>> =
            words.iter().enumerate().map(|(i, word)| page(&["head", word, repeated, word, &format!("{i}")])).collect();
        drop_running_lines(&mut pages, |line| line.as_str());
        for (page, word) in pages.iter().zip(words) {
            assert_eq!(page, &[word, repeated, word]);
        }
    }

    #[test]
    fn hyphenated_words_are_joined_unless_the_document_writes_them_with_a_hyphen() {
        let text = ["a well-known fact, well", "known and be-", "comes"];
        let dehyphenator = Dehyphenator::new(text.into_iter());
        assert_eq!(dehyphenator.join("and be-", "comes clear"), Join::DropHyphen);
        assert_eq!(dehyphenator.join("a well-", "known fact"), Join::Direct);
        assert_eq!(dehyphenator.join("the Anglo-", "Saxon"), Join::Direct);
        assert_eq!(dehyphenator.join("pre-", "1990"), Join::Direct);
        assert_eq!(dehyphenator.join("co\u{AD}", "operate"), Join::DropHyphen);
        assert_eq!(dehyphenator.join("it ends -", "so"), Join::Space);
        assert_eq!(dehyphenator.join("a dash\u{2014}", "here"), Join::Direct);
        assert_eq!(dehyphenator.join("a word", "next"), Join::Space);
        assert_eq!(dehyphenator.join("x", "next"), Join::Space);
    }
}
