//! The parameters of the sentence-alignment stage (the `best` preset): the
//! candidate chunks that find document pairs, the seeds, passages and
//! filters that align them, and the defaults for given document pairs.

use crate::align::filter::{CORROBORATING_SEEDS, Uncorroborated};
use crate::analysis::function_words::FunctionWords;
use crate::analysis::stem::{Language, LanguageSetting};

/// Words per candidate chunk of the `best` preset: 3 stop-word-free words.
pub const DEFAULT_CANDIDATE_WORDS: usize = 3;
/// Characters kept of each word in a candidate chunk: a 5-letter prefix is a
/// cheap stand-in for a stem in the candidate stage.
pub const DEFAULT_CANDIDATE_PREFIX: usize = 5;
/// Candidate chunks a source document must share with a suspicious one to be aligned.
pub const DEFAULT_CANDIDATE_MIN_COMMON: usize = 3;

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
/// document (see [`crate::matching::search::HitBudget`]); the rarest chunks are looked
/// up first. Text shared by many documents (a template, standard quotations)
/// then cannot make the work per document grow with the collection.
pub const DEFAULT_CANDIDATE_HITS_PER_CHUNK: usize = 16;

/// Characters of a suspicious document per candidate region it may align (a
/// place where it shares text with a source; a pair may have several), beyond
/// [`MIN_CANDIDATE_PAIRS`]: the strongest regions are aligned first. On
/// pan13-ta-train, whose sources share much text with each other, a suspicious
/// document has at most one candidate per 540 characters.
pub const DEFAULT_CANDIDATE_CHARS_PER_PAIR: u32 = 500;

/// Candidate words per pair chunk. A random obfuscation that changes a third
/// of the words leaves a 3-word chunk intact with odds of 0.3 and a 2-word
/// one with 0.44: pair chunks, cut where a source shares too few candidate
/// chunks with a suspicious document to be its candidate
/// ([`crate::passages::MIN_PLACE_CHUNKS`]), join pairs that candidate chunks
/// alone miss (before them no candidate reached 14 % of pan13-ta-train's pairs
/// with randomly obfuscated cases and 11 % of the translated ones). They are
/// commoner than candidate chunks, and formulaic text shares them, so a region
/// that only they find keeps passages that pass full search's thresholds
/// and share [`PAIR_MIN_RARE_SHARE`] of their rare terms, and holds back for
/// documents that copy those that pass only the given pairs'
/// ([`AlignParams::for_pair_region`]).
pub const DEFAULT_PAIR_WORDS: usize = 2;

/// Least share of its rare terms a passage of a region that only pair chunks
/// found must share with its source ([`DEFAULT_PAIR_WORDS`]).
pub const PAIR_MIN_RARE_SHARE: f64 = 0.35;

/// Candidate regions every suspicious document may align, however short.
pub const MIN_CANDIDATE_PAIRS: usize = 10;

/// A candidate region whose largest interval of shared candidate chunks holds
/// at least this share of the suspicious document's content chunks is aligned
/// with the thresholds of given pairs, but a passage that nothing corroborates
/// ([`crate::align::filter::CORROBORATING_SEEDS`]) must also pass those of
/// full search ([`AlignParams::for_candidate`]): such evidence of reuse earns
/// part of the leniency PAN's text-alignment protocol gives listed pairs.
/// With the given pairs' seed and passage-cosine thresholds alone,
/// pan13-ta-train's full search went from 0.8033 to 0.8145 (summary 0.3268 ->
/// 0.4586). Their shorter passages, fewer shared word pairs and lower seeds
/// in pairs without a verbatim run, for corroborated passages, took it from
/// 0.8239 to 0.8488 on 2026-11-27 (random 0.7491 -> 0.8044, translation
/// 0.7564 -> 0.7906, summary 0.5046 -> 0.4952), dev-en 0.9613 -> 0.9621, the
/// King James Bible corpus (`eval/formulaic.sh`) 0.8504 -> 0.8530, Clough's
/// answers unchanged. For every passage they reach 0.8610 on pan13-ta-train
/// but cost dev-en 0.0066 (topical news, dialogue transcripts) and the Bible
/// corpus 0.028. From 0.15 % rather than 0.3 % (with pair chunks, 2026-11-27):
/// pan13-ta-train's full search 0.8525 -> 0.8607 (random 0.8129 -> 0.8301,
/// translation 0.7937 -> 0.8048; of the new detections in its listed pairs 105
/// overlap a case and 3 none), dev-en 0.9621 -> 0.9622, the Bible corpus
/// 0.8593 -> 0.8601, the independent corpus 0.9858 -> 0.9845, Clough's
/// answers and the languages within 0.0001. At 0.1 % dev-en lost 0.0022 (two
/// short passages that overlap no case), and a long document's copies fall
/// below any share: it is divided by all the document's content chunks.
pub const DEFAULT_STRONG_CANDIDATE_SHARE: f64 = 0.0015;

/// ... and a strong region whose share is at least this may also be a summary
/// (the second, low-seed search of given pairs). It was 0.01 until
/// 2026-11-29: from 0.005 on the Bible corpus had lost 0.008, and with
/// summaries that must take their rare terms from the source
/// ([`crate::align::summary::SUMMARY_RARE_TAKEN`]) 0.005 took three false
/// summaries of one manual's chapters in Japanese and Chinese (2026-11-27).
/// With the rules added since, 0.005 leaves the languages, dev-en and
/// Clough's answers unchanged and costs the Bible corpus 0.0010 on seed 2026
/// (precision 0.8194 -> 0.8177, pan09's 0.8031), 0.0009 on seed 2027 and
/// 0.0036 on seed 2028 (false summaries of chapters that share names or a
/// prophet's formulas with the source) and the independent corpus 0.0015,
/// 0.0006 and 0.0007 (seeds 2026, 2027 and with synonyms), and with
/// summaries grown from their pieces
/// ([`crate::align::summary::summary_grows_pieces`]) gains
/// pan13-ta-train's full search 0.0011 (summary 0.8017 -> 0.8198), which
/// keeps it within 0.02 of the pairs given (0.0197).
pub const DEFAULT_STRONG_CANDIDATE_SUMMARY_SHARE: f64 = 0.005;

/// ... and a region whose share is at least this is aligned as a given pair
/// whatever corroborates its passages: a twentieth of the suspicious
/// document in one dense interval of shared chunks, as a short answer has
/// with the article it rewrites. Clough's answers in full search (as an
/// archive's `check` sees them): AUC 0.9386 -> 0.9561 at 0.1 (heavy rewrites
/// 0.868 -> 0.921), and 0.9649 at 0.05 (heavy 0.947; no lower share finds
/// more); from 0.2 on the answers lose it again. It keeps the rare-term share
/// of full search ([`DEFAULT_MIN_RARE_SHARE`]; the Bible corpus 0.8508 ->
/// 0.8530). At 0.01 a short program's shared loop of `printf`s passed for a
/// copy (three shared candidate chunks in 119 are 0.025).
pub const DEFAULT_GIVEN_CANDIDATE_SHARE: f64 = 0.05;

/// Least share of a passage's rare terms that both its sides have
/// ([`crate::align::extend::Pair::rare_share`]) in full search. On the King
/// James Bible corpus (`eval/formulaic.sh`) regnal formulas ("And Nadab the
/// son of Jeroboam began to reign over Israel..." to "Now Jehoram the son of
/// Ahab began to reign over Israel..."), tribal lists and offerings share
/// their word pairs and domain words, but not their names. Measured in full
/// search on 2026-11-26 (rare: in at most
/// [`crate::align::seed::RARE_TERM_SENTENCES`] sentences of the pair): the
/// Bible corpus 0.8344 -> 0.8504 (precision 0.7330 -> 0.7570), pan13-ta-train
/// 0.8247 -> 0.8239, dev-en 0.9635 -> 0.9613, Clough's answers and the six
/// language corpora unchanged; at 0.2 dev-en lost 0.016, at 0.1 the Bible
/// corpus gained only 0.0065.
pub const DEFAULT_MIN_RARE_SHARE: f64 = 0.15;

/// Least weighted share of each side's words that the other side of an
/// order-free passage holds ([`crate::align::unordered`]).
pub const DEFAULT_UNORDERED_MIN_SHARE: f64 = 0.6;

/// Least word chunks a source shares with a stretch of a suspicious
/// document, in any order, to be an order-free candidate
/// ([`AlignParams::unordered_min_chunks`]).
pub const DEFAULT_UNORDERED_MIN_CHUNKS: usize = 5;

/// Least share of an order-free passage in a region that only word chunks
/// found ([`AlignParams::for_unordered_region`]).
pub const UNORDERED_REGION_MIN_SHARE: f64 = 0.8;

/// Largest gap, in word chunks, between neighbouring shared word chunks of
/// an order-free candidate, on either side.
pub const UNORDERED_MAX_GAP: usize = 20;

/// Least cosine of the embeddings of a sentence pair for it to seed a
/// passage found by meaning ([`crate::align::semantic`]), with a model
/// (`detect --model`). Tuned on `pan25-spotcheck-dev` with the pairs given
/// and all-MiniLM-L6-v2 on 2026-12-07: without a model plagdet 0.5462,
/// recall 0.7432, precision 0.4407; at 0.7 0.5239 / 0.8412 / 0.3842, 0.75
/// 0.5515 / 0.8055 / 0.4226, 0.8 0.5527 / 0.7954 / 0.4269, 0.85 0.5649 /
/// 0.8102 / 0.4359, 0.9 0.5685 / 0.7981 / 0.4451, 0.95 0.5724 / 0.7693 /
/// 0.4621. 0.9 gains all three measures; lower cosines find more cases
/// but also seed the corpus's rewritten passages that have no source, which
/// count against precision.
pub const DEFAULT_SEMANTIC_SEED_COSINE: f64 = 0.9;

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
    /// matching ones in that interval (none in a suspicious document that one
    /// alignment window covers whole, see [`crate::passages`]).
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
    /// Candidate words per pair chunk (0: none): second evidence for the
    /// pairs that no candidate chunk joins ([`DEFAULT_PAIR_WORDS`]).
    pub pair_words: usize,
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
    /// Least share of a passage's rare terms that both sides have
    /// ([`DEFAULT_MIN_RARE_SHARE`]; 0 asks none).
    pub min_rare_share: f64,
    /// Order-free passages ([`crate::align::unordered`]): least weighted
    /// share of each side's words that the other side holds (0: no
    /// order-free stage).
    pub unordered_min_share: f64,
    /// Order-free candidates in full search: least distinct rare content
    /// words (each a *word chunk* of the index) a source must share with a
    /// stretch of the suspicious document, in any order, within
    /// [`UNORDERED_MAX_GAP`] word chunks of each other on both sides (0: no
    /// word chunks).
    pub unordered_min_chunks: usize,
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
    /// for copies, made in document pairs without a verbatim run where the
    /// first search aligned nothing ([`LISTED_PAIRS_SECOND_SEED_SIMILARITY`]);
    /// 0 makes none.
    pub second_seed_similarity: f64,
    /// Least tf-idf cosine and Dice coefficient of the seeds of a second search
    /// for summaries ([`crate::align::summary`]), made in document pairs where
    /// nothing else was aligned; 0 makes no second search.
    pub summary_seed_similarity: f64,
    /// Candidate regions this strong are aligned as given pairs
    /// ([`DEFAULT_STRONG_CANDIDATE_SHARE`]); above 1 none is.
    pub strong_candidate_share: f64,
    /// ... and with their summaries from this share on
    /// ([`DEFAULT_STRONG_CANDIDATE_SUMMARY_SHARE`]).
    pub strong_candidate_summary_share: f64,
    /// ... and as given pairs in every respect from this share on
    /// ([`DEFAULT_GIVEN_CANDIDATE_SHARE`]).
    pub given_candidate_share: f64,
    /// Stricter thresholds a passage must also pass when nothing corroborates
    /// it ([`crate::align::filter::CORROBORATING_SEEDS`]): those of full search,
    /// in strong candidate regions ([`AlignParams::for_candidate`]); `None`
    /// asks none.
    pub uncorroborated: Option<Uncorroborated>,
    /// Words left out of candidate chunks besides the typed stop lists: the
    /// collection's own function words ([`crate::analysis::function_words`]),
    /// derived from the source documents when a run starts.
    pub function_words: FunctionWords,
    /// Report each candidate pair as one whole-document detection instead of
    /// aligning it (to measure candidate recall with `pan-detect eval`'s
    /// Least cosine of the embeddings of a sentence pair that seeds a passage
    /// found by meaning ([`DEFAULT_SEMANTIC_SEED_COSINE`]), where the aligner
    /// has a model ([`crate::align::Aligner::with_embedder`]); 0 makes none.
    pub semantic_seed_cosine: f64,
    /// document level).
    pub report_candidates: bool,
    /// The thresholds are those of a document mapped from another language
    /// ([`AlignParams::for_translated`]): the thresholds of its regions and
    /// of given pairs keep its seed, passage, word-pair and rare-term
    /// thresholds rather than take those of a copy.
    pub translated: bool,
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
            pair_words: DEFAULT_PAIR_WORDS,
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
            min_rare_share: DEFAULT_MIN_RARE_SHARE,
            unordered_min_share: DEFAULT_UNORDERED_MIN_SHARE,
            unordered_min_chunks: DEFAULT_UNORDERED_MIN_CHUNKS,
            obfuscated_seed_similarity: None,
            obfuscated_min_pair_overlap: None,
            second_seed_similarity: 0.0,
            summary_seed_similarity: 0.0,
            strong_candidate_share: DEFAULT_STRONG_CANDIDATE_SHARE,
            strong_candidate_summary_share: DEFAULT_STRONG_CANDIDATE_SUMMARY_SHARE,
            given_candidate_share: DEFAULT_GIVEN_CANDIDATE_SHARE,
            uncorroborated: None,
            function_words: FunctionWords::NONE,
            semantic_seed_cosine: DEFAULT_SEMANTIC_SEED_COSINE,
            report_candidates: false,
            translated: false,
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
/// ... which a passage cosine above 0.34 mostly takes back (at 0.4: no
/// obfuscation 0.9800 -> 0.9774 rather than 0.9741). 0.38 rather than 0.4
/// keeps a heavy rewrite of Clough & Stevenson's answers (AUC 0.9649 ->
/// 0.9737) and pan13-ta-train's translations (0.8915 -> 0.8967), with pieces
/// of summaries taken into the second search's summary
/// ([`crate::align::summary::condense_their_sources`]).
pub const LISTED_PAIRS_MIN_PASSAGE_COSINE: f64 = 0.38;

/// Least rare-term share when document pairs are given: none. Given pairs
/// are where a copy is sought, and a reworded copy changes rare words too
/// (pan13-ta-train, pairs given, with 0.15: random 0.9079 -> 0.9024,
/// translation 0.8971 -> 0.8895).
pub const LISTED_PAIRS_MIN_RARE_SHARE: f64 = 0.0;

/// Seeds of the second summary search when document pairs are given: summary
/// sentences share few words with any one source sentence (pan13-ta-train
/// summary 0.41 -> 0.66). In full search most candidate pairs where nothing was
/// aligned share only their topic, and seeds this low make summaries of them
/// (dev-en 0.964 -> 0.819), so full search makes no second search.
pub const LISTED_PAIRS_SUMMARY_SEED_SIMILARITY: f64 = 0.12;

/// Seeds of the second search for copies when document pairs are given
/// ([`AlignParams::second_seed_similarity`]): a listed pair where the first
/// search aligned nothing and no verbatim run is shared holds its copy, if it
/// holds one, in sentences alike below [`LISTED_OBFUSCATED_SEED_SIMILARITY`].
/// Searched so only where the first search found nothing, lower seeds cannot
/// carry a passage found there a sentence too far; with 0.2 for every pair
/// without a verbatim run pan13-ta-train lost 0.0011 (precision 0.9574 ->
/// 0.9480). Measured 2026-11-29 against none: pan13-ta-train 0.9346 ->
/// 0.9365 (random 0.9275 -> 0.9306, translation 0.9122 -> 0.9152, summary
/// 0.8217 -> 0.8244; one more detection in its 1000 pairs without
/// plagiarism), Clough's answers unchanged; at 0.15, 0.9366 with three more
/// detections in the pairs without plagiarism. Full search makes none: in
/// strong candidate regions a second search at 0.2 took 0.006 and 0.010
/// from the King James Bible corpus (seeds 2026 and 2028), 0.025 from the
/// Japanese corpus and 0.002 from the independent one, for 0.0015 on
/// pan13-ta-train.
pub const LISTED_PAIRS_SECOND_SEED_SIMILARITY: f64 = 0.2;

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

/// Least tf-idf cosine and Dice of the seeds of a document mapped from
/// another language ([`AlignParams::for_translated`]): on
/// `xlang-dev-europarl` with the pairs given, 0.10, 0.15 and 0.20 gave
/// plagdet 0.69, 0.69 and 0.62 (es) and 0.90, 0.89 and 0.91 (fr), precision
/// at least 0.99 throughout.
pub const TRANSLATED_SEED_SIMILARITY: f64 = 0.15;

/// Least tf-idf cosine between the sides of a passage of a document mapped
/// from another language: 0.15, 0.2 and 0.25 gave es plagdet 0.69, 0.69 and
/// 0.59 with the pairs given, and 0.5 found nothing.
pub const TRANSLATED_MIN_PASSAGE_COSINE: f64 = 0.2;

/// Candidate chunks (and content chunks) a source must share with a document
/// mapped from another language: few of its candidate chunks survive
/// translation (full search on `xlang-dev-europarl`: plagdet es 0 → 0.41,
/// fr 0.18 → 0.45 from 3 and 2 to 1).
pub const TRANSLATED_CANDIDATE_MIN_COMMON: usize = 1;

/// A candidate region of a document mapped from another language is aligned
/// with the thresholds of given pairs from this share of shared chunks on
/// (full search: es 0.41 → 0.56, fr 0.45 → 0.59).
pub const TRANSLATED_STRONG_CANDIDATE_SHARE: f64 = 0.01;

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
    pub fn hit_budget(&self) -> crate::matching::search::HitBudget {
        crate::matching::search::HitBudget {
            max_postings: self.candidate_max_postings,
            per_chunk: self.candidate_hits_per_chunk,
        }
    }

    /// The thresholds for a candidate region whose largest interval of shared
    /// candidate chunks holds `share` of the suspicious document's content
    /// chunks. When it is strong ([`AlignParams::strong_candidate_share`]),
    /// those of given pairs, but a passage that nothing corroborates must also
    /// pass those of full search ([`AlignParams::uncorroborated`]), and from
    /// [`AlignParams::strong_candidate_summary_share`] on it may be a summary;
    /// from [`AlignParams::given_candidate_share`] on, those of given pairs
    /// but for the rare-term share of full search, which keeps formulaic text
    /// apart. None makes the given pairs' second search for copies
    /// ([`LISTED_PAIRS_SECOND_SEED_SIMILARITY`]).
    pub fn for_candidate(&self, share: f64) -> AlignParams {
        if share < self.strong_candidate_share {
            return *self;
        }
        let given = AlignParams {
            min_rare_share: self.min_rare_share,
            second_seed_similarity: self.second_seed_similarity,
            ..self.for_listed_pairs()
        };
        if share >= self.given_candidate_share {
            return given;
        }
        let summaries = share >= self.strong_candidate_summary_share;
        AlignParams {
            summary_seed_similarity: if summaries {
                given.summary_seed_similarity
            } else {
                self.summary_seed_similarity
            },
            min_rare_share: LISTED_PAIRS_MIN_RARE_SHARE,
            uncorroborated: Some(self.full_search_thresholds()),
            ..given
        }
    }

    /// The thresholds for a candidate region that may hold a summary of its
    /// whole source ([`crate::passages`]' summary regions): full search's,
    /// with the given pairs' second, low-seed search for summaries.
    pub fn for_summary_region(&self) -> AlignParams {
        AlignParams { summary_seed_similarity: LISTED_PAIRS_SUMMARY_SEED_SIMILARITY, ..*self }
    }

    /// The thresholds for a candidate region that only word chunks found, in
    /// any order ([`AlignParams::unordered_min_chunks`]): nothing in order
    /// is shared there, and only a copy whose sides hold each other's words
    /// as a reordered copy's do ([`UNORDERED_REGION_MIN_SHARE`]) is taken;
    /// formulaic texts share their scaffolding's words too.
    pub fn for_unordered_region(&self) -> AlignParams {
        AlignParams { unordered_min_share: self.unordered_min_share.max(UNORDERED_REGION_MIN_SHARE), ..*self }
    }

    /// The thresholds for a candidate region that only pair chunks found
    /// ([`DEFAULT_PAIR_WORDS`]): every passage must pass full search's, with
    /// a larger share of rare terms ([`PAIR_MIN_RARE_SHARE`]), and one that
    /// passes only the given pairs' lower thresholds may be a passage where
    /// the document copies
    /// ([`crate::align::filter::Verdict::IfTheDocumentCopies`]); it is
    /// seeded as given pairs are, and makes no summary. Held back in this
    /// way rather than dropped (2026-11-27): pan13-ta-train's full search
    /// 0.8728 -> 0.8778 (random 0.8468 -> 0.8542, translation 0.8299 ->
    /// 0.8392), the Bible corpus 0.8574 -> 0.8565, dev-en unchanged.
    pub fn for_pair_region(&self) -> AlignParams {
        let strict = self.full_search_thresholds();
        AlignParams {
            summary_seed_similarity: self.summary_seed_similarity,
            second_seed_similarity: self.second_seed_similarity,
            min_rare_share: LISTED_PAIRS_MIN_RARE_SHARE,
            uncorroborated: Some(Uncorroborated {
                min_rare_share: strict.min_rare_share.max(PAIR_MIN_RARE_SHARE as f32),
                corroborating_seeds: u32::MAX,
                ..strict
            }),
            ..self.for_listed_pairs()
        }
    }

    /// Full search's passage thresholds, as those a passage that nothing
    /// corroborates must pass.
    fn full_search_thresholds(&self) -> Uncorroborated {
        Uncorroborated {
            min_chars: self.min_passage_chars,
            min_pair_overlap: self.min_pair_overlap as f32,
            min_rare_share: self.min_rare_share as f32,
            corroborating_seeds: CORROBORATING_SEEDS,
        }
    }

    /// Whether passages must share rare terms ([`AlignParams::min_rare_share`]),
    /// or those that nothing corroborates must ([`AlignParams::uncorroborated`]):
    /// full search, where formulaic text is kept apart.
    pub fn asks_rare_terms(&self) -> bool {
        self.min_rare_share > 0.0 || self.uncorroborated.is_some_and(|strict| strict.min_rare_share > 0.0)
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
    /// [`LISTED_PAIRS_SECOND_SEED_SIMILARITY`], [`LISTED_PAIRS_SUMMARY_SEED_SIMILARITY`],
    /// [`LISTED_PAIRS_MIN_RARE_SHARE`]).
    /// Those of a document mapped from another language keep its own
    /// thresholds ([`AlignParams::translated`]).
    pub fn for_listed_pairs(self) -> AlignParams {
        let listed = AlignParams {
            min_passage_chars: LISTED_PAIRS_MIN_PASSAGE_CHARS,
            min_pair_overlap: LISTED_PAIRS_MIN_PAIR_OVERLAP,
            seed_cosine: LISTED_PAIRS_SEED_SIMILARITY,
            seed_dice: LISTED_PAIRS_SEED_SIMILARITY,
            min_passage_cosine: LISTED_PAIRS_MIN_PASSAGE_COSINE,
            obfuscated_seed_similarity: Some(LISTED_OBFUSCATED_SEED_SIMILARITY),
            obfuscated_min_pair_overlap: Some(LISTED_OBFUSCATED_MIN_PAIR_OVERLAP),
            second_seed_similarity: LISTED_PAIRS_SECOND_SEED_SIMILARITY,
            summary_seed_similarity: LISTED_PAIRS_SUMMARY_SEED_SIMILARITY,
            min_rare_share: LISTED_PAIRS_MIN_RARE_SHARE,
            ..self
        };
        listed.with_translated_thresholds()
    }

    /// The parameters for a suspicious document mapped into the sources'
    /// `language` ([`crate::analysis::translate`]), in full search and with
    /// the pairs given alike: its words and the sources' are stemmed with
    /// that language's stemmer, as a translation inflects words otherwise
    /// than the source does; a mapped word meets its source word less often
    /// than a copied one, and never in the source's order, so seeds, passages
    /// and candidates take the thresholds of [`TRANSLATED_SEED_SIMILARITY`],
    /// [`TRANSLATED_MIN_PASSAGE_COSINE`], [`TRANSLATED_CANDIDATE_MIN_COMMON`]
    /// and [`TRANSLATED_STRONG_CANDIDATE_SHARE`], and neither nearby word
    /// pairs nor rare words need be shared.
    pub fn for_translated(self, language: Language) -> AlignParams {
        let translated = AlignParams {
            language: LanguageSetting::Fixed(language),
            candidate_min_common: TRANSLATED_CANDIDATE_MIN_COMMON,
            candidate_min_content: TRANSLATED_CANDIDATE_MIN_COMMON,
            strong_candidate_share: TRANSLATED_STRONG_CANDIDATE_SHARE,
            translated: true,
            ..self
        };
        translated.with_translated_thresholds()
    }

    /// These parameters with the seed, passage, word-pair and rare-term
    /// thresholds of a document mapped from another language, when they are
    /// its ([`AlignParams::translated`]). Every region's thresholds are
    /// derived through [`for_listed_pairs`](Self::for_listed_pairs), which
    /// keeps them: a strong candidate region of a mapped document took the
    /// thresholds of a given pair of copies (seeds 0.28, passages 0.38),
    /// stricter than its own, and lost what the pairs given found (full
    /// search on `xlang-dev-europarl`: es 0.57 -> 0.70, fr 0.58 -> 0.80).
    fn with_translated_thresholds(self) -> AlignParams {
        if !self.translated {
            return self;
        }
        AlignParams {
            seed_cosine: TRANSLATED_SEED_SIMILARITY,
            seed_dice: TRANSLATED_SEED_SIMILARITY,
            obfuscated_seed_similarity: Some(TRANSLATED_SEED_SIMILARITY),
            second_seed_similarity: TRANSLATED_SEED_SIMILARITY,
            min_passage_cosine: TRANSLATED_MIN_PASSAGE_COSINE,
            min_pair_overlap: 0.0,
            min_rare_share: 0.0,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn strong_candidates_take_the_thresholds_of_given_pairs_where_corroborated() {
        let params = AlignParams::default();
        assert_eq!(params.for_candidate(0.0), params);
        assert_eq!(params.for_candidate(DEFAULT_STRONG_CANDIDATE_SHARE / 2.0), params);
        let listed = params.for_listed_pairs();
        let strong = params.for_candidate(DEFAULT_STRONG_CANDIDATE_SHARE);
        assert_eq!(strong.summary_seed_similarity, params.summary_seed_similarity);
        let strict = Uncorroborated {
            min_chars: 250,
            min_pair_overlap: 0.35,
            min_rare_share: 0.15,
            corroborating_seeds: CORROBORATING_SEEDS,
        };
        assert_eq!(strong.uncorroborated, Some(strict), "full search's thresholds where nothing corroborates");
        assert_eq!(strong.second_seed_similarity, 0.0, "no second search for copies in full search");
        let restored = AlignParams {
            summary_seed_similarity: listed.summary_seed_similarity,
            second_seed_similarity: listed.second_seed_similarity,
            uncorroborated: None,
            ..strong
        };
        assert_eq!(restored, listed, "otherwise those of given pairs");
        let given = params.for_candidate(DEFAULT_GIVEN_CANDIDATE_SHARE);
        assert_eq!(given.summary_seed_similarity, LISTED_PAIRS_SUMMARY_SEED_SIMILARITY);
        assert_eq!(
            given,
            AlignParams { min_rare_share: DEFAULT_MIN_RARE_SHARE, second_seed_similarity: 0.0, ..listed },
            "rare terms shared, no second search for copies"
        );
        assert_eq!(listed.for_candidate(0.0), listed);
        let never = AlignParams { strong_candidate_share: 2.0, ..params };
        assert_eq!(never.for_candidate(1.0), never);
        let summaries = AlignParams { strong_candidate_summary_share: 0.005, ..params }.for_candidate(0.005);
        assert_eq!(summaries.summary_seed_similarity, LISTED_PAIRS_SUMMARY_SEED_SIMILARITY);
        assert!(summaries.uncorroborated.is_some());
        assert!(params.asks_rare_terms() && strong.asks_rare_terms() && given.asks_rare_terms());
        assert!(!listed.asks_rare_terms());
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
        assert!(listed.second_seed_similarity > 0.0 && full_search.second_seed_similarity == 0.0);
        assert!(listed.second_seed_similarity < LISTED_OBFUSCATED_SEED_SIMILARITY);
        assert!(listed.min_rare_share == 0.0 && full_search.min_rare_share > 0.0);
        assert_eq!((full_search.obfuscated_seed_similarity, full_search.obfuscated_min_pair_overlap), (None, None));
        let restored = AlignParams {
            min_passage_chars: full_search.min_passage_chars,
            min_pair_overlap: full_search.min_pair_overlap,
            seed_cosine: full_search.seed_cosine,
            seed_dice: full_search.seed_dice,
            min_passage_cosine: full_search.min_passage_cosine,
            summary_seed_similarity: full_search.summary_seed_similarity,
            second_seed_similarity: full_search.second_seed_similarity,
            min_rare_share: full_search.min_rare_share,
            obfuscated_seed_similarity: None,
            obfuscated_min_pair_overlap: None,
            ..listed
        };
        assert_eq!(restored, full_search);
    }

    #[test]
    fn regions_found_by_pair_chunks_alone_pass_full_search_with_more_rare_terms_or_are_held_back() {
        let full_search = AlignParams::default();
        let pairs_only = full_search.for_pair_region();
        let strict = pairs_only.uncorroborated.expect("every passage must pass the stricter thresholds");
        assert_eq!(strict.corroborating_seeds, u32::MAX, "no seeds corroborate a passage");
        assert_eq!(strict.min_rare_share, PAIR_MIN_RARE_SHARE as f32);
        assert_eq!((strict.min_chars, strict.min_pair_overlap), (250, full_search.min_pair_overlap as f32));
        let listed = full_search.for_listed_pairs();
        assert_eq!(
            (pairs_only.seed_cosine, pairs_only.min_passage_chars),
            (listed.seed_cosine, listed.min_passage_chars)
        );
        assert_eq!(pairs_only.summary_seed_similarity, 0.0, "no summary");
        assert_eq!(pairs_only.second_seed_similarity, 0.0, "no second search for copies");
        assert_eq!(full_search.pair_words, DEFAULT_PAIR_WORDS);
    }

    #[test]
    fn regions_of_a_translated_document_keep_its_thresholds() {
        let translated = AlignParams::default().for_translated(Language::English);
        let own =
            |p: &AlignParams| (p.seed_cosine, p.obfuscated_seed_similarity, p.min_passage_cosine, p.min_pair_overlap);
        let expected =
            (TRANSLATED_SEED_SIMILARITY, Some(TRANSLATED_SEED_SIMILARITY), TRANSLATED_MIN_PASSAGE_COSINE, 0.0);
        assert_eq!(own(&translated), expected);
        for share in [TRANSLATED_STRONG_CANDIDATE_SHARE, DEFAULT_STRONG_CANDIDATE_SUMMARY_SHARE, 0.5] {
            let strong = translated.for_candidate(share);
            assert_eq!(own(&strong), expected, "a strong region at {share}");
            assert_eq!(strong.min_rare_share, 0.0);
        }
        assert_eq!(own(&translated.for_pair_region()), expected, "a region of pair chunks");
        assert_eq!(own(&AlignParams::default().for_listed_pairs().for_translated(Language::English)), expected);
        assert_eq!(own(&translated.for_listed_pairs()), expected, "given pairs");
        let copies = AlignParams::default().for_candidate(0.5);
        assert_eq!(copies.seed_cosine, LISTED_PAIRS_SEED_SIMILARITY, "other documents' regions are unchanged");
    }
}
