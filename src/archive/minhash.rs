//! The MinHash signatures of an archive's documents, stored beside the index
//! for screening one new document against the archive ([`crate::screening`]).
//!
//! ```text
//! IDX/minhash/signatures.bin
//!   magic "PANMINH1", then little-endian: version u32 (1), shingle width
//!   u32, bands u32, rows u32, seed u64, the index generation the
//!   signatures were computed from u64, documents u64; per document (name
//!   order): name length u32, name (UTF-8), bands × rows values u64; last,
//!   the CRC-32 of every byte before it, u32
//! ```
//!
//! The file is outside every generation directory: writing it never touches
//! the index's files, and an update does not carry it along. It records the
//! generation it was computed from, so a reader can tell that the index has
//! changed since ([`SignatureStore::generation`]); computing it again
//! (`similar --method minhash --build`) replaces it whole. It is written to a
//! temporary file in the same directory, fsynced and renamed: a reader sees
//! the old file or the new one, never a part.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::error::ArchiveError;
use super::format::sync_dir;
use super::reader::ArchiveIndex;
use crate::analysis::minhash::{ShingleSet, Signature, jaccard};
use crate::error::Warning;
use crate::matching::lsh::{Banding, LshIndex};
use crate::progress::{Progress, Stage};
use crate::screening::{ScreenedDocument, ScreenedPair, Screening, sort_pairs};

/// The directory of the signatures inside an index directory.
pub const MINHASH_DIR: &str = "minhash";
/// The signature file's name.
pub const SIGNATURES_FILE: &str = "signatures.bin";
const MAGIC: &[u8; 8] = b"PANMINH1";
const VERSION: u32 = 1;

/// The stored signatures of an archive's documents and how they were made.
#[derive(Debug, Clone)]
pub struct SignatureStore {
    path: PathBuf,
    width: usize,
    banding: Banding,
    seed: u64,
    generation: u64,
    documents: Vec<(String, Signature)>,
}

/// What [`SignatureStore::build`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildSummary {
    /// Documents with a signature.
    pub documents: u64,
    /// Documents left out (unreadable, changed since indexed, or no text).
    pub skipped: u64,
    /// The index generation they were computed from.
    pub generation: u64,
}

/// Where the signatures of the index in `root` are kept.
pub fn signatures_path(root: &Path) -> PathBuf {
    root.join(MINHASH_DIR).join(SIGNATURES_FILE)
}

impl SignatureStore {
    /// Computes the signatures of the live documents of `index` with
    /// `screening`'s settings and writes them (see the module's
    /// documentation), replacing any there. Texts are read back as indexed;
    /// a document changed since is left out with a warning.
    pub fn build(
        index: &ArchiveIndex,
        screening: &Screening,
        progress: &dyn Progress,
    ) -> Result<BuildSummary, ArchiveError> {
        let ids: Vec<u32> = index.live_ids().collect();
        progress.start(Stage::Signatures, ids.len() as u64);
        let mut documents: Vec<(String, Signature)> = ids
            .par_iter()
            .filter_map(|&id| {
                let name = index.name(id);
                let screened = index.document_text(id).and_then(|text| screening.screen_text(name, &text));
                progress.advance(1);
                if screened.is_none() {
                    let message = "changed or unreadable since indexed, or no text; no signature".to_string();
                    progress.warn(&Warning { path: PathBuf::from(name), message });
                }
                screened.map(|doc| (doc.name, doc.signature))
            })
            .collect();
        progress.finish();
        documents.sort_by(|a, b| a.0.cmp(&b.0));
        let store = SignatureStore {
            path: signatures_path(index.root()),
            width: screening.hasher().width(),
            banding: screening.banding(),
            seed: screening.hasher().seed(),
            generation: index.header().generation,
            documents,
        };
        store.write()?;
        let documents = store.documents.len() as u64;
        Ok(BuildSummary { documents, skipped: ids.len() as u64 - documents, generation: store.generation })
    }

    /// Writes the file: a temporary file in the same directory, fsynced and
    /// renamed over the old one (a rename is atomic only within one
    /// filesystem, hence the same directory), then the directory fsynced.
    fn write(&self) -> Result<(), ArchiveError> {
        let dir = self.path.parent().unwrap_or(Path::new(".")); // signatures_path has a parent.
        fs::create_dir_all(dir).map_err(ArchiveError::io(dir))?;
        let temporary = tempfile::NamedTempFile::new_in(dir).map_err(ArchiveError::io(dir))?;
        let bytes = self.encode();
        let mut out = BufWriter::new(temporary.as_file());
        out.write_all(&bytes).and_then(|()| out.flush()).map_err(ArchiveError::io(temporary.path()))?;
        drop(out);
        temporary.as_file().sync_all().map_err(ArchiveError::io(temporary.path()))?;
        temporary.persist(&self.path).map_err(|e| ArchiveError::Io { path: self.path.clone(), source: e.error })?;
        sync_dir(dir)
    }

    /// The file's bytes.
    fn encode(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        for value in [VERSION, self.width as u32, self.banding.bands() as u32, self.banding.rows() as u32] {
            bytes.extend(value.to_le_bytes());
        }
        for value in [self.seed, self.generation, self.documents.len() as u64] {
            bytes.extend(value.to_le_bytes());
        }
        for (name, signature) in &self.documents {
            bytes.extend((name.len() as u32).to_le_bytes());
            bytes.extend(name.as_bytes());
            bytes.extend(signature.0.iter().flat_map(|v| v.to_le_bytes()));
        }
        let crc = crc32fast::hash(&bytes);
        bytes.extend(crc.to_le_bytes());
        bytes
    }

    /// Reads the signatures stored beside the index in `root`, checking
    /// the magic, the version and the CRC-32.
    pub fn open(root: &Path) -> Result<SignatureStore, ArchiveError> {
        let path = signatures_path(root);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ArchiveError::NoSignatures(path)),
            Err(source) => return Err(ArchiveError::Io { path, source }),
        };
        decode(path, &bytes)
    }

    /// Refuses a shingle width, band or row count given that differs from
    /// the stored one (`None`: not given).
    pub fn check_settings(
        &self,
        width: Option<usize>,
        bands: Option<usize>,
        rows: Option<usize>,
    ) -> Result<(), ArchiveError> {
        let stored = [("--shingle", self.width), ("--bands", self.banding.bands()), ("--rows", self.banding.rows())];
        for ((flag, stored), given) in stored.into_iter().zip([width, bands, rows]) {
            if let Some(given) = given.filter(|&given| given != stored) {
                return Err(ArchiveError::SignatureMismatch { path: self.path.clone(), flag, given, stored });
            }
        }
        Ok(())
    }

    /// The screening settings the signatures were made with.
    pub fn screening(&self, exact: bool) -> Result<Screening, ArchiveError> {
        Ok(Screening::new(self.width, self.banding, self.seed, exact)?)
    }

    /// The index generation the signatures were computed from.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Documents with a stored signature.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether no document has a stored signature.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// The stored documents that are candidates for `doc` (made with
    /// [`screening`](Self::screening)), most similar first. With `index`,
    /// each gets its exact Jaccard similarity from its text read back from
    /// the archive (none when it changed since).
    pub fn query(&self, doc: &ScreenedDocument, index: Option<&ArchiveIndex>) -> Vec<ScreenedPair> {
        let lsh = LshIndex::build(self.banding, (0u32..).zip(self.documents.iter().map(|(_, s)| s)));
        let candidates = lsh.candidates(self.banding, &doc.signature);
        let names: Option<std::collections::HashMap<&str, u32>> =
            index.map(|index| index.live_ids().map(|id| (index.name(id), id)).collect());
        let mut pairs: Vec<ScreenedPair> = candidates
            .par_iter()
            .map(|&i| {
                let (name, signature) = &self.documents[i as usize];
                let stored_shingles = || -> Option<ShingleSet> {
                    let (index, names) = (index?, names.as_ref()?);
                    shingles_of(index, *names.get(name.as_str())?, self.width)
                };
                let exact = doc.shingles.as_ref().and_then(|own| Some(jaccard(own, &stored_shingles()?)));
                ScreenedPair {
                    document: doc.name.clone(),
                    other: name.clone(),
                    estimated_jaccard: doc.signature.agreement(signature),
                    exact_jaccard: exact,
                }
            })
            .collect();
        sort_pairs(&mut pairs);
        pairs
    }
}

/// The shingle set of archive document `id`, read back as indexed.
fn shingles_of(index: &ArchiveIndex, id: u32, width: usize) -> Option<ShingleSet> {
    Some(crate::analysis::minhash::shingles(&index.document_text(id)?, width))
}

/// Parses the file's bytes.
fn decode(path: PathBuf, bytes: &[u8]) -> Result<SignatureStore, ArchiveError> {
    let corrupt = |message: String| ArchiveError::Corrupt { path: path.clone(), message };
    if bytes.len() < 48 || &bytes[..8] != MAGIC {
        return Err(corrupt("not a pan-detect MinHash signature file".into()));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return Err(corrupt("checksum mismatch".into()));
    }
    let mut reader = Reader { bytes: &body[8..], path: &path };
    let version = reader.u32()?;
    if version != VERSION {
        return Err(corrupt(format!("version {version}, this pan-detect reads {VERSION}")));
    }
    let (width, bands, rows) = (reader.u32()? as usize, reader.u32()? as usize, reader.u32()? as usize);
    let (seed, generation, count) = (reader.u64()?, reader.u64()?, reader.u64()?);
    let banding = Banding::new(bands, rows).map_err(|e| corrupt(e.to_string()))?;
    let mut documents = Vec::new();
    for _ in 0..count {
        let len = reader.u32()? as usize;
        let name = std::str::from_utf8(reader.take(len)?).map_err(|_| corrupt("a name is not UTF-8".into()))?;
        let values = (0..banding.signature_len()).map(|_| reader.u64()).collect::<Result<Vec<u64>, _>>()?;
        documents.push((name.to_string(), Signature(values)));
    }
    if !reader.bytes.is_empty() {
        return Err(corrupt("bytes after the last signature".into()));
    }
    Ok(SignatureStore { path, width, banding, seed, generation, documents })
}

/// Little-endian reads from the bytes of the file at `path`.
struct Reader<'a> {
    bytes: &'a [u8],
    path: &'a Path,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ArchiveError> {
        if n > self.bytes.len() {
            return Err(ArchiveError::Corrupt { path: self.path.to_path_buf(), message: "truncated".into() });
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, ArchiveError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn u64(&mut self) -> Result<u64, ArchiveError> {
        let mut value = [0; 8];
        value.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(value))
    }
}
