//! One document analysed: read, hashed, decoded, tokenized and chunked, the
//! same way for `detect`, the archive's `index create`/`update` and `check`.
//!
//! [`AnalysisParams`] says which chunks a document is cut into: the paper's
//! chunks of all words, or the alignment stage's candidate chunks of
//! stop-word-free word prefixes followed by chunks of function words
//! ([`crate::analysis::candidates`]). An [`Analyzer`] holds one thread's
//! tokenizer, chunkers and buffers; [`analyse_batch`] runs one per thread over
//! a batch of files from [`batches`].

use rayon::prelude::*;

use crate::analysis::candidates::{CandidateWords, dense_structure_chunks};
use crate::analysis::chunk::{ChunkHash, ChunkParams, Chunker, Chunks};
use crate::analysis::function_words::FunctionWords;
use crate::analysis::read::{self, DocumentFile, TextOrigin, TextReader, content_hash};
use crate::analysis::span::CharRange;
use crate::analysis::synonyms::Synonyms;
use crate::analysis::taboo::{self, TabooChunks};
use crate::analysis::tokenize::{AnyTokenizer, Tokenize, Tokenizer, TokenizerParams, Tokens};
use crate::analysis::translate::{MappedText, OriginalOffsets, Translator};
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
    /// Maps a document in another language than the sources into theirs
    /// before it is analysed (suspicious documents only).
    pub translator: Option<&'a Translator<'a>>,
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
    /// Words left out of the content words besides the typed stop lists:
    /// the collection's own function words.
    pub function_words: FunctionWords,
    /// Word chunks after the structure chunks: one per content word, in a
    /// hash space of their own, for order-free candidates.
    pub word_chunks: bool,
}

impl<'a> AnalysisParams<'a> {
    /// The paper's chunks of all words.
    pub fn words(tokenizer: TokenizerParams, chunks: ChunkParams) -> Self {
        AnalysisParams { tokenizer, chunks, candidates: None, translator: None }
    }
}

/// XORed into the hashes of structure chunks: a separate hash space, so that
/// structure chunks never match content chunks.
const STRUCTURE_HASH_SALT: u64 = 0x5bd1_e995_9e37_79b9;

/// XORed into the hashes of word chunks, a hash space of their own.
const WORD_HASH_SALT: u64 = 0x94d0_49bb_1331_11eb;

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
    /// Word chunks at the end of `chunks` ([`CandidateChunks::word_chunks`]).
    pub word_chunks: u32,
    /// Whether the text is the file's bytes as they are.
    pub origin: TextOrigin,
    /// Where the text was mapped from another language
    /// ([`crate::analysis::translate`]): the original offsets of its pieces.
    /// The text and every range are then the mapped text's.
    pub translated: Option<OriginalOffsets>,
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

/// Bytes of text tokenized at a time in a long document (words, the paper's
/// chunks): its words are held for one window, not for the whole document.
const WINDOW_BYTES: usize = 8 << 20;

/// Chunks `text` as `chunker.chunk` chunks its words (`tokenizer`'s) into
/// `chunks`, tokenizing about `window` bytes at a time into `tokens`, so that
/// a long document's words (some 30 bytes each) are never all held at once.
///
/// A window is cut after ASCII white space, which ends every word, so a
/// window gives the words the whole text gives there. A window makes the
/// chunks of the words that have a whole span in it; the next begins at the
/// white space before the first word that started none, and makes the
/// chunks from that word on. A window without a whole span grows until it
/// has one or reaches the end.
fn chunk_in_windows(
    tokenizer: &Tokenizer,
    chunker: &mut Chunker,
    text: &str,
    window: usize,
    tokens: &mut Tokens,
    chunks: &mut Chunks,
) {
    chunks.hashes.clear();
    chunks.ranges.clear();
    let bytes = text.as_bytes();
    // The window's first byte and its character position in the text, how
    // far it reaches, and the character where the first word that has not
    // started a chunk yet begins.
    let (mut start, mut start_char, mut reach, mut resume) = (0usize, 0u32, window, 0u32);
    loop {
        let end = cut_after_space(bytes, (start + reach).min(bytes.len()));
        tokenizer.tokenize(&text[start..end], tokens);
        let last = end == bytes.len();
        let count = chunker.chunk_count(tokens);
        let first = (0..tokens.len()).find(|&i| tokens.range(i).start + start_char >= resume).unwrap_or(tokens.len());
        if first >= count && !last {
            reach = reach.saturating_mul(2); // No new whole span: the window grows.
            continue;
        }
        chunker.append_chunks(tokens, first.min(count)..count, start_char, chunks);
        if last {
            return;
        }
        // The next window begins after the white space before the first word
        // that started no chunk (or at this window's end when every word did).
        let next = if count < tokens.len() {
            resume = tokens.range(count).start + start_char;
            let resume_byte = start + byte_of_char(&text[start..end], (resume - start_char) as usize);
            bytes[..resume_byte].iter().rposition(u8::is_ascii_whitespace).map_or(0, |at| at + 1)
        } else {
            resume = start_char + text[start..end].chars().count() as u32;
            end
        };
        if next <= start {
            reach = reach.saturating_mul(2); // No white space to begin at: the window grows.
        } else {
            start_char += text[start..next].chars().count() as u32;
            start = next;
            reach = window;
        }
    }
}

/// The position just after the first ASCII white-space byte at or after
/// `at` (the end of `bytes` when there is none).
pub(crate) fn cut_after_space(bytes: &[u8], at: usize) -> usize {
    bytes[at..].iter().position(u8::is_ascii_whitespace).map_or(bytes.len(), |p| at + p + 1)
}

/// The byte position of character `char_index` of `text`.
fn byte_of_char(text: &str, char_index: usize) -> usize {
    text.char_indices().nth(char_index).map_or(text.len(), |(byte, _)| byte)
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
    /// With word chunks: their chunker (one word a chunk) and buffer.
    words: Option<(Chunker, Chunks, u32)>,
    content_chunks: usize,
    word_chunks: usize,
    translator: Option<&'a Translator<'a>>,
}

impl<'a> Analyzer<'a> {
    /// An analyzer for `params`.
    pub fn new(params: &AnalysisParams<'a>) -> Self {
        let Some(candidates) = params.candidates else {
            let analyzer = Analyzer::with(AnyTokenizer::new(params.tokenizer), params.chunks, None, None);
            return Analyzer { translator: params.translator, ..analyzer };
        };
        let hash_bits = params.chunks.hash_bits;
        let candidate_words =
            CandidateWords::new(candidates.prefix, params.tokenizer.min_word_len, candidates.synonyms)
                .without(candidates.function_words);
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
        let words = candidates.word_chunks.then(|| {
            let chunks = ChunkParams { words: 1, sorted: false, hash_bits, hash: ChunkHash::Xxh3, interleaved: false };
            (Chunker::new(chunks), Chunks::default(), hash_bits)
        });
        // Structure chunks need the short function words; content words are
        // held to the minimum length when they are derived.
        let tokenizer = AnyTokenizer::new(TokenizerParams { min_word_len: 1, ..params.tokenizer });
        Analyzer {
            words,
            translator: params.translator,
            ..Analyzer::with(tokenizer, params.chunks, Some((candidate_words, Tokens::default())), structure)
        }
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
            words: None,
            content_chunks: 0,
            word_chunks: 0,
            translator: None,
        }
    }

    /// Chunks `text`: content chunks, then structure chunks, then word chunks.
    pub fn chunk(&mut self, text: &str) -> &Chunks {
        if let AnyTokenizer::Words(words) = &self.tokenizer
            && self.candidate_words.is_none()
            && self.structure.is_none()
            && text.len() > WINDOW_BYTES
        {
            chunk_in_windows(words, &mut self.chunker, text, WINDOW_BYTES, &mut self.tokens, &mut self.chunks);
            self.content_chunks = self.chunks.len();
            return &self.chunks;
        }
        self.tokenizer.tokenize(text, &mut self.tokens);
        match &mut self.candidate_words {
            None => self.chunker.chunk(&self.tokens, &mut self.chunks),
            Some((words, derived)) => {
                let structure_words = self.structure.as_mut().map(|(_, words, _, _)| words);
                words.derive(&self.tokens, derived, structure_words);
                self.chunker.chunk(derived, &mut self.chunks);
            }
        }
        self.content_chunks = self.chunks.len();
        if let Some((chunker, words, chunks, hash_bits)) = &mut self.structure {
            chunker.chunk(words, chunks);
            let mask = u64::MAX >> (64 - *hash_bits);
            for (hash, range) in dense_structure_chunks(chunks) {
                self.chunks.hashes.push((hash ^ STRUCTURE_HASH_SALT) & mask);
                self.chunks.ranges.push(range);
            }
        }
        self.word_chunks = 0;
        if let (Some((chunker, chunks, hash_bits)), Some((_, derived))) = (&mut self.words, &self.candidate_words) {
            chunker.chunk(derived, chunks);
            let mask = u64::MAX >> (64 - *hash_bits);
            self.word_chunks = chunks.len();
            self.chunks.hashes.extend(chunks.hashes.iter().map(|hash| (hash ^ WORD_HASH_SALT) & mask));
            self.chunks.ranges.extend_from_slice(&chunks.ranges);
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
        let (content_chunks, word_chunks) = (self.content_chunks as u32, self.word_chunks as u32);
        // The document takes the chunk buffer: a copy would double the memory
        // of a long document's chunks.
        let mut chunks = std::mem::take(&mut self.chunks);
        // The buffer grew by doubling: up to half of it may be slack.
        chunks.hashes.shrink_to_fit();
        chunks.ranges.shrink_to_fit();
        self.release_large_buffers();
        Document {
            text,
            bytes,
            content_hash,
            chunks,
            content_chunks,
            word_chunks,
            origin: TextOrigin::Other,
            translated: None,
        }
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
            if let Some((_, chunks, _)) = &mut self.words {
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
        let (loaded, origin) = reader.decode_with_origin(file, bytes);
        let text = loaded.text_or_warn(progress)?;
        match self.translator.and_then(|translator| translator.translate_or_keep(&text)) {
            Some(MappedText { text, offsets }) => {
                Some(Document { translated: Some(offsets), ..self.analyse_text(text, size, hash) })
            }
            None => Some(Document { origin, ..self.analyse_text(text, size, hash) }),
        }
    }

    /// Reads and analyses a file; `None` (with a warning through `progress`)
    /// when it is unreadable or skipped.
    pub fn analyse_file(
        &mut self,
        file: &DocumentFile,
        reader: TextReader<'_>,
        progress: &dyn Progress,
    ) -> Option<Document> {
        let bytes = read_bytes(file, reader, progress)?;
        self.analyse_bytes(file, bytes, reader, progress)
    }
}

/// Reads a file's bytes with `reader` ([`read::read_document`]: at most 4
/// GiB, only the start of a binary plain text); `None` (with a warning
/// through `progress`) when it cannot be read or is larger.
pub fn read_bytes(file: &DocumentFile, reader: TextReader<'_>, progress: &dyn Progress) -> Option<Vec<u8>> {
    reader.read_bytes(file).map_err(|warning| progress.warn(&warning)).ok()
}

/// A file's text, read and decoded with `reader`; `None` (with a warning
/// through `progress`) when it cannot be read or is skipped.
pub fn read_text(file: &DocumentFile, reader: TextReader<'_>, progress: &dyn Progress) -> Option<String> {
    read_bytes(file, reader, progress).and_then(|bytes| decode(file, bytes, reader, progress))
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

    proptest::proptest! {
        #[test]
        fn chunks_made_a_window_at_a_time_equal_those_of_the_whole_text(
            pieces in proptest::collection::vec((0usize..10, 0usize..6), 0..120),
            window in 1usize..80,
            words in 1usize..6,
            interleaved in proptest::bool::ANY,
            sorted in proptest::bool::ANY,
        ) {
            const WORDS: [&str; 10] = ["alpha", "be", "čaj", "Straße", "x", "l'homme", "über", "data-set", "日本語", "naïve"];
            const SEPARATORS: [&str; 6] = [" ", "\n", "-", ", ", "  \t", "."];
            let text: String = pieces.iter().map(|&(w, sep)| format!("{}{}", WORDS[w], SEPARATORS[sep])).collect();
            let tokenizer = Tokenizer::new(TokenizerParams { min_word_len: 1, ..TokenizerParams::default() });
            let params = ChunkParams { words, interleaved, sorted, ..ChunkParams::default() };
            let mut tokens = Tokens::default();
            tokenizer.tokenize(&text, &mut tokens);
            let mut whole = Chunks::default();
            Chunker::new(params).chunk(&tokens, &mut whole);
            let mut windowed = Chunks::default();
            chunk_in_windows(&tokenizer, &mut Chunker::new(params), &text, window, &mut tokens, &mut windowed);
            proptest::prop_assert_eq!(windowed.hashes, whole.hashes);
            proptest::prop_assert_eq!(windowed.ranges, whole.ranges);
        }
    }
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
        let candidates = CandidateChunks {
            prefix: 5,
            structure_words: 3,
            synonyms: None,
            function_words: FunctionWords::NONE,
            word_chunks: false,
        };
        let chunks = ChunkParams { words: 3, ..ChunkParams::default() };
        let params = AnalysisParams {
            candidates: Some(candidates),
            translator: None,
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
