//! PAN 2014/2015 case-level and document-level precision, recall and F1
//! (Potthast et al., "Overview of the 6th International Competition on Plagiarism
//! Detection", PAN at CLEF 2014), as the official scripts
//! `pan15_text_alignment_evaluator_case_level.py` and
//! `pan15_text_alignment_evaluator_document_level.py` (Göring, 2015) compute them.
//!
//! With thresholds `τ_rec` and `τ_prec` (0.5 and 0.5 by default):
//!
//! * a case `s` is **found** when the detections cover at least `τ_rec` of it
//!   (its character recall, [`Matching::case_recall`]) and some detection `r` that
//!   detects it, cut down to `s` (the official `true_detections([s], R)`), has
//!   precision at least `τ_prec` against all cases (`recall_condition` and
//!   `precision_condition`);
//! * a detection `r` is **correct** when its precision against all cases is at least
//!   `τ_prec` and some case `s` is covered to at least `τ_rec` by `r` cut down to
//!   the cases it detects (`true_detections(S, [r])`;
//!   `precision_condition1` and `recall_condition1`);
//! * case level: recall = found cases / cases, precision = correct detections /
//!   detections (0 without detections), F1 their harmonic mean (0 when both are 0);
//! * document level: the same over (suspicious document, source document) pairs:
//!   recall = pairs with a found case / pairs with a case, precision = pairs with a
//!   correct detection / pairs with a detection. An intrinsic annotation's pair has
//!   the source document `""`.
//!
//! Where the scripts divide by zero this module decides: without cases, recall and
//! precision are 1 when there are no detections either, else 0 (as at character
//! level); a detection cut down to nothing has precision 0.

use std::collections::HashSet;

use serde::Serialize;

use super::measures::{Matching, Passage, coverage, f1};

/// The thresholds a case's recall and a detection's precision must reach.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    /// `τ_rec`: minimal share of a case that must be detected.
    pub recall: f64,
    /// `τ_prec`: minimal share of a detection that must be plagiarised.
    pub precision: f64,
}

impl Default for Thresholds {
    /// 0.5 and 0.5, the values of PAN 2014 and 2015.
    fn default() -> Thresholds {
        Thresholds { recall: 0.5, precision: 0.5 }
    }
}

/// Precision, recall and F1 of a detection task.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scores {
    /// Share of the reported items that are correct.
    pub precision: f64,
    /// Share of the items to find that were found.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
}

impl Scores {
    fn new(found: usize, to_find: usize, correct: usize, reported: usize) -> Scores {
        let (recall, precision) = match (to_find, reported) {
            (0, 0) => (1.0, 1.0),
            (0, _) => (0.0, 0.0),
            (_, 0) => (found as f64 / to_find as f64, 0.0),
            _ => (found as f64 / to_find as f64, correct as f64 / reported as f64),
        };
        Scores { precision, recall, f1: f1(precision, recall) }
    }
}

/// Which cases were found and which detections are correct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseLevel {
    /// `found[i]`: case `i` counts as found.
    pub found: Vec<bool>,
    /// `correct[j]`: detection `j` counts as correct.
    pub correct: Vec<bool>,
}

impl CaseLevel {
    /// Decides for every case and detection of `matching`.
    pub fn new(matching: &Matching, thresholds: Thresholds) -> CaseLevel {
        let found = (0..matching.cases().len()).map(|case| is_found(matching, case, thresholds)).collect();
        let correct =
            (0..matching.detections().len()).map(|detection| is_correct(matching, detection, thresholds)).collect();
        CaseLevel { found, correct }
    }

    /// Case-level precision, recall and F1.
    pub fn case_scores(&self) -> Scores {
        let count = |flags: &[bool]| flags.iter().filter(|&&flag| flag).count();
        Scores::new(count(&self.found), self.found.len(), count(&self.correct), self.correct.len())
    }

    /// Document-level precision, recall and F1.
    pub fn document_scores(&self, matching: &Matching) -> Scores {
        let pair =
            |annotation: &super::Annotation| (annotation.suspicious.clone(), annotation.source_reference().to_string());
        let with_cases: HashSet<_> = matching.cases().iter().map(pair).collect();
        let with_detections: HashSet<_> = matching.detections().iter().map(pair).collect();
        let found: HashSet<_> =
            matching.cases().iter().zip(&self.found).filter(|(_, found)| **found).map(|(case, _)| pair(case)).collect();
        let correct: HashSet<_> = matching
            .detections()
            .iter()
            .zip(&self.correct)
            .filter(|(_, correct)| **correct)
            .map(|(detection, _)| pair(detection))
            .collect();
        Scores::new(found.len(), with_cases.len(), correct.len(), with_detections.len())
    }
}

/// Official `recall_condition(s, R) and precision_condition(s, S, R)`.
fn is_found(matching: &Matching, case: usize, thresholds: Thresholds) -> bool {
    if matching.case_recall(case) < thresholds.recall {
        return false;
    }
    let cases = matching.cases();
    let detections = matching.detections();
    let case_passage = Passage::of(&cases[case]);
    matching.detections_of(case).iter().any(|&detection| {
        let reduced = Passage::reduced(case_passage, Passage::of(&detections[detection as usize]));
        let mut overlapping = Vec::new();
        matching.cases_overlapping(reduced.suspicious, reduced.this, |other| overlapping.push(other));
        let precision = coverage(&reduced, overlapping.iter().map(|&other| Passage::of(&cases[other as usize])));
        precision >= thresholds.precision
    })
}

/// Official `precision_condition1(r, S) and recall_condition1(r, S)`.
fn is_correct(matching: &Matching, detection: usize, thresholds: Thresholds) -> bool {
    if matching.detection_precision(detection) < thresholds.precision {
        return false;
    }
    let cases = matching.cases();
    if thresholds.recall <= 0.0 {
        // Every case has recall >= 0, detected by this detection or not.
        return !cases.is_empty();
    }
    let detection_passage = Passage::of(&matching.detections()[detection]);
    let pieces: Vec<Passage> = matching
        .cases_of(detection)
        .iter()
        .map(|&case| Passage::reduced(Passage::of(&cases[case as usize]), detection_passage))
        .collect();
    // A case the pieces cover lies in this document and overlaps the detection's
    // suspicious range; any other case has recall 0 < τ_rec.
    let mut candidates = Vec::new();
    matching.cases_overlapping(detection_passage.suspicious, detection_passage.this, |case| candidates.push(case));
    candidates
        .iter()
        .any(|&case| coverage(&Passage::of(&cases[case as usize]), pieces.iter().copied()) >= thresholds.recall)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::span::CharRange;
    use crate::eval::Annotation;

    fn ext(this: (u32, u32), source_reference: &str, source: (u32, u32)) -> Annotation {
        Annotation::external("s", CharRange::new(this.0, this.1), source_reference, CharRange::new(source.0, source.1))
    }

    fn levels(cases: &[Annotation], detections: &[Annotation]) -> (CaseLevel, Scores, Scores) {
        let matching = Matching::new(cases, detections);
        let level = CaseLevel::new(&matching, Thresholds::default());
        let case_scores = level.case_scores();
        let document_scores = level.document_scores(&matching);
        (level, case_scores, document_scores)
    }

    #[test]
    fn split_detection_still_finds_the_case() {
        // Two halves: each detection alone covers 0.5 of the case, together 1.
        let cases = [ext((0, 100), "r", (0, 100))];
        let detections = [ext((0, 50), "r", (0, 50)), ext((50, 100), "r", (50, 100))];
        let (level, cases_, documents) = levels(&cases, &detections);
        assert_eq!(level.found, vec![true]);
        assert_eq!(level.correct, vec![true, true]);
        assert_eq!((cases_.precision, cases_.recall, cases_.f1), (1.0, 1.0, 1.0));
        assert_eq!((documents.precision, documents.recall, documents.f1), (1.0, 1.0, 1.0));
    }

    #[test]
    fn thresholds_decide() {
        // Detection 1 covers 40% of case 1 (below τ_rec); detection 2 covers case 2
        // but 400 of its 600 characters lie outside (precision 1/3 < τ_prec);
        // detection 3 names another source.
        let cases = [ext((0, 100), "r", (0, 100)), ext((200, 300), "r", (200, 300)), ext((400, 500), "q", (0, 100))];
        let detections =
            [ext((0, 40), "r", (0, 40)), ext((200, 300), "r", (200, 700)), ext((400, 500), "other", (0, 100))];
        let (level, scores, documents) = levels(&cases, &detections);
        // Case 2 is found: its recall is 1 and detection 2 cut down to it is all case.
        assert_eq!(level.found, vec![false, true, false]);
        assert_eq!(level.correct, vec![false, false, false]);
        assert!((scores.recall - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!((scores.precision, scores.f1), (0.0, 0.0));
        // Pairs with cases: (s, r), (s, q); found: (s, r). Pairs with detections:
        // (s, r), (s, other); none correct.
        assert_eq!((documents.recall, documents.precision, documents.f1), (0.5, 0.0, 0.0));
        // Lower thresholds make detection 1 correct and case 1 found.
        let matching = Matching::new(&cases, &detections);
        let low = CaseLevel::new(&matching, Thresholds { recall: 0.4, precision: 0.3 });
        assert_eq!(low.found, vec![true, true, false]);
        assert_eq!(low.correct, vec![true, true, false]);
    }

    #[test]
    fn empty_sets() {
        let cases = [ext((0, 100), "r", (0, 100))];
        let (_, both_empty, documents) = levels(&[], &[]);
        assert_eq!((both_empty.precision, both_empty.recall, both_empty.f1), (1.0, 1.0, 1.0));
        assert_eq!(documents, both_empty);
        let (_, no_detections, _) = levels(&cases, &[]);
        assert_eq!((no_detections.precision, no_detections.recall, no_detections.f1), (0.0, 0.0, 0.0));
        let (_, no_cases, _) = levels(&[], &cases);
        assert_eq!((no_cases.precision, no_cases.recall, no_cases.f1), (0.0, 0.0, 0.0));
    }
}
