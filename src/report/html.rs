//! HTML reports for people: one self-contained page per document (its text
//! with the passages highlighted, each passage beside its source passage with
//! the differing words marked, the similarity to each source, links between
//! the passages) and an index page of all documents by similarity.
//!
//! The pages work offline and without JavaScript: styles are inline, there is
//! no external resource of any kind (no font, image, script or style sheet),
//! navigation is plain links and anchors; a few lines of inline script only
//! add keyboard shortcuts (`j`/`n` next passage, `k`/`p` previous).
//!
//! The highlighted text is exact: a passage's highlight holds exactly the
//! characters of its range of the text (offsets count characters, as in every
//! report). Two characters cannot appear in a page as they are: a carriage
//! return is written as `&#13;` (HTML parsing would turn a raw one into a line
//! feed) and NUL, which no HTML page can hold, as U+FFFD; both keep the text's
//! length in characters.

// Pages are built with `write!` into a `String`, which cannot fail: its
// `fmt::Result`s are ignored (`let _ = write!(...)`).
use std::fmt::Write as _;
use std::time::Duration;

use ::similar::{Algorithm, ChangeTag, TextDiff};

use super::model::{DocumentReport, DocumentTexts, PassageReport, SourceReport};
use crate::analysis::extract::layout::Layout;
use crate::analysis::span::{CharIndexed, CharRange, char_slice};

/// The `generator` meta tag every page carries: a report directory replaces
/// an HTML file only when it has it, so that it never overwrites a page it
/// did not write.
pub const GENERATOR: &str = r#"<meta name="generator" content="pan-detect report">"#;

/// The name of the index page in a report directory.
pub const INDEX_PAGE: &str = "index.html";

/// Bytes at the start of a page searched for [`GENERATOR`].
const GENERATOR_PROBE_BYTES: usize = 1024;

/// How long the word diff of one passage pair may take before it settles for
/// a coarser (still correct) diff: a long, heavily rewritten passage must not
/// stall a run.
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// Background colours of the sources' highlights, by source rank (repeating).
const SOURCE_COLOURS: usize = 8;

/// Why `bytes` are not a page of a pan-detect HTML report; `Ok` when they are.
pub fn check_is_report(bytes: &[u8]) -> Result<(), String> {
    let head = &bytes[..bytes.len().min(GENERATOR_PROBE_BYTES)];
    if head.windows(GENERATOR.len()).any(|window| window == GENERATOR.as_bytes()) {
        Ok(())
    } else {
        Err("not an HTML page of a pan-detect report (no pan-detect generator tag)".to_string())
    }
}

/// The HTML page of one document's report, with `texts` (the document's and
/// its sources'); `index` links back to the index page when there is one.
pub fn render_document(report: &DocumentReport, texts: &DocumentTexts, index: bool) -> String {
    let passages = report.passages_in_order();
    let mut page = String::new();
    open_page(&mut page, &report.name, "document");
    page.push_str("<aside id=\"top\"><header>");
    if index {
        let _ = write!(page, "<p class=\"crumbs\"><a href=\"{INDEX_PAGE}\">← All documents</a></p>");
    }
    let _ = write!(page, "<h1>{}</h1><p class=\"summary\">", escape(&report.name));
    let _ = write!(
        page,
        "<strong>{} %</strong> of its {} characters are in {} from {}.</p></header>",
        percent_text(report.aligned_percent),
        report.chars,
        counted(passages.len(), "passage"),
        counted(report.sources.iter().filter(|s| !s.passages.is_empty()).count(), "source"),
    );
    render_sources(&mut page, report);
    render_passage_list(&mut page, report, texts, &passages);
    render_legend(&mut page, !passages.is_empty());
    page.push_str("</aside><main>");
    render_text(&mut page, report, &texts.document, &passages);
    render_pairs(&mut page, texts, &passages);
    close_page(&mut page);
    page
}

/// One line of the index page: a document and its report.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// The document's name.
    pub name: String,
    /// The file name of its page, relative to the index page.
    pub page: String,
    /// Characters of the document.
    pub chars: u64,
    /// Share of the document in passages, in percent.
    pub aligned_percent: f64,
    /// The source with the largest share of the document, with that share.
    pub top_source: Option<(String, f64)>,
    /// Sources with passages.
    pub sources: usize,
    /// Passages.
    pub passages: usize,
}

impl IndexEntry {
    /// The index line of `report`, whose page is the file `page`.
    pub fn of(report: &DocumentReport, page: &str) -> Self {
        let with_passages = report.sources.iter().filter(|s| !s.passages.is_empty());
        IndexEntry {
            name: report.name.clone(),
            page: page.to_string(),
            chars: report.chars,
            aligned_percent: report.aligned_percent,
            top_source: with_passages.clone().next().map(|s| (s.name.clone(), s.document_aligned_percent)),
            sources: with_passages.count(),
            passages: report.passage_count(),
        }
    }
}

/// The index page: every document of `entries`, most similar first (by the
/// share of it in passages, then by name).
pub fn render_index(entries: &[IndexEntry]) -> String {
    let mut sorted: Vec<&IndexEntry> = entries.iter().collect();
    sorted.sort_by(|a, b| b.aligned_percent.total_cmp(&a.aligned_percent).then_with(|| a.name.cmp(&b.name)));
    let mut page = String::new();
    open_page(&mut page, "All documents", "index");
    let with_passages = entries.iter().filter(|e| e.passages > 0).count();
    let _ = write!(
        page,
        "<main><header id=\"top\"><h1>All documents</h1><p class=\"summary\">{}, {with_passages} with passages, \
         most similar first.</p></header><table class=\"documents\"><thead><tr><th>#</th><th>Document</th>\
         <th>In passages</th><th>Largest source</th><th class=\"n\">Sources</th><th class=\"n\">Passages</th>\
         <th class=\"n\">Characters</th></tr></thead><tbody>",
        counted(entries.len(), "document"),
    );
    for (rank, entry) in (1..).zip(sorted) {
        let top = entry
            .top_source
            .as_ref()
            .map_or_else(String::new, |(name, share)| format!("{} ({} %)", escape(name), percent_text(*share)));
        let _ = write!(
            page,
            "<tr><td class=\"n\">{rank}</td><td><a href=\"{}\">{}</a></td><td>{}</td><td>{top}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            href(&entry.page),
            escape(&entry.name),
            bar(entry.aligned_percent),
            entry.sources,
            entry.passages,
            entry.chars,
        );
    }
    page.push_str("</tbody></table>");
    close_page(&mut page);
    page
}

/// The page's head, up to the opening of its body of class `class`.
fn open_page(page: &mut String, title: &str, class: &str) {
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n{GENERATOR}\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} · pan-detect</title>\n<style>{STYLE}</style>\n</head>\n<body class=\"{class}\">\n",
        escape(title)
    );
}

/// The page's end: the footer and the end of its `main`, the keyboard
/// shortcuts, the closing tags.
fn close_page(page: &mut String) {
    let _ = write!(
        page,
        "\n<footer>Written by pan-detect {}. Offsets count characters of the text as read.</footer></main>\n\
         <script>{SCRIPT}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
}

/// A source with its rank in the report, which picks its colour.
type RankedSource<'r> = (usize, &'r SourceReport);

/// The table of sources with their similarities; sources that share chunks
/// but no passage (`check`) folded away below it.
fn render_sources(page: &mut String, report: &DocumentReport) {
    let (with, without): (Vec<RankedSource<'_>>, Vec<RankedSource<'_>>) =
        report.sources.iter().enumerate().partition(|(_, s)| !s.passages.is_empty());
    page.push_str("<section id=\"sources\"><h2>Similarity to each source</h2>");
    if with.is_empty() {
        page.push_str("<p>No passage was found.</p>");
    } else {
        page.push_str(
            "<table class=\"sources\"><thead><tr><th>Source</th><th title=\"share of this document's characters \
             in passages with the source\">Of this</th><th title=\"share of the source's characters in passages \
             with this document\">Of the source</th><th class=\"n\" title=\"passages\">#</th></tr></thead><tbody>",
        );
        for (rank, source) in with {
            let _ = write!(
                page,
                "<tr><td><span class=\"swatch c{}\"></span>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
                rank % SOURCE_COLOURS,
                escape(&source.name),
                bar(source.document_aligned_percent),
                bar(source.source_aligned_percent),
                source.passages.len(),
            );
        }
        page.push_str(
            "</tbody></table><p class=\"explain\"><b>Of this</b>: the share of this document's characters in \
             passages with the source. <b>Of the source</b>: the share of the source's characters in passages with \
             this document. <b>#</b>: the passages.</p>",
        );
    }
    if !without.is_empty() {
        let _ = write!(
            page,
            "<details><summary>{} more share chunks with it but no passage</summary><ul>",
            counted(without.len(), "source")
        );
        for (_, source) in without {
            let common =
                source.common_chunks.map_or_else(String::new, |n| format!(": {}", counted(n as usize, "chunk")));
            let _ = write!(page, "<li>{}{common}</li>", escape(&source.name));
        }
        page.push_str("</ul></details>");
    }
    page.push_str("</section>");
}

/// The list of passages at the top, each linking to its place in the text
/// and to its side-by-side view, with where it is in each document.
fn render_passage_list(
    page: &mut String,
    report: &DocumentReport,
    texts: &DocumentTexts,
    passages: &[(&SourceReport, &PassageReport)],
) {
    if passages.is_empty() {
        return;
    }
    page.push_str("<nav id=\"passages\"><h2>Passages</h2><ol>");
    for (n, (source, passage)) in (1..).zip(passages) {
        let _ = write!(
            page,
            "<li><a href=\"#p{n}\">{}</a> · <a href=\"#pair-{n}\">side by side</a>\
             <span class=\"from\"><span class=\"swatch c{}\"></span>{}, {}</span></li>",
            located(passage.document.range(), Some(&texts.document_layout)),
            source_colour(report, source),
            escape(&source.name),
            located(passage.source.range(), texts.source_layouts.get(&source.name)),
        );
    }
    page.push_str("</ol></nav>");
}

/// What the page's marks and figures mean (the marks only when there are
/// passages).
fn render_legend(page: &mut String, passages: bool) {
    page.push_str("<section id=\"legend\"><h2>How to read this page</h2><ul class=\"legend\">");
    if passages {
        page.push_str(
            "<li><span class=\"c0\">Coloured text</span> is in a passage found in a source, in the colour of that \
             source in the table.</li><li><span class=\"c0 overlap\">A dashed outline</span> marks text in more than \
             one passage.</li><li><span class=\"badge\" data-n=\"1\"></span> marks where a passage starts, with \
             its number; it leads to the passage beside its source.</li><li>Side by side, <span class=\"changed\">\
             words underlined in red</span> are in one side and not in the other.</li>",
        );
    }
    page.push_str(
        "<li>A passage is placed by page and line of a PDF, by page and paragraph of a DOCX (by paragraph alone \
         when the file records no pages), and always by its characters: first–end (length), counted from 0 in the \
         text as read, as every report counts them.</li></ul></section>",
    );
}

/// Where `range` is: its place in the document when `layout` knows it, and
/// its characters (`page 3, line 12; characters 1200–1500 (300)`).
fn located(range: CharRange, layout: Option<&Layout>) -> String {
    match layout.and_then(|layout| layout.place_of(range.start)) {
        Some(place) => format!("{place}; characters {}", span_text(range)),
        None => format!("characters {}", span_text(range)),
    }
}

/// The document's text with every passage highlighted, numbered badges
/// (anchors `p1`, `p2`, ...) where passages start.
fn render_text(page: &mut String, report: &DocumentReport, text: &str, passages: &[(&SourceReport, &PassageReport)]) {
    let ranges: Vec<CharRange> = passages.iter().map(|(_, p)| p.document.range()).collect();
    let indexed = CharIndexed::new(text);
    let chars = u32::try_from(indexed.chars()).unwrap_or(u32::MAX);
    page.push_str("<section id=\"text\"><h2>The text</h2><div class=\"text\">");
    let mut anchored = 0; // Passages are sorted by start: their badges come in order.
    for segment in segments(chars, &ranges) {
        while let Some(range) = ranges.get(anchored).filter(|r| r.start.min(chars) <= segment.range.start) {
            let (source, _) = passages[anchored];
            anchored += 1;
            let _ = write!(
                page,
                "<a class=\"badge\" id=\"p{anchored}\" href=\"#pair-{anchored}\" data-n=\"{anchored}\" \
                 title=\"passage {anchored}, characters {}, from {}\"></a>",
                span_text(*range),
                escape(&source.name)
            );
        }
        // Both ends are inside the text: `segments` cuts at most at its end.
        let (Some(start), Some(end)) =
            (indexed.byte_offset(segment.range.start as usize), indexed.byte_offset(segment.range.end as usize))
        else {
            continue;
        };
        let piece = escape(&text[start..end]);
        match segment.passages.first() {
            None => page.push_str(&piece),
            Some(&first) => {
                let numbers: Vec<String> = segment.passages.iter().map(|i| (i + 1).to_string()).collect();
                let overlap = if segment.passages.len() > 1 { " overlap" } else { "" };
                let _ = write!(
                    page,
                    "<mark class=\"c{}{overlap}\" data-passages=\"{}\">{piece}</mark>",
                    source_colour(report, passages[first].0),
                    numbers.join(" ")
                );
            }
        }
    }
    for n in anchored + 1..=ranges.len() {
        let _ = write!(page, "<a class=\"badge\" id=\"p{n}\" href=\"#pair-{n}\" data-n=\"{n}\"></a>");
    }
    page.push_str("</div></section>");
}

/// Each passage beside its source passage, the words each lacks of the other
/// marked, with links to the previous and next passage.
fn render_pairs(page: &mut String, texts: &DocumentTexts, passages: &[(&SourceReport, &PassageReport)]) {
    if passages.is_empty() {
        return;
    }
    page.push_str("<section id=\"pairs\"><h2>Passages side by side</h2>");
    let total = passages.len();
    for (n, (source, passage)) in (1..).zip(passages) {
        let document = char_slice(&texts.document, passage.document.range());
        let source_text = texts.sources.get(&source.name).and_then(|t| char_slice(t, passage.source.range()));
        let (left, right) = match (document, source_text) {
            (Some(document), Some(source)) => marked_diff(document, source),
            (document, source) => (side_or_note(document, "document"), side_or_note(source, "source")),
        };
        let previous = step_link(n > 1, n - 1, "← previous");
        let next = step_link(n < total, n + 1, "next →");
        let _ = write!(
            page,
            "<article class=\"pair\" id=\"pair-{n}\"><header><h3>Passage {n} of {total}</h3><nav class=\"step\">\
             {previous} <a href=\"#p{n}\">in the text</a> {next} <a href=\"#top\">top</a></nav></header>\
             <div class=\"sides\"><h4 class=\"document\">This document, {}</h4>\
             <h4 class=\"source\">{}, {}</h4>\
             <div class=\"passage document\" data-passage=\"{n}\">{left}</div>\
             <div class=\"passage source\" data-passage=\"{n}\">{right}</div></div></article>",
            located(passage.document.range(), Some(&texts.document_layout)),
            escape(&source.name),
            located(passage.source.range(), texts.source_layouts.get(&source.name)),
        );
    }
    page.push_str("</section>");
}

/// A link to passage `n`'s pair, or the label greyed out when there is none.
fn step_link(exists: bool, n: usize, label: &str) -> String {
    if exists { format!("<a href=\"#pair-{n}\">{label}</a>") } else { format!("<span class=\"off\">{label}</span>") }
}

/// One side of a pair without a diff: its text, or why it is not shown.
fn side_or_note(text: Option<&str>, side: &str) -> String {
    match text {
        Some(text) => escape(text),
        None => format!(
            "<span class=\"note\">The {side}'s text is not at hand as it was read (changed or deleted since?).</span>"
        ),
    }
}

/// The colour class number of `source` in `report`: its rank among the sources.
fn source_colour(report: &DocumentReport, source: &SourceReport) -> usize {
    report.sources.iter().position(|s| std::ptr::eq(s, source)).unwrap_or(0) % SOURCE_COLOURS
}

/// A stretch of text covered by the same passages.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Segment {
    /// Its characters.
    range: CharRange,
    /// The passages covering it, by index into the ranges it was cut from.
    passages: Vec<usize>,
}

/// A text of `chars` characters cut at every start and end of `ranges`
/// (clamped to the text), each piece with the ranges covering it: passages
/// may overlap, and a highlight must show each one's exact characters.
fn segments(chars: u32, ranges: &[CharRange]) -> Vec<Segment> {
    let clamp = |r: &CharRange| CharRange::new(r.start.min(chars), r.end.clamp(r.start.min(chars), chars));
    let mut cuts: Vec<u32> = ranges.iter().map(clamp).flat_map(|r| [r.start, r.end]).chain([0, chars]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2)
        .map(|pair| {
            let range = CharRange::new(pair[0], pair[1]);
            let passages = (0..ranges.len()).filter(|&i| clamp(&ranges[i]).holds(&range)).collect();
            Segment { range, passages }
        })
        .collect()
}

/// The two sides of a passage pair as HTML, the words of each that the other
/// lacks marked `<span class="changed">`; each side's text is kept whole.
///
/// The word diff is the `similar` crate's rather than a hand-written longest
/// common subsequence: Myers' O(ND) algorithm with a deadline ([`DIFF_TIMEOUT`]),
/// where a naive LCS table would take the product of the two passages'
/// lengths in time and memory, and a maintained, widely used implementation
/// of the edge cases (empty sides, whitespace runs, Unicode).
fn marked_diff(document: &str, source: &str) -> (String, String) {
    let diff = TextDiff::configure().algorithm(Algorithm::Myers).timeout(DIFF_TIMEOUT).diff_words(document, source);
    let (mut left, mut right) = (MarkedText::default(), MarkedText::default());
    for change in diff.iter_all_changes() {
        let word = change.value();
        match change.tag() {
            ChangeTag::Equal => {
                left.push(word, false);
                right.push(word, false);
            }
            ChangeTag::Delete => left.push(word, true),
            ChangeTag::Insert => right.push(word, true),
        }
    }
    (left.finish(), right.finish())
}

/// HTML of a text built word by word, runs of changed words in one span.
#[derive(Default)]
struct MarkedText {
    html: String,
    in_change: bool,
}

impl MarkedText {
    /// Appends `word` (or a run of whitespace), marked when `changed`; white
    /// space continues the current run, so that a span covers a whole phrase.
    fn push(&mut self, word: &str, changed: bool) {
        let changed = if word.chars().all(char::is_whitespace) { self.in_change && changed } else { changed };
        if changed != self.in_change {
            self.html.push_str(if changed { "<span class=\"changed\">" } else { "</span>" });
            self.in_change = changed;
        }
        self.html.push_str(&escape(word));
    }

    fn finish(mut self) -> String {
        if self.in_change {
            self.html.push_str("</span>");
        }
        self.html
    }
}

/// `text` escaped for an HTML element or attribute: markup characters as
/// entities, a carriage return as `&#13;` and NUL as U+FFFD, so that the page
/// holds every character of the text as one character.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\r' => out.push_str("&#13;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A file name as a relative link: every byte but the unreserved ones of
/// RFC 3986 percent-encoded (a `#` or `?` in a name would cut the link).
fn href(name: &str) -> String {
    let mut out = String::new();
    for &byte in name.as_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(char::from(byte)),
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

/// A share in percent as its figure over a bar.
fn bar(percent: f64) -> String {
    let width = percent.clamp(0.0, 100.0);
    format!(
        "<span class=\"share\">{} %</span><span class=\"bar\"><span style=\"width:{width:.1}%\"></span></span>",
        percent_text(percent)
    )
}

/// A percentage as the JSON report has it (two decimals), without trailing zeros.
fn percent_text(percent: f64) -> String {
    let text = format!("{percent:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A character range as people read it: `from–to (length)`.
fn span_text(range: CharRange) -> String {
    format!("{}–{} ({})", range.start, range.end, range.len())
}

/// `n` things, with the plural when needed.
fn counted(n: usize, thing: &str) -> String {
    if n == 1 { format!("1 {thing}") } else { format!("{n} {thing}s") }
}

/// The pages' style sheet (inline: the pages load nothing).
const STYLE: &str = "
:root{color-scheme:light;--ink:#1d232a;--muted:#5b6570;--line:#d8dde3;--bg:#f7f7f5;--paper:#fff;--accent:#1f5f99}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;color:var(--ink);background:var(--bg)}
body.index main{max-width:1100px;margin:0 auto;padding:1.5rem}
body.document{display:grid;grid-template-columns:minmax(19rem,25rem) minmax(0,1fr);gap:0 2rem;padding:0 1.5rem}
body.document aside{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;padding:1.2rem .3rem 1.5rem 0}
body.document main{padding:1.2rem 0 2rem;max-width:62rem}
h1{font-size:1.35rem;line-height:1.25;margin:.2rem 0;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:1.4rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}
main>section:first-child h2{margin-top:.2rem}
h3{font-size:.95rem;margin:0}
h4{font-size:.8rem;font-weight:600;color:var(--muted);margin:0 0 .3rem;overflow-wrap:anywhere}
a{color:var(--accent)}
.crumbs{margin:0;font-size:.9rem}
.summary{margin:.3rem 0 0}
table{border-collapse:collapse;width:100%;font-size:.88rem}
th,td{text-align:left;padding:.3rem .45rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:.8rem}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td{overflow-wrap:anywhere}
table.sources td:first-child{width:60%}
table.sources .bar{min-width:3.5rem}
tbody tr:hover{background:#eef2f5}
.share{display:block;font-variant-numeric:tabular-nums;white-space:nowrap}
.bar{display:block;width:100%;max-width:8rem;height:.3rem;margin-top:.15rem;background:#e2e6ea;border-radius:.15rem;overflow:hidden}
.bar span{display:block;height:100%;background:var(--accent)}
.swatch{display:inline-block;width:.75rem;height:.75rem;border-radius:.2rem;margin-right:.4rem;vertical-align:-.05rem;border:1px solid rgba(0,0,0,.12)}
details{margin-top:.5rem;color:var(--muted);font-size:.88rem}
#passages ol{padding-left:2rem;margin:0;font-size:.88rem}
#passages li{margin-bottom:.3rem}
#passages .from{display:block;color:var(--muted);font-size:.8rem;overflow-wrap:anywhere}
.text{white-space:pre-wrap;overflow-wrap:anywhere;font:1rem/1.7 Georgia,'Times New Roman',serif;background:var(--paper);border:1px solid var(--line);border-radius:.4rem;padding:1rem 1.3rem}
mark{color:inherit;border-radius:.15rem}
mark.overlap,.legend .overlap{outline:1px dashed #7a4b00}
.c0{background:#ffe08a}.c1{background:#a9dcff}.c2{background:#c8f0b4}.c3{background:#ffc2d4}
.c4{background:#dccbff}.c5{background:#ffd0a8}.c6{background:#b5efe6}.c7{background:#e3e3a0}
.badge{display:inline-block;text-decoration:none;font:600 .68rem/1.3 system-ui,sans-serif;color:#fff;background:var(--accent);border-radius:.6rem;padding:0 .35rem;margin:0 .15rem;vertical-align:.2rem}
.badge::before{content:attr(data-n)}
.badge:target,.pair:target{box-shadow:0 0 0 3px #f2b705}
.badge,.pair{scroll-margin-top:2rem}
.pair{background:var(--paper);border:1px solid var(--line);border-radius:.4rem;margin:0 0 1.2rem;padding:.8rem 1rem}
.pair>header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.5rem;margin-bottom:.6rem}
.step{font-size:.88rem}.step a,.step span{margin-left:.7rem}.off{color:#aab1b8}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:0 1rem}
.passage{white-space:pre-wrap;overflow-wrap:anywhere;font:.95rem/1.6 Georgia,'Times New Roman',serif;max-height:30rem;overflow:auto;padding:.5rem .7rem;background:var(--bg);border-radius:.3rem}
.changed{background:#ffd7d2;text-decoration:underline wavy #c0392b;text-decoration-thickness:1px}
.note{color:var(--muted);font-style:italic}
.explain,.legend{color:var(--muted);font-size:.8rem}.legend{padding-left:1.1rem;margin:0}.legend li{margin-bottom:.25rem}
footer{margin-top:2.5rem;color:var(--muted);font-size:.82rem}
@media (max-width:900px){body.document{display:block}body.document aside{position:static;max-height:none}
.sides{grid-template-columns:1fr}h4.source{order:1;margin-top:.8rem}.passage.source{order:2}}
@media print{body.document{display:block}body.document aside{position:static;max-height:none}.passage{max-height:none}.badge{background:none;color:var(--accent)}}
";

/// Keyboard shortcuts between passages: `j` or `n` next, `k` or `p` previous.
const SCRIPT: &str = "
(function () {
  var pairs = document.querySelectorAll('article.pair');
  document.addEventListener('keydown', function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !pairs.length) return;
    var step = { j: 1, n: 1, k: -1, p: -1 }[event.key];
    if (!step) return;
    var at = /^#(?:pair-|p)(\\d+)$/.exec(location.hash);
    var current = at ? Number(at[1]) : 0;
    location.hash = 'pair-' + Math.min(pairs.length, Math.max(1, current + step));
  });
})();
";

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::report::model::{ComparedSource, FoundPassage};

    #[test]
    fn escaping_keeps_every_character_as_one() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
        assert_eq!(escape("line\r\nnext\0ž"), "line&#13;\nnext\u{FFFD}ž");
        assert_eq!(href("a b#1.html"), "a%20b%231.html");
        assert_eq!(href("ž.html"), "%C5%BE.html");
    }

    #[test]
    fn segments_cut_overlapping_passages_at_every_boundary() {
        let ranges = [CharRange::new(2, 6), CharRange::new(4, 9), CharRange::new(20, 30)];
        let found: Vec<(u32, u32, Vec<usize>)> =
            segments(12, &ranges).into_iter().map(|s| (s.range.start, s.range.end, s.passages)).collect();
        assert_eq!(
            found,
            [(0, 2, vec![]), (2, 4, vec![0]), (4, 6, vec![0, 1]), (6, 9, vec![1]), (9, 12, vec![])],
            "a passage past the end is clamped away"
        );
        assert!(segments(0, &ranges).is_empty());
    }

    /// The characters each passage's highlights hold in `page`, in order.
    fn highlighted(page: &str, passages: usize) -> Vec<String> {
        let mut found = vec![String::new(); passages];
        for mark in page.split("<mark ").skip(1) {
            let numbers = mark.split("data-passages=\"").nth(1).unwrap().split('"').next().unwrap();
            let text = mark.split_once('>').unwrap().1.split("</mark>").next().unwrap();
            for n in numbers.split(' ') {
                found[n.parse::<usize>().unwrap() - 1].push_str(text);
            }
        }
        found
    }

    /// The report of `text` with passages (document start, end, source start, end) from `source`.
    fn report_of(text: &str, source: &str, passages: &[[u32; 4]]) -> (DocumentReport, DocumentTexts) {
        let texts = DocumentTexts {
            document: text.to_string(),
            sources: BTreeMap::from([("src.txt".to_string(), source.to_string())]),
            ..Default::default()
        };
        let found = passages
            .iter()
            .map(|&[a, b, c, d]| FoundPassage {
                document: CharRange::new(a, b),
                source: CharRange::new(c, d),
                matching_chunks: None,
            })
            .collect();
        let compared = ComparedSource {
            name: "src.txt".into(),
            chars: source.chars().count() as u64,
            shared: None,
            passages: found,
        };
        (DocumentReport::new("doc.txt", "doc.txt", &texts, None, vec![compared]), texts)
    }

    #[test]
    fn highlights_hold_exactly_the_passages_characters_in_multibyte_text() {
        let text = "Žluťoučký kůň <úpěl> ďábelské ódy & další.";
        let source = "Žluťoučký kůň úpěl ďábelské ódy.";
        let (report, texts) = report_of(text, source, &[[0, 20, 0, 18], [10, 31, 10, 31]]);
        let page = render_document(&report, &texts, true);
        let chars: Vec<char> = text.chars().collect();
        let expected = |a: usize, b: usize| escape(&chars[a..b].iter().collect::<String>());
        assert_eq!(highlighted(&page, 2), [expected(0, 20), expected(10, 31)]);
        assert_eq!(page.matches("class=\"badge\" id=\"p").count(), 2);
        assert!(page.contains("<mark class=\"c0 overlap\" data-passages=\"1 2\">kůň &lt;úpěl&gt;</mark>"), "{page}");
        assert!(page.contains("href=\"index.html\""));
        assert!(check_is_report(page.as_bytes()).is_ok());
    }

    #[test]
    fn pages_load_nothing_from_outside() {
        let (report, texts) = report_of("abc def ghi", "abc def ghi", &[[0, 7, 0, 7]]);
        let page = render_document(&report, &texts, false);
        let index = render_index(&[IndexEntry::of(&report, "doc.html")]);
        for page in [page, index] {
            for needle in ["http:", "https:", "src=", "@import", "url(", "<link"] {
                assert!(!page.contains(needle), "{needle}");
            }
        }
    }

    #[test]
    fn the_diff_marks_the_words_each_side_lacks_and_keeps_both_texts_whole() {
        let (left, right) = marked_diff("the quick brown fox  jumps", "the slow brown fox jumps high");
        assert_eq!(left, "the <span class=\"changed\">quick</span> brown fox  jumps");
        assert_eq!(
            right,
            "the <span class=\"changed\">slow</span> brown fox jumps <span class=\"changed\">high</span>"
        );
        let (left, right) = marked_diff("a <b> c d", "");
        assert_eq!((left.as_str(), right.as_str()), ("<span class=\"changed\">a &lt;b&gt; c d</span>", ""));
        let strip = |html: &str| html.replace("<span class=\"changed\">", "").replace("</span>", "");
        let (old, new) = ("Vodní mlýn\r\nna řece, stál", "Vodní  mlýn na potoce stál.");
        let (left, right) = marked_diff(old, new);
        assert_eq!((strip(&left), strip(&right)), (escape(old), escape(new)));
    }

    #[test]
    fn the_index_lists_documents_by_similarity_and_links_their_pages() {
        let entry = |name: &str, aligned_percent: f64| IndexEntry {
            name: name.to_string(),
            page: format!("{name}.html"),
            chars: 10,
            aligned_percent,
            top_source: None,
            sources: 0,
            passages: 0,
        };
        let page = render_index(&[entry("low", 5.0), entry("a b", 80.5), entry("high", 80.5)]);
        let order: Vec<usize> = ["a%20b.html", "high.html", "low.html"].iter().map(|p| page.find(p).unwrap()).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{page}");
        assert!(page.contains("3 documents, 0 with passages"));
        assert_eq!(percent_text(80.5), "80.5");
        assert_eq!(percent_text(100.0), "100");
        assert_eq!(percent_text(0.04), "0.04");
    }

    #[test]
    fn a_source_text_not_at_hand_is_said_so_and_the_document_side_still_shown() {
        let (report, mut texts) = report_of("one two three", "one two", &[[0, 7, 0, 7]]);
        texts.sources.clear();
        let page = render_document(&report, &texts, false);
        assert!(page.contains("data-passage=\"1\">one two</div>"), "{page}");
        assert!(page.contains("The source's text is not at hand"), "{page}");
        assert!(!page.contains("href=\"index.html\""));
    }
}
