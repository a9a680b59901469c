//! Extraction with no query: every passage duplicated inside one collection of
//! documents, after the `extract` of Scott Cotton's dupi, on the stages
//! `detect` runs.
//!
//! 1. Every document is read and chunked once ([`analyse_batch`]), or its chunk
//!    list is taken from an archive index, and all of them go into one
//!    [`ChunkIndex`].
//! 2. **Blots.** Each distinct chunk's *document frequency* (df: the number of
//!    documents holding it) is counted from its postings. With `sigma = K`,
//!    only chunks with df ≥ max(2, μ + K·σ) are kept, μ and σ being the mean
//!    and the (population) standard deviation of df over *every* distinct
//!    chunk of the collection, those of one document included (dupi's "mean
//!    docs per blot"); without it every shared chunk (df ≥ 2) is kept. The
//!    kept chunks are visited in decreasing df (ties: by hash), and each of
//!    their occurrences becomes a lookup of the document holding it, as if
//!    that document had been looked up in the index by `detect`: the same
//!    hit budget of the `best` preset applies (chunks with too many postings
//!    left out, the rarest chunks first within a document's budget).
//! 3. **Pairs.** A document's hits in *later* documents (in name order) are
//!    turned into passages by [`PassageFinder`], exactly as `detect` turns a
//!    suspicious document's hits into passages: valid intervals (`pan09`) or
//!    candidate regions aligned sentence by sentence (`best`). Every pair's
//!    passages are kept ([`OverlapPolicy::KeepAll`]: text that several
//!    documents share is a passage of each of their pairs, and the groups
//!    join them) unless [`ExtractOptions::overlap`] asks for another policy,
//!    which then resolves overlaps among a document's passages with later
//!    documents. Each unordered pair is thus compared once, and a document
//!    never with itself (text repeated inside one document is not reported).
//! 4. **Groups.** Passages of different pairs that overlap in a document are
//!    one group (union-find over the passages' two sides); a group lists each
//!    of its documents with the character ranges it covers there (overlapping
//!    ranges of one document merged), and an excerpt of its text.
//!
//! With the defaults (no `sigma`, every passage kept) the passages are those a
//! `detect --overlap keep-all` of the collection against itself finds with the
//! earlier document as the suspicious one, each pair once, and they include
//! every passage of a plain `detect` in either direction; see the README for
//! the measured agreement.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::document::{self, Document, analyse_batch};
use crate::analysis::read::{self, TextReader};
use crate::analysis::span::{CharRange, char_slice};
use crate::analysis::taboo::TabooChunks;
use crate::archive::{ArchiveError, ArchiveIndex};
use crate::detect::params::DetectParams;
use crate::error::{Error, Warning};
use crate::matching::index::{ChunkIndex, ChunkKey, IndexBuilder, KeyWidth};
use crate::matching::intervals::ChunkMatch;
use crate::matching::overlap::OverlapPolicy;
use crate::matching::search::{Hit, HitBudget, keep_rarest};
use crate::passages::{PassageFinder, SourceDocuments};
use crate::progress::{Progress, Stage};
use crate::report::output::write_atomically;
use crate::report::{Detection, DetectionSink};

/// Characters of a group's text shown as its excerpt (white space runs
/// counted as one); a longer text is cut and ends with `…`.
pub const EXCERPT_CHARS: usize = 160;

/// How duplicates are extracted, besides the detection parameters.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExtractOptions {
    /// Keep only chunks whose document frequency is at least μ + `sigma`·σ
    /// (and 2); `None` keeps every shared chunk.
    pub sigma: Option<f64>,
    /// How a document's passages with later documents that overlap are
    /// resolved; `None` keeps them all.
    pub overlap: Option<OverlapPolicy>,
    /// Read the documents in the directory's subfolders too
    /// ([`read::list_document_files`]).
    pub recursive: bool,
}

impl ExtractOptions {
    /// Refuses a `sigma` that is not a finite number.
    pub fn validate(&self) -> Result<(), ExtractError> {
        match self.sigma {
            Some(sigma) if !sigma.is_finite() => Err(ExtractError::Sigma(sigma)),
            _ => Ok(()),
        }
    }
}

/// Why an extraction stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// Reading the documents or writing the reports failed.
    #[error(transparent)]
    Detect(#[from] Error),
    /// The archive index could not be read.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// `--sigma` is not a number.
    #[error("--sigma {0}: not a finite number")]
    Sigma(f64),
    /// The output file would be a document of the collection.
    #[error("{out}: the output would lie among the documents of {dir} and be read as one; choose another place")]
    OutputAmongDocuments {
        /// The output file, as given.
        out: PathBuf,
        /// The documents' directory.
        dir: PathBuf,
    },
}

/// The document frequencies of the collection's chunks and the threshold
/// taken from them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BlotStats {
    /// Distinct chunks of the collection.
    pub distinct_chunks: u64,
    /// Distinct chunks in at least two documents.
    pub shared_chunks: u64,
    /// Distinct chunks kept (df ≥ `min_df`).
    pub kept_chunks: u64,
    /// Mean df over the distinct chunks (μ).
    pub mean: f64,
    /// Population standard deviation of df over the distinct chunks (σ).
    pub std_dev: f64,
    /// The least df kept: max(2, ⌈μ + K·σ⌉), or 2 without K.
    pub min_df: u32,
    /// The largest df.
    pub max_df: u32,
}

impl BlotStats {
    /// The statistics of the document frequencies `dfs` (one per distinct
    /// chunk) and the threshold for `sigma`.
    pub fn of(dfs: impl Iterator<Item = u32>, sigma: Option<f64>) -> BlotStats {
        let (mut n, mut sum, mut squares, mut shared, mut max_df) = (0u64, 0f64, 0f64, 0u64, 0u32);
        for df in dfs {
            n += 1;
            sum += f64::from(df);
            squares += f64::from(df) * f64::from(df);
            shared += u64::from(df >= 2);
            max_df = max_df.max(df);
        }
        let mean = if n == 0 { 0.0 } else { sum / n as f64 };
        let std_dev = if n == 0 { 0.0 } else { (squares / n as f64 - mean * mean).max(0.0).sqrt() };
        let min_df = match sigma {
            // A df is an integer: df ≥ x holds exactly when df ≥ ⌈x⌉. The
            // threshold is clamped to u32 before the cast (a huge K keeps nothing).
            Some(k) => (mean + k * std_dev).ceil().clamp(2.0, f64::from(u32::MAX)) as u32,
            None => 2,
        };
        BlotStats { distinct_chunks: n, shared_chunks: shared, kept_chunks: 0, mean, std_dev, min_df, max_df }
    }
}

/// A passage two documents share: `a` sorts before `b` by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PairPassage {
    /// The first document (number in name order).
    pub a: u32,
    /// Its characters.
    pub a_range: CharRange,
    /// The second document.
    pub b: u32,
    /// Its characters.
    pub b_range: CharRange,
}

/// One document's part in a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMember {
    /// The document (number in name order).
    pub doc: u32,
    /// The characters of the group's passages in it, sorted and disjoint.
    pub ranges: Vec<CharRange>,
}

/// Text shared by several documents: passages of different pairs that overlap
/// in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateGroup {
    /// Its documents, in name order.
    pub members: Vec<GroupMember>,
    /// The start of the text of its first range in its first document.
    pub excerpt: String,
}

impl DuplicateGroup {
    /// Characters its documents' ranges cover, all documents together.
    pub fn chars(&self) -> u64 {
        self.members.iter().flat_map(|m| &m.ranges).map(|r| u64::from(r.len())).sum()
    }
}

/// What an extraction found.
#[derive(Debug, Clone, Default)]
pub struct Extraction {
    /// The documents' names, by number (name order).
    pub names: Vec<String>,
    /// Every passage of every pair, each pair once, sorted.
    pub passages: Vec<PairPassage>,
    /// The groups, most documents first (then most characters).
    pub groups: Vec<DuplicateGroup>,
    /// The document frequencies and the threshold.
    pub blots: BlotStats,
    /// What the run did.
    pub summary: ExtractSummary,
}

/// What a run did, for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExtractSummary {
    /// Documents analysed.
    pub documents: u64,
    /// Files skipped as unreadable (or, in an archive, changed since indexed).
    pub skipped_files: u64,
    /// Bytes of the documents' files.
    pub input_bytes: u64,
    /// Chunks of all documents (postings of the index).
    pub chunks: u64,
    /// Document pairs aligned (`best`; 0 with the paper's method).
    pub aligned_pairs: u64,
    /// Reading and chunking the documents.
    pub read: Duration,
    /// Building the index and counting document frequencies.
    pub build_index: Duration,
    /// Finding the pairs' passages and grouping them.
    pub matching: Duration,
}

/// A document of the collection.
struct Member {
    name: String,
    doc: Document,
}

/// The analysed documents, numbered in name order.
struct Collection {
    members: Vec<Member>,
}

impl SourceDocuments for Collection {
    type Ranges<'a>
        = &'a [CharRange]
    where
        Self: 'a;

    fn chunk_ranges(&self, doc: u32) -> &[CharRange] {
        &self.members[doc as usize].doc.chunks.ranges
    }

    fn content_chunks(&self, doc: u32) -> u32 {
        self.members[doc as usize].doc.content_chunks
    }

    fn text(&self, doc: u32) -> Option<String> {
        Some(self.members[doc as usize].doc.text.clone())
    }
}

/// Extracts the duplicated passages of the documents directly in `dir` (as
/// `detect` lists them), found with `params`. A `sink` gets every document's
/// passages with the other documents (one report per document, as `detect`
/// writes them); its output is checked before any document is read.
pub fn extract_dir(
    dir: &Path,
    params: &DetectParams,
    options: &ExtractOptions,
    sink: Option<&dyn DetectionSink>,
    progress: &dyn Progress,
) -> Result<Extraction, ExtractError> {
    params.validate().map_err(Error::from)?;
    options.validate()?;
    // Duplicates are runs of shared chunks in order; word chunks would only add to their counts.
    let params = &params.without_word_chunks();
    let listing = read::list_document_files(dir, options.recursive, progress)?;
    let files = listing.documents;
    if let Some(sink) = sink {
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        sink.prepare(&[dir], &names, &names, progress)?;
    }
    let started = Instant::now();
    let mut summary = ExtractSummary { skipped_files: listing.skipped, ..ExtractSummary::default() };
    progress.start(Stage::ReadSources, files.iter().map(|f| f.bytes).sum());
    let analysis = params.analysis(None);
    let mut members = Vec::with_capacity(files.len());
    for batch in document::batches(&files, |f| f.bytes) {
        for (file, doc) in batch.iter().zip(analyse_batch(batch, |f| f, &analysis, TextReader::default(), progress)) {
            summary.input_bytes += file.bytes;
            match doc {
                Some(doc) => members.push(Member { name: file.name.clone(), doc }),
                None => summary.skipped_files += 1,
            }
        }
    }
    progress.finish();
    summary.read = started.elapsed();
    run(Collection { members }, params, options, &TabooChunks::default(), sink, summary, progress)
}

/// Extracts the duplicated passages of the live documents of an archive
/// `index`, with its settings (preset, tokenizer, chunks) and without its taboo
/// chunks: the texts read back from the documents directory and analysed
/// again (a document changed since it was indexed is skipped with a
/// warning). Documents are numbered by name, so the result is that of
/// [`extract_dir`] over the same documents. `sink` as for [`extract_dir`].
pub fn extract_index(
    index: &ArchiveIndex,
    options: &ExtractOptions,
    sink: Option<&dyn DetectionSink>,
    progress: &dyn Progress,
) -> Result<Extraction, ExtractError> {
    options.validate()?;
    let params = index.settings().detect_params();
    let mut ids: Vec<u32> = index.live_ids().collect();
    ids.sort_unstable_by(|&a, &b| index.name(a).cmp(index.name(b)));
    let docs_root = PathBuf::from(&index.header().docs_root);
    if let Some(sink) = sink {
        let names: Vec<&str> = ids.iter().map(|&id| index.name(id)).collect();
        sink.prepare(&[&docs_root], &names, &names, progress)?;
    }
    let started = Instant::now();
    let mut summary = ExtractSummary::default();
    progress.start(Stage::ReadSources, ids.iter().map(|&id| index.record(id).bytes).sum());
    let read: Vec<Result<Option<Member>, ArchiveError>> = ids
        .par_iter()
        .map(|&id| {
            progress.advance(index.record(id).bytes);
            // Taboo text is blanked, as `check` blanks it: it seeds no alignment.
            let Some(doc) = index.stored_document(id)? else {
                let path = docs_root.join(index.name(id));
                let message = "missing, unreadable or changed since it was indexed; skipped".to_string();
                progress.warn(&Warning { path, message });
                return Ok(None);
            };
            Ok(Some(Member { name: index.name(id).to_string(), doc }))
        })
        .collect();
    progress.finish();
    let mut members = Vec::with_capacity(read.len());
    for member in read {
        match member? {
            Some(member) => {
                summary.input_bytes += member.doc.bytes;
                members.push(member);
            }
            None => summary.skipped_files += 1,
        }
    }
    summary.read = started.elapsed();
    run(Collection { members }, &params, options, index.taboo(), sink, summary, progress)
}

/// The stages after reading, for either source of documents.
fn run(
    collection: Collection,
    params: &DetectParams,
    options: &ExtractOptions,
    taboo: &TabooChunks,
    sink: Option<&dyn DetectionSink>,
    mut summary: ExtractSummary,
    progress: &dyn Progress,
) -> Result<Extraction, ExtractError> {
    let params = DetectParams { overlap: options.overlap.unwrap_or(OverlapPolicy::KeepAll), ..*params };
    summary.documents = collection.members.len() as u64;
    summary.chunks = collection.members.iter().map(|m| m.doc.chunks.len() as u64).sum();
    let (passages, blots) = match KeyWidth::of(params.chunks.hash_bits) {
        KeyWidth::U32 => find_passages::<u32>(&collection, &params, options.sigma, taboo, &mut summary, progress),
        KeyWidth::U64 => find_passages::<u64>(&collection, &params, options.sigma, taboo, &mut summary, progress),
    };
    let started = Instant::now();
    let groups = group_passages(&passages)
        .into_iter()
        .map(|members| {
            let first = &members[0];
            let text = &collection.members[first.doc as usize].doc.text;
            let excerpt = excerpt(char_slice(text, first.ranges[0]).unwrap_or(""), EXCERPT_CHARS);
            DuplicateGroup { members, excerpt }
        })
        .collect();
    summary.matching += started.elapsed();
    let names = collection.members.into_iter().map(|m| m.name).collect();
    let extraction = Extraction { names, passages, groups, blots, summary };
    if let Some(sink) = sink {
        report(&extraction, sink)?;
        sink.finish()?;
    }
    Ok(extraction)
}

/// The number of distinct documents among the occurrences `chunk_numbers`
/// (a lookup's, ordered by document).
fn document_frequency<K: ChunkKey>(index: &ChunkIndex<K>, chunk_numbers: &[u32]) -> u32 {
    let mut previous = None;
    index.occurrences(chunk_numbers).filter(|&(doc, _)| previous.replace(doc) != Some(doc)).count() as u32
}

/// A kept chunk: its hash and the chunk numbers of its occurrences.
type Blot<'a> = (u64, &'a [u32]);

/// The kept chunks of `index` (df ≥ `stats.min_df`) in the order they are
/// visited: decreasing df, then increasing hash.
fn kept_blots<K: ChunkKey>(index: &ChunkIndex<K>, min_df: u32) -> Vec<Blot<'_>> {
    let mut blots: Vec<(u32, Blot<'_>)> = index
        .distinct_chunks()
        .map(|(hash, numbers)| (document_frequency(index, numbers), (hash, numbers)))
        .filter(|&(df, _)| df >= min_df)
        .collect();
    blots.sort_unstable_by_key(|&(df, (hash, _))| (std::cmp::Reverse(df), hash));
    blots.into_iter().map(|(_, blot)| blot).collect()
}

/// Index, blots and the passages of every pair.
fn find_passages<K: ChunkKey>(
    collection: &Collection,
    params: &DetectParams,
    sigma: Option<f64>,
    taboo: &TabooChunks,
    summary: &mut ExtractSummary,
    progress: &dyn Progress,
) -> (Vec<PairPassage>, BlotStats) {
    let started = Instant::now();
    progress.start(Stage::BuildIndex, 0);
    let mut builder = IndexBuilder::<K>::new(params.chunks.hash_bits);
    for (doc, member) in (0u32..).zip(&collection.members) {
        builder.add_document_where(doc, &member.doc.chunks.hashes, |hash| !taboo.contains(hash));
    }
    let index = builder.build();
    let mut blots =
        BlotStats::of(index.distinct_chunks().map(|(_, numbers)| document_frequency(&index, numbers)), sigma);
    let kept = kept_blots(&index, blots.min_df);
    blots.kept_chunks = kept.len() as u64;
    // Each occurrence of a kept chunk, as a lookup of its document: (blot, chunk).
    let budget = params.align.map_or(HitBudget::UNBOUNDED, |align| align.hit_budget());
    let mut found: Vec<Vec<(u32, u32)>> = vec![Vec::new(); collection.members.len()];
    for (blot, &(_, postings)) in (0u32..).zip(&kept) {
        if postings.len() > budget.max_postings {
            continue;
        }
        for (doc, seq) in index.occurrences(postings) {
            found[doc as usize].push((blot, seq));
        }
    }
    progress.finish();
    summary.build_index = started.elapsed();

    let started = Instant::now();
    progress.start(Stage::Match, collection.members.iter().map(|m| m.doc.bytes).sum());
    let per_document: Vec<(Vec<PairPassage>, u64)> = found
        .into_par_iter()
        .enumerate()
        .map_init(
            // No stock phrases: extraction reports all duplicated text, formulas too.
            || PassageFinder::new(params, None, None),
            |finder, (a, mut found)| {
                let member = &collection.members[a];
                let a = a as u32;
                let allowed = budget.per_chunk.saturating_mul(member.doc.chunks.len());
                keep_rarest(&mut found, allowed, |&(blot, seq)| {
                    let (hash, postings) = kept[blot as usize];
                    (postings.len(), hash, seq)
                });
                let mut hits: Vec<Hit> = found
                    .iter()
                    .flat_map(|&(blot, seq)| {
                        let occurrences = index.occurrences(kept[blot as usize].1);
                        occurrences.filter(move |&(doc, _)| doc > a).map(move |(source_doc, source)| Hit {
                            source_doc,
                            chunk: ChunkMatch { suspicious: seq, source },
                        })
                    })
                    .collect();
                progress.advance(member.doc.bytes);
                if hits.is_empty() {
                    return (Vec::new(), 0);
                }
                let (passages, aligned) = finder.find(&member.doc, &mut hits, collection, None);
                let passages = passages
                    .iter()
                    .map(|p| PairPassage { a, a_range: p.suspicious, b: p.source_doc, b_range: p.source })
                    .collect();
                (passages, aligned)
            },
        )
        .collect();
    progress.finish();
    summary.aligned_pairs = per_document.iter().map(|(_, aligned)| aligned).sum();
    let mut passages: Vec<PairPassage> = per_document.into_iter().flat_map(|(passages, _)| passages).collect();
    passages.sort_unstable();
    passages.dedup();
    summary.matching = started.elapsed();
    (passages, blots)
}

/// Union-find with path halving.
struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn new(len: usize) -> Self {
        UnionFind { parent: (0..len as u32).collect() }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b) as usize] = a.min(b);
        }
    }
}

/// Groups `passages`: the two sides of a passage are in one group, and so
/// are sides that overlap in one document (by at least one character). Each
/// group's members are its documents in number order, each with its ranges
/// merged where they overlap; groups come with most documents first, then
/// most characters, then by their first member.
pub fn group_passages(passages: &[PairPassage]) -> Vec<Vec<GroupMember>> {
    // Side 2i is passage i's side in `a`, side 2i + 1 its side in `b`.
    let sides: Vec<(u32, CharRange)> = passages.iter().flat_map(|p| [(p.a, p.a_range), (p.b, p.b_range)]).collect();
    let mut sets = UnionFind::new(sides.len());
    for i in 0..passages.len() as u32 {
        sets.union(2 * i, 2 * i + 1);
    }
    let mut order: Vec<u32> = (0..sides.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (sides[i as usize].0, sides[i as usize].1.start, sides[i as usize].1.end));
    // A sweep per document: a side overlapping the reach of those before it joins them.
    let mut reach: Option<(u32, u32, u32)> = None; // (document, end, a side of the run)
    for &i in &order {
        let (doc, range) = sides[i as usize];
        match reach {
            Some((d, end, side)) if d == doc && range.start < end => {
                sets.union(side, i);
                reach = Some((d, end.max(range.end), side));
            }
            _ => reach = Some((doc, range.end, i)),
        }
    }
    let mut by_root: std::collections::BTreeMap<u32, Vec<(u32, CharRange)>> = Default::default();
    for &i in &order {
        by_root.entry(sets.find(i)).or_default().push(sides[i as usize]);
    }
    let mut groups: Vec<Vec<GroupMember>> = by_root
        .into_values()
        .map(|sides| {
            // Sorted by (document, start): overlapping ranges of a document are adjacent.
            let mut members: Vec<GroupMember> = Vec::new();
            for (doc, range) in sides {
                match members.last_mut() {
                    Some(member) if member.doc == doc => match member.ranges.last_mut() {
                        Some(last) if range.start < last.end => *last = last.cover(&range),
                        _ => member.ranges.push(range),
                    },
                    _ => members.push(GroupMember { doc, ranges: vec![range] }),
                }
            }
            members
        })
        .collect();
    let chars =
        |group: &[GroupMember]| -> u64 { group.iter().flat_map(|m| &m.ranges).map(|r| u64::from(r.len())).sum() };
    groups.sort_by(|x, y| {
        (std::cmp::Reverse(x.len()), std::cmp::Reverse(chars(x)), x[0].doc, x[0].ranges[0]).cmp(&(
            std::cmp::Reverse(y.len()),
            std::cmp::Reverse(chars(y)),
            y[0].doc,
            y[0].ranges[0],
        ))
    });
    groups
}

/// `text` with each run of white space as one space, cut to `max` characters
/// (then ending with `…`).
pub fn excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, word) in text.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > max {
            let cut: String = out.chars().take(max).collect();
            return format!("{}…", cut.trim_end());
        }
    }
    out
}

/// Pushes each document's passages with the other documents into `sink`, one
/// report per document (empty when it shares nothing), ordered by position.
pub fn report(extraction: &Extraction, sink: &dyn DetectionSink) -> Result<(), Error> {
    let mut per_document: Vec<Vec<Detection<'_>>> = vec![Vec::new(); extraction.names.len()];
    for p in &extraction.passages {
        let (a, b) = (p.a as usize, p.b as usize);
        per_document[a].push(Detection { this: p.a_range, source_reference: &extraction.names[b], source: p.b_range });
        per_document[b].push(Detection { this: p.b_range, source_reference: &extraction.names[a], source: p.a_range });
    }
    per_document.into_par_iter().zip(&extraction.names).try_for_each(|(mut detections, name)| {
        detections.sort_unstable_by(|x, y| {
            (x.this, x.source_reference, x.source).cmp(&(y.this, y.source_reference, y.source))
        });
        sink.document(name, &detections)
    })
}

/// The first words of the text output, by which a rerun knows the file it
/// may replace.
const TEXT_HEADER: &str = "pan-detect extract:";

/// The formats of the groups as one file or stream ([`report`] writes PAN XML).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupFormat {
    /// For people: [`write_text`].
    Text,
    /// One JSON object per group: [`write_jsonl`].
    Jsonl,
}

impl GroupFormat {
    /// Writes the groups of `extraction` in this format.
    pub fn write(self, extraction: &Extraction, out: &mut dyn Write) -> io::Result<()> {
        match self {
            GroupFormat::Text => write_text(extraction, out),
            GroupFormat::Jsonl => write_jsonl(extraction, out),
        }
    }

    /// Whether `bytes`, an existing file's, are groups this format writes
    /// (or nothing), which a run may replace; the reason when not.
    pub fn check_is_output(self, bytes: &[u8]) -> Result<(), String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
        let first = text.lines().next().unwrap_or("");
        match self {
            GroupFormat::Text if text.is_empty() || first.starts_with(TEXT_HEADER) => Ok(()),
            GroupFormat::Text => Err(format!("its first line is not '{TEXT_HEADER} ...'")),
            GroupFormat::Jsonl if text.is_empty() => Ok(()),
            GroupFormat::Jsonl => match serde_json::from_str::<serde_json::Value>(first) {
                Ok(line) if line.get("group").is_some() && line.get("members").is_some() => Ok(()),
                _ => Err("its first line is not a group of pan-detect extract".to_string()),
            },
        }
    }
}

/// Checks, before any document is read, that the groups may be written to
/// the file `out` in `format`: it is not a document of the directory `docs`
/// (which a later run would read), and a file already there is output of
/// this format (never a file of the user's).
pub fn check_groups_file(out: &Path, format: GroupFormat, docs: Option<&Path>) -> Result<(), ExtractError> {
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Some(dir) = docs.filter(|dir| read::is_document_name(out) && read::same_directory(parent, dir)) {
        return Err(ExtractError::OutputAmongDocuments { out: out.to_path_buf(), dir: dir.to_path_buf() });
    }
    match std::fs::symlink_metadata(out) {
        Ok(metadata) if !metadata.is_file() => {
            let reason = "it is not a regular file".to_string();
            Err(Error::NotAReport { path: out.to_path_buf(), reason }.into())
        }
        Ok(_) => {
            let bytes =
                read::read_input(out).map_err(|source| Error::WriteReport { path: out.to_path_buf(), source })?;
            let refuse = |reason| Error::NotAReport { path: out.to_path_buf(), reason };
            format.check_is_output(&bytes).map_err(refuse)?;
            Ok(())
        }
        Err(_) => Ok(()),
    }
}

/// Writes the groups of `extraction` to the file `out` in `format`, whole or
/// not at all ([`write_atomically`]); see [`check_groups_file`] first.
pub fn write_groups_file(extraction: &Extraction, format: GroupFormat, out: &Path) -> Result<(), ExtractError> {
    let mut bytes = Vec::new();
    let error = |source| Error::WriteReport { path: out.to_path_buf(), source };
    format.write(extraction, &mut bytes).map_err(error)?;
    write_atomically(out, &bytes).map_err(error)?;
    Ok(())
}

/// `n` and `noun`, in the plural unless `n` is 1.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// One group as a JSON line (see the README's schema).
#[derive(Serialize)]
struct GroupLine<'a> {
    group: usize,
    documents: usize,
    chars: u64,
    excerpt: &'a str,
    members: Vec<MemberLine<'a>>,
}

#[derive(Serialize)]
struct MemberLine<'a> {
    document: &'a str,
    ranges: Vec<[u32; 2]>,
}

/// Writes the groups as JSON lines, one group per line.
pub fn write_jsonl(extraction: &Extraction, out: &mut dyn Write) -> io::Result<()> {
    for (n, group) in extraction.groups.iter().enumerate() {
        let members: Vec<MemberLine<'_>> = group
            .members
            .iter()
            .map(|m| MemberLine {
                document: &extraction.names[m.doc as usize],
                ranges: m.ranges.iter().map(|r| [r.start, r.end]).collect(),
            })
            .collect();
        let chars = group.chars();
        let line = GroupLine { group: n + 1, documents: group.members.len(), chars, excerpt: &group.excerpt, members };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes the groups for people: per group its documents with their ranges
/// (`start..end`, characters) and the excerpt.
pub fn write_text(extraction: &Extraction, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "{TEXT_HEADER} {}, {} of duplicated text, {} (chunks in at least {} documents)",
        plural(extraction.names.len(), "document"),
        plural(extraction.groups.len(), "group"),
        plural(extraction.passages.len(), "passage"),
        extraction.blots.min_df
    )?;
    writeln!(out)?;
    for (n, group) in extraction.groups.iter().enumerate() {
        writeln!(out, "group {}: {} documents, {} characters", n + 1, group.members.len(), group.chars())?;
        for member in &group.members {
            let ranges: Vec<String> = member.ranges.iter().map(|r| format!("{}..{}", r.start, r.end)).collect();
            writeln!(out, "  {}  {}", extraction.names[member.doc as usize], ranges.join(" "))?;
        }
        writeln!(out, "  \"{}\"", group.excerpt)?;
        writeln!(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    use proptest::prelude::*;

    use super::*;
    use crate::detect::detect;
    use crate::detect::params::Preset;
    use crate::progress::Silent;
    use crate::testutil::{CollectDetections, prose};

    fn range(start: u32, end: u32) -> CharRange {
        CharRange::new(start, end)
    }

    fn pair(a: u32, a_range: (u32, u32), b: u32, b_range: (u32, u32)) -> PairPassage {
        PairPassage { a, a_range: range(a_range.0, a_range.1), b, b_range: range(b_range.0, b_range.1) }
    }

    fn member(doc: u32, ranges: &[(u32, u32)]) -> GroupMember {
        GroupMember { doc, ranges: ranges.iter().map(|&(s, e)| range(s, e)).collect() }
    }

    #[test]
    fn passages_overlapping_in_a_document_are_one_group() {
        let passages = [
            // 0–1 and 1–2 meet in document 1 (100..200 and 150..260): one group of three.
            pair(0, (0, 100), 1, (100, 200)),
            pair(1, (150, 260), 2, (10, 120)),
            // Touching, not overlapping, in document 1: a group of its own.
            pair(1, (260, 300), 3, (0, 40)),
            // 4–5 alone, twice as long as 1–3.
            pair(4, (0, 80), 5, (0, 80)),
        ];
        let groups = group_passages(&passages);
        assert_eq!(
            groups,
            vec![
                vec![member(0, &[(0, 100)]), member(1, &[(100, 260)]), member(2, &[(10, 120)])],
                vec![member(4, &[(0, 80)]), member(5, &[(0, 80)])],
                vec![member(1, &[(260, 300)]), member(3, &[(0, 40)])],
            ]
        );
    }

    #[test]
    fn a_document_may_hold_a_groups_text_twice() {
        // Document 0 copies a passage of 1 twice: both of its ranges, one group.
        let passages = [pair(0, (0, 50), 1, (500, 550)), pair(0, (300, 350), 1, (500, 550))];
        assert_eq!(group_passages(&passages), vec![vec![member(0, &[(0, 50), (300, 350)]), member(1, &[(500, 550)])]]);
        assert!(group_passages(&[]).is_empty());
    }

    #[test]
    fn the_threshold_is_mean_plus_sigma_standard_deviations_and_at_least_two() {
        // dfs 1,1,1,1,2,2,4,4: mean 2, variance (4·1 + 0 + 2·4) / 8 = 1.5.
        let dfs = [1, 1, 1, 1, 2, 2, 4, 4];
        let stats = BlotStats::of(dfs.into_iter(), None);
        assert_eq!((stats.distinct_chunks, stats.shared_chunks, stats.max_df, stats.min_df), (8, 4, 4, 2));
        assert!((stats.mean - 2.0).abs() < 1e-12 && (stats.std_dev - 1.5f64.sqrt()).abs() < 1e-12);
        // 2 + 1.2247 = 3.22: df ≥ 4.
        assert_eq!(BlotStats::of(dfs.into_iter(), Some(1.0)).min_df, 4);
        assert_eq!(BlotStats::of(dfs.into_iter(), Some(0.0)).min_df, 2);
        assert_eq!(BlotStats::of(dfs.into_iter(), Some(-5.0)).min_df, 2, "never below 2");
        assert_eq!(BlotStats::of(dfs.into_iter(), Some(1e300)).min_df, u32::MAX);
        assert_eq!(BlotStats::of(std::iter::empty(), Some(1.0)).min_df, 2);
    }

    #[test]
    fn blots_are_visited_in_decreasing_document_frequency() {
        let mut builder = IndexBuilder::<u32>::new(32);
        builder.add_document(0, &[1, 2, 3, 9, 9]);
        builder.add_document(1, &[2, 3, 4]);
        builder.add_document(2, &[3, 4, 5]);
        builder.add_document(3, &[3]);
        let index = builder.build();
        let order = |min_df| -> Vec<(u32, u64)> {
            kept_blots(&index, min_df).iter().map(|&(hash, p)| (document_frequency(&index, p), hash)).collect()
        };
        // Chunk 9 occurs twice in one document: df 1, never kept.
        assert_eq!(order(2), [(4, 3), (2, 2), (2, 4)]);
        assert_eq!(order(3), [(4, 3)]);
        assert!(order(5).is_empty());
    }

    #[test]
    fn excerpts_fold_white_space_and_cut_long_texts() {
        assert_eq!(excerpt("  a\n\n b\tc ", 10), "a b c");
        assert_eq!(excerpt("Žluťoučký kůň úpěl ďábelské ódy", 12), "Žluťoučký ků…");
    }

    /// A passage in a, b and c, one in a and d, and e that shares nothing.
    fn collection(dir: &Path) {
        let words = |from: usize, n: usize| -> String {
            (from..from + n).map(|i| format!("word{i}")).collect::<Vec<_>>().join(" ")
        };
        let (shared3, shared2) = (words(0, 40), words(100, 40));
        std::fs::write(dir.join("a.txt"), format!("Alpha. {shared3} Between. {shared2} End.")).unwrap();
        std::fs::write(dir.join("b.txt"), format!("Beta. {shared3}")).unwrap();
        std::fs::write(dir.join("c.txt"), format!("Ça commence. {shared3}")).unwrap();
        std::fs::write(dir.join("d.txt"), format!("{shared2} Delta.")).unwrap();
        std::fs::write(dir.join("e.txt"), words(500, 60)).unwrap();
    }

    #[test]
    fn extraction_finds_each_duplicate_once_with_character_offsets() {
        let dir = tempfile::tempdir().unwrap();
        collection(dir.path());
        let result =
            extract_dir(dir.path(), &DetectParams::default(), &ExtractOptions::default(), None, &Silent).unwrap();
        assert_eq!(result.names, ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"]);
        assert_eq!(result.summary.documents, 5);
        assert_eq!(result.groups.len(), 2, "{:?}", result.groups);
        let three = &result.groups[0];
        assert_eq!(three.members.iter().map(|m| m.doc).collect::<Vec<_>>(), [0, 1, 2]);
        let texts: Vec<String> =
            ["a.txt", "b.txt", "c.txt"].iter().map(|n| std::fs::read_to_string(dir.path().join(n)).unwrap()).collect();
        for m in &three.members {
            let text = char_slice(&texts[m.doc as usize], m.ranges[0]).unwrap();
            assert!(text.starts_with("word0 ") && text.ends_with("word39"), "{text}");
        }
        // 40 words of 5 characters, 30 of them (word10 on) one more, 39 spaces.
        assert_eq!(three.members[2].ranges, [range(13, 13 + 40 * 5 + 30 + 39)], "character offsets after Ç");
        assert!(three.excerpt.starts_with("word0 word1"));
        let two = &result.groups[1];
        assert_eq!(two.members.iter().map(|m| m.doc).collect::<Vec<_>>(), [0, 3]);
        assert_eq!(two.members[1].ranges, [range(0, 40 * 7 + 39)]);
        // With a high threshold only the chunks of all three documents are kept.
        let sigma = ExtractOptions { sigma: Some(1.0), ..ExtractOptions::default() };
        let common = extract_dir(dir.path(), &DetectParams::default(), &sigma, None, &Silent).unwrap();
        assert_eq!(common.blots.min_df, 3);
        assert_eq!(common.groups.len(), 1);
        assert_eq!(common.groups[0].members, three.members);
    }

    #[test]
    fn only_output_of_the_same_format_may_be_replaced() {
        let extraction = Extraction {
            names: vec!["a.txt".into(), "b.txt".into()],
            groups: vec![DuplicateGroup {
                members: vec![member(0, &[(0, 10)]), member(1, &[(5, 15)])],
                excerpt: "shared".into(),
            }],
            ..Extraction::default()
        };
        for format in [GroupFormat::Text, GroupFormat::Jsonl] {
            let mut bytes = Vec::new();
            format.write(&extraction, &mut bytes).unwrap();
            assert_eq!(format.check_is_output(&bytes), Ok(()));
            assert_eq!(format.check_is_output(b""), Ok(()));
            assert!(format.check_is_output(b"my notes\n").is_err());
            let other = if format == GroupFormat::Text { GroupFormat::Jsonl } else { GroupFormat::Text };
            assert!(other.check_is_output(&bytes).is_err());
        }
        let mut lines = Vec::new();
        write_jsonl(&extraction, &mut lines).unwrap();
        let line: serde_json::Value = serde_json::from_slice(&lines).unwrap();
        assert_eq!(line["members"][1]["ranges"], serde_json::json!([[5, 15]]));
        assert_eq!(line["chars"], 20);
    }

    /// Writes `layouts` as documents `d0.txt`, `d1.txt`, ...: segment 0 is
    /// text of that document alone, segment k > 0 the shared passage k.
    fn write_layouts(dir: &Path, layouts: &[Vec<u8>]) {
        for (doc, layout) in layouts.iter().enumerate() {
            let text: Vec<String> = (0u64..)
                .zip(layout)
                .map(|(at, &segment)| match segment {
                    0 => prose(1000 + 100 * doc as u64 + at, 40),
                    k => prose(u64::from(k), 60),
                })
                .collect();
            std::fs::write(dir.join(format!("d{doc}.txt")), text.join("\n\n")).unwrap();
        }
    }

    /// The passages of a `detect` of `dir` against itself between a document
    /// and a later one, as pairs of document numbers in `names`, sorted.
    fn self_detect(dir: &Path, params: &DetectParams, names: &[String]) -> Vec<PairPassage> {
        let sink = CollectDetections::default();
        detect(dir, dir, params, &sink, &Silent).unwrap();
        let number = |name: &str| names.iter().position(|n| n == name).unwrap() as u32;
        let mut passages: Vec<PairPassage> = sink
            .sorted()
            .into_iter()
            .filter(|(document, _, other, _)| document < other)
            .map(|(document, a_range, other, b_range)| PairPassage {
                a: number(&document),
                a_range,
                b: number(&other),
                b_range,
            })
            .collect();
        passages.sort_unstable();
        passages
    }

    /// Whether one of `group`'s ranges in `doc` holds `range`.
    fn holds(group: &DuplicateGroup, doc: u32, range: CharRange) -> bool {
        group
            .members
            .iter()
            .any(|m| m.doc == doc && m.ranges.iter().any(|r| r.start <= range.start && range.end <= r.end))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// With every passage kept (the default), the paper's method finds
        /// exactly what a `detect --overlap keep-all` of the collection
        /// against itself finds, each pair once (the earlier document as the
        /// suspicious one), and every passage lies in one group.
        #[test]
        fn extraction_is_a_self_detect_with_each_pair_once(
            layouts in proptest::collection::vec(proptest::collection::vec(0u8..4, 1..5), 2..6),
        ) {
            let dir = tempfile::tempdir().unwrap();
            write_layouts(dir.path(), &layouts);
            let params = DetectParams { overlap: OverlapPolicy::KeepAll, ..DetectParams::preset(Preset::Pan09) };
            let extraction = extract_dir(dir.path(), &params, &ExtractOptions::default(), None, &Silent).unwrap();
            prop_assert_eq!(&extraction.passages, &self_detect(dir.path(), &params, &extraction.names));
            prop_assert!(extraction.passages.iter().all(|p| p.a < p.b));
            for p in &extraction.passages {
                let holding = extraction.groups.iter().filter(|g| holds(g, p.a, p.a_range) && holds(g, p.b, p.b_range));
                let holding = holding.count();
                prop_assert_eq!(holding, 1, "{:?}", p);
            }
        }
    }
}
