//! Archive mode: create → check → update → check equals a fresh create; id recycling, settings, corruption, crashes, taboo sets.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use pan_detect::report::pan_xml::PanDocument;

use crate::detect::misread_every_other_word;
use crate::{copy_tree, pan_detect, prose, run};

/// Characters of `text`.
fn char_len(text: &str) -> u64 {
    text.chars().count() as u64
}

pub(crate) fn ok(output: Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "failed: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

/// Asserts a failed run whose stderr is one line containing `needle`.
pub(crate) fn fails_with(output: Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "expected failure, stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "expected one line: {stderr}");
    assert!(stderr.contains(needle), "expected {needle:?} in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

pub(crate) fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

pub(crate) fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// An archive directory with documents sharing passages, and a probe file
/// (an "uploaded thesis") copying from several of them.
pub(crate) struct Archive {
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) docs: PathBuf,
    pub(crate) probe: PathBuf,
}

impl Archive {
    pub(crate) fn new() -> Archive {
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

    pub(crate) fn index(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    pub(crate) fn create(&self, index: &Path) {
        self.create_with(index, "pan09");
    }

    pub(crate) fn create_with(&self, index: &Path, preset: &str) {
        ok(run(&["index", "create", "--docs", s(&self.docs), "--index", s(index), "--preset", preset, "--quiet"]));
    }

    pub(crate) fn update(&self, index: &Path) -> String {
        let output = run(&["index", "update", "--docs", s(&self.docs), "--index", s(index), "--quiet"]);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        ok(output);
        stderr
    }

    pub(crate) fn check_json(&self, index: &Path) -> String {
        ok(run(&["check", "--index", s(index), "--format", "json", s(&self.probe)]))
    }

    pub(crate) fn similar(&self, index: &Path, extra: &[&str]) -> String {
        ok(run(&[&["similar", "--index", s(index)][..], extra].concat()))
    }

    /// Adds two documents, modifies two and deletes two.
    pub(crate) fn change(&self) {
        write(&self.docs.join("new/added-1.txt"), &format!("{}{}{}", prose(300, 100), prose(3, 50), prose(1, 60)));
        write(&self.docs.join("added-2.txt"), &prose(301, 120));
        write(&self.docs.join("thesis-1.txt"), &format!("{}{}", prose(400, 100), prose(2, 80)));
        write(&self.docs.join("faculty/thesis-3.txt"), &prose(401, 90));
        fs::remove_file(self.docs.join("thesis-4.txt")).unwrap();
        fs::remove_file(self.docs.join("faculty/thesis-6.txt")).unwrap();
    }
}

pub(crate) fn stats(index: &Path) -> String {
    ok(run(&["index", "stats", "--index", s(index)]))
}

pub(crate) fn stat_line<'a>(stats: &'a str, key: &str) -> &'a str {
    stats.lines().find(|l| l.trim_start().starts_with(key)).unwrap_or_else(|| panic!("no {key} in {stats}"))
}

#[test]
fn update_answers_byte_identically_to_a_fresh_create() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let before = archive.check_json(&index);
    let parsed: serde_json::Value = serde_json::from_str(&before).unwrap();
    let documents = parsed["documents"][0]["sources"].as_array().unwrap();
    let names: Vec<&str> = documents.iter().map(|d| d["name"].as_str().unwrap()).collect();
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
        parsed["documents"][0]["sources"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    // Most of the probe in passages first, then most common chunks: thesis-5 (86), thesis-1
    // (76, from prose(2, 80)), new/added-1 (46, from prose(3, 50)).
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
    assert_eq!(archive.similar(&index, &["--top", "1000"]), archive.similar(&fresh, &["--top", "1000"]));
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
    // Contradictory flags are a usage error, as in `detect`, not "the last one wins".
    for flags in [["--digits", "--no-digits"], ["--no-sort", "--sort"]] {
        let output = run(&[&["check", "--index", s(&index)][..], &flags, &[s(&archive.probe)]].concat());
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("cannot be used with"), "{flags:?}");
    }
}

#[test]
fn a_document_changed_since_the_update_keeps_its_shared_chunks_and_check_says_its_passages_are_left_out() {
    for preset in ["pan09", "best"] {
        let archive = Archive::new();
        let index = archive.index("idx");
        archive.create_with(&index, preset);
        let passages = |json: &str, name: &str| -> (u64, usize) {
            let value: serde_json::Value = serde_json::from_str(json).unwrap();
            let sources = value["documents"][0]["sources"].as_array().unwrap();
            let source = sources.iter().find(|source| source["name"] == name).unwrap();
            (source["common_chunks"].as_u64().unwrap(), source["passages"].as_array().unwrap().len())
        };
        let before = passages(&archive.check_json(&index), "faculty/thesis-3.txt");
        assert!(before.1 > 0, "{preset}: {before:?}");
        archive.change();
        let output = run(&["check", "--index", s(&index), "--format", "json", s(&archive.probe)]);
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        assert!(output.status.success(), "{stderr}");
        let after = passages(&String::from_utf8_lossy(&output.stdout), "faculty/thesis-3.txt");
        assert_eq!(after, (before.0, 0), "{preset}: the postings stay, the passages need the indexed text");
        let warning = format!(
            "{}: archive document faculty/thesis-3.txt changed or went since the index was updated: \
             its passages are left out",
            index.display()
        );
        assert!(stderr.contains(&warning), "{preset}: {stderr}");
        archive.update(&index);
        let output = run(&["check", "--index", s(&index), "--format", "json", s(&archive.probe)]);
        assert!(!String::from_utf8_lossy(&output.stderr).contains("changed or went"), "{preset}");
    }
}

#[test]
fn a_second_writer_is_refused_while_the_first_holds_the_lock() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let before = ok(run(&["similar", "--index", s(&index), "--format", "csv"]));
    archive.change();
    // Another process writing: the lock file is held (here by the test).
    let held = fs::OpenOptions::new().write(true).open(index.join("LOCK")).unwrap();
    held.try_lock().unwrap();
    fails_with(
        run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index), "--quiet"]),
        "another pan-detect process is writing to this index",
    );
    assert!(stat_line(&stats(&index), "index:").ends_with("(generation 1)"));
    let after = ok(run(&["similar", "--index", s(&index), "--format", "csv"]));
    assert_eq!(after, before, "the refused update changed nothing");
    drop(held);
    archive.update(&index);
    assert_ne!(ok(run(&["similar", "--index", s(&index), "--format", "csv"])), before);
}

pub(crate) fn generation_dir(index: &Path) -> PathBuf {
    index.join(fs::read_to_string(index.join("CURRENT")).unwrap().trim())
}

#[test]
fn truncated_or_corrupted_files_are_reported_with_their_path() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let postings = generation_dir(&index).join("segment-000001.postings");
    let original = fs::read(&postings).unwrap();
    let mut flipped = original.clone();
    flipped[100] ^= 0x10;
    fs::write(&postings, &flipped).unwrap();
    let message = format!("{}: checksum mismatch", postings.display());
    fails_with(run(&["index", "stats", "--index", s(&index), "--verify"]), &message);
    fails_with(run(&["check", "--verify", "--index", s(&index), s(&archive.probe)]), &message);
    fs::write(&postings, &original[..original.len() - 5]).unwrap();
    let truncated = format!("{}: truncated or overwritten", postings.display());
    fails_with(run(&["check", "--index", s(&index), s(&archive.probe)]), &truncated);
    fails_with(run(&["similar", "--index", s(&index)]), &truncated);
    fs::write(&postings, &original).unwrap();
    ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
    let header = generation_dir(&index).join("header.json");
    let text = fs::read_to_string(&header).unwrap();
    fs::write(&header, text.replace("\"format_version\": 10", "\"format_version\": 11")).unwrap();
    fails_with(
        run(&["index", "stats", "--index", s(&index)]),
        "index format version 11, this pan-detect reads versions 8 to 10",
    );
    fs::write(&header, &text[..text.len() / 2]).unwrap();
    fails_with(run(&["index", "stats", "--index", s(&index)]), &format!("{}: corrupt index", header.display()));
}

/// Flips one byte in the middle of `path`.
fn flip_byte(path: &Path) {
    let mut bytes = fs::read(path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    fs::write(path, &bytes).unwrap();
}

#[test]
fn a_damaged_name_is_refused_on_opening_without_verify() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let before = archive.check_json(&index);
    assert!(before.contains("\"thesis-5.txt\""), "{before}");
    // "thesis-5.txt" becomes "thesis-7.txt": valid UTF-8, in bounds, another
    // document's name; only the checksum tells.
    let names = generation_dir(&index).join("names.bin");
    let mut bytes = fs::read(&names).unwrap();
    let at = bytes.windows(12).position(|w| w == b"thesis-5.txt").unwrap() + 7;
    bytes[at] ^= 0x02;
    fs::write(&names, &bytes).unwrap();
    let message = format!("{}: checksum mismatch", names.display());
    fails_with(run(&["check", "--index", s(&index), "--format", "json", s(&archive.probe)]), &message);
    fails_with(run(&["similar", "--index", s(&index)]), &message);
    fails_with(run(&["index", "stats", "--index", s(&index)]), &message);
}

/// The entries of `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

#[test]
fn create_refuses_an_index_directory_that_is_not_its_own() {
    let archive = Archive::new();
    let root = &archive.root;
    let theses = root.join("r/gen-theses");
    copy_tree(&archive.docs, &theses);
    let before = crate::files_under(&theses);
    let create =
        |docs: &Path, index: &Path| run(&["index", "create", "--docs", s(docs), "--index", s(index), "--quiet"]);
    // The documents in a folder of the index directory.
    let contains = format!("{}: the index directory contains the documents directory", root.join("r").display());
    fails_with(create(&theses, &root.join("r")), &contains);
    // The documents directory itself, with a gen-2023 folder of documents.
    copy_tree(&archive.docs, &theses.join("gen-2023"));
    fails_with(create(&theses, &theses), "the index directory is the same directory as the documents directory");
    std::os::unix::fs::symlink(&theses, root.join("link")).unwrap();
    fails_with(create(&theses, &root.join("link")), "is the same directory as the documents directory");
    // Inside the documents (not made).
    fails_with(create(&theses, &theses.join("idx")), "the index directory is inside the documents directory");
    fails_with(create(&theses, &root.join("link/idx")), "is inside the documents directory");
    assert!(!theses.join("idx").exists());
    fs::remove_dir_all(theses.join("gen-2023")).unwrap();
    assert_eq!(crate::files_under(&theses), before, "the documents are untouched");
    // A folder holding anything else.
    let other = root.join("other");
    write(&other.join("notes.txt"), "mine");
    fs::create_dir(other.join("gen-backup")).unwrap();
    fails_with(create(&archive.docs, &other), &format!("{}: not empty and not an index", other.display()));
    assert_eq!(entries(&other), ["gen-backup", "notes.txt"]);
    // A new or empty folder is taken.
    fs::create_dir(root.join("empty")).unwrap();
    ok(create(&archive.docs, &root.join("empty")));
    ok(create(&archive.docs, &root.join("new/idx")));
}

#[test]
fn an_index_removes_only_the_generations_it_wrote() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    // Folders of the user's beside the index's own, named like generations.
    copy_tree(&generation_dir(&index), &index.join("gen-backup"));
    copy_tree(&archive.docs, &index.join("gen-2023"));
    copy_tree(&archive.docs, &index.join("gen-theses"));
    copy_tree(&archive.docs, &index.join("gen-000009"));
    let theirs = ["gen-000009", "gen-2023", "gen-backup", "gen-theses"];
    let files: Vec<_> = theirs.iter().map(|name| crate::files_under(&index.join(name))).collect();
    let kept = || {
        let after: Vec<_> = theirs.iter().map(|name| crate::files_under(&index.join(name))).collect();
        assert!(after == files, "a folder the index did not write changed");
    };
    archive.change();
    assert!(archive.update(&index).contains("updated"));
    kept();
    assert!(archive.update(&index).contains("up to date"));
    kept();
    ok(run(&["index", "merge", "--index", s(&index), "--quiet"]));
    kept();
    let generations: Vec<String> = entries(&index).into_iter().filter(|name| name.starts_with("gen-00000")).collect();
    assert_eq!(generations, ["gen-000003", "gen-000009"], "the old generations are removed");
    // An update from a documents directory inside the index is refused too.
    let refused = run(&["index", "update", "--docs", s(&index.join("gen-2023")), "--index", s(&index), "--quiet"]);
    fails_with(refused, "the index directory contains the documents directory");
    kept();
}

#[test]
fn an_update_or_merge_refuses_a_damaged_file_it_would_copy_and_the_damage_stays_visible() {
    // Six of the eight theses deleted: the update merges the first segment
    // into its new one, reading the postings it copies.
    for (file, preset) in [("segment-000001.postings", "pan09"), ("segment-000001.directory", "best")] {
        let archive = Archive::new();
        let index = archive.index("idx");
        archive.create_with(&index, preset);
        let path = generation_dir(&index).join(file);
        let original = fs::read(&path).unwrap();
        flip_byte(&path);
        write(&archive.docs.join("added.txt"), &prose(700, 100));
        let message = format!("{}: checksum mismatch", path.display());
        for i in [0, 1, 2, 4, 5, 7] {
            let name = if i % 3 == 0 { format!("faculty/thesis-{i}.txt") } else { format!("thesis-{i}.txt") };
            fs::remove_file(archive.docs.join(name)).unwrap();
        }
        fails_with(run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index), "--quiet"]), &message);
        assert!(!index.join("gen-000002").exists(), "{file}: no new generation is started");
        assert!(stat_line(&stats(&index), "index:").ends_with("(generation 1)"));
        // Not laundered into a generation with a fresh checksum: still reported.
        fails_with(run(&["index", "stats", "--index", s(&index), "--verify"]), &message);
        // Repaired, the same update goes through (and merges the segment away).
        fs::write(&path, &original).unwrap();
        archive.update(&index);
        let segments = stats(&index).lines().filter(|l| l.trim_start().starts_with("segment-000001")).count();
        assert_eq!(segments, 0, "{file}");
        let fresh = archive.index("fresh");
        archive.create_with(&fresh, preset);
        assert_eq!(archive.check_json(&index), archive.check_json(&fresh));
    }
}

#[test]
fn a_linked_segment_keeps_its_recorded_checksum_so_damage_stays_visible() {
    // The pan09 preset: with best, the added document would make the archive
    // large enough to have function words, and every document would be
    // analysed again, linking nothing.
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create_with(&index, "pan09");
    let path = generation_dir(&index).join("segment-000001.postings");
    let original = fs::read(&path).unwrap();
    flip_byte(&path);
    // An update that adds a document links the segment without reading it.
    write(&archive.docs.join("added.txt"), &prose(700, 100));
    archive.update(&index);
    let linked = generation_dir(&index).join("segment-000001.postings");
    let message = format!("{}: checksum mismatch", linked.display());
    fails_with(run(&["index", "stats", "--index", s(&index), "--verify"]), &message);
    // A merge reads the postings it copies: the damaged ones are refused.
    fails_with(run(&["index", "merge", "--index", s(&index), "--quiet"]), &message);
    // Repaired, the merge goes through.
    fs::write(&linked, original).unwrap();
    let merged = run(&["index", "merge", "--index", s(&index)]);
    let note = String::from_utf8_lossy(&merged.stderr).to_string();
    assert!(merged.status.success() && note.contains("index merged: 2 segments into 1 segment"), "{note}");
    ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
    let fresh = archive.index("fresh");
    archive.create_with(&fresh, "pan09");
    assert_eq!(archive.check_json(&index), archive.check_json(&fresh));
}

/// The archive documents of a check's JSON with the chunks they share.
fn shared_chunks(json: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    let sources = value["documents"][0]["sources"].as_array().unwrap();
    sources.iter().map(|source| format!("{} {}\n", source["name"], source["common_chunks"])).collect()
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
    // The index's answer: what a check finds from the postings alone (its
    // passages need the documents as indexed, which the states change), and
    // the similarity table.
    let answer_of = |index: &Path| {
        let check = ok(run(&["check", "--index", s(index), "--format", "json", s(&probe)]));
        let similar = ok(run(&["similar", "--index", s(index), "--format", "csv"]));
        format!("{}\n{similar}", shared_chunks(&check))
    };
    let check = || answer_of(&index);
    let mut answers = vec![check()];
    state(1);
    let fresh = dir.path().join("fresh");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&fresh), "--quiet"]));
    answers.push(answer_of(&fresh));
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
    assert!(lines[0].starts_with("document,other,document_in_other_percent,"), "{}", lines[0]);
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

/// An archive whose documents all open with one template, one of them also
/// holding a passage that the probe copies after its own copy of the template.
struct Templated {
    _dir: tempfile::TempDir,
    root: PathBuf,
    docs: PathBuf,
    template: PathBuf,
    probe: PathBuf,
    /// Characters of the probe that the template covers, and the copied passage.
    template_range: (u64, u64),
    copy_range: (u64, u64),
}

impl Templated {
    fn new() -> Templated {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let docs = root.join("docs");
        let template = prose(900, 120);
        let copied = prose(77, 150);
        for doc in 0..5u64 {
            let own = if doc == 2 { format!("{}{copied}", prose(1000 + doc, 100)) } else { prose(1000 + doc, 200) };
            write(&docs.join(format!("thesis-{doc}.txt")), &format!("{template}{own}"));
        }
        let template_file = root.join("template.txt");
        write(&template_file, &template);
        let before_template = prose(5, 80);
        let before_copy = format!("{before_template}{template}{}", prose(6, 80));
        let probe = root.join("upload/new-thesis.txt");
        write(&probe, &format!("{before_copy}{copied}{}", prose(7, 80)));
        // Chunks run from a word's first character to a word's last: not over the final space.
        let template_range = (char_len(&before_template), char_len(&before_template) + char_len(template.trim_end()));
        let copy_range = (char_len(&before_copy), char_len(&before_copy) + char_len(copied.trim_end()));
        Templated { _dir: dir, root, docs, template: template_file, probe, template_range, copy_range }
    }

    fn create(&self, index: &Path, extra: &[&str]) -> String {
        let output =
            run(&[&["index", "create", "--docs", s(&self.docs), "--index", s(index), "--quiet"][..], extra].concat());
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        ok(output);
        stderr
    }

    fn update(&self, index: &Path, extra: &[&str]) -> String {
        let output =
            run(&[&["index", "update", "--docs", s(&self.docs), "--index", s(index), "--quiet"][..], extra].concat());
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        ok(output);
        stderr
    }

    fn check_json(&self, index: &Path) -> serde_json::Value {
        let json = ok(run(&["check", "--index", s(index), "--format", "json", s(&self.probe)]));
        serde_json::from_str(&json).unwrap()
    }
}

/// The names of the archive documents in a check's JSON.
fn matched_names(check: &serde_json::Value) -> Vec<&str> {
    check["documents"][0]["sources"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect()
}

/// The file side of every passage in a check's JSON, as (start, end).
fn file_sides(check: &serde_json::Value) -> Vec<(u64, u64)> {
    let sources = check["documents"][0]["sources"].as_array().unwrap();
    let passages = sources.iter().flat_map(|d| d["passages"].as_array().unwrap());
    passages
        .map(|p| {
            let (offset, length) =
                (p["document"]["offset"].as_u64().unwrap(), p["document"]["length"].as_u64().unwrap());
            (offset, offset + length)
        })
        .collect()
}

/// The similarity table's rows, without the CSV header.
fn rows(table: &str) -> Vec<&str> {
    let mut rows: Vec<&str> = table.lines().skip(1).collect();
    rows.sort_unstable();
    rows
}

#[test]
fn a_template_in_every_document_makes_no_similarity_when_it_is_taboo_but_a_copy_beside_it_does() {
    let archive = Templated::new();
    let plain = archive.root.join("plain.idx");
    archive.create(&plain, &[]);
    let found = archive.check_json(&plain);
    assert_eq!(matched_names(&found).len(), 5, "without --taboo the template is shared with every document");
    let overlaps = |(start, end): (u64, u64), range: (u64, u64)| start < range.1 && range.0 < end;
    assert!(file_sides(&found).iter().any(|&side| overlaps(side, archive.template_range)), "{found}");
    assert_eq!(rows(&ok(run(&["similar", "--index", s(&plain)]))).len(), 5 * 4);

    let index = archive.root.join("taboo.idx");
    let summary = archive.create(&index, &["--taboo", s(&archive.template)]);
    assert!(summary.contains("taboo set of 116 chunks"), "{summary}");
    assert!(stat_line(&stats(&index), "taboo:").ends_with(&format!("116 chunks from {}", archive.template.display())));
    let found = archive.check_json(&index);
    assert_eq!(matched_names(&found), ["thesis-2.txt"], "{found}");
    let (template_start, template_end) = archive.template_range;
    assert_eq!(found["documents"][0]["taboo_chars"].as_u64(), Some(template_end - template_start));
    let sides = file_sides(&found);
    assert!(!sides.iter().any(|&side| overlaps(side, archive.template_range)), "template reported: {sides:?}");
    let (copy_start, copy_end) = archive.copy_range;
    assert!(sides.iter().any(|&(start, end)| start == copy_start && end == copy_end), "no copy: {sides:?}");
    // The copy's 146 chunks of the probe's 390 distinct ones that are not the
    // template's 116 (146 of 506 had the template counted).
    let file = &found["documents"][0];
    assert_eq!(
        (file["distinct_chunks"].as_u64(), file["sources"][0]["common_chunks"].as_u64()),
        (Some(390), Some(146))
    );
    assert_eq!(file["sources"][0]["document_in_source_percent"].as_f64(), Some(37.44));
    // Every check says how much it left out; `similar` finds nothing but the template.
    let output = run(&["check", "--index", s(&index), s(&archive.probe)]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let text = ok(output);
    let left_out = format!("{} characters of taboo text left out", template_end - template_start);
    assert!(text.lines().next().unwrap().contains(&left_out), "{text}");
    assert!(stderr.contains(&left_out), "{stderr}");
    assert!(rows(&ok(run(&["similar", "--index", s(&index)]))).is_empty());
    let out = archive.root.join("reports");
    ok(run(&["check", "--index", s(&index), "--format", "pan-xml", "--out", s(&out), s(&archive.probe)]));
    let report = crate::read_report(&out.join("new-thesis.xml"));
    let ranges: Vec<(u64, u64)> = report.features.iter().map(|f| f.this_range().unwrap()).collect();
    assert!(!ranges.is_empty() && !ranges.iter().any(|&r| overlaps(r, archive.template_range)), "{ranges:?}");
    ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
}

#[test]
fn update_keeps_the_taboo_set_and_taboo_or_no_taboo_replaces_it() {
    let archive = Templated::new();
    let index = archive.root.join("idx");
    archive.create(&index, &["--taboo", s(&archive.template)]);
    let template = fs::read_to_string(&archive.template).unwrap();
    write(&archive.docs.join("thesis-9.txt"), &format!("{template}{}", prose(1009, 200)));
    let summary = archive.update(&index, &[]);
    assert!(summary.contains("1 added") && !summary.contains("taboo set changed"), "{summary}");
    assert!(stat_line(&stats(&index), "taboo:").contains("116 chunks"));
    let with_taboo = archive.root.join("fresh-taboo.idx");
    archive.create(&with_taboo, &["--taboo", s(&archive.template)]);
    assert_eq!(archive.check_json(&index), archive.check_json(&with_taboo));
    assert_eq!(matched_names(&archive.check_json(&index)), ["thesis-2.txt"]);
    let similar = |idx: &Path, extra: &[&str]| ok(run(&[&["similar", "--index", s(idx)][..], extra].concat()));
    assert_eq!(similar(&index, &[]), similar(&with_taboo, &[]));

    // Removing the set brings the template's postings back, as a fresh create has them.
    let summary = archive.update(&index, &["--no-taboo"]);
    assert!(summary.contains("taboo set changed to 0 chunks, postings rebuilt"), "{summary}");
    assert_eq!(stat_line(&stats(&index), "taboo:"), "taboo:      none");
    let plain = archive.root.join("fresh-plain.idx");
    archive.create(&plain, &[]);
    assert_eq!(archive.check_json(&index), archive.check_json(&plain));
    let full = similar(&index, &[]);
    assert_eq!(full, similar(&plain, &[]));
    // Every row changed: the delta of --since-update is the whole table.
    assert_eq!(rows(&similar(&index, &["--since-update"])), rows(&full));
    assert_eq!(rows(&full).len(), 6 * 5);

    // --taboo replaces it again; the same set twice changes nothing.
    let summary = archive.update(&index, &["--taboo", s(&archive.template)]);
    assert!(summary.contains("taboo set changed to 116 chunks, postings rebuilt"), "{summary}");
    assert_eq!(archive.check_json(&index), archive.check_json(&with_taboo));
    assert!(archive.update(&index, &["--taboo", s(&archive.template)]).contains("up to date"));
    ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
}

#[test]
fn a_missing_taboo_file_is_a_one_line_error_naming_it() {
    let archive = Templated::new();
    let missing = archive.root.join("no-such-template.txt");
    let index = archive.root.join("idx");
    let needle = format!("{}: cannot use as taboo text", missing.display());
    fails_with(
        run(&["index", "create", "--docs", s(&archive.docs), "--index", s(&index), "--taboo", s(&missing)]),
        &needle,
    );
    assert!(!index.exists(), "nothing is created");
    archive.create(&index, &["--taboo", s(&archive.template)]);
    fails_with(
        run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index), "--taboo", s(&missing)]),
        &needle,
    );
    assert!(stat_line(&stats(&index), "index:").ends_with("(generation 1)"));
    let both = run(&[
        "index",
        "update",
        "--docs",
        s(&archive.docs),
        "--index",
        s(&index),
        "--taboo",
        s(&missing),
        "--no-taboo",
    ]);
    assert_eq!(both.status.code(), Some(2), "{}", String::from_utf8_lossy(&both.stderr));
}

#[test]
fn a_damaged_taboo_set_is_refused_naming_its_file() {
    let archive = Templated::new();
    let index = archive.root.join("idx");
    archive.create(&index, &["--taboo", s(&archive.template)]);
    let taboo = generation_dir(&index).join("taboo.bin");
    let mut bytes = fs::read(&taboo).unwrap();
    bytes[17] ^= 0x01;
    fs::write(&taboo, &bytes).unwrap();
    // Read whole and checked on opening: also without --verify.
    let message = format!("{}: checksum mismatch", taboo.display());
    fails_with(run(&["check", "--index", s(&index), s(&archive.probe)]), &message);
    fails_with(run(&["index", "stats", "--index", s(&index), "--verify"]), &message);
    fails_with(run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index)]), &message);
}

#[test]
fn an_index_of_an_older_format_is_refused_with_the_remedy() {
    let archive = Archive::new();
    // Version 7 kept the chunk lists, and version 8 hashed the candidate
    // chunks of a best index otherwise; a header without its checksum field
    // is read unchecked, as those of older builds are.
    for (preset, version, reads) in [("pan09", 7, "versions 8 to 10"), ("best", 8, "versions 9 to 10")] {
        let index = archive.index(&format!("idx-{preset}"));
        archive.create_with(&index, preset);
        let header = generation_dir(&index).join("header.json");
        let mut value: serde_json::Value = serde_json::from_str(&fs::read_to_string(&header).unwrap()).unwrap();
        value["format_version"] = version.into();
        value.as_object_mut().unwrap().remove("header_crc32");
        fs::write(&header, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        let message = format!(
            "index format version {version}, this pan-detect reads {reads} \
             (make the index again with `pan-detect index create`)"
        );
        fails_with(run(&["check", "--index", s(&index), s(&archive.probe)]), &message);
        fails_with(run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index)]), &message);
    }
}

#[test]
fn an_interleaved_index_finds_a_copy_whose_every_other_word_was_misread_and_keeps_its_hashing() {
    let dir = tempfile::tempdir().unwrap();
    let (docs, index, probe) = (dir.path().join("docs"), dir.path().join("idx"), dir.path().join("probe.txt"));
    fs::create_dir_all(&docs).unwrap();
    let passage = prose(12, 200).trim_end().to_string();
    write(&docs.join("source-a.txt"), &format!("{}{passage} {}", prose(11, 150), prose(13, 100)));
    write(&docs.join("unrelated.txt"), &prose(16, 300));
    write(&probe, &format!("{}{} {}", prose(14, 100), misread_every_other_word(&passage), prose(15, 100)));
    let create = ["index", "create", "--docs", s(&docs), "--index", s(&index), "--chunk-words", "4"];
    ok(run(&[&create[..], &["--hashing", "interleaved"]].concat()));
    assert!(stats(&index).contains("hashing=interleaved"), "{}", stats(&index));
    let check = |index: &Path| {
        let args = ["check", "--index", s(index), "--format", "json", "--min-common", "12", "--min-chunks", "12"];
        ok(run(&[&args[..], &[s(&probe)]].concat()))
    };
    let found = check(&index);
    assert!(found.contains("source-a.txt") && !found.contains("unrelated.txt"), "{found}");
    fails_with(
        run(&["check", "--index", s(&index), "--hashing", "contiguous", s(&probe)]),
        "--hashing contiguous differs from the index's interleaved",
    );
    // Contiguous chunks of the same length find nothing: every two neighbouring words hold a misread one.
    let contiguous = dir.path().join("contiguous");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&contiguous), "--chunk-words", "4"]));
    assert!(!check(&contiguous).contains("source-a.txt"));
}

#[test]
fn checking_a_missing_file_or_a_folder_fails_naming_it_before_any_report_is_written() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let missing = archive.root.join("upload/no-such-thesis.pdf");
    fails_with(
        run(&["check", "--index", s(&index), s(&archive.probe), s(&missing)]),
        &format!("{}: cannot check: ", missing.display()),
    );
    let out = archive.root.join("reports");
    fails_with(
        run(&["check", "--index", s(&index), "--format", "pan-xml", "--out", s(&out), s(&archive.probe), s(&missing)]),
        &format!("{}: cannot check: ", missing.display()),
    );
    assert!(fs::read_dir(&out).map_or(true, |mut entries| entries.next().is_none()), "no report is written");
    let folder = archive.root.join("upload");
    fails_with(
        run(&["check", "--index", s(&index), s(&folder)]),
        &format!("{}: cannot check: a folder, not a file", folder.display()),
    );
}

#[test]
fn check_text_output_opens_each_file_with_one_overall_line_computed_from_its_report() {
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    let json: serde_json::Value = serde_json::from_str(&archive.check_json(&index)).unwrap();
    let report = &json["documents"][0];
    let with_passages: Vec<&serde_json::Value> = report["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|source| !source["passages"].as_array().unwrap().is_empty())
        .collect();
    assert_eq!(with_passages.len(), 2, "the probe copies from two theses: {json}");
    let passages: usize = with_passages.iter().map(|source| source["passages"].as_array().unwrap().len()).sum();
    let common: u64 = with_passages.iter().map(|source| source["common_chunks"].as_u64().unwrap()).sum();
    let (aligned, chars) = (report["aligned_chars"].as_u64().unwrap(), report["chars"].as_u64().unwrap());
    assert_eq!(chars, char_len(&fs::read_to_string(&archive.probe).unwrap()));
    let share = 100.0 * aligned as f64 / chars as f64;
    let expected = format!(
        "{}: {share:.1} % of the file in {passages} passages from 2 sources ({common} common chunks)",
        archive.probe.display()
    );
    let text = ok(run(&["check", "--index", s(&index), s(&archive.probe)]));
    assert_eq!(text.lines().next(), Some(expected.as_str()), "{text}");
    // Two files: two overall lines, one at the top of each file's answer.
    let text = ok(run(&["check", "--index", s(&index), s(&archive.probe), s(&archive.docs.join("empty.txt"))]));
    let overall: Vec<&str> = text.lines().filter(|line| line.contains(" % of the file in ")).collect();
    assert_eq!(overall.len(), 2, "{text}");
    assert!(
        overall[1].ends_with("empty.txt: 0.0 % of the file in 0 passages from 0 sources (0 common chunks)"),
        "{text}"
    );
}
