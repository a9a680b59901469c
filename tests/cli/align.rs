//! The presets: `pan09` is the paper's method flag for flag; `best` (the default) aligns paraphrases.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{detect, detect_dirs, path_str, prose, read_report, report_passages, run};
use pan_detect::report::pan_xml::PanDocument;

/// Runs detection on `corpus` into `out` with `flags` and returns the reports'
/// bytes by file name.
fn reports(corpus: &Path, out: &Path, flags: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut args: Vec<String> = vec![
        "--source-dir".to_string(),
        corpus.join("source-documents").to_str().unwrap().to_string(),
        "--suspicious-dir".to_string(),
        corpus.join("suspicious-documents").to_str().unwrap().to_string(),
        "--out".to_string(),
        out.to_str().unwrap().to_string(),
    ];
    args.extend(flags.iter().map(|f| f.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(out)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            (path.file_name().unwrap().to_str().unwrap().to_string(), fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn preset_pan09_equals_the_papers_explicit_flags() {
    let corpus = crate::fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let preset = reports(&corpus, &dir.path().join("preset"), &["--preset", "pan09"]);
    let explicit = reports(
        &corpus,
        &dir.path().join("explicit"),
        &[
            "--preset",
            "pan09",
            "--digits",
            "--min-word-len",
            "3",
            "--chunk-words",
            "5",
            "--hash-bits",
            "32",
            "--min-common",
            "20",
            "--min-chunks",
            "20",
            "--max-gap",
            "49",
            "--depth",
            "2",
            "--overlap",
            "largest",
        ],
    );
    assert_eq!(preset.len(), explicit.len());
    for ((name, a), (other, b)) in preset.iter().zip(&explicit) {
        assert_eq!(name, other);
        assert!(a == b, "{name} differs:\n{}\nvs\n{}", String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    }
}

#[test]
fn a_flag_the_preset_would_ignore_is_refused_and_so_are_contradictions() {
    let corpus = crate::fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let dirs = |extra: &[&str]| {
        let src = corpus.join("source-documents");
        let susp = corpus.join("suspicious-documents");
        detect(&src, &susp, &out, extra)
    };
    for (flags, message) in [
        (&["--preset", "pan09", "--seed-cosine", "0.99"][..], "--seed-cosine applies to --preset best only"),
        (&["--chunk-words", "32"][..], "--chunk-words applies to --preset pan09 only, and the preset is best"),
        (&["--preset", "best", "--depth", "1"][..], "--depth applies to --preset pan09 only"),
        (&["--preset", "pan09", "--language", "en"][..], "--language applies to --preset best only"),
    ] {
        let output = dirs(flags);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{flags:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
        assert!(!out.exists(), "nothing is written");
    }
    let output = dirs(&["--digits", "--no-digits"]);
    assert_eq!(output.status.code(), Some(2), "a contradiction is a usage error");
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot be used with"));
    // The help shows the defaults the code uses.
    let help = String::from_utf8_lossy(&run(&["detect", "--help"]).stdout).into_owned();
    let default = pan_detect::align::params::AlignParams::default();
    let listed = default.for_listed_pairs();
    assert!(
        help.contains(&format!("[default: {}; {} with --pairs]", default.seed_cosine, listed.seed_cosine)),
        "{help}"
    );
    assert!(help.contains(&format!("[default: {}]", default.candidate_words)), "{help}");
    assert!(help.contains("MD5 with pan09, XXH3 for best"), "{help}");
}

const ORIGINAL: &str = include_str!("../../corpus-fixtures/align/original.txt");

/// About a third of the words replaced, inserted, dropped or swapped inside sentences.
const PARAPHRASE: &str = include_str!("../../corpus-fixtures/align/paraphrase.txt");

const SUSPICIOUS_TEXT: &[&str] = &[
    "Žluťoučký kůň úpěl ďábelské ódy na zahradě u starého mlýna.",
    "The bakery on the corner sells bread and pastries every morning before dawn.",
    "Children walked to school along the river, counting ducks and throwing pebbles.",
    "Parliament debated the new tax on imported machinery for three long afternoons.",
    "A storm of letters followed the decision, most of them angry and some of them funny.",
];

const SOURCE_TEXT: &[&str] = &[
    "Fishermen mended their nets on the quay while gulls circled over the harbour.",
    "The orchestra rehearsed the symphony twice before the conductor was satisfied.",
    "Snow closed the mountain pass for a week, and the village ran short of flour.",
    "Her grandmother kept every letter in a tin box under the kitchen stairs.",
];

/// The report on `suspicious.xml` of a `detect` run with `flags` that must succeed.
fn suspicious_report(src: &Path, susp: &Path, out: &Path, flags: &[&str]) -> PanDocument {
    let output = detect(src, susp, out, flags);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    read_report(&out.join("suspicious.xml"))
}

fn chars(text: &str) -> u64 {
    text.chars().count() as u64
}

#[test]
fn best_preset_finds_a_paraphrase_to_its_sentence_boundaries() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let suspicious_before = SUSPICIOUS_TEXT[..3].join(" ") + " ";
    let suspicious = format!("{suspicious_before}{PARAPHRASE}\n\n{}", SUSPICIOUS_TEXT[3..].join(" "));
    let source_before = SOURCE_TEXT[..2].join(" ") + "\n";
    let source = format!("{source_before}{ORIGINAL} {}", SOURCE_TEXT[2..].join(" "));
    fs::write(src.join("source.txt"), &source).unwrap();
    fs::write(src.join("unrelated.txt"), SOURCE_TEXT.join(" ").repeat(3)).unwrap();
    fs::write(susp.join("suspicious.txt"), &suspicious).unwrap();
    fs::write(susp.join("clean.txt"), SUSPICIOUS_TEXT.join(" ")).unwrap();

    let output = detect(&src, &susp, &out, &["--quiet"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("1 pair aligned"), "{stderr}");

    let report = read_report(&out.join("suspicious.xml"));
    assert_eq!(report.features.len(), 1, "{report:?}");
    let feature = &report.features[0];
    assert_eq!(feature.get("source_reference"), Some("source.txt"));
    let this_start = chars(&suspicious_before);
    assert_ne!(this_start, suspicious_before.len() as u64, "the test needs multi-byte text");
    assert_eq!(feature.this_range().unwrap(), (this_start, this_start + chars(PARAPHRASE)));
    let source_start = chars(&source_before);
    assert_eq!(feature.source_range().unwrap(), (source_start, source_start + chars(ORIGINAL)));
    assert!(read_report(&out.join("clean.xml")).features.is_empty());

    // The paper's method needs 20 matching five-word chunks: it finds nothing.
    let output = detect(&src, &susp, &out, &["--preset", "pan09"]);
    assert!(output.status.success());
    assert!(read_report(&out.join("suspicious.xml")).features.is_empty());
}

#[test]
fn synonyms_file_joins_replaced_words() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    // Every content word of the copy is replaced by its partner in the synonym list.
    let pairs = [
        ("hamilton", "hammond"),
        ("spent", "passed"),
        ("twenty", "score"),
        ("years", "winters"),
        ("studying", "examining"),
        ("pulsars", "neutronstars"),
        ("observatory", "lookout"),
        ("near", "close"),
        ("parkes", "parkesville"),
        ("recalls", "remembers"),
        ("occasion", "instance"),
        ("team", "crew"),
        ("used", "employed"),
        ("big", "large"),
        ("telescope", "scope"),
        ("take", "grab"),
        ("second", "further"),
        ("look", "glance"),
        ("strange", "odd"),
        ("signal", "beacon"),
        ("actually", "really"),
        ("discovered", "found"),
        ("pulsar", "neutronstar"),
        ("very", "highly"),
        ("interesting", "curious"),
        ("object", "body"),
        ("middle", "centre"),
        ("thunderstorm", "tempest"),
        ("says", "states"),
        ("discovery", "finding"),
        ("announced", "published"),
        ("famous", "renowned"),
        ("journal", "periodical"),
        ("following", "next"),
        ("spring", "springtime"),
        ("astronomers", "stargazers"),
        ("across", "throughout"),
        ("country", "nation"),
        ("wanted", "wished"),
        ("measure", "gauge"),
        ("rotation", "spin"),
        ("newly", "freshly"),
        ("star", "sun"),
    ];
    let synonyms: String = pairs.iter().map(|(a, b)| format!("{a}, {b}\n")).collect();
    fs::write(dir.path().join("synonyms.txt"), synonyms).unwrap();
    let replaced: String = ORIGINAL
        .split(' ')
        .map(|token| {
            let word: String = token.chars().filter(|c| c.is_alphabetic()).collect::<String>().to_lowercase();
            match pairs.iter().find(|(a, _)| *a == word) {
                Some((_, b)) => token.to_lowercase().replace(&word, b),
                None => token.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    fs::write(src.join("source.txt"), format!("{} {ORIGINAL} {}", SOURCE_TEXT[0], SOURCE_TEXT[1])).unwrap();
    fs::write(susp.join("suspicious.txt"), format!("{} {replaced} {}", SUSPICIOUS_TEXT[1], SUSPICIOUS_TEXT[2]))
        .unwrap();
    // Only the synonyms should explain the copy, not its function words.
    let base = ["--structure-words", "0"];
    assert!(suspicious_report(&src, &susp, &out, &base).features.is_empty(), "no shared content word");
    let synonyms_path = dir.path().join("synonyms.txt");
    let report =
        suspicious_report(&src, &susp, &out, &[&base[..], &["--synonyms", synonyms_path.to_str().unwrap()]].concat());
    assert_eq!(report.features.len(), 1, "{report:?}");
    let start = chars(SUSPICIOUS_TEXT[1]) + 1;
    assert_eq!(report.features[0].this_range().unwrap(), (start, start + chars(&replaced)));
}

#[test]
fn bad_language_and_synonyms_are_reported_by_name() {
    let corpus = crate::fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "--source-dir".to_string(),
        corpus.join("source-documents").to_str().unwrap().to_string(),
        "--suspicious-dir".to_string(),
        corpus.join("suspicious-documents").to_str().unwrap().to_string(),
        "--out".to_string(),
        dir.path().join("out").to_str().unwrap().to_string(),
    ];
    let base: Vec<&str> = base.iter().map(String::as_str).collect();
    let output = run(&[&base[..], &["--language", "xx"]].concat());
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown language 'xx'"));
    let missing = dir.path().join("missing-synonyms.txt");
    let output = run(&[&base[..], &["--synonyms", missing.to_str().unwrap()]].concat());
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing-synonyms.txt"));
}

/// Overall plagdet and granularity of `detections` against the fixture corpus's
/// truth, from `pan-detect eval --json`.
fn fixture_scores(detections: &Path) -> (f64, f64) {
    let truth = crate::fixtures().join("pan").join("suspicious-documents");
    let output =
        run(&["eval", "--truth", truth.to_str().unwrap(), "--detections", detections.to_str().unwrap(), "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let scores: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    (scores["plagdet"].as_f64().unwrap(), scores["granularity"].as_f64().unwrap())
}

/// The fixture corpus holds one small Czech source copied seven times into one
/// suspicious document, in another order and partly twice: the alignment must
/// keep the copies apart (diagonal chains, no merging of fragments that share
/// their source, trimmed overlaps) and beat the paper's method.
#[test]
fn best_preset_keeps_reordered_copies_of_one_source_apart_and_beats_pan09() {
    let corpus = crate::fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    let (best, pan09) = (dir.path().join("best"), dir.path().join("pan09"));
    reports(&corpus, &best, &["--quiet"]);
    reports(&corpus, &pan09, &["--quiet", "--preset", "pan09"]);
    let (best_plagdet, best_granularity) = fixture_scores(&best);
    let (pan09_plagdet, _) = fixture_scores(&pan09);
    assert_eq!(best_granularity, 1.0);
    assert!(best_plagdet > 0.99, "best {best_plagdet}");
    assert!(best_plagdet > pan09_plagdet, "best {best_plagdet}, pan09 {pan09_plagdet}");
    let reordered = read_report(&best.join("suspicious-document00001.xml"));
    assert_eq!(reordered.features.len(), 7, "{reordered:?}");
}

/// Distinct words of at least seven letters from the English fixture texts,
/// lower-cased, in order of appearance.
fn long_words() -> Vec<String> {
    let mut names: Vec<_> = fs::read_dir(crate::fixtures().join("texts"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.file_name().unwrap().to_str().unwrap().starts_with("en-"))
        .collect();
    names.sort();
    let mut words: Vec<String> = Vec::new();
    for name in names {
        let text = fs::read_to_string(name).unwrap();
        for word in text.split(|c: char| !c.is_ascii_alphabetic()) {
            let word = word.to_ascii_lowercase();
            if word.len() >= 7 && !words.contains(&word) {
                words.push(word);
            }
        }
    }
    words
}

/// Sentences of ten words each.
fn sentences(words: &[String]) -> String {
    words.chunks(10).map(|sentence| sentence.join(" ") + ".").collect::<Vec<_>>().join(" ")
}

/// A corpus in `dir` whose suspicious document copies its source with a word
/// inserted after every second one: no run of three words is shared but one
/// run of four, which makes two shared candidate chunks, one short of a
/// candidate pair. Returns the source and suspicious directories and the
/// character where the copy starts.
pub(crate) fn pair_chunk_corpus(dir: &Path) -> (PathBuf, PathBuf, u64) {
    let words = long_words();
    assert!(words.len() >= 700, "{} words", words.len());
    let (copied, unrelated) = (&words[..300], &words[300..700]);
    let stand_ins = ["varnished", "whistling", "borrowed", "shimmering", "crooked"];
    let mut obfuscated: Vec<String> = Vec::new();
    for (i, word) in copied.iter().enumerate() {
        obfuscated.push(word.clone());
        if i % 2 == 1 && i != 41 {
            obfuscated.push(stand_ins[i % stand_ins.len()].to_string());
        }
    }
    let (src, susp) = (dir.join("src"), dir.join("susp"));
    fs::create_dir_all(&src).unwrap();
    fs::create_dir_all(&susp).unwrap();
    let before = sentences(&unrelated[..200]) + " ";
    fs::write(src.join("source.txt"), sentences(copied)).unwrap();
    fs::write(susp.join("suspicious.txt"), before.clone() + &sentences(&obfuscated)).unwrap();
    fs::write(susp.join("unrelated.txt"), sentences(&unrelated[200..])).unwrap();
    (src, susp, chars(&before))
}

/// Pair chunks, the second evidence, find the copy of [`pair_chunk_corpus`].
#[test]
fn pair_chunks_find_a_copy_that_shares_too_few_candidate_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, copy_start) = pair_chunk_corpus(dir.path());
    let out = dir.path().join("best");
    let report = suspicious_report(&src, &susp, &out, &["--quiet"]);
    assert_eq!(report.features.len(), 1, "{report:?}");
    let (start, end) = report.features[0].this_range().unwrap();
    assert!(start < copy_start + 200 && end > copy_start + 2000, "{start}..{end} from {copy_start}");
    assert!(read_report(&out.join("unrelated.xml")).features.is_empty());

    let out = dir.path().join("without-pairs");
    assert!(suspicious_report(&src, &susp, &out, &["--quiet", "--pair-words", "0"]).features.is_empty());
}

/// `--report-candidates` reports each candidate source of a suspicious
/// document once, whole: the fixture document copied from six sources has six
/// such detections (candidates by chunks in order), although they all overlap.
#[test]
fn report_candidates_keeps_every_candidate_source_though_they_overlap() {
    let corpus = crate::fixtures().join("pan");
    let dir = tempfile::tempdir().unwrap();
    reports(&corpus, dir.path(), &["--quiet", "--report-candidates", "--unordered-min-chunks", "0"]);
    let truth = read_report(&corpus.join("suspicious-documents").join("suspicious-document00006.xml"));
    let report = read_report(&dir.path().join("suspicious-document00006.xml"));
    let sources = |doc: &PanDocument| {
        doc.features
            .iter()
            .map(|f| f.get("source_reference").unwrap().to_string())
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(sources(&report), sources(&truth));
    assert_eq!(report.features.len(), 6, "one detection per source");
    assert!(report.features.iter().all(|f| f.this_range().unwrap().0 == 0), "whole documents");
}

/// A candidate source is reported whole in characters, not in bytes of its
/// file: a Czech source copied into a suspicious document.
#[test]
fn report_candidates_covers_the_source_in_characters() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let source = fs::read_to_string(crate::fixtures().join("texts").join("cs-01-mlyny-na-reke.txt")).unwrap();
    assert_ne!(chars(&source), source.len() as u64, "the test needs multi-byte text");
    fs::write(src.join("source.txt"), &source).unwrap();
    fs::write(susp.join("suspicious.txt"), format!("{}\n\n{source}", SUSPICIOUS_TEXT.join(" "))).unwrap();

    let report = suspicious_report(&src, &susp, &out, &["--quiet", "--report-candidates"]);
    assert_eq!(report.features.len(), 1, "{report:?}");
    assert_eq!(report.features[0].source_range().unwrap(), (0, chars(&source)));
}

/// A corpus in `dir` whose suspicious document copies a source of 300 words
/// with a word inserted after every second one but once, so that one run of
/// three words and with it one candidate chunk is shared; the source is
/// followed by `tail_words` unrelated words. Returns the source and
/// suspicious directories and the character where the copy starts.
fn one_chunk_corpus(dir: &Path, tail_words: usize) -> (PathBuf, PathBuf, u64) {
    let words = long_words();
    let (copied, unrelated) = (&words[..300], &words[300..500]);
    let stand_ins = ["varnished", "whistling", "borrowed", "shimmering", "crooked"];
    let mut obfuscated: Vec<String> = Vec::new();
    for (i, word) in copied.iter().enumerate() {
        obfuscated.push(word.clone());
        // w40 w41 w42 S w43: the one shared run of three words.
        if (i % 2 == 1 && i != 41) || i == 42 {
            obfuscated.push(stand_ins[i % stand_ins.len()].to_string());
        }
    }
    let (src, susp) = (dir.join("src"), dir.join("susp"));
    fs::create_dir_all(&src).unwrap();
    fs::create_dir_all(&susp).unwrap();
    let before = sentences(unrelated) + " ";
    let tail = if tail_words == 0 { String::new() } else { format!(" {}", crate::prose(7, tail_words)) };
    fs::write(src.join("source.txt"), sentences(copied) + &tail).unwrap();
    fs::write(susp.join("suspicious.txt"), before.clone() + &sentences(&obfuscated)).unwrap();
    (src, susp, chars(&before))
}

/// A short source is compared as a given pair is: one shared candidate chunk
/// makes a place for pair chunks, which find the copy. The same copy of a
/// source made long by unrelated text after it is not found: one chunk is too
/// little to look at in a long source, and the copy keeps too few of its
/// words for a region its rare words alone make (word chunks, in any order).
#[test]
fn one_shared_chunk_finds_a_copy_of_a_short_source_but_not_of_a_long_one() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, copy_start) = one_chunk_corpus(&dir.path().join("short"), 0);
    assert!(chars(&fs::read_to_string(src.join("source.txt")).unwrap()) < 10_000);
    let out = dir.path().join("short-out");
    let report = suspicious_report(&src, &susp, &out, &["--quiet"]);
    assert_eq!(report.features.len(), 1, "{report:?}");
    let (start, end) = report.features[0].this_range().unwrap();
    assert!(start < copy_start + 200 && end > copy_start + 1500, "{start}..{end} from {copy_start}");

    let (src, susp, _) = one_chunk_corpus(&dir.path().join("long"), 1500);
    assert!(chars(&fs::read_to_string(src.join("source.txt")).unwrap()) > 10_000);
    let out = dir.path().join("long-out");
    assert!(suspicious_report(&src, &susp, &out, &["--quiet"]).features.is_empty());
}

#[test]
fn a_copy_two_sources_hold_alike_is_reported_against_both_in_full_search_only() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    // Whole sentences (`prose` ends one every 11 words), so that both sources'
    // passages hold the same text.
    let shared = prose(9, 121);
    fs::write(src.join("a.txt"), format!("{}{shared}{}", prose(1, 297), prose(2, 297))).unwrap();
    fs::write(src.join("b.txt"), format!("{}{shared}{}", prose(3, 198), prose(4, 253))).unwrap();
    let before = prose(5, 198);
    fs::write(susp.join("suspicious.txt"), format!("{before}{shared}{}", prose(6, 198))).unwrap();
    let copy = (chars(&before), chars(&before) + chars(shared.trim_end()));

    let output = detect(&src, &susp, &out, &["--quiet"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let found = report_passages(&out.join("suspicious.xml"));
    let sources: Vec<(u64, u64, &str)> = found.iter().map(|p| (p.0, p.1, p.2.as_str())).collect();
    assert_eq!(sources, [(copy.0, copy.1, "a.txt"), (copy.0, copy.1, "b.txt")], "{found:?}");

    // PAN's protocol scores each listed pair by its truth: one source keeps it.
    let pairs = dir.path().join("pairs");
    fs::write(&pairs, "suspicious.txt a.txt\nsuspicious.txt b.txt\n").unwrap();
    let listed = dir.path().join("listed");
    let output = detect(&src, &susp, &listed, &["--quiet", "--pairs", path_str(&pairs)]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let found = report_passages(&listed.join("suspicious.xml"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1), copy);
}

/// The recall on the word-shuffled cases and the overall plagdet of `best`
/// (with `flags`) on `corpus`, full search.
fn word_shuffle_scores(corpus: &Path, out: &Path, flags: &[&str]) -> (f64, f64) {
    reports(corpus, out, &[&["--quiet"], flags].concat());
    let truth = corpus.join("suspicious-documents");
    let output = run(&[
        "eval",
        "--truth",
        truth.to_str().unwrap(),
        "--detections",
        out.to_str().unwrap(),
        "--by",
        "obfuscation",
        "--json",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let scores: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let groups = scores["groups"].as_array().unwrap();
    let shuffled = groups.iter().find(|g| g["name"] == "word-shuffle").expect("a word-shuffle class");
    (shuffled["recall"].as_f64().unwrap(), scores["plagdet"].as_f64().unwrap())
}

/// Word-shuffled copies (every word of the passage in a random order) keep no
/// run of words and no sentence: the order-free stage and its word-chunk
/// candidates find them in full search, where the sentence alignment alone
/// finds few.
#[test]
fn best_finds_word_shuffled_copies_in_full_search_with_its_order_free_stage() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("reorder");
    let texts = crate::fixtures().join("texts");
    let output = run(&[
        "corpus",
        "--texts",
        texts.to_str().unwrap(),
        "--out",
        corpus.to_str().unwrap(),
        "--seed",
        "4",
        "--doc-chars",
        "3000..9000",
        "--sources",
        "5",
        "--suspicious",
        "5",
        "--obfuscation",
        "reorder",
        "--plagiarised-fraction",
        "1",
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (recall, plagdet) = word_shuffle_scores(&corpus, &dir.path().join("best"), &[]);
    let off = ["--unordered-min-share", "0", "--unordered-min-chunks", "0"];
    let (recall_without, plagdet_without) = word_shuffle_scores(&corpus, &dir.path().join("without"), &off);
    assert!(recall > 0.5 && recall > 2.0 * recall_without, "word-shuffle recall {recall} against {recall_without}");
    assert!(plagdet > plagdet_without + 0.1, "plagdet {plagdet} against {plagdet_without}");
}
