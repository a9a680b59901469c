//! The encoding of a plain-text document, told by its first bytes: UTF-16 (by
//! its byte-order mark or its NUL bytes), UTF-8, or binary data that is no
//! text at all.

/// Bytes at the start of a file examined to tell its encoding.
pub const PROBE_BYTES: usize = 64 * 1024;

/// A file whose probe holds more NUL bytes than one in this many is binary
/// (unless it is UTF-16). Web-crawled text often carries a few stray NULs; PAN's
/// 2013 corpus has 14 such files with real cases in them.
const NUL_DENSITY_DIVISOR: usize = 100;

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
/// * binary when more than 1 % of the probe's bytes are NUL; a few stray NULs
///   stay in the text as characters;
/// * UTF-8 otherwise.
pub fn sniff(bytes: &[u8]) -> Encoding {
    if let Some(endian) = byte_order_mark(bytes).or_else(|| nul_marked_utf16(bytes)) {
        return Encoding::Utf16(endian);
    }
    let probe = &bytes[..bytes.len().min(PROBE_BYTES)];
    let nuls = nul_count(probe);
    if nuls * NUL_DENSITY_DIVISOR > probe.len() {
        let plural = if nuls == 1 { "" } else { "s" };
        return Encoding::Binary(format!("{nuls} NUL byte{plural} in the first {} bytes, looks binary", probe.len()));
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
