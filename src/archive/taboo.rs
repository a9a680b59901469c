//! The archive's taboo set: the chunk hashes of texts whose passages are
//! never reported ([`crate::analysis::taboo`]: a thesis template, an assignment, a
//! licence), chunked with the archive's own settings so that they are the
//! hashes its documents' chunks and postings hold.
//!
//! `index create --taboo` stores the set in the generation as `taboo.bin`
//! (the hashes sorted, 4 or 8 bytes each as the postings' keys are), with
//! its length and CRC-32 in the header ([`TabooEntry`]); `index update` links
//! it into the next generation unchanged, or replaces it. Taboo chunks stay
//! among the documents' chunks but get no postings and do not count among a
//! document's distinct chunks, so `similar` finds no similarity in them;
//! `check` leaves them out of the checked file too.
//!
//! Opening an index reads `taboo.bin` whole and checks its CRC-32: it is
//! small, and a damaged set would silently let template text be reported.

use std::fs;
use std::path::{Path, PathBuf};

use super::error::ArchiveError;
use super::failpoints::crash_point;
use super::format::{FileEntry, GenerationWriter, Settings, TABOO, TabooEntry, read_key};
use crate::analysis::document::Analyzer;
use crate::analysis::taboo::{TabooChunks, TabooTexts};

/// Taboo texts read from their files, to be stored in an index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TabooFiles {
    texts: TabooTexts,
    names: Vec<String>,
}

impl TabooFiles {
    /// Reads the files at `paths` as documents are read; a file that cannot
    /// be read or is binary is an error naming it.
    pub fn load(paths: &[PathBuf]) -> Result<Self, ArchiveError> {
        let texts = TabooTexts::load(paths)?;
        Ok(TabooFiles { texts, names: paths.iter().map(|p| p.display().to_string()).collect() })
    }

    /// The files' paths, as given.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The content chunks of the texts, chunked with `settings`.
    pub fn chunks(&self, settings: &Settings) -> TabooChunks {
        let mut analyzer = Analyzer::new(&settings.analysis());
        let mut hashes = Vec::new();
        for text in self.texts.texts() {
            analyzer.chunk(text);
            hashes.extend_from_slice(analyzer.content_hashes());
        }
        TabooChunks::new(hashes)
    }
}

/// A taboo set to be written into a generation: its hashes and the texts they
/// come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TabooSet {
    pub(crate) chunks: TabooChunks,
    pub(crate) texts: Vec<String>,
}

impl TabooSet {
    /// The set of `files`, chunked with `settings`.
    pub(crate) fn of(files: &TabooFiles, settings: &Settings) -> Self {
        TabooSet { chunks: files.chunks(settings), texts: files.names().to_vec() }
    }
}

/// Writes `set` as the generation's `taboo.bin`; returns its header entry.
pub(crate) fn write(
    generation: &mut GenerationWriter,
    set: &TabooSet,
    settings: &Settings,
) -> Result<TabooEntry, ArchiveError> {
    let mut file = generation.file(TABOO)?;
    for &hash in set.chunks.hashes() {
        file.write_key(hash, settings.key_bytes())?;
    }
    let file = generation.finish(file)?;
    crash_point!(TABOO_WRITTEN);
    Ok(TabooEntry { texts: set.texts.clone(), chunks: set.chunks.hashes().len() as u64, file })
}

/// Reads the taboo set `entry` of the generation in `dir`, checking its length,
/// its CRC-32 and that its hashes are sorted and within the index's hash bits.
pub(crate) fn read(dir: &Path, entry: &TabooEntry, settings: &Settings) -> Result<TabooChunks, ArchiveError> {
    let path = dir.join(&entry.file.name);
    let bytes = fs::read(&path).map_err(ArchiveError::io(&path))?;
    check_bytes(&path, &bytes, &entry.file)?;
    decode(&bytes, settings).ok_or_else(|| ArchiveError::Corrupt {
        path,
        message: format!("taboo hashes are not sorted or wider than {} bits", settings.hash_bits),
    })
}

/// Checks `bytes`, read from `path`, against the length and CRC-32 of `file`.
fn check_bytes(path: &Path, bytes: &[u8], file: &FileEntry) -> Result<(), ArchiveError> {
    let got = bytes.len() as u64;
    if got != file.bytes {
        return Err(ArchiveError::Truncated { path: path.to_path_buf(), expected: file.bytes, got });
    }
    let got = crc32fast::hash(bytes);
    if got != file.crc32 {
        return Err(ArchiveError::ChecksumMismatch { path: path.to_path_buf(), expected: file.crc32, got });
    }
    Ok(())
}

/// The hashes stored in `bytes`; `None` unless they are strictly increasing
/// and fit the hash bits (as every set written is).
fn decode(bytes: &[u8], settings: &Settings) -> Option<TabooChunks> {
    let width = settings.key_bytes();
    let hashes: Vec<u64> = bytes.chunks_exact(width).map(|b| read_key(b, width)).collect();
    let widest = u64::MAX >> (64 - settings.hash_bits);
    let valid = hashes.windows(2).all(|w| w[0] < w[1]) && hashes.last().is_none_or(|&h| h <= widest);
    valid.then(|| TabooChunks::new(hashes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template_file(dir: &Path) -> PathBuf {
        let path = dir.join("template.txt");
        fs::write(&path, "Declaration. I declare that I wrote this thesis on my own, citing every source I used.")
            .unwrap();
        path
    }

    /// Writes `files`' set into generation 1 of an index in `dir`.
    fn written(dir: &Path, files: &TabooFiles, settings: &Settings) -> (PathBuf, TabooEntry) {
        let mut generation = GenerationWriter::create(&dir.join("idx"), 1).unwrap();
        let entry = write(&mut generation, &TabooSet::of(files, settings), settings).unwrap();
        (generation.dir.clone(), entry)
    }

    #[test]
    fn a_stored_set_reads_back_for_both_key_widths() {
        let dir = tempfile::tempdir().unwrap();
        let files = TabooFiles::load(&[template_file(dir.path())]).unwrap();
        for hash_bits in [32, 40] {
            let settings = Settings { hash_bits, ..Settings::default() };
            let (generation, entry) = written(dir.path(), &files, &settings);
            let expected = files.chunks(&settings);
            // 11 words of 3 letters or more: 7 chunks, all distinct.
            assert_eq!(expected.hashes().len(), 7);
            assert_eq!(entry.chunks, 7);
            assert_eq!(entry.file.bytes, 7 * settings.key_bytes() as u64);
            assert_eq!(entry.texts, [dir.path().join("template.txt").display().to_string()]);
            assert_eq!(read(&generation, &entry, &settings).unwrap(), expected);
        }
    }

    #[test]
    fn a_flipped_byte_fails_the_checksum_and_a_disorder_the_decoding() {
        let dir = tempfile::tempdir().unwrap();
        let files = TabooFiles::load(&[template_file(dir.path())]).unwrap();
        let settings = Settings::default();
        let (generation, entry) = written(dir.path(), &files, &settings);
        let path = generation.join(TABOO);
        let original = fs::read(&path).unwrap();
        let mut bytes = original.clone();
        bytes[5] ^= 0x04;
        fs::write(&path, &bytes).unwrap();
        let error = read(&generation, &entry, &settings).unwrap_err();
        assert!(matches!(&error, ArchiveError::ChecksumMismatch { path: p, .. } if *p == path), "{error:?}");
        assert!(error.to_string().starts_with(&format!("{}: checksum mismatch", path.display())), "{error}");
        fs::write(&path, &bytes[1..]).unwrap();
        assert!(matches!(read(&generation, &entry, &settings), Err(ArchiveError::Truncated { .. })));
        // A set whose checksum matches but whose hashes are out of order is corrupt.
        let swapped = [&original[4..8], &original[0..4], &original[8..]].concat();
        fs::write(&path, &swapped).unwrap();
        let entry = TabooEntry { file: FileEntry { crc32: crc32fast::hash(&swapped), ..entry.file.clone() }, ..entry };
        let error = read(&generation, &entry, &settings).unwrap_err();
        assert!(error.to_string().contains("not sorted"), "{error}");
    }

    #[test]
    fn a_missing_taboo_file_is_an_error_naming_it() {
        let missing = Path::new("/nonexistent/template.txt");
        let error = TabooFiles::load(&[missing.to_path_buf()]).unwrap_err().to_string();
        assert!(error.starts_with("/nonexistent/template.txt: cannot use as taboo text"), "{error}");
    }
}
