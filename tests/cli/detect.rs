//! Detection end to end: exact passage boundaries, nothing for unrelated documents, valid XML.

use std::fs;

use pan_detect::report::pan_xml::PanDocument;

use crate::{detect, detect_dirs, path_str, prose, read_report, report_passages};

fn char_len(text: &str) -> u64 {
    text.chars().count() as u64
}

struct Case {
    suspicious_offset: u64,
    source_offset: u64,
    length: u64,
}

#[test]
fn verbatim_passage_is_found_with_exact_character_boundaries() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());

    let source_before = prose(1, 300);
    let passage = prose(2, 120).trim_end().to_string();
    let source_text = format!("{source_before}{passage} {}", prose(3, 200));
    let suspicious_before = format!("Úvod: {}", prose(4, 150));
    let suspicious_text = format!("{suspicious_before}{passage} {}", prose(5, 100));
    fs::write(src.join("source-a.txt"), &source_text).unwrap();
    fs::write(src.join("source-unrelated.txt"), prose(6, 500)).unwrap();
    fs::write(susp.join("suspicious-a.txt"), &suspicious_text).unwrap();
    fs::write(susp.join("suspicious-clean.txt"), prose(7, 400)).unwrap();
    let expected = Case {
        suspicious_offset: char_len(&suspicious_before),
        source_offset: char_len(&source_before),
        length: char_len(&passage),
    };
    assert_ne!(suspicious_before.len() as u64, expected.suspicious_offset, "the test needs multi-byte text");

    let output = detect(&src, &susp, &out, &["--quiet", "--preset", "pan09"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    let report = read_report(&out.join("suspicious-a.xml"));
    assert_eq!(report.reference, "suspicious-a.txt");
    assert_eq!(report.features.len(), 1, "{report:?}");
    let feature = &report.features[0];
    assert_eq!(feature.name, "detected-plagiarism");
    assert_eq!(feature.get("source_reference"), Some("source-a.txt"));
    let this = feature.this_range().unwrap();
    let source = feature.source_range().unwrap();
    assert_eq!(this, (expected.suspicious_offset, expected.suspicious_offset + expected.length));
    assert_eq!(source, (expected.source_offset, expected.source_offset + expected.length));
    let detected: String = suspicious_text.chars().skip(this.0 as usize).take((this.1 - this.0) as usize).collect();
    assert_eq!(detected, passage);

    let clean = read_report(&out.join("suspicious-clean.xml"));
    assert!(clean.features.is_empty(), "unrelated document got {clean:?}");
}

#[test]
fn too_short_a_copy_is_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    // 23 words make 19 chunks: one short of the 20 a valid interval needs.
    let passage = prose(2, 23);
    fs::write(src.join("s.txt"), format!("{}{passage}{}", prose(1, 100), prose(3, 100))).unwrap();
    fs::write(susp.join("t.txt"), format!("{}{passage}{}", prose(4, 100), prose(5, 100))).unwrap();
    let output = detect(&src, &susp, &out, &["--preset", "pan09"]);
    assert!(output.status.success());
    assert!(read_report(&out.join("t.xml")).features.is_empty());
    // With 24 words (20 chunks) it is.
    let passage = prose(2, 24);
    fs::write(susp.join("t.txt"), format!("{}{passage}{}", prose(4, 100), prose(5, 100))).unwrap();
    fs::write(src.join("s.txt"), format!("{}{passage}{}", prose(1, 100), prose(3, 100))).unwrap();
    let output = detect(&src, &susp, &out, &["--preset", "pan09"]);
    assert!(output.status.success());
    assert_eq!(read_report(&out.join("t.xml")).features.len(), 1);
}

#[test]
fn summary_line_counts_documents_and_passages() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let passage = prose(9, 60);
    fs::write(src.join("s.txt"), format!("{}{passage}", prose(1, 50))).unwrap();
    fs::write(susp.join("t.txt"), format!("{passage}{}", prose(2, 50))).unwrap();
    for (preset, aligned) in [("pan09", " in "), ("best", " (1 pair aligned) in ")] {
        let output = detect(&src, &susp, &out, &["--threads", "1", "--preset", preset]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("1 source + 1 suspicious document ("), "{stderr}");
        assert!(stderr.contains(&format!(", 1 passage{aligned}")), "{stderr}");
    }
    let index = dir.path().join("idx");
    let output = crate::run(&["index", "create", "--docs", path_str(&src), "--index", path_str(&index)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("indexed 1 document ("), "{stderr}");
}

/// A case or a detection of the fixture corpus.
#[derive(Debug, Clone)]
struct Annotation {
    source: String,
    this: (u64, u64),
    obfuscation: Option<String>,
}

fn annotations(document: &PanDocument) -> Vec<Annotation> {
    document
        .features
        .iter()
        .map(|f| Annotation {
            source: f.get("source_reference").unwrap_or_default().to_string(),
            this: f.this_range().unwrap(),
            obfuscation: f.get("obfuscation").map(str::to_string),
        })
        .collect()
}

/// The characters `from..to` (either order) of `text` hold at most one word.
fn within_one_word(text: &str, a: u64, b: u64) -> bool {
    let (from, to) = (a.min(b) as usize, a.max(b) as usize);
    let between: String = text.chars().skip(from).take(to - from).collect();
    between.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).count() <= 1
}

#[test]
fn fixture_corpus_verbatim_cases_are_found_and_clean_documents_stay_clean() {
    let corpus = crate::fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output =
        detect(&corpus.join("source-documents"), &corpus.join("suspicious-documents"), &out, &["--preset", "pan09"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    let mut verbatim = 0;
    let mut exact = 0;
    for entry in fs::read_dir(corpus.join("suspicious-documents")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let cases = annotations(&read_report(&path.with_extension("xml")));
        let report = read_report(&out.join(name.replace(".txt", ".xml")));
        assert_eq!(report.reference, name);
        let detections = annotations(&report);
        if cases.is_empty() {
            assert!(detections.is_empty(), "{name} has no case but got {detections:?}");
        }
        for detection in &detections {
            let explained = cases
                .iter()
                .any(|c| c.source == detection.source && c.this.0 < detection.this.1 && detection.this.0 < c.this.1);
            assert!(explained, "{name}: detection {detection:?} overlaps no case of its source");
        }
        for case in cases.iter().filter(|c| c.obfuscation.as_deref() == Some("none")) {
            verbatim += 1;
            let found =
                detections.iter().find(|d| d.source == case.source && d.this.0 < case.this.1 && case.this.0 < d.this.1);
            let detection = found.unwrap_or_else(|| panic!("{name}: verbatim case {case:?} not found"));
            // The detection may also cover a neighbouring case from the same
            // source (the method joins them), but it covers this one to the word.
            assert!(
                detection.this.0 <= case.this.0 || within_one_word(&text, detection.this.0, case.this.0),
                "{name}: {case:?} vs {detection:?}"
            );
            assert!(
                detection.this.1 >= case.this.1 || within_one_word(&text, detection.this.1, case.this.1),
                "{name}: {case:?} vs {detection:?}"
            );
            let joins_others =
                cases.iter().filter(|c| c.this.0 < detection.this.1 && detection.this.0 < c.this.1).count() > 1;
            if !joins_others {
                assert!(
                    within_one_word(&text, detection.this.0, case.this.0),
                    "{name}: start of {case:?} vs {detection:?}"
                );
                assert!(
                    within_one_word(&text, detection.this.1, case.this.1),
                    "{name}: end of {case:?} vs {detection:?}"
                );
                exact += 1;
            }
        }
    }
    assert!(verbatim >= 8, "the fixture should hold verbatim cases, found {verbatim}");
    assert!(exact >= 6, "most verbatim cases stand alone, found {exact}");
}

#[test]
fn one_directory_as_sources_and_suspicious_documents_never_matches_a_document_with_itself() {
    let dir = tempfile::tempdir().unwrap();
    let (docs, out) = (dir.path().join("docs"), dir.path().join("out"));
    fs::create_dir_all(&docs).unwrap();
    let passage = prose(9, 120);
    fs::write(docs.join("a.txt"), format!("{}{passage}", prose(1, 150))).unwrap();
    fs::write(docs.join("b.txt"), format!("{passage}{}", prose(2, 150))).unwrap();
    fs::write(docs.join("c.txt"), prose(3, 300)).unwrap();
    // Reached by another path, the directory is still the same one.
    let other_path = dir.path().join("docs/../docs");
    for preset in ["pan09", "best"] {
        let output = detect(&docs, &other_path, &out, &["--preset", preset]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        for (name, source) in [("a", "b.txt"), ("b", "a.txt")] {
            let report = read_report(&out.join(format!("{name}.xml")));
            let sources: Vec<_> = report.features.iter().map(|f| f.get("source_reference").unwrap()).collect();
            assert_eq!(sources, [source], "{preset}: {name}.xml");
        }
        assert!(read_report(&out.join("c.xml")).features.is_empty(), "{preset}");
    }
}

/// Text of pseudo-Chinese sentences: `sentences` runs of 12–30 Han ideographs
/// drawn from 3000 of them, each ending with "。".
fn han_prose(seed: u64, sentences: usize) -> String {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut text = String::new();
    for _ in 0..sentences {
        for _ in 0..12 + next(19) {
            text.push(char::from_u32(0x4E00 + next(3000) as u32).expect("a Han ideograph"));
        }
        text.push('。');
    }
    text
}

#[test]
fn chinese_copy_is_found_by_both_presets_with_character_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = (dir.path().join("src"), dir.path().join("susp"));
    fs::create_dir_all(&src).unwrap();
    fs::create_dir_all(&susp).unwrap();
    let source_before = han_prose(1, 20);
    // The copy ends with an ideograph, where pan09's last chunk ends too.
    let passage = han_prose(2, 20).trim_end_matches('。').to_string();
    fs::write(src.join("source-a.txt"), format!("{source_before}{passage}。{}", han_prose(3, 20))).unwrap();
    let suspicious_before = han_prose(4, 10);
    fs::write(susp.join("suspicious-a.txt"), format!("{suspicious_before}{passage}。{}", han_prose(5, 10))).unwrap();
    let this_start = char_len(&suspicious_before);
    let source_start = char_len(&source_before);
    for preset in ["pan09", "best"] {
        let out = dir.path().join(preset);
        let output = detect(&src, &susp, &out, &["--quiet", "--preset", preset]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let report = read_report(&out.join("suspicious-a.xml"));
        assert_eq!(report.features.len(), 1, "{preset}: {report:?}");
        let (this, source) = (report.features[0].this_range().unwrap(), report.features[0].source_range().unwrap());
        let end = char_len(&passage);
        assert_eq!(this, (this_start, this_start + end), "{preset}");
        assert_eq!(source, (source_start, source_start + end), "{preset}");
    }
}

/// The number of document pairs the summary line says were aligned.
fn pairs_aligned(stderr: &str) -> usize {
    let (before, _) = stderr.split_once(" aligned)").unwrap_or_else(|| panic!("no pair count: {stderr}"));
    let before = before.trim_end_matches(" pairs").trim_end_matches(" pair");
    before.rsplit('(').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no pair count: {stderr}"))
}

#[test]
fn a_real_copy_is_found_when_a_thousand_pairs_share_boilerplate() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    // Ten boilerplate paragraphs, each in a hundred sources; one source also
    // holds the passage that the suspicious document copies.
    let boilerplate: Vec<String> = (0..10).map(|b| prose(500 + b, 60)).collect();
    let copied = prose(77, 150);
    for doc in 0..1000u64 {
        let own = if doc == 321 { copied.clone() } else { prose(1000 + doc, 140) };
        let text = format!("{}{}{own}", prose(3000 + doc, 40), boilerplate[(doc / 100) as usize]);
        fs::write(src.join(format!("source-{doc:04}.txt")), text).unwrap();
    }
    let prefix = format!("{}{}", prose(5, 100), boilerplate.concat());
    let suspicious = format!("{prefix}{copied}{}", prose(6, 100));
    fs::write(susp.join("thesis.txt"), &suspicious).unwrap();

    let chars = suspicious.chars().count();
    let start = prefix.chars().count() as u64;
    let end = start + char_len(&copied);
    // By default each boilerplate paragraph is in too many sources to make
    // hits at all; with that bound lifted, the budget of aligned pairs holds.
    for (flags, budget) in [(&["--quiet"][..], 1), (&["--quiet", "--candidate-max-postings", "1000"], 10 + chars / 500)]
    {
        let output = detect(&src, &susp, &out, flags);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        let aligned = pairs_aligned(&stderr);
        assert!(aligned <= budget, "{flags:?}: {aligned} pairs aligned, budget {budget}: {stderr}");
        let found = annotations(&read_report(&out.join("thesis.xml")));
        let copy = |a: &Annotation| a.source == "source-0321.txt" && a.this.0 <= start + 10 && a.this.1 + 10 >= end;
        assert!(found.iter().any(copy), "{flags:?}: no copy of source-0321: {found:?}");
    }
}

#[test]
fn taboo_text_is_never_reported_but_a_copy_beside_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let template = prose(900, 120);
    let copied = prose(77, 150);
    for doc in 0..5u64 {
        let own = if doc == 2 { copied.clone() } else { prose(1000 + doc, 200) };
        fs::write(src.join(format!("source-{doc}.txt")), format!("{template}{own}")).unwrap();
    }
    let before_template = prose(5, 80);
    let before_copy = format!("{before_template}{template}{}", prose(6, 80));
    fs::write(susp.join("thesis.txt"), format!("{before_copy}{copied}{}", prose(7, 80))).unwrap();
    fs::write(susp.join("clean.txt"), format!("{}{template}{}", prose(8, 80), prose(9, 200))).unwrap();
    let template_file = dir.path().join("template.txt");
    fs::write(&template_file, &template).unwrap();
    let template_range = (char_len(&before_template), char_len(&before_template) + char_len(&template));
    let copy_range = (char_len(&before_copy), char_len(&before_copy) + char_len(&copied));

    for preset in ["pan09", "best"] {
        let output = detect(&src, &susp, &out, &["--quiet", "--preset", preset]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(
            !read_report(&out.join("clean.xml")).features.is_empty(),
            "{preset}: the template is found without --taboo"
        );

        let taboo = ["--quiet", "--preset", preset, "--taboo", path_str(&template_file)];
        let output = detect(&src, &susp, &out, &taboo);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(stderr.contains("of taboo text left out"), "{stderr}");
        assert!(read_report(&out.join("clean.xml")).features.is_empty(), "{preset}: template reported");
        let found = annotations(&read_report(&out.join("thesis.xml")));
        let overlaps = |a: &Annotation, (start, end): (u64, u64)| a.this.0 < end && start < a.this.1;
        assert!(!found.iter().any(|a| overlaps(a, template_range)), "{preset}: template reported: {found:?}");
        let copy = |a: &Annotation| {
            a.source == "source-2.txt" && a.this.0 <= copy_range.0 + 10 && a.this.1 + 10 >= copy_range.1
        };
        assert!(found.iter().any(copy), "{preset}: the copy is missing: {found:?}");
    }
    let missing = dir.path().join("no-such-template.txt");
    let output = detect(&src, &susp, &out, &["--quiet", "--taboo", path_str(&missing)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("no-such-template.txt: cannot use as taboo text"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// `text` with every other word (the odd ones) changed the way OCR misreads
/// letters: each `e` read as `c`, or an `x` before it when it has none.
pub(crate) fn misread_every_other_word(text: &str) -> String {
    let misread = |word: &str| if word.contains('e') { word.replace('e', "c") } else { format!("x{word}") };
    let words = text.split(' ').enumerate();
    words.map(|(i, word)| if i % 2 == 1 { misread(word) } else { word.to_string() }).collect::<Vec<_>>().join(" ")
}

#[test]
fn interleaved_chunks_find_a_copy_whose_every_other_word_was_misread() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = (dir.path().join("src"), dir.path().join("susp"));
    fs::create_dir_all(&src).unwrap();
    fs::create_dir_all(&susp).unwrap();
    let passage = prose(12, 200).trim_end().to_string();
    let source_before = prose(11, 150);
    fs::write(src.join("source-a.txt"), format!("{source_before}{passage} {}", prose(13, 100))).unwrap();
    let suspicious_before = prose(14, 100);
    let noisy = misread_every_other_word(&passage);
    fs::write(susp.join("suspicious-a.txt"), format!("{suspicious_before}{noisy} {}", prose(15, 100))).unwrap();

    let found = |hashing: &str| {
        let out = dir.path().join(format!("out-{hashing}"));
        let flags = ["--quiet", "--preset", "pan09", "--chunk-words", "4", "--min-chunks", "12", "--min-common", "12"];
        let output = detect(&src, &susp, &out, &[&flags[..], &["--hashing", hashing]].concat());
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        report_passages(&out.join("suspicious-a.xml"))
    };
    // Every run of two consecutive words holds a misread one: no contiguous chunk survives.
    assert_eq!(found("contiguous"), vec![]);
    let passages = found("interleaved");
    assert_eq!(passages.len(), 1, "{passages:?}");
    let (start, end, source, source_start, source_end) = &passages[0];
    assert_eq!(source, "source-a.txt");
    let (expected_start, expected_source) = (char_len(&suspicious_before), char_len(&source_before));
    assert!(
        start.abs_diff(expected_start) < 40 && end.abs_diff(expected_start + char_len(&noisy)) < 40,
        "{passages:?}"
    );
    assert!(
        source_start.abs_diff(expected_source) < 40 && source_end.abs_diff(expected_source + char_len(&passage)) < 40
    );
}

/// Source and suspicious directories with documents in subfolders: `a.txt`
/// copies from `more/x.txt`, `sub/b.txt` from `y.txt` and `sub/deeper/c.txt`
/// from `more/x.txt`.
fn nested_dirs(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let (src, susp, out) = detect_dirs(dir);
    for sub in [src.join("more"), susp.join("sub/deeper")] {
        fs::create_dir_all(sub).unwrap();
    }
    let (x, y) = (format!("{}{}", prose(10, 300), prose(11, 200)), prose(12, 400));
    fs::write(src.join("more/x.txt"), &x).unwrap();
    fs::write(src.join("y.txt"), &y).unwrap();
    fs::write(susp.join("a.txt"), format!("{}{}", prose(20, 100), prose(10, 150))).unwrap();
    fs::write(susp.join("sub/b.txt"), format!("{}{}", prose(21, 100), prose(12, 150))).unwrap();
    fs::write(susp.join("sub/deeper/c.txt"), format!("{}{}", prose(22, 100), prose(11, 150))).unwrap();
    (src, susp, out)
}

#[test]
fn without_recursive_each_skipped_subfolder_is_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = nested_dirs(dir.path());
    let output = detect(&src, &susp, &out, &["--quiet"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for folder in [src.join("more"), susp.join("sub")] {
        let warning = format!("warning: {}: a folder, skipped (use --recursive)", folder.display());
        assert!(stderr.contains(&warning), "expected {warning:?} in: {stderr}");
    }
    assert_eq!(crate::files_of(&out).into_keys().collect::<Vec<_>>(), ["a.xml"]);
}

#[test]
fn recursive_reads_subfolders_and_names_documents_by_relative_path_in_one_flat_output_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = nested_dirs(dir.path());
    let output = detect(&src, &susp, &out, &["--quiet", "--recursive"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let reports: Vec<String> = crate::files_of(&out).into_keys().collect();
    assert_eq!(reports, ["a.xml", "sub%2Fb.xml", "sub%2Fdeeper%2Fc.xml"], "no report leaves --out");
    for (report, reference, source) in [
        ("a.xml", "a.txt", "more/x.txt"),
        ("sub%2Fb.xml", "sub/b.txt", "y.txt"),
        ("sub%2Fdeeper%2Fc.xml", "sub/deeper/c.txt", "more/x.txt"),
    ] {
        let report = read_report(&out.join(report));
        assert_eq!(report.reference, reference);
        let sources: Vec<&str> = report.features.iter().map(|f| f.get("source_reference").unwrap()).collect();
        assert!(!sources.is_empty() && sources.iter().all(|s| *s == source), "{reference}: {sources:?}");
    }

    // HTML pages too, linked from the index page.
    let html = dir.path().join("html");
    let output = detect(&src, &susp, &html, &["--quiet", "--recursive", "--format", "html"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let pages: Vec<String> = crate::files_of(&html).into_keys().collect();
    assert_eq!(pages, ["a.html", "index.html", "sub%2Fb.html", "sub%2Fdeeper%2Fc.html"]);
    let index = fs::read_to_string(html.join("index.html")).unwrap();
    assert!(index.contains("href=\"sub%252Fb.html\""), "{index}");
}

#[test]
fn recursive_documents_whose_reports_would_collide_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = nested_dirs(dir.path());
    fs::write(susp.join("sub%2Fb.txt"), prose(30, 200)).unwrap();
    let output = detect(&src, &susp, &out, &["--quiet", "--recursive"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("sub%2Fb.txt and sub/b.txt would both be written as sub%2Fb.xml"), "{stderr}");
    assert!(!out.exists() || fs::read_dir(&out).unwrap().next().is_none(), "nothing is written");
}
