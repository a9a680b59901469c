//! Crash points (`cargo test --features failpoints`): `index create`, `index update` and `index merge` killed at each step leave the old or the new index, and the next run finishes.
#![cfg(feature = "failpoints")]

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use pan_detect::archive::failpoints::{self, COMMITTED, SEGMENTS_LINKED, SIMILARITY_ROWS_REMOVED};

use crate::archive::{Archive, fails_with, ok, s, stat_line, stats, write};
use crate::{copy_tree, pan_detect, prose, run};

/// Runs `pan-detect args` with the crash point `point` set: true when the
/// process was killed there, false when it never reached the point and
/// finished (asserting that it succeeded).
fn crashes_at(point: &str, args: &[&str]) -> bool {
    let output = pan_detect().args(args).env("FAILPOINTS", format!("{point}=return")).output().unwrap();
    if output.status.signal() == Some(libc::SIGKILL) {
        return true;
    }
    ok(output);
    false
}

/// What the index answers: `check --format json` of the probe and the `similar` table.
fn answers(archive: &Archive, index: &Path) -> (String, String) {
    (archive.check_json(index), archive.similar(index, &[]))
}

/// The live generation, from `index stats`.
fn generation(index: &Path) -> String {
    stat_line(&stats(index), "index:").rsplit('(').next().unwrap().trim_end_matches(')').to_string()
}

/// The archive, and a taboo text so that `taboo.bin` is written too.
fn archive_with_taboo() -> (Archive, String) {
    let archive = Archive::new();
    let template = archive.root.join("template.txt");
    write(&template, &prose(900, 40));
    (archive, s(&template).to_string())
}

/// Both presets: their indexes hold different chunks, written by the same steps.
const PRESETS: [&str; 2] = ["pan09", "best"];

#[test]
fn a_create_killed_at_any_crash_point_leaves_no_index_or_the_whole_one() {
    PRESETS.into_iter().for_each(create_killed_at_every_point);
}

#[test]
fn an_update_killed_at_any_crash_point_leaves_the_old_or_the_new_index() {
    PRESETS.into_iter().for_each(update_killed_at_every_point);
}

#[test]
fn a_merge_killed_at_any_crash_point_leaves_the_old_or_the_merged_index() {
    PRESETS.into_iter().for_each(merge_killed_at_every_point);
}

fn create_killed_at_every_point(preset: &str) {
    let (archive, template) = archive_with_taboo();
    let create = |index: &Path| {
        let args = ["index", "create", "--docs", s(&archive.docs), "--index", s(index), "--taboo", &template];
        [&args[..], &["--preset", preset, "--quiet"]].concat().into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let reference = archive.index("reference");
    ok(run(&create(&reference).iter().map(String::as_str).collect::<Vec<_>>()));
    let expected = answers(&archive, &reference);
    let mut not_reached = Vec::new();
    for point in failpoints::ALL {
        let index = archive.index(point);
        let args = create(&index);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if !crashes_at(point, &args) {
            not_reached.push(point);
            assert_eq!(answers(&archive, &index), expected, "{point}");
            continue;
        }
        if point == COMMITTED {
            // The index is whole; the next update finds nothing to do.
            ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
            assert_eq!(answers(&archive, &index), expected, "after a crash at {point}");
            assert!(archive.update(&index).contains("up to date"), "{point}");
        } else {
            // No commit, no index: a second create starts over on the leftovers.
            assert!(!index.join("CURRENT").exists(), "{point}");
            fails_with(run(&["index", "stats", "--index", s(&index)]), "not an index directory");
            ok(run(&args));
        }
        ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
        assert_eq!(answers(&archive, &index), expected, "after a crash at {point} and a rerun");
    }
    assert_eq!(
        not_reached,
        [SEGMENTS_LINKED, SIMILARITY_ROWS_REMOVED],
        "create links no segment and copies no similarity table; it reaches every other point"
    );
}

fn update_killed_at_every_point(preset: &str) {
    let (archive, template) = archive_with_taboo();
    let create = |index: &Path| {
        let args = ["index", "create", "--docs", s(&archive.docs), "--index", s(index), "--taboo", &template];
        ok(run(&[&args[..], &["--preset", preset, "--quiet"]].concat()))
    };
    let old_index = archive.index("old");
    create(&old_index);
    archive.change();
    // Both answered with the changed documents on disk, from which excerpts are read.
    let old = answers(&archive, &old_index);
    let fresh = archive.index("fresh");
    create(&fresh);
    let new = answers(&archive, &fresh);
    assert_ne!(old, new);
    for point in failpoints::ALL {
        let index = archive.index(point);
        copy_tree(&old_index, &index);
        let args = ["index", "update", "--docs", s(&archive.docs), "--index", s(&index), "--quiet"];
        assert!(crashes_at(point, &args), "an update that adds, modifies and deletes reaches {point}");
        ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
        let (live, expected) = if point == COMMITTED { ("generation 2", &new) } else { ("generation 1", &old) };
        assert_eq!(generation(&index), live, "after a crash at {point}");
        assert_eq!(&answers(&archive, &index), expected, "after a crash at {point}");
        // The next update removes the leftovers and ends where a fresh create does.
        archive.update(&index);
        ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
        assert_eq!(answers(&archive, &index), new, "update after a crash at {point}");
        let generations = fs::read_dir(&index).unwrap().flatten();
        let generations = generations.filter(|e| e.file_name().to_string_lossy().starts_with("gen-")).count();
        assert_eq!(generations, 1, "{point}: the old and the partial generations are removed");
    }
}

fn merge_killed_at_every_point(preset: &str) {
    let (archive, template) = archive_with_taboo();
    let updated = archive.index("updated");
    let args = ["index", "create", "--docs", s(&archive.docs), "--index", s(&updated), "--taboo", &template];
    ok(run(&[&args[..], &["--preset", preset, "--quiet"]].concat()));
    archive.change();
    archive.update(&updated);
    let expected = answers(&archive, &updated);
    let segments = |index: &Path| stat_line(&stats(index), "segments:").split_whitespace().nth(1).unwrap().to_string();
    assert_eq!(segments(&updated), "2");
    for point in failpoints::ALL {
        let index = archive.index(&format!("merge-{point}"));
        copy_tree(&updated, &index);
        let args = ["index", "merge", "--index", s(&index), "--quiet"];
        assert!(crashes_at(point, &args), "a merge reaches {point}");
        ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
        let (live, count) = if point == COMMITTED { ("generation 3", "1") } else { ("generation 2", "2") };
        assert_eq!((generation(&index).as_str(), segments(&index).as_str()), (live, count), "after a crash at {point}");
        assert_eq!(answers(&archive, &index), expected, "after a crash at {point}");
        // The next merge removes the leftovers and merges.
        ok(run(&args));
        ok(run(&["index", "stats", "--index", s(&index), "--verify"]));
        assert_eq!(segments(&index), "1", "{point}");
        assert_eq!(answers(&archive, &index), expected, "merge after a crash at {point}");
    }
}

#[test]
fn a_process_lost_mid_run_stops_the_others_with_a_message_naming_it() {
    use crate::cluster::{hostfile, process_command};
    use pan_detect::archive::failpoints::CLUSTER_SOURCES_SENT;
    let corpus = crate::fixtures().join("pan");
    let tmp = tempfile::tempdir().unwrap();
    let hosts = hostfile(tmp.path(), 2);
    let lost = fs::read_to_string(&hosts).unwrap().lines().nth(1).unwrap().to_string();
    let out = tmp.path().join("out");
    let survivor = process_command(&corpus, &out, &hosts, 0, 1, &[]).spawn().unwrap();
    let mut crashing = process_command(&corpus, &out, &hosts, 1, 1, &[]);
    let crashing = crashing.env("FAILPOINTS", format!("{CLUSTER_SOURCES_SENT}=return")).spawn().unwrap();
    let crashing = crashing.wait_with_output().unwrap();
    let survivor = survivor.wait_with_output().unwrap();
    assert_eq!(crashing.status.signal(), Some(libc::SIGKILL), "process 1 reached its crash point");
    assert_eq!(survivor.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&survivor.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("lost process 1 ({lost})")) && stderr.contains("run the command again"),
        "{stderr}"
    );
}
