//! HTML: the text a browser shows, parsed by html5ever (through scraper) as
//! browsers parse, so that broken markup and entities come out as they do.
//!
//! Block elements (paragraphs, headings, list items, table cells, …) and
//! `<br>` end a line; white space collapses to one space except in `<pre>`;
//! what is not shown is left out: the `<head>` (with the title), scripts,
//! styles, templates, `<noscript>` and embedded SVG.

use ego_tree::iter::Edge;
use scraper::{Html, Node};

use super::TextWriter;

/// Elements whose content is not shown as text.
const HIDDEN: [&str; 8] = ["head", "script", "style", "template", "noscript", "svg", "iframe", "object"];

/// Elements that start and end a line.
const BLOCKS: [&str; 37] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "td",
    "th",
    "tr",
];

/// The text of the HTML page `html`.
pub fn html_text(html: &str) -> String {
    let document = Html::parse_document(html);
    let mut writer = TextWriter::default();
    // Depths of the hidden and preformatted elements the walk is inside.
    let (mut hidden, mut preformatted) = (0usize, 0usize);
    for edge in document.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(element) => {
                    let name = element.name();
                    hidden += usize::from(HIDDEN.contains(&name));
                    preformatted += usize::from(name == "pre");
                    if hidden == 0 && BLOCKS.contains(&name) {
                        writer.end_paragraph();
                    }
                }
                Node::Text(text) if hidden == 0 => {
                    if preformatted > 0 {
                        writer.literal(&text[..]);
                    } else {
                        writer.collapsed(&text[..]);
                    }
                }
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(element) = node.value() {
                    let name = element.name();
                    hidden -= usize::from(HIDDEN.contains(&name));
                    preformatted -= usize::from(name == "pre");
                    if hidden == 0 && BLOCKS.contains(&name) {
                        writer.end_paragraph();
                    }
                }
            }
        }
    }
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_text_with_blocks_on_their_own_lines() {
        let html = "<!DOCTYPE html><html><head><title>Title</title><style>p {}</style></head>\n\
            <body><h1>Mlýny</h1>\n<p>První   odstavec,\n  <b>tučně</b> &amp; dál&shy;e.</p>\
            <script>var x = 1;</script><ul><li>one<li>two</ul>\
            <pre>  kept\n  as is</pre><p>a<br>b</p><table><tr><td>c1<td>c2</table>unclosed <i>end";
        assert_eq!(
            html_text(html),
            "Mlýny\nPrvní odstavec, tučně & dále.\none\ntwo\n  kept\n  as is\na\nb\nc1\nc2\nunclosed end"
        );
    }

    #[test]
    fn text_without_markup_is_its_own_text() {
        assert_eq!(html_text("Just a line of text."), "Just a line of text.");
    }
}
