//! Helpers shared by the unit tests.

/// Deterministic pseudo-prose of `words` words in sentences of eleven, with
/// Czech diacritics (so that character offsets differ from byte offsets);
/// different seeds share no five-word run.
pub(crate) fn prose(seed: u64, words: usize) -> String {
    const SYLLABLES: [&str; 16] =
        ["ka", "ře", "lo", "mů", "ti", "sa", "ně", "po", "vý", "dr", "ul", "če", "ba", "zi", "ho", "fy"];
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut text = String::new();
    for i in 0..words {
        let syllables = 2 + next() % 3;
        text.extend((0..syllables).map(|_| SYLLABLES[next() % SYLLABLES.len()]));
        text.push_str(if i % 11 == 10 { ". " } else { " " });
    }
    text
}

/// A detection as [`CollectDetections`] keeps it: the suspicious document's
/// name and range, the source's name and range.
pub(crate) type Collected = (String, crate::analysis::span::CharRange, String, crate::analysis::span::CharRange);

/// A sink that keeps every detection it receives.
#[derive(Default)]
pub(crate) struct CollectDetections(pub(crate) std::sync::Mutex<Vec<Collected>>);

impl CollectDetections {
    /// The detections received, sorted.
    pub(crate) fn sorted(self) -> Vec<Collected> {
        let mut all = self.0.into_inner().unwrap();
        all.sort_by_key(|(name, this, source_name, source)| (name.clone(), *this, source_name.clone(), *source));
        all
    }
}

impl crate::report::DetectionSink for CollectDetections {
    fn document(
        &self,
        suspicious: &str,
        detections: &[crate::report::Detection<'_>],
    ) -> Result<(), crate::error::Error> {
        let found =
            detections.iter().map(|d| (suspicious.to_string(), d.this, d.source_reference.to_string(), d.source));
        self.0.lock().unwrap().extend(found);
        Ok(())
    }
}

/// Writes into `dir` a corpus for aligning a long document in parts:
/// `src/source{0..5}.txt`, each holding a passage copied into the one
/// suspicious document `susp/long.txt` (about 13 KB) between stretches of
/// its own text. The copies have 150 words (about 1,100 bytes), except that
/// of `source3.txt`, of 500 words. Returns the long document's text.
pub(crate) fn long_document_corpus(dir: &std::path::Path) -> String {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("susp")).unwrap();
    let copied = |k: u64| prose(30 + k, if k == 3 { 500 } else { 150 });
    let mut long = String::new();
    for k in 0..5u64 {
        let source = format!("{}{}{}", prose(10 + k, 100), copied(k), prose(20 + k, 100));
        std::fs::write(dir.join(format!("src/source{k}.txt")), source).unwrap();
        long.push_str(&prose(100 + k, 180));
        long.push_str(&copied(k));
    }
    long.push_str(&prose(200, 180));
    std::fs::write(dir.join("susp/long.txt"), &long).unwrap();
    long
}

/// A PDF of `pages` pages in a flat page tree (every page a kid of the one
/// `Pages` node), each page one line of Helvetica: [`flat_pdf_page_text`]
/// of its number. Written byte by byte, with a correct cross-reference
/// table, so that no PDF library is needed to make one.
pub(crate) fn flat_pdf(pages: usize) -> Vec<u8> {
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    let mut object = |pdf: &mut Vec<u8>, body: &str| {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n{body}\nendobj\n", offsets.len()).as_bytes());
    };
    // Objects 1 to 3, then a page and its content stream: 4 + 2i and 5 + 2i.
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    object(&mut pdf, "<< /Type /Catalog /Pages 2 0 R >>");
    object(
        &mut pdf,
        &format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} /MediaBox [0 0 612 792] \
             /Resources << /Font << /F1 3 0 R >> >> >>",
            kids.join(" ")
        ),
    );
    object(&mut pdf, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    for i in 0..pages {
        let content = format!("BT /F1 12 Tf 72 720 Td ({}) Tj ET", flat_pdf_page_text(i));
        object(&mut pdf, &format!("<< /Type /Page /Parent 2 0 R /Contents {} 0 R >>", 5 + 2 * i));
        object(&mut pdf, &format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()));
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes());
    for offset in &offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").as_bytes());
    }
    let trailer = format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", offsets.len() + 1);
    pdf.extend(trailer.as_bytes());
    pdf
}

/// The line on page `page` (from 0) of [`flat_pdf`]: words that no other
/// page has (its number spelled in syllables), so that no line repeats as a
/// running header would.
pub(crate) fn flat_pdf_page_text(page: usize) -> String {
    const DIGITS: [&str; 10] = ["ba", "ce", "di", "fo", "gu", "ha", "je", "ki", "lo", "mu"];
    let spelled: String = page.to_string().bytes().map(|digit| DIGITS[usize::from(digit - b'0')]).collect();
    format!("Leaf {spelled} holds the words of page {spelled} alone")
}
