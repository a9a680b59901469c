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

/// A detection as [`CollectDetections`] keeps it: the suspicious document's
/// name and range, the source's name and range.
pub(crate) type Collected = (String, crate::analysis::span::CharRange, String, crate::analysis::span::CharRange);

/// A sink that keeps every detection it receives.
#[derive(Default)]
pub(crate) struct CollectDetections(pub(crate) std::sync::Mutex<Vec<Collected>>);

impl CollectDetections {
    /// The detections received, sorted.
    pub(crate) fn sorted(self) -> Vec<Collected> {
        let mut all = self.0.into_inner().unwrap();
        all.sort_by_key(|(name, this, source_name, source)| (name.clone(), *this, source_name.clone(), *source));
        all
    }
}

impl crate::report::DetectionSink for CollectDetections {
    fn document(
        &self,
        suspicious: &str,
        detections: &[crate::report::Detection<'_>],
    ) -> Result<(), crate::error::Error> {
        let found =
            detections.iter().map(|d| (suspicious.to_string(), d.this, d.source_reference.to_string(), d.source));
        self.0.lock().unwrap().extend(found);
        Ok(())
    }
}

/// Writes into `dir` a corpus for aligning a long document in parts:
/// `src/source{0..5}.txt`, each holding a passage copied into the one
/// suspicious document `susp/long.txt` (about 13 KB) between stretches of
/// its own text. The copies have 150 words (about 1,100 bytes), except that
/// of `source3.txt`, of 500 words. Returns the long document's text.
pub(crate) fn long_document_corpus(dir: &std::path::Path) -> String {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("susp")).unwrap();
    let copied = |k: u64| prose(30 + k, if k == 3 { 500 } else { 150 });
    let mut long = String::new();
    for k in 0..5u64 {
        let source = format!("{}{}{}", prose(10 + k, 100), copied(k), prose(20 + k, 100));
        std::fs::write(dir.join(format!("src/source{k}.txt")), source).unwrap();
        long.push_str(&prose(100 + k, 180));
        long.push_str(&copied(k));
    }
    long.push_str(&prose(200, 180));
    std::fs::write(dir.join("susp/long.txt"), &long).unwrap();
    long
}
