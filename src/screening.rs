//! MinHash/LSH screening after Celozzi and Ciabini: which documents are
//! likely near-duplicates, from MinHash signatures of their character
//! shingles ([`crate::analysis::minhash`]) banded into an LSH index
//! ([`crate::matching::lsh`]). It serves three uses: the similar pairs within
//! one set of documents ([`Screening::pairs_within`]), between two sets
//! ([`Screening::pairs_between`]), and one document against the signatures
//! stored beside an archive index ([`crate::archive::minhash`]).
//!
//! Screening finds pairs of high overall Jaccard similarity, with
//! probability `1 − (1 − t^r)^b`; it is not plagiarism detection: a copy that
//! keeps a fifth of a document is almost never a candidate, where the chunk
//! index ([`crate::archive::check`]) finds it.

use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::minhash::{MinHasher, ShingleSet, Signature, jaccard};
use crate::analysis::read::{TextReader, list_document_files_recursive};
use crate::error::{Error, ParamError, Warning};
use crate::matching::lsh::{Banding, LshIndex};
use crate::progress::{Progress, Stage};

/// The validated settings of a screening: shingle width, hash functions,
/// banding, and whether the exact Jaccard similarity of candidates is
/// computed (which keeps every document's shingle set in memory).
#[derive(Debug, Clone)]
pub struct Screening {
    hasher: MinHasher,
    banding: Banding,
    exact: bool,
}

/// A document's screening data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenedDocument {
    /// Its name: the path relative to its directory, `/`-separated.
    pub name: String,
    /// Its MinHash signature.
    pub signature: Signature,
    /// Its shingle set, kept for exact similarities.
    pub shingles: Option<ShingleSet>,
}

/// A candidate pair: two documents that share a band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScreenedPair {
    /// The first document (of the first set; of a pair within one set, the
    /// one whose name sorts first).
    pub document: String,
    /// The other document.
    pub other: String,
    /// The share of signature values the two agree on: the estimate of the
    /// Jaccard similarity of their shingle sets.
    pub estimated_jaccard: f64,
    /// The Jaccard similarity of their shingle sets, when asked for.
    pub exact_jaccard: Option<f64>,
}

impl Screening {
    /// Signatures of `bands × rows` values over shingles of `width`
    /// characters, hash functions from `seed`; with `exact`, candidates get
    /// their exact Jaccard similarity too.
    pub fn new(width: usize, banding: Banding, seed: u64, exact: bool) -> Result<Screening, ParamError> {
        Ok(Screening { hasher: MinHasher::new(width, banding.signature_len(), seed)?, banding, exact })
    }

    /// The hash functions.
    pub fn hasher(&self) -> &MinHasher {
        &self.hasher
    }

    /// The banding.
    pub fn banding(&self) -> Banding {
        self.banding
    }

    /// Whether candidates get their exact Jaccard similarity.
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// The screening data of a text; `None` when it has no shingle (no
    /// character but whitespace).
    pub fn screen_text(&self, name: &str, text: &str) -> Option<ScreenedDocument> {
        let shingles = self.hasher.shingles(text);
        let signature = self.hasher.signature(&shingles)?;
        Some(ScreenedDocument { name: name.to_string(), signature, shingles: self.exact.then_some(shingles) })
    }

    /// The screening data of every document under `dir` (recursively, as
    /// `index create` lists them), in name order, computed in parallel.
    /// Unreadable documents and documents without text are left out with a
    /// warning through `progress`.
    pub fn screen_directory(
        &self,
        dir: &std::path::Path,
        progress: &dyn Progress,
    ) -> Result<Vec<ScreenedDocument>, Error> {
        let files = list_document_files_recursive(dir, progress)?.documents;
        if files.is_empty() {
            return Err(Error::NoDocuments(dir.to_path_buf()));
        }
        progress.start(Stage::Signatures, files.len() as u64);
        let reader = TextReader::new(None);
        let screened = files
            .par_iter()
            .filter_map(|(file, _)| {
                let text = reader.load(file).text_or_warn(progress);
                progress.advance(1);
                let screened = self.screen_text(&file.name, &text?);
                if screened.is_none() {
                    let message = "no text to shingle; skipped".to_string();
                    progress.warn(&Warning { path: file.path.clone(), message });
                }
                screened
            })
            .collect();
        progress.finish();
        Ok(screened)
    }

    /// The candidate pairs within `docs`, most similar first.
    pub fn pairs_within(&self, docs: &[ScreenedDocument]) -> Vec<ScreenedPair> {
        let index = LshIndex::build(self.banding, numbered(docs));
        let pairs = index.pairs();
        let mut found: Vec<ScreenedPair> = pairs
            .par_iter()
            .map(|&(a, b)| {
                let (a, b) = (&docs[a as usize], &docs[b as usize]);
                if a.name <= b.name { pair(a, b) } else { pair(b, a) }
            })
            .collect();
        sort_pairs(&mut found);
        found
    }

    /// The candidate pairs of a document of `docs` and one of `against`,
    /// most similar first.
    pub fn pairs_between(&self, docs: &[ScreenedDocument], against: &[ScreenedDocument]) -> Vec<ScreenedPair> {
        let index = LshIndex::build(self.banding, numbered(against));
        let mut found: Vec<ScreenedPair> = docs
            .par_iter()
            .flat_map_iter(|doc| {
                let candidates = index.candidates(self.banding, &doc.signature);
                candidates.into_iter().map(|other| pair(doc, &against[other as usize])).collect::<Vec<_>>()
            })
            .collect();
        sort_pairs(&mut found);
        found
    }
}

/// `docs` with their positions as document numbers.
fn numbered(docs: &[ScreenedDocument]) -> impl Iterator<Item = (u32, &Signature)> {
    (0u32..).zip(docs).map(|(i, doc)| (i, &doc.signature))
}

/// The pair of `a` and `b`, with the exact similarity when both have their
/// shingle sets.
pub fn pair(a: &ScreenedDocument, b: &ScreenedDocument) -> ScreenedPair {
    let exact = match (&a.shingles, &b.shingles) {
        (Some(x), Some(y)) => Some(jaccard(x, y)),
        _ => None,
    };
    ScreenedPair {
        document: a.name.clone(),
        other: b.name.clone(),
        estimated_jaccard: a.signature.agreement(&b.signature),
        exact_jaccard: exact,
    }
}

/// Orders pairs most similar first (estimate, then exact similarity), ties
/// by document and other name.
pub fn sort_pairs(pairs: &mut [ScreenedPair]) {
    pairs.sort_by(|x, y| {
        y.estimated_jaccard
            .total_cmp(&x.estimated_jaccard)
            .then_with(|| y.exact_jaccard.unwrap_or(0.0).total_cmp(&x.exact_jaccard.unwrap_or(0.0)))
            .then_with(|| x.document.cmp(&y.document))
            .then_with(|| x.other.cmp(&y.other))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::minhash::DEFAULT_SEED;
    use crate::testutil::prose;

    #[test]
    fn near_copies_pair_within_and_between_sets_and_unrelated_texts_do_not() {
        let screening = Screening::new(10, Banding::new(20, 5).unwrap(), DEFAULT_SEED, true).unwrap();
        let original = prose(1, 400);
        let copy = format!("{original} {}", prose(2, 10));
        let docs: Vec<ScreenedDocument> = [("a.txt", &original), ("b.txt", &prose(3, 400)), ("c.txt", &copy)]
            .iter()
            .map(|(name, text)| screening.screen_text(name, text).unwrap())
            .collect();
        let within = screening.pairs_within(&docs);
        assert_eq!(within.len(), 1, "{within:?}");
        assert_eq!((within[0].document.as_str(), within[0].other.as_str()), ("a.txt", "c.txt"));
        let exact = within[0].exact_jaccard.unwrap();
        assert!(exact > 0.9 && (within[0].estimated_jaccard - exact).abs() < 0.15, "{within:?}");
        let between = screening.pairs_between(&docs[2..], &docs[..2]);
        assert_eq!(between.len(), 1);
        assert_eq!((between[0].document.as_str(), between[0].other.as_str()), ("c.txt", "a.txt"));
        assert_eq!(screening.screen_text("blank.txt", " \n\t"), None);
    }
}
