//! Seeding: sentence pairs of a suspicious and a source document that share
//! enough words (Sanchez-Perez, Sidorov and Gelbukh, PAN 2014).
//!
//! Each sentence is a tf-idf vector over stems, with idf computed over the
//! sentences of the two documents; a pair is a seed when both its cosine and the
//! Dice coefficient of its stem sets reach their thresholds. The cosine rewards
//! shared rare words, Dice demands that a good share of both sentences is shared,
//! so that one long sentence cannot seed with many short ones. Only sentence pairs
//! that share a term are ever scored (an inverted index over the source's
//! sentences), so the cost follows the shared words, not the product of the
//! documents' lengths.

use crate::align::sentences::{Sentences, TermCount, TermMap};

/// See [`Idf::is_common`].
pub const COMMON_TERM_SENTENCES: f32 = 20.0;

/// See [`Idf::is_rare`].
pub const RARE_TERM_SENTENCES: f32 = 3.0;

/// A seed: sentence `suspicious` of the suspicious document and sentence
/// `source` of the source document are alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seed {
    /// Sentence number in the suspicious document.
    pub suspicious: u32,
    /// Sentence number in the source document.
    pub source: u32,
    /// Found by a shared structure chunk rather than by shared words.
    pub structural: bool,
}

/// The idf of every term of a document pair, and a dense number for each term.
#[derive(Debug, Default)]
pub struct Idf {
    ids: TermMap<u32>,
    idf: Vec<f32>,
    common: Vec<bool>,
    rare: Vec<bool>,
    suspicious_ids: Vec<u32>,
    source_ids: Vec<u32>,
}

impl Idf {
    /// The idf of `suspicious` and `source` ([`compute`](Self::compute)), in
    /// a value of its own: the aligner keeps one and computes it again per pair.
    #[cfg(test)]
    pub fn of(suspicious: &Sentences, source: &Sentences) -> Idf {
        let mut idf = Idf::default();
        idf.compute(suspicious, source);
        idf
    }

    /// Computes idf = ln(N / df) over the N sentences of both documents
    /// (`suspicious` and `source`), and numbers their terms.
    pub fn compute(&mut self, suspicious: &Sentences, source: &Sentences) {
        self.ids.clear();
        self.idf.clear();
        for (sentences, ids) in [(suspicious, &mut self.suspicious_ids), (source, &mut self.source_ids)] {
            ids.clear();
            for term in &sentences.terms {
                let next = self.idf.len() as u32;
                let id = *self.ids.entry(term.term).or_insert(next);
                if id == next {
                    self.idf.push(0.0);
                }
                self.idf[id as usize] += 1.0;
                ids.push(id);
            }
        }
        let n = (suspicious.len() + source.len()) as f32;
        self.rare.clear();
        self.rare.extend(self.idf.iter().map(|&sentences| sentences <= RARE_TERM_SENTENCES));
        for value in &mut self.idf {
            *value = (n / *value).ln();
        }
        let most = (n / 10.0).max(COMMON_TERM_SENTENCES);
        self.common.clear();
        self.common.extend(self.idf.iter().map(|&idf| n * (-idf).exp() > most));
    }

    /// True when the term numbered `id` occurs in so many sentences (more than
    /// a tenth, and more than [`COMMON_TERM_SENTENCES`]) that walking its
    /// sentence pairs costs more than it tells: stop words when they are kept.
    pub fn is_common(&self, id: u32) -> bool {
        self.common[id as usize]
    }

    /// True when the term numbered `id` occurs in at most
    /// [`RARE_TERM_SENTENCES`] sentences of the pair: names, numbers and the
    /// words particular to one passage, which a copy keeps and text written
    /// on one scaffolding changes.
    pub fn is_rare(&self, id: u32) -> bool {
        self.rare[id as usize]
    }

    /// True when `term` is a term of the pair and rare ([`is_rare`](Self::is_rare)).
    pub fn is_rare_term(&self, term: u64) -> bool {
        self.ids.get(&term).is_some_and(|&id| self.rare[id as usize])
    }

    /// The dense numbers of the suspicious document's terms, one per entry
    /// of its [`Sentences::terms`].
    pub fn suspicious_ids(&self) -> &[u32] {
        &self.suspicious_ids
    }

    /// The dense numbers of the source document's terms, one per entry of
    /// its [`Sentences::terms`].
    pub fn source_ids(&self) -> &[u32] {
        &self.source_ids
    }

    /// The idf of the term with dense number `id`.
    pub fn by_id(&self, id: u32) -> f32 {
        self.idf[id as usize]
    }

    /// Number of distinct terms.
    pub fn len(&self) -> usize {
        self.idf.len()
    }

    /// True when the documents have no term.
    pub fn is_empty(&self) -> bool {
        self.idf.is_empty()
    }

    /// The tf-idf weight of a term count whose term is numbered `id`.
    fn weight(&self, term: &TermCount, id: u32) -> f32 {
        term.count as f32 * self.idf[id as usize]
    }

    /// Euclidean norm of the tf-idf vector of `terms`, numbered `ids`.
    fn norm(&self, terms: &[TermCount], ids: &[u32]) -> f32 {
        terms.iter().zip(ids).map(|(t, &id)| self.weight(t, id).powi(2)).sum::<f32>().sqrt()
    }
}

/// Reusable buffers of [`seeds`].
#[derive(Debug, Default)]
pub struct SeedScratch {
    /// The source's (sentence, weight) of each term, grouped by term number.
    postings: Vec<(u32, f32)>,
    /// Where each term number's postings start (one more entry at the end).
    term_starts: Vec<u32>,
    /// Where the next posting of each term number goes while they are listed.
    next_posting: Vec<u32>,
    source_norms: Vec<f32>,
    dot: Vec<f32>,
    shared: Vec<u32>,
    touched: Vec<u32>,
}

impl SeedScratch {
    /// Lists, for each term that is not common, the source sentences holding it
    /// with their weights (sentences in order), and each sentence's norm.
    /// Common terms still weigh in the norms, but their sentence pairs are not
    /// walked: they add to no pair's dot product or shared-word count.
    fn index_source(&mut self, source: &Sentences, idf: &Idf) {
        let ids = idf.source_ids();
        let walked = |id: u32| !idf.is_common(id);
        self.term_starts.clear();
        self.term_starts.resize(idf.len() + 1, 0);
        for &id in ids.iter().filter(|&&id| walked(id)) {
            self.term_starts[id as usize + 1] += 1;
        }
        for id in 0..idf.len() {
            self.term_starts[id + 1] += self.term_starts[id];
        }
        self.postings.clear();
        self.postings.resize(self.term_starts[idf.len()] as usize, (0, 0.0));
        self.next_posting.clear();
        self.next_posting.extend_from_slice(&self.term_starts[..idf.len()]);
        self.source_norms.clear();
        for (j, sentence) in (0u32..).zip(&source.sentences) {
            let (terms, ids) = (&source.terms[sentence.terms.clone()], &ids[sentence.terms.clone()]);
            self.source_norms.push(idf.norm(terms, ids));
            for (term, &id) in terms.iter().zip(ids).filter(|&(_, &id)| walked(id)) {
                let next = &mut self.next_posting[id as usize];
                self.postings[*next as usize] = (j, idf.weight(term, id));
                *next += 1;
            }
        }
    }
}

/// Appends to `out` every sentence pair whose tf-idf cosine reaches `min_cosine`
/// and whose Dice coefficient reaches `min_dice`, ordered by suspicious
/// sentence. `idf` was computed over the two documents.
pub fn seeds(
    suspicious: &Sentences,
    source: &Sentences,
    idf: &Idf,
    min_cosine: f32,
    min_dice: f32,
    scratch: &mut SeedScratch,
    out: &mut Vec<Seed>,
) {
    scratch.index_source(source, idf);
    let SeedScratch { postings, term_starts, source_norms, dot, shared, touched, .. } = scratch;
    let postings_of = |id: u32| &postings[term_starts[id as usize] as usize..term_starts[id as usize + 1] as usize];
    dot.clear();
    dot.resize(source.len(), 0.0);
    shared.clear();
    shared.resize(source.len(), 0);
    let suspicious_ids = idf.suspicious_ids();
    for (i, sentence) in (0u32..).zip(&suspicious.sentences) {
        let (terms, ids) = (&suspicious.terms[sentence.terms.clone()], &suspicious_ids[sentence.terms.clone()]);
        for (term, &id) in terms.iter().zip(ids) {
            let weight = idf.weight(term, id);
            for &(j, source_weight) in postings_of(id) {
                if shared[j as usize] == 0 {
                    touched.push(j);
                }
                dot[j as usize] += weight * source_weight;
                shared[j as usize] += 1;
            }
        }
        let norm = idf.norm(terms, ids);
        touched.sort_unstable();
        for &j in touched.iter() {
            let j_terms = source.sentences[j as usize].terms.len();
            let dice = 2.0 * shared[j as usize] as f32 / (terms.len() + j_terms) as f32;
            let denominator = norm * source_norms[j as usize];
            let cosine = if denominator > 0.0 { dot[j as usize] / denominator } else { 0.0 };
            if dice >= min_dice && cosine >= min_cosine {
                out.push(Seed { suspicious: i, source: j, structural: false });
            }
            dot[j as usize] = 0.0;
            shared[j as usize] = 0;
        }
        touched.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::sentences::{Terms, sentences_of};
    use crate::analysis::stem::{Language, WordStemmer};
    use crate::analysis::tokenize::{Tokenizer, TokenizerParams, Tokens};

    fn sentences(text: &str) -> Sentences {
        let mut tokens = Tokens::default();
        Tokenizer::new(TokenizerParams::default()).tokenize(text, &mut tokens);
        let mut out = Sentences::default();
        let mut terms = Terms::new(WordStemmer::new(Some(Language::English)), None);
        sentences_of(text, &tokens, &mut terms, 1, &mut out);
        out
    }

    #[test]
    fn alike_sentences_seed_and_topical_ones_do_not() {
        let suspicious = sentences(
            "Fishermen mend their torn nets on the quay. The telescope recorded a strange pulsing signal at night. \
             Gulls circled the harbour.",
        );
        let source = sentences(
            "A strange signal was recorded at night by the big telescope. The harbour is quiet. \
             Bakers sell bread before dawn.",
        );
        let idf = Idf::of(&suspicious, &source);
        let mut found = Vec::new();
        seeds(&suspicious, &source, &idf, 0.33, 0.33, &mut SeedScratch::default(), &mut found);
        // Sentence 1 shares telescope, record, strange, signal, night with source
        // sentence 0; "harbour" alone does not make sentences 2 and 1 alike enough.
        assert_eq!(found, [Seed { suspicious: 1, source: 0, structural: false }]);
        let mut strict = Vec::new();
        seeds(&suspicious, &source, &idf, 0.99, 0.99, &mut SeedScratch::default(), &mut strict);
        assert!(strict.is_empty());
    }

    /// Sentence pairs: (suspicious, source).
    type SentencePairs = Vec<(u32, u32)>;

    /// Every sentence pair scored the plain way: tf-idf vectors as lists,
    /// cosine and Dice over all pairs in f64, common terms left out of both
    /// the dot product and the shared count (but kept in the norms). Returns the
    /// pairs surely seeds, and those within rounding of `min`.
    fn reference_seeds(suspicious: &Sentences, source: &Sentences, min: f32) -> (SentencePairs, SentencePairs) {
        let sentences = (suspicious.len() + source.len()) as f64;
        let mut df: std::collections::HashMap<u64, f64> = Default::default();
        for term in suspicious.terms.iter().chain(&source.terms) {
            *df.entry(term.term).or_default() += 1.0;
        }
        // The common test in f32 as Idf computes it: a df at the bound may
        // come back from ln and exp a little above it.
        let n = sentences as f32;
        let common = |term: u64| n * (-(n / df[&term] as f32).ln()).exp() > (n / 10.0).max(COMMON_TERM_SENTENCES);
        let vector = |terms: &[TermCount]| -> Vec<(u64, f64)> {
            terms.iter().map(|t| (t.term, f64::from(t.count) * (sentences / df[&t.term]).ln())).collect()
        };
        let (mut sure, mut near) = (Vec::new(), Vec::new());
        for i in 0..suspicious.len() {
            for j in 0..source.len() {
                let (a, b) = (vector(suspicious.terms_of(i)), vector(source.terms_of(j)));
                let norm = |v: &[(u64, f64)]| v.iter().map(|x| x.1 * x.1).sum::<f64>().sqrt();
                let shared: Vec<(f64, f64)> = a
                    .iter()
                    .filter(|x| !common(x.0))
                    .filter_map(|x| b.iter().find(|y| y.0 == x.0).map(|y| (x.1, y.1)))
                    .collect();
                let dot: f64 = shared.iter().map(|(x, y)| x * y).sum();
                let denominator = norm(&a) * norm(&b);
                let cosine = if denominator > 0.0 { dot / denominator } else { 0.0 };
                let dice = 2.0 * shared.len() as f64 / (a.len() + b.len()) as f64;
                let least = cosine.min(dice);
                if shared.is_empty() {
                    continue;
                } else if (least - f64::from(min)).abs() < 1e-4 {
                    near.push((i as u32, j as u32));
                } else if least > f64::from(min) {
                    sure.push((i as u32, j as u32));
                }
            }
        }
        (sure, near)
    }

    proptest::proptest! {
        #[test]
        fn seeds_agree_with_scoring_every_sentence_pair(
            suspicious in proptest::collection::vec(proptest::collection::vec(0usize..12, 1..8), 1..12),
            source in proptest::collection::vec(proptest::collection::vec(0usize..12, 1..8), 1..12),
            min in 0.05f32..0.9,
        ) {
            const WORDS: [&str; 12] = [
                "telescope", "signal", "harbour", "bread", "night", "quay", "gull", "strange",
                "dawn", "net", "pulsar", "baker",
            ];
            let text = |sentences: &[Vec<usize>]| -> String {
                sentences.iter().map(|s| s.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" ") + ".\n").collect()
            };
            let (a, b) = (sentences(&text(&suspicious)), sentences(&text(&source)));
            let idf = Idf::of(&a, &b);
            let mut found = Vec::new();
            seeds(&a, &b, &idf, min, min, &mut SeedScratch::default(), &mut found);
            let found: Vec<(u32, u32)> = found.iter().map(|s| (s.suspicious, s.source)).collect();
            let (sure, near) = reference_seeds(&a, &b, min);
            proptest::prop_assert!(found.windows(2).all(|w| w[0] < w[1]), "{found:?} not in order");
            for pair in &sure {
                proptest::prop_assert!(found.contains(pair), "{pair:?} missing from {found:?}");
            }
            for pair in &found {
                proptest::prop_assert!(sure.contains(pair) || near.contains(pair), "{pair:?} is no seed");
            }
        }
    }
}
