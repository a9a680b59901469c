//! The inverted index: chunk hash → postings (document, chunk sequence).
//!
//! Layout (CSR): one postings array sorted by hash, plus a directory of offsets
//! indexed by the top `directory_bits` bits of the hash, so a lookup is one
//! directory read and a binary search inside a small bucket. Repeated occurrences
//! of a chunk in one document are separate postings.
//!
//! A posting holds the chunk's number in the whole index (the documents'
//! chunks numbered one after another, in document order) and the hash's
//! residue, its bits below the directory's (16 bits with hashes of up to 32
//! bits, the bucket giving the others): 6 bytes, in two arrays. The document
//! and the chunk's sequence number in it come back from the documents' first
//! numbers ([`ChunkIndex::occurrences`]). The postings of one hash are in
//! (document, sequence) order.
//!
//! The postings are built by appending every document's chunks (full hash
//! and chunk number) and sorting them in place by bucket sort
//! (`bucket_sort.rs`: an in-place radix pass on the top hash bits, then the
//! buckets sorted in parallel), then split into the two arrays a step at a
//! time. No second copy of the postings is ever made.
//!
//! The character range of a posting lives beside the index, in the per-document
//! chunk ranges indexed by the posting's sequence number.

use std::fmt::Debug;
use std::ops::Range;

use rayon::prelude::*;

use crate::matching::bucket_sort;

/// The stored form of a chunk hash: `u32` for hashes of up to 32 bits, `u64`
/// above, so that postings stay small.
pub trait ChunkKey: Copy + Ord + Send + Sync + Debug + 'static {
    /// Bits the type can hold.
    const WIDTH: u32;
    /// What the built index keeps of a hash: its low [`Self::RESIDUE_BITS`]
    /// bits, the directory bucket of the posting giving the others.
    type Residue: Copy + Ord + Default + Send + Sync + Debug + 'static;
    /// Bits of a residue.
    const RESIDUE_BITS: u32;
    /// The key for a right-aligned hash of at most `WIDTH` bits.
    fn from_hash(hash: u64) -> Self;
    /// The hash back as `u64`.
    fn to_hash(self) -> u64;
    /// The residue of a hash.
    fn residue(hash: u64) -> Self::Residue;
    /// The hash whose bits above the residue's are those of `high` (zero in
    /// the residue's bits) and whose residue is `residue`.
    fn join(high: u64, residue: Self::Residue) -> u64;
}

impl ChunkKey for u32 {
    const WIDTH: u32 = 32;
    type Residue = u16;
    const RESIDUE_BITS: u32 = 16;
    fn from_hash(hash: u64) -> Self {
        debug_assert!(hash <= u64::from(u32::MAX));
        hash as u32
    }
    fn to_hash(self) -> u64 {
        u64::from(self)
    }
    fn residue(hash: u64) -> u16 {
        hash as u16
    }
    fn join(high: u64, residue: u16) -> u64 {
        high | u64::from(residue)
    }
}

impl ChunkKey for u64 {
    const WIDTH: u32 = 64;
    type Residue = u64;
    const RESIDUE_BITS: u32 = 64;
    fn from_hash(hash: u64) -> Self {
        hash
    }
    fn to_hash(self) -> u64 {
        self
    }
    fn residue(hash: u64) -> u64 {
        hash
    }
    fn join(_high: u64, residue: u64) -> u64 {
        residue
    }
}

/// Which [`ChunkKey`] holds hashes of a given width: the one choice of the
/// key type, made by detection and the archive alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyWidth {
    /// `u32`, for hashes of up to 32 bits.
    U32,
    /// `u64`, above.
    U64,
}

impl KeyWidth {
    /// The key type for hashes of `hash_bits` bits.
    pub fn of(hash_bits: u32) -> Self {
        if hash_bits <= u32::WIDTH { KeyWidth::U32 } else { KeyWidth::U64 }
    }

    /// Bytes of one key.
    pub fn bytes(self) -> usize {
        match self {
            KeyWidth::U32 => 4,
            KeyWidth::U64 => 8,
        }
    }
}

/// One occurrence of a chunk: its hash and its number in the index (see the
/// module documentation; [`ChunkIndex::occurrences`] gives the document and
/// the sequence number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Posting<K> {
    /// The chunk's hash.
    key: K,
    /// The chunk's number in the index.
    at: u32,
}

/// Collects postings document by document; [`IndexBuilder::build`] sorts them.
#[derive(Debug)]
pub struct IndexBuilder<K> {
    hash_bits: u32,
    postings: Vec<Posting<K>>,
    /// The number of each document's first chunk, by document number.
    doc_starts: Vec<u32>,
    /// The number the next document's first chunk gets.
    next: u32,
}

impl<K: ChunkKey> IndexBuilder<K> {
    /// An empty builder for hashes of `hash_bits` bits (1..=`K::WIDTH`).
    pub fn new(hash_bits: u32) -> Self {
        assert!(hash_bits >= 1 && hash_bits <= K::WIDTH, "{hash_bits} hash bits do not fit the key type");
        IndexBuilder { hash_bits, postings: Vec::new(), doc_starts: Vec::new(), next: 0 }
    }

    /// Adds the chunks of document `doc`; `hashes[seq]` is the hash of chunk `seq`.
    pub fn add_document(&mut self, doc: u32, hashes: &[u64]) {
        self.add_document_where(doc, hashes, |_| true);
    }

    /// Adds the chunks of document `doc` whose hash passes `keep`; chunk `seq`
    /// keeps its number. Documents are added in increasing order; a number
    /// left out is a document without chunks.
    ///
    /// Panics when `doc` is not above the last document added, or when the
    /// documents hold more than 2^32 chunks together (30 GB of text and more).
    pub fn add_document_where(&mut self, doc: u32, hashes: &[u64], keep: impl Fn(u64) -> bool) {
        assert!(doc as usize >= self.doc_starts.len(), "document {doc} added out of order");
        self.doc_starts.resize(doc as usize + 1, self.next);
        let first = self.next;
        let kept = hashes.iter().zip(first..).filter(|(hash, _)| keep(**hash));
        self.postings.extend(kept.map(|(&hash, at)| Posting { key: K::from_hash(hash), at }));
        self.next =
            u32::try_from(hashes.len()).ok().and_then(|len| first.checked_add(len)).expect("more than 2^32 chunks");
    }

    /// Adds some chunks of document `doc`: `(seq, hash)` with increasing
    /// sequence numbers, such as those in one range of hashes (each part of a
    /// cluster's index holds one range). Documents are added in increasing
    /// order; the document's numbers reach its last chunk given.
    ///
    /// Panics as [`add_document_where`](Self::add_document_where) does.
    pub fn add_chunks(&mut self, doc: u32, chunks: impl IntoIterator<Item = (u32, u64)>) {
        assert!(doc as usize >= self.doc_starts.len(), "document {doc} added out of order");
        self.doc_starts.resize(doc as usize + 1, self.next);
        let first = self.next;
        let mut end = 0u32;
        for (seq, hash) in chunks {
            let at = first.checked_add(seq).expect("more than 2^32 chunks");
            self.postings.push(Posting { key: K::from_hash(hash), at });
            end = seq + 1;
        }
        self.next = first.checked_add(end).expect("more than 2^32 chunks");
    }

    /// Number of postings added so far.
    pub fn len(&self) -> usize {
        self.postings.len()
    }

    /// True when no posting was added.
    pub fn is_empty(&self) -> bool {
        self.postings.is_empty()
    }

    /// Sorts the postings and builds the directory.
    ///
    /// Panics if there are more than `u32::MAX` postings (16 GB of chunks and
    /// more; the directory stores 32-bit offsets).
    pub fn build(mut self) -> ChunkIndex<K> {
        self.postings.shrink_to_fit();
        bucket_sort::sort_by_hash(&mut self.postings, self.hash_bits, |p| p.key.to_hash());
        let directory_bits = directory_bits::<K>(self.postings.len(), self.hash_bits);
        let directory = build_directory(&self.postings, self.hash_bits, directory_bits);
        self.doc_starts.push(self.next);
        self.doc_starts.shrink_to_fit();
        let block_docs = block_docs(&self.doc_starts);
        let IndexBuilder { hash_bits, postings, doc_starts, .. } = self;
        let (residues, chunk_numbers) = split_postings(postings);
        ChunkIndex { hash_bits, directory_bits, directory, residues, chunk_numbers, doc_starts, block_docs }
    }
}

/// Postings to read in each step of [`split_postings`].
const SPLIT_STEP: usize = 1 << 20;

/// The residues and chunk numbers of sorted `postings`, as two arrays (6
/// bytes a posting with 32-bit hashes, against 8). The postings are taken
/// from the end in steps, each step's memory given back before the next, so
/// that the split needs hardly more memory than the postings.
fn split_postings<K: ChunkKey>(mut postings: Vec<Posting<K>>) -> (Vec<K::Residue>, Vec<u32>) {
    // Zeroed arrays: their pages are taken from the system as they are written.
    let mut residues = vec![K::Residue::default(); postings.len()];
    let mut chunk_numbers = vec![0u32; postings.len()];
    while !postings.is_empty() {
        let (rest, end) = (postings.len().saturating_sub(SPLIT_STEP), postings.len());
        postings[rest..]
            .par_chunks(SPLIT_TASK)
            .zip(residues[rest..end].par_chunks_mut(SPLIT_TASK))
            .zip(chunk_numbers[rest..end].par_chunks_mut(SPLIT_TASK))
            .for_each(|((postings, residues), numbers)| {
                for (posting, (residue, number)) in postings.iter().zip(residues.iter_mut().zip(numbers)) {
                    *residue = K::residue(posting.key.to_hash());
                    *number = posting.at;
                }
            });
        postings.truncate(rest);
        postings.shrink_to_fit();
    }
    (residues, chunk_numbers)
}

/// Postings split by one parallel task of [`split_postings`].
const SPLIT_TASK: usize = 1 << 16;

/// Chunk numbers per entry of [`ChunkIndex::block_docs`], as a power of two.
const LOCATE_BLOCK_BITS: u32 = 10;

/// For every block of 2^[`LOCATE_BLOCK_BITS`] chunk numbers, the document
/// holding the block's first chunk, given the documents' first chunk numbers
/// (`doc_starts`, ending with the number of chunks).
fn block_docs(doc_starts: &[u32]) -> Vec<u32> {
    let chunks = doc_starts.last().copied().unwrap_or(0);
    let mut doc = 0usize;
    (0..chunks.div_ceil(1 << LOCATE_BLOCK_BITS))
        .map(|block| {
            let first = block << LOCATE_BLOCK_BITS;
            while doc_starts[doc + 1] <= first {
                doc += 1;
            }
            doc as u32
        })
        .collect()
}

/// Directory size: about eight postings (two cache lines) per directory entry,
/// 2^8 to 2^24 entries, and enough that a residue holds the bits below the
/// directory's (2^16 entries at least with 32-bit hashes); never more bits
/// than the hash has.
fn directory_bits<K: ChunkKey>(postings: usize, hash_bits: u32) -> u32 {
    let wanted = (postings / 8).max(1).ilog2();
    wanted.clamp(8, 24).max(hash_bits.saturating_sub(K::RESIDUE_BITS)).min(hash_bits)
}

fn build_directory<K: ChunkKey>(postings: &[Posting<K>], hash_bits: u32, directory_bits: u32) -> Vec<u32> {
    let shift = hash_bits - directory_bits;
    let mut directory = vec![0u32; (1 << directory_bits) + 1];
    for posting in postings {
        directory[(posting.key.to_hash() >> shift) as usize + 1] += 1;
    }
    for i in 1..directory.len() {
        directory[i] += directory[i - 1];
    }
    directory
}

/// The built index: look a chunk hash up to get its postings.
#[derive(Debug)]
pub struct ChunkIndex<K: ChunkKey> {
    hash_bits: u32,
    directory_bits: u32,
    directory: Vec<u32>,
    /// Each posting's residue (see [`ChunkKey::Residue`]), sorted within
    /// each directory bucket.
    residues: Vec<K::Residue>,
    /// Each posting's chunk number.
    chunk_numbers: Vec<u32>,
    /// The number of each document's first chunk, then the number of chunks.
    doc_starts: Vec<u32>,
    /// The document of the first chunk of each block of chunk numbers
    /// ([`block_docs`]): where a chunk's document is looked for.
    block_docs: Vec<u32>,
}

impl<K: ChunkKey> ChunkIndex<K> {
    fn bucket(&self, hash: u64) -> usize {
        (hash >> self.shift()) as usize
    }

    /// Bits of a hash below the directory's.
    fn shift(&self) -> u32 {
        self.hash_bits - self.directory_bits
    }

    /// The chunk numbers of every occurrence of this hash, ascending, so
    /// ordered by (document, sequence) ([`occurrences`](Self::occurrences)).
    pub fn lookup(&self, hash: u64) -> &[u32] {
        &self.chunk_numbers[self.lookup_range(hash)]
    }

    /// Where the postings of this hash are: [`lookup`](Self::lookup) is
    /// [`postings`](Self::postings) of this range.
    pub fn lookup_range(&self, hash: u64) -> Range<usize> {
        let bucket = self.bucket(hash);
        let Some(range) = self.directory.get(bucket..bucket + 2) else {
            return 0..0;
        };
        let (first, end) = (range[0] as usize, range[1] as usize);
        let candidates = &self.residues[first..end];
        let residue = K::residue(hash);
        let start = candidates.partition_point(|&r| r < residue);
        let len = candidates[start..].partition_point(|&r| r == residue);
        first + start..first + start + len
    }

    /// The chunk numbers of the postings in `range` (a
    /// [`lookup_range`](Self::lookup_range)'s).
    pub fn postings(&self, range: Range<usize>) -> &[u32] {
        &self.chunk_numbers[range]
    }

    /// Asks the CPU to start loading the directory entry of `hash`, so that a
    /// [`lookup`](Self::lookup) a little later does not wait for memory.
    pub fn prefetch_directory(&self, hash: u64) {
        if let Some(entry) = self.directory.get(self.bucket(hash)) {
            prefetch(entry);
        }
    }

    /// Asks the CPU to start loading the postings bucket of `hash`; best after
    /// [`prefetch_directory`](Self::prefetch_directory) had time to complete.
    pub fn prefetch_bucket(&self, hash: u64) {
        let start = self.directory.get(self.bucket(hash)).map_or(0, |&s| s as usize);
        if let Some(residue) = self.residues.get(start) {
            prefetch(residue);
        }
    }

    /// The (document, sequence number) of each of `chunk_numbers` (a
    /// [`lookup`](Self::lookup)'s).
    pub fn occurrences<'a>(&'a self, chunk_numbers: &'a [u32]) -> impl Iterator<Item = (u32, u32)> + 'a {
        chunk_numbers.iter().map(|&at| {
            let mut doc = self.block_docs[(at >> LOCATE_BLOCK_BITS) as usize] as usize;
            while self.doc_starts[doc + 1] <= at {
                doc += 1;
            }
            (doc as u32, at - self.doc_starts[doc])
        })
    }

    /// Bits of the hashes this index holds.
    pub fn hash_bits(&self) -> u32 {
        self.hash_bits
    }

    /// Each distinct chunk's hash and chunk numbers, in hash order; the
    /// numbers ascending, as [`lookup`](Self::lookup) returns them.
    pub fn distinct_chunks(&self) -> impl Iterator<Item = (u64, &[u32])> + '_ {
        self.directory.windows(2).enumerate().flat_map(move |(bucket, range)| {
            let (first, end) = (range[0] as usize, range[1] as usize);
            let high = (bucket as u64) << self.shift();
            let mut start = first;
            self.residues[first..end].chunk_by(|a, b| a == b).map(move |same| {
                let numbers = &self.chunk_numbers[start..start + same.len()];
                start += same.len();
                (K::join(high, same[0]), numbers)
            })
        })
    }

    /// Number of postings (chunk occurrences) in the index.
    pub fn len(&self) -> usize {
        self.chunk_numbers.len()
    }

    /// True when the index holds no posting.
    pub fn is_empty(&self) -> bool {
        self.chunk_numbers.is_empty()
    }
}

/// A hint to load the cache line holding `value`; does nothing where the target
/// has no prefetch instruction. Lookups in an index of hundreds of megabytes
/// are bound by memory latency, which prefetching a few lookups ahead hides.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // A prefetch only hints the cache; it never faults and reads nothing the
        // program can observe, and the pointer comes from a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    fn index_of<K: ChunkKey>(docs: &[Vec<u64>], hash_bits: u32) -> ChunkIndex<K> {
        let mut builder = IndexBuilder::<K>::new(hash_bits);
        for (doc, hashes) in docs.iter().enumerate() {
            builder.add_document(doc as u32, hashes);
        }
        builder.build()
    }

    fn pairs<K: ChunkKey>(index: &ChunkIndex<K>, numbers: &[u32]) -> Vec<(u32, u32)> {
        index.occurrences(numbers).collect()
    }

    #[test]
    fn repeated_occurrences_are_kept() {
        let docs = vec![vec![7, 9, 7, 7], vec![9, 1]];
        let index = index_of::<u32>(&docs, 32);
        assert_eq!(index.len(), 6);
        assert_eq!(pairs(&index, index.lookup(7)), [(0, 0), (0, 2), (0, 3)]);
        assert_eq!(pairs(&index, index.lookup(9)), [(0, 1), (1, 0)]);
        assert_eq!(pairs(&index, index.lookup(1)), [(1, 1)]);
        assert!(index.lookup(8).is_empty());
    }

    #[test]
    fn wide_hashes_use_u64_keys() {
        let big = u64::MAX - 5;
        let index = index_of::<u64>(&[vec![big, 3], vec![big]], 64);
        assert_eq!(pairs(&index, index.lookup(big)), [(0, 0), (1, 0)]);
        assert_eq!(pairs(&index, index.lookup(3)), [(0, 1)]);
        assert_eq!(std::mem::size_of::<Posting<u32>>(), 8, "while the index is built");
    }

    #[test]
    fn documents_without_chunks_and_left_out_numbers_keep_the_numbering() {
        let mut builder = IndexBuilder::<u32>::new(32);
        builder.add_document(0, &[]);
        builder.add_document(1, &[7, 8]);
        builder.add_document_where(4, &[8, 9, 7], |hash| hash != 9);
        builder.add_document(5, &[]);
        let index = builder.build();
        assert_eq!(index.len(), 4);
        assert_eq!(pairs(&index, index.lookup(7)), [(1, 0), (4, 2)]);
        assert_eq!(pairs(&index, index.lookup(8)), [(1, 1), (4, 0)]);
        assert!(index.lookup(9).is_empty());
    }

    #[test]
    fn occurrences_are_located_across_blocks_of_chunk_numbers() {
        // Documents longer and shorter than a block, some empty: every chunk's
        // (document, sequence) comes back from its number.
        let sizes = [0usize, 3000, 1, 0, 2500, 5, 1024, 1];
        let mut builder = IndexBuilder::<u32>::new(32);
        let mut next = 0u64;
        let mut expected = Vec::new();
        for (doc, &size) in (0u32..).zip(&sizes) {
            let hashes: Vec<u64> = (next..next + size as u64).collect();
            expected.extend((0..size as u32).map(|seq| (doc, seq)));
            builder.add_document(doc, &hashes);
            next += size as u64;
        }
        let index = builder.build();
        let found: Vec<(u32, u32)> = (0..next).flat_map(|hash| pairs(&index, index.lookup(hash))).collect();
        assert_eq!(found, expected);
    }

    #[test]
    #[should_panic(expected = "out of order")]
    fn documents_are_added_in_order() {
        let mut builder = IndexBuilder::<u32>::new(32);
        builder.add_document(3, &[1]);
        builder.add_document(2, &[1]);
    }

    #[test]
    fn empty_index_answers_nothing() {
        let index = index_of::<u32>(&[], 24);
        assert!(index.is_empty());
        assert!(index.lookup(0).is_empty());
        assert!(index.lookup((1 << 24) - 1).is_empty());
    }

    proptest! {
        #[test]
        fn csr_index_equals_a_naive_map(
            docs in prop::collection::vec(prop::collection::vec(0u64..(1 << 12), 0..200), 0..8),
            probes in prop::collection::vec(0u64..(1 << 12), 0..50),
        ) {
            let index = index_of::<u32>(&docs, 12);
            let mut naive: HashMap<u64, Vec<(u32, u32)>> = HashMap::new();
            for (doc, hashes) in docs.iter().enumerate() {
                for (seq, &hash) in hashes.iter().enumerate() {
                    naive.entry(hash).or_default().push((doc as u32, seq as u32));
                }
            }
            for hash in probes.iter().copied().chain(naive.keys().copied()) {
                let expected = naive.get(&hash).cloned().unwrap_or_default();
                prop_assert_eq!(pairs(&index, index.lookup(hash)), expected);
            }
        }
    }
}
