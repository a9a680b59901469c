//! The detection pipeline, end to end: read → tokenize → chunk → index (sources)
//! and read → tokenize → chunk → match → intervals → overlap → report
//! (suspicious documents), in parallel with rayon.

pub mod params;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::align::params::{AlignParams, MIN_CANDIDATE_PAIRS};
use crate::align::sentences::Sentences;
use crate::align::{AlignedPassage, Aligner};
use crate::analysis::document::{self, AnalysisParams, Analyzer, Document, analyse_batch};
use crate::analysis::read::{self, DocumentFile, Loaded};
use crate::analysis::span::{CharRange, PackedRanges};
use crate::analysis::synonyms::Synonyms;
use crate::analysis::taboo::{self, TabooChunks, TabooTexts};
use crate::error::Error;
use crate::matching::index::{ChunkIndex, ChunkKey, IndexBuilder, KeyWidth};
use crate::matching::intervals::{ChunkMatch, IntervalPair, IntervalParams, valid_intervals};
use crate::matching::overlap::{Passage, resolve_overlaps};
use crate::matching::search::{BatchLookup, Candidates, Hit};
use crate::pairs::DocumentPairs;
use crate::progress::{Progress, Stage};
use crate::report::{Detection, DetectionSink};
use params::DetectParams;

/// What a run did, for the one-line summary and the benchmarks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Source documents indexed.
    pub source_documents: usize,
    /// Suspicious documents checked (a report was written for each).
    pub suspicious_documents: usize,
    /// Files skipped as unreadable or binary.
    pub skipped_files: usize,
    /// Bytes of text read, sources and suspicious documents.
    pub input_bytes: u64,
    /// Chunks of the source documents (postings in the index).
    pub source_chunks: u64,
    /// Chunks of the suspicious documents.
    pub suspicious_chunks: u64,
    /// Passages reported.
    pub passages: u64,
    /// Characters of the suspicious documents left out as taboo text.
    pub taboo_chars: u64,
    /// Document pairs aligned (the `best` preset's candidate pairs; 0 with the
    /// paper's method).
    pub candidate_pairs: u64,
    /// Time to read, tokenize and chunk the sources.
    pub read_sources: Duration,
    /// Time to sort the index.
    pub build_index: Duration,
    /// Time to read and match the suspicious documents and write the reports.
    pub matching: Duration,
}

/// Detects passages of the `*.txt` documents in `suspicious_dir` copied from
/// those in `source_dir`, and pushes every suspicious document's detections into
/// `sink`. When the two are the same directory, each document is compared with
/// every other one but not with itself.
pub fn detect(
    source_dir: &Path,
    suspicious_dir: &Path,
    params: &DetectParams,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    detect_with(source_dir, suspicious_dir, params, &Scope::default(), sink, progress)
}

/// What a run compares beyond the two directories, and how words are matched.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scope<'a> {
    /// Synonym normalisation: with the alignment stage ([`DetectParams::align`]),
    /// the words of each synonym group count as one word, both in the candidate
    /// chunks and in the sentence alignment. The paper's method ignores it.
    pub synonyms: Option<&'a Synonyms>,
    /// PAN's text-alignment protocol: compare exactly these document pairs,
    /// with no candidate filtering. Only their documents are read; a document
    /// they name that is not in its directory is an error.
    pub pairs: Option<&'a DocumentPairs>,
    /// Texts whose passages are never reported ([`crate::analysis::taboo`]).
    pub taboo: Option<&'a TabooTexts>,
}

/// [`detect`] within a [`Scope`].
pub fn detect_with(
    source_dir: &Path,
    suspicious_dir: &Path,
    params: &DetectParams,
    scope: &Scope<'_>,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    params.validate()?;
    let mut sources = read::list_text_files(source_dir, progress)?;
    let mut suspicious = read::list_text_files(suspicious_dir, progress)?;
    if let Some(pairs) = scope.pairs {
        keep_listed(&mut sources, source_dir, &pairs.source_names())?;
        let names: BTreeSet<&str> = pairs.iter().map(|(suspicious, _)| suspicious).collect();
        keep_listed(&mut suspicious, suspicious_dir, &names)?;
    }
    let names: Vec<&str> = suspicious.iter().map(|file| file.name.as_str()).collect();
    sink.prepare(&[source_dir, suspicious_dir], &names, progress)?;
    let same_directory = read::same_directory(source_dir, suspicious_dir);
    let no_taboo = TabooChunks::default();
    let setup = Setup { params, synonyms: scope.synonyms, pairs: scope.pairs, same_directory, taboo: &no_taboo };
    let taboo = scope.taboo.map(|texts| taboo_chunks(texts, &setup)).unwrap_or_default();
    let setup = Setup { taboo: &taboo, ..setup };
    match KeyWidth::of(params.chunks.hash_bits) {
        KeyWidth::U32 => run::<u32>(&sources, &suspicious, &setup, sink, progress),
        KeyWidth::U64 => run::<u64>(&sources, &suspicious, &setup, sink, progress),
    }
}

/// Keeps the `files` (of `dir`, sorted by name) named in `listed`; a listed
/// name with no file is an error.
fn keep_listed(files: &mut Vec<DocumentFile>, dir: &Path, listed: &BTreeSet<&str>) -> Result<(), Error> {
    files.retain(|file| listed.contains(file.name.as_str()));
    if files.len() < listed.len()
        && let Some(missing) = listed.iter().find(|name| files.binary_search_by(|f| f.name.as_str().cmp(name)).is_err())
    {
        return Err(Error::MissingPairDocument { dir: dir.to_path_buf(), name: missing.to_string() });
    }
    Ok(())
}

/// The parameters of a run and the data they refer to.
#[derive(Clone, Copy)]
struct Setup<'a> {
    params: &'a DetectParams,
    synonyms: Option<&'a Synonyms>,
    pairs: Option<&'a DocumentPairs>,
    /// The sources are the suspicious documents: a document is not compared
    /// with itself (it would match itself whole).
    same_directory: bool,
    /// Chunks of the taboo texts: not indexed, and blanked in suspicious documents.
    taboo: &'a TabooChunks,
}

/// The content chunks of the taboo `texts`, chunked as documents are.
fn taboo_chunks(texts: &TabooTexts, setup: &Setup<'_>) -> TabooChunks {
    let mut analyzer = Analyzer::new(&setup.analysis());
    let mut hashes = Vec::new();
    for text in texts.texts() {
        analyzer.chunk(text);
        hashes.extend_from_slice(analyzer.content_hashes());
    }
    TabooChunks::new(hashes)
}

impl<'a> Setup<'a> {
    /// How documents are analysed: the paper's chunks, or the candidate
    /// chunks of the alignment stage.
    fn analysis(&self) -> AnalysisParams<'a> {
        self.params.analysis(self.synonyms)
    }
}

fn run<K: ChunkKey>(
    sources: &[DocumentFile],
    suspicious: &[DocumentFile],
    setup: &Setup<'_>,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    let mut summary = Summary::default();
    let started = Instant::now();
    let (side, builder) = read_sources::<K>(sources, setup, progress, &mut summary);
    summary.read_sources = started.elapsed();

    let started = Instant::now();
    progress.start(Stage::BuildIndex, 0);
    let index = builder.build();
    progress.finish();
    summary.build_index = started.elapsed();

    let started = Instant::now();
    match_suspicious(suspicious, &side, &index, setup, sink, progress, &mut summary)?;
    sink.finish()?;
    summary.matching = started.elapsed();
    Ok(summary)
}

/// What the matching stage needs of the source documents besides the index.
struct SourceSide<'a> {
    names: Vec<String>,
    chunk_ranges: Vec<PackedRanges>,
    /// The source files by document number, read again to align candidate pairs.
    files: Vec<&'a DocumentFile>,
    /// Content chunks of each document (structure chunks follow them).
    content_chunks: Vec<u32>,
}

impl SourceSide<'_> {
    /// The numbers of the source documents listed with `suspicious`, sorted
    /// (a listed document that was skipped as unreadable is left out).
    fn listed_sources(&self, pairs: &DocumentPairs, suspicious: &str) -> Vec<u32> {
        // Sources are numbered in name order, so names are sorted.
        pairs
            .sources_of(suspicious)
            .filter_map(|name| self.names.binary_search_by(|n| n.as_str().cmp(name)).ok())
            .map(|i| i as u32)
            .collect()
    }

    /// Leaves out of `hits` those of the source document named `name`.
    fn drop_hits_of(&self, name: &str, hits: &mut Vec<Hit>) {
        // The names are in listing order, which is sorted.
        if let Ok(doc) = self.names.binary_search_by(|n| n.as_str().cmp(name)) {
            hits.retain(|hit| hit.source_doc as usize != doc);
        }
    }
}

/// Blanks the text that `doc`'s taboo chunks cover, for the alignment; returns
/// how many characters that is. Its chunks need no change: taboo chunks are not
/// in the index.
fn leave_out_taboo(doc: &mut Document, taboo: &TabooChunks) -> u64 {
    let (hashes, ranges) = doc.content();
    let regions = taboo.regions(hashes, ranges);
    taboo::blank(&mut doc.text, &regions);
    taboo::covered_chars(&regions)
}

fn read_sources<'f, K: ChunkKey>(
    sources: &'f [DocumentFile],
    setup: &Setup<'_>,
    progress: &dyn Progress,
    summary: &mut Summary,
) -> (SourceSide<'f>, IndexBuilder<K>) {
    progress.start(Stage::ReadSources, sources.iter().map(|f| f.bytes).sum());
    let mut side =
        SourceSide { names: Vec::new(), chunk_ranges: Vec::new(), files: Vec::new(), content_chunks: Vec::new() };
    let mut builder = IndexBuilder::<K>::new(setup.params.chunks.hash_bits);
    let analysis = setup.analysis();
    for batch in document::batches(sources, |f| f.bytes) {
        for (file, doc) in batch.iter().zip(analyse_batch(batch, |f| f, &analysis, progress)) {
            summary.input_bytes += file.bytes;
            let Some(Document { chunks, content_chunks, .. }) = doc else {
                summary.skipped_files += 1;
                continue;
            };
            builder.add_document_where(side.names.len() as u32, &chunks.hashes, |hash| !setup.taboo.contains(hash));
            summary.source_chunks += chunks.len() as u64;
            side.names.push(file.name.clone());
            side.files.push(file);
            side.content_chunks.push(content_chunks);
            side.chunk_ranges.push(PackedRanges::new(&chunks.ranges));
        }
    }
    summary.source_documents = side.names.len();
    progress.finish();
    (side, builder)
}

/// Per-thread buffers of the interval (or alignment) and report step.
struct PassageState<'a> {
    candidates: Candidates,
    intervals: Vec<IntervalPair>,
    passages: Vec<Passage>,
    /// With the alignment stage: the aligner and its buffers.
    aligner: Option<AlignState<'a>>,
}

/// A source document to align with the suspicious one.
#[derive(Debug, Clone)]
struct CandidatePair {
    source_doc: u32,
    /// The windows of the suspicious and the source document where they share
    /// chunks (whole documents for listed pairs).
    this_window: CharRange,
    source_window: CharRange,
    /// Its structure chunk anchors in [`AlignState::anchors`].
    anchors: std::ops::Range<usize>,
    /// Matches in its largest interval of shared candidate chunks.
    strength: usize,
}

/// Per-thread buffers of the alignment stage.
struct AlignState<'a> {
    aligner: Aligner<'a>,
    params: AlignParams,
    /// Candidate source documents of the suspicious document being aligned.
    candidate_docs: Vec<CandidatePair>,
    /// Ranges of the structure chunks each candidate pair shares.
    anchors: Vec<(CharRange, CharRange)>,
    suspicious: Sentences,
    source: Sentences,
    aligned: Vec<AlignedPassage>,
}

impl<'a> PassageState<'a> {
    fn new(setup: &Setup<'a>) -> Self {
        let aligner = setup.params.align.map(|params| AlignState {
            aligner: Aligner::new(setup.params.tokenizer, params, setup.synonyms),
            params,
            candidate_docs: Vec::new(),
            anchors: Vec::new(),
            suspicious: Sentences::default(),
            source: Sentences::default(),
            aligned: Vec::new(),
        });
        PassageState { candidates: Candidates::default(), intervals: Vec::new(), passages: Vec::new(), aligner }
    }
}

fn match_suspicious<K: ChunkKey>(
    suspicious: &[DocumentFile],
    side: &SourceSide<'_>,
    index: &ChunkIndex<K>,
    setup: &Setup<'_>,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
    summary: &mut Summary,
) -> Result<(), Error> {
    progress.start(Stage::Match, suspicious.iter().map(|f| f.bytes).sum());
    let mut lookup = BatchLookup::default();
    let mut result = Ok(());
    let analysis = setup.analysis();
    for batch in document::batches(suspicious, |f| f.bytes) {
        let mut chunked = analyse_batch(batch, |f| f, &analysis, progress);
        summary.taboo_chars += chunked.iter_mut().flatten().map(|doc| leave_out_taboo(doc, setup.taboo)).sum::<u64>();
        let hashes: Vec<&[u64]> =
            chunked.iter().map(|c| c.as_ref().map_or(&[][..], |c| &c.chunks.hashes[..])).collect();
        let hits = match &setup.params.align {
            None => lookup.hits(index, &hashes),
            Some(align) => lookup.hits_budgeted(index, &hashes, align.hit_budget()),
        };
        summary.input_bytes += batch.iter().map(|f| f.bytes).sum::<u64>();
        summary.skipped_files += chunked.iter().filter(|c| c.is_none()).count();
        summary.suspicious_chunks += chunked.iter().flatten().map(|c| c.chunks.len() as u64).sum::<u64>();
        let passages =
            batch.par_iter().zip(chunked).zip(hits).filter_map(|((file, chunks), hits)| Some((file, chunks?, hits)));
        let reported: Result<Vec<(u64, u64)>, Error> = passages
            .map_init(
                || PassageState::new(setup),
                |state, (file, doc, mut hits)| {
                    if setup.same_directory {
                        side.drop_hits_of(&file.name, &mut hits);
                    }
                    report_document(state, file, &doc, &mut hits, side, setup, sink)
                },
            )
            .collect();
        match reported {
            Ok(counts) => {
                summary.suspicious_documents += counts.len();
                summary.passages += counts.iter().map(|c| c.0).sum::<u64>();
                summary.candidate_pairs += counts.iter().map(|c| c.1).sum::<u64>();
            }
            Err(error) => {
                result = Err(error);
                break;
            }
        }
    }
    progress.finish();
    result
}

/// Finds the passages of one suspicious document among its hits, resolves
/// overlaps, and reports them; returns how many were reported and how many
/// document pairs were aligned.
#[allow(clippy::too_many_arguments)]
fn report_document(
    state: &mut PassageState<'_>,
    file: &DocumentFile,
    doc: &Document,
    hits: &mut [Hit],
    side: &SourceSide<'_>,
    setup: &Setup<'_>,
    sink: &dyn DetectionSink,
) -> Result<(u64, u64), Error> {
    let PassageState { candidates, intervals, passages, aligner } = state;
    let params = setup.params;
    let chunks = &doc.chunks;
    let listed = setup.pairs.map(|pairs| side.listed_sources(pairs, &file.name));
    passages.clear();
    let mut aligned_pairs = 0;
    match aligner {
        Some(align) => {
            let listed = listed.as_deref();
            aligned_pairs = align_document(align, &doc.text, doc, hits, side, listed, candidates, intervals, passages);
        }
        // With listed pairs every shared chunk counts: no candidate filtering.
        _ => candidates.for_each(hits, if listed.is_some() { 1 } else { params.min_common }, |source_doc, matches| {
            if listed.as_ref().is_some_and(|listed| listed.binary_search(&source_doc).is_err()) {
                return;
            }
            intervals.clear();
            valid_intervals(matches, &params.intervals, intervals);
            let source_ranges = &side.chunk_ranges[source_doc as usize];
            passages.extend(intervals.iter().filter_map(|interval| {
                let (suspicious, source) = interval.char_ranges(&chunks.ranges[..], source_ranges)?;
                Some(Passage { suspicious, source_doc, source, exact: false })
            }));
        }),
    }
    resolve_overlaps(passages, params.overlap);
    let detections: Vec<Detection<'_>> = passages
        .iter()
        .map(|p| Detection {
            this: p.suspicious,
            source_reference: &side.names[p.source_doc as usize],
            source: p.source,
        })
        .collect();
    sink.document(&file.name, &detections)?;
    Ok((detections.len() as u64, aligned_pairs))
}

/// Characters added on each side of the region where a candidate pair shares
/// chunks before it is aligned: the chunks of a heavily obfuscated passage may
/// miss its first and last sentences.
const WINDOW_MARGIN_CHARS: u32 = 2000;

/// The alignment stage for one suspicious document: aligns it with every source
/// document that shares enough candidate chunks, in the regions where they share
/// them, and appends the passages. With `listed` source documents (PAN's
/// text-alignment protocol) it aligns exactly those, whole. Returns the number
/// of aligned pairs.
#[allow(clippy::too_many_arguments)]
fn align_document(
    state: &mut AlignState<'_>,
    text: &str,
    doc: &Document,
    hits: &mut [Hit],
    side: &SourceSide<'_>,
    listed: Option<&[u32]>,
    candidates: &mut Candidates,
    intervals: &mut Vec<IntervalPair>,
    passages: &mut Vec<Passage>,
) -> u64 {
    let AlignState { aligner, params, candidate_docs, anchors, suspicious, source, aligned } = state;
    let chunks = &doc.chunks;
    candidate_docs.clear();
    anchors.clear();
    let interval_params =
        IntervalParams { min_chunks: params.candidate_min_common, max_gap: params.candidate_max_gap, depth: 2 };
    let min_common = if listed.is_some() { 1 } else { params.candidate_min_common };
    candidates.for_each(hits, min_common, |source_doc, matches| {
        let source_ranges = &side.chunk_ranges[source_doc as usize];
        let source_content = side.content_chunks[source_doc as usize];
        // Structure chunks shared by the pair anchor seeds where the content
        // words were replaced.
        let structure_anchors = |matches: &[ChunkMatch]| {
            let shared = matches.iter().filter(|m| m.suspicious >= doc.content_chunks && m.source >= source_content);
            shared
                .map(|m| (chunks.ranges[m.suspicious as usize], source_ranges.get(m.source as usize)))
                .collect::<Vec<_>>()
        };
        if let Some(listed) = listed {
            if listed.binary_search(&source_doc).is_ok() {
                let first_anchor = anchors.len();
                anchors.extend(structure_anchors(matches));
                candidate_docs.push(CandidatePair::whole(source_doc, first_anchor..anchors.len()));
            }
            return;
        }
        intervals.clear();
        valid_intervals(matches, &interval_params, intervals);
        // Structure chunks alone do not make a candidate: function-word runs are
        // common enough to join unrelated documents; some content must be shared.
        let content = matches.iter().filter(|m| m.suspicious < doc.content_chunks).count();
        if content < params.candidate_min_content {
            return;
        }
        let first_anchor = anchors.len();
        anchors.extend(structure_anchors(matches));
        let regions = intervals.iter().filter_map(|interval| {
            let (this, source) = interval.char_ranges(&chunks.ranges[..], source_ranges)?;
            Some((widen(this), widen(source), interval.matches))
        });
        for (this_window, source_window, strength) in merge_regions(regions) {
            candidate_docs.push(CandidatePair {
                source_doc,
                this_window,
                source_window,
                anchors: first_anchor..anchors.len(),
                strength,
            });
        }
    });
    match listed {
        // Listed pairs that share no chunk at all are aligned too.
        Some(listed) => {
            for &source_doc in listed {
                if !candidate_docs.iter().any(|c| c.source_doc == source_doc) {
                    candidate_docs.push(CandidatePair::whole(source_doc, 0..0));
                }
            }
        }
        None if candidate_docs.len() > MIN_CANDIDATE_PAIRS => {
            keep_strongest(candidate_docs, params.max_candidate_pairs(text.chars().count()));
        }
        None => {}
    }
    if candidate_docs.is_empty() {
        return 0;
    }
    if params.report_candidates {
        let whole = CharRange::new(0, text.chars().count() as u32);
        candidate_docs.dedup_by_key(|c| c.source_doc);
        passages.extend(candidate_docs.iter().map(|&CandidatePair { source_doc, .. }| {
            // Characters are at most bytes: the range covers the whole source.
            let bytes = side.files[source_doc as usize].bytes.min(u64::from(u32::MAX)) as u32;
            Passage { suspicious: whole, source_doc, source: CharRange::new(0, bytes), exact: false }
        }));
        return distinct_sources(candidate_docs);
    }
    let mut loaded: Option<(u32, String)> = None;
    for &CandidatePair { source_doc, this_window, source_window, anchors: ref pair_anchors, .. } in
        candidate_docs.iter()
    {
        if loaded.as_ref().is_none_or(|(doc, _)| *doc != source_doc) {
            // A source that cannot be read again (deleted since) is left out: it
            // was readable when indexed, and one file must not stop the run.
            loaded = match read::load(side.files[source_doc as usize]) {
                Loaded::Text(source_text, _) => Some((source_doc, source_text)),
                Loaded::Skipped(_) => None,
            };
        }
        let Some((_, source_text)) = &loaded else { continue };
        aligner.analyse_window(source_text, source_window, source);
        aligner.analyse_window(text, this_window, suspicious);
        aligned.clear();
        aligner.align(suspicious, source, &anchors[pair_anchors.clone()], aligned);
        passages.extend(aligned.iter().map(|p| Passage {
            suspicious: p.suspicious,
            source_doc,
            source: p.source,
            exact: p.exact,
        }));
    }
    distinct_sources(candidate_docs)
}

/// The number of source documents among `candidates` (sorted by document).
fn distinct_sources(candidates: &[CandidatePair]) -> u64 {
    1 + candidates.windows(2).filter(|w| w[0].source_doc != w[1].source_doc).count() as u64
}

/// The widened windows of a pair's intervals, with their matches, merged where
/// they overlap on both sides into regions aligned one at a time (with the
/// most matches of one of their intervals): text a pair shares in several
/// places is aligned where it is shared, not across everything in between.
fn merge_regions(regions: impl Iterator<Item = (CharRange, CharRange, usize)>) -> Vec<(CharRange, CharRange, usize)> {
    let mut regions: Vec<_> = regions.collect();
    regions.sort_unstable_by_key(|r| (r.0.start, r.1.start));
    let mut merged: Vec<(CharRange, CharRange, usize)> = Vec::with_capacity(regions.len());
    for region in regions {
        match merged.iter_mut().find(|m| m.0.overlaps(&region.0) && m.1.overlaps(&region.1)) {
            Some(m) => *m = (m.0.cover(&region.0), m.1.cover(&region.1), m.2.max(region.2)),
            None => merged.push(region),
        }
    }
    merged
}

/// The window of a whole document (it may run past the end of the text).
const WHOLE_DOCUMENT: CharRange = CharRange { start: 0, end: u32::MAX };

impl CandidatePair {
    /// A listed pair: both documents whole.
    fn whole(source_doc: u32, anchors: std::ops::Range<usize>) -> Self {
        CandidatePair { source_doc, this_window: WHOLE_DOCUMENT, source_window: WHOLE_DOCUMENT, anchors, strength: 0 }
    }
}

/// Keeps the `max` strongest of `candidates` (ties: lower document number
/// first), in document order: a suspicious document whose text occurs in many
/// sources aligns a number of regions that grows with its length, not with the
/// collection.
fn keep_strongest(candidates: &mut Vec<CandidatePair>, max: usize) {
    if candidates.len() <= max {
        return;
    }
    candidates.sort_unstable_by_key(|c| (std::cmp::Reverse(c.strength), c.source_doc, c.this_window.start));
    candidates.truncate(max);
    candidates.sort_unstable_by_key(|c| (c.source_doc, c.this_window.start));
}

/// `range` with [`WINDOW_MARGIN_CHARS`] more on each side (the end may pass the
/// end of the text).
fn widen(range: CharRange) -> CharRange {
    CharRange::new(range.start.saturating_sub(WINDOW_MARGIN_CHARS), range.end.saturating_add(WINDOW_MARGIN_CHARS))
}
