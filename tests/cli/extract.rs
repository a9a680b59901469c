//! `extract`: the duplicated passages of corpus-fixtures/duplicates found in
//! each format, with `--sigma`, from an archive index, and bad input refused.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::archive::{fails_with, ok, s};
use crate::{fixtures, read_report, run};

/// The fixture collection.
fn collection() -> PathBuf {
    fixtures().join("duplicates")
}

/// The truth: group number → (document, start, end) in characters.
fn truth() -> BTreeMap<u32, Vec<(String, u64, u64)>> {
    let mut groups: BTreeMap<u32, Vec<(String, u64, u64)>> = BTreeMap::new();
    let text = fs::read_to_string(collection().join("truth.tsv")).unwrap();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let (offset, length): (u64, u64) = (fields[2].parse().unwrap(), fields[3].parse().unwrap());
        groups.entry(fields[0].parse().unwrap()).or_default().push((fields[1].to_string(), offset, offset + length));
    }
    groups
}

/// Whether `found` covers at least 95 % of `expected` and reaches at most 5 %
/// of its length beyond it.
fn close(found: (u64, u64), expected: (u64, u64)) -> bool {
    let common = found.1.min(expected.1).saturating_sub(found.0.max(expected.0));
    let length = expected.1 - expected.0;
    common * 100 >= length * 95 && (found.1 - found.0 - common) * 100 <= length * 5
}

/// `extract --docs` of the fixture with `flags`; its stdout.
fn extract(flags: &[&str]) -> String {
    let docs = collection();
    ok(run(&[&["extract", "--docs", s(&docs), "--quiet"][..], flags].concat()))
}

/// The groups of JSON lines output as (document, start, end) per member,
/// one range each.
fn groups(jsonl: &str) -> Vec<Vec<(String, u64, u64)>> {
    jsonl
        .lines()
        .map(|line| {
            let group: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let members = group["members"].as_array().unwrap();
            assert_eq!(group["documents"].as_u64(), Some(members.len() as u64));
            members
                .iter()
                .map(|m| {
                    let ranges = m["ranges"].as_array().unwrap();
                    assert_eq!(ranges.len(), 1, "{line}");
                    let (start, end) = (ranges[0][0].as_u64().unwrap(), ranges[0][1].as_u64().unwrap());
                    (m["document"].as_str().unwrap().to_string(), start, end)
                })
                .collect()
        })
        .collect()
}

/// Asserts that `found` are the truth's groups (most documents first), each
/// range close to the truth's.
fn assert_truth(found: &[Vec<(String, u64, u64)>]) {
    let truth = truth();
    assert_eq!(found.len(), truth.len(), "{found:?}");
    for (found, expected) in found.iter().zip(truth.values()) {
        assert_eq!(found.len(), expected.len(), "{found:?}");
        for ((name, start, end), (truth_name, truth_start, truth_end)) in found.iter().zip(expected) {
            assert_eq!(name, truth_name);
            assert!(
                close((*start, *end), (*truth_start, *truth_end)),
                "{name}: {start}..{end}, truth {truth_start}..{truth_end}"
            );
        }
    }
}

#[test]
fn both_presets_find_the_duplicated_passages_as_json_lines() {
    for preset in ["best", "pan09"] {
        assert_truth(&groups(&extract(&["--preset", preset, "--format", "jsonl"])));
    }
}

#[test]
fn text_output_lists_groups_with_excerpts() {
    let text = extract(&[]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("pan-detect extract: 6 documents, 2 groups of duplicated text"), "{text}");
    assert_eq!(lines[2], "group 1: 3 documents, 1719 characters");
    assert_eq!(lines[3], "  coast-guide.txt  446..1019");
    assert!(lines[6].starts_with("  \"The lamp at the top of the tower") && lines[6].ends_with("…\""), "{text}");
    assert!(text.contains("group 2: 2 documents") && !text.contains("orchard-diary"), "{text}");
}

#[test]
fn pan_xml_reports_name_the_other_documents_as_sources() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reports");
    extract(&["--format", "pan-xml", "--out", s(&out)]);
    let truth = truth();
    let group_of = |name: &str| truth.iter().find(|(_, docs)| docs.iter().any(|d| d.0 == name));
    for entry in fs::read_dir(collection()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".txt") else { continue };
        let report = read_report(&out.join(format!("{stem}.xml")));
        assert_eq!(report.reference, name);
        let Some((_, members)) = group_of(&name) else {
            assert!(report.features.is_empty(), "{name}");
            continue;
        };
        let spans = |document: &str| members.iter().find(|m| m.0 == document).map(|m| (m.1, m.2)).unwrap();
        let mut sources: Vec<&str> = Vec::new();
        for feature in &report.features {
            let source = feature.get("source_reference").unwrap();
            assert!(close(feature.this_range().unwrap(), spans(&name)), "{name}");
            assert!(close(feature.source_range().unwrap(), spans(source)), "{name} from {source}");
            sources.push(source);
        }
        // Each document of a group is paired with every other one.
        sources.sort_unstable();
        let others: Vec<&str> = members.iter().map(|m| m.0.as_str()).filter(|&m| m != name).collect();
        assert_eq!(sources, others, "{name}");
    }
}

#[test]
fn sigma_keeps_only_chunks_of_many_documents() {
    // The fixture's df has mean 1.34 and standard deviation 0.67: K = 0 keeps
    // df ≥ 2 (everything shared), K = 1 df ≥ 3 (the three-document passage).
    let all = groups(&extract(&["--format", "jsonl"]));
    assert_eq!(groups(&extract(&["--format", "jsonl", "--sigma", "0"])), all);
    assert_eq!(groups(&extract(&["--format", "jsonl", "--sigma", "-1"])), all);
    assert_eq!(groups(&extract(&["--format", "jsonl", "--sigma", "1"])), all[..1]);
    assert!(extract(&["--format", "jsonl", "--sigma", "5"]).is_empty());
}

#[test]
fn an_archive_index_gives_the_groups_of_its_documents() {
    let dir = tempfile::tempdir().unwrap();
    for preset in ["best", "pan09"] {
        let index = dir.path().join(preset);
        ok(run(&["index", "create", "--index", s(&index), "--docs", s(&collection()), "--preset", preset]));
        let from_index = ok(run(&["extract", "--index", s(&index), "--format", "jsonl", "--quiet"]));
        assert_eq!(from_index, extract(&["--preset", preset, "--format", "jsonl"]), "{preset}");
        let other = if preset == "best" { "pan09" } else { "best" };
        fails_with(run(&["extract", "--index", s(&index), "--preset", other]), "--preset");
    }
}

#[test]
fn its_output_file_is_replaced_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let (out, notes) = (dir.path().join("groups.jsonl"), dir.path().join("notes.txt"));
    extract(&["--format", "jsonl", "--out", s(&out)]);
    extract(&["--format", "jsonl", "--out", s(&out), "--sigma", "1"]);
    assert_eq!(groups(&fs::read_to_string(&out).unwrap()).len(), 1);
    fails_with(run(&["extract", "--docs", s(&collection()), "--out", s(&out)]), "not overwritten");
    fs::write(&notes, "my notes\n").unwrap();
    fails_with(run(&["extract", "--docs", s(&collection()), "--out", s(&notes)]), "not overwritten");
    assert_eq!(fs::read_to_string(&notes).unwrap(), "my notes\n");
}

#[test]
fn bad_input_stops_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let docs = collection();
    let missing = dir.path().join("missing");
    fails_with(run(&["extract", "--docs", s(&missing)]), "missing: no such directory");
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    fails_with(run(&["extract", "--docs", s(&empty)]), "empty: no *.txt files");
    let reports = dir.path().join("new/reports");
    fails_with(run(&["extract", "--docs", s(&empty), "--format", "pan-xml", "--out", s(&reports)]), "no *.txt files");
    assert!(!dir.path().join("new").exists(), "a run that stops leaves no output directory it made");
    fails_with(run(&["extract", "--docs", s(&docs), "--sigma", "nan"]), "--sigma NaN: not a finite number");
    fails_with(run(&["extract", "--docs", s(&docs), "--format", "pan-xml"]), "needs --out DIR");
    fails_with(run(&["extract", "--docs", s(&docs), "--out", s(&docs.join("groups.txt"))]), "among the documents");
    fails_with(run(&["extract", "--docs", s(&docs), "--format", "pan-xml", "--out", s(&docs)]), "input directory");
    fails_with(run(&["extract", "--index", s(&missing)]), "missing");
    // Refused by the argument parser: a usage error, no panic, nothing written.
    for flags in [&["--sigma", "abc"][..], &["--index", s(&missing)]] {
        let output = run(&[&["extract", "--docs", s(&docs)][..], flags].concat());
        assert_eq!(output.status.code(), Some(2));
        assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    }
    assert!(!Path::new(&docs.join("groups.txt")).exists());
}

#[test]
fn recursive_reads_the_documents_of_subfolders_named_by_their_relative_path() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir_all(docs.join("2026")).unwrap();
    for (i, entry) in fs::read_dir(collection()).unwrap().enumerate() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") {
            let to = if i % 2 == 0 { docs.join("2026") } else { docs.clone() };
            fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
    let flat = run(&["extract", "--docs", s(&docs), "--quiet"]);
    let warning = format!("warning: {}: a folder, skipped (use --recursive)", docs.join("2026").display());
    assert!(String::from_utf8_lossy(&flat.stderr).contains(&warning), "{}", String::from_utf8_lossy(&flat.stderr));
    let nested = ok(run(&["extract", "--docs", s(&docs), "--quiet", "--recursive"]));
    assert!(nested.contains("2026/"), "{nested}");
    let whole = extract(&[]);
    let strip = |text: &str| text.replace("2026/", "");
    assert_eq!(strip(&nested).lines().count(), whole.lines().count(), "the same groups:\n{nested}\n{whole}");
}
