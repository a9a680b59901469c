//! DOCX (Office Open XML): the text of `word/document.xml`.
//!
//! Text runs (`w:t`) as written, tabs, line breaks, and a line break after
//! each paragraph (also in tables and text boxes). Left out: deleted and
//! moved-away revisions, the fallback copy of drawings (`mc:Fallback`, which
//! repeats the text boxes), field codes (`w:instrText`, not text runs), and
//! what other parts hold: headers, footers, footnotes and comments.

use super::xml::{self, Node};
use super::{ExtractError, TextWriter};

/// Elements whose content is not the document's text.
const SKIPPED: [&str; 6] = ["pPr", "rPr", "del", "moveFrom", "Fallback", "sectPr"];

/// The text of a DOCX's main part `xml` (the entry `part`).
pub(super) fn text(xml: &str, part: &str) -> Result<String, ExtractError> {
    let mut writer = TextWriter::default();
    let mut in_run_text = false;
    xml::walk(xml, part, &SKIPPED, |node| match node {
        Node::Open(element) => in_run_text = element.local_name().as_ref() == "t",
        Node::Leaf(element) => match element.local_name().as_ref() {
            "tab" | "ptab" => writer.literal("\t"),
            "br" | "cr" => writer.literal("\n"),
            "noBreakHyphen" => writer.literal("-"),
            _ => {}
        },
        Node::Close(name) => match name {
            "t" => in_run_text = false,
            "p" => writer.end_paragraph(),
            _ => {}
        },
        Node::Text(text) if in_run_text => writer.literal(text),
        Node::Text(_) => {}
    })?;
    Ok(writer.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_tabs_breaks_and_paragraphs_are_kept_revisions_and_properties_are_not() {
        let xml = r#"<w:document xmlns:w="w"><w:body>
            <w:p><w:pPr><w:tabs><w:tab w:val="left"/></w:tabs></w:pPr>
              <w:r><w:t xml:space="preserve">Mlýny na </w:t></w:r><w:r><w:t>řece</w:t><w:tab/><w:t>stály</w:t></w:r>
              <w:del><w:r><w:delText>smazáno</w:delText></w:r></w:del>
              <w:r><w:br/><w:t>dlouho &amp; pevně</w:t><w:noBreakHyphen/><w:t>x</w:t></w:r>
              <w:r><w:instrText> PAGE </w:instrText></w:r></w:p>
            <w:p/>
            <w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
            <w:sectPr><w:pgSz/></w:sectPr></w:body></w:document>"#;
        assert_eq!(text(xml, "word/document.xml").unwrap(), "Mlýny na řece\tstály\ndlouho & pevně-x\ncell");
    }
}
