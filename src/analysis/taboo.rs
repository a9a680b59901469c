//! Taboo texts, the dupi design's taboo list: texts whose passages are never
//! reported, such as a thesis template, an assignment or a licence that every
//! document quotes (the PAN'10 winner left out prefaces and imprints this way).
//!
//! A taboo text is chunked as the documents are. Its chunks are left out of the
//! index, so they join no document pair, and the characters of a suspicious
//! document that its taboo chunks cover are blanked before alignment, so that a
//! passage aligned nearby cannot take them in.

use std::path::{Path, PathBuf};

use crate::analysis::read::{DocumentFile, Loaded, TextReader};
use crate::analysis::span::CharRange;
use crate::error::Error;

/// The taboo texts, read and decoded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TabooTexts {
    texts: Vec<String>,
}

impl TabooTexts {
    /// Reads the files at `paths` as documents are read (UTF-8, UTF-16 or legacy
    /// text, or PDF, DOCX, ODT and HTML extracted); a file that cannot be read, is
    /// binary or cannot be extracted is an error naming it.
    pub fn load(paths: &[PathBuf]) -> Result<Self, Error> {
        let texts = paths.iter().map(|path| load_one(path)).collect::<Result<_, _>>()?;
        Ok(TabooTexts { texts })
    }

    /// The decoded texts.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.texts.iter().map(String::as_str)
    }
}

fn load_one(path: &Path) -> Result<String, Error> {
    let taboo_error = |reason: String| Error::Taboo { path: path.to_path_buf(), reason };
    let bytes = std::fs::metadata(path).map_err(|e| taboo_error(e.to_string()))?.len();
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    match TextReader::default().load(&DocumentFile { name, path: path.to_path_buf(), bytes }) {
        Loaded::Text(text, _) if text.trim().is_empty() => {
            Err(taboo_error("holds no text, so it would leave nothing out".to_string()))
        }
        Loaded::Text(text, _) => Ok(text),
        Loaded::Skipped(warning) => Err(taboo_error(warning.message.trim_end_matches("; skipped").to_string())),
    }
}

/// The chunk hashes of the taboo texts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TabooChunks {
    /// Sorted, without repeats.
    hashes: Vec<u64>,
}

impl TabooChunks {
    /// The set of `hashes`.
    pub fn new(mut hashes: Vec<u64>) -> Self {
        hashes.sort_unstable();
        hashes.dedup();
        TabooChunks { hashes }
    }

    /// True when there are no taboo chunks.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The hashes, sorted.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// True when `hash` is a taboo chunk's.
    pub fn contains(&self, hash: u64) -> bool {
        self.hashes.binary_search(&hash).is_ok()
    }

    /// The character regions a document's taboo chunks cover (chunk `i` has
    /// hash `hashes[i]` and range `ranges[i]`), merged where they overlap or
    /// touch, in text order.
    pub fn regions(&self, hashes: &[u64], ranges: &[CharRange]) -> Vec<CharRange> {
        if self.is_empty() {
            return Vec::new();
        }
        let mut covered: Vec<CharRange> =
            hashes.iter().zip(ranges).filter(|(h, _)| self.contains(**h)).map(|(_, &r)| r).collect();
        covered.sort_unstable_by_key(|r| (r.start, r.end));
        let mut merged: Vec<CharRange> = Vec::with_capacity(covered.len());
        for range in covered {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        merged
    }
}

/// Replaces every character of `text` inside `regions` (sorted, disjoint) by a
/// space, one for one, so that character offsets stay as they were.
pub fn blank(text: &mut String, regions: &[CharRange]) {
    if regions.is_empty() {
        return;
    }
    let mut blanked = String::with_capacity(text.len());
    let mut region = regions.iter().peekable();
    for (offset, c) in (0u32..).zip(text.chars()) {
        while region.next_if(|r| r.end <= offset).is_some() {}
        let inside = region.peek().is_some_and(|r| r.start <= offset);
        blanked.push(if inside { ' ' } else { c });
    }
    *text = blanked;
}

/// Characters in `regions`.
pub fn covered_chars(regions: &[CharRange]) -> u64 {
    regions.iter().map(|r| u64::from(r.len())).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_merge_overlapping_and_touching_chunks() {
        let taboo = TabooChunks::new(vec![7, 3, 7]);
        assert_eq!(taboo.hashes(), [3, 7]);
        let hashes = [3, 1, 7, 7, 3];
        let ranges = [(0, 10), (5, 15), (8, 20), (20, 25), (40, 50)].map(|(a, b)| CharRange::new(a, b));
        assert_eq!(taboo.regions(&hashes, &ranges), [CharRange::new(0, 25), CharRange::new(40, 50)]);
        assert!(TabooChunks::default().regions(&hashes, &ranges).is_empty());
    }

    #[test]
    fn blanking_keeps_character_offsets() {
        let mut text = "Žluťoučký kůň úpěl ďábelské ódy".to_string();
        let chars = text.chars().count();
        blank(&mut text, &[CharRange::new(0, 9), CharRange::new(14, 18)]);
        assert_eq!(text, "          kůň      ďábelské ódy");
        assert_eq!(text.chars().count(), chars);
        assert_eq!(covered_chars(&[CharRange::new(0, 9), CharRange::new(14, 18)]), 13);
    }

    #[test]
    fn a_binary_missing_or_empty_taboo_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("template.txt");
        std::fs::write(&binary, [0u8; 64]).unwrap();
        let error = TabooTexts::load(std::slice::from_ref(&binary)).unwrap_err().to_string();
        assert!(error.starts_with(&binary.display().to_string()) && error.contains("binary"), "{error}");
        let missing = dir.path().join("missing.txt");
        let error = TabooTexts::load(std::slice::from_ref(&missing)).unwrap_err().to_string();
        assert!(error.starts_with(&missing.display().to_string()), "{error}");
        for blank in ["", " \n\t\n"] {
            let empty = dir.path().join("empty.txt");
            std::fs::write(&empty, blank).unwrap();
            let error = TabooTexts::load(std::slice::from_ref(&empty)).unwrap_err().to_string();
            assert!(error.starts_with(&empty.display().to_string()) && error.contains("no text"), "{error:?}");
        }
        std::fs::write(&binary, "Declaration: I wrote this thesis myself.").unwrap();
        let loaded = TabooTexts::load(&[binary]).unwrap();
        assert_eq!(loaded.texts().collect::<Vec<_>>(), ["Declaration: I wrote this thesis myself."]);
    }
}
