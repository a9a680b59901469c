//! ODT (OpenDocument text): the text of `content.xml`.
//!
//! Paragraphs and headings (`text:p`, `text:h`, also in lists, tables and
//! frames) end with a line break; white space inside them collapses as
//! OpenDocument says, and `text:s`, `text:tab` and `text:line-break` give
//! spaces, tabs and line breaks. Left out: notes (footnotes and endnotes,
//! written where they are cited), comments, tracked changes (which hold the
//! deleted text), tables of contents (generated from the headings), and the
//! headers and footers, which `styles.xml` holds.

use super::xml::{self, Node};
use super::{ExtractError, TextWriter};

/// Elements whose content is not the document's text.
const SKIPPED: [&str; 7] = [
    "note",
    "annotation",
    "tracked-changes",
    "table-of-content",
    "sequence-decls",
    "variable-decls",
    "user-field-decls",
];

/// The text of an ODT's `content.xml` (the entry `part`).
pub(super) fn text(xml: &str, part: &str) -> Result<String, ExtractError> {
    let mut writer = TextWriter::default();
    // Paragraphs may nest (a frame inside a paragraph).
    let mut paragraphs = 0usize;
    xml::walk(xml, part, &SKIPPED, |node| match node {
        Node::Open(element) => {
            if matches!(element.local_name().as_ref(), "p" | "h") {
                paragraphs += 1;
            }
        }
        Node::Leaf(element) => match element.local_name().as_ref() {
            "s" => {
                let count = xml::attribute(element, "text:c").and_then(|c| c.parse().ok()).unwrap_or(1);
                writer.literal(&" ".repeat(count));
            }
            "tab" => writer.literal("\t"),
            "line-break" => writer.literal("\n"),
            _ => {}
        },
        Node::Close(name) => {
            if matches!(name, "p" | "h") {
                paragraphs = paragraphs.saturating_sub(1);
                writer.end_paragraph();
            }
        }
        Node::Text(text) if paragraphs > 0 => writer.collapsed(text),
        Node::Text(_) => {}
    })?;
    Ok(writer.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_spaces_and_breaks_are_kept_notes_and_changes_are_not() {
        let xml = r#"<office:document-content><office:body><office:text>
            <text:tracked-changes><text:changed-region><text:deletion><text:p>gone</text:p></text:deletion></text:changed-region></text:tracked-changes>
            <text:h text:outline-level="1">Zahrada   v zimě</text:h>
            <text:p>Sníh<text:s text:c="3"/>leží<text:tab/>na<text:line-break/>záhonech<text:note><text:note-body><text:p>poznámka</text:p></text:note-body></text:note>.</text:p>
            <text:list><text:list-item><text:p>položka <text:span>seznamu</text:span></text:p></text:list-item></text:list>
            <text:p/>
            </office:text></office:body></office:document-content>"#;
        assert_eq!(text(xml, "content.xml").unwrap(), "Zahrada v zimě\nSníh   leží\tna\nzáhonech.\npoložka seznamu");
    }
}
