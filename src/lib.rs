//! pan-detect finds plagiarised passages between documents and reports them in the
//! XML format of the PAN plagiarism-detection benchmarks.
//!
//! The method is Kasprzak, Brandejs and Křipač's (PAN'09). Data flows one way,
//! one module per stage:
//!
//! 1. [`corpus`] lists and reads the `*.txt` documents ([`pairs`], when only
//!    listed document pairs are to be aligned);
//! 2. [`tokenize`] cuts each text into folded words with character offsets;
//! 3. [`chunk`] hashes every run of 5 consecutive words (sorted) with MD5;
//! 4. [`index`] keeps the source documents' chunks in a CSR inverted index;
//! 5. [`search`] looks up a suspicious document's chunks and groups the hits per
//!    source document;
//! 6. [`intervals`] finds the valid intervals on both sides;
//! 7. [`overlap`] resolves passages that overlap in the suspicious document;
//! 8. [`report`] pushes the detections into a sink, such as the PAN XML writer
//!    ([`pan_xml`]).
//!
//! [`detect::detect`] runs the whole pipeline over two directories. Offsets are
//! character offsets everywhere ([`span`]), as PAN's Python scripts count them.
//! Beside the pipeline, [`eval`] computes PAN's measures and [`corpus_builder`]
//! makes PAN-style corpora with known cases.
//!
//! ```
//! use std::sync::Mutex;
//! use pan_detect::detect::detect;
//! use pan_detect::error::Error;
//! use pan_detect::params::DetectParams;
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

pub mod corpus;
pub mod pairs;
pub mod tokenize;
pub mod chunk;
pub mod index;
pub mod search;
pub mod intervals;
pub mod overlap;
pub mod align;
pub mod report;
pub mod pan_xml;
pub mod taboo;
pub mod detect;
pub mod archive;

mod bucket_sort;

pub mod corpus_builder;
pub mod error;
pub mod eval;
pub mod output;
pub mod params;
pub mod progress;
pub mod span;
pub mod stem;
