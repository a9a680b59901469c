//! Tests of [`evaluate`]: breakdowns by hand, and property tests against a naive
//! implementation that follows the definitions character by character.

use std::collections::HashSet;

use proptest::prelude::*;

use super::*;
use crate::analysis::span::CharRange;

fn ext(suspicious: &str, this: (u32, u32), source: &str, range: (u32, u32), obfuscation: &str) -> Annotation {
    Annotation::external(suspicious, CharRange::new(this.0, this.1), source, CharRange::new(range.0, range.1))
        .with_obfuscation(obfuscation)
}

fn by(group_by: GroupBy) -> Options {
    Options { group_by: Some(group_by), ..Options::default() }
}

#[test]
fn breakdown_by_obfuscation() {
    let cases = [
        ext("s1", (0, 100), "r", (0, 100), "none"),
        ext("s1", (100, 200), "r", (500, 600), "high"),
        ext("s2", (0, 100), "r", (0, 100), "none"),
        ext("s2", (300, 400), "q", (0, 100), "low"),
    ];
    let detections = [
        // Spans the none and the high case of s1 in the suspicious document, but
        // only the none case's source range: it detects the none case only.
        ext("s1", (0, 200), "r", (0, 100), ""),
        // Two detections split the none case of s2.
        ext("s2", (0, 50), "r", (0, 50), ""),
        ext("s2", (50, 100), "r", (50, 100), ""),
        // A false positive.
        ext("s2", (1000, 1100), "r", (1000, 1100), ""),
    ];
    let report = evaluate(&cases, &detections, &by(GroupBy::Obfuscation));
    let names: Vec<&str> = report.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["none", "low", "high"]);
    let none = &report.groups[0];
    assert_eq!((none.cases, none.detections), (2, 3));
    assert_eq!((none.measures.recall, none.measures.granularity), (1.0, 1.5));
    // Precision of the s1 detection: 100 + 100 covered of 200 + 100; the halves: 1.
    assert!((none.measures.precision - (2.0 / 3.0 + 2.0) / 3.0).abs() < 1e-12);
    let low = &report.groups[1];
    assert_eq!((low.cases, low.detections), (1, 0));
    assert_eq!((low.measures.recall, low.measures.precision, low.measures.granularity), (0.0, 0.0, 1.0));
    let high = &report.groups[2];
    assert_eq!((high.cases, high.detections, high.measures.plagdet), (1, 0, 0.0));
    // Overall: recall (1 + 0 + 1 + 0) / 4; precision (2/3 + 1 + 1 + 0) / 4.
    assert_eq!(report.measures.recall, 0.5);
    assert!((report.measures.precision - (2.0 / 3.0 + 2.0) / 4.0).abs() < 1e-12);
    assert_eq!(report.measures.granularity, 1.5);
}

#[test]
fn breakdown_by_document_and_type() {
    let mut cases = vec![ext("s1", (0, 100), "r", (0, 100), "none"), ext("s2", (0, 100), "r", (0, 100), "none")];
    cases[1].kind = Some("simulated".into());
    let detections = [ext("s1", (0, 100), "r", (0, 100), ""), ext("s3", (0, 100), "r", (0, 100), "")];
    let report = evaluate(&cases, &detections, &by(GroupBy::Document));
    let rows: Vec<(&str, usize, usize, f64)> =
        report.groups.iter().map(|g| (g.name.as_str(), g.cases, g.detections, g.measures.plagdet)).collect();
    assert_eq!(rows, [("s1", 1, 1, 1.0), ("s2", 1, 0, 0.0), ("s3", 0, 1, 0.0)]);
    let report = evaluate(&cases, &detections, &by(GroupBy::Type));
    let rows: Vec<(&str, f64)> = report.groups.iter().map(|g| (g.name.as_str(), g.measures.recall)).collect();
    assert_eq!(rows, [("simulated", 0.0), ("unspecified", 1.0)]);
}

#[test]
fn report_serialises_flat() {
    let cases = [ext("s", (0, 10), "r", (0, 10), "none")];
    let report = evaluate(&cases, &cases, &by(GroupBy::Obfuscation));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["plagdet"], 1.0);
    assert_eq!(json["micro"]["recall"], 1.0);
    assert_eq!(json["case_level"]["f1"], 1.0);
    assert_eq!(json["group_by"], "obfuscation");
    assert_eq!(json["groups"][0]["name"], "none");
    assert_eq!(json["groups"][0]["granularity"], 1.0);
}

// ---------------------------------------------------------------------------
// The naive reference: sets of characters, every case against every detection.

/// A character: (source side?, document, offset).
type Char = (bool, String, u32);

fn chars(annotation: &Annotation) -> HashSet<Char> {
    let mut set = HashSet::new();
    for offset in annotation.this.start..annotation.this.end {
        set.insert((false, annotation.suspicious.clone(), offset));
    }
    if let Some(source) = &annotation.source {
        for offset in source.range.start..source.range.end {
            set.insert((true, source.reference.clone(), offset));
        }
    }
    set
}

fn naive_overlap(a: CharRange, b: CharRange) -> bool {
    b.end > a.start && b.start < a.end
}

fn naive_detects(a: &Annotation, b: &Annotation) -> bool {
    let this = a.suspicious == b.suspicious && naive_overlap(a.this, b.this);
    match (&a.source, &b.source) {
        (Some(x), Some(y)) => this && x.reference == y.reference && naive_overlap(x.range, y.range),
        _ => this,
    }
}

/// Share of `target`'s characters that the annotations detecting it cover.
fn naive_share(target: &Annotation, others: &[Annotation]) -> f64 {
    let own = chars(target);
    let covered: HashSet<Char> = others
        .iter()
        .filter(|other| naive_detects(target, other))
        .flat_map(|other| own.intersection(&chars(other)).cloned().collect::<Vec<_>>())
        .collect();
    if own.is_empty() { 0.0 } else { covered.len() as f64 / own.len() as f64 }
}

fn naive_macro_recall(cases: &[Annotation], detections: &[Annotation]) -> f64 {
    match (cases.is_empty(), detections.is_empty()) {
        (true, true) => 1.0,
        (true, false) | (false, true) => 0.0,
        _ => cases.iter().map(|case| naive_share(case, detections)).sum::<f64>() / cases.len() as f64,
    }
}

fn naive_granularity(cases: &[Annotation], detections: &[Annotation]) -> f64 {
    if detections.is_empty() {
        return 1.0;
    }
    let counts: Vec<usize> = cases
        .iter()
        .map(|case| detections.iter().filter(|d| naive_detects(case, d)).count())
        .filter(|&n| n > 0)
        .collect();
    if counts.is_empty() { 1.0 } else { counts.iter().sum::<usize>() as f64 / counts.len() as f64 }
}

fn naive_reduced(case: &Annotation, detection: &Annotation) -> Annotation {
    let cut = |a: CharRange, b: CharRange| {
        let start = a.start.max(b.start);
        CharRange::new(start, a.end.min(b.end).max(start))
    };
    let mut reduced = Annotation::intrinsic(&case.suspicious, cut(case.this, detection.this));
    if let (Some(x), Some(y)) = (&case.source, &detection.source) {
        reduced.source = Some(SourcePassage { reference: x.reference.clone(), range: cut(x.range, y.range) });
    }
    reduced
}

fn naive_micro(cases: &[Annotation], detections: &[Annotation]) -> (f64, f64) {
    match (cases.is_empty(), detections.is_empty()) {
        (true, true) => return (1.0, 1.0),
        (true, false) | (false, true) => return (0.0, 0.0),
        _ => {}
    }
    let union = |annotations: &mut dyn Iterator<Item = Annotation>| -> usize {
        annotations.flat_map(|a| chars(&a)).collect::<HashSet<_>>().len()
    };
    let plagiarised = union(&mut cases.iter().cloned());
    let detected = union(&mut detections.iter().cloned());
    let mut reduced = cases.iter().flat_map(|case| {
        detections.iter().filter(|d| naive_detects(case, d)).map(|d| naive_reduced(case, d)).collect::<Vec<_>>()
    });
    let found = union(&mut reduced) as f64;
    let ratio = |total: usize| {
        if total == 0 { 0.0 } else { found / total as f64 }
    };
    (ratio(plagiarised), ratio(detected))
}

fn naive_plagdet(recall: f64, precision: f64, granularity: f64) -> f64 {
    if recall == 0.0 && precision == 0.0 {
        0.0
    } else {
        2.0 * recall * precision / (recall + precision) / (1.0 + granularity).log2()
    }
}

fn naive_levels(cases: &[Annotation], detections: &[Annotation], thresholds: Thresholds) -> (Vec<bool>, Vec<bool>) {
    let found = cases
        .iter()
        .map(|case| {
            naive_share(case, detections) >= thresholds.recall
                && detections
                    .iter()
                    .filter(|d| naive_detects(case, d))
                    .any(|d| naive_share(&naive_reduced(case, d), cases) >= thresholds.precision)
        })
        .collect();
    let correct = detections
        .iter()
        .map(|detection| {
            let pieces: Vec<Annotation> =
                cases.iter().filter(|c| naive_detects(c, detection)).map(|c| naive_reduced(c, detection)).collect();
            naive_share(detection, cases) >= thresholds.precision
                && cases.iter().any(|case| naive_share(case, &pieces) >= thresholds.recall)
        })
        .collect();
    (found, correct)
}

fn naive_scores(found: usize, to_find: usize, correct: usize, reported: usize) -> (f64, f64) {
    match (to_find, reported) {
        (0, 0) => (1.0, 1.0),
        (0, _) => (0.0, 0.0),
        (_, 0) => (found as f64 / to_find as f64, 0.0),
        _ => (found as f64 / to_find as f64, correct as f64 / reported as f64),
    }
}

fn pair(annotation: &Annotation) -> (String, String) {
    (annotation.suspicious.clone(), annotation.source_reference().to_string())
}

// ---------------------------------------------------------------------------

fn annotation_strategy() -> impl Strategy<Value = Annotation> {
    (
        prop::sample::select(vec!["a", "b"]),
        0u32..40,
        0u32..14,
        prop::option::weighted(0.8, (prop::sample::select(vec!["x", "y"]), 0u32..40, 0u32..14)),
        prop::sample::select(vec!["none", "low", "high"]),
    )
        .prop_map(|(suspicious, start, length, source, class)| {
            let this = CharRange::new(start, start + length);
            let annotation = match source {
                Some((reference, offset, length)) => {
                    Annotation::external(suspicious, this, reference, CharRange::new(offset, offset + length))
                }
                None => Annotation::intrinsic(suspicious, this),
            };
            annotation.with_obfuscation(class)
        })
        .prop_filter("the loader drops annotations of no characters", |a| a.chars() > 0)
}

/// Distinct annotations, as the loader delivers them.
fn distinct(annotations: Vec<Annotation>) -> Vec<Annotation> {
    let mut seen = HashSet::new();
    annotations
        .into_iter()
        .filter(|a| seen.insert((a.suspicious.clone(), a.this, a.source.clone().map(|s| (s.reference, s.range)))))
        .collect()
}

fn threshold_strategy() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![0.0, 0.25, 0.5, 0.75, 1.0])
}

fn assert_close(what: &str, fast: f64, naive: f64) {
    assert!((fast - naive).abs() < 1e-12, "{what}: fast {fast}, naive {naive}");
}

proptest! {
    #[test]
    fn evaluate_agrees_with_the_naive_definitions(
        cases in prop::collection::vec(annotation_strategy(), 0..7).prop_map(distinct),
        detections in prop::collection::vec(annotation_strategy(), 0..9).prop_map(distinct),
        recall_threshold in threshold_strategy(),
        precision_threshold in threshold_strategy(),
    ) {
        let thresholds = Thresholds { recall: recall_threshold, precision: precision_threshold };
        let options = Options { thresholds, group_by: Some(GroupBy::Obfuscation), pairs: None };
        let report = evaluate(&cases, &detections, &options);

        let recall = naive_macro_recall(&cases, &detections);
        let precision = naive_macro_recall(&detections, &cases);
        let granularity = naive_granularity(&cases, &detections);
        assert_close("recall", report.measures.recall, recall);
        assert_close("precision", report.measures.precision, precision);
        assert_close("granularity", report.measures.granularity, granularity);
        assert_close("plagdet", report.measures.plagdet, naive_plagdet(recall, precision, granularity));

        let (micro_recall, micro_precision) = naive_micro(&cases, &detections);
        assert_close("micro recall", report.micro.recall, micro_recall);
        assert_close("micro precision", report.micro.precision, micro_precision);

        let (found, correct) = naive_levels(&cases, &detections, thresholds);
        let matching = Matching::new(&cases, &detections);
        let level = CaseLevel::new(&matching, thresholds);
        prop_assert_eq!(&level.found, &found);
        prop_assert_eq!(&level.correct, &correct);
        let count = |flags: &[bool]| flags.iter().filter(|&&f| f).count();
        let (case_recall, case_precision) = naive_scores(count(&found), cases.len(), count(&correct), detections.len());
        assert_close("case recall", report.case_level.recall, case_recall);
        assert_close("case precision", report.case_level.precision, case_precision);

        let pairs_of = |annotations: &[Annotation], flags: Option<&[bool]>| -> HashSet<(String, String)> {
            annotations.iter().enumerate().filter(|(i, _)| flags.is_none_or(|f| f[*i])).map(|(_, a)| pair(a)).collect()
        };
        let (document_recall, document_precision) = naive_scores(
            pairs_of(&cases, Some(&found)).len(),
            pairs_of(&cases, None).len(),
            pairs_of(&detections, Some(&correct)).len(),
            pairs_of(&detections, None).len(),
        );
        assert_close("document recall", report.document_level.recall, document_recall);
        assert_close("document precision", report.document_level.precision, document_precision);

        // Per class, as documented on Report::groups.
        for group in &report.groups {
            let class_cases: Vec<Annotation> =
                cases.iter().filter(|c| c.obfuscation_class() == group.name).cloned().collect();
            let class_detections: Vec<Annotation> = detections
                .iter()
                .filter(|d| class_cases.iter().any(|c| naive_detects(c, d)))
                .cloned()
                .collect();
            prop_assert_eq!((group.cases, group.detections), (class_cases.len(), class_detections.len()));
            assert_close("class recall", group.measures.recall, naive_macro_recall(&class_cases, &detections));
            assert_close("class precision", group.measures.precision, naive_macro_recall(&class_detections, &cases));
            assert_close("class granularity", group.measures.granularity, naive_granularity(&class_cases, &detections));
        }

        // Per document: the official measures on the document's annotations alone.
        let report = evaluate(&cases, &detections, &by(GroupBy::Document));
        for group in &report.groups {
            let of = |annotations: &[Annotation]| -> Vec<Annotation> {
                annotations.iter().filter(|a| a.suspicious == group.name).cloned().collect()
            };
            let (document_cases, document_detections) = (of(&cases), of(&detections));
            assert_close("document recall", group.measures.recall, naive_macro_recall(&document_cases, &document_detections));
            assert_close("document precision", group.measures.precision, naive_macro_recall(&document_detections, &document_cases));
        }
    }

    #[test]
    fn a_perfect_detection_scores_one_on_every_measure(
        lengths in prop::collection::vec((1u32..50, 0u32..20, 1u32..50, prop::bool::ANY), 0..12),
    ) {
        // Cases that do not overlap one another, in two documents. An external case
        // has at least one source character: with none, the official overlap test
        // fails even against the case itself (see
        // `measures::tests::empty_source_range_detects_nothing`), so a perfect
        // detection does not exist.
        let mut cases = Vec::new();
        let mut next = [0u32; 2];
        for (i, (length, gap, source_length, external)) in lengths.into_iter().enumerate() {
            let document = i % 2;
            let start = next[document] + gap;
            next[document] = start + length;
            let this = CharRange::new(start, start + length);
            let name = ["a", "b"][document];
            cases.push(if external {
                Annotation::external(name, this, "src", CharRange::new(start, start + source_length))
            } else {
                Annotation::intrinsic(name, this)
            });
        }
        let report = evaluate(&cases, &cases, &by(GroupBy::Obfuscation));
        let m = report.measures;
        prop_assert_eq!((m.plagdet, m.recall, m.precision, m.granularity), (1.0, 1.0, 1.0, 1.0));
        prop_assert_eq!((report.micro.recall, report.micro.precision), (1.0, 1.0));
        prop_assert_eq!(report.case_level.f1, 1.0);
        prop_assert_eq!(report.document_level.f1, 1.0);
        for group in report.groups {
            prop_assert_eq!(group.measures.plagdet, 1.0);
        }
    }
}

#[test]
fn pairs_restrict_every_level_to_the_listed_pairs() {
    let listed_case = Annotation::external("s", CharRange::new(0, 100), "a", CharRange::new(0, 100));
    let unlisted_case = Annotation::external("s", CharRange::new(200, 300), "b", CharRange::new(0, 100));
    let stray = Annotation::external("t", CharRange::new(0, 50), "a", CharRange::new(0, 50));
    let cases = [listed_case.clone(), unlisted_case];
    let detections = [listed_case, stray];
    let all = evaluate(&cases, &detections, &Options::default());
    assert!(all.measures.recall < 1.0 && all.measures.precision < 1.0);
    let pairs = crate::pairs::DocumentPairs::parse("s a\nt b\n", std::path::Path::new("pairs")).unwrap();
    let listed = evaluate(&cases, &detections, &Options { pairs: Some(pairs), ..Options::default() });
    assert_eq!((listed.cases, listed.detections), (1, 1));
    assert_eq!((listed.measures.plagdet, listed.document_level.f1, listed.case_level.f1), (1.0, 1.0, 1.0));
}

#[test]
fn a_pairs_file_must_list_pairs_of_documents_with_truth_files() {
    use std::path::Path;
    let parse = |text: &str| crate::pairs::DocumentPairs::parse(text, Path::new("p")).unwrap();
    let truth = Loaded { documents: ["s.txt".to_string(), "t.txt".to_string()].into(), ..Loaded::default() };
    let (file, dir) = (Path::new("pairs-x"), Path::new("truth"));
    assert!(check_pairs(file, &parse("s.txt a.txt\nt.txt b.txt\n"), &truth, dir).is_ok());
    // A pair without a case is fine: PAN's negative pairs (01-no-plagiarism).
    assert!(check_pairs(file, &parse("t.txt unknown.txt\n"), &truth, dir).is_ok());
    let error = check_pairs(file, &parse("u.txt a.txt\n"), &truth, dir).unwrap_err();
    assert_eq!(error.to_string(), "pairs-x: no truth file in truth for u.txt");
    let some_missing = parse("s.txt a.txt\nu.txt a.txt\nu.txt b.txt\nv.txt a.txt\nw.txt a.txt\n");
    let error = check_pairs(file, &some_missing, &truth, dir).unwrap_err();
    assert_eq!(error.to_string(), "pairs-x: no truth file in truth for u.txt and 2 other listed suspicious documents");
    let error = check_pairs(file, &parse("s.txt a.txt\nu.txt a.txt\nv.txt a.txt\n"), &truth, dir).unwrap_err();
    assert!(error.to_string().ends_with("u.txt and 1 other listed suspicious document"), "{error}");
}

/// How reading and scoring scale with the detections of one file, distinct
/// (each overlapping its neighbours) or all identical, each against one case:
/// prints the seconds for 15,000, 30,000 and 60,000 detections and the ratio
/// of each to the one before (about 2 when it is n log n, 4 when quadratic).
/// Timings vary with the machine, so this asserts nothing; run it by hand:
/// `cargo test --release --lib eval::tests::scaling -- --ignored --nocapture`.
#[test]
#[ignore = "prints timings; run by hand"]
fn scaling_of_detections_in_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let (truth, detections) = (dir.path().join("truth"), dir.path().join("detections"));
    std::fs::create_dir_all(&truth).unwrap();
    std::fs::create_dir_all(&detections).unwrap();
    let feature = |name: &str, offset: u32, length: u32| {
        format!(
            "  <feature name=\"{name}\" this_offset=\"{offset}\" this_length=\"{length}\" source_reference=\"r.txt\" \
             source_offset=\"{offset}\" source_length=\"{length}\"/>\n"
        )
    };
    let document = |features: String| format!("<document reference=\"s.txt\">\n{features}</document>\n");
    std::fs::write(truth.join("s.xml"), document(feature("plagiarism", 0, 1000))).unwrap();
    for identical in [false, true] {
        let mut previous: Option<f64> = None;
        for n in [15_000u32, 30_000, 60_000] {
            let features: String =
                (0..n).map(|i| feature("detected-plagiarism", if identical { 0 } else { i * 10 }, 50)).collect();
            std::fs::write(detections.join("s.xml"), document(features)).unwrap();
            let started = std::time::Instant::now();
            let cases = load_dir(&truth, &Select::Truth).unwrap().annotations;
            let found = load_dir(&detections, &Select::detections()).unwrap().annotations;
            let report = evaluate(&cases, &found, &Options::default());
            let seconds = started.elapsed().as_secs_f64();
            let ratio = previous.map_or(String::new(), |p| format!(", {:.2} times the half", seconds / p));
            let kind = if identical { "identical" } else { "distinct" };
            println!("{n} {kind} detections: {seconds:.3} s{ratio} (plagdet {:.4})", report.measures.plagdet);
            previous = Some(seconds);
        }
    }
}
