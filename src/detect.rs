//! The detection pipeline, end to end: read → tokenize → chunk → index (sources)
//! and read → tokenize → chunk → match → intervals → overlap → report
//! (suspicious documents), in parallel with rayon.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::chunk::{Chunker, Chunks};
use crate::corpus::{self, DocumentFile, Loaded};
use crate::error::Error;
use crate::index::{ChunkIndex, ChunkKey, IndexBuilder};
use crate::intervals::{IntervalPair, valid_intervals};
use crate::overlap::{Passage, resolve_overlaps};
use crate::params::DetectParams;
use crate::progress::{Progress, Stage};
use crate::report::{Detection, DetectionSink};
use crate::search::Matcher;
use crate::span::CharRange;
use crate::tokenize::{Tokenizer, Tokens};

/// Source documents read per parallel batch while the index is filled; bounds the
/// chunk lists held at once.
const SOURCE_BATCH: usize = 256;

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
    /// Time to read, tokenize and chunk the sources.
    pub read_sources: Duration,
    /// Time to sort the index.
    pub build_index: Duration,
    /// Time to read and match the suspicious documents and write the reports.
    pub matching: Duration,
}

/// Detects passages of the `*.txt` documents in `suspicious_dir` copied from
/// those in `source_dir`, and pushes every suspicious document's detections into
/// `sink`.
pub fn detect(
    source_dir: &Path,
    suspicious_dir: &Path,
    params: &DetectParams,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    params.validate()?;
    let sources = corpus::list_text_files(source_dir)?;
    let suspicious = corpus::list_text_files(suspicious_dir)?;
    if params.chunks.hash_bits <= u32::WIDTH {
        run::<u32>(&sources, &suspicious, params, sink, progress)
    } else {
        run::<u64>(&sources, &suspicious, params, sink, progress)
    }
}

fn run<K: ChunkKey>(
    sources: &[DocumentFile],
    suspicious: &[DocumentFile],
    params: &DetectParams,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    let mut summary = Summary::default();
    let started = Instant::now();
    let (side, builder) = read_sources::<K>(sources, params, progress, &mut summary);
    summary.read_sources = started.elapsed();

    let started = Instant::now();
    progress.start(Stage::BuildIndex, 0);
    let index = builder.build();
    progress.finish();
    summary.build_index = started.elapsed();

    let started = Instant::now();
    match_suspicious(suspicious, &side, &index, params, sink, progress, &mut summary)?;
    summary.matching = started.elapsed();
    Ok(summary)
}

/// What the matching stage needs of the source documents besides the index.
struct SourceSide {
    names: Vec<String>,
    chunk_ranges: Vec<Vec<CharRange>>,
}

/// Per-thread buffers for reading and chunking one document at a time.
struct ChunkingState {
    tokenizer: Tokenizer,
    chunker: Chunker,
    tokens: Tokens,
    chunks: Chunks,
}

impl ChunkingState {
    fn new(params: &DetectParams) -> Self {
        ChunkingState {
            tokenizer: Tokenizer::new(params.tokenizer),
            chunker: Chunker::new(params.chunks),
            tokens: Tokens::default(),
            chunks: Chunks::default(),
        }
    }

    /// Loads `file` and chunks it into `self.chunks`; `None` when it was skipped.
    fn load_and_chunk(&mut self, file: &DocumentFile, progress: &dyn Progress) -> Option<()> {
        let text = match corpus::load(file) {
            Loaded::Text(text, warning) => {
                if let Some(warning) = warning {
                    progress.warn(&warning);
                }
                text
            }
            Loaded::Skipped(warning) => {
                progress.warn(&warning);
                return None;
            }
        };
        self.tokenizer.tokenize(&text, &mut self.tokens);
        self.chunker.chunk(&self.tokens, &mut self.chunks);
        Some(())
    }
}

fn read_sources<K: ChunkKey>(
    sources: &[DocumentFile],
    params: &DetectParams,
    progress: &dyn Progress,
    summary: &mut Summary,
) -> (SourceSide, IndexBuilder<K>) {
    progress.start(Stage::ReadSources, sources.iter().map(|f| f.bytes).sum());
    let mut side = SourceSide { names: Vec::new(), chunk_ranges: Vec::new() };
    let mut builder = IndexBuilder::<K>::new(params.chunks.hash_bits);
    for batch in sources.chunks(SOURCE_BATCH) {
        let chunked: Vec<Option<Chunks>> = batch
            .par_iter()
            .map_init(
                || ChunkingState::new(params),
                |state, file| {
                    let loaded = state.load_and_chunk(file, progress);
                    progress.advance(file.bytes);
                    loaded.map(|()| state.chunks.clone())
                },
            )
            .collect();
        for (file, chunks) in batch.iter().zip(chunked) {
            summary.input_bytes += file.bytes;
            let Some(chunks) = chunks else {
                summary.skipped_files += 1;
                continue;
            };
            builder.add_document(side.names.len() as u32, &chunks.hashes);
            summary.source_chunks += chunks.len() as u64;
            side.names.push(file.name.clone());
            side.chunk_ranges.push(chunks.ranges);
        }
    }
    summary.source_documents = side.names.len();
    progress.finish();
    (side, builder)
}

/// Per-thread buffers of the matching stage.
struct MatchingState {
    chunking: ChunkingState,
    matcher: Matcher,
    intervals: Vec<IntervalPair>,
    passages: Vec<Passage>,
}

/// Counters summed over the matching threads.
#[derive(Default)]
struct MatchCounters {
    documents: AtomicU64,
    skipped: AtomicU64,
    bytes: AtomicU64,
    chunks: AtomicU64,
    passages: AtomicU64,
}

fn match_suspicious<K: ChunkKey>(
    suspicious: &[DocumentFile],
    side: &SourceSide,
    index: &ChunkIndex<K>,
    params: &DetectParams,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
    summary: &mut Summary,
) -> Result<(), Error> {
    progress.start(Stage::Match, suspicious.iter().map(|f| f.bytes).sum());
    let counters = MatchCounters::default();
    let result = suspicious.par_iter().try_for_each_init(
        || MatchingState {
            chunking: ChunkingState::new(params),
            matcher: Matcher::default(),
            intervals: Vec::new(),
            passages: Vec::new(),
        },
        |state, file| {
            let outcome = match_document(state, file, side, index, params, sink, progress, &counters);
            counters.bytes.fetch_add(file.bytes, Ordering::Relaxed);
            progress.advance(file.bytes);
            outcome
        },
    );
    progress.finish();
    summary.suspicious_documents = counters.documents.into_inner() as usize;
    summary.skipped_files += counters.skipped.into_inner() as usize;
    summary.input_bytes += counters.bytes.into_inner();
    summary.suspicious_chunks = counters.chunks.into_inner();
    summary.passages = counters.passages.into_inner();
    result
}

#[allow(clippy::too_many_arguments)] // The stage's inputs, passed down from one caller.
fn match_document<K: ChunkKey>(
    state: &mut MatchingState,
    file: &DocumentFile,
    side: &SourceSide,
    index: &ChunkIndex<K>,
    params: &DetectParams,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
    counters: &MatchCounters,
) -> Result<(), Error> {
    if state.chunking.load_and_chunk(file, progress).is_none() {
        counters.skipped.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    }
    let MatchingState { chunking, matcher, intervals, passages } = state;
    let suspicious_ranges = &chunking.chunks.ranges;
    passages.clear();
    matcher.for_each_candidate(index, &chunking.chunks.hashes, params.min_common, |source_doc, matches| {
        intervals.clear();
        valid_intervals(matches, &params.intervals, intervals);
        let source_ranges = &side.chunk_ranges[source_doc as usize];
        passages.extend(intervals.iter().map(|pair| Passage {
            suspicious: cover(suspicious_ranges, pair.suspicious),
            source_doc,
            source: cover(source_ranges, pair.source),
        }));
    });
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
    counters.documents.fetch_add(1, Ordering::Relaxed);
    counters.chunks.fetch_add(chunking.chunks.len() as u64, Ordering::Relaxed);
    counters.passages.fetch_add(detections.len() as u64, Ordering::Relaxed);
    Ok(())
}

/// The characters from the start of chunk `first` to the end of chunk `last`.
fn cover(chunk_ranges: &[CharRange], (first, last): (u32, u32)) -> CharRange {
    CharRange::new(chunk_ranges[first as usize].start, chunk_ranges[last as usize].end)
}
