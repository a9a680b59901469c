//! Candidate regions for summaries in full search. A summary condenses a
//! whole source into a short passage, so the candidate chunks it shares with
//! the source lie close together in the suspicious document and far apart in
//! the source: the valid intervals that make the usual candidate regions need
//! both sides close, and break such a pair into pieces too weak to be aligned
//! as a summary. Here the densest cluster of shared chunks in the suspicious
//! document is looked at alone; when its matches spread over the source in
//! the source's order, the cluster and its surroundings are aligned with the
//! whole source, and only a summary is taken from them.
//!
//! Measured on 2026-11-27 in full search: pan13-ta-train 0.8778 -> 0.8834
//! (summary 0.4958 -> 0.6686, against 0.7236 with pairs given; still no
//! detection in its pairs without plagiarism); dev-en, the King James Bible
//! corpus, Clough's answers and the six language corpora unchanged; the
//! independent corpus 0.9842 -> 0.9832 (one passage of the Debian handbook
//! taken for a summary of a chapter that tells the same in the same order;
//! with synonyms 0.9812 -> 0.9802, seed 2027 unchanged).

use crate::align::AlignedPassage;
use crate::align::summary::CONDENSING_SOURCE_RATIO;
use crate::analysis::document::Document;
use crate::analysis::span::{CharRange, ChunkRanges};
use crate::matching::intervals::ChunkMatch;

/// Width of the stretch of the suspicious document whose shared chunks are
/// counted: a summary of PAN 2013's corpus is 500-750 characters long.
pub const SUMMARY_CLUSTER_CHARS: u32 = 1000;
/// Least shared content chunks in that stretch (at 3 the same, at 5
/// pan13-ta-train's summaries lost 0.004).
pub const MIN_SUMMARY_MATCHES: usize = 4;
/// The source stretch those chunks reach over is at least this many times
/// the suspicious stretch (of at least [`MIN_SUMMARY_CLUSTER_SPAN`]
/// characters): a copy's chunks lie as close together in the source as in
/// the suspicious document.
pub const MIN_SUMMARY_SPREAD: f64 = 3.0;
/// The least suspicious span the spread is measured against.
pub const MIN_SUMMARY_CLUSTER_SPAN: u32 = 300;
/// Least agreement of the order of the matches on the two sides (Kendall's
/// tau): a summary retells its source in order (0.7 for the median summary
/// of pan13-ta-train, 0 or less for a tenth of them), text on the same topic
/// shares words in any order. Without it the Chinese corpus lost 0.037, the
/// Japanese one 0.020 and the King James Bible corpus 0.0018, for 0.0003 on
/// pan13-ta-train.
pub const MIN_SUMMARY_ORDER: f64 = 0.1;
/// Matches whose order is compared, evenly chosen, at most.
const ORDER_SAMPLE: usize = 64;
/// Characters around the cluster aligned with the source: a summary's
/// sentences reach past the chunks it shares (at 750 the King James Bible
/// corpus lost 0.0009, at 1000 the Japanese corpus 0.020).
pub const SUMMARY_WINDOW_MARGIN_CHARS: u32 = 500;
/// A source side more than this many times the suspicious side condenses too
/// much to tell from a shared topic: pan13-ta-train's summaries condense
/// their sources 3.6 to 21.6 times. At no limit a book of dev-en's was taken
/// for the summary of another (dev-en 0.9633 -> 0.9570, the Chinese corpus
/// -0.037, the German one -0.007, the King James Bible corpus -0.003).
/// Full search holds every passage to it, not only summary regions' ones
/// (`crate::passages`' `is_told_apart`).
pub const MAX_CONDENSING_RATIO: f32 = 25.0;
/// Most of its window, clipped to the document, that a summary may cover (it
/// must lie inside the window too): a summary is bounded, and the text
/// around it is not aligned with the source; a passage that fills its window
/// or runs out of it goes on past it, as text on the same topic does.
/// Without this share the Japanese corpus lost 0.020; with passages that run
/// out of their window the King James Bible corpus lost 0.0027.
pub const MAX_SUMMARY_WINDOW_FILL: f64 = 0.8;

/// The window of `doc` to align with a whole source whose shared content
/// chunks `matches` look like a summary of it ([`MIN_SUMMARY_MATCHES`] or more
/// within [`SUMMARY_CLUSTER_CHARS`], spread over the source in its order as a
/// summary's are), with the number of those matches; `None` when they do not,
/// or when the source (of `source_content_chunks` content chunks) is too long
/// for any passage of the window to summarise it ([`is_bounded_summary`]):
/// aligning a whole long source costs much and would find nothing to keep.
/// `starts` is a buffer.
pub fn summary_window(
    matches: &[ChunkMatch],
    doc: &Document,
    source_ranges: &impl ChunkRanges,
    source_content_chunks: u32,
    starts: &mut Vec<(u32, u32)>,
) -> Option<(CharRange, usize)> {
    let source_reaches = source_ranges.chunk_range(source_content_chunks.checked_sub(1)?)?.end;
    let widest_window = SUMMARY_CLUSTER_CHARS + 2 * SUMMARY_WINDOW_MARGIN_CHARS;
    if too_long_to_summarise(source_reaches, widest_window) {
        return None;
    }
    let content = matches.iter().filter(|m| m.suspicious < doc.content_chunks);
    starts.clear();
    starts.extend(content.filter_map(|m| {
        let source = source_ranges.chunk_range(m.source)?;
        Some((doc.chunks.ranges[m.suspicious as usize].start, source.start))
    }));
    if starts.len() < MIN_SUMMARY_MATCHES {
        return None;
    }
    starts.sort_unstable();
    let cluster = densest_cluster(starts, SUMMARY_CLUSTER_CHARS);
    let (first, last) = (cluster.first()?.0, cluster.last()?.0);
    let source_span = cluster.iter().map(|s| s.1).max()? - cluster.iter().map(|s| s.1).min()?;
    let spread = f64::from(source_span) >= MIN_SUMMARY_SPREAD * f64::from((last - first).max(MIN_SUMMARY_CLUSTER_SPAN));
    if !(cluster.len() >= MIN_SUMMARY_MATCHES && spread && order_agreement(cluster) >= MIN_SUMMARY_ORDER) {
        return None;
    }
    let window = CharRange::new(
        first.saturating_sub(SUMMARY_WINDOW_MARGIN_CHARS),
        last.saturating_add(SUMMARY_WINDOW_MARGIN_CHARS),
    );
    if too_long_to_summarise(source_reaches, window.len()) {
        return None;
    }
    Some((window, cluster.len()))
}

/// Whether a source whose last content chunk ends at character
/// `source_reaches` is longer than any passage of a window of `window_chars`
/// characters may condense ([`MAX_SUMMARY_WINDOW_FILL`] of the window,
/// [`MAX_CONDENSING_RATIO`] times).
fn too_long_to_summarise(source_reaches: u32, window_chars: u32) -> bool {
    let longest_summary = MAX_SUMMARY_WINDOW_FILL as f32 * window_chars as f32;
    source_reaches as f32 > MAX_CONDENSING_RATIO * longest_summary
}

/// The longest run of `starts` (sorted) whose suspicious starts lie within
/// `width` characters of the first; the first such run on ties.
fn densest_cluster(starts: &[(u32, u32)], width: u32) -> &[(u32, u32)] {
    let mut best = &starts[..starts.len().min(1)];
    let mut end = 0;
    for first in 0..starts.len() {
        end = end.max(first + 1);
        while end < starts.len() && starts[end].0 - starts[first].0 <= width {
            end += 1;
        }
        if end - first > best.len() {
            best = &starts[first..end];
        }
    }
    best
}

/// Kendall's tau of the (suspicious, source) positions `pairs` (sorted by the
/// first), over at most [`ORDER_SAMPLE`] of them evenly chosen: 1 when the
/// source has them in the same order, -1 in reverse, about 0 in none; ties on
/// either side are left out.
fn order_agreement(pairs: &[(u32, u32)]) -> f64 {
    let step = pairs.len().div_ceil(ORDER_SAMPLE).max(1);
    let sample: Vec<(u32, u32)> = pairs.iter().step_by(step).copied().collect();
    let (mut agree, mut disagree) = (0i64, 0i64);
    for (i, a) in sample.iter().enumerate() {
        for b in &sample[i + 1..] {
            match (a.0.cmp(&b.0), a.1.cmp(&b.1)) {
                (std::cmp::Ordering::Equal, _) | (_, std::cmp::Ordering::Equal) => {}
                (x, y) if x == y => agree += 1,
                _ => disagree += 1,
            }
        }
    }
    let compared = agree + disagree;
    if compared == 0 { 0.0 } else { (agree - disagree) as f64 / compared as f64 }
}

/// Whether the source side of `passage` is at most [`MAX_CONDENSING_RATIO`]
/// times its suspicious side.
pub fn condenses_at_most_the_limit(passage: &AlignedPassage) -> bool {
    passage.source.len() as f32 <= MAX_CONDENSING_RATIO * passage.suspicious.len() as f32
}

/// Whether `passage`, aligned in the summary `window` of a document of
/// `doc_chars` characters, is a summary to report: it condenses its source
/// [`CONDENSING_SOURCE_RATIO`] to [`MAX_CONDENSING_RATIO`] times, and lies
/// inside the window, covering at most [`MAX_SUMMARY_WINDOW_FILL`] of it.
pub fn is_bounded_summary(passage: &AlignedPassage, window: CharRange, doc_chars: u32) -> bool {
    let (this, source) = (passage.suspicious.len() as f32, passage.source.len() as f32);
    let condenses = source >= CONDENSING_SOURCE_RATIO * this && condenses_at_most_the_limit(passage);
    let window_chars = window.end.min(doc_chars).saturating_sub(window.start);
    let bounded = window.holds(&passage.suspicious)
        && f64::from(passage.suspicious.len()) <= MAX_SUMMARY_WINDOW_FILL * f64::from(window_chars);
    condenses && bounded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::document::Analyzer;
    use crate::analysis::read::content_hash;
    use crate::detect::params::{DetectParams, Preset};

    const SOURCE: &str = include_str!("../../corpus-fixtures/summary/canal-history.txt");
    const SUMMARY: &str = include_str!("../../corpus-fixtures/summary/canal-summary.txt");
    const BEFORE: &str = include_str!("../../corpus-fixtures/texts/en-08-urban-foxes.txt");
    const AFTER: &str = include_str!("../../corpus-fixtures/texts/en-13-orchestra-pitch.txt");

    /// `text` analysed as the best preset analyses documents.
    fn analysed(text: &str) -> Document {
        let mut analyzer = Analyzer::new(&DetectParams::preset(Preset::Best).analysis(None));
        analyzer.analyse_text(text.to_string(), text.len() as u64, content_hash(text.as_bytes()))
    }

    /// The summary window of `middle` (between two unrelated texts) and the
    /// canal's history, and the characters `middle` takes.
    fn window_of(middle: &str) -> (Option<(CharRange, usize)>, CharRange) {
        let text = format!("{BEFORE}\n{middle}\n{AFTER}");
        let start = BEFORE.chars().count() as u32 + 1;
        let (doc, source) = (analysed(&text), analysed(SOURCE));
        let (mut sorted, mut matches) = (Vec::new(), Vec::new());
        super::super::shared_chunks(&doc.chunks, &source.chunks, &mut sorted, &mut matches);
        let window = summary_window(&matches, &doc, &&source.chunks.ranges[..], source.content_chunks, &mut Vec::new());
        (window, CharRange::new(start, start + middle.chars().count() as u32))
    }

    #[test]
    fn a_summary_among_other_text_makes_a_window_around_it_and_a_copy_or_a_reordering_none() {
        let summary = SUMMARY.trim();
        let (window, place) = window_of(summary);
        let (window, matches) = window.expect("a summary");
        assert!(window.holds(&place), "{window:?} {place:?}");
        assert!(matches >= MIN_SUMMARY_MATCHES, "{matches}");
        assert!(window.len() <= place.len() + 2 * SUMMARY_WINDOW_MARGIN_CHARS + SUMMARY_CLUSTER_CHARS);

        let paragraph = SOURCE.split("\n\n").nth(3).unwrap();
        assert_eq!(window_of(paragraph).0, None, "a copy's chunks lie close together in the source");
        let mut sentences: Vec<&str> = summary.split_inclusive(". ").collect();
        sentences.reverse();
        assert_eq!(window_of(&sentences.join(" ")).0, None, "retold in reverse order");
    }

    #[test]
    fn the_densest_cluster_is_the_longest_run_within_the_width() {
        let starts = [(0, 0), (900, 5), (1200, 9), (1300, 1), (1400, 7), (5000, 3)];
        assert_eq!(densest_cluster(&starts, 500), &starts[1..5]);
        assert_eq!(densest_cluster(&starts, 100), &starts[2..4], "the first of equal runs");
        assert_eq!(densest_cluster(&starts[..1], 100), &starts[..1]);
    }

    #[test]
    fn order_agreement_is_kendalls_tau_without_ties() {
        let same: Vec<(u32, u32)> = (0..10).map(|i| (i, i * 7)).collect();
        assert_eq!(order_agreement(&same), 1.0);
        let reversed: Vec<(u32, u32)> = (0..10).map(|i| (i, 100 - i)).collect();
        assert_eq!(order_agreement(&reversed), -1.0);
        // 4 pairs agree, 1 disagrees, 1 is tied on the source side.
        assert!((order_agreement(&[(0, 0), (1, 2), (2, 1), (3, 2)]) - 0.6).abs() < 1e-9);
        let long: Vec<(u32, u32)> = (0..1000).map(|i| (i, i)).collect();
        assert_eq!(order_agreement(&long), 1.0, "a sample");
    }

    #[test]
    fn a_summary_condenses_its_source_within_bounds_and_leaves_part_of_its_window() {
        let window = CharRange::new(1000, 3000);
        let passage = |start, end, source| AlignedPassage {
            suspicious: CharRange::new(start, end),
            source: CharRange::new(0, source),
            exact: false,
        };
        assert!(is_bounded_summary(&passage(1500, 2100, 6000), window, 10_000));
        assert!(!is_bounded_summary(&passage(1500, 2100, 1000), window, 10_000), "too little condensed");
        assert!(!is_bounded_summary(&passage(1500, 2100, 20_000), window, 10_000), "too much condensed");
        assert!(is_bounded_summary(&passage(1000, 2600, 6000), window, 10_000), "0.8 of the window");
        assert!(!is_bounded_summary(&passage(1000, 2700, 6000), window, 10_000), "more");
        assert!(!is_bounded_summary(&passage(1100, 2150, 6000), window, 2200), "more of what the document holds");
        assert!(!is_bounded_summary(&passage(900, 1500, 6000), window, 10_000), "out of the window");
    }
}
