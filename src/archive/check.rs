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
//!
//! The index's taboo set ([`super::taboo`]) is left out of the file: its
//! taboo chunks are not looked up and match nothing, so they make no
//! similarity and do not count among the file's distinct chunks; a passage
//! never runs across a taboo chunk on either side, and each of its sides stops
//! where the text that side's taboo chunks cover begins.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use super::aligned::{CandidateRule, SharingDocuments, archive_hits};
use super::error::ArchiveError;
use super::format::Settings;
use super::reader::ArchiveIndex;
use super::scan::{self, IndexedDoc};
use crate::analysis::chunk::Chunks;
use crate::analysis::document::Analyzer;
use crate::analysis::read::{self, DocumentFile, Loaded, TextReader};
use crate::analysis::span::{CharRange, ChunkRanges, union_len};
use crate::analysis::taboo::{self, TabooChunks};
use crate::detect::params::DetectParams;
use crate::matching::intervals::{ChunkMatch, IntervalPair, IntervalParams, valid_intervals};
use crate::matching::overlap::{OverlapPolicy, Passage, Twins, resolve_overlaps};
use crate::matching::search::Hit;
use crate::passages::{PassageFinder, SourceDocuments, candidate_max_gap};
use crate::report::model::{
    ComparedSource, DocumentChunks, DocumentReport, DocumentTexts, FoundPassage, SharedChunks, excerpt, percent,
};

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
    /// The defaults for an index made with `settings`: the valid-interval
    /// thresholds `detect` uses with its tokenizer (those of the code
    /// tokenizer for a code index, [`DetectParams::with_tokenizer`]), and
    /// every archive document that shares a chunk listed.
    pub fn for_index(settings: &Settings) -> Self {
        let detect = DetectParams::default().with_tokenizer(settings.tokenizer);
        CheckParams { intervals: detect.intervals, ..CheckParams::default() }
    }

    /// Checks the values with the detector's validation.
    pub fn validate(&self) -> Result<(), ArchiveError> {
        let detect = DetectParams { min_common: self.min_common, intervals: self.intervals, ..Default::default() };
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
    /// Distinct chunk hashes of the file, taboo chunks left out.
    pub distinct_chunks: u64,
    /// Characters of the file covered by taboo chunks, left out.
    pub taboo_chars: u64,
    /// The archive documents it shares chunks with: most common chunks first,
    /// then by name.
    pub documents: Vec<DocumentMatch>,
    /// Those of `documents` whose passages could not be looked for: their
    /// texts, which the passages are found in, changed or went since the
    /// index was last updated. By name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
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
    /// Characters of the file in passages with the document (overlaps
    /// counted once).
    pub file_aligned_chars: u64,
    /// Share of the file's characters in passages with the document, in
    /// percent: the similarity of the ICEIS'08 paper (% of the file in the
    /// document) from aligned text rather than shared chunks.
    pub file_aligned_percent: f64,
    /// Share of the document's characters in passages with the file, in
    /// percent (0 in an index made before format version 3, which does not
    /// record the characters).
    pub document_aligned_percent: f64,
    /// The similar passages, by position in the file.
    pub passages: Vec<PassageMatch>,
}

/// A similar passage: a valid interval on both sides, or with the `best`
/// preset an aligned passage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PassageMatch {
    /// Chunk matches in the passage.
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

impl PassageSide {
    /// The characters of the side.
    pub fn range(&self) -> CharRange {
        CharRange::new(self.offset, self.offset + self.length)
    }
}

impl CheckReport {
    /// Characters of the file in any passage, with any archive document
    /// (overlaps counted once).
    pub fn file_aligned_chars(&self) -> u64 {
        let mut ranges: Vec<CharRange> =
            self.documents.iter().flat_map(|d| d.passages.iter().map(|p| p.file.range())).collect();
        union_len(&mut ranges)
    }
}

/// Checks files against an index; keeps its buffers between files.
pub struct Checker<'a> {
    index: &'a ArchiveIndex,
    params: CheckParams,
    analyzer: Analyzer<'static>,
    /// With an index of the `best` preset: the alignment stage.
    finder: Option<PassageFinder<'a>>,
    /// Set by the caller to stop a check under way ([`Checker::cancelled_by`]).
    cancelled: Option<Arc<AtomicBool>>,
}

/// A document's hits grouped, before the passages are turned into offsets.
struct Candidate {
    doc: u32,
    common: u64,
    intervals: Vec<IntervalPair>,
    /// The document's chunks, analysed again, when it has intervals.
    chunks: Option<Chunks>,
    /// Its intervals were wanted and its text could not be read as indexed.
    unread: bool,
}

impl<'a> Checker<'a> {
    /// A checker using the index's settings.
    pub fn new(index: &'a ArchiveIndex, params: CheckParams) -> Result<Self, ArchiveError> {
        params.validate()?;
        let detect = index.settings().detect_params();
        let finder = detect.align.is_some().then(|| PassageFinder::new(&detect, None, index.stock_phrases()));
        Ok(Checker { index, params, analyzer: Analyzer::new(&index.settings().analysis()), finder, cancelled: None })
    }

    /// The checker, whose checks stop with [`ArchiveError::Cancelled`] at
    /// their next stage (after the analysis of the text; between the
    /// look-ups of its chunks, the candidate documents, the alignment, the
    /// reported documents) once
    /// `cancelled` is set: a caller that gave up on a check frees its thread.
    pub fn cancelled_by(self, cancelled: Arc<AtomicBool>) -> Self {
        Checker { cancelled: Some(cancelled), ..self }
    }

    /// [`ArchiveError::Cancelled`] once the caller has cancelled the check.
    fn go_on(&self) -> Result<(), ArchiveError> {
        go_on(self.cancelled.as_deref())
    }

    /// Reads and checks the file at `path`, reported under the name `display`;
    /// returns the report and the file's text as it was read, which the HTML
    /// and JSON reports show. A file that cannot be read as text (missing,
    /// unreadable, binary), or whose name no report can hold
    /// ([`read::unreportable_name`]), is [`ArchiveError::Unreadable`], whose
    /// warning names it.
    pub fn check_file_with_text(&mut self, path: &Path, display: &str) -> Result<(CheckReport, String), ArchiveError> {
        if let Some(reason) = path.file_name().and_then(|name| name.to_str()).and_then(read::unreportable_name) {
            let message = format!("{reason}; skipped");
            return Err(ArchiveError::Unreadable(crate::error::Warning { path: path.to_path_buf(), message }));
        }
        // A file that cannot be read is reported by `load`, as the detector reports it.
        let bytes = std::fs::metadata(path).map_or(0, |metadata| metadata.len());
        let file = DocumentFile { name: display.to_string(), path: path.to_path_buf(), bytes };
        match TextReader::default().load(&file) {
            // A lossy decoding is fine: offsets count the replacement characters.
            Loaded::Text(text, _) => Ok((self.check_text(display, &text)?, text)),
            Loaded::Skipped(warning) => Err(ArchiveError::Unreadable(warning)),
        }
    }

    /// The report model ([`DocumentReport`], shared with `detect`) of a
    /// `report` on the file `name`, whose text is `text`, with the texts it
    /// shows: the file's, and those of the archive documents with passages as
    /// they were indexed (left out when changed or deleted since).
    pub fn document_report(&self, name: &str, report: &CheckReport, text: String) -> (DocumentReport, DocumentTexts) {
        let index = self.index;
        let named: HashSet<&str> = report.documents.iter().map(|d| d.document.as_str()).collect();
        // Documents are found by name: a report names them, never by id.
        let ids: HashMap<&str, u32> =
            index.live_ids().map(|id| (index.name(id), id)).filter(|(name, _)| named.contains(name)).collect();
        let mut texts = DocumentTexts { document: text, ..Default::default() };
        let mut sources = Vec::with_capacity(report.documents.len());
        for document in &report.documents {
            let id = ids.get(document.document.as_str()).copied();
            let archived = id.filter(|_| !document.passages.is_empty()).and_then(|id| index.document_text(id));
            texts.sources.extend(archived.map(|text| (document.document.clone(), text)));
            sources.push(ComparedSource {
                name: document.document.clone(),
                chars: id.map_or(0, |id| index.record(id).chars.into()),
                shared: Some(SharedChunks {
                    common: document.common_chunks,
                    document_in_source_percent: document.file_in_document_percent,
                    source_in_document_percent: document.document_in_file_percent,
                }),
                passages: document.passages.iter().map(found_passage).collect(),
            });
        }
        let chunks = DocumentChunks {
            chunks: report.chunks,
            distinct_chunks: report.distinct_chunks,
            taboo_chars: report.taboo_chars,
        };
        (DocumentReport::new(name, &report.file, &texts, Some(chunks), sources), texts)
    }

    /// Checks a text, reported under the name `display`.
    pub fn check_text(&mut self, display: &str, text: &str) -> Result<CheckReport, ArchiveError> {
        if let Some(mut finder) = self.finder.take() {
            let report = self.check_aligned(&mut finder, display, text);
            self.finder = Some(finder);
            return report;
        }
        self.go_on()?;
        let hash = read::content_hash(text.as_bytes());
        let analysed = self.analyzer.analyse_text(text.to_string(), text.len() as u64, hash);
        self.go_on()?;
        let chunked = IndexedDoc::of(analysed, self.index.taboo());
        let taboo_regions = self.index.taboo().regions(&chunked.chunks.hashes, &chunked.chunks.ranges);
        let candidates = self.candidates(&chunked)?;
        self.go_on()?;
        // Passages are numbered by document name, not id, so that ties in the
        // overlap policy fall the same way whatever the update history.
        let mut by_name: Vec<Candidate> = candidates;
        by_name.sort_by(|a, b| self.index.name(a.doc).cmp(self.index.name(b.doc)));
        let mut passages = Vec::new();
        let mut matches_of: HashMap<Passage, u64> = HashMap::new();
        for (local, candidate) in (0u32..).zip(&by_name) {
            let Some(chunks) = &candidate.chunks else { continue };
            let document_taboo = self.index.taboo().regions(&chunks.hashes, &chunks.ranges);
            for pair in &candidate.intervals {
                let (suspicious, source) =
                    pair.char_ranges(&chunked.chunks.ranges[..], &chunks.ranges[..]).ok_or_else(|| {
                        let (first, last) = pair.source;
                        let message = format!("chunks {first}..={last} of document {} out of range", candidate.doc);
                        self.index.corrupt_record(candidate.doc, message)
                    })?;
                let passage = Passage {
                    suspicious: outside(suspicious, &taboo_regions),
                    source_doc: local,
                    source: outside(source, &document_taboo),
                    exact: false,
                    likeness: Passage::UNMEASURED,
                };
                *matches_of.entry(passage).or_default() += pair.matches as u64;
                passages.push(passage);
            }
        }
        resolve_overlaps(&mut passages, self.params.overlap, Twins::Kept);

        let shared = by_name.iter().map(|c| (c.doc, c.common)).collect::<Vec<_>>();
        let unread = by_name.iter().filter(|c| c.unread).map(|c| self.index.name(c.doc).to_string()).collect();
        let passages: Vec<(Passage, u64)> = passages
            .iter()
            .map(|p| {
                let matches = matches_of.get(p).copied().unwrap_or(0);
                (Passage { source_doc: by_name[p.source_doc as usize].doc, ..*p }, matches)
            })
            .collect();
        let documents = self.documents(text, &shared, &passages, chunked.distinct())?;
        Ok(CheckReport {
            file: display.to_string(),
            chunks: chunked.chunks.hashes.len() as u64,
            distinct_chunks: chunked.distinct().into(),
            taboo_chars: taboo::covered_chars(&taboo_regions),
            documents,
            unread,
        })
    }

    /// [`check_text`](Self::check_text) with an index of the `best` preset:
    /// the file's candidate chunks are looked up as `detect` looks them up
    /// ([`archive_hits`]) and the candidate documents aligned with
    /// [`PassageFinder`], so that the passages are `detect --preset best`'s.
    fn check_aligned(
        &mut self,
        finder: &mut PassageFinder<'_>,
        display: &str,
        text: &str,
    ) -> Result<CheckReport, ArchiveError> {
        self.go_on()?;
        let hash = read::content_hash(text.as_bytes());
        let mut analysed = self.analyzer.analyse_text(text.to_string(), text.len() as u64, hash);
        self.go_on()?;
        let taboo = self.index.taboo();
        let taboo_regions = analysed.blank_taboo(taboo);
        let align = self.index.settings().detect_params().align.unwrap_or_default();
        let rule = CandidateRule {
            min_common: align.candidate_min_common,
            max_gap: candidate_max_gap(&align, text),
            min_content: align.candidate_min_content,
            content_chunks: analysed.content_chunks,
            pair_places: align.pair_words > 0,
        };
        let (sources, mut hits) = archive_hits(self.index, &analysed.chunks.hashes, align.hit_budget(), rule)?;
        self.go_on()?;
        let (passages, _) = finder.find(&analysed, &mut hits, &sources, None);
        self.go_on()?;
        // Documents with a passage are reported however few chunks they share.
        let shared: Vec<(u32, u64)> = (0..sources.len() as u32)
            .filter(|&doc| {
                sources.common(doc) >= self.params.min_common as u64 || passages.iter().any(|p| p.source_doc == doc)
            })
            .map(|doc| (sources.id(doc), sources.common(doc)))
            .collect();
        let unread = (0..sources.len() as u32)
            .filter(|&doc| sources.unread(doc) && sources.common(doc) >= self.params.min_common as u64)
            .map(|doc| self.index.name(sources.id(doc)).to_string())
            .collect();
        // Passages name documents by number; the report by id.
        let passages: Vec<(Passage, u64)> = passages
            .iter()
            .map(|p| {
                let matches = matching_chunks(p, &hits, &analysed.chunks.ranges, &sources);
                (Passage { source_doc: sources.id(p.source_doc), ..*p }, matches)
            })
            .collect();
        let distinct = scan::distinct_outside(analysed.chunks.hashes.iter().copied(), taboo).len() as u32;
        let documents = self.documents(text, &shared, &passages, distinct)?;
        Ok(CheckReport {
            file: display.to_string(),
            chunks: analysed.chunks.hashes.len() as u64,
            distinct_chunks: distinct.into(),
            taboo_chars: taboo::covered_chars(&taboo_regions),
            documents,
            unread,
        })
    }

    /// The report's documents: each of `shared` (document id, common
    /// chunks) with its `passages` (whose `source_doc` is the document id,
    /// each with its matching chunks), both similarities, and excerpts; most
    /// common chunks first, then by name.
    fn documents(
        &self,
        text: &str,
        shared: &[(u32, u64)],
        passages: &[(Passage, u64)],
        file_distinct: u32,
    ) -> Result<Vec<DocumentMatch>, ArchiveError> {
        let file_chars = text.chars().count() as u64;
        let mut documents: Vec<DocumentMatch> = shared
            .iter()
            .map(|&(id, common)| {
                self.go_on()?;
                let record = self.index.record(id);
                let mine: Vec<&(Passage, u64)> = passages.iter().filter(|(p, _)| p.source_doc == id).collect();
                let archived = if mine.is_empty() { None } else { self.index.document_text(id) };
                let file_aligned = union_len(&mut mine.iter().map(|(p, _)| p.suspicious).collect::<Vec<_>>());
                let document_aligned = union_len(&mut mine.iter().map(|(p, _)| p.source).collect::<Vec<_>>());
                Ok(DocumentMatch {
                    document: self.index.name(id).to_string(),
                    common_chunks: common,
                    file_in_document_percent: percent(common, file_distinct.into()),
                    document_in_file_percent: percent(common, record.distinct_chunks.into()),
                    file_aligned_chars: file_aligned,
                    file_aligned_percent: percent(file_aligned, file_chars),
                    document_aligned_percent: percent(document_aligned, record.chars.into()),
                    passages: mine
                        .iter()
                        .map(|&&(p, matching_chunks)| PassageMatch {
                            matching_chunks,
                            file: side(Some(text), p.suspicious),
                            document: side(archived.as_deref(), p.source),
                        })
                        .collect(),
                })
            })
            .collect::<Result<_, ArchiveError>>()?;
        documents.sort_by(|a, b| b.common_chunks.cmp(&a.common_chunks).then_with(|| a.document.cmp(&b.document)));
        Ok(documents)
    }

    /// Looks the file's distinct chunks up and finds, per archive document
    /// sharing at least `min_common` of them, the valid intervals. The chunk
    /// positions in the archive document come from its analysis, made (in
    /// parallel) only for documents that share enough chunk positions to hold
    /// an interval; a document whose text can no longer be read as it was
    /// indexed has none.
    fn candidates(&self, chunked: &IndexedDoc) -> Result<Vec<Candidate>, ArchiveError> {
        let index = self.index;
        let file = FileChunks::new(&chunked.chunks.hashes, index.taboo());
        // (document, occurrences in the file of a hash the document holds)
        let mut hits: Vec<(u32, u32)> = Vec::new();
        let mut docs = Vec::new();
        for group in file.by_hash.chunk_by(|a, b| a.0 == b.0) {
            self.go_on()?;
            let occurrences = group.len() as u32;
            index.documents_with(group[0].0, &mut docs)?;
            hits.extend(docs.iter().map(|&doc| (doc, occurrences)));
        }
        hits.sort_unstable();
        // (document, distinct hashes it shares, positions of the file they hold)
        let groups: Vec<(u32, u64, u64)> = hits
            .chunk_by(|a, b| a.0 == b.0)
            // `documents_with` gives each document once: the group counts distinct hashes.
            .map(|group| (group[0].0, group.len() as u64, group.iter().map(|&(_, n)| u64::from(n)).sum()))
            .filter(|&(_, common, _)| common >= self.params.min_common as u64)
            .collect();
        let intervals = &self.params.intervals;
        let cancelled = self.cancelled.as_deref();
        groups
            .par_iter()
            .map(|&(doc, common, positions)| {
                go_on(cancelled)?;
                let mut candidate = Candidate { doc, common, intervals: Vec::new(), chunks: None, unread: false };
                if positions < intervals.min_chunks as u64 {
                    return Ok(candidate);
                }
                match index.document_chunks(doc)? {
                    Some(chunks) => {
                        file.intervals_with(index.taboo(), &chunks.hashes, intervals, &mut candidate.intervals);
                        candidate.chunks = (!candidate.intervals.is_empty()).then_some(chunks);
                    }
                    None => candidate.unread = true,
                }
                Ok(candidate)
            })
            .collect()
    }
}

/// [`ArchiveError::Cancelled`] once `cancelled` is set.
fn go_on(cancelled: Option<&AtomicBool>) -> Result<(), ArchiveError> {
    match cancelled {
        Some(cancelled) if cancelled.load(Ordering::Relaxed) => Err(ArchiveError::Cancelled),
        _ => Ok(()),
    }
}

/// A checked file's chunks ready to be matched with archive documents' chunk
/// lists, as `check` matches them: its hashes that are not taboo with their
/// positions, sorted, and the stretch of each chunk (see [`stretches`]).
pub(crate) struct FileChunks {
    by_hash: Vec<(u64, u32)>,
    stretches: Vec<u32>,
}

/// A chunk match tagged with the stretches of its two chunks.
pub(crate) type StretchMatch = ((u32, u32), ChunkMatch);

impl FileChunks {
    /// The file whose chunk hashes (in sequence order) are `hashes`.
    pub(crate) fn new(hashes: &[u64], taboo: &TabooChunks) -> Self {
        let mut by_hash: Vec<(u64, u32)> =
            hashes.iter().copied().zip(0u32..).filter(|&(hash, _)| !taboo.contains(hash)).collect();
        by_hash.sort_unstable();
        FileChunks { by_hash, stretches: stretches(hashes.iter().copied(), taboo) }
    }

    /// Appends to `out` the valid intervals between the file and the archive
    /// document whose chunk hashes are `document`, never across a chunk of
    /// `taboo`.
    pub(crate) fn intervals_with(
        &self,
        taboo: &TabooChunks,
        document: &[u64],
        params: &IntervalParams,
        out: &mut Vec<IntervalPair>,
    ) {
        let mut matches: Vec<StretchMatch> = Vec::new();
        let mut source_stretch = 0u32;
        for (source, &hash) in (0u32..).zip(document) {
            if taboo.contains(hash) {
                source_stretch += 1; // It matches nothing: `by_hash` has no taboo chunk.
                continue;
            }
            let start = self.by_hash.partition_point(|&(h, _)| h < hash);
            let same = self.by_hash[start..].iter().take_while(|&&(h, _)| h == hash);
            matches.extend(same.map(|&(_, suspicious)| {
                let stretches = (self.stretches[suspicious as usize], source_stretch);
                (stretches, ChunkMatch { suspicious, source })
            }));
        }
        intervals_between_taboo(&mut matches, params, out);
    }
}

/// For each chunk of a document (hashes in sequence order), the number of
/// taboo chunks before it: chunks with the same number lie between the same
/// two taboo chunks (all 0 without a taboo set).
fn stretches(hashes: impl Iterator<Item = u64>, taboo: &TabooChunks) -> Vec<u32> {
    let mut before = 0u32;
    hashes
        .map(|hash| {
            let stretch = before;
            before += u32::from(taboo.contains(hash));
            stretch
        })
        .collect()
}

/// The valid intervals of `matches`, each tagged with the stretches (see
/// [`stretches`]) of its file chunk and its document chunk, found within each
/// pair of stretches separately: an interval never runs across a taboo chunk.
fn intervals_between_taboo(matches: &mut [StretchMatch], params: &IntervalParams, out: &mut Vec<IntervalPair>) {
    matches.sort_unstable_by_key(|&(stretches, m)| (stretches, m.suspicious, m.source));
    let mut group: Vec<ChunkMatch> = Vec::new();
    for same in matches.chunk_by(|a, b| a.0 == b.0) {
        group.clear();
        group.extend(same.iter().map(|&(_, m)| m));
        valid_intervals(&mut group, params, out);
    }
    out.sort_unstable();
}

/// `range` without the parts that the sorted, disjoint `regions` cover at its
/// ends. A passage lies between two taboo chunks, so a taboo region can only
/// overlap its first or last chunks, never split it.
pub(crate) fn outside(mut range: CharRange, regions: &[CharRange]) -> CharRange {
    let (first, end) = (regions.partition_point(|r| r.end <= range.start), range.end);
    for region in regions[first..].iter().take_while(|r| r.start < end) {
        if region.start <= range.start {
            range.start = region.end.min(range.end);
        } else {
            range.end = region.start;
            break; // The regions after it start later still.
        }
    }
    range
}

/// The chunk matches of `hits` (the file's chunks at `ranges`) with the
/// passage's document that lie inside the passage on both sides.
fn matching_chunks(passage: &Passage, hits: &[Hit], ranges: &[CharRange], sources: &SharingDocuments<'_>) -> u64 {
    let source_ranges = sources.chunk_ranges(passage.source_doc);
    let inside = |hit: &&Hit| {
        let this = ranges.get(hit.chunk.suspicious as usize);
        let source = source_ranges.chunk_range(hit.chunk.source);
        this.is_some_and(|r| passage.suspicious.holds(r)) && source.is_some_and(|r| passage.source.holds(&r))
    };
    hits.iter().filter(|hit| hit.source_doc == passage.source_doc).filter(inside).count() as u64
}

/// A passage of a check as the report model takes it.
fn found_passage(passage: &PassageMatch) -> FoundPassage {
    FoundPassage {
        document: passage.file.range(),
        source: passage.document.range(),
        matching_chunks: Some(passage.matching_chunks),
    }
}

fn side(text: Option<&str>, range: CharRange) -> PassageSide {
    PassageSide { offset: range.start, length: range.len(), excerpt: text.and_then(|t| excerpt(t, range)) }
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
        create(&docs, &index_dir, &Settings::default(), None, &Silent).unwrap();
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
        // A changed archived file still shares its indexed chunks, but its
        // passages need its indexed text.
        fs::write(docs.join("thesis.txt"), "changed").unwrap();
        let report = checker.check_text("new.txt", &upload).unwrap();
        assert_eq!(report.documents[0].common_chunks, 36);
        assert!(report.documents[0].passages.is_empty());
    }

    #[test]
    fn a_cancelled_check_stops_with_cancelled_and_an_uncancelled_one_reports() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        let passage = words("shared", 40);
        fs::write(docs.join("thesis.txt"), &passage).unwrap();
        let index_dir = dir.path().join("idx");
        create(&docs, &index_dir, &Settings::default(), None, &Silent).unwrap();
        let index = ArchiveIndex::open(&index_dir).unwrap();
        let cancelled = Arc::new(AtomicBool::new(false));
        let mut checker = Checker::new(&index, CheckParams::default()).unwrap().cancelled_by(Arc::clone(&cancelled));
        assert_eq!(checker.check_text("new.txt", &passage).unwrap().documents.len(), 1);
        cancelled.store(true, Ordering::Relaxed);
        assert!(matches!(checker.check_text("new.txt", &passage), Err(ArchiveError::Cancelled)));
    }

    #[test]
    fn taboo_text_makes_no_similarity_and_no_passage_but_a_copy_beside_it_does() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        let template = words("template", 60);
        let copied = words("copied", 40);
        fs::write(docs.join("a.txt"), format!("{} {template} {copied}", words("a", 50))).unwrap();
        fs::write(docs.join("b.txt"), format!("{template} {}", words("b", 50))).unwrap();
        let template_file = dir.path().join("template.txt");
        fs::write(&template_file, &template).unwrap();
        let taboo = crate::archive::TabooFiles::load(&[template_file]).unwrap();
        let index_dir = dir.path().join("idx");
        create(&docs, &index_dir, &Settings::default(), Some(&taboo), &Silent).unwrap();
        let index = ArchiveIndex::open(&index_dir).unwrap();
        let mut checker = Checker::new(&index, CheckParams::default()).unwrap();
        // The copy follows the template directly: its passage must stop where the template ends.
        let upload = format!("{} {template} {copied} {}", words("intro", 30), words("outro", 30));
        let report = checker.check_text("new.txt", &upload).unwrap();
        assert_eq!(report.documents.len(), 1, "{report:?}");
        assert_eq!(report.documents[0].document, "a.txt");
        // 36 chunks of the copy and 4 across its start; the file's distinct
        // chunks leave the template's 56 out.
        assert_eq!((report.documents[0].common_chunks, report.distinct_chunks), (40, 30 + 60 + 40 + 30 - 4 - 56));
        let template_start = upload.find(&template).unwrap() as u32;
        let template_end = template_start + template.len() as u32;
        assert_eq!(report.taboo_chars, u64::from(template_end - template_start));
        let passages = &report.documents[0].passages;
        assert_eq!(passages.len(), 1, "{passages:?}");
        // Its first chunks take in the template's last words: it starts where the template ends.
        assert_eq!(passages[0].file.offset, template_end, "{passages:?}");
        assert_eq!(passages[0].file.offset + passages[0].file.length, template_end + 1 + copied.len() as u32);
        // So does its side in the archive document, which also holds the template before the copy.
        let archived = format!("{} {template} ", words("a", 50));
        assert_eq!(passages[0].document.offset, archived.len() as u32 - 1, "{passages:?}");
        assert!(passages[0].file.excerpt.as_deref().unwrap().starts_with("copied0 copied1"));
    }

    #[test]
    fn a_passage_never_runs_across_taboo_text() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        let (first, second) = (words("first", 30), words("second", 30));
        fs::write(docs.join("x.txt"), format!("{first} {second}")).unwrap();
        // 16 taboo chunks: a gap the valid intervals (up to 49) would bridge.
        let template = words("template", 20);
        let template_file = dir.path().join("template.txt");
        fs::write(&template_file, &template).unwrap();
        let taboo = crate::archive::TabooFiles::load(&[template_file]).unwrap();
        let index_dir = dir.path().join("idx");
        create(&docs, &index_dir, &Settings::default(), Some(&taboo), &Silent).unwrap();
        let index = ArchiveIndex::open(&index_dir).unwrap();
        let mut checker = Checker::new(&index, CheckParams::default()).unwrap();
        let upload = format!("{first} {template} {second}");
        let report = checker.check_text("new.txt", &upload).unwrap();
        let template_start = upload.find(&template).unwrap() as u32;
        let template_end = template_start + template.len() as u32;
        let sides: Vec<(u32, u32)> =
            report.documents[0].passages.iter().map(|p| (p.file.offset, p.file.offset + p.file.length)).collect();
        assert_eq!(sides, [(0, first.len() as u32), (template_end + 1, upload.len() as u32)], "{report:?}");
        assert!(template_start > first.len() as u32);
    }

    #[test]
    fn passages_stop_at_taboo_regions_and_stretches_count_taboo_chunks() {
        let regions = [CharRange::new(0, 10), CharRange::new(50, 60), CharRange::new(90, 95)];
        assert_eq!(outside(CharRange::new(5, 55), &regions), CharRange::new(10, 50));
        assert_eq!(outside(CharRange::new(12, 48), &regions), CharRange::new(12, 48));
        assert_eq!(outside(CharRange::new(60, 92), &regions), CharRange::new(60, 90));
        assert_eq!(outside(CharRange::new(20, 40), &[]), CharRange::new(20, 40));
        let taboo = TabooChunks::new(vec![7, 9]);
        assert_eq!(stretches([1, 7, 2, 3, 9, 7, 4].into_iter(), &taboo), [0, 0, 1, 1, 1, 2, 3]);
        assert_eq!(stretches([1, 2].into_iter(), &TabooChunks::default()), [0, 0]);
    }
}
