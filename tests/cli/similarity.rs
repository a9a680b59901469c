//! The similarity table in SQLite: after create → update (add, modify, delete) it equals a fresh create's, with both presets; exports; damage; an index made before it.

use std::fs;
use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::archive::{Archive, fails_with, generation_dir, ok, s, stat_line, stats, write};
use crate::{prose, run};

/// The rows of an SQLite file's `similarity` table, each as its values,
/// ordered by document and other.
fn table_rows(database: &Path) -> Vec<String> {
    let connection = Connection::open_with_flags(database, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut statement = connection.prepare("SELECT * FROM similarity ORDER BY document, other").unwrap();
    let columns = statement.column_count();
    let rows = statement
        .query_map([], |row| {
            let values: Vec<String> = (0..columns).map(|i| value(row.get_ref(i).unwrap())).collect();
            Ok(values.join(" | "))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// A stored value, its type shown: `Text("a.txt")`, `Real(12.5)`, `Null`.
fn value(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Text(text) => format!("Text({:?})", String::from_utf8_lossy(text)),
        other => format!("{other:?}"),
    }
}

/// The table file of an index's live generation.
fn table_file(index: &Path) -> std::path::PathBuf {
    generation_dir(index).join("similarity.sqlite")
}

fn create(archive: &Archive, index: &Path, preset: &str) {
    ok(run(&["index", "create", "--docs", s(&archive.docs), "--index", s(index), "--preset", preset, "--quiet"]));
}

/// Rows naming `name`, as document or other.
fn naming<'a>(rows: &'a [String], name: &str) -> Vec<&'a String> {
    let quoted = format!("Text(\"{name}\")");
    rows.iter().filter(|row| row.contains(&quoted)).collect()
}

#[test]
fn the_table_after_updates_is_the_one_a_fresh_create_writes_with_either_preset() {
    for preset in ["pan09", "best"] {
        let archive = Archive::new();
        let index = archive.index("idx");
        create(&archive, &index, preset);
        let before = table_rows(&table_file(&index));
        // Every thesis shares a passage (prose(1, 60)) with every other.
        assert_eq!(before.len(), 8 * 7, "{preset}: {before:#?}");
        archive.change();
        let summary = archive.update(&index);
        assert!(summary.contains("2 added, 2 modified, 2 deleted"), "{summary}");
        let fresh = archive.index("fresh");
        create(&archive, &fresh, preset);
        let after = table_rows(&table_file(&index));
        assert_eq!(after, table_rows(&table_file(&fresh)), "{preset}: updated and fresh tables differ");
        assert!(naming(&after, "thesis-4.txt").is_empty(), "{preset}: a deleted document's rows go");
        assert!(!naming(&after, "new/added-1.txt").is_empty(), "{preset}: an added document's rows come");
        assert_ne!(naming(&after, "thesis-1.txt"), naming(&before, "thesis-1.txt"), "{preset}: modified");
        assert!(after.iter().all(|row| !row.contains("Null")), "{preset}: every pair is aligned");
        // A second update starts from the updated table.
        write(&archive.docs.join("thesis-1.txt"), &format!("{}{}", prose(1, 60), prose(700, 80)));
        fs::remove_file(archive.docs.join("new/added-1.txt")).unwrap();
        write(&archive.docs.join("added-3.txt"), &format!("{}{}", prose(3, 50), prose(701, 90)));
        archive.update(&index);
        let fresh = archive.index("fresh-2");
        create(&archive, &fresh, preset);
        assert_eq!(table_rows(&table_file(&index)), table_rows(&table_file(&fresh)), "{preset}: second update");
        for format in ["csv", "jsonl"] {
            let export = |idx: &Path| ok(run(&["similar", "--index", s(idx), "--format", format, "--top", "3"]));
            assert_eq!(export(&index), export(&fresh), "{preset}, {format}");
        }
        // Merged into one segment, the index answers as a fresh create does.
        let listing = stats(&index);
        let segments: u64 = stat_line(&listing, "segments:").split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(segments >= 2, "{preset}: each update wrote a segment");
        let merged = run(&["index", "merge", "--index", s(&index)]);
        let note = String::from_utf8_lossy(&merged.stderr).to_string();
        let expected = format!("{segments} segments into 1 segment");
        assert!(merged.status.success() && note.contains(&expected), "{preset}: {note}");
        assert_eq!(archive.check_json(&index), archive.check_json(&fresh), "{preset}: merged");
        assert_eq!(table_rows(&table_file(&index)), table_rows(&table_file(&fresh)), "{preset}: merged");
        for format in ["csv", "jsonl"] {
            let export = |idx: &Path| ok(run(&["similar", "--index", s(idx), "--format", format]));
            assert_eq!(export(&index), export(&fresh), "{preset}, {format}: merged");
        }
        for key in ["documents:", "chunks:", "postings:", "segments:"] {
            assert_eq!(stat_line(&stats(&index), key), stat_line(&stats(&fresh), key), "{preset}");
        }
    }
}

#[test]
fn aligned_characters_are_those_check_finds_for_the_pair() {
    let archive = Archive::new();
    let index = archive.index("idx");
    create(&archive, &index, "pan09");
    // faculty/thesis-0 sorts before thesis-1: it is checked against it.
    let check =
        ok(run(&["check", "--index", s(&index), "--format", "json", s(&archive.docs.join("faculty/thesis-0.txt"))]));
    let check: serde_json::Value = serde_json::from_str(&check).unwrap();
    let sources = check["documents"][0]["sources"].as_array().unwrap();
    let found = sources.iter().find(|d| d["name"] == "thesis-1.txt").unwrap();
    let jsonl = ok(run(&["similar", "--index", s(&index), "--format", "jsonl"]));
    let row: serde_json::Value = jsonl
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|row| row["document"] == "faculty/thesis-0.txt" && row["other"] == "thesis-1.txt")
        .unwrap();
    assert!(found["document_aligned_chars"].as_u64().unwrap() > 300, "{found}");
    assert_eq!(row["aligned_chars"], found["document_aligned_chars"]);
    assert_eq!(row["document_aligned_percent"], found["document_aligned_percent"]);
    assert_eq!(row["other_aligned_percent"], found["source_aligned_percent"]);
    assert_eq!(row["common_chunks"], found["common_chunks"]);
    assert_eq!(row["document_in_other_percent"], found["document_in_source_percent"]);
    assert_eq!(row["other_in_document_percent"], found["source_in_document_percent"]);
}

/// The SQL of the guide's `sqlite3` example (docs/archive.md) and the rows its
/// output shows.
fn guide_query() -> (String, Vec<Vec<String>>) {
    let guide = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/archive.md")).unwrap();
    let example = &guide[guide.find("sqlite3 -readonly").expect("the guide runs sqlite3")..];
    // The query is the quoted argument that starts with SELECT.
    let query = &example[example.find("\"SELECT").unwrap() + 1..];
    let sql = query[..query.find('"').unwrap()].to_string();
    let fence = "\n```\n\n```\n";
    let output = &example[example.find(fence).unwrap() + fence.len()..];
    let output = &output[..output.find("```").unwrap()];
    let rows = output.lines().skip(2).map(|line| line.split_whitespace().map(str::to_string).collect()).collect();
    (sql, rows)
}

#[test]
fn the_guide_query_gives_the_guide_rows() {
    // The guide's archive: the fixture sources, then one added and one deleted.
    let dir = tempfile::tempdir().unwrap();
    let (docs, index) = (dir.path().join("archive"), dir.path().join("archive.idx"));
    let pan = crate::fixtures().join("pan");
    for entry in fs::read_dir(pan.join("source-documents")).unwrap().flatten() {
        write(&docs.join(entry.file_name()), &fs::read_to_string(entry.path()).unwrap());
    }
    ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    let added = pan.join("suspicious-documents/suspicious-document00001.txt");
    write(&docs.join("suspicious-document00001.txt"), &fs::read_to_string(added).unwrap());
    fs::remove_file(docs.join("source-document00008.txt")).unwrap();
    ok(run(&["index", "update", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
    let (sql, expected) = guide_query();
    let connection = Connection::open_with_flags(table_file(&index), OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut statement = connection.prepare(&sql).unwrap();
    let columns = statement.column_count();
    let rows: Vec<Vec<String>> = statement
        .query_map([], |row| {
            Ok((0..columns)
                .map(|i| match row.get_ref(i).unwrap() {
                    ValueRef::Text(text) => String::from_utf8_lossy(text).into_owned(),
                    ValueRef::Real(real) => real.to_string(),
                    other => format!("{other:?}"),
                })
                .collect())
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows, expected, "{sql}");
    assert!(!rows.is_empty());
}

#[test]
fn an_sqlite_export_is_the_selected_rows_written_whole() {
    let archive = Archive::new();
    let index = archive.index("idx");
    create(&archive, &index, "pan09");
    let out = archive.root.join("export.sqlite");
    ok(run(&["similar", "--index", s(&index), "--format", "sqlite", "--out", s(&out), "--top", "2"]));
    let exported = table_rows(&out);
    assert_eq!(exported.len(), 9 * 2 - 2, "the top 2 of 8 theses (the empty document has none)");
    assert!(exported.iter().all(|row| table_rows(&table_file(&index)).contains(row)));
    // Replaced whole by the next export.
    ok(run(&["similar", "--index", s(&index), "--format", "sqlite", "--out", s(&out)]));
    assert_eq!(table_rows(&out), table_rows(&table_file(&index)));
    let leftovers = fs::read_dir(&archive.root).unwrap().flatten();
    assert!(leftovers.filter(|e| e.file_name().to_string_lossy().ends_with(".tmp")).count() == 0);
    // A file that is no SQLite database, or one in the index, is not touched.
    let notes = archive.root.join("notes.txt");
    write(&notes, "my notes");
    let export = |out: &Path| run(&["similar", "--index", s(&index), "--format", "sqlite", "--out", s(out)]);
    fails_with(export(&notes), "exists and is not an SQLite database");
    assert_eq!(fs::read_to_string(&notes).unwrap(), "my notes");
    let accounts = archive.root.join("accounts.sqlite");
    let connection = rusqlite::Connection::open(&accounts).unwrap();
    connection.execute_batch("CREATE TABLE accounts (name TEXT); INSERT INTO accounts VALUES ('mine');").unwrap();
    drop(connection);
    let before = fs::read(&accounts).unwrap();
    fails_with(export(&accounts), "is an SQLite database that pan-detect did not write");
    assert_eq!(fs::read(&accounts).unwrap(), before, "another program's database is not replaced");
    fails_with(export(&index.join("CURRENT")), "lies in the index directory");
    fails_with(run(&["similar", "--index", s(&index), "--format", "sqlite"]), "--format sqlite needs --out FILE");
    fails_with(run(&["similar", "--index", s(&index), "--out", s(&out)]), "--out is for --format sqlite");
    fails_with(run(&["similar", "--index", s(&index), "--min-percent", "0.5"]), "--min-percent 0.5 is below the 1 %");
}

#[test]
fn a_damaged_table_is_refused_naming_its_file() {
    let archive = Archive::new();
    let index = archive.index("idx");
    create(&archive, &index, "pan09");
    let table = table_file(&index);
    let original = fs::read(&table).unwrap();
    let mut flipped = original.clone();
    let at = flipped.len() - 100;
    flipped[at] ^= 0x55;
    fs::write(&table, &flipped).unwrap();
    let message = format!("{}: checksum mismatch", table.display());
    fails_with(run(&["index", "stats", "--index", s(&index), "--verify"]), &message);
    fails_with(run(&["similar", "--index", s(&index), "--verify"]), &message);
    archive.change();
    // The update would copy it into the new generation: refused, the live one untouched.
    fails_with(run(&["index", "update", "--docs", s(&archive.docs), "--index", s(&index)]), &message);
    assert_eq!(fs::read(&table).unwrap(), flipped);
    fs::write(&table, &original[..original.len() - 512]).unwrap();
    fails_with(run(&["similar", "--index", s(&index)]), &format!("{}: truncated or overwritten", table.display()));
}
