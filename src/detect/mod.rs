//! The detection pipeline, end to end: read → tokenize → chunk → index (sources)
//! and read → tokenize → chunk → match → intervals → overlap → report
//! (suspicious documents), in parallel with rayon.

pub mod params;
pub(crate) mod parts;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::align::stock::StockPhrases;
use crate::analysis::document::{self, AnalysisParams, Analyzer, Document, analyse_batch};
use crate::analysis::extract::cache::TextCache;
use crate::analysis::read::{self, DocumentFile, MemoryDocuments, TextOrigin, TextReader};
use crate::analysis::span::{CharMap, CharRange, PackedRanges, TextPiece, union_len};
use crate::analysis::stem::Language;
use crate::analysis::synonyms::Synonyms;
use crate::analysis::taboo::{self, TabooChunks, TabooTexts};
use crate::analysis::translate::{
    CrossLanguage, MappedText, OriginalOffsets, Translator, majority_language, text_language,
};
use crate::embed::Embedder;
use crate::error::Error;
use crate::matching::index::{ChunkIndex, ChunkKey, IndexBuilder, KeyWidth};
use crate::matching::overlap::{Passage, Twins, resolve_overlaps};
use crate::matching::search::{BatchLookup, FoundChunks, Hit, HitBudget};
use crate::pairs::DocumentPairs;
use crate::passages::{PassageFinder, SourceDocuments, add_where_the_document_copies};
use crate::progress::{Progress, Stage, stop_if_cancelled};
use crate::report::{Detection, DetectionSink};
use params::DetectParams;
use parts::{AnalysedPart, Part, PartSizes};

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

impl std::ops::AddAssign for Summary {
    /// Adds the counts and times of `other`, a part of the same run.
    fn add_assign(&mut self, other: Summary) {
        // Every field named, so that a new one cannot be left out.
        let Summary {
            source_documents,
            suspicious_documents,
            skipped_files,
            input_bytes,
            source_chunks,
            suspicious_chunks,
            passages,
            taboo_chars,
            candidate_pairs,
            read_sources,
            build_index,
            matching,
        } = other;
        self.source_documents += source_documents;
        self.suspicious_documents += suspicious_documents;
        self.skipped_files += skipped_files;
        self.input_bytes += input_bytes;
        self.source_chunks += source_chunks;
        self.suspicious_chunks += suspicious_chunks;
        self.passages += passages;
        self.taboo_chars += taboo_chars;
        self.candidate_pairs += candidate_pairs;
        self.read_sources += read_sources;
        self.build_index += build_index;
        self.matching += matching;
    }
}

/// Detects passages of the documents in `suspicious_dir` copied from those in
/// `source_dir` ([`read::list_document_files`]), and pushes every suspicious
/// document's detections into `sink`. When the two are the same directory, each
/// document is compared with every other one but not with itself.
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
    /// Where the texts extracted from PDF, DOCX and ODT documents are
    /// kept. Without one, a source document is extracted again each time it
    /// is aligned with a suspicious one.
    pub text_cache: Option<&'a TextCache>,
    /// Read the documents in the directories' subfolders too, named by their
    /// paths relative to their directory ([`read::list_document_files`]).
    pub recursive: bool,
    /// Cross-language detection: suspicious documents in another language
    /// than the sources are mapped into theirs ([`crate::analysis::translate`]),
    /// with the alignment stage only.
    pub cross_language: Option<&'a CrossLanguage>,
    /// The sentence encoder of the meaning-level alignment (`--model`,
    /// [`crate::align::semantic`]); the paper's method ignores it.
    pub embedder: Option<&'a Embedder>,
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
    let files = RunFiles::list(source_dir, suspicious_dir, scope, progress)?;
    let reader = TextReader::new(scope.text_cache);
    detect_files(&files, &[source_dir, suspicious_dir], reader, params, scope, sink, progress)
}

/// The directory that [`detect_texts`] names its source texts in, in messages.
pub const TEXT_SOURCES: &str = "sources";
/// The directory that [`detect_texts`] names its suspicious texts in, in messages.
pub const TEXT_SUSPICIOUS: &str = "suspicious";

/// [`detect_with`] over texts held in memory instead of the documents of
/// two directories, through the very same stages, each text read as the
/// bytes of a file would be ([`TextReader::in_memory`]): the `sources` and
/// the `suspicious` texts, each with the name a file of its directory would
/// have (`source.txt`: the extension tells how it is read, as a file's
/// does). Messages name a text as a file of the directory [`TEXT_SOURCES`]
/// or [`TEXT_SUSPICIOUS`]. A name given twice on one side is an error.
pub fn detect_texts(
    sources: &[(&str, &str)],
    suspicious: &[(&str, &str)],
    params: &DetectParams,
    scope: &Scope<'_>,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    params.validate()?;
    let mut memory = MemoryDocuments::default();
    let (source_dir, suspicious_dir) = (Path::new(TEXT_SOURCES), Path::new(TEXT_SUSPICIOUS));
    let files = RunFiles {
        sources: held(&mut memory, source_dir, sources)?,
        suspicious: held(&mut memory, suspicious_dir, suspicious)?,
        same_directory: false,
        skipped: 0,
    };
    let files = files.listed_in(scope.pairs, source_dir, suspicious_dir)?;
    detect_files(&files, &[], TextReader::in_memory(&memory), params, scope, sink, progress)
}

/// The `texts` held in `memory` as the documents of `dir`, their files
/// sorted by name; a name given twice is an error.
fn held(memory: &mut MemoryDocuments, dir: &Path, texts: &[(&str, &str)]) -> Result<Vec<DocumentFile>, Error> {
    let mut files = texts
        .iter()
        .map(|&(name, text)| {
            let duplicate = || Error::DuplicateDocument { dir: dir.to_path_buf(), name: name.to_string() };
            memory.add(dir, name, text.as_bytes().to_vec()).ok_or_else(duplicate)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// Runs detection over `files` (of the directories `dirs`, none for texts
/// in memory), read with `reader`.
fn detect_files(
    files: &RunFiles,
    dirs: &[&Path],
    reader: TextReader<'_>,
    params: &DetectParams,
    scope: &Scope<'_>,
    sink: &dyn DetectionSink,
    progress: &dyn Progress,
) -> Result<Summary, Error> {
    sink.prepare(dirs, &files.suspicious_names(), &files.source_names(), progress)?;
    let (params, stock) = params.for_collection(&files.sources, reader, scope.synonyms);
    let params = &params;
    let taboo = run_taboo(params, scope);
    let setup = Setup { reader, ..Setup::new(params, scope, files.same_directory, &taboo, stock.as_ref()) };
    let mut summary = match KeyWidth::of(params.chunks.hash_bits) {
        KeyWidth::U32 => run::<u32>(&files.sources, &files.suspicious, &setup, sink, progress),
        KeyWidth::U64 => run::<u64>(&files.sources, &files.suspicious, &setup, sink, progress),
    }?;
    summary.skipped_files += files.skipped;
    Ok(summary)
}

/// Source documents whose language is guessed to tell the sources' language.
const LANGUAGE_SAMPLE_SOURCES: usize = 9;

/// The translator of `settings` into the sources' language: the one they
/// name, else the language of most of `sampled`, those guessed of the
/// first sources as they were read ([`SourceSide::sampled_languages`]);
/// `None` when it cannot be told. Cognates are found among the words of
/// `sources` (read with `reader` when a document is first mapped), and a
/// document in the language of one of them is not mapped.
fn translator<'a>(
    settings: &CrossLanguage,
    sampled: &[Language],
    sources: &'a [DocumentFile],
    reader: TextReader<'a>,
) -> Option<Translator<'a>> {
    let texts = move |files: &'a [DocumentFile]| {
        files.iter().filter_map(move |file| document::read_text(file, reader, &crate::progress::Silent))
    };
    let for_each_source = move |each: &mut dyn FnMut(&str)| texts(sources).for_each(|text| each(&text));
    let language = settings.sources.or_else(|| majority_language(sampled.iter().copied()));
    language.map(|language| Translator::new(settings.clone(), language, for_each_source))
}

/// The documents a run compares: those of the two directories, or those the
/// listed pairs name.
pub(crate) struct RunFiles {
    /// The source documents, sorted by name.
    pub(crate) sources: Vec<DocumentFile>,
    /// The suspicious documents, sorted by name.
    pub(crate) suspicious: Vec<DocumentFile>,
    /// The two directories are one: a document is not compared with itself.
    pub(crate) same_directory: bool,
    /// Entries of the two directories skipped with a warning while listing.
    pub(crate) skipped: usize,
}

impl RunFiles {
    /// Lists the documents of the two directories, keeping those of
    /// `scope`'s listed pairs when there are any.
    pub(crate) fn list(
        source_dir: &Path,
        suspicious_dir: &Path,
        scope: &Scope<'_>,
        progress: &dyn Progress,
    ) -> Result<Self, Error> {
        let source_listing = read::list_document_files(source_dir, scope.recursive, progress)?;
        let suspicious_listing = read::list_document_files(suspicious_dir, scope.recursive, progress)?;
        let files = RunFiles {
            skipped: (source_listing.skipped + suspicious_listing.skipped) as usize,
            sources: source_listing.documents,
            suspicious: suspicious_listing.documents,
            same_directory: read::same_directory(source_dir, suspicious_dir),
        };
        files.listed_in(scope.pairs, source_dir, suspicious_dir)
    }

    /// These files, but only those `pairs` list when given; a listed
    /// document missing from its directory is an error.
    fn listed_in(
        mut self,
        pairs: Option<&DocumentPairs>,
        source_dir: &Path,
        suspicious_dir: &Path,
    ) -> Result<Self, Error> {
        if let Some(pairs) = pairs {
            keep_listed(&mut self.sources, source_dir, &pairs.source_names())?;
            let names: BTreeSet<&str> = pairs.iter().map(|(suspicious, _)| suspicious).collect();
            keep_listed(&mut self.suspicious, suspicious_dir, &names)?;
        }
        Ok(self)
    }

    /// The file names of the suspicious documents.
    pub(crate) fn suspicious_names(&self) -> Vec<&str> {
        self.suspicious.iter().map(|file| file.name.as_str()).collect()
    }

    /// The file names of the source documents.
    pub(crate) fn source_names(&self) -> Vec<&str> {
        self.sources.iter().map(|file| file.name.as_str()).collect()
    }
}

/// The content chunks of `scope`'s taboo texts, chunked as `params` chunk
/// documents (none without taboo texts).
pub(crate) fn run_taboo(params: &DetectParams, scope: &Scope<'_>) -> TabooChunks {
    let analysis = params.analysis(scope.synonyms);
    scope.taboo.map(|texts| taboo_chunks(texts, &analysis)).unwrap_or_default()
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
pub(crate) struct Setup<'a> {
    pub(crate) params: &'a DetectParams,
    pub(crate) synonyms: Option<&'a Synonyms>,
    /// The collection's stock phrases ([`crate::align::stock`]), with the alignment stage.
    pub(crate) stock: Option<&'a StockPhrases>,
    /// The sentence encoder of the alignment stage, if any.
    pub(crate) embedder: Option<&'a Embedder>,
    pub(crate) pairs: Option<&'a DocumentPairs>,
    /// The sources are the suspicious documents: a document is not compared
    /// with itself (it would match itself whole).
    pub(crate) same_directory: bool,
    /// Chunks of the taboo texts: not indexed, and blanked in suspicious documents.
    pub(crate) taboo: &'a TabooChunks,
    /// How documents become text (with the cache of extracted texts).
    pub(crate) reader: TextReader<'a>,
    /// How a long suspicious document is cut to be aligned in parts.
    pub(crate) parts: PartSizes,
    /// Cross-language detection's settings, with the alignment stage only
    /// (the paper's method compares texts as they are written).
    pub(crate) cross_language: Option<&'a CrossLanguage>,
    /// Maps suspicious documents in another language into the sources'
    /// (made once the sources are read).
    pub(crate) translator: Option<&'a Translator<'a>>,
    /// The parameters of the documents it maps.
    pub(crate) translated_params: Option<&'a DetectParams>,
}

/// The content chunks of the taboo `texts`, chunked as documents are.
fn taboo_chunks(texts: &TabooTexts, analysis: &AnalysisParams<'_>) -> TabooChunks {
    let mut analyzer = Analyzer::new(analysis);
    let mut hashes = Vec::new();
    for text in texts.texts() {
        analyzer.chunk(text);
        hashes.extend_from_slice(analyzer.content_hashes());
    }
    TabooChunks::new(hashes)
}

impl<'a> Setup<'a> {
    /// The setup of a run of `params` within `scope`, with `taboo` chunks
    /// and the collection's `stock` phrases.
    pub(crate) fn new(
        params: &'a DetectParams,
        scope: &Scope<'a>,
        same_directory: bool,
        taboo: &'a TabooChunks,
        stock: Option<&'a StockPhrases>,
    ) -> Self {
        let reader = TextReader::new(scope.text_cache);
        let parts = PartSizes::default();
        let (synonyms, embedder, pairs) = (scope.synonyms, scope.embedder, scope.pairs);
        let cross_language = scope.cross_language.filter(|_| params.align.is_some());
        Setup {
            params,
            synonyms,
            stock,
            embedder,
            pairs,
            same_directory,
            taboo,
            reader,
            parts,
            cross_language,
            translator: None,
            translated_params: None,
        }
    }

    /// Whether the sources' language is guessed from the first sources read
    /// ([`LANGUAGE_SAMPLE_SOURCES`]).
    fn guesses_sources_language(&self) -> bool {
        self.cross_language.is_some_and(|settings| settings.sources.is_none())
    }

    /// A passage finder for this run's parameters (those of documents
    /// `translated` from another language, or the others), synonyms, stock
    /// phrases and sentence encoder: one per thread.
    pub(crate) fn passage_finder(&self, translated: bool) -> PassageFinder<'a> {
        PassageFinder::new(self.params_for(translated), self.synonyms, self.stock).with_embedder(self.embedder)
    }

    /// Whether the suspicious document `file` is aligned in parts
    /// ([`parts`]): with the alignment stage, when it is longer than a part.
    pub(crate) fn aligned_in_parts(&self, file: &DocumentFile) -> bool {
        self.params.align.is_some() && file.bytes > self.parts.part as u64
    }

    /// The hit budget of one suspicious document ([`HitBudget`]): bounded
    /// with the alignment stage, every occurrence with the paper's method.
    pub(crate) fn hit_budget(&self) -> HitBudget {
        self.params.align.map_or(HitBudget::UNBOUNDED, |align| align.hit_budget())
    }

    /// How documents are analysed: the paper's chunks, or the candidate
    /// chunks of the alignment stage.
    pub(crate) fn analysis(&self) -> AnalysisParams<'a> {
        self.params.analysis(self.synonyms)
    }

    /// The parameters of a suspicious document, `translated` from another
    /// language or not.
    pub(crate) fn params_for(&self, translated: bool) -> &'a DetectParams {
        self.translated_params.filter(|_| translated).unwrap_or(self.params)
    }

    /// How suspicious documents are analysed: as [`analysis`](Self::analysis),
    /// those in another language than the sources mapped into theirs first.
    pub(crate) fn suspicious_analysis(&self) -> AnalysisParams<'a> {
        AnalysisParams { translator: self.translator, ..self.analysis() }
    }

    /// `text` mapped into the sources' language when it is in another
    /// ([`Translator::translate`]), with where its pieces came from.
    pub(crate) fn in_sources_language(&self, text: String) -> Result<(String, Option<OriginalOffsets>), Error> {
        match self.translator.map(|translator| translator.translate(&text)).transpose()?.flatten() {
            Some(MappedText { text, offsets }) => Ok((text, Some(offsets))),
            None => Ok((text, None)),
        }
    }

    /// The dictionary that could not be loaded while suspicious documents
    /// were analysed, as an error.
    pub(crate) fn translation_failure(&self) -> Result<(), Error> {
        match self.translator.and_then(Translator::failure) {
            Some(failure) => Err(failure.clone().into()),
            None => Ok(()),
        }
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
    stop_if_cancelled(progress)?;
    let translator =
        setup.cross_language.and_then(|settings| translator(settings, &side.sampled_languages, sources, setup.reader));
    let translated_params = translator.as_ref().map(|translator| setup.params.for_translated(translator.sources()));
    let setup = &Setup { translator: translator.as_ref(), translated_params: translated_params.as_ref(), ..*setup };

    let started = Instant::now();
    progress.start(Stage::BuildIndex, 0);
    let index = builder.build();
    progress.finish();
    summary.build_index = started.elapsed();

    let started = Instant::now();
    Matching { side: &side, index: &index, setup, sink, progress }.report_all(suspicious, &mut summary)?;
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
    /// How they are read.
    reader: TextReader<'a>,
    /// Content chunks of each document (structure chunks follow them).
    content_chunks: Vec<u32>,
    /// Where the characters of each document's text are in its file, when
    /// the text is the file's bytes as they are: the alignment then reads
    /// only the part of a source it aligns ([`TextReader::load_piece`]).
    char_maps: Vec<Option<CharMap>>,
    /// The languages guessed of the first [`LANGUAGE_SAMPLE_SOURCES`]
    /// documents as they were read, when the sources' language is guessed
    /// ([`translator`]): no source is read again for it.
    sampled_languages: Vec<Language>,
}

/// The numbers of the source documents (named `names`, sorted) listed with
/// `suspicious` in `pairs`, sorted; a listed document missing from `names`
/// (skipped as unreadable) is left out.
pub(crate) fn listed_sources(names: &[String], pairs: &DocumentPairs, suspicious: &str) -> Vec<u32> {
    pairs
        .sources_of(suspicious)
        .filter_map(|name| names.binary_search_by(|n| n.as_str().cmp(name)).ok())
        .map(|i| i as u32)
        .collect()
}

/// Leaves out of `hits` those of the source document named `name` among the
/// sources `names` (sorted).
pub(crate) fn drop_hits_of(names: &[String], name: &str, hits: &mut Vec<Hit>) {
    if let Ok(doc) = names.binary_search_by(|n| n.as_str().cmp(name)) {
        hits.retain(|hit| hit.source_doc as usize != doc);
    }
}

impl SourceDocuments for SourceSide<'_> {
    type Ranges<'a>
        = &'a PackedRanges
    where
        Self: 'a;

    fn chunk_ranges(&self, doc: u32) -> &PackedRanges {
        &self.chunk_ranges[doc as usize]
    }

    fn content_chunks(&self, doc: u32) -> u32 {
        self.content_chunks[doc as usize]
    }

    fn text(&self, doc: u32) -> Option<String> {
        self.reader.load_text(self.files[doc as usize])
    }

    fn text_piece(&self, doc: u32, range: CharRange) -> Option<TextPiece> {
        self.reader.load_piece(self.files[doc as usize], self.char_maps[doc as usize].as_ref(), range)
    }
}

/// Reads, analyses and indexes the source documents, a batch at a time: while
/// one batch is analysed in parallel, the one before it is added to the index
/// (which only one thread can do), so that neither core waits for the other.
fn read_sources<'f, K: ChunkKey>(
    sources: &'f [DocumentFile],
    setup: &Setup<'f>,
    progress: &dyn Progress,
    summary: &mut Summary,
) -> (SourceSide<'f>, IndexBuilder<K>) {
    progress.start(Stage::ReadSources, sources.iter().map(|f| f.bytes).sum());
    let mut side = SourceSide {
        names: Vec::new(),
        chunk_ranges: Vec::new(),
        files: Vec::new(),
        reader: setup.reader,
        content_chunks: Vec::new(),
        char_maps: Vec::new(),
        sampled_languages: Vec::new(),
    };
    let mut builder = IndexBuilder::<K>::new(setup.params.chunks.hash_bits);
    let analysis = setup.analysis();
    let mut analysed: Option<(&[DocumentFile], Vec<Option<Document>>)> = None;
    let mut batches = document::batches(sources, |f| f.bytes);
    loop {
        // A cancelled run reads no more (and `run` then stops).
        let next = if progress.cancelled() { None } else { batches.next() };
        if next.is_none() && analysed.is_none() {
            break;
        }
        let (next_analysed, ()) = rayon::join(
            || next.map(|batch| (batch, analyse_batch(batch, |f| f, &analysis, setup.reader, progress))),
            || {
                if let Some((batch, documents)) = analysed.take() {
                    side.add_batch(batch, documents, setup, &mut builder, summary);
                }
            },
        );
        analysed = next_analysed;
    }
    summary.source_documents = side.names.len();
    progress.finish();
    (side, builder)
}

impl<'f> SourceSide<'f> {
    /// Adds the analysed `documents` of the files `batch` to the index (but
    /// for `setup`'s taboo chunks) and to the side; counts them in `summary`.
    /// Their character maps are made only for the alignment stage, the one
    /// reader of them.
    fn add_batch<K: ChunkKey>(
        &mut self,
        batch: &'f [DocumentFile],
        documents: Vec<Option<Document>>,
        setup: &Setup<'_>,
        builder: &mut IndexBuilder<K>,
        summary: &mut Summary,
    ) {
        let (taboo, aligned) = (setup.taboo, setup.params.align.is_some());
        for (file, doc) in batch.iter().zip(documents) {
            summary.input_bytes += file.bytes;
            let Some(Document { text, chunks, content_chunks, origin, .. }) = doc else {
                summary.skipped_files += 1;
                continue;
            };
            if setup.guesses_sources_language() && self.names.len() < LANGUAGE_SAMPLE_SOURCES {
                self.sampled_languages.extend(text_language(&text));
            }
            builder.add_document_where(self.names.len() as u32, &chunks.hashes, |hash| !taboo.contains(hash));
            summary.source_chunks += chunks.len() as u64;
            self.names.push(file.name.clone());
            self.files.push(file);
            self.content_chunks.push(content_chunks);
            self.chunk_ranges.push(PackedRanges::new(&chunks.ranges));
            self.char_maps.push((aligned && origin == TextOrigin::FileBytes).then(|| CharMap::new(&text)));
        }
    }
}

/// The matching stage of a run: the source side, its index, and where the
/// reports go.
struct Matching<'m, K: ChunkKey> {
    side: &'m SourceSide<'m>,
    index: &'m ChunkIndex<K>,
    setup: &'m Setup<'m>,
    sink: &'m dyn DetectionSink,
    progress: &'m dyn Progress,
}

impl<K: ChunkKey> Matching<'_, K> {
    /// Reads, matches and reports every suspicious document: those aligned
    /// whole in parallel batches, then the long ones, each in parts.
    fn report_all(&self, suspicious: &[DocumentFile], summary: &mut Summary) -> Result<(), Error> {
        self.progress.start(Stage::Match, suspicious.iter().map(|f| f.bytes).sum());
        let (long, whole): (Vec<&DocumentFile>, Vec<&DocumentFile>) =
            suspicious.iter().partition(|file| self.setup.aligned_in_parts(file));
        let result = self
            .report_whole(&whole, summary)
            .and_then(|()| long.iter().try_for_each(|file| self.report_in_parts(file, summary)));
        self.progress.finish();
        result
    }

    /// Reports the documents `whole`, a batch at a time, each document of a
    /// batch on a thread of its own. With a bounded hit budget, while one
    /// batch is aligned the next is analysed and looked up, so that the
    /// serial steps of the lookup and a batch's last, longest alignments do
    /// not leave a core waiting. With unbounded hits (the paper's method) a
    /// document's hits can take tens of megabytes where text is widely
    /// shared, so one batch is held at a time.
    fn report_whole(&self, whole: &[&DocumentFile], summary: &mut Summary) -> Result<(), Error> {
        let pipelined = self.setup.hit_budget() != HitBudget::UNBOUNDED;
        let mut lookup = BatchLookup::default();
        let mut looked_up: Option<LookedUp<'_>> = None;
        let mut batches = document::batches(whole, |f| f.bytes);
        loop {
            let next = batches.next();
            if next.is_none() && looked_up.is_none() {
                return Ok(());
            }
            let (mut read, mut aligned) = (Summary::default(), Summary::default());
            let mut look_up_next = || next.map(|batch| self.look_up(batch, &mut lookup, &mut read)).transpose();
            let mut align_pending = || looked_up.take().map_or(Ok(()), |batch| self.align_batch(batch, &mut aligned));
            let (next_looked_up, reported) = if pipelined {
                rayon::join(look_up_next, align_pending)
            } else {
                let reported = align_pending();
                (look_up_next(), reported)
            };
            *summary += read;
            *summary += aligned;
            reported?;
            looked_up = next_looked_up?;
        }
    }

    /// Reads and analyses the documents of `batch` (their taboo text blanked)
    /// and looks their chunks up in the index; counts them in `summary`. A
    /// dictionary that cannot be loaded is an error.
    fn look_up<'b>(
        &self,
        batch: &'b [&'b DocumentFile],
        lookup: &mut BatchLookup,
        summary: &mut Summary,
    ) -> Result<LookedUp<'b>, Error> {
        let Matching { index, setup, progress, .. } = *self;
        let mut documents = analyse_batch(batch, |f| *f, &setup.suspicious_analysis(), setup.reader, progress);
        setup.translation_failure()?;
        summary.taboo_chars +=
            documents.iter_mut().flatten().map(|doc| taboo::covered_chars(&doc.blank_taboo(setup.taboo))).sum::<u64>();
        let hashes: Vec<&[u64]> =
            documents.iter().map(|c| c.as_ref().map_or(&[][..], |c| &c.chunks.hashes[..])).collect();
        let found = lookup.found(index, &hashes, setup.hit_budget());
        summary.input_bytes += batch.iter().map(|f| f.bytes).sum::<u64>();
        summary.skipped_files += documents.iter().filter(|c| c.is_none()).count();
        summary.suspicious_chunks += documents.iter().flatten().map(|c| c.chunks.len() as u64).sum::<u64>();
        Ok(LookedUp { batch, documents, found })
    }

    /// Finds and reports the passages of a looked-up batch, a document per
    /// thread; counts them in `summary`.
    fn align_batch(&self, looked_up: LookedUp<'_>, summary: &mut Summary) -> Result<(), Error> {
        let Matching { side, index, setup, sink, progress } = *self;
        let LookedUp { batch, documents, found } = looked_up;
        let passages = batch
            .par_iter()
            .zip(documents)
            .zip(found)
            .filter_map(|((file, chunks), found)| Some((file, chunks?, found)));
        let reported: Vec<(u64, u64)> = passages
            .map_init(
                || Finders::new(setup),
                |finders, (file, doc, found)| {
                    stop_if_cancelled(progress)?;
                    let finder = finders.for_document(&doc);
                    let mut hits = found.hits(index, &doc.chunks.hashes);
                    if setup.same_directory {
                        drop_hits_of(&side.names, &file.name, &mut hits);
                    }
                    report_document(finder, file, &doc, &mut hits, side, &side.names, setup, sink)
                },
            )
            .collect::<Result<_, Error>>()?;
        summary.suspicious_documents += reported.len();
        summary.passages += reported.iter().map(|c| c.0).sum::<u64>();
        summary.candidate_pairs += reported.iter().map(|c| c.1).sum::<u64>();
        Ok(())
    }

    /// Detects a long suspicious document in parts ([`parts`]): each part is
    /// analysed, looked up and aligned as a document (the parts in
    /// parallel), and the passages of all parts are joined across the cuts,
    /// their overlaps resolved, and reported as the document's. Only a part
    /// per thread is held in words, chunks and hits, beside the text.
    fn report_in_parts(&self, file: &DocumentFile, summary: &mut Summary) -> Result<(), Error> {
        let Matching { side, setup, progress, .. } = *self;
        stop_if_cancelled(progress)?;
        summary.input_bytes += file.bytes;
        let text = document::read_text(file, setup.reader, progress);
        progress.advance(file.bytes);
        let Some(text) = text else {
            summary.skipped_files += 1;
            return Ok(());
        };
        let (text, translated) = setup.in_sources_language(text)?;
        let listed = setup.pairs.map(|pairs| listed_sources(&side.names, pairs, &file.name));
        let analysis = setup.analysis();
        let found: Vec<PartFound> = parts::parts(&text, setup.parts)
            .par_iter()
            .enumerate()
            .map_init(
                || (Analyzer::new(&analysis), setup.passage_finder(translated.is_some()), BatchLookup::default()),
                |(analyzer, finder, lookup), (number, part)| {
                    self.find_in_part(file, &text, (number, part), listed.as_deref(), (analyzer, finder, lookup))
                },
            )
            .collect();
        let mut taboo_regions: Vec<CharRange> = found.iter().flat_map(|f| f.taboo.iter().copied()).collect();
        summary.taboo_chars += union_len(&mut taboo_regions);
        summary.suspicious_chunks += found.iter().map(|f| f.chunks).sum::<u64>();
        summary.candidate_pairs += found.iter().map(|f| f.aligned_pairs).sum::<u64>();
        let held = found.iter().flat_map(|f| f.held.iter().copied()).collect();
        let passages = found.into_iter().flat_map(|f| f.passages).collect();
        let found = FoundInParts { passages, held, chars: text.chars().count(), translated };
        summary.passages += report_parts(file, found, &side.names, setup, self.sink)?;
        summary.suspicious_documents += 1;
        Ok(())
    }

    /// The passages of part `number` of `file`'s `text`, found as those of
    /// a document of its own, with `listed` sources only when given.
    fn find_in_part(
        &self,
        file: &DocumentFile,
        text: &str,
        (number, part): (usize, &Part),
        listed: Option<&[u32]>,
        (analyzer, finder, lookup): (&mut Analyzer<'_>, &mut PassageFinder<'_>, &mut BatchLookup),
    ) -> PartFound {
        let Matching { side, index, setup, .. } = *self;
        let AnalysedPart { document: doc, taboo, own_chunks: chunks } = part.analyse(analyzer, text, setup.taboo);
        let found = lookup.found(index, &[&doc.chunks.hashes[..]], setup.hit_budget()).pop();
        let mut hits = found.map_or_else(Vec::new, |f| f.hits(index, &doc.chunks.hashes));
        if setup.same_directory {
            drop_hits_of(&side.names, &file.name, &mut hits);
        }
        let (passages, held, aligned_pairs) = finder.find_in_part(&doc, &mut hits, side, listed);
        let in_text = |found: &[Passage]| found.iter().map(|p| (number, part.passage_in_text(p))).collect();
        PartFound { passages: in_text(passages), held: in_text(held), taboo, chunks, aligned_pairs }
    }
}

/// One thread's passage finders: that of the run's parameters, and that of
/// the documents mapped from another language, made when one first needs it.
struct Finders<'s> {
    setup: &'s Setup<'s>,
    same_language: PassageFinder<'s>,
    translated: Option<PassageFinder<'s>>,
}

impl<'s> Finders<'s> {
    fn new(setup: &'s Setup<'s>) -> Self {
        Finders { setup, same_language: setup.passage_finder(false), translated: None }
    }

    /// The finder of `doc`.
    fn for_document(&mut self, doc: &Document) -> &mut PassageFinder<'s> {
        let Finders { setup, same_language, translated } = self;
        match doc.translated {
            None => same_language,
            Some(_) => translated.get_or_insert_with(|| setup.passage_finder(true)),
        }
    }
}

/// A batch of suspicious documents analysed and looked up in the index,
/// ready to be aligned.
struct LookedUp<'b> {
    batch: &'b [&'b DocumentFile],
    /// Each file's document, `None` when it was skipped.
    documents: Vec<Option<Document>>,
    /// Each document's chunks found in the index.
    found: Vec<FoundChunks>,
}

/// What one part of a long document gave.
struct PartFound {
    /// Its passages in the document's offsets, tagged with the part's number.
    passages: Vec<(usize, Passage)>,
    /// Its passages held back where the document copies, the same way.
    held: Vec<(usize, Passage)>,
    /// The regions its taboo chunks cover, in the document's offsets.
    taboo: Vec<CharRange>,
    /// Its chunks that start before the next part.
    chunks: u64,
    /// Document pairs it aligned.
    aligned_pairs: u64,
}

/// Finds the passages of one suspicious document among its hits in
/// `sources` (named `names`, numbered in name order) and reports them;
/// returns how many were reported and how many document pairs were aligned.
#[allow(clippy::too_many_arguments)]
pub(crate) fn report_document(
    finder: &mut PassageFinder<'_>,
    file: &DocumentFile,
    doc: &Document,
    hits: &mut [Hit],
    sources: &impl SourceDocuments,
    names: &[String],
    setup: &Setup<'_>,
    sink: &dyn DetectionSink,
) -> Result<(u64, u64), Error> {
    let listed = setup.pairs.map(|pairs| listed_sources(names, pairs, &file.name));
    let (passages, aligned_pairs) = finder.find(doc, hits, sources, listed.as_deref());
    Ok((report_passages(file, passages, names, doc.translated.as_ref(), sink)?, aligned_pairs))
}

/// What the parts of a long document gave.
#[derive(Default)]
pub(crate) struct FoundInParts {
    /// The passages of all parts, tagged with their part's number, in the
    /// document's offsets.
    pub(crate) passages: Vec<(usize, Passage)>,
    /// The passages they held back where the document copies, the same way.
    pub(crate) held: Vec<(usize, Passage)>,
    /// Characters of the document.
    pub(crate) chars: usize,
    /// Where the document's text was mapped from another language.
    pub(crate) translated: Option<OriginalOffsets>,
}

/// Reports the passages `found` in the parts of the long document `file`:
/// the pieces of a passage cut by a part boundary joined, overlaps resolved
/// by `setup`'s policy over the whole document, and the passages held back
/// added where the document copies
/// ([`crate::passages::add_where_the_document_copies`]). Returns how many
/// there were.
pub(crate) fn report_parts(
    file: &DocumentFile,
    found: FoundInParts,
    names: &[String],
    setup: &Setup<'_>,
    sink: &dyn DetectionSink,
) -> Result<u64, Error> {
    let mut passages = parts::join_across_cuts(found.passages);
    let twins = Twins::when_pairs_given(setup.pairs.is_some());
    resolve_overlaps(&mut passages, setup.params.overlap, twins);
    let mut held = parts::join_across_cuts(found.held);
    let piece_gap = setup.params.align.map_or(0, |align| align.merge_gap_chars);
    if add_where_the_document_copies(&mut passages, &mut held, found.chars, piece_gap) {
        resolve_overlaps(&mut passages, setup.params.overlap, twins);
    }
    report_passages(file, &passages, names, found.translated.as_ref(), sink)
}

/// Reports `passages` (between `file` and the sources named `names`) to
/// `sink`, at the original text's offsets when the document was
/// `translated`; returns how many there were.
fn report_passages(
    file: &DocumentFile,
    passages: &[Passage],
    names: &[String],
    translated: Option<&OriginalOffsets>,
    sink: &dyn DetectionSink,
) -> Result<u64, Error> {
    let original = |range| translated.map_or(range, |offsets| offsets.original_range(range));
    let detections: Vec<Detection<'_>> = passages
        .iter()
        .map(|p| Detection {
            this: original(p.suspicious),
            source_reference: &names[p.source_doc as usize],
            source: p.source,
        })
        .collect();
    sink.document(&file.name, &detections)?;
    Ok(detections.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::params::Preset;
    use crate::progress::Silent;
    use crate::testutil::{CollectDetections, Collected, long_document_corpus};

    /// The best preset's detections and summary on `dir`'s `src` and `susp`,
    /// long documents cut into `parts`.
    fn detect_best(dir: &Path, parts: PartSizes) -> (Vec<Collected>, Summary) {
        let params = DetectParams::preset(Preset::Best);
        let scope = Scope::default();
        let files = RunFiles::list(&dir.join("src"), &dir.join("susp"), &scope, &Silent).unwrap();
        let taboo = TabooChunks::default();
        let setup = Setup { parts, ..Setup::new(&params, &scope, false, &taboo, None) };
        let sink = CollectDetections::default();
        let summary = run::<u32>(&files.sources, &files.suspicious, &setup, &sink, &Silent).unwrap();
        (sink.sorted(), summary)
    }

    #[test]
    fn a_long_document_aligned_in_parts_gives_the_passages_of_its_whole_alignment() {
        let dir = tempfile::tempdir().unwrap();
        // Copies of 150 words are shorter than the overlap and lie whole in a
        // part; that of 500 is cut, and joined again.
        let long = long_document_corpus(dir.path());
        let in_parts = PartSizes { part: 2500, overlap: 1200 };
        assert!(parts::parts(&long, in_parts).len() >= 8, "{} bytes", long.len());

        let (whole, whole_summary) = detect_best(dir.path(), PartSizes { part: usize::MAX, overlap: 0 });
        let (parted, parted_summary) = detect_best(dir.path(), in_parts);
        assert_eq!(whole.len(), 5, "{whole:?}");
        assert_eq!(parted, whole);
        assert_eq!(parted_summary.passages, whole_summary.passages);
        assert_eq!(parted_summary.suspicious_chunks, whole_summary.suspicious_chunks);
    }

    /// The detections of `detect --pairs` (with `params`) on one pair of
    /// files of `corpus-fixtures/pan`, and those of [`detect_texts`] on
    /// their texts, each with the names it reports.
    fn pair_on_files_and_in_memory(params: &DetectParams, suspicious: &str, source: &str) -> [Vec<Collected>; 2] {
        let pan = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus-fixtures/pan");
        let (sources, suspicious_dir) = (pan.join("source-documents"), pan.join("suspicious-documents"));
        let mut pairs = DocumentPairs::default();
        pairs.insert(suspicious, source);
        let scope = Scope { pairs: Some(&pairs), ..Scope::default() };
        let on_files = CollectDetections::default();
        detect_with(&sources, &suspicious_dir, params, &scope, &on_files, &Silent).unwrap();
        let texts = |dir: &Path, name| std::fs::read_to_string(dir.join(name)).unwrap();
        let (suspicious_text, source_text) = (texts(&suspicious_dir, suspicious), texts(&sources, source));
        let in_memory = CollectDetections::default();
        let summary = detect_texts(
            &[(source, &source_text)],
            &[(suspicious, &suspicious_text)],
            params,
            &scope,
            &in_memory,
            &Silent,
        )
        .unwrap();
        assert_eq!((summary.source_documents, summary.suspicious_documents), (1, 1));
        [on_files.sorted(), in_memory.sorted()]
    }

    #[test]
    fn texts_in_memory_give_the_passages_of_their_files() {
        for preset in [Preset::Best, Preset::Pan09] {
            let params = DetectParams::preset(preset);
            for (suspicious, source) in [
                ("suspicious-document00001.txt", "source-document00001.txt"),
                ("suspicious-document00002.txt", "source-document00002.txt"),
                ("suspicious-document00001.txt", "source-document00002.txt"),
            ] {
                let [on_files, in_memory] = pair_on_files_and_in_memory(&params, suspicious, source);
                assert_eq!(in_memory, on_files, "{preset:?}: {suspicious} {source}");
            }
            let [on_files, _] =
                pair_on_files_and_in_memory(&params, "suspicious-document00001.txt", "source-document00001.txt");
            assert!(!on_files.is_empty(), "{preset:?}: the pair has passages");
        }
    }

    #[test]
    fn a_text_named_twice_on_one_side_is_an_error() {
        let params = DetectParams::preset(Preset::Pan09);
        let texts = [("a.txt", "one"), ("a.txt", "two")];
        let error =
            detect_texts(&texts, &[("b.txt", "x")], &params, &Scope::default(), &CollectDetections::default(), &Silent)
                .unwrap_err();
        assert_eq!(error.to_string(), "sources: two documents named a.txt");
    }

    /// Asks every run to stop once `after` units of matching are done, and
    /// counts the documents the sink received.
    struct CancelAfter {
        after: u64,
        matched: std::sync::atomic::AtomicU64,
    }

    impl Progress for CancelAfter {
        fn advance(&self, units: u64) {
            self.matched.fetch_add(units, std::sync::atomic::Ordering::SeqCst);
        }

        fn cancelled(&self) -> bool {
            self.matched.load(std::sync::atomic::Ordering::SeqCst) >= self.after
        }
    }

    #[test]
    fn a_cancelled_run_stops_between_documents_with_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (src, susp) = (dir.path().join("src"), dir.path().join("susp"));
        std::fs::create_dir_all(&src).unwrap();
        std::fs::create_dir_all(&susp).unwrap();
        std::fs::write(src.join("a.txt"), crate::testutil::prose(1, 400)).unwrap();
        for i in 0..50 {
            std::fs::write(susp.join(format!("s{i:02}.txt")), crate::testutil::prose(2 + i, 200)).unwrap();
        }
        let params = DetectParams::preset(Preset::Pan09);
        let sink = CollectDetections::default();
        let cancelled = CancelAfter { after: 0, matched: Default::default() };
        let result = detect(&src, &susp, &params, &sink, &cancelled);
        assert!(matches!(result, Err(Error::Interrupted)), "{result:?}");
        assert_eq!(result.unwrap_err().to_string(), "interrupted");

        let not_cancelled = CancelAfter { after: u64::MAX, matched: Default::default() };
        let summary = detect(&src, &susp, &params, &sink, &not_cancelled).unwrap();
        assert_eq!(summary.suspicious_documents, 50);
    }
}
