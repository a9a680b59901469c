//! Closed pipes: a reader that went away (`| head -1`) never makes a run panic or lose its results.

use std::fs;
use std::io::PipeWriter;
use std::path::Path;
use std::process::{Output, Stdio};

use crate::{pan_detect, path_str, prose};

/// The write end of a pipe whose read end is already closed: every write to it
/// fails with a broken pipe.
fn closed_pipe() -> PipeWriter {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    writer
}

/// Runs `pan-detect args` with stdout and stderr as given; returns its output
/// (the streams given as pipes are not captured).
fn run_with(args: &[&str], stdout: impl Into<Stdio>, stderr: impl Into<Stdio>) -> Output {
    pan_detect().args(args).stdout(stdout).stderr(stderr).output().expect("pan-detect could not be started")
}

/// A source, a suspicious text copying from it, and a binary file, whose
/// warning is written to stderr while the documents are read.
fn corpus(root: &Path) {
    for (name, text) in [
        ("src/a.txt", prose(1, 300)),
        ("susp/b.txt", format!("{}{}", prose(2, 50), prose(1, 200))),
        ("susp/binary.txt", "\0binary".to_string()),
    ] {
        let path = root.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

fn assert_no_panic(output: &Output, what: &str) {
    assert_ne!(output.status.code(), Some(101), "{what} panicked: {}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{what}: {:?} {}", output.status, String::from_utf8_lossy(&output.stderr));
}

#[test]
fn detect_with_a_closed_stderr_writes_every_report() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let (src, susp) = (dir.path().join("src"), dir.path().join("susp"));
    for (i, closed_stdout) in [false, true].into_iter().enumerate() {
        let out = dir.path().join(format!("out{i}"));
        let args =
            ["detect", "--source-dir", path_str(&src), "--suspicious-dir", path_str(&susp), "--out", path_str(&out)];
        let stdout = if closed_stdout { Stdio::from(closed_pipe()) } else { Stdio::null() };
        let output = run_with(&args, stdout, closed_pipe());
        assert_no_panic(&output, "detect");
        let report = fs::read_to_string(out.join("b.xml")).expect("the report is written");
        assert!(report.contains("detected-plagiarism"), "{report}");
    }
}

#[test]
fn check_and_stats_with_closed_pipes_succeed() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let (docs, index) = (dir.path().join("susp"), dir.path().join("idx"));
    let create = ["index", "create", "--docs", path_str(&docs), "--index", path_str(&index)];
    assert_no_panic(&run_with(&create, Stdio::null(), closed_pipe()), "index create");
    // The binary file is skipped with a warning on the closed stderr.
    let (binary, src) = (dir.path().join("susp/binary.txt"), dir.path().join("src/a.txt"));
    let check = ["check", "--index", path_str(&index), path_str(&binary), path_str(&src)];
    let output = run_with(&check, Stdio::piped(), closed_pipe());
    assert_no_panic(&output, "check with a closed stderr");
    assert!(String::from_utf8_lossy(&output.stdout).contains("b.txt"), "the answer is still written");
    assert_no_panic(&run_with(&check, closed_pipe(), closed_pipe()), "check with closed stdout and stderr");
    let stats = ["index", "stats", "--index", path_str(&index)];
    assert_no_panic(&run_with(&stats, closed_pipe(), Stdio::piped()), "index stats with a closed stdout");
}
