//! `pan-detect detect` (also the default command): find plagiarised passages and
//! write one report per suspicious document: PAN XML, HTML or JSON.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::align::params::{AlignParams, MIN_CANDIDATE_PAIRS};
use crate::analysis::chunk::{DEFAULT_CHUNK_WORDS, DEFAULT_HASH_BITS};
use crate::analysis::extract::cache::TextCache;
use crate::analysis::read::TextReader;
use crate::analysis::stem::{Language, LanguageSetting};
use crate::analysis::synonyms::Synonyms;
use crate::analysis::taboo::TabooTexts;
use crate::analysis::tokenize::{DEFAULT_MIN_WORD_LEN, TokenizerKind};
use crate::analysis::translate::{CrossLanguage, DEFAULT_DICTIONARY_DIR, DEFAULT_MAX_TRANSLATIONS};
use crate::cluster::Cluster;
use crate::detect::params::DetectParams;
use crate::detect::{Scope, Summary, detect_with};
use crate::embed::Embedder;
use crate::error::Error;
use crate::matching::intervals::{DEFAULT_DEPTH, DEFAULT_MAX_GAP, DEFAULT_MIN_CHUNKS};
use crate::matching::search::DEFAULT_MIN_COMMON;
use crate::pairs::DocumentPairs;
use crate::progress::Progress;
use crate::report::output::NewDirectories;
use crate::report::{
    Detection, DetectionSink, PanXmlDirectory, PanXmlPairDirectory, ReadableFormat, ReadableReports, ReadableSink,
};
use anyhow::Context;
use clap::ValueEnum;

use super::args::{
    ClusterArgs, HashingArg, Overlap, PresetArg, StrictArg, ThreadsArg, check_tokenizer_preset, note_traffic,
    parse_flags, parse_tokenizer,
};
use crate::cli::messages::{self, count, skipped_files};
use crate::cli::progress_bar::TerminalProgress;

/// Arguments of `pan-detect detect`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect detect --source-dir corpus-fixtures/pan/source-documents --suspicious-dir corpus-fixtures/pan/suspicious-documents --out /tmp/pd-reports
  pan-detect detect --source-dir corpus-fixtures/pan/source-documents --suspicious-dir corpus-fixtures/pan/suspicious-documents --out /tmp/pd-pages --format html
  pan-detect detect --source-dir corpus-fixtures/pan/source-documents --suspicious-dir corpus-fixtures/pan/suspicious-documents --pairs corpus-fixtures/pan/pairs --layout per-pair --out /tmp/pd-pairs")]
pub struct Args {
    /// Directory of source documents (`*.txt`, `*.pdf`, `*.docx`, `*.odt`,
    /// `*.html`, `*.htm`; other files are ignored).
    #[arg(long, value_name = "DIR")]
    source_dir: PathBuf,
    /// Directory of suspicious documents (as --source-dir; other files, such as
    /// PAN's ground-truth `*.xml`, are ignored).
    #[arg(long, value_name = "DIR")]
    suspicious_dir: PathBuf,
    /// Directory for the reports, one `<name>.xml` per suspicious document
    /// (`thesis.pdf.xml` for `thesis.pdf`, `2026%2Fthesis.pdf.xml` for
    /// `2026/thesis.pdf` with --recursive; or per pair, see --layout; `.html`
    /// or `.json` with --format); created when missing, other files in it are
    /// left alone.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Read the documents in the subfolders of --source-dir and
    /// --suspicious-dir too, as `index create` does: each named by its path
    /// relative to its directory (`2026/thesis.pdf`), its report written
    /// into --out itself with `%2F` for each `/` (without it, each subfolder
    /// is named in a warning and skipped).
    #[arg(long)]
    recursive: bool,
    /// Report format: PAN XML; HTML pages for people (each document's text with
    /// the passages highlighted and shown beside their sources, and
    /// `index.html` listing the documents by similarity); or JSON (the schema
    /// of docs/report-json.md, which `check --format json` shares).
    #[arg(long, value_enum, default_value_t = Format::PanXml)]
    format: Format,
    /// Keep the texts extracted from PDF, DOCX and ODT documents in this
    /// directory, keyed by content, for later runs (default: a temporary
    /// directory removed at the end of the run).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// PAN's text-alignment protocol: a `pairs` file (`SUSPICIOUS SOURCE` file
    /// names per line); exactly these pairs are compared, with no candidate
    /// filtering, and only their documents are read.
    #[arg(long, value_name = "FILE")]
    pairs: Option<PathBuf>,
    /// Taboo texts, such as a thesis template, the assignment or a licence:
    /// passages of them are never reported, however many documents share them.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    taboo: Vec<PathBuf>,
    /// Report files: one per suspicious document, or one per document pair
    /// named `SUSPICIOUS-SOURCE.xml` as PAN 2013-2015 runs wrote them (with
    /// --pairs, every listed pair gets one, empty when nothing was found).
    #[arg(long, value_enum, default_value_t = Layout::PerDocument)]
    layout: Layout,
    #[command(flatten)]
    method: MethodArgs,
    #[command(flatten)]
    cross_language: CrossLanguageArgs,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    strict: StrictArg,
    /// No progress bars (they are also off when stderr is not a terminal).
    #[arg(long)]
    quiet: bool,
}

/// The flags of `detect` that choose the method and its parameters, apart
/// from those naming files, so that the Python module (`python/`) takes the
/// very same parameters, checked the same way ([`method`]).
#[derive(clap::Args)]
pub struct MethodArgs {
    /// Method: `best` (candidate pairs from the chunk index, then sentence
    /// alignment; finds paraphrases) or `pan09` (the paper's method exactly). The
    /// flags below override the preset's values; a flag of the other preset is refused
    /// [default: best; pan09 with --tokenizer chars:N or code].
    #[arg(long, value_enum)]
    preset: Option<PresetArg>,
    /// What a token is: `words`; `chars:N`, every run of N consecutive letters
    /// (1..=8), for scripts written without spaces; or `code`, source code
    /// tokens (C-like and Python-like: identifiers and literals normalised,
    /// keywords and operators kept, comments dropped), chunked 10 tokens at a
    /// time in text order, with --min-common 30, --min-chunks 30 and --max-gap 15
    /// by default.
    /// `chars:N` and `code` run the pan09 preset's method only.
    #[arg(long, value_name = "KIND", default_value = "words", value_parser = parse_tokenizer)]
    tokenizer: TokenizerKind,
    /// Count digits as word characters (the default; scores best on PAN corpora).
    #[arg(long, conflicts_with = "no_digits")]
    digits: bool,
    /// Letters only: digits separate words and are ignored (archive mode).
    #[arg(long)]
    no_digits: bool,
    #[arg(long, value_name = "N", help = defaulted("Ignore words shorter than this many characters.", DEFAULT_MIN_WORD_LEN))]
    min_word_len: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("Words per chunk (1..=32) of the paper's method.", DEFAULT_CHUNK_WORDS))]
    chunk_words: Option<usize>,
    /// Keep the words of a chunk in text order instead of sorting them (paper's method).
    #[arg(long)]
    no_sort: bool,
    #[arg(long, value_name = "BITS", help = defaulted("Bits of a chunk's hash kept (24..=64): MD5 with pan09, XXH3 for best's candidate chunks.", DEFAULT_HASH_BITS))]
    hash_bits: Option<u32>,
    /// Which words make a chunk (pan09's chunks, best's candidate chunks):
    /// `contiguous` (consecutive words, the papers') or `interleaved` (every
    /// other word, dupi's two streams of even and odd words: robust to OCR
    /// noise and tokenisation differences that change scattered words).
    #[arg(long, value_enum, value_name = "KIND", default_value_t = HashingArg::Contiguous)]
    hashing: HashingArg,
    #[arg(long, value_name = "N", help = defaulted("pan09: source documents sharing fewer chunks with a suspicious document are not compared further.", DEFAULT_MIN_COMMON))]
    min_common: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("pan09: a valid interval holds at least this many matching chunks.", DEFAULT_MIN_CHUNKS))]
    min_chunks: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("pan09: at most this many unmatched chunks between neighbouring matching chunks of an interval.", DEFAULT_MAX_GAP))]
    max_gap: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("pan09: levels of the valid-interval recursion: 1 checks the suspicious document, 2 both (1..=8).", DEFAULT_DEPTH))]
    depth: Option<usize>,
    /// Passages that overlap in a suspicious document: keep the largest (PAN), trim
    /// the others to their free part, or keep all (archive) [default: largest with
    /// pan09, trim with best].
    #[arg(long, value_enum)]
    overlap: Option<Overlap>,
    #[arg(long, value_name = "N", help = defaulted("best: words per candidate chunk (stop words removed).", best().candidate_words))]
    candidate_words: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("best: characters kept of each word in a candidate chunk, 0 = whole words.", best().candidate_prefix))]
    candidate_prefix: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("best: candidate chunks a source document must share to be aligned.", best().candidate_min_common))]
    candidate_min_common: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("best: at most this many unmatched candidate chunks between neighbouring matching ones (no limit in a suspicious document that one alignment window covers whole).", best().candidate_max_gap))]
    candidate_max_gap: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("best: content chunks (not structure chunks) a candidate pair must share.", best().candidate_min_content))]
    candidate_min_content: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("best: chunks found more often than this in the sources are ignored.", best().candidate_max_postings))]
    candidate_max_postings: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("best: hits of the candidate index per chunk of a suspicious document; its rarest chunks are looked up first.", best().candidate_hits_per_chunk))]
    candidate_hits_per_chunk: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted(&format!("best: a suspicious document aligns at most {MIN_CANDIDATE_PAIRS} candidate regions (places it shares text with a source) plus one per N of its characters, the strongest first; 0 = all."), best().candidate_chars_per_pair))]
    candidate_chars_per_pair: Option<u32>,
    #[arg(long, value_name = "N", help = defaulted("best: consecutive function words per structure chunk, 0 = none.", best().structure_words))]
    structure_words: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("best, full search: candidate words per pair chunk, second evidence for the document pairs no candidate chunk joins (aligned with stricter thresholds), 0 = none.", best().pair_words))]
    pair_words: Option<usize>,
    /// best: language of the stop words and Snowball stemmer of the sentence
    /// alignment: `none` (whole words, no stop words: measured best), `auto`
    /// (guessed per document), or a code: en de fr es it pt nl sv da no fi ru.
    #[arg(long, value_name = "LANG", value_parser = parse_language)]
    language: Option<LanguageSetting>,
    /// best: file of synonym groups (one per line, comma-separated, as for
    /// `pan-detect corpus --synonyms`); the words of a group count as one.
    #[arg(long, value_name = "FILE")]
    synonyms: Option<PathBuf>,
    /// best: directory of a sentence-transformers model of the BERT family
    /// (config.json, model.safetensors, tokenizer.json, modules.json,
    /// 1_Pooling/config.json; scripts/fetch-models.sh fetches
    /// all-MiniLM-L6-v2): sentence pairs whose embeddings are close seed
    /// passages too, found by meaning where words fail.
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// best, with --model: directory that keeps the sentence embeddings
    /// between runs (a file per model, written whole when the run ends);
    /// without it they are kept for the run only.
    #[arg(long, value_name = "DIR", requires = "model")]
    embedding_cache: Option<PathBuf>,
    #[arg(long, value_name = "X", value_parser = unit_interval, requires = "model", help = defaulted("best, with --model: least cosine of two sentences' embeddings for them to seed a passage (0..=1; 0 = none).", best().semantic_seed_cosine))]
    semantic_cosine: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: least tf-idf cosine of a seed sentence pair (0..=1).", full_and_listed(|a| a.seed_cosine)))]
    seed_cosine: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: least Dice coefficient of a seed sentence pair (0..=1).", full_and_listed(|a| a.seed_dice)))]
    seed_dice: Option<f64>,
    #[arg(long, value_name = "N", help = defaulted("best: at most this many sentences between neighbouring seeds of a passage.", best().max_gap))]
    max_sentence_gap: Option<usize>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: least tf-idf cosine between a passage's two sides (0..=1).", full_and_listed(|a| a.min_passage_cosine)))]
    min_passage_cosine: Option<f64>,
    #[arg(long, value_name = "N", help = defaulted("best: passages shorter than this many characters are dropped.", full_and_listed(|a| a.min_passage_chars)))]
    min_passage_chars: Option<u32>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: least share of nearby word pairs a passage's sides share (0..=1) ...", full_and_listed(|a| a.min_pair_overlap)))]
    min_pair_overlap: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: ... unless their tf-idf cosine reaches this (0..=1).", best().pair_overlap_waiver_cosine))]
    pair_overlap_waiver: Option<f64>,
    #[arg(long, value_name = "X", help = defaulted("best: merge neighbouring passages of a pair over gaps up to this share of the shorter one.", best().merge_gap_ratio))]
    merge_gap_ratio: Option<f64>,
    #[arg(long, value_name = "N", help = defaulted("best: ... or up to this many characters.", best().merge_gap_chars))]
    merge_gap_chars: Option<u32>,
    #[arg(long, value_name = "N", help = defaulted("best: sentences with fewer content words join the next one.", best().min_sentence_words))]
    min_sentence_words: Option<usize>,
    #[arg(long, value_name = "N", help = defaulted("best: passages with fewer seeds must be twice --min-passage-chars long.", best().min_seeds))]
    min_seeds: Option<usize>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: least share of a passage's rare words (names and particulars: words in few sentences of the pair) that both sides have; formulaic text repeats its scaffolding around other names (0..=1; 0 asks none).", full_and_listed(|a| a.min_rare_share)))]
    min_rare_share: Option<f64>,

    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: order-free passages (copies whose words were reordered): least weighted share of each side's words that the other side holds (0..=1; 0 = no order-free stage).", best().unordered_min_share))]
    unordered_min_share: Option<f64>,

    #[arg(long, value_name = "N", help = defaulted("best, full search: order-free candidates: least rare words a source must share with a stretch of the document in any order, each within 20 such words of the next on both sides (0 = none).", best().unordered_min_chunks))]
    unordered_min_chunks: Option<usize>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: in a pair without a verbatim run, seeds need this tf-idf cosine and Dice instead (0..=1; none: the same as elsewhere).", full_and_listed(|a| or_none(a.obfuscated_seed_similarity))))]
    obfuscated_seed_similarity: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: ... and passages this share of nearby word pairs (0..=1; none: the same as elsewhere).", full_and_listed(|a| or_none(a.obfuscated_min_pair_overlap))))]
    obfuscated_min_pair_overlap: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: least tf-idf cosine and Dice of the seeds of a second search for copies in pairs without a verbatim run where nothing was aligned (0..=1; 0: none).", full_and_listed(|a| a.second_seed_similarity)))]
    second_seed_similarity: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best: least tf-idf cosine and Dice of the seeds of a second search for summaries in pairs where nothing was aligned (0..=1; 0: none).", full_and_listed(|a| a.summary_seed_similarity)))]
    summary_seed_similarity: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best, full search: a candidate region whose largest interval of shared candidate chunks holds this share of the suspicious document's content chunks is aligned with the thresholds of given pairs, but a passage with fewer than 3 seeds or under 0.3 of its rare words shared must pass those of full search too (0..=1; 1: none is).", best().strong_candidate_share))]
    strong_candidate_share: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best, full search: ... and may be a summary from this share on (0..=1).", best().strong_candidate_summary_share))]
    strong_candidate_summary_share: Option<f64>,
    #[arg(long, value_name = "X", value_parser = unit_interval, help = defaulted("best, full search: ... and as a given pair whatever corroborates its passages from this share on, with full search's rare-word share (0..=1).", best().given_candidate_share))]
    given_candidate_share: Option<f64>,
    /// best: report each candidate pair as one whole-document detection (to
    /// measure candidate recall with `pan-detect eval`'s document level).
    #[arg(long, hide = true)]
    report_candidates: bool,
}

/// The flags of cross-language detection ([`crate::analysis::translate`]).
#[derive(clap::Args)]
pub struct CrossLanguageArgs {
    /// Language of the source documents: `auto` (guessed from the first
    /// ones), a code (en de fr es it pt nl sv da no fi ru), or `none` (no
    /// cross-language detection).
    #[arg(long, value_name = "LANG", value_parser = parse_language, default_value = "auto")]
    source_language: LanguageSetting,
    /// Language of the suspicious documents: `auto` (guessed per document),
    /// a code, or `none` (no cross-language detection). A document in
    /// another language than the sources has its words mapped into theirs
    /// with the dictionary of --dictionary before it is compared; reported
    /// offsets stay those of its own text.
    #[arg(long, value_name = "LANG", value_parser = parse_language, default_value = "auto")]
    suspicious_language: LanguageSetting,
    /// Directory of the bilingual dictionaries (FreeDict's dictd files,
    /// `freedict-spa-eng.index` and `.dict.dz`, as Debian's dict-freedict-*
    /// packages install them: scripts/install-dictionaries.sh).
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DICTIONARY_DIR)]
    dictionary: PathBuf,
    /// Translations a foreign word is mapped to, the dictionary's first
    /// (0: all).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TRANSLATIONS)]
    translations: usize,
}

impl CrossLanguageArgs {
    /// The cross-language settings of these flags; `None` with `none` for
    /// either language. A --dictionary given that is no directory is an error.
    fn settings(&self) -> anyhow::Result<Option<CrossLanguage>> {
        if !self.dictionary.is_dir() && self.dictionary != Path::new(DEFAULT_DICTIONARY_DIR) {
            anyhow::bail!("{}: no such dictionary directory", self.dictionary.display());
        }
        let fixed = |setting| match setting {
            LanguageSetting::Fixed(language) => Ok(Some(language)),
            LanguageSetting::Auto => Ok(None),
            LanguageSetting::None => Err(()),
        };
        let (Ok(sources), Ok(suspicious)) = (fixed(self.source_language), fixed(self.suspicious_language)) else {
            return Ok(None);
        };
        Ok(Some(CrossLanguage {
            dictionary_dir: self.dictionary.clone(),
            sources,
            suspicious,
            max_translations: self.translations,
        }))
    }
}

/// `--format` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// PAN XML reports.
    PanXml,
    /// HTML pages and `index.html`.
    Html,
    /// JSON reports.
    Json,
}

/// `--layout` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Layout {
    /// `suspicious-documentX.xml` for every suspicious document.
    PerDocument,
    /// `suspicious-documentX-source-documentY.xml` per pair.
    PerPair,
}

fn parse_language(value: &str) -> Result<LanguageSetting, String> {
    match value {
        "auto" => Ok(LanguageSetting::Auto),
        "none" => Ok(LanguageSetting::None),
        code => Language::from_code(code).map(LanguageSetting::Fixed).ok_or_else(|| {
            format!("unknown language '{code}' (expected auto, none, en, de, fr, es, it, pt, nl, sv, da, no, fi or ru)")
        }),
    }
}

fn unit_interval(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("'{value}' is not a number from 0 to 1")),
    }
}

impl MethodArgs {
    /// The flags of the paper's method alone, each with whether it was given.
    fn pan09_flags(&self) -> [(&'static str, bool); 6] {
        [
            ("--chunk-words", self.chunk_words.is_some()),
            ("--no-sort", self.no_sort),
            ("--min-common", self.min_common.is_some()),
            ("--min-chunks", self.min_chunks.is_some()),
            ("--max-gap", self.max_gap.is_some()),
            ("--depth", self.depth.is_some()),
        ]
    }

    /// The flags of the `best` preset's candidate and alignment stages alone,
    /// each with whether it was given.
    fn best_flags(&self) -> [(&'static str, bool); 37] {
        [
            ("--candidate-words", self.candidate_words.is_some()),
            ("--candidate-prefix", self.candidate_prefix.is_some()),
            ("--candidate-min-common", self.candidate_min_common.is_some()),
            ("--candidate-max-gap", self.candidate_max_gap.is_some()),
            ("--candidate-min-content", self.candidate_min_content.is_some()),
            ("--candidate-max-postings", self.candidate_max_postings.is_some()),
            ("--candidate-hits-per-chunk", self.candidate_hits_per_chunk.is_some()),
            ("--candidate-chars-per-pair", self.candidate_chars_per_pair.is_some()),
            ("--structure-words", self.structure_words.is_some()),
            ("--pair-words", self.pair_words.is_some()),
            ("--language", self.language.is_some()),
            ("--synonyms", self.synonyms.is_some()),
            ("--model", self.model.is_some()),
            ("--embedding-cache", self.embedding_cache.is_some()),
            ("--semantic-cosine", self.semantic_cosine.is_some()),
            ("--seed-cosine", self.seed_cosine.is_some()),
            ("--seed-dice", self.seed_dice.is_some()),
            ("--max-sentence-gap", self.max_sentence_gap.is_some()),
            ("--min-passage-cosine", self.min_passage_cosine.is_some()),
            ("--min-passage-chars", self.min_passage_chars.is_some()),
            ("--min-pair-overlap", self.min_pair_overlap.is_some()),
            ("--pair-overlap-waiver", self.pair_overlap_waiver.is_some()),
            ("--merge-gap-ratio", self.merge_gap_ratio.is_some()),
            ("--merge-gap-chars", self.merge_gap_chars.is_some()),
            ("--min-sentence-words", self.min_sentence_words.is_some()),
            ("--min-seeds", self.min_seeds.is_some()),
            ("--min-rare-share", self.min_rare_share.is_some()),
            ("--unordered-min-share", self.unordered_min_share.is_some()),
            ("--unordered-min-chunks", self.unordered_min_chunks.is_some()),
            ("--obfuscated-seed-similarity", self.obfuscated_seed_similarity.is_some()),
            ("--obfuscated-min-pair-overlap", self.obfuscated_min_pair_overlap.is_some()),
            ("--second-seed-similarity", self.second_seed_similarity.is_some()),
            ("--summary-seed-similarity", self.summary_seed_similarity.is_some()),
            ("--strong-candidate-share", self.strong_candidate_share.is_some()),
            ("--strong-candidate-summary-share", self.strong_candidate_summary_share.is_some()),
            ("--given-candidate-share", self.given_candidate_share.is_some()),
            ("--report-candidates", self.report_candidates),
        ]
    }

    /// The sentence encoder of `--model`, with the cache of
    /// `--embedding-cache`, loaded; `None` without `--model`.
    fn embedder(&self) -> anyhow::Result<Option<Embedder>> {
        let Some(model) = &self.model else { return Ok(None) };
        Ok(Some(Embedder::load(model, self.embedding_cache.as_deref()).context("--model")?))
    }

    /// The preset: `--preset`, else best with words and pan09 with the
    /// other tokenizers.
    fn preset(&self) -> PresetArg {
        match self.preset {
            Some(preset) => preset,
            None if self.tokenizer.is_words() => PresetArg::Best,
            None => PresetArg::Pan09,
        }
    }

    /// Refuses a flag that the chosen preset would ignore.
    fn check_flags_apply(&self) -> anyhow::Result<()> {
        check_tokenizer_preset(Some(self.tokenizer), self.preset)?;
        let (preset, other, foreign) = match self.preset() {
            PresetArg::Best => ("best", "pan09", &self.pan09_flags()[..]),
            PresetArg::Pan09 => ("pan09", "best", &self.best_flags()[..]),
        };
        match foreign.iter().find(|(_, given)| *given) {
            Some((flag, _)) => {
                anyhow::bail!("{flag} applies to --preset {other} only, and the preset is {preset}")
            }
            None => Ok(()),
        }
    }

    /// The parameters these flags give; with `listed_pairs` (`--pairs`), the
    /// `best` preset's thresholds for given pairs.
    fn params(&self, listed_pairs: bool) -> anyhow::Result<DetectParams> {
        self.check_flags_apply()?;
        let mut params = DetectParams::preset(self.preset().into()).with_tokenizer(self.tokenizer);
        params.tokenizer.digits = !self.no_digits;
        set(&mut params.tokenizer.min_word_len, self.min_word_len);
        set(&mut params.chunks.words, self.chunk_words);
        if self.no_sort {
            params.chunks.sorted = false;
        }
        set(&mut params.chunks.hash_bits, self.hash_bits);
        params.chunks.interleaved = self.hashing == HashingArg::Interleaved;
        set(&mut params.min_common, self.min_common);
        set(&mut params.intervals.min_chunks, self.min_chunks);
        set(&mut params.intervals.max_gap, self.max_gap);
        set(&mut params.intervals.depth, self.depth);
        if let Some(overlap) = self.overlap {
            params.overlap = overlap.into();
        }
        if let Some(align) = &mut params.align {
            if listed_pairs {
                *align = align.for_listed_pairs();
            }
            set(&mut align.candidate_words, self.candidate_words);
            set(&mut align.candidate_prefix, self.candidate_prefix);
            set(&mut align.candidate_min_common, self.candidate_min_common);
            set(&mut align.candidate_max_gap, self.candidate_max_gap);
            set(&mut align.structure_words, self.structure_words);
            set(&mut align.pair_words, self.pair_words);
            set(&mut align.candidate_min_content, self.candidate_min_content);
            set(&mut align.candidate_max_postings, self.candidate_max_postings);
            set(&mut align.candidate_hits_per_chunk, self.candidate_hits_per_chunk);
            set(&mut align.candidate_chars_per_pair, self.candidate_chars_per_pair);
            set(&mut align.language, self.language);
            set(&mut align.seed_cosine, self.seed_cosine);
            set(&mut align.seed_dice, self.seed_dice);
            set(&mut align.max_gap, self.max_sentence_gap);
            set(&mut align.min_passage_cosine, self.min_passage_cosine);
            set(&mut align.min_passage_chars, self.min_passage_chars);
            set(&mut align.min_pair_overlap, self.min_pair_overlap);
            set(&mut align.pair_overlap_waiver_cosine, self.pair_overlap_waiver);
            set(&mut align.merge_gap_ratio, self.merge_gap_ratio);
            set(&mut align.merge_gap_chars, self.merge_gap_chars);
            set(&mut align.min_sentence_words, self.min_sentence_words);
            set(&mut align.min_seeds, self.min_seeds);
            set(&mut align.min_rare_share, self.min_rare_share);
            set(&mut align.unordered_min_share, self.unordered_min_share);
            set(&mut align.semantic_seed_cosine, self.semantic_cosine);
            set(&mut align.unordered_min_chunks, self.unordered_min_chunks);
            set(&mut align.obfuscated_seed_similarity, self.obfuscated_seed_similarity.map(Some));
            set(&mut align.obfuscated_min_pair_overlap, self.obfuscated_min_pair_overlap.map(Some));
            set(&mut align.second_seed_similarity, self.second_seed_similarity);
            set(&mut align.summary_seed_similarity, self.summary_seed_similarity);
            set(&mut align.strong_candidate_share, self.strong_candidate_share);
            set(&mut align.strong_candidate_summary_share, self.strong_candidate_summary_share);
            set(&mut align.given_candidate_share, self.given_candidate_share);
            align.report_candidates = self.report_candidates;
        }
        Ok(params)
    }
}

/// A method of `detect`: its parameters and synonyms.
#[derive(Debug)]
pub struct Method {
    /// The parameters.
    pub params: DetectParams,
    /// The synonym groups of `--synonyms`, loaded.
    pub synonyms: Option<Synonyms>,
}

/// The method that `flags`, method flags of `detect` alone (`--preset pan09
/// --min-chunks 4`, no program name), give, refused as `detect` refuses them,
/// with `detect`'s one-line messages; `listed_pairs` as `--pairs` is given or
/// not. For callers other than the command line, such as the Python module.
pub fn method(flags: &[OsString], listed_pairs: bool) -> anyhow::Result<Method> {
    let method: MethodArgs = parse_flags(flags)?;
    let params = method.params(listed_pairs)?;
    params.validate()?;
    let synonyms = method.synonyms.as_deref().map(Synonyms::load).transpose()?;
    Ok(Method { params, synonyms })
}

/// A flag's help text with the default the code uses.
fn defaulted(text: &str, default: impl std::fmt::Display) -> String {
    format!("{} [default: {default}]", text.trim_end_matches('.'))
}

/// The `best` preset's alignment defaults, shown in the help texts.
fn best() -> AlignParams {
    AlignParams::default()
}

/// A `best` default in full search and with `--pairs`, for a help text.
fn full_and_listed<T: std::fmt::Display>(field: fn(&AlignParams) -> T) -> String {
    format!("{}; {} with --pairs", field(&best()), field(&best().for_listed_pairs()))
}

/// An optional default for a help text: its value, or `none`.
fn or_none(value: Option<f64>) -> String {
    value.map_or_else(|| "none".to_string(), |v| v.to_string())
}

/// Overrides a preset's value with a flag's, when given.
fn set<T: Copy>(slot: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *slot = value;
    }
}

/// Runs `pan-detect detect`; a run that fails removes the output
/// directories it made and left empty.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    NewDirectories::removed_on_failure(&args.out, || detect_into_out(&args))
}

fn detect_into_out(args: &Args) -> anyhow::Result<ExitCode> {
    let params = args.method.params(args.pairs.is_some())?;
    params.validate()?;
    args.threads.configure()?;
    let synonyms = args.method.synonyms.as_deref().map(Synonyms::load).transpose()?;
    let embedder = args.method.embedder()?;
    let pairs = args.pairs.as_deref().map(DocumentPairs::read).transpose()?;
    let progress = TerminalProgress::new(args.quiet);
    let taboo = (!args.taboo.is_empty()).then(|| TabooTexts::load(&args.taboo)).transpose()?;
    let text_cache = text_cache(args.cache.as_deref())?;
    let dirs = Some([args.source_dir.as_path(), args.suspicious_dir.as_path()]);
    let reader = TextReader::new(text_cache.as_ref());
    let cross_language = args.cross_language.settings()?;
    let sink = sink(&args.out, (args.format, args.layout), dirs, pairs.as_ref(), reader)?;
    let scope = Scope {
        synonyms: synonyms.as_ref(),
        pairs: pairs.as_ref(),
        taboo: taboo.as_ref(),
        text_cache: text_cache.as_ref(),
        recursive: args.recursive,
        cross_language: cross_language.as_ref(),
        embedder: embedder.as_ref(),
    };
    let summary = match args.cluster.cluster()? {
        None => detect_with(&args.source_dir, &args.suspicious_dir, &params, &scope, sink.as_ref(), &progress),
        Some(cluster) => {
            if cluster.processes() > 1 && args.format != Format::PanXml {
                anyhow::bail!("--processes applies to --format pan-xml only (HTML and JSON reports have one index)");
            }
            crate::cluster::report_lost_processes();
            let job = job_hash(args, &params, &cluster);
            let (dirs, sink) = (&args.source_dir, sink.as_ref());
            let ran = crate::cluster::detect::detect(
                &cluster,
                job,
                dirs,
                &args.suspicious_dir,
                &params,
                &scope,
                sink,
                &progress,
            );
            ran.map(|(summary, sent)| {
                note_traffic(&cluster, sent);
                summary
            })
        }
    }
    .with_context(|| "detection stopped")?;
    if let Some(embedder) = &embedder {
        finish_embedding(embedder)?;
    }
    messages::note(summary_line(&summary));
    args.strict.check(summary.skipped_files as u64)?;
    Ok(ExitCode::SUCCESS)
}

/// Reports a failure of the sentence encoder during the run, else notes the
/// sentences encoded and keeps the embeddings (`--embedding-cache`).
fn finish_embedding(embedder: &Embedder) -> anyhow::Result<()> {
    if let Some(failure) = embedder.failure() {
        anyhow::bail!("--model: the model failed to encode sentences: {failure}");
    }
    messages::note(format!("{} sentences encoded with the model", embedder.encoded()));
    embedder.save()?;
    Ok(())
}

/// A hash of what every process of a cluster run must share: the
/// directories, the parameters, the output and the shape of the cluster.
fn job_hash(args: &Args, params: &DetectParams, cluster: &Cluster) -> u64 {
    let shared = format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        args.source_dir,
        args.suspicious_dir,
        args.out,
        args.pairs,
        args.taboo,
        args.method.synonyms,
        args.method.model,
        args.layout,
        args.recursive,
        params,
        cluster.workers,
        cluster.addresses
    );
    xxhash_rust::xxh3::xxh3_64(shared.as_bytes())
}

/// Where the reports go: the sink of `--format` and `--layout` into `out`;
/// HTML and JSON reports read the texts of the documents again from `dirs`,
/// the source and the suspicious directory.
fn sink<'a>(
    out: &Path,
    (format, layout): (Format, Layout),
    dirs: Option<[&Path; 2]>,
    pairs: Option<&'a DocumentPairs>,
    reader: TextReader<'a>,
) -> anyhow::Result<Box<dyn DetectionSink + 'a>> {
    let readable = |format| -> anyhow::Result<Box<dyn DetectionSink + 'a>> {
        let Some([source_dir, suspicious_dir]) = dirs else {
            let name = if format == ReadableFormat::Html { "html" } else { "json" };
            anyhow::bail!("--format {name} needs --source-dir and --suspicious-dir, whose texts its reports show")
        };
        let reports = ReadableReports::create(out, format)?;
        Ok(Box::new(ReadableSink::new(reports, source_dir, suspicious_dir, reader)))
    };
    match (format, layout) {
        (Format::PanXml, Layout::PerDocument) => Ok(Box::new(PanXmlDirectory::create(out)?)),
        (Format::PanXml, Layout::PerPair) => Ok(Box::new(PanXmlPairDirectory::create(out, pairs)?)),
        (Format::Html, Layout::PerDocument) => readable(ReadableFormat::Html),
        (Format::Json, Layout::PerDocument) => readable(ReadableFormat::Json),
        (Format::Html | Format::Json, Layout::PerPair) => {
            anyhow::bail!("--layout per-pair applies to --format pan-xml only")
        }
    }
}

/// The flags of `detect` that say where and how its reports are written,
/// as [`write_reports`] takes them (those of [`Args`], the directories
/// optional: PAN XML reports need none).
#[derive(clap::Args)]
struct ReportArgs {
    #[arg(long)]
    out: PathBuf,
    #[arg(long)]
    source_dir: Option<PathBuf>,
    #[arg(long)]
    suspicious_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::PanXml)]
    format: Format,
    #[arg(long, value_enum, default_value_t = Layout::PerDocument)]
    layout: Layout,
    #[arg(long)]
    pairs: Option<PathBuf>,
}

/// Writes the reports of `detections` (the passages of each suspicious
/// document, by name) as `detect` writes those it finds, for the Python
/// module: `flags` are `detect`'s flags of its output (`--out DIR` and any of
/// `--format`, `--layout`, `--pairs`, and `--source-dir` and
/// `--suspicious-dir`, which HTML and JSON reports read the texts from).
/// A failed write removes the directories it made and left empty.
pub fn write_reports(
    flags: &[OsString],
    detections: &[(&str, Vec<Detection<'_>>)],
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let args: ReportArgs = parse_flags(flags)?;
    let dirs =
        args.source_dir.as_deref().zip(args.suspicious_dir.as_deref()).map(|(source, suspicious)| [source, suspicious]);
    NewDirectories::removed_on_failure(&args.out, || {
        let pairs = args.pairs.as_deref().map(DocumentPairs::read).transpose()?;
        let sink = sink(&args.out, (args.format, args.layout), dirs, pairs.as_ref(), TextReader::default())?;
        let names: Vec<&str> = detections.iter().map(|(name, _)| *name).collect();
        let sources: BTreeSet<&str> =
            detections.iter().flat_map(|(_, found)| found.iter().map(|d| d.source_reference)).collect();
        let sources: Vec<&str> = sources.into_iter().collect();
        let inputs = dirs.as_ref().map_or(&[][..], |dirs| &dirs[..]);
        sink.prepare(inputs, &names, &sources, progress)?;
        for (name, found) in detections {
            sink.document(name, found)?;
        }
        sink.finish()?;
        anyhow::Ok(())
    })
}

/// The cache of extracted texts: `--cache DIR`, or a temporary directory for
/// the run. A temporary directory that cannot be made costs time, not the run:
/// the sources are then extracted again whenever they are aligned.
fn text_cache(dir: Option<&Path>) -> anyhow::Result<Option<TextCache>> {
    if let Some(dir) = dir {
        let cache = TextCache::open(dir).map_err(|source| Error::TextCache { path: dir.to_path_buf(), source })?;
        return Ok(Some(cache));
    }
    match TextCache::temporary() {
        Ok(cache) => Ok(Some(cache)),
        Err(error) => {
            messages::warn(format_args!(
                "{}: cannot make a temporary directory for extracted texts ({error}); PDF, DOCX and ODT sources \
                 are extracted again whenever they are aligned",
                std::env::temp_dir().display()
            ));
            Ok(None)
        }
    }
}

fn summary_line(s: &Summary) -> String {
    let total = s.read_sources + s.build_index + s.matching;
    let aligned =
        if s.candidate_pairs > 0 { format!(" ({} aligned)", count(s.candidate_pairs, "pair")) } else { String::new() };
    let taboo = if s.taboo_chars > 0 {
        format!(", {} of taboo text left out", count(s.taboo_chars, "character"))
    } else {
        String::new()
    };
    format!(
        "{} source + {} ({:.1} MB){}, {} + {}, {}{aligned}{taboo} in {:.2} s \
         (read sources {:.2} s, build index {:.2} s, match {:.2} s)",
        s.source_documents,
        count(s.suspicious_documents as u64, "suspicious document"),
        s.input_bytes as f64 / 1e6,
        skipped_files(s.skipped_files as u64),
        s.source_chunks,
        count(s.suspicious_chunks, "chunk"),
        count(s.passages, "passage"),
        total.as_secs_f64(),
        s.read_sources.as_secs_f64(),
        s.build_index.as_secs_f64(),
        s.matching.as_secs_f64(),
    )
}
