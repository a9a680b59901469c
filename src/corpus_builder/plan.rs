//! The random choices of the builder: document sizes, which documents and how much
//! of each are plagiarised, case lengths, obfuscation strategies, and which source
//! passage a case copies.
//!
//! Every random choice comes from a ChaCha8 generator ([`rng_for`]) seeded with the
//! user's seed, a purpose tag and a document number, so each document's choices
//! are independent of the order in which threads handle documents: the corpus is a
//! function of the seed and the input texts only.

use std::ops::Range;

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::obfuscate::{Level, Strategy};
use super::texts::Sentences;
use super::{source_name, suspicious_name};
use crate::report::pan_xml::Feature;

/// What a random generator is used for; part of its seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// Sequential choices while cutting documents: sets and sizes.
    Documents = 1,
    /// Sentences of a document recombined from the sentence pool.
    Recombine = 2,
    /// Which suspicious documents receive cases.
    Plagiarised = 3,
    /// The cases of one suspicious document.
    Cases = 4,
    /// Negative pairs of the `pairs` file.
    Pairs = 5,
    /// The sample of input sentences of a reuse-heavy corpus's shared pool.
    Pool = 6,
}

/// The generator for `purpose` and item `index` under `seed`: ChaCha8 with the
/// 32-byte key `seed ‖ purpose ‖ index ‖ 0` (little-endian). ChaCha output is
/// specified by its algorithm, so it is the same on every platform and release of
/// `rand_chacha`.
pub fn rng_for(seed: u64, purpose: Purpose, index: u64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&(purpose as u64).to_le_bytes());
    key[16..24].copy_from_slice(&index.to_le_bytes());
    ChaCha8Rng::from_seed(key)
}

/// A document size in characters, log-uniform between `min` and `max`: as many
/// documents between 3k and 30k characters as between 30k and 300k, a long tail
/// like the PAN-PC corpora's.
pub fn document_chars<R: Rng + ?Sized>(min: usize, max: usize, rng: &mut R) -> usize {
    if min >= max {
        return min;
    }
    let (low, high) = ((min as f64).ln(), (max as f64).ln());
    let size = rng.random_range(low..high).exp().round() as usize;
    size.clamp(min, max)
}

/// Case length class, by the number of words of the source passage (PAN-PC-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LengthClass {
    /// 50-150 words.
    Short,
    /// 300-500 words.
    Medium,
    /// 3000-5000 words.
    Long,
}

impl LengthClass {
    /// All classes, shortest first.
    pub const ALL: [LengthClass; 3] = [LengthClass::Short, LengthClass::Medium, LengthClass::Long];

    /// The class name in `cases.tsv`.
    pub fn name(self) -> &'static str {
        match self {
            LengthClass::Short => "short",
            LengthClass::Medium => "medium",
            LengthClass::Long => "long",
        }
    }

    /// The words of a passage of this class (half-open range).
    pub fn words(self) -> Range<usize> {
        match self {
            LengthClass::Short => 50..151,
            LengthClass::Medium => 300..501,
            LengthClass::Long => 3000..5001,
        }
    }

    /// The next shorter class.
    pub fn shorter(self) -> Option<LengthClass> {
        match self {
            LengthClass::Short => None,
            LengthClass::Medium => Some(LengthClass::Short),
            LengthClass::Long => Some(LengthClass::Medium),
        }
    }

    /// A class drawn with the mix of the PAN-PC-10 style corpora: short 55 %,
    /// medium 33 %, long 12 %.
    pub fn draw<R: Rng + ?Sized>(rng: &mut R) -> LengthClass {
        match rng.random_range(0..100u32) {
            0..55 => LengthClass::Short,
            55..88 => LengthClass::Medium,
            _ => LengthClass::Long,
        }
    }
}

/// A share of a plagiarised document to fill with cases, drawn from the PAN-PC-10
/// bands: hardly (5-20 %, p = 0.35), medium (20-50 %, p = 0.35), much (50-80 %,
/// p = 0.2), entirely (80-95 %, p = 0.1).
pub fn plagiarised_share<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let band = rng.random_range(0..100u32);
    let range = match band {
        0..35 => 0.05..0.20,
        35..70 => 0.20..0.50,
        70..90 => 0.50..0.80,
        _ => 0.80..0.95,
    };
    rng.random_range(range)
}

/// At most this many cases go into one suspicious document.
pub const MAX_CASES_PER_DOCUMENT: usize = 25;

/// Which obfuscations a corpus's cases get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ObfuscationMix {
    /// The mix of the dev corpus (PAN-PC-10's kinds): see [`draw_strategy`].
    #[default]
    PanPc,
    /// OCR noise only ([`Strategy::Ocr`]): none 20 %, low 40 %, high 40 %.
    Ocr,
    /// Word order destroyed: none 20 %, phrase-shuffle 30 %
    /// ([`Strategy::PhraseShuffle`]), word-shuffle 50 % ([`Strategy::WordShuffle`]);
    /// a passage of fewer than three phrases is word-shuffled instead.
    Reorder,
}

impl ObfuscationMix {
    /// The `obfuscation` attributes of the mix's cases, in the order the corpus
    /// README and summary list them.
    pub fn classes(self) -> &'static [&'static str] {
        match self {
            ObfuscationMix::PanPc | ObfuscationMix::Ocr => &["none", "low", "high"],
            ObfuscationMix::Reorder => &["none", "phrase-shuffle", "word-shuffle"],
        }
    }
}

/// A strategy drawn from `mix`. The PAN-PC mix is that of the dev corpus:
/// none 33 %, low 40 %, high 27 %; semantic cases only when a synonym list is
/// given (otherwise their share goes to random operations).
pub fn draw_strategy<R: Rng + ?Sized>(mix: ObfuscationMix, with_synonyms: bool, rng: &mut R) -> Strategy {
    if mix == ObfuscationMix::Reorder {
        return match rng.random_range(0..10u32) {
            0..2 => Strategy::Verbatim,
            2..5 => Strategy::PhraseShuffle,
            _ => Strategy::WordShuffle,
        };
    }
    if mix == ObfuscationMix::Ocr {
        return match rng.random_range(0..10u32) {
            0..2 => Strategy::Verbatim,
            2..6 => Strategy::Ocr(Level::Low),
            _ => Strategy::Ocr(Level::High),
        };
    }
    let strategy = match rng.random_range(0..100u32) {
        0..33 => Strategy::Verbatim,
        33..47 => Strategy::Random(Level::Low),
        47..53 => Strategy::Shuffle(Level::Low),
        53..62 => Strategy::Semantic(Level::Low),
        62..73 => Strategy::Normalise,
        73..86 => Strategy::Random(Level::High),
        86..91 => Strategy::Shuffle(Level::High),
        _ => Strategy::Semantic(Level::High),
    };
    match strategy {
        Strategy::Semantic(level) if !with_synonyms => Strategy::Random(level),
        other => other,
    }
}

/// A passage chosen in a source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// Byte range in the source text.
    pub bytes: Range<usize>,
    /// Character range in the source text.
    pub chars: Range<usize>,
    /// Number of words.
    pub words: usize,
}

/// A passage of `words` words (a half-open range) from `text`, split as `split`:
/// it starts at a sentence start, takes whole sentences while they fit, and ends
/// at a sentence end unless whole sentences cannot reach the minimum, in which
/// case it ends after the word that reaches the drawn length. `None` when the text
/// has fewer words than the minimum.
pub fn choose_passage<R: Rng + ?Sized>(
    text: &str,
    split: &Sentences,
    words: Range<usize>,
    rng: &mut R,
) -> Option<Passage> {
    let sentences = &split.sentences;
    // Words from sentence i to the end of the text.
    let mut remaining = vec![0usize; sentences.len() + 1];
    for i in (0..sentences.len()).rev() {
        remaining[i] = remaining[i + 1] + sentences[i].words;
    }
    let starts = (0..sentences.len()).filter(|&i| remaining[i] >= words.start).count();
    if starts == 0 || words.is_empty() {
        return None;
    }
    // `remaining` decreases, so the possible starts are the first `starts` sentences.
    let first = rng.random_range(0..starts);
    let target = rng.random_range(words.clone()).min(remaining[first]);
    let mut total = 0;
    let mut end_sentence = first;
    while end_sentence < sentences.len() && total < target {
        if total + sentences[end_sentence].words > words.end - 1 {
            break;
        }
        total += sentences[end_sentence].words;
        end_sentence += 1;
    }
    let start_token = sentences[first].first_token;
    let mut end_token = if end_sentence > first { sentences[end_sentence - 1].end_token } else { start_token };
    if total < words.start {
        // Whole sentences do not reach the minimum: go on word by word.
        let mut token = end_token;
        while total < target && token < split.tokens.len() {
            if super::texts::is_word(&text[split.tokens[token].bytes.clone()]) {
                total += 1;
            }
            token += 1;
        }
        end_token = token;
    }
    if total < words.start || end_token <= start_token {
        return None;
    }
    let first_token = &split.tokens[start_token];
    let last_token = &split.tokens[end_token - 1];
    Some(Passage {
        bytes: first_token.bytes.start..last_token.bytes.end,
        chars: first_token.chars.start..last_token.chars.end,
        words: total,
    })
}

/// Bytes of source text looked at per word of the longest passage wanted: a
/// generous bound on the bytes per word of prose, so that a window almost always
/// holds the passage.
const WINDOW_BYTES_PER_WORD: usize = 16;

/// Like [`choose_passage`], but splits only a window of `text` (about 16 bytes
/// per word of the longest passage wanted, at a random place) into sentences
/// instead of the whole text, so that taking a short passage from a long document
/// costs little. The sentences cut by the window's edges are not used; when the
/// window yields no passage, the whole text is split.
pub fn choose_passage_in<R: Rng + ?Sized>(text: &str, words: Range<usize>, rng: &mut R) -> Option<Passage> {
    let window = words.end * WINDOW_BYTES_PER_WORD + 2 * super::texts::MAX_SENTENCE_CHARS;
    if text.len() <= 2 * window {
        return choose_passage(text, &super::texts::split_sentences(text), words, rng);
    }
    let mut start = rng.random_range(0..text.len() - window);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = start + window;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let slice = &text[start..end];
    let mut split = super::texts::split_sentences(slice);
    // The window's first and last sentences may be cut by its edges.
    if start > 0 && !split.sentences.is_empty() {
        split.sentences.remove(0);
    }
    if end < text.len()
        && let Some(last) = split.sentences.pop()
    {
        split.tokens.truncate(last.first_token);
    }
    match choose_passage(slice, &split, words.clone(), rng) {
        Some(passage) => {
            let char_start = text[..start].chars().count();
            Some(Passage {
                bytes: passage.bytes.start + start..passage.bytes.end + start,
                chars: passage.chars.start + char_start..passage.chars.end + char_start,
                words: passage.words,
            })
        }
        None => choose_passage(text, &super::texts::split_sentences(text), words, rng),
    }
}

/// A plagiarism case as recorded in the truth and in `cases.tsv`. Offsets and
/// lengths count characters.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Number of the suspicious document (1-based).
    pub suspicious: usize,
    /// First character of the inserted text in the suspicious document.
    pub this_offset: usize,
    /// Characters of the inserted (obfuscated) text.
    pub this_length: usize,
    /// Number of the source document (1-based).
    pub source: usize,
    /// First character of the passage in the source document.
    pub source_offset: usize,
    /// Characters of the source passage.
    pub source_length: usize,
    /// How the passage was obfuscated.
    pub strategy: Strategy,
    /// Length class of the passage.
    pub class: LengthClass,
    /// Words of the source passage.
    pub words: usize,
    /// Language of the suspicious document.
    pub this_language: &'static str,
    /// Language of the source document.
    pub source_language: &'static str,
}

impl Case {
    /// The truth feature, attributes in the order of the PAN-PC-10 files.
    pub fn feature(&self) -> Feature {
        let attributes = [
            ("type", "artificial".to_string()),
            ("obfuscation", self.strategy.obfuscation().to_string()),
            ("this_language", self.this_language.to_string()),
            ("this_offset", self.this_offset.to_string()),
            ("this_length", self.this_length.to_string()),
            ("source_reference", source_name(self.source)),
            ("source_language", self.source_language.to_string()),
            ("source_offset", self.source_offset.to_string()),
            ("source_length", self.source_length.to_string()),
        ];
        Feature {
            name: "plagiarism".to_string(),
            attributes: attributes.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }

    /// The line of `cases.tsv` (without newline), columns as in [`super::build::CASES_HEADER`].
    pub fn tsv_row(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            suspicious_name(self.suspicious),
            self.this_offset,
            self.this_length,
            source_name(self.source),
            self.source_offset,
            self.source_length,
            self.strategy.obfuscation(),
            self.strategy.name(),
            self.class.name(),
            self.words,
            self.this_language,
            self.source_language
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::texts::split_sentences;
    use super::*;

    #[test]
    fn generators_depend_on_seed_purpose_and_index() {
        let draw = |seed, purpose, index| rng_for(seed, purpose, index).random::<u64>();
        assert_eq!(draw(7, Purpose::Cases, 3), draw(7, Purpose::Cases, 3));
        assert_ne!(draw(7, Purpose::Cases, 3), draw(7, Purpose::Cases, 4));
        assert_ne!(draw(7, Purpose::Cases, 3), draw(7, Purpose::Pairs, 3));
        assert_ne!(draw(7, Purpose::Cases, 3), draw(8, Purpose::Cases, 3));
    }

    #[test]
    fn document_sizes_stay_in_range_with_a_long_tail() {
        let mut rng = rng_for(1, Purpose::Documents, 0);
        let sizes: Vec<usize> = (0..2000).map(|_| document_chars(3000, 300_000, &mut rng)).collect();
        assert!(sizes.iter().all(|&s| (3000..=300_000).contains(&s)));
        let below_30k = sizes.iter().filter(|&&s| s < 30_000).count();
        assert!((800..1200).contains(&below_30k), "{below_30k}");
        assert_eq!(document_chars(500, 500, &mut rng), 500);
    }

    #[test]
    fn strategies_without_synonyms_are_never_semantic() {
        let mut rng = rng_for(1, Purpose::Cases, 0);
        let mut verbatim = 0;
        for _ in 0..1000 {
            let strategy = draw_strategy(ObfuscationMix::PanPc, false, &mut rng);
            assert!(!matches!(strategy, Strategy::Semantic(_)));
            verbatim += usize::from(strategy == Strategy::Verbatim);
        }
        assert!((250..420).contains(&verbatim), "{verbatim}");
    }

    #[test]
    fn every_drawn_strategy_and_its_fallback_is_a_class_of_the_mix() {
        for mix in [ObfuscationMix::PanPc, ObfuscationMix::Ocr, ObfuscationMix::Reorder] {
            let mut rng = rng_for(3, Purpose::Cases, 0);
            for _ in 0..500 {
                let strategy = draw_strategy(mix, true, &mut rng);
                for labelled in [strategy, strategy.fallback()] {
                    assert!(mix.classes().contains(&labelled.obfuscation()), "{mix:?}: {labelled:?}");
                }
            }
        }
    }

    #[test]
    fn the_reorder_mix_is_half_word_shuffles() {
        let mut rng = rng_for(1, Purpose::Cases, 0);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..1000 {
            *counts.entry(draw_strategy(ObfuscationMix::Reorder, false, &mut rng)).or_insert(0) += 1;
        }
        assert!((440..560).contains(&counts[&Strategy::WordShuffle]), "{counts:?}");
        assert!((250..350).contains(&counts[&Strategy::PhraseShuffle]), "{counts:?}");
        assert!((150..250).contains(&counts[&Strategy::Verbatim]), "{counts:?}");
        assert_eq!(counts.len(), 3);
    }

    #[test]
    fn passages_start_at_a_sentence_and_have_the_class_length() {
        let text: String = (0..200)
            .map(|i| format!("Sentence number {i} has exactly seven words. "))
            .collect::<String>()
            .replace("number 7 ", "nůmber 7 ");
        let split = split_sentences(&text);
        for seed in 0..50 {
            let mut rng = rng_for(seed, Purpose::Cases, 0);
            let passage = choose_passage(&text, &split, 50..151, &mut rng).unwrap();
            assert!((50..=150).contains(&passage.words), "{}", passage.words);
            let slice = &text[passage.bytes.clone()];
            assert!(slice.starts_with("Sentence"), "{slice}");
            assert!(slice.ends_with("words."), "{slice}");
            let by_chars: String = text.chars().skip(passage.chars.start).take(passage.chars.len()).collect();
            assert_eq!(by_chars, slice);
            assert_eq!(super::super::texts::count_words(slice), passage.words);
        }
        assert_eq!(choose_passage(&text, &split, 3000..5001, &mut rng_for(1, Purpose::Cases, 0)), None);
    }

    #[test]
    fn windowed_passages_have_exact_offsets_in_long_multibyte_text() {
        let text: String = (0..3000)
            .map(|i| format!("Věta číslo {i} má přesně sedm slov. "))
            .collect::<String>()
            .trim_end()
            .to_string();
        assert!(text.len() > 2 * (151 * WINDOW_BYTES_PER_WORD + 2000));
        for seed in 0..30 {
            let mut rng = rng_for(seed, Purpose::Cases, 1);
            let passage = choose_passage_in(&text, 50..151, &mut rng).unwrap();
            let slice = &text[passage.bytes.clone()];
            assert!(slice.starts_with("Věta") && slice.ends_with("slov."), "{slice}");
            let by_chars: String = text.chars().skip(passage.chars.start).take(passage.chars.len()).collect();
            assert_eq!(by_chars, slice);
            assert_eq!(super::super::texts::count_words(slice), passage.words);
            assert!((50..=150).contains(&passage.words));
        }
    }

    #[test]
    fn a_passage_ends_mid_sentence_when_sentences_are_too_long() {
        let text = format!("{}.", vec!["word"; 400].join(" "));
        let split = split_sentences(&text);
        let passage = choose_passage(&text, &split, 50..151, &mut rng_for(2, Purpose::Cases, 0)).unwrap();
        assert!((50..=150).contains(&passage.words));
        assert!(split.sentences.iter().any(|s| s.bytes.start == passage.bytes.start));
        assert!(text[passage.bytes.clone()].ends_with("word"));
    }
}
