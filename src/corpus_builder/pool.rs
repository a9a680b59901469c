//! Sentence pools and the documents drawn from them.
//!
//! When the input is smaller than the corpus asked for, further documents are
//! recombined from input sentences kept in a [`Pool`], each in its own letter
//! cipher ([`recombine`]). In the reuse-heavy mode ([`super::reuse`]) every
//! document is drawn from one shared pool without a cipher. Both compose their
//! documents alike ([`compose`]): randomly drawn sentences in paragraphs of 3 to 8.

use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::DocChars;

/// Input sentences shorter than this many words are not pooled: headings, list
/// items and numbers are shared by chance in any collection, and are not the
/// template text and quotations that theses share.
pub const MIN_POOL_WORDS: usize = 5;

/// Sentences of input text, in one string.
#[derive(Debug, Default)]
pub(super) struct Pool {
    text: String,
    sentences: Vec<PooledSentence>,
}

/// Where a pooled sentence is in [`Pool::text`], and its size.
#[derive(Debug)]
struct PooledSentence {
    start: usize,
    end: usize,
    chars: usize,
    words: usize,
}

impl Pool {
    /// Appends a sentence of `chars` characters and `words` words.
    pub(super) fn push(&mut self, sentence: &str, chars: usize, words: usize) {
        let start = self.text.len();
        self.text.push_str(sentence);
        self.sentences.push(PooledSentence { start, end: self.text.len(), chars, words });
    }

    /// Number of sentences.
    pub(super) fn len(&self) -> usize {
        self.sentences.len()
    }

    /// True when the pool holds no sentence.
    pub(super) fn is_empty(&self) -> bool {
        self.sentences.is_empty()
    }

    /// Bytes of all sentences.
    pub(super) fn bytes(&self) -> usize {
        self.text.len()
    }

    /// The text of sentence `index`.
    pub(super) fn sentence(&self, index: usize) -> &str {
        let sentence = &self.sentences[index];
        &self.text[sentence.start..sentence.end]
    }
}

/// A document made in memory, not yet written: cut from the input or drawn from
/// a pool.
pub(super) struct Made {
    /// The text.
    pub(super) text: String,
    /// Its words.
    pub(super) words: usize,
}

/// A document of about `target` characters of pool sentences, in paragraphs of 3
/// to 8 sentences: `pick` chooses each sentence's index, `write` appends its text.
/// Returns the document and the indices of the sentences written, in order.
pub(super) fn compose(
    pool: &Pool,
    target: usize,
    doc_chars: DocChars,
    rng: &mut ChaCha8Rng,
    mut pick: impl FnMut(&mut ChaCha8Rng) -> usize,
    write: impl Fn(&str, &mut String),
) -> (Made, Vec<u32>) {
    let mut text = String::with_capacity(target + target / 4);
    let mut written = Vec::new();
    let (mut chars, mut words) = (0, 0);
    let mut in_paragraph = 0;
    let mut paragraph = rng.random_range(3..=8);
    while chars < target {
        let index = pick(rng);
        let sentence = &pool.sentences[index];
        if chars > 0 && chars + 1 + sentence.chars > doc_chars.max && chars >= doc_chars.min {
            break;
        }
        if !text.is_empty() {
            if in_paragraph >= paragraph {
                text.push('\n');
                in_paragraph = 0;
                paragraph = rng.random_range(3..=8);
            } else {
                text.push(' ');
            }
            chars += 1;
        }
        write(pool.sentence(index), &mut text);
        // Pool indices fit in u32: a pool is filled from at most a few GB of sentences.
        written.push(index as u32);
        chars += sentence.chars;
        words += sentence.words;
        in_paragraph += 1;
    }
    (Made { text, words }, written)
}

/// A document of about `target` characters of randomly drawn pool sentences,
/// written in the document's own letter cipher (see [`LetterCipher`]) so that
/// recombined documents share no text with each other although they draw from
/// the same sentences.
pub(super) fn recombine(pool: &Pool, target: usize, doc_chars: DocChars, rng: &mut ChaCha8Rng) -> Made {
    let cipher = LetterCipher::random(rng);
    let sentences = pool.len();
    let pick = |rng: &mut ChaCha8Rng| rng.random_range(0..sentences);
    compose(pool, target, doc_chars, rng, pick, |sentence, out| cipher.push_encoded(sentence, out)).0
}

/// A random permutation of the 26 ASCII letters (case kept), one per recombined
/// document. When a corpus is much larger than its input, every input sentence
/// is drawn into dozens of documents; written verbatim, each of its chunks would
/// stand in dozens of documents, a duplication no real corpus has and one that
/// swamps a detector with matches the truth does not list. Enciphered, the
/// documents keep the input's word lengths, word frequencies and sentence shapes
/// but share no text, so the only shared passages are the cases. Letters outside
/// ASCII are kept as they are. (The reuse-heavy mode wants that duplication, and
/// writes its documents without a cipher.)
struct LetterCipher {
    lower: [u8; 26],
}

impl LetterCipher {
    fn random(rng: &mut ChaCha8Rng) -> LetterCipher {
        let mut lower: [u8; 26] = std::array::from_fn(|i| b'a' + i as u8);
        lower.shuffle(rng);
        LetterCipher { lower }
    }

    /// Appends `sentence` with every ASCII letter replaced by its cipher letter;
    /// the character count does not change.
    fn push_encoded(&self, sentence: &str, out: &mut String) {
        out.extend(sentence.chars().map(|c| match c {
            'a'..='z' => self.lower[(c as u8 - b'a') as usize] as char,
            'A'..='Z' => self.lower[(c as u8 - b'A') as usize].to_ascii_uppercase() as char,
            other => other,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::{Purpose, document_chars, rng_for};
    use super::*;

    #[test]
    fn recombined_documents_share_no_text() {
        let mut pool = Pool::default();
        let sentence = "The quick brown fox jumps over the lazy dog near Žďár.";
        pool.push(sentence, sentence.chars().count(), 11);
        let doc_chars = DocChars { min: 100, max: 200 };
        let mut rng = rng_for(1, Purpose::Recombine, 0);
        let first = recombine(&pool, 150, doc_chars, &mut rng).text;
        let second = recombine(&pool, 150, doc_chars, &mut rng).text;
        assert_ne!(first, second);
        let first_sentence: String = first.chars().take(sentence.chars().count()).collect();
        assert_ne!(first_sentence, sentence);
        assert!(first_sentence.chars().zip(sentence.chars()).all(|(a, b)| b.is_ascii() || a == b), "{first_sentence}");
        let shape = |text: &str| text.chars().map(|c| (c.is_ascii_uppercase(), c.is_alphabetic())).collect::<Vec<_>>();
        assert_eq!(shape(&first_sentence), shape(sentence), "word lengths, case and punctuation are kept");
    }

    #[test]
    fn recombined_documents_respect_the_size_range() {
        let mut pool = Pool::default();
        for i in 0..50 {
            let sentence = format!("Sentence {i} is here.");
            pool.push(&sentence, sentence.chars().count(), 4);
        }
        let doc_chars = DocChars { min: 300, max: 600 };
        let mut rng = rng_for(1, Purpose::Recombine, 0);
        for _ in 0..20 {
            let target = document_chars(doc_chars.min, doc_chars.max, &mut rng);
            let made = recombine(&pool, target, doc_chars, &mut rng);
            let chars = made.text.chars().count();
            assert!(chars >= doc_chars.min && chars <= doc_chars.max, "{chars}");
        }
    }

    #[test]
    fn composed_documents_list_the_sentences_written() {
        let mut pool = Pool::default();
        for i in 0..10 {
            let sentence = format!("Pooled sentence number {i} ends here.");
            pool.push(&sentence, sentence.chars().count(), 6);
        }
        let doc_chars = DocChars { min: 200, max: 400 };
        let mut rng = rng_for(3, Purpose::Recombine, 0);
        let pick = |rng: &mut ChaCha8Rng| rng.random_range(0..10);
        let (made, written) = compose(&pool, 300, doc_chars, &mut rng, pick, |s, out| out.push_str(s));
        let expected: Vec<&str> = written.iter().map(|&i| pool.sentence(i as usize)).collect();
        assert_eq!(made.text.replace('\n', " "), expected.join(" "));
        assert_eq!(made.words, 6 * written.len());
    }
}
