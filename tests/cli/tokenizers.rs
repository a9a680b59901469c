//! `--tokenizer words|chars:N|code`: code tokens find copied functions with
//! renamed variables, character n-grams find copies in text without spaces,
//! and an archive keeps its tokenizer.

use std::fs;
use std::path::Path;

use crate::archive::{fails_with, generation_dir, ok, s};
use crate::{detect, fixtures, report_passages, run};

/// A copy of `truth.tsv`: (suspicious, start, end, source, start, end), in characters.
type Case = (String, u64, u64, String, u64, u64);

fn truth(fixture: &Path) -> Vec<Case> {
    let text = fs::read_to_string(fixture.join("truth.tsv")).unwrap();
    let rows = text.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty());
    rows.map(|line| {
        let f: Vec<&str> = line.split('\t').collect();
        let n = |i: usize| f[i].parse::<u64>().unwrap();
        (f[0].to_string(), n(1), n(2), f[3].to_string(), n(4), n(5))
    })
    .collect()
}

/// Every passage detected in `fixture` with `flags`, as (suspicious, this
/// start, this end, source, source start, source end).
fn detected(fixture: &Path, flags: &[&str]) -> Vec<Case> {
    let out = tempfile::tempdir().unwrap();
    ok(detect(&fixture.join("sources"), &fixture.join("suspicious"), out.path(), &[&["--quiet"][..], flags].concat()));
    let mut found = Vec::new();
    for report in fs::read_dir(out.path()).unwrap() {
        let report = report.unwrap().path();
        let suspicious = report.file_stem().unwrap().to_str().unwrap().to_string() + ".txt";
        for (start, end, source, source_start, source_end) in report_passages(&report) {
            found.push((suspicious.clone(), start, end, source, source_start, source_end));
        }
    }
    found.sort();
    found
}

fn overlap(a: (u64, u64), b: (u64, u64)) -> u64 {
    a.1.min(b.1).saturating_sub(a.0.max(b.0))
}

/// Asserts that every passage lies in a case of its pair, mostly, and that
/// every case is covered to at least `share` on both sides.
fn assert_finds_the_cases(found: &[Case], cases: &[Case], share: f64) {
    for passage in found {
        let case = cases.iter().find(|c| c.0 == passage.0 && c.3 == passage.3);
        let case = case.unwrap_or_else(|| panic!("a passage between unrelated documents: {passage:?}"));
        let inside = overlap((passage.1, passage.2), (case.1, case.2));
        assert!(inside as f64 >= 0.9 * (passage.2 - passage.1) as f64, "{passage:?} mostly outside {case:?}");
    }
    for case in cases {
        let covered = |this: bool| -> u64 {
            let pair = found.iter().filter(|p| p.0 == case.0 && p.3 == case.3);
            let range = |c: &Case| if this { (c.1, c.2) } else { (c.4, c.5) };
            pair.map(|p| overlap(range(p), range(case))).sum()
        };
        for this in [true, false] {
            let length = if this { case.2 - case.1 } else { case.5 - case.4 };
            assert!(covered(this) as f64 >= share * length as f64, "{case:?} found {found:?}");
        }
    }
}

#[test]
fn code_tokens_find_the_renamed_copies_that_words_miss() {
    let fixture = fixtures().join("code");
    let cases = truth(&fixture);
    assert_eq!(cases.len(), 2);
    assert_finds_the_cases(&detected(&fixture, &["--tokenizer", "code"]), &cases, 0.9);
    for preset in ["best", "pan09"] {
        assert_eq!(detected(&fixture, &["--preset", preset]), [], "words with {preset}");
    }
}

#[test]
fn character_ngrams_find_a_copy_in_text_without_spaces() {
    let fixture = fixtures().join("no-spaces");
    let cases = truth(&fixture);
    for n in ["3", "4", "5"] {
        assert_finds_the_cases(&detected(&fixture, &["--tokenizer", &format!("chars:{n}")]), &cases, 0.95);
    }
    // Thai has no spaces and no ideographs: words are single letters, all too short.
    let words = detected(&fixture, &[]);
    assert!(words.iter().all(|p| p.0 != "th-market.txt"), "{words:?}");
}

#[test]
fn a_tokenizer_other_than_words_refuses_the_best_preset_and_bad_values() {
    let code = fixtures().join("code");
    let out = tempfile::tempdir().unwrap();
    let (src, susp) = (code.join("sources"), code.join("suspicious"));
    fails_with(
        detect(&src, &susp, out.path(), &["--tokenizer", "code", "--preset", "best"]),
        "--tokenizer code works with --preset pan09 only",
    );
    // Values the argument parser rejects: its message, a usage hint, status 2.
    let rejected = [
        ("chars:9", "invalid value 'chars:9' for '--tokenizer <KIND>': N of chars:N must be a number from 1 to 8"),
        (
            "letters",
            "invalid value 'letters' for '--tokenizer <KIND>': expected words, chars:N with N from 1 to 8, or code",
        ),
    ];
    for (value, message) in rejected {
        let output = detect(&src, &susp, out.path(), &["--tokenizer", value]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }
}

/// The passages `check` finds for `file` in `index`, as PAN XML passages.
fn check_passages(index: &Path, file: &Path, extra: &[&str]) -> Vec<(u64, u64, String, u64, u64)> {
    let out = tempfile::tempdir().unwrap();
    let args = [&["check", "--index", s(index), "--format", "pan-xml", "--out", s(out.path())][..], extra, &[s(file)]];
    ok(run(&args.concat()));
    let report = out.path().join(file.file_stem().unwrap().to_str().unwrap().to_string() + ".xml");
    report_passages(&report)
}

#[test]
fn an_archive_keeps_its_tokenizer_and_refuses_another_naming_both() {
    let code = fixtures().join("code");
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let docs = code.join("sources");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--tokenizer", "code", "--quiet"]));
    let header = fs::read_to_string(generation_dir(&index).join("header.json")).unwrap();
    assert!(header.contains("\"tokenizer\": \"code\""), "{header}");
    // check reads the index's tokenizer: the renamed copy is found without the flags.
    let solver = code.join("suspicious/solver.c.txt");
    let case = truth(&code).into_iter().find(|c| c.0 == "solver.c.txt").unwrap();
    let found = check_passages(&index, &solver, &[]);
    let covered: u64 = found.iter().map(|p| overlap((p.0, p.1), (case.1, case.2))).sum();
    assert!(covered as f64 >= 0.9 * (case.2 - case.1) as f64, "{found:?}");
    // Its interval defaults are the code tokenizer's, as detect's: given, they change nothing;
    // the words' defaults find other passages.
    assert_eq!(check_passages(&index, &solver, &["--min-chunks", "30", "--max-gap", "15"]), found);
    assert_ne!(check_passages(&index, &solver, &["--min-chunks", "20", "--max-gap", "49"]), found);
    let mismatch = format!("{}: --tokenizer words differs from the index's code", index.display());
    fails_with(run(&["check", "--index", s(&index), "--tokenizer", "words", s(&solver)]), &mismatch);
    let mismatch = format!("{}: --tokenizer chars:3 differs from the index's code", index.display());
    let update = ["index", "update", "--docs", s(&docs), "--index", s(&index), "--tokenizer", "chars:3"];
    fails_with(run(&update), &mismatch);
    ok(run(&["index", "update", "--docs", s(&docs), "--index", s(&index), "--tokenizer", "code", "--quiet"]));
}

#[test]
fn an_index_without_a_tokenizer_field_is_read_as_words() {
    let texts = fixtures().join("pan/source-documents");
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    ok(run(&["index", "create", "--docs", s(&texts), "--index", s(&index), "--preset", "pan09", "--quiet"]));
    // Words are the one tokenizer the header leaves out.
    let header = generation_dir(&index).join("header.json");
    let value: serde_json::Value = serde_json::from_str(&fs::read_to_string(&header).unwrap()).unwrap();
    assert!(value["settings"].get("tokenizer").is_none(), "{value}");
    let file = fixtures().join("pan/suspicious-documents/suspicious-document00001.txt");
    assert!(!check_passages(&index, &file, &["--tokenizer", "words"]).is_empty());
    let mismatch = format!("{}: --tokenizer code differs from the index's words", index.display());
    fails_with(run(&["check", "--index", s(&index), "--tokenizer", "code", s(&file)]), &mismatch);
}
