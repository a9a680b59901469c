//! Reading documents: listing a directory's `*.txt` files and decoding them.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Warning};

/// Bytes at the start of a file searched for NUL, the sign of a binary file.
pub const BINARY_PROBE_BYTES: usize = 8 * 1024;

/// A text file of a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentFile {
    /// The file name, e.g. `suspicious-document00042.txt`: the name reports use.
    pub name: String,
    /// Where the file is.
    pub path: PathBuf,
    /// Size in bytes when listed.
    pub bytes: u64,
}

/// The `*.txt` files directly in `dir`, sorted by name. Other files (such as the
/// ground-truth `*.xml` beside PAN's suspicious documents) are ignored.
pub fn list_text_files(dir: &Path) -> Result<Vec<DocumentFile>, Error> {
    let metadata = fs::metadata(dir).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => Error::MissingDirectory(dir.to_path_buf()),
        _ => Error::ListDirectory { path: dir.to_path_buf(), source },
    })?;
    if !metadata.is_dir() {
        return Err(Error::NotADirectory(dir.to_path_buf()));
    }
    let list_error = |source| Error::ListDirectory { path: dir.to_path_buf(), source };
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).map_err(list_error)? {
        let entry = entry.map_err(list_error)?;
        let path = entry.path();
        let is_text = path.extension().is_some_and(|ext| ext == "txt");
        let metadata = entry.metadata().map_err(list_error)?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue; // A name that is not UTF-8 cannot be written into PAN XML.
        };
        if is_text && metadata.is_file() {
            files.push(DocumentFile { name, path, bytes: metadata.len() });
        }
    }
    if files.is_empty() {
        return Err(Error::NoTextFiles(dir.to_path_buf()));
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// Splits `items` into consecutive batches of at most `max_bytes` each by
/// `bytes_of` (at least one item per batch), so that a parallel stage holds a
/// bounded amount of text and buffers at once.
pub fn batches_by_bytes<T>(items: &[T], max_bytes: u64, bytes_of: impl Fn(&T) -> u64) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut bytes = 0;
        let fitting = rest.iter().take_while(|item| {
            bytes += bytes_of(item);
            bytes <= max_bytes
        });
        let (batch, tail) = rest.split_at(fitting.count().max(1));
        rest = tail;
        Some(batch)
    })
}

/// A document's text, or why it was skipped.
#[derive(Debug)]
pub enum Loaded {
    /// The decoded text, with a warning when it was not valid UTF-8.
    Text(String, Option<Warning>),
    /// The file was not read as text; the warning says why.
    Skipped(Warning),
}

/// Reads and decodes one document. Invalid UTF-8 is decoded lossily (offsets
/// then count the replacement characters); a NUL byte in the first 8 KiB marks a
/// binary file, which is skipped, as is an unreadable file or one too long for
/// 32-bit character offsets.
pub fn load(file: &DocumentFile) -> Loaded {
    match fs::read(&file.path) {
        Ok(bytes) => decode(file, bytes),
        Err(error) => {
            let message = format!("cannot read: {error}; skipped");
            Loaded::Skipped(Warning { path: file.path.clone(), message })
        }
    }
}

/// Decodes the bytes of a document already read, as [`load`] does: for
/// callers that need the raw bytes too (the archive hashes them).
pub fn decode(file: &DocumentFile, bytes: Vec<u8>) -> Loaded {
    let warning = |message: String| Warning { path: file.path.clone(), message };
    if bytes[..bytes.len().min(BINARY_PROBE_BYTES)].contains(&0) {
        return Loaded::Skipped(warning("NUL byte in the first 8 KiB, looks binary; skipped".into()));
    }
    if bytes.len() > u32::MAX as usize {
        return Loaded::Skipped(warning("longer than 4 G characters; skipped".into()));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Loaded::Text(text, None),
        Err(error) => {
            let at = error.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
            let message = format!("not valid UTF-8 at byte {at}; decoded with replacement characters");
            Loaded::Text(text, Some(warning(message)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_only_text_files_sorted() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.txt", "a.txt", "a.xml", "notes"] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        fs::create_dir(dir.path().join("sub.txt")).unwrap();
        let names: Vec<_> = list_text_files(dir.path()).unwrap().into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["a.txt", "b.txt"]);
    }

    #[test]
    fn batches_hold_at_most_max_bytes_and_at_least_one_item() {
        let sizes = [3u64, 4, 10, 1, 1, 1, 2];
        let batches: Vec<&[u64]> = batches_by_bytes(&sizes, 7, |&b| b).collect();
        assert_eq!(batches, [&[3, 4][..], &[10], &[1, 1, 1, 2]]);
        assert_eq!(batches_by_bytes(&[] as &[u64], 7, |&b| b).count(), 0);
    }

    #[test]
    fn directory_errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        assert_eq!(
            list_text_files(&missing).unwrap_err().to_string(),
            format!("{}: no such directory", missing.display())
        );
        assert!(matches!(list_text_files(dir.path()), Err(Error::NoTextFiles(_))));
        let file = dir.path().join("f.txt");
        fs::write(&file, "x").unwrap();
        assert!(matches!(list_text_files(&file), Err(Error::NotADirectory(_))));
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily_and_binary_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            fs::write(&path, bytes).unwrap();
            DocumentFile { name: name.into(), path, bytes: bytes.len() as u64 }
        };
        match load(&file("latin1.txt", b"caf\xe9 au lait")) {
            Loaded::Text(text, Some(warning)) => {
                assert_eq!(text, "caf\u{fffd} au lait");
                assert!(
                    warning
                        .to_string()
                        .ends_with("latin1.txt: not valid UTF-8 at byte 3; decoded with replacement characters")
                );
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(load(&file("bin.txt", b"ab\0cd")), Loaded::Skipped(_)));
        assert!(matches!(load(&file("empty.txt", b"")), Loaded::Text(text, None) if text.is_empty()));
    }
}
