//! The examples at the end of every subcommand's `--help` (and so of its man
//! page): each subcommand has some, and every one of them runs as written on
//! `corpus-fixtures/`, its outputs put in a temporary directory instead of `/tmp`.

use std::collections::BTreeSet;
use std::path::Path;

use crate::archive::ok;
use crate::pan_detect;

/// Every subcommand, in an order where each example finds what an earlier one
/// made (the index, the reports).
const SUBCOMMANDS: [&[&str]; 15] = [
    &["detect"],
    &["eval"],
    &["text"],
    &["extract"],
    &["index", "create"],
    &["index", "update"],
    &["index", "merge"],
    &["index", "stats"],
    &["index"],
    &["check"],
    &["similar"],
    &["corpus"],
    &["man"],
    &["completions"],
    &["serve"],
];

/// The example command lines of `subcommand`'s help, without `pan-detect`.
fn examples(subcommand: &[&str]) -> Vec<String> {
    let help = ok(pan_detect().args(subcommand).arg("--help").output().unwrap());
    let (_, examples) = help.split_once("\nExamples:\n").unwrap_or_else(|| panic!("{subcommand:?}: no examples"));
    examples
        .lines()
        .map(|line| line.trim().strip_prefix("pan-detect ").unwrap_or_else(|| panic!("{line}")).to_string())
        .collect()
}

#[test]
fn every_subcommand_has_examples_and_every_example_runs_on_the_fixtures() {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seen = BTreeSet::new();
    for subcommand in SUBCOMMANDS {
        let lines = examples(subcommand);
        assert!((1..=3).contains(&lines.len()), "{subcommand:?}: {lines:?}");
        for line in lines {
            assert!(line.starts_with(&subcommand.join(" ")), "{subcommand:?}: {line}");
            // A server runs until stopped: its example is only parsed (by the other tests).
            if subcommand == ["serve"] || !seen.insert(line.clone()) {
                continue;
            }
            let command = line.split(" > ").next().unwrap().replace("/tmp/", &format!("{}/", tmp.path().display()));
            let output = pan_detect().args(command.split_whitespace()).current_dir(root).output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "pan-detect {line}: {stderr}");
            assert!(!stderr.contains("warning"), "pan-detect {line}: {stderr}");
        }
    }
}
