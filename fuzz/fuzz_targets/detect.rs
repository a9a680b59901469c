//! The whole detect pipeline on a pair of texts, with both presets.
//!
//! The input is the source text, a form feed (0x0C), then the suspicious text
//! (no form feed: both texts are the input, the source empty), each decoded as
//! the library decodes a plain-text file (UTF-8, invalid sequences replaced;
//! UTF-16; a legacy encoding guessed from its bytes); texts the library would
//! not read as plain text (binary, a PDF or ZIP signature) are left out. The
//! two texts are written as `src/a.txt`
//! and `susp/b.txt` of a temporary directory (in /dev/shm when there is one)
//! and `detect` runs over them.
//!
//! Invariants, for `--preset pan09` and `--preset best`: no panic and no
//! error; one report, for `b.txt`; every detection names `a.txt`, covers at
//! least one character on each side and ends inside its document in characters
//! (`this_offset + this_length` ≤ the characters of the suspicious text, same
//! for the source), so slicing the text at it gives a string; detections are
//! ordered by position and do not overlap in the suspicious text (both presets
//! resolve overlaps); the summary counts them.
#![no_main]

use std::fs;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use pan_detect::detect::detect;
use pan_detect::error::Error;
use pan_detect::detect::params::{DetectParams, Preset};
use pan_detect::progress::Silent;
use pan_detect::report::{Detection, DetectionSink};
use pan_detect::analysis::extract::Container;
use pan_detect::analysis::read::{DocumentFile, Loaded, TextReader};
use pan_detect::analysis::span::{CharRange, char_slice};

/// A detection, owned: suspicious range, source document, source range.
type Owned = (CharRange, String, CharRange);

/// The detections of each suspicious document.
#[derive(Default)]
struct Collect(Mutex<Vec<(String, Vec<Owned>)>>);

impl DetectionSink for Collect {
    fn document(&self, suspicious: &str, detections: &[Detection<'_>]) -> Result<(), Error> {
        let owned = detections.iter().map(|d| (d.this, d.source_reference.to_string(), d.source)).collect();
        self.0.lock().expect("no panic while held").push((suspicious.to_string(), owned));
        Ok(())
    }
}

struct Dirs {
    _root: tempfile::TempDir,
    sources: PathBuf,
    suspicious: PathBuf,
}

fn dirs() -> &'static Dirs {
    static DIRS: OnceLock<Dirs> = OnceLock::new();
    DIRS.get_or_init(|| {
        // One worker: the machine is shared, and the fuzzer runs one job.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
        let shm = std::path::Path::new("/dev/shm");
        let root = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() };
        let root = root.expect("temporary directory");
        let (sources, suspicious) = (root.path().join("src"), root.path().join("susp"));
        fs::create_dir_all(&sources).expect("temporary directory");
        fs::create_dir_all(&suspicious).expect("temporary directory");
        Dirs { _root: root, sources, suspicious }
    })
}

fn check(preset: Preset, source: &str, suspicious: &str) {
    let dirs = dirs();
    let sink = Collect::default();
    let summary = detect(&dirs.sources, &dirs.suspicious, &DetectParams::preset(preset), &sink, &Silent)
        .unwrap_or_else(|e| panic!("{preset:?}: {e}"));
    let reports = sink.0.into_inner().expect("no panic while held");
    let [(name, detections)] = reports.as_slice() else { panic!("{preset:?}: {} reports", reports.len()) };
    assert_eq!(name, "b.txt");
    assert_eq!(summary.passages, detections.len() as u64, "{preset:?}");
    let (this_chars, source_chars) = (suspicious.chars().count() as u64, source.chars().count() as u64);
    for (this, reference, source_range) in detections {
        let context = format!("{preset:?}: {this:?} of {this_chars} chars, {source_range:?} of {source_chars}");
        assert_eq!(reference, "a.txt", "{context}");
        assert!(this.start < this.end && source_range.start < source_range.end, "{context}");
        assert!(u64::from(this.end) <= this_chars && u64::from(source_range.end) <= source_chars, "{context}");
        assert!(char_slice(suspicious, *this).is_some() && char_slice(source, *source_range).is_some(), "{context}");
    }
    for pair in detections.windows(2) {
        let (a, b) = (pair[0].0, pair[1].0);
        assert!(a.end <= b.start, "{preset:?}: {a:?} and {b:?} overlap or are out of order");
    }
}

/// The text of a plain-text document holding `bytes`, decoded as the library
/// decodes it; `None` when the library would not read it as plain text: a PDF
/// or ZIP signature makes it a container to extract, whatever its name (the
/// `extract` target covers those), or it is skipped as binary.
fn plain_text(bytes: &[u8]) -> Option<String> {
    if Container::of(bytes).is_some() {
        return None;
    }
    let file = DocumentFile { name: "b.txt".into(), path: PathBuf::from("b.txt"), bytes: bytes.len() as u64 };
    match TextReader::default().decode(&file, bytes.to_vec()) {
        Loaded::Text(text, _) => Some(text),
        Loaded::Skipped(_) => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let (source, suspicious) = match data.iter().position(|&b| b == 0x0C) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&[][..], data),
    };
    let dirs = dirs();
    fs::write(dirs.sources.join("a.txt"), source).expect("temporary file");
    fs::write(dirs.suspicious.join("b.txt"), suspicious).expect("temporary file");
    let (Some(source), Some(suspicious)) = (plain_text(source), plain_text(suspicious)) else {
        return;
    };
    check(Preset::Pan09, &source, &suspicious);
    check(Preset::Best, &source, &suspicious);
});
