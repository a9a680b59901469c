//! `TextReader::decode` on arbitrary bytes under each document name (PDF,
//! DOCX, ODT, HTML, text): the format is told by content, so damaged PDFs and
//! ZIP containers, zip bombs and odd markup all reach the extractors.
//! Invariants: decoding never panics (a parser's panic must come back as a
//! skipped file) and stays within libFuzzer's memory limit (the expansion
//! bound holds), whatever it decides.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use pan_detect::analysis::read::{DocumentFile, Loaded, TextReader};

const NAMES: [&str; 5] = ["a.pdf", "a.docx", "a.odt", "a.html", "a.txt"];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else { return };
    let name = NAMES[usize::from(selector) % NAMES.len()];
    let file = DocumentFile { name: name.to_string(), path: PathBuf::from(name), bytes: bytes.len() as u64 };
    match TextReader::new(None).decode(&file, bytes.to_vec()) {
        Loaded::Text(text, _) => assert!(text.len() <= 256 << 20, "{name}: {} bytes of text", text.len()),
        Loaded::Skipped(warning) => assert!(!warning.message.is_empty()),
    }
});
