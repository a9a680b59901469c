//! `check`: what in the archive a new document is similar to (the thesis-upload
//! case). The file is chunked with the index's settings, its chunks are looked
//! up in the stored postings, and for every archive document it shares chunks
//! with come the similarity both ways and the similar passages: the detector's
//! valid intervals, with character offsets and a short excerpt of each side.
//!
//! Similarity counts distinct chunk hashes: `common` is the number of hashes
//! the two documents share, and "x % of the file is in the document" is
//! `100 × common / distinct chunks of the file` (the other way round with the
//! document's distinct chunks), as `similar` computes it.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::error::ArchiveError;
use super::reader::ArchiveIndex;
use super::scan::{self, ChunkedDoc, ChunkingState};
use crate::corpus::{self, DocumentFile, Loaded};
use crate::intervals::{ChunkMatch, IntervalPair, valid_intervals};
use crate::overlap::{Passage, resolve_overlaps};
use crate::params::{self, IntervalParams, OverlapPolicy};
use crate::span::{CharRange, char_slice};

/// Characters of text shown for each side of a passage.
pub const EXCERPT_CHARS: usize = 60;

/// Parameters of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckParams {
    /// Archive documents sharing fewer distinct chunks are not reported.
    pub min_common: usize,
    /// Valid-interval thresholds for the passages.
    pub intervals: IntervalParams,
    /// Passages that overlap in the checked file: all kept (archive mode) by default.
    pub overlap: OverlapPolicy,
}

impl Default for CheckParams {
    fn default() -> Self {
        CheckParams { min_common: 1, intervals: IntervalParams::default(), overlap: OverlapPolicy::KeepAll }
    }
}

impl CheckParams {
    /// Checks the values with the detector's validation.
    pub fn validate(&self) -> Result<(), ArchiveError> {
        let detect =
            params::DetectParams { min_common: self.min_common, intervals: self.intervals, ..Default::default() };
        detect.validate()?;
        Ok(())
    }
}

/// The answer for one checked file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    /// The file, as given.
    pub file: String,
    /// Chunks of the file.
    pub chunks: u64,
    /// Distinct chunk hashes of the file.
    pub distinct_chunks: u64,
    /// The archive documents it shares chunks with: most common chunks first,
    /// then by name.
    pub documents: Vec<DocumentMatch>,
}

/// An archive document similar to the checked file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentMatch {
    /// The archive document's name (path relative to the archive directory).
    pub document: String,
    /// Distinct chunk hashes in both.
    pub common_chunks: u64,
    /// Share of the file's distinct chunks found in the document, in percent
    /// (two decimals).
    pub file_in_document_percent: f64,
    /// Share of the document's distinct chunks found in the file, in percent.
    pub document_in_file_percent: f64,
    /// The similar passages, by position in the file.
    pub passages: Vec<PassageMatch>,
}

/// A similar passage: a valid interval on both sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PassageMatch {
    /// Chunk matches in the interval.
    pub matching_chunks: u64,
    /// Where it is in the checked file.
    pub file: PassageSide,
    /// Where it is in the archive document.
    pub document: PassageSide,
}

/// One side of a passage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PassageSide {
    /// First character.
    pub offset: u32,
    /// Length in characters.
    pub length: u32,
    /// The passage's first characters, whitespace collapsed; `None` for an
    /// archive document that is missing or changed since the last update.
    pub excerpt: Option<String>,
}

/// Checks files against an index; keeps its buffers between files.
pub struct Checker<'a> {
    index: &'a ArchiveIndex,
    params: CheckParams,
    state: ChunkingState,
}

/// A document's hits grouped, before the passages are turned into offsets.
struct Candidate {
    doc: u32,
    common: u64,
    intervals: Vec<IntervalPair>,
}

impl<'a> Checker<'a> {
    /// A checker using the index's settings.
    pub fn new(index: &'a ArchiveIndex, params: CheckParams) -> Result<Self, ArchiveError> {
        params.validate()?;
        Ok(Checker { index, params, state: ChunkingState::new(index.settings()) })
    }

    /// Reads and checks the file at `path`, reported under the name `display`.
    /// A file that cannot be read as text (missing, unreadable, binary) is
    /// [`ArchiveError::Unreadable`], whose warning names it.
    pub fn check_file(&mut self, path: &Path, display: &str) -> Result<CheckReport, ArchiveError> {
        // A file that cannot be read is reported by `load`, as the detector reports it.
        let bytes = std::fs::metadata(path).map_or(0, |metadata| metadata.len());
        let file = DocumentFile { name: display.to_string(), path: path.to_path_buf(), bytes };
        match corpus::load(&file) {
            // A lossy decoding is fine: offsets count the replacement characters.
            Loaded::Text(text, _) => self.check_text(display, &text),
            Loaded::Skipped(warning) => Err(ArchiveError::Unreadable(warning)),
        }
    }

    /// Checks a text, reported under the name `display`.
    pub fn check_text(&mut self, display: &str, text: &str) -> Result<CheckReport, ArchiveError> {
        let chunked = self.state.chunk_text(text, text.len() as u64, scan::content_hash(text.as_bytes()));
        let candidates = self.candidates(&chunked)?;
        // Passages are numbered by document name, not id, so that ties in the
        // overlap policy fall the same way whatever the update history.
        let mut by_name: Vec<Candidate> = candidates;
        by_name.sort_by(|a, b| self.index.name(a.doc).cmp(self.index.name(b.doc)));
        let mut passages = Vec::new();
        let mut matches_of: HashMap<Passage, u64> = HashMap::new();
        for (local, candidate) in (0u32..).zip(&by_name) {
            let record = self.index.record(candidate.doc);
            for pair in &candidate.intervals {
                let range = |seq: u32| {
                    self.index.chunk_range(&record, seq).ok_or_else(|| {
                        self.index.corrupt_postings(format!("chunk {seq} of document {} out of range", candidate.doc))
                    })
                };
                let passage = Passage {
                    suspicious: chunked.ranges[pair.suspicious.0 as usize]
                        .cover(&chunked.ranges[pair.suspicious.1 as usize]),
                    source_doc: local,
                    source: range(pair.source.0)?.cover(&range(pair.source.1)?),
                    exact: false,
                };
                *matches_of.entry(passage).or_default() += pair.matches as u64;
                passages.push(passage);
            }
        }
        resolve_overlaps(&mut passages, self.params.overlap);

        let mut documents = Vec::with_capacity(by_name.len());
        for (local, candidate) in (0u32..).zip(&by_name) {
            let record = self.index.record(candidate.doc);
            let name = self.index.name(candidate.doc);
            let mine: Vec<&Passage> = passages.iter().filter(|p| p.source_doc == local).collect();
            let archived = if mine.is_empty() { None } else { self.archived_text(name, &record.content_hash) };
            documents.push(DocumentMatch {
                document: name.to_string(),
                common_chunks: candidate.common,
                file_in_document_percent: percent(candidate.common, chunked.distinct.into()),
                document_in_file_percent: percent(candidate.common, record.distinct_chunks.into()),
                passages: mine
                    .iter()
                    .map(|p| PassageMatch {
                        matching_chunks: matches_of.get(*p).copied().unwrap_or(0),
                        file: side(Some(text), p.suspicious),
                        document: side(archived.as_deref(), p.source),
                    })
                    .collect(),
            });
        }
        documents.sort_by(|a, b| b.common_chunks.cmp(&a.common_chunks).then_with(|| a.document.cmp(&b.document)));
        Ok(CheckReport {
            file: display.to_string(),
            chunks: chunked.hashes.len() as u64,
            distinct_chunks: chunked.distinct.into(),
            documents,
        })
    }

    /// Looks the file's distinct chunks up and finds, per archive document
    /// sharing at least `min_common` of them, the valid intervals. The chunk
    /// positions in the archive document come from its chunk list, read only
    /// for documents that share enough chunk positions to hold an interval.
    fn candidates(&self, chunked: &ChunkedDoc) -> Result<Vec<Candidate>, ArchiveError> {
        let index = self.index;
        let mut by_hash: Vec<(u64, u32)> = chunked.hashes.iter().copied().zip(0u32..).collect();
        by_hash.sort_unstable();
        // (document, occurrences in the file of a hash the document holds)
        let mut hits: Vec<(u32, u32)> = Vec::new();
        for group in by_hash.chunk_by(|a, b| a.0 == b.0) {
            let occurrences = group.len() as u32;
            hits.extend(index.lookup(group[0].0).map(|i| (index.posting_doc(i), occurrences)));
        }
        hits.sort_unstable();
        let mut candidates = Vec::new();
        let mut matches: Vec<ChunkMatch> = Vec::new();
        for group in hits.chunk_by(|a, b| a.0 == b.0) {
            let doc = group[0].0;
            if doc >= index.id_slots() || !index.record(doc).live {
                return Err(index.corrupt_postings(format!("posting of document {doc}, which is not in the table")));
            }
            // One posting per (hash, document): the group counts distinct hashes.
            let common = group.len() as u64;
            if common < self.params.min_common as u64 {
                continue;
            }
            let positions: u64 = group.iter().map(|&(_, n)| u64::from(n)).sum();
            let mut intervals = Vec::new();
            if positions >= self.params.intervals.min_chunks as u64 {
                matches.clear();
                for (source, hash) in (0u32..).zip(index.chunk_hashes(&index.record(doc))) {
                    let start = by_hash.partition_point(|&(h, _)| h < hash);
                    let same = by_hash[start..].iter().take_while(|&&(h, _)| h == hash);
                    matches.extend(same.map(|&(_, suspicious)| ChunkMatch { suspicious, source }));
                }
                valid_intervals(&mut matches, &self.params.intervals, &mut intervals);
            }
            candidates.push(Candidate { doc, common, intervals });
        }
        Ok(candidates)
    }

    /// The archived document's text, when it is still the indexed version.
    fn archived_text(&self, name: &str, content_hash: &[u8; 16]) -> Option<String> {
        let path = Path::new(&self.index.header().docs_root).join(name);
        let bytes = std::fs::read(&path).ok()?;
        if scan::content_hash(&bytes) != *content_hash {
            return None;
        }
        let size = bytes.len() as u64;
        match corpus::decode(&DocumentFile { name: name.to_string(), path, bytes: size }, bytes) {
            Loaded::Text(text, _) => Some(text),
            Loaded::Skipped(_) => None,
        }
    }
}

/// `100 × part / whole`, rounded to two decimals (0 for an empty whole).
pub(crate) fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { (10_000.0 * part as f64 / whole as f64).round() / 100.0 }
}

fn side(text: Option<&str>, range: CharRange) -> PassageSide {
    PassageSide { offset: range.start, length: range.len(), excerpt: text.and_then(|t| excerpt(t, range)) }
}

/// The first [`EXCERPT_CHARS`] characters of `range` in `text`, runs of
/// whitespace collapsed to one space, with `…` when cut.
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
    use std::fs;

    use super::*;
    use crate::archive::builder::create;
    use crate::archive::format::Settings;
    use crate::progress::Silent;

    fn words(prefix: &str, count: usize) -> String {
        (0..count).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn finds_the_copied_passage_with_offsets_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        let passage = words("shared", 40);
        let archived = format!("{} {passage} {}", words("before", 30), words("after", 30));
        fs::write(docs.join("thesis.txt"), &archived).unwrap();
        fs::write(docs.join("other.txt"), words("other", 100)).unwrap();
        let index_dir = dir.path().join("idx");
        create(&docs, &index_dir, &Settings::default(), &Silent).unwrap();
        let index = ArchiveIndex::open(&index_dir).unwrap();
        let mut checker = Checker::new(&index, CheckParams::default()).unwrap();
        let upload = format!("Úvod {} {passage}", words("intro", 20));
        let report = checker.check_text("new.txt", &upload).unwrap();
        assert_eq!(report.documents.len(), 1, "{report:?}");
        let found = &report.documents[0];
        assert_eq!(found.document, "thesis.txt");
        // 36 chunks of the passage; the file has 20 + 1 + 40 words: 57 chunks.
        assert_eq!((found.common_chunks, report.distinct_chunks), (36, 57));
        assert_eq!(found.file_in_document_percent, percent(36, 57));
        assert_eq!(found.passages.len(), 1);
        let p = &found.passages[0];
        let upload_offset = upload.chars().count() - passage.chars().count();
        assert_eq!((p.file.offset as usize, p.file.length as usize), (upload_offset, passage.len()));
        assert_eq!(p.document.offset as usize, archived.find(&passage).unwrap());
        assert_eq!(p.file.excerpt, p.document.excerpt);
        assert!(p.file.excerpt.as_deref().unwrap().starts_with("shared0 shared1"));
        // Changing the archived file hides its excerpt (the offsets are the indexed version's).
        fs::write(docs.join("thesis.txt"), "changed").unwrap();
        let report = checker.check_text("new.txt", &upload).unwrap();
        assert_eq!(report.documents[0].passages[0].document.excerpt, None);
    }

    #[test]
    fn excerpts_collapse_whitespace_and_cut() {
        let text = "ab  cd\n\nef";
        assert_eq!(excerpt(text, CharRange::new(0, 10)).as_deref(), Some("ab cd ef"));
        let long = "x".repeat(100);
        let cut = excerpt(&long, CharRange::new(0, 100)).unwrap();
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(percent(1, 3), 33.33);
        assert_eq!(percent(1, 0), 0.0);
    }
}
