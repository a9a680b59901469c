//! The parameters of a detection run: one value per stage, the presets, and
//! their validation.
//!
//! The defaults are those of Kasprzak, Brandejs and Křipač, "Finding Plagiarism by
//! Evaluating Document Similarities" (PAN'09, SEPLN 2009) and "Computing
//! Similarity on a Large Scale" (ITA'09): 5-word sorted chunks hashed with MD5,
//! 20 common chunks per candidate document pair, valid intervals of at least 20
//! matching chunks with gaps of at most 49, checked on both documents.

use crate::align::Aligner;
use crate::align::params::AlignParams;
use crate::align::stock::StockPhrases;
use crate::analysis::candidates::CandidateWords;
use crate::analysis::chunk::{ChunkHash, ChunkParams, HASH_BITS_RANGE, MAX_CHUNK_WORDS};
use crate::analysis::code::CodeDefaults;
use crate::analysis::document::{AnalysisParams, CandidateChunks};
use crate::analysis::function_words::{CollectionSample, FunctionWords};
use crate::analysis::read::{DocumentFile, TextReader};
use crate::analysis::synonyms::Synonyms;
use crate::analysis::tokenize::{CHARS_RANGE, TokenizerKind, TokenizerParams, Tokens};
use crate::error::ParamError;
use crate::matching::intervals::IntervalParams;
use crate::matching::overlap::OverlapPolicy;
use crate::matching::search::DEFAULT_MIN_COMMON;

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
    /// Tokenizer settings. With a tokenizer other than words, `align` is
    /// `None` (see [`DetectParams::with_tokenizer`]).
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
    /// How documents are analysed: the paper's chunks, or the candidate
    /// chunks of the alignment stage (sorted, hashed with XXH3), with
    /// `synonyms` counted as one word.
    pub fn analysis<'a>(&self, synonyms: Option<&'a Synonyms>) -> AnalysisParams<'a> {
        let Some(align) = &self.align else {
            return AnalysisParams::words(self.tokenizer, self.chunks);
        };
        let chunks = ChunkParams { words: align.candidate_words, sorted: true, hash: ChunkHash::Xxh3, ..self.chunks };
        let candidates = CandidateChunks {
            prefix: align.candidate_prefix,
            structure_words: align.structure_words,
            synonyms,
            function_words: align.function_words,
            word_chunks: align.unordered_min_chunks > 0,
        };
        AnalysisParams { tokenizer: self.tokenizer, chunks, candidates: Some(candidates), translator: None }
    }

    /// These parameters without word chunks
    /// ([`AlignParams::unordered_min_chunks`] 0), as the archive's index and
    /// the duplicate extraction chunk documents.
    pub fn without_word_chunks(&self) -> DetectParams {
        let align = self.align.map(|align| AlignParams { unordered_min_chunks: 0, ..align });
        DetectParams { align, ..*self }
    }

    /// The sample of the collection of `files` (sorted by name, read with
    /// `reader`) that the alignment stage derives the collection's function
    /// words and stock phrases from ([`CollectionSample::read`]); empty,
    /// and nothing read, without the alignment stage.
    pub fn collection_sample<'f>(
        &self,
        files: impl IntoIterator<Item = &'f DocumentFile>,
        reader: TextReader<'_>,
    ) -> CollectionSample {
        match self.align {
            Some(_) => CollectionSample::read(files, reader),
            None => CollectionSample::default(),
        }
    }

    /// These parameters with the function words of the collection that
    /// `sample` was read from ([`FunctionWords::of_sample`]) left out of the
    /// candidate chunks; unchanged without the alignment stage.
    pub fn with_function_words_of(&self, sample: &CollectionSample) -> DetectParams {
        let Some(align) = self.align else { return *self };
        let candidate_words = CandidateWords::new(align.candidate_prefix, self.tokenizer.min_word_len, None);
        let counts = |tokens: &Tokens, seq: usize| candidate_words.keeps_but_for_function_words(tokens, seq);
        let function_words = FunctionWords::of_sample(sample, self.tokenizer, counts);
        DetectParams { align: Some(AlignParams { function_words, ..align }), ..*self }
    }

    /// These parameters with the function words of the collection of `files`
    /// (sorted by name, read with `reader`), and that collection's stock
    /// phrases with `synonyms`: what a run against those sources aligns with.
    /// The sample is read once, and only with the alignment stage.
    pub fn for_collection<'f>(
        &self,
        files: impl IntoIterator<Item = &'f DocumentFile>,
        reader: TextReader<'_>,
        synonyms: Option<&Synonyms>,
    ) -> (DetectParams, Option<StockPhrases>) {
        let sample = self.collection_sample(files, reader);
        let params = self.with_function_words_of(&sample);
        let stock = params.stock_phrases_of(&sample, synonyms);
        (params, stock)
    }

    /// The stock phrases of the collection that `sample` was read from, its
    /// texts cut into terms as these parameters' aligner cuts them, with
    /// `synonyms` ([`StockPhrases::of_sample`]); `None` without the
    /// alignment stage.
    pub fn stock_phrases_of(&self, sample: &CollectionSample, synonyms: Option<&Synonyms>) -> Option<StockPhrases> {
        let align = self.align?;
        let aligner = || Aligner::new(self.tokenizer, align, synonyms);
        Some(StockPhrases::of_sample(sample, aligner, |aligner, text, out| aligner.analyse(text, out)))
    }

    /// These parameters with the tokenizer `kind` and its defaults.
    ///
    /// Words change nothing. Character n-grams and code tokens run the
    /// chunk method (valid intervals) whatever the preset: the alignment
    /// stage's candidate chunks drop stop words and keep word prefixes, and
    /// its sentences are bags of stemmed words, none of which mean anything
    /// for n-grams or code tokens; `best` with them is the chunk method with
    /// `best`'s overlap policy. Code tokens also take their own chunk and
    /// interval defaults ([`crate::analysis::code::CodeDefaults`]): chunks of
    /// code tokens in text order, since order is what code is made of.
    pub fn with_tokenizer(self, kind: TokenizerKind) -> Self {
        let mut params = DetectParams { tokenizer: TokenizerParams { kind, ..self.tokenizer }, ..self };
        if kind.is_words() {
            return params;
        }
        params.align = None;
        if kind == TokenizerKind::Code {
            let code = CodeDefaults::default();
            params.chunks.words = code.chunk_tokens;
            params.chunks.sorted = false;
            params.min_common = code.min_common;
            params.intervals.min_chunks = code.min_chunks;
            params.intervals.max_gap = code.max_gap;
        }
        params
    }

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

impl DetectParams {
    /// The parameters for suspicious documents mapped into the sources'
    /// `language` ([`AlignParams::for_translated`]).
    pub fn for_translated(&self, language: crate::analysis::stem::Language) -> DetectParams {
        DetectParams { align: self.align.map(|align| align.for_translated(language)), ..*self }
    }

    /// Checks every value once, so that later stages can rely on them.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check;
        check("--min-word-len", self.tokenizer.min_word_len as u64, 1..=64)?;
        if let TokenizerKind::Chars(n) = self.tokenizer.kind {
            check("--tokenizer chars:N", n as u64, *CHARS_RANGE.start() as u64..=*CHARS_RANGE.end() as u64)?;
        }
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
            check("--candidate-max-postings", align.candidate_max_postings as u64, 1..=u32::MAX as u64)?;
            check("--candidate-hits-per-chunk", align.candidate_hits_per_chunk as u64, 1..=u32::MAX as u64)?;
            ParamError::check_non_negative("--merge-gap-ratio", align.merge_gap_ratio)?;
            check("--structure-words", align.structure_words as u64, 0..=MAX_CHUNK_WORDS as u64)?;
            check("--pair-words", align.pair_words as u64, 0..=MAX_CHUNK_WORDS as u64)?;
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
    fn out_of_range_values_name_the_flag() {
        let mut params = DetectParams::default();
        params.chunks.hash_bits = 65;
        assert_eq!(params.validate().unwrap_err().to_string(), "--hash-bits 65 is out of range (expected 24..=64)");
        params.chunks.hash_bits = 24;
        params.chunks.words = 0;
        assert_eq!(params.validate().unwrap_err().flag, "--chunk-words");
    }

    #[test]
    fn best_refuses_values_that_would_silently_find_nothing() {
        let best = || DetectParams::preset(Preset::Best);
        let mut params = best();
        params.align.as_mut().unwrap().candidate_max_postings = 0;
        assert_eq!(params.validate().unwrap_err().flag, "--candidate-max-postings");
        let mut params = best();
        params.align.as_mut().unwrap().candidate_hits_per_chunk = 0;
        assert_eq!(params.validate().unwrap_err().flag, "--candidate-hits-per-chunk");
        for ratio in [f64::NAN, f64::INFINITY, -0.5] {
            let mut params = best();
            params.align.as_mut().unwrap().merge_gap_ratio = ratio;
            assert_eq!(params.validate().unwrap_err().flag, "--merge-gap-ratio", "{ratio}");
        }
    }
}
