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
    sentences: usize,
}

impl Idf {
    /// Computes idf = ln(N / df) over the N sentences of both documents.
    pub fn compute(&mut self, a: &Sentences, b: &Sentences) {
        self.ids.clear();
        self.idf.clear();
        for term in a.terms.iter().chain(&b.terms) {
            let next = self.idf.len() as u32;
            let id = *self.ids.entry(term.term).or_insert(next);
            if id == next {
                self.idf.push(0.0);
            }
            self.idf[id as usize] += 1.0;
        }
        self.sentences = a.len() + b.len();
        let n = self.sentences as f32;
        for value in &mut self.idf {
            *value = (n / *value).ln();
        }
    }

    /// True when `term` occurs in so many sentences (more than a tenth, and more
    /// than [`COMMON_TERM_SENTENCES`]) that walking its sentence pairs costs more
    /// than it tells: stop words when they are kept.
    pub fn is_common(&self, term: u64) -> bool {
        let df = self.sentences as f32 * (-self.get(term)).exp();
        df > (self.sentences as f32 / 10.0).max(COMMON_TERM_SENTENCES)
    }

    /// The dense number of `term`, when it occurs in either document.
    pub fn id(&self, term: u64) -> Option<u32> {
        self.ids.get(&term).copied()
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

    /// The idf of `term` (0 for a term of neither document).
    pub fn get(&self, term: u64) -> f32 {
        self.id(term).map_or(0.0, |id| self.idf[id as usize])
    }

    /// The tf-idf weight of a term count.
    pub fn weight(&self, term: &TermCount) -> f32 {
        term.count as f32 * self.get(term.term)
    }

    /// Euclidean norm of the tf-idf vector of `terms`.
    pub fn norm(&self, terms: &[TermCount]) -> f32 {
        terms.iter().map(|t| self.weight(t).powi(2)).sum::<f32>().sqrt()
    }
}

/// Reusable buffers of [`seeds`].
#[derive(Debug, Default)]
pub struct SeedScratch {
    postings: Vec<(u64, u32, f32)>,
    by_term: TermMap<(u32, u32)>,
    source_norms: Vec<f32>,
    dot: Vec<f32>,
    common: Vec<u32>,
    touched: Vec<u32>,
}

/// Appends to `out` every sentence pair whose tf-idf cosine reaches `min_cosine`
/// and whose Dice coefficient reaches `min_dice`, ordered by suspicious sentence.
pub fn seeds(
    suspicious: &Sentences,
    source: &Sentences,
    idf: &Idf,
    min_cosine: f32,
    min_dice: f32,
    scratch: &mut SeedScratch,
    out: &mut Vec<Seed>,
) {
    let SeedScratch { postings, by_term, source_norms, dot, common, touched } = scratch;
    postings.clear();
    source_norms.clear();
    for (j, sentence) in (0u32..).zip(&source.sentences) {
        let terms = &source.terms[sentence.terms.clone()];
        source_norms.push(idf.norm(terms));
        // Common terms still weigh in the norms, but their sentence pairs are
        // not walked: they add to no pair's dot product or shared-word count.
        postings.extend(terms.iter().filter(|t| !idf.is_common(t.term)).map(|t| (t.term, j, idf.weight(t))));
    }
    postings.sort_unstable_by_key(|p| (p.0, p.1));
    by_term.clear();
    for (start, group) in postings.chunk_by(|a, b| a.0 == b.0).scan(0u32, |at, g| {
        let start = *at;
        *at += g.len() as u32;
        Some((start, g))
    }) {
        by_term.insert(group[0].0, (start, start + group.len() as u32));
    }
    dot.clear();
    dot.resize(source.len(), 0.0);
    common.clear();
    common.resize(source.len(), 0);
    for (i, sentence) in (0u32..).zip(&suspicious.sentences) {
        let terms = &suspicious.terms[sentence.terms.clone()];
        for term in terms {
            let Some(&(start, end)) = by_term.get(&term.term) else { continue };
            let weight = idf.weight(term);
            for &(_, j, source_weight) in &postings[start as usize..end as usize] {
                if common[j as usize] == 0 {
                    touched.push(j);
                }
                dot[j as usize] += weight * source_weight;
                common[j as usize] += 1;
            }
        }
        let norm = idf.norm(terms);
        touched.sort_unstable();
        for &j in touched.iter() {
            let j_terms = source.sentences[j as usize].terms.len();
            let dice = 2.0 * common[j as usize] as f32 / (terms.len() + j_terms) as f32;
            let denominator = norm * source_norms[j as usize];
            let cosine = if denominator > 0.0 { dot[j as usize] / denominator } else { 0.0 };
            if dice >= min_dice && cosine >= min_cosine {
                out.push(Seed { suspicious: i, source: j, structural: false });
            }
            dot[j as usize] = 0.0;
            common[j as usize] = 0;
        }
        touched.clear();
    }
}

/// Cosine of the tf-idf vectors of two bags of terms, each sorted by term with
/// repeats allowed (they are summed).
pub fn bag_cosine(a: &[TermCount], b: &[TermCount], idf: &Idf) -> f32 {
    let summed = |bag: &[TermCount]| -> Vec<(u64, f32)> {
        let mut out: Vec<(u64, f32)> = Vec::with_capacity(bag.len());
        for t in bag {
            match out.last_mut() {
                Some(last) if last.0 == t.term => last.1 += t.count as f32,
                _ => out.push((t.term, t.count as f32)),
            }
        }
        out.iter_mut().for_each(|(term, w)| *w *= idf.get(*term));
        out
    };
    let (a, b) = (summed(a), summed(b));
    let norm = |v: &[(u64, f32)]| v.iter().map(|x| x.1 * x.1).sum::<f32>().sqrt();
    let (mut i, mut j, mut dot) = (0, 0, 0.0f32);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    let denominator = norm(&a) * norm(&b);
    if denominator > 0.0 { dot / denominator } else { 0.0 }
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
        let mut idf = Idf::default();
        idf.compute(&suspicious, &source);
        let mut found = Vec::new();
        seeds(&suspicious, &source, &idf, 0.33, 0.33, &mut SeedScratch::default(), &mut found);
        // Sentence 1 shares telescope, record, strange, signal, night with source
        // sentence 0; "harbour" alone does not make sentences 2 and 1 alike enough.
        assert_eq!(found, [Seed { suspicious: 1, source: 0, structural: false }]);
        let mut strict = Vec::new();
        seeds(&suspicious, &source, &idf, 0.99, 0.99, &mut SeedScratch::default(), &mut strict);
        assert!(strict.is_empty());
    }

    #[test]
    fn bag_cosine_of_equal_bags_is_one_and_of_disjoint_bags_zero() {
        let a = sentences("Telescopes record strange signals. Pulsars rotate quickly.");
        let b = sentences("Bakers sell bread before dawn.");
        let mut idf = Idf::default();
        idf.compute(&a, &b);
        assert!((bag_cosine(&a.terms, &a.terms, &idf) - 1.0).abs() < 1e-6);
        assert_eq!(bag_cosine(&a.terms, &b.terms, &idf), 0.0);
    }
}
