//! Summaries: a short passage that condenses a long stretch of the source (PAN
//! 2013's summary obfuscation, the class every team found hardest). Its
//! sentences each resemble one or two source sentences spread over pages, so
//! clustering seeds on both sides cuts it into pieces too small to keep.
//! Following Sanchez-Perez, Sidorov and Gelbukh (PAN 2014), who treat a pair
//! whose source side is far longer than its suspicious side as a summary,
//! seeds are clustered here on the suspicious side only. A cluster is a
//! summary when its seeds reach over at least half of the source's sentences,
//! its source side spans several times its suspicious side, and its two sides
//! are alike as wholes. On PAN 2013's training corpus every summary case spans
//! its whole source document.

use crate::align::extend::{Fragment, Pair};
use crate::align::seed::Seed;
use crate::span::CharRange;

/// Seeded suspicious sentences further apart than this end a summary.
pub const MAX_SUMMARY_GAP: u32 = 2;
/// Distinct seeded suspicious sentences a summary needs.
pub const MIN_SUMMARY_SENTENCES: u32 = 3;
/// The source side of a summary spans at least this many times the
/// suspicious side, in characters.
pub const MIN_SOURCE_RATIO: u32 = 3;
/// Least tf-idf cosine between a summary and the source stretch it condenses:
/// at 0.3 clusters of unrelated dev-en pairs pass (plagdet 0.9640 -> 0.9546).
pub const MIN_SUMMARY_COSINE: f32 = 0.4;

/// The summaries among `seeds` (sorted here by suspicious sentence), as
/// fragments with their character ranges.
pub fn summaries(pair: &Pair<'_>, seeds: &mut [Seed]) -> Vec<(Fragment, CharRange, CharRange)> {
    seeds.sort_unstable_by_key(|s| (s.suspicious, s.source));
    let mut found = Vec::new();
    let mut start = 0;
    for end in 1..=seeds.len() {
        let breaks = end == seeds.len() || seeds[end].suspicious > seeds[end - 1].suspicious + MAX_SUMMARY_GAP;
        if breaks {
            if let Some(summary) = summary_of(pair, &seeds[start..end]) {
                found.push(summary);
            }
            start = end;
        }
    }
    found
}

/// The cluster `seeds` as a summary, when it is one.
fn summary_of(pair: &Pair<'_>, seeds: &[Seed]) -> Option<(Fragment, CharRange, CharRange)> {
    let mut sentences: Vec<u32> = seeds.iter().map(|s| s.suspicious).collect();
    sentences.dedup();
    if (sentences.len() as u32) < MIN_SUMMARY_SENTENCES {
        return None;
    }
    let (first, last) = (seeds.first()?.suspicious, seeds.last()?.suspicious);
    let source_first = seeds.iter().map(|s| s.source).min()?;
    let source_last = seeds.iter().map(|s| s.source).max()?;
    let fragment = Fragment {
        suspicious: (first, last),
        source: (source_first, source_last),
        seeds: seeds.len() as u32,
        structural: 0,
    };
    let (this, source) = pair.ranges(&fragment);
    let spread = (source_last - source_first + 1) as usize * 2 >= pair.source.len();
    let condensed = spread && source.len() >= MIN_SOURCE_RATIO * this.len();
    (condensed && pair.cosine(&fragment) >= MIN_SUMMARY_COSINE).then_some((fragment, this, source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::Aligner;
    use crate::align::seed::Idf;
    use crate::align::sentences::Sentences;
    use crate::params::{AlignParams, TokenizerParams};

    const TOPICS: [&str; 4] = [
        "The glacier retreated four kilometres up the valley during the last century of warming.",
        "Fishermen rebuilt the harbour wall after the winter storms destroyed the old breakwater.",
        "The orchard produced apples, pears and plums for the cider presses of the village.",
        "A narrow railway carried slate from the quarry down to the ships waiting at the quay.",
    ];

    /// The summary's sentences, then a source of 22 sentences with a topic
    /// sentence at 0, 7, 14 and 21, analysed as the aligner does.
    fn documents() -> (Sentences, Sentences) {
        let summary = "The glacier retreated kilometres up the valley with warming. \
                       Fishermen rebuilt the harbour wall after storms destroyed the breakwater. \
                       The orchard produced apples, pears and plums for cider presses. \
                       A railway carried slate from the quarry to ships at the quay.";
        let mut source = String::new();
        for (i, topic) in TOPICS.iter().enumerate() {
            source.push_str(topic);
            source.push(' ');
            if i + 1 < TOPICS.len() {
                for k in 0..6 {
                    source.push_str(&format!("Filler number {i}{k} speaks of weather, roads and markets. "));
                }
            }
        }
        let mut aligner = Aligner::new(TokenizerParams::default(), AlignParams::default(), None);
        let (mut a, mut b) = (Sentences::default(), Sentences::default());
        aligner.analyse(summary, &mut a);
        aligner.analyse(&source, &mut b);
        (a, b)
    }

    fn seed(suspicious: u32, source: u32) -> Seed {
        Seed { suspicious, source, structural: false }
    }

    #[test]
    fn seeds_spread_over_the_source_from_neighbouring_sentences_are_a_summary() {
        let (a, b) = documents();
        assert_eq!((a.len(), b.len()), (4, 22));
        let mut idf = Idf::default();
        idf.compute(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        let mut seeds = vec![seed(2, 14), seed(0, 0), seed(3, 21), seed(1, 7)];
        let found = summaries(&pair, &mut seeds);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].0.suspicious, found[0].0.source), ((0, 3), (0, 21)));
        assert_eq!(found[0].2, b.sentences[0].range.cover(&b.sentences[21].range));
    }

    #[test]
    fn too_few_sentences_or_a_diagonal_are_no_summary() {
        let (a, b) = documents();
        let mut idf = Idf::default();
        idf.compute(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        assert!(summaries(&pair, &mut [seed(0, 0), seed(1, 7)]).is_empty(), "two sentences");
        assert!(summaries(&pair, &mut [seed(0, 0), seed(1, 1), seed(2, 2), seed(3, 3)]).is_empty(), "a diagonal");
    }
}
