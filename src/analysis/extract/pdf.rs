//! PDF: text placed by pdf-extract, rebuilt into lines and paragraphs.
//!
//! pdf-extract (over lopdf) decodes each page's content streams and fonts,
//! the pages in one walk of the page tree (linear in pages), and hands over
//! every glyph with its position; a [`LineCollector`] groups
//! them into lines as pdf-extract's own plain-text output does (a new line
//! where the baseline moves by more than half the font size, a space where
//! the gap to the previous glyph exceeds a tenth of it), keeping each line's
//! geometry. Running headers, footers and page numbers are then dropped
//! ([`repair::drop_running_lines`]), and lines are joined into paragraphs:
//! a line break only where a paragraph ends (the line stops short of the
//! text block although the next line's first word would have fitted, the
//! next line is indented or set in another size, or the gap between
//! baselines is wider than the page's usual line spacing), words hyphenated
//! at line ends joined again ([`repair::Dehyphenator`]). The sentence splitter
//! ends a sentence at a line break, so a line break at every printed line
//! would cut most sentences in two.
//!
//! Before parsing, every Flate-compressed stream that is not an image is
//! inflated once into nothing, within the document's [`ExpansionBudget`]:
//! lopdf inflates object streams while it loads, and pdf-extract inflates
//! content streams and fonts, each without a bound. Encrypted streams are
//! decrypted only by lopdf, so their size is not checked.

use std::cell::Cell;
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use flate2::read::{DeflateDecoder, ZlibDecoder};
use pdf_extract::{Document, MediaBox, Object, ObjectId, OutputDev, OutputError, Transform, output_doc};

use super::layout::{Layout, Place, Unit};
use super::repair::{self, Dehyphenator, Join};
use super::{ExpansionBudget, ExtractError, Extracted};

/// Extracts the text of the PDF `bytes`.
pub(super) fn extract(bytes: &[u8], budget: &mut ExpansionBudget) -> Result<Extracted, ExtractError> {
    check_streams(bytes, budget)?;
    let mut pages = without_panics(|| read_pages(bytes))??;
    repair::drop_running_lines(&mut pages, |line| line.text.as_str());
    let (raw, starts) = paragraphs(&pages);
    let (text, layout) = Layout::clean(&raw, &starts);
    let note = text
        .trim()
        .is_empty()
        .then(|| "a PDF without text (scanned pages? pan-detect does no OCR); read as an empty document".to_string());
    Ok(Extracted { text, note, layout })
}

/// The lines of every page of the PDF `bytes`, in content-stream order.
fn read_pages(bytes: &[u8]) -> Result<Vec<Vec<Line>>, ExtractError> {
    let unreadable = |error: &dyn std::fmt::Display| ExtractError(format!("not a readable PDF ({error})"));
    let mut document = Document::load_mem(bytes).map_err(|e| unreadable(&e))?;
    if document.is_encrypted() && document.decrypt("").is_err() {
        return Err(ExtractError("an encrypted PDF (a password is needed)".into()));
    }
    // Every page in one walk of the page tree: `output_doc_page` finds its
    // page by number by listing the whole tree again, which made a PDF of n
    // pages cost n walks of n pages (10,000 pages took 115 s instead of 1).
    check_page_parents(&document)?;
    let mut collector = LineCollector::default();
    output_doc(&document, &mut collector).map_err(|e| unreadable(&e))?;
    Ok(collector.pages)
}

/// Levels a page's chain of `Parent` nodes may have (lopdf lists no page
/// deeper in the tree): pdf-extract looks a page's inherited media box and
/// resources up by recursion along this chain, without a bound, so a chain
/// that loops overflowed the stack (an abort, which no `catch_unwind` stops)
/// and a long one cost its length on every page.
const MAX_PAGE_DEPTH: usize = 256;

/// Refuses a PDF with a page whose `Parent` chain loops or is deeper than
/// [`MAX_PAGE_DEPTH`]: at most that many lookups a page.
fn check_page_parents(document: &Document) -> Result<(), ExtractError> {
    let parent = |node: &ObjectId| {
        let dictionary = document.get_dictionary(*node).ok()?;
        dictionary.get(b"Parent").and_then(Object::as_reference).ok()
    };
    for page in document.page_iter() {
        if std::iter::successors(Some(page), parent).nth(MAX_PAGE_DEPTH + 1).is_some() {
            let message = format!("a page whose tree loops or is more than {MAX_PAGE_DEPTH} levels deep");
            return Err(ExtractError(format!("not a readable PDF ({message})")));
        }
    }
    Ok(())
}

thread_local! {
    /// Whether this thread is inside [`without_panics`].
    static EXTRACTING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `parse`, turning a panic into an error. pdf-extract and lopdf panic on
/// some malformed PDFs (an `unwrap` on a missing object); such a file is
/// corrupt, not a reason to stop a run. The panic hook is wrapped once so that
/// it stays silent for panics caught here and passes every other one on.
fn without_panics<T>(parse: impl FnOnce() -> T) -> Result<T, ExtractError> {
    static QUIET_HOOK: Once = Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !EXTRACTING.with(Cell::get) {
                previous(info);
            }
        }));
    });
    EXTRACTING.with(|flag| flag.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(parse));
    EXTRACTING.with(|flag| flag.set(false));
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        ExtractError(format!("not a readable PDF (the PDF parser failed: {message})"))
    })
}

/// Spends the inflated size of every Flate-compressed stream that is not an
/// image on `budget`.
fn check_streams(bytes: &[u8], budget: &mut ExpansionBudget) -> Result<(), ExtractError> {
    let mut at = 0;
    while let Some(found) = find(&bytes[at..], b"stream") {
        let keyword = at + found;
        at = keyword + b"stream".len();
        // `endstream` ends one; the data follows the keyword's end of line.
        let rest = &bytes[at..];
        let eol = if rest.starts_with(b"\r\n") { 2 } else { usize::from(rest.starts_with(b"\n")) };
        if bytes[..keyword].ends_with(b"end") || eol == 0 {
            continue;
        }
        let start = at + eol;
        let end = find(&bytes[start..], b"endstream").map_or(bytes.len(), |e| start + e);
        let dictionary = dictionary_before(bytes, keyword);
        if find(dictionary, b"/FlateDecode").is_some() && find(dictionary, b"/Image").is_none() {
            budget.spend(inflated_len(&bytes[start..end], budget.remaining() + 1), "a compressed stream")?;
        }
        at = end;
    }
    Ok(())
}

/// The bytes between the object header (`N G obj`) and the `stream`
/// keyword at `keyword`: the stream's dictionary (the last 4 KiB at most).
fn dictionary_before(bytes: &[u8], keyword: usize) -> &[u8] {
    let window = &bytes[keyword.saturating_sub(4096)..keyword];
    let mut start = 0;
    while let Some(found) = find(&window[start..], b"obj") {
        start += found + b"obj".len();
    }
    &window[start..]
}

/// Bytes of `data` inflated (as zlib, or as raw deflate after the two header
/// bytes when zlib yields nothing, as lopdf falls back), at most `limit`.
fn inflated_len(data: &[u8], limit: u64) -> u64 {
    let zlib = read_len(ZlibDecoder::new(data), limit);
    if zlib == 0 && data.len() > 2 { read_len(DeflateDecoder::new(&data[2..]), limit) } else { zlib }
}

/// Bytes `reader` yields before its end or an error, at most `limit`.
fn read_len(reader: impl Read, limit: u64) -> u64 {
    let mut reader = reader.take(limit);
    let mut buffer = [0u8; 64 * 1024];
    let mut total = 0;
    while let Ok(read @ 1..) = reader.read(&mut buffer) {
        total += read as u64;
    }
    total
}

/// The position of the first `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// A line of text on a page, with its geometry in PDF units (points); `y`
/// grows downwards.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    text: String,
    left: f64,
    right: f64,
    /// The baseline.
    y: f64,
    /// The font size.
    size: f64,
    /// The right edge of the first word, once a space follows it.
    first_word_right: Option<f64>,
}

impl Line {
    fn new(x: f64, y: f64, size: f64) -> Self {
        Line { text: String::new(), left: x, right: x, y, size, first_word_right: None }
    }

    /// Appends a glyph's `text`, which ends at `end`.
    fn push(&mut self, text: &str, end: f64) {
        for c in text.chars() {
            if c.is_whitespace() {
                self.space();
            } else {
                self.text.push(c);
                self.right = self.right.max(end);
            }
        }
    }

    /// Appends a space, unless the line is empty or already ends with one.
    fn space(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with(' ') {
            self.first_word_right.get_or_insert(self.right);
            self.text.push(' ');
        }
    }

    /// The width of the first word (of the whole line without a space).
    fn first_word_width(&self) -> f64 {
        self.first_word_right.unwrap_or(self.right) - self.left
    }
}

/// Collects the glyphs pdf-extract places into [`Line`]s, page by page.
#[derive(Debug, Default)]
struct LineCollector {
    pages: Vec<Vec<Line>>,
    page_height: f64,
    /// Where the last glyph ended, and its baseline.
    last_end: f64,
    last_y: f64,
    /// A new text-showing operation began: a line break or space may come
    /// before its first glyph (none is inserted within one).
    new_run: bool,
}

impl OutputDev for LineCollector {
    fn begin_page(
        &mut self,
        _page: u32,
        media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.page_height = media_box.ury - media_box.lly;
        self.pages.push(Vec::new());
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        text: &str,
    ) -> Result<(), OutputError> {
        // As PlainTextOutput: the glyph's origin with y flipped, and the font
        // size scaled by the text rendering matrix.
        let (x, y) = (trm.m31, self.page_height - trm.m32);
        let size = (font_size * (trm.m11 + trm.m21) * font_size * (trm.m12 + trm.m22)).abs().sqrt();
        let end = x + width * size;
        let dy = (y - self.last_y).abs();
        let (new_run, last_end) = (self.new_run, self.last_end);
        let Some(page) = self.pages.last_mut() else { return Ok(()) };
        match page.last_mut() {
            Some(line) if !(new_run && (dy > 1.5 * size || x < last_end && dy > 0.5 * size)) => {
                if new_run && x > last_end + 0.1 * size {
                    line.space();
                }
                line.push(text, end);
            }
            _ => {
                let mut line = Line::new(x, y, size);
                line.push(text, end);
                page.push(line);
            }
        }
        self.new_run = false;
        self.last_y = y;
        self.last_end = end;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.new_run = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

/// The text block of a page: where its lines usually start and end, and how
/// far apart their baselines usually are.
#[derive(Debug, Clone, Copy)]
struct Block {
    left: f64,
    right: f64,
    line_spacing: f64,
}

impl Block {
    /// The block of `lines` (not empty): the 10th percentile of their left
    /// edges, the 90th of their right edges (a stray wide or indented line
    /// does not move the block), and the median gap between baselines.
    fn of(lines: &[Line]) -> Block {
        let sorted = |value: fn(&Line) -> f64| {
            let mut values: Vec<f64> = lines.iter().map(value).collect();
            values.sort_by(f64::total_cmp);
            values
        };
        let at = |values: &[f64], share: f64| values[((values.len() - 1) as f64 * share).round() as usize];
        let gaps: Vec<f64> = {
            let mut gaps: Vec<f64> = lines.windows(2).map(|w| w[1].y - w[0].y).filter(|&gap| gap > 0.0).collect();
            gaps.sort_by(f64::total_cmp);
            gaps
        };
        let sizes = sorted(|line| line.size);
        let line_spacing = if gaps.is_empty() { 1.2 * at(&sizes, 0.5) } else { at(&gaps, 0.5) };
        Block { left: at(&sorted(|line| line.left), 0.1), right: at(&sorted(|line| line.right), 0.9), line_spacing }
    }
}

/// Whether a paragraph ends between `previous` (in `previous_block`) and
/// `next` (in `next_block`; on the same page when `same_page`).
fn ends_paragraph(previous: &Line, previous_block: &Block, next: &Line, next_block: &Block, same_page: bool) -> bool {
    let space = 0.25 * previous.size;
    let stopped_short = previous_block.right - previous.right > next.first_word_width() + 2.0 * space;
    let indented = next.left - next_block.left > 0.8 * next.size;
    let resized = (next.size - previous.size).abs() > 0.15 * previous.size;
    let gap = next.y - previous.y;
    let spaced = same_page && (gap > 1.3 * previous_block.line_spacing || gap < -0.5 * previous.size);
    stopped_short || indented || resized || spaced
}

/// The text of `pages`: a line break between paragraphs, the lines of a
/// paragraph joined as the [`Dehyphenator`] says; with the byte offset where
/// each printed line starts in it and its place (page, and line on the page
/// among those kept).
fn paragraphs(pages: &[Vec<Line>]) -> (String, Vec<(usize, Place)>) {
    let dehyphenator = Dehyphenator::new(pages.iter().flatten().map(|line| line.text.as_str()));
    let mut text = String::new();
    let mut previous: Option<(&Line, Block, usize)> = None;
    let mut starts = Vec::new();
    for (number, page) in pages.iter().enumerate() {
        if page.is_empty() {
            continue;
        }
        let block = Block::of(page);
        let mut line_number = 0;
        for line in page {
            let line_text = line.text.trim();
            if line_text.is_empty() {
                continue;
            }
            if let Some((last, last_block, last_page)) = previous {
                if ends_paragraph(last, &last_block, line, &block, last_page == number) {
                    text.push('\n');
                } else {
                    match dehyphenator.join(last.text.trim(), line_text) {
                        Join::Space => text.push(' '),
                        Join::Direct => {}
                        Join::DropHyphen => {
                            text.pop();
                        }
                    }
                }
            }
            line_number += 1;
            let page = Some(number as u32 + 1);
            starts.push((text.len(), Place { page, unit: Unit::Line, number: line_number }));
            text.push_str(line_text);
            previous = Some((line, block, number));
        }
    }
    (text, starts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{flat_pdf, flat_pdf_page_text};

    fn line(text: &str, left: f64, right: f64, y: f64) -> Line {
        let first_word_right = text.find(' ').map(|i| left + (right - left) * i as f64 / text.len() as f64);
        Line { text: text.into(), left, right, y, size: 10.0, first_word_right }
    }

    #[test]
    fn lines_are_joined_into_paragraphs_and_hyphenated_words_mended() {
        let page = vec![
            line("The mill stood by the river and its wheel be-", 50.0, 300.0, 100.0),
            line("came a landmark for every traveller on the", 50.0, 300.0, 112.0),
            line("road north.", 50.0, 110.0, 124.0),
            line("A new paragraph starts here with an indent", 70.0, 300.0, 136.0),
            line("and goes on.", 50.0, 120.0, 148.0),
            line("After a wider gap, another one.", 50.0, 230.0, 170.0),
        ];
        let next_page = vec![line("continued across the page break, as full lines", 50.0, 300.0, 60.0)];
        assert_eq!(
            paragraphs(&[page.clone(), next_page.clone()]).0,
            "The mill stood by the river and its wheel became a landmark for every traveller on the road north.\n\
             A new paragraph starts here with an indent and goes on.\n\
             After a wider gap, another one.\n\
             continued across the page break, as full lines"
        );
        let mut full = page;
        full.truncate(2);
        assert_eq!(
            paragraphs(&[full, next_page]).0,
            "The mill stood by the river and its wheel became a landmark for every traveller on the \
             continued across the page break, as full lines"
        );
    }

    #[test]
    fn streams_that_inflate_beyond_the_budget_are_refused() {
        use std::io::Write;
        let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&vec![b' '; 1 << 20]).unwrap();
        let stream = encoder.finish().unwrap();
        let pdf = |dictionary: &str| {
            let mut pdf = format!("%PDF-1.4\n1 0 obj\n{dictionary}\nstream\n").into_bytes();
            pdf.extend(&stream);
            pdf.extend(b"\nendstream\nendobj\n");
            pdf
        };
        let content = pdf("<< /Length 9 /Filter /FlateDecode >>");
        let mut budget = ExpansionBudget::with_limit(1 << 19);
        let error = check_streams(&content, &mut budget).unwrap_err().to_string();
        assert!(error.starts_with("a compressed stream expands beyond"), "{error}");
        let mut budget = ExpansionBudget::with_limit(2 << 20);
        check_streams(&content, &mut budget).unwrap();
        assert_eq!(budget.remaining(), 1 << 20);
        // Images are never inflated by the text extraction.
        let image = pdf("<< /Type /XObject /Subtype /Image /Filter /FlateDecode >>");
        let mut budget = ExpansionBudget::with_limit(1 << 19);
        check_streams(&image, &mut budget).unwrap();
    }

    /// The text extracted from a [`flat_pdf`] of `pages` pages.
    fn flat_pdf_text(pages: usize) -> String {
        let pdf = flat_pdf(pages);
        extract(&pdf, &mut ExpansionBudget::for_file(pdf.len())).unwrap().text
    }

    #[test]
    fn every_page_of_a_flat_page_tree_is_read_once_in_order() {
        let expected: Vec<String> = (0..12).map(flat_pdf_page_text).collect();
        let words = |text: &str| text.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(words(&flat_pdf_text(12)), words(&expected.join(" ")));
    }

    #[test]
    fn a_page_that_is_its_own_parent_is_an_error_not_a_stack_overflow() {
        // The page is its own Parent and has no media box (blanked, as many
        // bytes, so that the cross-reference table holds): pdf-extract looked
        // for one up the Parent chain until the stack overflowed.
        let pdf = String::from_utf8(flat_pdf(1)).unwrap();
        let pdf = pdf.replace("/Parent 2 0 R", "/Parent 4 0 R").replace(" /MediaBox [0 0 612 792]", &" ".repeat(24));
        let pdf = pdf.into_bytes();
        let error = extract(&pdf, &mut ExpansionBudget::for_file(pdf.len())).unwrap_err();
        assert!(error.0.contains("a page whose tree loops"), "{error}");
    }

    /// A benchmark, not a test (timed tests are not allowed):
    /// `eval/pdf-pages.sh` runs it in release mode. Prints the seconds to
    /// extract flat PDFs of 1,000, 3,000 and 10,000 pages and each one's time
    /// a page over the 1,000-page one's: about 1 when extraction is linear
    /// in pages (it measured 2.2 and 21.6 when each page was looked up by
    /// number through the whole page tree).
    #[test]
    #[ignore = "a benchmark: eval/pdf-pages.sh runs it in release mode"]
    fn time_a_page_stays_flat_as_pages_grow() {
        let mut base = None;
        for pages in [1_000, 3_000, 10_000] {
            let started = std::time::Instant::now();
            let text = flat_pdf_text(pages);
            let seconds = started.elapsed().as_secs_f64();
            assert!(text.ends_with(&flat_pdf_page_text(pages - 1)), "every page is read");
            let per_page = seconds / pages as f64;
            let ratio = per_page / *base.get_or_insert(per_page);
            println!("{pages:>6} pages: {seconds:8.3} s, time a page {ratio:5.2} x that of 1,000 pages");
        }
    }

    #[test]
    fn a_panic_in_the_parser_is_an_error_and_the_next_call_works() {
        let error = without_panics(|| panic!("unwrap on None")).unwrap_err();
        assert_eq!(error.to_string(), "not a readable PDF (the PDF parser failed: unwrap on None)");
        assert_eq!(without_panics(|| 7).unwrap(), 7);
    }
}
