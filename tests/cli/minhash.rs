//! `similar --method minhash`: near-copies within one set, between two sets, and one file against the signatures stored beside an index; bad flags.

use std::fs;
use std::path::Path;

use crate::archive::{fails_with, ok, s, write};
use crate::{prose, run};

/// A near copy of `text`: the text with a few words of its own appended.
fn near_copy(text: &str, seed: u64) -> String {
    format!("{text}{}", prose(seed, 15))
}

/// `docs/`: `a.txt`, `sub/a-copy.txt` (a near copy of it), `b.txt` and
/// `c.txt` (unrelated); `new/`: `b-copy.txt` (of b) and `d.txt` (unrelated).
fn fixtures(root: &Path) {
    let (a, b) = (prose(1, 600), prose(2, 600));
    write(&root.join("docs/a.txt"), &a);
    write(&root.join("docs/sub/a-copy.txt"), &near_copy(&a, 10));
    write(&root.join("docs/b.txt"), &b);
    write(&root.join("docs/c.txt"), &prose(3, 600));
    write(&root.join("new/b-copy.txt"), &near_copy(&b, 11));
    write(&root.join("new/d.txt"), &prose(4, 600));
}

/// The (document, other) columns of CSV output, after its header.
fn pairs(csv: &str) -> Vec<(String, String)> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("document,other,estimated_jaccard,exact_jaccard"));
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 4, "{line}");
            let estimate: f64 = fields[2].parse().unwrap();
            assert!(estimate > 0.5, "{line}");
            (fields[0].to_string(), fields[1].to_string())
        })
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

#[test]
fn within_one_set_the_near_copy_pairs_with_its_original() {
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let docs = dir.path().join("docs");
    let csv =
        ok(run(&["similar", "--method", "minhash", "--docs", s(&docs), "--bands", "20", "--rows", "5", "--quiet"]));
    assert_eq!(pairs(&csv), [pair("a.txt", "sub/a-copy.txt")]);
    // --exact: the exact Jaccard similarity beside the estimate, in JSON lines too.
    let jsonl = ok(run(&["similar", "--method", "minhash", "--docs", s(&docs), "--exact", "--format", "jsonl"]));
    let row: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    let (estimate, exact) = (row["estimated_jaccard"].as_f64().unwrap(), row["exact_jaccard"].as_f64().unwrap());
    assert!(exact > 0.9 && (estimate - exact).abs() < 0.15, "{row}");
    assert_eq!(jsonl.lines().count(), 1);
}

#[test]
fn between_two_sets_only_pairs_across_them() {
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let (docs, new) = (dir.path().join("docs"), dir.path().join("new"));
    let csv = ok(run(&["similar", "--method", "minhash", "--docs", s(&new), "--against", s(&docs), "--exact"]));
    assert_eq!(pairs(&csv), [pair("b-copy.txt", "b.txt")]);
}

#[test]
fn one_file_against_the_signatures_stored_beside_the_index() {
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let (docs, index) = (dir.path().join("docs"), dir.path().join("idx"));
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    let generation = fs::read_dir(&index).unwrap().count();
    let built =
        run(&["similar", "--method", "minhash", "--index", s(&index), "--build", "--bands", "25", "--rows", "4"]);
    assert!(String::from_utf8_lossy(&built.stderr).contains("signatures of 4 documents (generation 1)"));
    ok(built);
    // Beside the generations, which it leaves alone.
    assert!(index.join("minhash/signatures.bin").is_file());
    assert_eq!(fs::read_dir(&index).unwrap().count(), generation + 1);
    let file = dir.path().join("new/b-copy.txt");
    let query = ["similar", "--method", "minhash", "--index", s(&index), "--file", s(&file)];
    let csv = ok(run(&[&query[..], &["--exact"]].concat()));
    assert_eq!(pairs(&csv), [pair(s(&file), "b.txt")]);
    assert!(csv.lines().nth(1).unwrap().split(',').nth(3).unwrap().parse::<f64>().unwrap() > 0.9);
    // The stored banding is used; another one is refused.
    fails_with(run(&[&query[..], &["--rows", "5"]].concat()), "--rows 5 differs from the stored signatures' 4");
    // An unrelated document has no candidate.
    let unrelated =
        run(&["similar", "--method", "minhash", "--index", s(&index), "--file", s(&dir.path().join("new/d.txt"))]);
    assert_eq!(ok(unrelated).lines().count(), 1);
    // After an update, the signatures say they are older than the index.
    write(&docs.join("e.txt"), &prose(5, 100));
    ok(run(&["index", "update", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    let stale = run(&query);
    assert!(String::from_utf8_lossy(&stale.stderr).contains("computed from generation 1, the index is at 2"));
    // A damaged file is refused, naming it.
    let signatures = index.join("minhash/signatures.bin");
    let mut bytes = fs::read(&signatures).unwrap();
    bytes[60] ^= 1;
    fs::write(&signatures, bytes).unwrap();
    fails_with(run(&query), "signatures.bin: corrupt index: checksum mismatch");
    fs::remove_file(&signatures).unwrap();
    fails_with(run(&query), "no MinHash signatures here");
}

#[test]
fn bad_flags_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let docs = dir.path().join("docs");
    let minhash = ["similar", "--method", "minhash", "--docs", s(&docs)];
    let with = |extra: &[&str]| run(&[&minhash[..], extra].concat());
    fails_with(with(&["--bands", "0"]), "--bands 0 is out of range");
    fails_with(with(&["--bands", "100", "--rows", "20"]), "--rows 20 is out of range");
    fails_with(with(&["--shingle", "0"]), "--shingle 0 is out of range");
    fails_with(with(&["--top", "3"]), "--top does not apply to --method minhash");
    fails_with(with(&["--format", "sqlite"]), "--format sqlite does not apply to --method minhash");
    fails_with(with(&["--build"]), "--build and --file go with --index IDX");
    fails_with(run(&["similar", "--method", "minhash", "--docs", "/no/such/dir"]), "/no/such/dir: no such directory");
    fails_with(run(&["similar", "--method", "minhash"]), "--method minhash needs --docs DIR");
    fails_with(run(&["similar", "--index", s(&docs), "--bands", "5"]), "--bands does not apply to --method table");
    fails_with(run(&["similar", "--docs", s(&docs)]), "--docs does not apply to --method table");
}
