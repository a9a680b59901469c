//! Progress reporting, pushed by the library to whatever the caller supplies: the
//! binary shows progress bars, tests and library users can ignore it.

use crate::error::{Error, Warning};

/// A stage of a detection run, an archive index build or a corpus build, as shown
/// to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading, tokenizing and chunking the source documents (units: bytes).
    ReadSources,
    /// Sorting the postings into the index (no units).
    BuildIndex,
    /// Reading the suspicious documents and matching them (units: bytes).
    Match,
    /// Building a reuse-heavy corpus: sampling its shared pool of input sentences
    /// (units: bytes of input read).
    CorpusPool,
    /// Building a corpus: cutting or recombining documents (units: bytes written).
    CorpusDocuments,
    /// Building a corpus: inserting cases into suspicious documents (units:
    /// suspicious documents).
    CorpusCases,
    /// Checking a written corpus (units: suspicious documents).
    CorpusCheck,
    /// Extracting the texts of documents (units: bytes).
    Extract,
    /// Computing the archive's similarity table (units: documents).
    Similarities,
    /// Computing MinHash signatures for screening (units: documents).
    Signatures,
}

impl Stage {
    /// A short name for the stage.
    pub fn label(self) -> &'static str {
        match self {
            Stage::ReadSources => "reading sources",
            Stage::BuildIndex => "building index",
            Stage::Match => "matching",
            Stage::CorpusPool => "sentence pool",
            Stage::CorpusDocuments => "documents",
            Stage::CorpusCases => "cases",
            Stage::CorpusCheck => "check",
            Stage::Extract => "extracting",
            Stage::Similarities => "similarities",
            Stage::Signatures => "signatures",
        }
    }
}

/// Receives progress and warnings. Called from several threads at once.
pub trait Progress: Sync {
    /// A stage starts; `total` units of work are ahead (0 when unknown).
    fn start(&self, _stage: Stage, _total: u64) {}
    /// `units` more units of the current stage are done.
    fn advance(&self, _units: u64) {}
    /// The current stage is done.
    fn finish(&self) {}
    /// A per-file problem that did not stop the run.
    fn warn(&self, _warning: &Warning) {}
    /// Whether the caller wants the run stopped (the Python module, on
    /// Ctrl-C): a detection run asks between documents and stops with
    /// [`Error::Interrupted`], writing no more reports.
    fn cancelled(&self) -> bool {
        false
    }
}

/// [`Error::Interrupted`] when `progress` wants the run stopped.
pub fn stop_if_cancelled(progress: &dyn Progress) -> Result<(), Error> {
    if progress.cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

/// Ignores all progress and warnings.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Progress for Silent {}

/// Keeps the warnings it receives, for tests.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct Collect(pub(crate) std::sync::Mutex<Vec<Warning>>);

#[cfg(test)]
impl Collect {
    /// Each warning as its one line, sorted.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.0.lock().unwrap().iter().map(ToString::to_string).collect();
        lines.sort();
        lines
    }
}

#[cfg(test)]
impl Progress for Collect {
    fn warn(&self, warning: &Warning) {
        self.0.lock().unwrap().push(warning.clone());
    }
}
