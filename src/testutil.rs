//! Helpers shared by the unit tests.

/// Deterministic pseudo-prose of `words` words in sentences of eleven, with
/// Czech diacritics (so that character offsets differ from byte offsets);
/// different seeds share no five-word run.
pub(crate) fn prose(seed: u64, words: usize) -> String {
    const SYLLABLES: [&str; 16] =
        ["ka", "ře", "lo", "mů", "ti", "sa", "ně", "po", "vý", "dr", "ul", "če", "ba", "zi", "ho", "fy"];
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut text = String::new();
    for i in 0..words {
        let syllables = 2 + next() % 3;
        text.extend((0..syllables).map(|_| SYLLABLES[next() % SYLLABLES.len()]));
        text.push_str(if i % 11 == 10 { ". " } else { " " });
    }
    text
}
