//! The corpus check (`pan-detect corpus --check DIR`): every truth range lies
//! inside its documents, the cases of a document do not overlap, every `none`
//! case is an exact copy of its source passage, every `word-shuffle` case holds
//! exactly its passage's tokens and every `phrase-shuffle` case exactly its
//! passage's non-whitespace characters (in any order), every suspicious text has its
//! truth file, neither document set is empty, and the `pairs` file (when
//! present) names existing documents and every pair that has a case.
//!
//! It works on any corpus in the PAN-PC layout (`source-documents/*.txt`,
//! `suspicious-documents/*.txt` + `.xml`), not only on ours. A corpus of ours
//! must also be complete: a build that did not finish is refused first
//! ([`CorpusError::Incomplete`]: [`INCOMPLETE_MARKER`] still there, a temporary
//! file of an interrupted write, or `cases.tsv` without `README.txt`, which the
//! build writes last), and the counts `README.txt` states must be those of the
//! files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::build::read_utf8;
use super::obfuscate::Strategy;
use super::stats::ReadmeCounts;
use super::texts::words_and_marks;
use super::{CorpusError, INCOMPLETE_MARKER, SUMMARY_FILES, source_dir, suspicious_dir};
use crate::analysis::read;
use crate::analysis::span::{CharRange, char_slice};
use crate::progress::{Progress, Stage};
use crate::report::output::stale_temporaries;
use crate::report::pan_xml::{PanDocument, TRUTH_FEATURES};

/// What the check looked at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Source documents.
    pub source_documents: usize,
    /// Suspicious documents.
    pub suspicious_documents: usize,
    /// Truth cases checked.
    pub cases: usize,
    /// `none` cases compared character by character with their source.
    pub verbatim_cases: usize,
    /// `word-shuffle` and `phrase-shuffle` cases compared with their source.
    pub reordered_cases: usize,
    /// Lines of the `pairs` file (0 when there is none).
    pub pairs: usize,
}

/// What checking one suspicious document found.
#[derive(Default)]
struct DocumentCheck {
    problems: Vec<String>,
    cases: usize,
    verbatim_cases: usize,
    reordered_cases: usize,
    pairs: BTreeSet<String>,
}

/// What the text of a case must hold of its source passage, by its `obfuscation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expected {
    /// `none`: the passage itself.
    Copy,
    /// `word-shuffle`: the passage's tokens ([`words_and_marks`]), in any order.
    SameTokens,
    /// `phrase-shuffle`: the passage's non-whitespace characters, in any order.
    SameCharacters,
}

impl Expected {
    /// What a case labelled `obfuscation` must hold; `None` for the classes whose
    /// text is not compared (`low`, `high`, those of other tools).
    fn of(obfuscation: &str) -> Option<Expected> {
        [
            (Strategy::Verbatim, Expected::Copy),
            (Strategy::WordShuffle, Expected::SameTokens),
            (Strategy::PhraseShuffle, Expected::SameCharacters),
        ]
        .into_iter()
        .find_map(|(strategy, expected)| (strategy.obfuscation() == obfuscation).then_some(expected))
    }

    /// True when `copied` holds what it must of `original`.
    fn holds(self, copied: &str, original: &str) -> bool {
        match self {
            Expected::Copy => copied == original,
            Expected::SameTokens => sorted(words_and_marks(copied)) == sorted(words_and_marks(original)),
            Expected::SameCharacters => {
                let characters = |text: &str| sorted(text.chars().filter(|c| !c.is_whitespace()).collect());
                characters(copied) == characters(original)
            }
        }
    }

    /// How a case's text fails: the words between it and the source passage's
    /// name, and after the passage's range.
    fn failure(self) -> (&'static str, &'static str) {
        match self {
            Expected::Copy => ("differs from", ""),
            Expected::SameTokens => ("does not hold the tokens of", ", in any order"),
            Expected::SameCharacters => ("does not hold the characters of", ", in any order"),
        }
    }
}

/// `items` sorted.
fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort_unstable();
    items
}

/// Checks the corpus in `dir`; `Err(CorpusError::CheckFailed)` lists the
/// problems, each naming its file.
/// A corpus whose build did not finish is refused with
/// `Err(CorpusError::Incomplete)`, naming what is missing.
pub fn check(dir: &Path, progress: &dyn Progress) -> Result<CheckReport, CorpusError> {
    refuse_interrupted_build(dir)?;
    let sources_dir = source_dir(dir);
    let suspicious_dir = suspicious_dir(dir);
    let sources = names_with_extension(&sources_dir, "txt")?;
    let suspicious = names_with_extension(&suspicious_dir, "txt")?;
    let truths = names_with_extension(&suspicious_dir, "xml")?;
    let mut problems = Vec::new();
    for (names, set) in [(&sources, "source-documents"), (&suspicious, "suspicious-documents")] {
        if names.is_empty() {
            problems.push(format!("{set}/: no .txt documents"));
        }
    }
    for xml in &truths {
        let text = format!("{}.txt", xml.trim_end_matches(".xml"));
        if !suspicious.contains(&text) {
            problems.push(format!("suspicious-documents/{xml}: no {text} beside it"));
        }
    }

    // Character lengths of all source documents, read once.
    let source_list: Vec<&String> = sources.iter().collect();
    let source_chars: BTreeMap<String, usize> = source_list
        .par_iter()
        .map(|name| Ok(((*name).clone(), read_utf8(&sources_dir.join(name))?.chars().count())))
        .collect::<Result<_, CorpusError>>()?;

    progress.start(Stage::CorpusCheck, suspicious.len() as u64);
    let suspicious_list: Vec<&String> = suspicious.iter().collect();
    let checks: Vec<DocumentCheck> = suspicious_list
        .par_iter()
        .map(|name| {
            let result = check_document(&suspicious_dir, &sources_dir, name, &source_chars);
            progress.advance(1);
            result
        })
        .collect::<Result<_, CorpusError>>()?;
    progress.finish();
    let mut report = CheckReport {
        source_documents: sources.len(),
        suspicious_documents: suspicious.len(),
        ..CheckReport::default()
    };
    let mut truth_pairs = BTreeSet::new();
    for document in checks {
        problems.extend(document.problems);
        report.cases += document.cases;
        report.verbatim_cases += document.verbatim_cases;
        report.reordered_cases += document.reordered_cases;
        truth_pairs.extend(document.pairs);
    }

    let pairs_path = dir.join("pairs");
    let pairs_file = pairs_path.exists();
    if pairs_file {
        let text = read_utf8(&pairs_path)?;
        let mut listed = BTreeSet::new();
        for (number, line) in text.lines().enumerate() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields[..] {
                [] => {}
                [s, r] => {
                    if !suspicious.contains(s) {
                        problems.push(format!("pairs: line {}: no suspicious document {s}", number + 1));
                    }
                    if !sources.contains(r) {
                        problems.push(format!("pairs: line {}: no source document {r}", number + 1));
                    }
                    listed.insert(format!("{s} {r}"));
                    report.pairs += 1;
                }
                _ => problems.push(format!("pairs: line {}: expected two file names, got '{line}'", number + 1)),
            }
        }
        for pair in truth_pairs.difference(&listed) {
            problems.push(format!("pairs: the pair '{pair}' has a case but is not listed"));
        }
    }

    // Counts that disagree with README.txt come first: they say what is missing.
    let mut all = readme_disagreements(dir, &report, pairs_file)?;
    all.extend(problems);
    if all.is_empty() { Ok(report) } else { Err(CorpusError::CheckFailed { path: dir.to_path_buf(), problems: all }) }
}

/// Refuses a corpus whose build did not finish, naming the evidence and what
/// is missing.
fn refuse_interrupted_build(dir: &Path) -> Result<(), CorpusError> {
    let Some(evidence) = interruption_evidence(dir) else { return Ok(()) };
    let missing = missing_outputs(dir);
    let missing = if missing.is_empty() { String::new() } else { format!("; missing: {}", missing.join(", ")) };
    Err(CorpusError::Incomplete {
        path: dir.to_path_buf(),
        reason: format!("its build did not finish ({evidence}){missing}; remove the directory and build it again"),
    })
}

/// What shows that a build into `dir` did not finish: [`INCOMPLETE_MARKER`]
/// (builds since it exists), a temporary file of an interrupted write, or
/// `cases.tsv` without `README.txt`, which every build writes last.
fn interruption_evidence(dir: &Path) -> Option<String> {
    if dir.join(INCOMPLETE_MARKER).exists() {
        return Some(format!("{INCOMPLETE_MARKER} is still there"));
    }
    for place in [dir.to_path_buf(), source_dir(dir), suspicious_dir(dir)] {
        // A directory that cannot be read is reported when its documents are listed.
        let Ok(stale) = stale_temporaries(&place) else { continue };
        if let Some(first) = stale.first() {
            let name = first.path.strip_prefix(dir).unwrap_or(&first.path);
            return Some(format!("{} was left by an interrupted write", name.display()));
        }
    }
    let [cases, .., readme] = SUMMARY_FILES;
    if dir.join(cases).exists() && !dir.join(readme).exists() {
        return Some(format!("{cases} is there but not {readme}, which the build writes last"));
    }
    None
}

/// What a finished build would have written that `dir` lacks: summary files,
/// and truth files of suspicious documents.
fn missing_outputs(dir: &Path) -> Vec<String> {
    let mut missing: Vec<String> =
        SUMMARY_FILES.into_iter().filter(|name| !dir.join(name).exists()).map(str::to_string).collect();
    let suspicious = suspicious_dir(dir);
    if let (Ok(texts), Ok(truths)) =
        (names_with_extension(&suspicious, "txt"), names_with_extension(&suspicious, "xml"))
    {
        let without = texts.iter().filter(|text| !truths.contains(&truth_name(text))).count();
        if without > 0 {
            missing.push(format!("the truth files of {without} of {} suspicious documents", texts.len()));
        }
    }
    missing
}

/// Where the counts that `dir`'s `README.txt` states (when it states them)
/// disagree with what the check found: documents, cases or pairs lost (or
/// added) since the build. Problems name the file.
fn readme_disagreements(dir: &Path, found: &CheckReport, pairs_file: bool) -> Result<Vec<String>, CorpusError> {
    let path = dir.join("README.txt");
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = read::read_input(&path).map_err(|source| CorpusError::Io { path: path.clone(), source })?;
    let Some(stated) = ReadmeCounts::parse(&String::from_utf8_lossy(&bytes)) else { return Ok(Vec::new()) };
    let mut problems = Vec::new();
    let mut compare = |what: &str, stated: usize, found: usize, place: &str| {
        if stated != found {
            problems.push(format!("README.txt: lists {stated} {what}, {place} {found}"));
        }
    };
    compare("source documents", stated.source_documents, found.source_documents, "source-documents/ holds");
    compare(
        "suspicious documents",
        stated.suspicious_documents,
        found.suspicious_documents,
        "suspicious-documents/ holds",
    );
    compare("cases", stated.cases, found.cases, "the truth files hold");
    if pairs_file {
        compare("pairs", stated.pairs, found.pairs, "the pairs file holds");
    } else if stated.pairs > 0 {
        problems.push(format!("pairs: missing (README.txt lists {} pairs)", stated.pairs));
    }
    Ok(problems)
}

/// The truth file of suspicious text `name`: `suspicious-document00001.xml`.
fn truth_name(name: &str) -> String {
    format!("{}.xml", name.trim_end_matches(".txt"))
}

/// File names ending in `.extension` in `dir`, sorted.
fn names_with_extension(dir: &Path, extension: &str) -> Result<BTreeSet<String>, CorpusError> {
    let io_error = |source| CorpusError::Io { path: dir.to_path_buf(), source };
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(dir).map_err(io_error)? {
        let entry = entry.map_err(io_error)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') && Path::new(&name).extension().is_some_and(|e| e == extension) {
            names.insert(name);
        }
    }
    Ok(names)
}

/// Checks one suspicious document and its truth.
fn check_document(
    suspicious_dir: &Path,
    sources_dir: &Path,
    name: &str,
    source_chars: &BTreeMap<String, usize>,
) -> Result<DocumentCheck, CorpusError> {
    let mut result = DocumentCheck::default();
    let text = read_utf8(&suspicious_dir.join(name))?;
    let chars = text.chars().count();
    let xml_name = truth_name(name);
    let xml_path: PathBuf = suspicious_dir.join(&xml_name);
    let here = format!("suspicious-documents/{xml_name}");
    if !xml_path.exists() {
        result.problems.push(format!("{here}: missing (every suspicious document needs its truth file)"));
        return Ok(result);
    }
    let document = match PanDocument::parse(&read_utf8(&xml_path)?) {
        Ok(document) => document,
        Err(error) => {
            result.problems.push(format!("{here}: {error}"));
            return Ok(result);
        }
    };
    if document.reference != name {
        result.problems.push(format!("{here}: reference=\"{}\" should be \"{name}\"", document.reference));
    }
    let mut ranges: Vec<(u64, u64, usize)> = Vec::new();
    let cases = document.features.iter().filter(|f| TRUTH_FEATURES.contains(&f.name.as_str()));
    for (number, feature) in cases.enumerate().map(|(i, f)| (i + 1, f)) {
        result.cases += 1;
        let problem = |message: String| format!("{here}: case {number}: {message}");
        let (this, source) = match (feature.this_range(), feature.source_range()) {
            (Ok(this), Ok(source)) => (this, source),
            (Err(message), _) | (_, Err(message)) => {
                result.problems.push(problem(message));
                continue;
            }
        };
        if this.1 > chars as u64 {
            result.problems.push(problem(format!(
                "this range {}..{} ends past the end of {name} ({chars} characters)",
                this.0, this.1
            )));
        }
        if this.0 == this.1 {
            result.problems.push(problem("this_length is 0".into()));
        }
        ranges.push((this.0, this.1, number));
        let Some(reference) = feature.get("source_reference") else {
            result.problems.push(problem("no source_reference".into()));
            continue;
        };
        let Some(&length) = source_chars.get(reference) else {
            result.problems.push(problem(format!("source_reference {reference} is not in source-documents/")));
            continue;
        };
        result.pairs.insert(format!("{name} {reference}"));
        if source.1 > length as u64 {
            result.problems.push(problem(format!(
                "source range {}..{} ends past the end of {reference} ({length} characters)",
                source.0, source.1
            )));
            continue;
        }
        let Some(obfuscation) = feature.get("obfuscation") else { continue };
        let Some(expected) = Expected::of(obfuscation) else { continue };
        if expected == Expected::Copy {
            result.verbatim_cases += 1;
        } else {
            result.reordered_cases += 1;
        }
        let in_range = this.1 <= chars as u64;
        let (Ok(this), Ok(source)) = (to_range(this), to_range(source)) else {
            result.problems.push(problem("offsets beyond 4G characters".into()));
            continue;
        };
        if !in_range {
            continue;
        }
        let source_text = read_utf8(&sources_dir.join(reference))?;
        let texts = char_slice(&text, this).zip(char_slice(&source_text, source));
        if !texts.is_some_and(|(copied, original)| expected.holds(copied, original)) {
            let (relation, manner) = expected.failure();
            result.problems.push(problem(format!(
                "obfuscation=\"{obfuscation}\" but the text at {}..{} {relation} {reference} {}..{}{manner}",
                this.start, this.end, source.start, source.end
            )));
        }
    }
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        let ((_, end, first), (start, _, second)) = (pair[0], pair[1]);
        if start < end {
            result.problems.push(format!("{here}: cases {first} and {second} overlap"));
        }
    }
    Ok(result)
}

fn to_range((start, end): (u64, u64)) -> Result<CharRange, std::num::TryFromIntError> {
    Ok(CharRange::new(u32::try_from(start)?, u32::try_from(end)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    fn corpus(source: &str, suspicious: &str, feature: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(source_dir(dir.path())).unwrap();
        fs::create_dir(super::super::suspicious_dir(dir.path())).unwrap();
        fs::write(source_dir(dir.path()).join("source-document00001.txt"), source).unwrap();
        let sus = super::super::suspicious_dir(dir.path());
        fs::write(sus.join("suspicious-document00001.txt"), suspicious).unwrap();
        fs::write(
            sus.join("suspicious-document00001.xml"),
            format!("<document reference=\"suspicious-document00001.txt\">\n{feature}\n</document>\n"),
        )
        .unwrap();
        dir
    }

    fn feature(obfuscation: &str, this: (usize, usize), source: (usize, usize)) -> String {
        format!(
            "<feature name=\"plagiarism\" obfuscation=\"{obfuscation}\" this_offset=\"{}\" this_length=\"{}\" \
             source_reference=\"source-document00001.txt\" source_offset=\"{}\" source_length=\"{}\"/>",
            this.0, this.1, source.0, source.1
        )
    }

    #[test]
    fn accepts_an_exact_multibyte_copy() {
        // "kůň úpěl" is at characters 10..18 of the source and 6..14 of the suspicious text.
        let dir = corpus("Žluťoučký kůň úpěl.", "Když: kůň úpěl tam.", &feature("none", (6, 8), (10, 8)));
        let report = check(dir.path(), &Silent).unwrap();
        assert_eq!(report.cases, 1);
        assert_eq!(report.verbatim_cases, 1);
    }

    #[test]
    fn rejects_a_byte_offset_copy_and_ranges_past_the_end() {
        let dir = corpus("Žluťoučký kůň úpěl.", "Když: kůň úpěl tam.", &feature("none", (7, 8), (10, 8)));
        let error = check(dir.path(), &Silent).unwrap_err().to_string();
        assert!(error.contains("differs from source-document00001.txt 10..18"), "{error}");

        let dir = corpus("short", "Když: kůň úpěl tam.", &feature("low", (6, 80), (0, 9)));
        let CorpusError::CheckFailed { problems, .. } = check(dir.path(), &Silent).unwrap_err() else {
            panic!("expected a failed check")
        };
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("ends past the end of suspicious-document00001.txt (19 characters)"));
        assert!(problems[1].contains("ends past the end of source-document00001.txt (5 characters)"));
    }

    #[test]
    fn reports_overlaps_missing_sources_and_unlisted_pairs() {
        let features = format!(
            "{}\n{}\n<feature name=\"plagiarism\" obfuscation=\"low\" this_offset=\"0\" this_length=\"2\" \
             source_reference=\"source-document00009.txt\" source_offset=\"0\" source_length=\"1\"/>",
            feature("low", (0, 5), (0, 3)),
            feature("low", (3, 5), (0, 3))
        );
        let dir = corpus("source text", "suspicious text here", &features);
        fs::write(dir.path().join("pairs"), "suspicious-document00002.txt source-document00001.txt\n").unwrap();
        let CorpusError::CheckFailed { problems, .. } = check(dir.path(), &Silent).unwrap_err() else {
            panic!("expected a failed check")
        };
        let all = problems.join("\n");
        assert!(all.contains("source-document00009.txt is not in source-documents/"), "{all}");
        assert!(all.contains("overlap"), "{all}");
        assert!(all.contains("no suspicious document suspicious-document00002.txt"), "{all}");
        assert!(all.contains("has a case but is not listed"), "{all}");
    }

    #[test]
    fn reordered_cases_must_hold_their_passage_s_tokens_or_characters() {
        let source = "Der Kater, alt und müde, schlief.";
        // "müde , schlief . Der alt , und Kater" holds the tokens of 0..33 in another order.
        let shuffled = "Vorher: müde , schlief . Der alt , und Kater";
        let dir = corpus(source, shuffled, &feature("word-shuffle", (8, 36), (0, 33)));
        let report = check(dir.path(), &Silent).unwrap();
        assert_eq!((report.cases, report.verbatim_cases, report.reordered_cases), (1, 0, 1));
        let dir = corpus(source, shuffled, &feature("phrase-shuffle", (8, 36), (0, 33)));
        assert_eq!(check(dir.path(), &Silent).unwrap().reordered_cases, 1);

        // One token lost ("," before "und"), one changed ("Kater" -> "Katze").
        for (obfuscation, relation) in [("word-shuffle", "tokens"), ("phrase-shuffle", "characters")] {
            for wrong in ["Vorher: müde , schlief . Der alt und Kater", "Vorher: müde , schlief . Der alt , und Katze"]
            {
                let length = wrong.chars().count() - 8;
                let dir = corpus(source, wrong, &feature(obfuscation, (8, length), (0, 33)));
                let error = check(dir.path(), &Silent).unwrap_err().to_string();
                let expected = format!(
                    "case 1: obfuscation=\"{obfuscation}\" but the text at 8..{} does not hold the {relation} of \
                     source-document00001.txt 0..33, in any order",
                    8 + length
                );
                assert!(error.contains(&expected), "{error}");
            }
        }
        // Tokens are not characters: two words run together are one token less.
        let glued = "Vorher: müde , schlief . Der alt , undKater";
        let dir = corpus(source, glued, &feature("word-shuffle", (8, 35), (0, 33)));
        assert!(check(dir.path(), &Silent).is_err());
        let dir = corpus(source, glued, &feature("phrase-shuffle", (8, 35), (0, 33)));
        assert!(check(dir.path(), &Silent).is_ok());
    }

    #[test]
    fn a_missing_directory_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let error = check(&dir.path().join("nope"), &Silent).unwrap_err();
        assert!(matches!(error, CorpusError::Io { .. }));
        assert!(error.to_string().contains("nope"));
    }
}
