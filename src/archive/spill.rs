//! Postings spilled to disk while `index create` reads the documents, in
//! partitions by the top bits of their hash, so that sorting them holds one
//! partition in memory at a time instead of every posting: create's peak
//! memory then follows a batch of documents and one partition, not the
//! archive.
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

/// Postings written to partition files in any order and read back sorted.
pub(crate) struct SpilledPostings<K> {
    paths: Vec<PathBuf>,
    files: Vec<BufWriter<File>>,
    counts: Vec<u64>,
    hash_bits: u32,
    shift: u32,
    key: PhantomData<K>,
}

impl<K: ChunkKey> SpilledPostings<K> {
    /// Partition files in `dir` for postings of `hash_bits`-bit hashes.
    pub(crate) fn new(dir: &Path, hash_bits: u32) -> Result<Self, ArchiveError> {
        let bits = PARTITION_BITS.min(hash_bits);
        let paths: Vec<PathBuf> = (0..1usize << bits).map(|p| dir.join(format!("postings-{p:02}.spill"))).collect();
        let files = paths
            .iter()
            .map(|path| Ok(BufWriter::with_capacity(BUFFER_BYTES, File::create(path).map_err(ArchiveError::io(path))?)))
            .collect::<Result<Vec<_>, ArchiveError>>()?;
        let counts = vec![0; paths.len()];
        Ok(SpilledPostings { paths, files, counts, hash_bits, shift: hash_bits - bits, key: PhantomData })
    }

    /// Writes `postings` to their partitions.
    pub(crate) fn push(&mut self, postings: impl Iterator<Item = KeyDoc<K>>) -> Result<(), ArchiveError> {
        let key_bytes = (K::WIDTH / 8) as usize;
        for posting in postings {
            let partition = posting.key.to_hash().checked_shr(self.shift).unwrap_or(0) as usize;
            let mut record = [0u8; 12];
            record[..8].copy_from_slice(&posting.key.to_hash().to_le_bytes());
            record[key_bytes..key_bytes + 4].copy_from_slice(&posting.doc.to_le_bytes());
            let path = &self.paths[partition];
            self.files[partition].write_all(&record[..key_bytes + 4]).map_err(ArchiveError::io(path))?;
            self.counts[partition] += 1;
        }
        Ok(())
    }

    /// Postings written.
    pub(crate) fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Reads the partitions back in order, each sorted by (hash, document),
    /// hands each to `sink`, and removes the files.
    pub(crate) fn drain_sorted(
        self,
        mut sink: impl FnMut(&[KeyDoc<K>]) -> Result<(), ArchiveError>,
    ) -> Result<(), ArchiveError> {
        let SpilledPostings { paths, files, counts, hash_bits, .. } = self;
        for (file, path) in files.into_iter().zip(&paths) {
            file.into_inner().map_err(|e| ArchiveError::io(path)(e.into_error()))?;
        }
        for (path, &count) in paths.iter().zip(&counts) {
            let mut postings = read_partition::<K>(path, count)?;
            sort_postings(&mut postings, hash_bits);
            sink(&postings)?;
            drop(postings);
            fs::remove_file(path).map_err(ArchiveError::io(path))?;
        }
        Ok(())
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

    fn round_trip<K: ChunkKey>(hash_bits: u32, hashes: &[u64]) -> Vec<(u64, u32)> {
        let dir = tempfile::tempdir().unwrap();
        let mut spilled = SpilledPostings::<K>::new(dir.path(), hash_bits).unwrap();
        let postings =
            hashes.iter().enumerate().map(|(doc, &hash)| KeyDoc { key: K::from_hash(hash), doc: doc as u32 });
        spilled.push(postings).unwrap();
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
        assert_eq!(round_trip::<u32>(32, &hashes), expected);
        let wide: Vec<u64> = hashes.iter().map(|h| h << 20 | 0xabcde).collect();
        let mut expected: Vec<(u64, u32)> = wide.iter().enumerate().map(|(d, &h)| (h, d as u32)).collect();
        expected.sort_unstable();
        assert_eq!(round_trip::<u64>(52, &wide), expected);
        assert!(round_trip::<u32>(24, &[]).is_empty());
    }
}
