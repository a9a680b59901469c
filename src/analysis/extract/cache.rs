//! The cache of extracted texts, so that a document is extracted once: when
//! it is indexed again, or read again to align it with a suspicious document.
//!
//! One file per document content, `HASH.text`, where `HASH` is the XXH3-128 of
//! the document's bytes in hex ([`crate::analysis::read::content_hash`]): a
//! header line `pan-detect extracted text, xxh3-64 CHECK` and the text, UTF-8,
//! exactly as extracted. A file whose text does not match its check (damaged
//! on disk) is a miss and is written anew. Files are written whole or not at
//! all: to a temporary file `.HASH.text.RANDOM.PID.tmp` in the directory (the
//! rename is atomic only within one filesystem), then renamed, without an
//! fsync (a text lost in a crash is extracted again). Each write has its own
//! temporary, so that threads writing one text at once never share one.
//! Nothing else is in the directory but the temporaries of a killed writer,
//! which [`TextCache::open`] removes. The
//! extension is no document's, so that a cache inside a documents directory
//! (an index kept beside its archive) is never listed as documents.
//!
//! An entry is never invalidated by anything but the document's bytes: a
//! pan-detect whose extraction differs still reads the text an older one
//! wrote, so that an index's chunk offsets keep referring to the text they
//! were computed from. Remove a cache directory to extract again.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::report::output::stale_temporaries;

/// The start of every cache file's header line.
const HEADER: &str = "pan-detect extracted text, xxh3-64 ";

/// A directory of extracted texts.
#[derive(Debug)]
pub struct TextCache {
    dir: PathBuf,
    writable: bool,
    /// The directory of a [`temporary`](Self::temporary) cache, removed on drop.
    _temporary: Option<tempfile::TempDir>,
}

impl TextCache {
    /// The cache in `dir`, created when missing. Fails when `dir` takes no
    /// new files; removes the temporary files of writers that were killed.
    pub fn open(dir: &Path) -> io::Result<TextCache> {
        fs::create_dir_all(dir)?;
        tempfile::NamedTempFile::new_in(dir)?;
        for stale in stale_temporaries(dir)? {
            fs::remove_file(&stale.path)?;
        }
        Ok(TextCache { dir: dir.to_path_buf(), writable: true, _temporary: None })
    }

    /// A cache in a new directory of the system's temporary directory,
    /// removed when the cache is dropped: for one run, so that a document is
    /// extracted once however often it is read.
    pub fn temporary() -> io::Result<TextCache> {
        let temporary = tempfile::Builder::new().prefix("pan-detect-texts.").tempdir()?;
        Ok(TextCache { dir: temporary.path().to_path_buf(), writable: true, _temporary: Some(temporary) })
    }

    /// The cache in `dir` for lookups only ([`put`](Self::put) does nothing):
    /// for readers that must not change the directory it is in (an index).
    pub fn read_only(dir: &Path) -> TextCache {
        TextCache { dir: dir.to_path_buf(), writable: false, _temporary: None }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The text of the document whose content hash is `key`; `None` when it
    /// is not cached or its file is damaged.
    pub fn get(&self, key: &[u8; 16]) -> Option<String> {
        let contents = fs::read_to_string(self.path(key)).ok()?;
        let (header, text) = contents.split_once('\n')?;
        let check = u64::from_str_radix(header.strip_prefix(HEADER)?, 16).ok()?;
        (check == checksum(text)).then(|| text.to_string())
    }

    /// Stores `text` as the text of the document whose content hash is `key`.
    pub fn put(&self, key: &[u8; 16], text: &str) -> io::Result<()> {
        if !self.writable {
            return Ok(());
        }
        let path = self.path(key);
        let name = path.file_name().map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        let mut temporary = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(&format!(".{}.tmp", std::process::id()))
            .tempfile_in(&self.dir)?;
        write!(temporary, "{HEADER}{:016x}\n{text}", checksum(text))?;
        temporary.persist(&path).map_err(|error| error.error)?;
        Ok(())
    }

    /// Removes the texts of documents whose content hash `keep` refuses;
    /// returns how many were removed.
    pub fn retain(&self, keep: impl Fn(&[u8; 16]) -> bool) -> io::Result<usize> {
        let mut removed = 0;
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let Some(key) = entry.file_name().to_str().and_then(parse_file_name) else { continue };
            if !keep(&key) {
                fs::remove_file(entry.path())?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    fn path(&self, key: &[u8; 16]) -> PathBuf {
        let hex: String = key.iter().map(|byte| format!("{byte:02x}")).collect();
        self.dir.join(format!("{hex}.text"))
    }
}

/// The check of a cached text.
fn checksum(text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// The key of a cache file's name (`HASH.text`).
fn parse_file_name(name: &str) -> Option<[u8; 16]> {
    let hex = name.strip_suffix(".text").filter(|hex| hex.len() == 32)?;
    let mut key = [0u8; 16];
    for (byte, pair) in key.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_come_back_as_stored_and_damage_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TextCache::open(&dir.path().join("cache")).unwrap();
        let (key, other) = ([7u8; 16], [9u8; 16]);
        assert_eq!(cache.get(&key), None);
        cache.put(&key, "Mlýn\nna řece\n").unwrap();
        assert_eq!(cache.get(&key).as_deref(), Some("Mlýn\nna řece\n"));
        assert_eq!(cache.get(&other), None);
        let file = cache.dir().join("07070707070707070707070707070707.text");
        let damaged = fs::read_to_string(&file).unwrap().replace("řece", "reka");
        fs::write(&file, damaged).unwrap();
        assert_eq!(cache.get(&key), None);
    }

    #[test]
    fn a_read_only_cache_stores_nothing_and_retain_removes_what_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TextCache::open(dir.path()).unwrap();
        for key in [[1u8; 16], [2u8; 16], [3u8; 16]] {
            cache.put(&key, "text").unwrap();
        }
        fs::write(dir.path().join("notes"), "not an entry").unwrap();
        assert_eq!(cache.retain(|key| key[0] == 2).unwrap(), 2);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
        assert_eq!(cache.get(&[2u8; 16]).as_deref(), Some("text"));
        let read_only = TextCache::read_only(dir.path());
        read_only.put(&[4u8; 16], "text").unwrap();
        assert_eq!(read_only.get(&[4u8; 16]), None);
        assert_eq!(read_only.get(&[2u8; 16]).as_deref(), Some("text"));
    }

    #[test]
    fn texts_written_at_once_by_many_threads_all_arrive_whole_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TextCache::open(dir.path()).unwrap();
        let text = "mlýn ".repeat(10_000);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| cache.put(&[5u8; 16], &text).unwrap());
            }
        });
        assert_eq!(cache.get(&[5u8; 16]), Some(text));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_killed_writers_temporary_is_removed_on_opening() {
        let dir = tempfile::tempdir().unwrap();
        // No process has an id above the kernel's limit (2^22).
        let stale = dir.path().join(".07070707070707070707070707070707.text.a1B2c3.99999999.tmp");
        fs::write(&stale, "half a text").unwrap();
        TextCache::open(dir.path()).unwrap();
        assert!(!stale.exists());
    }

    #[test]
    fn a_temporary_cache_is_removed_with_it() {
        let cache = TextCache::temporary().unwrap();
        cache.put(&[1u8; 16], "text").unwrap();
        let dir = cache.dir().to_path_buf();
        assert!(dir.is_dir());
        drop(cache);
        assert!(!dir.exists());
    }

    #[test]
    fn a_directory_that_takes_no_files_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        fs::write(&file, "").unwrap();
        assert!(TextCache::open(&file).is_err());
    }
}
