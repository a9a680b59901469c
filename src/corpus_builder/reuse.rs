//! The reuse-heavy mode (`pan-detect corpus --reuse-pool N`): every document,
//! source and suspicious, is drawn from one shared pool of N input sentences
//! and written as it is, without the letter cipher of recombined documents, so
//! that any two documents share a few sentences, as theses share a template and
//! standard quotations. Cases are planted as in every corpus; the sentences that
//! documents share through the pool are not cases.
//!
//! The pool is a uniform sample of the input's sentences of at least
//! five words (`MIN_POOL_WORDS`), drawn by its own generator from the seed and the
//! texts only. It does not depend on the size of the corpus: a 50 MB and a 500 MB
//! corpus with the same seed draw from the same sentences, and a sentence's
//! document frequency grows with the collection, as in a real archive.

use std::collections::HashSet;
use std::path::PathBuf;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::plan::{Purpose, rng_for};
use super::pool::{MIN_POOL_WORDS, Made, Pool, compose};
use super::stats::{DocumentSet, ReuseStats};
use super::texts::{TextBlocks, split_sentences};
use super::{CorpusError, DocChars};
use crate::progress::{Progress, Stage};

/// The pool of a reuse-heavy corpus, and how often its documents drew each
/// sentence.
pub(super) struct SharedPool {
    pool: Pool,
    /// Input sentences of [`MIN_POOL_WORDS`] or more words (the pool is a sample of them).
    input_sentences: u64,
    usage: PoolUsage,
}

impl SharedPool {
    /// Samples `size` sentences of the input `files` (read in order, `input_bytes`
    /// in all, for progress). A `size` larger than the input's sentences of
    /// [`MIN_POOL_WORDS`]+ words is refused, naming `--reuse-pool`.
    pub(super) fn sample(
        files: &[PathBuf],
        size: usize,
        seed: u64,
        input_bytes: u64,
        progress: &dyn Progress,
    ) -> Result<SharedPool, CorpusError> {
        progress.start(Stage::CorpusPool, input_bytes);
        let mut reservoir = Reservoir::new(size, rng_for(seed, Purpose::Pool, 0));
        for path in files {
            let mut blocks = TextBlocks::open(path)?;
            while let Some(block) = blocks.next_block()? {
                for sentence in split_sentences(&block).sentences.iter().filter(|s| s.words >= MIN_POOL_WORDS) {
                    reservoir.offer(&block[sentence.bytes.clone()], sentence.chars.len(), sentence.words);
                }
                progress.advance(block.len() as u64);
            }
        }
        progress.finish();
        if reservoir.seen < size as u64 {
            return Err(CorpusError::InvalidOption {
                option: "--reuse-pool",
                message: format!(
                    "a pool of {size} sentences is larger than the {} sentences of {MIN_POOL_WORDS} or more words in the input texts",
                    reservoir.seen
                ),
            });
        }
        let input_sentences = reservoir.seen;
        let pool = reservoir.into_pool();
        let usage = PoolUsage::new(pool.len());
        Ok(SharedPool { pool, input_sentences, usage })
    }

    /// A document of about `target` characters of pool sentences, drawn
    /// uniformly, none twice unless the document holds the whole pool, written as
    /// they are. Returns it with the indices of its sentences.
    pub(super) fn draw(&self, target: usize, doc_chars: DocChars, rng: &mut ChaCha8Rng) -> (Made, Vec<u32>) {
        let mut picks = DistinctPicks::new(self.pool.len());
        compose(&self.pool, target, doc_chars, rng, |rng| picks.pick(rng), |sentence, out| out.push_str(sentence))
    }

    /// Counts a written document of `set` that holds the pool sentences `written`.
    pub(super) fn record(&mut self, set: DocumentSet, written: &[u32]) {
        self.usage.record(set, written);
    }

    /// The figures of the README.
    pub(super) fn stats(&self) -> ReuseStats {
        self.usage.stats(&self.pool, self.input_sentences)
    }
}

/// A uniform sample of fixed size from a stream of sentences of unknown length
/// (reservoir sampling, Vitter's algorithm R), in one pass and with memory for the
/// sample only.
struct Reservoir {
    size: usize,
    rng: ChaCha8Rng,
    /// Sentences offered so far.
    seen: u64,
    /// The sample: (number in the stream, text, characters, words).
    kept: Vec<(u64, String, usize, usize)>,
}

impl Reservoir {
    fn new(size: usize, rng: ChaCha8Rng) -> Reservoir {
        Reservoir { size, rng, seen: 0, kept: Vec::new() }
    }

    /// Offers the next sentence of the stream.
    fn offer(&mut self, sentence: &str, chars: usize, words: usize) {
        let number = self.seen;
        self.seen += 1;
        if self.kept.len() < self.size {
            self.kept.push((number, sentence.to_string(), chars, words));
            return;
        }
        let slot = self.rng.random_range(0..=number);
        if let Some(kept) = self.kept.get_mut(slot as usize) {
            *kept = (number, sentence.to_string(), chars, words);
        }
    }

    /// The sample as a pool, in input order.
    fn into_pool(mut self) -> Pool {
        self.kept.sort_unstable_by_key(|(number, ..)| *number);
        let mut pool = Pool::default();
        for (_, text, chars, words) in &self.kept {
            pool.push(text, *chars, *words);
        }
        pool
    }
}

/// Uniformly drawn pool indices, none twice until every index has been drawn
/// (then they start over), so that a document repeats a sentence only when it is
/// longer than the pool.
struct DistinctPicks {
    pool_len: usize,
    used: HashSet<u32>,
}

impl DistinctPicks {
    fn new(pool_len: usize) -> DistinctPicks {
        DistinctPicks { pool_len, used: HashSet::new() }
    }

    /// The next index. The set is only asked for membership, so its iteration
    /// order (random per process) never shows in the corpus.
    fn pick(&mut self, rng: &mut ChaCha8Rng) -> usize {
        if self.used.len() >= self.pool_len {
            self.used.clear();
        }
        loop {
            let index = rng.random_range(0..self.pool_len);
            // Pool indices fit in u32 (see `compose`).
            if self.used.insert(index as u32) {
                return index;
            }
        }
    }
}

/// Per pool sentence and document set: the documents that hold it.
struct PoolUsage {
    documents: [Vec<u32>; 2],
    per_set: [u64; 2],
}

impl PoolUsage {
    fn new(pool_len: usize) -> PoolUsage {
        PoolUsage { documents: [vec![0; pool_len], vec![0; pool_len]], per_set: [0; 2] }
    }

    /// Counts a document of `set` holding the pool sentences `written`.
    fn record(&mut self, set: DocumentSet, written: &[u32]) {
        let mut distinct = written.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let counts = &mut self.documents[set as usize];
        for index in distinct {
            counts[index as usize] += 1;
        }
        self.per_set[set as usize] += 1;
    }

    /// The figures, computed exactly: two documents share a sentence once for each
    /// pool sentence both hold, so the shared sentences summed over all pairs of
    /// documents are the sum over sentences of C(df, 2), where df is the number of
    /// documents holding the sentence (over source–suspicious pairs, of
    /// df_source × df_suspicious).
    fn stats(&self, pool: &Pool, input_sentences: u64) -> ReuseStats {
        let [sources, suspicious] = &self.documents;
        let (mut incidences, mut all_pairs, mut cross_pairs, mut unused) = (0u64, 0u128, 0u128, 0usize);
        for (&in_sources, &in_suspicious) in sources.iter().zip(suspicious) {
            let df = u64::from(in_sources) + u64::from(in_suspicious);
            incidences += df;
            all_pairs += u128::from(df) * u128::from(df.saturating_sub(1)) / 2;
            cross_pairs += u128::from(in_sources) * u128::from(in_suspicious);
            unused += usize::from(df == 0);
        }
        let documents = self.per_set[0] + self.per_set[1];
        let pairs = u128::from(documents) * u128::from(documents.saturating_sub(1)) / 2;
        let source_suspicious = u128::from(self.per_set[0]) * u128::from(self.per_set[1]);
        let mean = |sum: u128, count: u128| if count == 0 { 0.0 } else { sum as f64 / count as f64 };
        ReuseStats {
            pool_sentences: pool.len(),
            pool_bytes: pool.bytes() as u64,
            input_sentences,
            unused_sentences: unused,
            documents_per_sentence: mean(u128::from(incidences), pool.len() as u128),
            shared_per_pair: mean(all_pairs, pairs),
            shared_per_source_suspicious_pair: mean(cross_pairs, source_suspicious),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::texts::list_texts;
    use super::*;
    use crate::progress::Silent;

    fn fixture_files() -> Vec<PathBuf> {
        list_texts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus-fixtures/texts")).unwrap()
    }

    fn sample(size: usize, seed: u64) -> Result<SharedPool, CorpusError> {
        SharedPool::sample(&fixture_files(), size, seed, 0, &Silent)
    }

    fn sentences(pool: &Pool) -> Vec<&str> {
        (0..pool.len()).map(|i| pool.sentence(i)).collect()
    }

    #[test]
    fn the_pool_is_a_deterministic_sample_of_input_sentences() {
        let first = sample(200, 9).unwrap();
        let again = sample(200, 9).unwrap();
        let other = sample(200, 10).unwrap();
        assert_eq!(first.pool.len(), 200);
        assert_eq!(sentences(&first.pool), sentences(&again.pool));
        assert_ne!(sentences(&first.pool), sentences(&other.pool));
        let input: String = fixture_files().iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
        for sentence in sentences(&first.pool) {
            assert!(input.contains(sentence), "not an input sentence: {sentence}");
            assert!(super::super::texts::count_words(sentence) >= MIN_POOL_WORDS, "{sentence}");
        }
        // The whole input, when asked for all its sentences, in input order.
        let all = sample(first.input_sentences as usize, 1).unwrap();
        let positions: Vec<usize> = sentences(&all.pool).iter().map(|s| input.find(s).unwrap()).collect();
        assert!(positions.windows(2).filter(|w| w[0] > w[1]).count() < positions.len() / 50);
    }

    #[test]
    fn a_pool_larger_than_the_input_is_refused_naming_the_option() {
        let available = sample(1, 1).unwrap().input_sentences;
        let error = sample(available as usize + 1, 1).err().unwrap().to_string();
        assert_eq!(
            error,
            format!(
                "--reuse-pool: a pool of {} sentences is larger than the {available} sentences of 5 or more words in the input texts",
                available + 1
            )
        );
    }

    #[test]
    fn documents_share_pool_sentences_verbatim_and_never_repeat_one() {
        let shared = sample(20, 3).unwrap();
        let doc_chars = DocChars { min: 1500, max: 2500 };
        let (first, first_written) = shared.draw(2000, doc_chars, &mut rng_for(3, Purpose::Recombine, 0));
        let (second, second_written) = shared.draw(2000, doc_chars, &mut rng_for(3, Purpose::Recombine, 1));
        for (made, written) in [(&first, &first_written), (&second, &second_written)] {
            // No cipher: the text is the pool sentences, joined by a space or a newline.
            let expected: Vec<&str> = written.iter().map(|&i| shared.pool.sentence(i as usize)).collect();
            let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(squeeze(&made.text), squeeze(&expected.join(" ")));
            let distinct: HashSet<&u32> = written.iter().collect();
            assert_eq!(distinct.len(), written.len().min(20), "a sentence repeated before the pool ran out");
        }
        let common = first_written.iter().filter(|i| second_written.contains(i)).count();
        assert!(common > 0, "two documents of this size from 20 sentences must share some");
        let sentence =
            shared.pool.sentence(*first_written.iter().find(|i| second_written.contains(i)).unwrap() as usize);
        assert!(first.text.contains(sentence) && second.text.contains(sentence), "{sentence}");
    }

    #[test]
    fn sharing_figures_are_exact() {
        let mut pool = Pool::default();
        for i in 0..4 {
            pool.push(&format!("Sentence {i} of the pool here."), 28, 6);
        }
        let mut usage = PoolUsage::new(4);
        usage.record(DocumentSet::Source, &[0, 1, 1]);
        usage.record(DocumentSet::Source, &[1, 2]);
        usage.record(DocumentSet::Suspicious, &[1]);
        let stats = usage.stats(&pool, 10);
        // df = [1, 3, 1, 0]: 5 incidences over 4 sentences.
        assert_eq!(stats.documents_per_sentence, 1.25);
        assert_eq!(stats.unused_sentences, 1);
        // Pairs (d1,d2) share {1}, (d1,d3) {1}, (d2,d3) {1}: 3 over 3 pairs.
        assert_eq!(stats.shared_per_pair, 1.0);
        // Source-suspicious pairs (d1,d3) and (d2,d3) share one each.
        assert_eq!(stats.shared_per_source_suspicious_pair, 1.0);
        assert_eq!((stats.pool_sentences, stats.input_sentences), (4, 10));
    }
}
