//! Locality-sensitive hashing of MinHash signatures by banding (Leskovec,
//! Rajaraman and Ullman, *Mining of Massive Datasets*, ch. 3), the screening
//! step of Celozzi and Ciabini: a signature of `bands × rows` values is cut
//! into `bands` bands of `rows` values, and two documents are a candidate
//! pair when they agree on every value of at least one band. Documents whose
//! shingle sets have Jaccard similarity `t` become candidates with
//! probability `1 − (1 − t^rows)^bands` ([`retrieval_probability`]).
//!
//! A band is keyed by the XXH3-64 hash of its values' bytes, seeded with its
//! band number: two different bands colliding on 64 bits is left to chance
//! (about one in 2^64 per comparison).

use std::collections::HashMap;

use crate::analysis::minhash::{MAX_SIGNATURE_LEN, Signature};
use crate::error::ParamError;

/// The banding: `bands` bands of `rows` values; the signature has
/// `bands × rows` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Banding {
    bands: usize,
    rows: usize,
}

/// Celozzi and Ciabini's middle setting, `--bands 20 --rows 5`: a threshold
/// near (1/20)^(1/5) ≈ 0.55 Jaccard.
pub const DEFAULT_BANDS: usize = 20;
/// See [`DEFAULT_BANDS`].
pub const DEFAULT_ROWS: usize = 5;

impl Banding {
    /// `bands` bands of `rows` rows, each at least 1 and their product at
    /// most [`MAX_SIGNATURE_LEN`].
    pub fn new(bands: usize, rows: usize) -> Result<Banding, ParamError> {
        let out_of_range = |flag, value: usize| ParamError {
            flag,
            value: value.to_string(),
            expected: format!("1..={MAX_SIGNATURE_LEN}, with --bands × --rows at most {MAX_SIGNATURE_LEN}"),
        };
        if bands == 0 || bands > MAX_SIGNATURE_LEN {
            return Err(out_of_range("--bands", bands));
        }
        if rows == 0 || bands * rows > MAX_SIGNATURE_LEN {
            return Err(out_of_range("--rows", rows));
        }
        Ok(Banding { bands, rows })
    }

    /// Bands per signature.
    pub fn bands(self) -> usize {
        self.bands
    }

    /// Values per band.
    pub fn rows(self) -> usize {
        self.rows
    }

    /// Values per signature: `bands × rows`.
    pub fn signature_len(self) -> usize {
        self.bands * self.rows
    }

    /// The key of each band of `signature` (which must have
    /// [`signature_len`](Self::signature_len) values).
    pub fn band_keys(self, signature: &Signature) -> impl Iterator<Item = (u32, u64)> + '_ {
        (0u32..).zip(signature.0.chunks_exact(self.rows)).map(|(band, values)| {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            (band, xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, u64::from(band)))
        })
    }
}

/// The probability that two documents of Jaccard similarity `t` become a
/// candidate pair: `1 − (1 − t^r)^b`.
pub fn retrieval_probability(t: f64, banding: Banding) -> f64 {
    1.0 - (1.0 - t.powi(banding.rows as i32)).powi(banding.bands as i32)
}

/// The band buckets of a set of signatures, for candidate lookups.
#[derive(Debug, Clone, Default)]
pub struct LshIndex {
    buckets: HashMap<(u32, u64), Vec<u32>>,
}

impl LshIndex {
    /// The buckets of `signatures`, each given with its document's number.
    pub fn build<'a>(banding: Banding, signatures: impl IntoIterator<Item = (u32, &'a Signature)>) -> LshIndex {
        let mut buckets: HashMap<(u32, u64), Vec<u32>> = HashMap::new();
        for (doc, signature) in signatures {
            for key in banding.band_keys(signature) {
                buckets.entry(key).or_default().push(doc);
            }
        }
        LshIndex { buckets }
    }

    /// The documents sharing a band with `signature`, sorted, each once.
    pub fn candidates(&self, banding: Banding, signature: &Signature) -> Vec<u32> {
        let mut found: Vec<u32> =
            banding.band_keys(signature).filter_map(|key| self.buckets.get(&key)).flatten().copied().collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// Every pair of the indexed documents that shares a band, as (smaller
    /// number, larger number), sorted, each once.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for docs in self.buckets.values() {
            for (i, &a) in docs.iter().enumerate() {
                pairs.extend(docs[i + 1..].iter().filter(|&&b| b != a).map(|&b| (a.min(b), a.max(b))));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::analysis::minhash::MinHasher;

    /// Two random shingle sets of `size` elements each sharing `common`.
    fn pair_of_sets(rng: &mut ChaCha8Rng, size: usize, common: usize) -> (Vec<u64>, Vec<u64>) {
        let mut draw = |n: usize| -> Vec<u64> { (0..n).map(|_| rng.random::<u64>()).collect() };
        let shared = draw(common);
        let mut a = [shared.clone(), draw(size - common)].concat();
        let mut b = [shared, draw(size - common)].concat();
        a.sort_unstable();
        b.sort_unstable();
        (a, b)
    }

    /// The seeded experiment: for each of Celozzi and Ciabini's settings and
    /// several Jaccard similarities, the share of 400 trials (fresh sets and
    /// fresh hash functions each) in which the pair becomes a candidate is
    /// within 0.08 of 1 − (1 − t^r)^b (the binomial standard deviation is at
    /// most 0.025).
    #[test]
    fn banding_retrieves_at_the_rate_of_the_s_curve() {
        let mut rng = ChaCha8Rng::seed_from_u64(15);
        const TRIALS: u64 = 400;
        for (bands, rows) in [(50, 2), (25, 4), (20, 5), (10, 10)] {
            let banding = Banding::new(bands, rows).unwrap();
            // 100 shingles each, c common: t = c / (200 − c), 0.11 to 0.82.
            for common in [20, 50, 67, 80, 90] {
                let t = common as f64 / (200 - common) as f64;
                let mut found = 0;
                for trial in 0..TRIALS {
                    let hasher = MinHasher::new(10, banding.signature_len(), trial * 1000 + common as u64).unwrap();
                    let (a, b) = pair_of_sets(&mut rng, 100, common);
                    let (sa, sb) = (hasher.signature(&a).unwrap(), hasher.signature(&b).unwrap());
                    let index = LshIndex::build(banding, [(0, &sa)]);
                    found += u64::from(index.candidates(banding, &sb) == [0]);
                }
                let measured = found as f64 / TRIALS as f64;
                let ideal = retrieval_probability(t, banding);
                assert!((measured - ideal).abs() < 0.08, "b={bands} r={rows} t={t:.3}: {measured} vs {ideal:.3}");
            }
        }
    }

    #[test]
    fn identical_signatures_pair_and_disjoint_ones_do_not() {
        let banding = Banding::new(4, 2).unwrap();
        let hasher = MinHasher::new(10, 8, 1).unwrap();
        let same = hasher.signature(&[1, 2, 3]).unwrap();
        let other = hasher.signature(&[10, 20, 30]).unwrap();
        let index = LshIndex::build(banding, [(0, &same), (1, &other), (2, &same)]);
        assert_eq!(index.pairs(), [(0, 2)]);
        assert_eq!(index.candidates(banding, &same), [0, 2]);
    }

    #[test]
    fn the_banding_is_validated() {
        assert!(Banding::new(0, 5).unwrap_err().to_string().starts_with("--bands 0 is out of range"));
        assert!(Banding::new(100, 20).unwrap_err().to_string().starts_with("--rows 20 is out of range"));
        assert_eq!(Banding::new(20, 5).unwrap().signature_len(), 100);
        assert!((retrieval_probability(0.8, Banding::new(20, 5).unwrap()) - 0.99964).abs() < 1e-4);
    }
}
