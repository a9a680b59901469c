//! Tests of `pan-detect eval`: the table, JSON, breakdowns, bad input and exit codes.

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::run;

/// A PAN XML file of `features` for suspicious document `reference`.
fn xml(reference: &str, features: &[String]) -> String {
    let mut text = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<document reference=\"{reference}\">\n");
    for feature in features {
        text.push_str(&format!("  {feature}\n"));
    }
    text + "</document>\n"
}

fn feature(name: &str, obfuscation: &str, this: (u32, u32), source: &str, range: (u32, u32)) -> String {
    let class = if obfuscation.is_empty() { String::new() } else { format!(" obfuscation=\"{obfuscation}\"") };
    format!(
        "<feature name=\"{name}\"{class} this_offset=\"{}\" this_length=\"{}\" source_reference=\"{source}\" \
         source_offset=\"{}\" source_length=\"{}\"/>",
        this.0,
        this.1 - this.0,
        range.0,
        range.1 - range.0
    )
}

fn case(obfuscation: &str, this: (u32, u32), source: &str, range: (u32, u32)) -> String {
    feature("plagiarism", obfuscation, this, source, range)
}

fn detection(this: (u32, u32), source: &str, range: (u32, u32)) -> String {
    feature("detected-plagiarism", "", this, source, range)
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Three cases in two documents; one detected exactly, one half, one not at all.
///
/// By hand: recall (1 + 0.5 + 0) / 3 = 0.5, precision 1, granularity 1, plagdet
/// F1(0.5, 1) = 2/3. Case level: the first two cases are found (the half reaches the
/// threshold 0.5), both detections are correct: recall 2/3, precision 1, F1 0.8.
/// Document level: pairs (s1, r) and (s2, q), (s1, r) found: recall 0.5, precision 1.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let truth = dir.path().join("truth");
        write(
            &truth.join("s1.xml"),
            &xml("s1.txt", &[case("none", (0, 100), "r.txt", (0, 100)), case("high", (200, 300), "r.txt", (500, 600))]),
        );
        // One folder below, as in the PAN 2013-2015 layout.
        write(&truth.join("03-low/s2.xml"), &xml("s2.txt", &[case("low", (0, 200), "q.txt", (0, 200))]));
        let detections = dir.path().join("detections");
        write(
            &detections.join("s1.xml"),
            &xml("s1.txt", &[detection((0, 100), "r.txt", (0, 100)), detection((200, 250), "r.txt", (500, 550))]),
        );
        write(&detections.join("s2.xml"), &xml("s2.txt", &[]));
        Fixture { dir }
    }

    fn truth(&self) -> String {
        self.dir.path().join("truth").display().to_string()
    }

    fn detections(&self) -> String {
        self.dir.path().join("detections").display().to_string()
    }

    fn eval(&self, extra: &[&str]) -> Output {
        let (truth, detections) = (self.truth(), self.detections());
        let mut args = vec!["eval", "--truth", &truth, "--detections", &detections];
        args.extend_from_slice(extra);
        run(&args)
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        stdout(output),
        stderr(output)
    );
}

/// The cells of the table row that starts with `name`.
fn row<'a>(table: &'a str, name: &str) -> Vec<&'a str> {
    let line = table
        .lines()
        .find(|line| line.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row {name:?} in\n{table}"));
    line.split_whitespace().skip(1).collect()
}

#[test]
fn prints_the_overall_table() {
    let output = Fixture::new().eval(&[]);
    assert_success(&output);
    let table = stdout(&output);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["cases", "detections", "plagdet", "recall", "precision", "granularity"], "{table}");
    assert_eq!(row(&table, "all"), ["3", "2", "0.6667", "0.5000", "1.0000", "1.0000"], "{table}");
    assert!(table.contains("case level      precision 1.0000  recall 0.6667  F1 0.8000  (threshold 0.5)"), "{table}");
    assert!(table.contains("document level  precision 1.0000  recall 0.5000  F1 0.6667"), "{table}");
    assert!(table.contains("input           2 truth files, 2 detection files, 0 skipped"), "{table}");
    // Micro: 400 suspicious + 400 source characters plagiarised, 300 detected, all of them plagiarised.
    assert!(table.contains("micro-averaged  plagdet 0.5455  recall 0.3750  precision 1.0000"), "{table}");
    assert!(stderr(&output).is_empty(), "{}", stderr(&output));
}

#[test]
fn breaks_down_by_obfuscation() {
    let output = Fixture::new().eval(&["--by", "obfuscation"]);
    assert_success(&output);
    let table = stdout(&output);
    assert!(table.starts_with("obfuscation"), "{table}");
    let names: Vec<&str> = table.lines().skip(1).take(4).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(names, ["all", "none", "low", "high"], "{table}");
    assert_eq!(row(&table, "none"), ["1", "1", "1.0000", "1.0000", "1.0000", "1.0000"], "{table}");
    assert_eq!(row(&table, "low"), ["1", "0", "0.0000", "0.0000", "0.0000", "1.0000"], "{table}");
    assert_eq!(row(&table, "high"), ["1", "1", "0.6667", "0.5000", "1.0000", "1.0000"], "{table}");
}

#[test]
fn breaks_down_by_document() {
    let output = Fixture::new().eval(&["--by", "document"]);
    assert_success(&output);
    let table = stdout(&output);
    assert_eq!(row(&table, "s1.txt"), ["2", "2", "0.8571", "0.7500", "1.0000", "1.0000"], "{table}");
    assert_eq!(row(&table, "s2.txt"), ["1", "0", "0.0000", "0.0000", "0.0000", "1.0000"], "{table}");
}

#[test]
fn json_has_the_same_figures() {
    let output = Fixture::new().eval(&["--json", "--by", "obfuscation", "--case-threshold", "0.6"]);
    assert_success(&output);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    assert_eq!((json["cases"].as_u64(), json["detections"].as_u64()), (Some(3), Some(2)));
    assert!((json["plagdet"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12, "{json}");
    assert_eq!(json["recall"], 0.5);
    assert_eq!(json["granularity"], 1.0);
    assert_eq!(json["micro"]["recall"], 0.375);
    // With τ = 0.6 the half-detected case is no longer found.
    assert_eq!(json["thresholds"]["recall"], 0.6);
    assert!((json["case_level"]["recall"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12, "{json}");
    assert_eq!(json["case_level"]["precision"], 0.5);
    assert_eq!(json["group_by"], "obfuscation");
    assert_eq!(json["groups"][2]["name"], "high");
    assert_eq!(json["groups"][2]["recall"], 0.5);
    assert_eq!(json["input"]["truth"]["files"], 2);
    assert_eq!(json["input"]["detections"]["skipped"].as_array().map(Vec::len), Some(0));
}

#[test]
fn malformed_file_is_skipped_with_a_warning() {
    let fixture = Fixture::new();
    let broken = fixture.dir.path().join("detections/broken.xml");
    write(
        &broken,
        "<document reference=\"s3.txt\">\n<feature name=\"detected-plagiarism\" this_offset=\"1\n</document>\n",
    );
    let output = fixture.eval(&["--json"]);
    assert_success(&output);
    let warning = stderr(&output);
    let expected = format!("pan-detect: warning: {}: line ", broken.display());
    assert!(warning.starts_with(&expected), "{warning}");
    assert_eq!(warning.lines().count(), 1, "{warning}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["input"]["detections"]["files"], 3);
    assert_eq!(json["input"]["detections"]["skipped"][0]["path"], broken.display().to_string());
    assert!(json["input"]["detections"]["skipped"][0]["line"].as_u64().is_some_and(|line| line >= 2), "{json}");
    // The other files still count.
    assert_eq!(json["recall"], 0.5);
    let table = stdout(&fixture.eval(&[]));
    assert!(table.contains("2 truth files, 3 detection files, 1 skipped"), "{table}");
}

#[test]
fn missing_directory_is_an_error_naming_it() {
    let fixture = Fixture::new();
    let missing = fixture.dir.path().join("no-such-dir").display().to_string();
    let output = run(&["eval", "--truth", &fixture.truth(), "--detections", &missing]);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let error = stderr(&output);
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(error.contains(&format!("{missing}: no such directory")), "{error}");
}

#[test]
fn a_truth_directory_without_xml_files_is_an_error_naming_it() {
    let fixture = Fixture::new();
    let empty = fixture.dir.path().join("empty");
    write(&empty.join("s1.txt"), "a text, no truth");
    let empty = empty.display().to_string();
    let output = run(&["eval", "--truth", &empty, "--detections", &fixture.detections()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    let error = stderr(&output);
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(error.contains(&format!("{empty}: no *.xml files here or one folder below")), "{error}");
}

#[test]
fn detections_lacking_an_attribute_and_foreign_references_are_warned_about() {
    let fixture = Fixture::new();
    let expected = stdout(&fixture.eval(&[]));
    let (truth, detections) = (fixture.dir.path().join("truth"), fixture.dir.path().join("detections"));
    // A detection without source_offset used to count as intrinsic, a false positive
    // that lowered precision; one without this_offset was ignored with a warning.
    let s1 = fs::read_to_string(detections.join("s1.xml")).unwrap();
    let lacking = [
        "<feature name=\"detected-plagiarism\" this_offset=\"900\"/>",
        "<feature name=\"detected-plagiarism\" this_offset=\"0\" this_length=\"9\" source_reference=\"r.txt\" source_length=\"9\"/>",
    ];
    write(
        &detections.join("s1.xml"),
        &s1.replace("</document>", &format!("  {}\n  {}\n</document>", lacking[0], lacking[1])),
    );
    write(&truth.join("copy-of-s1.xml"), &xml("s1.txt", &[]));
    let output = fixture.eval(&[]);
    assert_success(&output);
    assert_eq!(stdout(&output).replace("3 truth files", "2 truth files"), expected, "both features are ignored");
    let warnings = stderr(&output);
    let at = |dir: &Path, name: &str| dir.join(name).display().to_string();
    let warned = [
        format!("{}: reference=\"s1.txt\" is not this file's document", at(&truth, "copy-of-s1.xml")),
        format!("{}: line 5: feature 'detected-plagiarism' without this_length; ignored", at(&detections, "s1.xml")),
        format!("{}: line 6: feature 'detected-plagiarism' without source_offset; ignored", at(&detections, "s1.xml")),
    ];
    for warning in &warned {
        assert!(warnings.contains(&format!("pan-detect: warning: {warning}")), "{warnings}");
    }
    assert_eq!(warnings.lines().count(), 3, "{warnings}");
}

#[test]
fn a_case_lacking_an_attribute_is_an_error_naming_the_file_and_line() {
    for lacking in [
        "<feature name=\"plagiarism\" this_offset=\"900\"/>",
        "<feature name=\"plagiarism\" this_offset=\"0\" this_length=\"9\" source_reference=\"r.txt\" source_length=\"9\"/>",
    ] {
        let fixture = Fixture::new();
        let s3 = fixture.dir.path().join("truth/s3.xml");
        write(&s3, &xml("s3.txt", &[case("none", (0, 10), "r.txt", (0, 10)), lacking.to_string()]));
        let output = fixture.eval(&[]);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(output.stdout.is_empty());
        let error = stderr(&output);
        assert_eq!(error.lines().count(), 1, "{error}");
        let missing = if lacking.contains("source") { "source_offset" } else { "this_length" };
        let expected = format!("{}: line 4: feature 'plagiarism' without {missing}\n", s3.display());
        assert!(
            error.starts_with("pan-detect: cannot read the ground truth: ") && error.ends_with(&expected),
            "{error}"
        );
    }
}

#[test]
fn a_malformed_truth_file_is_an_error_naming_it() {
    // Truncated at a line's end (every element so far well-formed), truncated
    // inside a tag, and a second root element.
    let truncated = xml("s3.txt", &[case("none", (0, 10), "r.txt", (0, 10))]).replace("</document>\n", "");
    let cut_in_a_tag = &truncated[..truncated.len() - 20];
    let two_roots = xml("s3.txt", &[case("none", (0, 10), "r.txt", (0, 10))]) + "<document reference=\"s3.txt\"/>\n";
    for (text, reason) in [
        (truncated.as_str(), "line 4: the text ends inside <document> (a truncated file?)"),
        (cut_in_a_tag, "line 3: "),
        (&two_roots, "line 5: more than one root element"),
    ] {
        let fixture = Fixture::new();
        let s3 = fixture.dir.path().join("truth/s3.xml");
        write(&s3, text);
        let output = fixture.eval(&[]);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(output.stdout.is_empty());
        let error = stderr(&output);
        assert_eq!(error.lines().count(), 1, "{error}");
        let expected = format!("pan-detect: cannot read the ground truth: {}: {reason}", s3.display());
        assert!(error.starts_with(&expected), "{error}");
    }
}

#[test]
fn a_detection_file_with_two_root_elements_is_skipped_with_a_warning() {
    // The second <document> used to replace the first one's detections silently.
    let fixture = Fixture::new();
    let s1 = fixture.dir.path().join("detections/s1.xml");
    let text = fs::read_to_string(&s1).unwrap();
    write(&s1, &(text + "<document reference=\"s1.txt\"/>\n"));
    let output = fixture.eval(&[]);
    assert_success(&output);
    let warning = stderr(&output);
    assert_eq!(
        warning,
        format!("pan-detect: warning: {}: line 6: more than one root element; file skipped\n", s1.display())
    );
    assert!(stdout(&output).contains("2 truth files, 2 detection files, 1 skipped"), "{}", stdout(&output));
    assert_eq!(row(&stdout(&output), "all")[..2], ["3", "0"]);
}

#[test]
fn negative_offset_is_an_error_naming_the_file() {
    let fixture = Fixture::new();
    let bad = fixture.dir.path().join("truth/bad.xml");
    write(&bad, &xml("s9.txt", &["<feature name=\"plagiarism\" this_offset=\"-5\" this_length=\"10\"/>".to_string()]));
    let output = fixture.eval(&[]);
    assert!(!output.status.success());
    let error = stderr(&output);
    assert!(error.contains(&bad.display().to_string()) && error.contains("-5"), "{error}");
}

#[test]
fn fail_below_sets_the_exit_code() {
    let fixture = Fixture::new();
    let output = fixture.eval(&["--fail-below", "0.6"]);
    assert_success(&output);
    let output = fixture.eval(&["--fail-below", "0.7"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("all"), "the table is printed all the same");
    assert_eq!(stderr(&output), "pan-detect: plagdet 0.6667 is below --fail-below 0.7\n");
    let output = fixture.eval(&["--fail-below", "1.5"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("expected a number from 0 to 1"), "{}", stderr(&output));
}

#[test]
fn truth_against_itself_scores_one() {
    let fixture = Fixture::new();
    let truth = fixture.dir.path().join("truth");
    let renamed = fixture.dir.path().join("renamed");
    for (from, to) in [("s1.xml", "s1.xml"), ("03-low/s2.xml", "s2.xml")] {
        let text = fs::read_to_string(truth.join(from)).unwrap();
        write(&renamed.join(to), &text.replace("name=\"plagiarism\"", "name=\"detected-plagiarism\""));
    }
    let renamed = renamed.display().to_string();
    let output = run(&["eval", "--truth", &fixture.truth(), "--detections", &renamed, "--json"]);
    assert_success(&output);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for measure in
        [&json["plagdet"], &json["recall"], &json["precision"], &json["granularity"], &json["micro"]["plagdet"]]
    {
        assert_eq!(measure, 1.0, "{json}");
    }
    assert_eq!((&json["case_level"]["f1"], &json["document_level"]["f1"]), (&1.0.into(), &1.0.into()), "{json}");
}

#[test]
fn reads_the_pan_2013_text_alignment_layout() {
    // One file per (suspicious, source) pair, in one folder per obfuscation; the
    // detections of a document spread over several files.
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth");
    let detections = dir.path().join("detections");
    let pair_file = |susp: u32, src: u32| format!("suspicious-document{susp:05}-source-document{src:05}.xml");
    let susp = |n: u32| format!("suspicious-document{n:05}.txt");
    let src = |n: u32| format!("source-document{n:05}.txt");
    write(
        &truth.join("02-no-obfuscation").join(pair_file(1, 1)),
        &xml(&susp(1), &[case("none", (0, 100), &src(1), (0, 100))]),
    );
    write(
        &truth.join("03-random-obfuscation").join(pair_file(1, 2)),
        &xml(&susp(1), &[case("random", (500, 600), &src(2), (0, 100))]),
    );
    write(&truth.join("01-no-plagiarism").join(pair_file(2, 3)), &xml(&susp(2), &[]));
    write(&detections.join(pair_file(1, 1)), &xml(&susp(1), &[detection((0, 100), &src(1), (0, 100))]));
    // Right place in the suspicious document, wrong source document: detects nothing.
    write(&detections.join(pair_file(1, 3)), &xml(&susp(1), &[detection((500, 600), &src(3), (0, 100))]));
    let (truth, detections) = (truth.display().to_string(), detections.display().to_string());
    let output = run(&["eval", "--truth", &truth, "--detections", &detections, "--by", "obfuscation"]);
    assert_success(&output);
    let table = stdout(&output);
    // Recall (1 + 0) / 2, precision (1 + 0) / 2.
    assert_eq!(row(&table, "all"), ["2", "2", "0.5000", "0.5000", "0.5000", "1.0000"], "{table}");
    assert_eq!(row(&table, "random"), ["1", "0", "0.0000", "0.0000", "0.0000", "1.0000"], "{table}");
    assert!(table.contains("3 truth files, 2 detection files, 0 skipped"), "{table}");
}

#[test]
fn a_case_in_a_misspelled_element_counts_as_the_pan_script_counts_it() {
    // A real corpus has <featue name="plagiarism" .../>; the official script takes
    // every child of <document> by its name attribute, whatever the element is called.
    let fixture = Fixture::new();
    let expected = stdout(&fixture.eval(&[]));
    let s1 = fixture.dir.path().join("truth/s1.xml");
    let text = fs::read_to_string(&s1).unwrap();
    write(&s1, &text.replacen("<feature name=\"plagiarism\"", "<featue name=\"plagiarism\"", 1));
    assert_ne!(fs::read_to_string(&s1).unwrap(), text);
    let output = fixture.eval(&[]);
    assert_success(&output);
    assert_eq!(stdout(&output), expected);
}

#[test]
fn a_detections_directory_without_xml_files_is_an_error_naming_it() {
    let fixture = Fixture::new();
    let empty = fixture.dir.path().join("no-detections");
    write(&empty.join("s1.txt"), "a text, no reports");
    let empty = empty.display().to_string();
    let output = run(&["eval", "--truth", &fixture.truth(), "--detections", &empty]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    let error = stderr(&output);
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(
        error.contains(&format!("cannot read the detections: {empty}: no *.xml files here or one folder below")),
        "{error}"
    );
}
