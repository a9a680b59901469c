//! Bad input: one-line errors naming the path, non-zero exit, warnings for bad files, never a panic.

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::run;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts a failed run with exactly one line on stderr that contains `needle`.
fn assert_one_line_error(output: &Output, needle: &str) {
    let message = stderr(output);
    assert!(!output.status.success(), "expected failure, stderr: {message}");
    assert_eq!(message.lines().count(), 1, "expected one line, got: {message}");
    assert!(message.contains(needle), "expected {needle:?} in: {message}");
    assert!(!message.contains("panicked"), "{message}");
}

fn write(path: &Path, content: impl AsRef<[u8]>) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// A corpus with one source and one suspicious text.
fn small_corpus(root: &Path) -> (String, String) {
    write(&root.join("src/a.txt"), "some source text");
    write(&root.join("susp/b.txt"), "some suspicious text");
    (root.join("src").display().to_string(), root.join("susp").display().to_string())
}

#[test]
fn missing_directory_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (_, susp) = small_corpus(dir.path());
    let missing = dir.path().join("nope").display().to_string();
    let out = dir.path().join("out").display().to_string();
    let output = run(&["--source-dir", &missing, "--suspicious-dir", &susp, "--out", &out]);
    assert_one_line_error(&output, &format!("{missing}: no such directory"));
}

#[test]
fn directory_without_text_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (src, _) = small_corpus(dir.path());
    write(&dir.path().join("empty/readme.xml"), "<x/>");
    let empty = dir.path().join("empty").display().to_string();
    let out = dir.path().join("out").display().to_string();
    let output = run(&["detect", "--source-dir", &src, "--suspicious-dir", &empty, "--out", &out]);
    assert_one_line_error(&output, "no *.txt files");
}

#[test]
fn output_path_that_is_a_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    write(&dir.path().join("out"), "I am a file");
    let out = dir.path().join("out").display().to_string();
    let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", &out]);
    assert_one_line_error(&output, "output path exists and is not a directory");
    assert_eq!(fs::read_to_string(dir.path().join("out")).unwrap(), "I am a file");
}

#[test]
fn flag_values_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    let out = dir.path().join("out").display().to_string();
    let best = ["--source-dir", src.as_str(), "--suspicious-dir", susp.as_str(), "--out", out.as_str()];
    let base = [&best[..], &["--preset", "pan09"]].concat();
    // pan09's values out of range, and best's that would silently find nothing, or mean nothing.
    for (flags, flag, value, needle) in [
        (&base[..], "--hash-bits", "20", "--hash-bits 20 is out of range (expected 24..=64)"),
        (&base[..], "--chunk-words", "0", "--chunk-words 0 is out of range"),
        (&base[..], "--depth", "0", "--depth 0 is out of range"),
        (&base[..], "--threads", "0", "--threads 0 is out of range"),
        (&best[..], "--candidate-max-postings", "0", "--candidate-max-postings 0 is out of range (expected 1..="),
        (&best[..], "--candidate-hits-per-chunk", "0", "--candidate-hits-per-chunk 0 is out of range (expected 1..="),
        (
            &best[..],
            "--merge-gap-ratio",
            "nan",
            "--merge-gap-ratio NaN is out of range (expected a finite number of at least 0)",
        ),
        (&best[..], "--merge-gap-ratio", "-1", "--merge-gap-ratio -1 is out of range"),
    ] {
        let args = [flags, &[flag, value][..]].concat();
        assert_one_line_error(&run(&args), needle);
    }
    let mut args = base.to_vec();
    args.extend(["--min-chunks", "-3"]);
    let output = run(&args);
    assert!(!output.status.success());
    assert!(!stderr(&output).contains("panicked"));
    assert!(!dir.path().join("out").exists(), "nothing is written when the flags are wrong");
    let guide = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/detect.md")).unwrap();
    assert!(guide.contains("usage hint and exit status 2"), "the guide's Bad input section states the rule");
}

#[test]
fn bad_files_warn_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    write(&dir.path().join("susp/latin1.txt"), b"caf\xe9 au lait");
    write(&dir.path().join("susp/binary.txt"), b"\x7fELF\0\0\0binary");
    write(&dir.path().join("susp/empty.txt"), b"");
    let out = dir.path().join("out");
    let out_arg = out.display().to_string();
    let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", &out_arg]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert!(message.contains("latin1.txt: not UTF-8: decoded as windows-1252 (guessed from its bytes)"), "{message}");
    assert!(message.contains("binary.txt: 3 NUL bytes in the first 13 bytes, looks binary; skipped"), "{message}");
    assert!(out.join("latin1.xml").exists() && out.join("empty.xml").exists() && out.join("b.xml").exists());
    assert!(!out.join("binary.xml").exists());
    let empty = fs::read_to_string(out.join("empty.xml")).unwrap();
    assert!(empty.contains("<document reference=\"empty.txt\"/>"), "{empty}");
}

#[test]
fn rerun_replaces_only_its_own_reports() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    let out = dir.path().join("out");
    write(&out.join("notes.txt"), "keep me");
    // A report of an earlier run, with a detection this run does not make.
    let earlier = "<document reference=\"b.txt\">\n<feature name=\"detected-plagiarism\" this_offset=\"0\" \
                   this_length=\"4\" source_reference=\"a.txt\" source_offset=\"0\" source_length=\"4\"/>\n</document>\n";
    write(&out.join("b.xml"), earlier);
    let out_arg = out.display().to_string();
    for _ in 0..2 {
        let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", &out_arg]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    assert_eq!(fs::read_to_string(out.join("notes.txt")).unwrap(), "keep me");
    let report = fs::read_to_string(out.join("b.xml")).unwrap();
    assert!(report.starts_with("<?xml") && !report.contains("feature"), "{report}");
    let names: Vec<_> = fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names.len(), 2, "no temporary files are left behind: {names:?}");
}

#[test]
fn an_os_error_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing-pairs").display().to_string();
    let truth = crate::fixtures().join("pan/suspicious-documents").display().to_string();
    let output = run(&["eval", "--truth", &truth, "--detections", &truth, "--pairs", &missing]);
    assert_one_line_error(&output, &format!("{missing}: "));
    assert_eq!(stderr(&output).matches("os error").count(), 1, "{}", stderr(&output));
}

#[test]
fn detect_and_the_archive_follow_links_to_files_and_name_broken_ones() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    write(&dir.path().join("elsewhere/linked.txt"), "some linked text");
    symlink(dir.path().join("elsewhere/linked.txt"), dir.path().join("susp/link.txt")).unwrap();
    symlink(dir.path().join("elsewhere/gone.txt"), dir.path().join("susp/broken.txt")).unwrap();
    let out = dir.path().join("out");
    let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", out.to_str().unwrap()]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert!(out.join("link.xml").exists() && out.join("b.xml").exists(), "{message}");
    let broken = format!("{susp}/broken.txt: broken symbolic link");
    assert!(message.starts_with(&format!("pan-detect: warning: {broken}")), "{message}");
    assert_eq!(message.lines().count(), 2, "the warning and the summary: {message}");

    let index = dir.path().join("idx").display().to_string();
    let output = run(&["index", "create", "--docs", &susp, "--index", &index]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert!(message.contains(&broken) && message.contains("indexed 2 documents"), "{message}");
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

const GROUND_TRUTH: &str = "<document reference=\"b.txt\">\n<feature name=\"plagiarism\" this_offset=\"0\" \
                            this_length=\"4\" source_reference=\"a.txt\" source_offset=\"0\" source_length=\"4\"/>\n</document>\n";

#[test]
fn out_that_is_an_input_directory_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    write(&dir.path().join("susp/b.xml"), GROUND_TRUTH);
    for out in [susp.clone(), format!("{src}/../src")] {
        let (before_src, before_susp) = (listing(Path::new(&src)), listing(Path::new(&susp)));
        let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", &out]);
        assert_one_line_error(&output, &format!("{out}: --out is the input directory"));
        assert_eq!(output.status.code(), Some(1));
        assert_eq!((listing(Path::new(&src)), listing(Path::new(&susp))), (before_src, before_susp));
    }
    assert_eq!(fs::read_to_string(dir.path().join("susp/b.xml")).unwrap(), GROUND_TRUTH);
}

#[test]
fn a_file_that_is_not_a_report_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    write(&dir.path().join("susp/c.txt"), "another suspicious text");
    let out = dir.path().join("out");
    for (content, reason) in [(GROUND_TRUTH, "it holds a 'plagiarism' feature"), ("my notes", "not PAN XML")] {
        write(&out.join("b.xml"), content);
        let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", out.to_str().unwrap()]);
        assert_one_line_error(
            &output,
            &format!("{}: exists and is not a pan-detect report ({reason}", out.join("b.xml").display()),
        );
        assert_eq!(fs::read_to_string(out.join("b.xml")).unwrap(), content);
        assert_eq!(listing(&out), ["b.xml"], "nothing else is written either");
    }
}

#[test]
fn an_out_that_takes_no_files_is_refused_before_the_documents_are_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    // A binary source: its warning would show that the sources were read.
    write(&dir.path().join("src/binary.txt"), b"\0binary");
    let read_only = dir.path().join("read-only");
    fs::create_dir(&read_only).unwrap();
    fs::set_permissions(&read_only, fs::Permissions::from_mode(0o555)).unwrap();
    // Root writes through permissions; sysfs refuses new files even to root.
    let is_root = fs::File::create(read_only.join("probe")).is_ok();
    let out = if is_root { Path::new("/sys/kernel").to_path_buf() } else { read_only.clone() };
    if !out.is_dir() {
        return; // No sysfs (not Linux): nothing that refuses root's writes.
    }
    let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", out.to_str().unwrap()]);
    assert_one_line_error(&output, &format!("{}: cannot write into the output directory", out.display()));
    fs::set_permissions(&read_only, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn temporary_reports_of_a_killed_run_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    let out = dir.path().join("out");
    // No process id reaches 99999999 (Linux stops at 2^22).
    write(&out.join(".b.xml.99999999.tmp"), "<document reference=\"b.txt\">");
    write(&out.join(".notes.txt.99999999.tmp"), "not a report's");
    let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", out.to_str().unwrap()]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    let removed = out.join(".b.xml.99999999.tmp").display().to_string();
    assert!(
        message.starts_with(&format!(
            "pan-detect: warning: {removed}: left by pan-detect process 99999999, which did not finish; removed"
        )),
        "{message}"
    );
    assert_eq!(listing(&out), [".notes.txt.99999999.tmp", "b.xml"]);
}

#[test]
fn too_many_threads_are_lowered_to_four_per_core_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    let out = dir.path().join("out").display().to_string();
    let cores = std::thread::available_parallelism().unwrap().get();
    let asked = (4 * cores + 1).to_string();
    let output = run(&["--source-dir", &src, "--suspicious-dir", &susp, "--out", &out, "--threads", &asked]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    let expected =
        format!("pan-detect: warning: --threads {asked} is more than 4 × the {cores} cores; using {}\n", 4 * cores);
    assert!(message.starts_with(&expected), "{message}");
    assert!(dir.path().join("out/b.xml").exists());
}

/// The last line of a run's stderr.
fn last_line(output: &Output) -> String {
    stderr(output).lines().last().unwrap_or_default().to_string()
}

#[test]
fn strict_turns_a_skipped_file_into_a_failure_after_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    write(&dir.path().join("susp/binary.txt"), b"\0binary");
    let out = dir.path().join("out").display().to_string();
    let detect = ["--source-dir", src.as_str(), "--suspicious-dir", susp.as_str(), "--out", out.as_str()];
    let output = run(&detect);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(last_line(&output).contains("(0.0 MB), 1 file skipped,"), "{}", stderr(&output));
    let output = run(&[&detect[..], &["--strict"]].concat());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let failure = "pan-detect: 1 file skipped (named above); failing because of --strict";
    assert_eq!(last_line(&output), failure);
    assert!(
        stderr(&output).contains("binary.txt: 1 NUL byte in the first 7 bytes, looks binary"),
        "{}",
        stderr(&output)
    );
    assert!(dir.path().join("out/b.xml").exists(), "the reports are written all the same");

    let index = dir.path().join("idx").display().to_string();
    for command in ["create", "update"] {
        let output = run(&["index", command, "--docs", &susp, "--index", &index, "--strict"]);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert_eq!(last_line(&output), failure);
    }
}

/// An entry skipped while listing a directory (here a broken link) is a
/// skipped file too: `--strict` fails on it in every command that lists.
#[test]
fn strict_counts_the_entries_a_listing_skips() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    std::os::unix::fs::symlink(dir.path().join("gone.txt"), dir.path().join("susp/broken.txt")).unwrap();
    let out = dir.path().join("out").display().to_string();
    let detect = ["--source-dir", src.as_str(), "--suspicious-dir", susp.as_str(), "--out", out.as_str()];
    let output = run(&detect);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(last_line(&output).contains(", 1 file skipped,"), "{}", stderr(&output));
    let failure = "pan-detect: 1 file skipped (named above); failing because of --strict";
    let index = dir.path().join("idx").display().to_string();
    let extracted = dir.path().join("extracted").display().to_string();
    for command in [
        &detect[..],
        &["extract", "--docs", &susp, "--out", &extracted],
        &["index", "create", "--docs", &susp, "--index", &index],
        &["index", "update", "--docs", &susp, "--index", &index],
    ] {
        let output = run(&[command, &["--strict"]].concat());
        assert_eq!(output.status.code(), Some(1), "{command:?}: {}", stderr(&output));
        assert_eq!(last_line(&output), failure, "{command:?}");
        assert!(stderr(&output).contains("broken.txt: broken symbolic link"), "{}", stderr(&output));
    }
}

#[test]
fn index_update_from_an_empty_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (src, _) = small_corpus(dir.path());
    let index = dir.path().join("idx").display().to_string();
    assert!(run(&["index", "create", "--docs", &src, "--index", &index]).status.success());
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let output = run(&["index", "update", "--docs", empty.to_str().unwrap(), "--index", &index]);
    assert_eq!(output.status.code(), Some(1));
    let expected = format!(
        "pan-detect: index update stopped: {}: no documents here; refusing to remove every document",
        empty.display()
    );
    assert!(stderr(&output).starts_with(&expected) && stderr(&output).lines().count() == 1, "{}", stderr(&output));
    let output = run(&["index", "update", "--docs", &src, "--index", &index]);
    assert!(output.status.success(), "the index is intact: {}", stderr(&output));
}

#[test]
fn check_skips_a_bad_file_and_checks_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let (src, _) = small_corpus(dir.path());
    let index = dir.path().join("idx").display().to_string();
    assert!(run(&["index", "create", "--docs", &src, "--index", &index]).status.success());
    write(&dir.path().join("binary.txt"), b"\0binary");
    // A broken link is there but cannot be read: skipped, as a listing skips it
    // (a path with nothing there is an error: checking_a_missing_file_... in archive.rs).
    let (binary, missing) = (dir.path().join("binary.txt"), dir.path().join("broken-link.txt"));
    std::os::unix::fs::symlink(dir.path().join("missing.txt"), &missing).unwrap();
    let good = dir.path().join("src/a.txt");
    let files = [binary.to_str().unwrap(), good.to_str().unwrap(), missing.to_str().unwrap()];
    let check = [&["check", "--index", index.as_str()][..], &files].concat();
    let output = run(&check);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{message}");
    assert!(String::from_utf8_lossy(&output.stdout).contains(&format!("{}: ", good.display())), "checked");
    assert!(message.contains(&format!("{}: 1 NUL byte in the first 7 bytes", binary.display())), "{message}");
    assert!(message.contains(&format!("{}: cannot read: ", missing.display())), "{message}");
    assert_eq!(last_line(&output), "pan-detect: 1 of 3 files checked, 2 skipped");
    let output = run(&[&check[..], &["--strict"]].concat());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(last_line(&output), "pan-detect: 2 files skipped (named above); failing because of --strict");
}

#[test]
fn exit_status_is_2_for_what_the_parser_rejects_and_1_for_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = small_corpus(dir.path());
    let out = dir.path().join("out").display().to_string();
    let base = ["--source-dir", src.as_str(), "--suspicious-dir", susp.as_str(), "--out", out.as_str()];
    for (extra, status, needle) in [
        (&["--seed-cosine", "2"][..], 2, "'--seed-cosine <X>'"),
        (&["--min-chunks", "many"], 2, "'--min-chunks <N>'"),
        (&["--preset", "pan10"], 2, "'--preset <PRESET>'"),
        (&["--no-such-flag"], 2, "'--no-such-flag'"),
        (&["--hash-bits", "20"], 1, "--hash-bits 20 is out of range"),
        (&["--threads", "0"], 1, "--threads 0 is out of range"),
        // A negative number is a value of its flag, not an unknown argument.
        (&["--threads", "-1"], 2, "invalid value '-1' for '--threads <N>'"),
        (&["--seed-cosine", "-0.1"], 2, "invalid value '-0.1' for '--seed-cosine <X>'"),
    ] {
        let output = run(&[&base[..], extra].concat());
        assert_eq!(output.status.code(), Some(status), "{extra:?}: {}", stderr(&output));
        assert!(stderr(&output).contains(needle), "{extra:?}: {}", stderr(&output));
    }
    let output = run(&["eval", "--truth", &susp, "--detections", &susp, "--case-threshold", "1.5"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let output = run(&["detect", "--source-dir", &src, "--suspicious-dir", &susp]);
    assert_eq!(output.status.code(), Some(2), "a missing --out: {}", stderr(&output));
    assert!(!dir.path().join("out").exists(), "nothing is written when the flags are wrong");
    let guide = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/detect.md")).unwrap();
    assert!(guide.contains("usage hint and exit status 2"), "the guide's Bad input section states the rule");
}
