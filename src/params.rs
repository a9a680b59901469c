//! The knobs of every stage, their defaults, and their validation.
//!
//! The defaults are those of Kasprzak, Brandejs and Křipač, "Finding Plagiarism by
//! Evaluating Document Similarities" (PAN'09, SEPLN 2009) and "Computing
//! Similarity on a Large Scale" (ITA'09): 5-word sorted chunks hashed with MD5,
//! 20 common chunks per candidate document pair, valid intervals of at least 20
//! matching chunks with gaps of at most 49, checked on both documents.

use std::fmt;

use crate::stem::Language;

/// Words in one chunk (the papers' n = 5).
pub const DEFAULT_CHUNK_WORDS: usize = 5;
/// Largest accepted `--chunk-words`; chunks are built in a fixed-size array.
pub const MAX_CHUNK_WORDS: usize = 32;
/// Words shorter than this many characters are ignored (the papers skip words of
/// one and two letters).
pub const DEFAULT_MIN_WORD_LEN: usize = 3;
/// Digits count as word characters by default: on the dev-en corpus (PAN-PC-10
/// layout) the paper's method scores plagdet 0.8513 with digits and 0.8498 without.
/// Archive users who want years and numbers ignored pass `--no-digits`.
pub const DEFAULT_DIGITS: bool = true;
/// Bits of MD5 kept as a chunk's hash (the papers keep 30 to 32).
pub const DEFAULT_HASH_BITS: u32 = 32;
/// Accepted range of `--hash-bits`.
pub const HASH_BITS_RANGE: std::ops::RangeInclusive<u32> = 24..=64;
/// A source document is a candidate when it shares at least this many chunks
/// with the suspicious document (PAN'09: 20).
pub const DEFAULT_MIN_COMMON: usize = 20;
/// A valid interval holds at least this many matching chunks (PAN'09: 20).
pub const DEFAULT_MIN_CHUNKS: usize = 20;
/// At most this many unmatched chunks between neighbouring matching chunks of a
/// valid interval (PAN'09: 49).
pub const DEFAULT_MAX_GAP: usize = 49;
/// Depth of the valid-interval recursion: 1 checks the suspicious document only,
/// 2 also the source document (PAN'09: 2).
pub const DEFAULT_DEPTH: usize = 2;

/// How words are cut out of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenizerParams {
    /// Digits count as word characters (`--digits`).
    pub digits: bool,
    /// Words with fewer characters (after folding) are ignored; Han ideographs
    /// are kept however short.
    pub min_word_len: usize,
}

/// How words are grouped into hashed chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkParams {
    /// Words per chunk.
    pub words: usize,
    /// Sort the words inside a chunk before hashing (defeats word swaps).
    pub sorted: bool,
    /// Bits of the hash kept.
    pub hash_bits: u32,
    /// The hash function.
    pub hash: ChunkHash,
}

/// The hash function of chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChunkHash {
    /// MD5, as in the papers (and in the archive, whose hashes must stay stable).
    #[default]
    Md5,
    /// XXH3-64: a non-cryptographic hash about ten times faster than MD5 with
    /// the same spread; the `best` preset's candidate chunks use it, since their
    /// hashes are never compared with anyone else's.
    Xxh3,
}

/// Valid-interval thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalParams {
    /// Minimum matching chunks in an interval.
    pub min_chunks: usize,
    /// Maximum unmatched chunks between neighbouring matching chunks.
    pub max_gap: usize,
    /// Recursion depth (1 or 2 and more: sides alternate at each level).
    pub depth: usize,
}

/// What to do with passages that overlap in the suspicious document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlapPolicy {
    /// Keep only the largest of overlapping passages (PAN mode).
    Largest,
    /// Keep the largest, passages bounded by verbatim runs first, and cut the
    /// overlapped part out of the others (the `best` preset: a neighbouring
    /// passage that runs a sentence too far must not remove or cut a case).
    Trim,
    /// Keep every passage (archive mode).
    KeepAll,
}

/// Which language's stop words and stemmer the alignment stage uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LanguageSetting {
    /// Guess each document's language from its function words (`--language auto`).
    Auto,
    /// No stemming and no stop words (`--language none`).
    None,
    /// One language for every document (`--language en`, ...).
    Fixed(Language),
}

/// Words per candidate chunk of the `best` preset: 3 stop-word-free words.
pub const DEFAULT_CANDIDATE_WORDS: usize = 3;
/// Characters kept of each word in a candidate chunk: a 5-letter prefix is a
/// cheap stand-in for a stem in the candidate stage.
pub const DEFAULT_CANDIDATE_PREFIX: usize = 5;
/// Candidate chunks a source document must share with a suspicious one to be aligned.
pub const DEFAULT_CANDIDATE_MIN_COMMON: usize = 4;

/// Unmatched candidate chunks allowed between neighbouring matching ones.
pub const DEFAULT_CANDIDATE_MAX_GAP: usize = 25;

/// A candidate chunk found more often than this in the sources is boilerplate
/// and makes no hit: text that many documents share (a template, standard
/// quotations) is not what one document copied from another. On
/// pan13-ta-train and dev-en, 20 instead of 100 changes plagdet by -0.0008
/// and 0 (full search); on the 500 MB reuse-heavy benchmark, whose pooled
/// sentences are in about 40 sources each, it makes `best` 8x faster.
pub const DEFAULT_CANDIDATE_MAX_POSTINGS: usize = 20;

/// Hits of the candidate index allowed per candidate chunk of a suspicious
/// document (see [`crate::search::HitBudget`]); the rarest chunks are looked
/// up first. Text shared by many documents (a template, standard quotations)
/// then cannot make the work per document grow with the collection.
pub const DEFAULT_CANDIDATE_HITS_PER_CHUNK: usize = 16;

/// Characters of a suspicious document per candidate region it may align (a
/// place where it shares text with a source; a pair may have several), beyond
/// [`MIN_CANDIDATE_PAIRS`]: the strongest regions are aligned first. On
/// pan13-ta-train, whose sources share much text with each other, a suspicious
/// document has at most one candidate per 540 characters.
pub const DEFAULT_CANDIDATE_CHARS_PER_PAIR: u32 = 500;

/// Candidate regions every suspicious document may align, however short.
pub const MIN_CANDIDATE_PAIRS: usize = 10;

/// The sentence-alignment stage of the `best` preset (two-stage design: the chunk
/// index finds candidate document pairs, this stage aligns their sentences).
/// Thresholds follow Sanchez-Perez, Sidorov and Gelbukh (PAN 2014) where they fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlignParams {
    /// Words per candidate chunk (stop words removed, words cut to `candidate_prefix`).
    pub candidate_words: usize,
    /// Characters kept of each word in a candidate chunk (0 keeps whole words).
    pub candidate_prefix: usize,
    /// Distinct candidate chunks a source document must share to be aligned,
    /// within one valid interval (the paper's intervals, with the thresholds
    /// below): copied passages share chunks densely, documents on one topic
    /// share them scattered.
    pub candidate_min_common: usize,
    /// Largest number of unmatched candidate chunks between neighbouring
    /// matching ones in that interval.
    pub candidate_max_gap: usize,
    /// Content chunks (not structure chunks) a candidate pair must share:
    /// function-word runs alone are common enough to join unrelated documents.
    pub candidate_min_content: usize,
    /// A candidate or structure chunk found more often than this in the
    /// sources is ignored (a stop chunk: too common to tell documents apart).
    pub candidate_max_postings: usize,
    /// Hits allowed per candidate chunk of a suspicious document, rarest
    /// chunks first ([`DEFAULT_CANDIDATE_HITS_PER_CHUNK`]).
    pub candidate_hits_per_chunk: usize,
    /// A suspicious document aligns at most [`MIN_CANDIDATE_PAIRS`] plus one
    /// candidate region per this many of its characters, those with the
    /// largest interval of shared candidate chunks first; 0 aligns every one.
    pub candidate_chars_per_pair: u32,
    /// Consecutive function words per structure chunk (0: none). Their order
    /// survives synonym replacement (Stamatatos 2011); shared structure chunks
    /// both make candidates and anchor seeds.
    pub structure_words: usize,
    /// Stop words and stemmer of the sentence alignment. The default is
    /// [`LanguageSetting::None`]: on dev-en, on a second corpus and on the fixture
    /// corpus, whole folded words with stop words kept scored higher than
    /// Snowball stems without stop words (plagdet 0.957 against 0.949 on dev-en,
    /// 0.885 against 0.869 on the second corpus).
    pub language: LanguageSetting,
    /// A sentence pair seeds a passage when its tf-idf cosine reaches this ...
    pub seed_cosine: f64,
    /// ... and its Dice coefficient of stem sets reaches this.
    pub seed_dice: f64,
    /// Sentences with fewer content words are joined to the next one.
    pub min_sentence_words: usize,
    /// Seeds further apart than this many sentences (on either side) start a new passage.
    pub max_gap: usize,
    /// A passage is kept when the tf-idf cosine of its two sides reaches this;
    /// otherwise its seeds are clustered again with a smaller gap.
    pub min_passage_cosine: f64,
    /// Neighbouring passages of a document pair are merged when the gaps between
    /// them on both sides are at most this share of the shorter passage ...
    pub merge_gap_ratio: f64,
    /// ... or at most this many characters.
    pub merge_gap_chars: u32,
    /// Passages shorter than this many characters on either side are dropped.
    pub min_passage_chars: u32,
    /// Least share of shared nearby word pairs of a passage (see
    /// [`crate::align::extend::Pair::pair_overlap`]) ...
    pub min_pair_overlap: f64,
    /// ... unless its two sides have at least this tf-idf cosine (shuffled words).
    pub pair_overlap_waiver_cosine: f64,
    /// Passages with fewer seed sentence pairs are dropped unless they are twice `min_passage_chars` long.
    pub min_seeds: usize,
    /// In a document pair without a verbatim run of
    /// [`crate::align::verbatim::MIN_STANDALONE_WORDS`] words, seeds need this
    /// tf-idf cosine and Dice coefficient instead of `seed_cosine` and
    /// `seed_dice` (adaptive parameters per pair, after Sanchez-Perez, Sidorov
    /// and Gelbukh 2015); `None` keeps them.
    pub obfuscated_seed_similarity: Option<f64>,
    /// ... and its passages this share of nearby word pairs instead of
    /// `min_pair_overlap`.
    pub obfuscated_min_pair_overlap: Option<f64>,
    /// Least tf-idf cosine and Dice coefficient of the seeds of a second search
    /// for summaries ([`crate::align::summary`]), made in document pairs where
    /// nothing else was aligned; 0 makes no second search.
    pub summary_seed_similarity: f64,
    /// Report each candidate pair as one whole-document detection instead of
    /// aligning it (to measure candidate recall with `pan-detect eval`'s
    /// document level).
    pub report_candidates: bool,
}

impl Default for AlignParams {
    fn default() -> Self {
        AlignParams {
            candidate_words: DEFAULT_CANDIDATE_WORDS,
            candidate_prefix: DEFAULT_CANDIDATE_PREFIX,
            candidate_min_common: DEFAULT_CANDIDATE_MIN_COMMON,
            candidate_max_gap: DEFAULT_CANDIDATE_MAX_GAP,
            candidate_min_content: 2,
            candidate_max_postings: DEFAULT_CANDIDATE_MAX_POSTINGS,
            candidate_hits_per_chunk: DEFAULT_CANDIDATE_HITS_PER_CHUNK,
            candidate_chars_per_pair: DEFAULT_CANDIDATE_CHARS_PER_PAIR,
            structure_words: 6,
            language: LanguageSetting::None,
            seed_cosine: 0.33,
            seed_dice: 0.33,
            min_sentence_words: 3,
            max_gap: 3,
            min_passage_cosine: 0.34,
            merge_gap_ratio: 0.5,
            merge_gap_chars: 300,
            min_passage_chars: 250,
            min_pair_overlap: 0.35,
            pair_overlap_waiver_cosine: 0.55,
            min_seeds: 2,
            obfuscated_seed_similarity: None,
            obfuscated_min_pair_overlap: None,
            summary_seed_similarity: 0.0,
            report_candidates: false,
        }
    }
}

/// Least passage length when document pairs are given (PAN's text-alignment
/// protocol), as Sanchez-Perez, Sidorov and Gelbukh (PAN 2014) use. Random
/// obfuscation deletes words, so 17 % of PAN 2013's random cases are shorter
/// than the full-search minimum of 250 on the suspicious side. In full search
/// most candidate pairs share only their topic, and short passages there are
/// mostly false (dev-en: 134 of 158); given pairs are where a copy is sought.
pub const LISTED_PAIRS_MIN_PASSAGE_CHARS: u32 = 150;
/// Least share of nearby word pairs when document pairs are given: cyclic
/// translation reorders words, and given pairs need less guarding against
/// topical likeness (pan13-ta-train translation 0.75 -> 0.84).
pub const LISTED_PAIRS_MIN_PAIR_OVERLAP: f64 = 0.15;
/// Least tf-idf cosine and Dice coefficient of a seed sentence pair when
/// document pairs are given: more seeds survive cyclic translation and random
/// word operations (pan13-ta-train translation 0.84 -> 0.86, random 0.87 ->
/// 0.88), at the price of passages that reach a sentence too far ...
pub const LISTED_PAIRS_SEED_SIMILARITY: f64 = 0.28;
/// ... which a passage cosine of 0.4 (instead of 0.34) mostly takes back
/// (no obfuscation 0.9800 -> 0.9774 rather than 0.9741).
pub const LISTED_PAIRS_MIN_PASSAGE_COSINE: f64 = 0.4;

/// Seeds of the second summary search when document pairs are given: summary
/// sentences share few words with any one source sentence (pan13-ta-train
/// summary 0.41 -> 0.66). In full search most candidate pairs where nothing was
/// aligned share only their topic, and seeds this low make summaries of them
/// (dev-en 0.964 -> 0.819), so full search makes no second search.
pub const LISTED_PAIRS_SUMMARY_SEED_SIMILARITY: f64 = 0.12;

/// Seeds in given document pairs without a verbatim run: cyclic translation
/// and random word operations leave sentence pairs less alike than copies
/// do. In pairs with a verbatim run the stricter seeds keep passages from
/// reaching a sentence too far (pan13-ta-train, for all pairs: translation
/// 0.8756 -> 0.8839 but no obfuscation 0.9774 -> 0.9710; for pairs without a
/// verbatim run only: translation 0.8833, no obfuscation unchanged).
pub const LISTED_OBFUSCATED_SEED_SIMILARITY: f64 = 0.25;
/// Least share of nearby word pairs in given document pairs without a
/// verbatim run: cyclic translation reorders words (pan13-ta-train
/// translation 0.8634 -> 0.8756 with 0.05 instead of 0.15).
pub const LISTED_OBFUSCATED_MIN_PAIR_OVERLAP: f64 = 0.05;

impl AlignParams {
    /// Most candidate regions a suspicious document of `chars` characters may
    /// align (see [`AlignParams::candidate_chars_per_pair`]).
    pub fn max_candidate_pairs(&self, chars: usize) -> usize {
        match self.candidate_chars_per_pair {
            0 => usize::MAX,
            per_pair => MIN_CANDIDATE_PAIRS + chars / per_pair as usize,
        }
    }

    /// The bounds of the candidate index's lookups.
    pub fn hit_budget(&self) -> crate::search::HitBudget {
        crate::search::HitBudget { max_postings: self.candidate_max_postings, per_chunk: self.candidate_hits_per_chunk }
    }

    /// The parameters for one document pair: those of obfuscated pairs where
    /// the pair has no verbatim run (`has_verbatim_run` false) and they are set.
    pub fn for_pair(&self, has_verbatim_run: bool) -> AlignParams {
        if has_verbatim_run {
            return *self;
        }
        AlignParams {
            seed_cosine: self.obfuscated_seed_similarity.unwrap_or(self.seed_cosine),
            seed_dice: self.obfuscated_seed_similarity.unwrap_or(self.seed_dice),
            min_pair_overlap: self.obfuscated_min_pair_overlap.unwrap_or(self.min_pair_overlap),
            ..*self
        }
    }

    /// The defaults for document pairs that are given rather than retrieved
    /// ([`LISTED_PAIRS_MIN_PASSAGE_CHARS`], [`LISTED_PAIRS_MIN_PAIR_OVERLAP`],
    /// [`LISTED_PAIRS_SEED_SIMILARITY`], [`LISTED_PAIRS_MIN_PASSAGE_COSINE`],
    /// [`LISTED_OBFUSCATED_SEED_SIMILARITY`], [`LISTED_OBFUSCATED_MIN_PAIR_OVERLAP`],
    /// [`LISTED_PAIRS_SUMMARY_SEED_SIMILARITY`]).
    pub fn for_listed_pairs(self) -> AlignParams {
        AlignParams {
            min_passage_chars: LISTED_PAIRS_MIN_PASSAGE_CHARS,
            min_pair_overlap: LISTED_PAIRS_MIN_PAIR_OVERLAP,
            seed_cosine: LISTED_PAIRS_SEED_SIMILARITY,
            seed_dice: LISTED_PAIRS_SEED_SIMILARITY,
            min_passage_cosine: LISTED_PAIRS_MIN_PASSAGE_COSINE,
            obfuscated_seed_similarity: Some(LISTED_OBFUSCATED_SEED_SIMILARITY),
            obfuscated_min_pair_overlap: Some(LISTED_OBFUSCATED_MIN_PAIR_OVERLAP),
            summary_seed_similarity: LISTED_PAIRS_SUMMARY_SEED_SIMILARITY,
            ..self
        }
    }
}

/// A named set of defaults for every stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// The method of the PAN'09 paper exactly ([`DetectParams::default`]).
    Pan09,
    /// Candidate pairs from the chunk index, then sentence alignment (the binary's default).
    Best,
}

/// Every parameter of a detection run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectParams {
    /// Tokenizer settings.
    pub tokenizer: TokenizerParams,
    /// Chunker settings.
    pub chunks: ChunkParams,
    /// Minimum common chunks for a candidate source document.
    pub min_common: usize,
    /// Valid-interval settings.
    pub intervals: IntervalParams,
    /// Post-processing of overlapping passages.
    pub overlap: OverlapPolicy,
    /// The alignment stage; `None` runs the paper's valid intervals instead.
    pub align: Option<AlignParams>,
}

impl Default for TokenizerParams {
    fn default() -> Self {
        TokenizerParams { digits: DEFAULT_DIGITS, min_word_len: DEFAULT_MIN_WORD_LEN }
    }
}

impl Default for ChunkParams {
    fn default() -> Self {
        ChunkParams { words: DEFAULT_CHUNK_WORDS, sorted: true, hash_bits: DEFAULT_HASH_BITS, hash: ChunkHash::Md5 }
    }
}

impl Default for IntervalParams {
    fn default() -> Self {
        IntervalParams { min_chunks: DEFAULT_MIN_CHUNKS, max_gap: DEFAULT_MAX_GAP, depth: DEFAULT_DEPTH }
    }
}

impl Default for DetectParams {
    fn default() -> Self {
        DetectParams {
            tokenizer: TokenizerParams::default(),
            chunks: ChunkParams::default(),
            min_common: DEFAULT_MIN_COMMON,
            intervals: IntervalParams::default(),
            overlap: OverlapPolicy::Largest,
            align: None,
        }
    }
}

impl DetectParams {
    /// The parameters of a preset: [`Preset::Pan09`] is [`DetectParams::default`].
    pub fn preset(preset: Preset) -> Self {
        match preset {
            Preset::Pan09 => DetectParams::default(),
            Preset::Best => DetectParams {
                align: Some(AlignParams::default()),
                overlap: OverlapPolicy::Trim,
                ..DetectParams::default()
            },
        }
    }
}

/// A parameter outside its accepted range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ParamError {
    /// The flag, e.g. `--hash-bits`.
    pub flag: &'static str,
    /// The value given.
    pub value: u64,
    /// The accepted range, e.g. `24..=64`.
    pub expected: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} is out of range (expected {})", self.flag, self.value, self.expected)
    }
}

fn check(flag: &'static str, value: u64, range: std::ops::RangeInclusive<u64>) -> Result<(), ParamError> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(ParamError { flag, value, expected: format!("{}..={}", range.start(), range.end()) })
    }
}

impl DetectParams {
    /// Checks every value once, so that later stages can rely on them.
    pub fn validate(&self) -> Result<(), ParamError> {
        check("--min-word-len", self.tokenizer.min_word_len as u64, 1..=64)?;
        check("--chunk-words", self.chunks.words as u64, 1..=MAX_CHUNK_WORDS as u64)?;
        check(
            "--hash-bits",
            u64::from(self.chunks.hash_bits),
            u64::from(*HASH_BITS_RANGE.start())..=u64::from(*HASH_BITS_RANGE.end()),
        )?;
        check("--min-common", self.min_common as u64, 1..=u32::MAX as u64)?;
        check("--min-chunks", self.intervals.min_chunks as u64, 1..=u32::MAX as u64)?;
        check("--max-gap", self.intervals.max_gap as u64, 0..=u32::MAX as u64)?;
        check("--depth", self.intervals.depth as u64, 1..=8)?;
        if let Some(align) = &self.align {
            check("--candidate-words", align.candidate_words as u64, 1..=MAX_CHUNK_WORDS as u64)?;
            check("--candidate-prefix", align.candidate_prefix as u64, 0..=64)?;
            check("--candidate-min-common", align.candidate_min_common as u64, 1..=u32::MAX as u64)?;
            check("--candidate-max-gap", align.candidate_max_gap as u64, 0..=u32::MAX as u64)?;
            check("--structure-words", align.structure_words as u64, 0..=MAX_CHUNK_WORDS as u64)?;
            check("--max-sentence-gap", align.max_gap as u64, 0..=1000)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_papers_and_valid() {
        let params = DetectParams::default();
        assert_eq!(params.validate(), Ok(()));
        assert_eq!((params.chunks.words, params.chunks.hash_bits, params.min_common), (5, 32, 20));
        assert_eq!((params.intervals.min_chunks, params.intervals.max_gap, params.intervals.depth), (20, 49, 2));
    }

    #[test]
    fn presets_are_the_paper_and_the_paper_plus_alignment_and_trimming() {
        assert_eq!(DetectParams::preset(Preset::Pan09), DetectParams::default());
        assert_eq!(DetectParams::default().align, None);
        let best = DetectParams::preset(Preset::Best);
        assert_eq!(best.validate(), Ok(()));
        assert_eq!(best.overlap, OverlapPolicy::Trim);
        assert_eq!(DetectParams { align: None, overlap: OverlapPolicy::Largest, ..best }, DetectParams::default());
        assert_eq!(best.align, Some(AlignParams::default()));
    }

    #[test]
    fn pairs_without_a_verbatim_run_take_the_obfuscated_thresholds_when_set() {
        let full_search = AlignParams::default();
        assert_eq!(full_search.for_pair(false), full_search);
        let listed = full_search.for_listed_pairs();
        assert_eq!(listed.for_pair(true), listed);
        let obfuscated = listed.for_pair(false);
        assert_eq!((obfuscated.seed_cosine, obfuscated.seed_dice), (0.25, 0.25));
        assert_eq!(obfuscated.min_pair_overlap, LISTED_OBFUSCATED_MIN_PAIR_OVERLAP);
        let restored = AlignParams {
            seed_cosine: listed.seed_cosine,
            seed_dice: listed.seed_dice,
            min_pair_overlap: listed.min_pair_overlap,
            ..obfuscated
        };
        assert_eq!(restored, listed);
    }

    #[test]
    fn listed_pairs_change_only_the_seed_and_passage_thresholds() {
        let full_search = AlignParams::default();
        let listed = full_search.for_listed_pairs();
        assert!(listed.min_passage_chars < full_search.min_passage_chars);
        assert!(listed.min_pair_overlap < full_search.min_pair_overlap);
        assert!(listed.seed_cosine < full_search.seed_cosine && listed.seed_dice < full_search.seed_dice);
        assert!(listed.min_passage_cosine > full_search.min_passage_cosine);
        assert!(listed.summary_seed_similarity > 0.0 && full_search.summary_seed_similarity == 0.0);
        assert_eq!((full_search.obfuscated_seed_similarity, full_search.obfuscated_min_pair_overlap), (None, None));
        let restored = AlignParams {
            min_passage_chars: full_search.min_passage_chars,
            min_pair_overlap: full_search.min_pair_overlap,
            seed_cosine: full_search.seed_cosine,
            seed_dice: full_search.seed_dice,
            min_passage_cosine: full_search.min_passage_cosine,
            summary_seed_similarity: full_search.summary_seed_similarity,
            obfuscated_seed_similarity: None,
            obfuscated_min_pair_overlap: None,
            ..listed
        };
        assert_eq!(restored, full_search);
    }

    #[test]
    fn out_of_range_values_name_the_flag() {
        let mut params = DetectParams::default();
        params.chunks.hash_bits = 65;
        assert_eq!(params.validate().unwrap_err().to_string(), "--hash-bits 65 is out of range (expected 24..=64)");
        params.chunks.hash_bits = 24;
        params.chunks.words = 0;
        assert_eq!(params.validate().unwrap_err().flag, "--chunk-words");
    }
}
