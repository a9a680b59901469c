//! The detection pipeline, end to end: read → tokenize → chunk → index (sources)
//! and read → tokenize → chunk → match → intervals → overlap → report
//! (suspicious documents), in parallel with rayon.

use std::path::Path;
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
use crate::search::{BatchLookup, Candidates, Hit};
use crate::span::PackedRanges;
use crate::tokenize::{Tokenizer, Tokens};

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
    chunk_ranges: Vec<PackedRanges>,
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

/// Bytes of text chunked per parallel batch, per thread: bounds the chunk lists
/// and lookups held at once (about 5 bytes of buffers per byte of text).
const BATCH_BYTES_PER_THREAD: u64 = 4 << 20;

/// Splits `files` into consecutive batches of about `max_bytes` each (at least
/// one file per batch).
fn batches(files: &[DocumentFile], max_bytes: u64) -> impl Iterator<Item = &[DocumentFile]> {
    let mut rest = files;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut bytes = 0;
        let len = rest.iter().take_while(|f| {
            bytes += f.bytes;
            bytes <= max_bytes
        });
        let (batch, tail) = rest.split_at(len.count().max(1));
        rest = tail;
        Some(batch)
    })
}

fn batch_bytes() -> u64 {
    BATCH_BYTES_PER_THREAD * rayon::current_num_threads() as u64
}

/// Loads and chunks a batch of documents in parallel; `None` for skipped files.
fn chunk_batch(batch: &[DocumentFile], params: &DetectParams, progress: &dyn Progress) -> Vec<Option<Chunks>> {
    batch
        .par_iter()
        .map_init(
            || ChunkingState::new(params),
            |state, file| {
                let loaded = state.load_and_chunk(file, progress);
                progress.advance(file.bytes);
                loaded.map(|()| state.chunks.clone())
            },
        )
        .collect()
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
    for batch in batches(sources, batch_bytes()) {
        for (file, chunks) in batch.iter().zip(chunk_batch(batch, params, progress)) {
            summary.input_bytes += file.bytes;
            let Some(chunks) = chunks else {
                summary.skipped_files += 1;
                continue;
            };
            builder.add_document(side.names.len() as u32, &chunks.hashes);
            summary.source_chunks += chunks.len() as u64;
            side.names.push(file.name.clone());
            side.chunk_ranges.push(PackedRanges::new(&chunks.ranges));
        }
    }
    summary.source_documents = side.names.len();
    progress.finish();
    (side, builder)
}

/// Per-thread buffers of the interval and report step.
#[derive(Default)]
struct PassageState {
    candidates: Candidates,
    intervals: Vec<IntervalPair>,
    passages: Vec<Passage>,
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
    let mut lookup = BatchLookup::default();
    let mut result = Ok(());
    for batch in batches(suspicious, batch_bytes()) {
        let chunked = chunk_batch(batch, params, progress);
        let hashes: Vec<&[u64]> = chunked.iter().map(|c| c.as_ref().map_or(&[][..], |c| &c.hashes[..])).collect();
        let hits = lookup.hits(index, &hashes);
        summary.input_bytes += batch.iter().map(|f| f.bytes).sum::<u64>();
        summary.skipped_files += chunked.iter().filter(|c| c.is_none()).count();
        summary.suspicious_chunks += chunked.iter().flatten().map(|c| c.len() as u64).sum::<u64>();
        let passages =
            batch.par_iter().zip(chunked).zip(hits).filter_map(|((file, chunks), hits)| Some((file, chunks?, hits)));
        let reported: Result<Vec<u64>, Error> = passages
            .map_init(PassageState::default, |state, (file, chunks, mut hits)| {
                report_document(state, file, &chunks, &mut hits, side, params, sink)
            })
            .collect();
        match reported {
            Ok(counts) => {
                summary.suspicious_documents += counts.len();
                summary.passages += counts.iter().sum::<u64>();
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
/// overlaps, and reports them; returns how many were reported.
fn report_document(
    state: &mut PassageState,
    file: &DocumentFile,
    chunks: &Chunks,
    hits: &mut [Hit],
    side: &SourceSide,
    params: &DetectParams,
    sink: &dyn DetectionSink,
) -> Result<u64, Error> {
    let PassageState { candidates, intervals, passages } = state;
    passages.clear();
    candidates.for_each(hits, params.min_common, |source_doc, matches| {
        intervals.clear();
        valid_intervals(matches, &params.intervals, intervals);
        let source_ranges = &side.chunk_ranges[source_doc as usize];
        passages.extend(intervals.iter().map(|&IntervalPair { suspicious, source, .. }| Passage {
            suspicious: chunks.ranges[suspicious.0 as usize].cover(&chunks.ranges[suspicious.1 as usize]),
            source_doc,
            source: source_ranges.get(source.0 as usize).cover(&source_ranges.get(source.1 as usize)),
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
    Ok(detections.len() as u64)
}
