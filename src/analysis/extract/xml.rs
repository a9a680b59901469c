//! Walking the XML part of an office document that holds its text.

use quick_xml::Reader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};

use super::ExtractError;

/// What a walk over an XML part shows of it.
pub(super) enum Node<'e, 'x> {
    /// A start tag.
    Open(&'e BytesStart<'x>),
    /// An empty element (`<w:tab/>`).
    Leaf(&'e BytesStart<'x>),
    /// An end tag, by its local name.
    Close(&'e str),
    /// Character data, references resolved.
    Text(&'e str),
}

/// Walks the XML `xml` (the entry `part` of the document), showing `visit`
/// every node outside the elements whose local names are in `skipped`
/// (comments, deleted text, footnotes). Elements are matched by local name,
/// whatever prefix their namespace has.
pub(super) fn walk(
    xml: &str,
    part: &str,
    skipped: &[&str],
    mut visit: impl FnMut(Node<'_, '_>),
) -> Result<(), ExtractError> {
    let mut reader = Reader::from_str(xml);
    let mut skipping = 0usize;
    loop {
        let event = reader.read_event().map_err(|error| {
            ExtractError(format!("{part} is not well-formed XML ({error} at byte {})", reader.error_position()))
        })?;
        let is_skipped = |element: &BytesStart<'_>| skipped.contains(&element.local_name().as_ref());
        match event {
            Event::Eof => return Ok(()),
            Event::Start(element) if skipping > 0 || is_skipped(&element) => skipping += 1,
            Event::End(_) if skipping > 0 => skipping -= 1,
            _ if skipping > 0 => {}
            Event::Start(element) => visit(Node::Open(&element)),
            Event::Empty(element) if !is_skipped(&element) => visit(Node::Leaf(&element)),
            Event::End(element) => visit(Node::Close(element.local_name().as_ref())),
            Event::Text(text) => visit(Node::Text(&text.xml10_content())),
            Event::CData(text) => visit(Node::Text(&text.xml10_content())),
            Event::GeneralRef(reference) => {
                if let Some(text) = resolve(&reference) {
                    visit(Node::Text(&text));
                }
            }
            _ => {}
        }
    }
}

/// The text of a character reference or predefined entity; `None` for any
/// other entity (office formats declare none).
fn resolve(reference: &BytesRef<'_>) -> Option<String> {
    match reference.resolve_char_ref() {
        Ok(Some(c)) => Some(c.to_string()),
        Ok(None) => resolve_predefined_entity(reference).map(str::to_string),
        Err(_) => None,
    }
}

/// The value of attribute `name` (qualified, e.g. `text:c`) of `element`.
pub(super) fn attribute(element: &BytesStart<'_>, name: &str) -> Option<String> {
    let attribute = element.try_get_attribute(name).ok()??;
    attribute.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok().map(|value| value.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_subtrees_are_not_shown_and_references_are_resolved() {
        let xml = "<a><b>one &amp; &#x10D;</b><skip><b>hidden</b></skip><skip/><c x='1'/></a>";
        let mut seen = Vec::new();
        walk(xml, "part.xml", &["skip"], |node| match node {
            Node::Open(element) => seen.push(format!("<{}>", element.local_name().as_ref())),
            Node::Leaf(element) => {
                seen.push(format!("<{} x={:?}/>", element.local_name().as_ref(), attribute(element, "x")))
            }
            Node::Close(name) => seen.push(format!("</{name}>")),
            Node::Text(text) => seen.push(text.to_string()),
        })
        .unwrap();
        assert_eq!(seen, ["<a>", "<b>", "one ", "&", " ", "č", "</b>", "<c x=Some(\"1\")/>", "</a>"]);
    }

    #[test]
    fn malformed_xml_is_named() {
        let error = walk("<a><b></a>", "word/document.xml", &[], |_| {}).unwrap_err().to_string();
        assert!(error.starts_with("word/document.xml is not well-formed XML ("), "{error}");
    }
}
