//! The server's one writer: a thread that takes the changes of `PUT` and
//! `DELETE` requests from a bounded queue, stores them in the documents
//! directory, and indexes each batch with one incremental `index update`.
//!
//! A batch is the first change waiting and every change that arrives within
//! the batch window after it (at most [`MAX_BATCH`]). Each change is applied
//! to the documents directory (a new document written whole and synced, then
//! renamed into place; a removed one unlinked; the directory synced), then
//! the update commits a new generation, the server's readers move to it, and
//! every request of the batch is answered. A change that cannot be applied
//! (a file system error, or a path through a symbolic link or a file) is
//! answered at once with its error and left out of the batch.
//!
//! Writes never follow a symbolic link: every part of a document's path
//! below the documents directory is looked at without following links
//! ([`refuse_links_and_clashes`]) and a link anywhere refuses the change.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Instant;

use tokio::sync::oneshot;

use super::AppState;
use crate::analysis::read::{is_document_name, unreportable_name};
use crate::archive::{ArchiveIndex, SettingsOverride, UpdateOptions};
use crate::progress::Silent;
use crate::report::output::write_atomically;

/// Changes indexed by one update at most.
pub const MAX_BATCH: usize = 256;

/// What the writer answers a change: the generation that holds it, or why
/// it failed.
pub type WriteResult = Result<u64, WriteError>;

/// Why a change was not indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// The client must change the request: its path runs through a symbolic
    /// link or a file, or names a directory.
    Conflict(String),
    /// The server could not store or index it (a file system error).
    Failed(String),
}

/// One request to the writer.
pub enum WriteRequest {
    /// Store `bytes` as document `name` (added or replaced).
    Put {
        /// The document's name, checked by [`document_path`].
        name: String,
        /// Its content.
        bytes: Vec<u8>,
        /// Where the answer goes.
        reply: oneshot::Sender<WriteResult>,
    },
    /// Remove document `name`.
    Delete {
        /// The document's name, checked by [`document_path`].
        name: String,
        /// Where the answer goes.
        reply: oneshot::Sender<WriteResult>,
    },
    /// Commit what is queued before this, then stop (graceful shutdown).
    Stop,
}

/// The longest document name a client may give, in bytes.
pub const MAX_NAME_BYTES: usize = 1024;

/// The longest part of a document name, in bytes: what the file system takes
/// (255) less what the temporary file of a write adds, `.NAME.PID.tmp` with
/// a pid of up to 7 digits.
pub const MAX_NAME_PART_BYTES: usize = 255 - ".".len() - ".4194304.tmp".len();

/// Why a name is not a document name a client may give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadName {
    /// Absolute, or with an empty, `.`, `..` or hidden part, or a control
    /// character or backslash.
    #[error("absolute, or with a hidden, empty, '.' or '..' part, a backslash or a control character")]
    Path,
    /// Too long for the file system.
    #[error("longer than {MAX_NAME_BYTES} bytes, or with a part between '/' longer than {MAX_NAME_PART_BYTES}")]
    TooLong,
    /// Not of a type the index reads.
    #[error("not *.txt, *.pdf, *.docx, *.odt, *.html or *.htm")]
    Type,
    /// Holding a character no report can name ([`unreportable_name`]),
    /// which the index's listing would skip.
    #[error("holds a character XML reports cannot hold (a control character)")]
    Unreportable,
}

/// The path of document `name` under `docs`, for a name a client may give:
/// `/`-separated relative components, none empty, `.`, `..` or hidden (which
/// would reach outside the directory or collide with temporary files), none
/// with a backslash or a control character (which no report or log would
/// show as it is), none longer than the file system takes, of a document type
/// the index reads by name (`*.txt`, `*.pdf`, `*.docx`, `*.odt`, `*.html`,
/// `*.htm`). It looks at no file: see [`refuse_links_and_clashes`].
pub fn document_path(docs: &Path, name: &str) -> Result<PathBuf, BadName> {
    if name.len() > MAX_NAME_BYTES || name.split('/').any(|c| c.len() > MAX_NAME_PART_BYTES) {
        return Err(BadName::TooLong);
    }
    let ok_component =
        |c: &str| !c.is_empty() && !c.starts_with('.') && !c.contains(|ch: char| ch == '\\' || ch.is_control());
    let relative = Path::new(name);
    if !name.split('/').all(ok_component) || !relative.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(BadName::Path);
    }
    if !is_document_name(relative) {
        return Err(BadName::Type);
    }
    if unreportable_name(name).is_some() {
        return Err(BadName::Unreportable);
    }
    Ok(docs.join(relative))
}

/// Refuses a write of document `name` (a name [`document_path`] takes) whose
/// path below `docs` would follow a symbolic link, go through a file, or
/// replace a directory or anything else but a regular file: a
/// [`WriteError::Conflict`] naming the part. Parts that do not exist yet are
/// fine; a part that cannot be looked at is a [`WriteError::Failed`].
pub fn refuse_links_and_clashes(docs: &Path, name: &str) -> Result<(), WriteError> {
    let parts: Vec<&str> = name.split('/').collect();
    let mut path = docs.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        let shown = parts[..=i].join("/");
        let last = i + 1 == parts.len();
        let metadata = match std::fs::symlink_metadata(&path) {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(WriteError::Failed(format!("{}: {e}", path.display()))),
        };
        let conflict = if metadata.file_type().is_symlink() {
            "is a symbolic link, which writes do not follow"
        } else if !last && !metadata.is_dir() {
            "is a file, not a directory"
        } else if last && metadata.is_dir() {
            "is a directory"
        } else if last && !metadata.is_file() {
            "is not a regular file"
        } else {
            continue;
        };
        return Err(WriteError::Conflict(format!("{shown} {conflict}")));
    }
    Ok(())
}

/// Starts the writer thread.
pub(crate) fn spawn(state: Arc<AppState>, queue: Receiver<WriteRequest>) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name("pan-detect-writer".into())
        .spawn(move || run(&state, &queue))
        .expect("a thread can be started")
}

fn run(state: &AppState, queue: &Receiver<WriteRequest>) {
    let mut stopping = false;
    while !stopping {
        let Ok(first) = queue.recv() else { return };
        let mut batch = Vec::new();
        stopping = !push_applied(state, first, &mut batch);
        let deadline = Instant::now() + state.config.batch_window;
        while !stopping && batch.len() < MAX_BATCH {
            match queue.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(request) => stopping = !push_applied(state, request, &mut batch),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    stopping = true;
                }
            }
        }
        if !batch.is_empty() {
            commit(state, batch);
        }
    }
}

/// Applies `request` to the documents directory and adds its reply to
/// `batch` (or answers it at once when that failed); false for `Stop`.
fn push_applied(state: &AppState, request: WriteRequest, batch: &mut Vec<oneshot::Sender<WriteResult>>) -> bool {
    let (applied, reply) = match request {
        WriteRequest::Put { name, bytes, reply } => (store(&state.config.docs, &name, &bytes), reply),
        WriteRequest::Delete { name, reply } => (remove(&state.config.docs, &name), reply),
        WriteRequest::Stop => return false,
    };
    match applied {
        Ok(()) => batch.push(reply),
        Err(message) => {
            let _ = reply.send(Err(message));
        }
    }
    true
}

/// The path of document `name` in `docs` as it stands now, for a write:
/// refused when the name is bad or the path follows a link or runs into a
/// file or a directory ([`refuse_links_and_clashes`]).
fn path_to_write(docs: &Path, name: &str) -> Result<PathBuf, WriteError> {
    let path = document_path(docs, name).map_err(|e| WriteError::Conflict(format!("{name}: {e}")))?;
    refuse_links_and_clashes(docs, name)?;
    Ok(path)
}

/// Writes document `name` whole into `docs` and syncs its directory.
fn store(docs: &Path, name: &str, bytes: &[u8]) -> Result<(), WriteError> {
    let path = path_to_write(docs, name)?;
    let parent = path.parent().unwrap_or(docs);
    std::fs::create_dir_all(parent).map_err(|e| io_failure(parent, &e))?;
    // Made in the meantime: a link or a file where a directory was missing.
    refuse_links_and_clashes(docs, name)?;
    write_atomically(&path, bytes).map_err(|e| io_failure(&path, &e))?;
    sync_dir(parent)
}

/// Removes document `name` from `docs` and syncs its directory.
fn remove(docs: &Path, name: &str) -> Result<(), WriteError> {
    let path = path_to_write(docs, name)?;
    std::fs::remove_file(&path).map_err(|e| io_failure(&path, &e))?;
    sync_dir(path.parent().unwrap_or(docs))
}

/// An error of the file system on `path`: a conflict when the client must
/// change the request (a file or a directory is in the way), else a failure.
fn io_failure(path: &Path, error: &std::io::Error) -> WriteError {
    use std::io::ErrorKind;
    let message = format!("{}: {error}", path.display());
    match error.kind() {
        ErrorKind::AlreadyExists | ErrorKind::NotADirectory | ErrorKind::IsADirectory => WriteError::Conflict(message),
        _ => WriteError::Failed(message),
    }
}

fn sync_dir(dir: &Path) -> Result<(), WriteError> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| WriteError::Failed(format!("{}: {e}", dir.display())))
}

/// Indexes the stored changes with one update, publishes the new
/// generation, and answers every request of the batch.
fn commit(state: &AppState, batch: Vec<oneshot::Sender<WriteResult>>) {
    let started = Instant::now();
    let config = &state.config;
    let options = UpdateOptions::default();
    let result = crate::archive::update(&config.docs, &config.index, &SettingsOverride::default(), &options, &Silent)
        .and_then(|_| ArchiveIndex::open(&config.index))
        .map(|index| {
            let generation = index.header().generation;
            state.publish(index);
            generation
        })
        .map_err(|error| WriteError::Failed(error.to_string()));
    state.metrics.observe_commit(batch.len(), started.elapsed(), result.is_ok());
    for reply in batch {
        let _ = reply.send(result.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_relative_document_names_inside_the_directory_are_taken() {
        let docs = Path::new("/archive");
        assert_eq!(document_path(docs, "a.txt"), Ok(PathBuf::from("/archive/a.txt")));
        assert_eq!(document_path(docs, "2026/thesis.pdf"), Ok(PathBuf::from("/archive/2026/thesis.pdf")));
        for bad in ["", "/etc/passwd.txt", "../a.txt", "a/../../b.txt", "./a.txt", ".hidden.txt", "a//b.txt"] {
            assert_eq!(document_path(docs, bad), Err(BadName::Path), "{bad}");
        }
        assert_eq!(document_path(docs, "a\\..\\b.txt"), Err(BadName::Path));
        for control in ["a\nb.txt", "a\rb.txt", "tab\t.txt", "bell\u{7}.txt", "nul\0.txt", "c1\u{85}.txt"] {
            assert_eq!(document_path(docs, control), Err(BadName::Path), "{control:?}");
        }
        assert_eq!(document_path(docs, "a.exe"), Err(BadName::Type));
        assert_eq!(document_path(docs, "a"), Err(BadName::Type));
        // Control characters are refused as parts of a path; the other
        // characters XML cannot hold as names no report could carry.
        assert_eq!(document_path(docs, "ctl\u{1}.txt"), Err(BadName::Path));
        assert_eq!(document_path(docs, "bad\u{fffe}.txt"), Err(BadName::Unreportable));
    }

    #[test]
    fn a_name_the_file_system_cannot_store_is_too_long() {
        let docs = Path::new("/archive");
        let longest = format!("{}.txt", "x".repeat(MAX_NAME_PART_BYTES - 4));
        assert!(document_path(docs, &longest).is_ok());
        assert!(document_path(docs, &format!("{longest}/{longest}")).is_ok());
        assert_eq!(document_path(docs, &format!("x{longest}")), Err(BadName::TooLong));
        assert_eq!(
            document_path(docs, &format!("{}/a.txt", "é".repeat(122))),
            Err(BadName::TooLong),
            "bytes, not characters"
        );
        assert_eq!(document_path(docs, &"x/".repeat(600)), Err(BadName::TooLong));
        // The temporary file of the longest name is one the file system takes.
        let temporary = crate::report::output::temporary_path(&docs.join(&longest)).unwrap();
        assert!(temporary.file_name().unwrap().len() <= 255);
    }

    #[test]
    fn a_write_through_a_link_or_onto_a_file_or_directory_is_a_conflict() {
        let dir = tempfile::tempdir().unwrap();
        let (docs, outside) = (dir.path().join("docs"), dir.path().join("outside"));
        std::fs::create_dir_all(docs.join("sub.txt")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(docs.join("file.txt"), "x").unwrap();
        std::os::unix::fs::symlink(&outside, docs.join("shared")).unwrap();
        std::os::unix::fs::symlink(outside.join("gone.txt"), docs.join("dangling.txt")).unwrap();
        for name in ["new.txt", "file.txt", "new/deeper/a.txt"] {
            assert_eq!(refuse_links_and_clashes(&docs, name), Ok(()), "{name}");
        }
        for (name, conflict) in [
            ("shared/a.txt", "shared is a symbolic link, which writes do not follow"),
            ("dangling.txt", "dangling.txt is a symbolic link, which writes do not follow"),
            ("file.txt/a.txt", "file.txt is a file, not a directory"),
            ("sub.txt", "sub.txt is a directory"),
        ] {
            assert_eq!(refuse_links_and_clashes(&docs, name), Err(WriteError::Conflict(conflict.into())), "{name}");
            assert!(matches!(store(&docs, name, b"y"), Err(WriteError::Conflict(_))), "{name}");
        }
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing written outside");
    }
}
