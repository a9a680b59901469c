//! HTML reports in a real browser: headless Chromium renders `detect --format
//! html`'s pages, and what a person sees is what was detected: each highlight
//! holds exactly the passage's characters, passage k of the document sits
//! beside passage k of its source, every link in the page leads somewhere, the
//! page loads nothing and logs nothing. Skipped (with a message) when no
//! `chromium` or `chromium-browser` is on the PATH.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::archive::ok;
use crate::{copy_tree, detect, fixtures, report_passages};

/// The Chromium binary on the PATH, if any.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// The longest a page may take to render before the test gives up on the browser.
const RENDER_TIMEOUT: Duration = Duration::from_secs(120);

/// What a page shows, read in the browser (appended to a copy of the page, so
/// that it runs after the page's own markup and script): for each passage
/// number, the text of the highlights holding it; each side-by-side pair with
/// its two sides' text, passage numbers and placement; the in-page links that
/// lead nowhere; the resources the page loaded; whether every highlight is
/// rendered with a background. The answer goes URI-encoded into `<pre
/// id="probe">`, which `--dump-dom` prints.
const DOCUMENT_PROBE: &str = r##"<script>
(function () {
  var out = { highlights: {}, visible: true, pairs: [], broken: [], resources: [], overlapping: 0 };
  document.querySelectorAll('.text mark').forEach(function (mark) {
    var background = getComputedStyle(mark).backgroundColor;
    if (!mark.getClientRects().length || background === 'rgba(0, 0, 0, 0)') out.visible = false;
    var numbers = mark.dataset.passages.split(' ');
    if (numbers.length > 1) out.overlapping += 1;
    numbers.forEach(function (n) { out.highlights[n] = (out.highlights[n] || '') + mark.textContent; });
  });
  document.querySelectorAll('article.pair').forEach(function (pair) {
    var left = pair.querySelector('.passage.document'), right = pair.querySelector('.passage.source');
    var l = left.getBoundingClientRect(), r = right.getBoundingClientRect();
    out.pairs.push({ id: pair.id, left_n: left.dataset.passage, right_n: right.dataset.passage,
      left: left.textContent, right: right.textContent,
      beside: Math.abs(l.top - r.top) < 1 && l.right <= r.left && l.width > 0 && r.width > 0 });
  });
  document.querySelectorAll('a[href^="#"]').forEach(function (a) {
    if (!document.getElementById(a.getAttribute('href').slice(1))) out.broken.push(a.getAttribute('href'));
  });
  out.resources = performance.getEntriesByType('resource').map(function (e) { return e.name; });
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = encodeURIComponent(JSON.stringify(out));
  document.body.appendChild(pre);
})();
</script>"##;

/// The index page's rows as the browser shows them: link and share in passages.
const INDEX_PROBE: &str = r#"<script>
(function () {
  var rows = [].map.call(document.querySelectorAll('table.documents tbody tr'), function (row) {
    return { href: row.querySelector('a').getAttribute('href'), share: parseFloat(row.querySelector('.share').textContent) };
  });
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = encodeURIComponent(JSON.stringify({ rows: rows, resources: performance.getEntriesByType('resource').length }));
  document.body.appendChild(pre);
})();
</script>"#;

/// Renders a copy of `page` with `probe` appended in headless Chromium and
/// returns the probe's answer; fails on any console message (errors, failed
/// loads, uncaught exceptions: the pages log nothing).
fn render(browser: &Path, page: &Path, probe: &str, scratch: &Path) -> Value {
    let html = fs::read_to_string(page).unwrap();
    let copy = scratch.join(format!("probed-{}", page.file_name().unwrap().to_str().unwrap()));
    fs::write(&copy, html.replace("</body>", &format!("{probe}</body>"))).unwrap();
    let profile = tempfile::tempdir().unwrap();
    // Into files, not pipes: a page's DOM outgrows a pipe's buffer, and a
    // browser blocked on a full pipe would never exit.
    let (dom_file, log_file) = (copy.with_extension("dom"), copy.with_extension("log"));
    let mut child = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--window-size=1280,900", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"])
        .arg("--dump-dom")
        .arg(format!("file://{}", copy.display()))
        .stdout(fs::File::create(&dom_file).unwrap())
        .stderr(fs::File::create(&log_file).unwrap())
        .spawn()
        .expect("chromium could not be started");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > RENDER_TIMEOUT {
            let _ = child.kill();
            panic!("{}: chromium did not finish in {RENDER_TIMEOUT:?}", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (dom, log) = (fs::read_to_string(&dom_file).unwrap(), fs::read_to_string(&log_file).unwrap_or_default());
    let console: Vec<&str> = log.lines().filter(|line| line.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "{}: console messages:\n{}", page.display(), console.join("\n"));
    let answer = dom
        .split_once("<pre id=\"probe\">")
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .unwrap_or_else(|| panic!("{}: the probe left no answer; chromium said:\n{log}", page.display()))
        .0;
    serde_json::from_str(&percent_decode(answer)).unwrap()
}

/// The text of `encodeURIComponent`'s output.
fn percent_decode(encoded: &str) -> String {
    let bytes = encoded.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            decoded.push(u8::from_str_radix(&encoded[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).unwrap()
}

/// Asserts that `got` is `expected`; on failure names `what` and shows where
/// they first differ rather than two whole passages.
fn assert_same_text(got: &str, expected: &str, what: &str) {
    if got == expected {
        return;
    }
    let (got, expected): (Vec<char>, Vec<char>) = (got.chars().collect(), expected.chars().collect());
    let at = got.iter().zip(&expected).take_while(|(a, b)| a == b).count();
    let around = |text: &[char]| {
        format!("{:?}", text[at.saturating_sub(20)..(at + 20).min(text.len())].iter().collect::<String>())
    };
    panic!(
        "{what}: {} characters shown, {} detected; first difference at character {at}:\n  shown:    {}\n  detected: {}",
        got.len(),
        expected.len(),
        around(&got),
        around(&expected)
    );
}

/// Characters `offset..offset + length` of `text`.
fn chars(text: &str, offset: u64, length: u64) -> String {
    text.chars().skip(offset as usize).take(length as usize).collect()
}

/// A detected passage, from a PAN XML report: the truth the page is held to.
struct Expected {
    document: String,
    source: String,
}

/// The passages of a PAN XML report with their texts, in the page's order
/// (by position in the document, then source name and position).
fn expected_passages(report: &Path, document: &str, sources: &Path) -> Vec<Expected> {
    report_passages(report)
        .into_iter()
        .map(|(start, end, name, source_start, source_end)| {
            let source = fs::read_to_string(sources.join(name)).unwrap();
            Expected {
                document: chars(document, start, end - start),
                source: chars(&source, source_start, source_end - source_start),
            }
        })
        .collect()
}

/// A suspicious document whose text an HTML page could mangle: markup that
/// would run if it were not escaped, an ampersand, Windows line ends (a raw
/// carriage return would become a line feed) and, copied whole, a Czech
/// source (multi-byte characters).
fn crafted_document(sources: &Path) -> String {
    let copied = fs::read_to_string(sources.join("source-document00001.txt")).unwrap().replace('\n', "\r\n");
    format!("<img src=x onerror=\"console.error('not escaped')\"> Tom & Jerry <b>\r\n\r\n{copied}\r\nThe end.\r\n")
}

/// The fixture sources copied to `to`, with one more that repeats all but the
/// first paragraph of source-document00001: with every overlap kept, a copy
/// of 00001 ([`crafted_document`]) gets two passages that overlap.
fn sources_repeating_one(fixture_sources: &Path, to: &Path) -> PathBuf {
    copy_tree(fixture_sources, to);
    let whole = fs::read_to_string(to.join("source-document00001.txt")).unwrap();
    let (_, rest) = whole.split_once("\n\n").unwrap();
    fs::write(to.join("source-document00009.txt"), rest).unwrap();
    to.to_path_buf()
}

#[test]
fn a_browser_shows_exactly_the_detected_passages_side_by_side_and_nothing_else() {
    let Some(browser) = chromium() else {
        eprintln!("html_report: no chromium or chromium-browser on the PATH; the browser test is skipped");
        return;
    };
    let pan = fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let sources = sources_repeating_one(&pan.join("source-documents"), &dir.path().join("sources"));
    let suspicious = dir.path().join("suspicious");
    fs::create_dir_all(&suspicious).unwrap();
    // 00001 is Czech and multi-byte.
    for name in ["suspicious-document00001.txt", "suspicious-document00006.txt", "suspicious-document00003.txt"] {
        fs::copy(pan.join("suspicious-documents").join(name), suspicious.join(name)).unwrap();
    }
    fs::write(suspicious.join("crafted.txt"), crafted_document(&sources)).unwrap();
    let (html, xml, scratch) = (dir.path().join("html"), dir.path().join("xml"), dir.path().join("scratch"));
    fs::create_dir_all(&scratch).unwrap();
    ok(detect(&sources, &suspicious, &html, &["--format", "html", "--overlap", "keep-all"]));
    ok(detect(&sources, &suspicious, &xml, &["--overlap", "keep-all"]));

    let mut overlapping = 0;
    for stem in ["suspicious-document00001", "suspicious-document00006", "crafted"] {
        let text = fs::read_to_string(suspicious.join(format!("{stem}.txt"))).unwrap();
        let expected = expected_passages(&xml.join(format!("{stem}.xml")), &text, &sources);
        assert!(!expected.is_empty(), "{stem}: the fixtures have passages here");
        let shown = render(&browser, &html.join(format!("{stem}.html")), DOCUMENT_PROBE, &scratch);
        assert_eq!(shown["resources"], Value::Array(Vec::new()), "{stem}: the page loads nothing");
        assert_eq!(shown["broken"], Value::Array(Vec::new()), "{stem}: links to missing anchors");
        assert_eq!(shown["visible"], true, "{stem}: a highlight is not rendered");
        overlapping += shown["overlapping"].as_u64().unwrap();
        let pairs = shown["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), expected.len(), "{stem}: one side-by-side pair per passage");
        for (k, (passage, pair)) in (1..).zip(expected.iter().zip(pairs)) {
            let highlight = shown["highlights"][k.to_string()].as_str().unwrap_or_default();
            assert_same_text(highlight, &passage.document, &format!("{stem}: the highlight of passage {k}"));
            assert_eq!(pair["id"], format!("pair-{k}"));
            assert_eq!((&pair["left_n"], &pair["right_n"]), (&Value::from(k.to_string()), &Value::from(k.to_string())));
            assert_same_text(pair["left"].as_str().unwrap(), &passage.document, &format!("{stem}: left of pair {k}"));
            assert_same_text(pair["right"].as_str().unwrap(), &passage.source, &format!("{stem}: right of pair {k}"));
            assert_eq!(pair["beside"], true, "{stem}: pair {k}'s sides are not side by side");
        }
        if stem == "suspicious-document00001" {
            assert!(expected.iter().any(|p| p.document.len() > p.document.chars().count()), "multi-byte passages");
        }
        if stem == "crafted" {
            assert!(expected[0].document.contains('\r'), "the copied passage keeps its carriage returns");
        }
    }
    assert!(overlapping > 0, "no highlight of two overlapping passages was shown");

    let index = render(&browser, &html.join("index.html"), INDEX_PROBE, &scratch);
    let rows = index["rows"].as_array().unwrap();
    let hrefs: Vec<&str> = rows.iter().map(|row| row["href"].as_str().unwrap()).collect();
    let mut pages: Vec<String> =
        ["crafted", "suspicious-document00001", "suspicious-document00003", "suspicious-document00006"]
            .iter()
            .map(|stem| format!("{stem}.html"))
            .collect();
    assert_eq!(hrefs.len(), pages.len(), "{hrefs:?}");
    pages.retain(|page| !hrefs.contains(&page.as_str()));
    assert!(pages.is_empty(), "not listed: {pages:?}");
    assert!(hrefs.iter().all(|href| html.join(href).is_file()), "{hrefs:?}");
    let shares: Vec<f64> = rows.iter().map(|row| row["share"].as_f64().unwrap()).collect();
    assert!(shares.windows(2).all(|pair| pair[0] >= pair[1]), "most similar first: {shares:?}");
    assert_eq!(shares.last(), Some(&0.0), "suspicious-document00003 has no passage: {shares:?}");
    assert_eq!(index["resources"], 0);
}
