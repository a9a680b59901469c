//! Formulaic text (`corpus-fixtures/formulaic`): twelve chronicles, five of
//! them with annals of invented kings in one regnal formula, and a text with
//! annals of its own kings and one paragraph copied from a chronicle. `best`
//! drops the passages whose sides share mostly the collection's stock
//! phrases, or that name other particulars, in `detect` and in an archive's
//! `check` alike.

use std::fs;
use std::path::{Path, PathBuf};

use crate::archive::{ok, s};
use crate::{detect, files_of, fixtures, report_passages};

const SUSPICIOUS: &str = "annals-of-the-hill-country";

fn corpus() -> (PathBuf, PathBuf) {
    let dir = fixtures().join("formulaic");
    (dir.join("source-documents"), dir.join("suspicious-documents"))
}

/// The copied paragraph of `truth.tsv` as a report passage.
fn copied_paragraph() -> (u64, u64, String, u64, u64) {
    let truth = fs::read_to_string(fixtures().join("formulaic/truth.tsv")).unwrap();
    let row: Vec<&str> = truth.lines().nth(1).unwrap().split('\t').collect();
    let number = |i: usize| row[i].parse::<u64>().unwrap();
    (number(1), number(1) + number(2), row[3].to_string(), number(4), number(4) + number(5))
}

/// The passages `detect` reports with `extra` flags.
fn detected(out: &Path, extra: &[&str]) -> Vec<(u64, u64, String, u64, u64)> {
    let (sources, suspicious) = corpus();
    let output = detect(&sources, &suspicious, out, &[extra, &["--quiet"]].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    report_passages(&out.join(format!("{SUSPICIOUS}.xml")))
}

#[test]
fn best_reports_the_copied_paragraph_and_not_the_annals_that_share_only_their_formula() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(detected(&dir.path().join("best"), &[]), [copied_paragraph()]);
    // The paper's method reports the formula too: it shares long runs of words.
    let pan09 = detected(&dir.path().join("pan09"), &["--preset", "pan09"]);
    assert!(pan09.iter().any(|p| p.2.as_str() != "chronicle-08.txt"), "{pan09:?}");
}

#[test]
fn a_sample_of_fewer_than_ten_sources_has_no_stock_phrases_and_names_drop_the_formula() {
    // Six listed sources: too few for stock phrases. The annals of other
    // chronicles name other kings, mothers and cities than the text's, and
    // are dropped by their names alone.
    let dir = tempfile::tempdir().unwrap();
    let pairs = dir.path().join("pairs");
    let sources = ["01", "02", "03", "04", "05", "08"].map(|n| format!("{SUSPICIOUS}.txt chronicle-{n}.txt\n"));
    fs::write(&pairs, sources.concat()).unwrap();
    let found = detected(&dir.path().join("out"), &["--pairs", s(&pairs)]);
    assert_eq!(found, [copied_paragraph()]);
}

#[test]
fn check_with_a_best_index_reports_what_detect_reports_after_create_and_after_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let (sources, suspicious) = corpus();
    let docs = dir.path().join("docs");
    fs::create_dir(&docs).unwrap();
    for entry in fs::read_dir(&sources).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, docs.join(path.file_name().unwrap())).unwrap();
    }
    let index = dir.path().join("idx");
    ok(crate::run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--preset", "best", "--quiet"]));
    let text = suspicious.join(format!("{SUSPICIOUS}.txt"));
    let checked_and_detected = |name: &str| {
        let checked = dir.path().join(format!("checked-{name}"));
        ok(crate::run(&["check", "--index", s(&index), "--format", "pan-xml", "--out", s(&checked), s(&text)]));
        let detected = dir.path().join(format!("detected-{name}"));
        let output = detect(&docs, &suspicious, &detected, &["--quiet"]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        (files_of(&checked), files_of(&detected))
    };
    let (checked, detected) = checked_and_detected("created");
    assert_eq!(checked, detected);
    assert_eq!(report_passages(&dir.path().join(format!("checked-created/{SUSPICIOUS}.xml"))), [copied_paragraph()]);
    // The added document changes the collection's function words: every
    // document is analysed again and the stock phrases derived anew.
    fs::copy(fixtures().join("texts/en-20-weather-diary.txt"), docs.join("weather-diary.txt")).unwrap();
    ok(crate::run(&["index", "update", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    let (checked, detected) = checked_and_detected("updated");
    assert_eq!(checked, detected);
}
