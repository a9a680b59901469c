//! `PanDocument::parse` on arbitrary text. Invariants: parsing never panics; a
//! parsed document written with `to_xml` parses again to the same document, and
//! writing that again gives the same text; the typed offset accessors answer
//! (a value or an error) for every feature.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pan_detect::report::pan_xml::PanDocument;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(document) = PanDocument::parse(text) else { return };
    for feature in &document.features {
        let _ = feature.this_range();
        let _ = feature.source_range();
        if let Ok((start, end)) = feature.this_range() {
            assert!(start <= end, "{feature:?}");
        }
    }
    let xml = document.to_xml();
    let again = PanDocument::parse(&xml).unwrap_or_else(|e| panic!("to_xml output does not parse: {e}\n{xml}"));
    assert_eq!(again, document, "to_xml does not round-trip:\n{xml}");
    assert_eq!(again.to_xml(), xml);
});
