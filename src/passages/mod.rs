//! From one suspicious document's hits to its passages, for `detect` and the
//! archive's `check` alike: the paper's valid intervals per source document,
//! or for the `best` preset the candidate regions (valid intervals of
//! candidate chunks, widened and merged) aligned sentence by sentence, then
//! overlaps resolved.
//!
//! The source documents are behind [`SourceDocuments`]: in memory for
//! `detect`, in an archive index for `check`. Numbers of source documents are
//! in name order in both, so that ties fall the same way and the two give the
//! same passages for the same documents.

use crate::align::params::{AlignParams, MIN_CANDIDATE_PAIRS, UNORDERED_MAX_GAP};
use crate::align::sentences::Sentences;
use crate::align::stock::StockPhrases;
use crate::align::{AlignedPassage, Aligner};
use crate::analysis::candidates::StretchChunker;
use crate::analysis::chunk::Chunks;
use crate::analysis::document::Document;
use crate::analysis::span::{CharIndexed, CharRange, ChunkRanges, TextPiece, union_len};
use crate::analysis::synonyms::Synonyms;
use crate::detect::params::DetectParams;
use crate::embed::Embedder;
use crate::matching::intervals::{ChunkMatch, IntervalPair, IntervalParams, valid_intervals};
use crate::matching::overlap::{Passage, Twins, resolve_overlaps};
use crate::matching::search::{Candidates, Hit, distinct_in_order};

mod summary_regions;

/// The source documents that hits point into, numbered in name order.
pub trait SourceDocuments {
    /// Where the chunks of a source document lie.
    type Ranges<'a>: ChunkRanges
    where
        Self: 'a;

    /// The chunk ranges of source document `doc`.
    fn chunk_ranges(&self, doc: u32) -> Self::Ranges<'_>;

    /// Content chunks of `doc` (its structure chunks follow them).
    fn content_chunks(&self, doc: u32) -> u32;

    /// Characters of `doc`'s text; `None` when it can no longer be read as it
    /// was indexed. Read from the text unless the source documents keep it.
    fn chars(&self, doc: u32) -> Option<u32> {
        self.text(doc).map(|text| text.chars().count() as u32)
    }

    /// The text of `doc`, read again for the alignment; `None` when it can no
    /// longer be read as it was indexed.
    fn text(&self, doc: u32) -> Option<String>;

    /// At least the characters `range` of `doc`'s text, read again for the
    /// alignment, as [`text`](Self::text) reads it; the whole text unless
    /// the source documents can read a part of one alone.
    fn text_piece(&self, doc: u32, range: CharRange) -> Option<TextPiece> {
        let _ = range;
        self.text(doc).map(|text| TextPiece { first_char: 0, text })
    }
}

/// One thread's buffers for finding the passages of one suspicious document
/// at a time.
pub struct PassageFinder<'a> {
    params: DetectParams,
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
    /// Matches in its largest interval of shared candidate chunks (or pair
    /// chunks).
    strength: usize,
    /// What found it.
    evidence: Evidence,
}

/// What makes a candidate region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Evidence {
    /// Shared candidate chunks (and listed pairs).
    Chunks,
    /// Shared candidate chunks of a short source ([`SHORT_SOURCE_CHARS`]):
    /// both documents aligned whole, at least as a strong candidate.
    ShortSource,
    /// Shared pair chunks alone ([`crate::align::params::DEFAULT_PAIR_WORDS`]):
    /// aligned with stricter thresholds, and last when regions are too many.
    PairsOnly,
    /// Shared word chunks alone, in any order
    /// ([`AlignParams::unordered_min_chunks`]): a reordered copy, for the
    /// order-free stage ([`crate::align::unordered`]).
    Unordered,
    /// Shared candidate chunks close together in the suspicious document and
    /// spread over the source in its order ([`summary_regions`]): aligned with
    /// the whole source, for a summary only.
    Summary,
}

/// Per-thread buffers of the alignment stage.
struct AlignState<'a> {
    aligner: Aligner<'a>,
    params: AlignParams,
    /// Candidate source documents of the suspicious document being aligned.
    candidate_docs: Vec<CandidatePair>,
    /// Ranges of the structure chunks each candidate pair shares.
    anchors: Vec<(CharRange, CharRange)>,
    /// The suspicious document's regions, each analysed once.
    regions: Regions,
    suspicious: Sentences,
    source: Sentences,
    aligned: Vec<AlignedPassage>,
    /// Passages that only a copying document makes passages
    /// ([`crate::align::filter::Verdict::IfTheDocumentCopies`]).
    held: Vec<Passage>,
    /// With pair chunks ([`AlignParams::pair_words`]): their chunker and the
    /// places to look for them.
    pairs: Option<PairEvidence<'a>>,
    /// Pairs of positions of one source's shared chunks, a buffer: their
    /// (suspicious, source) starts for its summary window, their (source,
    /// suspicious) chunks for whether the document copies it repeatedly.
    chunk_pairs: Vec<(u32, u32)>,
}

/// Least content chunks a source must share with the suspicious document in
/// one valid interval (gaps as for candidates) for pair chunks to be cut
/// there, in the interval's windows (`WINDOW_MARGIN_CHARS` around it). On
/// pan13-ta-train's full search, one chunk instead of 2 finds 0.0013 more,
/// but a suspicious document of the 500 MB benchmark then has some 200 such
/// places, most of them chance; 3 finds 0.0019 less. Two chunks anywhere in
/// 4000 characters of each other, rather than in one interval, find 0.0004
/// more but make `check` of a 100 KB file against a 1.1 GB archive cut 939
/// places in 249 documents rather than 160 in 98 (0.40 s against 0.23 s with
/// the archive's candidate rule asking the same run; 0.16 s without pair
/// chunks).
pub const MIN_PLACE_CHUNKS: usize = 2;

/// A source whose last content chunk ends within this many characters is a
/// short source, compared with a suspicious document that is not long
/// ([`MAX_SHORT_SOURCE_DOCUMENT_CHARS`]) as PAN's text-alignment protocol
/// compares a given pair: its shared candidate chunks make one interval
/// however far apart they lie, both documents are aligned whole, at least
/// with the thresholds of a strong candidate
/// ([`AlignParams::strong_candidate_share`]), and one shared content chunk
/// makes a place for pair chunks. An obfuscated copy of a short source shares
/// few chunks, scattered; a whole short source costs little to align.
/// Measured 2026-11-27 in full search: pan13-ta-train 0.8834 -> 0.8986
/// (random 0.8533 -> 0.8733, translation 0.8374 -> 0.8583, summary 0.6686 ->
/// 0.7479; still no detection in its pairs without plagiarism); dev-en,
/// Clough's answers and the six language corpora unchanged; the King James
/// Bible corpus 0.8565 -> 0.8561; the independent corpus within 0.0001.
/// Without each part pan13-ta-train lost: the
/// documents aligned whole (rather than windows around the shared chunks)
/// 0.0094, one chunk for a place 0.0044, no gap limit 0.0027, the strong
/// candidate's thresholds 0.001. At 15,000 characters dev-en lost 0.0023; at
/// 8000 pan13-ta-train gained 0.0004 less.
pub const SHORT_SOURCE_CHARS: u32 = 10_000;

/// Short sources are compared whole only with a suspicious document of at
/// most this many characters: aligning a long document whole with every
/// short source it shares a chunk with costs much. With no limit the 500 MB
/// benchmark (long documents) took 41 % longer, with this one 3 %;
/// pan13-ta-train's full search is the same (at 50,000 characters it gained
/// 0.0012 less).
pub const MAX_SHORT_SOURCE_DOCUMENT_CHARS: u32 = 100_000;

/// A short source copied more than once into the suspicious document is
/// aligned region by region as a longer one: aligned whole, the words its
/// copies repeat are no longer rare in the pair, and a short copy among
/// them was lost on the fixture corpus (one source copied six times). More
/// than this many of its content chunks shared twice or more tell it
/// (`copied_repeatedly`). With none allowed pan13-ta-train gained 0.0043
/// less (a summary repeats some chunks of its source); with 9 the King James
/// Bible corpus lost 0.0018 more.
pub const MAX_REPEATED_SOURCE_CHUNKS: usize = 5;

/// The second evidence of the alignment stage: chunks of
/// [`AlignParams::pair_words`] candidate words, cut where a source shares
/// candidate chunks with the suspicious document but too few to make a
/// candidate region ([`crate::align::params::DEFAULT_PAIR_WORDS`]).
struct PairEvidence<'a> {
    chunker: StretchChunker<'a>,
    /// Places where a source shares too few candidate chunks: (source
    /// document, suspicious window, source window).
    weak: Vec<(u32, CharRange, CharRange)>,
    /// The content chunks one source shares (a buffer).
    shared: Vec<ChunkMatch>,
    this: Chunks,
    source: Chunks,
    /// The suspicious window's chunks as (hash, position), sorted.
    this_sorted: Vec<(u64, u32)>,
    matches: Vec<ChunkMatch>,
}

/// The regions of a suspicious document that its candidate windows cover
/// (overlapping windows merged), each cut into sentences once: a passage
/// shared with several sources, or several passages close together, make
/// windows that overlap, and the windows' sentences are copied out of the
/// region's rather than found again.
#[derive(Default)]
struct Regions {
    /// The regions, by start; a region holds its windows whole.
    ranges: Vec<CharRange>,
    /// The sentences of each of `ranges`, then spare buffers.
    sentences: Vec<Sentences>,
    /// Characters of the text.
    text_chars: u32,
    /// The windows being merged, by start (a buffer kept).
    windows: Vec<CharRange>,
}

/// A region grows by further overlapping windows only while it is shorter
/// than this: the sentences of a region take some 35 bytes per word, and the
/// windows of a long document with many candidates (a part of 8 MB) could
/// otherwise merge into one region of megabytes per thread.
const MAX_REGION_CHARS: u32 = 1 << 17;

impl Regions {
    /// Merges `windows` (ends may run past the text) into regions of `text`
    /// and analyses each.
    fn analyse(&mut self, aligner: &mut Aligner<'_>, text: &CharIndexed<'_>, windows: impl Iterator<Item = CharRange>) {
        self.text_chars = text.chars() as u32;
        self.windows.clear();
        let chars = self.text_chars;
        self.windows.extend(windows.map(|w| clamp(w, chars)));
        self.windows.sort_unstable_by_key(|w| w.start);
        self.ranges.clear();
        for &window in &self.windows {
            match self.ranges.last_mut() {
                Some(last) if window.start <= last.end && last.len() < MAX_REGION_CHARS => *last = last.cover(&window),
                _ => self.ranges.push(window),
            }
        }
        if self.sentences.len() < self.ranges.len() {
            self.sentences.resize_with(self.ranges.len(), Sentences::default);
        }
        for (range, sentences) in self.ranges.iter().zip(&mut self.sentences) {
            aligner.analyse_window(text, *range, sentences);
        }
    }

    /// The sentences that overlap `window` (one of the windows analysed) of
    /// the region holding it.
    fn window(&self, window: CharRange, out: &mut Sentences) {
        let window = clamp(window, self.text_chars);
        let starting_before = &self.ranges[..self.ranges.partition_point(|r| r.start <= window.start)];
        match starting_before.iter().rposition(|r| r.holds(&window)) {
            Some(region) => self.sentences[region].copy_window(window, out),
            None => out.clear(),
        }
    }
}

/// `window` cut to a text of `chars` characters.
fn clamp(window: CharRange, chars: u32) -> CharRange {
    CharRange::new(window.start.min(chars), window.end.min(chars))
}

impl<'a> PassageFinder<'a> {
    /// A finder for `params`, with `synonyms` counted as one word in the
    /// alignment and the passages that share mostly `stock` phrases dropped
    /// ([`crate::align::stock`]).
    pub fn new(params: &DetectParams, synonyms: Option<&'a Synonyms>, stock: Option<&'a StockPhrases>) -> Self {
        let aligner = params.align.map(|align| AlignState {
            pairs: PairEvidence::new(params, synonyms),
            aligner: Aligner::new(params.tokenizer, align, synonyms).with_stock_phrases(stock),
            params: align,
            candidate_docs: Vec::new(),
            anchors: Vec::new(),
            regions: Regions::default(),
            suspicious: Sentences::default(),
            source: Sentences::default(),
            aligned: Vec::new(),
            held: Vec::new(),
            chunk_pairs: Vec::new(),
        });
        PassageFinder {
            params: *params,
            candidates: Candidates::default(),
            intervals: Vec::new(),
            passages: Vec::new(),
            aligner,
        }
    }

    /// This finder with a sentence encoder for its alignment stage
    /// ([`Aligner::with_embedder`]); the paper's method ignores it.
    pub fn with_embedder(mut self, embedder: Option<&'a Embedder>) -> Self {
        self.aligner = self.aligner.map(|state| AlignState { aligner: state.aligner.with_embedder(embedder), ..state });
        self
    }

    /// Finds the passages of the suspicious document `doc` (its taboo text
    /// blanked) among its `hits` in `sources`: the valid intervals of every
    /// source document that shares enough chunks, or with the alignment stage
    /// the aligned candidate regions; overlaps are resolved by the parameters'
    /// policy, and the passages held back where the document copies
    /// ([`COPYING_DOCUMENT_SHARE`]) are added. With `listed` source
    /// documents (PAN's text-alignment protocol, sorted) exactly those are
    /// compared, with no candidate filtering. Returns the passages and the
    /// number of document pairs aligned.
    pub fn find(
        &mut self,
        doc: &Document,
        hits: &mut [Hit],
        sources: &impl SourceDocuments,
        listed: Option<&[u32]>,
    ) -> (&[Passage], u64) {
        let aligned_pairs = self.find_resolved(doc, hits, sources, listed);
        let PassageFinder { params, passages, aligner, .. } = self;
        // Counting the characters is left to the documents that held some back.
        if let Some(AlignState { held, params: align, .. }) = aligner
            && !held.is_empty()
            && add_where_the_document_copies(passages, held, doc.text.chars().count(), align.merge_gap_chars)
        {
            resolve_overlaps(passages, params.overlap, Twins::when_pairs_given(listed.is_some()));
        }
        (passages, aligned_pairs)
    }

    /// Like [`find`](Self::find) for one part of a long document, but for
    /// the passages held back where the document copies, which are returned
    /// apart: whether the document copies is known from all its parts
    /// ([`COPYING_DOCUMENT_SHARE`]). Returns the passages, those held
    /// back, and the number of document pairs aligned.
    pub fn find_in_part(
        &mut self,
        doc: &Document,
        hits: &mut [Hit],
        sources: &impl SourceDocuments,
        listed: Option<&[u32]>,
    ) -> (&[Passage], &[Passage], u64) {
        let aligned_pairs = self.find_resolved(doc, hits, sources, listed);
        let held = self.aligner.as_ref().map_or(&[][..], |state| &state.held[..]);
        (&self.passages, held, aligned_pairs)
    }

    /// The passages of [`find`](Self::find) before those held back are added.
    fn find_resolved(
        &mut self,
        doc: &Document,
        hits: &mut [Hit],
        sources: &impl SourceDocuments,
        listed: Option<&[u32]>,
    ) -> u64 {
        let PassageFinder { params, candidates, intervals, passages, aligner } = self;
        passages.clear();
        let aligned_pairs = match aligner {
            Some(align) => align_document(align, doc, hits, sources, listed, candidates, intervals, passages),
            None => {
                valid_interval_passages(params, doc, hits, sources, listed, candidates, intervals, passages);
                0
            }
        };
        // Candidates reported whole all overlap: each is kept.
        if !aligner.as_ref().is_some_and(|align| align.params.report_candidates) {
            resolve_overlaps(passages, params.overlap, Twins::when_pairs_given(listed.is_some()));
        }
        aligned_pairs
    }
}

/// The paper's method for one suspicious document: the valid intervals of
/// every source document sharing at least `min_common` chunks (every shared
/// chunk counts with listed pairs), as passages.
#[allow(clippy::too_many_arguments)]
fn valid_interval_passages(
    params: &DetectParams,
    doc: &Document,
    hits: &mut [Hit],
    sources: &impl SourceDocuments,
    listed: Option<&[u32]>,
    candidates: &mut Candidates,
    intervals: &mut Vec<IntervalPair>,
    passages: &mut Vec<Passage>,
) {
    let min_common = if listed.is_some() { 1 } else { params.min_common };
    candidates.for_each(hits, min_common, |source_doc, matches| {
        if listed.is_some_and(|listed| listed.binary_search(&source_doc).is_err()) {
            return;
        }
        intervals.clear();
        valid_intervals(matches, &params.intervals, intervals);
        let source_ranges = sources.chunk_ranges(source_doc);
        passages.extend(intervals.iter().filter_map(|interval| {
            let (suspicious, source) = interval.char_ranges(&doc.chunks.ranges[..], &source_ranges)?;
            Some(Passage { suspicious, source_doc, source, exact: false, likeness: Passage::UNMEASURED })
        }));
    });
}

/// Characters added on each side of the region where a candidate pair shares
/// chunks before it is aligned: the chunks of a heavily obfuscated passage may
/// miss its first and last sentences.
const WINDOW_MARGIN_CHARS: u32 = 2000;

/// The largest gap between the shared candidate chunks of a region in the
/// suspicious document `text` (read only up to the limit). A document no longer than
/// `WINDOW_MARGIN_CHARS` is aligned whole whichever of its chunks a region
/// holds, so the gap cannot tell where a copy is, and a short answer that
/// rewrites its source shares few chunks far apart: it has no limit there.
/// Clough's answers in full search (as an archive's `check` sees them): AUC
/// 0.9649 -> 0.9737 (heavy rewrites 0.947 -> 0.974); pan13-ta-train, dev-en
/// and the King James Bible corpus unchanged (a limit of 4000 characters
/// would cost the Bible corpus 0.0009). An archive's `check` admits its
/// candidates by the same gap ([`crate::archive::aligned::CandidateRule`]).
pub fn candidate_max_gap(params: &AlignParams, text: &str) -> usize {
    let one_window = text.chars().nth(WINDOW_MARGIN_CHARS as usize).is_none();
    if one_window { usize::MAX } else { params.candidate_max_gap }
}

/// The alignment stage for one suspicious document: aligns it with every source
/// document that shares enough candidate chunks, in the regions where they share
/// them, and appends the passages. With `listed` source documents (PAN's
/// text-alignment protocol) it aligns exactly those, whole. Returns the number
/// of aligned pairs.
#[allow(clippy::too_many_arguments)]
fn align_document(
    state: &mut AlignState<'_>,
    doc: &Document,
    hits: &mut [Hit],
    sources: &impl SourceDocuments,
    listed: Option<&[u32]>,
    candidates: &mut Candidates,
    intervals: &mut Vec<IntervalPair>,
    passages: &mut Vec<Passage>,
) -> u64 {
    let AlignState {
        aligner,
        params,
        candidate_docs,
        anchors,
        regions,
        suspicious,
        source,
        aligned,
        held,
        pairs,
        chunk_pairs,
    } = state;
    let (text, chunks) = (&doc.text, &doc.chunks);
    candidate_docs.clear();
    anchors.clear();
    held.clear();
    let interval_params =
        IntervalParams { min_chunks: params.candidate_min_common, max_gap: candidate_max_gap(params, text), depth: 2 };
    // A source sharing too few chunks to be a candidate may still be one by
    // its pair chunks, a short source by one chunk.
    let min_common = match (listed, pairs.is_some()) {
        (Some(_), _) => 1,
        (None, true) => params.candidate_min_common.min(MIN_PLACE_CHUNKS),
        (None, false) => params.candidate_min_common,
    };
    // Short sources are compared whole only with a document that is not long.
    let short_sources = listed.is_none() && text.chars().nth(MAX_SHORT_SOURCE_DOCUMENT_CHARS as usize).is_none();
    let least_common = if pairs.is_some() && short_sources { 1 } else { min_common };
    if let Some(pairs) = pairs.as_mut() {
        pairs.weak.clear();
    }
    // Word chunks follow every other chunk; sources sharing only them are
    // order-free candidates, apart from the others.
    let word_start = chunks.len() as u32 - doc.word_chunks;
    let unordered =
        IntervalParams { min_chunks: params.unordered_min_chunks.max(1), max_gap: UNORDERED_MAX_GAP, depth: 2 };
    let mut reordered = Vec::new();
    candidates.for_each(hits, least_common, |source_doc, matches| {
        let (matches, words) = matches.split_at_mut(matches.partition_point(|m| m.suspicious < word_start));
        let source_ranges = sources.chunk_ranges(source_doc);
        if listed.is_none() && !words.is_empty() {
            intervals.clear();
            valid_intervals(words, &unordered, intervals);
            // A region per cluster of intervals, not one over all: a reordered
            // copy's words are cut into intervals whose source sides each hold
            // a part of its source, and their widened windows overlap; chance
            // intervals far apart made one region over most of both documents
            // (instructions of best on the benchmark's usual corpus at 10 MB,
            // which holds no reordered copy: 21.2 -> 13.4 billion; the
            // eval/reorder.sh corpora and dev-en unchanged within 0.0007).
            let regions = regions_of(intervals, &chunks.ranges[..], &source_ranges);
            reordered.extend(regions.into_iter().map(|(this_window, source_window, strength)| CandidatePair {
                source_doc,
                this_window: widen_by_a_quarter(this_window),
                source_window: widen_by_a_quarter(source_window),
                anchors: 0..0,
                strength,
                evidence: words_evidence(doc),
            }));
        }
        if matches.is_empty() {
            return;
        }
        let source_content = sources.content_chunks(source_doc);
        let short_source = short_sources
            && is_short_source(&source_ranges, source_content)
            && !copied_repeatedly(matches, doc.content_chunks, chunk_pairs);
        if !short_source && distinct_in_order(matches.iter().map(|m| m.suspicious)) < min_common {
            return;
        }
        // Structure chunks shared by the pair anchor seeds where the content
        // words were replaced.
        let structure_anchors = |matches: &[ChunkMatch]| {
            let shared = matches.iter().filter(|m| m.suspicious >= doc.content_chunks && m.source >= source_content);
            shared
                .filter_map(|m| Some((chunks.ranges[m.suspicious as usize], source_ranges.chunk_range(m.source)?)))
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
        let interval_params = match short_source {
            true => IntervalParams { max_gap: usize::MAX, ..interval_params },
            false => interval_params,
        };
        intervals.clear();
        valid_intervals(matches, &interval_params, intervals);
        // Structure chunks alone do not make a candidate: function-word runs are
        // common enough to join unrelated documents; some content must be shared.
        let content = matches.iter().filter(|m| m.suspicious < doc.content_chunks).count();
        if content < params.candidate_min_content || intervals.is_empty() {
            if let Some(pairs) = pairs.as_mut() {
                let min_chunks = if short_source { 1 } else { MIN_PLACE_CHUNKS };
                let place = IntervalParams { min_chunks, max_gap: interval_params.max_gap, depth: 2 };
                pairs.note_weak(source_doc, matches, doc, &source_ranges, &place, intervals);
            }
            return;
        }
        if let Some((this_window, strength)) =
            summary_regions::summary_window(matches, doc, &source_ranges, source_content, chunk_pairs)
        {
            candidate_docs.push(CandidatePair {
                source_doc,
                this_window,
                source_window: WHOLE_DOCUMENT,
                anchors: 0..0,
                strength,
                evidence: Evidence::Summary,
            });
        }
        let first_anchor = anchors.len();
        anchors.extend(structure_anchors(matches));
        let anchors = first_anchor..anchors.len();
        if short_source {
            let strength = intervals.iter().map(|interval| interval.matches).max().unwrap_or(0);
            candidate_docs.push(CandidatePair {
                strength,
                evidence: Evidence::ShortSource,
                ..CandidatePair::whole(source_doc, anchors)
            });
            return;
        }
        for (this_window, source_window, strength) in regions_of(intervals, &chunks.ranges[..], &source_ranges) {
            candidate_docs.push(CandidatePair {
                source_doc,
                this_window,
                source_window,
                anchors: anchors.clone(),
                strength,
                evidence: Evidence::Chunks,
            });
        }
    });
    let indexed = CharIndexed::new(text);
    if let Some(pairs) = pairs.as_mut() {
        pairs.find_regions(&indexed, sources, &interval_params, intervals, candidate_docs);
    }
    add_unordered_regions(reordered, candidate_docs);
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
            keep_strongest(candidate_docs, params.max_candidate_pairs(doc.text.chars().count()));
        }
        None => {}
    }
    if candidate_docs.is_empty() {
        return 0;
    }
    if params.report_candidates {
        let whole = CharRange::new(0, text.chars().count() as u32);
        candidate_docs.dedup_by_key(|c| c.source_doc);
        // A source that cannot be read again is left out, as in the alignment.
        passages.extend(candidate_docs.iter().filter_map(|&CandidatePair { source_doc, .. }| {
            Some(Passage {
                suspicious: whole,
                source_doc,
                source: CharRange::new(0, sources.chars(source_doc)?),
                exact: false,
                likeness: Passage::UNMEASURED,
            })
        }));
        return distinct_sources(candidate_docs);
    }
    let text = indexed;
    regions.analyse(aligner, &text, candidate_docs.iter().map(|c| c.this_window));
    let content_chunks = f64::from(doc.content_chunks.max(1));
    for pairs in candidate_docs.chunk_by(|a, b| a.source_doc == b.source_doc) {
        let source_doc = pairs[0].source_doc;
        let windows = pairs.iter().map(|pair| pair.source_window).reduce(|a, b| a.cover(&b));
        // A source that cannot be read again (deleted or changed since) is
        // left out: one file must not stop the run.
        let Some(piece) = sources.text_piece(source_doc, windows.unwrap_or(WHOLE_DOCUMENT)) else { continue };
        let source_text = CharIndexed::of_piece(&piece);
        for &CandidatePair { this_window, source_window, anchors: ref pair_anchors, strength, evidence, .. } in pairs {
            aligner.analyse_window(&source_text, source_window, source);
            regions.window(this_window, suspicious);
            aligned.clear();
            // Listed pairs have the thresholds of given pairs already.
            let thresholds = match evidence {
                Evidence::Chunks => params.for_candidate(strength as f64 / content_chunks),
                Evidence::ShortSource => {
                    params.for_candidate((strength as f64 / content_chunks).max(params.strong_candidate_share))
                }
                Evidence::PairsOnly => params.for_pair_region(),
                Evidence::Unordered => params.for_unordered_region(),
                Evidence::Summary => params.for_summary_region(),
            };
            if evidence == Evidence::Unordered {
                // No chunk in order is shared there: only the order-free stage can find a copy.
                aligner.align_unordered(&thresholds, suspicious, source, aligned);
            } else {
                aligner.align(&thresholds, suspicious, source, &anchors[pair_anchors.clone()], aligned);
            }
            let aligner = &*aligner;
            let of_source = |p: &AlignedPassage| Passage {
                suspicious: p.suspicious,
                source_doc,
                source: p.source,
                exact: p.exact,
                likeness: aligner.likeness(suspicious, source, p),
            };
            if evidence == Evidence::Summary {
                // Only a summary is taken from a summary region, and nothing held back.
                let doc_chars = text.chars() as u32;
                aligned.retain(|p| summary_regions::is_bounded_summary(p, this_window, doc_chars));
            } else {
                held.extend(aligner.held().iter().filter(|p| is_told_apart(p, listed)).map(of_source));
            }
            passages.extend(aligned.iter().filter(|p| is_told_apart(p, listed)).map(of_source));
        }
    }
    distinct_sources(candidate_docs)
}

/// What makes a region where a source shares only word chunks with `doc`:
/// a reordered copy's ([`Evidence::Unordered`]), but for a document mapped
/// from another language, whose words a translation reorders within its
/// sentences but whose sentences keep their source's order, one to align
/// sentence by sentence ([`Evidence::Chunks`]), with the mapped document's
/// thresholds: its candidate chunks seldom survive translation, and the
/// order-free stage, which asks four fifths of each side's words of the
/// other, took almost none of its passages (full search on
/// `xlang-dev-europarl`: es 0.70 -> 0.82, fr 0.80 -> 0.89).
fn words_evidence(doc: &Document) -> Evidence {
    match doc.translated {
        Some(_) => Evidence::Chunks,
        None => Evidence::Unordered,
    }
}

/// Adds the order-free candidate regions of `reordered` that no region of
/// their source in `candidates` holds on both sides (aligned there
/// already), keeping `candidates` grouped by source. One that a region only
/// overlaps is added: a few chunks shared by chance inside a long reordered
/// copy make a region too short to hold it.
fn add_unordered_regions(reordered: Vec<CandidatePair>, candidates: &mut Vec<CandidatePair>) {
    let before = candidates.len();
    for region in reordered {
        let aligned_there = candidates[..before].iter().any(|c| {
            c.source_doc == region.source_doc
                && c.this_window.holds(&region.this_window)
                && c.source_window.holds(&region.source_window)
        });
        if !aligned_there {
            candidates.push(region);
        }
    }
    if candidates.len() > before {
        candidates.sort_by_key(|c| c.source_doc);
    }
}

/// Whether `passage` can be told from a shared topic: with `listed` pairs
/// (PAN's protocol, where every pair is one to align) any passage can; in
/// full search, only one that condenses its source at most
/// [`summary_regions::MAX_CONDENSING_RATIO`] times, as summary regions'
/// passages must. A strong candidate region is aligned with the given pairs'
/// thresholds, whose low-seed second search may match a short stretch with a
/// whole long source on the same subject: on the Japanese corpus a paragraph
/// on the Debian installer against a 32,000-character chapter on LVM (the
/// Japanese corpus 0.9039 -> 0.9253, micro-averaged precision 0.766 ->
/// 0.992; pan13-ta-train, dev-en, Clough's answers, the King James Bible
/// corpus, the other five language corpora and the independent corpus
/// unchanged).
fn is_told_apart(passage: &AlignedPassage, listed: Option<&[u32]>) -> bool {
    listed.is_some() || summary_regions::condenses_at_most_the_limit(passage)
}

/// Least share of a suspicious document's characters that its passages
/// must cover for the passages its strong candidate regions hold back
/// ([`crate::align::filter::Verdict::IfTheDocumentCopies`]) to be added where
/// no passage lies: a document that copies much copies its weaker matches
/// too, as PAN's text-alignment protocol assumes of every given pair.
/// Measured 2026-11-27: pan13-ta-train's full search 0.8603 -> 0.8728
/// (random 0.8291 -> 0.8468, translation 0.8043 -> 0.8299; still no
/// detection in its pairs without plagiarism), dev-en 0.9622 -> 0.9633, the
/// King James Bible corpus 0.8601 -> 0.8574 (three more detections that
/// overlap no case, real parallels such as the feasts of Leviticus 23 and
/// Numbers 29), the independent corpus -0.0003 to -0.0013, Clough's answers
/// and the six language corpora unchanged. At 0.2 one of pan13-ta-train's
/// pairs without plagiarism had a detection and dev-en lost 0.0021; at 0.4
/// pan13-ta-train gained 0.0035 less. Held passages added where other
/// passages lie too cost the Bible corpus 0.0057; those within the merge gap
/// of a passage of their source are pieces of it (granularity), and leaving
/// them out gained pan13-ta-train 0.0009.
pub const COPYING_DOCUMENT_SHARE: f64 = 0.3;

/// Appends the `held` passages (emptied) that no passage overlaps or
/// comes within `piece_gap` characters of with the same source (a piece of
/// that passage), when the passages cover [`COPYING_DOCUMENT_SHARE`] of the
/// suspicious document's `chars` characters; returns whether any was added.
pub(crate) fn add_where_the_document_copies(
    passages: &mut Vec<Passage>,
    held: &mut Vec<Passage>,
    chars: usize,
    piece_gap: u32,
) -> bool {
    let found = passages.len();
    if !held.is_empty() {
        let mut covered: Vec<CharRange> = passages.iter().map(|p| p.suspicious).collect();
        if union_len(&mut covered) as f64 >= COPYING_DOCUMENT_SHARE * chars as f64 {
            for passage in held.drain(..) {
                let widened = CharRange::new(
                    passage.suspicious.start.saturating_sub(piece_gap),
                    passage.suspicious.end.saturating_add(piece_gap),
                );
                let taken = |p: &Passage| {
                    p.suspicious.overlaps(&passage.suspicious)
                        || (p.source_doc == passage.source_doc && p.suspicious.overlaps(&widened))
                };
                if !passages[..found].iter().any(taken) {
                    passages.push(passage);
                }
            }
        }
        held.clear();
    }
    passages.len() > found
}

impl<'a> PairEvidence<'a> {
    /// The pair evidence of `params` (`None` without pair chunks or the
    /// alignment stage), with `synonyms` counted as one word.
    fn new(params: &DetectParams, synonyms: Option<&'a Synonyms>) -> Option<Self> {
        let words = params.align.map_or(0, |align| align.pair_words);
        let chunker = (words > 0).then(|| StretchChunker::new(&params.analysis(synonyms), words))??;
        Some(PairEvidence {
            chunker,
            weak: Vec::new(),
            shared: Vec::new(),
            this: Chunks::default(),
            source: Chunks::default(),
            this_sorted: Vec::new(),
            matches: Vec::new(),
        })
    }

    /// Notes the places where `source_doc` shares the content chunks among
    /// `matches` with `doc`, too few to make a candidate region: their valid
    /// intervals by `place` ([`MIN_PLACE_CHUNKS`] chunks, or one of a short
    /// source), widened and merged (`intervals` is a buffer).
    fn note_weak(
        &mut self,
        source_doc: u32,
        matches: &[ChunkMatch],
        doc: &Document,
        source_ranges: &impl ChunkRanges,
        place: &IntervalParams,
        intervals: &mut Vec<IntervalPair>,
    ) {
        self.shared.clear();
        self.shared.extend(matches.iter().filter(|m| m.suspicious < doc.content_chunks));
        if self.shared.len() < place.min_chunks {
            return;
        }
        intervals.clear();
        valid_intervals(&mut self.shared, place, intervals);
        let places = regions_of(intervals, &doc.chunks.ranges[..], source_ranges);
        self.weak.extend(places.into_iter().map(|(this, source, _)| (source_doc, this, source)));
    }

    /// Cuts the pair chunks of both sides of every noted place and appends a
    /// candidate region ([`Evidence::PairsOnly`]) where they make valid
    /// intervals by `interval_params`; `candidates` stay sorted by source.
    fn find_regions(
        &mut self,
        text: &CharIndexed<'_>,
        sources: &impl SourceDocuments,
        interval_params: &IntervalParams,
        intervals: &mut Vec<IntervalPair>,
        candidates: &mut Vec<CandidatePair>,
    ) {
        if self.weak.is_empty() {
            return;
        }
        let found_before = candidates.len();
        let weak = std::mem::take(&mut self.weak);
        for places in weak.chunk_by(|a, b| a.0 == b.0) {
            let source_doc = places[0].0;
            // One read of the source for all its places.
            let cover = places.iter().map(|p| p.2).reduce(|a, b| a.cover(&b)).unwrap_or(WHOLE_DOCUMENT);
            let Some(piece) = sources.text_piece(source_doc, cover) else { continue };
            let source_text = CharIndexed::of_piece(&piece);
            for &(_, this_window, source_window) in places {
                let (first_char, stretch) = text.window(this_window);
                self.chunker.chunk(stretch, first_char, &mut self.this);
                let from_piece = CharRange::new(source_window.start.max(piece.first_char), source_window.end);
                let (first_char, stretch) = source_text.window(from_piece);
                self.chunker.chunk(stretch, first_char, &mut self.source);
                self.regions_between(source_doc, interval_params, intervals, candidates);
            }
        }
        self.weak = weak;
        if candidates.len() > found_before {
            candidates.sort_by_key(|c| c.source_doc);
        }
    }

    /// Appends the candidate regions that the pair chunks of one place, cut
    /// on both sides, make with `source_doc`.
    fn regions_between(
        &mut self,
        source_doc: u32,
        interval_params: &IntervalParams,
        intervals: &mut Vec<IntervalPair>,
        candidates: &mut Vec<CandidatePair>,
    ) {
        shared_chunks(&self.this, &self.source, &mut self.this_sorted, &mut self.matches);
        intervals.clear();
        valid_intervals(&mut self.matches, interval_params, intervals);
        for (this_window, source_window, strength) in
            regions_of(intervals, &self.this.ranges[..], &self.source.ranges[..])
        {
            candidates.push(CandidatePair {
                source_doc,
                this_window,
                source_window,
                anchors: 0..0,
                strength,
                evidence: Evidence::PairsOnly,
            });
        }
    }
}

/// The (suspicious, source) positions of the equal hashes of `this` and
/// `source` into `matches`, through `sorted` (a buffer).
fn shared_chunks(this: &Chunks, source: &Chunks, sorted: &mut Vec<(u64, u32)>, matches: &mut Vec<ChunkMatch>) {
    sorted.clear();
    sorted.extend(this.hashes.iter().enumerate().map(|(seq, &hash)| (hash, seq as u32)));
    sorted.sort_unstable();
    matches.clear();
    for (source_seq, &hash) in source.hashes.iter().enumerate() {
        let from = sorted.partition_point(|&(h, _)| h < hash);
        let equal = sorted[from..].iter().take_while(|&&(h, _)| h == hash);
        matches.extend(equal.map(|&(_, seq)| ChunkMatch { suspicious: seq, source: source_seq as u32 }));
    }
}

/// Whether a source of `content_chunks` content chunks whose chunks lie at
/// `ranges` is a short source ([`SHORT_SOURCE_CHARS`]).
fn is_short_source(ranges: &(impl ChunkRanges + ?Sized), content_chunks: u32) -> bool {
    let last_content = content_chunks.checked_sub(1).and_then(|last| ranges.chunk_range(last));
    last_content.is_some_and(|last| last.end <= SHORT_SOURCE_CHARS)
}

/// Whether the suspicious document copies a source more than once: more
/// than [`MAX_REPEATED_SOURCE_CHUNKS`] of the source's content chunks are
/// each shared with two or more of the document's content chunks (below
/// `content_chunks`), among `matches`; `pairs` is a buffer.
fn copied_repeatedly(matches: &[ChunkMatch], content_chunks: u32, pairs: &mut Vec<(u32, u32)>) -> bool {
    pairs.clear();
    let content = matches.iter().filter(|m| m.suspicious < content_chunks);
    pairs.extend(content.map(|m| (m.source, m.suspicious)));
    pairs.sort_unstable();
    pairs.dedup();
    let repeated = pairs.windows(2).filter(|w| w[0].0 == w[1].0).count();
    repeated > MAX_REPEATED_SOURCE_CHUNKS
}

/// The number of source documents among `candidates` (sorted by document).
fn distinct_sources(candidates: &[CandidatePair]) -> u64 {
    1 + candidates.windows(2).filter(|w| w[0].source_doc != w[1].source_doc).count() as u64
}

/// The regions of a pair's `intervals` (of chunks whose ranges are `this` and
/// `source`): their windows widened and merged ([`merge_regions`]).
fn regions_of(
    intervals: &[IntervalPair],
    this: &(impl ChunkRanges + ?Sized),
    source: &(impl ChunkRanges + ?Sized),
) -> Vec<(CharRange, CharRange, usize)> {
    merge_regions(intervals.iter().filter_map(|interval| {
        let (this, source) = interval.char_ranges(this, source)?;
        Some((widen(this), widen(source), interval.matches))
    }))
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
        CandidatePair {
            source_doc,
            this_window: WHOLE_DOCUMENT,
            source_window: WHOLE_DOCUMENT,
            anchors,
            strength: 0,
            evidence: Evidence::Chunks,
        }
    }
}

/// Keeps the `max` strongest of `candidates` (those that candidate chunks
/// found first; ties: lower document number first), in document order: a
/// suspicious document whose text occurs in many sources aligns a number of
/// regions that grows with its length, not with the collection.
fn keep_strongest(candidates: &mut Vec<CandidatePair>, max: usize) {
    if candidates.len() <= max {
        return;
    }
    // Short sources rank with the other regions of candidate chunks.
    let rank = |evidence: Evidence| if evidence == Evidence::ShortSource { Evidence::Chunks } else { evidence };
    candidates
        .sort_unstable_by_key(|c| (rank(c.evidence), std::cmp::Reverse(c.strength), c.source_doc, c.this_window.start));
    candidates.truncate(max);
    candidates.sort_unstable_by_key(|c| (c.source_doc, c.this_window.start));
}

/// `range` with [`WINDOW_MARGIN_CHARS`] more on each side (the end may pass the
/// end of the text).
fn widen(range: CharRange) -> CharRange {
    CharRange::new(range.start.saturating_sub(WINDOW_MARGIN_CHARS), range.end.saturating_add(WINDOW_MARGIN_CHARS))
}

/// `range` with a quarter of its length more on each side: the shared rare
/// words of a long reordered copy may leave its ends outside their
/// intervals by more than [`WINDOW_MARGIN_CHARS`].
fn widen_by_a_quarter(range: CharRange) -> CharRange {
    let margin = range.len() / 4;
    CharRange::new(range.start.saturating_sub(margin), range.end.saturating_add(margin))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tokenize::TokenizerParams;

    const TEXT: &str = "Telescopes found pulsars in the southern sky. Astronomers measured their spin. \
                        Radio waves reached the dish at night. Engineers cooled the receiver again. \
                        Students wrote the report about the survey. Editors printed the journal.";

    #[test]
    fn full_search_keeps_no_passage_condensing_its_source_past_the_limit_and_given_pairs_keep_any() {
        let passage = |source_chars| AlignedPassage {
            suspicious: CharRange::new(500, 1500),
            source: CharRange::new(0, source_chars),
            exact: false,
        };
        assert!(is_told_apart(&passage(1000), None));
        assert!(is_told_apart(&passage(25_000), None), "condensed 25 times");
        assert!(!is_told_apart(&passage(25_001), None), "a whole long source for a paragraph");
        assert!(is_told_apart(&passage(32_521), Some(&[3])), "a given pair's");
    }

    #[test]
    fn a_document_one_window_covers_has_no_candidate_gap_and_a_longer_one_the_parameter() {
        let params = AlignParams::default();
        let one_window = "é".repeat(WINDOW_MARGIN_CHARS as usize);
        assert_eq!(candidate_max_gap(&params, &one_window), usize::MAX, "characters are counted, not bytes");
        assert_eq!(candidate_max_gap(&params, &format!("{one_window}a")), params.candidate_max_gap);
    }

    fn aligner() -> Aligner<'static> {
        Aligner::new(TokenizerParams::default(), AlignParams::default(), None)
    }

    fn analysed(window: CharRange) -> Sentences {
        analysed_in(TEXT, window)
    }

    fn analysed_in(text: &str, window: CharRange) -> Sentences {
        let mut sentences = Sentences::default();
        aligner().analyse_window(&CharIndexed::new(text), window, &mut sentences);
        sentences
    }

    #[test]
    fn overlapping_windows_share_a_region_and_a_window_alone_is_analysed_as_before() {
        let (first, second, apart) = (CharRange::new(0, 90), CharRange::new(60, 140), CharRange::new(170, 400));
        let mut regions = Regions::default();
        regions.analyse(&mut aligner(), &CharIndexed::new(TEXT), [first, second, apart].into_iter());
        assert_eq!(regions.ranges, [CharRange::new(0, 140), CharRange::new(170, TEXT.len() as u32)]);
        let mut window = Sentences::default();
        // A window alone in its region gets the sentences of its own analysis.
        regions.window(apart, &mut window);
        let alone = analysed(apart);
        assert_eq!((&window.sentences, &window.sequence), (&alone.sentences, &alone.sequence));
        // Overlapping windows get the region's sentences that overlap them, whole.
        let region = analysed(CharRange::new(0, 140));
        regions.window(second, &mut window);
        let overlapping: Vec<CharRange> =
            region.sentences.iter().map(|s| s.range).filter(|r| r.overlaps(&second)).collect();
        assert_eq!(window.sentences.iter().map(|s| s.range).collect::<Vec<_>>(), overlapping);
        assert!(window.sentences[0].range.start < second.start, "the cut sentence is copied whole");
    }

    #[test]
    fn a_chain_of_overlapping_windows_is_cut_into_bounded_regions_that_hold_each_window_whole() {
        let text = TEXT.repeat(3 * MAX_REGION_CHARS as usize / TEXT.len());
        let chars = CharIndexed::new(&text);
        // Windows of 10,000 characters, each overlapping the next by half.
        let windows: Vec<CharRange> =
            (0..text.len() as u32 / 5000).map(|i| CharRange::new(i * 5000, i * 5000 + 10_000)).collect();
        let mut regions = Regions::default();
        regions.analyse(&mut aligner(), &chars, windows.iter().copied());
        assert!(regions.ranges.len() >= 3, "{} regions", regions.ranges.len());
        assert!(regions.ranges.iter().all(|r| r.len() < MAX_REGION_CHARS + 10_000));
        let mut out = Sentences::default();
        for window in windows {
            let window = clamp(window, regions.text_chars);
            assert!(regions.ranges.iter().any(|r| r.holds(&window)));
            regions.window(window, &mut out);
            let alone = analysed_in(&text, window);
            // The window's words, but for those of the sentences cut at its edges.
            let inner =
                |s: &Sentences| s.word_ranges[s.sentences[1].words.start..s.sentences[s.len() - 2].words.end].to_vec();
            let copied = out.word_ranges.clone();
            assert!(inner(&alone).iter().all(|w| copied.contains(w)), "window {window:?}");
        }
    }

    #[test]
    fn held_passages_are_added_where_nothing_lies_only_when_the_document_copies_enough() {
        let passage = |source_doc: u32, start: u32, end: u32| Passage {
            suspicious: CharRange::new(start, end),
            source_doc,
            source: CharRange::new(0, end - start),
            exact: false,
            likeness: Passage::UNMEASURED,
        };
        // Two passages covering 300 of 1000 characters.
        let (chars, gap) = (1000, 50);
        let found = [passage(1, 0, 200), passage(1, 100, 300)];
        let apart = passage(1, 500, 700);
        let overlapping = passage(2, 250, 450);
        let (piece, other_source) = (passage(1, 340, 400), passage(2, 340, 400));
        let mut passages = found.to_vec();
        let mut held = vec![apart, overlapping, piece, other_source];
        assert!(add_where_the_document_copies(&mut passages, &mut held, chars, gap));
        assert_eq!(passages, [found[0], found[1], apart, other_source], "overlapping or a piece: left out");
        let mut passages = vec![passage(1, 0, 200), passage(1, 100, 299)];
        let mut held = vec![apart];
        assert!(!add_where_the_document_copies(&mut passages, &mut held, chars, gap));
        assert_eq!(passages.len(), 2, "299 of 1000 characters: the document does not copy enough");
        assert!(held.is_empty());
    }

    #[test]
    fn a_short_source_is_one_whose_content_chunks_end_within_the_limit() {
        let ranges =
            |last_end: u32| [CharRange::new(0, 40), CharRange::new(last_end - 30, last_end), CharRange::new(0, 1)];
        // The third range is a structure chunk's: only content chunks count.
        assert!(is_short_source(&ranges(SHORT_SOURCE_CHARS)[..], 2));
        assert!(!is_short_source(&ranges(SHORT_SOURCE_CHARS + 1)[..], 2));
        assert!(!is_short_source(&ranges(100)[..], 0), "no content chunk: nothing to compare");
    }

    proptest::proptest! {
        #[test]
        fn shared_chunks_are_every_pair_of_equal_hashes(
            this in proptest::collection::vec(0u64..12, 0..30),
            source in proptest::collection::vec(0u64..12, 0..30),
        ) {
            let chunks = |hashes: &[u64]| Chunks {
                hashes: hashes.to_vec(),
                ranges: (0..hashes.len() as u32).map(|i| CharRange::new(i, i + 1)).collect(),
            };
            let (mut sorted, mut matches) = (Vec::new(), Vec::new());
            shared_chunks(&chunks(&this), &chunks(&source), &mut sorted, &mut matches);
            matches.sort_unstable();
            let mut expected = Vec::new();
            for (i, a) in this.iter().enumerate() {
                for (j, b) in source.iter().enumerate() {
                    if a == b {
                        expected.push(ChunkMatch { suspicious: i as u32, source: j as u32 });
                    }
                }
            }
            expected.sort_unstable();
            proptest::prop_assert_eq!(matches, expected);
        }
    }
}
