//! In-place bucket sort for large arrays of hashed records: one American-flag
//! pass (in-place MSD radix) on the top 8 bits of the hash, then the 256 buckets
//! sorted in parallel with rayon, each by more such passes on the next 8 bits
//! until its pieces are small, and those by comparison. No second copy of the
//! records is ever made: the index's postings are most of a run's memory.

use rayon::prelude::*;

/// Sorts `items` by their `Ord`, which must order first by `hash(item)`, a
/// right-aligned hash of `hash_bits` bits (1..=64).
pub(crate) fn sort_by_hash<T, F>(items: &mut [T], hash_bits: u32, hash: F)
where
    T: Ord + Send,
    F: Fn(&T) -> u64 + Sync,
{
    let radix_bits = hash_bits.min(8);
    let shift = hash_bits - radix_bits;
    let buckets = american_flag_partition(items, 1 << radix_bits, |item| (hash(item) >> shift) as usize);
    buckets.into_par_iter().for_each(|bucket| sort_bucket(bucket, shift, &hash));
}

/// Buckets of at most this many records are sorted by comparison: below it,
/// a radix pass costs more than it saves.
const SMALL_BUCKET: usize = 256;

/// Sorts `bucket`, whose records share the hash bits above the lowest
/// `bits`: by American-flag passes on the next 8 of them while it is large,
/// then by comparison.
fn sort_bucket<T: Ord, F: Fn(&T) -> u64>(bucket: &mut [T], bits: u32, hash: &F) {
    if bucket.len() <= SMALL_BUCKET || bits == 0 {
        bucket.sort_unstable();
        return;
    }
    let radix_bits = bits.min(8);
    let shift = bits - radix_bits;
    let mask = (1 << radix_bits) - 1;
    for piece in american_flag_partition(bucket, 1 << radix_bits, |item| ((hash(item) >> shift) & mask) as usize) {
        sort_bucket(piece, shift, hash);
    }
}

/// Rearranges `items` in place so that items of bucket 0 come first, then bucket
/// 1, and so on, and returns the buckets.
fn american_flag_partition<T, F>(items: &mut [T], buckets: usize, bucket_of: F) -> Vec<&mut [T]>
where
    F: Fn(&T) -> usize,
{
    let mut counts = vec![0usize; buckets];
    for item in items.iter() {
        counts[bucket_of(item)] += 1;
    }
    let mut starts = vec![0usize; buckets + 1];
    for b in 0..buckets {
        starts[b + 1] = starts[b] + counts[b];
    }
    let mut next = starts[..buckets].to_vec();
    for b in 0..buckets {
        while next[b] < starts[b + 1] {
            let target = bucket_of(&items[next[b]]);
            if target == b {
                next[b] += 1;
            } else {
                items.swap(next[b], next[target]);
                next[target] += 1;
            }
        }
    }
    let mut rest = items;
    let mut slices = Vec::with_capacity(buckets);
    for count in counts {
        let (bucket, tail) = rest.split_at_mut(count);
        slices.push(bucket);
        rest = tail;
    }
    slices
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn sorts_like_the_standard_sort(mut items in prop::collection::vec((0u64..(1 << 20), any::<u8>()), 0..3000), bits in 20u32..=24) {
            let mut expected = items.clone();
            expected.sort_unstable();
            sort_by_hash(&mut items, bits, |item| item.0);
            prop_assert_eq!(items, expected);
        }
    }

    #[test]
    fn few_hash_bits_use_fewer_buckets() {
        let mut items = vec![3u64, 1, 2, 0, 3, 1];
        sort_by_hash(&mut items, 2, |&h| h);
        assert_eq!(items, [0, 1, 1, 2, 3, 3]);
    }
}
