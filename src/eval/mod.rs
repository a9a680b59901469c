//! PAN's evaluation measures, computed as the official PAN evaluation scripts compute
//! them, for `pan-detect eval`.
//!
//! The pipeline: [`load_dir`] reads the ground-truth cases and the detections from
//! directories of PAN XML files ([`annotations`]); [`evaluate`] matches them
//! ([`Matching`]) and computes
//!
//! * the character-level measures of PAN 2009/2010 ([`measures`]): macro-averaged
//!   recall and precision, granularity and plagdet, and their micro-averaged variant;
//! * the case-level and document-level precision, recall and F1 of PAN 2014/2015
//!   ([`case_level`]);
//! * optionally the macro-averaged measures per class of case or per suspicious
//!   document ([`GroupBy`]), the table researchers put in papers.
//!
//! ```
//! use pan_detect::eval::{evaluate, Annotation, Options};
//! use pan_detect::analysis::span::CharRange;
//!
//! let case = Annotation::external("susp.txt", CharRange::new(0, 100), "src.txt", CharRange::new(0, 100));
//! // One case found by two detections, each covering a half.
//! let halves = [
//!     Annotation::external("susp.txt", CharRange::new(0, 50), "src.txt", CharRange::new(0, 50)),
//!     Annotation::external("susp.txt", CharRange::new(50, 100), "src.txt", CharRange::new(50, 100)),
//! ];
//! let report = evaluate(&[case], &halves, &Options::default());
//! assert_eq!((report.measures.recall, report.measures.precision, report.measures.granularity), (1.0, 1.0, 2.0));
//! assert!((report.measures.plagdet - 1.0 / 3f64.log2()).abs() < 1e-12);
//! ```

pub mod annotations;
pub mod case_level;
pub mod measures;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::pairs::DocumentPairs;

pub use annotations::{Annotation, EvalError, FileProblem, Loaded, Select, SourcePassage, load_dir};
pub use case_level::{CaseLevel, Scores, Thresholds};
pub use measures::{Matching, Measures, covered_chars, detects, f1, plagdet_score};

/// How to break the measures down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    /// By the class of the case, [`Annotation::obfuscation_class`]: `none`, `low`,
    /// `high`, `random`, `translation`, `simulated`, ...
    Obfuscation,
    /// By the type of the case, [`Annotation::type_class`]: `artificial`,
    /// `simulated`, `translation`, ...
    Type,
    /// By suspicious document.
    Document,
}

/// What [`evaluate`] computes besides the overall measures.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Thresholds of the case- and document-level measures.
    pub thresholds: Thresholds,
    /// The breakdown to compute, if any.
    pub group_by: Option<GroupBy>,
    /// The (suspicious, source) pairs of PAN 2013-2015 `pairs` files: when given,
    /// only cases and detections of these pairs count, at every level, as when
    /// PAN scored a sub-corpus on its own pairs.
    pub pairs: Option<DocumentPairs>,
}

/// The measures of one class of cases or one suspicious document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// The class (`none`, `high`, ...) or the suspicious document's name.
    pub name: String,
    /// Cases in the group.
    pub cases: usize,
    /// Detections in the group.
    pub detections: usize,
    /// Macro-averaged measures of the group.
    #[serde(flatten)]
    pub measures: Measures,
}

/// Everything `pan-detect eval` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Number of cases (distinct annotations of the ground truth).
    pub cases: usize,
    /// Number of detections (distinct).
    pub detections: usize,
    /// Macro-averaged character-level measures: PAN's plagdet, recall, precision and
    /// granularity.
    #[serde(flatten)]
    pub measures: Measures,
    /// Micro-averaged character-level measures.
    pub micro: Measures,
    /// PAN 2015 case-level precision, recall and F1.
    pub case_level: Scores,
    /// PAN 2015 document-level precision, recall and F1.
    pub document_level: Scores,
    /// The thresholds of the case- and document-level measures.
    pub thresholds: Thresholds,
    /// The breakdown in `groups`, if any.
    pub group_by: Option<GroupBy>,
    /// Macro-averaged measures per group, classes in a conventional order (`none`,
    /// `low`, `medium`, `high`, ..., then others alphabetically), documents by name.
    ///
    /// Per class `c`: the cases are those of class `c`; the detections are those that
    /// detect at least one case of class `c`. Recall and granularity are the official
    /// figures for the cases of class `c` against all detections. Precision is the
    /// mean precision of the class's detections, each measured against *all* cases,
    /// so that a detection spanning two adjacent cases of different classes is not
    /// penalised; detections that detect no case belong to no class, so false
    /// positives lower only the overall precision. plagdet combines the three.
    ///
    /// Per document: the official figures on that document's cases and detections.
    pub groups: Vec<Group>,
}

/// Evaluates `detections` against the ground-truth `cases`.
pub fn evaluate(cases: &[Annotation], detections: &[Annotation], options: &Options) -> Report {
    match &options.pairs {
        None => evaluate_all(cases, detections, options),
        Some(pairs) => evaluate_all(&of_pairs(cases, pairs), &of_pairs(detections, pairs), options),
    }
}

/// Checks the pairs file at `path`, read as `pairs`, against the ground truth
/// `truth` read from `truth_dir`, before [`Options::pairs`] restricts an evaluation
/// to its pairs: every suspicious document it lists must have a truth file
/// (PAN's corpora have one for each, empty when it has no case). Otherwise its
/// pairs would score as pairs without plagiarism, whatever the detections
/// ([`DocumentPairs::parse`] has made sure that it lists a pair).
pub fn check_pairs(path: &Path, pairs: &DocumentPairs, truth: &Loaded, truth_dir: &Path) -> Result<(), EvalError> {
    let mut documents: Vec<String> = pairs
        .iter()
        .map(|(suspicious, _)| suspicious)
        .filter(|s| !truth.documents.contains(*s))
        .map(str::to_string)
        .collect();
    // Pairs come ordered by suspicious document.
    documents.dedup();
    if documents.is_empty() {
        Ok(())
    } else {
        Err(EvalError::NoTruthFile { pairs: path.to_path_buf(), truth: truth_dir.to_path_buf(), documents })
    }
}

/// The external annotations of the listed pairs.
fn of_pairs(annotations: &[Annotation], pairs: &DocumentPairs) -> Vec<Annotation> {
    annotations
        .iter()
        .filter(|a| a.source.as_ref().is_some_and(|source| pairs.contains(&a.suspicious, &source.reference)))
        .cloned()
        .collect()
}

fn evaluate_all(cases: &[Annotation], detections: &[Annotation], options: &Options) -> Report {
    let matching = Matching::new(cases, detections);
    let level = CaseLevel::new(&matching, options.thresholds);
    let groups = match options.group_by {
        None => Vec::new(),
        Some(GroupBy::Obfuscation) => class_groups(&matching, Annotation::obfuscation_class),
        Some(GroupBy::Type) => class_groups(&matching, Annotation::type_class),
        Some(GroupBy::Document) => document_groups(&matching),
    };
    Report {
        cases: cases.len(),
        detections: detections.len(),
        measures: matching.macro_averaged(),
        micro: matching.micro_averaged(),
        case_level: level.case_scores(),
        document_level: level.document_scores(&matching),
        thresholds: options.thresholds,
        group_by: options.group_by,
        groups,
    }
}

/// Classes in the order papers print them; others follow alphabetically, then
/// [`annotations::UNSPECIFIED_CLASS`].
const CLASS_ORDER: [&str; 10] =
    ["none", "low", "medium", "high", "random", "translation", "summary", "simulated", "artificial", "intrinsic"];

fn class_rank(name: &str) -> (usize, &str) {
    let rank = CLASS_ORDER
        .iter()
        .position(|&known| known == name)
        .unwrap_or(if name == annotations::UNSPECIFIED_CLASS { CLASS_ORDER.len() + 1 } else { CLASS_ORDER.len() });
    (rank, name)
}

fn class_groups(matching: &Matching, class_of: fn(&Annotation) -> &str) -> Vec<Group> {
    let mut classes: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, case) in matching.cases().iter().enumerate() {
        classes.entry(class_of(case)).or_default().push(index);
    }
    let mut groups: Vec<(&str, Vec<usize>)> = classes.into_iter().collect();
    groups.sort_by(|(a, _), (b, _)| class_rank(a).cmp(&class_rank(b)));
    groups
        .into_iter()
        .map(|(name, cases)| {
            let mut detections: Vec<usize> =
                cases.iter().flat_map(|&case| matching.detections_of(case)).map(|&d| d as usize).collect();
            detections.sort_unstable();
            detections.dedup();
            group(matching, name, &cases, &detections)
        })
        .collect()
}

fn document_groups(matching: &Matching) -> Vec<Group> {
    let mut documents: BTreeMap<&str, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    for (index, case) in matching.cases().iter().enumerate() {
        documents.entry(&case.suspicious).or_default().0.push(index);
    }
    for (index, detection) in matching.detections().iter().enumerate() {
        documents.entry(&detection.suspicious).or_default().1.push(index);
    }
    documents.into_iter().map(|(name, (cases, detections))| group(matching, name, &cases, &detections)).collect()
}

fn group(matching: &Matching, name: &str, cases: &[usize], detections: &[usize]) -> Group {
    Group {
        name: name.to_string(),
        cases: cases.len(),
        detections: detections.len(),
        measures: matching.macro_averaged_over(cases, detections),
    }
}

#[cfg(test)]
mod tests;
