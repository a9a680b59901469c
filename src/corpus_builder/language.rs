//! A light language guess for the `this_language` / `source_language` attributes:
//! count the most frequent function words of a few European languages.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Function words per language (ISO 639-1 code), chosen to be rare in the other
/// listed languages.
const FUNCTION_WORDS: &[(&str, &[&str])] = &[
    ("en", &["the", "and", "of", "to", "is", "that", "it", "was", "with", "for", "this", "are", "be", "not", "have"]),
    (
        "de",
        &["der", "die", "und", "das", "ist", "nicht", "ein", "eine", "mit", "den", "sich", "auf", "auch", "dem", "zu"],
    ),
    (
        "cs",
        &[
            "je", "se", "na", "že", "jsou", "ale", "jako", "pro", "které", "který", "jeho", "byl", "byla", "také",
            "nebo",
        ],
    ),
    ("fr", &["le", "les", "et", "est", "des", "une", "pas", "pour", "dans", "qui", "sur", "avec", "du", "au", "ce"]),
    ("es", &["el", "los", "las", "y", "una", "por", "para", "con", "del", "su", "al", "lo", "como", "más", "pero"]),
    (
        "it",
        &[
            "il", "che", "di", "non", "per", "della", "gli", "sono", "anche", "come", "nel", "alla", "delle", "questo",
            "è",
        ],
    ),
    ("nl", &["het", "een", "en", "van", "dat", "niet", "op", "zijn", "met", "voor", "ook", "maar", "aan", "om", "bij"]),
    (
        "pt",
        &["os", "não", "uma", "em", "são", "mas", "dos", "das", "ao", "pelo", "pela", "também", "muito", "isso", "é"],
    ),
];

/// How many words of a text are looked at.
const SAMPLE_WORDS: usize = 2000;

/// Function word → bit set of the languages (indices into [`FUNCTION_WORDS`]) that list it.
fn function_words() -> &'static HashMap<&'static str, u32> {
    static TABLE: OnceLock<HashMap<&'static str, u32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = HashMap::new();
        for (index, (_, words)) in FUNCTION_WORDS.iter().enumerate() {
            for word in *words {
                *table.entry(*word).or_insert(0) |= 1 << index;
            }
        }
        table
    })
}

/// The language of `text` as an ISO 639-1 code: the language whose function words
/// occur most often among its first two thousand words; `"en"` when no language
/// scores at least 3.
pub fn detect_language(text: &str) -> &'static str {
    let table = function_words();
    let mut scores = [0usize; FUNCTION_WORDS.len()];
    let mut lower = String::new();
    for word in text.split_whitespace().take(SAMPLE_WORDS) {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        if word.len() > 8 {
            continue; // longer than any function word
        }
        lower.clear();
        lower.extend(word.chars().flat_map(char::to_lowercase));
        if let Some(&languages) = table.get(lower.as_str()) {
            for (index, score) in scores.iter_mut().enumerate() {
                if languages & (1 << index) != 0 {
                    *score += 1;
                }
            }
        }
    }
    // The first maximum wins, so ties go to the language listed first.
    let mut best = 0;
    for (i, &score) in scores.iter().enumerate() {
        if score > scores[best] {
            best = i;
        }
    }
    if scores[best] < 3 { "en" } else { FUNCTION_WORDS[best].0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guesses_english_german_and_czech() {
        assert_eq!(detect_language("The fox was quick and it is not clear that the dog was lazy."), "en");
        assert_eq!(detect_language("Der Fuchs ist schnell und die Katze ist nicht auf dem Dach, das ist klar."), "de");
        assert_eq!(detect_language("Liška je rychlá a pes je líný, ale to není jisté, že se na to přijde."), "cs");
        assert_eq!(detect_language("42 17 99"), "en");
    }
}
