//! The encoding of a plain-text document, told by its first bytes: UTF-16 (by
//! its byte-order mark or its NUL bytes), UTF-8, or binary data that is no
//! text at all.

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
/// this percentage of its bytes are in invalid UTF-8 sequences. Random bytes
/// have about 45 %; Latin-1 or Windows-1252 text a few percent (the densest in
/// diacritics, such as Czech in Windows-1250, about 10 %), UTF-8 text with a
/// few corrupt bytes less. Text in an 8-bit encoding of another script (such
/// as Windows-1251), which would decode to little but replacement characters,
/// is above it too.
const MAX_INVALID_UTF8_PERCENT: usize = 25;

/// ... or when more than this percentage of its bytes are C0 control bytes
/// other than tab, line feed, form feed and carriage return (NUL included):
/// random bytes have about 11 %, text none.
const MAX_CONTROL_PERCENT: usize = 3;

/// Probes shorter than this are not judged by those shares, which a few bytes
/// cannot tell (a Latin-1 "café" is 25 % invalid UTF-8): they are read as
/// UTF-8 with replacement characters.
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
///   text in exactly one byte order ([`plausible_utf16`]): Cyrillic, Greek or
///   CJK text, say;
/// * binary when more than 1 % of the probe's bytes are NUL; a few stray NULs
///   stay in the text as characters;
/// * binary when the probe is not valid UTF-8 and too much of it is invalid
///   UTF-8 or control bytes to be text in UTF-8 with a few bad bytes (such as
///   Latin-1): random bytes ([`garbled`]);
/// * UTF-8 otherwise (invalid sequences replaced). A probe that is valid UTF-8 with few NULs is never read
///   as UTF-16 without a byte-order mark.
pub fn sniff(bytes: &[u8]) -> Encoding {
    if let Some(endian) = byte_order_mark(bytes).or_else(|| nul_marked_utf16(bytes)) {
        return Encoding::Utf16(endian);
    }
    let probe = &bytes[..bytes.len().min(PROBE_BYTES)];
    let complete = probe.len() == bytes.len();
    let nuls = nul_count(probe);
    let nul_dense = nuls * NUL_DENSITY_DIVISOR > probe.len();
    let utf8 = is_utf8(probe, complete);
    if (nul_dense || !utf8)
        && let Some(endian) = plausible_utf16(probe, complete)
    {
        return Encoding::Utf16(endian);
    }
    if nul_dense {
        let plural = if nuls == 1 { "" } else { "s" };
        return Encoding::Binary(format!("{nuls} NUL byte{plural} in the first {} bytes, looks binary", probe.len()));
    }
    if !utf8 && let Some(reason) = garbled(probe, complete) {
        return Encoding::Binary(reason);
    }
    Encoding::Utf8
}

/// The byte order of a UTF-16 byte-order mark at the start of `bytes`.
fn byte_order_mark(bytes: &[u8]) -> Option<Endian> {
    match bytes {
        [0xFF, 0xFE, ..] => Some(Endian::Little),
        [0xFE, 0xFF, ..] => Some(Endian::Big),
        _ => None,
    }
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

/// Why `probe` (all of a file when `complete`), which is not valid UTF-8,
/// looks binary, if it does: at least [`MIN_JUDGED_BYTES`] long, and more than
/// [`MAX_INVALID_UTF8_PERCENT`] of its bytes invalid UTF-8 or more than
/// [`MAX_CONTROL_PERCENT`] control bytes.
fn garbled(probe: &[u8], complete: bool) -> Option<String> {
    if probe.len() < MIN_JUDGED_BYTES {
        return None;
    }
    let invalid = invalid_utf8_bytes(probe, complete);
    let controls = probe.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r')).count();
    let over = |count: usize, max_percent: usize| count * 100 > probe.len() * max_percent;
    (over(invalid, MAX_INVALID_UTF8_PERCENT) || over(controls, MAX_CONTROL_PERCENT)).then(|| {
        let percent = |count: usize| count * 100 / probe.len();
        format!(
            "{} % of the first {} bytes are invalid UTF-8 and {} % control bytes (nor UTF-16 text), \
             looks binary",
            percent(invalid),
            probe.len(),
            percent(controls)
        )
    })
}

/// The bytes of `bytes` in invalid UTF-8 sequences; when they are not the
/// `complete` file, a sequence that their end cuts short is not one.
fn invalid_utf8_bytes(mut bytes: &[u8], complete: bool) -> usize {
    let mut invalid = 0;
    loop {
        let Err(error) = std::str::from_utf8(bytes) else { return invalid };
        let rest = bytes.len() - error.valid_up_to();
        match error.error_len() {
            Some(len) => {
                invalid += len;
                bytes = &bytes[error.valid_up_to() + len..];
            }
            None => return invalid + if complete { rest } else { 0 },
        }
    }
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
        assert_eq!((invalid_utf8_bytes(probe, false), invalid_utf8_bytes(probe, true)), (0, 1));
    }

    #[test]
    fn random_bytes_are_binary_but_latin1_text_is_utf8() {
        let random: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        match sniff(&random) {
            Encoding::Binary(reason) => assert!(reason.ends_with("(nor UTF-16 text), looks binary"), "{reason}"),
            other => panic!("{other:?}"),
        }
        let latin1: Vec<u8> = "Příliš žluťoučký kůň úpěl ďábelské ódy. Café crème à la française.\n"
            .repeat(100)
            .chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect();
        assert_eq!(sniff(&latin1), Encoding::Utf8);
        // Too short to judge by shares: read with replacement characters.
        assert_eq!(sniff(b"\xe9t\xe9 \x01\x02"), Encoding::Utf8);
    }

    #[test]
    fn control_bytes_alone_make_invalid_utf8_binary() {
        let mut bytes = b"\x01\x02\x03\x04 some text ".repeat(20);
        bytes.push(0xFF);
        assert!(
            matches!(sniff(&bytes), Encoding::Binary(reason) if reason.starts_with("0 % of the first 301 bytes are invalid UTF-8 and 26 % control bytes"))
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
