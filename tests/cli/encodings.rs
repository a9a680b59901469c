//! Real-world text files: stray NUL bytes and UTF-16 are read as text, with
//! offsets in characters of the decoded text.

use std::fs;

use crate::{detect, prose, read_report};

#[test]
fn a_copy_between_a_file_with_stray_nuls_and_a_utf16_file_is_found_at_character_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = (dir.path().join("src"), dir.path().join("susp"), dir.path().join("out"));
    fs::create_dir_all(&src).unwrap();
    fs::create_dir_all(&susp).unwrap();
    let passage = prose(7, 80);
    // The source: web-crawl debris with two NUL bytes before the passage.
    let source_prefix = format!("{}\0 more text \0", prose(1, 60));
    fs::write(src.join("a.txt"), format!("{source_prefix}{passage}{}", prose(2, 40))).unwrap();
    // The suspicious document: UTF-16 little endian with a byte-order mark.
    let suspicious_prefix = prose(3, 50);
    let text = format!("{suspicious_prefix}{passage}{}", prose(4, 30));
    let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
    fs::write(susp.join("b.txt"), utf16).unwrap();
    for preset in ["pan09", "best"] {
        let output = detect(&src, &susp, &out, &["--preset", preset, "--quiet"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && !stderr.contains("skipped"), "{preset}: {stderr}");
        let report = read_report(&out.join("b.xml"));
        assert_eq!(report.features.len(), 1, "{preset}: {:?}", report.features);
        let (this, source) = (report.features[0].this_range().unwrap(), report.features[0].source_range().unwrap());
        let chars = |s: &str| s.chars().count() as u64;
        // best's passages run from sentence to sentence (11 words here).
        let starts_near = |found: u64, expected: u64| found.abs_diff(expected) <= 100;
        assert!(starts_near(this.0, chars(&suspicious_prefix)), "{preset}: {this:?}");
        assert!(starts_near(source.0, chars(&source_prefix)), "{preset}: {source:?}");
        assert!(this.1 <= chars(&text), "{preset}: ends inside the decoded text, without the BOM");
    }
}
