//! Tests of the hostile inputs of issue 68: names XML cannot hold, per-pair
//! reports of one name, endless inputs, a text followed by a sparse hole, a
//! pairs file with a byte-order mark, ground truth without cases in --out
//! and a directory named like a document.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pan_detect::report::pan_xml::PanDocument;

use crate::{detect, detect_dirs, fixtures, path_str, run};

/// Copies fixture `kind` document `number` (`suspicious` or `source`) to `to`.
fn copy_fixture(kind: &str, number: u32, to: &Path) {
    let from = fixtures().join(format!("pan/{kind}-documents/{kind}-document{number:05}.txt"));
    fs::copy(from, to).unwrap();
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every `*.xml` in `dir` by name, each parsed (which refuses what XML forbids).
fn parsed_reports(dir: &Path) -> Vec<(String, PanDocument)> {
    let mut reports: Vec<(String, PanDocument)> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "xml"))
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            let document = PanDocument::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.file_name().unwrap().to_string_lossy().into_owned(), document)
        })
        .collect();
    reports.sort_by(|a, b| a.0.cmp(&b.0));
    reports
}

#[test]
fn a_name_holding_a_control_character_is_skipped_with_a_warning_by_detect() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    copy_fixture("source", 1, &src.join("source-document00001.txt"));
    copy_fixture("source", 1, &src.join("src\u{2}.txt"));
    copy_fixture("suspicious", 1, &susp.join("suspicious-document00001.txt"));
    copy_fixture("suspicious", 1, &susp.join("ctl\u{1}.txt"));
    let output = detect(&src, &susp, &out, &["--quiet"]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert!(message.contains("ctl\\u{1}.txt: name holds U+0001, a character XML reports cannot hold; skipped"));
    assert!(message.contains("src\\u{2}.txt: name holds U+0002"), "{message}");
    let reports = parsed_reports(&out);
    let names: Vec<&str> = reports.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["suspicious-document00001.xml"]);
    let sources: Vec<&str> = reports[0].1.features.iter().filter_map(|f| f.get("source_reference")).collect();
    assert!(!sources.is_empty() && sources.iter().all(|s| *s == "source-document00001.txt"), "{sources:?}");
}

#[test]
fn a_name_holding_a_control_character_is_skipped_by_index_create_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir_all(&docs).unwrap();
    copy_fixture("source", 1, &docs.join("source-document00001.txt"));
    copy_fixture("source", 1, &docs.join("src\u{2}.txt"));
    let index = dir.path().join("idx");
    let output = run(&["index", "create", "--docs", path_str(&docs), "--index", path_str(&index), "--quiet"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("src\\u{2}.txt: name holds U+0002"), "{}", stderr(&output));
    let checked = dir.path().join("ctl\u{1}.txt");
    copy_fixture("suspicious", 1, &checked);
    let plain = dir.path().join("plain.txt");
    copy_fixture("suspicious", 1, &plain);
    let out = dir.path().join("out");
    let output = run(&[
        "check",
        "--index",
        path_str(&index),
        "--format",
        "pan-xml",
        "--out",
        path_str(&out),
        path_str(&checked),
        path_str(&plain),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("ctl\\u{1}.txt: name holds U+0001"), "{}", stderr(&output));
    let names: Vec<String> = parsed_reports(&out).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["plain.xml"]);
}

#[test]
fn eval_skips_detection_files_holding_characters_xml_forbids() {
    let dir = tempfile::tempdir().unwrap();
    let (truth, detections) = (dir.path().join("truth"), dir.path().join("detections"));
    fs::create_dir_all(&truth).unwrap();
    fs::create_dir_all(&detections).unwrap();
    let document = |reference: &str, source: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<document reference=\"{reference}\">\n<feature \
             name=\"detected-plagiarism\" this_offset=\"0\" this_length=\"10\" source_reference=\"{source}\" \
             source_offset=\"0\" source_length=\"10\"/>\n</document>\n"
        )
    };
    fs::write(truth.join("s.xml"), document("s.txt", "r.txt").replace("detected-plagiarism", "plagiarism")).unwrap();
    fs::write(detections.join("raw.xml"), document("s\u{1}.txt", "r.txt")).unwrap();
    fs::write(detections.join("nul.xml"), document("s.txt", "r\0.txt")).unwrap();
    fs::write(detections.join("reference.xml"), document("s.txt", "r&#0;.txt")).unwrap();
    fs::write(detections.join("escaped.xml"), document("s.txt", "r&#1;.txt")).unwrap();
    let output = run(&["eval", "--truth", path_str(&truth), "--detections", path_str(&detections)]);
    let message = stderr(&output);
    for name in ["raw.xml", "nul.xml", "reference.xml", "escaped.xml"] {
        let line = message.lines().find(|line| line.contains(name)).unwrap_or_else(|| panic!("{name}: {message}"));
        assert!(line.contains("file skipped"), "{line}");
    }
}

#[test]
fn per_pair_reports_of_one_name_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    copy_fixture("source", 4, &src.join("c.txt"));
    copy_fixture("source", 4, &src.join("b-c.txt"));
    copy_fixture("suspicious", 6, &susp.join("a-b.txt"));
    copy_fixture("suspicious", 6, &susp.join("a.txt"));
    let pairs = dir.path().join("pairs");
    fs::write(&pairs, "a-b.txt c.txt\na.txt b-c.txt\n").unwrap();
    for flags in [&["--layout", "per-pair"][..], &["--layout", "per-pair", "--pairs", path_str(&pairs)]] {
        let output = detect(&src, &susp, &out, flags);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{flags:?}: {message}");
        assert_eq!(message.trim_end().lines().count(), 1, "{message}");
        assert!(
            message
                .contains("the pair (a-b.txt, c.txt) and the pair (a.txt, b-c.txt) would both be written as a-b-c.xml"),
            "{message}"
        );
        assert!(!out.exists() || fs::read_dir(&out).unwrap().next().is_none(), "{flags:?}: something was written");
    }
}

/// Runs pan-detect with `args` under a 4 GB address-space limit, killed after
/// `seconds`: an endless input must fail fast with bounded memory.
fn run_bounded(args: &[&str], seconds: u64) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4000000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pan-detect"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(seconds) {
            child.kill().unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (child.wait_with_output().unwrap(), started.elapsed())
}

#[test]
fn endless_pairs_and_synonyms_files_fail_fast_naming_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    copy_fixture("source", 1, &src.join("source-document00001.txt"));
    copy_fixture("suspicious", 1, &susp.join("suspicious-document00001.txt"));
    for flag in ["--pairs", "--synonyms"] {
        let args = ["detect", "--source-dir", path_str(&src), "--suspicious-dir", path_str(&susp)];
        let args = [&args[..], &["--out", path_str(&out), flag, "/dev/zero"]].concat();
        let (output, took) = run_bounded(&args, 30);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{flag}: {message}");
        assert!(message.starts_with("pan-detect: /dev/zero: "), "{flag}: {message}");
        assert!(message.contains("larger than 268435456 bytes"), "{flag}: {message}");
        assert!(took < Duration::from_secs(20), "{flag}: {took:?}");
    }
}

#[test]
fn eval_refuses_a_truth_file_larger_than_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth");
    fs::create_dir_all(&truth).unwrap();
    let huge = fs::File::create(truth.join("s.xml")).unwrap();
    huge.set_len(300 << 20).unwrap(); // sparse: no disk
    let (output, _) = run_bounded(&["eval", "--truth", path_str(&truth), "--detections", path_str(&truth)], 30);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.contains("s.xml: larger than 268435456 bytes"), "{message}");
}

#[test]
fn a_text_followed_by_a_sparse_hole_is_skipped_as_binary() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    copy_fixture("source", 1, &src.join("source-document00001.txt"));
    copy_fixture("suspicious", 1, &susp.join("suspicious-document00001.txt"));
    let text = crate::prose(7, 20_000);
    assert!(text.len() > 100_000);
    let hole = fs::File::create(susp.join("hole.txt")).unwrap();
    fs::write(susp.join("hole.txt"), &text).unwrap();
    hole.set_len(text.len() as u64 + (64 << 20)).unwrap();
    let output = detect(&src, &susp, &out, &["--quiet"]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    let warning = message.lines().find(|line| line.contains("hole.txt: ")).unwrap_or_else(|| panic!("{message}"));
    assert!(warning.contains("NUL bytes in the 65536 bytes from byte") && warning.ends_with("looks binary; skipped"));
    assert!(!out.join("hole.xml").exists());
}

#[test]
fn a_pairs_file_starting_with_a_byte_order_mark_is_read() {
    let pan = fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let pairs = dir.path().join("pairs");
    fs::write(&pairs, "\u{feff}suspicious-document00006.txt source-document00004.txt\r\n").unwrap();
    let out = dir.path().join("out");
    let flags = ["--pairs", path_str(&pairs), "--quiet"];
    let output = detect(&pan.join("source-documents"), &pan.join("suspicious-documents"), &out, &flags);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(out.join("suspicious-document00006.xml").exists());
    // A name that is not there is quoted with its invisible characters escaped.
    fs::write(&pairs, "suspicious-document00006.txt\u{200b} source-document00004.txt\n").unwrap();
    let output = detect(&pan.join("source-documents"), &pan.join("suspicious-documents"), &out, &flags);
    assert!(stderr(&output).contains("no document suspicious-document00006.txt\\u{200b} here"), "{}", stderr(&output));
}

#[test]
fn a_truth_file_without_cases_in_out_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    copy_fixture("source", 1, &src.join("source-document00001.txt"));
    copy_fixture("suspicious", 1, &susp.join("suspicious-document00001.txt"));
    fs::create_dir_all(&out).unwrap();
    let truth = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<document reference=\"suspicious-document00001.txt\">\n\
                 </document>\n";
    fs::write(out.join("suspicious-document00001.xml"), truth).unwrap();
    let output = detect(&src, &susp, &out, &["--quiet"]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.contains("suspicious-document00001.xml: exists and is not a pan-detect report"), "{message}");
    assert_eq!(fs::read_to_string(out.join("suspicious-document00001.xml")).unwrap(), truth);
    // A report pan-detect wrote is replaced.
    fs::remove_file(out.join("suspicious-document00001.xml")).unwrap();
    for _ in 0..2 {
        let output = detect(&src, &susp, &out, &["--quiet"]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
}

#[test]
fn a_directory_named_like_a_document_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    copy_fixture("source", 1, &src.join("source-document00001.txt"));
    copy_fixture("suspicious", 1, &susp.join("suspicious-document00001.txt"));
    fs::create_dir(susp.join("x.txt")).unwrap();
    let output = detect(&src, &susp, &out, &["--quiet"]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert!(message.contains("x.txt: a folder, skipped (use --recursive)"), "{message}");
}
