//! Names: a passage whose two sides each name several particulars of their
//! own, and neither side names any of the other's, is one scaffolding written
//! around other names, not a text of its source. The King James Bible's regnal
//! formula is the example: "Josiah was eight years old when he began to
//! reign, and he reigned thirty and one years in Jerusalem. And his mother's
//! name was Jedidah, the daughter of Adaiah of Boscath" against the same words
//! around Jehoshaphat, Azubah and Shilhi. A copy, however reworded, keeps its
//! names.
//!
//! A *name* is a term that is rare in the pair ([`Idf::is_rare_term`]), written
//! with a capital inside a sentence ([`WordCase::CapitalInside`]) and nowhere
//! in the pair in small letters. Scripts without capitals have no names, and
//! their passages never fail this test.

use crate::align::AlignedPassage;
use crate::align::seed::Idf;
use crate::align::sentences::{Sentences, WordCase};
use crate::analysis::span::CharRange;

/// Fewest names each side of a passage must have before naming none of the
/// other's marks it as formulaic. With 3, pan13-ta-train loses 0.0001 with
/// the pairs given and 0.0004 with full search (random obfuscation replaces
/// the capitalised words of titles); with 2 it lost 0.0003 and 0.0011, and
/// dev-en 0.0001.
pub const MIN_NAMES_PER_SIDE: usize = 3;

/// Passages one of whose sides is more than this many times as long as the
/// other are not tested: a summary names a few of its source's particulars,
/// and the source side names the rest. Without this limit, pan13-ta-train's
/// summaries lost 0.0028 with the pairs given.
pub const MAX_SIDE_RATIO: u32 = 2;

/// True when each side of `passage` (whose words `suspicious` and `source`
/// hold) has at least [`MIN_NAMES_PER_SIDE`] names and neither side has any
/// of the other's names among its words: the two sides repeat one
/// scaffolding around other particulars. Passages whose sides differ in
/// length by more than [`MAX_SIDE_RATIO`] are never formulaic by names.
pub fn names_differ(suspicious: &Sentences, source: &Sentences, idf: &Idf, passage: &AlignedPassage) -> bool {
    let (this_len, source_len) = (passage.suspicious.len(), passage.source.len());
    if this_len.max(source_len) > MAX_SIDE_RATIO.saturating_mul(this_len.min(source_len)) {
        return false;
    }
    let this = capitalised_rare_terms(suspicious, idf, passage.suspicious);
    let other = capitalised_rare_terms(source, idf, passage.source);
    if this.len() < MIN_NAMES_PER_SIDE || other.len() < MIN_NAMES_PER_SIDE {
        return false;
    }
    if has_any(source, passage.source, &this) || has_any(suspicious, passage.suspicious, &other) {
        return false;
    }
    // Only now (rarely reached) the costlier test that they are names: never
    // written in small letters in either document.
    let names = |terms: Vec<u64>| {
        terms.into_iter().filter(|&term| !written_small(suspicious, term) && !written_small(source, term)).count()
    };
    names(this) >= MIN_NAMES_PER_SIDE && names(other) >= MIN_NAMES_PER_SIDE
}

/// The distinct rare terms of `sentences` in `range` written with a capital
/// inside their sentence, sorted.
fn capitalised_rare_terms(sentences: &Sentences, idf: &Idf, range: CharRange) -> Vec<u64> {
    let words = sentences.words_in(range);
    let mut terms: Vec<u64> = sentences.sequence[words.clone()]
        .iter()
        .zip(&sentences.cases[words])
        .filter(|&(&term, &case)| case == WordCase::CapitalInside && idf.is_rare_term(term))
        .map(|(&term, _)| term)
        .collect();
    terms.sort_unstable();
    terms.dedup();
    terms
}

/// True when a word of `sentences` in `range` is one of `terms` (sorted).
fn has_any(sentences: &Sentences, range: CharRange, terms: &[u64]) -> bool {
    sentences.sequence[sentences.words_in(range)].iter().any(|term| terms.binary_search(term).is_ok())
}

/// True when `term` is written in small letters somewhere in `sentences`.
fn written_small(sentences: &Sentences, term: u64) -> bool {
    sentences.sequence.iter().zip(&sentences.cases).any(|(&t, &case)| t == term && case == WordCase::Small)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::Aligner;
    use crate::align::params::AlignParams;
    use crate::analysis::tokenize::TokenizerParams;

    fn analysed(text: &str) -> Sentences {
        let mut sentences = Sentences::default();
        Aligner::new(TokenizerParams::default(), AlignParams::default(), None).analyse(text, &mut sentences);
        sentences
    }

    fn whole(text: &str) -> CharRange {
        CharRange::new(0, text.chars().count() as u32)
    }

    /// Whether the whole of `this` aligned with the whole of `other` is
    /// formulaic by its names.
    fn differ(this: &str, other: &str) -> bool {
        let (a, b) = (analysed(this), analysed(other));
        let passage = AlignedPassage { suspicious: whole(this), source: whole(other), exact: false };
        names_differ(&a, &b, &Idf::of(&a, &b), &passage)
    }

    /// A regnal formula around one king's particulars.
    fn reign(king: &str, mother: &str, father: &str, city: &str) -> String {
        format!(
            "In those days {king} was young when he began to reign, and he reigned in {city}. And his \
             mother's name was {mother}, the daughter of {father}. And {king} did that which was right in the \
             sight of the people."
        )
    }

    #[test]
    fn a_formula_around_other_names_differs_and_a_reworded_copy_does_not() {
        let source = reign("Jehoshaphat", "Azubah", "Shilhi", "Tirzah");
        assert!(differ(&reign("Josiah", "Jedidah", "Adaiah", "Boscath"), &source));
        let reworded = "In those days Jehoshaphat was a youth when he became king, and he ruled in Tirzah. His mother \
                        was called Azubah, a daughter of Shilhi. And Jehoshaphat did what was good before the people.";
        assert!(!differ(reworded, &source));
        // One name of the source kept is enough.
        assert!(!differ(&reign("Josiah", "Jedidah", "Adaiah", "Tirzah"), &source));
    }

    #[test]
    fn two_names_a_side_are_too_few_to_tell() {
        let source = reign("Jehoshaphat", "Azubah", "Shilhi", "Tirzah");
        assert!(!differ(&reign("Josiah", "Jedidah", "the priest", "the city"), &source));
    }

    #[test]
    fn a_side_more_than_twice_as_long_as_the_other_is_not_tested() {
        let formula = reign("Josiah", "Jedidah", "Adaiah", "Boscath");
        let source = reign("Jehoshaphat", "Azubah", "Shilhi", "Tirzah");
        let longer = format!(
            "{source} {} {}",
            reign("Omri", "Zeruah", "Nebat", "Samaria"),
            reign("Asa", "Maachah", "Abishalom", "Ramah")
        );
        assert!(whole(&longer).len() > MAX_SIDE_RATIO * whole(&formula).len());
        assert!(!differ(&formula, &longer), "a summary names a few of its source's particulars");
    }

    #[test]
    fn a_word_written_in_small_letters_in_the_pair_is_no_name() {
        let source = reign("Jehoshaphat", "Azubah", "Shilhi", "Tirzah");
        let formula = reign("Josiah", "Rose", "Hope", "Mark");
        assert!(differ(&formula, &source));
        let in_small = format!("{formula} A rose is a mark of hope.");
        assert!(!differ(&in_small, &source));
    }

    #[test]
    fn a_script_without_capitals_has_no_names() {
        let source = "كان يهوشافاط ابن ثلاثين سنة حين ملك وملك في ترصة. واسم أمه عزوبة بنت شلحي. وعمل المستقيم.";
        let formula = "كان يوشيا ابن ثماني سنين حين ملك وملك في بصقة. واسم أمه يديدة بنت عداية. وعمل المستقيم.";
        assert!(!differ(formula, source));
    }
}
