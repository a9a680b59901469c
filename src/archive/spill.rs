//! Postings spilled to disk while `index create` reads the documents, in
//! partitions by the top bits of their hash, so that sorting them holds one
//! partition in memory at a time instead of every posting: create's peak
//! memory then follows a batch of documents and one partition, not the
//! archive. The first postings are held in memory: an update of a few
//! documents sorts them there and writes no partition files.
//!
//! The partition files live in the generation directory being written and are
//! removed once read; a crash leaves them with the rest of that uncommitted
//! generation, which the next writer removes.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use super::builder::{KeyDoc, sort_postings};
use super::error::ArchiveError;
use crate::matching::index::ChunkKey;

/// Partitions of the postings (by the top bits of the hash).
const PARTITION_BITS: u32 = 4;
/// Bytes buffered per partition file.
const BUFFER_BYTES: usize = 256 << 10;
/// Postings held in memory before the first are written to partition files
/// (32 MiB of 64-bit keys): an update of a few documents writes none.
const HELD_POSTINGS: usize = 1 << 21;

/// Postings added in any order and read back sorted: held in memory, or
/// written to partition files once there are many.
pub(crate) struct SpilledPostings<K> {
    dir: PathBuf,
    /// Postings not written to the partitions yet.
    held: Vec<KeyDoc<K>>,
    /// Postings held at most before they are written.
    max_held: usize,
    /// The partition files, created when the first postings are written.
    partitions: Option<Partitions>,
    hash_bits: u32,
    key: PhantomData<K>,
}

/// The partition files and the postings written to each.
struct Partitions {
    paths: Vec<PathBuf>,
    files: Vec<BufWriter<File>>,
    counts: Vec<u64>,
    shift: u32,
}

impl<K: ChunkKey> SpilledPostings<K> {
    /// Postings of `hash_bits`-bit hashes, to spill into partition files in
    /// `dir` when there are many.
    pub(crate) fn new(dir: &Path, hash_bits: u32) -> Self {
        Self::holding(dir, hash_bits, HELD_POSTINGS)
    }

    /// The same, holding at most `max_held` postings in memory.
    fn holding(dir: &Path, hash_bits: u32, max_held: usize) -> Self {
        SpilledPostings {
            dir: dir.to_path_buf(),
            held: Vec::new(),
            max_held,
            partitions: None,
            hash_bits,
            key: PhantomData,
        }
    }

    /// Adds `postings`. Once the held postings are more than the memory
    /// allows, they and all later ones are written to the partitions.
    pub(crate) fn push(&mut self, postings: impl Iterator<Item = KeyDoc<K>>) -> Result<(), ArchiveError> {
        self.held.extend(postings);
        if self.partitions.is_some() || self.held.len() > self.max_held {
            self.spill()?;
        }
        Ok(())
    }

    /// Writes the held postings to their partitions (created on first use).
    fn spill(&mut self) -> Result<(), ArchiveError> {
        let partitions = match &mut self.partitions {
            Some(partitions) => partitions,
            None => self.partitions.insert(Partitions::create(&self.dir, self.hash_bits)?),
        };
        let key_bytes = (K::WIDTH / 8) as usize;
        // Taken, so that its memory is freed once written.
        for posting in std::mem::take(&mut self.held) {
            let partition = posting.key.to_hash().checked_shr(partitions.shift).unwrap_or(0) as usize;
            let mut record = [0u8; 12];
            record[..8].copy_from_slice(&posting.key.to_hash().to_le_bytes());
            record[key_bytes..key_bytes + 4].copy_from_slice(&posting.doc.to_le_bytes());
            let path = &partitions.paths[partition];
            partitions.files[partition].write_all(&record[..key_bytes + 4]).map_err(ArchiveError::io(path))?;
            partitions.counts[partition] += 1;
        }
        Ok(())
    }

    /// Postings added.
    pub(crate) fn total(&self) -> u64 {
        let written: u64 = self.partitions.as_ref().map_or(0, |p| p.counts.iter().sum());
        written + self.held.len() as u64
    }

    /// Hands the postings to `sink` in (hash, document) order, in one or more
    /// slices (a partition each when they were written), and removes the
    /// partition files.
    pub(crate) fn drain_sorted(
        mut self,
        mut sink: impl FnMut(&[KeyDoc<K>]) -> Result<(), ArchiveError>,
    ) -> Result<(), ArchiveError> {
        if self.partitions.is_none() {
            sort_postings(&mut self.held, self.hash_bits);
            return sink(&self.held);
        }
        self.spill()?;
        let Partitions { paths, files, counts, .. } = self.partitions.take().expect("spilled above");
        for (file, path) in files.into_iter().zip(&paths) {
            file.into_inner().map_err(|e| ArchiveError::io(path)(e.into_error()))?;
        }
        for (path, &count) in paths.iter().zip(&counts) {
            let mut postings = read_partition::<K>(path, count)?;
            sort_postings(&mut postings, self.hash_bits);
            sink(&postings)?;
            drop(postings);
            fs::remove_file(path).map_err(ArchiveError::io(path))?;
        }
        Ok(())
    }
}

impl Partitions {
    /// Empty partition files in `dir` for `hash_bits`-bit hashes.
    fn create(dir: &Path, hash_bits: u32) -> Result<Self, ArchiveError> {
        let bits = PARTITION_BITS.min(hash_bits);
        let paths: Vec<PathBuf> = (0..1usize << bits).map(|p| dir.join(format!("postings-{p:02}.spill"))).collect();
        let files = paths
            .iter()
            .map(|path| Ok(BufWriter::with_capacity(BUFFER_BYTES, File::create(path).map_err(ArchiveError::io(path))?)))
            .collect::<Result<Vec<_>, ArchiveError>>()?;
        let counts = vec![0; paths.len()];
        Ok(Partitions { paths, files, counts, shift: hash_bits - bits })
    }
}

/// The `count` postings of the partition file at `path`.
fn read_partition<K: ChunkKey>(path: &Path, count: u64) -> Result<Vec<KeyDoc<K>>, ArchiveError> {
    let key_bytes = (K::WIDTH / 8) as usize;
    let mut reader = BufReader::with_capacity(BUFFER_BYTES, File::open(path).map_err(ArchiveError::io(path))?);
    let mut postings = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut record = [0u8; 12];
    for _ in 0..count {
        reader.read_exact(&mut record[..key_bytes + 4]).map_err(ArchiveError::io(path))?;
        let mut key = [0u8; 8];
        key[..key_bytes].copy_from_slice(&record[..key_bytes]);
        let doc = u32::from_le_bytes([
            record[key_bytes],
            record[key_bytes + 1],
            record[key_bytes + 2],
            record[key_bytes + 3],
        ]);
        postings.push(KeyDoc { key: K::from_hash(u64::from_le_bytes(key)), doc });
    }
    Ok(postings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The postings of `hashes` (document `i` holding `hashes[i]`) added in
    /// pieces of 1000 and drained, holding at most `max_held` in memory.
    fn round_trip<K: ChunkKey>(hash_bits: u32, hashes: &[u64], max_held: usize) -> Vec<(u64, u32)> {
        let dir = tempfile::tempdir().unwrap();
        let mut spilled = SpilledPostings::<K>::holding(dir.path(), hash_bits, max_held);
        for (piece, hashes) in hashes.chunks(1000).enumerate() {
            let postings = hashes
                .iter()
                .enumerate()
                .map(|(i, &hash)| KeyDoc { key: K::from_hash(hash), doc: (piece * 1000 + i) as u32 });
            spilled.push(postings).unwrap();
        }
        assert_eq!(spilled.total(), hashes.len() as u64);
        let mut out = Vec::new();
        spilled
            .drain_sorted(|part| {
                out.extend(part.iter().map(|p| (p.key.to_hash(), p.doc)));
                Ok(())
            })
            .unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "partition files are removed");
        out
    }

    #[test]
    fn postings_come_back_sorted_by_hash_then_document() {
        let hashes: Vec<u64> = (0..5000u64).map(|i| (i * 2_654_435_761) % (1 << 32)).chain([7, 7, 0]).collect();
        let mut expected: Vec<(u64, u32)> = hashes.iter().enumerate().map(|(d, &h)| (h, d as u32)).collect();
        expected.sort_unstable();
        let wide: Vec<u64> = hashes.iter().map(|h| h << 20 | 0xabcde).collect();
        let mut expected_wide: Vec<(u64, u32)> = wide.iter().enumerate().map(|(d, &h)| (h, d as u32)).collect();
        expected_wide.sort_unstable();
        // All in memory, spilled after some pieces, spilled after each.
        for max_held in [usize::MAX, 2500, 0] {
            assert_eq!(round_trip::<u32>(32, &hashes, max_held), expected);
            assert_eq!(round_trip::<u64>(52, &wide, max_held), expected_wide);
            assert!(round_trip::<u32>(24, &[], max_held).is_empty());
        }
    }
}
