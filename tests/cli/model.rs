//! `detect --model`: passages found by meaning (issue 63), and the errors of
//! a model that cannot be loaded.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{detect, detect_dirs, path_str, report_passages};

/// The model `scripts/fetch-models.sh` unpacks, if it did; otherwise says
/// the test is skipped (CI sets `PAN_DETECT_REQUIRE_MODEL` where it fetched
/// the model, so that a missing one fails).
fn fetched_model() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    if dir.join("model.safetensors").is_file() {
        return Some(dir);
    }
    assert!(std::env::var_os("PAN_DETECT_REQUIRE_MODEL").is_none(), "{}: no model", dir.display());
    eprintln!("SKIPPED: {} is missing; run scripts/fetch-models.sh", dir.display());
    None
}

const SOURCE_BEFORE: &str = "The harbour of the old town was rebuilt after the great storm of the last century. \
    Fishermen still land their catch on the northern quay every morning before dawn. ";
const SOURCE_PASSAGE: &str = "Photosynthesis converts light energy into chemical energy that is stored in glucose. \
    Chlorophyll in the leaves absorbs mostly red and blue light and reflects green. \
    The oxygen we breathe is released as a by-product when water molecules are split. \
    Without this process nearly all food chains on the planet would collapse within weeks.";
const SOURCE_AFTER: &str = " Trains to the capital leave twice an hour from the station beside the market square. \
    Tickets can be bought from the machines or from the office near the main entrance.";

const SUSPICIOUS_BEFORE: &str = "Our village choir rehearses on Tuesday evenings in the school hall. \
    New singers are welcome, and no audition is required to join the basses. ";
// Each sentence keeps three of its source sentence's words, as rewrites by a
// language model do: too few for a word seed, enough for the model to look.
const SUSPICIOUS_PASSAGE: &str = "Plants turn sunlight into sugar, keeping that chemical energy stored in a compact form. \
    The pigment chlorophyll inside foliage soaks up mainly red and violet rays while reflecting emerald ones. \
    Splitting water gives off the oxygen that our lungs depend upon as a welcome leftover of the whole reaction. \
    Were it not for this process, practically every ecosystem's food network on our planet would fall apart in days.";
const SUSPICIOUS_AFTER: &str = " The annual concert raises money for the roof of the parish church. \
    Last year the audience filled every seat and stood along the walls.";

#[test]
fn a_rewritten_passage_that_shares_few_words_is_found_by_meaning_with_sentence_boundaries() {
    let Some(model) = fetched_model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    fs::write(src.join("source.txt"), format!("{SOURCE_BEFORE}{SOURCE_PASSAGE}{SOURCE_AFTER}")).unwrap();
    fs::write(susp.join("suspicious.txt"), format!("{SUSPICIOUS_BEFORE}{SUSPICIOUS_PASSAGE}{SUSPICIOUS_AFTER}"))
        .unwrap();
    let pairs = dir.path().join("pairs");
    fs::write(&pairs, "suspicious.txt source.txt\n").unwrap();
    let flags = ["--quiet", "--pairs", path_str(&pairs)];
    let output = detect(&src, &susp, &out, &flags);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(report_passages(&out.join("suspicious.xml")), [], "words alone find nothing");

    let (out, cache) = (dir.path().join("with-model"), dir.path().join("cache"));
    // The rewrite is heavier than most of PAN 2025's: its sentence pairs reach cosines of 0.6 to 0.8.
    let model_flags = ["--model", path_str(&model), "--semantic-cosine", "0.6", "--embedding-cache", path_str(&cache)];
    let flags = [&flags[..], &model_flags].concat();
    let output = detect(&src, &susp, &out, &flags);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let start = |before: &str| before.chars().count() as u64;
    let end = |before: &str, passage: &str| start(before) + passage.chars().count() as u64;
    let expected = (
        start(SUSPICIOUS_BEFORE),
        end(SUSPICIOUS_BEFORE, SUSPICIOUS_PASSAGE),
        "source.txt".to_string(),
        start(SOURCE_BEFORE),
        end(SOURCE_BEFORE, SOURCE_PASSAGE),
    );
    assert_eq!(report_passages(&out.join("suspicious.xml")), [expected]);
    // Only the sentences of candidate pairs are encoded, not the documents' 16.
    assert!(String::from_utf8_lossy(&output.stderr).contains(" 6 sentences encoded"), "{output:?}");
    assert!(fs::read_dir(&cache).unwrap().count() == 1, "one cache file for the model");

    // A second run takes every embedding from the cache, and reports the same.
    let again = dir.path().join("again");
    let output = detect(&src, &susp, &again, &flags);
    assert!(String::from_utf8_lossy(&output.stderr).contains(" 0 sentences encoded"), "{output:?}");
    assert_eq!(fs::read(again.join("suspicious.xml")).unwrap(), fs::read(out.join("suspicious.xml")).unwrap());
}

#[test]
fn a_model_directory_that_lacks_a_file_is_a_one_line_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    fs::write(src.join("a.txt"), "Some text here.").unwrap();
    fs::write(susp.join("b.txt"), "Other text there.").unwrap();
    let model = dir.path().join("model");
    fs::create_dir(&model).unwrap();
    let output = detect(&src, &susp, &out, &["--quiet", "--model", path_str(&model)]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("{}: cannot read", model.join("modules.json").display())), "{stderr}");
    assert!(!out.exists(), "no report without a model");
}

#[test]
fn model_flags_are_refused_where_they_would_be_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let model = path_str(dir.path());
    let output = detect(&src, &susp, &out, &["--preset", "pan09", "--model", model]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--model"), "{output:?}");
    let output = detect(&src, &susp, &out, &["--embedding-cache", model]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--model"), "{output:?}");
}
