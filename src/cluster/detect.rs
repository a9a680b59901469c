//! `detect` on a [`Cluster`]: the ITA'09 dataflow on timely.
//!
//! - Every worker reads its share of the source documents (a stable hash of
//!   the name picks the worker) and sends each chunk to the worker that owns
//!   its range of hashes. Each worker builds its part of the index.
//! - Every worker reads its share of the suspicious documents in batches and
//!   sends their chunks the same way, as lookups.
//! - Each part of the index sends its hits (suspicious chunk, source document
//!   and chunk, with the source chunk's characters) to the worker that owns
//!   the suspicious document. That worker spends the hit budget on all of
//!   them, finds the passages (valid intervals, or the alignment of `best`)
//!   and writes the document's report.
//!
//! Passages begin and end at matching chunks, so the characters of the
//! source chunks that were hit are all a report needs of a source's chunks;
//! the alignment of `best` reads the source's text from the shared
//! directories. The source documents keep their numbers in the listing (name
//! order) and every step is the one-process run's, so the reports are byte
//! for byte those of [`crate::detect`].

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::operators::generic::OutputBuilderSession;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use super::Cluster;
use crate::analysis::document::{self, Analyzer, Document};
use crate::analysis::read::{self, DocumentFile, TextReader};
use crate::analysis::span::{CharRange, ChunkRanges, PackedRanges, union_len};
use crate::analysis::taboo;
use crate::archive::failpoints::crash_point;
use crate::detect::params::DetectParams;
use crate::detect::parts::{self, Part};
use crate::detect::{
    FoundInParts, RunFiles, Scope, Setup, Summary, drop_hits_of, listed_sources, report_document, report_parts,
    run_taboo,
};
use crate::error::Error;
use crate::matching::index::{ChunkIndex, ChunkKey, IndexBuilder, KeyWidth};
use crate::matching::search::{BatchLookup, Hit, HitBudget, keep_within_budget};
use crate::passages::{PassageFinder, SourceDocuments};
use crate::progress::{Progress, Stage};
use crate::report::DetectionSink;

/// Bytes of suspicious text a worker reads per round (as one thread of
/// [`crate::detect`] does per batch).
const ROUND_BYTES: u64 = 2 << 20;

/// Detects as [`crate::detect::detect_with`] does, on the workers of
/// `cluster`; this process writes the reports of its workers' suspicious
/// documents into `sink`. `job` is a hash of what every process's command
/// must share. Returns this process's part of the run and the bytes it sent
/// to other processes.
#[allow(clippy::too_many_arguments)]
pub fn detect(
    cluster: &Cluster,
    job: u64,
    source_dir: &Path,
    suspicious_dir: &Path,
    params: &DetectParams,
    scope: &Scope<'_>,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<(Summary, u64), Error> {
    params.validate()?;
    let files = RunFiles::list(source_dir, suspicious_dir, scope, progress)?;
    let (params, stock) = params.for_collection(&files.sources, TextReader::new(scope.text_cache), scope.synonyms);
    let params = &params;
    let peers = cluster.peers();
    let mine = cluster.my_workers();
    let owned = |file: &&DocumentFile| mine.contains(&document_worker(&file.name, peers));
    let my_names: Vec<&str> = files.suspicious.iter().filter(owned).map(|file| file.name.as_str()).collect();
    sink.prepare(&[source_dir, suspicious_dir], &my_names, &files.source_names(), progress)?;
    let taboo = run_taboo(params, scope);
    let setup = Setup::new(params, scope, files.same_directory, &taboo, stock.as_ref());
    let my_bytes = files.sources.iter().chain(&files.suspicious).filter(owned).map(|file| file.bytes).sum();
    progress.start(Stage::Match, my_bytes);
    let ran = match KeyWidth::of(params.chunks.hash_bits) {
        KeyWidth::U32 => cluster.run(job, |worker| run_worker::<u32>(worker, &files, &setup, sink, progress)),
        KeyWidth::U64 => cluster.run(job, |worker| run_worker::<u64>(worker, &files, &setup, sink, progress)),
    };
    progress.finish();
    let (results, sent) = ran.map_err(Error::Cluster)?;
    // Every process lists the directories and warns of what it skips.
    let mut summary = Summary { skipped_files: files.skipped, ..Summary::default() };
    for result in results {
        add_summary(&mut summary, &result?);
    }
    sink.finish()?;
    Ok((summary, sent))
}

/// The worker (of `peers`) that reads the document named `name`: the high
/// bits of the name's XXH3 scaled to the workers (its residue modulo small
/// numbers is poorly spread over names that differ in one digit).
pub fn document_worker(name: &str, peers: usize) -> usize {
    let hash = xxhash_rust::xxh3::xxh3_64(name.as_bytes());
    ((u128::from(hash) * peers as u128) >> 64) as usize
}

/// The worker (of `peers`) whose part of the index holds `hash`, a hash of
/// `hash_bits` bits: the hash space cut into equal ranges.
pub fn hash_worker(hash: u64, hash_bits: u32, peers: usize) -> usize {
    let top = u128::from(hash << (64 - hash_bits));
    ((top * peers as u128) >> 64) as usize
}

/// Some chunks of a source document, sent to the part of the index that holds
/// their hashes.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SourceChunks<K> {
    /// The worker whose part of the index they go to.
    to: u32,
    /// The source document's number.
    doc: u32,
    /// The document's content chunks (its structure chunks follow them).
    content_chunks: u32,
    /// The chunks' sequence numbers, increasing.
    seqs: Vec<u32>,
    /// Their hashes.
    hashes: Vec<K>,
    /// Their characters.
    ranges: Vec<CharRange>,
}

/// Some chunks of a suspicious document to look up.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Lookups<K> {
    /// The worker whose part of the index holds their hashes.
    to: u32,
    /// The worker that owns the document, where its hits go.
    owner: u32,
    /// The document's place in its owner's round.
    doc: u32,
    /// The chunks' sequence numbers.
    seqs: Vec<u32>,
    /// Their hashes.
    hashes: Vec<K>,
}

/// The hits of some chunks of a suspicious document, sent to its owner.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct DocumentHits {
    /// The owner.
    to: u32,
    /// The document's place in its owner's round.
    doc: u32,
    /// The hits, by the chunks' sequence numbers in the document.
    hits: Vec<Hit>,
    /// The characters of each hit's source chunk.
    ranges: Vec<CharRange>,
    /// The content chunks of each source document hit: (document, content chunks).
    content_chunks: Vec<(u32, u32)>,
}

/// An input of a worker's dataflow.
type DataInput<D> = InputHandle<u32, CapacityContainerBuilder<Vec<D>>>;

/// The hits that arrived at a worker, by round (the time of their lookups).
type Arrived = Rc<RefCell<HashMap<u32, Vec<DocumentHits>>>>;

/// Where a worker's hits arrive.
struct Hits {
    /// Tells when a round's hits have all arrived.
    probe: ProbeHandle<u32>,
    arrived: Arrived,
    /// The time this worker took to build its part of the index.
    index_built_in: Rc<Cell<Duration>>,
}

/// A worker's dataflow: its inputs (source chunks, all at time 0; lookups,
/// a round at each time from 1) and where its hits arrive.
type Dataflow<K> = (DataInput<SourceChunks<K>>, DataInput<Lookups<K>>, Hits);

/// Builds the dataflow of a worker: source chunks and lookups go to the
/// parts of the index that hold their hashes, hits to the documents' owners.
fn dataflow<K: ChunkKey + Serialize + DeserializeOwned>(worker: &mut Worker, setup: &Setup<'_>) -> Dataflow<K> {
    let hash_bits = setup.params.chunks.hash_bits;
    let max_postings = setup.hit_budget().max_postings;
    let arrived: Arrived = Rc::default();
    let collected = Rc::clone(&arrived);
    let probe = ProbeHandle::new();
    let index_built_in: Rc<Cell<Duration>> = Rc::default();
    let build_time = Rc::clone(&index_built_in);
    let (sources, lookups) = worker.dataflow::<u32, _, _>(|scope| {
        let (source_input, source_chunks) = scope.new_input::<Vec<SourceChunks<K>>>();
        let (lookup_input, lookups) = scope.new_input::<Vec<Lookups<K>>>();
        let to_index = Exchange::new(|chunks: &SourceChunks<K>| u64::from(chunks.to));
        let to_lookup = Exchange::new(|lookups: &Lookups<K>| u64::from(lookups.to));
        let hits = source_chunks.binary_frontier(lookups, to_index, to_lookup, "IndexPart", move |_, _| {
            let mut part = IndexPart::<K>::new(hash_bits, max_postings);
            let mut waiting = Vec::new();
            move |(sources, sources_frontier), (lookups, _), output| {
                sources.for_each_stamp(|_, data| data.for_each(|batch| part.receive(batch.drain(..))));
                if sources_frontier.frontier().is_empty() && !part.is_built() {
                    let started = Instant::now();
                    part.build();
                    build_time.set(started.elapsed());
                }
                lookups.for_each_stamp(|cap, data| {
                    if let Some(cap) = cap.retain_least(output.output_index()) {
                        waiting.push((cap, data.flat_map(|batch| batch.drain(..)).collect::<Vec<_>>()));
                    }
                });
                if part.is_built() {
                    for (cap, lookups) in waiting.drain(..) {
                        output.session(&cap).give_iterator(part.answer(&lookups).into_iter());
                    }
                }
            }
        });
        let to_owner = Exchange::new(|hits: &DocumentHits| u64::from(hits.to));
        hits.container::<Vec<DocumentHits>>()
            .unary(to_owner, "CollectHits", move |_, _| {
                move |input, _: &mut OutputBuilderSession<'_, u32, CapacityContainerBuilder<Vec<()>>>| {
                    input.for_each_stamp(|cap, data| {
                        let mut collected = collected.borrow_mut();
                        // Inputs move in whole rounds: one time per message.
                        let time = cap.least().copied().unwrap_or_default();
                        let round = collected.entry(time).or_default();
                        data.for_each(|batch| round.append(batch));
                    });
                }
            })
            .probe_with(&probe);
        (source_input, lookup_input)
    });
    (sources, lookups, Hits { probe, arrived, index_built_in })
}

/// One worker's part of the run: its sources into the index, then its
/// suspicious documents a round at a time, the next round's lookups sent
/// before the last round's hits are awaited.
fn run_worker<K: ChunkKey + Serialize + DeserializeOwned>(
    worker: &mut Worker,
    files: &RunFiles,
    setup: &Setup<'_>,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    let (sources, mut lookups, arriving) = dataflow::<K>(worker, setup);
    let mut summary = Summary::default();
    let mut analyzer = Analyzer::new(&setup.analysis());
    let started = Instant::now();
    send_sources(worker, sources, files, setup, &mut analyzer, progress, &mut summary);
    crash_point!(CLUSTER_SOURCES_SENT);
    summary.read_sources = started.elapsed();

    let started = Instant::now();
    let (me, peers) = (worker.index(), worker.peers());
    let my_suspicious: Vec<&DocumentFile> =
        files.suspicious.iter().filter(|file| document_worker(&file.name, peers) == me).collect();
    let mut reporter = Reporter {
        files,
        setup,
        sink,
        names: files.sources.iter().map(|f| f.name.clone()).collect(),
        finder: setup.passage_finder(false),
    };
    let mut result = Ok(());
    let mut sent: Option<Round<'_>> = None;
    for files in read::batches_by_bytes(&my_suspicious, ROUND_BYTES, |file| file.bytes) {
        let next = send_round(worker, &mut lookups, files, setup, &mut analyzer, progress, &mut summary);
        if let Some(round) = sent.replace(next) {
            result = result.and_then(|()| reporter.report(await_hits(worker, &arriving, round), &mut summary));
        }
    }
    lookups.close();
    if let Some(round) = sent {
        result = result.and_then(|()| reporter.report(await_hits(worker, &arriving, round), &mut summary));
    }
    // The index part was built while this worker awaited its first round.
    summary.build_index = arriving.index_built_in.get();
    summary.matching = started.elapsed().saturating_sub(summary.build_index);
    result.map(|()| summary)
}

/// Reads and analyses this worker's share of the sources and sends their
/// chunks (taboo chunks left out) to the parts of the index; then closes the
/// sources' input.
fn send_sources<K: ChunkKey + Serialize + DeserializeOwned>(
    worker: &mut Worker,
    mut input: DataInput<SourceChunks<K>>,
    files: &RunFiles,
    setup: &Setup<'_>,
    analyzer: &mut Analyzer<'_>,
    progress: &dyn Progress,
    summary: &mut Summary,
) {
    let (me, peers) = (worker.index(), worker.peers());
    let hash_bits = setup.params.chunks.hash_bits;
    let mine = files.sources.iter().enumerate().filter(|(_, file)| document_worker(&file.name, peers) == me);
    for (doc, file) in mine {
        summary.input_bytes += file.bytes;
        let document = analyzer.analyse_file(file, setup.reader, progress);
        progress.advance(file.bytes);
        let Some(document) = document else {
            summary.skipped_files += 1;
            continue;
        };
        summary.source_documents += 1;
        summary.source_chunks += document.chunks.len() as u64;
        let (doc, content_chunks) = (doc as u32, document.content_chunks);
        let kept = |hash| !setup.taboo.contains(hash);
        for (to, (seqs, hashes)) in split_by_hash(&document.chunks.hashes, kept, hash_bits, peers) {
            let ranges = seqs.iter().map(|&seq| document.chunks.ranges[seq as usize]).collect();
            input.send(SourceChunks { to, doc, content_chunks, seqs, hashes, ranges });
        }
        worker.step();
    }
    input.close();
}

/// A round of suspicious documents whose lookups were sent.
struct Round<'f> {
    /// The round's time.
    time: u32,
    /// Its documents, and the parts of its long documents, numbered by place
    /// in their lookups.
    entries: Vec<Entry<'f>>,
}

/// A suspicious document of a round, or a part of a long one.
struct Entry<'f> {
    file: &'f DocumentFile,
    /// For a part of a long document aligned in parts: which one.
    part: Option<PartPlace>,
    /// Its analysis (taboo text blanked); `None` for a skipped file.
    document: Option<Document>,
}

/// A part of a long document ([`crate::detect::parts`]).
struct PartPlace {
    number: usize,
    part: Part,
    /// The document's last part: its passages are reported after it.
    last: bool,
}

/// Reads and analyses a round of suspicious `files` (a long one in parts, as
/// a one-process run aligns it), sends their lookups, and moves the
/// lookups' input to the next round.
fn send_round<'f, K: ChunkKey + Serialize + DeserializeOwned>(
    worker: &mut Worker,
    input: &mut DataInput<Lookups<K>>,
    files: &'f [&'f DocumentFile],
    setup: &Setup<'_>,
    analyzer: &mut Analyzer<'_>,
    progress: &dyn Progress,
    summary: &mut Summary,
) -> Round<'f> {
    let (me, peers) = (worker.index() as u32, worker.peers());
    let hash_bits = setup.params.chunks.hash_bits;
    let time = (*input.time()).max(1);
    input.advance_to(time);
    let mut entries: Vec<Entry<'f>> = Vec::with_capacity(files.len());
    let mut send = |document: &Document, place: usize| {
        for (to, (seqs, hashes)) in split_by_hash(&document.chunks.hashes, |_| true, hash_bits, peers) {
            input.send(Lookups { to, owner: me, doc: place as u32, seqs, hashes });
        }
    };
    for file in files {
        summary.input_bytes += file.bytes;
        if setup.aligned_in_parts(file) {
            for entry in analyse_in_parts(file, setup, analyzer, progress, summary) {
                entry.document.iter().for_each(|document| send(document, entries.len()));
                entries.push(entry);
            }
        } else {
            let document = analyzer.analyse_file(file, setup.reader, progress).map(|mut document| {
                summary.taboo_chars += taboo::covered_chars(&document.blank_taboo(setup.taboo));
                summary.suspicious_chunks += document.chunks.len() as u64;
                send(&document, entries.len());
                document
            });
            entries.push(Entry { file, part: None, document });
        }
        progress.advance(file.bytes);
        worker.step();
    }
    input.advance_to(time + 1);
    Round { time, entries }
}

/// The parts of the long document `file`, analysed (one entry with no
/// document when it is skipped).
fn analyse_in_parts<'f>(
    file: &'f DocumentFile,
    setup: &Setup<'_>,
    analyzer: &mut Analyzer<'_>,
    progress: &dyn Progress,
    summary: &mut Summary,
) -> Vec<Entry<'f>> {
    let text = document::read_text(file, setup.reader, progress);
    let Some(text) = text else { return vec![Entry { file, part: None, document: None }] };
    let all = parts::parts(&text, setup.parts);
    let last = all.len() - 1;
    let mut taboo_regions = Vec::new();
    let entries = (all.into_iter().enumerate())
        .map(|(number, part)| {
            let analysed = part.analyse(analyzer, &text, setup.taboo);
            taboo_regions.extend(analysed.taboo);
            summary.suspicious_chunks += analysed.own_chunks;
            let part = Some(PartPlace { number, part, last: number == last });
            Entry { file, part, document: Some(analysed.document) }
        })
        .collect();
    summary.taboo_chars += union_len(&mut taboo_regions);
    entries
}

/// Waits until every hit of `round` has arrived; returns the round with its
/// hits by document.
fn await_hits<'f>(worker: &mut Worker, arriving: &Hits, round: Round<'f>) -> (Round<'f>, Vec<Gathered>) {
    // Parks between events: spinning would take the cores of other workers
    // and processes on this machine.
    while arriving.probe.less_equal(&round.time) {
        worker.step_or_park(None);
    }
    let arrived = arriving.arrived.borrow_mut().remove(&round.time).unwrap_or_default();
    let hits = hits_by_document(arrived.into_iter(), round.entries.len());
    (round, hits)
}

/// Finds and reports the passages of a worker's suspicious documents.
struct Reporter<'a> {
    files: &'a RunFiles,
    setup: &'a Setup<'a>,
    sink: &'a dyn DetectionSink,
    /// The names of all source documents, by number.
    names: Vec<String>,
    finder: PassageFinder<'a>,
}

impl Reporter<'_> {
    /// Reports the documents of a round whose hits have arrived; a long
    /// document's passages after its last part.
    fn report(
        &mut self,
        (round, mut gathered): (Round<'_>, Vec<Gathered>),
        summary: &mut Summary,
    ) -> Result<(), Error> {
        let setup = self.setup;
        let mut in_parts = FoundInParts::default();
        for (Entry { file, part, document }, Gathered { hits, sources }) in round.entries.iter().zip(&mut gathered) {
            let Some(document) = document else {
                summary.skipped_files += 1;
                continue;
            };
            keep_within_budget(hits, &document.chunks.hashes, setup.hit_budget());
            if setup.same_directory {
                drop_hits_of(&self.names, &file.name, hits);
            }
            let sources = HitSources { files: &self.files.sources, setup, chunks: std::mem::take(sources) };
            let Some(PartPlace { number, part, last }) = part else {
                let (passages, pairs) =
                    report_document(&mut self.finder, file, document, hits, &sources, &self.names, setup, self.sink)?;
                summary.suspicious_documents += 1;
                summary.passages += passages;
                summary.candidate_pairs += pairs;
                continue;
            };
            let listed = setup.pairs.map(|pairs| listed_sources(&self.names, pairs, &file.name));
            let (passages, part_held, pairs) = self.finder.find_in_part(document, hits, &sources, listed.as_deref());
            in_parts.passages.extend(passages.iter().map(|p| (*number, part.passage_in_text(p))));
            in_parts.held.extend(part_held.iter().map(|p| (*number, part.passage_in_text(p))));
            summary.candidate_pairs += pairs;
            if *last {
                in_parts.chars = part.first_char as usize + document.text.chars().count();
                summary.passages += report_parts(file, std::mem::take(&mut in_parts), &self.names, setup, self.sink)?;
                summary.suspicious_documents += 1;
            }
        }
        Ok(())
    }
}

/// The chunks of a document (`hashes[seq]`) that pass `keep`, split by the
/// worker whose part of the index holds them: (worker, (sequence numbers,
/// hashes)) for each worker that gets some.
fn split_by_hash<K: ChunkKey>(
    hashes: &[u64],
    keep: impl Fn(u64) -> bool,
    hash_bits: u32,
    peers: usize,
) -> impl Iterator<Item = (u32, (Vec<u32>, Vec<K>))> {
    let mut parts: Vec<(Vec<u32>, Vec<K>)> = vec![(Vec::new(), Vec::new()); peers];
    for (seq, &hash) in (0u32..).zip(hashes) {
        if keep(hash) {
            let part = &mut parts[hash_worker(hash, hash_bits, peers)];
            part.0.push(seq);
            part.1.push(K::from_hash(hash));
        }
    }
    (0u32..).zip(parts).filter(|(_, (seqs, _))| !seqs.is_empty())
}

/// All the hits of one suspicious document, with the source chunks they hit
/// by source document.
#[derive(Debug, Default)]
struct Gathered {
    hits: Vec<Hit>,
    sources: HashMap<u32, HitChunks>,
}

/// The hits that arrived for a round of `documents` documents, by document.
fn hits_by_document(arrived: impl Iterator<Item = DocumentHits>, documents: usize) -> Vec<Gathered> {
    let mut by_document: Vec<Gathered> = (0..documents).map(|_| Gathered::default()).collect();
    for part in arrived {
        let Gathered { hits, sources } = &mut by_document[part.doc as usize];
        for &(doc, content_chunks) in &part.content_chunks {
            sources.entry(doc).or_default().content_chunks = content_chunks;
        }
        for (hit, range) in part.hits.iter().zip(&part.ranges) {
            sources.entry(hit.source_doc).or_default().chunks.push((hit.chunk.source, *range));
        }
        hits.extend(part.hits);
    }
    for chunks in by_document.iter_mut().flat_map(|gathered| gathered.sources.values_mut()) {
        chunks.chunks.sort_unstable_by_key(|&(seq, _)| seq);
        chunks.chunks.dedup_by_key(|&mut (seq, _)| seq);
    }
    by_document
}

/// The sums of two workers' summaries.
fn add_summary(sum: &mut Summary, part: &Summary) {
    sum.source_documents += part.source_documents;
    sum.suspicious_documents += part.suspicious_documents;
    sum.skipped_files += part.skipped_files;
    sum.input_bytes += part.input_bytes;
    sum.source_chunks += part.source_chunks;
    sum.suspicious_chunks += part.suspicious_chunks;
    sum.passages += part.passages;
    sum.taboo_chars += part.taboo_chars;
    sum.candidate_pairs += part.candidate_pairs;
    sum.read_sources = sum.read_sources.max(part.read_sources);
    sum.build_index = sum.build_index.max(part.build_index);
    sum.matching = sum.matching.max(part.matching);
}

/// One worker's part of the index: the source chunks of its range of hashes,
/// indexed once every worker has sent its sources, their characters and
/// their documents' content chunks kept beside it.
///
/// The part numbers the documents in the order their chunks arrive (the
/// index wants increasing numbers, and documents arrive in any order) and
/// gives the hits the documents' own numbers back.
struct IndexPart<K: ChunkKey> {
    max_postings: usize,
    builder: Option<IndexBuilder<K>>,
    index: Option<ChunkIndex<K>>,
    /// The documents, by their number in the part.
    documents: Vec<PartDocument>,
    lookup: BatchLookup,
}

/// What a part of the index keeps of one source document.
struct PartDocument {
    /// The document's number in the run.
    doc: u32,
    /// Its content chunks.
    content_chunks: u32,
    /// The sequence numbers of its chunks in this part, increasing.
    seqs: Vec<u32>,
    /// Their characters.
    ranges: PackedRanges,
}

impl<K: ChunkKey> IndexPart<K> {
    fn new(hash_bits: u32, max_postings: usize) -> Self {
        let builder = Some(IndexBuilder::new(hash_bits));
        IndexPart { max_postings, builder, index: None, documents: Vec::new(), lookup: BatchLookup::default() }
    }

    /// Adds the chunks a worker sent.
    fn receive(&mut self, received: impl Iterator<Item = SourceChunks<K>>) {
        let Some(builder) = &mut self.builder else { return };
        for chunks in received {
            let SourceChunks { doc, content_chunks, seqs, hashes, ranges, .. } = chunks;
            let local = self.documents.len() as u32;
            builder.add_chunks(local, seqs.iter().copied().zip(hashes.into_iter().map(K::to_hash)));
            self.documents.push(PartDocument { doc, content_chunks, seqs, ranges: PackedRanges::new(&ranges) });
        }
    }

    fn is_built(&self) -> bool {
        self.index.is_some()
    }

    /// Indexes the chunks received (once).
    fn build(&mut self) {
        if let Some(builder) = self.builder.take() {
            self.index = Some(builder.build());
        }
    }

    /// The hits of `lookups` (chunks with more than `max_postings`
    /// occurrences give none), one message per document that has some.
    fn answer(&mut self, lookups: &[Lookups<K>]) -> Vec<DocumentHits> {
        let Some(index) = &self.index else { return Vec::new() };
        let hashes: Vec<Vec<u64>> =
            lookups.iter().map(|lookup| lookup.hashes.iter().map(|hash| hash.to_hash()).collect()).collect();
        let docs: Vec<&[u64]> = hashes.iter().map(Vec::as_slice).collect();
        let budget = HitBudget { max_postings: self.max_postings, ..HitBudget::UNBOUNDED };
        let found = self.lookup.found(index, &docs, budget);
        let mut answers = Vec::new();
        for ((lookup, found), hashes) in lookups.iter().zip(found).zip(&hashes) {
            let mut hits = found.hits(index, hashes);
            if hits.is_empty() {
                continue;
            }
            let mut ranges = Vec::with_capacity(hits.len());
            let mut content_chunks = Vec::new();
            for hit in &mut hits {
                let document = &self.documents[hit.source_doc as usize];
                let at = document.seqs.binary_search(&hit.chunk.source).unwrap_or_default();
                ranges.push(document.ranges.chunk_range(at as u32).unwrap_or_default());
                content_chunks.push((document.doc, document.content_chunks));
                hit.source_doc = document.doc;
                hit.chunk.suspicious = lookup.seqs[hit.chunk.suspicious as usize];
            }
            content_chunks.sort_unstable();
            content_chunks.dedup();
            answers.push(DocumentHits { to: lookup.owner, doc: lookup.doc, hits, ranges, content_chunks });
        }
        answers
    }
}

/// The source chunks that one suspicious document's hits point to, in one
/// source document.
#[derive(Debug, Default)]
struct HitChunks {
    /// The document's content chunks.
    content_chunks: u32,
    /// (sequence number, characters), sorted by sequence number.
    chunks: Vec<(u32, CharRange)>,
}

impl ChunkRanges for HitChunks {
    fn chunk_range(&self, seq: u32) -> Option<CharRange> {
        let at = self.chunks.binary_search_by_key(&seq, |&(s, _)| s).ok()?;
        Some(self.chunks[at].1)
    }
}

/// The source documents as one suspicious document's passages see them: the
/// chunks its hits point to, and the files (for the alignment's texts).
struct HitSources<'a> {
    files: &'a [DocumentFile],
    setup: &'a Setup<'a>,
    chunks: HashMap<u32, HitChunks>,
}

/// The chunks of a source document without hits: none.
static NO_CHUNKS: HitChunks = HitChunks { content_chunks: 0, chunks: Vec::new() };

impl SourceDocuments for HitSources<'_> {
    type Ranges<'b>
        = &'b HitChunks
    where
        Self: 'b;

    fn chunk_ranges(&self, doc: u32) -> &HitChunks {
        self.chunks.get(&doc).unwrap_or(&NO_CHUNKS)
    }

    fn content_chunks(&self, doc: u32) -> u32 {
        self.chunk_ranges(doc).content_chunks
    }

    fn text(&self, doc: u32) -> Option<String> {
        self.setup.reader.load_text(&self.files[doc as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::taboo::TabooChunks;
    use crate::detect::params::Preset;
    use crate::detect::parts::PartSizes;
    use crate::progress::Silent;
    use crate::testutil::{CollectDetections, long_document_corpus};

    #[test]
    fn a_long_document_aligned_in_parts_by_two_workers_gives_the_passages_of_one_process() {
        let dir = tempfile::tempdir().unwrap();
        long_document_corpus(dir.path());
        let (src, susp) = (dir.path().join("src"), dir.path().join("susp"));
        let params = DetectParams::preset(Preset::Best);
        let one_process = CollectDetections::default();
        crate::detect::detect(&src, &susp, &params, &one_process, &Silent).unwrap();
        let scope = Scope::default();
        let files = RunFiles::list(&src, &susp, &scope, &Silent).unwrap();
        let taboo = TabooChunks::default();
        let parts = PartSizes { part: 2500, overlap: 1200 };
        let setup = Setup { parts, ..Setup::new(&params, &scope, false, &taboo, None) };
        let cluster = CollectDetections::default();
        let (summaries, _) =
            Cluster::local(2).run(1, |worker| run_worker::<u32>(worker, &files, &setup, &cluster, &Silent)).unwrap();
        let passages: u64 = summaries.into_iter().map(|summary| summary.unwrap().passages).sum();
        let (one_process, cluster) = (one_process.sorted(), cluster.sorted());
        assert_eq!(one_process.len(), 5, "{one_process:?}");
        assert_eq!(cluster, one_process);
        assert_eq!(passages, 5);
    }

    #[test]
    fn hash_ranges_cover_the_workers_in_order() {
        assert_eq!(hash_worker(0, 32, 4), 0);
        assert_eq!(hash_worker(u64::from(u32::MAX), 32, 4), 3);
        assert_eq!(hash_worker(1 << 31, 32, 4), 2);
        assert_eq!(hash_worker(u64::MAX, 64, 3), 2);
        assert_eq!(hash_worker(12345, 40, 1), 0);
        let owners: Vec<usize> = (0..16u64).map(|h| hash_worker(h, 4, 4)).collect();
        assert_eq!(owners, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    }

    #[test]
    fn documents_spread_evenly_over_the_workers() {
        for peers in [2, 3, 4, 7] {
            let mut counts = vec![0usize; peers];
            for i in 0..7000 {
                counts[document_worker(&format!("suspicious-document{i:05}.txt"), peers)] += 1;
            }
            let even = 7000 / peers;
            assert!(counts.iter().all(|&c| c.abs_diff(even) < even / 10), "{peers} workers: {counts:?}");
        }
        // Names a digit apart, as in a PAN corpus, go to several workers.
        let fixture: Vec<usize> =
            (1..=8).map(|i| document_worker(&format!("suspicious-document{i:05}.txt"), 3)).collect();
        assert!((0..3).all(|worker| fixture.contains(&worker)), "{fixture:?}");
    }

    #[test]
    fn chunks_split_by_hash_keep_their_sequence_numbers() {
        let hashes = [0u64, 15, 4, 9, 1];
        let parts: Vec<_> = split_by_hash::<u32>(&hashes, |hash| hash != 9, 4, 2).collect();
        assert_eq!(parts, [(0, (vec![0, 2, 4], vec![0, 4, 1])), (1, (vec![1], vec![15]))]);
    }
}
