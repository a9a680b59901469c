//! An archive index made with `--preset best`: `check` aligns the candidate
//! documents as `detect --preset best` does.

use std::fs;
use std::path::{Path, PathBuf};

use crate::archive::{fails_with, ok, s, write};
use crate::{detect, files_of, fixtures, run};

/// The paths of the `.txt` files in `dir`, sorted.
pub(crate) fn text_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .map(|path| path.to_str().unwrap().to_string())
        .collect();
    files.sort();
    files
}

/// The fixture corpus `pan` with an index of its sources made with
/// `--preset best` in a temporary directory: (directory, sources,
/// suspicious documents, index).
pub(crate) fn pan_with_best_index() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let corpus = fixtures().join("pan");
    let (sources, suspicious) = (corpus.join("source-documents"), corpus.join("suspicious-documents"));
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    ok(run(&["index", "create", "--docs", s(&sources), "--index", s(&index), "--preset", "best", "--quiet"]));
    (dir, sources, suspicious, index)
}

/// The reports of `check` of every text file in `suspicious` against `index`,
/// and of `detect --preset best` of them against `sources`, by file name
/// (written under `dir`).
fn checked_and_detected(dir: &Path, sources: &Path, suspicious: &Path, index: &Path) -> [Reports; 2] {
    let checked = dir.join("checked");
    let files = text_files(suspicious);
    let mut args = vec!["check", "--index", s(index), "--format", "pan-xml", "--out", s(&checked)];
    args.extend(files.iter().map(String::as_str));
    ok(run(&args));
    assert_eq!(files_of(&checked).len(), files.len());
    let detected = dir.join("detected");
    let output = detect(sources, suspicious, &detected, &["--preset", "best", "--quiet"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    [files_of(&checked), files_of(&detected)]
}

/// Report bytes by file name.
type Reports = std::collections::BTreeMap<String, Vec<u8>>;

#[test]
fn check_with_a_best_index_reports_exactly_what_detect_best_reports() {
    let (dir, sources, suspicious, index) = pan_with_best_index();
    let [checked, detected] = checked_and_detected(dir.path(), &sources, &suspicious, &index);
    let features = detected.values().map(|xml| String::from_utf8_lossy(xml).matches("<feature").count()).sum::<usize>();
    assert!(features > 5, "the fixture corpus has cases: {features} passages");
    assert_eq!(checked, detected);
}

/// `check` seeks pair chunks as `detect` does: where a document shares two
/// candidate chunks with the file but no candidate region.
#[test]
fn check_finds_by_pair_chunks_what_detect_finds() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, _) = crate::align::pair_chunk_corpus(dir.path());
    let index = dir.path().join("idx");
    ok(run(&["index", "create", "--docs", s(&src), "--index", s(&index), "--preset", "best", "--quiet"]));
    let [checked, detected] = checked_and_detected(dir.path(), &src, &susp, &index);
    let report = String::from_utf8_lossy(&detected["suspicious.xml"]).to_string();
    assert_eq!(report.matches("<feature").count(), 1, "{report}");
    assert_eq!(checked, detected);
}

#[test]
fn a_best_index_finds_a_paraphrase_that_a_pan09_index_misses() {
    let align = fixtures().join("align");
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir_all(&docs).unwrap();
    fs::copy(align.join("original.txt"), docs.join("original.txt")).unwrap();
    let paraphrase = align.join("paraphrase.txt");
    let check = |preset: &str| -> serde_json::Value {
        let index = dir.path().join(format!("idx-{preset}"));
        ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--preset", preset, "--quiet"]));
        let json = ok(run(&["check", "--index", s(&index), "--format", "json", s(&paraphrase)]));
        serde_json::from_str(&json).unwrap()
    };
    let passages = |answer: &serde_json::Value| -> Vec<serde_json::Value> {
        let documents = answer["documents"][0]["sources"].as_array().unwrap().clone();
        documents.iter().flat_map(|d| d["passages"].as_array().unwrap().clone()).collect()
    };
    let best = check("best");
    let found = passages(&best);
    assert!(!found.is_empty(), "{best}");
    let source = &best["documents"][0]["sources"][0];
    assert_eq!(source["name"], "original.txt");
    // Both similarities: shared chunks and aligned characters.
    assert!(source["document_in_source_percent"].as_f64().unwrap() > 0.0, "{source}");
    let aligned = source["document_aligned_percent"].as_f64().unwrap();
    assert!(aligned > 30.0 && aligned <= 100.0, "{source}");
    assert!(source["source_aligned_percent"].as_f64().unwrap() > 30.0, "{source}");
    assert!(source["document_aligned_chars"].as_u64().unwrap() > 400, "{source}");
    let pan09 = check("pan09");
    assert!(passages(&pan09).is_empty(), "{pan09}");
}

#[test]
fn an_index_keeps_its_preset_through_updates() {
    let align = fixtures().join("align");
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir_all(&docs).unwrap();
    fs::copy(align.join("original.txt"), docs.join("original.txt")).unwrap();
    let index = dir.path().join("idx");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--preset", "best", "--quiet"]));
    let paraphrase = align.join("paraphrase.txt");
    let check = || ok(run(&["check", "--index", s(&index), "--format", "json", s(&paraphrase)]));
    let before = check();
    write(&docs.join("unrelated.txt"), &crate::prose(7, 300));
    ok(run(&["index", "update", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    assert_eq!(check(), before, "an unrelated document changes nothing");
    let fresh = dir.path().join("fresh");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&fresh), "--preset", "best", "--quiet"]));
    let fresh_answer = ok(run(&["check", "--index", s(&fresh), "--format", "json", s(&paraphrase)]));
    assert_eq!(check(), fresh_answer);
    fails_with(
        run(&["index", "update", "--docs", s(&docs), "--index", s(&index), "--preset", "pan09"]),
        "--preset pan09",
    );
}

/// Text in a made-up language whose function words (`function_words`, such
/// as "zeta" and "omon") are on no typed stop list: `prose` with one of them
/// after every third word.
fn text_with_function_words(seed: u64, words: usize, function_words: [&str; 2]) -> String {
    let prose = crate::prose(seed, words);
    let mut text = Vec::new();
    for (i, word) in prose.split(' ').enumerate() {
        text.push(word.to_string());
        if i % 3 == 2 {
            text.push(function_words[i % 2].to_string());
        }
    }
    text.join(" ")
}

#[test]
fn a_best_index_derives_the_collections_function_words_and_an_update_equals_a_fresh_create() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    for i in 0..12 {
        write(&docs.join(format!("doc-{i:02}.txt")), &text_with_function_words(100 + i, 400, ["zeta", "omon"]));
    }
    let index = dir.path().join("idx");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--preset", "best", "--quiet"]));
    let generation = crate::archive::generation_dir(&index);
    let header: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(generation.join("header.json")).unwrap()).unwrap();
    let words = header["settings"]["candidates"]["function_words"].as_array().unwrap();
    assert!(words.iter().any(|w| w == "zeta") && words.iter().any(|w| w == "omon"), "{header}");
    let stats = ok(run(&["index", "stats", "--index", s(&index)]));
    let line = stats.lines().find(|l| l.starts_with("function words: ")).expect("a function-words line");
    assert!(line.contains(" omon ") || line.ends_with(" omon"), "{line}");
    assert!(line.contains(&format!("{} derived from the documents", words.len())), "{line}");
    // A copy of half a document, its function words replaced, is still found.
    let copied = fs::read_to_string(docs.join("doc-03.txt")).unwrap();
    let probe = dir.path().join("probe.txt");
    let changed = copied.replace("zeta", "ipsa").replace("omon", "ulla");
    write(&probe, &format!("{} {}", crate::prose(7, 200), &changed[..changed.len() / 2]));
    let check = |index: &Path| ok(run(&["check", "--index", s(index), "--format", "json", s(&probe)]));
    let answer: serde_json::Value = serde_json::from_str(&check(&index)).unwrap();
    let sources = answer["documents"][0]["sources"].as_array().unwrap();
    let found = sources.iter().find(|d| d["name"] == "doc-03.txt").expect("the copied document");
    assert!(!found["passages"].as_array().unwrap().is_empty(), "{answer}");
    // Half the documents now use other function words: the update derives
    // "amba" too, analyses the unchanged documents again and gives what a
    // fresh create gives.
    for i in 12..20 {
        write(&docs.join(format!("doc-{i:02}.txt")), &text_with_function_words(100 + i, 400, ["amba", "ikko"]));
    }
    for i in [1, 5, 7, 9] {
        fs::remove_file(docs.join(format!("doc-{i:02}.txt"))).unwrap();
    }
    let updated = run(&["index", "update", "--docs", s(&docs), "--index", s(&index)]);
    let note = String::from_utf8_lossy(&updated.stderr).to_string();
    assert!(updated.status.success(), "{note}");
    assert!(note.contains("; 8 unchanged documents analysed again"), "{note}");
    let stats = ok(run(&["index", "stats", "--index", s(&index)]));
    assert!(stats.contains(" amba ") || stats.contains(" amba\n"), "{stats}");
    let fresh = dir.path().join("fresh");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&fresh), "--preset", "best", "--quiet"]));
    assert_eq!(check(&index), check(&fresh));
    let similar = |index: &Path| ok(run(&["similar", "--index", s(index), "--format", "csv"]));
    assert_eq!(similar(&index), similar(&fresh));
}
