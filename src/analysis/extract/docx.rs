//! DOCX (Office Open XML): the text of `word/document.xml`.
//!
//! Text runs (`w:t`) as written, tabs, line breaks, and a line break after
//! each paragraph (also in tables and text boxes). Left out: deleted and
//! moved-away revisions, the fallback copy of drawings (`mc:Fallback`, which
//! repeats the text boxes), field codes (`w:instrText`, not text runs), and
//! what other parts hold: headers, footers, footnotes and comments.

use quick_xml::events::BytesStart;

use super::layout::{Layout, Place, Unit};
use super::xml::{self, Node};
use super::{ExtractError, TextWriter};

/// Elements whose content is not the document's text.
const SKIPPED: [&str; 6] = ["pPr", "rPr", "del", "moveFrom", "Fallback", "sectPr"];

/// The page breaks a DOCX records: those of Word's last rendering
/// (`w:lastRenderedPageBreak`, every page) when it has any, else the manual
/// ones (`w:br w:type="page"`, which the rendered ones include), else none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PageBreaks {
    Rendered,
    Manual,
    None,
}

impl PageBreaks {
    fn of(xml: &str) -> PageBreaks {
        if xml.contains("lastRenderedPageBreak") {
            PageBreaks::Rendered
        } else if xml.contains("type=\"page\"") {
            PageBreaks::Manual
        } else {
            PageBreaks::None
        }
    }

    /// Whether the empty element `element` breaks the page.
    fn is_break(self, element: &BytesStart<'_>) -> bool {
        match (self, element.local_name().as_ref()) {
            (PageBreaks::Rendered, "lastRenderedPageBreak") => true,
            (PageBreaks::Manual, "br") => {
                element.attributes().flatten().any(|a| a.key.local_name().as_ref() == "type" && &*a.value == "page")
            }
            _ => false,
        }
    }
}

/// Counts pages and paragraphs for the places of a DOCX's text: the page and
/// the paragraph on it when the document records its page breaks (a
/// paragraph continued from the previous page is that page's paragraph 1),
/// else the paragraph in the whole document.
struct Places {
    breaks: PageBreaks,
    page: u32,
    paragraph: u32,
    /// A page break with no text after it yet: the next paragraph is the
    /// page's first.
    broken: bool,
}

impl Places {
    fn place(&self) -> Place {
        let page = (self.breaks != PageBreaks::None).then_some(self.page);
        Place { page, unit: Unit::Paragraph, number: self.paragraph }
    }

    fn paragraph(&mut self) -> Place {
        if !self.broken {
            self.paragraph += 1;
        }
        self.place()
    }

    fn page_break(&mut self) -> Place {
        (self.page, self.paragraph, self.broken) = (self.page + 1, 1, true);
        self.place()
    }
}

/// The text of a DOCX's main part `xml` (the entry `part`).
#[cfg(test)]
pub(super) fn text(xml: &str, part: &str) -> Result<String, ExtractError> {
    Ok(text_with_layout(xml, part)?.0)
}

/// The text of a DOCX's main part `xml` (the entry `part`), and the place of
/// each paragraph.
pub(super) fn text_with_layout(xml: &str, part: &str) -> Result<(String, Layout), ExtractError> {
    let mut writer = TextWriter::default();
    let mut in_run_text = false;
    let breaks = PageBreaks::of(xml);
    let mut places = Places { breaks, page: 1, paragraph: 0, broken: false };
    xml::walk(xml, part, &SKIPPED, |node| match node {
        Node::Open(element) => {
            in_run_text = element.local_name().as_ref() == "t";
            if element.local_name().as_ref() == "p" {
                writer.mark(places.paragraph());
            }
        }
        Node::Leaf(element) => {
            if breaks.is_break(element) {
                writer.mark(places.page_break());
            }
            match element.local_name().as_ref() {
                "tab" | "ptab" => writer.literal("\t"),
                "br" | "cr" => writer.literal("\n"),
                "noBreakHyphen" => writer.literal("-"),
                _ => {}
            }
        }
        Node::Close(name) => match name {
            "t" => in_run_text = false,
            "p" => writer.end_paragraph(),
            _ => {}
        },
        Node::Text(text) if in_run_text => {
            places.broken = false;
            writer.literal(text);
        }
        Node::Text(_) => {}
    })?;
    Ok(writer.finish_with_layout())
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

    /// The place of the first character of `needle` in the text of `xml`.
    fn place_of(xml: &str, needle: &str) -> Option<String> {
        let (text, layout) = text_with_layout(xml, "word/document.xml").unwrap();
        let offset = text[..text.find(needle).unwrap()].chars().count() as u32;
        layout.place_of(offset).map(|place| place.to_string())
    }

    #[test]
    fn paragraphs_are_placed_on_the_pages_word_recorded_or_counted_in_the_document() {
        let p = |text: &str| format!("<w:p><w:r><w:t>{text}</w:t></w:r></w:p>");
        let body = |inner: &str| format!("<w:document xmlns:w=\"w\"><w:body>{inner}</w:body></w:document>");
        let plain = body(&[p("první"), p("druhý"), p("třetí")].concat());
        assert_eq!(place_of(&plain, "třetí").as_deref(), Some("paragraph 3"));
        let manual = body(
            &[
                p("první"),
                "<w:p><w:r><w:t>druhý</w:t></w:r><w:r><w:br w:type=\"page\"/></w:r></w:p>".to_string(),
                p("třetí"),
                p("čtvrtý"),
            ]
            .concat(),
        );
        assert_eq!(place_of(&manual, "druhý").as_deref(), Some("page 1, paragraph 2"));
        assert_eq!(place_of(&manual, "třetí").as_deref(), Some("page 2, paragraph 1"));
        assert_eq!(place_of(&manual, "čtvrtý").as_deref(), Some("page 2, paragraph 2"));
        let rendered = body(
            &[
                p("první"),
                "<w:p><w:r><w:t>začátek</w:t><w:lastRenderedPageBreak/><w:t>konec</w:t></w:r></w:p>".to_string(),
                p("další"),
            ]
            .concat(),
        );
        assert_eq!(place_of(&rendered, "začátek").as_deref(), Some("page 1, paragraph 2"));
        assert_eq!(place_of(&rendered, "konec").as_deref(), Some("page 2, paragraph 1"));
        assert_eq!(place_of(&rendered, "další").as_deref(), Some("page 2, paragraph 2"));
    }
}
