//! Matching chunks: the inverted index of the source documents' chunks, its
//! lookups, and the valid intervals that turn matching chunks into passages.
//!
//! 1. [`index`] keeps chunk hashes in a CSR inverted index (a bucket sort
//!    sorts its postings);
//! 2. [`search`] looks up a document's chunks and groups the hits per source
//!    document;
//! 3. [`intervals`] finds the valid intervals on both sides and turns them
//!    into passages;
//! 4. [`overlap`] resolves passages that overlap in the suspicious document;
//! 5. [`lsh`] bands MinHash signatures into candidate pairs, for screening
//!    ([`crate::screening`]).

pub(crate) mod bucket_sort;
pub mod index;
pub mod intervals;
pub mod lsh;
pub mod overlap;
pub mod search;
