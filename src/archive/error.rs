//! The errors of archive mode. Each names the file or directory it is about, so
//! that the binary prints it as one line, path first.

use std::io;
use std::path::PathBuf;

use crate::error::{ParamError, Warning};

/// A problem that stops an archive command.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// A parameter is out of range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// Listing or reading the documents failed.
    #[error(transparent)]
    Corpus(#[from] crate::error::Error),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The index directory does not hold an index (no `CURRENT` file).
    #[error("{0}: not an index directory (no CURRENT file; create one with `pan-detect index create`)")]
    NotAnIndex(PathBuf),
    /// Another process is writing to the index.
    #[error(
        "{0}: another pan-detect process is writing to this index (its LOCK file is locked); try again when it is done"
    )]
    Locked(PathBuf),
    /// `index update` from a directory without documents, which would remove
    /// every document of the index (most likely the wrong directory).
    #[error("{0}: no documents here; refusing to remove every document of the index (to empty it, create a new one)")]
    NoDocumentsToKeep(PathBuf),
    /// `index create` on a directory that already holds an index.
    #[error("{0}: already holds an index (use `pan-detect index update`)")]
    AlreadyExists(PathBuf),
    /// `index create` on a directory that holds other things than an index
    /// (an index removes what it wrote, so it must own its directory).
    #[error("{0}: not empty and not an index; `pan-detect index create` makes an index in a new or empty directory")]
    NotEmpty(PathBuf),
    /// The index directory is, lies inside or contains the documents
    /// directory (paths compared with symbolic links resolved).
    #[error("{index}: the index directory {relation} the documents directory {docs}; keep them apart")]
    OverlapsDocuments {
        /// The index directory, as given.
        index: PathBuf,
        /// The documents directory, as given.
        docs: PathBuf,
        /// How they overlap: "is the same directory as", "is inside" or "contains".
        relation: &'static str,
    },
    /// The header does not start with this format's magic string.
    #[error("{path}: not a pan-detect index header (magic {got:?})")]
    BadMagic {
        /// The header file.
        path: PathBuf,
        /// The magic string found.
        got: String,
    },
    /// The index was written by another version of the format.
    #[error(
        "{path}: index format version {got}, this pan-detect reads {}{}",
        if oldest == newest { format!("version {newest}") } else { format!("versions {oldest} to {newest}") },
        if got < oldest { " (make the index again with `pan-detect index create`)" } else { "" }
    )]
    Version {
        /// The header file.
        path: PathBuf,
        /// The oldest version this build reads.
        oldest: u32,
        /// The version this build writes, the newest it reads.
        newest: u32,
        /// The version in the header.
        got: u32,
    },
    /// The header or a table is malformed.
    #[error("{path}: corrupt index: {message}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file is shorter or longer than the header says.
    #[error("{path}: truncated or overwritten: {got} bytes, the header says {expected}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes the header records.
        expected: u64,
        /// Bytes on disk.
        got: u64,
    },
    /// A file's CRC-32 differs from the header's.
    #[error("{path}: checksum mismatch (CRC-32 {got:08x}, the header says {expected:08x})")]
    ChecksumMismatch {
        /// The file.
        path: PathBuf,
        /// CRC-32 in the header.
        expected: u32,
        /// CRC-32 of the bytes on disk.
        got: u32,
    },
    /// A setting given on the command line differs from the one the index was built with.
    #[error("{index}: {flag} {given} differs from the index's {stored}; the index must be rebuilt to change it")]
    SettingMismatch {
        /// The index directory.
        index: PathBuf,
        /// The flag, e.g. `--hash-bits`.
        flag: &'static str,
        /// The value given.
        given: String,
        /// The value stored in the index.
        stored: String,
    },
    /// A file to check could not be read as text.
    #[error("{0}")]
    Unreadable(Warning),
    /// A check was stopped by its caller (a server's request that ran out of
    /// time) before it finished.
    #[error("the check was stopped before it finished")]
    Cancelled,
    /// SQLite failed on the similarity table or an export of it.
    #[error("{path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// The index has no similarity table (made before format version 4).
    #[error(
        "{0}: the index has no similarity table (made by an older pan-detect); `pan-detect index update` builds it"
    )]
    NoSimilarityTable(PathBuf),
    /// `similar --min-percent` below what the stored table holds.
    #[error("{index}: --min-percent {given} is below the {stored} % from which the similarity table keeps pairs")]
    BelowTableMinimum {
        /// The index directory.
        index: PathBuf,
        /// The value given.
        given: f64,
        /// The table's `min_percent`.
        stored: f64,
    },
    /// The index has no MinHash signatures beside it.
    #[error("{0}: no MinHash signatures here; `pan-detect similar --method minhash --index IDX --build` writes them")]
    NoSignatures(PathBuf),
    /// A MinHash setting given differs from the one the stored signatures were built with.
    #[error("{path}: {flag} {given} differs from the stored signatures' {stored}; leave it out or --build again")]
    SignatureMismatch {
        /// The signature file.
        path: PathBuf,
        /// The flag, e.g. `--bands`.
        flag: &'static str,
        /// The value given.
        given: usize,
        /// The value the signatures were built with.
        stored: usize,
    },
}

impl ArchiveError {
    /// An I/O error about `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> ArchiveError {
        let path = path.into();
        move |source| ArchiveError::Io { path, source }
    }

    /// An SQLite error about the database `path`.
    pub fn sqlite(path: impl Into<PathBuf>) -> impl FnOnce(rusqlite::Error) -> ArchiveError {
        let path = path.into();
        move |source| ArchiveError::Sqlite { path, source }
    }

    /// True for a file or directory that does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ArchiveError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }
}
