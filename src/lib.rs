//! pan-detect finds plagiarised passages between documents and reports them in the
//! XML format of the PAN plagiarism-detection benchmarks.
#![deny(missing_docs)]

pub mod corpus_builder;
pub mod eval;
pub mod output;
pub mod pan_xml;
pub mod span;
