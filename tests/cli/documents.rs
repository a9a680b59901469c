//! Documents in PDF, DOCX, ODT and HTML: their text and passages against the plain-text originals they were made from, formats told by content, bad uploads refused, the archive's cache of extracted texts.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use pan_detect::analysis::read::content_hash;
use pan_detect::report::pan_xml::PanDocument;
use similar::{Algorithm, DiffOp, capture_diff_slices};

use crate::archive::{fails_with, ok, s};
use crate::{detect, fixtures, read_report, run};

/// The fixtures `corpus-fixtures/documents/make.sh` made from the corpus's
/// plain-text suspicious documents: (document, format).
const DOCUMENTS: [(&str, &str); 7] = [
    ("suspicious-document00007", "pdf"),
    ("suspicious-document00007", "docx"),
    ("suspicious-document00007", "odt"),
    ("suspicious-document00007", "html"),
    ("suspicious-document00001", "pdf"),
    ("suspicious-document00001", "docx"),
    ("suspicious-document00001", "odt"),
];

/// The most characters of an original that its document's text, or the
/// passages found in it, may differ in: the target.
const MAX_DIFFERING_SHARE: f64 = 0.01;

fn documents() -> PathBuf {
    fixtures().join("documents")
}

/// The plain text a fixture document was made from.
fn original(document: &str) -> String {
    fs::read_to_string(fixtures().join("pan/suspicious-documents").join(format!("{document}.txt"))).unwrap()
}

/// The texts `pan-detect text` writes of `files`, in order.
fn extract(files: &[PathBuf]) -> Vec<String> {
    let out = tempfile::tempdir().unwrap();
    let args: Vec<&str> = files.iter().map(|f| s(f)).collect();
    ok(run(&[&["text", "--out", s(out.path())][..], &args].concat()));
    files
        .iter()
        .map(|file| {
            let name = file.file_name().unwrap().to_str().unwrap();
            let stem = name.strip_suffix(".txt").unwrap_or(name);
            fs::read_to_string(out.path().join(format!("{stem}.txt"))).unwrap()
        })
        .collect()
}

/// A text's words, one space between them.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A character alignment of a document's text with its original (Myers' diff).
struct Alignment {
    ops: Vec<DiffOp>,
    original_len: usize,
}

impl Alignment {
    fn of(original: &str, text: &str) -> Alignment {
        let (original, text): (Vec<char>, Vec<char>) = (original.chars().collect(), text.chars().collect());
        Alignment { ops: capture_diff_slices(Algorithm::Myers, &original, &text), original_len: original.len() }
    }

    /// Characters deleted from the original or inserted into it.
    fn differing(&self) -> usize {
        self.ops.iter().map(|op| op.old_range().len() + op.new_range().len()).sum::<usize>()
            - 2 * self
                .ops
                .iter()
                .filter(|op| matches!(op, DiffOp::Equal { .. }))
                .map(|op| op.old_range().len())
                .sum::<usize>()
    }

    /// The position in the original of position `at` of the text.
    fn to_original(&self, at: usize) -> usize {
        for op in &self.ops {
            let (old, new) = (op.old_range(), op.new_range());
            if new.contains(&at) {
                return if matches!(op, DiffOp::Equal { .. }) { old.start + at - new.start } else { old.start };
            }
        }
        self.original_len
    }
}

#[test]
fn each_format_gives_the_text_of_its_original_within_one_percent_of_characters() {
    let files: Vec<PathBuf> = DOCUMENTS.iter().map(|(doc, ext)| documents().join(format!("{doc}.{ext}"))).collect();
    for ((document, format), text) in DOCUMENTS.iter().zip(extract(&files)) {
        let original = original(document);
        let differing = Alignment::of(&original, &text).differing();
        let share = differing as f64 / original.chars().count() as f64;
        assert!(share <= MAX_DIFFERING_SHARE, "{document}.{format}: {differing} characters differ ({share:.4})");
        // Beyond the target: the same words in the same order. The PDF's
        // running header and page numbers are gone, its hyphenated words whole.
        assert_eq!(words(&text), words(&original), "{document}.{format}");
    }
}

/// Characters covered by a report's passages: the suspicious side (mapped to
/// the original by `to_original`) and each source document's side.
fn coverage(report: &PanDocument, to_original: impl Fn(usize) -> usize) -> BTreeSet<(String, usize)> {
    let mut covered = BTreeSet::new();
    for feature in &report.features {
        let (start, end) = feature.this_range().unwrap();
        covered.extend((to_original(start as usize)..to_original(end as usize)).map(|i| ("suspicious".into(), i)));
        let source = feature.get("source_reference").unwrap().to_string();
        let (start, end) = feature.source_range().unwrap();
        covered.extend((start as usize..end as usize).map(|i| (source.clone(), i)));
    }
    covered
}

/// The characters `start..end` of `text`.
fn chars(text: &str, start: usize, end: usize) -> String {
    text.chars().skip(start).take(end - start).collect()
}

#[test]
fn passages_found_in_each_format_are_those_of_its_original_within_one_percent() {
    let sources = fixtures().join("pan/source-documents");
    let plain = tempfile::tempdir().unwrap();
    for document in ["suspicious-document00001", "suspicious-document00007"] {
        fs::write(plain.path().join(format!("{document}.txt")), original(document)).unwrap();
    }
    let files: Vec<PathBuf> = DOCUMENTS.iter().map(|(doc, ext)| documents().join(format!("{doc}.{ext}"))).collect();
    let texts = extract(&files);
    for preset in ["best", "pan09"] {
        let (from_plain, from_documents) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        ok(detect(&sources, plain.path(), from_plain.path(), &["--preset", preset, "--quiet"]));
        ok(detect(&sources, &documents(), from_documents.path(), &["--preset", preset, "--quiet"]));
        for ((document, format), text) in DOCUMENTS.iter().zip(&texts) {
            let original = original(document);
            let alignment = Alignment::of(&original, text);
            let expected = read_report(&from_plain.path().join(format!("{document}.xml")));
            let found = read_report(&from_documents.path().join(format!("{document}.{format}.xml")));
            assert_eq!(found.reference, format!("{document}.{format}"));
            assert!(!expected.features.is_empty(), "{document} has cases");
            // Offsets count the characters of the extracted text: each passage
            // there holds the words of the original's passage at the mapped offsets.
            for feature in &found.features {
                let (start, end) = feature.this_range().unwrap();
                assert!(end as usize <= text.chars().count(), "{document}.{format} ({preset}): {start}..{end}");
                let at_original =
                    chars(&original, alignment.to_original(start as usize), alignment.to_original(end as usize));
                assert_eq!(words(&chars(text, start as usize, end as usize)), words(&at_original));
            }
            let (expected, found) = (coverage(&expected, |at| at), coverage(&found, |at| alignment.to_original(at)));
            let differing = expected.symmetric_difference(&found).count();
            let share = differing as f64 / expected.len() as f64;
            assert!(
                share <= MAX_DIFFERING_SHARE,
                "{document}.{format} ({preset}): {differing} of {} passage characters differ",
                expected.len()
            );
        }
    }
}

#[test]
fn a_misnamed_document_is_read_by_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let copy = |from: &str, to: &str| {
        let to = dir.path().join(to);
        fs::copy(documents().join(from), &to).unwrap();
        to
    };
    let misnamed = [
        copy("suspicious-document00007.pdf", "thesis.docx"),
        copy("suspicious-document00007.docx", "thesis.pdf"),
        copy("suspicious-document00007.odt", "thesis.html"),
        copy("suspicious-document00007.html", "page.odt"),
    ];
    let named = ["pdf", "docx", "odt", "html"].map(|ext| documents().join(format!("suspicious-document00007.{ext}")));
    assert_eq!(extract(&misnamed), extract(&named));
}

#[test]
fn bad_uploads_are_skipped_with_a_warning_naming_them_and_strict_makes_them_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let uploads = dir.path().join("uploads");
    fs::create_dir_all(&uploads).unwrap();
    for name in ["bomb.docx", "truncated.pdf"] {
        fs::copy(documents().join("bad").join(name), uploads.join(name)).unwrap();
    }
    fs::write(uploads.join("notes.pdf"), "plain text under a PDF's name").unwrap();
    fs::copy(documents().join("suspicious-document00007.docx"), uploads.join("good.docx")).unwrap();
    let sources = fixtures().join("pan/source-documents");
    for strict in [false, true] {
        let out = dir.path().join(format!("out-{strict}"));
        let extra: &[&str] = if strict { &["--quiet", "--strict"] } else { &["--quiet"] };
        let output = detect(&sources, &uploads, &out, extra);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.success(), !strict, "{stderr}");
        let at = |name: &str| uploads.join(name).display().to_string();
        for expected in [
            format!(
                "{}: word/document.xml expands beyond 16 MiB, more than a file of 33 KiB may (a zip bomb?); skipped",
                at("bomb.docx")
            ),
            format!("{}: not a readable PDF (", at("truncated.pdf")),
            format!("{}: named like a PDF but holds no PDF, DOCX, ODT or HTML document; skipped", at("notes.pdf")),
            "3 files skipped".to_string(),
        ] {
            assert!(stderr.contains(&expected), "expected {expected:?} in: {stderr}");
        }
        assert!(!stderr.contains("panicked"), "{stderr}");
        let reports: Vec<String> =
            fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(reports, ["good.docx.xml"], "the good upload is reported all the same");
        assert!(!read_report(&out.join("good.docx.xml")).features.is_empty());
    }
}

#[test]
fn documents_that_would_share_a_report_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let suspicious = dir.path().join("suspicious");
    fs::create_dir_all(&suspicious).unwrap();
    fs::copy(documents().join("suspicious-document00007.pdf"), suspicious.join("thesis.pdf")).unwrap();
    fs::write(suspicious.join("thesis.pdf.txt"), original("suspicious-document00007")).unwrap();
    let out = dir.path().join("out");
    let output = detect(&fixtures().join("pan/source-documents"), &suspicious, &out, &["--quiet"]);
    fails_with(output, "thesis.pdf and thesis.pdf.txt would both be written as thesis.pdf.xml");
    assert_eq!(fs::read_dir(&out).map_or(0, |entries| entries.count()), 0);
}

#[test]
fn text_reruns_leave_its_texts_and_never_replace_another_file() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = documents().join("suspicious-document00007.pdf");
    let out = dir.path().join("texts");
    let args = ["text", s(&pdf), "--out", s(&out)];
    ok(run(&args));
    let output = run(&args);
    assert!(String::from_utf8_lossy(&output.stderr).contains("1 unchanged"));
    let text = out.join("suspicious-document00007.pdf.txt");
    fs::write(&text, "my own notes").unwrap();
    fails_with(run(&args), "suspicious-document00007.pdf.txt: exists and is not the text of");
    assert_eq!(fs::read_to_string(&text).unwrap(), "my own notes");
}

/// The cached texts in an index: (file name, text after the header line).
fn cached_texts(index: &Path) -> Vec<(String, String)> {
    let mut texts: Vec<(String, String)> = fs::read_dir(index.join("text-cache"))
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let contents = fs::read_to_string(entry.path()).unwrap();
            (entry.file_name().into_string().unwrap(), contents.split_once('\n').unwrap().1.to_string())
        })
        .collect();
    texts.sort();
    texts
}

#[test]
fn the_archive_indexes_documents_keeps_their_texts_by_content_and_drops_those_of_deleted_ones() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir_all(docs.join("2026")).unwrap();
    for entry in fs::read_dir(fixtures().join("pan/source-documents")).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), docs.join(entry.file_name())).unwrap();
    }
    let pdf = documents().join("suspicious-document00007.pdf");
    fs::copy(&pdf, docs.join("2026/thesis.pdf")).unwrap();
    let index = dir.path().join("index");
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--preset", "best", "--quiet"]));
    let key: String = content_hash(&fs::read(&pdf).unwrap()).iter().map(|b| format!("{b:02x}")).collect();
    let text = extract(std::slice::from_ref(&pdf)).remove(0);
    assert_eq!(cached_texts(&index), [(format!("{key}.text"), text.clone())]);

    // The DOCX of the same text finds the indexed PDF, with passages inside its text.
    let docx = documents().join("suspicious-document00007.docx");
    let check = ok(run(&["check", "--index", s(&index), s(&docx), "--format", "json"]));
    let check: serde_json::Value = serde_json::from_str(&check).unwrap();
    let thesis = check["documents"][0]["sources"].as_array().unwrap().iter().find(|d| d["name"] == "2026/thesis.pdf");
    let passages = thesis.expect("the thesis is found")["passages"].as_array().unwrap();
    assert!(!passages.is_empty());
    for passage in passages {
        let (offset, length) =
            (passage["source"]["offset"].as_u64().unwrap(), passage["source"]["length"].as_u64().unwrap());
        assert!((offset + length) as usize <= text.chars().count());
    }

    fs::remove_file(docs.join("2026/thesis.pdf")).unwrap();
    ok(run(&["index", "update", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    assert!(cached_texts(&index).is_empty(), "the deleted thesis's text is dropped");
}

#[test]
fn detect_keeps_extracted_texts_in_its_cache_or_in_a_temporary_one_it_removes() {
    let dir = tempfile::tempdir().unwrap();
    let (cache, temporary) = (dir.path().join("cache"), dir.path().join("tmp"));
    fs::create_dir_all(&temporary).unwrap();
    let sources = fixtures().join("pan/source-documents");
    let output = crate::pan_detect()
        .args(["--source-dir", s(&sources), "--suspicious-dir", s(&documents())])
        .args(["--out", s(&dir.path().join("out")), "--quiet"])
        .env("TMPDIR", &temporary)
        .output()
        .unwrap();
    ok(output);
    assert_eq!(fs::read_dir(&temporary).unwrap().count(), 0, "the run's cache is removed");
    // The run's cache is made in TMPDIR: a TMPDIR that takes none costs time only.
    let not_a_directory = dir.path().join("file");
    fs::write(&not_a_directory, "").unwrap();
    let output = crate::pan_detect()
        .args(["--source-dir", s(&sources), "--suspicious-dir", s(&documents())])
        .args(["--out", s(&dir.path().join("out-uncached")), "--quiet"])
        .env("TMPDIR", &not_a_directory)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    ok(output);
    assert!(stderr.contains(": cannot make a temporary directory for extracted texts ("), "{stderr}");
    assert_eq!(
        fs::read(dir.path().join("out-uncached/suspicious-document00007.pdf.xml")).unwrap(),
        fs::read(dir.path().join("out/suspicious-document00007.pdf.xml")).unwrap()
    );
    let out = dir.path().join("out-cached");
    ok(detect(&sources, &documents(), &out, &["--cache", s(&cache), "--quiet"]));
    let mut cached: Vec<String> =
        fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    cached.sort();
    let mut expected: Vec<String> = DOCUMENTS
        .iter()
        .filter(|(_, format)| *format != "html")
        .map(|(document, format)| {
            let bytes = fs::read(documents().join(format!("{document}.{format}"))).unwrap();
            content_hash(&bytes).iter().map(|b| format!("{b:02x}")).collect::<String>() + ".text"
        })
        .collect();
    expected.sort();
    assert_eq!(cached, expected, "the PDF, DOCX and ODT texts, by content");
}

/// A directory of documents named with upper- and mixed-case extensions:
/// the PDF and DOCX of document 7 and the plain text of document 1.
fn documents_with_cased_extensions(dir: &Path) -> PathBuf {
    let uploads = dir.join("cased");
    fs::create_dir_all(&uploads).unwrap();
    fs::copy(documents().join("suspicious-document00007.pdf"), uploads.join("Jan Novák - Thesis.PDF")).unwrap();
    fs::copy(documents().join("suspicious-document00007.docx"), uploads.join("Report.Docx")).unwrap();
    fs::write(uploads.join("Notes.TXT"), original("suspicious-document00001")).unwrap();
    uploads
}

#[test]
fn extensions_are_read_whatever_their_case() {
    let dir = tempfile::tempdir().unwrap();
    let uploads = documents_with_cased_extensions(dir.path());
    let sources = fixtures().join("pan/source-documents");
    let out = dir.path().join("out");
    ok(detect(&sources, &uploads, &out, &["--quiet"]));
    for report in ["Jan Novák - Thesis.PDF.xml", "Report.Docx.xml", "Notes.TXT.xml"] {
        assert!(!read_report(&out.join(report)).features.is_empty(), "{report}");
    }

    let index = dir.path().join("index");
    ok(run(&["index", "create", "--docs", s(&uploads), "--index", s(&index), "--quiet"]));
    let probe = fixtures().join("pan/suspicious-documents/suspicious-document00007.txt");
    let check = ok(run(&["check", "--index", s(&index), s(&probe), "--format", "json"]));
    let check: serde_json::Value = serde_json::from_str(&check).unwrap();
    let found: BTreeSet<&str> =
        check["documents"][0]["sources"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert!(found.contains("Jan Novák - Thesis.PDF") && found.contains("Report.Docx"), "{found:?}");

    // check reads an HTML page named `*.HTML` as the page it is, not as text.
    let (page, lower) = (dir.path().join("Page.HTML"), dir.path().join("page.html"));
    fs::copy(documents().join("suspicious-document00007.html"), &page).unwrap();
    fs::copy(documents().join("suspicious-document00007.html"), &lower).unwrap();
    let texts = |file: &Path| {
        let out = tempfile::tempdir().unwrap();
        ok(run(&["text", "--out", s(out.path()), s(file)]));
        fs::read_dir(out.path()).unwrap().map(|e| fs::read_to_string(e.unwrap().path()).unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(texts(&page), texts(&lower));
    let checked = |file: &Path| {
        let json = ok(run(&["check", "--index", s(&index), s(file), "--format", "json"]));
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        json["documents"][0]["sources"].clone()
    };
    assert_eq!(checked(&page), checked(&lower));
}

#[test]
fn a_directory_of_upper_case_names_only_is_not_empty() {
    let dir = tempfile::tempdir().unwrap();
    let uploads = dir.path().join("uploads");
    fs::create_dir_all(&uploads).unwrap();
    fs::copy(documents().join("suspicious-document00007.pdf"), uploads.join("THESIS.PDF")).unwrap();
    let out = dir.path().join("out");
    let output = detect(&fixtures().join("pan/source-documents"), &uploads, &out, &["--quiet"]);
    ok(output);
    assert!(!read_report(&out.join("THESIS.PDF.xml")).features.is_empty());
}

/// The place of each of `offsets` in the text of the fixture `name`, and the text's length.
fn places(name: &str, offsets: impl Fn(u32) -> Vec<u32>) -> (Vec<String>, u32) {
    use pan_detect::analysis::extract::{Container, extract};
    let bytes = fs::read(documents().join(name)).unwrap();
    let extracted = extract(Container::of(&bytes).unwrap(), &bytes).unwrap();
    let chars = extracted.text.chars().count() as u32;
    let places = offsets(chars)
        .into_iter()
        .map(|offset| extracted.layout.place_of(offset).map_or_else(|| "none".into(), |p| p.to_string()))
        .collect();
    (places, chars)
}

#[test]
fn a_pdfs_text_knows_the_page_and_line_of_each_character_and_a_docx_its_paragraph() {
    let (pdf, _) = places("suspicious-document00007.pdf", |chars| vec![0, chars / 2, chars - 1]);
    assert_eq!(pdf[0], "page 1, line 1");
    assert!(pdf[1].starts_with("page 3, ") || pdf[1].starts_with("page 4, "), "{pdf:?}");
    assert!(pdf[2].starts_with("page 6, line "), "the fixture has 6 pages: {pdf:?}");
    // Pages run in order through the text, each from its line 1.
    let (every, _) = places("suspicious-document00007.pdf", |chars| (0..chars).step_by(50).collect());
    let pages: Vec<u32> =
        every.iter().map(|p| p.split(',').next().unwrap().trim_start_matches("page ").parse().unwrap()).collect();
    assert!(pages.windows(2).all(|w| w[0] <= w[1]) && pages.last() == Some(&6), "{every:?}");

    // LibreOffice records no pages in a DOCX: its paragraphs, one a non-empty
    // line of the original, are counted.
    let original = original("suspicious-document00007");
    let (docx, _) = places("suspicious-document00007.docx", |chars| vec![0, chars - 1]);
    let paragraphs = original.lines().filter(|line| !line.trim().is_empty()).count();
    assert_eq!(docx, ["paragraph 1".to_string(), format!("paragraph {paragraphs}")]);
}

#[test]
fn html_reports_place_passages_by_page_and_line_of_a_pdf_and_paragraph_of_a_docx_beside_their_characters() {
    let dir = tempfile::tempdir().unwrap();
    let suspicious = dir.path().join("suspicious");
    fs::create_dir_all(&suspicious).unwrap();
    for format in ["pdf", "docx"] {
        let name = format!("suspicious-document00007.{format}");
        fs::copy(documents().join(&name), suspicious.join(&name)).unwrap();
    }
    let out = dir.path().join("html");
    ok(detect(&fixtures().join("pan/source-documents"), &suspicious, &out, &["--quiet", "--format", "html"]));
    for (page, place) in
        [("suspicious-document00007.pdf.html", "page "), ("suspicious-document00007.docx.html", "paragraph ")]
    {
        let html = fs::read_to_string(out.join(page)).unwrap();
        let list = html.split("<nav id=\"passages\">").nth(1).unwrap().split("</nav>").next().unwrap();
        let items: Vec<&str> = list.split("<li>").skip(1).collect();
        assert!(!items.is_empty(), "{page}: no passages");
        for item in items {
            let document_side = item.split("</a>").next().unwrap();
            assert!(document_side.contains(place) && document_side.contains("; characters "), "{page}: {item}");
        }
        assert!(html.contains("<h2>How to read this page</h2>") && html.contains("<b>Of this</b>: "), "{page}");
    }
    // The sources are plain texts: characters alone.
    let html = fs::read_to_string(out.join("suspicious-document00007.pdf.html")).unwrap();
    assert!(html.contains("<h4 class=\"source\">source-document"), "{html:.200}");
    assert!(html.contains(".txt, characters "));

    // check's pages place the checked file's passages too.
    let index = dir.path().join("index");
    ok(run(&[
        "index",
        "create",
        "--docs",
        s(&fixtures().join("pan/source-documents")),
        "--index",
        s(&index),
        "--quiet",
    ]));
    let checked = dir.path().join("checked");
    let pdf = suspicious.join("suspicious-document00007.pdf");
    ok(run(&["check", "--index", s(&index), "--format", "html", "--out", s(&checked), s(&pdf)]));
    let html = fs::read_to_string(checked.join("suspicious-document00007.pdf.html")).unwrap();
    assert!(html.contains("<h4 class=\"document\">This document, page "), "{html:.300}");
}
