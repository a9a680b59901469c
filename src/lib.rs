//! pan-detect finds plagiarised passages between documents and reports them in the
//! XML format of the PAN plagiarism-detection benchmarks.
//!
//! The method is Kasprzak, Brandejs and Křipač's (PAN'09). Data flows one way,
//! through three layers, one module per stage:
//!
//! 1. [`analysis`]: a file becomes its text ([`analysis::read`]: plain text
//!    decoded, PDF, DOCX, ODT and HTML extracted by [`analysis::extract`]), folded
//!    words with character offsets ([`analysis::tokenize`]) and hashed chunks of
//!    5 sorted words ([`analysis::chunk`]); [`analysis::document`] runs these
//!    steps for detection and the archive alike;
//! 2. [`matching`]: the source documents' chunks go into a CSR inverted index
//!    ([`matching::index`]); a suspicious document's chunks are looked up
//!    ([`matching::search`]), turned into valid intervals on both sides and
//!    passages ([`matching::intervals`]), and overlaps are resolved
//!    ([`matching::overlap`]); the `best` preset aligns the sentences of
//!    candidate pairs instead ([`align`]);
//! 3. [`passages`]: one suspicious document's hits become its passages, for
//!    `detect` and the archive's `check` alike;
//! 4. [`report`]: the detections go into a sink, such as the PAN XML writer
//!    ([`report::pan_xml`]), written whole or not at all ([`report::output`]);
//!    [`report::texts`] writes the texts whose characters the offsets count.
//!
//! [`detect::detect`] runs the whole pipeline over two directories ([`pairs`],
//! when only listed document pairs are to be aligned); [`archive`] keeps a
//! persistent index, with the table of its documents' similarities in
//! SQLite, and checks documents against it; [`extraction`] finds every
//! passage duplicated inside one collection (no suspicious/source split).
//! Offsets are character offsets everywhere ([`analysis::span`]), as PAN's
//! Python scripts count them. Beside the pipeline, [`eval`] computes PAN's
//! measures and [`corpus_builder`] makes PAN-style corpora with known cases,
//! and [`screening`] finds likely near-duplicates from MinHash signatures
//! banded by LSH. [`cli`] is the `pan-detect` command line itself, shared by
//! the binary and the Python package.
//!
//! ```
//! use std::sync::Mutex;
//! use pan_detect::detect::detect;
//! use pan_detect::error::Error;
//! use pan_detect::detect::params::DetectParams;
//! use pan_detect::progress::Silent;
//! use pan_detect::report::{Detection, DetectionSink};
//!
//! /// Collects (suspicious document, source document, suspicious offset) triples.
//! struct Collect(Mutex<Vec<(String, String, u32)>>);
//! impl DetectionSink for Collect {
//!     fn document(&self, suspicious: &str, detections: &[Detection<'_>]) -> Result<(), Error> {
//!         let mut found = self.0.lock().unwrap();
//!         for d in detections {
//!             found.push((suspicious.to_string(), d.source_reference.to_string(), d.this.start));
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let (sources, suspicious) = (dir.path().join("src"), dir.path().join("susp"));
//! std::fs::create_dir_all(&sources)?;
//! std::fs::create_dir_all(&suspicious)?;
//! let passage: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
//! std::fs::write(sources.join("a.txt"), format!("Once upon a time: {}.", passage.join(" ")))?;
//! std::fs::write(suspicious.join("b.txt"), format!("Intro. {} The end.", passage.join(" ")))?;
//!
//! let sink = Collect(Mutex::new(Vec::new()));
//! let summary = detect(&sources, &suspicious, &DetectParams::default(), &sink, &Silent)?;
//! assert_eq!(summary.passages, 1);
//! assert_eq!(sink.0.into_inner().unwrap(), [("b.txt".to_string(), "a.txt".to_string(), 7)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod analysis;
pub mod matching;
pub mod align;
pub mod embed;
pub mod passages;
pub mod report;
pub mod detect;
pub mod cluster;
pub mod extraction;
pub mod pairs;
pub mod screening;
pub mod archive;
pub mod server;
pub mod corpus_builder;
pub mod eval;
pub mod error;
pub mod progress;
pub mod cli;
#[cfg(test)]
mod testutil;
