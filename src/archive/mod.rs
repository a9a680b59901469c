//! Archive mode: a persistent, incrementally updated index of every archived
//! document, as the production systems behind the method keep (Masaryk
//! University's information system, the Czech national theses archive).
//!
//! Built on the detector's stages (same tokenizer, chunker and valid
//! intervals), one module per concern:
//!
//! - [`format`](mod@format): the on-disk layout, header, settings and generation commit;
//! - [`scan`]: listing, hashing and chunking the documents;
//! - [`builder`]: `index create`;
//! - [`reader`]: opening an index through memory maps, lookups, verification;
//! - [`update`](mod@update): `index update`, incremental and crash-safe;
//! - [`check`]: what in the archive a new document is similar to, with passages;
//! - [`similar`]: the table of document similarities, computed by `create`
//!   and `update` and read by `similar`; [`table`]: its SQLite database;
//!   [`pair`]: the passages of a pair of documents, for its aligned characters;
//! - [`minhash`](mod@minhash): the MinHash signatures stored beside the index, for
//!   screening one document against the archive ([`crate::screening`]);
//! - [`taboo`]: the taboo set stored in the index (texts never reported);
//! - [`failpoints`]: the crash points of `create` and `update` (cargo feature
//!   `failpoints`, for the crash tests).
//!
//! Documents are named by their path relative to the documents directory, with
//! `/` separators; ids are internal and never printed, so every output is the
//! same for the same archive contents whatever update history led there.

pub mod aligned;
pub mod builder;
pub mod check;
pub mod error;
pub mod failpoints;
pub mod format;
pub mod minhash;
pub mod pair;
pub mod reader;
pub mod scan;
pub mod similar;
mod spill;
pub mod table;
pub mod taboo;
pub mod update;

pub use builder::{CreateSummary, create};
pub use error::ArchiveError;
pub use format::{Settings, SettingsOverride, hashing_name};
pub use reader::ArchiveIndex;
pub use taboo::TabooFiles;
pub use update::{MergeSummary, TabooChange, UpdateOptions, UpdateSummary, merge, update};
