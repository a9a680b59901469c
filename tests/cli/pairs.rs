//! PAN's text-alignment protocol: `detect --pairs` compares exactly the listed
//! pairs, `--layout per-pair` writes PAN 2013's file names, and `eval --pairs`
//! scores only the listed pairs, a row per pairs file.

use std::fs;
use std::path::Path;

use crate::{detect, fixtures, read_report, run};

fn stdout(output: &std::process::Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The overall plagdet of `eval`'s table (the `all` row's third column).
fn overall_plagdet(table: &str) -> f64 {
    let all = table.lines().find(|line| line.starts_with("all ")).expect("an 'all' row");
    all.split_whitespace().nth(3).unwrap().parse().unwrap()
}

#[test]
fn every_listed_pair_gets_a_report_named_after_both_documents_for_both_presets() {
    let pan = fixtures().join("pan");
    let pairs_file = pan.join("pairs");
    let pairs: Vec<(String, String)> = fs::read_to_string(&pairs_file)
        .unwrap()
        .lines()
        .map(|line| {
            let (a, b) = line.split_once(' ').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect();
    for preset in ["best", "pan09"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let flags = ["--preset", preset, "--pairs", pairs_file.to_str().unwrap(), "--layout", "per-pair", "--quiet"];
        let output = detect(&pan.join("source-documents"), &pan.join("suspicious-documents"), &out, &flags);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(fs::read_dir(&out).unwrap().count(), pairs.len(), "{preset}: one report per listed pair");
        for (suspicious, source) in &pairs {
            let name = format!("{}-{}.xml", suspicious.trim_end_matches(".txt"), source.trim_end_matches(".txt"));
            let report = read_report(&out.join(&name));
            assert_eq!(&report.reference, suspicious, "{name}");
            assert!(report.features.iter().all(|f| f.get("source_reference") == Some(source.as_str())), "{name}");
        }
        let table = stdout(&run(&[
            "eval",
            "--truth",
            pan.join("suspicious-documents").to_str().unwrap(),
            "--detections",
            out.to_str().unwrap(),
            "--pairs",
            pairs_file.to_str().unwrap(),
        ]));
        let floor = if preset == "best" { 0.95 } else { 0.85 };
        assert!(overall_plagdet(&table) >= floor, "{preset}:\n{table}");
    }
}

#[test]
fn only_the_listed_pairs_are_compared() {
    let pan = fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let pairs_file = dir.path().join("pairs");
    fs::write(&pairs_file, "suspicious-document00006.txt source-document00004.txt\n").unwrap();
    for preset in ["best", "pan09"] {
        let out = dir.path().join(preset);
        let flags = ["--preset", preset, "--pairs", pairs_file.to_str().unwrap(), "--quiet"];
        let output = detect(&pan.join("source-documents"), &pan.join("suspicious-documents"), &out, &flags);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let reports: Vec<_> = fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(reports, ["suspicious-document00006.xml"], "{preset}: only the listed suspicious document");
        let report = read_report(&out.join("suspicious-document00006.xml"));
        // The document has six cases from source-document00004 (none, low, high).
        assert!(report.features.len() >= 4, "{preset}: {:?}", report.features);
        assert!(report.features.iter().all(|f| f.get("source_reference") == Some("source-document00004.txt")));
    }
}

#[test]
fn a_pairs_file_naming_a_missing_document_is_refused() {
    let pan = fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let pairs_file = dir.path().join("pairs");
    fs::write(&pairs_file, "suspicious-document00006.txt source-document00099.txt\n").unwrap();
    let out = dir.path().join("out");
    let flags = ["--pairs", pairs_file.to_str().unwrap()];
    let output = detect(&pan.join("source-documents"), &pan.join("suspicious-documents"), &out, &flags);
    assert_eq!(output.status.code(), Some(1));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("no document source-document00099.txt here, but the pairs file lists it"), "{message}");
    fs::write(&pairs_file, "only-one-name\n").unwrap();
    let output = detect(&pan.join("source-documents"), &pan.join("suspicious-documents"), &out, &flags);
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("pairs:1: expected 'SUSPICIOUS SOURCE'"), "{message}");
    fs::write(&pairs_file, "\n\n").unwrap();
    let output = detect(&pan.join("source-documents"), &pan.join("suspicious-documents"), &out, &flags);
    assert_eq!(output.status.code(), Some(1), "an empty pairs file used to align nothing and succeed");
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("pairs: no pair listed (expected a 'SUSPICIOUS SOURCE' pair per line)"), "{message}");
    assert!(!out.exists(), "a failed run leaves no output directory it made");
}

#[test]
fn a_pan13_truth_file_where_a_pair_report_would_go_is_never_replaced() {
    let pan = fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let pairs_file = dir.path().join("pairs");
    fs::write(&pairs_file, "suspicious-document00006.txt source-document00004.txt\n").unwrap();
    let out = dir.path().join("out");
    fs::create_dir_all(&out).unwrap();
    // PAN 2013's truth is one file per pair, named as the per-pair reports are.
    let truth = out.join("suspicious-document00006-source-document00004.xml");
    let case = "<document reference=\"suspicious-document00006.txt\"><feature name=\"plagiarism\" \
                this_offset=\"0\" this_length=\"10\" source_reference=\"source-document00004.txt\" \
                source_offset=\"0\" source_length=\"10\"/></document>";
    fs::write(&truth, case).unwrap();
    for listed in [true, false] {
        let mut flags = vec!["--layout", "per-pair", "--quiet"];
        if listed {
            flags.extend(["--pairs", pairs_file.to_str().unwrap()]);
        }
        let output = detect(&pan.join("source-documents"), &pan.join("suspicious-documents"), &out, &flags);
        assert_eq!(output.status.code(), Some(1), "listed {listed}: {}", String::from_utf8_lossy(&output.stderr));
        assert!(String::from_utf8_lossy(&output.stderr).contains("ground truth?"));
        assert_eq!(fs::read_to_string(&truth).unwrap(), case, "the truth file is untouched");
    }
}

#[test]
fn eval_prints_a_row_per_pairs_file_and_scores_only_listed_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &Path, text: &str| {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    let feature = |name: &str, source: &str| {
        format!(
            "<feature name=\"{name}\" this_offset=\"0\" this_length=\"100\" source_reference=\"{source}\" \
             source_offset=\"0\" source_length=\"100\"/>"
        )
    };
    let xml = |reference: &str, features: &[String]| {
        format!("<document reference=\"{reference}\">{}</document>", features.concat())
    };
    let (truth, found) = (dir.path().join("truth"), dir.path().join("found"));
    write(&truth.join("s1.xml"), &xml("s1.txt", &[feature("plagiarism", "a.txt")]));
    write(&truth.join("s2.xml"), &xml("s2.txt", &[feature("plagiarism", "b.txt")]));
    // s1 found exactly; s2 missed; a detection for an unlisted pair.
    write(&found.join("s1.xml"), &xml("s1.txt", &[feature("detected-plagiarism", "a.txt")]));
    write(&found.join("s3.xml"), &xml("s3.txt", &[feature("detected-plagiarism", "c.txt")]));
    write(&dir.path().join("pairs-01-found"), "s1.txt a.txt\n");
    write(&dir.path().join("pairs-02-missed"), "s2.txt b.txt\n");
    let eval = |extra: &[&str]| {
        let paths = ["eval", "--truth", truth.to_str().unwrap(), "--detections", found.to_str().unwrap()];
        stdout(&run(&[&paths[..], extra].concat()))
    };
    let first = dir.path().join("pairs-01-found");
    let second = dir.path().join("pairs-02-missed");
    let table = eval(&["--pairs", first.to_str().unwrap(), "--pairs", second.to_str().unwrap()]);
    let row = |name: &str| -> Vec<String> {
        let line = table.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} row:\n{table}"));
        line.split_whitespace().map(str::to_string).collect()
    };
    assert_eq!(row("01-found")[1..4], ["1", "1", "1.0000"], "{table}");
    assert_eq!(row("02-missed")[1..4], ["1", "0", "0.0000"], "{table}");
    // all: 2 cases, the listed detection only: recall 0.5, precision 1.
    assert_eq!(row("all")[1..6], ["2", "1", "0.6667", "0.5000", "1.0000"], "{table}");
    let one = eval(&["--pairs", first.to_str().unwrap()]);
    assert!(!one.contains("01-found"), "a single pairs file gets no row of its own:\n{one}");
    assert_eq!(overall_plagdet(&one), 1.0);
}

#[test]
fn eval_refuses_a_pairs_file_without_pairs_or_with_documents_without_truth() {
    // Each used to score 1.0 (no case, no detection) and pass --fail-below.
    let dir = tempfile::tempdir().unwrap();
    let (truth, found) = (dir.path().join("truth"), dir.path().join("found"));
    fs::create_dir_all(&truth).unwrap();
    fs::create_dir_all(&found).unwrap();
    fs::write(truth.join("s1.xml"), "<document reference=\"s1.txt\"/>").unwrap();
    fs::write(truth.join("s2.xml"), "<document reference=\"s2.txt\"/>").unwrap();
    fs::write(found.join("s1.xml"), "<document reference=\"s1.txt\"/>").unwrap();
    let pairs = |name: &str, text: &str| {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let eval = |pairs: &[&str]| {
        let mut args = vec!["eval", "--truth", truth.to_str().unwrap(), "--detections", found.to_str().unwrap()];
        for file in pairs {
            args.extend(["--pairs", file]);
        }
        run(&[&args[..], &["--fail-below", "0.9"]].concat())
    };
    let fine = pairs("pairs-01-fine", "s1.txt a.txt\ns2.txt b.txt\n");
    let output = eval(&[&fine]);
    assert!(output.status.success(), "negative pairs score 1: {}", String::from_utf8_lossy(&output.stderr));
    let empty = pairs("pairs-02-empty", "\n \n");
    let missing = pairs("pairs-03-missing", "s1.txt a.txt\ns9.txt a.txt\n");
    let truth_dir = truth.display();
    for (files, message) in [
        (vec![&empty], format!("{empty}: no pair listed (expected a 'SUSPICIOUS SOURCE' pair per line)")),
        (vec![&fine, &missing], format!("{missing}: no truth file in {truth_dir} for s9.txt")),
    ] {
        let files: Vec<&str> = files.into_iter().map(String::as_str).collect();
        let output = eval(&files);
        assert_eq!(output.status.code(), Some(1));
        assert!(output.stdout.is_empty());
        assert_eq!(String::from_utf8_lossy(&output.stderr), format!("pan-detect: {message}\n"));
    }
}
