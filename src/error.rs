//! The errors and warnings of a detection run. Each names the file or directory
//! it is about, so the binary can print it as one line.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A problem that stops a run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A parameter is out of range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// The processes of a cluster run could not work together.
    #[error(transparent)]
    Cluster(#[from] crate::cluster::ClusterError),
    /// A bilingual dictionary could not be loaded.
    #[error(transparent)]
    Dictionary(#[from] crate::analysis::translate::DictionaryError),
    /// The caller stopped the run ([`crate::progress::Progress::cancelled`]).
    #[error("interrupted")]
    Interrupted,
    /// An input directory does not exist.
    #[error("{0}: no such directory")]
    MissingDirectory(PathBuf),
    /// An input path exists but is not a directory.
    #[error("{0}: not a directory")]
    NotADirectory(PathBuf),
    /// An input directory could not be listed.
    #[error("{path}: cannot list directory: {source}")]
    ListDirectory {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// An input directory holds no document.
    #[error("{0}: no *.txt files, nor *.pdf, *.docx, *.odt, *.html or *.htm")]
    NoDocuments(PathBuf),
    /// A document named in the pairs file is not in its directory.
    #[error("{}: no document {} here, but the pairs file lists it", dir.display(), escape_invisible(name))]
    MissingPairDocument {
        /// The directory searched.
        dir: PathBuf,
        /// The file name the pairs file gives.
        name: String,
    },
    /// Two documents given in memory have one name in one directory.
    #[error("{}: two documents named {}", dir.display(), escape_invisible(name))]
    DuplicateDocument {
        /// The directory they are named in.
        dir: PathBuf,
        /// Their name.
        name: String,
    },
    /// The output path exists and is not a directory.
    #[error("{0}: output path exists and is not a directory")]
    OutputNotADirectory(PathBuf),
    /// The output directory could not be created.
    #[error("{path}: cannot create output directory: {source}")]
    CreateOutput {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The output directory is one of the input directories.
    #[error(
        "{out}: --out is the input directory {input}; the reports would go among its documents (and over PAN's \
         ground truth beside them); choose another directory"
    )]
    OutputIsInput {
        /// The output directory, as given.
        out: PathBuf,
        /// The input directory it is, as given.
        input: PathBuf,
    },
    /// The output directory does not take new files.
    #[error("{path}: cannot write into the output directory: {source}")]
    OutputNotWritable {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A report would replace a file that is not a pan-detect report.
    #[error("{path}: exists and is not a pan-detect report ({reason}); not overwritten, nothing was written")]
    NotAReport {
        /// The file.
        path: PathBuf,
        /// Why it is not a report, e.g. "it holds a 'plagiarism' feature: ground truth?".
        reason: String,
    },
    /// A taboo text could not be used.
    #[error("{path}: cannot use as taboo text: {reason}")]
    Taboo {
        /// The file.
        path: PathBuf,
        /// Why, e.g. "No such file or directory (os error 2)".
        reason: String,
    },
    /// Two documents would have their report (or extracted text) under one name.
    #[error(
        "{}: {first} and {second} would both be written as {report}; rename or move one of them",
        dir.display()
    )]
    ReportClash {
        /// The report directory.
        dir: PathBuf,
        /// The first document's name.
        first: String,
        /// The second document's name.
        second: String,
        /// The file name they share.
        report: String,
    },
    /// An extracted text would replace a file that holds something else.
    #[error(
        "{}: exists and is not the text of {}; not overwritten, nothing was written",
        path.display(),
        document.display()
    )]
    NotOurText {
        /// The existing file.
        path: PathBuf,
        /// The document whose text would replace it.
        document: PathBuf,
    },
    /// The cache of extracted texts cannot be used.
    #[error("{path}: cannot use as the cache of extracted texts: {source}")]
    TextCache {
        /// The cache directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// An extracted text could not be written.
    #[error("{path}: cannot write extracted text: {source}")]
    WriteText {
        /// The text file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A document's text, read for the run, could not be read again for its
    /// HTML or JSON report (removed or changed during the run).
    #[error("{}: cannot read again for the report ({reason})", path.display())]
    ReportText {
        /// The document.
        path: PathBuf,
        /// Why, as the reader says it.
        reason: String,
    },
    /// A report could not be written.
    #[error("{path}: cannot write report: {source}")]
    WriteReport {
        /// The report file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

/// A per-file problem that does not stop the run: the file was read lossily or
/// skipped. Its path is shown with invisible characters escaped
/// ([`escape_invisible`]), so that a line names the file one can type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", escape_invisible(&path.display().to_string()))]
pub struct Warning {
    /// The file.
    pub path: PathBuf,
    /// What happened, e.g. "not valid UTF-8 at byte 812; decoded with replacement characters".
    pub message: String,
}

/// `text` with the characters one cannot see escaped as Rust escapes them
/// (`\u{1}`, `\n`, `\u{feff}`): control characters, byte-order marks and
/// the other invisible format characters, which a message quoting input
/// would otherwise show as nothing, or as a broken line. Other characters are
/// left as they are (unlike `{:?}`: no quotes, no escaped backslashes).
pub fn escape_invisible(text: &str) -> String {
    let invisible = |c: char| {
        c.is_control()
            || matches!(c, '\u{AD}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
    };
    text.chars().map(|c| if invisible(c) { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// A parameter outside its accepted range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ParamError {
    /// The flag, e.g. `--hash-bits`.
    pub flag: &'static str,
    /// The value given, as it reads.
    pub value: String,
    /// The accepted range, e.g. `24..=64`.
    pub expected: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} is out of range (expected {})", self.flag, self.value, self.expected)
    }
}

impl ParamError {
    /// `Ok` when `value` of `flag` is in `range`, else the error naming both.
    pub fn check(flag: &'static str, value: u64, range: std::ops::RangeInclusive<u64>) -> Result<(), ParamError> {
        if range.contains(&value) {
            Ok(())
        } else {
            Err(ParamError { flag, value: value.to_string(), expected: format!("{}..={}", range.start(), range.end()) })
        }
    }

    /// `Ok` when `value` of `flag` is a finite number of at least 0.
    pub fn check_non_negative(flag: &'static str, value: f64) -> Result<(), ParamError> {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(ParamError { flag, value: value.to_string(), expected: "a finite number of at least 0".to_string() })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_escaped_and_the_rest_left_alone() {
        assert_eq!(escape_invisible("ctl\u{1}.txt"), "ctl\\u{1}.txt");
        assert_eq!(escape_invisible("\u{feff}a\nb\u{200b}.txt"), "\\u{feff}a\\nb\\u{200b}.txt");
        assert_eq!(
            escape_invisible("Zürich \"q\" back\\slash cafe\u{301}.txt"),
            "Zürich \"q\" back\\slash cafe\u{301}.txt"
        );
        let warning = Warning { path: PathBuf::from("dir/a\u{7}.txt"), message: "skipped".into() };
        assert_eq!(warning.to_string(), "dir/a\\u{7}.txt: skipped");
    }
}
