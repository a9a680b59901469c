//! HTML and JSON reports of `detect` and `check`: one JSON schema for both
//! (the same document for the same passages), reports named like the PAN XML
//! ones, flags that do not go together refused, files that are not our
//! reports never overwritten.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::archive::{fails_with, ok, s, write};
use crate::archive_best::{pan_with_best_index, text_files};
use crate::{detect, fixtures, report_passages, run};

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// A document of a JSON report without what only `check` knows (chunk
/// counts) and the archive documents it shares chunks with but no passage.
fn without_check_fields(document: &Value) -> Value {
    let mut document = document.clone();
    let fields = document.as_object_mut().unwrap();
    for field in ["chunks", "distinct_chunks", "taboo_chars"] {
        assert!(fields.remove(field).is_some(), "check gives {field}");
    }
    let sources = fields["sources"].as_array_mut().unwrap();
    sources.retain(|source| !source["passages"].as_array().unwrap().is_empty());
    for source in sources {
        let fields = source.as_object_mut().unwrap();
        for field in ["common_chunks", "document_in_source_percent", "source_in_document_percent"] {
            assert!(fields.remove(field).is_some(), "check gives {field}");
        }
        for passage in fields["passages"].as_array_mut().unwrap() {
            assert!(passage.as_object_mut().unwrap().remove("matching_chunks").is_some());
        }
    }
    document
}

#[test]
fn detect_and_check_give_one_json_schema_and_the_same_document_for_the_same_passages() {
    let (dir, sources, suspicious, index) = pan_with_best_index();
    let (detected, xml, checked) = (dir.path().join("detected"), dir.path().join("xml"), dir.path().join("checked"));
    assert_eq!(ok(detect(&sources, &suspicious, &detected, &["--format", "json"])), "", "nothing on stdout");
    ok(detect(&sources, &suspicious, &xml, &[]));
    let files = text_files(&suspicious);
    let check_args = |extra: &[&str]| {
        let mut args = vec!["check", "--index", s(&index), "--format", "json"];
        args.extend(extra);
        args.extend(files.iter().map(String::as_str));
        ok(run(&args))
    };
    check_args(&["--out", s(&checked)]);
    let stdout: Value = serde_json::from_str(&check_args(&[])).unwrap();

    let mut passages = 0;
    for (i, file) in files.iter().enumerate() {
        let stem = Path::new(file).file_stem().unwrap().to_str().unwrap();
        let (from_detect, from_check) =
            (read_json(&detected.join(format!("{stem}.json"))), read_json(&checked.join(format!("{stem}.json"))));
        for report in [&from_detect, &from_check, &stdout] {
            assert_eq!((&report["format"], &report["version"]), (&Value::from("pan-detect-report"), &Value::from(1)));
        }
        let document = &from_detect["documents"][0];
        assert_eq!(
            (document["name"].as_str(), document["path"].as_str()),
            (Path::new(file).file_name().unwrap().to_str(), Some(file.as_str()))
        );
        assert_eq!(stdout["documents"][i], from_check["documents"][0], "{stem}: stdout and --out give one document");
        assert_eq!(without_check_fields(&from_check["documents"][0]), *document, "{stem}: check and detect differ");

        // The passages are those of the PAN XML report, with their excerpts.
        let text: String = fs::read_to_string(file).unwrap();
        let mut from_json: Vec<(u64, u64, String, u64, u64)> = Vec::new();
        for source in document["sources"].as_array().unwrap() {
            for passage in source["passages"].as_array().unwrap() {
                let side =
                    |key: &str| (passage[key]["offset"].as_u64().unwrap(), passage[key]["length"].as_u64().unwrap());
                let ((offset, length), (source_offset, source_length)) = (side("document"), side("source"));
                from_json.push((
                    offset,
                    offset + length,
                    source["name"].as_str().unwrap().to_string(),
                    source_offset,
                    source_offset + source_length,
                ));
                let start: String = text.chars().skip(offset as usize).take(5).collect();
                assert!(
                    passage["document"]["excerpt"]
                        .as_str()
                        .unwrap()
                        .starts_with(start.split_whitespace().next().unwrap_or(""))
                );
            }
        }
        from_json.sort();
        let from_xml = report_passages(&xml.join(format!("{stem}.xml")));
        assert_eq!(from_json, from_xml, "{stem}");
        passages += from_json.len();
    }
    assert!(passages > 5, "the fixture corpus has cases: {passages} passages");
    // A similarity by hand: suspicious-document00002 is 39.56 % one source's.
    let second = read_json(&detected.join("suspicious-document00002.json"));
    let source = &second["documents"][0]["sources"][0];
    let (aligned, chars) =
        (source["document_aligned_chars"].as_f64().unwrap(), second["documents"][0]["chars"].as_f64().unwrap());
    assert_eq!(source["document_aligned_percent"].as_f64().unwrap(), (10_000.0 * aligned / chars).round() / 100.0);
}

#[test]
fn check_writes_html_pages_and_an_index_named_like_its_pan_xml_reports() {
    let pan = fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    ok(run(&["index", "create", "--docs", s(&pan.join("source-documents")), "--index", s(&index), "--quiet"]));
    let out = dir.path().join("html");
    let file = pan.join("suspicious-documents/suspicious-document00002.txt");
    ok(run(&["check", "--index", s(&index), "--format", "html", "--out", s(&out), s(&file)]));
    assert_eq!(listing(&out), ["index.html", "suspicious-document00002.html"]);
    let page = fs::read_to_string(out.join("suspicious-document00002.html")).unwrap();
    assert!(page.contains("<meta name=\"generator\" content=\"pan-detect report\">"));
    assert!(page.contains("data-passages=\"1\""), "a highlighted passage");
    // The archive document's side is shown from its text, as indexed.
    assert!(page.contains("<div class=\"passage source\" data-passage=\"1\">") && !page.contains("not at hand"));
    assert!(fs::read_to_string(out.join("index.html")).unwrap().contains("href=\"suspicious-document00002.html\""));
}

#[test]
fn report_flags_that_do_not_go_together_are_refused_in_one_line() {
    let pan = fixtures().join("pan");
    let (sources, suspicious) = (pan.join("source-documents"), pan.join("suspicious-documents"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let per_pair = detect(&sources, &suspicious, &out, &["--format", "html", "--layout", "per-pair"]);
    fails_with(per_pair, "--layout per-pair applies to --format pan-xml only");
    let index = dir.path().join("idx");
    let file = suspicious.join("suspicious-document00002.txt");
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--index", s(&index), s(&file)];
        args.extend(extra);
        run(&args)
    };
    fails_with(check(&["--format", "html"]), "--format html needs --out DIR");
    fails_with(check(&["--out", s(&out)]), "--out applies to --format json, html and pan-xml, not text");
    assert!(!out.exists(), "nothing was written");
}

#[test]
fn html_and_json_reports_never_replace_files_that_are_not_our_reports() {
    let pan = fixtures().join("pan");
    let sources = pan.join("source-documents");
    let dir = tempfile::tempdir().unwrap();
    let suspicious = dir.path().join("suspicious");
    for name in ["suspicious-document00002.txt", "suspicious-document00003.txt"] {
        write(&suspicious.join(name), &fs::read_to_string(pan.join("suspicious-documents").join(name)).unwrap());
    }
    let out = dir.path().join("out");
    // A page of the user's, where a report would go, or where the index goes: nothing is written.
    for (foreign, format) in
        [("suspicious-document00003.html", "html"), ("index.html", "html"), ("suspicious-document00002.json", "json")]
    {
        fs::create_dir_all(&out).unwrap();
        let mine = "<!DOCTYPE html><title>My notes</title>";
        write(&out.join(foreign), mine);
        fails_with(detect(&sources, &suspicious, &out, &["--format", format]), "exists and is not a pan-detect report");
        assert_eq!(listing(&out), [foreign], "nothing written beside {foreign}");
        assert_eq!(fs::read_to_string(out.join(foreign)).unwrap(), mine);
        fs::remove_dir_all(&out).unwrap();
    }
    // Our own reports are replaced on a rerun.
    ok(detect(&sources, &suspicious, &out, &["--format", "html"]));
    ok(detect(&sources, &suspicious, &out, &["--format", "html"]));
    ok(detect(&sources, &suspicious, &out, &["--format", "json"]));
    assert_eq!(listing(&out).len(), 5, "{:?}", listing(&out));
    // A document whose page would be the index page.
    write(&suspicious.join("index.txt"), "an index of something");
    let clash = detect(&sources, &suspicious, &dir.path().join("clash"), &["--format", "html"]);
    fails_with(clash, "the index page and index.txt would both be written as index.html");
}
