//! Extracted texts written out (`pan-detect text`): for each document, the
//! text whose characters the offsets of its reports count, so that they can be
//! checked (`text[offset..offset + length]` in Python is the passage).
//!
//! The text of `NAME` goes to `STEM.txt` ([`output_stem`]): `thesis.pdf.txt`
//! for `thesis.pdf`, and `a.txt` for `a.txt` (UTF-16 or a legacy encoding decoded to UTF-8). As for
//! reports, nothing is destroyed: an existing file is replaced only by its own
//! text again (a rerun leaves it as it is), and any other existing file, or two
//! inputs that would share an output, stop the run before anything is written.

use std::fs;
use std::path::{Path, PathBuf};

use crate::analysis::read::{DocumentFile, TextReader, output_stem};
use crate::error::{Error, Warning};
use crate::progress::{Progress, Stage};
use crate::report::output::{remove_stale_temporaries, sync_filesystem, write_atomically_unsynced};

/// What an extraction run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtractSummary {
    /// Texts written.
    pub written: u64,
    /// Texts already in the output directory as they would be written.
    pub unchanged: u64,
    /// Files skipped (unreadable, binary, corrupt), each with a warning.
    pub skipped: u64,
    /// Characters of the texts written or unchanged.
    pub chars: u64,
}

/// One input and where its text goes.
struct Target {
    file: DocumentFile,
    path: PathBuf,
}

/// Writes the text of each of `files` into `out` (created when missing), as
/// reports see it. A file that cannot be read or extracted is skipped with a
/// warning through `progress`; see the module documentation for what stops
/// the run.
pub fn extract_texts(files: &[PathBuf], out: &Path, progress: &dyn Progress) -> Result<ExtractSummary, Error> {
    if out.exists() && !out.is_dir() {
        return Err(Error::OutputNotADirectory(out.to_path_buf()));
    }
    fs::create_dir_all(out).map_err(|source| Error::CreateOutput { path: out.to_path_buf(), source })?;
    let mut summary = ExtractSummary::default();
    let targets = plan(files, out, progress, &mut summary)?;
    let not_writable = |source| Error::OutputNotWritable { path: out.to_path_buf(), source };
    remove_stale_temporaries(out, ".txt", progress).map_err(not_writable)?;
    progress.start(Stage::Extract, targets.iter().map(|t| t.file.bytes).sum());
    // Existing outputs first: one that is not this text stops the run before
    // anything is written.
    let (existing, new): (Vec<Target>, Vec<Target>) = targets.into_iter().partition(|t| t.path.exists());
    for target in &existing {
        if let Some(text) = text_of(&target.file, progress, &mut summary) {
            if fs::read(&target.path).ok().as_deref() != Some(text.as_bytes()) {
                return Err(Error::NotOurText { path: target.path.clone(), document: target.file.path.clone() });
            }
            summary.unchanged += 1;
            summary.chars += text.chars().count() as u64;
        }
    }
    for target in &new {
        if let Some(text) = text_of(&target.file, progress, &mut summary) {
            write_atomically_unsynced(&target.path, text.as_bytes())
                .map_err(|source| Error::WriteText { path: target.path.clone(), source })?;
            summary.written += 1;
            summary.chars += text.chars().count() as u64;
        }
    }
    progress.finish();
    sync_filesystem(out).map_err(|source| Error::WriteText { path: out.to_path_buf(), source })?;
    Ok(summary)
}

/// The targets of `files` in `out`; a file without a UTF-8 name is skipped,
/// two with one output are refused.
fn plan(
    files: &[PathBuf],
    out: &Path,
    progress: &dyn Progress,
    summary: &mut ExtractSummary,
) -> Result<Vec<Target>, Error> {
    let mut targets: Vec<Target> = Vec::new();
    for path in files {
        let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
            let message = "name is not valid UTF-8 (reports need UTF-8 names); skipped".to_string();
            progress.warn(&Warning { path: path.clone(), message });
            summary.skipped += 1;
            continue;
        };
        let target = out.join(format!("{}.txt", output_stem(name)));
        if let Some(first) = targets.iter().find(|t| t.path == target) {
            return Err(Error::ReportClash {
                dir: out.to_path_buf(),
                first: first.file.path.display().to_string(),
                second: path.display().to_string(),
                report: format!("{}.txt", output_stem(name)),
            });
        }
        let bytes = fs::metadata(path).map_or(0, |metadata| metadata.len());
        targets.push(Target { file: DocumentFile { name: name.to_string(), path: path.clone(), bytes }, path: target });
    }
    Ok(targets)
}

/// The text of `file` as reports see it; `None` (warned, counted) when skipped.
fn text_of(file: &DocumentFile, progress: &dyn Progress, summary: &mut ExtractSummary) -> Option<String> {
    let loaded = TextReader::default().load(file);
    progress.advance(file.bytes);
    let text = loaded.text_or_warn(progress);
    summary.skipped += u64::from(text.is_none());
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::{Collect, Silent};

    #[test]
    fn texts_are_written_rerun_unchanged_and_foreign_files_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (input, out) = (dir.path().join("in"), dir.path().join("out"));
        fs::create_dir_all(&input).unwrap();
        let utf16: Vec<u8> =
            [0xFF, 0xFE].into_iter().chain("Vodní mlýn".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        fs::write(input.join("a.txt"), utf16).unwrap();
        fs::write(input.join("b.html"), "<p>Mlýn &amp; náhon</p>").unwrap();
        fs::write(input.join("c.txt"), [0u8; 64]).unwrap();
        let files: Vec<PathBuf> = ["a.txt", "b.html", "c.txt"].iter().map(|name| input.join(name)).collect();
        let warnings = Collect::default();
        let summary = extract_texts(&files, &out, &warnings).unwrap();
        assert_eq!(summary, ExtractSummary { written: 2, unchanged: 0, skipped: 1, chars: 22 });
        assert_eq!(fs::read_to_string(out.join("a.txt")).unwrap(), "Vodní mlýn");
        assert_eq!(fs::read_to_string(out.join("b.html.txt")).unwrap(), "Mlýn & náhon");
        assert_eq!(warnings.lines().len(), 1);
        let again = extract_texts(&files, &out, &Silent).unwrap();
        assert_eq!((again.written, again.unchanged), (0, 2));

        fs::write(out.join("b.html.txt"), "my notes").unwrap();
        let error = extract_texts(&files, &out, &Silent).unwrap_err().to_string();
        assert!(error.contains("b.html.txt: exists and is not the text of"), "{error}");
        assert_eq!(fs::read_to_string(out.join("b.html.txt")).unwrap(), "my notes");
    }

    #[test]
    fn two_inputs_with_one_output_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["x", "y"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
            fs::write(dir.path().join(sub).join("a.txt"), "text").unwrap();
        }
        let files = [dir.path().join("x/a.txt"), dir.path().join("y/a.txt")];
        let out = dir.path().join("out");
        let error = extract_texts(&files, &out, &Silent).unwrap_err().to_string();
        assert!(error.ends_with("would both be written as a.txt; rename or move one of them"), "{error}");
        assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
    }
}
