//! Integration tests: run the `pan-detect` binary as a user would.

mod align;
mod archive;
mod archive_best;
mod cluster;
mod corpus;
mod cross_language;
mod detect;
mod documents;
mod encodings;
mod errors;
mod failpoints;
mod help_examples;
mod hostile_inputs;
mod html_report;
mod man_pages;
mod minhash;
mod model;
mod pipes;
mod eval;
mod extract;
mod formulaic;
mod pairs;
mod reports;
mod serve;
mod similarity;
mod tokenizers;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pan_detect::report::pan_xml::PanDocument;

/// The `pan-detect` binary built for these tests.
pub fn pan_detect() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pan-detect"))
}

/// Runs `pan-detect` with `args` and returns its output.
pub fn run(args: &[&str]) -> Output {
    pan_detect().args(args).output().expect("pan-detect could not be started")
}

/// The bundled fixture corpus.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus-fixtures")
}

/// Runs detection over `src` and `susp` into `out`, with `extra` flags.
pub fn detect(src: &Path, susp: &Path, out: &Path, extra: &[&str]) -> Output {
    let dirs = ["--source-dir", path_str(src), "--suspicious-dir", path_str(susp), "--out", path_str(out)];
    run(&[&dirs[..], extra].concat())
}

/// The `src`, `susp` and `out` directories of a detect run in `dir`, the
/// first two created.
pub fn detect_dirs(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (src, susp, out) = (dir.join("src"), dir.join("susp"), dir.join("out"));
    fs::create_dir_all(&src).unwrap();
    fs::create_dir_all(&susp).unwrap();
    (src, susp, out)
}

pub fn path_str(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// Every file of `dir` by name, with its bytes: two runs' reports compare
/// byte for byte.
pub fn files_of(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (entry.file_name().to_string_lossy().into_owned(), fs::read(entry.path()).unwrap())
        })
        .collect()
}

/// Every file under `dir` (relative path → bytes).
pub fn files_under(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), fs::read(&path).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Copies the directory tree `from` to `to` (regular files and directories).
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Reads and parses a PAN XML report, naming the file on failure.
pub fn read_report(path: &Path) -> PanDocument {
    let xml = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    PanDocument::parse(&xml).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The passages of a PAN XML report as (this start, this end, source name,
/// source start, source end), sorted.
pub fn report_passages(path: &Path) -> Vec<(u64, u64, String, u64, u64)> {
    let mut passages: Vec<(u64, u64, String, u64, u64)> = read_report(path)
        .features
        .iter()
        .map(|f| {
            let (this, source) = (f.this_range().unwrap(), f.source_range().unwrap());
            (this.0, this.1, f.get("source_reference").unwrap().to_string(), source.0, source.1)
        })
        .collect();
    passages.sort();
    passages
}

/// Deterministic text of `words` pseudo-words (with Czech diacritics, so that
/// character offsets differ from byte offsets); different seeds share no
/// five-word run.
pub fn prose(seed: u64, words: usize) -> String {
    const SYLLABLES: [&str; 16] =
        ["ka", "ře", "lo", "mů", "ti", "sa", "ně", "po", "vý", "dr", "ul", "če", "ba", "zi", "ho", "fy"];
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut text = String::new();
    for i in 0..words {
        let syllables = 2 + next() % 3;
        let word: String = (0..syllables).map(|_| SYLLABLES[next() % SYLLABLES.len()]).collect();
        text.push_str(&word);
        text.push_str(if i % 11 == 10 { ". " } else { " " });
    }
    text
}
