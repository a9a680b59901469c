//! ZIP containers: a DOCX or an ODT, told apart by their entries, each entry
//! read within the document's [`ExpansionBudget`].

use std::io::{Cursor, Read};

use zip::ZipArchive;
use zip::result::ZipError;

use super::layout::Layout;
use super::{ExpansionBudget, ExtractError, Extracted, docx, odt};

/// The entry of a DOCX's text.
const DOCX_DOCUMENT: &str = "word/document.xml";
/// The entries of an ODT's type and text.
const ODF_MIMETYPE: &str = "mimetype";
const ODF_CONTENT: &str = "content.xml";
/// The `mimetype` of OpenDocument texts (also `…-template`, `…-master`, `…-web`).
const ODT_MIMETYPE: &str = "application/vnd.oasis.opendocument.text";

/// An opened ZIP archive and what it may still expand to.
pub(super) struct Container<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    budget: &'a mut ExpansionBudget,
}

/// Extracts the text of the DOCX or ODT in the ZIP archive `bytes`.
pub(super) fn extract(bytes: &[u8], budget: &mut ExpansionBudget) -> Result<Extracted, ExtractError> {
    let archive =
        ZipArchive::new(Cursor::new(bytes)).map_err(|e| ExtractError(format!("not a readable ZIP archive ({e})")))?;
    let mut container = Container { archive, budget };
    let (text, layout) = if container.has(DOCX_DOCUMENT) {
        docx::text_with_layout(&container.entry(DOCX_DOCUMENT)?, DOCX_DOCUMENT)?
    } else if container.has(ODF_MIMETYPE) {
        let mimetype = container.entry(ODF_MIMETYPE)?;
        if !mimetype.trim().starts_with(ODT_MIMETYPE) {
            return Err(ExtractError(format!("an OpenDocument file of type {}, not a text document", mimetype.trim())));
        }
        (odt::text(&container.entry(ODF_CONTENT)?, ODF_CONTENT)?, Layout::default())
    } else if container.has(ODF_CONTENT) {
        (odt::text(&container.entry(ODF_CONTENT)?, ODF_CONTENT)?, Layout::default())
    } else {
        return Err(ExtractError(format!(
            "a ZIP archive, but neither a DOCX (no {DOCX_DOCUMENT}) nor an ODT (no {ODF_CONTENT})"
        )));
    };
    Ok(Extracted { text, note: None, layout })
}

impl Container<'_> {
    fn has(&self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// The UTF-8 text of entry `name`, refused when it would expand beyond
    /// the budget (before inflating when its declared size says so, and while
    /// inflating whatever it declares).
    fn entry(&mut self, name: &str) -> Result<String, ExtractError> {
        let corrupt = |error: &dyn std::fmt::Display| ExtractError(format!("{name} cannot be read ({error})"));
        let mut entry = match self.archive.by_name(name) {
            Ok(entry) => entry,
            Err(ZipError::FileNotFound) => return Err(ExtractError(format!("no {name} in the ZIP archive"))),
            Err(error) => return Err(corrupt(&error)),
        };
        let remaining = self.budget.remaining();
        if entry.size() > remaining {
            return Err(self.budget.refusal(name));
        }
        let mut bytes = Vec::new();
        (&mut entry).take(remaining + 1).read_to_end(&mut bytes).map_err(|e| corrupt(&e))?;
        self.budget.spend(bytes.len() as u64, name)?;
        String::from_utf8(bytes).map_err(|e| ExtractError(format!("{name} is not UTF-8 ({e})")))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// A ZIP archive of `entries` (name, content), deflated.
    pub(crate) fn archive(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, content) in entries {
            writer.start_file(*name, options).unwrap();
            writer.write_all(content.as_bytes()).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    fn extracted(bytes: &[u8], limit: u64) -> Result<String, String> {
        extract(bytes, &mut ExpansionBudget::with_limit(limit)).map(|e| e.text).map_err(|e| e.to_string())
    }

    #[test]
    fn docx_and_odt_are_told_apart_by_their_entries() {
        let docx = archive(&[(
            DOCX_DOCUMENT,
            "<w:document><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>",
        )]);
        assert_eq!(extracted(&docx, 1 << 20).unwrap(), "Hello");
        let content = "<office:document-content><office:body><office:text><text:p>Ahoj</text:p></office:text></office:body></office:document-content>";
        let odt = archive(&[(ODF_MIMETYPE, ODT_MIMETYPE), (ODF_CONTENT, content)]);
        assert_eq!(extracted(&odt, 1 << 20).unwrap(), "Ahoj");
        let ods = archive(&[(ODF_MIMETYPE, "application/vnd.oasis.opendocument.spreadsheet"), (ODF_CONTENT, content)]);
        assert_eq!(
            extracted(&ods, 1 << 20).unwrap_err(),
            "an OpenDocument file of type application/vnd.oasis.opendocument.spreadsheet, not a text document"
        );
        let jar = archive(&[("META-INF/MANIFEST.MF", "Manifest-Version: 1.0")]);
        assert!(extracted(&jar, 1 << 20).unwrap_err().starts_with("a ZIP archive, but neither a DOCX"));
    }

    #[test]
    fn an_entry_expanding_beyond_the_budget_is_refused() {
        let huge = format!(
            "<w:document><w:body><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:body></w:document>",
            "a".repeat(1 << 20)
        );
        let docx = archive(&[(DOCX_DOCUMENT, &huge)]);
        assert!(docx.len() < 8 << 10, "{} bytes", docx.len());
        let error = extracted(&docx, 1 << 19).unwrap_err();
        assert!(error.starts_with("word/document.xml expands beyond"), "{error}");
        assert_eq!(extracted(&docx, 2 << 20).unwrap().len(), 1 << 20);
    }

    #[test]
    fn a_damaged_archive_is_named_as_such() {
        let mut docx = archive(&[(DOCX_DOCUMENT, &"<w:t>text</w:t>".repeat(100))]);
        let middle = docx.len() / 2;
        docx.truncate(middle);
        assert!(extracted(&docx, 1 << 20).unwrap_err().starts_with("not a readable ZIP archive"));
    }
}
