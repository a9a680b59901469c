//! Where an extracted text's characters were in their document, for people
//! who read the document rather than its text: the page and printed line of a
//! PDF, the page and paragraph of a DOCX whose pages Word recorded, or the
//! paragraph of one whose pages it did not.

use std::fmt;

use super::repair;

/// What a [`Place`] counts within its page (or within the document).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Printed lines (PDF), running headers and footers left out.
    Line,
    /// Paragraphs (DOCX).
    Paragraph,
}

/// Where a character was: its page when known, and its line or paragraph on
/// that page (in the whole document when the page is not known), from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The page, from 1; `None` when the document does not record pages.
    pub page: Option<u32>,
    /// What `number` counts.
    pub unit: Unit,
    /// The line or paragraph, from 1.
    pub number: u32,
}

impl fmt::Display for Place {
    /// `page 3, line 12`, `page 2, paragraph 4`, or `paragraph 7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.unit {
            Unit::Line => "line",
            Unit::Paragraph => "paragraph",
        };
        match self.page {
            Some(page) => write!(f, "page {page}, {unit} {}", self.number),
            None => write!(f, "{unit} {}", self.number),
        }
    }
}

/// The places of an extracted text: where each line or paragraph starts, in
/// characters of the text. Empty for a plain text, an HTML page and an ODT.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// (first character, place), by first character.
    starts: Vec<(u32, Place)>,
}

impl Layout {
    /// The place of the character at `offset`: that of the last line or
    /// paragraph starting at or before it; `None` before the first one.
    pub fn place_of(&self, offset: u32) -> Option<Place> {
        let after = self.starts.partition_point(|&(start, _)| start <= offset);
        after.checked_sub(1).map(|i| self.starts[i].1)
    }

    /// Whether the layout knows no place.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// `raw` cleaned ([`repair::clean`]) with the places that start at the
    /// given byte offsets of `raw` (ascending) moved to character offsets of
    /// the cleaned text. Cleaning works character by character, so each piece
    /// between two starts is cleaned on its own.
    pub(super) fn clean(raw: &str, starts: &[(usize, Place)]) -> (String, Layout) {
        let mut text = String::with_capacity(raw.len());
        let mut chars = 0u32;
        let mut layout = Layout::default();
        let mut from = 0;
        for &(byte, place) in starts {
            let piece = repair::clean(&raw[from..byte]);
            chars += piece.chars().count() as u32;
            text.push_str(&piece);
            from = byte;
            layout.starts.push((chars, place));
        }
        text.push_str(&repair::clean(&raw[from..]));
        (text, layout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_move_with_what_cleaning_removes_and_unfolds() {
        let line = |page, number| Place { page: Some(page), unit: Unit::Line, number };
        let raw = "e\u{FB03}cient\u{AD} one\nsecond";
        let second = raw.find("second").unwrap();
        let (text, layout) = Layout::clean(raw, &[(0, line(1, 1)), (second, line(2, 1))]);
        assert_eq!(text, "efficient one\nsecond");
        assert_eq!(layout.place_of(0), Some(line(1, 1)));
        assert_eq!(layout.place_of(13), Some(line(1, 1)));
        assert_eq!(layout.place_of(14), Some(line(2, 1)), "the s of second");
        assert_eq!(layout.place_of(14).unwrap().to_string(), "page 2, line 1");
        assert_eq!(Layout::default().place_of(3), None);
    }
}
