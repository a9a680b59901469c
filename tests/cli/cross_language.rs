//! Cross-language detection (issue 67): a Spanish document translated from an
//! English source, found through a dictionary the test writes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{detect, detect_dirs, path_str, prose, report_passages};

/// English sentences of the source; the suspicious document translates the
/// first eight.
const ENGLISH: [&str; 10] = [
    "The committee examined the report on fisheries in the northern region.",
    "Fishermen complained that the quotas were reduced without consultation.",
    "The minister promised a new inquiry into the decline of the stocks.",
    "Scientists warned that the cod population could collapse within ten years.",
    "The government proposed compensation for families who lost their income.",
    "Several members demanded stricter controls on industrial trawlers.",
    "The council postponed the decision until the spring session.",
    "Environmental groups welcomed the proposal but asked for quicker action.",
    "Meanwhile the harbour authority announced a plan to modernise the docks.",
    "Tourism in the coastal villages grew steadily during the summer months.",
];

/// Spanish translations of the first eight English sentences.
const SPANISH: [&str; 8] = [
    "El comité examinó el informe sobre pesquerías en la región septentrional.",
    "Los pescadores se quejaron de que las cuotas fueron reducidas sin consulta.",
    "El ministro prometió una nueva investigación sobre el declive de las poblaciones.",
    "Los científicos advirtieron que la población de bacalao podría desplomarse en diez años.",
    "El gobierno propuso una compensación para las familias que perdieron sus ingresos.",
    "Varios miembros exigieron controles más estrictos sobre los arrastreros industriales.",
    "El consejo aplazó la decisión hasta la sesión de primavera.",
    "Los grupos ecologistas acogieron la propuesta pero pidieron una acción más rápida.",
];

/// Spanish text of the document around the translation, on other matters.
const SPANISH_FILLER: &str = "Mi abuela vivía en una casa pequeña junto al río y cada mañana preparaba café para \
    todos los vecinos que pasaban por allí. Los niños jugaban en la plaza hasta que el sol se ponía detrás de \
    las montañas, y luego volvían a casa cansados pero felices. Nadie recuerda ya el nombre de aquel pueblo.";

/// Spanish words of the translation and their English words, as a FreeDict
/// dictionary holds them.
const WORDS: [(&str, &str); 52] = [
    ("comité", "committee"),
    ("examinar", "examine"),
    ("informe", "report"),
    ("sobre", "on"),
    ("pesquería", "fishery"),
    ("región", "region"),
    ("septentrional", "northern"),
    ("pescador", "fisherman"),
    ("quejarse", "complain"),
    ("cuota", "quota"),
    ("reducir", "reduce"),
    ("sin", "without"),
    ("consulta", "consultation"),
    ("ministro", "minister"),
    ("prometer", "promise"),
    ("nuevo", "new"),
    ("investigación", "inquiry"),
    ("declive", "decline"),
    ("población", "population; stock"),
    ("científico", "scientist"),
    ("advertir", "warn"),
    ("bacalao", "cod"),
    ("desplomarse", "collapse"),
    ("diez", "ten"),
    ("año", "year"),
    ("gobierno", "government"),
    ("proponer", "propose"),
    ("compensación", "compensation"),
    ("familia", "family"),
    ("perder", "lose"),
    ("ingresos", "income"),
    ("varios", "several"),
    ("miembro", "member"),
    ("exigir", "demand"),
    ("control", "control"),
    ("estricto", "strict"),
    ("arrastrero", "trawler"),
    ("industrial", "industrial"),
    ("consejo", "council"),
    ("aplazar", "postpone"),
    ("decisión", "decision"),
    ("hasta", "until"),
    ("sesión", "session"),
    ("primavera", "spring"),
    ("grupo", "group"),
    ("ecologista", "environmental"),
    ("acoger", "welcome"),
    ("propuesta", "proposal"),
    ("pero", "but"),
    ("pedir", "ask"),
    ("acción", "action"),
    ("rápido", "quick"),
];

/// Writes the Spanish-English dictionary of [`WORDS`] into `dir` in dictd
/// format: `freedict-spa-eng.index` and the gzip-compressed `.dict.dz`.
fn write_dictionary(dir: &Path) {
    write_dictionary_of(dir, &WORDS);
}

/// Writes the Spanish-English dictionary of `words` into `dir`, as
/// [`write_dictionary`] does.
fn write_dictionary_of(dir: &Path, words: &[(&str, &str)]) {
    fs::create_dir_all(dir).unwrap();
    let (mut data, mut index) = (String::new(), String::new());
    for (spanish, english) in words {
        let entry = format!("{spanish} <n>\n{english}\n");
        index.push_str(&format!("{spanish}\t{}\t{}\n", base64(data.len()), base64(entry.len())));
        data.push_str(&entry);
    }
    fs::write(dir.join("freedict-spa-eng.index"), index).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data.as_bytes()).unwrap();
    fs::write(dir.join("freedict-spa-eng.dict.dz"), gz.finish().unwrap()).unwrap();
}

/// A number in dictd's base64 digits.
fn base64(mut n: usize) -> String {
    const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut digits = vec![DIGITS[n % 64]];
    while n >= 64 {
        n /= 64;
        digits.push(DIGITS[n % 64]);
    }
    digits.iter().rev().map(|&d| d as char).collect()
}

/// Writes the English source and the Spanish document (filler, the
/// translation, filler) into `src` and `susp`; returns the characters of
/// the translation in the Spanish document.
fn write_corpus(src: &Path, susp: &Path) -> (u64, u64) {
    fs::write(src.join("source.txt"), ENGLISH.join(" ")).unwrap();
    let translation = SPANISH.join(" ");
    let text = format!("{SPANISH_FILLER}\n\n{translation}\n\n{SPANISH_FILLER}");
    let start = SPANISH_FILLER.chars().count() as u64 + 2;
    fs::write(susp.join("suspicious.txt"), text).unwrap();
    (start, start + translation.chars().count() as u64)
}

#[test]
fn a_translated_passage_is_reported_at_the_offsets_of_the_foreign_text() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let dictionaries = dir.path().join("dictionaries");
    write_dictionary(&dictionaries);
    let (start, end) = write_corpus(&src, &susp);

    let output = detect(&src, &susp, &out, &["--dictionary", path_str(&dictionaries), "--quiet"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let passages = report_passages(&out.join("suspicious.xml"));
    assert_eq!(passages.len(), 1, "one passage, granularity 1: {passages:?}");
    let (this_start, this_end, source, _, _) = &passages[0];
    assert_eq!(source, "source.txt");
    // Within the translation, and most of it, in the Spanish text's characters.
    assert!(*this_start >= start && *this_end <= end, "{passages:?} in {start}..{end}");
    assert!((this_end - this_start) * 10 >= (end - start) * 8, "{passages:?} covers {start}..{end}");

    let same_language = dir.path().join("same-language");
    let output = detect(
        &src,
        &susp,
        &same_language,
        &["--dictionary", path_str(&dictionaries), "--suspicious-language", "none"],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(report_passages(&same_language.join("suspicious.xml")).is_empty(), "no words in common");
}

/// The corpus of [`write_corpus`] in `dir`, with a dictionary whose
/// `.dict.dz` is not gzip: the source, suspicious, output and dictionary
/// directories.
fn corpus_with_a_broken_dictionary(dir: &Path) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let (src, susp, out) = detect_dirs(dir);
    let dictionaries = dir.join("dictionaries");
    write_dictionary(&dictionaries);
    write_corpus(&src, &susp);
    fs::write(dictionaries.join("freedict-spa-eng.dict.dz"), "not gzip").unwrap();
    (src, susp, out, dictionaries)
}

#[test]
fn a_broken_dictionary_stops_the_run_with_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out, dictionaries) = corpus_with_a_broken_dictionary(dir.path());

    let output = detect(&src, &susp, &out, &["--dictionary", path_str(&dictionaries), "--quiet"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("freedict-spa-eng.dict.dz: cannot load dictionary: not a gzip"), "{stderr}");
    assert!(!out.join("suspicious.xml").exists(), "no report is written");

    let missing = dir.path().join("missing");
    let output = detect(&src, &susp, &out, &["--dictionary", path_str(&missing)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("missing: no such dictionary directory"), "{stderr}");
}

#[test]
fn pan09_maps_no_document_and_reads_no_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    // A dictionary that best would fail to load: the paper's method never opens it.
    let (src, susp, out, dictionaries) = corpus_with_a_broken_dictionary(dir.path());

    let output = detect(&src, &susp, &out, &["--preset", "pan09", "--dictionary", path_str(&dictionaries), "--quiet"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(report_passages(&out.join("suspicious.xml")).is_empty(), "no words in common");
}

/// Spanish translations of the first eight English sentences that put
/// their words in another order (passives, fronted phrases), as
/// translations often do: no three content words in the source's order.
const SPANISH_REORDERED: [&str; 8] = [
    "El informe sobre las pesquerías de la región septentrional fue examinado por el comité.",
    "Sin consulta fueron reducidas las cuotas, se quejaron los pescadores.",
    "Sobre el declive de las poblaciones habrá una investigación nueva, prometió el ministro.",
    "En diez años la población de bacalao podría desplomarse, advirtieron los científicos.",
    "Para las familias que perdieron sus ingresos el gobierno propuso una compensación.",
    "Controles más estrictos sobre los arrastreros industriales exigieron varios miembros.",
    "Hasta la sesión de primavera aplazó el consejo la decisión.",
    "Una acción más rápida pidieron los grupos ecologistas, que acogieron la propuesta.",
];

/// Words of [`SPANISH_REORDERED`] left out of its dictionary: a real
/// dictionary misses some words of a translation and translates others by
/// another word than the source's, so that a third of the passage's words
/// meet none of the source's.
const UNTRANSLATED: [&str; 16] = [
    "examinar",
    "quejarse",
    "prometer",
    "advertir",
    "proponer",
    "perder",
    "exigir",
    "aplazar",
    "pedir",
    "acoger",
    "informe",
    "investigación",
    "bacalao",
    "ingresos",
    "arrastrero",
    "primavera",
];

#[test]
fn a_translation_that_reorders_words_is_found_in_full_search() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let dictionaries = dir.path().join("dictionaries");
    let words: Vec<(&str, &str)> = WORDS.into_iter().filter(|(spanish, _)| !UNTRANSLATED.contains(spanish)).collect();
    write_dictionary_of(&dictionaries, &words);
    // A long source, aligned where the two share words rather than whole.
    let source = format!("{}\n\n{}\n\n{}", prose(1, 1500), ENGLISH.join(" "), prose(2, 500));
    fs::write(src.join("source.txt"), source).unwrap();
    let translation = SPANISH_REORDERED.join(" ");
    fs::write(susp.join("suspicious.txt"), format!("{SPANISH_FILLER}\n\n{translation}\n\n{SPANISH_FILLER}")).unwrap();
    let start = SPANISH_FILLER.chars().count() as u64 + 2;
    let end = start + translation.chars().count() as u64;

    // The source's other words are made up: its language is given.
    let flags = ["--dictionary", path_str(&dictionaries), "--source-language", "en", "--quiet"];
    let output = detect(&src, &susp, &out, &flags);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let passages = report_passages(&out.join("suspicious.xml"));
    assert_eq!(passages.len(), 1, "one passage: {passages:?}");
    let (this_start, this_end, _, _, _) = &passages[0];
    assert!(*this_start >= start && *this_end <= end, "{passages:?} in {start}..{end}");
    assert!((this_end - this_start) * 10 >= (end - start) * 8, "{passages:?} covers {start}..{end}");
}
