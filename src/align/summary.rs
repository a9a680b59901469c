//! Summaries: a short passage that condenses a long stretch of the source (PAN
//! 2013's summary obfuscation, the class every team found hardest). Its
//! sentences each resemble one or two source sentences spread over pages, so
//! clustering seeds on both sides cuts it into pieces too small to keep.
//! Following Sanchez-Perez, Sidorov and Gelbukh (PAN 2014), who treat a pair
//! whose source side is far longer than its suspicious side as a summary,
//! seeds are clustered here on the suspicious side only. A cluster is a
//! summary when its seeds reach over at least half of the source's sentences,
//! its source side spans several times its suspicious side, and its two sides
//! are alike as wholes. A summary condenses the document it reaches over half
//! of, so its source side is the whole analysed source (on PAN 2013's
//! training corpus every summary case spans its whole source document).
//!
//! Where the source is short, an obfuscated copy can pass for a summary: its
//! seeds scatter over the source's sentences on the topic it shares. A summary
//! takes its particulars from all over its source, a copy from one stretch, so
//! when one stretch of the source no more than [`COPIED_STRETCH_RATIO`] times
//! the suspicious side's length holds all the particulars the whole source
//! gives (`copied_stretch`), that stretch is the source side instead.
//!
//! Summary sentences share fewer words with any one source sentence than
//! copies do, so a second search with lower seed thresholds
//! ([`crate::align::params::AlignParams::summary_seed_similarity`]) looks for them
//! in pairs where nothing else was aligned, or only what may be pieces of a
//! summary ([`condense_their_sources`]), with the stricter criteria of
//! [`SummaryCriteria::LOW_SEEDS`].

use crate::align::extend::{Fragment, Pair};
use crate::align::params::AlignParams;
use crate::align::seed::Seed;
use crate::align::{ADJACENT_SUSPICIOUS_GAP, AlignedPassage};
use crate::analysis::span::CharRange;

/// Seeded suspicious sentences further apart than this end a summary.
pub const MAX_SUMMARY_GAP: u32 = 2;
/// Distinct seeded suspicious sentences a summary needs.
pub const MIN_SUMMARY_SENTENCES: u32 = 3;

/// What a cluster of seeds must show to be a summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SummaryCriteria {
    /// Least tf-idf cosine between the summary and the source stretch its
    /// seeds span.
    pub min_cosine: f32,
    /// The source stretch the seeds span is at least this many times the
    /// suspicious side, in characters.
    pub min_source_ratio: f32,
    /// Least share of the summary's rare terms found in that stretch
    /// ([`Pair::rare_taken`]; 0 asks none).
    pub min_rare_taken: f32,
}

/// Least share of a summary's rare terms (names, numbers, particular words)
/// found in the source stretch its seeds span, where passages must share
/// rare terms (full search, [`AlignParams::asks_rare_terms`]): a summary keeps
/// its source's particulars, while formulaic text condenses nothing and
/// brings its own names. Measured on 2026-11-27 in full search: the King
/// James Bible corpus 0.8530 -> 0.8569 (precision 0.7611 -> 0.7659),
/// pan13-ta-train 0.8488 -> 0.8486 (summary 0.4952 -> 0.4865; no detection
/// left among the 1000 pairs without plagiarism, against 2), dev-en and
/// Clough's answers unchanged. With summaries from regions of half a percent
/// on, 0.3 cost the Bible corpus 0.0024 against 0.4, and 0.5 found fewer
/// summaries.
pub const SUMMARY_RARE_TAKEN: f32 = 0.4;

impl SummaryCriteria {
    /// With the seeds of the sentence alignment. At cosine 0.3 clusters of
    /// unrelated dev-en pairs pass (plagdet 0.9640 -> 0.9546).
    pub const PASSAGE_SEEDS: SummaryCriteria =
        SummaryCriteria { min_cosine: 0.4, min_source_ratio: 3.0, min_rare_taken: 0.0 };
    /// With the low seeds of the second search, in pairs where nothing else was
    /// aligned: on pan13-ta-train summaries 0.41 -> 0.66, random and translation
    /// unharmed. A ratio of 3.0 also took a non-plagiarised answer of Clough &
    /// Stevenson's corpus, written on its article's topic, for a summary.
    pub const LOW_SEEDS: SummaryCriteria =
        SummaryCriteria { min_cosine: 0.3, min_source_ratio: 3.5, min_rare_taken: 0.0 };

    /// These criteria as `params` apply them: where passages must share rare
    /// terms, a summary must take [`SUMMARY_RARE_TAKEN`] of its own from the source.
    pub fn under(self, params: &AlignParams) -> SummaryCriteria {
        if params.asks_rare_terms() { SummaryCriteria { min_rare_taken: SUMMARY_RARE_TAKEN, ..self } } else { self }
    }
}

/// Replaces each run of passages side by side in the suspicious document (at
/// most [`ADJACENT_SUSPICIOUS_GAP`] characters apart) whose sources, taken
/// together, span at least [`SummaryCriteria::PASSAGE_SEEDS`]'s ratio times
/// their suspicious side by one summary, with the source side `source_of`
/// gives its suspicious side (the whole source, or the stretch a copy took
/// its particulars from: [`summary_source`]). A summary retells its source in order but jumps over most
/// of it, so the alignment finds it as pieces whose sources lie far apart; the
/// pieces of an obfuscated copy lie close together in the source, and were
/// merged before this when they overlap ([`crate::align`]'s merge of adjacent
/// passages). On pan13-ta-train 23 summary cases were found in two or more
/// pieces (summary 0.6487 -> 0.7104, random 0.9085 -> 0.9079, translation
/// 0.8922 -> 0.8914; at a ratio of 2 translation lost 0.003). Pairs with a
/// verbatim run (a summary that copies a sentence of 24 words or more) are
/// included unless one of their passages is mostly verbatim, a copy
/// (2026-11-28: summary 0.7246 -> 0.7328 with the pairs given, 0.7521 ->
/// 0.7611 in full search; the other sub-corpora, dev-en, Clough's answers,
/// the Bible corpus, the language corpora and the independent corpus
/// unchanged). A translated copy with a second piece inside it, the same
/// text aligned again to another stretch of the source, passed for such a
/// summary; with [`summary_source`] it keeps its stretch (2026-11-29:
/// translation 0.8988 -> 0.8998 with the pairs given, precision 0.9401 ->
/// 0.9428; summaries, full search, dev-en, Clough's answers, the Bible
/// corpus, the languages and the independent corpus unchanged).
pub fn summaries_from_pieces(source_of: impl Fn(CharRange) -> CharRange, passages: &mut Vec<AlignedPassage>) {
    passages.sort_unstable();
    let mut runs: Vec<Vec<AlignedPassage>> = Vec::new();
    for passage in passages.drain(..) {
        match runs.last_mut() {
            Some(run) if run[run.len() - 1].suspicious.gap(&passage.suspicious) <= ADJACENT_SUSPICIOUS_GAP => {
                run.push(passage)
            }
            _ => runs.push(vec![passage]),
        }
    }
    let ratio = SummaryCriteria::PASSAGE_SEEDS.min_source_ratio;
    for run in runs {
        let this = run.iter().fold(run[0].suspicious, |cover, p| cover.cover(&p.suspicious));
        let spanned = run.iter().fold(run[0].source, |cover, p| cover.cover(&p.source));
        if run.len() >= 2 && spanned.len() as f32 >= ratio * this.len() as f32 {
            passages.push(AlignedPassage { suspicious: this, source: source_of(this), exact: false });
        } else {
            passages.extend(run);
        }
    }
}

/// A passage whose source side is at least this many times longer than its
/// suspicious side condenses its source, as a summary does ...
pub const CONDENSING_SOURCE_RATIO: f32 = 2.5;

/// ... so when one of the passages a pair aligned condenses its source, they
/// may be pieces of a summary, and the second, low-seed search looks for it
/// (Sanchez-Perez, Sidorov and Gelbukh's passage-length ratio). On
/// pan13-ta-train, pairs given, summary 0.6930 -> 0.7236, random and
/// translation unharmed (2.0: random lost 0.005; 3.0: summary gained
/// nothing). Not when one of them is a copy: mostly verbatim (`is_verbatim`,
/// [`crate::align::verbatim::is_mostly_verbatim`]), its source side at most
/// [`COPIED_STRETCH_RATIO`] times its suspicious side. The second search's
/// summary would take it in and give it the whole source. A summary that
/// copies a sentence is found in pieces whose source sides reach further.
/// On pan13-ta-train, pairs given, a copy of 677 characters had been reported
/// against its whole source of 19,612 (no obfuscation 0.9814 -> 0.9817,
/// nothing else changed; full search, dev-en, the Bible corpus, Clough's
/// answers, the languages and the independent corpus unchanged).
pub fn condense_their_sources(passages: &[AlignedPassage], is_verbatim: impl Fn(&AlignedPassage) -> bool) -> bool {
    let condenses = |p: &AlignedPassage| p.source.len() as f32 >= CONDENSING_SOURCE_RATIO * p.suspicious.len() as f32;
    passages.iter().any(condenses) && !passages.iter().any(|p| is_copy_of_stretch(p, &is_verbatim))
}

/// Whether `passage` is a copy of one stretch of its source: mostly verbatim
/// (`is_verbatim`), its source side at most [`COPIED_STRETCH_RATIO`] times its
/// suspicious side. No summary takes such a passage in.
pub fn is_copy_of_stretch(passage: &AlignedPassage, is_verbatim: impl Fn(&AlignedPassage) -> bool) -> bool {
    passage.source.len() <= COPIED_STRETCH_RATIO * passage.suspicious.len() && is_verbatim(passage)
}

/// A summary found around passages that do not condense their source
/// ([`summary_grows_pieces`]) must add suspicious sentences that resemble
/// the source as a whole at least this much (tf-idf cosine of the sentences
/// added before or after the passages against the whole source) ...
pub const MIN_ADDED_COSINE: f32 = 0.2;
/// ... and that take at least this share of their rare terms from the
/// source ([`Pair::rare_taken`]) ...
pub const MIN_ADDED_RARE_TAKEN: f32 = 0.25;
/// ... and retell the source in order: Kendall's tau of its seeds'
/// suspicious and source sentences at least this.
pub const MIN_RETELLING_ORDER: f32 = 0.15;

/// Whether `summary`, the one summary cluster the second, low-seed search
/// found around `passages` (none of them condensing its source nor a copy),
/// is the summary they are pieces of. The sentence alignment finds a
/// summary's sentences that resemble one source sentence closely, as short
/// passages with short source sides; a copy's passage, by contrast, already
/// holds the copy, and the low seeds around it come from neighbouring
/// sentences on the same topic. So the summary must add sentences that
/// resemble the whole source ([`MIN_ADDED_COSINE`]) and its seeds must
/// follow the source's order ([`MIN_RETELLING_ORDER`]), as a summary retells
/// its source while a topic's sentences fall anywhere. On pan13-ta-train,
/// pairs given, about 75 summaries had been found only as such short pieces
/// (source recall under 0.35): summary 0.7328 -> 0.8216, random 0.9141 ->
/// 0.9134, translation 0.8998 -> 0.8984, all 0.9222 -> 0.9257; full search
/// 0.9033 -> 0.9050 (summary 0.7611 -> 0.8017). Without the order random
/// lost 0.004 and translation 0.004 (the share of the seeds that fall in the
/// pieces' source sides told the two apart no better); at tau 0.1
/// translation lost 0.0015. dev-en, Clough's answers, the languages, the
/// Bible corpus on seeds 2027 and 2028 and the independent corpus on seed
/// 2026 unchanged; the Bible corpus on seed 2026 0.8909 -> 0.8898, the
/// independent corpus on seed 2027 0.9842 -> 0.9835.
///
/// The sentences added must also take their particulars from the source
/// ([`MIN_ADDED_RARE_TAKEN`]): in formulaic text the cosine alone is reached
/// by the scaffolding, and a copied passage of Genesis 48 had grown over the
/// following story of Naaman, which shares "and said, Behold" with it and
/// none of its names, into a "summary" against 4,600 characters of its
/// source (measured together with [`summary_adds_particulars`]).
pub fn summary_grows_pieces(pair: &Pair<'_>, seeds: &[Seed], summary: CharRange, passages: &[AlignedPassage]) -> bool {
    let Some(added) = added_sentences(pair, summary, passages) else {
        return false;
    };
    let resembles_source = added
        .iter()
        .any(|fragment| pair.cosine(fragment) >= MIN_ADDED_COSINE && pair.rare_taken(fragment) >= MIN_ADDED_RARE_TAKEN);
    resembles_source && retells_in_order(pair, seeds, summary)
}

/// Whether the sentences that `summary`, the one summary cluster the second,
/// low-seed search found around `passages` that condense their source, adds
/// to them each take at least [`MIN_RETOLD_RARE_TAKEN`] of their rare terms
/// from the source, as a retelling keeps its source's particulars; true when
/// it adds none. A summary that merely takes in condensing passages had been
/// taken on trust: in the King James Bible a verbatim copy of Matthew 25:44-45,
/// whose source side ran on over the parallel verses 37-40, grew over the
/// next sentence of its document (Ezekiel 42:9) into a "summary" of 4,285
/// characters of Matthew 25-28. Measured on 2026-12-01 against no such test
/// (and with [`MIN_ADDED_RARE_TAKEN`] in [`summary_grows_pieces`]):
/// pan13-ta-train with the pairs given 0.9369 -> 0.9372 (translation 0.9149
/// -> 0.9155, summary 0.8260 -> 0.8265), full search 0.9185 -> 0.9186; the
/// Bible corpus on seed 2026 0.8906 -> 0.8916; the Bible corpus without its
/// parallels on seed 2028 0.9634 -> 0.9681 (precision 0.9527 -> 0.9618);
/// dev-en unchanged. With 0.25 here as well the Matthew "summary" stayed
/// (seed 2028 0.9654, precision 0.9567); with 0.3 or 0.35 in both places
/// pan13-ta-train's summaries lost 0.004 and 0.014.
pub fn summary_adds_particulars(pair: &Pair<'_>, summary: CharRange, passages: &[AlignedPassage]) -> bool {
    let Some(added) = added_sentences(pair, summary, passages) else {
        return true;
    };
    added.iter().all(|fragment| pair.rare_taken(fragment) >= MIN_RETOLD_RARE_TAKEN)
}

/// The sentences that `summary` adds before and after the suspicious sides
/// of `passages`, each stretch against the whole source; none when there
/// are no passages or the summary does not hold them all.
fn added_sentences(pair: &Pair<'_>, summary: CharRange, passages: &[AlignedPassage]) -> Option<Vec<Fragment>> {
    let covered = passages.iter().map(|p| p.suspicious).reduce(|a, b| a.cover(&b))?;
    if !summary.holds(&covered) {
        return None;
    }
    let whole_source = (0, pair.source.len() as u32 - 1);
    let added = [CharRange::new(summary.start, covered.start), CharRange::new(covered.end, summary.end)];
    Some(
        added
            .iter()
            .filter(|range| !range.is_empty())
            .filter_map(|&range| super::sentences_reached(pair.suspicious, range))
            .map(|sentences| Fragment::unseeded(sentences, whole_source))
            .collect(),
    )
}

/// Whether the seeds in the sentences of `summary` follow the source's order
/// ([`MIN_RETELLING_ORDER`]).
fn retells_in_order(pair: &Pair<'_>, seeds: &[Seed], summary: CharRange) -> bool {
    let Some((first, last)) = super::sentences_reached(pair.suspicious, summary) else {
        return false;
    };
    let in_summary: Vec<(u32, u32)> =
        seeds.iter().filter(|s| (first..=last).contains(&s.suspicious)).map(|s| (s.suspicious, s.source)).collect();
    kendall_tau(&in_summary) >= MIN_RETELLING_ORDER
}

/// Kendall's tau (tau-a over the untied pairs) of the points `(x, y)`: the
/// share of pairs ordered alike on both minus the share ordered oppositely; 0
/// when no pair is untied.
fn kendall_tau(points: &[(u32, u32)]) -> f32 {
    let (mut concordant, mut discordant) = (0u64, 0u64);
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            if a.0 != b.0 && a.1 != b.1 {
                if (a.0 < b.0) == (a.1 < b.1) {
                    concordant += 1;
                } else {
                    discordant += 1;
                }
            }
        }
    }
    let untied = concordant + discordant;
    if untied == 0 { 0.0 } else { (concordant as f32 - discordant as f32) / untied as f32 }
}

/// A suspicious text no longer than this many characters may be retold
/// whole ([`retold_whole`]): a short answer or essay, as Clough and
/// Stevenson's (200 to 300 words, up to 2000 characters).
pub const MAX_RETOLD_CHARS: u32 = 2000;
/// ... when at least this share of its rare terms are in the source
/// ([`Pair::rare_taken`]) ...
pub const MIN_RETOLD_RARE_TAKEN: f32 = 0.4;

/// A short suspicious text (at most [`MAX_RETOLD_CHARS`]) that retells its
/// source as a whole, in other words and order: the stretch of its
/// sentences that the low seeds of the second search reach, against the
/// whole source, when those seeds reach at least half of its sentences and
/// at least [`MIN_RETOLD_RARE_TAKEN`] of its rare terms (names, numbers,
/// particular words) are in the source. A heavy rewrite keeps what is
/// particular to its source and changes the rest; a text written on the
/// same topic from other knowledge brings particulars of its own. On Clough
/// and Stevenson's answers the heavy rewrite g4pE_taska takes 0.45 of its
/// rare terms from its article, and no non-plagiarised answer over 0.35
/// (AUC 0.9737 -> 0.9825, pairs given and as `check` sees them); on
/// pan13-ta-train, pairs given, one of the 1000 pairs without plagiarism
/// gains a detection (0.9178 -> 0.9177); dev-en, the Bible corpus and the
/// full search of pan13-ta-train have no text this short.
pub fn retold_whole(pair: &Pair<'_>, seeds: &[Seed]) -> Option<AlignedPassage> {
    let (this, source) = (pair.suspicious, pair.source);
    if this.is_empty() || source.is_empty() || this.span().len() > MAX_RETOLD_CHARS {
        return None;
    }
    let mut seeded: Vec<u32> = seeds.iter().map(|s| s.suspicious).collect();
    seeded.sort_unstable();
    seeded.dedup();
    let (&first, &last) = (seeded.first()?, seeded.last()?);
    let whole = Fragment {
        suspicious: (0, this.len() as u32 - 1),
        source: (0, source.len() as u32 - 1),
        seeds: seeds.len() as u32,
        seed_lines: seeds.len() as u32,
        structural: 0,
    };
    if seeded.len() * 2 < this.len() || pair.rare_taken(&whole) < MIN_RETOLD_RARE_TAKEN {
        return None;
    }
    let suspicious = this.sentences[first as usize].range.cover(&this.sentences[last as usize].range);
    Some(AlignedPassage { suspicious, source: source.span(), exact: false })
}

/// Replaces `passages` by `summary` (of the second search) when it holds all
/// of them: they were pieces of it.
pub fn replace_pieces(summary: AlignedPassage, passages: &mut Vec<AlignedPassage>) {
    if passages.iter().all(|p| summary.suspicious.holds(&p.suspicious)) {
        passages.clear();
        passages.push(summary);
    }
}

/// The summaries among `seeds` (sorted here by suspicious sentence) that meet
/// `criteria`: the characters of each in the suspicious and the source document
/// (the whole source, or the stretch a copy took its particulars from).
pub fn summaries(pair: &Pair<'_>, seeds: &mut [Seed], criteria: SummaryCriteria) -> Vec<(CharRange, CharRange)> {
    seeds.sort_unstable_by_key(|s| (s.suspicious, s.source));
    let mut found = Vec::new();
    let mut start = 0;
    for end in 1..=seeds.len() {
        let breaks = end == seeds.len() || seeds[end].suspicious > seeds[end - 1].suspicious + MAX_SUMMARY_GAP;
        if breaks {
            if let Some(summary) = summary_of(pair, &seeds[start..end], criteria) {
                found.push(summary);
            }
            start = end;
        }
    }
    found
}

/// The cluster `seeds` as a summary (its suspicious side and the whole
/// source), when it is one; when one stretch of the source holds all its
/// particulars, as a copy of that stretch ([`copied_stretch`]).
fn summary_of(pair: &Pair<'_>, seeds: &[Seed], criteria: SummaryCriteria) -> Option<(CharRange, CharRange)> {
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
        seed_lines: seeds.len() as u32,
        structural: 0,
    };
    let (this, spanned) = pair.ranges(&fragment);
    let spread = (source_last - source_first + 1) as usize * 2 >= pair.source.len();
    let condensed = spread && spanned.len() as f32 >= criteria.min_source_ratio * this.len() as f32;
    if !condensed || pair.cosine(&fragment) < criteria.min_cosine {
        return None;
    }
    if criteria.min_rare_taken > 0.0 && pair.rare_taken(&fragment) < criteria.min_rare_taken {
        return None;
    }
    Some((this, source_side(pair, fragment.suspicious, this.len())))
}

/// The source side of a summary whose suspicious side is `this` (any
/// characters; the sentences they reach count): `source_side`.
pub fn summary_source(pair: &Pair<'_>, this: CharRange) -> CharRange {
    match super::sentences_reached(pair.suspicious, this) {
        Some(sentences) => source_side(pair, sentences, this.len()),
        None => pair.source.span(),
    }
}

/// The source side of a summary whose suspicious side is the sentences
/// `suspicious` (`chars` characters): the whole source, or the stretch a copy
/// took all its particulars from ([`copied_stretch`]).
fn source_side(pair: &Pair<'_>, suspicious: (u32, u32), chars: u32) -> CharRange {
    let fragment = Fragment::unseeded(suspicious, (0, 0));
    match copied_stretch(pair, &fragment, chars) {
        Some(stretch) => pair.ranges(&Fragment { source: stretch, ..fragment }).1,
        None => pair.source.span(),
    }
}

/// A stretch of the source that holds all of a would-be summary's particulars
/// is at most this many times as long as its suspicious side (a summary
/// condenses [`SummaryCriteria::PASSAGE_SEEDS`]' 3 times or more). On
/// pan13-ta-train, pairs given, obfuscated copies in short sources (700-3300
/// characters) had been reported against the whole source with a precision
/// of 0.1-0.5; 27 detections changed: random obfuscation 0.9093 -> 0.9135
/// (precision 0.9380 -> 0.9483), translation 0.8978 -> 0.8985, summaries
/// unchanged; in full search random 0.8744 -> 0.8776. The King James Bible
/// corpus 0.8849 -> 0.8859; dev-en, the languages and Clough's AUC unchanged.
pub const COPIED_STRETCH_RATIO: u32 = 2;

/// The shortest run of source sentences (the first of equals) that holds every
/// rare term of `fragment`'s suspicious side found anywhere in the source, when
/// there is one such term and the run is at most [`COPIED_STRETCH_RATIO`] times
/// `chars` long.
fn copied_stretch(pair: &Pair<'_>, fragment: &Fragment, chars: u32) -> Option<(u32, u32)> {
    let rare = pair.suspicious_rare_terms(fragment);
    let source = pair.source;
    // The rare terms (indices into `rare`) of each source sentence.
    let held: Vec<Vec<usize>> = (0..source.len())
        .map(|i| source.terms_of(i).iter().filter_map(|t| rare.binary_search(&t.term).ok()).collect())
        .collect();
    let span = |first: usize, last: usize| source.sentences[first].range.cover(&source.sentences[last].range).len();
    let (length, first, last) = shortest_run_holding_all(&held, rare.len(), span)?;
    (length <= COPIED_STRETCH_RATIO * chars).then_some((first as u32, last as u32))
}

/// The shortest run of items (by `length` of its first and last item; the
/// first of equals) that holds every value some item holds, and its length:
/// `held[i]` are the values (below `values`) of item `i`. `None` when no item
/// holds any.
fn shortest_run_holding_all(
    held: &[Vec<usize>],
    values: usize,
    length: impl Fn(usize, usize) -> u32,
) -> Option<(u32, usize, usize)> {
    let mut found = vec![false; values];
    held.iter().flatten().for_each(|&v| found[v] = true);
    let wanted = found.iter().filter(|&&f| f).count();
    if wanted == 0 {
        return None;
    }
    // For each last item, shrink the run from the front while it still holds them all.
    let (mut counts, mut covered, mut first) = (vec![0u32; values], 0, 0);
    let mut best: Option<(u32, usize, usize)> = None;
    for last in 0..held.len() {
        for &v in &held[last] {
            counts[v] += 1;
            covered += usize::from(counts[v] == 1);
        }
        while covered == wanted {
            let run = length(first, last);
            if best.is_none_or(|(shortest, _, _)| run < shortest) {
                best = Some((run, first, last));
            }
            for &v in &held[first] {
                counts[v] -= 1;
                covered -= usize::from(counts[v] == 0);
            }
            first += 1;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::params::AlignParams;
    use crate::align::seed::Idf;
    use crate::align::sentences::Sentences;
    use crate::align::{AlignedPassage, Aligner};
    use crate::analysis::tokenize::TokenizerParams;

    const TOPICS: [&str; 4] = [
        "The glacier retreated four kilometres up the valley during the last century of warming.",
        "Fishermen rebuilt the harbour wall after the winter storms destroyed the old breakwater.",
        "The orchard produced apples, pears and plums for the cider presses of the village.",
        "A narrow railway carried slate from the quarry down to the ships waiting at the quay.",
    ];

    /// Six sentences that elaborate on each of the first three topics.
    const FILLERS: [&str; 18] = [
        "Measurements of the glacier began when surveyors first mapped the valley floor.",
        "Each summer the meltwater carried gravel from the glacier into the river below.",
        "Photographs from the century show the ice reaching the church above the valley.",
        "Scientists link the retreat of the glacier to warming summers and thin snow.",
        "The valley now holds a lake where the glacier once lay several hundred metres deep.",
        "Guides still lead walkers across the remaining ice at the head of the valley.",
        "The harbour wall had protected the fishing fleet for almost two hundred years.",
        "Winter storms drove waves over the breakwater and flooded the harbour streets.",
        "Fishermen and their families hauled stone from the beach to rebuild the wall.",
        "The new breakwater was built higher and wider than the old harbour wall.",
        "Boats returned to the harbour once the storms had passed and the wall stood.",
        "A plaque on the harbour wall names the fishermen who rebuilt it after the storms.",
        "The orchard covered the slopes above the village with apple and pear trees.",
        "Cider presses in the village worked day and night when the apples were ripe.",
        "Plums from the orchard were dried or sold at the market in the nearby town.",
        "Every family in the village owned a few rows of the orchard and its trees.",
        "The cider from these presses was shipped in barrels to cities along the coast.",
        "Late frosts sometimes ruined the blossom of the orchard and the pears with it.",
    ];

    const SUMMARY: &str = "The glacier retreated kilometres up the valley with warming. \
                           Fishermen rebuilt the harbour wall after storms destroyed the breakwater. \
                           The orchard produced apples, pears and plums for cider presses. \
                           A railway carried slate from the quarry to ships at the quay.";

    /// The summary's sentences, then a source of 22 sentences with a topic
    /// sentence at 0, 7, 14 and 21, each but the last followed by six on it,
    /// analysed as the aligner does.
    fn documents() -> (Sentences, Sentences) {
        let (summary, source) = texts();
        analysed(&summary, &source)
    }

    /// `suspicious` and `source` analysed as the aligner does.
    fn analysed(suspicious: &str, source: &str) -> (Sentences, Sentences) {
        let mut aligner = Aligner::new(TokenizerParams::default(), AlignParams::default(), None);
        let (mut a, mut b) = (Sentences::default(), Sentences::default());
        aligner.analyse(suspicious, &mut a);
        aligner.analyse(source, &mut b);
        (a, b)
    }

    /// The summary and the source of [`documents`] as texts.
    fn texts() -> (String, String) {
        let mut source = String::new();
        for (i, topic) in TOPICS.iter().enumerate() {
            source.push_str(topic);
            source.push(' ');
            if i + 1 < TOPICS.len() {
                for filler in &FILLERS[6 * i..6 * i + 6] {
                    source.push_str(filler);
                    source.push(' ');
                }
            }
        }
        (SUMMARY.to_string(), source)
    }

    /// A sentence-bounded passage.
    fn piece(this: CharRange, source: CharRange) -> AlignedPassage {
        AlignedPassage { suspicious: this, source, exact: false }
    }

    fn seed(suspicious: u32, source: u32) -> Seed {
        Seed { suspicious, source, structural: false }
    }

    #[test]
    fn seeds_spread_over_the_source_from_neighbouring_sentences_are_a_summary() {
        let (a, b) = documents();
        assert_eq!((a.len(), b.len()), (4, 22));
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        let mut seeds = vec![seed(2, 14), seed(0, 0), seed(3, 21), seed(1, 7)];
        let found = summaries(&pair, &mut seeds, SummaryCriteria::PASSAGE_SEEDS);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, a.sentences[0].range.cover(&a.sentences[3].range));
        assert_eq!(found[0].1, b.sentences[0].range.cover(&b.sentences[21].range));
    }

    #[test]
    fn a_copy_of_one_stretch_whose_seeds_scatter_is_given_that_stretch_not_the_whole_source() {
        let copy = "Measurements of the glacier started when surveyors first mapped the valley floor. \
                    Each summer meltwater carried gravel from the glacier into the river below. \
                    Photographs from that century show ice reaching the church above the valley. \
                    Scientists tie the retreat of the glacier to warming summers and thin snow.";
        let (a, b) = analysed(copy, &texts().1);
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        // Seeds scattered over the source, as a short source's topic words scatter them.
        let mut seeds = vec![seed(0, 0), seed(1, 7), seed(2, 14), seed(3, 21)];
        let lenient = SummaryCriteria { min_cosine: 0.0, ..SummaryCriteria::PASSAGE_SEEDS };
        let stretch = b.sentences[1].range.cover(&b.sentences[4].range);
        assert_eq!(summaries(&pair, &mut seeds, lenient), [(a.span(), stretch)]);
    }

    #[test]
    fn pieces_of_a_copy_of_one_stretch_get_that_stretch_and_those_of_a_summary_the_whole_source() {
        let copy = "Measurements of the glacier started when surveyors first mapped the valley floor. \
                    Each summer meltwater carried gravel from the glacier into the river below. \
                    Photographs from that century show ice reaching the church above the valley.";
        let source = texts().1;
        let (a, b) = analysed(copy, &source);
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        // A piece on its stretch and a piece of the same text aligned again, far off.
        let mut pieces =
            vec![piece(a.span(), b.sentences[1].range), piece(a.sentences[1].range, b.sentences[20].range)];
        summaries_from_pieces(|this| summary_source(&pair, this), &mut pieces);
        assert_eq!(pieces, [piece(a.span(), b.sentences[1].range.cover(&b.sentences[3].range))]);
        // The summary takes its particulars from all over the source.
        let (a, b) = documents();
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        assert_eq!(summary_source(&pair, a.span()), b.span());
    }

    #[test]
    fn a_summary_around_a_piece_grows_it_when_it_adds_sentences_like_the_source_and_retells_in_order() {
        let (a, b) = documents();
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        // The alignment found the summary's second sentence alone, against one source sentence.
        let pieces = [piece(a.sentences[1].range, b.sentences[7].range)];
        let in_order = [seed(0, 0), seed(1, 7), seed(2, 14), seed(3, 21)];
        assert!(summary_grows_pieces(&pair, &in_order, a.span(), &pieces));
        // The same seeds against the source's order are a topic's sentences, not a retelling.
        let reversed = [seed(0, 21), seed(1, 14), seed(2, 7), seed(3, 0)];
        assert!(!summary_grows_pieces(&pair, &reversed, a.span(), &pieces));
        // A summary that adds no sentence, or does not hold the pieces, grows nothing.
        assert!(!summary_grows_pieces(&pair, &in_order, a.span(), &[piece(a.span(), b.sentences[7].range)]));
        assert!(!summary_grows_pieces(&pair, &in_order, a.sentences[0].range, &pieces));
        assert!(!summary_grows_pieces(&pair, &in_order, a.span(), &[]));
    }

    /// The summary of [`documents`] with `added` after it, analysed with the source.
    fn summary_and(added: &str) -> (Sentences, Sentences) {
        let (summary, source) = texts();
        analysed(&format!("{summary} {added}"), &source)
    }

    /// A sentence in the source's common words around a name the source never has.
    const OTHER_NAMES: &str =
        "Naaman saw the glacier valley and the harbour wall, the harbour breakwater and the glacier.";

    #[test]
    fn a_summary_grows_pieces_only_by_sentences_that_take_their_names_from_the_source() {
        let (a, b) = summary_and(OTHER_NAMES);
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        let whole_source = (0, b.len() as u32 - 1);
        // The added sentence resembles the source as a whole; only its names are foreign.
        assert!(pair.cosine(&Fragment::unseeded((4, 4), whole_source)) >= MIN_ADDED_COSINE);
        assert!(pair.rare_taken(&Fragment::unseeded((4, 4), whole_source)) < MIN_ADDED_RARE_TAKEN);
        let summary_only = a.sentences[0].range.cover(&a.sentences[3].range);
        let pieces = [piece(summary_only, b.span())];
        let in_order = [seed(0, 0), seed(1, 7), seed(2, 14), seed(3, 21), seed(4, 3)];
        assert!(retells_in_order(&pair, &in_order, a.span()));
        assert!(!summary_grows_pieces(&pair, &in_order, a.span(), &pieces));
        assert!(!summary_adds_particulars(&pair, a.span(), &pieces));
    }

    #[test]
    fn a_summary_adds_particulars_when_the_sentences_it_adds_take_their_rare_terms_from_the_source() {
        let (a, b) = documents();
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        // Around its second sentence the summary adds its other three, all from the source.
        assert!(summary_adds_particulars(&pair, a.span(), &[piece(a.sentences[1].range, b.sentences[7].range)]));
        // With no passage, or one the summary does not hold, it adds nothing to test.
        assert!(summary_adds_particulars(&pair, a.span(), &[]));
        assert!(summary_adds_particulars(&pair, a.sentences[0].range, &[piece(a.span(), b.span())]));
    }

    #[test]
    fn kendall_tau_counts_untied_pairs_ordered_alike_less_those_ordered_oppositely() {
        assert_eq!(kendall_tau(&[(0, 0), (1, 5), (2, 9)]), 1.0);
        assert_eq!(kendall_tau(&[(0, 9), (1, 5), (2, 0)]), -1.0);
        // Three pairs ordered alike (those with (0, 0)), two oppositely (those with (1, 5)),
        // and (2, 3)-(2, 4), tied, left out: (3 - 2) / 5.
        assert!((kendall_tau(&[(0, 0), (1, 5), (2, 3), (2, 4)]) - 0.2).abs() < 1e-6);
        assert_eq!(kendall_tau(&[(1, 1), (1, 2)]), 0.0);
        assert_eq!(kendall_tau(&[]), 0.0);
    }

    /// [`shortest_run_holding_all`] by trying every run.
    fn shortest_run_by_every_run(held: &[Vec<usize>], length: &[u32]) -> Option<(u32, usize, usize)> {
        let all: std::collections::BTreeSet<usize> = held.iter().flatten().copied().collect();
        let mut best = None;
        for first in 0..held.len() {
            for last in first..held.len() {
                let run: std::collections::BTreeSet<usize> = held[first..=last].iter().flatten().copied().collect();
                let chars = length[first..=last].iter().sum::<u32>();
                if !all.is_empty() && run == all && best.is_none_or(|(shortest, _, _)| chars < shortest) {
                    best = Some((chars, first, last));
                }
            }
        }
        best
    }

    proptest::proptest! {
        #[test]
        fn the_shortest_run_holding_all_values_is_the_shortest_of_all_runs(
            items in proptest::collection::vec((proptest::collection::vec(0usize..6, 0..4), 1u32..50), 0..12)
        ) {
            let held: Vec<Vec<usize>> = items.iter().map(|(values, _)| values.clone()).collect();
            let length: Vec<u32> = items.iter().map(|&(_, chars)| chars).collect();
            let by_runs = |first: usize, last: usize| length[first..=last].iter().sum::<u32>();
            proptest::prop_assert_eq!(
                shortest_run_holding_all(&held, 6, by_runs),
                shortest_run_by_every_run(&held, &length)
            );
        }
    }

    #[test]
    fn in_full_search_a_summary_must_take_its_particulars_from_the_source() {
        let full_search = AlignParams::default();
        let summarised = |summary: &str, criteria: SummaryCriteria| {
            let (a, b) = analysed(summary, &texts().1);
            let idf = Idf::of(&a, &b);
            let pair = Pair::new(&a, &b, &idf);
            let mut seeds = vec![seed(0, 0), seed(1, 7), seed(2, 14), seed(3, 21)];
            summaries(&pair, &mut seeds, criteria).len()
        };
        assert_eq!(
            summarised(SUMMARY, SummaryCriteria::PASSAGE_SEEDS.under(&full_search)),
            1,
            "its source's particulars"
        );
        let formulaic = "The glacier retreated up the valley of Aletsch near Zermatt and Saas with warming. \
                         Fishermen rebuilt the harbour wall of Mousehole after gales from Biscay and Fastnet. \
                         The orchard produced quinces and medlars for the Hereford and Ledbury presses. \
                         A railway carried copper from Parys to ships at Amlwch and Holyhead.";
        let lenient = SummaryCriteria { min_cosine: 0.2, ..SummaryCriteria::PASSAGE_SEEDS };
        assert_eq!(summarised(formulaic, lenient.under(&full_search.for_listed_pairs())), 1, "given pairs ask none");
        assert_eq!(summarised(formulaic, lenient.under(&full_search)), 0, "one scaffolding, names of its own");
    }

    /// [`retold_whole`] of `answer` against the source of [`documents`], with
    /// a seed in each of its sentences.
    fn retold(answer: &str) -> Option<AlignedPassage> {
        let (a, b) = analysed(answer, &texts().1);
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        let seeds: Vec<Seed> = (0..a.len() as u32).map(|i| seed(i, 7 * i)).collect();
        retold_whole(&pair, &seeds)
    }

    #[test]
    fn a_short_text_that_keeps_its_sources_particulars_is_retold_whole() {
        let kept = "Warming pushed the glacier back four kilometres over a century. Storms wrecked the \
                    breakwater, so fishermen rebuilt the harbour wall. Apples, pears and plums from the \
                    orchard went to the cider presses. Slate from the quarry travelled by a narrow railway \
                    to ships at the quay.";
        let found = retold(kept).expect("the particulars are the source's");
        assert_eq!(found.suspicious, CharRange::new(0, kept.chars().count() as u32));
        assert_eq!(found.source, analysed(kept, &texts().1).1.span());
        let own = "The ice field shrank back towards the chapel. Gales smashed the jetty and sailors mended \
                   the pier. Vineyards on the hills gave grapes for the wine cellars. Lorries hauled granite \
                   from the pit down to the docks.";
        assert_eq!(retold(own), None, "a text on the topic with particulars of its own");
        let long = [kept; 8].join(" ");
        assert!(long.chars().count() > MAX_RETOLD_CHARS as usize);
        assert_eq!(retold(&long), None, "longer than a short answer");
    }

    #[test]
    fn too_few_sentences_or_a_diagonal_are_no_summary() {
        let (a, b) = documents();
        let idf = Idf::of(&a, &b);
        let pair = Pair::new(&a, &b, &idf);
        assert!(
            summaries(&pair, &mut [seed(0, 0), seed(1, 7)], SummaryCriteria::PASSAGE_SEEDS).is_empty(),
            "two sentences"
        );
        assert!(
            summaries(&pair, &mut [seed(0, 0), seed(1, 1), seed(2, 2), seed(3, 3)], SummaryCriteria::PASSAGE_SEEDS)
                .is_empty(),
            "a diagonal"
        );
    }

    /// Aligns the summary with its source under `params`.
    fn aligned(params: AlignParams) -> Vec<AlignedPassage> {
        let (a, b) = documents();
        aligned_documents(params, &a, &b)
    }

    /// Aligns `a` with `b` under `params`.
    fn aligned_documents(params: AlignParams, a: &Sentences, b: &Sentences) -> Vec<AlignedPassage> {
        let mut aligner = Aligner::new(TokenizerParams::default(), params, None);
        let mut out = Vec::new();
        aligner.align(&params, a, b, &[], &mut out);
        out
    }

    #[test]
    fn pieces_side_by_side_whose_sources_lie_far_apart_are_one_summary() {
        let r = CharRange::new;
        let whole = r(0, 6000);
        // Two pieces of 300 characters, 100 apart, from source places 3000 apart.
        let mut passages = vec![piece(r(1400, 1700), r(4000, 4400)), piece(r(1000, 1300), r(500, 900))];
        summaries_from_pieces(|_| whole, &mut passages);
        assert_eq!(passages, [piece(r(1000, 1700), whole)]);
        // Sources that together span less than 3 times the suspicious side, a
        // lone passage, and pieces 201 characters apart are left alone.
        let near = vec![piece(r(1000, 1300), r(500, 900)), piece(r(1400, 1700), r(1000, 1400))];
        let apart = vec![piece(r(1000, 1300), r(500, 900)), piece(r(1501, 1800), r(4000, 4400))];
        for unchanged in [near, apart, vec![piece(r(1000, 1300), r(500, 5000))]] {
            let mut passages = unchanged.clone();
            summaries_from_pieces(|_| whole, &mut passages);
            assert_eq!(passages, unchanged);
        }
    }

    #[test]
    fn the_second_search_finds_a_summary_whose_sentences_seed_nothing_and_gives_it_the_whole_source() {
        // Seeds so strict that the sentence alignment finds nothing.
        let strict = AlignParams { seed_cosine: 0.95, seed_dice: 0.95, ..AlignParams::default() };
        assert_eq!(aligned(AlignParams { summary_seed_similarity: 0.0, ..strict }), []);
        let found = aligned(AlignParams { summary_seed_similarity: 0.12, ..strict });
        let (summary, source) = texts();
        let whole = |text: &str| CharRange { start: 0, end: text.trim_end().chars().count() as u32 };
        assert_eq!(found, [AlignedPassage { suspicious: whole(&summary), source: whole(&source), exact: false }]);
    }

    #[test]
    fn only_sentence_bounded_passages_of_which_one_condenses_its_source_may_be_pieces_of_a_summary() {
        let r = CharRange::new;
        let condensing = piece(r(0, 200), r(1000, 1500));
        let copy = piece(r(300, 500), r(2000, 2220));
        let none_verbatim = |_: &AlignedPassage| false;
        assert!(condense_their_sources(&[condensing, copy], none_verbatim));
        assert!(!condense_their_sources(&[copy], none_verbatim), "a copy's sides are alike in length");
        assert!(!condense_their_sources(&[piece(r(0, 200), r(1000, 1499))], none_verbatim), "under 2.5 times");
        let verbatim = |p: &AlignedPassage| *p == copy || *p == condensing;
        assert!(!condense_their_sources(&[condensing, copy], verbatim), "a verbatim copy is no summary's piece");
        assert!(condense_their_sources(&[condensing], verbatim), "a summary may copy a sentence");
    }

    #[test]
    fn a_summary_of_the_second_search_replaces_the_pieces_it_holds_and_only_those() {
        let r = CharRange::new;
        let summary = piece(r(100, 900), r(0, 6000));
        let mut passages = vec![];
        replace_pieces(summary, &mut passages);
        assert_eq!(passages, [summary], "nothing found before");
        let mut passages = vec![piece(r(100, 300), r(1000, 1600)), piece(r(500, 900), r(4000, 4500))];
        replace_pieces(summary, &mut passages);
        assert_eq!(passages, [summary]);
        let beyond = vec![piece(r(100, 300), r(1000, 1600)), piece(r(800, 1000), r(4000, 4500))];
        let mut passages = beyond.clone();
        replace_pieces(summary, &mut passages);
        assert_eq!(passages, beyond, "a passage reaches past the summary");
    }

    #[test]
    fn the_second_search_finds_no_summary_where_a_document_would_hold_two_of_one_source() {
        let strict =
            AlignParams { seed_cosine: 0.95, seed_dice: 0.95, summary_seed_similarity: 0.12, ..AlignParams::default() };
        let (summary, source) = texts();
        let unrelated = "The committee met on a Tuesday to discuss the budget. Nobody agreed on the figures. \
                         The chair adjourned the meeting early. The minutes were never published.";
        let (once, _) = analysed(&format!("{summary} {unrelated}"), &source);
        let (twice, source) = analysed(&format!("{summary} {unrelated} {summary}"), &source);
        assert_eq!(aligned_documents(strict, &once, &source).len(), 1, "one summary is found");
        // Two clusters that each pass for a summary of the source are a shared topic.
        assert_eq!(aligned_documents(strict, &twice, &source), []);
    }
}
