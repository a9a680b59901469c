//! JSON reports: the report model ([`super::model`]) in one schema for
//! `detect` and `check`, documented in `docs/report-json.md`. Every JSON
//! report is a [`Report`] object, whether it holds one document (a file per
//! document in an output directory) or several (`check` on stdout).

use serde::{Deserialize, Serialize};

use super::model::DocumentReport;

/// The value of [`Report::format`]: tells a pan-detect JSON report from any
/// other JSON file (a report directory never overwrites one without it).
pub const FORMAT: &str = "pan-detect-report";

/// The version of the schema, raised when a field changes meaning or goes;
/// new optional fields keep it.
pub const VERSION: u32 = 1;

/// A JSON report: one or more documents' reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`FORMAT`].
    pub format: String,
    /// The schema version, [`VERSION`] for reports this build writes.
    pub version: u32,
    /// The documents, in the order they were given or listed.
    pub documents: Vec<DocumentReport>,
}

impl Report {
    /// A report of `documents` in the current schema.
    pub fn new(documents: Vec<DocumentReport>) -> Self {
        Report { format: FORMAT.to_string(), version: VERSION, documents }
    }

    /// The report as indented JSON, ending with a newline.
    pub fn to_json(&self) -> String {
        // Serialising plain structs of strings and numbers cannot fail (no
        // maps with non-string keys, no failing Serialize impls).
        let mut json = serde_json::to_string_pretty(self).expect("a report serialises");
        json.push('\n');
        json
    }
}

/// Why `bytes` are not a pan-detect JSON report; `Ok` when they are one.
pub fn check_is_report(bytes: &[u8]) -> Result<(), String> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|error| format!("not JSON: {error}"))?;
    match value.get("format").and_then(serde_json::Value::as_str) {
        Some(FORMAT) => Ok(()),
        _ => Err(format!("JSON without \"format\": \"{FORMAT}\"")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::DocumentTexts;

    #[test]
    fn reports_are_recognised_by_their_format_field() {
        let texts = DocumentTexts { document: "text".into(), ..Default::default() };
        let document = DocumentReport::new("a.txt", "a.txt", &texts, None, Vec::new());
        let json = Report::new(vec![document]).to_json();
        assert!(json.starts_with("{\n  \"format\": \"pan-detect-report\",\n  \"version\": 1,"), "{json}");
        assert_eq!(check_is_report(json.as_bytes()), Ok(()));
        assert!(check_is_report(b"{\"cases\": []}").unwrap_err().contains("without"));
        assert!(check_is_report(b"<xml/>").unwrap_err().starts_with("not JSON"));
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back.documents[0].name, "a.txt");
    }
}
