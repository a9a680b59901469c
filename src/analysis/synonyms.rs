//! Synonym normalisation: every word of a synonym group is replaced by the group's
//! first word before stemming, so that `big` in one document and `large` in the
//! other count as the same term. The file format is the corpus builder's
//! (`--synonyms`): one group per line, words separated by commas, `#` comments.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::analysis::tokenize::{Tokenizer, TokenizerParams, Tokens};

/// A synonym file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SynonymsError {
    /// The file could not be read or is not UTF-8.
    #[error("{path}: cannot read synonyms: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The file holds no group of at least two single words.
    #[error("{0}: no synonym group of two or more single words")]
    Empty(PathBuf),
}

/// Folded word → the folded first word of its (first) group.
#[derive(Debug, Clone, Default)]
pub struct Synonyms {
    canonical: HashMap<String, String>,
}

impl Synonyms {
    /// Reads a synonym file of at most [`crate::analysis::read::MAX_INPUT_BYTES`].
    pub fn load(path: &Path) -> Result<Synonyms, SynonymsError> {
        let read_error = |message: String| SynonymsError::Read { path: path.to_path_buf(), message };
        let bytes = crate::analysis::read::read_input(path).map_err(|e| read_error(e.to_string()))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| read_error(format!("not valid UTF-8 at byte {}", e.utf8_error().valid_up_to())))?;
        let synonyms = Synonyms::parse(&text);
        if synonyms.canonical.is_empty() {
            return Err(SynonymsError::Empty(path.to_path_buf()));
        }
        Ok(synonyms)
    }

    /// Parses the text of a synonym file. Entries that are not one word (after
    /// the tokenizer's folding, digits kept, any length) are ignored; a word of
    /// several groups belongs to the first.
    pub fn parse(text: &str) -> Synonyms {
        let tokenizer = Tokenizer::new(TokenizerParams { digits: true, min_word_len: 1, ..TokenizerParams::default() });
        let mut tokens = Tokens::default();
        let mut canonical = HashMap::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let mut group: Vec<String> = Vec::new();
            for entry in line.split(',') {
                tokenizer.tokenize(entry, &mut tokens);
                if tokens.len() == 1 && !group.iter().any(|w| w == tokens.word(0)) {
                    group.push(tokens.word(0).to_string());
                }
            }
            if group.len() < 2 {
                continue;
            }
            for word in &group {
                canonical.entry(word.clone()).or_insert_with(|| group[0].clone());
            }
        }
        Synonyms { canonical }
    }

    /// The form `word` (folded) is replaced by: its group's first word, or itself.
    pub fn canonical<'a>(&'a self, word: &'a str) -> &'a str {
        self.group_word(word).unwrap_or(word)
    }

    /// The folded first word of the group `word` (folded) belongs to, if any.
    pub fn group_word(&self, word: &str) -> Option<&str> {
        self.canonical.get(word).map(String::as_str)
    }

    /// Number of words that belong to a group.
    pub fn len(&self) -> usize {
        self.canonical.len()
    }

    /// True when no word belongs to a group.
    pub fn is_empty(&self) -> bool {
        self.canonical.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_map_to_the_first_word_of_their_group() {
        let synonyms = Synonyms::parse("# comment\nbig, Large, HUGE\nsmall, little\nlarge, wide\nlook at, see, view\n");
        assert_eq!(synonyms.canonical("huge"), "big");
        assert_eq!(synonyms.canonical("large"), "big", "first group wins");
        assert_eq!(synonyms.canonical("wide"), "large");
        assert_eq!(synonyms.canonical("view"), "see", "multi-word entries are skipped");
        assert_eq!(synonyms.canonical("tiny"), "tiny");
        assert_eq!(synonyms.len(), 8);
    }

    #[test]
    fn a_file_without_groups_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("syn.txt");
        std::fs::write(&path, "# nothing\nalone\n").unwrap();
        let error = Synonyms::load(&path).unwrap_err().to_string();
        assert!(error.contains("syn.txt") && error.contains("no synonym group"), "{error}");
        assert!(Synonyms::load(&dir.path().join("missing.txt")).is_err());
    }
}
