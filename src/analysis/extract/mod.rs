//! Text from documents that are not plain text: PDF, DOCX, ODT and HTML.
//!
//! The format is told by content: `%PDF-` opens a PDF and `PK\x03\x04` a ZIP
//! container, which is a DOCX when it holds `word/document.xml` and an ODT
//! when its `mimetype` names an OpenDocument text ([`Container::of`]); HTML is
//! told by its markup ([`looks_like_html`]) or by its name. Each format has its
//! module, and [`repair`] mends what extraction breaks (words hyphenated at line
//! ends, ligatures, running headers and page numbers, soft hyphens and
//! zero-width characters). The character offsets of every report count the
//! characters of the text returned here, which `pan-detect text` writes out,
//! and [`cache`] keeps it by the file's content hash.
//!
//! Decompression is bounded ([`ExpansionBudget`]), so that a zip bomb, or a PDF
//! whose streams inflate a thousandfold, is refused instead of filling memory.

pub mod cache;
mod docx;
mod html;
pub mod layout;
mod odt;
mod pdf;
pub mod repair;
mod xml;
mod zip;

pub use html::html_text;
use layout::{Layout, Place};
/// A ZIP archive of `(name, content)` entries, for the tests of other modules.
#[cfg(test)]
pub(crate) use zip::tests::archive as test_zip;

/// A document format held in a binary container, told by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// A PDF (`%PDF-`).
    Pdf,
    /// A ZIP archive (`PK\x03\x04`): a DOCX or an ODT, told apart by its entries.
    Zip,
}

impl Container {
    /// The container of `bytes`, if they open with a PDF or ZIP signature.
    pub fn of(bytes: &[u8]) -> Option<Container> {
        if bytes.starts_with(b"%PDF-") {
            Some(Container::Pdf)
        } else if bytes.starts_with(b"PK\x03\x04") {
            Some(Container::Zip)
        } else {
            None
        }
    }
}

/// Text extracted from a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The text, repaired: the text whose characters reports count.
    pub text: String,
    /// Something about the text worth a warning (a PDF with no text layer).
    pub note: Option<String>,
    /// Where the text's lines or paragraphs were in the document (PDF and
    /// DOCX; empty for ODT). Not kept by the [`cache`]: only HTML reports
    /// show it, and they extract the documents they show again.
    pub layout: Layout,
}

/// Why no text could be extracted from a document. The message says why, not
/// which file: the caller's warning names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExtractError(pub String);

/// Extracts the text of a document held in `container`.
pub fn extract(container: Container, bytes: &[u8]) -> Result<Extracted, ExtractError> {
    let mut budget = ExpansionBudget::for_file(bytes.len());
    match container {
        Container::Pdf => pdf::extract(bytes, &mut budget),
        Container::Zip => zip::extract(bytes, &mut budget),
    }
}

/// Whether `bytes` open like an HTML page: after a byte-order mark and white
/// space, `<!DOCTYPE html`, `<html`, `<head`, `<body` or a comment (in any
/// case), or an XML declaration followed by `<html` within the first KiB.
pub fn looks_like_html(bytes: &[u8]) -> bool {
    let start = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = &start[start.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    let head = String::from_utf8_lossy(&start[..start.len().min(1024)]).to_ascii_lowercase();
    const OPENINGS: [&str; 5] = ["<!doctype html", "<html", "<head", "<body", "<!--"];
    OPENINGS.iter().any(|opening| head.starts_with(opening)) || (head.starts_with("<?xml") && head.contains("<html"))
}

/// Bytes a document may expand to when decompressed, per byte of the file.
/// Office XML compresses about 10:1 and PDF content streams about 4:1; a zip
/// bomb reaches 1000:1.
pub const EXPANSION_RATIO: u64 = 100;
/// A small file may always expand to this many bytes, whatever its ratio.
pub const MIN_EXPANSION_BYTES: u64 = 16 << 20;
/// No file may expand to more than this many bytes (a few hundred thousand
/// pages of text).
pub const MAX_EXPANSION_BYTES: u64 = 256 << 20;

/// What one document may still decompress: [`EXPANSION_RATIO`] times the size
/// of its file, at least [`MIN_EXPANSION_BYTES`] and at most
/// [`MAX_EXPANSION_BYTES`], for all its parts together.
#[derive(Debug, Clone)]
pub struct ExpansionBudget {
    file_bytes: u64,
    limit: u64,
    used: u64,
}

impl ExpansionBudget {
    /// The budget of a file of `bytes` bytes.
    pub fn for_file(bytes: usize) -> Self {
        let file_bytes = bytes as u64;
        let limit = file_bytes.saturating_mul(EXPANSION_RATIO).clamp(MIN_EXPANSION_BYTES, MAX_EXPANSION_BYTES);
        ExpansionBudget { file_bytes, limit, used: 0 }
    }

    /// Bytes that may still be decompressed.
    pub fn remaining(&self) -> u64 {
        self.limit - self.used
    }

    /// Spends `bytes` on `part`; refuses when that goes beyond the budget.
    pub fn spend(&mut self, bytes: u64, part: &str) -> Result<(), ExtractError> {
        if bytes > self.remaining() {
            return Err(self.refusal(part));
        }
        self.used += bytes;
        Ok(())
    }

    /// The error of `part` expanding beyond the budget.
    pub fn refusal(&self, part: &str) -> ExtractError {
        ExtractError(format!(
            "{part} expands beyond {} MiB, more than a file of {} KiB may (a zip bomb?)",
            self.limit >> 20,
            self.file_bytes.div_ceil(1024)
        ))
    }

    /// A budget of `limit` bytes, for tests of small inputs.
    #[cfg(test)]
    pub(crate) fn with_limit(limit: u64) -> Self {
        ExpansionBudget { file_bytes: 1, limit, used: 0 }
    }
}

/// Text written paragraph by paragraph, as the office and HTML extractors
/// produce it: one line break ends a paragraph (empty paragraphs leave none),
/// and collapsed text turns each run of white space into one space, none at
/// the start or end of a line.
#[derive(Debug, Default)]
struct TextWriter {
    text: String,
    pending_break: bool,
    pending_space: bool,
    /// Where places start: byte offsets in `text`, ascending.
    starts: Vec<(usize, Place)>,
    /// The place of the next character written.
    pending_place: Option<Place>,
}

impl TextWriter {
    /// Appends `text` as it is.
    fn literal(&mut self, text: &str) {
        for c in text.chars() {
            self.flush_pending(c);
            self.text.push(c);
        }
    }

    /// Appends `text` with each run of white space as one space.
    fn collapsed(&mut self, text: &str) {
        for c in text.chars() {
            if c.is_whitespace() {
                self.pending_space = !self.at_line_start();
            } else {
                self.flush_pending(c);
                self.text.push(c);
            }
        }
    }

    /// Ends the current paragraph: the next text starts on a new line.
    fn end_paragraph(&mut self) {
        self.pending_break = !self.at_line_start();
        self.pending_space = false;
    }

    fn at_line_start(&self) -> bool {
        self.text.is_empty() || self.text.ends_with('\n')
    }

    /// Notes that the next character written is at `place` (the last place
    /// noted before it wins).
    fn mark(&mut self, place: Place) {
        self.pending_place = Some(place);
    }

    /// Writes the pending paragraph break or space before `next`, and notes
    /// where the pending place starts.
    fn flush_pending(&mut self, next: char) {
        if self.pending_break {
            self.text.push('\n');
        } else if self.pending_space && next != '\n' {
            self.text.push(' ');
        }
        self.pending_break = false;
        self.pending_space = false;
        if let Some(place) = self.pending_place.take() {
            self.starts.push((self.text.len(), place));
        }
    }

    /// The text, with [`repair::clean`] applied.
    fn finish(self) -> String {
        self.finish_with_layout().0
    }

    /// The text, with [`repair::clean`] applied, and the places noted.
    fn finish_with_layout(self) -> (String, Layout) {
        Layout::clean(&self.text, &self.starts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_are_told_by_their_signatures() {
        assert_eq!(Container::of(b"%PDF-1.7\n..."), Some(Container::Pdf));
        assert_eq!(Container::of(b"PK\x03\x04rest"), Some(Container::Zip));
        assert_eq!(Container::of(b"PK\x05\x06"), None, "an empty ZIP archive holds no document");
        assert_eq!(Container::of(b"plain text about %PDF-"), None);
    }

    #[test]
    fn html_is_told_by_its_opening_markup() {
        assert!(looks_like_html(b"\xEF\xBB\xBF\n  <!DOCTYPE HTML PUBLIC>"));
        assert!(looks_like_html(b"<html lang=en>"));
        assert!(looks_like_html(b"<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">"));
        assert!(!looks_like_html(b"<?xml version=\"1.0\"?><document/>"));
        assert!(!looks_like_html(b"An essay on <html> tags."));
    }

    #[test]
    fn the_budget_scales_with_the_file_between_its_bounds() {
        assert_eq!(ExpansionBudget::for_file(1000).remaining(), MIN_EXPANSION_BYTES);
        assert_eq!(ExpansionBudget::for_file(1 << 20).remaining(), 100 << 20);
        assert_eq!(ExpansionBudget::for_file(1 << 30).remaining(), MAX_EXPANSION_BYTES);
        let mut budget = ExpansionBudget::for_file(32 << 10);
        budget.spend(MIN_EXPANSION_BYTES - 1, "a.xml").unwrap();
        let error = budget.spend(2, "b.xml").unwrap_err();
        assert_eq!(error.to_string(), "b.xml expands beyond 16 MiB, more than a file of 32 KiB may (a zip bomb?)");
    }

    #[test]
    fn the_writer_breaks_paragraphs_and_collapses_white_space() {
        let mut writer = TextWriter::default();
        writer.collapsed("  One \n  paragraph ");
        writer.end_paragraph();
        writer.end_paragraph();
        writer.literal("Two  spaces\tkept");
        writer.end_paragraph();
        writer.collapsed(" ﬁne ");
        assert_eq!(writer.finish(), "One paragraph\nTwo  spaces\tkept\nfine");
    }
}
