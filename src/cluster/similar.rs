//! `similar` on a [`Cluster`]: the chunk columns of an archive's similarity
//! table, computed as the ITA'09 system computed them.
//!
//! - Each worker walks its range of chunk hashes through the archive's
//!   postings (every process opens the same archive). For each hash, every
//!   ordered pair of the live documents holding it gets one common chunk.
//! - The pair counts go to the worker that owns the pair's first document (a
//!   stable hash of its name), which sums them over all ranges and keeps the
//!   document's `top` rows from `min_percent`, most similar first.
//! - The rows kept go to worker 0, whose process prints the table.
//!
//! The counts are those the archive stores (distinct chunk hashes shared, over
//! each document's distinct chunks), computed afresh; the aligned columns,
//! which need the alignment of every pair, are left empty.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::{Operator, OutputBuilderSession};
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use super::Cluster;
use super::detect::document_worker;
use crate::archive::ArchiveError;
use crate::archive::reader::ArchiveIndex;
use crate::archive::similar::{SimilarParams, SimilarRow, SimilarSummary};
use crate::error::Error;
use crate::report::model::percent;

/// Postings a worker reads at once: its range of hashes is walked in slices
/// of about this many (12 bytes each in memory).
const POSTINGS_PER_SLICE: u64 = 1 << 22;

/// Common chunks of one document with others, from one range of hashes.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PairCounts {
    /// The worker that owns `doc`.
    to: u32,
    /// The document (its archive id).
    doc: u32,
    /// (other document, common chunks).
    others: Vec<(u32, u32)>,
}

/// A row kept: (document, other, common chunks), sent to worker 0.
type KeptRow = (u32, u32, u64);

/// Computes the chunk similarities of `index`'s documents on the workers of
/// `cluster` (`job` hashes what every process's command must share): on
/// process 0 the rows `similar` would print, ordered by document, then by
/// `document_in_other_percent` (highest first), then by other, with this
/// process's bytes sent to the others; empty rows on the other processes.
pub fn similar(
    cluster: &Cluster,
    job: u64,
    index: &ArchiveIndex,
    params: &SimilarParams,
) -> Result<(Vec<SimilarRow>, SimilarSummary, u64), ArchiveError> {
    let ran = cluster.run(job, |worker| run_worker(worker, index, params));
    let (results, sent) = ran.map_err(|error| ArchiveError::Corpus(Error::Cluster(error)))?;
    let mut kept = Vec::new();
    for result in results {
        kept.extend(result?);
    }
    let mut rows: Vec<SimilarRow> = kept.into_iter().map(|row| similar_row(index, row)).collect();
    rows.sort_by(|a, b| {
        a.document
            .cmp(&b.document)
            .then(b.document_in_other_percent.total_cmp(&a.document_in_other_percent))
            .then(a.other.cmp(&b.other))
    });
    let summary = SimilarSummary { documents: index.header().documents, rows: rows.len() as u64, deleted: Vec::new() };
    Ok((rows, summary, sent))
}

/// The table's row of a kept pair, without the aligned columns.
fn similar_row(index: &ArchiveIndex, (a, b, common): KeptRow) -> SimilarRow {
    let distinct = |id: u32| u64::from(index.record(id).distinct_chunks);
    SimilarRow {
        document: index.name(a).to_string(),
        other: index.name(b).to_string(),
        document_in_other_percent: percent(common, distinct(a)),
        other_in_document_percent: percent(common, distinct(b)),
        common_chunks: common,
        aligned_chars: None,
        document_aligned_percent: None,
        other_aligned_percent: None,
    }
}

/// Sums of common chunks per (document, other), of the documents a worker owns.
type Sums = Rc<RefCell<HashMap<u32, HashMap<u32, u64>>>>;

/// One worker's part: counts its range of hashes, sums the counts of its
/// documents, keeps their top rows; worker 0 returns every worker's rows.
fn run_worker(worker: &mut Worker, index: &ArchiveIndex, params: &SimilarParams) -> Result<Vec<KeptRow>, ArchiveError> {
    let (me, peers) = (worker.index(), worker.peers());
    let sums: Sums = Rc::default();
    let gathered: Rc<RefCell<Vec<KeptRow>>> = Rc::default();
    let probe = ProbeHandle::new();
    let (mut counts, mut kept): (InputHandle<u32, CapacityContainerBuilder<Vec<PairCounts>>>, InputHandle<u32, _>) =
        worker.dataflow::<u32, _, _>(|scope| {
            let (counts_input, counts) = scope.new_input::<Vec<PairCounts>>();
            let (kept_input, kept) = scope.new_input::<Vec<KeptRow>>();
            let summed = Rc::clone(&sums);
            counts
                .unary(Exchange::new(|c: &PairCounts| u64::from(c.to)), "SumPairs", move |_, _| {
                    move |input, _: &mut OutputBuilderSession<'_, u32, CapacityContainerBuilder<Vec<()>>>| {
                        input.for_each_stamp(|_, data| {
                            let mut sums = summed.borrow_mut();
                            for message in data.flat_map(|batch| batch.drain(..)) {
                                let others = sums.entry(message.doc).or_default();
                                for (other, common) in message.others {
                                    *others.entry(other).or_default() += u64::from(common);
                                }
                            }
                        });
                    }
                })
                .probe_with(&probe);
            let rows = Rc::clone(&gathered);
            kept.sink(Exchange::new(|_: &KeptRow| 0), "GatherRows", move |(input, _)| {
                input.for_each_stamp(|_, data| data.for_each(|batch| rows.borrow_mut().append(batch)));
            });
            (counts_input, kept_input)
        });

    let hash_bits = index.settings().hash_bits;
    let (first, last) = hash_range(me, peers, hash_bits);
    let slices = (index.postings_len() / (peers as u64 * POSTINGS_PER_SLICE)).max(1);
    for (from, to) in slices_of(first, last, slices) {
        for message in count_pairs(index, from, to, peers)? {
            counts.send(message);
        }
        worker.step();
    }
    counts.close();
    while probe.less_equal(&0) {
        worker.step_or_park(None);
    }
    let owned = std::mem::take(&mut *sums.borrow_mut());
    for (doc, others) in owned {
        for row in top_rows(index, doc, others, params) {
            kept.send(row);
        }
    }
    kept.close();
    while worker.has_dataflows() {
        worker.step_or_park(None);
    }
    Ok(std::mem::take(&mut *gathered.borrow_mut()))
}

/// The pair counts of the hashes from `first` to `last`, one message per
/// document, to the worker (of `peers`) that owns it.
fn count_pairs(index: &ArchiveIndex, first: u64, last: u64, peers: usize) -> Result<Vec<PairCounts>, ArchiveError> {
    let mut pairs: HashMap<(u32, u32), u32> = HashMap::new();
    index.for_each_chunk_between(first, last, |_, docs| {
        for &a in docs {
            for &b in docs.iter().filter(|&&b| b != a) {
                *pairs.entry((a, b)).or_default() += 1;
            }
        }
    })?;
    let mut pairs: Vec<((u32, u32), u32)> = pairs.into_iter().collect();
    pairs.sort_unstable();
    let messages = pairs.chunk_by(|x, y| x.0.0 == y.0.0).map(|group| {
        let doc = group[0].0.0;
        let to = document_worker(index.name(doc), peers) as u32;
        PairCounts { to, doc, others: group.iter().map(|&((_, b), common)| (b, common)).collect() }
    });
    Ok(messages.collect())
}

/// The rows `similar` keeps of document `doc` whose common chunks with each
/// other document are `others`: those from `min_percent`, the `top` most
/// similar (then by the other's name).
fn top_rows(index: &ArchiveIndex, doc: u32, others: HashMap<u32, u64>, params: &SimilarParams) -> Vec<KeptRow> {
    let distinct = u64::from(index.record(doc).distinct_chunks);
    let mut rows: Vec<(f64, &str, KeptRow)> = others
        .into_iter()
        .map(|(other, common)| (percent(common, distinct), index.name(other), (doc, other, common)))
        .filter(|(share, _, _)| *share >= params.min_percent)
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    rows.into_iter().take(params.top).map(|(_, _, row)| row).collect()
}

/// The hashes (of `hash_bits` bits) whose part of the index is worker
/// `worker`'s of `peers` ([`super::detect::hash_worker`]): from the first to
/// the last, inclusive.
pub fn hash_range(worker: usize, peers: usize, hash_bits: u32) -> (u64, u64) {
    // The first hash of worker w: the least h with (h << (64 - bits)) * peers >= w << 64.
    let first_of = |w: usize| -> u128 {
        let scaled = ((w as u128) << 64).div_ceil(peers as u128);
        scaled.div_ceil(1u128 << (64 - hash_bits))
    };
    (first_of(worker) as u64, (first_of(worker + 1) - 1) as u64)
}

/// `first..=last` cut into `slices` consecutive ranges (inclusive bounds).
fn slices_of(first: u64, last: u64, slices: u64) -> impl Iterator<Item = (u64, u64)> {
    let span = u128::from(last - first) + 1;
    let bound = move |i: u64| first as u128 + span * u128::from(i) / u128::from(slices);
    (0..slices).map(move |i| (bound(i) as u64, (bound(i + 1) - 1) as u64)).filter(|(a, b)| a <= b)
}

#[cfg(test)]
mod tests {
    use super::super::detect::hash_worker;
    use super::*;

    proptest::proptest! {
        #[test]
        fn hash_ranges_are_those_of_the_index_parts(peers in 1usize..9, hash_bits in 1u32..=64, probe: u64) {
            let mask = if hash_bits == 64 { u64::MAX } else { (1u64 << hash_bits) - 1 };
            let hash = probe & mask;
            let worker = hash_worker(hash, hash_bits, peers);
            let (first, last) = hash_range(worker, peers, hash_bits);
            proptest::prop_assert!(first <= hash && hash <= last, "{hash} of worker {worker} outside {first}..={last}");
            proptest::prop_assert_eq!(hash_range(0, peers, hash_bits).0, 0);
            proptest::prop_assert_eq!(hash_range(peers - 1, peers, hash_bits).1, mask);
        }

        #[test]
        fn slices_cover_a_range_once(first in 0u64..1000, len in 0u64..1000, slices in 1u64..20) {
            let last = first + len;
            let cut: Vec<(u64, u64)> = slices_of(first, last, slices).collect();
            proptest::prop_assert_eq!(cut.first().map(|s| s.0), Some(first));
            proptest::prop_assert_eq!(cut.last().map(|s| s.1), Some(last));
            proptest::prop_assert!(cut.windows(2).all(|w| w[0].1 + 1 == w[1].0));
        }
    }
}
