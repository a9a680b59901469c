//! `pan-detect detect` (also the default command): find plagiarised passages and
//! write one PAN XML report per suspicious document.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::ValueEnum;
use pan_detect::align::synonyms::Synonyms;
use pan_detect::detect::{Summary, detect_with_synonyms};
use pan_detect::params::{DetectParams, LanguageSetting, Preset};
use pan_detect::report::PanXmlDirectory;
use pan_detect::stem::Language;

use super::args::{Overlap, StrictArg, ThreadsArg};
use crate::messages::{self, count, skipped_files};
use crate::progress_bar::TerminalProgress;

/// Arguments of `pan-detect detect`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory of source documents (`*.txt`; other files are ignored).
    #[arg(long, value_name = "DIR")]
    source_dir: PathBuf,
    /// Directory of suspicious documents (`*.txt`; other files, such as PAN's
    /// ground-truth `*.xml`, are ignored).
    #[arg(long, value_name = "DIR")]
    suspicious_dir: PathBuf,
    /// Directory for the reports, one `<name>.xml` per suspicious document;
    /// created when missing, other files in it are left alone.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Method: `best` (candidate pairs from the chunk index, then sentence
    /// alignment; finds paraphrases) or `pan09` (the paper's method exactly). The
    /// flags below override the preset's values.
    #[arg(long, value_enum, default_value_t = PresetArg::Best)]
    preset: PresetArg,
    /// Count digits as word characters (the default; scores best on PAN corpora).
    #[arg(long, overrides_with = "no_digits")]
    digits: bool,
    /// Letters only: digits separate words and are ignored (archive mode).
    #[arg(long, overrides_with = "digits")]
    no_digits: bool,
    /// Ignore words shorter than this many characters [default: 3].
    #[arg(long, value_name = "N")]
    min_word_len: Option<usize>,
    /// Words per chunk (1..=32) of the paper's method [default: 5].
    #[arg(long, value_name = "N")]
    chunk_words: Option<usize>,
    /// Keep the words of a chunk in text order instead of sorting them (paper's method).
    #[arg(long)]
    no_sort: bool,
    /// Bits of MD5 kept as a chunk's hash (24..=64) [default: 32].
    #[arg(long, value_name = "BITS")]
    hash_bits: Option<u32>,
    /// pan09: source documents sharing fewer chunks with a suspicious document are
    /// not compared further [default: 20].
    #[arg(long, value_name = "N")]
    min_common: Option<usize>,
    /// pan09: a valid interval holds at least this many matching chunks [default: 20].
    #[arg(long, value_name = "N")]
    min_chunks: Option<usize>,
    /// pan09: at most this many unmatched chunks between neighbouring matching
    /// chunks of an interval [default: 49].
    #[arg(long, value_name = "N")]
    max_gap: Option<usize>,
    /// pan09: levels of the valid-interval recursion: 1 checks the suspicious
    /// document, 2 both (1..=8) [default: 2].
    #[arg(long, value_name = "N")]
    depth: Option<usize>,
    /// Passages that overlap in a suspicious document: keep the largest (PAN), trim
    /// the others to their free part, or keep all (archive) [default: largest with
    /// pan09, trim with best].
    #[arg(long, value_enum)]
    overlap: Option<Overlap>,
    /// best: words per candidate chunk (stop words removed) [default: 3].
    #[arg(long, value_name = "N")]
    candidate_words: Option<usize>,
    /// best: characters kept of each word in a candidate chunk, 0 = whole words [default: 5].
    #[arg(long, value_name = "N")]
    candidate_prefix: Option<usize>,
    /// best: candidate chunks a source document must share to be aligned [default: 4].
    #[arg(long, value_name = "N")]
    candidate_min_common: Option<usize>,
    /// best: at most this many unmatched candidate chunks between neighbouring
    /// matching ones [default: 25].
    #[arg(long, value_name = "N")]
    candidate_max_gap: Option<usize>,
    /// best: content chunks (not structure chunks) a candidate pair must share [default: 2].
    #[arg(long, value_name = "N")]
    candidate_min_content: Option<usize>,
    /// best: chunks found more often than this in the sources are ignored [default: 100].
    #[arg(long, value_name = "N")]
    candidate_max_postings: Option<usize>,
    /// best: consecutive function words per structure chunk, 0 = none [default: 6].
    #[arg(long, value_name = "N")]
    structure_words: Option<usize>,
    /// best: language of the stop words and Snowball stemmer of the sentence
    /// alignment: `none` (whole words, no stop words: measured best), `auto`
    /// (guessed per document), or a code: en de fr es it pt nl sv da no fi ru.
    #[arg(long, value_name = "LANG", default_value = "none", value_parser = parse_language)]
    language: LanguageSetting,
    /// best: file of synonym groups (one per line, comma-separated, as for
    /// `pan-detect corpus --synonyms`); the words of a group count as one.
    #[arg(long, value_name = "FILE")]
    synonyms: Option<PathBuf>,
    /// best: least tf-idf cosine of a seed sentence pair (0..=1) [default: 0.33].
    #[arg(long, value_name = "X", value_parser = unit_interval)]
    seed_cosine: Option<f64>,
    /// best: least Dice coefficient of a seed sentence pair (0..=1) [default: 0.33].
    #[arg(long, value_name = "X", value_parser = unit_interval)]
    seed_dice: Option<f64>,
    /// best: at most this many sentences between neighbouring seeds of a passage [default: 3].
    #[arg(long, value_name = "N")]
    max_sentence_gap: Option<usize>,
    /// best: least tf-idf cosine between a passage's two sides (0..=1) [default: 0.34].
    #[arg(long, value_name = "X", value_parser = unit_interval)]
    min_passage_cosine: Option<f64>,
    /// best: passages shorter than this many characters are dropped [default: 250].
    #[arg(long, value_name = "N")]
    min_passage_chars: Option<u32>,
    /// best: least share of nearby word pairs a passage's sides share (0..=1) [default: 0.35] ...
    #[arg(long, value_name = "X", value_parser = unit_interval)]
    min_pair_overlap: Option<f64>,
    /// best: ... unless their tf-idf cosine reaches this (0..=1) [default: 0.7].
    #[arg(long, value_name = "X", value_parser = unit_interval)]
    pair_overlap_waiver: Option<f64>,
    /// best: merge neighbouring passages of a pair over gaps up to this share of the shorter one [default: 0.5].
    #[arg(long, value_name = "X")]
    merge_gap_ratio: Option<f64>,
    /// best: ... or up to this many characters [default: 300].
    #[arg(long, value_name = "N")]
    merge_gap_chars: Option<u32>,
    /// best: sentences with fewer content words join the next one [default: 3].
    #[arg(long, value_name = "N")]
    min_sentence_words: Option<usize>,
    /// best: passages with fewer seeds must be twice --min-passage-chars long [default: 2].
    #[arg(long, value_name = "N")]
    min_seeds: Option<usize>,
    /// best: report each candidate pair as one whole-document detection (to
    /// measure candidate recall with `pan-detect eval`'s document level).
    #[arg(long, hide = true)]
    report_candidates: bool,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    strict: StrictArg,
    /// No progress bars (they are also off when stderr is not a terminal).
    #[arg(long)]
    quiet: bool,
}

/// `--preset` values.
#[derive(Clone, Copy, ValueEnum)]
enum PresetArg {
    /// Candidate pairs from the chunk index, then sentence alignment.
    Best,
    /// The PAN'09 paper's method with its exact defaults.
    Pan09,
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

impl Args {
    fn params(&self) -> DetectParams {
        let mut params = DetectParams::preset(match self.preset {
            PresetArg::Best => Preset::Best,
            PresetArg::Pan09 => Preset::Pan09,
        });
        params.tokenizer.digits = !self.no_digits;
        set(&mut params.tokenizer.min_word_len, self.min_word_len);
        set(&mut params.chunks.words, self.chunk_words);
        params.chunks.sorted = !self.no_sort;
        set(&mut params.chunks.hash_bits, self.hash_bits);
        set(&mut params.min_common, self.min_common);
        set(&mut params.intervals.min_chunks, self.min_chunks);
        set(&mut params.intervals.max_gap, self.max_gap);
        set(&mut params.intervals.depth, self.depth);
        if let Some(overlap) = self.overlap {
            params.overlap = overlap.into();
        }
        if let Some(align) = &mut params.align {
            set(&mut align.candidate_words, self.candidate_words);
            set(&mut align.candidate_prefix, self.candidate_prefix);
            set(&mut align.candidate_min_common, self.candidate_min_common);
            set(&mut align.candidate_max_gap, self.candidate_max_gap);
            set(&mut align.structure_words, self.structure_words);
            set(&mut align.candidate_min_content, self.candidate_min_content);
            set(&mut align.candidate_max_postings, self.candidate_max_postings);
            align.language = self.language;
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
            align.report_candidates = self.report_candidates;
        }
        params
    }
}

/// Overrides a preset's value with a flag's, when given.
fn set<T: Copy>(slot: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *slot = value;
    }
}

/// Runs `pan-detect detect`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let params = args.params();
    params.validate()?;
    args.threads.configure()?;
    let synonyms = args.synonyms.as_deref().map(Synonyms::load).transpose()?;
    let sink = PanXmlDirectory::create(&args.out)?;
    let progress = TerminalProgress::new(args.quiet);
    let summary =
        detect_with_synonyms(&args.source_dir, &args.suspicious_dir, &params, synonyms.as_ref(), &sink, &progress)
            .with_context(|| "detection stopped")?;
    messages::note(summary_line(&summary));
    args.strict.check(summary.skipped_files as u64)?;
    Ok(ExitCode::SUCCESS)
}

fn summary_line(s: &Summary) -> String {
    let total = s.read_sources + s.build_index + s.matching;
    let aligned =
        if s.candidate_pairs > 0 { format!(" ({} aligned)", count(s.candidate_pairs, "pair")) } else { String::new() };
    format!(
        "{} source + {} ({:.1} MB){}, {} + {}, {}{aligned} in {:.2} s \
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
