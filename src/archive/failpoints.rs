//! Crash points for the crash tests: named places in `index create` and
//! `index update` where the process can be made to die, to check that the
//! index is then the old one or the new one, never a mix.
//!
//! They exist only with the cargo feature `failpoints`, built on the
//! [`fail`](https://docs.rs/fail) crate; without it `crash_point!` expands to
//! nothing, so a release build has no injection code. The binary reads the
//! `FAILPOINTS` environment variable (`fail::FailScenario::setup`), as in
//! `FAILPOINTS=archive-postings-written=return pan-detect index update ...`.
//!
//! The action `return` kills the process with `SIGKILL`, as `kill -9` or the
//! out-of-memory killer would: no destructor, unwinding or buffer flush runs,
//! and the test sees the signal, so a point that was never reached cannot pass
//! for one that crashed. (`panic` would unwind and release what the process
//! holds in an orderly way; an injected error would take the error path,
//! which is not the crash being tested.) The crate's other actions (`sleep`,
//! `pause`, `panic`, `print`) behave as the crate documents.
//!
//! The points, in the order an update reaches them (`create` skips
//! `archive-segments-linked` and `archive-similarity-rows-removed`, an update
//! that rebuilds the similarity table skips the latter, and both skip
//! `archive-taboo-written` without a taboo set): the new generation's
//! directory made, each of its files written and fsynced, the kept segments
//! linked, the old rows removed from the new generation's copy of the
//! similarity table, the table written, the header written (the last step
//! before the commit), and the commit done (before the old generations are
//! removed). The constants below, and their list `ALL`, exist with the
//! feature only.

/// The new generation's directory was made, nothing is in it yet.
#[cfg(feature = "failpoints")]
pub const GENERATION_CREATED: &str = "archive-generation-created";
/// `taboo.bin` is written.
#[cfg(feature = "failpoints")]
pub const TABOO_WRITTEN: &str = "archive-taboo-written";
/// The kept segments are hard-linked into the new generation (update only).
#[cfg(feature = "failpoints")]
pub const SEGMENTS_LINKED: &str = "archive-segments-linked";
/// The scratch chunk lists' `.hashes` file is written.
#[cfg(feature = "failpoints")]
pub const SEGMENT_HASHES_WRITTEN: &str = "archive-segment-hashes-written";
/// The scratch chunk lists' `.ranges` file is written.
#[cfg(feature = "failpoints")]
pub const SEGMENT_RANGES_WRITTEN: &str = "archive-segment-ranges-written";
/// `postings.bin` is written.
#[cfg(feature = "failpoints")]
pub const POSTINGS_WRITTEN: &str = "archive-postings-written";
/// `directory.bin` is written.
#[cfg(feature = "failpoints")]
pub const DIRECTORY_WRITTEN: &str = "archive-directory-written";
/// `docs.bin` is written.
#[cfg(feature = "failpoints")]
pub const DOCS_WRITTEN: &str = "archive-docs-written";
/// `names.bin` is written: every body file is, the header is not.
#[cfg(feature = "failpoints")]
pub const NAMES_WRITTEN: &str = "archive-names-written";
/// The new generation's copy of the similarity table has lost the rows of
/// the documents changed and deleted, and the new rows are not in it yet
/// (update only).
#[cfg(feature = "failpoints")]
pub const SIMILARITY_ROWS_REMOVED: &str = "archive-similarity-rows-removed";
/// `similarity.sqlite` is written and fsynced.
#[cfg(feature = "failpoints")]
pub const SIMILARITY_WRITTEN: &str = "archive-similarity-written";
/// The header is written and the generation directory fsynced: the next step
/// is the rename of `CURRENT`.
#[cfg(feature = "failpoints")]
pub const HEADER_WRITTEN: &str = "archive-header-written";
/// `CURRENT` names the new generation; the old ones are not removed yet.
#[cfg(feature = "failpoints")]
pub const COMMITTED: &str = "archive-committed";

/// A worker of a cluster run ([`crate::cluster::detect`]) has sent its
/// sources' chunks; the other processes are waiting for it. Not an archive
/// point (not in [`ALL`]): the test of a process lost mid-run kills one here.
#[cfg(feature = "failpoints")]
pub const CLUSTER_SOURCES_SENT: &str = "cluster-sources-sent";
/// Every crash point, in the order an update reaches them.
#[cfg(feature = "failpoints")]
pub const ALL: [&str; 13] = [
    GENERATION_CREATED,
    TABOO_WRITTEN,
    SEGMENTS_LINKED,
    SEGMENT_HASHES_WRITTEN,
    SEGMENT_RANGES_WRITTEN,
    POSTINGS_WRITTEN,
    DIRECTORY_WRITTEN,
    DOCS_WRITTEN,
    NAMES_WRITTEN,
    SIMILARITY_ROWS_REMOVED,
    SIMILARITY_WRITTEN,
    HEADER_WRITTEN,
    COMMITTED,
];

/// Kills this process with `SIGKILL`, which cannot be caught: nothing after
/// this line runs, as after `kill -9`.
#[cfg(feature = "failpoints")]
pub(crate) fn crash() -> ! {
    // SAFETY: getpid(2) and kill(2) take no pointers and have no
    // precondition; signalling this process is what is wanted.
    unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
    // Not reached: POSIX delivers a signal a process sends itself before
    // kill(2) returns, and SIGKILL cannot be blocked.
    std::process::abort()
}

/// A crash point: with the feature `failpoints`, the process dies here when
/// the point named by the constant `$point` of this module is set to `return`
/// ([`crash`]); without the feature, nothing.
macro_rules! crash_point {
    ($point:ident) => {
        #[cfg(feature = "failpoints")]
        fail::fail_point!($crate::archive::failpoints::$point, |_| $crate::archive::failpoints::crash());
    };
}
pub(crate) use crash_point;
