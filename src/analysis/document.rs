//! One document analysed: read, hashed, decoded, tokenized and chunked, the
//! same way for `detect`, the archive's `index create`/`update` and `check`.
//!
//! [`AnalysisParams`] says which chunks a document is cut into: the paper's
//! chunks of all words, or the alignment stage's candidate chunks of
//! stop-word-free word prefixes followed by chunks of function words
//! ([`crate::analysis::candidates`]). An [`Analyzer`] holds one thread's
//! tokenizer, chunkers and buffers; [`analyse_batch`] runs one per thread over
//! a batch of files from [`batches`].

use std::fs;

use rayon::prelude::*;

use crate::analysis::candidates::{CandidateWords, dense_structure_chunks, structure_words};
use crate::analysis::chunk::{ChunkHash, ChunkParams, Chunker, Chunks};
use crate::analysis::read::{self, DocumentFile, TextReader, content_hash};
use crate::analysis::span::CharRange;
use crate::analysis::synonyms::Synonyms;
use crate::analysis::taboo::{self, TabooChunks};
use crate::analysis::tokenize::{AnyTokenizer, Tokenize, TokenizerParams, Tokens};
use crate::error::Warning;
use crate::progress::Progress;

/// How documents are analysed.
#[derive(Debug, Clone, Copy)]
pub struct AnalysisParams<'a> {
    /// The words.
    pub tokenizer: TokenizerParams,
    /// The chunks (the content chunks, with `candidates`).
    pub chunks: ChunkParams,
    /// The alignment stage's candidate chunks instead of the paper's chunks.
    pub candidates: Option<CandidateChunks<'a>>,
}

/// The alignment stage's chunks (see [`crate::analysis::candidates`]).
#[derive(Debug, Clone, Copy)]
pub struct CandidateChunks<'a> {
    /// Characters kept of each content word (0 keeps whole words).
    pub prefix: usize,
    /// Function words per structure chunk (0: no structure chunks).
    pub structure_words: usize,
    /// Synonym groups whose words count as one word.
    pub synonyms: Option<&'a Synonyms>,
}

impl<'a> AnalysisParams<'a> {
    /// The paper's chunks of all words.
    pub fn words(tokenizer: TokenizerParams, chunks: ChunkParams) -> Self {
        AnalysisParams { tokenizer, chunks, candidates: None }
    }
}

/// XORed into the hashes of structure chunks: a separate hash space, so that
/// structure chunks never match content chunks.
const STRUCTURE_HASH_SALT: u64 = 0x5bd1_e995_9e37_79b9;

/// Words of a document beyond which the analyzer frees its word buffers
/// after it (about 6 MB of text).
const LARGE_DOCUMENT_WORDS: usize = 1 << 20;

/// A document read and analysed.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// The decoded text.
    pub text: String,
    /// Bytes of the file.
    pub bytes: u64,
    /// XXH3-128 of the file's bytes ([`read::content_hash`]).
    pub content_hash: [u8; 16],
    /// Content chunks in text order, then structure chunks (with candidate chunks).
    pub chunks: Chunks,
    /// Content chunks at the start of `chunks` (all of them with the paper's chunks).
    pub content_chunks: u32,
}

impl Document {
    /// Blanks the text that the document's taboo content chunks cover (for the
    /// alignment; its chunks need no change, as taboo chunks match nothing) and
    /// returns those regions, sorted and disjoint.
    pub fn blank_taboo(&mut self, taboo: &TabooChunks) -> Vec<CharRange> {
        let (hashes, ranges) = self.content();
        let regions = taboo.regions(hashes, ranges);
        taboo::blank(&mut self.text, &regions);
        regions
    }

    /// The hashes and ranges of the content chunks.
    pub fn content(&self) -> (&[u64], &[CharRange]) {
        let content = self.content_chunks as usize;
        (&self.chunks.hashes[..content], &self.chunks.ranges[..content])
    }
}

/// One thread's tokenizer, chunkers and buffers.
pub struct Analyzer<'a> {
    tokenizer: AnyTokenizer,
    chunker: Chunker,
    tokens: Tokens,
    chunks: Chunks,
    /// With candidate chunks: the content words and their buffer.
    candidate_words: Option<(CandidateWords<'a>, Tokens)>,
    /// With structure chunks: their chunker, buffers and hash bits.
    structure: Option<(Chunker, Tokens, Chunks, u32)>,
    content_chunks: usize,
}

impl<'a> Analyzer<'a> {
    /// An analyzer for `params`.
    pub fn new(params: &AnalysisParams<'a>) -> Self {
        let Some(candidates) = params.candidates else {
            return Analyzer::with(AnyTokenizer::new(params.tokenizer), params.chunks, None, None);
        };
        let hash_bits = params.chunks.hash_bits;
        let candidate_words =
            CandidateWords::new(candidates.prefix, params.tokenizer.min_word_len, candidates.synonyms);
        let structure = (candidates.structure_words > 0).then(|| {
            let chunks = ChunkParams {
                words: candidates.structure_words,
                sorted: false,
                hash_bits,
                hash: ChunkHash::Xxh3,
                interleaved: false,
            };
            (Chunker::new(chunks), Tokens::default(), Chunks::default(), hash_bits)
        });
        // Structure chunks need the short function words; content words are
        // held to the minimum length when they are derived.
        let tokenizer = AnyTokenizer::new(TokenizerParams { min_word_len: 1, ..params.tokenizer });
        Analyzer::with(tokenizer, params.chunks, Some((candidate_words, Tokens::default())), structure)
    }

    fn with(
        tokenizer: AnyTokenizer,
        chunks: ChunkParams,
        candidate_words: Option<(CandidateWords<'a>, Tokens)>,
        structure: Option<(Chunker, Tokens, Chunks, u32)>,
    ) -> Self {
        Analyzer {
            tokenizer,
            chunker: Chunker::new(chunks),
            tokens: Tokens::default(),
            chunks: Chunks::default(),
            candidate_words,
            structure,
            content_chunks: 0,
        }
    }

    /// Chunks `text`: content chunks, then structure chunks.
    pub fn chunk(&mut self, text: &str) -> &Chunks {
        self.tokenizer.tokenize(text, &mut self.tokens);
        match &mut self.candidate_words {
            None => self.chunker.chunk(&self.tokens, &mut self.chunks),
            Some((words, derived)) => {
                words.derive(&self.tokens, derived);
                self.chunker.chunk(derived, &mut self.chunks);
            }
        }
        self.content_chunks = self.chunks.len();
        if let Some((chunker, words, chunks, hash_bits)) = &mut self.structure {
            structure_words(&self.tokens, words);
            chunker.chunk(words, chunks);
            let mask = u64::MAX >> (64 - *hash_bits);
            for (hash, range) in dense_structure_chunks(chunks) {
                self.chunks.hashes.push((hash ^ STRUCTURE_HASH_SALT) & mask);
                self.chunks.ranges.push(range);
            }
        }
        &self.chunks
    }

    /// The hashes of the content chunks of the text last chunked.
    pub fn content_hashes(&self) -> &[u64] {
        &self.chunks.hashes[..self.content_chunks]
    }

    /// Analyses `text`, the decoded content of a file of `bytes` bytes whose
    /// content hash is `content_hash`.
    pub fn analyse_text(&mut self, text: String, bytes: u64, content_hash: [u8; 16]) -> Document {
        self.chunk(&text);
        let content_chunks = self.content_chunks as u32;
        // The document takes the chunk buffer: a copy would double the memory
        // of a long document's chunks.
        let mut chunks = std::mem::take(&mut self.chunks);
        // The buffer grew by doubling: up to half of it may be slack.
        chunks.hashes.shrink_to_fit();
        chunks.ranges.shrink_to_fit();
        self.release_large_buffers();
        Document { text, bytes, content_hash, chunks, content_chunks }
    }

    /// Frees the word buffers after a long document: a thread keeps its
    /// buffers for the next document, but those of a document of millions of
    /// words would stay allocated beside everything that document needs next.
    fn release_large_buffers(&mut self) {
        if self.tokens.len() > LARGE_DOCUMENT_WORDS {
            self.tokens = Tokens::default();
            if let Some((_, derived)) = &mut self.candidate_words {
                *derived = Tokens::default();
            }
            if let Some((_, words, chunks, _)) = &mut self.structure {
                *words = Tokens::default();
                *chunks = Chunks::default();
            }
        }
    }

    /// Turns a file's `bytes` into text with `reader` and analyses it; `None`
    /// (with a warning through `progress`) when the file is skipped (binary,
    /// a corrupt PDF, …).
    pub fn analyse_bytes(
        &mut self,
        file: &DocumentFile,
        bytes: Vec<u8>,
        reader: TextReader<'_>,
        progress: &dyn Progress,
    ) -> Option<Document> {
        let hash = content_hash(&bytes);
        let size = bytes.len() as u64;
        let text = decode(file, bytes, reader, progress)?;
        Some(self.analyse_text(text, size, hash))
    }

    /// Reads and analyses a file; `None` (with a warning through `progress`)
    /// when it is unreadable or skipped.
    pub fn analyse_file(
        &mut self,
        file: &DocumentFile,
        reader: TextReader<'_>,
        progress: &dyn Progress,
    ) -> Option<Document> {
        let bytes = read_bytes(file, progress)?;
        self.analyse_bytes(file, bytes, reader, progress)
    }
}

/// Reads a file's bytes; `None` (with a warning through `progress`) when it
/// cannot be read.
pub fn read_bytes(file: &DocumentFile, progress: &dyn Progress) -> Option<Vec<u8>> {
    match fs::read(&file.path) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            progress.warn(&Warning { path: file.path.clone(), message: format!("cannot read: {error}; skipped") });
            None
        }
    }
}

/// A file's text from its bytes ([`TextReader::decode`]); a skipped file's
/// warning, or a lossy decoding's, goes to `progress`.
pub fn decode(file: &DocumentFile, bytes: Vec<u8>, reader: TextReader<'_>, progress: &dyn Progress) -> Option<String> {
    reader.decode(file, bytes).text_or_warn(progress)
}

/// Bytes of text analysed per parallel batch, per thread: bounds the texts,
/// chunk lists and lookups held at once (about 5 bytes of buffers per byte of
/// text).
const BATCH_BYTES_PER_THREAD: u64 = 2 << 20;

/// Splits `items` into consecutive batches of about 2 MB
/// × threads bytes by `bytes_of` (at least one item per batch).
pub fn batches<T>(items: &[T], bytes_of: impl Fn(&T) -> u64) -> impl Iterator<Item = &[T]> {
    read::batches_by_bytes(items, BATCH_BYTES_PER_THREAD * rayon::current_num_threads() as u64, bytes_of)
}

/// Reads (with `reader`) and analyses the file of each item of `batch` in
/// parallel, one [`Analyzer`] per thread; `None` for skipped files.
/// `progress` advances by each file's size.
pub fn analyse_batch<T: Sync>(
    batch: &[T],
    file_of: impl Fn(&T) -> &DocumentFile + Sync,
    params: &AnalysisParams<'_>,
    reader: TextReader<'_>,
    progress: &dyn Progress,
) -> Vec<Option<Document>> {
    batch
        .par_iter()
        .map_init(
            || Analyzer::new(params),
            |analyzer, item| {
                let file = file_of(item);
                let document = analyzer.analyse_file(file, reader, progress);
                progress.advance(file.bytes);
                document
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::chunk::Chunker;
    use crate::progress::Silent;

    const TEXT: &str = "The quick brown fox jumps over the lazy dog while the cat sleeps in the warm sun of the day.";

    #[test]
    fn the_papers_chunks_are_those_of_the_chunker_over_all_words() {
        let params = AnalysisParams::words(TokenizerParams::default(), ChunkParams::default());
        let mut analyzer = Analyzer::new(&params);
        let document = analyzer.analyse_text(TEXT.to_string(), TEXT.len() as u64, content_hash(TEXT.as_bytes()));
        let mut tokens = Tokens::default();
        crate::analysis::tokenize::Tokenizer::new(TokenizerParams::default()).tokenize(TEXT, &mut tokens);
        let mut expected = Chunks::default();
        Chunker::new(ChunkParams::default()).chunk(&tokens, &mut expected);
        assert_eq!((&document.chunks.hashes, &document.chunks.ranges), (&expected.hashes, &expected.ranges));
        assert_eq!(document.content_chunks as usize, expected.len());
        assert_eq!(document.text, TEXT);
        assert_eq!(document.content(), (&expected.hashes[..], &expected.ranges[..]));
    }

    #[test]
    fn candidate_chunks_come_first_then_salted_structure_chunks() {
        let candidates = CandidateChunks { prefix: 5, structure_words: 3, synonyms: None };
        let chunks = ChunkParams { words: 3, ..ChunkParams::default() };
        let params = AnalysisParams {
            candidates: Some(candidates),
            ..AnalysisParams::words(TokenizerParams::default(), chunks)
        };
        let mut analyzer = Analyzer::new(&params);
        let all = analyzer.chunk(TEXT).clone();
        let content = analyzer.content_hashes().to_vec();
        // Content words: quick brown jumps lazy sleeps warm (stop words and short words out).
        assert!(!content.is_empty() && content.len() < all.len(), "{} of {}", content.len(), all.len());
        assert!(all.hashes.iter().all(|&hash| hash <= u64::from(u32::MAX)));
        let words_only =
            AnalysisParams { candidates: Some(CandidateChunks { structure_words: 0, ..candidates }), ..params };
        assert_eq!(Analyzer::new(&words_only).chunk(TEXT).hashes, content);
    }

    #[test]
    fn batches_keep_order_and_skip_what_cannot_be_read() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<DocumentFile> = ["a.txt", "b.txt", "c.txt"]
            .iter()
            .map(|name| DocumentFile { name: name.to_string(), path: dir.path().join(name), bytes: 10 })
            .collect();
        std::fs::write(&files[0].path, TEXT).unwrap();
        std::fs::write(&files[2].path, [0u8; 64]).unwrap();
        let params = AnalysisParams::words(TokenizerParams::default(), ChunkParams::default());
        let analysed = analyse_batch(&files, |file| file, &params, TextReader::default(), &Silent);
        assert_eq!(analysed.len(), 3);
        let first = analysed[0].as_ref().unwrap();
        assert_eq!((first.bytes, first.content_hash), (TEXT.len() as u64, content_hash(TEXT.as_bytes())));
        assert!(analysed[1].is_none() && analysed[2].is_none());
        assert_eq!(batches(&files, |_| u64::MAX).count(), 3);
        assert_eq!(batches(&files, |_| 1).count(), 1);
    }
}
