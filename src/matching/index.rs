//! The inverted index: chunk hash → postings (document, chunk sequence).
//!
//! Layout (CSR): one postings array sorted by hash, plus a directory of offsets
//! indexed by the top `directory_bits` bits of the hash, so a lookup is one
//! directory read and a binary search inside a small bucket. Repeated occurrences
//! of a chunk in one document are separate postings.
//!
//! The postings array is built by appending every document's chunks and sorting
//! them in place by bucket sort (`bucket_sort.rs`: an in-place radix pass on
//! the top hash bits, then the buckets sorted in parallel). No second copy of the
//! postings is ever made.
//!
//! The character range of a posting lives beside the index, in the per-document
//! chunk ranges indexed by the posting's sequence number, which keeps a posting at
//! 12 bytes (16 with hashes wider than 32 bits).

use std::fmt::Debug;

use crate::matching::bucket_sort;

/// The stored form of a chunk hash: `u32` for hashes of up to 32 bits, `u64`
/// above, so that postings stay small.
pub trait ChunkKey: Copy + Ord + Send + Sync + Debug + 'static {
    /// Bits the type can hold.
    const WIDTH: u32;
    /// The key for a right-aligned hash of at most `WIDTH` bits.
    fn from_hash(hash: u64) -> Self;
    /// The hash back as `u64`.
    fn to_hash(self) -> u64;
}

impl ChunkKey for u32 {
    const WIDTH: u32 = 32;
    fn from_hash(hash: u64) -> Self {
        debug_assert!(hash <= u64::from(u32::MAX));
        hash as u32
    }
    fn to_hash(self) -> u64 {
        u64::from(self)
    }
}

impl ChunkKey for u64 {
    const WIDTH: u32 = 64;
    fn from_hash(hash: u64) -> Self {
        hash
    }
    fn to_hash(self) -> u64 {
        self
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

/// One occurrence of a chunk: which document, and which chunk in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Posting<K> {
    /// The chunk's hash.
    pub key: K,
    /// Document number, as given to [`IndexBuilder::add_document`].
    pub doc: u32,
    /// Sequence number of the chunk in its document.
    pub seq: u32,
}

/// Collects postings document by document; [`IndexBuilder::build`] sorts them.
#[derive(Debug)]
pub struct IndexBuilder<K> {
    hash_bits: u32,
    postings: Vec<Posting<K>>,
}

impl<K: ChunkKey> IndexBuilder<K> {
    /// An empty builder for hashes of `hash_bits` bits (1..=`K::WIDTH`).
    pub fn new(hash_bits: u32) -> Self {
        assert!(hash_bits >= 1 && hash_bits <= K::WIDTH, "{hash_bits} hash bits do not fit the key type");
        IndexBuilder { hash_bits, postings: Vec::new() }
    }

    /// Adds the chunks of document `doc`; `hashes[seq]` is the hash of chunk `seq`.
    pub fn add_document(&mut self, doc: u32, hashes: &[u64]) {
        let postings = hashes.iter().zip(0u32..).map(|(&hash, seq)| Posting { key: K::from_hash(hash), doc, seq });
        self.postings.extend(postings);
    }

    /// Adds the chunks of document `doc` whose hash passes `keep`; chunk `seq`
    /// keeps its number.
    pub fn add_document_where(&mut self, doc: u32, hashes: &[u64], keep: impl Fn(u64) -> bool) {
        let kept = hashes.iter().zip(0u32..).filter(|(hash, _)| keep(**hash));
        self.postings.extend(kept.map(|(&hash, seq)| Posting { key: K::from_hash(hash), doc, seq }));
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
        assert!(self.postings.len() <= u32::MAX as usize, "more than 2^32 postings");
        self.postings.shrink_to_fit();
        bucket_sort::sort_by_hash(&mut self.postings, self.hash_bits, |p| p.key.to_hash());
        let directory_bits = directory_bits(self.postings.len(), self.hash_bits);
        let directory = build_directory(&self.postings, self.hash_bits, directory_bits);
        ChunkIndex { hash_bits: self.hash_bits, directory_bits, directory, postings: self.postings }
    }
}

/// Directory size: about eight postings (two cache lines) per directory entry,
/// 2^8 to 2^24 entries, never more bits than the hash has.
fn directory_bits(postings: usize, hash_bits: u32) -> u32 {
    let wanted = (postings / 8).max(1).ilog2();
    wanted.clamp(8, 24).min(hash_bits)
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
pub struct ChunkIndex<K> {
    hash_bits: u32,
    directory_bits: u32,
    directory: Vec<u32>,
    postings: Vec<Posting<K>>,
}

impl<K: ChunkKey> ChunkIndex<K> {
    fn bucket(&self, hash: u64) -> usize {
        (hash >> (self.hash_bits - self.directory_bits)) as usize
    }

    /// All postings of chunks with this hash, ordered by (document, sequence).
    pub fn lookup(&self, hash: u64) -> &[Posting<K>] {
        let bucket = self.bucket(hash);
        let Some(range) = self.directory.get(bucket..bucket + 2) else {
            return &[];
        };
        let candidates = &self.postings[range[0] as usize..range[1] as usize];
        let key = K::from_hash(hash);
        let start = candidates.partition_point(|p| p.key < key);
        let end = start + candidates[start..].partition_point(|p| p.key == key);
        &candidates[start..end]
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
        if let Some(posting) = self.postings.get(start) {
            prefetch(posting);
        }
    }

    /// Bits of the hashes this index holds.
    pub fn hash_bits(&self) -> u32 {
        self.hash_bits
    }

    /// The postings of each distinct chunk, in hash order; each slice is
    /// ordered by (document, sequence), as [`lookup`](Self::lookup) returns it.
    pub fn distinct_chunks(&self) -> impl Iterator<Item = &[Posting<K>]> + '_ {
        self.postings.chunk_by(|a, b| a.key == b.key)
    }

    /// Number of postings (chunk occurrences) in the index.
    pub fn len(&self) -> usize {
        self.postings.len()
    }

    /// True when the index holds no posting.
    pub fn is_empty(&self) -> bool {
        self.postings.is_empty()
    }
}

/// A hint to load the cache line holding `value`; does nothing where the target
/// has no prefetch instruction. Lookups in an index of hundreds of megabytes
/// are bound by memory latency, which prefetching a few lookups ahead hides.
#[inline(always)]
fn prefetch<T>(value: &T) {
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

    fn pairs<K: ChunkKey>(postings: &[Posting<K>]) -> Vec<(u32, u32)> {
        postings.iter().map(|p| (p.doc, p.seq)).collect()
    }

    #[test]
    fn repeated_occurrences_are_kept() {
        let docs = vec![vec![7, 9, 7, 7], vec![9, 1]];
        let index = index_of::<u32>(&docs, 32);
        assert_eq!(index.len(), 6);
        assert_eq!(pairs(index.lookup(7)), [(0, 0), (0, 2), (0, 3)]);
        assert_eq!(pairs(index.lookup(9)), [(0, 1), (1, 0)]);
        assert_eq!(pairs(index.lookup(1)), [(1, 1)]);
        assert!(index.lookup(8).is_empty());
    }

    #[test]
    fn wide_hashes_use_u64_keys() {
        let big = u64::MAX - 5;
        let index = index_of::<u64>(&[vec![big, 3], vec![big]], 64);
        assert_eq!(pairs(index.lookup(big)), [(0, 0), (1, 0)]);
        assert_eq!(pairs(index.lookup(3)), [(0, 1)]);
        assert_eq!(std::mem::size_of::<Posting<u32>>(), 12);
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
                prop_assert_eq!(pairs(index.lookup(hash)), expected);
            }
        }
    }
}
