//! Reports: where detections go. The pipeline pushes each suspicious document's
//! detections into a [`DetectionSink`]; the PAN XML directory writer is one sink,
//! the HTML and JSON reports ([`ReadableSink`]) another, tests and statistics
//! are others.
//!
//! The HTML and JSON reports are built from one model ([`model`]) that `detect`
//! and `check` fill alike: [`json`] serialises it, [`html`] renders it with the
//! texts. Every writer follows the rules of [`directory`]: reports named after
//! their documents, written whole or not at all ([`output`]), never over a file
//! that is not a report.

pub mod directory;
pub mod html;
pub mod json;
pub mod model;
pub mod output;
pub mod pan_xml;
pub mod readable;
pub mod texts;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::analysis::read::output_stem;
use crate::analysis::span::CharRange;
use crate::error::Error;
use crate::pairs::DocumentPairs;
use crate::progress::Progress;
use crate::report::pan_xml::{Feature, PanDocument};
use directory::{ReportDirectory, ReportKind};
pub use readable::{ReadableFormat, ReadableReports, ReadableSink};

/// One detected passage, ready to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detection<'a> {
    /// Character range in the suspicious document.
    pub this: CharRange,
    /// File name of the source document.
    pub source_reference: &'a str,
    /// Character range in the source document.
    pub source: CharRange,
}

/// Receives the detections of each suspicious document, from several threads.
pub trait DetectionSink: Sync {
    /// Called once before any work, with the directories the documents are read
    /// from, the file names of the documents the run will report and those of
    /// the source documents they are compared with: a sink that writes files
    /// checks here that it can, and that it would destroy nothing.
    fn prepare(
        &self,
        _inputs: &[&Path],
        _documents: &[&str],
        _sources: &[&str],
        _progress: &dyn Progress,
    ) -> Result<(), Error> {
        Ok(())
    }

    /// All detections of the suspicious document `suspicious` (its file name),
    /// ordered by position; empty when nothing was found.
    fn document(&self, suspicious: &str, detections: &[Detection<'_>]) -> Result<(), Error>;

    /// Called once after the last document of a successful run.
    fn finish(&self) -> Result<(), Error> {
        Ok(())
    }
}

/// Writes one PAN XML report per suspicious document into a directory, named
/// after the document ([`output_stem`]): `NAME.xml` for `NAME.txt` (as PAN
/// names them), `thesis.pdf.xml` for `thesis.pdf`. Each report replaces the old
/// one whole (temporary file, then rename); all are synced to disk at the end.
#[derive(Debug, Clone)]
pub struct PanXmlDirectory {
    reports: ReportDirectory,
}

impl PanXmlDirectory {
    /// Uses `dir` as the output directory, creating it when missing. Existing
    /// files in it are left alone except the reports this run writes.
    pub fn create(dir: &Path) -> Result<Self, Error> {
        Ok(PanXmlDirectory { reports: ReportDirectory::create(dir, ReportKind::PanXml)? })
    }

    /// The report path for a suspicious document's file name.
    pub fn report_path(&self, suspicious: &str) -> PathBuf {
        self.reports.report_path(suspicious)
    }
}

impl DetectionSink for PanXmlDirectory {
    /// Refuses an output directory that is an input directory or does not take
    /// files, two documents that would share a report, and an existing file
    /// that is not a pan-detect report where a report would go; removes the
    /// temporary files of killed runs.
    fn prepare(&self, inputs: &[&Path], documents: &[&str], _: &[&str], progress: &dyn Progress) -> Result<(), Error> {
        self.reports.prepare(inputs, documents, &[], progress)
    }

    fn document(&self, suspicious: &str, detections: &[Detection<'_>]) -> Result<(), Error> {
        write_report(&self.reports, &self.report_path(suspicious), suspicious, detections.iter())
    }

    fn finish(&self) -> Result<(), Error> {
        self.reports.finish()
    }
}

/// Writes the PAN XML report of `suspicious` with `detections` to `path`, whole.
fn write_report<'d>(
    reports: &ReportDirectory,
    path: &Path,
    suspicious: &str,
    detections: impl Iterator<Item = &'d Detection<'d>>,
) -> Result<(), Error> {
    let mut report = PanDocument::new(suspicious);
    report.features.extend(detections.map(|d| Feature::detection(d.this, d.source_reference, d.source)));
    reports.write(path, report.to_xml().as_bytes())
}

/// Writes one PAN XML report per document pair, as PAN 2013-2015 text-alignment
/// runs did: `suspicious-documentX-source-documentY.xml`, each holding the
/// detections of that pair. With listed pairs every listed pair gets a report,
/// empty when nothing was found; otherwise only pairs with detections do.
#[derive(Debug, Clone)]
pub struct PanXmlPairDirectory<'p> {
    reports: ReportDirectory,
    pairs: Option<&'p DocumentPairs>,
}

impl<'p> PanXmlPairDirectory<'p> {
    /// Uses `dir` as the output directory, as [`PanXmlDirectory::create`] does.
    pub fn create(dir: &Path, pairs: Option<&'p DocumentPairs>) -> Result<Self, Error> {
        Ok(PanXmlPairDirectory { reports: ReportDirectory::create(dir, ReportKind::PanXml)?, pairs })
    }

    /// The report path of a pair of file names ([`output_stem`] of each).
    pub fn report_path(&self, suspicious: &str, source: &str) -> PathBuf {
        self.reports.dir().join(pair_report_name(&output_stem(suspicious), &output_stem(source)))
    }
}

impl DetectionSink for PanXmlPairDirectory<'_> {
    /// The checks of [`PanXmlDirectory`], on the reports of the listed pairs;
    /// suspicious documents of one [`output_stem`] would share them, and so
    /// would two pairs whose names join alike (`a-b.txt` with `c.txt`, and
    /// `a.txt` with `b-c.txt`, both `a-b-c.xml`): of the listed pairs, or
    /// without them of any suspicious document and source.
    fn prepare(
        &self,
        inputs: &[&Path],
        documents: &[&str],
        sources: &[&str],
        progress: &dyn Progress,
    ) -> Result<(), Error> {
        self.reports.check_distinct_reports(documents, &[])?;
        let clash = match self.pairs {
            Some(pairs) => listed_pair_clash(pairs),
            None => pair_clash(documents, sources),
        };
        if let Some(PairClash { first, second, report }) = clash {
            let pair = |(suspicious, source): (&str, &str)| format!("the pair ({suspicious}, {source})");
            let (first, second) = (pair(first), pair(second));
            return Err(Error::ReportClash { dir: self.reports.dir().to_path_buf(), first, second, report });
        }
        self.reports.prepare(inputs, &[], &[], progress)?;
        let mut pairs = self.pairs.into_iter().flat_map(DocumentPairs::iter);
        pairs.try_for_each(|(suspicious, source)| self.reports.check_replaceable(&self.report_path(suspicious, source)))
    }

    /// Writes the reports of `suspicious`; without listed pairs, each report's
    /// file is checked first, since its name was not known in advance.
    fn document(&self, suspicious: &str, detections: &[Detection<'_>]) -> Result<(), Error> {
        let mut sources: BTreeSet<&str> = detections.iter().map(|d| d.source_reference).collect();
        if let Some(pairs) = self.pairs {
            sources.extend(pairs.sources_of(suspicious));
        }
        for source in sources {
            let path = self.report_path(suspicious, source);
            if self.pairs.is_none() {
                self.reports.check_replaceable(&path)?;
            }
            let of_pair = detections.iter().filter(|d| d.source_reference == source);
            write_report(&self.reports, &path, suspicious, of_pair)?;
        }
        Ok(())
    }

    fn finish(&self) -> Result<(), Error> {
        self.reports.finish()
    }
}

/// Two (suspicious, source) pairs whose per-pair reports would have one name.
#[derive(Debug, PartialEq, Eq)]
struct PairClash<'a> {
    first: (&'a str, &'a str),
    second: (&'a str, &'a str),
    /// The report's file name.
    report: String,
}

/// The name of the per-pair report of the documents of output stems
/// `suspicious` and `source`.
fn pair_report_name(suspicious: &str, source: &str) -> String {
    format!("{suspicious}-{source}.xml")
}

/// Two listed pairs whose reports would have one name, if any.
fn listed_pair_clash(pairs: &DocumentPairs) -> Option<PairClash<'_>> {
    let mut named = std::collections::HashMap::new();
    pairs.iter().find_map(|pair| {
        let report = pair_report_name(&output_stem(pair.0), &output_stem(pair.1));
        let first = named.insert(report.clone(), pair)?;
        Some(PairClash { first, second: pair, report })
    })
}

/// Two pairs of a suspicious document of `suspicious` and a source of
/// `sources` whose reports would have one name, if any, found without
/// listing every pair: two sources of one [`output_stem`] clash with any
/// suspicious document; otherwise `s-t` and `s'-t'` with `s` shorter join
/// alike only when `s' = s-x` and `t = x-t'`, which each `-` of each name
/// tells. (Suspicious documents of one stem are refused before.)
fn pair_clash<'a>(suspicious: &[&'a str], sources: &[&'a str]) -> Option<PairClash<'a>> {
    use std::collections::HashMap;
    let suspicious_named = stemmed(suspicious);
    let source_named = stemmed(sources);
    let (suspicious_stems, _) = by_stem(&suspicious_named);
    let (source_stems, twin_sources) = by_stem(&source_named);
    if let (Some(&document), Some((first, second))) = (suspicious.first(), twin_sources) {
        let report = pair_report_name(&output_stem(document), &output_stem(first));
        return Some(PairClash { first: (document, first), second: (document, second), report });
    }
    // x → (s, s-x), for suspicious stems `s` and `s-x`.
    let mut extensions: HashMap<&str, (&str, &str)> = HashMap::new();
    for (longer, _) in &suspicious_named {
        for (dash, _) in longer.match_indices('-') {
            if suspicious_stems.contains_key(&longer[..dash]) {
                extensions.entry(&longer[dash + 1..]).or_insert((&longer[..dash], longer.as_str()));
            }
        }
    }
    source_named.iter().find_map(|(source, _)| {
        source.match_indices('-').find_map(|(dash, _)| {
            let (&(shorter, longer), &other) =
                (extensions.get(&source[..dash])?, source_stems.get(&source[dash + 1..])?);
            let pairs = [(suspicious_stems[shorter], source_stems[source.as_str()]), (suspicious_stems[longer], other)];
            let [first, second] = [pairs[0].min(pairs[1]), pairs[0].max(pairs[1])];
            Some(PairClash { first, second, report: pair_report_name(shorter, source) })
        })
    })
}

/// Each name with its [`output_stem`].
fn stemmed<'a>(names: &[&'a str]) -> Vec<(String, &'a str)> {
    names.iter().map(|&name| (output_stem(name), name)).collect()
}

/// The names of `named` by their stem, and the first two names of one stem,
/// if any.
fn by_stem<'s, 'a>(
    named: &'s [(String, &'a str)],
) -> (std::collections::HashMap<&'s str, &'a str>, Option<(&'a str, &'a str)>) {
    let mut stems = std::collections::HashMap::new();
    let twins = named.iter().find_map(|(stem, name)| Some((stems.insert(stem.as_str(), *name)?, *name)));
    (stems, twins)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn writes_one_report_per_document_named_like_it() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let sink = PanXmlDirectory::create(&out).unwrap();
        let detection = Detection {
            this: CharRange::new(10, 20),
            source_reference: "source-document00001.txt",
            source: CharRange::new(30, 45),
        };
        sink.document("suspicious-document00001.txt", &[detection]).unwrap();
        sink.document("suspicious-document00002.txt", &[]).unwrap();
        let report = fs::read_to_string(out.join("suspicious-document00001.xml")).unwrap();
        let parsed = PanDocument::parse(&report).unwrap();
        assert_eq!(parsed.features[0].this_range(), Ok((10, 20)));
        assert_eq!(parsed.features[0].source_range(), Ok((30, 45)));
        let empty = fs::read_to_string(out.join("suspicious-document00002.xml")).unwrap();
        assert!(PanDocument::parse(&empty).unwrap().features.is_empty());
    }

    #[test]
    fn per_pair_reports_are_named_after_both_documents_and_cover_every_listed_pair() {
        let dir = tempfile::tempdir().unwrap();
        let pairs = DocumentPairs::parse(
            "suspicious-document00001.txt source-document00007.txt\n\
             suspicious-document00001.txt source-document00009.txt\n",
            Path::new("pairs"),
        )
        .unwrap();
        let sink = PanXmlPairDirectory::create(dir.path(), Some(&pairs)).unwrap();
        let detection = |source_reference| Detection {
            this: CharRange::new(10, 20),
            source_reference,
            source: CharRange::new(30, 45),
        };
        let found = [detection("source-document00007.txt"), detection("source-document00007.txt")];
        sink.document("suspicious-document00001.txt", &found).unwrap();
        sink.finish().unwrap();
        let mut names: Vec<String> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        assert_eq!(
            names,
            ["suspicious-document00001-source-document00007.xml", "suspicious-document00001-source-document00009.xml"]
        );
        let read = |name: &str| PanDocument::parse(&fs::read_to_string(dir.path().join(name)).unwrap()).unwrap();
        let with = read("suspicious-document00001-source-document00007.xml");
        assert_eq!((with.reference.as_str(), with.features.len()), ("suspicious-document00001.txt", 2));
        assert!(read("suspicious-document00001-source-document00009.xml").features.is_empty());
        // Without listed pairs only pairs with detections get a report.
        let unlisted = tempfile::tempdir().unwrap();
        let sink = PanXmlPairDirectory::create(unlisted.path(), None).unwrap();
        sink.document("suspicious-document00002.txt", &[]).unwrap();
        sink.document("suspicious-document00003.txt", &found[..1]).unwrap();
        assert_eq!(fs::read_dir(unlisted.path()).unwrap().count(), 1);
    }

    #[test]
    fn documents_that_would_share_a_report_are_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let sink = PanXmlDirectory::create(dir.path()).unwrap();
        assert_eq!(sink.report_path("a.txt"), dir.path().join("a.xml"));
        assert_eq!(sink.report_path("a.pdf"), dir.path().join("a.pdf.xml"));
        sink.prepare(&[], &["a.pdf", "a.txt", "a.docx"], &[], &crate::progress::Silent).unwrap();
        let error = sink.prepare(&[], &["a.pdf", "a.pdf.txt"], &[], &crate::progress::Silent).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{}: a.pdf and a.pdf.txt would both be written as a.pdf.xml; rename or move one of them",
                dir.path().display()
            )
        );
    }

    #[test]
    fn output_that_is_a_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out");
        fs::write(&file, "").unwrap();
        assert!(matches!(PanXmlDirectory::create(&file), Err(Error::OutputNotADirectory(_))));
    }

    #[test]
    fn per_pair_reports_of_one_name_are_found_without_listing_every_pair() {
        let clash = |first, second, report: &str| Some(PairClash { first, second, report: report.to_string() });
        let names = ["a-b.txt", "a.txt"];
        assert_eq!(
            pair_clash(&names, &["b-c.txt", "c.txt"]),
            clash(("a-b.txt", "c.txt"), ("a.txt", "b-c.txt"), "a-b-c.xml")
        );
        assert_eq!(pair_clash(&names, &["c.txt", "b-d.txt"]), None);
        assert_eq!(pair_clash(&["a.txt", "x-b.txt"], &["b-c.txt", "c.txt"]), None);
        assert_eq!(
            pair_clash(&["a.txt"], &["b.pdf", "b.pdf.txt"]),
            clash(("a.txt", "b.pdf"), ("a.txt", "b.pdf.txt"), "a-b.pdf.xml")
        );
        assert_eq!(pair_clash(&[], &["b.pdf", "b.pdf.txt"]), None);
        // Stems, not names: a-b.pdf.txt is reported as a-b.pdf.
        assert_eq!(
            pair_clash(&["a-b.pdf.txt", "a.txt"], &["b.pdf-c.txt", "c.txt"]),
            clash(("a-b.pdf.txt", "c.txt"), ("a.txt", "b.pdf-c.txt"), "a-b.pdf-c.xml")
        );
        // Every pair of a quadratic listing, against the clashes found.
        let suspicious = ["x.txt", "x-y.txt", "x-y-z.txt", "q.txt"];
        let sources = ["y-z.txt", "z.txt", "z-w.txt", "w.txt", "y-z-w.txt"];
        let mut named = std::collections::HashMap::new();
        let any = suspicious
            .iter()
            .flat_map(|s| sources.iter().map(move |t| (*s, *t)))
            .any(|(s, t)| named.insert(pair_report_name(&output_stem(s), &output_stem(t)), (s, t)).is_some());
        assert_eq!(any, pair_clash(&suspicious, &sources).is_some());
    }

    #[test]
    fn listed_pairs_of_one_report_name_are_refused() {
        let pairs = DocumentPairs::parse("a-b.txt c.txt\na.txt b-c.txt\n", Path::new("pairs")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let sink = PanXmlPairDirectory::create(dir.path(), Some(&pairs)).unwrap();
        let error = sink.prepare(&[], &["a-b.txt", "a.txt"], &["b-c.txt", "c.txt"], &crate::progress::Silent);
        assert_eq!(
            error.unwrap_err().to_string(),
            format!(
                "{}: the pair (a-b.txt, c.txt) and the pair (a.txt, b-c.txt) would both be written as a-b-c.xml; \
                 rename or move one of them",
                dir.path().display()
            )
        );
        let pairs = DocumentPairs::parse("a-b.txt c.txt\n", Path::new("pairs")).unwrap();
        let sink = PanXmlPairDirectory::create(dir.path(), Some(&pairs)).unwrap();
        sink.prepare(&[], &["a-b.txt", "a.txt"], &["b-c.txt", "c.txt"], &crate::progress::Silent).unwrap();
    }
}
