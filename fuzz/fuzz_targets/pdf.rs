//! The PDF extractor alone (`analysis::extract::extract` with
//! `Container::Pdf`) on arbitrary bytes, so that every input reaches lopdf
//! and pdf-extract instead of one in five as in `extract`. Seeds: small
//! valid PDFs (fuzz/corpus/pdf/), flat page trees among them.
//! Invariants: extraction never panics (a parser's panic must come back as
//! an error), stays within libFuzzer's memory limit (the expansion bound
//! holds), an error says why, and a text stays within the 256 MiB bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pan_detect::analysis::extract::{Container, extract};

fuzz_target!(|data: &[u8]| {
    match extract(Container::Pdf, data) {
        Ok(extracted) => assert!(extracted.text.len() <= 256 << 20, "{} bytes of text", extracted.text.len()),
        Err(error) => assert!(!error.0.is_empty()),
    }
});
