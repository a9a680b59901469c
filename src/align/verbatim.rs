//! Verbatim runs: where a document pair shares the same words in the same
//! order. Sentence alignment finds obfuscated passages, but its passages run
//! from sentence to sentence and may take in a neighbouring sentence that
//! resembles the source; a copied passage is better bounded by the copy itself.
//! So a passage that is mostly verbatim is cut to its verbatim runs, and a long
//! verbatim run that no passage covers is reported on its own, so that the
//! alignment never misses a copy the paper's method finds (Torrejón and Ramos,
//! PAN 2013, and Kong et al. seeded with exact matches the same way).

use crate::align::AlignedPassage;
use crate::align::sentences::{Sentences, TermMap};
use crate::analysis::span::CharRange;

/// Words in a row a run must share to count.
pub const MIN_RUN_WORDS: usize = 8;
/// Runs on one diagonal with at most this many differing words between them,
/// on each side, form one chain (a changed or inserted word).
pub const MAX_CHAIN_GAP_WORDS: u32 = 3;
/// A chain this long that no passage covers is reported as a passage: about
/// the 20 matching 5-word chunks of the paper's valid intervals.
pub const MIN_STANDALONE_WORDS: u32 = 24;
/// A passage whose verbatim chains cover at least this share of its characters
/// on either side is cut to the chains.
pub const VERBATIM_SHARE: f64 = 0.8;
/// Source positions of a word pair beyond this many are not followed (a
/// formulaic pair such as "of the"); a run through it is found from its
/// next word pair.
const MAX_PAIR_POSITIONS: usize = 32;

/// Word positions of a chain: `[start, end)` in each side's
/// [`Sentences::sequence`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    /// Words of the suspicious document.
    pub suspicious: (u32, u32),
    /// Words of the source document.
    pub source: (u32, u32),
}

impl Chain {
    /// Words of the chain in the suspicious document.
    pub fn words(&self) -> u32 {
        self.suspicious.1 - self.suspicious.0
    }
}

/// Buffers of [`verbatim_chains`], reused across pairs.
#[derive(Debug, Default)]
pub struct VerbatimScratch {
    /// The first position in `b` of each word pair.
    first_position: TermMap<u32>,
    /// The next position in `b` of the word pair at each position
    /// ([`NO_POSITION`] after the last).
    next_position: Vec<u32>,
    /// Where the last run found on each diagonal (`j - i`, wrapped to u64)
    /// ends in `a`: keyed by a multiplication, not SipHash.
    diagonal_ends: TermMap<u32>,
    runs: Vec<Chain>,
}

/// Finds the maximal runs of at least [`MIN_RUN_WORDS`] equal words of `a` and
/// `b` and chains those on one diagonal over small gaps; writes the chains to
/// `out`, ordered by their start in `a`.
pub fn verbatim_chains(a: &[u64], b: &[u64], scratch: &mut VerbatimScratch, out: &mut Vec<Chain>) {
    out.clear();
    let VerbatimScratch { first_position, next_position, diagonal_ends, runs } = scratch;
    runs.clear();
    diagonal_ends.clear();
    list_pair_positions(b, first_position, next_position);
    for i in 0..a.len().saturating_sub(1) {
        let key = pair_key(a[i], a[i + 1]);
        let Some(&first) = first_position.get(&key) else { continue };
        let next = |&j: &u32| Some(next_position[j as usize]).filter(|&next| next != NO_POSITION);
        let same = std::iter::successors(Some(first), next);
        if same.clone().nth(MAX_PAIR_POSITIONS).is_some() {
            continue;
        }
        for j in same {
            let diagonal = (j as i64 - i as i64) as u64;
            if diagonal_ends.get(&diagonal).is_some_and(|&end| end as usize > i) {
                continue; // inside a run already found
            }
            let length = a[i..].iter().zip(&b[j as usize..]).take_while(|(x, y)| x == y).count();
            diagonal_ends.insert(diagonal, (i + length) as u32);
            if length >= MIN_RUN_WORDS {
                let (i, length) = (i as u32, length as u32);
                runs.push(Chain { suspicious: (i, i + length), source: (j, j + length) });
            }
        }
    }
    runs.sort_unstable_by_key(|r| (r.suspicious.0, r.source.0));
    for run in runs.iter() {
        match out.iter_mut().rev().find(|chain| continues(chain, run)) {
            Some(chain) => {
                chain.suspicious.1 = run.suspicious.1;
                chain.source.1 = run.source.1;
            }
            None => out.push(*run),
        }
    }
}

/// Marks the end of a word pair's positions in [`VerbatimScratch::next_position`].
const NO_POSITION: u32 = u32::MAX;

/// Lists the positions of each word pair of `words` in ascending order: the
/// first in `first_position`, each next one in `next_position`.
fn list_pair_positions(words: &[u64], first_position: &mut TermMap<u32>, next_position: &mut Vec<u32>) {
    first_position.clear();
    next_position.clear();
    next_position.resize(words.len().saturating_sub(1), NO_POSITION);
    // From the last position back, each one goes first in its pair's list.
    for (j, pair) in words.windows(2).enumerate().rev() {
        if let Some(later) = first_position.insert(pair_key(pair[0], pair[1]), j as u32) {
            next_position[j] = later;
        }
    }
}

/// True when `run` follows `chain` on both sides within [`MAX_CHAIN_GAP_WORDS`].
fn continues(chain: &Chain, run: &Chain) -> bool {
    let follows = |end: u32, start: u32| start >= end && start - end <= MAX_CHAIN_GAP_WORDS;
    follows(chain.suspicious.1, run.suspicious.0) && follows(chain.source.1, run.source.0)
}

fn pair_key(x: u64, y: u64) -> u64 {
    x.rotate_left(23) ^ y
}

/// The characters of words `[start, end)` of `sentences`, widened to the
/// sentence boundaries where the words start or end a sentence (to take in
/// its opening quote and final full stop).
fn char_range(sentences: &Sentences, (start, end): (u32, u32)) -> CharRange {
    let (first, last) = (&sentences.word_ranges[start as usize], &sentences.word_ranges[end as usize - 1]);
    let mut range = CharRange::new(first.start, last.end);
    let holding = |word: u32| sentences.sentences.partition_point(|s| s.words.end <= word as usize);
    if let Some(sentence) = sentences.sentences.get(holding(start))
        && sentence.words.start == start as usize
    {
        range.start = sentence.range.start.min(range.start);
    }
    if let Some(sentence) = sentences.sentences.get(holding(end - 1))
        && sentence.words.end == end as usize
    {
        range.end = sentence.range.end.max(range.end);
    }
    range
}

/// The chains of `chains` (ordered by their start in the suspicious
/// document) that follow one another on both sides and hold the most words
/// together: one copy. A copy of formulaic text also meets chains of its
/// stock phrases elsewhere in the source ("And the LORD spake unto Moses,
/// saying"), and its hull with those would stretch its source side over them.
fn one_copy<'c>(chains: &[&'c (AlignedPassage, u32)]) -> Vec<&'c (AlignedPassage, u32)> {
    let mut best: Vec<(u32, Option<usize>)> = Vec::with_capacity(chains.len());
    for (i, (chain, words)) in chains.iter().map(|c| (&c.0, c.1)).enumerate() {
        let before = |j: &usize| {
            let earlier = &chains[*j].0;
            earlier.suspicious.end <= chain.suspicious.start && earlier.source.end <= chain.source.start
        };
        let previous = (0..i).filter(before).max_by_key(|&j| best[j].0);
        best.push((words + previous.map_or(0, |j| best[j].0), previous));
    }
    let mut at = (0..chains.len()).max_by_key(|&i| best[i].0);
    let mut copy = Vec::new();
    while let Some(i) = at {
        copy.push(chains[i]);
        at = best[i].1;
    }
    copy.reverse();
    copy
}

/// Cuts the mostly verbatim `passages` to their chains and adds the long
/// chains that no passage covers.
pub fn bound_by_chains(
    suspicious: &Sentences,
    source: &Sentences,
    chains: &[Chain],
    passages: &mut Vec<AlignedPassage>,
) {
    let chains = in_characters(suspicious, source, chains);
    let mut bounded = Vec::with_capacity(passages.len());
    for passage in passages.drain(..) {
        let copy = copy_in(&passage, &chains);
        match hull_if_mostly_verbatim(&passage, &copy) {
            Some(hull) => bounded.push(hull),
            None => match separate_copies(suspicious, source, &copy) {
                Some(copies) => bounded.extend(copies),
                None => bounded.push(passage),
            },
        }
    }
    *passages = bounded;
    let standalone: Vec<AlignedPassage> = chains
        .iter()
        .filter(|(chain, words)| {
            *words >= MIN_STANDALONE_WORDS && !passages.iter().any(|p| p.suspicious.overlaps(&chain.suspicious))
        })
        .map(|(chain, _)| *chain)
        .collect();
    passages.extend(standalone);
}

/// Whether `chains` cover most of `passage` ([`VERBATIM_SHARE`]): a copy,
/// which [`bound_by_chains`] cuts to them.
pub fn is_mostly_verbatim(
    suspicious: &Sentences,
    source: &Sentences,
    chains: &[Chain],
    passage: &AlignedPassage,
) -> bool {
    let chains = in_characters(suspicious, source, chains);
    hull_if_mostly_verbatim(passage, &copy_in(passage, &chains)).is_some()
}

/// The hull of the verbatim copy inside `passage` (`copy_in`), when it
/// holds at least [`MIN_STANDALONE_WORDS`] words: the core that the rest of
/// the passage extends.
pub fn verbatim_core(
    suspicious: &Sentences,
    source: &Sentences,
    chains: &[Chain],
    passage: &AlignedPassage,
) -> Option<AlignedPassage> {
    let chains = in_characters(suspicious, source, chains);
    let copy = copy_in(passage, &chains);
    let words: u32 = copy.iter().map(|(_, words)| words).sum();
    hull_of(&copy).filter(|_| words >= MIN_STANDALONE_WORDS)
}

/// Two verbatim copies inside one passage at least this many characters
/// apart on both sides ...
pub const SEPARATE_COPIES_GAP: u32 = 300;
/// ... whose text between them in the suspicious document shares less than
/// this share of its distinct words with the text between them in the source
/// are separate copies (`separate_copies`). Between the verbatim runs of
/// one obfuscated case dev-en's gaps share 0.26 or more (a twentieth under
/// 0.51); pan13-ta-train's are either like those or under 0.1, where another
/// source's case lies between two copies of one source.
pub const SEPARATE_COPIES_SHARE: f64 = 0.2;

/// The copies a passage holds, when the chains of its one copy ([`copy_in`])
/// fall into two or more groups, each a long run ([`MIN_STANDALONE_WORDS`]), apart by
/// [`SEPARATE_COPIES_GAP`] on both sides, with text between them that the
/// source does not have there ([`SEPARATE_COPIES_SHARE`]): the hull of each
/// group. The sentence alignment joins copies of one source that lie close
/// together in a text on one topic; as one passage their chains cover too
/// little of it to bound it ([`VERBATIM_SHARE`]), and the overlap with a
/// copy of another source between them then cuts it. On pan13-ta-train two
/// verbatim cases were lost in full search and found as one passage with
/// pairs given (no obfuscation 0.9827 -> 0.9836 and 0.9817 -> 0.9823);
/// dev-en, the Bible corpus and the other classes unchanged. With any gap
/// on the source side, pan13-ta-train gained 0.0005 more but the Bible
/// corpus (seed 2028) lost 0.0013; with no test of the text between, dev-en
/// lost 0.077 (granularity 1.12: its lightly obfuscated cases hold several
/// verbatim runs).
fn separate_copies(
    suspicious: &Sentences,
    source: &Sentences,
    copy: &[&(AlignedPassage, u32)],
) -> Option<Vec<AlignedPassage>> {
    let mut groups: Vec<(AlignedPassage, u32)> = Vec::new();
    for &&(chain, words) in copy {
        match groups.last_mut() {
            Some((hull, group_words))
                if hull.suspicious.gap(&chain.suspicious) < SEPARATE_COPIES_GAP
                    || hull.source.gap(&chain.source) < SEPARATE_COPIES_GAP =>
            {
                hull.suspicious = hull.suspicious.cover(&chain.suspicious);
                hull.source = hull.source.cover(&chain.source);
                *group_words += words;
            }
            _ => groups.push((chain, words)),
        }
    }
    // The chains of one copy follow one another on both sides, so each group
    // ends before the next starts.
    let apart = |pair: &[(AlignedPassage, u32)]| {
        let (before, after) = (&pair[0].0, &pair[1].0);
        let this_gap = CharRange::new(before.suspicious.end, after.suspicious.start);
        let source_gap = CharRange::new(before.source.end, after.source.start);
        words_shared(suspicious, source, this_gap, source_gap) < SEPARATE_COPIES_SHARE
    };
    let separate = groups.len() >= 2
        && groups.iter().all(|(_, words)| *words >= MIN_STANDALONE_WORDS)
        && groups.windows(2).all(apart);
    separate.then(|| groups.into_iter().map(|(hull, _)| hull).collect())
}

/// Share of the distinct words of `this` (characters of the suspicious
/// document) that `there` (of the source) has too; 1 when `this` has none.
fn words_shared(suspicious: &Sentences, source: &Sentences, this: CharRange, there: CharRange) -> f64 {
    // Words are in text order: those within `range` are one slice.
    let words_in = |s: &Sentences, range: CharRange| {
        let first = s.word_ranges.partition_point(|r| r.start < range.start);
        let end = s.word_ranges.partition_point(|r| r.end <= range.end).max(first);
        let mut words = s.sequence[first..end].to_vec();
        words.sort_unstable();
        words.dedup();
        words
    };
    let (here, other) = (words_in(suspicious, this), words_in(source, there));
    if here.is_empty() {
        return 1.0;
    }
    here.iter().filter(|w| other.binary_search(w).is_ok()).count() as f64 / here.len() as f64
}

/// `chains` as exact passages in characters, each with its words.
fn in_characters(suspicious: &Sentences, source: &Sentences, chains: &[Chain]) -> Vec<(AlignedPassage, u32)> {
    chains
        .iter()
        .map(|c| {
            let passage = AlignedPassage {
                suspicious: char_range(suspicious, c.suspicious),
                source: char_range(source, c.source),
                exact: true,
            };
            (passage, c.words())
        })
        .collect()
}

/// The one copy ([`one_copy`]) among the chains of `chains` that overlap
/// `passage` on both sides, in order.
fn copy_in<'c>(passage: &AlignedPassage, chains: &'c [(AlignedPassage, u32)]) -> Vec<&'c (AlignedPassage, u32)> {
    let overlapping: Vec<&(AlignedPassage, u32)> = chains
        .iter()
        .filter(|(c, _)| c.suspicious.overlaps(&passage.suspicious) && c.source.overlaps(&passage.source))
        .collect();
    one_copy(&overlapping)
}

/// The hull of `copy` (the chains of [`copy_in`] `passage`), when they cover
/// [`VERBATIM_SHARE`] of the passage on either side.
fn hull_if_mostly_verbatim(passage: &AlignedPassage, copy: &[&(AlignedPassage, u32)]) -> Option<AlignedPassage> {
    let covered = |side: fn(&AlignedPassage) -> CharRange| {
        let chars: u32 = copy.iter().map(|(c, _)| side(c).overlap_len(&side(passage))).sum();
        f64::from(chars) >= VERBATIM_SHARE * f64::from(side(passage).len())
    };
    if !(covered(|p| p.suspicious) || covered(|p| p.source)) {
        return None;
    }
    hull_of(copy)
}

/// The exact passage that covers every chain of `copy` on both sides; none
/// for no chain.
fn hull_of(copy: &[&(AlignedPassage, u32)]) -> Option<AlignedPassage> {
    let ((first, _), rest) = copy.split_first()?;
    Some(rest.iter().fold(*first, |hull, (chain, _)| AlignedPassage {
        suspicious: hull.suspicious.cover(&chain.suspicious),
        source: hull.source.cover(&chain.source),
        exact: true,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<u64> {
        text.split_whitespace()
            .map(|w| w.bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b))))
            .collect()
    }

    fn chains(a: &str, b: &str) -> Vec<Chain> {
        let mut out = Vec::new();
        verbatim_chains(&words(a), &words(b), &mut VerbatimScratch::default(), &mut out);
        out
    }

    /// A naive reference: every maximal common run of at least MIN_RUN_WORDS words.
    fn naive_runs(a: &[u64], b: &[u64]) -> Vec<Chain> {
        let mut runs = Vec::new();
        for i in 0..a.len() {
            for j in 0..b.len() {
                if i > 0 && j > 0 && a[i - 1] == b[j - 1] {
                    continue;
                }
                let n = a[i..].iter().zip(&b[j..]).take_while(|(x, y)| x == y).count();
                if n >= MIN_RUN_WORDS {
                    runs.push(Chain { suspicious: (i as u32, (i + n) as u32), source: (j as u32, (j + n) as u32) });
                }
            }
        }
        runs
    }

    #[test]
    fn a_copy_is_bounded_by_its_own_chains_not_by_a_stock_phrase_elsewhere_in_the_source() {
        use crate::analysis::span::char_slice;
        let stock = "And the LORD spake unto Moses in the tabernacle of the congregation, saying, ";
        let copy = "And the LORD spake unto Moses in the tabernacle of the congregation, saying, \
                    Command the children of Israel that they bring unto thee pure oil olive beaten for the light. \
                    Without the vail of the testimony shall Aaron order it from the evening unto the morning. \
                    Thou shalt set the lamps in order upon the pure candlestick before the LORD continually.";
        let source = format!(
            "{stock}Speak unto the priests the sons of Aaron about the firstfruits of the harvest. \
             The cattle grazed by the river while shepherds watched the hills for wolves and bears. \
             Merchants came with spices, balm and myrrh from the far countries of the east. {copy}"
        );
        let suspicious = format!("The gates of the city were shut at sunset and opened at dawn. {copy}");
        let (a, b, found) = analysed_with_chains(&suspicious, &source);
        assert!(found.len() >= 2, "the copy and the stock phrase before it in the source: {found:?}");
        // A passage that condenses the whole source, as a summary would.
        let copied = a.sentences[1].range.cover(&a.sentences[a.len() - 1].range);
        let mut passages = vec![AlignedPassage { suspicious: copied, source: b.span(), exact: false }];
        bound_by_chains(&a, &b, &found, &mut passages);
        let texts: Vec<(&str, &str)> = passages
            .iter()
            .map(|p| (char_slice(&suspicious, p.suspicious).unwrap(), char_slice(&source, p.source).unwrap()))
            .collect();
        assert_eq!(texts, [(copy, copy)]);
    }

    #[test]
    fn a_passage_is_mostly_verbatim_when_its_chains_cover_most_of_one_side() {
        let copy = "Command the children of Israel that they bring unto thee pure oil olive beaten for the light. \
                    Without the vail of the testimony shall Aaron order it from the evening unto the morning.";
        let own = "The gates of the city were shut at sunset and opened again at dawn by the watchmen. \
                   Merchants came with spices, balm and myrrh from the far countries of the east. \
                   The cattle grazed by the river while shepherds watched the hills for wolves and bears.";
        let before = "Speak unto the priests the sons of Aaron about the firstfruits of the harvest. \
                      And the feast of weeks shall be kept in the third month with a new meat offering.";
        let source = format!("{before} {copy}");
        let suspicious = format!("{own} {copy}");
        let (a, b, found) = analysed_with_chains(&suspicious, &source);
        let copied_here = a.sentences[a.len() - 2].range.cover(&a.sentences[a.len() - 1].range);
        let copied_there = b.sentences[b.len() - 2].range.cover(&b.sentences[b.len() - 1].range);
        let copied = AlignedPassage { suspicious: copied_here, source: copied_there, exact: false };
        assert!(is_mostly_verbatim(&a, &b, &found, &copied));
        let with_own_text = AlignedPassage { suspicious: a.span(), source: b.span(), exact: false };
        assert!(!is_mostly_verbatim(&a, &b, &found, &with_own_text), "the copy is under half of each side");
    }

    /// The sentences of `suspicious` and `source` and the verbatim chains they share.
    fn analysed_with_chains(suspicious: &str, source: &str) -> (Sentences, Sentences, Vec<Chain>) {
        use crate::align::{Aligner, params::AlignParams};
        use crate::analysis::tokenize::TokenizerParams;
        let mut aligner = Aligner::new(TokenizerParams::default(), AlignParams::default(), None);
        let (mut a, mut b) = (Sentences::default(), Sentences::default());
        aligner.analyse(suspicious, &mut a);
        aligner.analyse(source, &mut b);
        let mut found = Vec::new();
        verbatim_chains(&a.sequence, &b.sequence, &mut VerbatimScratch::default(), &mut found);
        (a, b, found)
    }

    /// The passages `bound_by_chains` makes of one passage over the whole of
    /// `suspicious` and `source`, as (suspicious, source) texts.
    fn bounded_whole(suspicious: &str, source: &str) -> Vec<(String, String)> {
        use crate::analysis::span::char_slice;
        let (a, b, found) = analysed_with_chains(suspicious, source);
        let mut passages = vec![AlignedPassage { suspicious: a.span(), source: b.span(), exact: false }];
        bound_by_chains(&a, &b, &found, &mut passages);
        let text = |t: &str, r: CharRange| char_slice(t, r).unwrap().to_string();
        passages.iter().map(|p| (text(suspicious, p.suspicious), text(source, p.source))).collect()
    }

    const FIRST_COPY: &str = "The harbour master recorded every ship that entered the bay during the long winter, \
        noting its cargo of timber, salted fish and iron nails, the name of its captain and the number of its crew, \
        and the day on which it sailed again.";
    const SECOND_COPY: &str = "When the ice broke in the spring the merchants of the town gathered on the quay to \
        bargain for wool and hides, and the customs officers walked between the stalls weighing every bale on \
        their brass scales before the tax was paid.";

    #[test]
    fn two_copies_with_unrelated_text_between_them_are_two_passages() {
        let between_here = "Our village choir sang at the festival and won a small silver cup for its anthem. \
            The children painted banners in bright colours while their parents baked bread and pies for the guests. \
            Later that evening a travelling band played old dances until midnight in the square, and nobody \
            went home early.";
        let between_there = "Letters from the capital arrived only twice a month, carried by a rider who changed \
            horses at every inn along the northern road. Many of them concerned disputes over land and water rights, \
            which the local court settled slowly and at great expense to both parties. The judge kept his \
            records in a locked chest.";
        let suspicious = format!("{FIRST_COPY} {between_here} {SECOND_COPY}");
        let source = format!("{FIRST_COPY} {between_there} {SECOND_COPY}");
        let copies = [FIRST_COPY, SECOND_COPY].map(|copy| (copy.to_string(), copy.to_string()));
        assert_eq!(bounded_whole(&suspicious, &source), copies);
    }

    #[test]
    fn two_copies_with_the_reworded_source_between_them_stay_one_passage() {
        let between_there = "Letters from the capital arrived only twice a month, carried by a rider who changed \
            horses at every inn along the northern road. Many of them concerned disputes over land and water rights, \
            which the local court settled slowly and at great expense to both parties. The judge kept his \
            records in a locked chest.";
        let between_here = "Letters from the capital came just twice each month, brought by a rider who swapped \
            horses at each inn on the northern road. Most of them concerned quarrels over land and water rights, \
            which the court settled slowly and at large expense to both sides, year after year. The judge kept \
            all his papers in a locked box.";
        let suspicious = format!("{FIRST_COPY} {between_here} {SECOND_COPY}");
        let source = format!("{FIRST_COPY} {between_there} {SECOND_COPY}");
        assert_eq!(bounded_whole(&suspicious, &source), [(suspicious.clone(), source.clone())]);
    }

    #[test]
    fn a_copy_with_one_changed_word_is_one_chain() {
        let source = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen \
                      seventeen";
        let suspicious = "intro words here one two three four five six seven eight CHANGED ten eleven twelve \
                          thirteen fourteen fifteen sixteen seventeen outro";
        assert_eq!(chains(suspicious, source), [Chain { suspicious: (3, 20), source: (0, 17) }]);
    }

    #[test]
    fn short_shared_phrases_are_no_run() {
        assert!(chains("a b c d e f g x", "a b c d e f g y").is_empty());
        assert_eq!(chains("a b c d e f g h", "a b c d e f g h").len(), 1);
    }

    /// Each naive run lies in one of the chains `out`.
    fn runs_in_chains(a: &[u64], b: &[u64], out: &[Chain]) -> Result<(), String> {
        for run in naive_runs(a, b) {
            let holds = |c: &Chain| {
                c.suspicious.0 <= run.suspicious.0
                    && run.suspicious.1 <= c.suspicious.1
                    && c.source.0 <= run.source.0
                    && run.source.1 <= c.source.1
            };
            if !out.iter().any(holds) {
                return Err(format!("{run:?} not in {out:?}"));
            }
        }
        Ok(())
    }

    #[test]
    fn runs_agree_with_the_naive_search_on_repetitive_text() {
        let a = words(&"w1 w2 w3 w4 w5 w6 w7 w8 w9 x ".repeat(3));
        let b = words("z w1 w2 w3 w4 w5 w6 w7 w8 w9 w1 w2 w3 w4 w5 w6 w7 w8 w9 y");
        let mut out = Vec::new();
        verbatim_chains(&a, &b, &mut VerbatimScratch::default(), &mut out);
        // Chains over gaps aside, each naive run lies in one chain.
        runs_in_chains(&a, &b, &out).unwrap();
    }

    proptest::proptest! {
        #[test]
        fn one_copy_holds_as_many_words_as_the_best_subset_of_chains_in_order(
            spans in proptest::collection::vec((0u32..60, 1u32..15, 0u32..60, 1u32..15), 0..8),
        ) {
            let mut chains: Vec<(AlignedPassage, u32)> = spans
                .iter()
                .map(|&(this, this_len, source, source_len)| {
                    let passage = AlignedPassage {
                        suspicious: CharRange::new(this, this + this_len),
                        source: CharRange::new(source, source + source_len),
                        exact: true,
                    };
                    (passage, this_len)
                })
                .collect();
            chains.sort_by_key(|(c, _)| (c.suspicious.start, c.source.start));
            let refs: Vec<&(AlignedPassage, u32)> = chains.iter().collect();
            let follows = |a: &AlignedPassage, b: &AlignedPassage| {
                a.suspicious.end <= b.suspicious.start && a.source.end <= b.source.start
            };
            let copy = one_copy(&refs);
            proptest::prop_assert!(copy.windows(2).all(|w| follows(&w[0].0, &w[1].0)), "{copy:?} not in order");
            // The reference: every subset whose chains follow one another.
            let best = (0u32..1 << chains.len())
                .filter_map(|subset| {
                    let picked: Vec<&(AlignedPassage, u32)> =
                        (0..chains.len()).filter(|i| subset >> i & 1 == 1).map(|i| &chains[i]).collect();
                    picked.windows(2).all(|w| follows(&w[0].0, &w[1].0)).then(|| picked.iter().map(|c| c.1).sum::<u32>())
                })
                .max()
                .unwrap_or(0);
            let words: u32 = copy.iter().map(|c| c.0.suspicious.len()).sum();
            proptest::prop_assert_eq!(words, best);
        }

        #[test]
        fn runs_agree_with_the_naive_search(
            a in proptest::collection::vec(0u64..8, 0..150),
            noise in proptest::collection::vec(0u64..8, 0..150),
            copy in (0usize..150, 0usize..60, 0usize..150),
        ) {
            // The source: noise with a stretch of `a` copied into it.
            let (from, len, at) = copy;
            let from = from.min(a.len());
            let copied = &a[from..(from + len).min(a.len())];
            let at = at.min(noise.len());
            let b: Vec<u64> = noise[..at].iter().chain(copied).chain(&noise[at..]).copied().collect();
            let mut scratch = VerbatimScratch::default();
            let mut out = Vec::new();
            // Twice with the same scratch: nothing of the first call leaks.
            verbatim_chains(&b, &a, &mut scratch, &mut out);
            verbatim_chains(&a, &b, &mut scratch, &mut out);
            proptest::prop_assert!(runs_in_chains(&a, &b, &out).is_ok(), "{}", runs_in_chains(&a, &b, &out).unwrap_err());
            for chain in &out {
                let (x, y) = (&a[chain.suspicious.0 as usize..chain.suspicious.1 as usize], &b[chain.source.0 as usize..chain.source.1 as usize]);
                proptest::prop_assert_eq!(x.len(), y.len());
                proptest::prop_assert!(x.len() >= MIN_RUN_WORDS);
                proptest::prop_assert!(x[..MIN_RUN_WORDS] == y[..MIN_RUN_WORDS] && x[x.len() - MIN_RUN_WORDS..] == y[y.len() - MIN_RUN_WORDS..]);
            }
        }
    }
}
