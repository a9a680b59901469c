//! The cache of sentence embeddings: keyed by the XXH3-128 of the model's
//! identity ([`ModelId`]) and the sentence's text, so that a sentence is
//! encoded once per model.
//!
//! In memory for a run; with a directory (`detect --embedding-cache DIR`)
//! it is read when the run starts and written back when it ends, one file
//! per model, `embeddings-MODEL.bin` (`MODEL` the model's id in hex):
//! [`MAGIC`], the model id (16 bytes), the dimension (u32), the number of
//! entries (u64), then each entry's key (u128) and its values (f32), all
//! little-endian, and the XXH3-64 of everything before it (u64). The file is
//! written whole or not at all: to a temporary file of the directory, then
//! renamed over the old one (a rename replaces a link, it never writes
//! through one). A file that is not such a file is an error naming it:
//! remove it to start the cache afresh.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::embed::EmbedError;
use crate::report::output::write_atomically;

/// The first bytes of a cache file.
pub const MAGIC: &[u8; 8] = b"PDEMB001";

/// The identity of a model: the XXH3-128 of its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModelId(pub u128);

impl ModelId {
    /// The id of a model made of `files` (their bytes, in a fixed order).
    pub fn of(files: &[&[u8]]) -> ModelId {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for file in files {
            hasher.update(&(file.len() as u64).to_le_bytes());
            hasher.update(file);
        }
        ModelId(hasher.digest128())
    }
}

/// The embeddings known, each once.
#[derive(Debug, Default)]
struct Store {
    /// Where each key's values start in `values`, in dimensions.
    index: HashMap<u128, usize>,
    values: Vec<f32>,
}

/// Embeddings of one model by sentence, shared by the threads of a run.
#[derive(Debug)]
pub struct EmbeddingCache {
    model: ModelId,
    dim: usize,
    store: RwLock<Store>,
    /// Embeddings added since the cache was opened.
    inserted: AtomicU64,
    /// The file it is read from and written to, if any.
    file: Option<PathBuf>,
}

impl EmbeddingCache {
    /// An empty cache for one run, kept in memory.
    pub fn in_memory(model: ModelId, dim: usize) -> EmbeddingCache {
        EmbeddingCache { model, dim, store: RwLock::default(), inserted: AtomicU64::new(0), file: None }
    }

    /// The cache of `model` in `dir` (created when missing), with the
    /// embeddings its file holds.
    pub fn open(dir: &Path, model: ModelId, dim: usize) -> Result<EmbeddingCache, EmbedError> {
        let error = |path: &Path, reason: String| EmbedError::Cache { path: path.to_path_buf(), reason };
        fs::create_dir_all(dir).map_err(|e| error(dir, format!("cannot create the cache directory: {e}")))?;
        if !dir.is_dir() {
            return Err(error(dir, "not a directory".into()));
        }
        let file = dir.join(format!("embeddings-{:032x}.bin", model.0));
        let store = match fs::read(&file) {
            Ok(bytes) => parse(&bytes, model, dim).map_err(|reason| error(&file, reason))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Store::default(),
            Err(e) => return Err(error(&file, format!("cannot read: {e}"))),
        };
        Ok(EmbeddingCache { file: Some(file), store: RwLock::new(store), ..EmbeddingCache::in_memory(model, dim) })
    }

    /// The key of `text`'s embedding.
    pub fn key(&self, text: &str) -> u128 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&self.model.0.to_le_bytes());
        hasher.update(text.as_bytes());
        hasher.digest128()
    }

    /// Appends to `out` one embedding per key, those cached filled in and
    /// the others zero; returns the positions (in `keys`) of the others.
    pub fn fill(&self, keys: &[u128], out: &mut Vec<f32>) -> Vec<usize> {
        let store = self.store.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut missing = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            match store.index.get(key) {
                Some(&at) => out.extend_from_slice(&store.values[at..at + self.dim]),
                None => {
                    out.resize(out.len() + self.dim, 0.0);
                    missing.push(i);
                }
            }
        }
        missing
    }

    /// Adds embeddings by key (a key known already keeps its embedding).
    pub fn insert<'v>(&self, entries: impl Iterator<Item = (u128, &'v [f32])>) {
        let mut store = self.store.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        for (key, vector) in entries {
            debug_assert_eq!(vector.len(), self.dim);
            if !store.index.contains_key(&key) {
                let at = store.values.len();
                store.values.extend_from_slice(vector);
                store.index.insert(key, at);
                self.inserted.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Embeddings added since the cache was opened.
    pub fn inserted(&self) -> u64 {
        self.inserted.load(Ordering::Relaxed)
    }

    /// Writes every embedding to the cache's file, whole or not at all;
    /// nothing when it has no file or nothing was added.
    pub fn save(&self) -> Result<(), EmbedError> {
        let Some(file) = &self.file else { return Ok(()) };
        if self.inserted() == 0 {
            return Ok(());
        }
        let store = self.store.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        let bytes = serialize(&store, self.model, self.dim);
        write_atomically(file, &bytes)
            .map_err(|e| EmbedError::Cache { path: file.clone(), reason: format!("cannot write: {e}") })
    }
}

/// Bytes of the header: magic, model id, dimension, entries.
const HEADER_BYTES: usize = 8 + 16 + 4 + 8;

/// The cache file's bytes for `store`.
fn serialize(store: &Store, model: ModelId, dim: usize) -> Vec<u8> {
    let entry_bytes = 16 + 4 * dim;
    let mut bytes = Vec::with_capacity(HEADER_BYTES + store.index.len() * entry_bytes + 8);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&model.0.to_le_bytes());
    bytes.extend_from_slice(&(dim as u32).to_le_bytes());
    bytes.extend_from_slice(&(store.index.len() as u64).to_le_bytes());
    let mut entries: Vec<(&u128, &usize)> = store.index.iter().collect();
    entries.sort_unstable_by_key(|(_, at)| **at);
    for (key, &at) in entries {
        bytes.extend_from_slice(&key.to_le_bytes());
        for value in &store.values[at..at + dim] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
    }
    let check = xxhash_rust::xxh3::xxh3_64(&bytes);
    bytes.extend_from_slice(&check.to_le_bytes());
    bytes
}

/// The store a cache file's `bytes` hold, or why they are not one of
/// `model`'s with `dim` dimensions.
fn parse(bytes: &[u8], model: ModelId, dim: usize) -> Result<Store, String> {
    let not_a_cache = || "not an embedding cache of pan-detect (remove it to start afresh)".to_string();
    if bytes.len() < HEADER_BYTES + 8 || &bytes[..8] != MAGIC {
        return Err(not_a_cache());
    }
    let (body, check) = bytes.split_at(bytes.len() - 8);
    if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != check {
        return Err("damaged: its check does not match (remove it to start afresh)".into());
    }
    let (file_model, file_dim) = (u128_of(&body[8..24]), u32::from_le_bytes(body[24..28].try_into().expect("4 bytes")));
    if file_model != model.0 || file_dim as usize != dim {
        return Err("holds another model's embeddings".into());
    }
    let count = u64::from_le_bytes(body[28..36].try_into().expect("8 bytes")) as usize;
    let entry_bytes = 16 + 4 * dim;
    if count.checked_mul(entry_bytes).and_then(|n| n.checked_add(HEADER_BYTES)) != Some(body.len()) {
        return Err(not_a_cache());
    }
    let mut store = Store { index: HashMap::with_capacity(count), values: Vec::with_capacity(count * dim) };
    for entry in body[HEADER_BYTES..].chunks_exact(entry_bytes) {
        let at = store.values.len();
        store.values.extend(entry[16..].chunks_exact(4).map(|v| f32::from_le_bytes(v.try_into().expect("4 bytes"))));
        store.index.insert(u128_of(&entry[..16]), at);
    }
    Ok(store)
}

/// A little-endian u128 from 16 bytes.
fn u128_of(bytes: &[u8]) -> u128 {
    u128::from_le_bytes(bytes.try_into().expect("16 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: ModelId = ModelId(7);

    #[test]
    fn a_saved_cache_is_read_again_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EmbeddingCache::open(dir.path(), MODEL, 2).unwrap();
        let (a, b) = (cache.key("one sentence"), cache.key("another"));
        cache.insert([(a, &[1.0, 2.0][..]), (b, &[3.0, 4.0][..])].into_iter());
        cache.save().unwrap();
        let again = EmbeddingCache::open(dir.path(), MODEL, 2).unwrap();
        let mut out = Vec::new();
        assert_eq!(again.fill(&[b, a, 5], &mut out), [2]);
        assert_eq!(out, [3.0, 4.0, 1.0, 2.0, 0.0, 0.0]);
        assert!(EmbeddingCache::open(dir.path(), ModelId(8), 2).unwrap().fill(&[a], &mut out) == [0]);
        let file = dir.path().join(format!("embeddings-{:032x}.bin", MODEL.0));
        let mut bytes = fs::read(&file).unwrap();
        bytes[40] ^= 1;
        fs::write(&file, &bytes).unwrap();
        let error = EmbeddingCache::open(dir.path(), MODEL, 2).unwrap_err().to_string();
        assert!(error.starts_with(&file.display().to_string()) && error.contains("damaged"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn saving_replaces_a_link_rather_than_writing_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::write(&elsewhere, "not ours").unwrap();
        let cache = EmbeddingCache::open(&dir.path().join("cache"), MODEL, 1).unwrap();
        let file = dir.path().join("cache").join(format!("embeddings-{:032x}.bin", MODEL.0));
        std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
        cache.insert([(cache.key("x"), &[1.0][..])].into_iter());
        cache.save().unwrap();
        assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "not ours");
        assert!(!fs::symlink_metadata(&file).unwrap().file_type().is_symlink());
    }
}
