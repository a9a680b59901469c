//! Chunks: every run of `n` consecutive kept words, hashed.
//!
//! The words of a chunk are sorted before hashing (unless `--no-sort`), so that a
//! passage whose words were swapped still yields the same chunks; the sorted words
//! are joined by one space and hashed with MD5 (or, for the `best` preset's
//! candidate chunks, the words' XXH3 hashes are combined, see [`ChunkHash`]), of
//! which the top `hash_bits` bits are kept. MD5 runs on [`MD5_BATCH`] chunks at
//! once, one per SIMD lane (`md5-many`): one chunk is one 64-byte MD5 block,
//! and a block's rounds depend on each other, so lanes are the only parallelism.
//! A chunk's sequence number is its first word's; it covers the characters from
//! its first word's start to its last word's end.
//!
//! **Interleaved chunks** (`--hashing interleaved`, after the dupi design's
//! interleaved k-circular hash) take every other word: the chunk at word `i`
//! holds words `i, i+2, …, i+2(n-1)`, so the chunks of even words and those of
//! odd words form two streams, and a passage still matches on one of them when
//! noise (OCR errors, a different tokenisation) changed every other word. A
//! changed word costs `n` chunks either way, but interleaved chunks lose every
//! other one over `2n-1` positions instead of `n` in a row. dupi hashes a
//! window as the XOR of its words' hashes, which is blind to their order; the
//! sorted words hashed here (or the sum of their hashes) are blind to it too,
//! and a word repeated in the window does not cancel out as it does under XOR.

use std::ops::Range;

use md5_many::{Md5Digest, Md5Many};
use xxhash_rust::xxh3::xxh3_64;

use crate::analysis::span::CharRange;

use crate::analysis::tokenize::{Tokens, WORD_WINDOW};

/// Words in one chunk (the papers' n = 5).
pub const DEFAULT_CHUNK_WORDS: usize = 5;
/// Largest accepted `--chunk-words`; chunks are built in a fixed-size array.
pub const MAX_CHUNK_WORDS: usize = 32;

/// Bits of MD5 kept as a chunk's hash (the papers keep 30 to 32).
pub const DEFAULT_HASH_BITS: u32 = 32;
/// Accepted range of `--hash-bits`.
pub const HASH_BITS_RANGE: std::ops::RangeInclusive<u32> = 24..=64;

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
    /// Every other word in a chunk instead of consecutive words (see the module
    /// documentation).
    pub interleaved: bool,
}

/// The hash function of chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChunkHash {
    /// MD5, as in the papers (and in the archive, whose hashes must stay stable).
    #[default]
    Md5,
    /// XXH3-64 of each word once, combined per chunk (`combine`): no
    /// sorting, joining or hashing per chunk. The `best` preset's candidate
    /// chunks use it, since their hashes are never compared with anyone
    /// else's.
    Xxh3,
}

impl Default for ChunkParams {
    fn default() -> Self {
        ChunkParams {
            words: DEFAULT_CHUNK_WORDS,
            sorted: true,
            hash_bits: DEFAULT_HASH_BITS,
            hash: ChunkHash::Md5,
            interleaved: false,
        }
    }
}

/// The chunks of one text, as parallel arrays indexed by sequence number.
#[derive(Debug, Default, Clone)]
pub struct Chunks {
    /// Hash of each chunk: its top `hash_bits` bits, right-aligned.
    pub hashes: Vec<u64>,
    /// Character range each chunk covers.
    pub ranges: Vec<CharRange>,
}

impl Chunks {
    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// True when the text has fewer words than a chunk.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
}

/// Builds chunks from words; reuse one per thread to avoid allocations.
#[derive(Debug, Clone)]
pub struct Chunker {
    params: ChunkParams,
    /// The XXH3 of each word of the chunks being made ([`ChunkHash::Xxh3`]).
    word_hashes: Vec<u64>,
    md5: Md5Batch,
}

impl Chunker {
    /// A chunker with validated parameters (`words` in `1..=MAX_CHUNK_WORDS`,
    /// `hash_bits` in `1..=64`).
    pub fn new(params: ChunkParams) -> Self {
        Chunker { params, word_hashes: Vec::new(), md5: Md5Batch::new() }
    }

    /// Chunks `tokens` into `out`, replacing its previous content.
    pub fn chunk(&mut self, tokens: &Tokens, out: &mut Chunks) {
        out.hashes.clear();
        out.ranges.clear();
        self.append_chunks(tokens, 0..self.chunk_count(tokens), 0, out);
    }

    /// Words a chunk spans: its words, and with interleaved chunks the words
    /// between them.
    pub fn span(&self) -> usize {
        self.step() * (self.params.words - 1) + 1
    }

    /// The number of chunks of `tokens`: one starting at each word that has
    /// a whole span after it.
    pub fn chunk_count(&self, tokens: &Tokens) -> usize {
        (tokens.len() + 1).saturating_sub(self.span())
    }

    /// Appends to `out` the chunks of `tokens` that start at the words
    /// `starts` (each within [`chunk_count`](Self::chunk_count)), their
    /// character ranges moved by `char_offset` (the tokens' text begins
    /// that many characters into the document).
    pub fn append_chunks(&mut self, tokens: &Tokens, starts: Range<usize>, char_offset: u32, out: &mut Chunks) {
        let span = self.span();
        out.hashes.reserve(starts.len());
        out.ranges.reserve(starts.len());
        out.ranges.extend(starts.clone().map(|first| {
            let (start, end) = (tokens.range(first).start, tokens.range(first + span - 1).end);
            CharRange::new(start + char_offset, end + char_offset)
        }));
        match self.params.hash {
            ChunkHash::Md5 => self.append_md5(tokens, starts, &mut out.hashes),
            ChunkHash::Xxh3 => self.append_combined(tokens, starts, &mut out.hashes),
        }
    }

    /// The MD5 hashes of the chunks that start at `starts`: their words
    /// (sorted unless the parameters say otherwise) joined by one space.
    fn append_md5(&mut self, tokens: &Tokens, starts: Range<usize>, hashes: &mut Vec<u64>) {
        let n = self.params.words;
        let step = self.step();
        let mut order = [0usize; MAX_CHUNK_WORDS];
        for first in starts {
            let order = &mut order[..n];
            for (slot, seq) in order.iter_mut().zip((first..).step_by(step)) {
                *slot = seq;
            }
            if self.params.sorted {
                sort_words(tokens, order);
            }
            self.md5.push(tokens, order);
            if self.md5.is_full() {
                self.md5.flush(self.params.hash_bits, hashes);
            }
        }
        self.md5.flush(self.params.hash_bits, hashes);
    }

    /// The [`ChunkHash::Xxh3`] hashes of the chunks that start at `starts`:
    /// each word is hashed once, and a chunk's word hashes are combined.
    fn append_combined(&mut self, tokens: &Tokens, starts: Range<usize>, hashes: &mut Vec<u64>) {
        if starts.is_empty() {
            return;
        }
        let (n, step, sorted) = (self.params.words, self.step(), self.params.sorted);
        self.word_hashes.clear();
        let words = starts.start..starts.end - 1 + self.span();
        self.word_hashes.extend(words.map(|seq| xxh3_64(tokens.word_bytes(seq))));
        let shift = 64 - self.params.hash_bits;
        hashes.extend((0..starts.len()).map(|first| {
            let chunk = self.word_hashes[first..].iter().step_by(step).take(n);
            combine(chunk.copied(), sorted) >> shift
        }));
    }

    /// Words from one word of a chunk to its next: 2 for interleaved chunks.
    fn step(&self) -> usize {
        if self.params.interleaved { 2 } else { 1 }
    }
}

/// One hash of a chunk's word hashes `words`, in text order: for `sorted`
/// chunks their wrapping sum, which like sorting the words sees only which
/// words the chunk holds and how often (a repeated word adds twice, where an
/// XOR would cancel it); otherwise the sum of each hash rotated by 7 bits per
/// position. The sum is then mixed (MurmurHash3's 64-bit finalizer), so
/// that its top bits, the ones kept, depend on all of its bits.
fn combine(words: impl Iterator<Item = u64>, sorted: bool) -> u64 {
    let sum = words.zip(0u32..).fold(0u64, |sum, (hash, position)| {
        sum.wrapping_add(if sorted { hash } else { hash.rotate_left(7 * position) })
    });
    let mut mixed = sum ^ (sum >> 33);
    mixed = mixed.wrapping_mul(0xff51_afd7_ed55_8ccd);
    mixed ^= mixed >> 33;
    mixed = mixed.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    mixed ^ (mixed >> 33)
}

/// Appends the words `order` (sequence numbers) joined by one space to
/// `buffer`: written in place by [`write_single_block`] when they fit one MD5
/// block.
fn append_joined(tokens: &Tokens, order: &[usize], buffer: &mut Vec<u8>) {
    if !write_single_block(tokens, order, buffer) {
        for (i, &seq) in order.iter().enumerate() {
            if i > 0 {
                buffer.push(b' ');
            }
            buffer.extend_from_slice(tokens.word_bytes(seq));
        }
    }
}

/// Chunks hashed with MD5 together, one per SIMD lane.
pub const MD5_BATCH: usize = 64;

/// Joined chunks waiting for MD5, stored end to end.
#[derive(Debug, Clone)]
struct Md5Batch {
    engine: Md5Many,
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Md5Batch {
    fn new() -> Self {
        Md5Batch { engine: Md5Many::new(), bytes: Vec::with_capacity(MD5_BATCH * 64), ends: Vec::new() }
    }

    /// Queues the words `order` joined by one space, written straight into the batch.
    fn push(&mut self, tokens: &Tokens, order: &[usize]) {
        append_joined(tokens, order, &mut self.bytes);
        self.ends.push(self.bytes.len());
    }

    fn is_full(&self) -> bool {
        self.ends.len() == MD5_BATCH
    }

    /// Hashes the waiting chunks, appends the top `bits` bits of each digest
    /// to `hashes` in order, and empties the batch.
    fn flush(&mut self, bits: u32, hashes: &mut Vec<u64>) {
        let mut messages: [&[u8]; MD5_BATCH] = [&[]; MD5_BATCH];
        let mut start = 0;
        for (message, &end) in messages.iter_mut().zip(&self.ends) {
            *message = &self.bytes[start..end];
            start = end;
        }
        let count = self.ends.len();
        let mut digests: [Md5Digest; MD5_BATCH] = [[0; 16]; MD5_BATCH];
        self.engine.hash_many(&messages[..count], &mut digests[..count]);
        hashes.extend(digests[..count].iter().map(|digest| top_bits(digest, bits)));
        self.bytes.clear();
        self.ends.clear();
    }
}

/// Longest message that MD5 pads into a single 64-byte block (the 0x80 byte and
/// the 8-byte length must follow it).
const SINGLE_BLOCK_MAX: usize = 55;

/// Appends the words `order` joined by one space to `buffer` and returns
/// true, when the joined words fit one MD5 block and every word is at most
/// [`WORD_WINDOW`] bytes (almost every chunk of real text); otherwise leaves
/// `buffer` as it was and returns false.
///
/// Each word is copied as a fixed [`WORD_WINDOW`]-byte window (the folded
/// buffer is padded so the window never runs past it) straight into room
/// made at the end of `buffer`, which compiles to two vector moves instead of
/// a `memcpy` call per word; the bytes a window copies past its word are
/// overwritten by the next word or cut off at the end.
fn write_single_block(tokens: &Tokens, order: &[usize], buffer: &mut Vec<u8>) -> bool {
    let start = buffer.len();
    buffer.resize(start + SINGLE_BLOCK_MAX + 1 + WORD_WINDOW, 0);
    let block = &mut buffer[start..];
    let mut at = 0;
    for &seq in order {
        let fits = at <= SINGLE_BLOCK_MAX;
        match tokens.word_window(seq).filter(|_| fits) {
            Some((window, len)) => {
                block[at..at + WORD_WINDOW].copy_from_slice(window);
                block[at + len] = b' ';
                at += len + 1;
            }
            None => {
                buffer.truncate(start);
                return false;
            }
        }
    }
    let len = at - 1;
    buffer.truncate(if len > SINGLE_BLOCK_MAX { start } else { start + len });
    len <= SINGLE_BLOCK_MAX
}

/// Sorts a chunk's word sequence numbers by their folded words: insertion sort on
/// the 8-byte prefix keys, comparing whole words only when the keys are equal.
fn sort_words(tokens: &Tokens, order: &mut [usize]) {
    let less = |a: usize, b: usize| match tokens.sort_key(a).cmp(&tokens.sort_key(b)) {
        std::cmp::Ordering::Equal => tokens.word_bytes(a) < tokens.word_bytes(b),
        unequal => unequal == std::cmp::Ordering::Less,
    };
    for i in 1..order.len() {
        let current = order[i];
        let mut j = i;
        while j > 0 && less(current, order[j - 1]) {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = current;
    }
}

/// The top `bits` bits (1..=64) of a digest, right-aligned.
fn top_bits(digest: &[u8], bits: u32) -> u64 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first) >> (64 - bits)
}

#[cfg(test)]
mod tests {
    use md5::{Digest, Md5};

    use super::*;
    use crate::analysis::tokenize::{Tokenizer, TokenizerParams};

    fn chunks_of(text: &str, params: ChunkParams) -> Chunks {
        let mut tokens = Tokens::default();
        Tokenizer::new(TokenizerParams::default()).tokenize(text, &mut tokens);
        let mut chunks = Chunks::default();
        Chunker::new(params).chunk(&tokens, &mut chunks);
        chunks
    }

    #[test]
    fn hash_is_the_top_bits_of_md5_of_sorted_words_joined_by_a_space() {
        let chunks = chunks_of("Quick brown foxes jump over", ChunkParams::default());
        assert_eq!(chunks.len(), 1);
        // The chunk's words in sorted order, joined by one space; top 32 bits of MD5.
        let digest = Md5::digest(b"brown foxes jump over quick");
        assert_eq!(chunks.hashes[0], u64::from(u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])));
        let bits24 = chunks_of("Quick brown foxes jump over", ChunkParams { hash_bits: 24, ..ChunkParams::default() });
        assert_eq!(bits24.hashes[0], chunks.hashes[0] >> 8);
        let bits64 = chunks_of("Quick brown foxes jump over", ChunkParams { hash_bits: 64, ..ChunkParams::default() });
        assert_eq!(bits64.hashes[0] >> 32, chunks.hashes[0]);
    }

    #[test]
    fn swapped_words_give_the_same_chunk_unless_unsorted() {
        let a = chunks_of("alpha beta gamma delta epsilon", ChunkParams::default());
        let b = chunks_of("epsilon gamma alpha delta beta", ChunkParams::default());
        assert_eq!(a.hashes, b.hashes);
        let unsorted = ChunkParams { sorted: false, ..ChunkParams::default() };
        let a = chunks_of("alpha beta gamma delta epsilon", unsorted);
        let b = chunks_of("epsilon gamma alpha delta beta", unsorted);
        assert_ne!(a.hashes, b.hashes);
    }

    #[test]
    fn sequence_and_ranges_cover_first_to_last_word() {
        let text = "One two three four five six seven";
        let chunks = chunks_of(text, ChunkParams::default());
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks.ranges[0], CharRange::new(0, 23));
        assert_eq!(chunks.ranges[2], CharRange::new(8, 33));
        assert_eq!(chunks_of("one two three four", ChunkParams::default()).len(), 0);
        assert_eq!(chunks_of("", ChunkParams::default()).len(), 0);
    }

    proptest::proptest! {
        #[test]
        fn hashes_equal_md5_of_the_sorted_joined_words(words in proptest::collection::vec("(interna|internat)[a-z]{0,4}|[a-c]{3,9}|[a-z]{12,20}|[a-z]{15,17}", 5..12)) {
            let text = words.join(" ");
            let chunks = chunks_of(&text, ChunkParams { hash_bits: 64, ..ChunkParams::default() });
            for (first, &hash) in chunks.hashes.iter().enumerate() {
                let mut window: Vec<&str> = words[first..first + 5].iter().map(String::as_str).collect();
                window.sort();
                let digest = Md5::digest(window.join(" ").as_bytes());
                proptest::prop_assert_eq!(hash, top_bits(&digest, 64));
            }
        }

        #[test]
        fn interleaved_chunks_are_the_chunks_of_every_other_word(words in proptest::collection::vec("[a-c]{3,6}|[a-z]{12,20}", 0..16), sorted: bool, n in 1usize..5, xxh3: bool) {
            let hash = if xxh3 { ChunkHash::Xxh3 } else { ChunkHash::Md5 };
            let params = ChunkParams { words: n, sorted, hash_bits: 64, hash, ..ChunkParams::default() };
            let chunks = chunks_of(&words.join(" "), ChunkParams { interleaved: true, ..params });
            proptest::prop_assert_eq!(chunks.len(), (words.len() + 2).saturating_sub(2 * n));
            let starts: Vec<u32> = words.iter().scan(0, |at, word| { let start = *at; *at += word.len() as u32 + 1; Some(start) }).collect();
            for (first, (&hash, range)) in chunks.hashes.iter().zip(&chunks.ranges).enumerate() {
                let every_other: Vec<&str> = words[first..].iter().step_by(2).take(n).map(String::as_str).collect();
                let reference = chunks_of(&every_other.join(" "), params);
                proptest::prop_assert_eq!(&reference.hashes, &vec![hash]);
                let last = first + 2 * (n - 1);
                proptest::prop_assert_eq!(*range, CharRange::new(starts[first], starts[last] + words[last].len() as u32));
            }
        }

        #[test]
        fn xxh3_chunks_are_equal_exactly_when_their_words_are(
            words in proptest::collection::vec("[a-c]{3}|a[a-z]{10}", 5..14),
            sorted in proptest::bool::ANY,
        ) {
            let text = words.join(" ");
            let params = ChunkParams { hash_bits: 64, hash: ChunkHash::Xxh3, sorted, ..ChunkParams::default() };
            let chunks = chunks_of(&text, params);
            proptest::prop_assert_eq!(chunks.len(), words.len() - 4);
            // The chunk's words, sorted when chunks are: what MD5 hashes joined.
            let words_of = |first: usize| {
                let mut window = words[first..first + 5].to_vec();
                if sorted {
                    window.sort();
                }
                window
            };
            for (i, a) in chunks.hashes.iter().enumerate() {
                for (j, b) in chunks.hashes.iter().enumerate() {
                    proptest::prop_assert_eq!(a == b, words_of(i) == words_of(j), "chunks {} and {}", i, j);
                }
            }
            let fewer_bits = chunks_of(&text, ChunkParams { hash_bits: 40, ..params });
            let top: Vec<u64> = chunks.hashes.iter().map(|hash| hash >> 24).collect();
            proptest::prop_assert_eq!(fewer_bits.hashes, top);
        }
    }

    #[test]
    fn batches_of_chunks_hash_as_md5_one_by_one() {
        // Enough chunks for full batches and a remainder, with chunks too long
        // for one MD5 block among them.
        let words: Vec<String> = (0..3 * MD5_BATCH + 7)
            .map(|i| if i % 37 == 0 { format!("internationalisation{i}") } else { format!("w{}x", i * 7919 % 1000) })
            .collect();
        let chunks = chunks_of(&words.join(" "), ChunkParams { hash_bits: 64, ..ChunkParams::default() });
        assert_eq!(chunks.len(), words.len() - 4);
        for (first, &hash) in chunks.hashes.iter().enumerate() {
            let mut window: Vec<&str> = words[first..first + 5].iter().map(String::as_str).collect();
            window.sort();
            assert_eq!(hash, top_bits(&Md5::digest(window.join(" ").as_bytes()), 64), "chunk {first}");
        }
    }

    #[test]
    fn long_chunks_hash_like_short_ones() {
        let words = ["internationalisation", "counterrevolutionaries", "incomprehensibilities", "abc", "xyz"];
        let chunks = chunks_of(&words.join(" "), ChunkParams { hash_bits: 64, ..ChunkParams::default() });
        let mut sorted = words;
        sorted.sort();
        assert!(sorted.join(" ").len() > 64, "longer than one MD5 block");
        assert_eq!(chunks.hashes[0], top_bits(&Md5::digest(sorted.join(" ").as_bytes()), 64));
    }

    #[test]
    fn chunk_ranges_count_characters() {
        let chunks = chunks_of("Žluťoučký kůň úpěl ďábelské ódy dnes", ChunkParams::default());
        assert_eq!(chunks.ranges, vec![CharRange::new(0, 31), CharRange::new(10, 36)]);
    }

    #[test]
    fn interleaved_chunks_survive_a_change_of_every_other_word() {
        let original = "alpha beta gamma delta epsilon zeta theta iota kappa lambda";
        let noisy = "alpha betx gamma deltx epsilon zetx theta iotx kappa lambdx";
        let interleaved = ChunkParams { words: 3, interleaved: true, ..ChunkParams::default() };
        let (a, b) = (chunks_of(original, interleaved), chunks_of(noisy, interleaved));
        // The even-word stream is untouched: chunks 0, 2 and 4 match.
        let shared: Vec<usize> = (0..a.len()).filter(|&i| a.hashes[i] == b.hashes[i]).collect();
        assert_eq!(shared, vec![0, 2, 4]);
        let contiguous = ChunkParams { words: 3, ..ChunkParams::default() };
        let (a, b) = (chunks_of(original, contiguous), chunks_of(noisy, contiguous));
        assert!(a.hashes.iter().all(|hash| !b.hashes.contains(hash)));
    }
}
