//! Writing the reports built from the report model ([`super::model`]): HTML
//! pages for people and JSON for programs, one file per document, and for
//! HTML an index page of all documents. [`ReadableReports`] writes them for
//! any command; [`ReadableSink`] is `detect`'s sink, which reads the texts the
//! model needs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::directory::{ReportDirectory, ReportKind};
use super::html::{self, INDEX_PAGE, IndexEntry};
use super::json::Report;
use super::model::{ComparedSource, DocumentReport, DocumentTexts, FoundPassage};
use super::{Detection, DetectionSink};
use crate::analysis::extract::layout::Layout;
use crate::analysis::read::{DocumentFile, Loaded, TextReader, layout_of};
use crate::error::Error;
use crate::progress::Progress;

/// The formats built from the report model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadableFormat {
    /// One HTML page per document (`NAME.html`) and `index.html`.
    Html,
    /// One JSON report per document (`NAME.json`).
    Json,
}

impl ReadableFormat {
    fn kind(self) -> ReportKind {
        match self {
            ReadableFormat::Html => ReportKind::Html,
            ReadableFormat::Json => ReportKind::Json,
        }
    }
}

/// Writes HTML or JSON reports into a directory, one per document, by the
/// rules of [`ReportDirectory`]; [`finish`](Self::finish) adds the HTML index
/// page. Documents may be written from several threads at once.
#[derive(Debug)]
pub struct ReadableReports {
    reports: ReportDirectory,
    format: ReadableFormat,
    /// The documents written so far, for the index page.
    index: Mutex<Vec<IndexEntry>>,
}

impl ReadableReports {
    /// Uses `dir` as the output directory for reports in `format`, creating
    /// it when missing. Existing files in it are left alone except the
    /// reports this run writes.
    pub fn create(dir: &Path, format: ReadableFormat) -> Result<Self, Error> {
        let reports = ReportDirectory::create(dir, format.kind())?;
        Ok(ReadableReports { reports, format, index: Mutex::new(Vec::new()) })
    }

    /// Whether its reports show where the passages are in their documents
    /// ([`DocumentTexts::document_layout`]): HTML pages do.
    pub fn shows_layout(&self) -> bool {
        self.format == ReadableFormat::Html
    }

    /// The report path for a document's file name: `STEM.html` or `STEM.json`.
    pub fn report_path(&self, document: &str) -> PathBuf {
        self.reports.report_path(document)
    }

    /// The checks before a run writes the reports of `documents`
    /// ([`ReportDirectory::prepare`]); `inputs` are the directories the
    /// documents are read from. For HTML, the index page is one of the files.
    pub fn prepare(&self, inputs: &[&Path], documents: &[&str], progress: &dyn Progress) -> Result<(), Error> {
        let pages: &[(&str, &str)] = match self.format {
            ReadableFormat::Html => &[(INDEX_PAGE, "the index page")],
            ReadableFormat::Json => &[],
        };
        self.reports.prepare(inputs, documents, pages, progress)
    }

    /// Writes the report of one document, whose texts are `texts`.
    pub fn write(&self, report: &DocumentReport, texts: &DocumentTexts) -> Result<(), Error> {
        let path = self.report_path(&report.name);
        match self.format {
            ReadableFormat::Html => {
                self.reports.write(&path, html::render_document(report, texts, true).as_bytes())?;
                let entry = IndexEntry::of(report, &self.reports.report_name(&report.name));
                self.index.lock().unwrap_or_else(PoisonError::into_inner).push(entry);
                Ok(())
            }
            ReadableFormat::Json => self.reports.write(&path, Report::new(vec![report.clone()]).to_json().as_bytes()),
        }
    }

    /// Writes the HTML index page of every document written, and puts all
    /// reports on disk.
    pub fn finish(&self) -> Result<(), Error> {
        if self.format == ReadableFormat::Html {
            let entries = self.index.lock().unwrap_or_else(PoisonError::into_inner);
            self.reports.write(&self.reports.dir().join(INDEX_PAGE), html::render_index(&entries).as_bytes())?;
        }
        self.reports.finish()
    }
}

/// `detect`'s sink for HTML and JSON reports: reads each suspicious document
/// and its sources again (as the detection read them, through the same
/// [`TextReader`] and cache, so that the offsets match), builds the report
/// model and writes it.
#[derive(Debug)]
pub struct ReadableSink<'a> {
    reports: ReadableReports,
    source_dir: PathBuf,
    suspicious_dir: PathBuf,
    reader: TextReader<'a>,
}

impl<'a> ReadableSink<'a> {
    /// Writes into `reports` the reports of the documents of `suspicious_dir`
    /// compared with those of `source_dir`, reading them with `reader`.
    pub fn new(reports: ReadableReports, source_dir: &Path, suspicious_dir: &Path, reader: TextReader<'a>) -> Self {
        ReadableSink {
            reports,
            source_dir: source_dir.to_path_buf(),
            suspicious_dir: suspicious_dir.to_path_buf(),
            reader,
        }
    }

    /// The text of the document `name` of `dir`, with its layout when the
    /// reports are HTML pages, which show it.
    fn read(&self, dir: &Path, name: &str) -> Result<(String, Layout), Error> {
        let path = dir.join(name);
        let bytes = std::fs::metadata(&path).map_or(0, |metadata| metadata.len());
        let file = DocumentFile { name: name.to_string(), path: path.clone(), bytes };
        match self.reader.load(&file) {
            Loaded::Text(text, _) => {
                let layout = if self.reports.shows_layout() { layout_of(&file, &text) } else { Layout::default() };
                Ok((text, layout))
            }
            Loaded::Skipped(warning) => Err(Error::ReportText { path, reason: warning.message }),
        }
    }
}

impl DetectionSink for ReadableSink<'_> {
    fn prepare(&self, inputs: &[&Path], documents: &[&str], _: &[&str], progress: &dyn Progress) -> Result<(), Error> {
        self.reports.prepare(inputs, documents, progress)
    }

    fn document(&self, suspicious: &str, detections: &[Detection<'_>]) -> Result<(), Error> {
        let names: BTreeSet<&str> = detections.iter().map(|d| d.source_reference).collect();
        let (document, document_layout) = self.read(&self.suspicious_dir, suspicious)?;
        let mut texts = DocumentTexts { document, document_layout, ..Default::default() };
        for name in names {
            let (text, layout) = self.read(&self.source_dir, name)?;
            texts.sources.insert(name.to_string(), text);
            if !layout.is_empty() {
                texts.source_layouts.insert(name.to_string(), layout);
            }
        }
        let sources = texts.sources.iter().map(|(name, text)| compared(name, text, detections)).collect();
        let path = self.suspicious_dir.join(suspicious).display().to_string();
        let report = DocumentReport::new(suspicious, &path, &texts, None, sources);
        self.reports.write(&report, &texts)
    }

    fn finish(&self) -> Result<(), Error> {
        self.reports.finish()
    }
}

/// The source `name`, whose text is `text`, with its passages among `detections`.
fn compared(name: &str, text: &str, detections: &[Detection<'_>]) -> ComparedSource {
    let passages = detections
        .iter()
        .filter(|d| d.source_reference == name)
        .map(|d| FoundPassage { document: d.this, source: d.source, matching_chunks: None })
        .collect();
    ComparedSource { name: name.to_string(), chars: text.chars().count() as u64, shared: None, passages }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::analysis::span::CharRange;
    use crate::progress::Silent;

    #[test]
    fn detect_writes_a_page_per_document_and_the_index_or_json() {
        let dir = tempfile::tempdir().unwrap();
        let (sources, suspicious) = (dir.path().join("src"), dir.path().join("susp"));
        fs::create_dir_all(&sources).unwrap();
        fs::create_dir_all(&suspicious).unwrap();
        fs::write(sources.join("s.txt"), "Žádný text: copied words here.").unwrap();
        fs::write(suspicious.join("d.txt"), "Intro — copied words here!").unwrap();
        fs::write(suspicious.join("e.txt"), "Nothing.").unwrap();
        let detection =
            Detection { this: CharRange::new(8, 25), source_reference: "s.txt", source: CharRange::new(12, 29) };
        for format in [ReadableFormat::Html, ReadableFormat::Json] {
            let out = dir.path().join(format!("{format:?}"));
            let sink = ReadableSink::new(
                ReadableReports::create(&out, format).unwrap(),
                &sources,
                &suspicious,
                TextReader::default(),
            );
            sink.prepare(&[&sources, &suspicious], &["d.txt", "e.txt"], &[], &Silent).unwrap();
            sink.document("d.txt", &[detection]).unwrap();
            sink.document("e.txt", &[]).unwrap();
            sink.finish().unwrap();
            let mut names: Vec<String> =
                fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            names.sort();
            match format {
                ReadableFormat::Html => {
                    assert_eq!(names, ["d.html", "e.html", "index.html"]);
                    let page = fs::read_to_string(out.join("d.html")).unwrap();
                    assert!(page.contains("data-passages=\"1\">copied words here</mark>"), "{page}");
                    let index = fs::read_to_string(out.join("index.html")).unwrap();
                    assert!(index.find("d.html").unwrap() < index.find("e.html").unwrap());
                }
                ReadableFormat::Json => {
                    assert_eq!(names, ["d.json", "e.json"]);
                    let report: Report =
                        serde_json::from_str(&fs::read_to_string(out.join("d.json")).unwrap()).unwrap();
                    let source = &report.documents[0].sources[0];
                    assert_eq!((source.name.as_str(), source.chars, source.source_aligned_chars), ("s.txt", 30, 17));
                    assert_eq!(source.passages[0].source.excerpt.as_deref(), Some("copied words here"));
                }
            }
        }
    }

    #[test]
    fn a_document_gone_before_its_report_stops_the_run_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let sink = ReadableSink::new(
            ReadableReports::create(&dir.path().join("out"), ReadableFormat::Json).unwrap(),
            dir.path(),
            dir.path(),
            TextReader::default(),
        );
        let error = sink.document("gone.txt", &[]).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}: cannot read", dir.path().join("gone.txt").display())), "{error}");
    }
}
