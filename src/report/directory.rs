//! An output directory of reports of one kind (PAN XML, HTML or JSON), the
//! rules every report writer follows: a report is named after its document
//! ([`output_stem`]), written whole or not at all, and never replaces a file
//! that is not a pan-detect report of its kind; everything that could stop the
//! run is checked before anything is written.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::analysis::read::{output_stem, read_input, same_directory};
use crate::error::Error;
use crate::progress::Progress;
use crate::report::output::{self, sync_filesystem, write_atomically_unsynced};
use crate::report::pan_xml::{DETECTION_FEATURE, PanDocument};
use crate::report::{html, json};

/// The kinds of report files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKind {
    /// PAN XML (`NAME.xml`).
    PanXml,
    /// A page of an HTML report (`NAME.html`).
    Html,
    /// A JSON report (`NAME.json`).
    Json,
}

impl ReportKind {
    /// The extension of its files.
    pub fn extension(self) -> &'static str {
        match self {
            ReportKind::PanXml => "xml",
            ReportKind::Html => "html",
            ReportKind::Json => "json",
        }
    }

    /// Why `bytes` are not a pan-detect report of this kind; `Ok` when they are.
    fn check_is_report(self, bytes: &[u8]) -> Result<(), String> {
        match self {
            ReportKind::PanXml => check_is_pan_xml_report(bytes),
            ReportKind::Html => html::check_is_report(bytes),
            ReportKind::Json => json::check_is_report(bytes),
        }
    }
}

/// Why `bytes` are not a pan-detect PAN XML report: ground truth holds other
/// features than `detected-plagiarism`; a file without any feature is a
/// report only when it is byte for byte the empty report
/// [`PanDocument::to_xml`] writes, since the ground truth of a document
/// without cases holds no feature either. (A file of detections, however
/// written, is a detector's report: an earlier run's is replaced.)
fn check_is_pan_xml_report(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    let report = PanDocument::parse(text).map_err(|error| format!("not PAN XML: {error}"))?;
    if let Some(other) = report.features.iter().find(|f| f.name != DETECTION_FEATURE) {
        return Err(format!("it holds a '{}' feature: ground truth?", other.name));
    }
    if report.features.is_empty() && report.to_xml() != text {
        return Err("no detection, and not the empty report pan-detect writes: ground truth without cases?".to_string());
    }
    Ok(())
}

/// A directory that reports of one kind are written into.
#[derive(Debug, Clone)]
pub struct ReportDirectory {
    dir: PathBuf,
    kind: ReportKind,
}

impl ReportDirectory {
    /// Uses `dir` as the output directory for reports of `kind`, creating it
    /// when missing. Existing files in it are left alone except the reports
    /// this run writes.
    pub fn create(dir: &Path, kind: ReportKind) -> Result<Self, Error> {
        if dir.exists() && !dir.is_dir() {
            return Err(Error::OutputNotADirectory(dir.to_path_buf()));
        }
        fs::create_dir_all(dir).map_err(|source| Error::CreateOutput { path: dir.to_path_buf(), source })?;
        Ok(ReportDirectory { dir: dir.to_path_buf(), kind })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The report path for a document's file name: `STEM.EXT`.
    pub fn report_path(&self, document: &str) -> PathBuf {
        self.dir.join(self.report_name(document))
    }

    /// The report's file name for a document's file name.
    pub fn report_name(&self, document: &str) -> String {
        format!("{}.{}", output_stem(document), self.kind.extension())
    }

    /// The checks of a run before anything is written: the directory is no
    /// input directory (`inputs`) and takes files, no two `documents` would
    /// share a report nor one with the run's `other_files` (an index page),
    /// and every file the run would replace is a report of this kind. Also
    /// removes the temporary reports of killed runs.
    pub fn prepare(
        &self,
        inputs: &[&Path],
        documents: &[&str],
        other_files: &[(&str, &str)],
        progress: &dyn Progress,
    ) -> Result<(), Error> {
        if let Some(input) = inputs.iter().find(|input| same_directory(&self.dir, input)) {
            return Err(Error::OutputIsInput { out: self.dir.clone(), input: input.to_path_buf() });
        }
        self.check_distinct_reports(documents, other_files)?;
        documents.iter().try_for_each(|document| self.check_replaceable(&self.report_path(document)))?;
        other_files.iter().try_for_each(|(file, _)| self.check_replaceable(&self.dir.join(file)))?;
        self.check_writable()?;
        let extension = format!(".{}", self.kind.extension());
        output::remove_stale_temporaries(&self.dir, &extension, progress).map_err(|e| self.not_writable(e))
    }

    /// Refuses documents that would share a report (`a.pdf` and `a.pdf.txt`,
    /// or two files of one name given to `check`), or whose report would be
    /// one of `other_files` (file name, what it is), before anything is written.
    pub fn check_distinct_reports(&self, documents: &[&str], other_files: &[(&str, &str)]) -> Result<(), Error> {
        let mut by_report: BTreeMap<String, &str> =
            other_files.iter().map(|&(file, what)| (file.to_string(), what)).collect();
        for &document in documents {
            let report = self.report_name(document);
            if let Some(first) = by_report.insert(report.clone(), document) {
                let (first, second) = (first.to_string(), document.to_string());
                return Err(Error::ReportClash { dir: self.dir.clone(), first, second, report });
            }
        }
        Ok(())
    }

    /// Refuses to replace the file at `path` when it is not a pan-detect
    /// report of this kind, such as the ground truth beside PAN's suspicious
    /// documents or a page someone wrote.
    pub fn check_replaceable(&self, path: &Path) -> Result<(), Error> {
        let not_a_report = |reason| Error::NotAReport { path: path.to_path_buf(), reason };
        match read_input(path) {
            Ok(bytes) => self.kind.check_is_report(&bytes).map_err(not_a_report),
            Err(error) if error.kind() == io::ErrorKind::FileTooLarge => Err(not_a_report(error.to_string())),
            Err(_) => Ok(()),
        }
    }

    /// Writes `bytes` to `path` whole (see [`write_atomically_unsynced`]);
    /// [`finish`](Self::finish) puts them on disk.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), Error> {
        write_atomically_unsynced(path, bytes).map_err(|source| Error::WriteReport { path: path.to_path_buf(), source })
    }

    /// Puts all reports on disk with one filesystem sync: an fsync per report
    /// cost more than writing it (1.2 s of a 20 s run on 3937 reports).
    pub fn finish(&self) -> Result<(), Error> {
        sync_filesystem(&self.dir).map_err(|source| Error::WriteReport { path: self.dir.clone(), source })
    }

    /// The error of an output directory that does not take or give up files.
    fn not_writable(&self, source: std::io::Error) -> Error {
        Error::OutputNotWritable { path: self.dir.clone(), source }
    }

    /// Creates and removes a temporary file, so that a directory that takes no
    /// new files stops the run before its work rather than after.
    fn check_writable(&self) -> Result<(), Error> {
        let probe_name = format!("pan-detect-probe.{}", self.kind.extension());
        let probe = output::temporary_path(&self.dir.join(probe_name)).map_err(|e| self.not_writable(e))?;
        fs::File::create(&probe).map_err(|e| self.not_writable(e))?;
        fs::remove_file(&probe).map_err(|e| self.not_writable(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::span::CharRange;
    use crate::progress::Silent;
    use crate::report::pan_xml::Feature;

    #[test]
    fn only_reports_of_the_directorys_kind_are_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let html = ReportDirectory::create(dir.path(), ReportKind::Html).unwrap();
        assert_eq!(html.report_path("a.txt"), dir.path().join("a.html"));
        fs::write(dir.path().join("a.html"), "<!DOCTYPE html><title>My notes</title>").unwrap();
        let error = html.prepare(&[], &["a.txt"], &[], &Silent).unwrap_err().to_string();
        assert!(error.contains("a.html: exists and is not a pan-detect report (not an HTML page"), "{error}");
        let json = ReportDirectory::create(dir.path(), ReportKind::Json).unwrap();
        fs::write(dir.path().join("b.json"), "{\"format\": \"pan-detect-report\", \"version\": 1}").unwrap();
        fs::write(dir.path().join("c.json"), "[1, 2]").unwrap();
        json.prepare(&[], &["b.txt"], &[], &Silent).unwrap();
        assert!(json.prepare(&[], &["c.txt"], &[], &Silent).is_err());
    }

    #[test]
    fn only_pan_xml_as_pan_detect_writes_it_is_a_report() {
        let mut report = PanDocument::new("s.txt");
        assert_eq!(check_is_pan_xml_report(report.to_xml().as_bytes()), Ok(()));
        report.features.push(Feature::detection(CharRange::new(1, 5), "r.txt", CharRange::new(2, 9)));
        assert_eq!(check_is_pan_xml_report(report.to_xml().as_bytes()), Ok(()));
        // Ground truth of a document without cases, as PAN's corpora hold it.
        let truth = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<document reference=\"s.txt\">\n</document>\n";
        let reason = check_is_pan_xml_report(truth.as_bytes()).unwrap_err();
        assert_eq!(reason, "no detection, and not the empty report pan-detect writes: ground truth without cases?");
        let hand_written = report.to_xml().replace("\n  <feature", "<feature");
        assert_eq!(check_is_pan_xml_report(hand_written.as_bytes()), Ok(()), "detections, however written");
        let truth = report.to_xml().replace(DETECTION_FEATURE, "plagiarism");
        assert_eq!(
            check_is_pan_xml_report(truth.as_bytes()),
            Err("it holds a 'plagiarism' feature: ground truth?".into())
        );
    }

    #[test]
    fn a_document_whose_report_would_be_the_index_page_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let html = ReportDirectory::create(dir.path(), ReportKind::Html).unwrap();
        let pages = [("index.html", "the index page")];
        html.prepare(&[], &["index.pdf", "a.txt"], &pages, &Silent).unwrap();
        let error = html.prepare(&[], &["a.txt", "index.txt"], &pages, &Silent).unwrap_err().to_string();
        assert!(
            error.ends_with(
                "the index page and index.txt would both be written as index.html; rename or move one of them"
            ),
            "{error}"
        );
    }
}
