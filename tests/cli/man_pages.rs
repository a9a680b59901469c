//! `pan-detect man` and `pan-detect completions`: the committed man pages
//! are those the command writes, the pages are written whole and never
//! through a link, and every shell's completion script names every subcommand.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::archive::{fails_with, ok, s};
use crate::{files_of, run};

/// The command that writes the committed pages.
const REGENERATE: &str = "cargo run -- man --out docs/man";

/// Every subcommand, nested ones as their parent and name.
const SUBCOMMANDS: [&str; 15] = [
    "detect",
    "eval",
    "text",
    "extract",
    "corpus",
    "index",
    "create",
    "update",
    "merge",
    "stats",
    "check",
    "similar",
    "serve",
    "completions",
    "man",
];

fn committed_pages() -> BTreeMap<String, Vec<u8>> {
    files_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man"))
}

#[test]
fn the_committed_man_pages_are_those_the_command_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man");
    ok(run(&["man", "--out", s(&out)]));
    let written = files_of(&out);
    for name in ["pan-detect.1", "pan-detect-detect.1", "pan-detect-index.1", "pan-detect-index-create.1"] {
        assert!(written.contains_key(name), "{name} in {:?}", written.keys());
    }
    let committed = committed_pages();
    let stale: Vec<&String> =
        written.keys().chain(committed.keys()).filter(|name| written.get(*name) != committed.get(*name)).collect();
    assert!(stale.is_empty(), "docs/man/ is stale ({stale:?}): regenerate it with `{REGENERATE}` and commit it");
}

#[test]
fn man_pages_replace_only_man_pages_and_are_never_written_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man");
    ok(run(&["man", "--out", s(&out)]));
    let first = files_of(&out);
    ok(run(&["man", "--out", s(&out)]));
    assert_eq!(files_of(&out), first, "a second run replaces its pages");

    fs::write(out.join("pan-detect-detect.1"), "my notes").unwrap();
    fs::remove_file(out.join("pan-detect-text.1")).unwrap();
    fails_with(run(&["man", "--out", s(&out)]), "pan-detect-detect.1: exists and is not the man page");
    assert!(!out.join("pan-detect-text.1").exists(), "nothing was written");
    assert_eq!(fs::read(out.join("pan-detect-detect.1")).unwrap(), b"my notes");

    let target = dir.path().join("elsewhere.1");
    fs::write(&target, "not mine").unwrap();
    fs::remove_file(out.join("pan-detect-detect.1")).unwrap();
    std::os::unix::fs::symlink(&target, out.join("pan-detect-detect.1")).unwrap();
    fails_with(run(&["man", "--out", s(&out)]), "pan-detect-detect.1: a symbolic link, not followed");
    assert_eq!(fs::read(&target).unwrap(), b"not mine");

    let linked = dir.path().join("linked");
    std::os::unix::fs::symlink(dir.path().join("real"), &linked).unwrap();
    fails_with(run(&["man", "--out", s(&linked)]), "linked: a symbolic link, not followed");
    assert!(!dir.path().join("real").exists());
}

#[test]
fn every_shells_completion_script_names_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let script = ok(run(&["completions", shell]));
        for subcommand in SUBCOMMANDS {
            assert!(script.contains(subcommand), "{shell}: no {subcommand} in its script");
        }
        assert!(script.contains("--recursive") && script.contains("--suspicious-dir"), "{shell}: flags are completed");
    }
    let output = run(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2), "an unknown shell is refused by the parser");
}
