//! The on-disk format of an archive index.
//!
//! ```text
//! IDX/
//!   CURRENT                name of the live generation, e.g. "gen-000003\n"
//!   LOCK                   empty; locked while `index create` or `update` writes
//!   gen-000003/
//!     header.json          magic, format version, settings, counts, and each
//!                          file's length and CRC-32
//!     docs.bin             the document table, one 72-byte record per id
//!     names.bin            document names (UTF-8), concatenated
//!     segment-000001.postings   one segment per generation that added
//!     segment-000001.directory  documents (or merged segments): the
//!     segment-000003.postings   postings of its documents and their
//!     ...                       bucket directory
//! ```
//!
//! The index holds no chunk list (the chunk hashes of a document in sequence
//! order and their character ranges): they took about 1.6 times the text,
//! four times the postings. What needs one (a check's passages, the
//! alignment, `extract`) analyses the document's text again, read back from
//! the documents directory or the index's cache of extracted texts and
//! checked against the recorded content hash ([`super::reader`]), with the
//! index's settings, which give the chunks the index was built from. A
//! generation being written keeps the chunk lists of the documents it
//! analysed in two scratch files (`segment-N.hashes` and `segment-N.ranges`)
//! until its similarity table is computed, and removes them before its
//! header is written: creating an index does not analyse its documents twice.
//!
//! A segment's postings are one per occurrence of a chunk in a document (a
//! chunk a document holds twice has two equal postings), taboo chunks left
//! out, sorted by (hash, document): the hash's bits below the directory's (the "residue",
//! 0 to 7 bytes) and the document id (as few bytes as the largest id needs, 1
//! to 4). Its directory holds (2^directory_bits + 1) offsets, u32 (u64 beyond
//! 2^32 postings): where each bucket of postings starts, buckets keyed by the
//! hash's top bits.
//!
//! Segments are never rewritten, as in Lucene and tantivy: an update writes
//! one new segment for the documents it adds or changes and hard-links the
//! others. A posting is live when its document's record names its segment:
//! a deleted document's record is freed (its postings become tombstones, left
//! where they are), and a changed document's record names the new segment. A
//! recycled id is safe the same way: the old postings of the id are in
//! another segment than its record names. Merging (the merge policy of `index
//! update`, or `index merge`) copies the live postings of several segments
//! into one new segment and drops the tombstones.
//!
//! ```text
//! IDX/gen-000003/ (continued)
//!     taboo.bin            the taboo set, when there is one: chunk hashes of
//!                          texts whose passages are never reported (u32, or
//!                          u64 above 32 hash bits), sorted ([`super::taboo`])
//!     similarity.sqlite    the similarity table of the generation's documents,
//!                          an SQLite database ([`super::table`])
//! ```
//!
//! Every integer is little-endian. The arrays are read in place through a memory
//! map ([`super::reader`]); only the header is parsed. A posting names a
//! document, not a chunk position: where the chunk occurs comes from the
//! document's analysis, made only for the few documents a check reports.
//!
//! An update writes a complete new generation beside the live one and replaces
//! `CURRENT` with one rename, which is the commit: until then readers and
//! crashes see the old generation. One writer at a time: `create` and `update`
//! hold an exclusive lock on `LOCK` ([`WriterLock`]) and a second one fails at
//! once, instead of writing the same next generation. Segments are
//! immutable: a new generation hard-links the segments it keeps. The similarity table is the one file an update modifies
//! rather than rewrites: it is copied (never linked, which would change the
//! live generation's file under its readers) into the new generation and
//! changed there, so it too commits with the rename of `CURRENT`.
//!
//! The header's CRC-32 of each file is what `--verify` checks (the small
//! `names.bin` is checked on every opening: a damaged name would attribute
//! passages to another document), and what an update checks before it carries a file's bytes into a new generation
//! ([`update`](mod@super::update)): a linked segment keeps its old entry, a
//! compacted one gets the CRC-32 of the bytes copied, so an unchecked carry
//! would pass damage on, in the second case under a checksum that matches.
//! With the cargo feature `failpoints`, the generation writer, the commit and
//! the file writers hold the crash points of the crash tests
//! ([`super::failpoints`]).

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ArchiveError;
use super::failpoints::crash_point;
use crate::align::params::AlignParams;
use crate::align::stock::StockPhrases;
use crate::analysis::chunk::{ChunkHash, ChunkParams};
use crate::analysis::document::AnalysisParams;
use crate::analysis::function_words::{CollectionSample, FunctionWords};
use crate::analysis::tokenize::{TokenizerKind, TokenizerParams};
use crate::detect::params::{DetectParams, Preset};
use crate::matching::index::KeyWidth;
use crate::report::output::write_atomically;

/// The header's `magic` value.
pub const MAGIC: &str = "pan-detect archive index";
/// The format version this build writes. Version 2 added the taboo set,
/// version 3 the `best` preset's candidate chunks (`Settings::candidates`)
/// and the structure chunks of a document record, version 4 the similarity
/// table (`Header::similarity`), version 5 the postings per segment (one
/// postings file for the whole index before), version 6 the tokenizer
/// (`Settings::tokenizer`; absent, as in version 5, means words) and
/// interleaved chunks (`Settings::interleaved`; absent means contiguous),
/// version 7 the collection's function words of a `best` index
/// (`CandidateSettings::function_words`; absent means none), version 8 left
/// the chunk lists out (a segment is its postings), version 9 hashes the
/// candidate chunks of a `best` index from the hashes of their words
/// ([`ChunkHash::Xxh3`]), version 10 the collection's stock phrases of a
/// `best` index (`Header::stock_phrases`; absent means none).
pub const FORMAT_VERSION: u32 = 10;
/// The oldest format version this build reads: an index of version 7 or
/// older keeps chunk lists in its segments, which this build neither reads
/// nor carries into a new generation; `index create` makes it again.
pub const OLDEST_FORMAT_VERSION: u32 = 8;
/// The oldest format version of a `best` index this build reads: the
/// candidate chunks of an older one were hashed otherwise.
pub const OLDEST_CANDIDATES_FORMAT_VERSION: u32 = 9;
/// The file naming the live generation.
pub const CURRENT: &str = "CURRENT";
/// The file locked by the one process writing to an index.
pub const LOCK: &str = "LOCK";
/// The header file of a generation.
pub const HEADER: &str = "header.json";
/// The document table.
pub const DOCS: &str = "docs.bin";
/// The document names.
pub const NAMES: &str = "names.bin";
/// The taboo set ([`super::taboo`]).
pub const TABOO: &str = "taboo.bin";
/// The directory of the texts extracted from PDF, DOCX and ODT
/// documents ([`crate::analysis::extract::cache`]), beside the generations:
/// written by `create` and `update`, read by `check` to align documents.
pub const TEXT_CACHE: &str = "text-cache";
/// The similarity table ([`super::table`]).
pub const SIMILARITY: &str = "similarity.sqlite";
/// The fixed body files, in the order the header lists them.
pub const BODY_FILES: [&str; 2] = [DOCS, NAMES];
/// Bytes of one record of `docs.bin`.
pub const DOC_RECORD_BYTES: usize = 72;
/// A document whose size and modification time are those recorded is taken as
/// unchanged without being read, unless it was modified less than this long
/// before the recording scan (the "racily clean" case of git: a change within
/// the same timestamp tick would not show).
pub const RACY_NS: u64 = 2_000_000_000;
/// Bytes of one chunk range in a generation's scratch chunk lists.
pub const RANGE_BYTES: usize = 8;

/// The file names of the scratch chunk lists of the documents generation
/// `generation`: hashes and ranges.
pub fn segment_names(generation: u64) -> (String, String) {
    (format!("segment-{generation:06}.hashes"), format!("segment-{generation:06}.ranges"))
}

/// The file names of the postings of the segment written by generation
/// `generation`: postings and directory.
pub fn postings_names(generation: u64) -> (String, String) {
    (format!("segment-{generation:06}.postings"), format!("segment-{generation:06}.directory"))
}

/// The tokenizer and chunker settings an index is built with; every document
/// of the archive and every checked file is chunked with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Digits count as word characters.
    pub digits: bool,
    /// Words shorter than this are ignored.
    pub min_word_len: usize,
    /// Words per chunk.
    pub chunk_words: usize,
    /// Words of a chunk are sorted before hashing.
    pub sorted: bool,
    /// Bits of MD5 (XXH3 for candidate chunks) kept as a chunk's hash.
    pub hash_bits: u32,
    /// The `best` preset's candidate chunks (`chunk_words` stop-word-free word
    /// prefixes, then function-word chunks) instead of the paper's chunks:
    /// `check` then aligns the candidate documents as `detect --preset best`
    /// does. `None` (the paper's chunks) in indexes before version 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<CandidateSettings>,
    /// What a token is (`--tokenizer`); absent (words) before version 6, and
    /// left out when it is words.
    #[serde(default, skip_serializing_if = "TokenizerKind::is_words")]
    pub tokenizer: TokenizerKind,
    /// Chunks of every other word (`--hashing interleaved`); absent
    /// (contiguous) before version 6, and left out when contiguous.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interleaved: bool,
}

/// The candidate chunks of an index made with the `best` preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CandidateSettings {
    /// Characters kept of each content word.
    pub prefix: usize,
    /// Function words per structure chunk (0: none).
    pub structure_words: usize,
    /// The collection's function words, left out of the candidate chunks
    /// ([`crate::analysis::function_words`]): derived from the documents when
    /// the index is created, and kept by every update. Absent (none) before
    /// version 7.
    #[serde(default, skip_serializing_if = "FunctionWords::is_empty")]
    pub function_words: FunctionWords,
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from_params(TokenizerParams::default(), ChunkParams::default())
    }
}

impl Settings {
    /// How the archive's documents are analysed: as `detect` analyses them
    /// with [`Settings::detect_params`].
    pub fn analysis(&self) -> AnalysisParams<'static> {
        self.detect_params().analysis(None)
    }

    /// The detector's parameters that find what `check` finds: the preset's,
    /// with this index's tokenizer and chunks.
    pub fn detect_params(&self) -> DetectParams {
        let preset = DetectParams::preset(self.preset()).with_tokenizer(self.tokenizer);
        let chunks = ChunkParams { hash_bits: self.hash_bits, interleaved: self.interleaved, ..preset.chunks };
        let align = preset.align.zip(self.candidates).map(|(align, candidates)| AlignParams {
            candidate_words: self.chunk_words,
            candidate_prefix: candidates.prefix,
            structure_words: candidates.structure_words,
            function_words: candidates.function_words,
            ..align
        });
        let params = match align {
            Some(_) => DetectParams { tokenizer: self.tokenizer(), chunks, align, ..preset },
            None => DetectParams { tokenizer: self.tokenizer(), chunks: self.chunks(), ..preset },
        };
        // The index has no word chunks (order-free candidates are for detect).
        params.without_word_chunks()
    }

    /// The preset the index was made with.
    pub fn preset(&self) -> Preset {
        if self.candidates.is_some() { Preset::Best } else { Preset::Pan09 }
    }

    /// Settings from the detector's parameter types (the paper's chunks).
    pub fn from_params(tokenizer: TokenizerParams, chunks: ChunkParams) -> Self {
        Settings {
            digits: tokenizer.digits,
            min_word_len: tokenizer.min_word_len,
            chunk_words: chunks.words,
            sorted: chunks.sorted,
            hash_bits: chunks.hash_bits,
            candidates: None,
            tokenizer: tokenizer.kind,
            interleaved: chunks.interleaved,
        }
    }

    /// The defaults of `preset`: the paper's chunks, or the candidate chunks
    /// of the alignment stage.
    pub fn of_preset(preset: Preset) -> Self {
        Settings::of_preset_and_tokenizer(preset, TokenizerKind::Words)
    }

    /// The defaults of `preset` with the tokenizer `kind` (and its defaults,
    /// [`DetectParams::with_tokenizer`]: the paper's chunks with any preset
    /// when `kind` is not words).
    pub fn of_preset_and_tokenizer(preset: Preset, kind: TokenizerKind) -> Self {
        let params = DetectParams::preset(preset).with_tokenizer(kind);
        let mut settings = Settings::from_params(params.tokenizer, params.chunks);
        if let Some(align) = params.align {
            settings.chunk_words = align.candidate_words;
            settings.candidates = Some(CandidateSettings {
                prefix: align.candidate_prefix,
                structure_words: align.structure_words,
                function_words: align.function_words,
            });
        }
        settings
    }

    /// These settings with the function words of the collection that
    /// `sample` was read from kept for the candidate chunks
    /// ([`FunctionWords::of_sample`]); unchanged without candidate chunks.
    pub fn with_function_words_of(&self, sample: &CollectionSample) -> Settings {
        let Some(candidates) = self.candidates else { return *self };
        let derived = self.detect_params().with_function_words_of(sample);
        let function_words = derived.align.map_or(FunctionWords::NONE, |align| align.function_words);
        Settings { candidates: Some(CandidateSettings { function_words, ..candidates }), ..*self }
    }

    /// The tokenizer parameters.
    pub fn tokenizer(&self) -> TokenizerParams {
        TokenizerParams { digits: self.digits, min_word_len: self.min_word_len, kind: self.tokenizer }
    }

    /// The chunker parameters (of the content chunks, with candidate chunks).
    pub fn chunks(&self) -> ChunkParams {
        let hash = if self.candidates.is_some() { ChunkHash::Xxh3 } else { ChunkHash::Md5 };
        ChunkParams {
            words: self.chunk_words,
            sorted: self.sorted,
            hash_bits: self.hash_bits,
            hash,
            interleaved: self.interleaved,
        }
    }

    /// Checks the values with the detector's validation.
    pub fn validate(&self) -> Result<(), ArchiveError> {
        self.detect_params().validate()?;
        Ok(())
    }

    /// Bytes of a stored hash: 4 for up to 32 bits, 8 above.
    pub fn key_bytes(&self) -> usize {
        KeyWidth::of(self.hash_bits).bytes()
    }
}

/// Settings given on the command line of a command that opens an existing
/// index: `None` takes the index's value, a value that differs is refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SettingsOverride {
    /// `--digits` / `--no-digits`.
    pub digits: Option<bool>,
    /// `--min-word-len`.
    pub min_word_len: Option<usize>,
    /// `--chunk-words`.
    pub chunk_words: Option<usize>,
    /// `--sort` / `--no-sort`.
    pub sorted: Option<bool>,
    /// `--hash-bits`.
    pub hash_bits: Option<u32>,
    /// `--preset`.
    pub preset: Option<Preset>,
    /// `--tokenizer`.
    pub tokenizer: Option<TokenizerKind>,
    /// `--hashing`: `Some(true)` for interleaved chunks.
    pub interleaved: Option<bool>,
}

impl SettingsOverride {
    /// The settings to create an index with: the given values, defaults for the others.
    pub fn or_defaults(&self) -> Settings {
        let tokenizer = self.tokenizer.unwrap_or_default();
        let d = Settings::of_preset_and_tokenizer(self.preset.unwrap_or(Preset::Pan09), tokenizer);
        Settings {
            digits: self.digits.unwrap_or(d.digits),
            min_word_len: self.min_word_len.unwrap_or(d.min_word_len),
            chunk_words: self.chunk_words.unwrap_or(d.chunk_words),
            sorted: self.sorted.unwrap_or(d.sorted),
            hash_bits: self.hash_bits.unwrap_or(d.hash_bits),
            candidates: d.candidates,
            tokenizer,
            interleaved: self.interleaved.unwrap_or(d.interleaved),
        }
    }

    /// Refuses a given value that differs from the index's `stored` settings.
    pub fn check_against(&self, stored: &Settings, index: &Path) -> Result<(), ArchiveError> {
        fn same<T: PartialEq + ToString>(
            flag: &'static str,
            given: Option<T>,
            stored: T,
            index: &Path,
        ) -> Result<(), ArchiveError> {
            match given {
                Some(given) if given != stored => Err(ArchiveError::SettingMismatch {
                    index: index.to_path_buf(),
                    flag,
                    given: given.to_string(),
                    stored: stored.to_string(),
                }),
                _ => Ok(()),
            }
        }
        same("--digits", self.digits, stored.digits, index)?;
        same("--min-word-len", self.min_word_len, stored.min_word_len, index)?;
        same("--chunk-words", self.chunk_words, stored.chunk_words, index)?;
        same("--sort", self.sorted, stored.sorted, index)?;
        same("--hash-bits", self.hash_bits, stored.hash_bits, index)?;
        same("--tokenizer", self.tokenizer, stored.tokenizer, index)?;
        same("--hashing", self.interleaved.map(hashing_name), hashing_name(stored.interleaved), index)?;
        same("--preset", self.preset.map(preset_name), preset_name(stored.preset()), index)
    }
}

/// The name of a preset on the command line.
pub(crate) fn preset_name(preset: Preset) -> &'static str {
    match preset {
        Preset::Pan09 => "pan09",
        Preset::Best => "best",
    }
}

/// The `--hashing` value of interleaved or contiguous chunks.
pub fn hashing_name(interleaved: bool) -> &'static str {
    if interleaved { "interleaved" } else { "contiguous" }
}

/// One body file's name, length and checksum, as recorded in the header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// File name inside the generation directory.
    pub name: String,
    /// Length in bytes.
    pub bytes: u64,
    /// CRC-32 (IEEE) of the whole file.
    pub crc32: u32,
}

/// A segment: the postings of the documents one generation added (or
/// merged), and how many chunks those documents have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentEntry {
    /// The generation that wrote it (its file names).
    pub generation: u64,
    /// Chunks in the segment.
    pub chunks: u64,
    /// Chunks of live documents; the rest belongs to deleted documents.
    pub live_chunks: u64,
    /// The postings of its documents.
    pub postings: PostingsEntry,
}

/// The postings of a segment, as the header records them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PostingsEntry {
    /// Postings stored.
    pub count: u64,
    /// Postings of live documents whose record names this segment; the rest
    /// are tombstones.
    pub live: u64,
    /// Bits of the hash that index the directory.
    pub directory_bits: u32,
    /// Bytes of a document id in a posting (1 to 4).
    pub doc_bytes: u32,
    /// The postings file.
    pub file: FileEntry,
    /// The directory file.
    pub directory: FileEntry,
}

impl PostingsEntry {
    /// Bits of a hash stored in a posting (those below the directory's).
    pub fn residue_bits(&self, hash_bits: u32) -> u32 {
        hash_bits - self.directory_bits
    }

    /// Bytes of one posting: the residue, then the document id.
    pub fn posting_bytes(&self, hash_bits: u32) -> usize {
        residue_bytes(self.residue_bits(hash_bits)) + self.doc_bytes as usize
    }

    /// Checks the entry against the generation that wrote it and the hash
    /// width: file names, field ranges, and file lengths the counts imply.
    fn check(&self, generation: u64, hash_bits: u32) -> Result<(), String> {
        let (postings, directory) = postings_names(generation);
        if self.file.name != postings || self.directory.name != directory {
            return Err(format!("postings of segment {generation} are not named after it"));
        }
        if !(1..=hash_bits.min(32)).contains(&self.directory_bits) || !(1..=4).contains(&self.doc_bytes) {
            return Err(format!("postings of segment {generation}: layout out of range"));
        }
        let bytes = self.count.checked_mul(self.posting_bytes(hash_bits) as u64);
        let directory_bytes = ((1u64 << self.directory_bits) + 1) * directory_entry_bytes(self.count) as u64;
        if self.live > self.count || bytes != Some(self.file.bytes) || directory_bytes != self.directory.bytes {
            return Err(format!("postings of segment {generation}: counts and lengths disagree"));
        }
        Ok(())
    }
}

/// What the update that wrote a generation changed, for `similar --since-update`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// Names of documents added or modified, sorted.
    pub changed: Vec<String>,
    /// Names of documents deleted, sorted.
    pub deleted: Vec<String>,
    /// The update replaced the taboo set with a different one, which changes
    /// the similarities of every document.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub taboo_changed: bool,
}

/// The taboo set of a generation, as the header records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabooEntry {
    /// The taboo texts it was chunked from, as given on the command line.
    pub texts: Vec<String>,
    /// Distinct chunk hashes in the set.
    pub chunks: u64,
    /// [`TABOO`]: the hashes, sorted, 4 or 8 bytes each ([`Settings::key_bytes`]).
    pub file: FileEntry,
}

/// The similarity table of a generation, as the header records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimilarityEntry {
    /// A pair of documents is in the table (with a row each way) when one of
    /// them has at least this share of its distinct chunks in the other, in
    /// percent.
    pub min_percent: f64,
    /// Rows in the table.
    pub rows: u64,
    /// [`SIMILARITY`]: the SQLite database.
    pub file: FileEntry,
    /// The method its rows were computed with (a hash of the detector's
    /// parameters, [`super::similar::table_method`]); `None` in an index
    /// made before it was recorded. An update by a build whose method
    /// differs computes the whole table again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

/// The parsed `header.json` of a generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`MAGIC`].
    pub magic: String,
    /// [`OLDEST_FORMAT_VERSION`] to [`FORMAT_VERSION`] for the indexes this build reads.
    pub format_version: u32,
    /// The generation number (1 for `create`, +1 per update).
    pub generation: u64,
    /// Tokenizer and chunker settings.
    pub settings: Settings,
    /// The documents directory the index was built or last updated from
    /// (absolute); `check` reads archive documents from it for excerpts.
    pub docs_root: String,
    /// When the scan that wrote this generation listed the documents (ns since
    /// 1970): a document modified less than [`RACY_NS`] before it may change
    /// again without its modification time changing, and is hashed again.
    pub scanned_ns: u64,
    /// Live documents.
    pub documents: u64,
    /// Records in `docs.bin`: live documents plus free (recyclable) ids.
    pub id_slots: u64,
    /// Chunks of all live documents.
    pub chunks: u64,
    /// Live postings: distinct (chunk hash, document) pairs of live documents.
    pub postings: u64,
    /// The fixed body files with lengths and checksums, in [`BODY_FILES`] order.
    pub files: Vec<FileEntry>,
    /// The segments, oldest first; a document record names one by position.
    pub segments: Vec<SegmentEntry>,
    /// What the update that wrote this generation changed (`None` after `create`).
    pub last_update: Option<Changes>,
    /// The taboo set; `None` when the index has none (always in version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taboo: Option<TabooEntry>,
    /// The collection's stock phrases ([`crate::align::stock`]) of a `best`
    /// index: derived when the index is created, kept by every update that
    /// does not analyse every document again (the similarity table was
    /// computed with them), derived anew by one that does. `None` with the
    /// paper's chunks and in indexes before version 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stock_phrases: Option<StockPhrases>,
    /// The similarity table; `None` in indexes before version 4, whose next
    /// update builds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<SimilarityEntry>,
    /// CRC-32 of this header as written with this field left out, set by the
    /// writer: a flipped byte that leaves the JSON valid (in `docs_root`, say,
    /// which no body checksum covers) is found when the index is opened.
    /// `None` in headers written before it existed, which are not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_crc32: Option<u32>,
}

impl Header {
    /// The header as written, JSON with a final line break.
    fn to_text(&self) -> String {
        // Serializing a struct of plain fields cannot fail.
        serde_json::to_string_pretty(self).expect("header serializes") + "\n"
    }

    /// The CRC-32 of the header's text with `header_crc32` left out.
    fn own_crc32(&self) -> u32 {
        crc32fast::hash(Header { header_crc32: None, ..self.clone() }.to_text().as_bytes())
    }

    /// Writes the header, sealed with its CRC, as the `header.json` of the
    /// generation directory `dir`: tests give an index what another build
    /// would have written.
    #[cfg(test)]
    pub(crate) fn write_sealed(&self, dir: &Path) {
        let sealed = Header { header_crc32: Some(self.own_crc32()), ..self.clone() };
        fs::write(dir.join(HEADER), sealed.to_text()).unwrap();
    }

    /// The lengths the fixed body files must have according to the counts
    /// (`None` for the names, whose length only the header records).
    pub fn expected_lengths(&self) -> [Option<u64>; 2] {
        [Some(self.id_slots * DOC_RECORD_BYTES as u64), None]
    }

    /// Parses and checks a header's text: magic first, then version, then the
    /// fields, so that an old or foreign file gets the precise error.
    pub fn parse(text: &str, path: &Path) -> Result<Header, ArchiveError> {
        let corrupt = |message: String| ArchiveError::Corrupt { path: path.to_path_buf(), message };
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
        let magic = value.get("magic").and_then(|m| m.as_str()).unwrap_or("");
        if magic != MAGIC {
            return Err(ArchiveError::BadMagic { path: path.to_path_buf(), got: magic.chars().take(40).collect() });
        }
        let version = value.get("format_version").and_then(|v| v.as_u64()).unwrap_or(0);
        let candidates = value.get("settings").and_then(|s| s.get("candidates")).is_some_and(|c| !c.is_null());
        let oldest = if candidates { OLDEST_CANDIDATES_FORMAT_VERSION } else { OLDEST_FORMAT_VERSION };
        if !(u64::from(oldest)..=u64::from(FORMAT_VERSION)).contains(&version) {
            let got = u32::try_from(version).unwrap_or(u32::MAX);
            return Err(ArchiveError::Version { path: path.to_path_buf(), oldest, newest: FORMAT_VERSION, got });
        }
        let header: Header = serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
        if let Some(expected) = header.header_crc32
            && expected != header.own_crc32()
        {
            return Err(ArchiveError::ChecksumMismatch { path: path.to_path_buf(), expected, got: header.own_crc32() });
        }
        header.settings.validate().map_err(|e| corrupt(e.to_string()))?;
        // The counts come from the file: the lengths they imply must be
        // computable (expected_lengths multiplies without checking).
        if header.id_slots.checked_mul(DOC_RECORD_BYTES as u64).is_none() {
            return Err(corrupt(format!("{} document ids are more than a file can hold", header.id_slots)));
        }
        let names: Vec<&str> = header.files.iter().map(|f| f.name.as_str()).collect();
        if names != BODY_FILES {
            return Err(corrupt(format!("files {names:?}, expected {BODY_FILES:?}")));
        }
        let key_bytes = header.settings.key_bytes() as u64;
        for segment in &header.segments {
            if segment.live_chunks > segment.chunks {
                return Err(corrupt(format!("segment of generation {} is inconsistent", segment.generation)));
            }
            segment.postings.check(segment.generation, header.settings.hash_bits).map_err(corrupt)?;
        }
        if let Some(taboo) = &header.taboo
            && (taboo.file.name != TABOO || taboo.chunks.checked_mul(key_bytes) != Some(taboo.file.bytes))
        {
            return Err(corrupt(format!(
                "taboo set of {} chunks in {} bytes is inconsistent",
                taboo.chunks, taboo.file.bytes
            )));
        }
        if let Some(table) = &header.similarity
            && (table.file.name != SIMILARITY || !(0.0..=100.0).contains(&table.min_percent))
        {
            return Err(corrupt(format!(
                "similarity table {:?} of pairs from {} % is inconsistent",
                table.file.name, table.min_percent
            )));
        }
        Ok(header)
    }
}

/// Bytes that hold `bits` bits.
pub fn residue_bytes(bits: u32) -> usize {
    bits.div_ceil(8) as usize
}

/// Bytes of a directory entry: 4 while the postings fit 32-bit offsets, else 8.
pub fn directory_entry_bytes(postings: u64) -> usize {
    if postings <= u64::from(u32::MAX) { 4 } else { 8 }
}

/// Bytes of a document id in a posting: as few as hold the largest id of a
/// table of `id_slots` records (1 to 4).
pub fn doc_id_bytes(id_slots: u64) -> usize {
    let largest = id_slots.saturating_sub(1);
    residue_bytes(64 - largest.leading_zeros()).clamp(1, 4)
}

/// Bits of the postings directory: about eight postings per bucket, 2^8 to 2^24
/// buckets, never more bits than the hash has (as in [`crate::matching::index`]).
pub fn directory_bits(postings: u64, hash_bits: u32) -> u32 {
    let wanted = (postings / 8).max(1).ilog2();
    wanted.clamp(8, 24).min(hash_bits)
}

/// One record of the document table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DocRecord {
    /// Its postings: occurrences of chunks that are not taboo.
    pub postings: u32,
    /// Chunks of the document.
    pub chunk_count: u32,
    /// Distinct chunk hashes of the document (the denominator of similarity).
    pub distinct_chunks: u32,
    /// Position of the name in `names.bin`.
    pub name_start: u64,
    /// Bytes of the name.
    pub name_len: u32,
    /// False for a free id, whose other fields are zero.
    pub live: bool,
    /// XXH3-128 of the file's bytes (see [`crate::analysis::read::content_hash`]).
    pub content_hash: [u8; 16],
    /// Bytes of the file (below 4 GiB: longer files are not indexed).
    pub bytes: u64,
    /// Characters of the decoded text (0 before format version 3).
    pub chars: u32,
    /// The segment holding its postings (position in the header's list).
    pub segment: u32,
    /// Structure chunks after its content chunks (candidate chunks only;
    /// 0 before format version 3).
    pub structure_chunks: u32,
    /// The file's modification time when it was scanned (ns since 1970).
    pub modified_ns: u64,
}

impl DocRecord {
    /// Content chunks, those its analysis gives first (structure chunks follow).
    pub fn content_chunks(&self) -> u32 {
        self.chunk_count.saturating_sub(self.structure_chunks)
    }

    /// Characters of the decoded text: as counted when it was indexed, or, in an
    /// index before format version 3, which did not count them, those of
    /// `text()` (`None` when it cannot be read again).
    pub fn chars_or_count(&self, text: impl FnOnce() -> Option<String>) -> Option<u32> {
        match self.chars {
            0 => text().map(|text| text.chars().count() as u32),
            chars => Some(chars),
        }
    }

    /// The record's 72 bytes. Bytes 4 to 8 are zero (with bytes 0 to 4 they
    /// held the position of the document's chunk list before format version 8).
    pub fn encode(&self) -> [u8; DOC_RECORD_BYTES] {
        let mut out = [0u8; DOC_RECORD_BYTES];
        out[0..4].copy_from_slice(&self.postings.to_le_bytes());
        out[8..12].copy_from_slice(&self.chunk_count.to_le_bytes());
        out[12..16].copy_from_slice(&self.distinct_chunks.to_le_bytes());
        out[16..24].copy_from_slice(&self.name_start.to_le_bytes());
        out[24..28].copy_from_slice(&self.name_len.to_le_bytes());
        out[28..32].copy_from_slice(&u32::from(self.live).to_le_bytes());
        out[32..48].copy_from_slice(&self.content_hash);
        // Bytes fit 32 bits (longer files are skipped): the upper half of the
        // version-2 `bytes` field holds the characters.
        out[48..52].copy_from_slice(&u32::try_from(self.bytes).unwrap_or(u32::MAX).to_le_bytes());
        out[52..56].copy_from_slice(&self.chars.to_le_bytes());
        out[56..60].copy_from_slice(&self.segment.to_le_bytes());
        out[60..64].copy_from_slice(&self.structure_chunks.to_le_bytes());
        out[64..72].copy_from_slice(&self.modified_ns.to_le_bytes());
        out
    }

    /// Reads a record from its 72 bytes.
    pub fn decode(bytes: &[u8; DOC_RECORD_BYTES]) -> DocRecord {
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]));
        let mut content_hash = [0u8; 16];
        content_hash.copy_from_slice(&bytes[32..48]);
        DocRecord {
            postings: u32_at(0),
            chunk_count: u32_at(8),
            distinct_chunks: u32_at(12),
            name_start: u64_at(16),
            name_len: u32_at(24),
            live: u32_at(28) != 0,
            content_hash,
            bytes: u32_at(48).into(),
            chars: u32_at(52),
            segment: u32_at(56),
            structure_chunks: u32_at(60),
            modified_ns: u64_at(64),
        }
    }
}

/// Reads a little-endian unsigned integer of `len` (0 to 8) bytes: a stored
/// hash (4 or 8 bytes) or a posting's residue.
#[inline(always)]
pub fn read_key(bytes: &[u8], len: usize) -> u64 {
    match len {
        0 => 0,
        1 => u64::from(bytes[0]),
        2 => u64::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        3 => u64::from(bytes[0]) | u64::from(bytes[1]) << 8 | u64::from(bytes[2]) << 16,
        4 => u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
        _ => {
            let mut b = [0u8; 8];
            b[..len].copy_from_slice(&bytes[..len]);
            u64::from_le_bytes(b)
        }
    }
}

/// Reads a little-endian `u32` at `at`.
#[inline]
pub fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Bytes buffered by a [`FileWriter`] before they are checksummed and written:
/// large enough for the SIMD CRC and for few system calls.
const WRITE_BUFFER_BYTES: usize = 1 << 20;

/// A body file being written: buffered, counted and checksummed on the way.
pub(crate) struct FileWriter {
    name: String,
    path: PathBuf,
    file: File,
    buffer: Vec<u8>,
    crc: crc32fast::Hasher,
    bytes: u64,
}

impl FileWriter {
    /// Where the file is written.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    #[inline]
    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<(), ArchiveError> {
        if self.buffer.len() + bytes.len() > WRITE_BUFFER_BYTES {
            self.flush()?;
        }
        if bytes.len() >= WRITE_BUFFER_BYTES {
            self.crc.update(bytes);
            self.bytes += bytes.len() as u64;
            return self.file.write_all(bytes).map_err(ArchiveError::io(&self.path));
        }
        self.buffer.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ArchiveError> {
        self.crc.update(&self.buffer);
        self.bytes += self.buffer.len() as u64;
        self.file.write_all(&self.buffer).map_err(ArchiveError::io(&self.path))?;
        self.buffer.clear();
        Ok(())
    }

    /// Writes the low `len` bytes of `key`, little-endian.
    #[inline]
    pub(crate) fn write_key(&mut self, key: u64, len: usize) -> Result<(), ArchiveError> {
        self.write(&key.to_le_bytes()[..len])
    }

    pub(crate) fn write_u32(&mut self, value: u32) -> Result<(), ArchiveError> {
        self.write(&value.to_le_bytes())
    }
}

/// The exclusive right to write to an index directory, held from before the
/// old generation is read until after the commit; released when dropped (also
/// when the process dies, as the operating system drops the lock).
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Locks `index`'s `LOCK` file (created when missing), or fails at once
    /// with [`ArchiveError::Locked`] when another process holds it.
    pub fn acquire(index: &Path) -> Result<Self, ArchiveError> {
        let path = index.join(LOCK);
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(ArchiveError::io(&path))?;
        match file.try_lock() {
            Ok(()) => Ok(WriterLock { _file: file }),
            Err(fs::TryLockError::WouldBlock) => Err(ArchiveError::Locked(index.to_path_buf())),
            Err(fs::TryLockError::Error(source)) => Err(ArchiveError::Io { path, source }),
        }
    }
}

/// A generation directory being written. Files are fsynced as they are
/// finished; the header comes last; nothing is visible to readers until
/// [`commit`] switches `CURRENT` to it.
pub(crate) struct GenerationWriter {
    pub(crate) number: u64,
    pub(crate) dir: PathBuf,
    files: Vec<FileEntry>,
}

/// The directory name of generation `number`.
pub fn generation_name(number: u64) -> String {
    format!("gen-{number:06}")
}

/// The number of the generation directory `name`, when [`generation_name`]
/// gives exactly that name: `None` for `gen-2023`, `gen-backup` or any other
/// name that only looks alike.
pub fn generation_number(name: &str) -> Option<u64> {
    let number = name.strip_prefix("gen-")?.parse::<u64>().ok()?;
    (generation_name(number) == name).then_some(number)
}

impl GenerationWriter {
    /// Creates the directory of generation `number` in `index`, replacing what
    /// a crashed run may have left under that name (never the live generation,
    /// whose number is lower).
    pub(crate) fn create(index: &Path, number: u64) -> Result<Self, ArchiveError> {
        let dir = index.join(generation_name(number));
        if dir.exists() {
            fs::remove_dir_all(&dir).map_err(ArchiveError::io(&dir))?;
        }
        fs::create_dir_all(&dir).map_err(ArchiveError::io(&dir))?;
        crash_point!(GENERATION_CREATED);
        Ok(GenerationWriter { number, dir, files: Vec::new() })
    }

    pub(crate) fn file(&self, name: &str) -> Result<FileWriter, ArchiveError> {
        let path = self.dir.join(name);
        let file = File::create(&path).map_err(ArchiveError::io(&path))?;
        let buffer = Vec::with_capacity(WRITE_BUFFER_BYTES);
        Ok(FileWriter { name: name.to_string(), path, file, buffer, crc: crc32fast::Hasher::new(), bytes: 0 })
    }

    /// Flushes and fsyncs a finished file; returns its length and checksum.
    pub(crate) fn finish(&mut self, mut writer: FileWriter) -> Result<FileEntry, ArchiveError> {
        writer.flush()?;
        let FileWriter { name, path, file, crc, bytes, .. } = writer;
        file.sync_all().map_err(ArchiveError::io(&path))?;
        let entry = FileEntry { name, bytes, crc32: crc.finalize() };
        self.files.push(entry.clone());
        Ok(entry)
    }

    /// Flushes a finished scratch file, which is removed before the header is
    /// written: not fsynced (a crash leaves it in a generation that is never
    /// committed) and not among the generation's files.
    pub(crate) fn finish_scratch(&self, mut writer: FileWriter) -> Result<FileEntry, ArchiveError> {
        writer.flush()?;
        let FileWriter { name, crc, bytes, .. } = writer;
        Ok(FileEntry { name, bytes, crc32: crc.finalize() })
    }

    /// Puts an immutable file of another generation into this one: a hard
    /// link (no copy), or a copy where the filesystem has no hard links.
    pub(crate) fn link(&self, from_dir: &Path, name: &str) -> Result<(), ArchiveError> {
        let (from, to) = (from_dir.join(name), self.dir.join(name));
        if fs::hard_link(&from, &to).is_err() {
            fs::copy(&from, &to).map_err(ArchiveError::io(&to))?;
            File::open(&to).and_then(|f| f.sync_all()).map_err(ArchiveError::io(&to))?;
        }
        Ok(())
    }

    /// The fixed body files written, in the order the header lists them.
    pub(crate) fn fixed_files(&self) -> Vec<FileEntry> {
        BODY_FILES.iter().filter_map(|&name| self.files.iter().find(|f| f.name == name).cloned()).collect()
    }

    /// Writes the header (atomically) and fsyncs the generation directory.
    pub(crate) fn write_header(&self, header: &Header) -> Result<(), ArchiveError> {
        let path = self.dir.join(HEADER);
        let sealed = Header { header_crc32: Some(header.own_crc32()), ..header.clone() };
        write_atomically(&path, sealed.to_text().as_bytes()).map_err(ArchiveError::io(&path))?;
        sync_dir(&self.dir)?;
        crash_point!(HEADER_WRITTEN);
        Ok(())
    }
}

/// Makes generation `number` the live one: `CURRENT` is replaced by one rename
/// (see [`write_atomically`]) and the index directory is fsynced so that the
/// rename itself is durable. This is the commit of `create` and `update`.
pub(crate) fn commit(index: &Path, number: u64) -> Result<(), ArchiveError> {
    let path = index.join(CURRENT);
    write_atomically(&path, format!("{}\n", generation_name(number)).as_bytes()).map_err(ArchiveError::io(&path))?;
    sync_dir(index)?;
    crash_point!(COMMITTED);
    Ok(())
}

/// Fsyncs a directory, making the entries created or renamed in it durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), ArchiveError> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(ArchiveError::io(dir))
}

/// The live generation number named by `index/CURRENT`.
pub fn current_generation(index: &Path) -> Result<u64, ArchiveError> {
    let path = index.join(CURRENT);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ArchiveError::NotAnIndex(index.to_path_buf()));
        }
        Err(e) => return Err(ArchiveError::Io { path, source: e }),
    };
    generation_number(text.trim())
        .ok_or_else(|| ArchiveError::Corrupt { path, message: format!("expected gen-NNNNNN, got {:?}", text.trim()) })
}

/// Removes the generations of `index` other than the live one, `keep`: those
/// that earlier commits replaced and the one a killed run began. Best effort:
/// a failure only leaves garbage behind.
///
/// Only what the index wrote itself is removed, recognised by what it
/// recorded: generation numbers are given out one after another from 1 (a
/// run writes the one after the live one, as `CURRENT` names it), so the
/// index's own generations are the directories named exactly as
/// [`generation_name`] names a number up to `keep + 1`. Anything else in the
/// directory (`gen-backup/`, `gen-2023/`, `gen-9999999/`, a symbolic link, a
/// file) is not the index's and stays.
pub(crate) fn remove_other_generations(index: &Path, keep: u64) {
    let Ok(entries) = fs::read_dir(index) else { return };
    for entry in entries.flatten() {
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        let number = entry.file_name().to_str().and_then(generation_number);
        if is_dir && number.is_some_and(|number| number != keep && number <= keep.saturating_add(1)) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_is_done() {
        let dir = tempfile::tempdir().unwrap();
        let first = WriterLock::acquire(dir.path()).unwrap();
        let error = WriterLock::acquire(dir.path()).unwrap_err();
        assert!(matches!(error, ArchiveError::Locked(_)), "{error}");
        assert!(error.to_string().contains("another pan-detect process"), "{error}");
        drop(first);
        WriterLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn only_generations_the_index_numbered_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path();
        let own = ["gen-000001", "gen-000002", "gen-000004"];
        let foreign = ["gen-theses", "gen-2023", "gen-backup", "gen-00003", "gen-+00003", "gen-000005", "gen-1000000"];
        for name in own.iter().chain(&foreign) {
            fs::create_dir(index.join(name)).unwrap();
            fs::write(index.join(name).join("thesis.txt"), "text").unwrap();
        }
        fs::write(index.join("gen-000000"), "a file, not a generation").unwrap();
        std::os::unix::fs::symlink(index.join("gen-backup"), index.join("gen-000001-link")).unwrap();
        remove_other_generations(index, 3);
        let mut left: Vec<String> =
            fs::read_dir(index).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        let mut expected: Vec<&str> = foreign.into_iter().chain(["gen-000000", "gen-000001-link"]).collect();
        expected.sort();
        assert_eq!(left, expected);
        assert!(index.join("gen-backup/thesis.txt").exists());
        assert_eq!(generation_number("gen-000003"), Some(3));
        assert_eq!(generation_number("gen-1234567"), Some(1_234_567));
        assert_eq!(generation_number("gen-2023"), None);
    }

    #[test]
    fn doc_record_round_trips() {
        let record = DocRecord {
            postings: 9,
            chunk_count: 7,
            distinct_chunks: 6,
            name_start: 99,
            name_len: 12,
            live: true,
            content_hash: [3; 16],
            bytes: 12345,
            chars: 12000,
            segment: 2,
            structure_chunks: 3,
            modified_ns: 1_700_000_000_000_000_000,
        };
        assert_eq!(DocRecord::decode(&record.encode()), record);
        assert_eq!(DocRecord::decode(&[0; DOC_RECORD_BYTES]), DocRecord::default());
    }

    fn header() -> Header {
        Header {
            magic: MAGIC.into(),
            format_version: FORMAT_VERSION,
            generation: 1,
            settings: Settings::default(),
            docs_root: "/docs".into(),
            scanned_ns: 0,
            documents: 0,
            id_slots: 0,
            chunks: 0,
            postings: 0,
            files: BODY_FILES.iter().map(|n| FileEntry { name: n.to_string(), bytes: 0, crc32: 0 }).collect(),
            segments: Vec::new(),
            last_update: None,
            taboo: None,
            stock_phrases: None,
            similarity: None,
            header_crc32: None,
        }
    }

    #[test]
    fn header_parse_checks_magic_then_version() {
        let path = Path::new("idx/header.json");
        let text = serde_json::to_string(&header()).unwrap();
        assert_eq!(Header::parse(&text, path).unwrap(), header());
        let version = |v: u32| text.replace("\"format_version\":10", &format!("\"format_version\":{v}"));
        let error = Header::parse(&version(7), path).unwrap_err();
        assert!(matches!(error, ArchiveError::Version { oldest: 8, newest: 10, got: 7, .. }), "{error:?}");
        assert_eq!(
            error.to_string(),
            "idx/header.json: index format version 7, this pan-detect reads versions 8 to 10 \
             (make the index again with `pan-detect index create`)"
        );
        assert!(Header::parse(&version(8), path).is_ok(), "a pan09 index of version 8 is read");
        assert!(Header::parse(&version(9), path).is_ok(), "an index of version 9 is read, with no stock phrases");
        // A best index of version 8 hashed its candidate chunks otherwise.
        let best = Header { format_version: 8, settings: Settings::of_preset(Preset::Best), ..header() };
        let error = Header::parse(&serde_json::to_string(&best).unwrap(), path).unwrap_err();
        assert!(matches!(error, ArchiveError::Version { oldest: 9, got: 8, .. }), "{error:?}");
        assert!(error.to_string().contains("index create"), "{error}");
        let error = Header::parse(&version(11), path).unwrap_err();
        assert!(matches!(error, ArchiveError::Version { got: 11, .. }), "{error:?}");
        assert!(!error.to_string().contains("index create"), "{error}");
        let foreign = text.replace(MAGIC, "something else");
        assert!(matches!(Header::parse(&foreign, path), Err(ArchiveError::BadMagic { .. })));
        assert!(matches!(Header::parse("{\"magic\"", path), Err(ArchiveError::Corrupt { .. })));
        let bad_bits = text.replace("\"hash_bits\":32", "\"hash_bits\":99");
        assert!(matches!(Header::parse(&bad_bits, path), Err(ArchiveError::Corrupt { .. })));
    }

    #[test]
    fn a_taboo_entry_must_match_its_file() {
        let path = Path::new("idx/header.json");
        let file = FileEntry { name: TABOO.into(), bytes: 12, crc32: 7 };
        let with = |chunks: u64, file: FileEntry| Header {
            taboo: Some(TabooEntry { texts: vec!["template.txt".into()], chunks, file }),
            ..header()
        };
        let good = with(3, file.clone());
        assert_eq!(Header::parse(&good.to_text(), path).unwrap(), good);
        let error = Header::parse(&with(4, file.clone()).to_text(), path).unwrap_err();
        assert!(error.to_string().contains("taboo set of 4 chunks in 12 bytes is inconsistent"), "{error}");
        let renamed = FileEntry { name: "postings.bin".into(), ..file };
        assert!(matches!(Header::parse(&with(3, renamed).to_text(), path), Err(ArchiveError::Corrupt { .. })));
        let overflowing = with(u64::MAX / 2, FileEntry { name: TABOO.into(), bytes: 0, crc32: 0 });
        assert!(matches!(Header::parse(&overflowing.to_text(), path), Err(ArchiveError::Corrupt { .. })));
    }

    #[test]
    fn a_similarity_entry_must_name_its_file_and_a_percent() {
        let path = Path::new("idx/header.json");
        let with = |name: &str, min_percent: f64| Header {
            similarity: Some(SimilarityEntry {
                min_percent,
                rows: 2,
                file: FileEntry { name: name.into(), bytes: 8192, crc32: 7 },
                method: Some("0123456789abcdef".into()),
            }),
            ..header()
        };
        let good = with(SIMILARITY, 1.0);
        assert_eq!(Header::parse(&good.to_text(), path).unwrap(), good);
        let error = Header::parse(&with("postings.bin", 1.0).to_text(), path).unwrap_err();
        assert!(error.to_string().contains("similarity table \"postings.bin\""), "{error}");
        assert!(matches!(Header::parse(&with(SIMILARITY, 101.0).to_text(), path), Err(ArchiveError::Corrupt { .. })));
    }

    #[test]
    fn header_parse_refuses_counts_whose_lengths_overflow() {
        // Found by fuzz/fuzz_targets/archive_format.rs: a segment of 2^62 chunks
        // overflowed `chunks * key_bytes` (a panic in debug builds; in release the
        // product wrapped to 0 and empty segment files passed, so the reader
        // sliced past their end).
        let path = Path::new("idx/header.json");
        let mut huge_segment = header();
        let file = |name: String| FileEntry { name, bytes: 0, crc32: 0 };
        let (postings, directory) = postings_names(1);
        let segment = SegmentEntry {
            generation: 1,
            chunks: 0,
            live_chunks: 0,
            postings: PostingsEntry {
                count: 0,
                live: 0,
                directory_bits: 8,
                doc_bytes: 1,
                file: file(postings),
                directory: FileEntry { bytes: 257 * 4, ..file(directory) },
            },
        };
        huge_segment.segments.push(segment.clone());
        Header::parse(&serde_json::to_string(&huge_segment).unwrap(), path).unwrap();
        huge_segment.segments[0].live_chunks = 1;
        let error = Header::parse(&serde_json::to_string(&huge_segment).unwrap(), path).unwrap_err();
        assert!(error.to_string().contains("segment of generation 1 is inconsistent"), "{error}");
        let huge_table = Header { id_slots: u64::MAX / 8, ..header() };
        let error = Header::parse(&serde_json::to_string(&huge_table).unwrap(), path).unwrap_err();
        assert!(error.to_string().contains("more than a file can hold"), "{error}");
        let mut huge_postings = header();
        huge_postings.segments.push(segment);
        huge_postings.segments[0].postings.count = 1 << 62;
        let error = Header::parse(&serde_json::to_string(&huge_postings).unwrap(), path).unwrap_err();
        assert!(error.to_string().contains("counts and lengths disagree"), "{error}");
    }

    #[test]
    fn a_header_that_parses_but_was_changed_fails_its_own_checksum() {
        let path = Path::new("idx/header.json");
        let sealed = Header { header_crc32: Some(header().own_crc32()), ..header() };
        let text = sealed.to_text();
        assert_eq!(Header::parse(&text, path).unwrap(), sealed);
        // 'o' ^ 0x55 is ':', still a valid string: only the checksum tells.
        let flipped = text.replace("\"/docs\"", "\"/d:cs\"");
        let error = Header::parse(&flipped, path).unwrap_err();
        assert!(matches!(error, ArchiveError::ChecksumMismatch { .. }), "{error:?}");
        assert!(error.to_string().starts_with("idx/header.json: checksum mismatch"), "{error}");
        // A header written before the field existed is read unchecked.
        assert_eq!(Header::parse(&header().to_text().replace("/docs", "/d:cs"), path).unwrap().docs_root, "/d:cs");
    }

    #[test]
    fn the_tokenizer_is_stored_unless_words_and_absent_reads_as_words() {
        let path = Path::new("idx/header.json");
        let words = serde_json::to_string(&header()).unwrap();
        assert!(!words.contains("tokenizer"), "{words}");
        // A header without a tokenizer: its tokens are words.
        assert_eq!(Header::parse(&words, path).unwrap().settings.tokenizer, TokenizerKind::Words);
        for kind in [TokenizerKind::Chars(3), TokenizerKind::Code] {
            let stored = Header { settings: Settings { tokenizer: kind, ..Settings::default() }, ..header() };
            let text = serde_json::to_string(&stored).unwrap();
            assert!(text.contains(&format!("\"tokenizer\":\"{kind}\"")), "{text}");
            assert_eq!(Header::parse(&text, path).unwrap(), stored);
        }
        let unknown = words.replace("\"hash_bits\":32", "\"hash_bits\":32,\"tokenizer\":\"chars:99\"");
        assert!(matches!(Header::parse(&unknown, path), Err(ArchiveError::Corrupt { .. })));
    }

    #[test]
    fn interleaved_chunks_are_stored_when_chosen_and_reach_the_chunker() {
        let path = Path::new("idx/header.json");
        let contiguous = serde_json::to_string(&header()).unwrap();
        assert!(!contiguous.contains("interleaved"), "{contiguous}");
        let stored = Header { settings: Settings { interleaved: true, ..Settings::default() }, ..header() };
        let text = serde_json::to_string(&stored).unwrap();
        assert!(text.contains("\"interleaved\":true"), "{text}");
        assert_eq!(Header::parse(&text, path).unwrap(), stored);
        assert!(stored.settings.chunks().interleaved && stored.settings.detect_params().chunks.interleaved);
        let best = Settings { interleaved: true, ..Settings::of_preset(Preset::Best) };
        assert!(best.analysis().chunks.interleaved, "best's candidate chunks are interleaved too");
        let given = SettingsOverride { interleaved: Some(false), ..Default::default() };
        let error = given.check_against(&stored.settings, Path::new("idx")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "idx: --hashing contiguous differs from the index's interleaved; the index must be rebuilt to change it"
        );
    }

    #[test]
    fn a_different_tokenizer_is_refused_naming_both() {
        let given = SettingsOverride { tokenizer: Some(TokenizerKind::Code), ..Default::default() };
        let error = given.check_against(&Settings::default(), Path::new("idx")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "idx: --tokenizer code differs from the index's words; the index must be rebuilt to change it"
        );
        let stored = Settings { tokenizer: TokenizerKind::Chars(2), ..Settings::default() };
        let same = SettingsOverride { tokenizer: Some(TokenizerKind::Chars(2)), ..Default::default() };
        assert!(same.check_against(&stored, Path::new("idx")).is_ok());
        assert!(SettingsOverride::default().check_against(&stored, Path::new("idx")).is_ok());
    }

    #[test]
    fn mismatched_settings_name_the_flag() {
        let given = SettingsOverride { hash_bits: Some(24), ..Default::default() };
        let error = given.check_against(&Settings::default(), Path::new("idx")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "idx: --hash-bits 24 differs from the index's 32; the index must be rebuilt to change it"
        );
        let same = SettingsOverride { hash_bits: Some(32), digits: Some(true), ..Default::default() };
        assert!(same.check_against(&Settings::default(), Path::new("idx")).is_ok());
        assert_eq!(SettingsOverride::default().or_defaults(), Settings::default());
    }

    #[test]
    fn keys_are_little_endian_and_sized_by_hash_bits() {
        assert_eq!(read_key(&[1, 0, 0, 0, 9], 4), 1);
        assert_eq!(read_key(&[0, 0, 0, 0, 1, 0, 0, 0], 8), 1 << 32);
        assert_eq!(read_key(&[7, 1, 9], 2), 0x107);
        assert_eq!(read_key(&[7], 0), 0);
        assert_eq!((residue_bytes(0), residue_bytes(8), residue_bytes(9), residue_bytes(56)), (0, 1, 2, 7));
        assert_eq!(read_key(&[1, 2, 3, 4, 5, 6], 6), 0x060504030201);
        assert_eq!(read_key(&[1, 2, 3], 3), 0x030201);
        let ids = [0, 1, 256, 257, 65_536, 65_537, 1 << 24, (1 << 24) + 1, 1 << 32];
        assert_eq!(ids.map(doc_id_bytes), [1, 1, 1, 2, 2, 3, 3, 4, 4]);
        assert_eq!(Settings { hash_bits: 33, ..Settings::default() }.key_bytes(), 8);
        assert_eq!(directory_bits(0, 32), 8);
        assert_eq!(directory_bits(1 << 30, 32), 24);
        assert_eq!(directory_bits(1 << 20, 12), 12);
    }
}
