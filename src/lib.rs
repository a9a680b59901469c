//! pan-detect finds plagiarised passages between documents and reports them in the
//! XML format of the PAN plagiarism-detection benchmarks.
#![deny(missing_docs)]

pub mod corpus_builder;
pub mod eval;
pub mod output;
pub mod pan_xml;
pub mod span;
pub mod params;
pub mod tokenize;
pub mod chunk;
pub mod index;
pub mod intervals;
pub mod corpus;
pub mod error;
pub mod progress;
pub mod overlap;
pub mod search;
pub mod report;
pub mod detect;
