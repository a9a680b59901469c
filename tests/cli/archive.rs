//! Archive mode: create → check → update → check equals a fresh create; id recycling, settings, corruption, crashes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use pan_detect::pan_xml::PanDocument;

use crate::{pan_detect, prose, run};

fn ok(output: Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "failed: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

/// Asserts a failed run whose stderr is one line containing `needle`.
fn fails_with(output: Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "expected failure, stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "expected one line: {stderr}");
    assert!(stderr.contains(needle), "expected {needle:?} in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// An archive directory with documents sharing passages, and a probe file
/// (an "uploaded thesis") copying from several of them.
struct Archive {
    _dir: tempfile::TempDir,
    root: PathBuf,
    docs: PathBuf,
    probe: PathBuf,
}

impl Archive {
    fn new() -> Archive {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let docs = root.join("docs");
        for i in 0..8u64 {
            let name = if i % 3 == 0 { format!("faculty/thesis-{i}.txt") } else { format!("thesis-{i}.txt") };
            write(&docs.join(name), &format!("{}{}{}", prose(100 + i, 200), prose(1, 60), prose(200 + i, 150)));
        }
        write(&docs.join("empty.txt"), "");
        let probe = root.join("upload/new-thesis.txt");
        write(&probe, &format!("Úvod. {}{}{}{}", prose(2, 80), prose(103, 120), prose(3, 50), prose(205, 90)));
        Archive { _dir: dir, root, docs, probe }
    }

    fn index(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn create(&self, index: &Path) {
        ok(run(&["index", "create", "--docs", s(&self.docs), "--index", s(index), "--quiet"]));
    }

    fn update(&self, index: &Path) -> String {
        let output = run(&["index", "update", "--docs", s(&self.docs), "--index", s(index), "--quiet"]);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        ok(output);
        stderr
    }

    fn check_json(&self, index: &Path) -> String {
        ok(run(&["check", "--index", s(index), "--format", "json", s(&self.probe)]))
    }

    fn similar(&self, index: &Path, extra: &[&str]) -> String {
        ok(run(&[&["similar", "--index", s(index)][..], extra].concat()))
    }

    /// Adds two documents, modifies two and deletes two.
    fn change(&self) {
        write(&self.docs.join("new/added-1.txt"), &format!("{}{}{}", prose(300, 100), prose(3, 50), prose(1, 60)));
        write(&self.docs.join("added-2.txt"), &prose(301, 120));
        write(&self.docs.join("thesis-1.txt"), &format!("{}{}", prose(400, 100), prose(2, 80)));
        write(&self.docs.join("faculty/thesis-3.txt"), &prose(401, 90));
        fs::remove_file(self.docs.join("thesis-4.txt")).unwrap();
        fs::remove_file(self.docs.join("faculty/thesis-6.txt")).unwrap();
    }
}

fn stats(index: &Path) -> String {
    ok(run(&["index", "stats", "--index", s(index)]))
}

fn stat_line<'a>(stats: &'a str, key: &str) -> &'a str {
    stats.lines().find(|l| l.trim_start().starts_with(key)).unwrap_or_else(|| panic!("no {key} in {stats}"))
}

#[test]
fn update_answers_byte_identically_to_a_fresh_create() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let before = archive.check_json(&index);
    let parsed: serde_json::Value = serde_json::from_str(&before).unwrap();
    let documents = parsed["files"][0]["documents"].as_array().unwrap();
    let names: Vec<&str> = documents.iter().map(|d| d["document"].as_str().unwrap()).collect();
    // The probe copies from thesis-3 and thesis-5 (120 and 90 words) and shares
    // prose(2)/prose(3) with nothing yet.
    assert_eq!(names, ["faculty/thesis-3.txt", "thesis-5.txt"], "{before}");
    assert_eq!(documents[0]["passages"].as_array().unwrap().len(), 1);
    assert!(before.contains("\"excerpt\""));

    archive.change();
    let summary = archive.update(&index);
    assert!(summary.contains("2 added, 2 modified, 2 deleted, 5 unchanged"), "{summary}");
    let after = archive.check_json(&index);
    assert_ne!(before, after);
    let fresh = archive.index("fresh");
    archive.create(&fresh);
    assert_eq!(after, archive.check_json(&fresh), "updated and fresh indexes answer differently");
    let text_args = |idx: &Path| ok(run(&["check", "--index", s(idx), s(&archive.probe)]));
    assert_eq!(text_args(&index), text_args(&fresh));
    assert_eq!(archive.similar(&index, &[]), archive.similar(&fresh, &[]));
    assert_eq!(archive.similar(&index, &["--format", "jsonl"]), archive.similar(&fresh, &["--format", "jsonl"]));
    for key in ["documents:", "chunks:", "postings:"] {
        assert_eq!(stat_line(&stats(&index), key), stat_line(&stats(&fresh), key));
    }
    // The modified thesis-1 now shares prose(2) with the probe; thesis-3 no longer matches.
    let parsed: serde_json::Value = serde_json::from_str(&after).unwrap();
    let names: Vec<&str> =
        parsed["files"][0]["documents"].as_array().unwrap().iter().map(|d| d["document"].as_str().unwrap()).collect();
    // Most common chunks first: 76 from prose(2, 80), 86 from thesis-5, 46 from prose(3, 50).
    assert_eq!(names, ["thesis-5.txt", "thesis-1.txt", "new/added-1.txt"], "{after}");
    // Nothing changed: no new generation.
    assert!(archive.update(&index).contains("up to date"));
    ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
}

#[test]
fn freed_ids_are_recycled() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let docs_bytes = |idx: &Path| stat_line(&stats(idx), "docs.bin").to_string();
    assert!(docs_bytes(&index).ends_with(" 648"), "9 records of 72 bytes: {}", docs_bytes(&index));
    fs::remove_file(archive.docs.join("thesis-2.txt")).unwrap();
    fs::remove_file(archive.docs.join("thesis-5.txt")).unwrap();
    fs::remove_file(archive.docs.join("thesis-7.txt")).unwrap();
    archive.update(&index);
    assert!(stat_line(&stats(&index), "free ids:").ends_with(" 3"));
    assert!(docs_bytes(&index).ends_with(" 648"));
    write(&archive.docs.join("one.txt"), &prose(500, 100));
    write(&archive.docs.join("two.txt"), &prose(501, 100));
    let summary = archive.update(&index);
    assert!(summary.contains("2 ids recycled"), "{summary}");
    assert!(stat_line(&stats(&index), "free ids:").ends_with(" 1"));
    assert!(docs_bytes(&index).ends_with(" 648"));
    for i in 0..3 {
        write(&archive.docs.join(format!("more-{i}.txt")), &prose(600 + i, 100));
    }
    let summary = archive.update(&index);
    assert!(summary.contains("1 id recycled") && summary.contains("3 added"), "{summary}");
    assert!(docs_bytes(&index).ends_with(" 792"), "two fresh ids: {}", docs_bytes(&index));
    let fresh = archive.index("fresh");
    archive.create(&fresh);
    assert_eq!(archive.check_json(&index), archive.check_json(&fresh));
    assert_eq!(archive.similar(&index, &["--min-percent", "0"]), archive.similar(&fresh, &["--min-percent", "0"]));
}

#[test]
fn mismatched_settings_are_refused_naming_the_setting() {
    let archive = Archive::new();
    let index = archive.index("idx");
    ok(run(&["index", "create", "--docs", s(&archive.docs), "--index", s(&index), "--no-digits", "--hash-bits", "40"]));
    let stats = stats(&index);
    assert!(stat_line(&stats, "settings:").contains("digits=false") && stats.contains("hash-bits=40"), "{stats}");
    fails_with(
        run(&["check", "--index", s(&index), "--hash-bits", "32", s(&archive.probe)]),
        "--hash-bits 32 differs from the index's 40",
    );
    fails_with(
        run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index), "--digits"]),
        "--digits true differs from the index's false",
    );
    fails_with(
        run(&["check", "--index", s(&index), "--chunk-words", "4", s(&archive.probe)]),
        "--chunk-words 4 differs from the index's 5",
    );
    // The same values, or none, are accepted; 40-bit hashes find the same documents.
    ok(run(&["check", "--index", s(&index), "--hash-bits", "40", "--no-digits", s(&archive.probe)]));
    assert!(archive.check_json(&index).contains("thesis-5.txt"));
    fails_with(run(&["index", "create", "--docs", s(&archive.docs), "--index", s(&index)]), "already holds an index");
    fails_with(run(&["check", "--index", s(&archive.docs), s(&archive.probe)]), "not an index directory");
}

#[test]
fn a_second_writer_is_refused_while_the_first_holds_the_lock() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let before = without_excerpts(&archive.check_json(&index));
    archive.change();
    // Another process writing: the lock file is held (here by the test).
    let held = fs::OpenOptions::new().write(true).open(index.join("LOCK")).unwrap();
    held.try_lock().unwrap();
    fails_with(
        run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index), "--quiet"]),
        "another pan-detect process is writing to this index",
    );
    // Excerpts are read from the documents, which changed; the index did not.
    assert_eq!(without_excerpts(&archive.check_json(&index)), before, "the refused update changed nothing");
    drop(held);
    archive.update(&index);
    assert_ne!(without_excerpts(&archive.check_json(&index)), before);
}

fn generation_dir(index: &Path) -> PathBuf {
    index.join(fs::read_to_string(index.join("CURRENT")).unwrap().trim())
}

#[test]
fn truncated_or_corrupted_files_are_reported_with_their_path() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let postings = generation_dir(&index).join("postings.bin");
    let original = fs::read(&postings).unwrap();
    let mut flipped = original.clone();
    flipped[100] ^= 0x10;
    fs::write(&postings, &flipped).unwrap();
    let message = format!("{}: checksum mismatch", postings.display());
    fails_with(run(&["index", "stats", "--index", s(&index), "--verify"]), &message);
    fails_with(run(&["check", "--verify", "--index", s(&index), s(&archive.probe)]), &message);
    fails_with(run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index)]), &message);
    fs::write(&postings, &original[..original.len() - 5]).unwrap();
    let truncated = format!("{}: truncated or overwritten", postings.display());
    fails_with(run(&["check", "--index", s(&index), s(&archive.probe)]), &truncated);
    fails_with(run(&["similar", "--index", s(&index)]), &truncated);
    fs::write(&postings, &original).unwrap();
    ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
    let header = generation_dir(&index).join("header.json");
    let text = fs::read_to_string(&header).unwrap();
    fs::write(&header, text.replace("\"format_version\": 1", "\"format_version\": 7")).unwrap();
    fails_with(
        run(&["index", "stats", "--index", s(&index)]),
        "index format version 7, this pan-detect reads version 1",
    );
    fs::write(&header, &text[..text.len() / 2]).unwrap();
    fails_with(run(&["index", "stats", "--index", s(&index)]), &format!("{}: corrupt index", header.display()));
}

#[test]
fn an_update_that_dies_before_its_commit_leaves_the_old_index_answering() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    archive.change();
    // The old index's answer with the new documents on disk (the excerpts of
    // changed documents are left out).
    let before = archive.check_json(&index);
    let similar_before = archive.similar(&index, &[]);
    for files in 1..=7 {
        let output = pan_detect()
            .args(["index", "update", "--docs", s(&archive.docs), "--index", s(&index), "--quiet"])
            .env("PAN_DETECT_FAIL_AFTER", files.to_string())
            .output()
            .unwrap();
        fails_with(output, "update stopped by the injected failure");
        assert!(index.join("gen-000002").is_dir(), "the partial generation is left as a crash would");
        assert_eq!(archive.check_json(&index), before, "after a crash at file {files}");
        assert_eq!(archive.similar(&index, &[]), similar_before);
        ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
    }
    archive.update(&index);
    assert!(!index.join("gen-000001").exists(), "the old generation is removed after the commit");
    let fresh = archive.index("fresh");
    archive.create(&fresh);
    assert_eq!(archive.check_json(&index), archive.check_json(&fresh));
}

/// A check's JSON without the excerpts, which depend on the documents on disk.
fn without_excerpts(json: &str) -> String {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.remove("excerpt");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    strip(&mut value);
    value.to_string()
}

#[test]
fn a_killed_update_leaves_the_old_or_the_new_index() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    let probe = dir.path().join("probe.txt");
    let index = dir.path().join("idx");
    // Two states of a few megabytes; the update between them rechunks half of it.
    let state = |version: u64| {
        for i in 0..120u64 {
            let seed = if i % 2 == 0 { 1000 + i } else { 1000 + i + 10_000 * version };
            write(&docs.join(format!("d{i:03}.txt")), &format!("{}{}", prose(seed, 1500), prose(7 + version, 40)));
        }
    };
    write(&probe, &format!("{}{}", prose(7, 40), prose(8, 40)));
    state(0);
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    let check = || without_excerpts(&ok(run(&["check", "--index", s(&index), "--format", "json", s(&probe)])));
    let mut answers = vec![check()];
    state(1);
    let fresh = dir.path().join("fresh");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&fresh), "--quiet"]));
    answers.push(without_excerpts(&ok(run(&["check", "--index", s(&fresh), "--format", "json", s(&probe)]))));
    assert_ne!(answers[0], answers[1]);
    let mut current = 0;
    for delay_ms in [30u64, 120, 250, 500, 1000, 2000] {
        let target = 1 - current;
        state(target as u64);
        let mut child = pan_detect()
            .args(["index", "update", "--docs", s(&docs), "--index", s(&index), "--quiet"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
        let answer = check();
        assert!(answer == answers[current] || answer == answers[target], "killed after {delay_ms} ms: {answer}");
        current = if answer == answers[target] { target } else { current };
    }
    // Whatever happened, a finished update brings it to the documents' state.
    let target = 1 - current;
    state(target as u64);
    ok(run(&["index", "update", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    assert_eq!(check(), answers[target]);
}

#[test]
fn pan_xml_reports_name_the_archive_documents() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let out = archive.root.join("reports");
    ok(run(&["check", "--index", s(&index), "--format", "pan-xml", "--out", s(&out), s(&archive.probe)]));
    let xml = fs::read_to_string(out.join("new-thesis.xml")).unwrap();
    let report = PanDocument::parse(&xml).unwrap();
    assert_eq!(report.reference, "new-thesis.txt");
    let sources: Vec<_> = report.features.iter().map(|f| f.get("source_reference").unwrap()).collect();
    assert_eq!(sources, ["faculty/thesis-3.txt", "thesis-5.txt"]);
    let probe: String = fs::read_to_string(&archive.probe).unwrap();
    let (start, end) = report.features[0].this_range().unwrap();
    let copied: String = probe.chars().skip(start as usize).take((end - start) as usize).collect();
    assert!(copied.starts_with(prose(103, 1).trim()), "{copied}");
    fails_with(run(&["check", "--index", s(&index), "--format", "pan-xml", s(&archive.probe)]), "needs --out");
    // Ground truth where a report would go is never overwritten; nor is the index a report directory.
    let truth = "<document reference=\"new-thesis.txt\"><feature name=\"plagiarism\"/></document>";
    write(&out.join("new-thesis.xml"), truth);
    let check_into =
        |out: &Path| run(&["check", "--index", s(&index), "--format", "pan-xml", "--out", s(out), s(&archive.probe)]);
    fails_with(check_into(&out), "exists and is not a pan-detect report");
    assert_eq!(fs::read_to_string(out.join("new-thesis.xml")).unwrap(), truth);
    fails_with(check_into(&index), "--out is the input directory");
}

#[test]
fn similar_since_update_gives_the_rows_touching_changed_documents() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let full = archive.similar(&index, &[]);
    let lines: Vec<&str> = full.lines().collect();
    assert_eq!(lines[0], "document,other,similarity,common_chunks");
    // Every thesis shares prose(1, 60) (56 chunks) with every other.
    assert_eq!(lines.len(), 1 + 8 * 7, "{full}");
    archive.change();
    archive.update(&index);
    let output = run(&["similar", "--index", s(&index), "--since-update"]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let delta = ok(output);
    assert!(stderr.contains("deleted by the last update: faculty/thesis-6.txt"), "{stderr}");
    let changed = ["new/added-1.txt", "added-2.txt", "thesis-1.txt", "faculty/thesis-3.txt"];
    let touching = |table: &str| -> Vec<String> {
        let mut rows: Vec<String> = table
            .lines()
            .skip(1)
            .filter(|l| {
                let mut fields = l.split(',');
                let (a, b) = (fields.next().unwrap(), fields.next().unwrap());
                changed.contains(&a) || changed.contains(&b)
            })
            .map(str::to_string)
            .collect();
        rows.sort();
        rows
    };
    let after = archive.similar(&index, &[]);
    let mut delta_rows: Vec<String> = delta.lines().skip(1).map(str::to_string).collect();
    delta_rows.sort();
    assert_eq!(delta_rows, touching(&after));
    assert!(!delta_rows.is_empty());
}
