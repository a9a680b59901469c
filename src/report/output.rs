//! Writing output files whole or not at all.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use crate::error::Warning;
use crate::progress::Progress;

/// Writes `bytes` to `path` so that a reader sees either the old file or the
/// complete new one, never a truncated file, and the new file is on disk when
/// this returns.
///
/// The bytes go to a temporary file in the *same directory* and are fsynced, then
/// the temporary file is renamed over `path`. The temporary file must live on the
/// same filesystem as `path`, because `rename` is atomic only within one
/// filesystem; across filesystems it would fail (or, with a copy fallback, expose
/// a half-written file).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, true)
}

/// [`write_atomically`] without the fsync: a reader (and a rerun after the
/// process is killed) still sees the old file or the whole new one, but the new
/// file reaches the disk only with the next [`sync_filesystem`]. For many small
/// files written in one run, where an fsync each would cost more than the
/// writing.
pub fn write_atomically_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, false)
}

fn replace(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let temporary = temporary_path(path)?;
    let result = (|| {
        let mut file = File::create(&temporary)?;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        // Best effort: the temporary file is garbage once the write failed.
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// The temporary file through which this process writes `path`: `.NAME.PID.tmp`
/// in the same directory.
pub fn temporary_path(path: &Path) -> io::Result<PathBuf> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name =
        path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "output path has no file name"))?;
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(name);
    temporary_name.push(format!(".{}.tmp", std::process::id()));
    Ok(dir.join(temporary_name))
}

/// How the resolved path `out` relates to the resolved path `input` when they
/// overlap: "is the same directory as", "is inside" or "contains"; `None`
/// when neither lies in the other (a shared name prefix is no overlap).
pub fn overlap(out: &Path, input: &Path) -> Option<&'static str> {
    if out == input {
        Some("is the same directory as")
    } else if out.starts_with(input) {
        Some("is inside")
    } else if input.starts_with(out) {
        Some("contains")
    } else {
        None
    }
}

/// `path` made absolute with symbolic links resolved, also when it does not
/// exist yet: its nearest existing ancestor is canonicalized and the rest
/// appended, `..` taken lexically (parts that do not exist are not links).
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    for ancestor in absolute.ancestors() {
        let Ok(mut resolved) = ancestor.canonicalize() else { continue };
        // `ancestor` is a prefix of `absolute`, so this cannot fail.
        let rest = absolute.strip_prefix(ancestor).unwrap_or(Path::new(""));
        for component in rest.components() {
            match component {
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::Normal(name) => resolved.push(name),
                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            }
        }
        return Ok(resolved);
    }
    Ok(absolute)
}

/// A temporary file that a write of this module left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleTemporary {
    /// The temporary file.
    pub path: PathBuf,
    /// The name of the file it was to replace.
    pub target: String,
    /// The process that wrote it.
    pub pid: u32,
}

/// The target name and process of a temporary file name of
/// [`temporary_path`] (`.NAME.PID.tmp`); `None` for any other name.
pub fn temporary_of(name: &str) -> Option<(&str, u32)> {
    let (target, pid) = name.strip_prefix('.')?.strip_suffix(".tmp")?.rsplit_once('.')?;
    let pid = pid.parse::<u32>().ok()?;
    (!target.is_empty()).then_some((target, pid))
}

/// The temporary files in `dir` (`.NAME.PID.tmp`, see [`temporary_path`]) whose
/// process is not running: left by a run that was killed while it wrote. A file
/// of this process counts as stale too, so call this before writing into `dir`
/// (a container's process may get the PID of a killed one).
pub fn stale_temporaries(dir: &Path) -> io::Result<Vec<StaleTemporary>> {
    let mut stale = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
        let Some((target, pid)) = temporary_of(&name) else { continue };
        if pid == std::process::id() || !is_running(pid) {
            stale.push(StaleTemporary { path: entry.path(), target: target.to_string(), pid });
        }
    }
    stale.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(stale)
}

/// Removes the [`stale_temporaries`] of `dir` whose target name ends with
/// `suffix` (the reports or texts of one kind), with a warning for each.
pub fn remove_stale_temporaries(dir: &Path, suffix: &str, progress: &dyn Progress) -> io::Result<()> {
    for stale in stale_temporaries(dir)? {
        if stale.target.ends_with(suffix) {
            fs::remove_file(&stale.path)?;
            let message = format!("left by pan-detect process {}, which did not finish; removed", stale.pid);
            progress.warn(&Warning { path: stale.path, message });
        }
    }
    Ok(())
}

/// Whether a process with this id exists (one we may not signal exists too).
fn is_running(pid: u32) -> bool {
    // 0 and negative ids name process groups to kill(2), not a process.
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    alive || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Flushes every file written on the filesystem that holds `dir` to disk, and
/// the directory entries with them (`syncfs` on Linux, `sync` elsewhere).
pub fn sync_filesystem(dir: &Path) -> io::Result<()> {
    let handle = File::open(dir)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open for the duration of the call.
        if unsafe { libc::syncfs(handle.as_raw_fd()) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // SAFETY: sync takes no arguments and cannot fail.
        unsafe { libc::sync() };
        handle.sync_all()?;
    }
    Ok(())
}

/// The directories of an output path that do not exist yet, deepest first:
/// those a run will make. A run that fails removes the ones it left empty
/// ([`NewDirectories::removed_on_failure`]), so that it leaves no trace.
#[derive(Debug, Clone, Default)]
pub struct NewDirectories {
    missing: Vec<PathBuf>,
}

impl NewDirectories {
    /// Notes which of `dir` and its ancestors do not exist yet.
    fn of(dir: &Path) -> NewDirectories {
        let missing = dir
            .ancestors()
            .take_while(|path| !path.as_os_str().is_empty() && fs::symlink_metadata(path).is_err())
            .map(Path::to_path_buf)
            .collect();
        NewDirectories { missing }
    }

    /// Removes the noted directories, deepest first, as long as they are
    /// empty: a directory holding anything stays, and so do its ancestors.
    fn remove_empty(&self) {
        for dir in &self.missing {
            if fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }

    /// Runs `run`, which writes into `dir`; when it fails, removes the
    /// directories of `dir` that did not exist before and that it left empty.
    pub fn removed_on_failure<T, E>(dir: &Path, run: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let new = NewDirectories::of(dir);
        let ran = run();
        if ran.is_err() {
            new.remove_empty();
        }
        ran
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_does_not_exist_resolves_through_its_nearest_existing_ancestor() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir(root.join("a")).unwrap();
        assert_eq!(resolve(&root.join("a/new/deeper")).unwrap(), root.join("a/new/deeper"));
        assert_eq!(resolve(&root.join("a/new/../../b")).unwrap(), root.join("b"));
        assert_eq!(resolve(&root.join("a/./x")).unwrap(), root.join("a/x"));
    }

    #[test]
    fn replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.xml");
        fs::write(&path, "old content that is longer than the new one").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("report.xml")]);
    }

    #[test]
    fn the_unsynced_write_replaces_the_file_too_and_a_sync_follows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.xml");
        fs::write(&path, "old").unwrap();
        write_atomically_unsynced(&path, b"new content").unwrap();
        sync_filesystem(dir.path()).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new content");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary left");
        assert!(sync_filesystem(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn temporaries_of_dead_processes_and_of_this_one_are_stale() {
        let dir = tempfile::tempdir().unwrap();
        let own = temporary_path(&dir.path().join("a.xml")).unwrap();
        // PID 1 always runs; no process has an id above the kernel's limit (2^22).
        for name in [".b.xml.1.tmp", ".c.xml.99999999.tmp", ".d.xml.tmp", "e.xml.5.tmp", ".f.xml.x1.tmp"] {
            fs::write(dir.path().join(name), "").unwrap();
        }
        fs::write(&own, "").unwrap();
        let stale = stale_temporaries(dir.path()).unwrap();
        let found: Vec<(&str, u32)> = stale.iter().map(|s| (s.target.as_str(), s.pid)).collect();
        assert_eq!(found, [("a.xml", std::process::id()), ("c.xml", 99_999_999)]);
        assert_eq!(stale[0].path, own);
    }

    #[test]
    fn fails_cleanly_when_the_directory_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("report.xml");
        assert!(write_atomically(&path, b"x").is_err());
    }

    #[test]
    fn only_the_directories_a_run_made_and_left_empty_are_removed() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("a/b/c");
        let new = NewDirectories::of(&out);
        fs::create_dir_all(&out).unwrap();
        new.remove_empty();
        assert!(!root.path().join("a").exists() && root.path().exists());

        let new = NewDirectories::of(&out);
        fs::create_dir_all(&out).unwrap();
        fs::write(root.path().join("a/b/report.xml"), "kept").unwrap();
        new.remove_empty();
        assert!(!out.exists() && root.path().join("a/b/report.xml").exists());

        fs::create_dir_all(&out).unwrap();
        NewDirectories::of(&out).remove_empty();
        assert!(out.exists(), "a directory that was there before stays");

        let made = root.path().join("d/e");
        let run = |ok: bool| {
            fs::create_dir_all(&made).unwrap();
            if ok { Ok(()) } else { Err(()) }
        };
        assert!(NewDirectories::removed_on_failure(&made, || run(true)).is_ok() && made.exists());
        fs::remove_dir_all(root.path().join("d")).unwrap();
        assert!(NewDirectories::removed_on_failure(&made, || run(false)).is_err());
        assert!(!root.path().join("d").exists(), "a failed run's new directories are removed");
    }
}
