//! MinHash signatures of a document's character shingles (Broder 1997), the
//! per-document half of MinHash/LSH screening as Celozzi and Ciabini use it;
//! the banding across documents is [`crate::matching::lsh`].
//!
//! A document's text is normalised first: every character is lower-cased
//! ([`char::to_lowercase`], which may give several characters), every run of
//! whitespace ([`char::is_whitespace`]: spaces, tabs, line breaks, no-break
//! spaces…) becomes one space U+0020, and whitespace at the start and the end
//! is dropped. Its shingles are the runs of `width` consecutive characters
//! (Unicode scalar values) of the normalised text; a non-empty text shorter
//! than `width` is one shingle, an empty one has none. Each shingle is hashed
//! with XXH3-64 of its UTF-8 bytes, and the document's shingle set is the set
//! of those hashes.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::ParamError;

/// Characters per shingle: Celozzi and Ciabini's 10.
pub const DEFAULT_SHINGLE_WIDTH: usize = 10;

/// The largest `--shingle` accepted.
pub const MAX_SHINGLE_WIDTH: usize = 1000;

/// The largest signature (`--bands` × `--rows`) accepted: 8 KB per document.
pub const MAX_SIGNATURE_LEN: usize = 1024;

/// The seed of the hash functions: fixed, so that signatures computed by
/// different runs (and the archive's stored ones) are comparable.
pub const DEFAULT_SEED: u64 = 0x6d69_6e68_6173_6831;

/// The Mersenne prime 2^61 − 1, the modulus of the hash functions.
const PRIME: u64 = (1 << 61) - 1;

/// A document's shingle set: distinct shingle hashes, sorted.
pub type ShingleSet = Vec<u64>;

/// The shingle set of `text` with shingles of `width` characters (see the
/// module's documentation for the normalisation).
pub fn shingles(text: &str, width: usize) -> ShingleSet {
    let normalised = normalise(text);
    let bounds: Vec<usize> =
        normalised.char_indices().map(|(i, _)| i).chain(std::iter::once(normalised.len())).collect();
    let chars = bounds.len() - 1;
    let mut set: ShingleSet = if chars == 0 {
        Vec::new()
    } else if chars <= width {
        vec![xxhash_rust::xxh3::xxh3_64(normalised.as_bytes())]
    } else {
        bounds.windows(width + 1).map(|w| xxhash_rust::xxh3::xxh3_64(&normalised.as_bytes()[w[0]..w[width]])).collect()
    };
    set.sort_unstable();
    set.dedup();
    set
}

/// `text` lower-cased, each whitespace run one space, trimmed.
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// The Jaccard similarity |A ∩ B| / |A ∪ B| of two shingle sets (0 when
/// both are empty).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 { 0.0 } else { common as f64 / union as f64 }
}

/// A MinHash signature: per hash function, the least value it gives any
/// shingle of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature(pub Vec<u64>);

impl Signature {
    /// The share of positions where two signatures agree: the estimate of the
    /// Jaccard similarity of their shingle sets. Signatures of different
    /// lengths agree nowhere past the shorter one.
    pub fn agreement(&self, other: &Signature) -> f64 {
        let len = self.0.len().max(other.0.len());
        if len == 0 {
            return 0.0;
        }
        let same = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        same as f64 / len as f64
    }
}

/// The hash functions of a signature, `h_i(x) = (a_i·x + b_i) mod p` over a
/// shingle's XXH3-64 hash `x` (reduced mod p), with p = 2^61 − 1 and `a_i`,
/// `b_i` drawn from a ChaCha8 generator seeded with `seed`.
///
/// Why this family rather than `k` seeded XXH3 hashes of every shingle: a
/// shingle is hashed once, and each further function costs one 128-bit
/// multiplication and a Mersenne reduction instead of a pass over the
/// shingle's bytes, several times cheaper for 100 functions. The family is
/// 2-universal, not exactly min-wise independent: over structured inputs
/// (0, 1, 2…) its minima are biased, but its inputs are XXH3 hashes, which
/// look random, and over those the bias is below what the tests can see; the
/// unit tests check that the collision rate of a position is the Jaccard
/// similarity and that banding retrieves at the rate 1 − (1 − t^r)^b.
#[derive(Debug, Clone)]
pub struct MinHasher {
    width: usize,
    seed: u64,
    coefficients: Vec<(u64, u64)>,
}

impl MinHasher {
    /// Hash functions for signatures of `len` values over shingles of `width`
    /// characters; both are validated here.
    pub fn new(width: usize, len: usize, seed: u64) -> Result<MinHasher, ParamError> {
        check("--shingle", width, 1..=MAX_SHINGLE_WIDTH)?;
        check("--bands × --rows", len, 1..=MAX_SIGNATURE_LEN)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let coefficients = (0..len).map(|_| (rng.random_range(1..PRIME), rng.random_range(0..PRIME))).collect();
        Ok(MinHasher { width, seed, coefficients })
    }

    /// Characters per shingle.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Values per signature.
    pub fn len(&self) -> usize {
        self.coefficients.len()
    }

    /// Whether signatures are empty (never: [`MinHasher::new`] refuses it).
    pub fn is_empty(&self) -> bool {
        self.coefficients.is_empty()
    }

    /// The seed of the hash functions.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The shingle set of `text` ([`shingles`] with this width).
    pub fn shingles(&self, text: &str) -> ShingleSet {
        shingles(text, self.width)
    }

    /// The signature of a shingle set; `None` when it is empty (a document
    /// without text is similar to nothing).
    pub fn signature(&self, shingles: &[u64]) -> Option<Signature> {
        if shingles.is_empty() {
            return None;
        }
        let mut mins = vec![u64::MAX; self.len()];
        for &shingle in shingles {
            let x = shingle % PRIME;
            for (min, &(a, b)) in mins.iter_mut().zip(&self.coefficients) {
                *min = (*min).min(mod_prime(u128::from(a) * u128::from(x) + u128::from(b)));
            }
        }
        Some(Signature(mins))
    }
}

/// `value mod 2^61 − 1` for a value below 2^122 + 2^61: two folds of the
/// Mersenne reduction (the second in 64 bits) and one subtraction.
fn mod_prime(value: u128) -> u64 {
    // Below 2^61 + 2^61 + 1 after the first fold: it fits in 64 bits.
    let folded = ((value & u128::from(PRIME)) + (value >> 61)) as u64;
    let folded = (folded & PRIME) + (folded >> 61);
    if folded >= PRIME { folded - PRIME } else { folded }
}

fn check(flag: &'static str, value: usize, range: std::ops::RangeInclusive<usize>) -> Result<(), ParamError> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(ParamError { flag, value: value.to_string(), expected: format!("{}..={}", range.start(), range.end()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_lower_cased_and_whitespace_runs_are_one_space() {
        assert_eq!(normalise("  Žluťoučký\t\n KŮŇ  "), "žluťoučký kůň");
        assert_eq!(shingles("ABCD  EFGH", 3), shingles("abcd\nefgh", 3));
        assert_eq!(shingles("ab", 10).len(), 1, "a short text is one shingle");
        assert!(shingles(" \n ", 10).is_empty());
        // Shingles count characters, not bytes: 5 characters, 3 shingles of 3.
        assert_eq!(shingles("ěščřž", 3).len(), 3);
    }

    #[test]
    fn the_reduction_is_the_remainder() {
        for value in [0u128, 1, u128::from(PRIME), u128::from(PRIME) + 5, (u128::from(PRIME) - 1).pow(2) + 12345] {
            assert_eq!(u128::from(mod_prime(value)), value % u128::from(PRIME), "{value}");
        }
    }

    #[test]
    fn jaccard_of_sets() {
        assert_eq!(jaccard(&[1, 2, 3, 4], &[3, 4, 5]), 0.4);
        assert_eq!(jaccard(&[], &[]), 0.0);
    }

    #[test]
    fn a_position_collides_with_probability_the_jaccard_similarity() {
        // |A ∩ B| = 300, |A ∪ B| = 1000: J = 0.3. Shingles are hashes, so the
        // elements are too (a linear family sees the structure of 0, 1, 2…).
        let shingle = |i: u64| xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes());
        let (mut a, mut b): (Vec<u64>, Vec<u64>) =
            ((0..650).map(shingle).collect(), (350..1000).map(shingle).collect());
        a.sort_unstable();
        b.sort_unstable();
        let hasher = MinHasher::new(10, 1000, 7).unwrap();
        let agreement = hasher.signature(&a).unwrap().agreement(&hasher.signature(&b).unwrap());
        assert!((agreement - 0.3).abs() < 0.05, "{agreement}");
        assert_eq!(hasher.signature(&[]), None);
    }

    #[test]
    fn parameters_out_of_range_name_their_flag() {
        assert!(MinHasher::new(0, 10, 1).unwrap_err().to_string().starts_with("--shingle 0 is out of range"));
        assert!(MinHasher::new(10, 2000, 1).unwrap_err().to_string().starts_with("--bands × --rows 2000"));
    }
}
