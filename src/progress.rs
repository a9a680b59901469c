//! Progress reporting, pushed by the library to whatever the caller supplies: the
//! binary shows progress bars, tests and library users can ignore it.

use crate::error::Warning;

/// A stage of a detection run, as shown to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading, tokenizing and chunking the source documents (units: bytes).
    ReadSources,
    /// Sorting the postings into the index (no units).
    BuildIndex,
    /// Reading the suspicious documents and matching them (units: bytes).
    Match,
}

impl Stage {
    /// A short name for the stage.
    pub fn label(self) -> &'static str {
        match self {
            Stage::ReadSources => "reading sources",
            Stage::BuildIndex => "building index",
            Stage::Match => "matching",
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
}

/// Ignores all progress and warnings.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Progress for Silent {}
