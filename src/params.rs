//! The knobs of every stage, their defaults, and their validation.
//!
//! The defaults are those of Kasprzak, Brandejs and Křipač, "Finding Plagiarism by
//! Evaluating Document Similarities" (PAN'09, SEPLN 2009) and "Computing
//! Similarity on a Large Scale" (ITA'09): 5-word sorted chunks hashed with MD5,
//! 20 common chunks per candidate document pair, valid intervals of at least 20
//! matching chunks with gaps of at most 49, checked on both documents.

use std::fmt;

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
    /// Words with fewer characters (after folding) are ignored.
    pub min_word_len: usize,
}

/// How words are grouped into hashed chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkParams {
    /// Words per chunk.
    pub words: usize,
    /// Sort the words inside a chunk before hashing (defeats word swaps).
    pub sorted: bool,
    /// Bits of MD5 kept as the hash.
    pub hash_bits: u32,
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
    /// Keep every passage (archive mode).
    KeepAll,
}

/// Every parameter of a detection run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

impl Default for TokenizerParams {
    fn default() -> Self {
        TokenizerParams { digits: DEFAULT_DIGITS, min_word_len: DEFAULT_MIN_WORD_LEN }
    }
}

impl Default for ChunkParams {
    fn default() -> Self {
        ChunkParams { words: DEFAULT_CHUNK_WORDS, sorted: true, hash_bits: DEFAULT_HASH_BITS }
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
    fn out_of_range_values_name_the_flag() {
        let mut params = DetectParams::default();
        params.chunks.hash_bits = 65;
        assert_eq!(params.validate().unwrap_err().to_string(), "--hash-bits 65 is out of range (expected 24..=64)");
        params.chunks.hash_bits = 24;
        params.chunks.words = 0;
        assert_eq!(params.validate().unwrap_err().flag, "--chunk-words");
    }
}
