//! The PAN XML format: one `<document reference="...">` element per text, holding
//! `<feature .../>` elements (any child element with a `name` attribute counts, as
//! in PAN's scripts).
//!
//! Detectors write features named `detected-plagiarism`; corpora keep their ground
//! truth in features named `plagiarism` (PAN-PC-10), `artificial-plagiarism` or
//! `simulated-plagiarism` (PAN-PC-09/11). A feature is kept as its ordered list of
//! attributes, so that a file read and written again keeps every attribute, and
//! typed accessors read the offsets.

use quick_xml::events::{BytesDecl, BytesStart, Event};
use quick_xml::{Reader, Writer};

use crate::analysis::span::CharRange;

/// Feature name of a detection written by a detector.
pub const DETECTION_FEATURE: &str = "detected-plagiarism";

/// Feature names that mark a ground-truth plagiarism case.
pub const TRUTH_FEATURES: [&str; 3] = ["plagiarism", "artificial-plagiarism", "simulated-plagiarism"];

/// One `<feature/>` element: its `name` and its other attributes in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    /// The `name` attribute, e.g. `detected-plagiarism`.
    pub name: String,
    /// The other attributes, in the order they are written.
    pub attributes: Vec<(String, String)>,
}

/// A parsed or to-be-written PAN XML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanDocument {
    /// The `reference` attribute: the file name of the suspicious document.
    pub reference: String,
    /// The features in file order.
    pub features: Vec<Feature>,
}

/// Why a PAN XML file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct XmlError {
    /// 1-based line of the problem.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl Feature {
    /// A `detected-plagiarism` feature as a detector reports it.
    pub fn detection(this: CharRange, source_reference: &str, source: CharRange) -> Feature {
        Feature {
            name: DETECTION_FEATURE.to_string(),
            attributes: vec![
                ("this_offset".into(), this.start.to_string()),
                ("this_length".into(), this.len().to_string()),
                ("source_reference".into(), source_reference.to_string()),
                ("source_offset".into(), source.start.to_string()),
                ("source_length".into(), source.len().to_string()),
            ],
        }
    }

    /// The value of attribute `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Attribute `key` as a non-negative integer; an error names the attribute
    /// when it is missing, negative or not a number.
    pub fn offset(&self, key: &str) -> Result<u64, String> {
        let value = self.get(key).ok_or_else(|| format!("feature '{}' has no {key}", self.name))?;
        value
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("feature '{}' has {key}=\"{value}\", not a non-negative integer", self.name))
    }

    /// The range `this_offset .. this_offset + this_length` in the suspicious document.
    pub fn this_range(&self) -> Result<(u64, u64), String> {
        self.range("this_offset", "this_length")
    }

    /// The range `source_offset .. source_offset + source_length` in the source document.
    pub fn source_range(&self) -> Result<(u64, u64), String> {
        self.range("source_offset", "source_length")
    }

    /// `offset .. offset + length`; an error when the end does not fit in a u64
    /// (a wrapped end would pass a check against a document's length).
    fn range(&self, offset_key: &str, length_key: &str) -> Result<(u64, u64), String> {
        let (offset, length) = (self.offset(offset_key)?, self.offset(length_key)?);
        let end = offset.checked_add(length).ok_or_else(|| {
            format!("feature '{}' has {offset_key}={offset} plus {length_key}={length}, past 2^64", self.name)
        })?;
        Ok((offset, end))
    }
}

impl PanDocument {
    /// An empty report for the document named `reference`.
    pub fn new(reference: &str) -> PanDocument {
        PanDocument { reference: reference.to_string(), features: Vec::new() }
    }

    /// The document as XML text: declaration, `<document>`, one feature per line.
    pub fn to_xml(&self) -> String {
        let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
        // Writing into a Vec<u8> cannot fail, so the results below are infallible.
        writer
            .write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
            .expect("writing to a Vec cannot fail");
        let root = BytesStart::new("document").with_attributes([("reference", self.reference.as_str())]);
        if self.features.is_empty() {
            writer.write_event(Event::Empty(root)).expect("writing to a Vec cannot fail");
        } else {
            writer.write_event(Event::Start(root.borrow())).expect("writing to a Vec cannot fail");
            for feature in &self.features {
                let element = BytesStart::new("feature")
                    .with_attributes([("name", feature.name.as_str())])
                    .with_attributes(feature.attributes.iter().map(|(k, v)| (k.as_str(), v.as_str())));
                writer.write_event(Event::Empty(element)).expect("writing to a Vec cannot fail");
            }
            writer.write_event(Event::End(root.to_end())).expect("writing to a Vec cannot fail");
        }
        let mut bytes = writer.into_inner();
        bytes.push(b'\n');
        // quick-xml writes the &str pieces it was given, so the bytes are UTF-8.
        String::from_utf8(bytes).expect("XML built from &str is UTF-8")
    }

    /// Parses PAN XML text.
    ///
    /// A feature is any element directly inside `<document>` that has a `name`
    /// attribute, whatever the element is called: the official PAN scripts take
    /// every child of the document element by its `name`, and a real corpus has
    /// `<featue name="plagiarism" .../>`. Other elements are ignored; a
    /// `<feature>` without `name`, or outside `<document>`, is an error, and so
    /// are a second root element or a second `<document>` (which would replace
    /// the first one's features) and an element left open at the end of the text
    /// (a truncated file).
    pub fn parse(text: &str) -> Result<PanDocument, XmlError> {
        PanDocument::parse_with_lines(text).map(|(document, _)| document)
    }

    /// [`PanDocument::parse`], also returning the 1-based line of each feature.
    pub fn parse_with_lines(text: &str) -> Result<(PanDocument, Vec<usize>), XmlError> {
        if let Some((at, c)) = text.char_indices().find(|&(_, c)| !is_xml_char(c)) {
            let message = format!("U+{:04X} at byte {at}, which XML cannot hold", u32::from(c));
            return Err(XmlError { line: line_of(text, at), message });
        }
        let mut lines_so_far = LineCounter::new(text);
        let mut reader = Reader::from_str(text);
        let mut document: Option<PanDocument> = None;
        let mut lines = Vec::new();
        // Elements open around the current event, and how many were open around `<document>`.
        let mut open: Vec<String> = Vec::new();
        let mut document_depth = None;
        let mut roots = 0usize;
        loop {
            let position = reader.buffer_position() as usize;
            let event = reader.read_event().map_err(|e| XmlError {
                line: line_of(text, reader.error_position() as usize),
                message: e.to_string(),
            })?;
            let line = lines_so_far.line_at(position);
            let fail = |message: String| XmlError { line, message };
            match event {
                Event::Start(ref element) | Event::Empty(ref element) => {
                    let depth = open.len();
                    let is_feature_tag = element.name().as_ref() == "feature";
                    if depth == 0 {
                        roots += 1;
                        if roots > 1 {
                            return Err(fail("more than one root element".into()));
                        }
                    }
                    if element.name().as_ref() == "document" {
                        if document.is_some() {
                            return Err(fail("a second <document> element".into()));
                        }
                        let attributes = attributes_of(element).map_err(fail)?;
                        let reference =
                            attributes.into_iter().find(|(k, _)| k == "reference").map(|(_, v)| v).unwrap_or_default();
                        document = Some(PanDocument::new(&reference));
                        document_depth = Some(depth);
                    } else if let Some(document) =
                        document.as_mut().filter(|_| document_depth.map(|d| d + 1) == Some(depth))
                    {
                        let mut attributes = attributes_of(element).map_err(fail)?;
                        match attributes.iter().position(|(k, _)| k == "name") {
                            Some(index) => {
                                let (_, name) = attributes.remove(index);
                                document.features.push(Feature { name, attributes });
                                lines.push(line);
                            }
                            None if is_feature_tag => return Err(fail("<feature> without a name attribute".into())),
                            None => {}
                        }
                    } else if is_feature_tag && document.is_none() {
                        return Err(fail("<feature> outside <document>".into()));
                    }
                    if matches!(event, Event::Start(_)) {
                        open.push(element.name().as_ref().to_string());
                    }
                }
                Event::End(_) => {
                    open.pop();
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if let Some(element) = open.last() {
            let message = format!("the text ends inside <{element}> (a truncated file?)");
            return Err(XmlError { line: line_of(text, text.len()), message });
        }
        match document {
            Some(document) => Ok((document, lines)),
            None => Err(XmlError { line: line_of(text, text.len()), message: "no <document> element".into() }),
        }
    }
}

fn attributes_of(element: &BytesStart) -> Result<Vec<(String, String)>, String> {
    element
        .attributes()
        .map(|attribute| {
            let attribute = attribute.map_err(|e| e.to_string())?;
            let key = attribute.key.as_ref().to_string();
            // quick-xml reads a name up to `=` without checking it; a name
            // holding quotes or `<` would be written back as broken XML.
            if !is_xml_name(&key) {
                return Err(format!("attribute name {key:?} is not an XML name"));
            }
            let value =
                attribute.normalized_value(quick_xml::XmlVersion::Implicit1_0).map_err(|e| e.to_string())?.into_owned();
            // A character reference such as `&#1;` or `&#0;` names a character
            // XML cannot hold as surely as the raw character does.
            if let Some(c) = value.chars().find(|&c| !is_xml_char(c)) {
                return Err(format!("attribute {key} holds U+{:04X}, which XML cannot hold", u32::from(c)));
            }
            Ok((key, value))
        })
        .collect()
}

/// True for an XML 1.0 `Name` (fifth edition, productions 4, 4a and 5).
fn is_xml_name(name: &str) -> bool {
    fn is_start(c: char) -> bool {
        matches!(c, ':' | 'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
            | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
            | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
            | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
    }
    fn is_name_char(c: char) -> bool {
        is_start(c) || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
    }
    let mut chars = name.chars();
    chars.next().is_some_and(is_start) && chars.all(is_name_char)
}

/// True for a character XML 1.0 can hold (fifth edition, production 2:
/// `Char`): tab, line feed, carriage return and every other character but
/// the C0 controls, the surrogates, U+FFFE and U+FFFF. PAN's scripts (Python's
/// minidom) refuse a file holding any other, even as a character reference.
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The 1-based lines of ever later byte positions of a text, counted in one
/// pass over it (a line counted from the start for every feature made
/// reading a file of 30,000 features take half a minute).
struct LineCounter<'a> {
    text: &'a [u8],
    /// Bytes counted so far.
    counted: usize,
    /// The line of byte `counted`.
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        LineCounter { text: text.as_bytes(), counted: 0, line: 1 }
    }

    /// The line of byte `byte`, which is at or after every byte asked for before.
    fn line_at(&mut self, byte: usize) -> usize {
        let end = byte.clamp(self.counted, self.text.len());
        self.line += self.text[self.counted..end].iter().filter(|&&b| b == b'\n').count();
        self.counted = end;
        self.line
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    let end = byte.min(text.len());
    text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_report_round_trips() {
        let mut document = PanDocument::new("suspicious-document00042.txt");
        document.features.push(Feature::detection(
            CharRange::new(5120, 6942),
            "source-document00007.txt",
            CharRange::new(310, 2100),
        ));
        let xml = document.to_xml();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<document reference="));
        assert!(xml.contains(
            "<feature name=\"detected-plagiarism\" this_offset=\"5120\" this_length=\"1822\" \
             source_reference=\"source-document00007.txt\" source_offset=\"310\" source_length=\"1790\"/>"
        ));
        let parsed = PanDocument::parse(&xml).unwrap();
        assert_eq!(parsed, document);
        assert_eq!(parsed.features[0].this_range(), Ok((5120, 6942)));
        assert_eq!(parsed.features[0].source_range(), Ok((310, 2100)));
    }

    #[test]
    fn empty_report_is_an_empty_document_element() {
        let xml = PanDocument::new("a&b.txt").to_xml();
        assert!(xml.contains("<document reference=\"a&amp;b.txt\"/>"), "{xml}");
        assert_eq!(PanDocument::parse(&xml).unwrap(), PanDocument::new("a&b.txt"));
    }

    #[test]
    fn reads_pan_truth_with_extra_attributes() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<document reference="suspicious-document00001.txt">
  <feature name="plagiarism" type="artificial" obfuscation="high" this_offset="461" this_length="712" source_reference="source-document00091.txt" source_offset="582" source_length="747"/>
  <feature name="about" language="en"/>
</document>"#;
        let document = PanDocument::parse(xml).unwrap();
        assert_eq!(document.features.len(), 2);
        assert_eq!(document.features[0].get("obfuscation"), Some("high"));
        assert_eq!(document.features[0].this_range(), Ok((461, 1173)));
        assert!(document.features[1].this_range().is_err());
    }

    #[test]
    fn a_feature_is_any_child_of_document_with_a_name() {
        let xml = r#"<document reference="s.txt">
  <featue name="plagiarism" this_offset="1" this_length="2"/>
  <feature name="detected-plagiarism" this_offset="3" this_length="4"><note name="not a child"/></feature>
  <comment>no name</comment>
</document>"#;
        let (document, lines) = PanDocument::parse_with_lines(xml).unwrap();
        let names: Vec<&str> = document.features.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["plagiarism", "detected-plagiarism"]);
        assert_eq!(lines, [2, 3]);
        assert_eq!(document.features[0].this_range(), Ok((1, 3)));
    }

    #[test]
    fn errors_carry_the_line() {
        let xml = "<document reference=\"x\">\n  <feature name=\"a\" this_offset=\"1\n</document>";
        let error = PanDocument::parse(xml).unwrap_err();
        assert!(error.line >= 2, "{error:?}");
        let negative = PanDocument::parse(
            "<document reference=\"x\">\n<feature name=\"p\" this_offset=\"-3\" this_length=\"2\"/></document>",
        )
        .unwrap();
        assert!(negative.features[0].this_range().unwrap_err().contains("-3"));
        // Found by fuzz/fuzz_targets/pan_xml.rs: the end overflowed u64 (a panic
        // in debug builds, a wrapped end that passed range checks in release).
        let huge = PanDocument::parse(
            "<document reference=\"x\"><feature name=\"p\" this_offset=\"18446744073709551615\" this_length=\"1\" \
             source_offset=\"1\" source_length=\"18446744073709551615\"/></document>",
        )
        .unwrap();
        assert!(huge.features[0].this_range().unwrap_err().contains("past 2^64"));
        assert!(huge.features[0].source_range().unwrap_err().contains("source_length=18446744073709551615"));
        assert!(PanDocument::parse("<feature name=\"p\"/>").is_err());
        assert!(PanDocument::parse("").is_err());
    }

    #[test]
    fn a_second_root_or_document_element_is_an_error() {
        // A second root <document> used to replace the first one's features silently.
        let feature = "<feature name=\"p\" this_offset=\"1\" this_length=\"2\"/>";
        let two_roots = format!("<document reference=\"x\">\n{feature}\n</document>\n<document reference=\"x\"/>\n");
        let error = PanDocument::parse(&two_roots).unwrap_err();
        assert_eq!(error, XmlError { line: 4, message: "more than one root element".into() });
        let after_other_root = format!("<other/>\n<document reference=\"x\">{feature}</document>");
        assert_eq!(PanDocument::parse(&after_other_root).unwrap_err().message, "more than one root element");
        let nested = format!("<document reference=\"x\">{feature}\n<document reference=\"y\"/></document>");
        let error = PanDocument::parse(&nested).unwrap_err();
        assert_eq!(error, XmlError { line: 2, message: "a second <document> element".into() });
        let wrapped = format!(
            "<?xml version=\"1.0\"?>\n<!-- c -->\n<root><document reference=\"x\">{feature}</document></root>\n"
        );
        assert_eq!(PanDocument::parse(&wrapped).unwrap().features.len(), 1);
    }

    #[test]
    fn a_truncated_text_is_an_error() {
        let whole =
            "<document reference=\"x\">\n<feature name=\"p\" this_offset=\"1\" this_length=\"2\"/>\n</document>\n";
        assert!(PanDocument::parse(whole).is_ok());
        // Cut at the end of a line: every element read so far is well-formed.
        let cut = &whole[..whole.find("</document>").unwrap()];
        let error = PanDocument::parse(cut).unwrap_err();
        assert_eq!(error, XmlError { line: 3, message: "the text ends inside <document> (a truncated file?)".into() });
        let inside_feature = "<document reference=\"x\"><feature name=\"p\">";
        assert!(PanDocument::parse(inside_feature).unwrap_err().message.contains("inside <feature>"));
    }

    #[test]
    fn attribute_names_that_are_not_xml_names_are_errors() {
        // Found by fuzz/fuzz_targets/pan_xml.rs: quick-xml read `'">e` and
        // `a<b` as attribute names, and to_xml wrote them back as broken XML.
        let crash = "<document reference=\"x\">\n<feature name=\"de\" '\">e=\"s'ocut=\"7\"/>\n</document>";
        let error = PanDocument::parse(crash).unwrap_err();
        assert!(error.message.contains("not an XML name") && error.line == 2, "{error:?}");
        assert!(PanDocument::parse("<document reference=\"x\"><feature name=\"p\" a<b=\"1\"/></document>").is_err());
        assert!(PanDocument::parse("<document 1st=\"x\"/>").is_err());
        let fine = "<document reference=\"x\"><feature name=\"p\" x:a-b.c_1=\"1\" déjà=\"2\"/></document>";
        let document = PanDocument::parse(fine).unwrap();
        assert_eq!(document.features[0].get("déjà"), Some("2"));
        assert_eq!(PanDocument::parse(&document.to_xml()).unwrap(), document);
    }

    #[test]
    fn characters_xml_cannot_hold_are_errors_raw_or_as_references() {
        let document =
            |reference: &str| format!("<document reference=\"{reference}\">\n<feature name=\"x\"/>\n</document>");
        for (reference, message) in [
            ("a\u{1}.txt", "line 1: U+0001 at byte 22, which XML cannot hold"),
            ("a\0.txt", "line 1: U+0000 at byte 22, which XML cannot hold"),
            ("a&#1;.txt", "line 1: attribute reference holds U+0001, which XML cannot hold"),
            ("a&#0;.txt", "line 1: invalid character reference: 0x0 character is not permitted in XML"),
            ("a\u{fffe}.txt", "line 1: U+FFFE at byte 22, which XML cannot hold"),
        ] {
            let error = PanDocument::parse(&document(reference)).unwrap_err();
            assert_eq!(error.to_string(), message, "{reference:?}");
        }
        let kept = PanDocument::parse(&document("tab\t&#9;é𝄞.txt")).unwrap();
        assert_eq!(kept.reference, "tab \té𝄞.txt", "attribute-value normalisation turns a raw tab into a space");
    }

    proptest::proptest! {
        /// The lines counted in one pass are those counted from the start
        /// for each feature, as it was done before (quadratic in features).
        #[test]
        fn the_lines_of_features_counted_in_one_pass_are_those_counted_from_the_start(
            breaks in proptest::collection::vec((0usize..3, 0usize..3), 0..40),
        ) {
            let mut xml = String::from("<?xml version=\"1.0\"?>\n<document reference=\"s.txt\">");
            for (i, &(before, inside)) in breaks.iter().enumerate() {
                xml.push_str(&"\n".repeat(before));
                xml.push_str(&format!("<feature{}name=\"f\" n=\"{i}\"/>", if inside > 0 { "\n " } else { " " }));
            }
            xml.push_str("\n</document>\n");
            let (_, lines) = PanDocument::parse_with_lines(&xml).unwrap();
            let from_the_start: Vec<usize> = xml.match_indices("<feature").map(|(at, _)| line_of(&xml, at)).collect();
            proptest::prop_assert_eq!(lines, from_the_start);
        }
    }
}
