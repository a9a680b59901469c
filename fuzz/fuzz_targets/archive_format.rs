//! The archive's decoders of stored bytes, one input at a time: the header
//! (`Header::parse`, then the layout the reader derives from it), the document
//! record (`DocRecord::decode`) and the little-endian readers (`read_key`,
//! `read_u32`).
//!
//! Invariants: errors are fine, panics are not; a header that parses serializes
//! (as the writer does) and parses again to the same header; the layout
//! arithmetic of an accepted header does not overflow; a decoded record
//! encodes to the bytes it came from (except a `live` flag other than 0 or 1;
//! every other byte is a field since format version 3) and decodes again to
//! itself; `read_key` reads exactly
//! `len` little-endian bytes.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use pan_detect::archive::format::{DOC_RECORD_BYTES, DocRecord, Header, read_key, read_u32};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(header) = Header::parse(text, Path::new("header.json"))
    {
        for segment in &header.segments {
            assert!(segment.postings.residue_bits(header.settings.hash_bits) <= 64);
            let _ = segment.postings.posting_bytes(header.settings.hash_bits);
        }
        let _ = header.expected_lengths();
        let _ = header.settings.key_bytes();
        let written = serde_json::to_string_pretty(&header).expect("a header serializes");
        let again = Header::parse(&written, Path::new("header.json")).expect("a written header parses");
        assert_eq!(again, header);
    }

    for window in data.windows(DOC_RECORD_BYTES).step_by(7) {
        let bytes: &[u8; DOC_RECORD_BYTES] = window.try_into().expect("window of the record's size");
        let record = DocRecord::decode(bytes);
        let encoded = record.encode();
        assert_eq!(DocRecord::decode(&encoded), record);
        let mut expected = *bytes;
        expected[4..8].fill(0); // Unused since format version 8.
        expected[28..32].copy_from_slice(&u32::from(record.live).to_le_bytes());
        assert_eq!(encoded, expected);
    }

    for len in 0..=8.min(data.len()) {
        let mut padded = [0u8; 8];
        padded[..len].copy_from_slice(&data[..len]);
        assert_eq!(read_key(data, len), u64::from_le_bytes(padded), "len {len}");
    }
    if data.len() >= 4 {
        let at = data.len() - 4;
        assert_eq!(read_u32(data, at), u32::from_le_bytes(data[at..].try_into().expect("4 bytes")));
    }
});
