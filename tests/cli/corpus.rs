//! Tests of `pan-detect corpus`: building, checking, determinism, the committed
//! fixture corpus, and errors on bad input.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::{copy_tree, files_under, fixtures, pan_detect, run};

/// Asserts that two directories hold the same files with the same bytes, naming
/// the first difference.
fn assert_same_tree(expected: &Path, got: &Path) {
    let (a, b) = (files_under(expected), files_under(got));
    let names_a: Vec<_> = a.keys().collect();
    let names_b: Vec<_> = b.keys().collect();
    assert_eq!(names_a, names_b, "file lists differ: expected {}, got {}", expected.display(), got.display());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{} differs between {} and {}", name.display(), expected.display(), got.display());
    }
}

fn texts() -> PathBuf {
    fixtures().join("texts")
}

/// Builds a small corpus (5 + 5 documents) from the fixture texts into `out`.
fn build_small(out: &Path, seed: &str) -> std::process::Output {
    build_small_with(out, seed, &[])
}

/// [`build_small`] with `extra` flags.
fn build_small_with(out: &Path, seed: &str, extra: &[&str]) -> std::process::Output {
    let texts = texts();
    let flags = ["--seed", seed, "--doc-chars", "3000..9000", "--sources", "5", "--suspicious", "5", "--quiet"];
    run(&[&["corpus", "--texts", texts.to_str().unwrap(), "--out", out.to_str().unwrap()], &flags[..], extra].concat())
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The characters `offset..offset+length` of `text` (offsets count Unicode scalar values).
fn chars(text: &str, offset: usize, length: usize) -> String {
    text.chars().skip(offset).take(length).collect()
}

/// The rows of `cases.tsv`, each keyed by column name.
fn cases(corpus: &Path) -> Vec<BTreeMap<String, String>> {
    let text = fs::read_to_string(corpus.join("cases.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines.map(|line| header.iter().map(|h| h.to_string()).zip(line.split('\t').map(str::to_string)).collect()).collect()
}

#[test]
fn builds_a_corpus_in_pan_layout_that_passes_its_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("corpus");
    let output = build_small(&out, "11");
    assert!(output.status.success(), "stderr: {}", stderr(&output));
    let summary = stdout(&output);
    assert_eq!(summary.lines().count(), 1, "{summary}");
    assert!(summary.contains("5 source + 5 suspicious documents"), "{summary}");
    assert!(summary.contains("check ok"), "{summary}");

    for name in ["README.txt", "pairs", "cases.tsv", "source-documents/source-document00005.txt"] {
        assert!(out.join(name).is_file(), "{name} missing");
    }
    for n in 1..=5 {
        for ext in ["txt", "xml"] {
            let name = format!("suspicious-documents/suspicious-document{n:05}.{ext}");
            assert!(out.join(&name).is_file(), "{name} missing");
        }
    }
    let readme = fs::read_to_string(out.join("README.txt")).unwrap();
    assert!(readme.contains("documents: 5 source"), "{readme}");
    assert!(readme.contains("case length histogram"), "{readme}");

    let check = run(&["corpus", "--check", out.to_str().unwrap()]);
    assert!(check.status.success(), "stderr: {}", stderr(&check));
    assert!(stdout(&check).contains(": ok: 5 source and 5 suspicious documents"), "{}", stdout(&check));
}

#[test]
fn same_seed_gives_a_byte_identical_corpus_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second, other) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"));
    assert!(build_small(&first, "5").status.success());
    let single_thread = pan_detect()
        .env("RAYON_NUM_THREADS", "1")
        .args(["corpus", "--texts", texts().to_str().unwrap(), "--out", second.to_str().unwrap()])
        .args(["--seed", "5", "--doc-chars", "3000..9000", "--sources", "5", "--suspicious", "5", "--quiet"])
        .output()
        .unwrap();
    assert!(single_thread.status.success(), "{}", stderr(&single_thread));
    assert_same_tree(&first, &second);

    assert!(build_small(&other, "6").status.success());
    assert_ne!(files_under(&first), files_under(&other), "a different seed should give a different corpus");
}

#[test]
fn target_size_recombines_sentences_when_the_texts_are_too_small() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big");
    let output = run(&[
        "corpus",
        "--texts",
        texts().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "2",
        "--doc-chars",
        "3k..20k",
        "--target-mb",
        "0.4",
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let readme = fs::read_to_string(out.join("README.txt")).unwrap();
    assert!(readme.contains("recombined from input sentences"), "{readme}");
    let bytes: usize = files_under(&out)
        .iter()
        .filter(|(name, _)| name.extension().is_some_and(|e| e == "txt") && name.components().count() == 2)
        .map(|(_, bytes)| bytes.len())
        .sum();
    assert!(bytes >= 400_000, "{bytes} bytes of documents");
}

/// Builds a small reuse-heavy corpus (a pool of 300 fixture sentences) into `out`.
fn build_reuse_heavy(out: &Path, pool: &str) -> std::process::Output {
    build_small_with(out, "4", &["--reuse-pool", pool])
}

#[test]
fn a_reuse_heavy_corpus_passes_its_check_and_its_documents_share_sentences() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reuse");
    let output = build_reuse_heavy(&out, "300");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("check ok"), "{}", stdout(&output));
    let check = run(&["corpus", "--check", out.to_str().unwrap()]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert!(stdout(&check).contains(": ok: 5 source and 5 suspicious documents"), "{}", stdout(&check));

    let readme = fs::read_to_string(out.join("README.txt")).unwrap();
    assert!(readme.contains("mode: reuse-heavy: every document drawn from one pool of 300 input sentences"));
    assert!(readme.contains("--reuse-pool 300\n"), "{readme}");
    assert!(readme.contains("documents per pool sentence: mean "), "{readme}");
    assert!(readme.contains("sentences two documents share: mean "), "{readme}");
    assert!(!cases(&out).is_empty(), "cases are planted as in every corpus");

    // A sentence of the first source document (5+ words) stands verbatim in another document.
    let corpus_files = files_under(&out);
    let documents: Vec<String> = corpus_files
        .iter()
        .filter(|(name, _)| name.extension().is_some_and(|e| e == "txt"))
        .map(|(_, bytes)| String::from_utf8(bytes.clone()).unwrap())
        .collect();
    let first = fs::read_to_string(out.join("source-documents/source-document00001.txt")).unwrap();
    let split = pan_detect::corpus_builder::texts::split_sentences(&first);
    let shared = split.sentences.iter().map(|s| &first[s.bytes.clone()]).find(|sentence| {
        sentence.split_whitespace().count() >= 5 && documents.iter().filter(|d| d.contains(sentence)).count() >= 2
    });
    assert!(shared.is_some(), "no sentence of source-document00001.txt is in another document");
}

#[test]
fn a_reuse_pool_larger_than_the_input_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reuse");
    let output = build_reuse_heavy(&out, "1000000");
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("--reuse-pool: a pool of 1000000 sentences is larger than the "), "{message}");
    assert!(!out.exists(), "nothing may be left when the pool is refused");

    // An output directory that existed (empty) is left empty: the build's files go,
    // INCOMPLETE with them.
    fs::create_dir(&out).unwrap();
    assert!(!build_reuse_heavy(&out, "1000000").status.success());
    assert!(files_under(&out).is_empty(), "{:?}", files_under(&out).keys().collect::<Vec<_>>());
    fs::remove_dir(&out).unwrap();

    let zero = build_reuse_heavy(&out, "0");
    assert_eq!(zero.status.code(), Some(1));
    assert!(stderr(&zero).contains("--reuse-pool: the pool must hold at least one sentence"), "{}", stderr(&zero));
}

/// The exact command of corpus-fixtures/README.md, writing to `out`.
fn fixture_command(out: &Path) -> std::process::Output {
    let root = fixtures();
    run(&[
        "corpus",
        "--texts",
        root.join("texts").to_str().unwrap(),
        "--synonyms",
        root.join("synonyms.txt").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "3",
        "--doc-chars",
        "3000..15000",
        "--sources",
        "8",
        "--suspicious",
        "8",
        "--quiet",
    ])
}

#[test]
fn the_committed_fixture_corpus_is_exactly_what_the_builder_makes() {
    let readme = fs::read_to_string(fixtures().join("README.md")).unwrap();
    assert!(
        readme.contains("--seed 3 --doc-chars 3000..15000 --sources 8 --suspicious 8"),
        "corpus-fixtures/README.md and this test must give the same command"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pan");
    let output = fixture_command(&out);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_same_tree(&fixtures().join("pan"), &out);
}

#[test]
fn the_fixture_holds_the_cases_the_detector_tests_need() {
    let corpus = fixtures().join("pan");
    let rows = cases(&corpus);
    let verbatim_60 = rows.iter().filter(|r| r["obfuscation"] == "none" && r["words"].parse::<usize>().unwrap() >= 60);
    assert!(verbatim_60.count() >= 3);
    assert!(rows.iter().filter(|r| r["obfuscation"] == "low").count() >= 3);
    assert!(rows.iter().any(|r| r["obfuscation"] == "high"));
    let mut multibyte = 0;
    for row in &rows {
        let suspicious = fs::read_to_string(corpus.join("suspicious-documents").join(&row["suspicious"])).unwrap();
        let source = fs::read_to_string(corpus.join("source-documents").join(&row["source_reference"])).unwrap();
        let number = |key: &str| row[key].parse::<usize>().unwrap();
        let this = chars(&suspicious, number("this_offset"), number("this_length"));
        let original = chars(&source, number("source_offset"), number("source_length"));
        assert_eq!(this.chars().count(), number("this_length"), "range past the end: {row:?}");
        assert_eq!(original.chars().count(), number("source_length"), "range past the end: {row:?}");
        if row["obfuscation"] == "none" {
            assert_eq!(this, original, "{row:?}");
        }
        if suspicious.len() != suspicious.chars().count() {
            multibyte += 1;
        }
    }
    assert!(multibyte >= 1, "no case in a document whose char offsets differ from byte offsets");
    let plagiarised: std::collections::BTreeSet<&String> = rows.iter().map(|r| &r["suspicious"]).collect();
    let suspicious = fs::read_dir(corpus.join("suspicious-documents"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "txt"))
        .count();
    assert!(plagiarised.len() < suspicious, "some suspicious documents must have no case");
}

#[test]
fn check_finds_a_verbatim_case_that_is_off_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("corpus");
    assert!(build_small(&out, "11").status.success());
    let row = cases(&out).into_iter().find(|r| r["obfuscation"] == "none").expect("a verbatim case");
    let xml_path = out.join("suspicious-documents").join(row["suspicious"].replace(".txt", ".xml"));
    let xml = fs::read_to_string(&xml_path).unwrap();
    let offset = format!("this_offset=\"{}\"", row["this_offset"]);
    let shifted = format!("this_offset=\"{}\"", row["this_offset"].parse::<usize>().unwrap() + 1);
    fs::write(&xml_path, xml.replacen(&offset, &shifted, 1)).unwrap();

    let check = run(&["corpus", "--check", out.to_str().unwrap()]);
    assert!(!check.status.success());
    let message = stderr(&check);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains(&row["suspicious"].replace(".txt", ".xml")), "{message}");
    assert!(message.contains("differs from"), "{message}");
}

#[test]
fn a_missing_text_directory_is_a_one_line_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-texts");
    let output = run(&[
        "corpus",
        "--texts",
        missing.to_str().unwrap(),
        "--out",
        dir.path().join("out").to_str().unwrap(),
        "--seed",
        "1",
    ]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains(missing.to_str().unwrap()), "{message}");
}

#[test]
fn bad_options_are_rejected_with_the_option_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let texts = texts();
    let base = ["corpus", "--texts", texts.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "1"];

    let reversed = run(&[&base[..], &["--doc-chars", "5000..3000"]].concat());
    assert!(!reversed.status.success());
    assert!(stderr(&reversed).contains("--doc-chars: MIN 5000 is larger than MAX 3000"), "{}", stderr(&reversed));

    let garbled = run(&[&base[..], &["--doc-chars", "lots"]].concat());
    assert!(!garbled.status.success());
    assert!(stderr(&garbled).contains("MIN..MAX"), "{}", stderr(&garbled));

    let fraction = run(&[&base[..], &["--plagiarised-fraction", "2"]].concat());
    assert!(!fraction.status.success());
    assert!(stderr(&fraction).contains("--plagiarised-fraction"), "{}", stderr(&fraction));

    let both = run(&[&base[..], &["--sources", "3", "--target-mb", "1"]].concat());
    assert!(!both.status.success(), "--sources and --target-mb conflict");
    assert!(!out.exists(), "nothing may be written when the options are bad");
}

#[test]
fn refuses_to_write_into_a_non_empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("precious.txt"), "keep me").unwrap();
    let output = build_small(dir.path(), "1");
    assert!(!output.status.success());
    assert!(stderr(&output).contains("not empty"), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(dir.path().join("precious.txt")).unwrap(), "keep me");
}

#[test]
fn a_text_that_is_not_utf8_is_named_and_leaves_no_partial_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let texts = dir.path().join("texts");
    fs::create_dir(&texts).unwrap();
    fs::copy(fixtures().join("texts/en-01-lighthouse-keepers.txt"), texts.join("a.txt")).unwrap();
    fs::write(texts.join("b.txt"), b"Valid start, then a Latin-1 byte: caf\xe9.").unwrap();
    let out = dir.path().join("out");
    let output = run(&[
        "corpus",
        "--texts",
        texts.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "1",
        "--doc-chars",
        "1000..2000",
    ]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    let expected = format!("{}: not valid UTF-8 at byte 37", texts.join("b.txt").display());
    assert!(message.contains(&expected), "{message}");
    assert!(!out.exists(), "the partial corpus should be removed");
}

#[test]
fn an_ocr_corpus_has_verbatim_and_ocr_noised_cases_that_pass_its_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ocr");
    let output = build_small_with(&out, "4", &["--obfuscation", "ocr"]);
    assert!(output.status.success(), "stderr: {}", stderr(&output));
    let cases = cases(&out);
    assert!(cases.len() >= 4, "{cases:?}");
    for case in &cases {
        let labels = (case["strategy"].as_str(), case["obfuscation"].as_str());
        assert!(matches!(labels, ("verbatim", "none") | ("ocr", "low" | "high")), "{case:?}");
    }
    assert!(cases.iter().any(|case| case["strategy"] == "ocr"));
    let readme = fs::read_to_string(out.join("README.txt")).unwrap();
    assert!(readme.contains("/ocr "), "{readme}");
    let check = run(&["corpus", "--check", out.to_str().unwrap()]);
    assert!(check.status.success(), "stderr: {}", stderr(&check));
}

#[test]
fn a_reorder_corpus_has_word_and_phrase_shuffled_cases_that_its_check_compares() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reorder");
    let output = build_small_with(&out, "4", &["--obfuscation", "reorder", "--plagiarised-fraction", "1"]);
    assert!(output.status.success(), "stderr: {}", stderr(&output));
    assert!(stdout(&output).contains(" cases (none "), "{}", stdout(&output));
    assert!(stdout(&output).contains(", phrase-shuffle "), "{}", stdout(&output));
    let cases = cases(&out);
    for case in &cases {
        let labels = (case["strategy"].as_str(), case["obfuscation"].as_str());
        assert!(
            matches!(
                labels,
                ("verbatim", "none") | ("word-shuffle", "word-shuffle") | ("phrase-shuffle", "phrase-shuffle")
            ),
            "{case:?}"
        );
    }
    let truth: String = (1..=5)
        .map(|n| fs::read_to_string(out.join(format!("suspicious-documents/suspicious-document{n:05}.xml"))).unwrap())
        .collect();
    for class in ["word-shuffle", "phrase-shuffle"] {
        assert!(truth.contains(&format!("obfuscation=\"{class}\"")), "no {class} case in the truth");
    }
    let readme = fs::read_to_string(out.join("README.txt")).unwrap();
    assert!(readme.contains("\n  word-shuffle "), "{readme}");
    let check = run(&["corpus", "--check", out.to_str().unwrap()]);
    assert!(check.status.success(), "stderr: {}", stderr(&check));
    let reordered = cases.iter().filter(|case| case["obfuscation"] != "none").count();
    assert!(stdout(&check).contains(&format!(" and {reordered} reordered compared")), "{}", stdout(&check));

    // A word-shuffled case that lost a letter is refused, named.
    let case = cases.iter().find(|case| case["obfuscation"] == "word-shuffle").unwrap();
    let path = out.join("suspicious-documents").join(&case["suspicious"]);
    let mut text: Vec<char> = fs::read_to_string(&path).unwrap().chars().collect();
    let offset: usize = case["this_offset"].parse().unwrap();
    let letter = (offset..).find(|&i| text[i].is_alphabetic()).unwrap();
    text[letter] = if text[letter] == 'x' { 'y' } else { 'x' };
    fs::write(&path, text.into_iter().collect::<String>()).unwrap();
    let check = run(&["corpus", "--check", out.to_str().unwrap()]);
    assert!(!check.status.success());
    let expected = format!("obfuscation=\"word-shuffle\" but the text at {offset}..");
    assert!(stderr(&check).contains(&expected), "{}", stderr(&check));
    assert!(stderr(&check).contains("does not hold the tokens of source-document"), "{}", stderr(&check));
}

/// Starts building a 30 MB corpus into `out` and kills it (SIGKILL) as soon as
/// `reached(out)` holds; panics when the build ends first (writing its truth
/// files takes it about a second here, time enough to kill it).
fn kill_build_when(out: &Path, reached: impl Fn(&Path) -> bool) {
    let mut child = pan_detect()
        .args(["corpus", "--texts", texts().to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--seed", "9", "--doc-chars", "3k..30k", "--target-mb", "30", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !reached(out) {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the build ended ({status}) before it could be killed");
        }
        assert!(started.elapsed().as_secs() < 120, "the build never reached the point");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Whether `dir` exists and holds a file ending in `suffix`.
fn holds_file_ending(dir: &Path, suffix: &str) -> bool {
    fs::read_dir(dir).is_ok_and(|mut entries| {
        entries.any(|entry| entry.is_ok_and(|entry| entry.file_name().to_string_lossy().ends_with(suffix)))
    })
}

/// Asserts that `corpus --check out` fails with one line that names `out`, says
/// the corpus is incomplete and contains `detail`.
fn assert_refused_as_incomplete(out: &Path, detail: &str) {
    let check = run(&["corpus", "--check", out.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(1), "stdout: {}", stdout(&check));
    let message = stderr(&check);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains(&format!("{}: incomplete corpus: its build did not finish", out.display())), "{message}");
    assert!(message.contains(detail), "{message}");
}

#[test]
fn a_build_killed_while_writing_documents_or_truth_is_refused_by_check() {
    let dir = tempfile::tempdir().unwrap();
    // Killed while cutting documents: no truth file yet.
    let documents = dir.path().join("documents");
    kill_build_when(&documents, |out| holds_file_ending(&out.join("source-documents"), ".txt"));
    assert!(documents.join("INCOMPLETE").is_file(), "the build marks its output until it is finished");
    assert_refused_as_incomplete(&documents, "(INCOMPLETE is still there); missing: cases.tsv, pairs, README.txt");

    // Killed while inserting cases and writing truth files.
    let truth = dir.path().join("truth");
    kill_build_when(&truth, |out| holds_file_ending(&out.join("suspicious-documents"), ".xml"));
    assert_refused_as_incomplete(&truth, "(INCOMPLETE is still there); missing: cases.tsv, pairs, README.txt");
}

#[test]
fn check_refuses_a_corpus_missing_files_that_its_build_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let complete = dir.path().join("complete");
    assert!(build_small(&complete, "11").status.success());
    assert!(!complete.join("INCOMPLETE").exists(), "a finished build removes its INCOMPLETE marker");
    let damaged = |name: &str, remove: &[&str]| {
        let corpus = dir.path().join(name);
        copy_tree(&complete, &corpus);
        for file in remove {
            fs::remove_file(corpus.join(file)).unwrap();
        }
        corpus
    };
    let assert_check_fails = |corpus: &Path, first_problem: &str| {
        let check = run(&["corpus", "--check", corpus.to_str().unwrap()]);
        assert_eq!(check.status.code(), Some(1), "stdout: {}", stdout(&check));
        let message = stderr(&check);
        assert_eq!(message.lines().count(), 1, "{message}");
        assert!(message.contains(&format!("{}: check failed", corpus.display())), "{message}");
        assert!(message.contains(&format!("first: {first_problem}")), "{message}");
    };

    // A build killed before README.txt, the file it writes last (an earlier
    // version, without the INCOMPLETE marker, leaves no other trace).
    let no_readme = damaged("no-readme", &["README.txt"]);
    assert_refused_as_incomplete(&no_readme, "(cases.tsv is there but not README.txt, which the build writes last)");
    let summaries = damaged("no-summaries", &["README.txt", "pairs"]);
    assert_refused_as_incomplete(&summaries, "missing: pairs, README.txt;");

    // A temporary file of an interrupted write.
    let temporary = damaged("temporary", &[]);
    fs::write(temporary.join("suspicious-documents/.suspicious-document00002.xml.4000000000.tmp"), "<doc").unwrap();
    assert_refused_as_incomplete(&temporary, "suspicious-documents/.suspicious-document00002.xml.4000000000.tmp");

    // Documents, truth or pairs lost after the build: README.txt's counts disagree.
    let lost_document = damaged(
        "lost-document",
        &["suspicious-documents/suspicious-document00003.txt", "suspicious-documents/suspicious-document00003.xml"],
    );
    assert_check_fails(&lost_document, "README.txt: lists 5 suspicious documents, suspicious-documents/ holds 4");
    let lost_source = damaged("lost-source", &["source-documents/source-document00005.txt"]);
    assert_check_fails(&lost_source, "README.txt: lists 5 source documents, source-documents/ holds 4");
    let lost_pairs = damaged("lost-pairs", &["pairs"]);
    assert_check_fails(&lost_pairs, "pairs: missing (README.txt lists ");

    // The complete corpus still passes.
    assert!(run(&["corpus", "--check", complete.to_str().unwrap()]).status.success());
}

/// Builds a small corpus from `texts` into `out`.
fn build_from(texts: &Path, out: &Path) -> std::process::Output {
    let flags = ["--seed", "1", "--doc-chars", "3000..9000", "--sources", "2", "--suspicious", "2", "--quiet"];
    run(&[&["corpus", "--texts", texts.to_str().unwrap(), "--out", out.to_str().unwrap()], &flags[..]].concat())
}

/// Asserts that a build failed with one line naming `out`, `relation` and `texts`.
fn assert_overlap_refused(output: &std::process::Output, out: &Path, relation: &str, texts: &Path) {
    assert_eq!(output.status.code(), Some(1), "stdout: {}", stdout(output));
    let message = stderr(output);
    assert_eq!(message.lines().count(), 1, "{message}");
    let expected = format!("--out {}: {relation} --texts {};", out.display(), texts.display());
    assert!(message.contains(&expected), "{message}");
}

#[test]
fn an_output_directory_overlapping_the_texts_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("texts");
    copy_tree(&texts(), &input);
    let before = files_under(&input);

    // The output inside a text directory (not yet there, two levels deep).
    let inside = input.join("corpus/new");
    assert_overlap_refused(&build_from(&input, &inside), &inside, "is inside", &input);
    // A text directory inside the output.
    assert_overlap_refused(&build_from(&input, dir.path()), dir.path(), "contains", &input);
    // Through a symbolic link (and `..`), both ways.
    #[cfg(unix)]
    {
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let through_link = link.join("x/../corpus");
        assert_overlap_refused(&build_from(&input, &through_link), &through_link, "is inside", &input);
        assert_overlap_refused(&build_from(&link, &input), &input, "is the same directory as", &link);
    }
    assert_eq!(files_under(&input), before, "nothing may be written into the texts");

    // A sibling whose name starts with the texts' name is no overlap.
    let sibling = dir.path().join("texts-corpus");
    let output = build_from(&input, &sibling);
    assert!(output.status.success(), "{}", stderr(&output));
}
