//! The document pairs of PAN's text-alignment protocol (PAN 2012-2015): a
//! `pairs` file lists one `SUSPICIOUS SOURCE` pair of file names per line, and
//! a system aligns exactly those pairs. `detect --pairs` aligns them;
//! `eval --pairs` scores only them.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use crate::analysis::read;

/// A problem with a pairs file.
#[derive(Debug, thiserror::Error)]
pub enum PairsError {
    /// The file could not be read.
    #[error("{}: cannot read pairs file: {source}", path.display())]
    Io {
        /// The pairs file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A line is not two file names.
    #[error("{}:{line}: expected 'SUSPICIOUS SOURCE', found {text:?}", path.display())]
    BadLine {
        /// The pairs file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// The file lists no pair: aligning or scoring its pairs would do nothing,
    /// whatever the documents (an empty or truncated file, a wrong path).
    #[error("{}: no pair listed (expected a 'SUSPICIOUS SOURCE' pair per line)", path.display())]
    NoPairs {
        /// The pairs file.
        path: PathBuf,
    },
}

/// A set of (suspicious document, source document) pairs, by file name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentPairs {
    sources_by_suspicious: BTreeMap<String, BTreeSet<String>>,
}

impl DocumentPairs {
    /// Reads a pairs file of at most [`read::MAX_INPUT_BYTES`]; blank lines
    /// are ignored, a pair listed twice counts once.
    pub fn read(path: &Path) -> Result<DocumentPairs, PairsError> {
        let text =
            read::read_input_to_string(path).map_err(|source| PairsError::Io { path: path.to_path_buf(), source })?;
        DocumentPairs::parse(&text, path)
    }

    /// Parses the text of a pairs file, which must list a pair; `path` names
    /// it in errors. A UTF-8 byte-order mark at its start (which Windows
    /// editors write) is no part of the first name.
    pub fn parse(text: &str, path: &Path) -> Result<DocumentPairs, PairsError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut pairs = DocumentPairs::default();
        for (index, line) in text.lines().enumerate() {
            match line.split_whitespace().collect::<Vec<_>>()[..] {
                [] => {}
                [suspicious, source] => pairs.insert(suspicious, source),
                _ => {
                    let text = line.to_string();
                    return Err(PairsError::BadLine { path: path.to_path_buf(), line: index + 1, text });
                }
            }
        }
        if pairs.is_empty() {
            return Err(PairsError::NoPairs { path: path.to_path_buf() });
        }
        Ok(pairs)
    }

    /// Adds one pair.
    pub fn insert(&mut self, suspicious: &str, source: &str) {
        self.sources_by_suspicious.entry(suspicious.to_string()).or_default().insert(source.to_string());
    }

    /// Adds every pair of `other`.
    pub fn extend(&mut self, other: &DocumentPairs) {
        for (suspicious, source) in other.iter() {
            self.insert(suspicious, source);
        }
    }

    /// True when the pair is listed.
    pub fn contains(&self, suspicious: &str, source: &str) -> bool {
        self.sources_by_suspicious.get(suspicious).is_some_and(|sources| sources.contains(source))
    }

    /// The sources listed with `suspicious`, by name.
    pub fn sources_of(&self, suspicious: &str) -> impl Iterator<Item = &str> {
        self.sources_by_suspicious.get(suspicious).into_iter().flatten().map(String::as_str)
    }

    /// Every source document named, once each.
    pub fn source_names(&self) -> BTreeSet<&str> {
        self.sources_by_suspicious.values().flatten().map(String::as_str).collect()
    }

    /// Every pair, ordered by suspicious then source document.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.sources_by_suspicious
            .iter()
            .flat_map(|(suspicious, sources)| sources.iter().map(move |source| (suspicious.as_str(), source.as_str())))
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.sources_by_suspicious.values().map(BTreeSet::len).sum()
    }

    /// True when no pair is listed.
    pub fn is_empty(&self) -> bool {
        self.sources_by_suspicious.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_no_part_of_the_first_name() {
        let pairs = DocumentPairs::parse("\u{feff}susp.txt src.txt\r\n", Path::new("pairs")).unwrap();
        assert_eq!(pairs.iter().collect::<Vec<_>>(), [("susp.txt", "src.txt")]);
    }

    #[test]
    fn parses_pairs_ignoring_blank_lines_and_repeats() {
        let text = "susp-2.txt src-1.txt\n\nsusp-1.txt src-2.txt\nsusp-1.txt  src-1.txt\nsusp-1.txt src-2.txt\n";
        let pairs = DocumentPairs::parse(text, Path::new("pairs")).unwrap();
        assert_eq!(pairs.len(), 3);
        assert!(pairs.contains("susp-1.txt", "src-2.txt") && !pairs.contains("susp-2.txt", "src-2.txt"));
        assert_eq!(pairs.sources_of("susp-1.txt").collect::<Vec<_>>(), ["src-1.txt", "src-2.txt"]);
        assert_eq!(pairs.sources_of("susp-3.txt").count(), 0);
        assert!(pairs.sources_of("susp-2.txt").next().is_some() && pairs.sources_of("src-1.txt").next().is_none());
        assert_eq!(pairs.source_names().into_iter().collect::<Vec<_>>(), ["src-1.txt", "src-2.txt"]);
        let listed: Vec<_> = pairs.iter().collect();
        assert_eq!(listed, [("susp-1.txt", "src-1.txt"), ("susp-1.txt", "src-2.txt"), ("susp-2.txt", "src-1.txt")]);
    }

    #[test]
    fn a_file_without_a_pair_is_refused() {
        for text in ["", "\n  \n\t\n"] {
            let error = DocumentPairs::parse(text, Path::new("pairs-x")).unwrap_err();
            assert_eq!(error.to_string(), "pairs-x: no pair listed (expected a 'SUSPICIOUS SOURCE' pair per line)");
        }
    }

    #[test]
    fn a_bad_line_names_the_file_and_line() {
        let error = DocumentPairs::parse("a.txt b.txt\nonly-one\n", Path::new("dir/pairs")).unwrap_err();
        assert_eq!(error.to_string(), "dir/pairs:2: expected 'SUSPICIOUS SOURCE', found \"only-one\"");
        let missing = DocumentPairs::read(Path::new("/nonexistent/pairs")).unwrap_err();
        assert!(missing.to_string().starts_with("/nonexistent/pairs: cannot read pairs file: "), "{missing}");
    }

    #[test]
    fn extend_makes_the_union() {
        let mut a = DocumentPairs::parse("s1 a\n", Path::new("p")).unwrap();
        a.extend(&DocumentPairs::parse("s1 b\ns2 a\ns1 a\n", Path::new("q")).unwrap());
        assert_eq!(a.len(), 3);
    }
}
