//! Real-world text files: stray NUL bytes, UTF-16 and legacy encodings
//! (windows-1250, KOI8-R, Shift_JIS…) are read as text, with offsets in
//! characters of the decoded text; random bytes are binary.

use std::fs;
use std::path::Path;

use pan_detect::analysis::span::{CharRange, char_slice};

use crate::{detect, detect_dirs, path_str, prose, read_report, run};

/// Czech prose with many diacritics, several sentences.
const CZECH: &str = "Příliš žluťoučký kůň úpěl ďábelské ódy. Tato diplomová práce se zabývá šířením informací \
    v síti a jejich ověřováním. V první kapitole shrnuji dosavadní výzkum, ve druhé popisuji použité metody a ve \
    třetí výsledky měření. Čtenář zde najde také přehled nejčastějších chyb, kterých se studenti dopouštějí při \
    psaní odborného textu, a doporučení, jak se jim vyhnout. Řeřicha, šťovík a žížala jsou slova, která cizinci \
    vyslovují těžko.\n";

/// `text` in the legacy `encoding`, every character of it there.
fn encoded(text: &str, encoding: &'static encoding_rs::Encoding) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{} has every character of the text", encoding.name());
    bytes.into_owned()
}

/// What `pan-detect text` writes of the file `name` holding `bytes`: the text,
/// or `None` when it skipped the file; and its standard error.
fn text_of(dir: &Path, name: &str, bytes: &[u8]) -> (Option<String>, String) {
    let (file, out) = (dir.join(name), dir.join("texts"));
    fs::write(&file, bytes).unwrap();
    let output = run(&["text", "--quiet", "--out", path_str(&out), path_str(&file)]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success() && !stderr.contains("panicked"), "{stderr}");
    (fs::read_to_string(out.join(name)).ok(), stderr)
}

#[test]
fn text_decodes_legacy_encodings_to_the_original_and_skips_random_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let russian = "Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация южных губерний \
        даст мощный толчок подъёму сельского хозяйства. В этой работе рассматриваются методы обнаружения \
        заимствований в научных текстах на русском языке.\n";
    let japanese = "本論文では、学術文書における剽窃の検出方法について述べる。第一章では先行研究を概観し、\
        第二章では提案手法を説明し、第三章では実験結果を報告する。\n";
    let cases = [
        ("czech.txt", CZECH, encoding_rs::WINDOWS_1250, "windows-1250"),
        ("russian.txt", russian, encoding_rs::KOI8_R, "KOI8-U"),
        ("japanese.txt", japanese, encoding_rs::SHIFT_JIS, "Shift_JIS"),
    ];
    for (name, text, encoding, guessed) in cases {
        let (decoded, stderr) = text_of(dir.path(), name, &encoded(text, encoding));
        assert_eq!(decoded.as_deref(), Some(text), "{name}");
        let warning = format!("{name}: not UTF-8: decoded as {guessed} (guessed from its bytes)\n");
        assert!(stderr.contains(&warning), "{name}: {stderr}");
    }
    // UTF-8 with two corrupt bytes stays UTF-8, the two replaced.
    let corrupt = CZECH.replacen(" kůň", "\u{1} kůň", 1).replacen(" Tato", "\u{1} Tato", 1);
    let corrupt: Vec<u8> = corrupt.bytes().map(|b| if b == 1 { 0xFF } else { b }).collect();
    let (decoded, stderr) = text_of(dir.path(), "corrupt.txt", &corrupt);
    let decoded = decoded.unwrap();
    assert_eq!(decoded.matches('\u{fffd}').count(), 2, "{stderr}");
    assert_eq!(decoded.replace('\u{fffd}', ""), CZECH);
    let at = CZECH.find(" kůň").unwrap();
    let warning = format!("corrupt.txt: not valid UTF-8 at byte {at}; decoded with replacement characters");
    assert!(stderr.contains(&warning), "{stderr}");
    let (decoded, stderr) = text_of(dir.path(), "random.txt", &random_bytes(4096));
    assert!(
        decoded.is_none() && stderr.contains("random.txt: ") && stderr.contains("looks binary; skipped"),
        "{stderr}"
    );
}

/// `len` random bytes (seeded): NULs and controls among them.
fn random_bytes(len: usize) -> Vec<u8> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    (0..len).map(|_| rng.random::<u8>()).collect()
}

#[test]
fn a_windows_1250_copy_of_a_utf8_source_is_found_at_character_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let passage = prose(7, 80);
    // The source, UTF-8: its diacritics make byte offsets differ from characters.
    let source_prefix = prose(1, 60);
    let source = format!("{source_prefix}{passage}{}", prose(2, 40));
    fs::write(src.join("a.txt"), &source).unwrap();
    // The suspicious document: the same passage, in windows-1250, after Czech
    // prose (which tells windows-1250 from ISO-8859-2) that the source lacks.
    let suspicious_prefix = format!("{}{CZECH}", prose(3, 50));
    let text = format!("{suspicious_prefix}{passage}{}", prose(4, 30));
    fs::write(susp.join("b.txt"), encoded(&text, encoding_rs::WINDOWS_1250)).unwrap();
    for preset in ["pan09", "best"] {
        let output = detect(&src, &susp, &out, &["--preset", preset, "--quiet"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && !stderr.contains("skipped"), "{preset}: {stderr}");
        assert!(stderr.contains("b.txt: not UTF-8: decoded as windows-1250 (guessed from its bytes)"), "{stderr}");
        let report = read_report(&out.join("b.xml"));
        assert_eq!(report.features.len(), 1, "{preset}: {:?}", report.features);
        let (this, source_range) =
            (report.features[0].this_range().unwrap(), report.features[0].source_range().unwrap());
        // The passage's characters exactly (without its last space), in the
        // decoded suspicious text and in the source.
        let slice = |text: &str, (start, end): (u64, u64)| {
            char_slice(text, CharRange::new(start as u32, end as u32)).unwrap().to_string()
        };
        assert_eq!(slice(&text, this), passage.trim_end(), "{preset}: {this:?}");
        assert_eq!(slice(&source, source_range), passage.trim_end(), "{preset}: {source_range:?}");
        let chars = |s: &str| s.chars().count() as u64;
        assert_eq!((this.0, source_range.0), (chars(&suspicious_prefix), chars(&source_prefix)), "{preset}");
    }
}

#[test]
fn a_copy_between_a_file_with_stray_nuls_and_a_utf16_file_is_found_at_character_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = detect_dirs(dir.path());
    let passage = prose(7, 80);
    // The source: web-crawl debris with two NUL bytes before the passage.
    let source_prefix = format!("{}\0 more text \0", prose(1, 60));
    fs::write(src.join("a.txt"), format!("{source_prefix}{passage}{}", prose(2, 40))).unwrap();
    // The suspicious document: UTF-16 little endian with a byte-order mark.
    let suspicious_prefix = prose(3, 50);
    let text = format!("{suspicious_prefix}{passage}{}", prose(4, 30));
    let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
    fs::write(susp.join("b.txt"), utf16).unwrap();
    for preset in ["pan09", "best"] {
        let output = detect(&src, &susp, &out, &["--preset", preset, "--quiet"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && !stderr.contains("skipped"), "{preset}: {stderr}");
        let report = read_report(&out.join("b.xml"));
        assert_eq!(report.features.len(), 1, "{preset}: {:?}", report.features);
        let (this, source) = (report.features[0].this_range().unwrap(), report.features[0].source_range().unwrap());
        let chars = |s: &str| s.chars().count() as u64;
        // best's passages run from sentence to sentence (11 words here).
        let starts_near = |found: u64, expected: u64| found.abs_diff(expected) <= 100;
        assert!(starts_near(this.0, chars(&suspicious_prefix)), "{preset}: {this:?}");
        assert!(starts_near(source.0, chars(&source_prefix)), "{preset}: {source:?}");
        assert!(this.1 <= chars(&text), "{preset}: ends inside the decoded text, without the BOM");
    }
}
