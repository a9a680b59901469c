//! PAN's character-level measures: macro- and micro-averaged recall and precision,
//! granularity and plagdet (Potthast, Stein, Barrón-Cedeño, Rosso: "An Evaluation
//! Framework for Plagiarism Detection", COLING 2010).
//!
//! Each function states which definition of the official evaluation script it
//! implements: `pan09-plagiarism-detection-performance-measures.py` (PAN 2009/2010,
//! Potthast), whose measure functions `pan13-text-alignment-perfmeasures.py` and
//! `pan15_text_alignment_evaluator_character_level.py` repeat unchanged. The figures
//! are the same; the computation is not: the scripts mark characters in bit arrays
//! and compare every case with every detection of a document, while this module
//! indexes detections by suspicious document, finds overlaps with an interval index
//! and counts characters as lengths of sorted, merged ranges.
//!
//! Conventions shared with the scripts:
//! * a detection *detects* a case ([`detects`]) when both concern the same suspicious
//!   document, their suspicious-document ranges overlap, and, when both name a source
//!   document, they name the same one and their source ranges overlap;
//! * a case's or detection's size is `this_length + source_length`
//!   ([`Annotation::chars`]): characters count in the suspicious *and* the source
//!   document;
//! * when there are neither cases nor detections, recall and precision are 1; when
//!   only one side is empty, both are 0; granularity is 1 when there are no
//!   detections or no case is detected; plagdet is 0 when recall and precision are
//!   both 0.

use std::collections::HashMap;

use serde::Serialize;

use super::annotations::Annotation;
use crate::analysis::span::{CharRange, union_len};

/// Recall, precision, granularity and their combination plagdet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Measures {
    /// `F1(recall, precision) / log2(1 + granularity)`, see [`plagdet_score`].
    pub plagdet: f64,
    /// Share of the plagiarised characters that were detected.
    pub recall: f64,
    /// Share of the detected characters that are plagiarised.
    pub precision: f64,
    /// Average number of detections per detected case (1 is ideal).
    pub granularity: f64,
}

impl Measures {
    fn new(recall: f64, precision: f64, granularity: f64) -> Measures {
        Measures { plagdet: plagdet_score(recall, precision, granularity), recall, precision, granularity }
    }
}

/// plagdet = F1 / log2(1 + granularity); 0 when recall and precision are both 0,
/// when either is negative, or when granularity is below 1 (official
/// `plagdet_score`).
pub fn plagdet_score(recall: f64, precision: f64, granularity: f64) -> f64 {
    if (recall == 0.0 && precision == 0.0) || recall < 0.0 || precision < 0.0 || granularity < 1.0 {
        return 0.0;
    }
    f1(precision, recall) / (1.0 + granularity).log2()
}

/// The harmonic mean of precision and recall, 0 when both are 0 (official
/// `get_fmeasure` of the PAN 2015 case- and document-level scripts, beta = 1).
pub fn f1(precision: f64, recall: f64) -> f64 {
    if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) }
}

/// A borrowed annotation: what the measures look at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Passage<'a> {
    pub suspicious: &'a str,
    pub this: CharRange,
    pub source: Option<(&'a str, CharRange)>,
}

impl<'a> Passage<'a> {
    pub fn of(annotation: &'a Annotation) -> Passage<'a> {
        Passage {
            suspicious: &annotation.suspicious,
            this: annotation.this,
            source: annotation.source.as_ref().map(|s| (s.reference.as_str(), s.range)),
        }
    }

    fn chars(&self) -> u64 {
        u64::from(self.this.len()) + self.source.map_or(0, |(_, range)| u64::from(range.len()))
    }

    /// The part of `case` that `detection` covers, as the official `overlap_annotation(case,
    /// detection)` builds it for `true_detections`: suspicious and source document of
    /// the case, the intersections of the ranges, and a source passage only when both
    /// have one. `detection` must detect `case`.
    pub fn reduced(case: Passage<'a>, detection: Passage<'_>) -> Passage<'a> {
        let source = match (case.source, detection.source) {
            (Some((reference, a)), Some((_, b))) => Some((reference, intersection(a, b))),
            _ => None,
        };
        Passage { suspicious: case.suspicious, this: intersection(case.this, detection.this), source }
    }
}

/// Where two ranges meet; they must overlap in the sense of [`ranges_overlap`], which
/// keeps the start within both (official `overlap_chars`).
fn intersection(a: CharRange, b: CharRange) -> CharRange {
    let start = a.start.max(b.start);
    CharRange::new(start, a.end.min(b.end).max(start))
}

/// The official overlap test of two ranges, `b.end > a.start and b.start < a.end`.
///
/// For non-empty ranges this means sharing a character; an empty range overlaps a
/// range that strictly contains its position.
fn ranges_overlap(a: CharRange, b: CharRange) -> bool {
    b.end > a.start && b.start < a.end
}

fn passages_overlap(a: &Passage, b: &Passage) -> bool {
    if a.suspicious != b.suspicious || !ranges_overlap(a.this, b.this) {
        return false;
    }
    match (a.source, b.source) {
        (Some((a_ref, a_range)), Some((b_ref, b_range))) => a_ref == b_ref && ranges_overlap(a_range, b_range),
        _ => true,
    }
}

/// True when `detection` detects `case` (official `is_overlapping`): same suspicious
/// document, overlapping ranges there, and, when both are external, the same source
/// document with overlapping ranges. The relation is symmetric.
pub fn detects(case: &Annotation, detection: &Annotation) -> bool {
    passages_overlap(&Passage::of(case), &Passage::of(detection))
}

/// Characters of `target` covered by those of `others` that overlap it (official
/// `overlapping_chars`): the union of their suspicious ranges within `target`'s,
/// plus, when `target` is external, the union of the external ones' source ranges
/// within its source range.
pub fn covered_chars<'a>(target: &Annotation, others: impl IntoIterator<Item = &'a Annotation>) -> u64 {
    covered(&Passage::of(target), others.into_iter().map(Passage::of))
}

pub(crate) fn covered<'a>(target: &Passage, others: impl IntoIterator<Item = Passage<'a>>) -> u64 {
    let mut this = Vec::new();
    let mut source = Vec::new();
    for other in others {
        if !passages_overlap(target, &other) {
            continue;
        }
        this.push(intersection(target.this, other.this));
        if let (Some((_, range)), Some((_, other_range))) = (target.source, other.source)
            && ranges_overlap(range, other_range)
        {
            source.push(intersection(range, other_range));
        }
    }
    union_len(&mut this) + union_len(&mut source)
}

/// `covered(target, others) / chars(target)`, 0 for an annotation of no characters
/// (where the official scripts would divide by zero).
pub(crate) fn coverage<'a>(target: &Passage, others: impl IntoIterator<Item = Passage<'a>>) -> f64 {
    let chars = target.chars();
    if chars == 0 { 0.0 } else { covered(target, others) as f64 / chars as f64 }
}

/// Characters covered by `passages`, overlaps counted once (official `count_chars`):
/// suspicious ranges united per suspicious document plus source ranges united per
/// source document, whichever suspicious document they come from.
fn count_chars<'a>(passages: impl IntoIterator<Item = Passage<'a>>) -> u64 {
    let mut this: HashMap<&str, Vec<CharRange>> = HashMap::new();
    let mut source: HashMap<&str, Vec<CharRange>> = HashMap::new();
    for passage in passages {
        this.entry(passage.suspicious).or_default().push(passage.this);
        if let Some((reference, range)) = passage.source {
            source.entry(reference).or_default().push(range);
        }
    }
    this.values_mut().chain(source.values_mut()).map(|ranges| union_len(ranges)).sum()
}

/// Ranges sorted by start, with a tree of maximal ends, that lists the ranges
/// overlapping a query range in `O((1 + hits) log n)` — so a detector that reports
/// thousands of passages in one document does not make evaluation quadratic.
#[derive(Debug, Default)]
pub(crate) struct OverlapIndex {
    ids: Vec<u32>,
    starts: Vec<u32>,
    ends: Vec<u32>,
    /// `max_end[node]`: largest end in the node's slice; node 1 is the whole slice,
    /// node `k` has children `2k` and `2k + 1`.
    max_end: Vec<u32>,
}

impl OverlapIndex {
    pub fn new(mut items: Vec<(u32, CharRange)>) -> OverlapIndex {
        items.sort_unstable_by_key(|&(id, range)| (range.start, id));
        let mut index = OverlapIndex {
            ids: items.iter().map(|&(id, _)| id).collect(),
            starts: items.iter().map(|&(_, range)| range.start).collect(),
            ends: items.iter().map(|&(_, range)| range.end).collect(),
            max_end: vec![0; 4 * items.len().max(1)],
        };
        if !items.is_empty() {
            index.build(1, 0, items.len());
        }
        index
    }

    fn build(&mut self, node: usize, lo: usize, hi: usize) -> u32 {
        let max = if hi - lo == 1 {
            self.ends[lo]
        } else {
            let mid = (lo + hi) / 2;
            self.build(2 * node, lo, mid).max(self.build(2 * node + 1, mid, hi))
        };
        self.max_end[node] = max;
        max
    }

    /// Calls `found` with the id of every range that overlaps `query` in the sense of
    /// [`ranges_overlap`].
    pub fn for_each_overlapping(&self, query: CharRange, mut found: impl FnMut(u32)) {
        // Only ranges starting before the query's end can overlap it.
        let limit = self.starts.partition_point(|&start| start < query.end);
        if limit > 0 {
            self.visit(1, 0, self.ids.len(), limit, query.start, &mut found);
        }
    }

    fn visit(&self, node: usize, lo: usize, hi: usize, limit: usize, after: u32, found: &mut impl FnMut(u32)) {
        if lo >= limit || self.max_end[node] <= after {
            return;
        }
        if hi - lo == 1 {
            found(self.ids[lo]);
            return;
        }
        let mid = (lo + hi) / 2;
        self.visit(2 * node, lo, mid, limit, after, found);
        self.visit(2 * node + 1, mid, hi, limit, after, found);
    }
}

/// Which detection detects which case, with each case's recall and each
/// detection's precision: everything the measures need, computed once.
#[derive(Debug)]
pub struct Matching<'a> {
    cases: &'a [Annotation],
    detections: &'a [Annotation],
    case_detections: Vec<Vec<u32>>,
    detection_cases: Vec<Vec<u32>>,
    case_recall: Vec<f64>,
    detection_precision: Vec<f64>,
    cases_by_document: HashMap<&'a str, OverlapIndex>,
}

impl<'a> Matching<'a> {
    /// Matches `detections` against `cases`. Neither may hold more than 2^32 items.
    pub fn new(cases: &'a [Annotation], detections: &'a [Annotation]) -> Matching<'a> {
        // Per suspicious document: (id, suspicious range) of its cases and its detections.
        type Ranges = Vec<(u32, CharRange)>;
        let mut by_document: HashMap<&str, (Ranges, Ranges)> = HashMap::new();
        for (id, case) in cases.iter().enumerate() {
            by_document.entry(&case.suspicious).or_default().0.push((id as u32, case.this));
        }
        for (id, detection) in detections.iter().enumerate() {
            by_document.entry(&detection.suspicious).or_default().1.push((id as u32, detection.this));
        }
        let mut case_detections = vec![Vec::new(); cases.len()];
        let mut detection_cases = vec![Vec::new(); detections.len()];
        let mut cases_by_document = HashMap::new();
        for (document, (document_cases, document_detections)) in by_document {
            if !document_detections.is_empty() && !document_cases.is_empty() {
                let index = OverlapIndex::new(document_detections);
                for &(case_id, range) in &document_cases {
                    let case = Passage::of(&cases[case_id as usize]);
                    index.for_each_overlapping(range, |detection_id| {
                        if passages_overlap(&case, &Passage::of(&detections[detection_id as usize])) {
                            case_detections[case_id as usize].push(detection_id);
                            detection_cases[detection_id as usize].push(case_id);
                        }
                    });
                }
            }
            if !document_cases.is_empty() {
                cases_by_document.insert(document, OverlapIndex::new(document_cases));
            }
        }
        for list in case_detections.iter_mut().chain(detection_cases.iter_mut()) {
            list.sort_unstable();
        }
        let case_recall = cases
            .iter()
            .zip(&case_detections)
            .map(|(case, found)| {
                coverage(&Passage::of(case), found.iter().map(|&d| Passage::of(&detections[d as usize])))
            })
            .collect();
        let detection_precision = detections
            .iter()
            .zip(&detection_cases)
            .map(|(detection, hit)| {
                coverage(&Passage::of(detection), hit.iter().map(|&c| Passage::of(&cases[c as usize])))
            })
            .collect();
        Matching {
            cases,
            detections,
            case_detections,
            detection_cases,
            case_recall,
            detection_precision,
            cases_by_document,
        }
    }

    /// The cases.
    pub fn cases(&self) -> &'a [Annotation] {
        self.cases
    }

    /// The detections.
    pub fn detections(&self) -> &'a [Annotation] {
        self.detections
    }

    /// Indices of the detections that detect case `case`, ascending.
    pub fn detections_of(&self, case: usize) -> &[u32] {
        &self.case_detections[case]
    }

    /// Indices of the cases that detection `detection` detects, ascending.
    pub fn cases_of(&self, detection: usize) -> &[u32] {
        &self.detection_cases[detection]
    }

    /// Recall of all detections on case `case` (official `case_recall(case,
    /// detections)`): its characters covered by detections that detect it, over its
    /// characters.
    pub fn case_recall(&self, case: usize) -> f64 {
        self.case_recall[case]
    }

    /// Precision of detection `detection` against all cases (official
    /// `case_recall(detection, cases)`, as `macro_avg_precision` calls it).
    pub fn detection_precision(&self, detection: usize) -> f64 {
        self.detection_precision[detection]
    }

    /// Calls `found` with every case in `document` whose suspicious range overlaps
    /// `range` (only by range: sources are not compared).
    pub(crate) fn cases_overlapping(&self, document: &str, range: CharRange, found: impl FnMut(u32)) {
        if let Some(index) = self.cases_by_document.get(document) {
            index.for_each_overlapping(range, found);
        }
    }

    /// Macro-averaged measures over all cases and detections (official
    /// `macro_avg_recall_and_precision`, `granularity` and `plagdet_score`).
    pub fn macro_averaged(&self) -> Measures {
        let cases: Vec<usize> = (0..self.cases.len()).collect();
        let detections: Vec<usize> = (0..self.detections.len()).collect();
        self.macro_averaged_over(&cases, &detections)
    }

    /// Macro-averaged measures of the cases `cases` and detections `detections`
    /// (indices), each case's recall and each detection's precision taken against
    /// *all* detections and cases:
    ///
    /// * recall = mean case recall over `cases` (official `macro_avg_recall`);
    /// * precision = mean detection precision over `detections` (official
    ///   `macro_avg_precision`, i.e. `macro_avg_recall(detections, cases)`);
    /// * both 1 when both lists are empty, both 0 when one is;
    /// * granularity = detections per detected case among `cases`, counting all
    ///   detections that detect it; 1 when `detections` is empty or no case is
    ///   detected (official `granularity`).
    ///
    /// With all indices this is the official figure. For a suspicious document's
    /// cases and detections it is the official figure on that document alone; for a
    /// class of cases and the detections that detect at least one of them it is the
    /// per-class figure of [`crate::eval::Report::groups`].
    pub fn macro_averaged_over(&self, cases: &[usize], detections: &[usize]) -> Measures {
        let (recall, precision) = match (cases.is_empty(), detections.is_empty()) {
            (true, true) => (1.0, 1.0),
            (true, false) | (false, true) => (0.0, 0.0),
            (false, false) => (
                cases.iter().map(|&c| self.case_recall[c]).sum::<f64>() / cases.len() as f64,
                detections.iter().map(|&d| self.detection_precision[d]).sum::<f64>() / detections.len() as f64,
            ),
        };
        let granularity = if detections.is_empty() { 1.0 } else { self.granularity_over(cases) };
        Measures::new(recall, precision, granularity)
    }

    fn granularity_over(&self, cases: &[usize]) -> f64 {
        let (detected, detections) = cases
            .iter()
            .map(|&c| self.case_detections[c].len())
            .filter(|&n| n > 0)
            .fold((0usize, 0usize), |(cases, detections), n| (cases + 1, detections + n));
        if detected == 0 { 1.0 } else { detections as f64 / detected as f64 }
    }

    /// Micro-averaged measures (official `micro_avg_recall_and_precision`):
    ///
    /// * recall = characters of the cases covered by detections that detect them,
    ///   over the characters of the cases;
    /// * precision = the same covered characters over the characters of the
    ///   detections;
    ///
    /// characters counted once however many annotations cover them (per suspicious
    /// document in the suspicious ranges, per source document in the source ranges);
    /// 1 and 1 with neither cases nor detections, 0 and 0 with only one of them.
    /// Granularity and plagdet as in [`Matching::macro_averaged`].
    pub fn micro_averaged(&self) -> Measures {
        let granularity = if self.detections.is_empty() {
            1.0
        } else {
            self.granularity_over(&(0..self.cases.len()).collect::<Vec<_>>())
        };
        let (recall, precision) = match (self.cases.is_empty(), self.detections.is_empty()) {
            (true, true) => (1.0, 1.0),
            (true, false) | (false, true) => (0.0, 0.0),
            (false, false) => {
                let plagiarised = count_chars(self.cases.iter().map(Passage::of));
                let detected = count_chars(self.detections.iter().map(Passage::of));
                // The official `true_detections`: each detection cut down to each case it
                // detects. (The script fails when there are none; the count is then 0.)
                let found = count_chars(self.case_detections.iter().enumerate().flat_map(|(c, found)| {
                    let case = Passage::of(&self.cases[c]);
                    found.iter().map(move |&d| Passage::reduced(case, Passage::of(&self.detections[d as usize])))
                }));
                let ratio = |total: u64| {
                    if total == 0 { 0.0 } else { found as f64 / total as f64 }
                };
                (ratio(plagiarised), ratio(detected))
            }
        };
        Measures::new(recall, precision, granularity)
    }

    /// Official `granularity(cases, detections)` over everything.
    pub fn granularity(&self) -> f64 {
        if self.detections.is_empty() { 1.0 } else { self.granularity_over(&(0..self.cases.len()).collect::<Vec<_>>()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: u32, end: u32) -> CharRange {
        CharRange::new(start, end)
    }

    /// The annotations of the official script's unit tests (`TestPerfMeasures`),
    /// written as ranges: `ext(t, 0, 100, s, 0, 100)` is their
    /// `Annotation(t, 0, 100, s, 0, 100, True)`.
    fn ext(suspicious: &str, this_offset: u32, this_length: u32, source: &str, offset: u32, length: u32) -> Annotation {
        Annotation::external(suspicious, r(this_offset, this_offset + this_length), source, r(offset, offset + length))
    }

    fn int(suspicious: &str, this_offset: u32, this_length: u32) -> Annotation {
        Annotation::intrinsic(suspicious, r(this_offset, this_offset + this_length))
    }

    fn macro_of(cases: &[Annotation], detections: &[Annotation]) -> Measures {
        Matching::new(cases, detections).macro_averaged()
    }

    fn micro_of(cases: &[Annotation], detections: &[Annotation]) -> Measures {
        Matching::new(cases, detections).micro_averaged()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn potthast_2010_one_case_detected_by_two_detections() {
        // Case: 100 + 100 characters. Two detections split it in halves (50 + 50 each).
        let case = [ext("s", 0, 100, "r", 0, 100)];
        let detections = [ext("s", 0, 50, "r", 0, 50), ext("s", 50, 50, "r", 50, 50)];
        let m = macro_of(&case, &detections);
        assert_eq!((m.recall, m.precision, m.granularity), (1.0, 1.0, 2.0));
        // F1 = 1, plagdet = 1 / log2(3).
        assert!(close(m.plagdet, 1.0 / 3f64.log2()), "{m:?}");
        assert!(close(m.plagdet, 0.630_929_753_571_457_4));
    }

    #[test]
    fn potthast_2010_detection_covering_half_a_case() {
        // The detection covers the first half of the case on both sides, exactly.
        let case = [ext("s", 100, 200, "r", 1000, 200)];
        let detection = [ext("s", 100, 100, "r", 1000, 100)];
        let m = macro_of(&case, &detection);
        assert_eq!((m.recall, m.precision, m.granularity), (0.5, 1.0, 1.0));
        assert!(close(m.plagdet, 2.0 / 3.0));
        // A detection twice the case: recall 1, precision 0.5.
        let long = [ext("s", 100, 400, "r", 1000, 400)];
        let m = macro_of(&case, &long);
        assert_eq!((m.recall, m.precision), (1.0, 0.5));
        // Micro-averaging agrees with one case and one detection.
        let micro = micro_of(&case, &long);
        assert_eq!((micro.recall, micro.precision), (1.0, 0.5));
    }

    #[test]
    fn detection_in_the_wrong_source_document_detects_nothing() {
        let case = [ext("s", 0, 100, "r1", 0, 100)];
        let elsewhere = [ext("s", 0, 100, "r2", 0, 100)];
        assert!(!detects(&case[0], &elsewhere[0]));
        let m = macro_of(&case, &elsewhere);
        assert_eq!((m.recall, m.precision, m.granularity, m.plagdet), (0.0, 0.0, 1.0, 0.0));
        let micro = micro_of(&case, &elsewhere);
        assert_eq!((micro.recall, micro.precision), (0.0, 0.0));
        // Right source document, but a source range that misses the case's.
        let missed = [ext("s", 0, 100, "r1", 100, 100)];
        assert!(!detects(&case[0], &missed[0]));
        // Another suspicious document.
        assert!(!detects(&case[0], &ext("t", 0, 100, "r1", 0, 100)));
    }

    #[test]
    fn empty_sets() {
        let case = [ext("s", 0, 100, "r", 0, 100)];
        for m in [macro_of(&[], &[]), micro_of(&[], &[])] {
            assert_eq!((m.recall, m.precision, m.granularity, m.plagdet), (1.0, 1.0, 1.0, 1.0));
        }
        for m in [macro_of(&case, &[]), macro_of(&[], &case), micro_of(&case, &[]), micro_of(&[], &case)] {
            assert_eq!((m.recall, m.precision, m.granularity, m.plagdet), (0.0, 0.0, 1.0, 0.0));
        }
    }

    #[test]
    fn official_unit_test_values() {
        // The expectations of the official script's TestPerfMeasures, computed by hand.
        let ann1 = ext("tref1", 0, 100, "sref1", 0, 100);
        let ann2 = int("tref1", 0, 100);
        let ann3 = ext("tref1", 100, 100, "sref1", 100, 100);
        let ann4 = ext("tref1", 0, 200, "sref1", 0, 200);
        let ann5 = ext("tref1", 0, 1, "sref1", 0, 1);
        let ann6 = ext("tref1", 99, 1, "sref1", 99, 1);
        let ann7 = ext("tref2", 0, 100, "sref2", 0, 100);
        let ann8 = int("tref2", 0, 100);
        let ann9 = ext("tref2", 50, 100, "sref2", 50, 100);
        let ann10 = ext("tref2", 25, 75, "sref2", 25, 75);
        let recall = |cases: &[Annotation], detections: &[Annotation]| macro_of(cases, detections).recall;
        let precision = |cases: &[Annotation], detections: &[Annotation]| macro_of(cases, detections).precision;
        let granularity = |cases: &[Annotation], detections: &[Annotation]| macro_of(cases, detections).granularity;
        let case_recall =
            |case: &Annotation, detections: &[Annotation]| covered_chars(case, detections) as f64 / case.chars() as f64;
        let c = |a: &Annotation| a.clone();

        assert_eq!(recall(&[c(&ann1)], &[c(&ann1)]), 1.0);
        assert_eq!(recall(&[c(&ann2)], &[c(&ann2)]), 1.0);
        assert_eq!(recall(&[c(&ann1), c(&ann7)], &[c(&ann1)]), 0.5);
        assert_eq!(recall(&[c(&ann2), c(&ann8)], &[c(&ann2)]), 0.5);
        assert_eq!(recall(&[c(&ann1)], &[c(&ann7)]), 0.0);
        assert_eq!(recall(&[c(&ann2)], &[c(&ann8)]), 0.0);

        assert_eq!(case_recall(&ann1, &[]), 0.0);
        assert_eq!(case_recall(&ann1, &[c(&ann1)]), 1.0);
        // An intrinsic detection covers only the suspicious side: 100 of 200.
        assert_eq!(case_recall(&ann1, &[c(&ann2)]), 0.5);
        assert_eq!(case_recall(&ann1, &[c(&ann3)]), 0.0);
        assert_eq!(case_recall(&ann1, &[c(&ann4)]), 1.0);
        assert_eq!(case_recall(&ann1, &[c(&ann4), c(&ann7)]), 1.0);
        assert_eq!(case_recall(&ann1, &[c(&ann7), c(&ann9)]), 0.0);
        assert_eq!(case_recall(&ann7, &[c(&ann9)]), 0.5);
        assert_eq!(case_recall(&ann7, &[c(&ann10)]), 0.75);
        assert_eq!(case_recall(&ann7, &[c(&ann9), c(&ann10)]), 0.75);

        assert_eq!(precision(&[c(&ann1)], &[c(&ann1)]), 1.0);
        assert_eq!(precision(&[c(&ann2)], &[c(&ann2)]), 1.0);
        assert_eq!(precision(&[c(&ann1), c(&ann7)], &[c(&ann1)]), 1.0);
        assert_eq!(precision(&[c(&ann2), c(&ann8)], &[c(&ann2)]), 1.0);
        assert_eq!(precision(&[c(&ann1)], &[c(&ann4)]), 0.5);
        assert_eq!(precision(&[c(&ann7)], &[c(&ann10)]), 1.0);
        // ann9 is half inside ann7 (0.5), ann10 wholly (1): mean 0.75.
        assert_eq!(precision(&[c(&ann7)], &[c(&ann9), c(&ann10)]), 0.75);
        // ann3 misses ann1 (0), ann4 is half ann1 (0.5): mean 0.25.
        assert_eq!(precision(&[c(&ann1)], &[c(&ann3), c(&ann4)]), 0.25);

        assert_eq!(granularity(&[], &[]), 1.0);
        assert_eq!(granularity(&[c(&ann1)], &[c(&ann2)]), 1.0);
        assert_eq!(granularity(&[c(&ann1)], &[c(&ann2), c(&ann3)]), 1.0);
        assert_eq!(granularity(&[c(&ann1)], &[c(&ann2), c(&ann3), c(&ann4)]), 2.0);
        assert_eq!(granularity(&[c(&ann1), c(&ann3)], &[c(&ann2), c(&ann4)]), 1.5);

        assert_eq!(plagdet_score(-1.0, 0.0, 0.0), 0.0);
        assert_eq!(plagdet_score(0.0, -1.0, 0.0), 0.0);
        assert_eq!(plagdet_score(0.0, 0.0, -1.0), 0.0);
        assert_eq!(plagdet_score(0.0, 0.0, 1.0), 0.0);
        assert_eq!(plagdet_score(0.0, 1.0, 1.0), 0.0);
        assert_eq!(plagdet_score(1.0, 0.0, 1.0), 0.0);
        assert_eq!(plagdet_score(1.0, 1.0, 1.0), 1.0);
        assert_eq!(plagdet_score(0.5, 1.0, 1.0), 2.0 / 3.0);
        assert_eq!(plagdet_score(1.0, 0.5, 1.0), 2.0 / 3.0);
        assert!((plagdet_score(1.0, 1.0, 2.0) - 0.630_929_75).abs() < 1e-8);
        // F1(0.25, 0.75) = 0.375; / log2(3).
        assert!((plagdet_score(0.25, 0.75, 2.0) - 0.236_598_65).abs() < 1e-8);

        assert!(detects(&ann1, &ann2));
        assert!(!detects(&ann1, &ann3));
        assert!(detects(&ann1, &ann4));
        assert!(!detects(&ann1, &ann7));
        assert!(!detects(&ann1, &ann8));
        assert!(!detects(&ann1, &ann9));
        assert!(!detects(&ann1, &ann10));
        assert!(detects(&ann1, &ann5));
        assert!(detects(&ann1, &ann6));
    }

    #[test]
    fn micro_averaging_counts_shared_characters_once() {
        // Two cases of one document share source characters 50..100 of r; a
        // detection covers the first case exactly.
        let cases = [ext("s", 0, 100, "r", 0, 100), ext("s", 200, 100, "r", 50, 100)];
        let detections = [ext("s", 0, 100, "r", 0, 100)];
        let m = micro_of(&cases, &detections);
        // Plagiarised: suspicious 200 + source 0..150 = 150 -> 350. Detected 200.
        // Found: case 1 fully (100 + 100); case 2 is not detected (no suspicious overlap).
        assert!(close(m.recall, 200.0 / 350.0), "{m:?}");
        assert_eq!(m.precision, 1.0);
        let macro_ = macro_of(&cases, &detections);
        assert_eq!((macro_.recall, macro_.precision), (0.5, 1.0));
        // Overlapping detections: characters detected twice count once in micro
        // precision, and each detection counts whole in macro precision.
        let detections = [ext("s", 0, 100, "r", 0, 100), ext("s", 50, 100, "r", 50, 100)];
        let cases = [ext("s", 0, 100, "r", 0, 100)];
        let m = micro_of(&cases, &detections);
        assert_eq!(m.recall, 1.0);
        assert!(close(m.precision, 200.0 / 300.0), "{m:?}");
        assert_eq!(macro_of(&cases, &detections).precision, 0.75);
        assert_eq!(m.granularity, 2.0);
    }

    #[test]
    fn empty_ranges_overlap_as_in_the_official_test() {
        // An empty suspicious range strictly inside the case still "overlaps" it.
        let case = ext("s", 10, 10, "r", 10, 10);
        let point = ext("s", 15, 0, "r", 12, 4);
        assert!(detects(&case, &point));
        assert!(!detects(&case, &ext("s", 10, 0, "r", 12, 4)));
        assert_eq!(covered_chars(&case, [&point]), 4);
    }

    #[test]
    fn empty_source_range_detects_nothing() {
        // The official `is_overlapping` asks both source ranges to overlap; an empty
        // one overlaps nothing, not even itself. Such a case counts (it has
        // suspicious characters) but no detection can find it.
        let case = ext("s", 0, 10, "r", 5, 0);
        assert!(!detects(&case, &case));
        let m = macro_of(std::slice::from_ref(&case), std::slice::from_ref(&case));
        assert_eq!((m.recall, m.precision, m.granularity), (0.0, 0.0, 1.0));
        // An intrinsic detection of the same passage does find it, on the suspicious side.
        let m = macro_of(std::slice::from_ref(&case), &[int("s", 0, 10)]);
        assert_eq!((m.recall, m.precision), (1.0, 1.0));
    }

    #[test]
    fn overlap_index_finds_exactly_the_overlapping_ranges() {
        let ranges = [r(0, 10), r(5, 5), r(2, 50), r(20, 30), r(29, 31), r(40, 40), r(45, 46)];
        let index = OverlapIndex::new(ranges.iter().enumerate().map(|(i, &range)| (i as u32, range)).collect());
        for start in 0..55 {
            for end in start..55 {
                let query = r(start, end);
                let mut found = Vec::new();
                index.for_each_overlapping(query, |id| found.push(id));
                found.sort_unstable();
                let expected: Vec<u32> =
                    (0..ranges.len() as u32).filter(|&i| ranges_overlap(query, ranges[i as usize])).collect();
                assert_eq!(found, expected, "query {query:?}");
            }
        }
    }
}
