//! Building a corpus: cutting the input into documents (phase 1), inserting
//! cases into suspicious documents (phase 2), and writing the truth, `pairs`,
//! `cases.tsv` and `README.txt`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use rand::RngExt;
use rand::seq::index;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::language::detect_language;
use super::obfuscate::{Level, Strategy, Synonyms, obfuscate};
use super::plan::{
    Case, LengthClass, MAX_CASES_PER_DOCUMENT, ObfuscationMix, Purpose, choose_passage_in, document_chars,
    draw_strategy, plagiarised_share, rng_for,
};
use super::pool::{Made, Pool, recombine};
use super::reuse::SharedPool;
use super::stats::{CorpusStats, DocumentSet};
use super::texts::{Sentences, TextBlocks, list_texts, split_sentences};
use super::{
    CorpusError, CorpusSpec, DocChars, INCOMPLETE_MARKER, SUMMARY_FILES, SizeGoal, Summary, source_dir, source_name,
    suspicious_dir, suspicious_name,
};
use crate::analysis::read;
use crate::progress::{Progress, Stage};
use crate::report::output::{write_atomically, write_atomically_unsynced};
use crate::report::pan_xml::PanDocument;

/// At most this many bytes of input sentences are kept per document set for
/// recombination; sentences beyond it are not pooled.
pub const POOL_CAP_BYTES: usize = 64 << 20;

/// Recombined documents are made in parallel batches of this size. The batch size
/// is fixed (not the thread count) so that the corpus does not depend on threads.
const RECOMBINE_BATCH: usize = 32;

/// Header of `cases.tsv`.
pub const CASES_HEADER: &str = "suspicious\tthis_offset\tthis_length\tsource_reference\tsource_offset\tsource_length\tobfuscation\tstrategy\tcls\twords\tthis_language\tsource_language";

/// What phase 2 needs to know of a source document.
#[derive(Debug, Clone)]
struct SourceInfo {
    words: usize,
    language: &'static str,
}

/// A document being cut from the input.
struct Pending {
    set: DocumentSet,
    target: usize,
    text: String,
    chars: usize,
    words: usize,
    /// Block, byte and character where the last sentence added ended.
    last: Option<(u64, usize, usize)>,
}

/// Phase 1: cuts the input into documents and writes them, or draws them all
/// from the shared pool of a reuse-heavy corpus.
struct Cutter<'a> {
    spec: &'a CorpusSpec,
    progress: &'a dyn Progress,
    rng: ChaCha8Rng,
    pools: [Pool; 2],
    /// The reuse-heavy mode's pool, from which every document is drawn.
    shared: Option<SharedPool>,
    sources: Vec<SourceInfo>,
    suspicious: usize,
    written_bytes: u64,
    input_chars: u64,
    pending: Option<Pending>,
    recombined: usize,
    /// Generator number of the next recombined document (also counts documents
    /// made but not needed at the end of a batch).
    recombine_number: u64,
    stats: CorpusStats,
}

impl<'a> Cutter<'a> {
    fn new(
        spec: &'a CorpusSpec,
        progress: &'a dyn Progress,
        stats: CorpusStats,
        shared: Option<SharedPool>,
    ) -> Cutter<'a> {
        Cutter {
            spec,
            progress,
            rng: rng_for(spec.seed, Purpose::Documents, 0),
            pools: [Pool::default(), Pool::default()],
            shared,
            sources: Vec::new(),
            suspicious: 0,
            written_bytes: 0,
            input_chars: 0,
            pending: None,
            recombined: 0,
            recombine_number: 0,
            stats,
        }
    }

    fn documents(&self) -> usize {
        self.sources.len() + self.suspicious
    }

    /// True when the size goal is reached by the documents written so far.
    fn done(&self) -> bool {
        match self.spec.size {
            SizeGoal::AllInput => false,
            SizeGoal::Documents { sources, suspicious } => {
                self.sources.len() >= sources && self.suspicious >= suspicious
            }
            SizeGoal::TargetBytes(target) => self.written_bytes >= target,
        }
    }

    /// The set of the next document, given how many of each are made or planned.
    fn next_set(&mut self, sources: usize, suspicious: usize) -> DocumentSet {
        match self.spec.size {
            SizeGoal::Documents { sources: wanted_sources, suspicious: wanted_suspicious } => {
                let left_sources = wanted_sources.saturating_sub(sources);
                let left_suspicious = wanted_suspicious.saturating_sub(suspicious);
                // Drawing with the remaining counts as weights gives exact totals.
                if self.rng.random_range(0..(left_sources + left_suspicious).max(1)) < left_sources {
                    DocumentSet::Source
                } else {
                    DocumentSet::Suspicious
                }
            }
            _ if sources >= suspicious + 2 => DocumentSet::Suspicious,
            _ if suspicious >= sources + 2 => DocumentSet::Source,
            _ if self.rng.random_bool(0.5) => DocumentSet::Source,
            _ => DocumentSet::Suspicious,
        }
    }

    /// Adds the sentences of one input block; returns false once the goal is reached.
    fn add_block(&mut self, block: &str, block_id: u64) -> Result<bool, CorpusError> {
        let split = split_sentences(block);
        for sentence in &split.sentences {
            self.input_chars += sentence.chars.len() as u64;
            // Close the pending document when this sentence would make it too long.
            if let Some(pending) = &self.pending {
                let (_, added, _) = extension(pending, block_id, sentence);
                let DocChars { min, max } = self.spec.doc_chars;
                if pending.chars >= min && pending.chars + added > max {
                    self.finish_pending()?;
                }
            }
            if self.pending.is_none() {
                if self.done() {
                    return Ok(false);
                }
                let set = self.next_set(self.sources.len(), self.suspicious);
                let target = document_chars(self.spec.doc_chars.min, self.spec.doc_chars.max, &mut self.rng);
                self.pending = Some(Pending { set, target, text: String::new(), chars: 0, words: 0, last: None });
            }
            // Set just above when it was missing.
            let Some(pending) = self.pending.as_mut() else { continue };
            let (from_byte, added, separator) = extension(pending, block_id, sentence);
            if let Some(separator) = separator {
                pending.text.push(separator);
            }
            pending.text.push_str(&block[from_byte..sentence.bytes.end]);
            pending.chars += added;
            pending.words += sentence.words;
            pending.last = Some((block_id, sentence.bytes.end, sentence.chars.end));
            let pool = &mut self.pools[pending.set as usize];
            if pool.bytes() + sentence.bytes.len() <= POOL_CAP_BYTES {
                pool.push(&block[sentence.bytes.clone()], sentence.chars.len(), sentence.words);
            }
            if pending.chars >= pending.target {
                self.finish_pending()?;
            }
        }
        Ok(true)
    }

    /// Writes the pending document.
    fn finish_pending(&mut self) -> Result<(), CorpusError> {
        if let Some(pending) = self.pending.take() {
            self.write_document(pending.set, &Made { text: pending.text, words: pending.words })?;
        }
        Ok(())
    }

    /// At the end of the input: the pending document is written if it is long enough.
    fn finish_input(&mut self) -> Result<(), CorpusError> {
        match &self.pending {
            Some(pending) if pending.chars >= self.spec.doc_chars.min && !self.done() => self.finish_pending(),
            _ => {
                self.pending = None;
                Ok(())
            }
        }
    }

    /// Writes a document of `set` with the next number of that set.
    fn write_document(&mut self, set: DocumentSet, made: &Made) -> Result<(), CorpusError> {
        let path = match set {
            DocumentSet::Source => source_dir(&self.spec.out).join(source_name(self.sources.len() + 1)),
            DocumentSet::Suspicious => suspicious_dir(&self.spec.out).join(suspicious_name(self.suspicious + 1)),
        };
        // Document texts are written directly (no fsync): a corpus is usable only
        // once the build has finished and checked it, so a crash needs a rebuild
        // anyway, and syncing hundreds of megabytes would dominate the build time.
        fs::write(&path, &made.text).map_err(|source| CorpusError::Io { path: path.clone(), source })?;
        self.written_bytes += made.text.len() as u64;
        self.progress.advance(made.text.len() as u64);
        match set {
            DocumentSet::Source => {
                let language = detect_language(&made.text);
                self.stats.add_document(
                    DocumentSet::Source,
                    made.text.chars().count() as u64,
                    made.text.len() as u64,
                    language,
                    !made.text.is_ascii(),
                );
                self.sources.push(SourceInfo { words: made.words, language });
            }
            DocumentSet::Suspicious => self.suspicious += 1,
        }
        Ok(())
    }

    /// After the input: recombines pooled sentences (or draws from the shared
    /// pool) until the goal is reached.
    fn recombine_rest(&mut self) -> Result<(), CorpusError> {
        if matches!(self.spec.size, SizeGoal::AllInput) || self.done() {
            return Ok(());
        }
        if self.shared.is_none() && self.pools.iter().all(Pool::is_empty) {
            return Err(CorpusError::TooLittleInput { chars: self.input_chars, min: self.spec.doc_chars.min });
        }
        while !self.done() {
            let batch_size = match self.spec.size {
                SizeGoal::Documents { sources, suspicious } => {
                    (sources + suspicious).saturating_sub(self.documents()).min(RECOMBINE_BATCH)
                }
                _ => RECOMBINE_BATCH,
            };
            let (mut sources, mut suspicious) = (self.sources.len(), self.suspicious);
            let mut plan = Vec::with_capacity(batch_size);
            for _ in 0..batch_size {
                let set = self.next_set(sources, suspicious);
                match set {
                    DocumentSet::Source => sources += 1,
                    DocumentSet::Suspicious => suspicious += 1,
                }
                let target = document_chars(self.spec.doc_chars.min, self.spec.doc_chars.max, &mut self.rng);
                plan.push((set, target, self.recombine_number));
                self.recombine_number += 1;
            }
            for (set, made, written) in self.make_batch(&plan) {
                if self.done() {
                    break;
                }
                self.write_document(set, &made)?;
                if let Some(shared) = &mut self.shared {
                    shared.record(set, &written);
                }
                self.recombined += 1;
            }
        }
        Ok(())
    }

    /// The documents of `plan` (set, target characters, generator number), made
    /// in parallel and returned in plan order, each with the indices of the shared
    /// pool's sentences it holds (none for ciphered recombination).
    fn make_batch(&self, plan: &[(DocumentSet, usize, u64)]) -> Vec<(DocumentSet, Made, Vec<u32>)> {
        let (pools, shared) = (&self.pools, self.shared.as_ref());
        let (doc_chars, seed) = (self.spec.doc_chars, self.spec.seed);
        plan.par_iter()
            .map(|&(set, target, number)| {
                let mut rng = rng_for(seed, Purpose::Recombine, number);
                match shared {
                    Some(shared) => {
                        let (made, written) = shared.draw(target, doc_chars, &mut rng);
                        (set, made, written)
                    }
                    None => (set, recombine(pool_for(pools, set), target, doc_chars, &mut rng), Vec::new()),
                }
            })
            .collect()
    }
}

/// How `sentence` extends `pending`: the byte where the text to copy starts (the
/// end of the previous sentence when it is in the same block, so the original
/// whitespace is kept), the characters added, and a separator (a newline between
/// blocks or files).
fn extension(pending: &Pending, block_id: u64, sentence: &super::texts::Sentence) -> (usize, usize, Option<char>) {
    match pending.last {
        Some((id, end_byte, end_char)) if id == block_id => (end_byte, sentence.chars.end - end_char, None),
        Some(_) => (sentence.bytes.start, sentence.chars.len() + 1, Some('\n')),
        None => (sentence.bytes.start, sentence.chars.len(), None),
    }
}

/// The pool of `set`, or the other pool when that one is empty.
fn pool_for(pools: &[Pool; 2], set: DocumentSet) -> &Pool {
    let own = &pools[set as usize];
    if own.is_empty() { &pools[1 - set as usize] } else { own }
}

/// What [`INCOMPLETE_MARKER`] says to whoever finds it.
const INCOMPLETE_TEXT: &str = "This corpus is incomplete: pan-detect corpus is building it, or its build was \
interrupted. Remove this directory and build the corpus again.\n";

/// Creates the output directory, marks it [`INCOMPLETE_MARKER`] and creates the
/// document directories; refuses a non-empty existing directory. Returns whether
/// the output directory existed before.
fn prepare_output(out: &Path) -> Result<bool, CorpusError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CorpusError::Io { path, source }
    };
    let existed = out.exists();
    if existed {
        let mut entries = fs::read_dir(out).map_err(io_error(out))?;
        if entries.next().is_some() {
            return Err(CorpusError::OutputNotEmpty { path: out.to_path_buf() });
        }
    }
    fs::create_dir_all(out).map_err(io_error(out))?;
    let marker = out.join(INCOMPLETE_MARKER);
    write_atomically(&marker, INCOMPLETE_TEXT.as_bytes()).map_err(io_error(&marker))?;
    for dir in [source_dir(out), suspicious_dir(out)] {
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
    }
    Ok(existed)
}

/// After a failed build, removes what it wrote, so that the user can simply run
/// the command again: the output directory was empty (or missing) before, so
/// everything in it is ours. Best effort: the build error matters more than a
/// failure to clean up.
fn remove_partial_output(out: &Path, existed: bool) {
    if existed {
        for dir in [source_dir(out), suspicious_dir(out)] {
            let _ = fs::remove_dir_all(dir);
        }
        for name in SUMMARY_FILES.into_iter().chain([INCOMPLETE_MARKER]) {
            let _ = fs::remove_file(out.join(name));
        }
    } else {
        let _ = fs::remove_dir_all(out);
    }
}

/// Reads a whole UTF-8 file of at most [`read::MAX_INPUT_BYTES`].
pub(crate) fn read_utf8(path: &Path) -> Result<String, CorpusError> {
    let bytes = read::read_input(path).map_err(|source| CorpusError::Io { path: path.to_path_buf(), source })?;
    String::from_utf8(bytes)
        .map_err(|e| CorpusError::Utf8 { path: path.to_path_buf(), byte: e.utf8_error().valid_up_to() as u64 })
}

/// What phase 2 needs: where things are and which sources fit which case length.
struct CaseContext<'a> {
    out: &'a Path,
    seed: u64,
    sources: &'a [SourceInfo],
    synonyms: Option<&'a Synonyms>,
    mix: ObfuscationMix,
    /// Per length class: sources with enough words.
    eligible: [Vec<usize>; 3],
    /// Per language and length class: sources of that language with enough words.
    eligible_by_language: BTreeMap<&'static str, [Vec<usize>; 3]>,
}

impl<'a> CaseContext<'a> {
    fn new(spec: &'a CorpusSpec, sources: &'a [SourceInfo], synonyms: Option<&'a Synonyms>) -> CaseContext<'a> {
        let mut eligible: [Vec<usize>; 3] = Default::default();
        let mut eligible_by_language: BTreeMap<&'static str, [Vec<usize>; 3]> = BTreeMap::new();
        for (i, source) in sources.iter().enumerate() {
            for (c, class) in LengthClass::ALL.iter().enumerate() {
                if source.words >= class.words().start {
                    eligible[c].push(i);
                    eligible_by_language.entry(source.language).or_default()[c].push(i);
                }
            }
        }
        CaseContext {
            out: &spec.out,
            seed: spec.seed,
            sources,
            synonyms,
            mix: spec.mix,
            eligible,
            eligible_by_language,
        }
    }

    /// A source for a case of `class` (or the longest shorter class any source
    /// fits) in a document of `language`, preferring sources of the same language.
    fn pick_source(&self, class: LengthClass, language: &str, rng: &mut ChaCha8Rng) -> Option<(LengthClass, usize)> {
        let mut class = class;
        loop {
            let c = class as usize;
            let same = self.eligible_by_language.get(language).map_or(&[][..], |lists| &lists[c]);
            let candidates = if same.is_empty() { &self.eligible[c][..] } else { same };
            if !candidates.is_empty() {
                return Some((class, candidates[rng.random_range(0..candidates.len())]));
            }
            class = class.shorter()?;
        }
    }
}

/// A case chosen before its insertion point is known.
struct Planned {
    source: usize,
    source_chars: std::ops::Range<usize>,
    words: usize,
    class: LengthClass,
    strategy: Strategy,
    text: String,
}

/// What phase 2 reports of one suspicious document.
struct SuspiciousOutcome {
    chars: u64,
    bytes: u64,
    language: &'static str,
    non_ascii: bool,
    cases: Vec<Case>,
}

/// Up to this many words of the receiving document are offered to random
/// insertions and replacements.
const CONTEXT_WORDS: usize = 500;

/// Phase 2 for suspicious document `index` (0-based): reads its base text, and if
/// it is `plagiarised`, inserts cases; writes the text and its truth.
fn plagiarise(ctx: &CaseContext, index: usize, plagiarised: bool) -> Result<SuspiciousOutcome, CorpusError> {
    let number = index + 1;
    let name = suspicious_name(number);
    let path = suspicious_dir(ctx.out).join(&name);
    let base = read_utf8(&path)?;
    let language = detect_language(&base);
    let mut truth = PanDocument::new(&name);
    let (text, cases) = if plagiarised {
        let mut rng = rng_for(ctx.seed, Purpose::Cases, index as u64);
        let split = split_sentences(&base);
        let planned = plan_cases(ctx, &base, &split, language, &mut rng)?;
        let (text, cases) = insert_cases(&base, &split, planned, number, language, ctx, &mut rng);
        // The base text is replaced whole: a crash leaves it or the new text.
        write_atomically_unsynced(&path, text.as_bytes())
            .map_err(|source| CorpusError::Io { path: path.clone(), source })?;
        (text, cases)
    } else {
        (base, Vec::new())
    };
    truth.features = cases.iter().map(Case::feature).collect();
    let xml_path = path.with_extension("xml");
    write_atomically(&xml_path, truth.to_xml().as_bytes())
        .map_err(|source| CorpusError::Io { path: xml_path, source })?;
    Ok(SuspiciousOutcome {
        chars: text.chars().count() as u64,
        bytes: text.len() as u64,
        language,
        non_ascii: !text.is_ascii(),
        cases,
    })
}

/// Chooses cases (source passages and their obfuscated text) until the drawn
/// share of the document is plagiarised.
fn plan_cases(
    ctx: &CaseContext,
    base: &str,
    split: &Sentences,
    language: &str,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Planned>, CorpusError> {
    let words: Vec<&str> = split
        .tokens
        .iter()
        .map(|t| base[t.bytes.clone()].trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let context: Vec<&str> = if words.len() <= CONTEXT_WORDS {
        words
    } else {
        index::sample(rng, words.len(), CONTEXT_WORDS).into_iter().map(|i| words[i]).collect()
    };
    let base_chars = split.tokens.last().map_or(0, |t| t.chars.end);
    let share = plagiarised_share(rng);
    let mut planned: Vec<Planned> = Vec::new();
    let mut plagiarised_chars = 0usize;
    let mut attempts = 0;
    while planned.len() < MAX_CASES_PER_DOCUMENT && attempts < 4 * MAX_CASES_PER_DOCUMENT {
        let total = (base_chars + plagiarised_chars) as f64;
        if !planned.is_empty() && plagiarised_chars as f64 >= share * total {
            break;
        }
        attempts += 1;
        let Some((class, source)) = ctx.pick_source(LengthClass::draw(rng), language, rng) else { break };
        let source_text = read_utf8(&source_dir(ctx.out).join(source_name(source + 1)))?;
        let Some(passage) = choose_passage_in(&source_text, class.words(), rng) else { continue };
        let original = &source_text[passage.bytes.clone()];
        let mut strategy = draw_strategy(ctx.mix, ctx.synonyms.is_some(), rng);
        let mut text = obfuscate(strategy, original, &context, ctx.synonyms, rng);
        if too_little_changed(strategy, original, &text) {
            // Nothing or too little to change, e.g. few words of the passage have synonyms.
            strategy = strategy.fallback();
            text = obfuscate(strategy, original, &context, ctx.synonyms, rng);
        }
        if text.is_empty() {
            continue;
        }
        plagiarised_chars += text.chars().count();
        planned.push(Planned { source, source_chars: passage.chars, words: passage.words, class, strategy, text });
    }
    Ok(planned)
}

/// True when an obfuscated `text` does not deserve the label of `strategy`: it
/// equals the passage, or synonym replacement changed fewer than half the words
/// its level should touch (10 % for low, 30 % for high).
fn too_little_changed(strategy: Strategy, original: &str, text: &str) -> bool {
    match strategy {
        Strategy::Verbatim => false,
        Strategy::Semantic(level) => {
            let (before, after): (Vec<&str>, Vec<&str>) =
                (original.split_whitespace().collect(), text.split_whitespace().collect());
            let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
            let minimum = if level == Level::Low { 0.10 } else { 0.30 };
            (changed as f64) < 0.5 * minimum * before.len() as f64
        }
        _ => text == original,
    }
}

/// Inserts the planned cases at random sentence boundaries of `base`; returns the
/// new text and the cases with their offsets in it.
fn insert_cases(
    base: &str,
    split: &Sentences,
    planned: Vec<Planned>,
    number: usize,
    language: &'static str,
    ctx: &CaseContext,
    rng: &mut ChaCha8Rng,
) -> (String, Vec<Case>) {
    let sentences = &split.sentences;
    // Boundary b < sentences.len() is the start of sentence b; the last is the end.
    let mut placed: Vec<(usize, Planned)> =
        planned.into_iter().map(|case| (rng.random_range(0..=sentences.len()), case)).collect();
    placed.sort_by_key(|(boundary, _)| *boundary);
    let base_chars = base.chars().count();
    let extra: usize = placed.iter().map(|(_, case)| case.text.len() + 2).sum();
    let mut text = String::with_capacity(base.len() + extra);
    let mut chars = 0;
    let (mut copied_byte, mut copied_char) = (0, 0);
    let mut cases = Vec::with_capacity(placed.len());
    let ends_in_text = |text: &str| text.chars().next_back().is_some_and(|c| !c.is_whitespace());
    for (boundary, case) in placed {
        let (byte, char) = match sentences.get(boundary) {
            Some(sentence) => (sentence.bytes.start, sentence.chars.start),
            None => (base.len(), base_chars),
        };
        if byte > copied_byte {
            let segment = &base[copied_byte..byte];
            if ends_in_text(&text) && !segment.starts_with(char::is_whitespace) {
                text.push(' ');
                chars += 1;
            }
            text.push_str(segment);
            chars += char - copied_char;
            (copied_byte, copied_char) = (byte, char);
        }
        if ends_in_text(&text) {
            text.push(' ');
            chars += 1;
        }
        let length = case.text.chars().count();
        cases.push(Case {
            suspicious: number,
            this_offset: chars,
            this_length: length,
            source: case.source + 1,
            source_offset: case.source_chars.start,
            source_length: case.source_chars.len(),
            strategy: case.strategy,
            class: case.class,
            words: case.words,
            this_language: language,
            source_language: ctx.sources[case.source].language,
        });
        text.push_str(&case.text);
        chars += length;
    }
    let rest = &base[copied_byte..];
    if ends_in_text(&text) && rest.starts_with(|c: char| !c.is_whitespace()) {
        text.push(' ');
    }
    text.push_str(rest);
    (text, cases)
}

/// Chooses as many negative pairs (no case between the two documents) as there
/// are positive ones, spread over all suspicious documents.
fn negative_pairs(
    positive: &BTreeSet<(usize, usize)>,
    suspicious: usize,
    sources: usize,
    seed: u64,
) -> BTreeSet<(usize, usize)> {
    let available = (suspicious * sources).saturating_sub(positive.len());
    let wanted = positive.len().min(available);
    let mut negative = BTreeSet::new();
    let mut rng = rng_for(seed, Purpose::Pairs, 0);
    let mut attempts = 0;
    while negative.len() < wanted && attempts < 20 * wanted + 100 {
        attempts += 1;
        let pair = (rng.random_range(1..=suspicious), rng.random_range(1..=sources));
        if !positive.contains(&pair) {
            negative.insert(pair);
        }
    }
    // Small, dense corpora: take the remaining pairs in order.
    'fill: for s in 1..=suspicious {
        for r in 1..=sources {
            if negative.len() >= wanted {
                break 'fill;
            }
            if !positive.contains(&(s, r)) {
                negative.insert((s, r));
            }
        }
    }
    negative
}

/// Builds the corpus (see [`super::build`]).
pub(super) fn build(spec: &CorpusSpec, progress: &dyn Progress) -> Result<Summary, CorpusError> {
    spec.validate()?;
    super::paths::refuse_overlap(spec)?;
    let synonyms = spec.synonyms.as_deref().map(Synonyms::load).transpose()?;
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in &spec.texts {
        files.extend(list_texts(dir)?);
    }
    let mut input_bytes = 0;
    for file in &files {
        input_bytes += fs::metadata(file).map_err(|source| CorpusError::Io { path: file.clone(), source })?.len();
    }
    let existed = prepare_output(&spec.out)?;
    let stats = CorpusStats::new(spec, files.len(), input_bytes);
    match write_corpus(spec, progress, &files, stats, synonyms.as_ref()) {
        Ok(stats) => {
            // Everything is written: the corpus is complete, whatever its check finds.
            let marker = spec.out.join(INCOMPLETE_MARKER);
            fs::remove_file(&marker).map_err(|source| CorpusError::Io { path: marker, source })?;
            // A failed check keeps the corpus, so that the problems can be looked at.
            let check = super::check::check(&spec.out, progress)?;
            Ok(Summary { stats, check })
        }
        Err(error) => {
            remove_partial_output(&spec.out, existed);
            Err(error)
        }
    }
}

/// Phase 1 without a shared pool: cuts the input files, in order, into documents
/// until they run out or the size goal is reached.
fn cut_input(cutter: &mut Cutter, files: &[PathBuf]) -> Result<(), CorpusError> {
    let mut block_id = 0u64;
    for path in files {
        let mut blocks = TextBlocks::open(path)?;
        while let Some(block) = blocks.next_block()? {
            block_id += 1;
            if !cutter.add_block(&block, block_id)? {
                return cutter.finish_input();
            }
        }
    }
    cutter.finish_input()
}

/// Phases 1 and 2 and the summary files; returns the statistics.
fn write_corpus(
    spec: &CorpusSpec,
    progress: &dyn Progress,
    files: &[PathBuf],
    stats: CorpusStats,
    synonyms: Option<&Synonyms>,
) -> Result<CorpusStats, CorpusError> {
    let input_bytes = stats.input_bytes;

    // Phase 1: documents.
    let shared =
        spec.reuse_pool.map(|size| SharedPool::sample(files, size, spec.seed, input_bytes, progress)).transpose()?;
    progress.start(
        Stage::CorpusDocuments,
        match spec.size {
            SizeGoal::TargetBytes(bytes) => bytes,
            SizeGoal::AllInput => input_bytes,
            // Unknown ahead of time.
            SizeGoal::Documents { .. } => 0,
        },
    );
    let mut cutter = Cutter::new(spec, progress, stats, shared);
    if cutter.shared.is_none() {
        cut_input(&mut cutter, files)?;
    }
    cutter.recombine_rest()?;
    progress.finish();
    if cutter.sources.is_empty() || cutter.suspicious == 0 {
        return Err(CorpusError::TooLittleInput { chars: cutter.input_chars, min: spec.doc_chars.min });
    }
    let Cutter { sources, suspicious, recombined, mut stats, pools, shared, .. } = cutter;
    drop(pools);
    stats.recombined_documents = recombined;
    stats.reuse = shared.map(|shared| shared.stats());

    // Phase 2: cases.
    let plagiarised_count = ((spec.plagiarised_fraction * suspicious as f64).round() as usize).min(suspicious);
    let mut plagiarised = vec![false; suspicious];
    let mut rng = rng_for(spec.seed, Purpose::Plagiarised, 0);
    for i in index::sample(&mut rng, suspicious, plagiarised_count) {
        plagiarised[i] = true;
    }
    let context = CaseContext::new(spec, &sources, synonyms);
    if plagiarised_count > 0 && context.eligible[0].is_empty() {
        return Err(CorpusError::InvalidOption {
            option: "--doc-chars",
            message: format!(
                "no source document has the {} words of a short case; allow larger documents",
                LengthClass::Short.words().start
            ),
        });
    }
    progress.start(Stage::CorpusCases, suspicious as u64);
    let outcomes: Vec<SuspiciousOutcome> = (0..suspicious)
        .into_par_iter()
        .map(|i| {
            let outcome = plagiarise(&context, i, plagiarised[i]);
            progress.advance(1);
            outcome
        })
        .collect::<Result<_, _>>()?;
    progress.finish();

    let mut positive = BTreeSet::new();
    let mut tsv = String::from(CASES_HEADER);
    tsv.push('\n');
    for outcome in &outcomes {
        stats.add_document(DocumentSet::Suspicious, outcome.chars, outcome.bytes, outcome.language, outcome.non_ascii);
        if !outcome.cases.is_empty() {
            stats.plagiarised_documents += 1;
        }
        for case in &outcome.cases {
            stats.add_case(case);
            positive.insert((case.suspicious, case.source));
            tsv.push_str(&case.tsv_row());
            tsv.push('\n');
        }
    }
    let negative = negative_pairs(&positive, suspicious, sources.len(), spec.seed);
    stats.positive_pairs = positive.len();
    stats.negative_pairs = negative.len();
    let mut pairs = String::new();
    for (s, r) in positive.union(&negative) {
        pairs.push_str(&format!("{} {}\n", suspicious_name(*s), source_name(*r)));
    }
    let write = |name: &str, bytes: &[u8]| {
        let path = spec.out.join(name);
        write_atomically(&path, bytes).map_err(|source| CorpusError::Io { path, source })
    };
    // In the order of SUMMARY_FILES: README.txt last marks a corpus with all its files.
    write("cases.tsv", tsv.as_bytes())?;
    write("pairs", pairs.as_bytes())?;
    write("README.txt", stats.readme().as_bytes())?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::span::{CharRange, char_slice};

    fn planned(text: &str, source: usize) -> Planned {
        Planned {
            source,
            source_chars: 0..text.chars().count(),
            words: 3,
            class: LengthClass::Short,
            strategy: Strategy::Verbatim,
            text: text.to_string(),
        }
    }

    #[test]
    fn inserted_cases_sit_at_sentence_boundaries_with_exact_character_offsets() {
        let base = "Příliš žluťoučký kůň úpěl. Ďábelské ódy zněly nocí.\nGrüße aus Köln.";
        let split = split_sentences(base);
        let sources = vec![SourceInfo { words: 100, language: "cs" }; 2];
        let spec = CorpusSpec::new(vec![], PathBuf::from("/nonexistent"), 1);
        let ctx = CaseContext::new(&spec, &sources, None);
        for seed in 0..30 {
            let mut rng = rng_for(seed, Purpose::Cases, 0);
            let cases = vec![planned("Šťastná žába skáče.", 0), planned("Äpfel fallen weit.", 1)];
            let (text, inserted) = insert_cases(base, &split, cases, 1, "cs", &ctx, &mut rng);
            assert_eq!(inserted.len(), 2);
            for case in &inserted {
                let expected = ["Šťastná žába skáče.", "Äpfel fallen weit."][case.source - 1];
                let range = CharRange::new(case.this_offset as u32, (case.this_offset + case.this_length) as u32);
                assert_eq!(char_slice(&text, range), Some(expected), "{text}");
                // Inserted at a sentence boundary: text before ends a sentence or is empty.
                let before: String = text.chars().take(case.this_offset).collect();
                let trimmed = before.trim_end();
                assert!(trimmed.is_empty() || trimmed.ends_with('.'), "{before:?}");
                assert!(before.is_empty() || before.ends_with(char::is_whitespace));
            }
            // The base text is still there, in order, around the insertions.
            let mut remaining = text.clone();
            for case in inserted.iter().rev() {
                let start: usize = remaining.char_indices().nth(case.this_offset).map(|(b, _)| b).unwrap();
                let end = remaining
                    .char_indices()
                    .nth(case.this_offset + case.this_length)
                    .map_or(remaining.len(), |(b, _)| b);
                remaining.replace_range(start..end, "");
            }
            let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(squeeze(&remaining), squeeze(base));
        }
    }

    #[test]
    fn weak_synonym_replacement_does_not_count_as_semantic() {
        let original = "one two three four five six seven eight nine ten";
        let one_change = "one two three four five six seven eight nine TEN";
        let three_changes = "uno dos three four five six seven eight nine TEN";
        assert!(!too_little_changed(Strategy::Semantic(Level::Low), original, one_change));
        assert!(too_little_changed(Strategy::Semantic(Level::High), original, one_change));
        assert!(!too_little_changed(Strategy::Semantic(Level::High), original, three_changes));
        assert!(too_little_changed(Strategy::Random(Level::Low), original, original));
        assert!(!too_little_changed(Strategy::Verbatim, original, original));
    }

    /// Every file under `dir`, by path relative to it.
    fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(current) = pending.pop() {
            for entry in fs::read_dir(&current).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                } else {
                    files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), fs::read(&path).unwrap());
                }
            }
        }
        files
    }

    #[test]
    fn same_seed_gives_the_same_corpus_with_any_number_of_threads() {
        let texts = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus-fixtures/texts");
        let dir = tempfile::tempdir().unwrap();
        let build_with = |threads: usize, name: &str| {
            let mut spec = CorpusSpec::new(vec![texts.clone()], dir.path().join(name), 42);
            spec.doc_chars = DocChars { min: 2000, max: 6000 };
            spec.size = SizeGoal::Documents { sources: 6, suspicious: 6 };
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| super::super::build(&spec, &crate::progress::Silent)).unwrap()
        };
        let one = build_with(1, "one");
        let three = build_with(3, "three");
        assert_eq!(one.stats, three.stats);
        assert_eq!(one.check.cases, one.stats.cases);
        assert!(one.stats.cases > 0);
        assert_eq!(tree(&dir.path().join("one")), tree(&dir.path().join("three")));
    }

    fn fixture_texts() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus-fixtures/texts")
    }

    /// A reuse-heavy spec over the fixture texts: a pool of 300 sentences.
    fn reuse_spec(out: PathBuf, size: SizeGoal) -> CorpusSpec {
        let mut spec = CorpusSpec::new(vec![fixture_texts()], out, 17);
        spec.doc_chars = DocChars { min: 2000, max: 6000 };
        spec.size = size;
        spec.reuse_pool = Some(300);
        spec
    }

    #[test]
    fn a_reuse_heavy_corpus_is_the_same_with_any_number_of_threads_and_holds_its_cases() {
        let dir = tempfile::tempdir().unwrap();
        let build_with = |threads: usize, name: &str| {
            let spec = reuse_spec(dir.path().join(name), SizeGoal::Documents { sources: 6, suspicious: 6 });
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| super::super::build(&spec, &crate::progress::Silent)).unwrap()
        };
        let one = build_with(1, "one");
        let three = build_with(3, "three");
        assert_eq!(one.stats, three.stats);
        assert_eq!(tree(&dir.path().join("one")), tree(&dir.path().join("three")));
        let reuse = one.stats.reuse.as_ref().expect("reuse figures");
        assert_eq!(reuse.pool_sentences, 300);
        assert!(reuse.shared_per_source_suspicious_pair > 1.0, "{reuse:?}");
        assert_eq!(one.stats.recombined_documents, 12);
        // The check compared every verbatim case with its source, by character offsets.
        assert!(one.stats.cases > 0 && one.check.cases == one.stats.cases);
        assert!(one.check.verbatim_cases > 0);
    }

    #[test]
    fn reuse_heavy_documents_are_input_sentences_without_cipher() {
        let dir = tempfile::tempdir().unwrap();
        let spec = reuse_spec(dir.path().join("corpus"), SizeGoal::Documents { sources: 2, suspicious: 2 });
        super::super::build(&spec, &crate::progress::Silent).unwrap();
        let input: String = list_texts(&fixture_texts()).unwrap().iter().map(|f| read_utf8(f).unwrap()).collect();
        let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let input = squeeze(&input);
        let source = read_utf8(&source_dir(&spec.out).join(source_name(1))).unwrap();
        let split = split_sentences(&source);
        let sentences: Vec<String> = split.sentences.iter().map(|s| squeeze(&source[s.bytes.clone()])).collect();
        let found = sentences.iter().filter(|s| input.contains(s.as_str())).count();
        assert!(found * 10 >= sentences.len() * 9, "{found} of {} sentences are input sentences", sentences.len());
    }

    #[test]
    fn a_larger_reuse_heavy_corpus_starts_with_the_same_documents() {
        let dir = tempfile::tempdir().unwrap();
        let small = reuse_spec(dir.path().join("small"), SizeGoal::TargetBytes(60_000));
        let large = reuse_spec(dir.path().join("large"), SizeGoal::TargetBytes(180_000));
        let small_stats = super::super::build(&small, &crate::progress::Silent).unwrap().stats;
        let large_stats = super::super::build(&large, &crate::progress::Silent).unwrap().stats;
        let first = |spec: &CorpusSpec| read_utf8(&source_dir(&spec.out).join(source_name(1))).unwrap();
        assert_eq!(first(&small), first(&large), "the pool and the first documents do not depend on the size");
        let (small_reuse, large_reuse) = (small_stats.reuse.unwrap(), large_stats.reuse.unwrap());
        assert!(large_reuse.documents_per_sentence > 2.0 * small_reuse.documents_per_sentence);
    }

    #[test]
    fn negative_pairs_avoid_positive_ones() {
        let positive: BTreeSet<(usize, usize)> = [(1, 1), (1, 2), (2, 3)].into_iter().collect();
        let negative = negative_pairs(&positive, 3, 3, 5);
        assert_eq!(negative.len(), 3);
        assert!(negative.is_disjoint(&positive));
        let dense = negative_pairs(&positive, 2, 2, 5);
        assert_eq!(dense.len(), 1);
    }
}
