//! Opening an index made of arbitrary bytes, then every reader operation on it.
//!
//! The input is sections separated by `SEPARATOR`: `CURRENT`, a text to check,
//! `header.json`, `docs.bin`, `names.bin`, then the `.postings` and
//! `.directory` file of each segment the header lists. They are
//! written into generation 1 of an index in a temporary directory. So that the
//! fuzzer gets past the length checks to the tables, the lengths recorded in the
//! header are set to those of the sections (and the body files' CRC-32s, as
//! the names' is checked on opening), and `docs_root` to a directory in the
//! temporary one (check reads excerpts there).
//!
//! Invariants: opening, verifying, every accessor, `check` and `similar` return
//! answers or errors, never panic; on an opened index each live document's
//! chunks (when its text can be read back) are as many as recorded, and every
//! lookup gives live documents.
//! (No section holds a similarity table: `similar` stops where it opens the
//! table, whose file is missing, or where the header has none.)
#![no_main]

use std::fs;
use std::path::Path;
use std::sync::Once;

use libfuzzer_sys::fuzz_target;
use pan_detect::archive::ArchiveIndex;
use pan_detect::archive::check::{CheckParams, Checker};
use pan_detect::archive::format::{BODY_FILES, CURRENT, HEADER, generation_name, postings_names};
use pan_detect::archive::similar::{SimilarParams, similar};
use pan_detect::archive::table::SimilarityTable;
use serde_json::Value;

const SEPARATOR: &[u8] = b"\n--8<--\n";

fn sections(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some(at) = rest.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
        out.push(&rest[..at]);
        rest = &rest[at + SEPARATOR.len()..];
    }
    out.push(rest);
    out
}

fn set_bytes(entry: Option<&mut Value>, bytes: usize) {
    if let Some(Value::Object(entry)) = entry {
        entry.insert("bytes".into(), Value::from(bytes as u64));
    }
}

/// Sets an entry's length and CRC-32 to those of `bytes` (the names' CRC-32
/// is checked on opening).
fn set_bytes_and_crc32(entry: &mut Value, bytes: &[u8]) {
    set_bytes(Some(entry), bytes.len());
    if let Value::Object(entry) = entry {
        entry.insert("crc32".into(), Value::from(crc32fast::hash(bytes)));
    }
}

/// Writes the index; false when the input is too short to hold one.
fn write_index(root: &Path, parts: &[&[u8]]) -> bool {
    let [current, _, header, body @ ..] = parts else { return false };
    if body.len() < BODY_FILES.len() {
        return false;
    }
    let generation = root.join(generation_name(1));
    fs::create_dir_all(&generation).expect("temporary directory");
    fs::write(root.join(CURRENT), current).expect("temporary file");
    let (fixed, segment_parts) = body.split_at(BODY_FILES.len());
    for (name, bytes) in BODY_FILES.iter().zip(fixed) {
        fs::write(generation.join(name), bytes).expect("temporary file");
    }
    let mut header_bytes = header.to_vec();
    if let Ok(mut value) = serde_json::from_slice::<Value>(header) {
        if let Some(Value::Array(files)) = value.get_mut("files") {
            for (entry, bytes) in files.iter_mut().zip(fixed) {
                set_bytes_and_crc32(entry, bytes);
            }
        }
        if let Some(object) = value.as_object_mut() {
            object.insert("docs_root".into(), Value::from(root.join("docs").to_string_lossy().into_owned()));
        }
        if let Some(Value::Array(segments)) = value.get_mut("segments") {
            let mut files = segment_parts.chunks(2);
            for segment in segments.iter_mut() {
                let Some(number) = segment.get("generation").and_then(Value::as_u64) else { continue };
                let parts = files.next().unwrap_or(&[]);
                let part = |i: usize| parts.get(i).copied().unwrap_or(&[][..]);
                let (postings_name, directory_name) = postings_names(number);
                fs::write(generation.join(postings_name), part(0)).expect("temporary file");
                fs::write(generation.join(directory_name), part(1)).expect("temporary file");
                if let Some(postings) = segment.get_mut("postings") {
                    set_bytes(postings.get_mut("file"), part(0).len());
                    set_bytes(postings.get_mut("directory"), part(1).len());
                }
            }
        }
        header_bytes = serde_json::to_vec(&value).expect("a JSON value serializes");
    }
    fs::write(generation.join(HEADER), header_bytes).expect("temporary file");
    true
}

fn exercise(root: &Path, index: &ArchiveIndex, text: &str) {
    let _ = index.verify();
    let _ = index.file_sizes();
    for id in index.live_ids() {
        let record = index.record(id);
        let _ = index.name(id);
        if let Ok(Some(chunks)) = index.document_chunks(id) {
            assert_eq!(chunks.len(), record.chunk_count as usize, "document {id}");
        }
    }
    let mut hashes = Vec::new();
    let _ = index.for_each_chunk_between(0, u64::MAX, |hash, docs| {
        assert!(docs.iter().all(|&doc| index.record(doc).live), "{docs:?}");
        hashes.push(hash);
    });
    let mut docs = Vec::new();
    for hash in hashes.into_iter().take(64) {
        if index.documents_with(hash, &mut docs).is_ok() {
            assert!(docs.iter().all(|&doc| index.record(doc).live), "{docs:?}");
        }
    }
    if let Ok(mut checker) = Checker::new(index, CheckParams::default()) {
        let _ = checker.check_text("checked.txt", text);
    }
    if let Ok((index, table)) = SimilarityTable::open(root) {
        let mut rows = 0usize;
        let _ = similar(&index, &table, &SimilarParams::default(), &mut |_| {
            rows += 1;
            Ok(())
        });
    }
}

static ONE_THREAD: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    // One worker: the machine is shared, and the fuzzer runs one job.
    ONE_THREAD.call_once(|| {
        let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
    });
    let parts = sections(data);
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() };
    let dir = dir.expect("temporary directory");
    let root = dir.path().join("idx");
    if !write_index(&root, &parts) {
        return;
    }
    let text = String::from_utf8_lossy(parts[1]);
    if let Ok(index) = ArchiveIndex::open(&root) {
        exercise(&root, &index, &text);
    }
});
