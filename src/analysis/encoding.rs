//! The encoding of a plain-text document, told by its first bytes: UTF-16 (by
//! its byte-order mark or its NUL bytes), UTF-8, a legacy encoding guessed from
//! the bytes (windows-1250, KOI8-U, Shift_JIS…), or binary data that is no text
//! at all.
//!
//! The legacy encodings are those of the WHATWG Encoding Standard, decoded by
//! `encoding_rs`, and guessed by `chardetng`, a detector trained for exactly
//! this (the unlabelled legacy text of the Web, as Firefox reads it): no
//! hand-written tables of code pages or letter frequencies here.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};

/// Bytes at the start of a file examined to tell its encoding.
pub const PROBE_BYTES: usize = 64 * 1024;

/// A file whose probe holds more NUL bytes than one in this many is binary
/// (unless it is UTF-16). Web-crawled text often carries a few stray NULs; PAN's
/// 2013 corpus has 14 such files with real cases in them.
const NUL_DENSITY_DIVISOR: usize = 100;

/// Characters of the probe, decoded as UTF-16 without a byte-order mark, that
/// must be text for the file to be read so, in percent: characters of the
/// common block ([`Script::Common`]: ASCII, Latin, punctuation) and of the two
/// scripts most of the rest are in. ASCII or Latin-1 text misread as UTF-16
/// (the "Bush hid the facts" mistake) has nearly one in ten units outside them
/// (a letter followed by a space reads as a format character in U+2061..U+207A),
/// and random bytes have unpaired surrogates.
const MIN_UTF16_TEXT_PERCENT: usize = 97;

/// Characters of that probe that must be whitespace or punctuation, in
/// percent: real text in any script has spaces, line breaks or punctuation
/// (one in three to one in fifteen characters); misread ASCII has next to none.
const MIN_UTF16_SEPARATOR_PERCENT: usize = 1;

/// A probe that is neither valid UTF-8 nor UTF-16 is binary when more than
/// this percentage of its bytes are C0 control bytes other than tab, line
/// feed, form feed and carriage return (NUL included): random bytes have about
/// 11 %, text none.
const MAX_CONTROL_PERCENT: usize = 3;

/// ... or when, decoded in the legacy encoding guessed for it, more than this
/// percentage of its characters are replacement characters (bytes invalid in
/// that encoding) or control characters other than tab, line feed, form feed
/// and carriage return: random bytes have about 13 % (as windows-1252, the
/// guess for them), and far more in a multi-byte encoding; text next to none.
const MAX_UNDECODED_PERCENT: usize = 10;

/// Probes shorter than this are not judged binary by those shares, which a few
/// bytes cannot tell: they are read as text. Near this length the shares are
/// still uncertain: about one random file in 190 of 64 bytes, one in 3600 of
/// 128 and one in a million of 256 has too few control and undefined bytes and
/// is read as windows-1252 text (binomial odds, matched by sampling).
const MIN_JUDGED_BYTES: usize = 64;

/// Byte order of UTF-16 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    /// UTF-16LE.
    Little,
    /// UTF-16BE.
    Big,
}

/// How a plain-text document's bytes are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (invalid sequences, if any, replaced).
    Utf8,
    /// UTF-16 of this byte order.
    Utf16(Endian),
    /// A legacy encoding (windows-1250, KOI8-U, Shift_JIS…) guessed from the
    /// bytes of a probe that is not UTF-8 (`guess_legacy`): a guess, which
    /// the warning of the decoded file says.
    Legacy(&'static encoding_rs::Encoding),
    /// Not text; why, e.g. "812 NUL bytes in the first 65536 bytes, looks binary".
    Binary(String),
}

/// The encoding of a plain-text document whose bytes start with `bytes` (the
/// whole file, or at least its first [`PROBE_BYTES`]):
///
/// * UTF-16 when they start with a byte-order mark, or when NUL is nearly
///   every other byte of the probe and few of the rest (text mostly in one
///   script block, such as Latin);
/// * a probe that UTF-8 cannot read as text (more than 1 % NUL, or invalid
///   UTF-8) is UTF-16 without a byte-order mark when it is plausible UTF-16
///   text in exactly one byte order (`plausible_utf16`): Cyrillic, Greek or
///   CJK text, say;
/// * binary when more than 1 % of the probe's bytes are NUL; a few stray NULs
///   stay in the text as characters;
/// * UTF-8 when the probe is valid UTF-8. A probe that is valid UTF-8 with few
///   NULs is never read as UTF-16 without a byte-order mark;
/// * otherwise as `not_utf8` tells: binary, UTF-8 with a few corrupt bytes,
///   or a legacy encoding.
pub fn sniff(bytes: &[u8]) -> Encoding {
    if let Some(endian) = byte_order_mark(bytes).or_else(|| nul_marked_utf16(bytes)) {
        return Encoding::Utf16(endian);
    }
    let probe = &bytes[..bytes.len().min(PROBE_BYTES)];
    let complete = probe.len() == bytes.len();
    let dense = nul_dense(probe);
    let utf8 = is_utf8(probe, complete);
    if (dense.is_some() || !utf8)
        && let Some(endian) = plausible_utf16(probe, complete)
    {
        return Encoding::Utf16(endian);
    }
    if let Some(nuls) = dense {
        let plural = if nuls == 1 { "" } else { "s" };
        return Encoding::Binary(format!("{nuls} NUL byte{plural} in the first {} bytes, looks binary", probe.len()));
    }
    if utf8 { Encoding::Utf8 } else { not_utf8(probe, complete) }
}

/// The encoding of `probe` (all of a file when `complete`), which is neither
/// valid UTF-8 nor UTF-16 nor dense in NULs:
///
/// * binary when too many of its bytes are control bytes ([`control_dense`]);
/// * UTF-8 (invalid sequences replaced) when it is UTF-8 with a few corrupt
///   bytes ([`mostly_utf8`]);
/// * binary when, decoded in the legacy encoding guessed for it, too much of
///   it is undecodable ([`undecodable`]): random bytes;
/// * that legacy encoding otherwise ([`guess_legacy`]).
fn not_utf8(probe: &[u8], complete: bool) -> Encoding {
    if let Some(reason) = control_dense(probe) {
        return Encoding::Binary(reason);
    }
    if mostly_utf8(probe, complete) {
        return Encoding::Utf8;
    }
    let legacy = guess_legacy(probe, complete);
    match undecodable(probe, legacy) {
        Some(reason) => Encoding::Binary(reason),
        None => Encoding::Legacy(legacy),
    }
}

/// The byte order of a UTF-16 byte-order mark at the start of `bytes`.
fn byte_order_mark(bytes: &[u8]) -> Option<Endian> {
    match bytes {
        [0xFF, 0xFE, ..] => Some(Endian::Little),
        [0xFE, 0xFF, ..] => Some(Endian::Big),
        _ => None,
    }
}

/// The NUL bytes in `bytes` when there are more than a text has (one in
/// `NUL_DENSITY_DIVISOR`, 1 %): the rule that makes a probe binary (unless it is
/// UTF-16), which reading applies to each later block of a plain text too.
pub fn nul_dense(bytes: &[u8]) -> Option<usize> {
    let nuls = nul_count(bytes);
    (nuls * NUL_DENSITY_DIVISOR > bytes.len()).then_some(nuls)
}

/// NUL bytes in `bytes` (most texts have none, which one fast search tells).
fn nul_count(bytes: &[u8]) -> usize {
    if bytes.contains(&0) { bytes.iter().filter(|&&b| b == 0).count() } else { 0 }
}

/// The byte order when `bytes` look like UTF-16 without a byte-order mark by
/// their NUL bytes: at least 90 % of the probe's bytes at one parity and at
/// most 10 % at the other are NUL (UTF-16 text mostly below U+0100).
fn nul_marked_utf16(bytes: &[u8]) -> Option<Endian> {
    let probe = &bytes[..bytes.len().min(PROBE_BYTES) & !1];
    if probe.len() < 4 || !probe.contains(&0) {
        return None;
    }
    let units = probe.len() / 2;
    let nul_at = |offset: usize| probe.iter().skip(offset).step_by(2).filter(|&&b| b == 0).count();
    let (even, odd) = (nul_at(0), nul_at(1));
    let mostly = |n: usize| n * 10 >= units * 9;
    let rarely = |n: usize| n * 10 <= units;
    if mostly(odd) && rarely(even) {
        Some(Endian::Little)
    } else if mostly(even) && rarely(odd) {
        Some(Endian::Big)
    } else {
        None
    }
}

/// Whether `probe` is valid UTF-8; when it is not the `complete` file, a
/// sequence that its end cuts short counts as valid.
fn is_utf8(probe: &[u8], complete: bool) -> bool {
    match std::str::from_utf8(probe) {
        Ok(_) => true,
        Err(error) => !complete && error.error_len().is_none(),
    }
}

/// Why `probe` looks binary by its control bytes, if it does: at least
/// [`MIN_JUDGED_BYTES`] long and more than [`MAX_CONTROL_PERCENT`] of its
/// bytes C0 controls other than tab, line feed, form feed and carriage return.
fn control_dense(probe: &[u8]) -> Option<String> {
    if probe.len() < MIN_JUDGED_BYTES {
        return None;
    }
    let controls = probe.iter().filter(|&&b| b < 0x20 && !is_text_control(char::from(b))).count();
    (controls * 100 > probe.len() * MAX_CONTROL_PERCENT).then(|| {
        format!(
            "{} % of the first {} bytes are control bytes (nor UTF-8 or UTF-16 text), looks binary",
            controls * 100 / probe.len(),
            probe.len()
        )
    })
}

/// Whether `c` is one of the control characters of text: tab, line feed, form
/// feed, carriage return.
fn is_text_control(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r')
}

/// Whether `probe` (all of a file when `complete`), which is not valid UTF-8,
/// is UTF-8 with a few corrupt bytes: its valid non-ASCII characters outnumber
/// its invalid sequences (when it is not the `complete` file, a sequence its
/// end cuts short is not one). Text in a legacy encoding is nearly all invalid
/// sequences and has next to no valid ones.
fn mostly_utf8(probe: &[u8], complete: bool) -> bool {
    let (mut valid, mut invalid) = (0usize, 0usize);
    let mut chunks = probe.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        // Lead bytes: one per multi-byte character.
        valid += chunk.valid().bytes().filter(|&b| b >= 0xC0).count();
        let cut_short = !complete && chunks.peek().is_none() && is_cut_short(chunk.invalid());
        invalid += usize::from(!chunk.invalid().is_empty() && !cut_short);
    }
    valid > invalid
}

/// Whether `bytes` are the start of a UTF-8 sequence that ends too soon.
fn is_cut_short(bytes: &[u8]) -> bool {
    !bytes.is_empty() && std::str::from_utf8(bytes).is_err_and(|error| error.error_len().is_none())
}

/// The legacy encoding `chardetng` guesses for `probe` (all of a file when
/// `complete`): never UTF-8 (the probe is not) nor ISO-2022-JP (7-bit, and so
/// valid UTF-8), and without a top-level domain to hint at the language (as
/// for `.com`).
fn guess_legacy(probe: &[u8], complete: bool) -> &'static encoding_rs::Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(probe, complete);
    detector.guess(None, Utf8Detection::Deny)
}

/// Why `probe`, decoded in the legacy `encoding` guessed for it, looks binary,
/// if it does: at least [`MIN_JUDGED_BYTES`] long and more than
/// [`MAX_UNDECODED_PERCENT`] of its characters replacement characters or
/// control characters other than tab, line feed, form feed and carriage return.
fn undecodable(probe: &[u8], encoding: &'static encoding_rs::Encoding) -> Option<String> {
    if probe.len() < MIN_JUDGED_BYTES {
        return None;
    }
    let (text, _) = encoding.decode_without_bom_handling(probe);
    let undecoded = |c: &char| *c == char::REPLACEMENT_CHARACTER || c.is_control() && !is_text_control(*c);
    let (chars, undecoded) = (text.chars().count(), text.chars().filter(undecoded).count());
    (undecoded * 100 > chars * MAX_UNDECODED_PERCENT).then(|| {
        format!(
            "{} % of the first {} bytes' characters in {}, the likeliest legacy encoding, are replacement or \
             control characters (nor UTF-8 or UTF-16 text), looks binary",
            undecoded * 100 / chars,
            probe.len(),
            encoding.name()
        )
    })
}

/// The text of `bytes` decoded in the legacy `encoding` (a byte-order mark, if
/// any, decoded as the encoding's characters), and whether some bytes were
/// invalid in it (each sequence replaced by a replacement character).
pub fn decode_legacy(bytes: &[u8], encoding: &'static encoding_rs::Encoding) -> (String, bool) {
    let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
    (text.into_owned(), had_errors)
}

/// The byte order in which `probe` (all of a file when `complete`) is
/// plausible UTF-16 text ([`Utf16Profile::is_plausible`]); when it is in both,
/// the one in which more of it is text, then more of it ASCII (lowercase Greek
/// read in the wrong order is Hangul, but has no ASCII spaces); none when the
/// two tie.
fn plausible_utf16(probe: &[u8], complete: bool) -> Option<Endian> {
    let profile = |endian| Utf16Profile::of(probe, endian, complete).filter(Utf16Profile::is_plausible);
    match (profile(Endian::Little), profile(Endian::Big)) {
        (Some(little), Some(big)) => match little.score().cmp(&big.score()) {
            std::cmp::Ordering::Greater => Some(Endian::Little),
            std::cmp::Ordering::Less => Some(Endian::Big),
            std::cmp::Ordering::Equal => None,
        },
        (Some(_), None) => Some(Endian::Little),
        (None, Some(_)) => Some(Endian::Big),
        (None, None) => None,
    }
}

/// What a probe decoded as UTF-16 of one byte order holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Utf16Profile {
    /// Characters.
    chars: usize,
    /// Characters of the common block or of the two scripts most others are in
    /// ([`script_of`]; control characters other than tab, line feed, form feed
    /// and carriage return are in none).
    text: usize,
    /// ASCII characters.
    ascii: usize,
    /// Whitespace and punctuation ([`is_separator`]).
    separators: usize,
}

impl Utf16Profile {
    /// The profile of `probe` decoded as UTF-16 of byte order `endian`; `None`
    /// when it has an unpaired surrogate (but for a high one at its end when it
    /// is not the `complete` file).
    fn of(probe: &[u8], endian: Endian, complete: bool) -> Option<Self> {
        let mut units: Vec<u16> = code_units(probe, endian).collect();
        if !complete && units.last().is_some_and(|unit| (0xD800..0xDC00).contains(unit)) {
            units.pop();
        }
        let mut in_script = [0usize; Script::COUNT];
        let (mut chars, mut ascii, mut separators) = (0, 0, 0);
        for decoded in char::decode_utf16(units) {
            let c = decoded.ok()?;
            chars += 1;
            ascii += usize::from(c.is_ascii());
            separators += usize::from(is_separator(c));
            if let Some(script) = script_of(c) {
                in_script[script as usize] += 1;
            }
        }
        let common = in_script[Script::Common as usize];
        let scripts = &mut in_script[Script::Common as usize + 1..];
        scripts.sort_unstable_by(|a, b| b.cmp(a));
        Some(Utf16Profile { chars, text: common + scripts[0] + scripts[1], ascii, separators })
    }

    /// Whether it is plausibly text: at least [`MIN_UTF16_TEXT_PERCENT`] of
    /// its characters text, at least [`MIN_UTF16_SEPARATOR_PERCENT`]
    /// whitespace or punctuation.
    fn is_plausible(&self) -> bool {
        self.chars > 0
            && self.text * 100 >= self.chars * MIN_UTF16_TEXT_PERCENT
            && self.separators * 100 >= self.chars * MIN_UTF16_SEPARATOR_PERCENT
    }

    /// How strongly it reads as text: its text characters, then its ASCII ones.
    fn score(&self) -> (usize, usize) {
        (self.text, self.ascii)
    }
}

/// The scripts whose text BOM-less UTF-16 is recognised in: the writing
/// systems of the blocks of [`SCRIPT_BLOCKS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    /// Whitespace, ASCII, Latin (with its diacritics and IPA), general
    /// punctuation, currency signs, letterlike symbols and number forms: the
    /// characters of texts in any script.
    Common,
    Greek,
    Cyrillic,
    Armenian,
    Hebrew,
    Arabic,
    Devanagari,
    Bengali,
    Gurmukhi,
    Gujarati,
    Oriya,
    Tamil,
    Telugu,
    Kannada,
    Malayalam,
    Sinhala,
    Thai,
    Lao,
    Georgian,
    /// Hangul syllables and jamo.
    Hangul,
    /// Chinese and Japanese: Han ideographs, kana, bopomofo, CJK punctuation
    /// and full-width forms.
    Han,
}

impl Script {
    /// How many scripts there are.
    const COUNT: usize = Script::Han as usize + 1;
}

/// The blocks of [`Script`]s, by first and last character, in order.
const SCRIPT_BLOCKS: [(char, char, Script); 40] = {
    use Script::*;
    [
        ('\t', '\n', Common),
        ('\x0c', '\r', Common),
        (' ', '~', Common),
        ('\u{a0}', '\u{36f}', Common),
        ('\u{370}', '\u{3ff}', Greek),
        ('\u{400}', '\u{52f}', Cyrillic),
        ('\u{530}', '\u{58f}', Armenian),
        ('\u{590}', '\u{5ff}', Hebrew),
        ('\u{600}', '\u{6ff}', Arabic),
        ('\u{750}', '\u{77f}', Arabic),
        ('\u{900}', '\u{97f}', Devanagari),
        ('\u{980}', '\u{9ff}', Bengali),
        ('\u{a00}', '\u{a7f}', Gurmukhi),
        ('\u{a80}', '\u{aff}', Gujarati),
        ('\u{b00}', '\u{b7f}', Oriya),
        ('\u{b80}', '\u{bff}', Tamil),
        ('\u{c00}', '\u{c7f}', Telugu),
        ('\u{c80}', '\u{cff}', Kannada),
        ('\u{d00}', '\u{d7f}', Malayalam),
        ('\u{d80}', '\u{dff}', Sinhala),
        ('\u{e00}', '\u{e7f}', Thai),
        ('\u{e80}', '\u{eff}', Lao),
        ('\u{10a0}', '\u{10ff}', Georgian),
        ('\u{1100}', '\u{11ff}', Hangul),
        ('\u{1e00}', '\u{1eff}', Common),
        ('\u{1f00}', '\u{1fff}', Greek),
        ('\u{2000}', '\u{2027}', Common),
        ('\u{202f}', '\u{205e}', Common),
        ('\u{20a0}', '\u{20c0}', Common),
        ('\u{2100}', '\u{218f}', Common),
        ('\u{3000}', '\u{312f}', Han),
        ('\u{3130}', '\u{318f}', Hangul),
        ('\u{31f0}', '\u{31ff}', Han),
        ('\u{3400}', '\u{4dbf}', Han),
        ('\u{4e00}', '\u{9fff}', Han),
        ('\u{ac00}', '\u{d7af}', Hangul),
        ('\u{f900}', '\u{faff}', Han),
        ('\u{ff00}', '\u{ff9f}', Han),
        ('\u{ffa0}', '\u{ffdc}', Hangul),
        ('\u{ffe0}', '\u{ffee}', Han),
    ]
};

/// The script of `c` by its block ([`SCRIPT_BLOCKS`]); `None` for characters
/// in none (controls, symbols, emoji, scripts not listed, unassigned).
fn script_of(c: char) -> Option<Script> {
    let after = SCRIPT_BLOCKS.partition_point(|&(first, _, _)| first <= c);
    let &(_, last, script) = SCRIPT_BLOCKS[..after].last()?;
    (c <= last).then_some(script)
}

/// Whether `c` separates words or sentences: whitespace, ASCII punctuation,
/// general punctuation (dashes, quotes, ellipsis), CJK punctuation and
/// full-width ASCII punctuation.
fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || c.is_ascii_punctuation()
        || matches!(c, '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205e}' | '\u{3001}'..='\u{3011}')
        || matches!(c, '\u{ff01}'..='\u{ff0f}' | '\u{ff1a}'..='\u{ff20}' | '\u{ff5b}'..='\u{ff65}')
}

/// The text of UTF-16 `bytes` of byte order `endian` without a leading
/// byte-order mark, and how many code units were invalid: unpaired surrogates
/// and an odd last byte, each decoded as a replacement character.
pub fn decode_utf16(bytes: &[u8], endian: Endian) -> (String, usize) {
    let mut text = String::with_capacity(bytes.len() / 2);
    let mut invalid = 0usize;
    for decoded in char::decode_utf16(code_units(bytes, endian)) {
        text.push(decoded.unwrap_or_else(|_| {
            invalid += 1;
            char::REPLACEMENT_CHARACTER
        }));
    }
    if bytes.len() % 2 == 1 {
        invalid += 1;
        text.push(char::REPLACEMENT_CHARACTER);
    }
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        text = rest.to_string();
    }
    (text, invalid)
}

/// The UTF-16 code units of `bytes` in byte order `endian` (an odd last byte
/// left out).
fn code_units(bytes: &[u8], endian: Endian) -> impl Iterator<Item = u16> + '_ {
    bytes.chunks_exact(2).map(move |pair| match endian {
        Endian::Little => u16::from_le_bytes([pair[0], pair[1]]),
        Endian::Big => u16::from_be_bytes([pair[0], pair[1]]),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// `text` in UTF-16 of byte order `endian`, without a byte-order mark.
    fn utf16(text: &str, endian: Endian) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|unit| match endian {
                Endian::Little => unit.to_le_bytes(),
                Endian::Big => unit.to_be_bytes(),
            })
            .collect()
    }

    const RUSSIAN: &str = "Съешь же ещё этих мягких французских булок, да выпей чаю. В 2026 году — снова!\n";
    const GREEK: &str = "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία, είπε ο καθηγητής στις 3 Μαΐου.\n";
    const CHINESE: &str = "我能吞下玻璃而不伤身体。这是一个测试，用于检查编码是否正确。\n";
    const JAPANESE: &str = "いろはにほへと、ちりぬるを。色は匂へど散りぬるを、我が世誰ぞ常ならむ。\n";
    const KOREAN: &str = "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고.\n";

    #[test]
    fn utf16_without_a_mark_is_read_in_any_script_and_byte_order() {
        for text in [RUSSIAN, GREEK, CHINESE, JAPANESE, KOREAN, "Plain ASCII text.\n"] {
            for endian in [Endian::Little, Endian::Big] {
                let bytes = utf16(text, endian);
                assert_eq!(sniff(&bytes), Encoding::Utf16(endian), "{text} in {endian:?}");
                assert_eq!(decode_utf16(&bytes, endian), (text.to_string(), 0));
            }
        }
    }

    #[test]
    fn a_probe_cut_inside_a_character_is_judged_without_it() {
        // UTF-16: a surrogate pair whose high half ends the probe.
        let mut text = CHINESE.repeat(PROBE_BYTES / CHINESE.len() * 2);
        text.insert(text.char_indices().nth(PROBE_BYTES / 2 - 1).unwrap().0, '𝄞');
        assert_eq!(sniff(&utf16(&text, Endian::Little)), Encoding::Utf16(Endian::Little));
        // UTF-8: a two-byte character cut in half by the probe's end.
        let probe = &"ж".repeat(10).into_bytes()[..7];
        assert!(is_utf8(probe, false) && !is_utf8(probe, true));
        // ... is not an invalid sequence: two valid characters outnumber one.
        let probe = b"\xd0\xb6\xd0\xb6\xff\xd0";
        assert!(mostly_utf8(probe, false) && !mostly_utf8(probe, true));
        assert!(is_cut_short(b"\xe2\x80") && !is_cut_short(b"\xff") && !is_cut_short(b""));
    }

    /// Czech with many diacritics: windows-1250 has them all (š, ť and ž at
    /// other bytes than ISO-8859-2's).
    const CZECH: &str = "Příliš žluťoučký kůň úpěl ďábelské ódy. Tato diplomová práce se zabývá šířením \
        informací v síti a jejich ověřováním. V první kapitole shrnuji dosavadní výzkum, ve druhé popisuji \
        použité metody a ve třetí výsledky měření. Čtenář zde najde také přehled nejčastějších chyb, kterých \
        se studenti dopouštějí při psaní odborného textu, a doporučení, jak se jim vyhnout.\n";
    const FRENCH: &str = "L'été dernier, nous sommes allés à la plage près de Nîmes ; c'était très agréable, \
        même sous la pluie. Le garçon a mangé une crème brûlée au café, puis il a lu un roman français à \
        l'ombre d'un château. Où êtes-vous né ? À Besançon, répondit-elle, où l'hiver est long et la forêt \
        épaisse.\n";
    /// Russian in letters both windows-1251 and KOI8-R have (no dash).
    const RUSSIAN_PROSE: &str = "Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая \
        электрификация южных губерний даст мощный толчок подъёму сельского хозяйства. В этой работе \
        рассматриваются методы обнаружения заимствований в научных текстах на русском языке. Первая глава \
        посвящена обзору литературы, вторая описанию алгоритма, третья результатам экспериментов.\n";
    const JAPANESE_PROSE: &str = "いろはにほへと、ちりぬるを。色は匂へど散りぬるを、我が世誰ぞ常ならむ。\
        今日は良い天気ですね。本論文では、学術文書における剽窃の検出方法について述べる。第一章では先行研究を\
        概観し、第二章では提案手法を説明し、第三章では実験結果を報告する。\n";
    const CHINESE_PROSE: &str = "我能吞下玻璃而不伤身体。本文研究学术论文中抄袭检测的方法。第一章综述已有的\
        研究，第二章介绍所提出的算法，第三章报告实验结果。我们发现，这种方法在多种语言的文本上都能取得良好的效果。\n";
    const TRADITIONAL_CHINESE: &str = "我能吞下玻璃而不傷身體。本文研究學術論文中抄襲檢測的方法。第一章綜述已有的\
        研究，第二章介紹所提出的演算法，第三章報告實驗結果。我們發現，這種方法在多種語言的文本上都能取得良好的效果。\n";
    const KOREAN_PROSE: &str = "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고 특별한 기술은 \
        필요치 않다. 이 논문은 학술 문서에서 표절을 탐지하는 방법을 다룬다. 제1장에서는 선행 연구를 검토하고, \
        제2장에서는 제안하는 방법을 설명하며, 제3장에서는 실험 결과를 보고한다.\n";

    /// `text` in the legacy `encoding`, every character of it there.
    fn encoded(text: &str, encoding: &'static encoding_rs::Encoding) -> Vec<u8> {
        let (bytes, _, unmappable) = encoding.encode(text);
        assert!(!unmappable, "{} has every character of {text}", encoding.name());
        bytes.into_owned()
    }

    #[test]
    fn legacy_text_is_decoded_in_the_encoding_guessed_for_it() {
        use encoding_rs::{BIG5, EUC_JP, EUC_KR, GBK, ISO_8859_2, KOI8_R, KOI8_U, SHIFT_JIS};
        use encoding_rs::{WINDOWS_1250, WINDOWS_1251, WINDOWS_1252};
        // KOI8-R is guessed as KOI8-U, which decodes its letters alike.
        let cases = [
            (CZECH, WINDOWS_1250, WINDOWS_1250),
            (CZECH, ISO_8859_2, ISO_8859_2),
            (FRENCH, WINDOWS_1252, WINDOWS_1252),
            (RUSSIAN_PROSE, WINDOWS_1251, WINDOWS_1251),
            (RUSSIAN_PROSE, KOI8_R, KOI8_U),
            (JAPANESE_PROSE, SHIFT_JIS, SHIFT_JIS),
            (JAPANESE_PROSE, EUC_JP, EUC_JP),
            (CHINESE_PROSE, GBK, GBK),
            (TRADITIONAL_CHINESE, BIG5, BIG5),
            (KOREAN_PROSE, EUC_KR, EUC_KR),
        ];
        for (text, encoding, guessed) in cases {
            let bytes = encoded(text, encoding);
            assert!(bytes.len() >= 180, "{}: enough bytes for the detector to be sure", encoding.name());
            assert_eq!(sniff(&bytes), Encoding::Legacy(guessed), "{}", encoding.name());
            assert_eq!(decode_legacy(&bytes, guessed), (text.to_string(), false), "{}", encoding.name());
        }
    }

    #[test]
    fn latin1_text_is_decoded_as_windows_1252_whatever_its_length() {
        let latin1: Vec<u8> = FRENCH.chars().map(|c| u8::try_from(u32::from(c)).unwrap()).collect();
        assert_eq!(sniff(&latin1), Encoding::Legacy(encoding_rs::WINDOWS_1252));
        assert_eq!(decode_legacy(&latin1, encoding_rs::WINDOWS_1252).0, FRENCH);
        // Too short to be judged binary, not too short to be guessed.
        assert_eq!(sniff(b"caf\xe9 au lait"), Encoding::Legacy(encoding_rs::WINDOWS_1252));
        assert_eq!(sniff(b"\xe9t\xe9 \x01\x02"), Encoding::Legacy(encoding_rs::WINDOWS_1252));
    }

    #[test]
    fn utf8_with_a_few_corrupt_bytes_stays_utf8() {
        let mut bytes = CZECH.as_bytes().to_vec();
        bytes.insert(CZECH.find(" kůň").unwrap(), 0xFF);
        bytes.insert(CZECH.find(" Tato").unwrap(), 0x9A); // windows-1250's š
        assert_eq!(sniff(&bytes), Encoding::Utf8);
        let lossy = String::from_utf8_lossy(&bytes);
        assert_eq!(lossy.matches(char::REPLACEMENT_CHARACTER).count(), 2);
        assert_eq!(lossy.replace(char::REPLACEMENT_CHARACTER, ""), CZECH);
        // Stray windows-1252 quotes in ASCII text: windows-1252, not replaced.
        let quoted = b"The staff wouldn\x92t need it: \x93prior\x94 knowledge is enough for Google\x92s PageRank.";
        assert_eq!(sniff(quoted), Encoding::Legacy(encoding_rs::WINDOWS_1252));
    }

    /// `len` random bytes from a generator seeded with `seed`.
    fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..len).map(|_| rng.random::<u8>()).collect()
    }

    /// Asserts that random `bytes` are binary, and still are with their NULs
    /// made other control bytes, by a rule for bytes neither UTF-8 nor UTF-16.
    fn assert_binary(mut bytes: Vec<u8>, what: &str) {
        if byte_order_mark(&bytes).is_some() {
            bytes[0] = b'x';
        }
        assert!(matches!(sniff(&bytes), Encoding::Binary(_)), "{what}: {:?}", sniff(&bytes));
        bytes.iter_mut().filter(|b| **b == 0).for_each(|b| *b = 1);
        match sniff(&bytes) {
            Encoding::Binary(reason) => {
                assert!(reason.ends_with("(nor UTF-8 or UTF-16 text), looks binary"), "{what}: {reason}")
            }
            other => panic!("{what}: {other:?}"),
        }
    }

    #[test]
    fn random_bytes_are_binary_whatever_their_seed_and_size() {
        for seed in 0..16 {
            for len in [64, 100, 256, 1000, 4096, 65_536, 200_000] {
                assert_binary(random_bytes(seed, len), &format!("seed {seed}, {len} bytes"));
            }
        }
        let weyl: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        assert_binary(weyl, "Weyl sequence");
    }

    /// Unseeded, so only at lengths where a random file passes for text less
    /// than once in a million ([`MIN_JUDGED_BYTES`]); shorter ones are tested
    /// with fixed seeds above.
    #[test]
    fn bytes_from_dev_urandom_are_binary() {
        use std::io::Read;
        let mut urandom = std::fs::File::open("/dev/urandom").unwrap();
        for len in [256, 1000, 4096, 65_536, 100_000] {
            for round in 0..4 {
                let mut bytes = vec![0; len];
                urandom.read_exact(&mut bytes).unwrap();
                let what = format!("{len} bytes, round {round}: {:?}", &bytes[..16]);
                assert_binary(bytes, &what);
            }
        }
    }

    #[test]
    fn undecodable_legacy_text_is_binary() {
        // Shift_JIS lead bytes followed by bytes no character ends with.
        let bytes = b"\x81\x7f\x85 ".repeat(40);
        assert_eq!(control_dense(&bytes), None);
        let reason = undecodable(&bytes, encoding_rs::SHIFT_JIS).unwrap();
        assert!(reason.contains(" % of the first 160 bytes' characters in Shift_JIS, the likeliest"), "{reason}");
        assert_eq!(undecodable(&encoded(JAPANESE_PROSE, encoding_rs::SHIFT_JIS), encoding_rs::SHIFT_JIS), None);
        assert_eq!(undecodable(&bytes[..MIN_JUDGED_BYTES - 1], encoding_rs::SHIFT_JIS), None, "too short to judge");
    }

    #[test]
    fn control_bytes_alone_make_invalid_utf8_binary() {
        let mut bytes = b"\x01\x02\x03\x04 some text ".repeat(20);
        bytes.push(0xFF);
        assert!(
            matches!(sniff(&bytes), Encoding::Binary(reason) if reason == "26 % of the first 301 bytes are control bytes (nor UTF-8 or UTF-16 text), looks binary")
        );
        bytes.pop();
        assert_eq!(sniff(&bytes), Encoding::Utf8, "valid UTF-8 is text, controls and all");
    }

    #[test]
    fn scripts_are_told_by_their_blocks() {
        assert_eq!(script_of('a'), Some(Script::Common));
        assert_eq!(script_of('ж'), Some(Script::Cyrillic));
        assert_eq!(script_of('中'), Some(Script::Han));
        assert_eq!(script_of('。'), Some(Script::Han));
        assert_eq!(script_of('한'), Some(Script::Hangul));
        assert_eq!(script_of('\u{1}'), None);
        assert_eq!(script_of('\u{2061}'), None);
        assert!(SCRIPT_BLOCKS.windows(2).all(|pair| pair[0].1 < pair[1].0));
    }

    /// Words of `letters` (a regex class) joined by spaces and punctuation.
    fn prose(letters: &'static str) -> impl Strategy<Value = String> {
        let word = proptest::string::string_regex(&format!("{letters}{{1,9}}")).unwrap();
        let separator = prop::sample::select(vec![" ", " ", " ", ", ", ". ", "\n", "，", "。"]);
        prop::collection::vec((word, separator), 12..300)
            .prop_map(|words| words.into_iter().map(|(word, separator)| word + separator).collect())
    }

    proptest! {
        #[test]
        fn valid_utf8_with_few_nuls_is_always_utf8(text in any::<String>()) {
            let text = text.replace('\0', " ");
            prop_assert_eq!(sniff(text.as_bytes()), Encoding::Utf8);
        }

        #[test]
        fn prose_in_utf16_without_a_mark_is_read_in_its_byte_order(
            text in prop_oneof![prose("[а-яё]"), prose("[А-Яа-я]"), prose("[α-ω]"), prose("[一-龥]"), prose("[ぁ-ん]"), prose("[가-힣]"), prose("[a-z]")],
            little in any::<bool>(),
        ) {
            let endian = if little { Endian::Little } else { Endian::Big };
            prop_assert_eq!(sniff(&utf16(&text, endian)), Encoding::Utf16(endian));
        }

        #[test]
        fn latin1_prose_is_never_utf16(text in prose("[a-zA-Zäöüßéèàç]")) {
            let bytes: Vec<u8> = text.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect();
            prop_assert!(!matches!(sniff(&bytes), Encoding::Utf16(_)));
        }

        #[test]
        fn random_bytes_are_never_text(bytes in prop::collection::vec(any::<u8>(), 256..4096)) {
            prop_assume!(byte_order_mark(&bytes).is_none());
            prop_assert!(matches!(sniff(&bytes), Encoding::Binary(_)));
        }
    }
}
