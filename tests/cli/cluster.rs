//! Detection over several worker threads and processes (timely dataflow, on
//! loopback ports): the reports equal the one-process run's byte for byte, and
//! a process that cannot reach the others says which one and stops.

use std::fs;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output};

use crate::{detect, files_of, fixtures, pan_detect, path_str};

/// A hostfile of `processes` loopback ports that were free a moment ago.
pub fn hostfile(dir: &Path, processes: usize) -> std::path::PathBuf {
    let listeners: Vec<TcpListener> = (0..processes).map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    let lines: Vec<String> =
        listeners.iter().map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port())).collect();
    let path = dir.join(format!("hosts-{processes}"));
    fs::write(&path, lines.concat()).unwrap();
    path
}

/// The command of process `process` of a run described by `hostfile`, with
/// `workers` per process, detecting over the fixture corpus `corpus` into `out`.
pub fn process_command(
    corpus: &Path,
    out: &Path,
    hostfile: &Path,
    process: usize,
    workers: usize,
    extra: &[&str],
) -> Command {
    let (sources, suspicious) = (corpus.join("source-documents"), corpus.join("suspicious-documents"));
    let (process, workers) = (process.to_string(), workers.to_string());
    let args = [
        "detect",
        "--source-dir",
        path_str(&sources),
        "--suspicious-dir",
        path_str(&suspicious),
        "--out",
        path_str(out),
        "--hostfile",
        path_str(hostfile),
        "--process",
        &process,
        "--workers",
        &workers,
        "--connect-timeout",
        "30",
    ];
    let mut command = pan_detect();
    command.args(args).args(extra).stderr(std::process::Stdio::piped());
    command
}

/// Runs `processes` processes of `workers` workers each and waits for them.
fn run_cluster(corpus: &Path, out: &Path, processes: usize, workers: usize, extra: &[&str]) -> Vec<Output> {
    let hosts = hostfile(out.parent().unwrap(), processes);
    let children: Vec<Child> =
        (0..processes).map(|i| process_command(corpus, out, &hosts, i, workers, extra).spawn().unwrap()).collect();
    children.into_iter().map(|child| child.wait_with_output().unwrap()).collect()
}

/// Asserts that every process of a run succeeded.
fn all_succeeded(outputs: &[Output], what: &str) {
    for (i, output) in outputs.iter().enumerate() {
        assert!(output.status.success(), "{what}, process {i}: {}", String::from_utf8_lossy(&output.stderr));
    }
}

#[test]
fn reports_are_the_same_on_any_number_of_workers_and_processes() {
    let corpus = fixtures().join("pan");
    let tmp = tempfile::tempdir().unwrap();
    for preset in ["pan09", "best"] {
        let one = tmp.path().join(format!("{preset}-one"));
        let output =
            detect(&corpus.join("source-documents"), &corpus.join("suspicious-documents"), &one, &["--preset", preset]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let expected = files_of(&one);
        assert!(
            expected.values().any(|xml| String::from_utf8_lossy(xml).contains("<feature")),
            "the fixture has cases"
        );
        for (processes, workers) in [(1, 1), (1, 4), (2, 2), (4, 1)] {
            let what = format!("{preset}, {processes} x {workers}");
            let out = tmp.path().join(format!("{preset}-{processes}x{workers}"));
            all_succeeded(&run_cluster(&corpus, &out, processes, workers, &["--preset", preset]), &what);
            assert!(files_of(&out) == expected, "{what}: the reports differ from the one-process run's");
        }
    }
}

#[test]
fn pairs_given_are_reported_per_pair_alike() {
    let corpus = fixtures().join("pan");
    let tmp = tempfile::tempdir().unwrap();
    let pairs = corpus.join("pairs");
    let extra = ["--pairs", path_str(&pairs), "--layout", "per-pair"];
    let one = tmp.path().join("one");
    let output = detect(&corpus.join("source-documents"), &corpus.join("suspicious-documents"), &one, &extra);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let out = tmp.path().join("three");
    all_succeeded(&run_cluster(&corpus, &out, 3, 1, &extra), "3 x 1 with --pairs");
    assert!(files_of(&out) == files_of(&one));
}

#[test]
fn a_process_that_never_connects_is_named_in_one_line() {
    let corpus = fixtures().join("pan");
    let tmp = tempfile::tempdir().unwrap();
    let hosts = hostfile(tmp.path(), 2);
    let port = fs::read_to_string(&hosts).unwrap().lines().nth(1).unwrap().to_string();
    let out = tmp.path().join("out");
    // Only process 0 runs: it gives up after the timeout given below.
    let sources = corpus.join("source-documents");
    let suspicious = corpus.join("suspicious-documents");
    let dirs = ["--source-dir", path_str(&sources), "--suspicious-dir", path_str(&suspicious), "--out", path_str(&out)];
    let cluster = ["--hostfile", path_str(&hosts), "--process", "0", "--connect-timeout", "1"];
    let output = pan_detect().arg("detect").args(dirs).args(cluster).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("process 1 ({port}) did not connect within 1 s")), "{stderr}");
}

#[test]
fn processes_of_different_jobs_refuse_each_other() {
    let corpus = fixtures().join("pan");
    let tmp = tempfile::tempdir().unwrap();
    let hosts = hostfile(tmp.path(), 2);
    let out = tmp.path().join("out");
    let first = process_command(&corpus, &out, &hosts, 0, 1, &["--preset", "best"]).spawn().unwrap();
    let second = process_command(&corpus, &out, &hosts, 1, 1, &["--preset", "pan09"]).spawn().unwrap();
    let (first, second) = (first.wait_with_output().unwrap(), second.wait_with_output().unwrap());
    assert!(!first.status.success() && !second.status.success());
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(stderr.contains("process 1 (127.0.0.1:") && stderr.contains("runs another job"), "{stderr}");
    assert!(
        !out.exists()
            || fs::read_dir(&out).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".xml"))
    );
}

#[test]
fn cluster_options_that_do_not_fit_are_refused() {
    let corpus = fixtures().join("pan");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (sources, suspicious) = (corpus.join("source-documents"), corpus.join("suspicious-documents"));
    let dirs = [
        "detect",
        "--source-dir",
        path_str(&sources),
        "--suspicious-dir",
        path_str(&suspicious),
        "--out",
        path_str(&out),
    ];
    let refused = |extra: &[&str], message: &str| {
        let output = pan_detect().args(dirs).args(extra).output().unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message) && stderr.lines().count() == 1, "{extra:?}: {stderr}");
    };
    refused(&["--processes", "2", "--process", "2"], "--process 2 is not below --processes 2");
    refused(&["--processes", "2", "--format", "html"], "--processes applies to --format pan-xml only");
    refused(&["--workers", "0"], "--workers must be at least 1");
    refused(&["--workers", "100000"], "--workers 100000 is out of range");
}

/// Runs `similar --index index` on `processes` processes of `workers` workers
/// (loopback) with `extra` flags; returns each process's output.
fn similar_on_cluster(index: &Path, processes: usize, workers: usize, extra: &[&str]) -> Vec<Output> {
    let hosts = hostfile(index.parent().unwrap(), processes);
    let children: Vec<Child> = (0..processes)
        .map(|process| {
            let (process, workers) = (process.to_string(), workers.to_string());
            let cluster = ["--hostfile", path_str(&hosts), "--process", &process, "--workers", &workers];
            pan_detect()
                .args(["similar", "--index", path_str(index)])
                .args(cluster)
                .args(extra)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children.into_iter().map(|child| child.wait_with_output().unwrap()).collect()
}

/// The chunk columns of a `similar` CSV (document, other, both shares, common chunks).
fn chunk_columns(csv: &str) -> Vec<String> {
    csv.lines().map(|line| line.split(',').take(5).collect::<Vec<_>>().join(",")).collect()
}

#[test]
fn the_similarity_table_computed_on_a_cluster_is_the_stored_one_everywhere() {
    use crate::archive::Archive;
    let archive = Archive::new();
    let index = archive.index("idx");
    archive.create(&index);
    // An update leaves two segments and tombstones for the walk to merge and skip.
    archive.change();
    archive.update(&index);
    for extra in [&[][..], &["--top", "2", "--min-percent", "20"]] {
        let stored = archive.similar(&index, extra);
        assert!(stored.lines().count() >= 3, "the archive's documents share text: {stored}");
        let one = similar_on_cluster(&index, 1, 1, extra);
        all_succeeded(&one, "similar, 1 x 1");
        let table = String::from_utf8(one[0].stdout.clone()).unwrap();
        assert_eq!(chunk_columns(&table), chunk_columns(&stored), "{extra:?}");
        for (processes, workers) in [(1, 4), (2, 2), (4, 1)] {
            let outputs = similar_on_cluster(&index, processes, workers, extra);
            all_succeeded(&outputs, &format!("similar, {processes} x {workers}"));
            assert_eq!(String::from_utf8_lossy(&outputs[0].stdout), table, "{processes} x {workers}, {extra:?}");
            assert!(outputs[1..].iter().all(|o| o.stdout.is_empty()), "only process 0 prints the table");
        }
    }
}
