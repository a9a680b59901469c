//! Reading plagiarism cases and detections from directories of PAN XML files.
//!
//! Both sides are read the way the official PAN evaluation scripts read them
//! (`extract_annotations_from_files` in Potthast's `pan09-plagiarism-detection-
//! performance-measures.py`, reused unchanged in `pan13-text-alignment-perfmeasures.py`
//! and `pan15_text_alignment_evaluator_character_level.py`):
//!
//! * every `*.xml` file directly in the directory and one folder below is read, so the
//!   PAN-PC-09/10/11 layout (`suspicious-documentN.xml` beside the texts, possibly in
//!   `partK/` folders) and the PAN 2013-2015 text-alignment layout
//!   (`suspicious-documentX-source-documentY.xml`, possibly in one folder per
//!   obfuscation) both work; the `reference` attribute of `<document>` names the
//!   suspicious document, with a warning when the file's name is not that document's
//!   (`X.xml` or `X-....xml` for `reference="X.txt"`);
//! * a feature is any element directly inside `<document>` with a `name` attribute,
//!   whatever the element is called (a real corpus has `<featue name="plagiarism" .../>`),
//!   and it is selected by the end of that name ([`Select`]);
//! * a feature is an annotation when it has `this_offset` and `this_length`; it is
//!   *external* when it also has `source_reference`, `source_offset` and
//!   `source_length`, *intrinsic* (no source passage) when it has none of them; a
//!   detection lacking `this_offset` or `this_length`, or with some of the source
//!   attributes but not all, is ignored with a warning naming its file and line (the
//!   scripts ignore the first and read the second as intrinsic, which only lowers
//!   the score);
//! * the annotations form a set: an annotation read twice (same suspicious document,
//!   ranges and source) counts once.
//!
//! Where the scripts would crash or read nonsense, this module says so instead: a
//! detection file that is not well-formed PAN XML is skipped and reported with its
//! line, an offset that is negative or not a number is an error naming the file, and an
//! annotation of zero characters in total is dropped and counted (the scripts divide
//! by its length). The ground truth is never read in part: a truth file that is not
//! well-formed PAN XML, or a case lacking one of its attributes, is an error
//! ([`EvalError::BadTruth`]).

use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::analysis::read::{self, output_stem};
use crate::analysis::span::CharRange;
use crate::report::pan_xml::{DETECTION_FEATURE, Feature, PanDocument};

/// Why cases or detections could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The directory to read does not exist.
    #[error("{}: no such directory", path.display())]
    MissingDirectory {
        /// The directory that was asked for.
        path: PathBuf,
    },
    /// The path exists but is not a directory.
    #[error("{}: not a directory", path.display())]
    NotADirectory {
        /// The path that was asked for.
        path: PathBuf,
    },
    /// A directory or file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The directory or file.
        path: PathBuf,
        /// The operating system's reason.
        source: io::Error,
    },
    /// A feature carries an offset or length that is not a non-negative integer, or
    /// that runs past 2^32 characters.
    #[error("{}: feature {feature} ('{name}'): {message}", path.display())]
    BadOffset {
        /// The XML file.
        path: PathBuf,
        /// 1-based position of the feature among the features of the file.
        feature: usize,
        /// The feature's name attribute.
        name: String,
        /// What is wrong, naming the attribute and its value.
        message: String,
    },
    /// The ground-truth or detections directory holds no `*.xml` file, here or
    /// one folder below.
    #[error("{}: no *.xml files here or one folder below", path.display())]
    NoXmlFiles {
        /// The directory.
        path: PathBuf,
    },
    /// A ground-truth file that cannot be read whole: not UTF-8, not well-formed PAN
    /// XML, without a `reference`, or with a case lacking an attribute. A detection
    /// file with such a problem is skipped or its feature ignored, with a warning;
    /// the truth is never read in part, which would change every score silently.
    #[error("{0}")]
    BadTruth(FileProblem),
    /// Suspicious documents listed in a pairs file have no truth file. PAN's
    /// corpora have one for each suspicious document (empty when it has no case),
    /// so a pair without one is not of this corpus, and would score as a pair
    /// without plagiarism.
    #[error("{}: no truth file in {} for {}", pairs.display(), truth.display(), listed(documents))]
    NoTruthFile {
        /// The pairs file.
        pairs: PathBuf,
        /// The ground-truth directory.
        truth: PathBuf,
        /// The suspicious documents without a truth file, at least one.
        documents: Vec<String>,
    },
}

/// `a.txt`, or `a.txt and N other listed suspicious documents`.
fn listed(documents: &[String]) -> String {
    match documents {
        [] => String::new(),
        [one] => one.clone(),
        [first, rest @ ..] => {
            let others = if rest.len() == 1 { "document" } else { "documents" };
            format!("{first} and {} other listed suspicious {others}", rest.len())
        }
    }
}

/// A passage of a source document.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourcePassage {
    /// The `source_reference` attribute: file name of the source document.
    pub reference: String,
    /// `source_offset .. source_offset + source_length`, in characters.
    pub range: CharRange,
}

/// One plagiarism case of the ground truth, or one detection of a detector.
///
/// The offsets count characters, as everywhere in PAN (see [`crate::analysis::span`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The suspicious document (the `reference` attribute of `<document>`).
    pub suspicious: String,
    /// `this_offset .. this_offset + this_length` in the suspicious document.
    pub this: CharRange,
    /// The source passage; `None` for an intrinsic annotation (no source attributes).
    pub source: Option<SourcePassage>,
    /// The feature's name, e.g. `plagiarism` or `detected-plagiarism`.
    pub feature: String,
    /// The `obfuscation` attribute (PAN: `none`, `low`, `high`, `random`, ...).
    pub obfuscation: Option<String>,
    /// The `type` attribute (PAN: `artificial`, `simulated`, `translation`, ...).
    pub kind: Option<String>,
    /// The `translation` attribute of PAN-PC-09 (`true` or `false`).
    pub translation: Option<String>,
    /// The `this_language` attribute.
    pub this_language: Option<String>,
    /// The `source_language` attribute.
    pub source_language: Option<String>,
}

/// The class of a case when no attribute gives one.
pub const UNSPECIFIED_CLASS: &str = "unspecified";

impl Annotation {
    /// An external annotation: `this` in `suspicious` was taken from `source` in
    /// `source_reference`. Class attributes are empty; set the fields to add them.
    pub fn external(suspicious: &str, this: CharRange, source_reference: &str, source: CharRange) -> Annotation {
        Annotation {
            source: Some(SourcePassage { reference: source_reference.to_string(), range: source }),
            ..Annotation::intrinsic(suspicious, this)
        }
    }

    /// An intrinsic annotation: a passage of `suspicious` without a known source.
    pub fn intrinsic(suspicious: &str, this: CharRange) -> Annotation {
        Annotation {
            suspicious: suspicious.to_string(),
            this,
            source: None,
            feature: DETECTION_FEATURE.to_string(),
            obfuscation: None,
            kind: None,
            translation: None,
            this_language: None,
            source_language: None,
        }
    }

    /// The same annotation with its `obfuscation` attribute set.
    pub fn with_obfuscation(mut self, obfuscation: &str) -> Annotation {
        self.obfuscation = Some(obfuscation.to_string());
        self
    }

    /// Characters in the annotation: `this_length + source_length`, the
    /// denominator of a case's recall and of a detection's precision in the
    /// official scripts (`case_recall`: `case[TLEN] + case[SLEN]`).
    pub fn chars(&self) -> u64 {
        u64::from(self.this.len()) + self.source.as_ref().map_or(0, |s| u64::from(s.range.len()))
    }

    /// The source document, or `""` for an intrinsic annotation (what the official
    /// scripts store as its `source_reference`).
    pub fn source_reference(&self) -> &str {
        self.source.as_ref().map_or("", |s| s.reference.as_str())
    }

    /// The class of the case for `--by obfuscation`: `translation` when the PAN-PC-09
    /// attribute `translation="true"` is set; otherwise the `obfuscation` attribute;
    /// when that is missing the `type` attribute; when that is missing `simulated` for
    /// a `simulated-plagiarism` feature, else [`UNSPECIFIED_CLASS`].
    ///
    /// A missing attribute is not taken to mean `none`: `none` is the class of
    /// verbatim copies, and a corpus that does not label its cases has not said that.
    pub fn obfuscation_class(&self) -> &str {
        if self.translation.as_deref().is_some_and(|t| t.eq_ignore_ascii_case("true")) {
            return "translation";
        }
        non_empty(&self.obfuscation).unwrap_or_else(|| self.type_class())
    }

    /// The class of the case for `--by type`: the `type` attribute; when it is
    /// missing `artificial` or `simulated` from the feature names
    /// `artificial-plagiarism` and `simulated-plagiarism` of PAN-PC-09, else
    /// [`UNSPECIFIED_CLASS`].
    pub fn type_class(&self) -> &str {
        non_empty(&self.kind).unwrap_or(match self.feature.as_str() {
            "artificial-plagiarism" => "artificial",
            "simulated-plagiarism" => "simulated",
            _ => UNSPECIFIED_CLASS,
        })
    }

    /// What makes two annotations the same element of the official scripts' set:
    /// suspicious document, ranges and source, not the class attributes.
    fn identity(&self) -> (&str, CharRange, Option<(&str, CharRange)>) {
        (&self.suspicious, self.this, self.source.as_ref().map(|s| (s.reference.as_str(), s.range)))
    }
}

fn non_empty(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// Which features of the XML files to read.
///
/// The official scripts select features whose name *ends with* a tag name
/// (`--plag-tag`, default `plagiarism`; `--det-tag`, default `detected-plagiarism`),
/// and so does this.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Select {
    /// Ground truth: features whose name ends with `plagiarism` (`plagiarism`,
    /// `artificial-plagiarism`, `simulated-plagiarism`, ...; [`crate::report::pan_xml::TRUTH_FEATURES`]),
    /// except `detected-plagiarism`. The official script would read detections
    /// left in the truth directory as cases; a report that a detector wrote over
    /// the ground truth then scores perfectly. Here it reads as no case at all.
    Truth,
    /// Features whose name ends with this suffix, e.g. `detected-plagiarism`.
    Suffix(String),
}

impl Select {
    /// Detections as detectors write them: features named `detected-plagiarism`.
    pub fn detections() -> Select {
        Select::Suffix(DETECTION_FEATURE.to_string())
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            Select::Truth => name.ends_with("plagiarism") && !name.ends_with(DETECTION_FEATURE),
            Select::Suffix(suffix) => name.ends_with(suffix.as_str()),
        }
    }

    /// Whether a problem in a file is an error ([`EvalError::BadTruth`]) rather
    /// than a warning: for the ground truth.
    fn is_strict(&self) -> bool {
        *self == Select::Truth
    }
}

/// A problem found in one XML file: a file skipped because it could not be read as
/// PAN XML, or something read with a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// The file.
    pub path: PathBuf,
    /// 1-based line of the problem, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = crate::error::escape_invisible(&self.path.display().to_string());
        match self.line {
            Some(line) => write!(f, "{path}: line {line}: {}", self.reason),
            None => write!(f, "{path}: {}", self.reason),
        }
    }
}

/// The annotations read from one directory, with what was left out and why.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The annotations, duplicates removed, in file order (files sorted by path).
    pub annotations: Vec<Annotation>,
    /// XML files found.
    pub files: usize,
    /// The suspicious documents that the files read are about (their `reference`),
    /// those without annotations too.
    pub documents: BTreeSet<String>,
    /// Files skipped because they are not well-formed PAN XML (never truth files).
    pub skipped: Vec<FileProblem>,
    /// Problems in files that were read: features without offsets, a `reference`
    /// that is not the file's document.
    pub warnings: Vec<FileProblem>,
    /// Selected features ignored because they lack an attribute (see
    /// [`FileAnnotations::Read`]).
    pub without_offsets: usize,
    /// Annotations dropped because they cover no character at all.
    pub empty: usize,
    /// Annotations dropped because the same annotation was read before.
    pub duplicates: usize,
}

/// Reads the annotations selected by `select` from `dir/*.xml` and `dir/*/*.xml`.
///
/// A missing directory is an error, and so is an offset that is not a non-negative
/// integer, a directory without XML files (most likely the wrong directory: every
/// detection would score as a false positive, or every case as missed), and, for
/// the ground truth, a malformed file ([`EvalError::BadTruth`]); a malformed detection file is skipped
/// and listed in [`Loaded::skipped`].
pub fn load_dir(dir: &Path, select: &Select) -> Result<Loaded, EvalError> {
    let files = xml_files(dir)?;
    if files.is_empty() {
        return Err(EvalError::NoXmlFiles { path: dir.to_path_buf() });
    }
    let parsed: Vec<Result<FileAnnotations, EvalError>> =
        files.par_iter().map(|path| load_file(path, select)).collect();
    let mut loaded = Loaded { files: files.len(), ..Loaded::default() };
    let mut kept = Vec::new();
    for result in parsed {
        match result? {
            FileAnnotations::Skipped(skipped) => loaded.skipped.push(skipped),
            FileAnnotations::Read { reference, annotations, without_offsets, warnings } => {
                loaded.documents.insert(reference);
                loaded.without_offsets += without_offsets;
                loaded.warnings.extend(warnings);
                for annotation in annotations {
                    if annotation.chars() == 0 {
                        loaded.empty += 1;
                    } else {
                        kept.push(annotation);
                    }
                }
            }
        }
    }
    // The official scripts keep annotations in a set; keep the first of each.
    let mut seen = HashSet::new();
    let keep: Vec<bool> = kept.iter().map(|annotation| seen.insert(annotation.identity())).collect();
    drop(seen);
    loaded.duplicates = keep.iter().filter(|&&keep| !keep).count();
    loaded.annotations =
        kept.into_iter().zip(keep).filter_map(|(annotation, keep)| keep.then_some(annotation)).collect();
    Ok(loaded)
}

/// The annotations of one XML file, before empty and duplicate ones are dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileAnnotations {
    /// The file was read.
    Read {
        /// The suspicious document, the `reference` of `<document>`.
        reference: String,
        /// The selected features with offsets, in file order.
        annotations: Vec<Annotation>,
        /// Selected features ignored because they lack `this_offset` or
        /// `this_length`, or have some of the source attributes but not all
        /// (detections only: in the ground truth this is an error).
        without_offsets: usize,
        /// Problems that did not stop the file being read (a feature without
        /// offsets, a reference that differs from the file name).
        warnings: Vec<FileProblem>,
    },
    /// The file is not well-formed PAN XML (detections only: in the ground truth
    /// this is an error).
    Skipped(FileProblem),
}

fn load_file(path: &Path, select: &Select) -> Result<FileAnnotations, EvalError> {
    let bytes = read::read_input(path).map_err(|source| EvalError::Io { path: path.to_path_buf(), source })?;
    read_annotations(path, &bytes, select)
}

/// Reads the annotations selected by `select` from the bytes of one XML file, as
/// [`load_dir`] reads each file; `path` only names the file in errors. Public so
/// that the fuzz target `fuzz/fuzz_targets/annotations.rs` reaches the parsing
/// without a file; [`load_dir`] is the entry point otherwise.
pub fn read_annotations(path: &Path, bytes: &[u8], select: &Select) -> Result<FileAnnotations, EvalError> {
    let problem = |line: Option<usize>, reason: String| FileProblem { path: path.to_path_buf(), line, reason };
    let (document, lines) = match parse_document(bytes) {
        Ok(parsed) => parsed,
        Err((line, reason)) if select.is_strict() => return Err(EvalError::BadTruth(problem(line, reason))),
        Err((line, reason)) => return Ok(FileAnnotations::Skipped(problem(line, reason))),
    };
    let mut warnings = Vec::new();
    if !names_document(path, &document.reference) {
        let reference = crate::error::escape_invisible(&document.reference);
        let reason = format!("reference=\"{reference}\" is not this file's document; read as its annotations");
        warnings.push(problem(None, reason));
    }
    let mut annotations = Vec::new();
    let mut without_offsets = 0;
    for (index, feature) in document.features.iter().enumerate() {
        if !select.matches(&feature.name) {
            continue;
        }
        let missing = missing_attributes(feature);
        if !missing.is_empty() {
            let reason = format!("feature '{}' without {}", feature.name, missing.join(", "));
            let line = lines.get(index).copied();
            if select.is_strict() {
                return Err(EvalError::BadTruth(problem(line, reason)));
            }
            without_offsets += 1;
            warnings.push(problem(line, reason + "; ignored"));
            continue;
        }
        let bad = |message: String| EvalError::BadOffset {
            path: path.to_path_buf(),
            feature: index + 1,
            name: feature.name.clone(),
            message,
        };
        annotations.push(annotation_of(&document.reference, feature).map_err(bad)?);
    }
    Ok(FileAnnotations::Read { reference: document.reference, annotations, without_offsets, warnings })
}

/// The PAN document in `bytes` and the line of each feature, or the line (when
/// known) and the reason why it cannot be read: not UTF-8, not PAN XML, or no
/// `reference` (the official scripts read nothing from such a file).
fn parse_document(bytes: &[u8]) -> Result<(PanDocument, Vec<usize>), (Option<usize>, String)> {
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let valid = error.valid_up_to();
        let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        (Some(line), format!("not valid UTF-8 at byte {valid}"))
    })?;
    let (document, lines) = PanDocument::parse_with_lines(text).map_err(|error| (Some(error.line), error.message))?;
    if document.reference.is_empty() {
        return Err((None, "<document> has no reference attribute".to_string()));
    }
    Ok((document, lines))
}

/// The attributes of an annotation that `feature` lacks: `this_offset` and
/// `this_length`, and, when it has any of `source_reference`, `source_offset` and
/// `source_length`, the others of these (a source passage half given is neither
/// external nor intrinsic).
fn missing_attributes(feature: &Feature) -> Vec<&'static str> {
    const THIS: [&str; 2] = ["this_offset", "this_length"];
    const SOURCE: [&str; 3] = ["source_reference", "source_offset", "source_length"];
    let has_source = SOURCE.iter().any(|key| feature.get(key).is_some());
    let needed = if has_source { &SOURCE[..] } else { &[] };
    THIS.iter().chain(needed).copied().filter(|key| feature.get(key).is_none()).collect()
}

/// The annotation of `feature`, which has every attribute [`missing_attributes`]
/// asks for, in the suspicious document `suspicious`; an error names an offset
/// that is not a number or runs too far.
fn annotation_of(suspicious: &str, feature: &Feature) -> Result<Annotation, String> {
    let this = range_of(feature, "this_offset", "this_length")?;
    let source = match feature.get("source_reference") {
        Some(reference) => Some(SourcePassage {
            reference: reference.to_string(),
            range: range_of(feature, "source_offset", "source_length")?,
        }),
        None => None,
    };
    let attribute = |key: &str| feature.get(key).map(str::to_string);
    Ok(Annotation {
        suspicious: suspicious.to_string(),
        this,
        source,
        feature: feature.name.clone(),
        obfuscation: attribute("obfuscation"),
        kind: attribute("type"),
        translation: attribute("translation"),
        this_language: attribute("this_language"),
        source_language: attribute("source_language"),
    })
}

/// Whether the file at `path` is named after the suspicious document
/// `reference`: `X.xml` (PAN-PC-09/10/11) or `X-anything.xml` (PAN 2013-2015:
/// `suspicious-documentX-source-documentY.xml`) for `reference="X.txt"`, `X`
/// the [`output_stem`] that `detect` names its reports after.
fn names_document(path: &Path, reference: &str) -> bool {
    let stem = path.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default();
    let document = output_stem(reference);
    let document = document.as_str();
    stem == document || stem.strip_prefix(document).is_some_and(|rest| rest.starts_with('-'))
}

/// The range `offset .. offset + length` of a feature.
fn range_of(feature: &Feature, offset_key: &str, length_key: &str) -> Result<CharRange, String> {
    let offset = feature.offset(offset_key)?;
    let length = feature.offset(length_key)?;
    let end = offset
        .checked_add(length)
        .filter(|&end| end <= u64::from(u32::MAX))
        .ok_or_else(|| format!("{offset_key}={offset} plus {length_key}={length} runs past 2^32 characters"))?;
    // Both fit in u32: end does, and offset <= end.
    Ok(CharRange::new(offset as u32, end as u32))
}

/// The `*.xml` files in `dir` and in its immediate subdirectories, sorted, hidden
/// entries excluded (the scripts' `glob('*.xml')` and `glob('*/*.xml')`).
fn xml_files(dir: &Path) -> Result<Vec<PathBuf>, EvalError> {
    match fs::metadata(dir) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(EvalError::MissingDirectory { path: dir.to_path_buf() });
        }
        Err(source) => {
            return Err(EvalError::Io { path: dir.to_path_buf(), source });
        }
        Ok(metadata) if !metadata.is_dir() => {
            return Err(EvalError::NotADirectory { path: dir.to_path_buf() });
        }
        Ok(_) => {}
    }
    let mut files = Vec::new();
    for entry in visible_entries(dir)? {
        if entry.is_dir() {
            files.extend(visible_entries(&entry)?.into_iter().filter(|p| is_xml_file(p)));
        } else if is_xml_file(&entry) {
            files.push(entry);
        }
    }
    files.sort();
    Ok(files)
}

fn visible_entries(dir: &Path) -> Result<Vec<PathBuf>, EvalError> {
    let io_error = |source| EvalError::Io { path: dir.to_path_buf(), source };
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_error)? {
        let entry = entry.map_err(io_error)?;
        if !entry.file_name().to_string_lossy().starts_with('.') {
            entries.push(entry.path());
        }
    }
    Ok(entries)
}

fn is_xml_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "xml") && path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    const TRUTH: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<document reference="suspicious-document00001.txt">
  <feature name="plagiarism" type="artificial" obfuscation="high" this_language="en" this_offset="461" this_length="712" source_reference="source-document00091.txt" source_language="en" source_offset="582" source_length="747"/>
  <feature name="plagiarism" type="artificial" obfuscation="none" this_offset="3569" this_length="747" source_reference="source-document00055.txt" source_offset="82823" source_length="747"/>
  <feature name="about" language="en"/>
  <feature name="detected-plagiarism" this_offset="1" this_length="2" source_reference="x" source_offset="1" source_length="2"/>
</document>"#;

    #[test]
    fn reads_truth_and_detections_one_level_down() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "suspicious-document00001.xml", TRUTH);
        write(dir.path(), "part2/suspicious-document00002.xml", &TRUTH.replace("00001.txt", "00002.txt"));
        write(dir.path(), "part2/deeper/ignored.xml", TRUTH);
        write(dir.path(), "suspicious-document00001.txt", "not xml");
        let truth = load_dir(dir.path(), &Select::Truth).unwrap();
        assert_eq!(truth.files, 2);
        assert_eq!(truth.annotations.len(), 4);
        // Files are read in path order, so part2/ comes before suspicious-...xml.
        let documents: Vec<&str> = truth.annotations.iter().map(|a| a.suspicious.as_str()).collect();
        assert_eq!(
            documents,
            [
                "suspicious-document00002.txt",
                "suspicious-document00002.txt",
                "suspicious-document00001.txt",
                "suspicious-document00001.txt"
            ]
        );
        let first = &truth.annotations[2];
        assert_eq!(first.this, CharRange::new(461, 1173));
        assert_eq!(first.source.as_ref().unwrap().range, CharRange::new(582, 1329));
        assert_eq!(first.source_reference(), "source-document00091.txt");
        assert_eq!(first.obfuscation_class(), "high");
        assert_eq!(first.type_class(), "artificial");
        assert_eq!(first.chars(), 712 + 747);
        let detections = load_dir(dir.path(), &Select::detections()).unwrap();
        assert_eq!(detections.annotations.len(), 2);
    }

    #[test]
    fn selects_features_by_the_end_of_their_name() {
        let dir = tempfile::tempdir().unwrap();
        let feature =
            |name: &str, offset: u32| format!("<feature name=\"{name}\" this_offset=\"{offset}\" this_length=\"5\"/>");
        let xml = format!(
            "<document reference=\"s.txt\">{}{}{}{}{}</document>",
            feature("plagiarism", 0),
            feature("simulated-plagiarism", 10),
            feature("translated-plagiarism", 20),
            feature("detected-plagiarism", 30),
            feature("plagiarism-note", 40),
        );
        write(dir.path(), "s.xml", &xml);
        let starts = |select: &Select| -> Vec<u32> {
            load_dir(dir.path(), select).unwrap().annotations.iter().map(|a| a.this.start).collect()
        };
        assert_eq!(starts(&Select::Truth), [0, 10, 20]);
        assert_eq!(starts(&Select::detections()), [30]);
        assert_eq!(starts(&Select::Suffix("simulated-plagiarism".into())), [10]);
    }

    #[test]
    fn intrinsic_annotations_duplicates_and_empty_ones() {
        let dir = tempfile::tempdir().unwrap();
        let xml = r#"<document reference="s.txt">
<feature name="detected-plagiarism" this_offset="10" this_length="5"/>
<feature name="detected-plagiarism" this_offset="10" this_length="5" source_reference="r.txt" source_offset="3"/>
<feature name="detected-plagiarism" this_offset="10" this_length="5" source_reference="r.txt" source_offset="3" source_length="4"/>
<feature name="detected-plagiarism" this_offset="10" this_length="5" source_reference="r.txt" source_offset="3" source_length="4"/>
<feature name="detected-plagiarism" this_offset="7" this_length="0"/>
<feature name="detected-plagiarism" this_length="3"/>
<feature name="detected-plagiarism" this_offset="10" this_length="5"/>
</document>"#;
        write(dir.path(), "s.xml", xml);
        let loaded = load_dir(dir.path(), &Select::detections()).unwrap();
        // Intrinsic (no source), incomplete source = ignored, external, external
        // again = duplicate, empty, without offset = ignored, intrinsic again = duplicate.
        assert_eq!(loaded.annotations.len(), 2);
        assert!(loaded.annotations[0].source.is_none());
        assert_eq!(loaded.annotations[1].chars(), 9);
        assert_eq!((loaded.duplicates, loaded.empty, loaded.without_offsets), (2, 1, 2));
    }

    /// TRUTH's features as detections.
    fn detections() -> String {
        TRUTH.replace("name=\"plagiarism\"", "name=\"detected-plagiarism\"")
    }

    #[test]
    fn detections_lacking_an_attribute_and_foreign_references_are_warned_about() {
        let dir = tempfile::tempdir().unwrap();
        let features = "<document reference=\"s.txt\">\n<feature name=\"detected-plagiarism\" this_offset=\"1\" this_length=\"2\"/>\n\
                        <feature name=\"detected-plagiarism\" this_length=\"3\"/>\n</document>";
        write(dir.path(), "s.xml", features);
        write(dir.path(), "s-source-document1.xml", &features.replace("this_length=\"3\"", "this_offset=\"9\""));
        let other =
            detections().replace("this_offset=\"461\" this_length=\"712\"", "").replace("source_offset=\"82823\"", "");
        write(dir.path(), "other.xml", &other);
        let loaded = load_dir(dir.path(), &Select::detections()).unwrap();
        let warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
        let at = |name: &str| dir.path().join(name).display().to_string();
        let expected = [
            format!(
                "{}: reference=\"suspicious-document00001.txt\" is not this file's document; read as its annotations",
                at("other.xml")
            ),
            format!(
                "{}: line 3: feature 'detected-plagiarism' without this_offset, this_length; ignored",
                at("other.xml")
            ),
            format!("{}: line 4: feature 'detected-plagiarism' without source_offset; ignored", at("other.xml")),
            format!(
                "{}: line 3: feature 'detected-plagiarism' without this_length; ignored",
                at("s-source-document1.xml")
            ),
            format!("{}: line 3: feature 'detected-plagiarism' without this_offset; ignored", at("s.xml")),
        ];
        assert_eq!(warnings, expected);
        assert_eq!(loaded.without_offsets, 4);
        // other.xml's own detection (line 6), and the first of the s files (read twice, kept once).
        assert_eq!((loaded.annotations.len(), loaded.duplicates), (2, 1));
        assert_eq!(loaded.documents.iter().collect::<Vec<_>>(), ["s.txt", "suspicious-document00001.txt"]);
    }

    #[test]
    fn a_case_lacking_an_attribute_is_an_error_naming_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("suspicious-document00001.xml").display().to_string();
        for (attribute, line) in [
            ("this_offset=\"461\"", 3),
            ("this_length=\"747\"", 4),
            ("source_offset=\"582\"", 3),
            ("source_length=\"747\"", 3),
        ] {
            write(dir.path(), "suspicious-document00001.xml", &TRUTH.replacen(attribute, "", 1));
            let error = load_dir(dir.path(), &Select::Truth).unwrap_err();
            let name = attribute.split('=').next().unwrap();
            assert_eq!(error.to_string(), format!("{at}: line {line}: feature 'plagiarism' without {name}"));
        }
        // A case without any source attribute is intrinsic, as in PAN-PC-09's intrinsic corpus.
        let intrinsic = "<document reference=\"s.txt\"><feature name=\"plagiarism\" this_offset=\"1\" this_length=\"2\"/></document>";
        write(dir.path(), "suspicious-document00001.xml", intrinsic);
        assert!(load_dir(dir.path(), &Select::Truth).unwrap().annotations[0].source.is_none());
    }

    #[test]
    fn a_directory_without_xml_files_is_an_error_for_truth_and_detections_alike() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "s.txt", "text");
        for select in [Select::Truth, Select::detections()] {
            let error = load_dir(dir.path(), &select).unwrap_err();
            assert_eq!(error.to_string(), format!("{}: no *.xml files here or one folder below", dir.path().display()));
        }
    }

    const BROKEN: &str = "<document reference=\"b.txt\">\n<feature name=\"plagiarism\" this_offset=\"1\n</document>";

    #[test]
    fn malformed_detection_files_are_skipped_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.xml", &detections());
        write(dir.path(), "b.xml", &BROKEN.replace("\"plagiarism\"", "\"detected-plagiarism\""));
        write(dir.path(), "c.xml", "<document>\n</document>");
        let two_roots = format!("{}\n<document reference=\"d.txt\"/>\n", detections());
        write(dir.path(), "d.xml", &two_roots);
        let loaded = load_dir(dir.path(), &Select::detections()).unwrap();
        assert_eq!(loaded.files, 4);
        assert_eq!(loaded.annotations.len(), 3, "a.xml only");
        assert_eq!(loaded.skipped.len(), 3);
        let message = loaded.skipped[0].to_string();
        assert!(message.starts_with(&format!("{}:", dir.path().join("b.xml").display())), "{message}");
        assert!(loaded.skipped[0].line.is_some_and(|line| line >= 2), "{message}");
        assert!(loaded.skipped[1].to_string().contains("no reference"));
        let at = dir.path().join("d.xml").display().to_string();
        assert_eq!(loaded.skipped[2].to_string(), format!("{at}: line 8: more than one root element"));
    }

    #[test]
    fn a_malformed_truth_file_is_an_error_naming_it() {
        let truncated = &TRUTH[..TRUTH.find("  <feature name=\"about\"").unwrap()];
        let two_roots = format!("{TRUTH}\n<document reference=\"suspicious-document00001.txt\"/>\n");
        for (text, reason) in [
            (BROKEN, "line 2: "),
            ("<document>\n</document>", "<document> has no reference attribute"),
            (truncated, "line 5: the text ends inside <document> (a truncated file?)"),
            (&two_roots, "line 8: more than one root element"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), "a.xml", TRUTH);
            write(dir.path(), "b.xml", text);
            let error = load_dir(dir.path(), &Select::Truth).unwrap_err();
            assert!(matches!(error, EvalError::BadTruth(_)), "{error:?}");
            let prefix = format!("{}: {reason}", dir.path().join("b.xml").display());
            assert!(error.to_string().starts_with(&prefix), "{error} does not start with {prefix}");
        }
    }

    #[test]
    fn bad_offsets_are_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "bad.xml", &TRUTH.replace("this_offset=\"3569\"", "this_offset=\"-3\""));
        let error = load_dir(dir.path(), &Select::Truth).unwrap_err().to_string();
        assert!(error.contains("bad.xml") && error.contains("-3") && error.contains("feature 2"), "{error}");
        write(dir.path(), "bad.xml", &TRUTH.replace("source_length=\"747\"", "source_length=\"many\""));
        let error = load_dir(dir.path(), &Select::Truth).unwrap_err().to_string();
        assert!(error.contains("bad.xml") && error.contains("many"), "{error}");
        write(dir.path(), "bad.xml", &TRUTH.replace("this_length=\"712\"", "this_length=\"4294967295\""));
        let error = load_dir(dir.path(), &Select::Truth).unwrap_err().to_string();
        assert!(error.contains("2^32"), "{error}");
    }

    #[test]
    fn missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let error = load_dir(&missing, &Select::Truth).unwrap_err();
        assert!(matches!(error, EvalError::MissingDirectory { .. }));
        assert_eq!(error.to_string(), format!("{}: no such directory", missing.display()));
    }

    #[test]
    fn classes_fall_back_sensibly() {
        let mut case = Annotation::external("s", CharRange::new(0, 1), "r", CharRange::new(0, 1));
        case.feature = "plagiarism".into();
        assert_eq!((case.obfuscation_class(), case.type_class()), ("unspecified", "unspecified"));
        case.feature = "simulated-plagiarism".into();
        assert_eq!((case.obfuscation_class(), case.type_class()), ("simulated", "simulated"));
        case.kind = Some("translation".into());
        assert_eq!((case.obfuscation_class(), case.type_class()), ("translation", "translation"));
        case = case.with_obfuscation("low");
        assert_eq!(case.obfuscation_class(), "low");
        case.translation = Some("true".into());
        assert_eq!(case.obfuscation_class(), "translation");
    }
}
