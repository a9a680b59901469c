//! The report model that `detect` and `check` share: per document, what it
//! was compared with, how much of each side the passages cover, and the
//! passages. The JSON reports ([`super::json`]) are this model serialised, and
//! the HTML reports ([`super::html`]) render it with the texts; the schema is
//! documented in `docs/report-json.md`.
//!
//! Every offset and length counts characters (Unicode scalar values) of the
//! text a document was read as ([`crate::analysis::read::TextReader`]), as the
//! PAN XML reports do. Fields only `check` knows (chunk counts, computed from
//! the archive's index) are `None` for `detect` and left out of the JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::extract::layout::Layout;
use crate::analysis::span::{CharRange, char_slice, union_len};

/// Characters of text shown for each side of a passage in its excerpt.
pub const EXCERPT_CHARS: usize = 60;

/// The report of one compared document: `detect`'s suspicious document, or
/// a file `check` compared with an archive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentReport {
    /// The document's file name, as its PAN XML report's `reference` names it.
    pub name: String,
    /// The file the text was read from, as given (`check`) or as found in
    /// the suspicious directory (`detect`).
    pub path: String,
    /// Characters of the document's text.
    pub chars: u64,
    /// Characters of the document in any passage (overlaps counted once).
    pub aligned_chars: u64,
    /// `aligned_chars` in percent of `chars`: how much of the document is
    /// in passages of any source.
    pub aligned_percent: f64,
    /// `check`: chunks of the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<u64>,
    /// `check`: distinct chunk hashes of the document, taboo chunks left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct_chunks: Option<u64>,
    /// `check`: characters of the document covered by the index's taboo
    /// texts, left out of the comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taboo_chars: Option<u64>,
    /// The sources, most similar first ([`SourceReport::document_aligned_chars`],
    /// then shared chunks, then name).
    pub sources: Vec<SourceReport>,
}

/// One source the document was compared with: a source document of
/// `detect`, an archive document of `check`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceReport {
    /// The source's file name (`detect`) or its path in the archive (`check`).
    pub name: String,
    /// Characters of the source's text (0 for an archive indexed before
    /// format version 3, which did not record them).
    pub chars: u64,
    /// Characters of the document in passages with this source.
    pub document_aligned_chars: u64,
    /// `document_aligned_chars` in percent of the document's characters:
    /// how much of the document is taken from this source.
    pub document_aligned_percent: f64,
    /// Characters of the source in passages with the document.
    pub source_aligned_chars: u64,
    /// `source_aligned_chars` in percent of the source's characters: how much
    /// of the source went into the document.
    pub source_aligned_percent: f64,
    /// `check`: distinct chunk hashes the two share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_chunks: Option<u64>,
    /// `check`: share of the document's distinct chunks found in the source,
    /// in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_in_source_percent: Option<f64>,
    /// `check`: share of the source's distinct chunks found in the document,
    /// in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_in_document_percent: Option<f64>,
    /// The passages, by position in the document.
    pub passages: Vec<PassageReport>,
}

/// A passage of the document and the passage of the source it was taken from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassageReport {
    /// Where it is in the document.
    pub document: PassageSpan,
    /// Where it is in the source.
    pub source: PassageSpan,
    /// `check`: chunk matches inside the passage on both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matching_chunks: Option<u64>,
}

/// One side of a passage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassageSpan {
    /// First character.
    pub offset: u32,
    /// Length in characters.
    pub length: u32,
    /// The first [`EXCERPT_CHARS`] characters, whitespace collapsed; `None`
    /// when the text is not at hand (an archive document changed or deleted
    /// since it was indexed).
    pub excerpt: Option<String>,
}

impl PassageSpan {
    /// The characters the span covers.
    pub fn range(&self) -> CharRange {
        CharRange::new(self.offset, self.offset.saturating_add(self.length))
    }
}

/// The texts a report is about: the document's, and each source's that could
/// be read, by name. HTML reports show them; the model cuts excerpts from them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentTexts {
    /// The document's text.
    pub document: String,
    /// The sources' texts, by source name.
    pub sources: BTreeMap<String, String>,
    /// Where the document's characters were in it (pages and lines of a PDF,
    /// paragraphs of a DOCX), when an HTML report shows them; empty otherwise.
    pub document_layout: Layout,
    /// The same of the sources, by source name (a source without one is left out).
    pub source_layouts: BTreeMap<String, Layout>,
}

/// What `check` knows of a document beyond its passages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentChunks {
    /// Chunks of the document.
    pub chunks: u64,
    /// Distinct chunk hashes, taboo chunks left out.
    pub distinct_chunks: u64,
    /// Characters covered by taboo texts.
    pub taboo_chars: u64,
}

/// What `check` knows of a source from the chunks the two share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharedChunks {
    /// Distinct chunk hashes in both.
    pub common: u64,
    /// Share of the document's distinct chunks found in the source, in percent.
    pub document_in_source_percent: f64,
    /// Share of the source's distinct chunks found in the document, in percent.
    pub source_in_document_percent: f64,
}

/// A passage as a command found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoundPassage {
    /// Characters of the document.
    pub document: CharRange,
    /// Characters of the source.
    pub source: CharRange,
    /// `check`: chunk matches inside it.
    pub matching_chunks: Option<u64>,
}

/// A source as a command compared it with the document.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparedSource {
    /// The source's name.
    pub name: String,
    /// Characters of its text.
    pub chars: u64,
    /// `check`: the chunks it shares with the document.
    pub shared: Option<SharedChunks>,
    /// Its passages with the document, in any order.
    pub passages: Vec<FoundPassage>,
}

impl DocumentReport {
    /// The report of the document `name` (read from `path`) whose text and
    /// sources' texts are `texts`, from what a command found: the similarities
    /// are computed here, once for both commands, and the sources and
    /// passages put in the report's order.
    pub fn new(
        name: &str,
        path: &str,
        texts: &DocumentTexts,
        chunks: Option<DocumentChunks>,
        sources: Vec<ComparedSource>,
    ) -> Self {
        let chars = texts.document.chars().count() as u64;
        let mut all: Vec<CharRange> = sources.iter().flat_map(|s| s.passages.iter().map(|p| p.document)).collect();
        let aligned_chars = union_len(&mut all);
        let mut sources: Vec<SourceReport> =
            sources.into_iter().map(|source| SourceReport::new(source, chars, texts)).collect();
        sources.sort_by(|a, b| {
            let shared = |s: &SourceReport| s.common_chunks.unwrap_or(0);
            (b.document_aligned_chars, shared(b)).cmp(&(a.document_aligned_chars, shared(a))).then(a.name.cmp(&b.name))
        });
        DocumentReport {
            name: name.to_string(),
            path: path.to_string(),
            chars,
            aligned_chars,
            aligned_percent: percent(aligned_chars, chars),
            chunks: chunks.map(|c| c.chunks),
            distinct_chunks: chunks.map(|c| c.distinct_chunks),
            taboo_chars: chunks.map(|c| c.taboo_chars),
            sources,
        }
    }

    /// Every passage with its source, by position in the document (then by
    /// source name and position): the order HTML reports number them in.
    pub fn passages_in_order(&self) -> Vec<(&SourceReport, &PassageReport)> {
        let mut all: Vec<(&SourceReport, &PassageReport)> =
            self.sources.iter().flat_map(|s| s.passages.iter().map(move |p| (s, p))).collect();
        all.sort_by_key(|(source, p)| (p.document.range(), source.name.as_str(), p.source.range()));
        all
    }

    /// The number of passages, with every source.
    pub fn passage_count(&self) -> usize {
        self.sources.iter().map(|s| s.passages.len()).sum()
    }
}

impl SourceReport {
    /// The report of `source`, compared with a document of `document_chars`
    /// characters whose texts are `texts`.
    fn new(source: ComparedSource, document_chars: u64, texts: &DocumentTexts) -> Self {
        let mut document_side: Vec<CharRange> = source.passages.iter().map(|p| p.document).collect();
        let mut source_side: Vec<CharRange> = source.passages.iter().map(|p| p.source).collect();
        let (document_aligned_chars, source_aligned_chars) =
            (union_len(&mut document_side), union_len(&mut source_side));
        let source_text = texts.sources.get(&source.name).map(String::as_str);
        let mut passages: Vec<PassageReport> = source
            .passages
            .iter()
            .map(|p| PassageReport {
                document: span(Some(&texts.document), p.document),
                source: span(source_text, p.source),
                matching_chunks: p.matching_chunks,
            })
            .collect();
        passages.sort_by_key(|p| (p.document.range(), p.source.range()));
        SourceReport {
            name: source.name,
            chars: source.chars,
            document_aligned_chars,
            document_aligned_percent: percent(document_aligned_chars, document_chars),
            source_aligned_chars,
            source_aligned_percent: percent(source_aligned_chars, source.chars),
            common_chunks: source.shared.map(|s| s.common),
            document_in_source_percent: source.shared.map(|s| s.document_in_source_percent),
            source_in_document_percent: source.shared.map(|s| s.source_in_document_percent),
            passages,
        }
    }
}

/// The span of `range`, with its excerpt when the text is at hand.
fn span(text: Option<&str>, range: CharRange) -> PassageSpan {
    PassageSpan { offset: range.start, length: range.len(), excerpt: text.and_then(|t| excerpt(t, range)) }
}

/// `100 × part / whole`, rounded to two decimals (0 for an empty whole).
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { (10_000.0 * part as f64 / whole as f64).round() / 100.0 }
}

/// The first [`EXCERPT_CHARS`] characters of `range` in `text`, runs of
/// whitespace collapsed to one space, with `…` when cut; `None` when the range
/// runs past the text.
pub fn excerpt(text: &str, range: CharRange) -> Option<String> {
    let passage = char_slice(text, range)?;
    let mut out = String::new();
    let mut chars = 0;
    for word in passage.split_whitespace() {
        let separator = if out.is_empty() { None } else { Some(' ') };
        for c in separator.into_iter().chain(word.chars()) {
            if chars == EXCERPT_CHARS {
                out.push('…');
                return Some(out);
            }
            out.push(c);
            chars += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(document: (u32, u32), source: (u32, u32)) -> FoundPassage {
        FoundPassage {
            document: CharRange::new(document.0, document.1),
            source: CharRange::new(source.0, source.1),
            matching_chunks: None,
        }
    }

    fn compared(name: &str, chars: u64, passages: Vec<FoundPassage>) -> ComparedSource {
        ComparedSource { name: name.to_string(), chars, shared: None, passages }
    }

    #[test]
    fn similarities_count_overlapping_passages_once_both_ways() {
        let texts = DocumentTexts { document: "ž".repeat(200), ..Default::default() };
        let sources = vec![
            compared("b.txt", 1000, vec![found((50, 100), (0, 50))]),
            compared("a.txt", 400, vec![found((0, 60), (100, 160)), found((40, 80), (140, 180))]),
        ];
        let report = DocumentReport::new("d.txt", "dir/d.txt", &texts, None, sources);
        assert_eq!((report.chars, report.aligned_chars, report.aligned_percent), (200, 100, 50.0));
        let names: Vec<&str> = report.sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a.txt", "b.txt"], "most of the document first");
        let a = &report.sources[0];
        assert_eq!((a.document_aligned_chars, a.document_aligned_percent), (80, 40.0));
        assert_eq!((a.source_aligned_chars, a.source_aligned_percent), (80, 20.0));
        assert_eq!(report.sources[1].source_aligned_percent, 5.0);
        // Excerpts come from the texts at hand: none for a source whose text is not.
        assert_eq!(a.passages[0].document.excerpt.as_deref(), Some("ž".repeat(60).as_str()));
        assert_eq!(a.passages[0].source.excerpt, None);
        let order: Vec<(&str, u32)> =
            report.passages_in_order().iter().map(|(s, p)| (s.name.as_str(), p.document.offset)).collect();
        assert_eq!(order, [("a.txt", 0), ("a.txt", 40), ("b.txt", 50)]);
        assert_eq!(report.passage_count(), 3);
    }

    #[test]
    fn check_only_fields_are_left_out_of_detect_json() {
        let texts = DocumentTexts { document: "abc".into(), ..Default::default() };
        let report = DocumentReport::new("d.txt", "d.txt", &texts, None, vec![compared("s.txt", 3, vec![])]);
        let json = serde_json::to_string(&report).unwrap();
        for field in ["chunks", "taboo_chars", "common_chunks", "matching_chunks", "in_source_percent"] {
            assert!(!json.contains(field), "{field} in {json}");
        }
        let back: DocumentReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report);
    }

    #[test]
    fn excerpts_collapse_whitespace_and_cut() {
        let text = "ab  cd\n\nef";
        assert_eq!(excerpt(text, CharRange::new(0, 10)).as_deref(), Some("ab cd ef"));
        assert_eq!(excerpt(text, CharRange::new(0, 11)), None);
        let long = "x".repeat(100);
        let cut = excerpt(&long, CharRange::new(0, 100)).unwrap();
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(percent(1, 3), 33.33);
        assert_eq!(percent(1, 0), 0.0);
    }
}
