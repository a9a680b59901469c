//! Corpus statistics and the `README.txt` that reports them, laid out like the
//! README of the dev corpus.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::obfuscate::{Level, Strategy};
use super::plan::{Case, LengthClass, ObfuscationMix};
use super::pool::MIN_POOL_WORDS;
use super::{CorpusSpec, SizeGoal};

/// The two document sets of a corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocumentSet {
    /// `source-documents/`.
    Source = 0,
    /// `suspicious-documents/`.
    Suspicious = 1,
}

/// Strategies in the order the README lists them.
const STRATEGY_ORDER: [Strategy; 12] = [
    Strategy::Random(Level::Low),
    Strategy::Random(Level::High),
    Strategy::Shuffle(Level::Low),
    Strategy::Shuffle(Level::High),
    Strategy::Semantic(Level::Low),
    Strategy::Semantic(Level::High),
    Strategy::Normalise,
    Strategy::Ocr(Level::Low),
    Strategy::Ocr(Level::High),
    Strategy::PhraseShuffle,
    Strategy::WordShuffle,
    Strategy::Verbatim,
];

/// Bins of the case length histogram (words of the source passage, inclusive).
const LENGTH_BINS: [(usize, usize, &str); 7] = [
    (0, 49, "<50 words"),
    (50, 150, "50-150 words"),
    (151, 299, "151-299 words"),
    (300, 500, "300-500 words"),
    (501, 2999, "501-2999 words"),
    (3000, 5000, "3000-5000 words"),
    (5001, usize::MAX, ">5000 words"),
];

/// Bins of the document size histogram (characters, upper bound exclusive).
const SIZE_BINS: [(u64, &str); 6] = [
    (10_000, "<10k chars"),
    (25_000, "<25k chars"),
    (50_000, "<50k chars"),
    (100_000, "<100k chars"),
    (200_000, "<200k chars"),
    (u64::MAX, ">=200k chars"),
];

/// The shared pool of a reuse-heavy corpus (`--reuse-pool`) and how much its
/// documents share through it, counted in the documents as drawn, before cases
/// are inserted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReuseStats {
    /// Sentences in the pool.
    pub pool_sentences: usize,
    /// Bytes of the pool's sentences.
    pub pool_bytes: u64,
    /// Input sentences of at least `MIN_POOL_WORDS` (5) words, of which the pool is a sample.
    pub input_sentences: u64,
    /// Pool sentences that no document holds.
    pub unused_sentences: usize,
    /// Documents holding a pool sentence, the mean over the pool's sentences.
    pub documents_per_sentence: f64,
    /// Distinct pool sentences two documents share, the mean over all pairs of documents.
    pub shared_per_pair: f64,
    /// The same, over the pairs of a source and a suspicious document (those a
    /// detector compares).
    pub shared_per_source_suspicious_pair: f64,
}

/// Statistics of a built corpus.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CorpusStats {
    /// The seed.
    pub seed: u64,
    /// Names (last path component) of the input directories or files.
    pub texts: Vec<String>,
    /// Number of input files.
    pub input_files: usize,
    /// Bytes of the input files.
    pub input_bytes: u64,
    /// The options in command-line form, without paths.
    pub options: String,
    /// The obfuscations the cases were drawn from.
    pub mix: ObfuscationMix,
    /// Documents recombined from pooled sentences (the rest are cut from the input).
    pub recombined_documents: usize,
    /// The shared pool, for a reuse-heavy corpus.
    pub reuse: Option<ReuseStats>,
    /// Number of source documents.
    pub source_documents: usize,
    /// Bytes of the source documents.
    pub source_bytes: u64,
    /// Number of suspicious documents.
    pub suspicious_documents: usize,
    /// Bytes of the suspicious documents.
    pub suspicious_bytes: u64,
    /// Characters of all documents.
    pub characters: u64,
    /// Characters of the suspicious documents.
    pub suspicious_characters: u64,
    /// Documents holding a non-ASCII character (character offsets differ from byte offsets).
    pub non_ascii_documents: usize,
    /// Suspicious documents with at least one case.
    pub plagiarised_documents: usize,
    /// Cases in all.
    pub cases: usize,
    /// Characters of suspicious documents covered by cases.
    pub plagiarised_characters: u64,
    /// Lines of `pairs` with a case.
    pub positive_pairs: usize,
    /// Lines of `pairs` without a case.
    pub negative_pairs: usize,
    /// Cases per `obfuscation` attribute.
    pub per_obfuscation: BTreeMap<&'static str, usize>,
    /// Cases per strategy.
    pub per_strategy: BTreeMap<Strategy, usize>,
    /// Cases per length class.
    pub per_class: BTreeMap<LengthClass, usize>,
    /// Cases per bin of the case length histogram (<50, 50-150, 151-299, 300-500,
    /// 501-2999, 3000-5000, >5000 words).
    pub case_words: [usize; LENGTH_BINS.len()],
    /// Documents per set and language, e.g. `("sou", "en")`.
    pub languages: BTreeMap<(&'static str, &'static str), usize>,
    /// Documents per bin of the size histogram (<10k, <25k, <50k, <100k, <200k,
    /// >=200k characters).
    pub document_sizes: [usize; SIZE_BINS.len()],
}

impl CorpusStats {
    /// Empty statistics for a corpus built by `spec` from `input_files` files.
    pub fn new(spec: &CorpusSpec, input_files: usize, input_bytes: u64) -> CorpusStats {
        let texts = spec
            .texts
            .iter()
            .map(|path| {
                path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
            })
            .collect();
        let mut options = format!(
            "--seed {} --doc-chars {}..{} --plagiarised-fraction {}",
            spec.seed, spec.doc_chars.min, spec.doc_chars.max, spec.plagiarised_fraction
        );
        match spec.size {
            SizeGoal::AllInput => {}
            SizeGoal::Documents { sources, suspicious } => {
                let _ = write!(options, " --sources {sources} --suspicious {suspicious}");
            }
            SizeGoal::TargetBytes(bytes) => {
                let _ = write!(options, " --target-mb {}", bytes as f64 / 1e6);
            }
        }
        if let Some(name) = spec.synonyms.as_ref().and_then(|p| p.file_name()) {
            let _ = write!(options, " --synonyms {}", name.to_string_lossy());
        }
        if let Some(sentences) = spec.reuse_pool {
            let _ = write!(options, " --reuse-pool {sentences}");
        }
        CorpusStats {
            seed: spec.seed,
            texts,
            input_files,
            input_bytes,
            options,
            mix: spec.mix,
            ..CorpusStats::default()
        }
    }

    /// Counts a written document of `set`.
    pub fn add_document(&mut self, set: DocumentSet, chars: u64, bytes: u64, language: &'static str, non_ascii: bool) {
        match set {
            DocumentSet::Source => {
                self.source_documents += 1;
                self.source_bytes += bytes;
            }
            DocumentSet::Suspicious => {
                self.suspicious_documents += 1;
                self.suspicious_bytes += bytes;
                self.suspicious_characters += chars;
            }
        }
        self.characters += chars;
        self.non_ascii_documents += usize::from(non_ascii);
        let prefix = if set == DocumentSet::Source { "sou" } else { "sus" };
        *self.languages.entry((prefix, language)).or_default() += 1;
        if let Some(bin) = SIZE_BINS.iter().position(|(limit, _)| chars < *limit) {
            self.document_sizes[bin] += 1;
        }
    }

    /// Counts a case.
    pub fn add_case(&mut self, case: &Case) {
        self.cases += 1;
        self.plagiarised_characters += case.this_length as u64;
        *self.per_obfuscation.entry(case.strategy.obfuscation()).or_default() += 1;
        *self.per_strategy.entry(case.strategy).or_default() += 1;
        *self.per_class.entry(case.class).or_default() += 1;
        if let Some(bin) = LENGTH_BINS.iter().position(|(low, high, _)| (*low..=*high).contains(&case.words)) {
            self.case_words[bin] += 1;
        }
    }

    /// Cases per `obfuscation` attribute, for every class of the mix
    /// ([`ObfuscationMix::classes`]) in its order, zero counts included.
    pub fn class_counts(&self) -> Vec<(&'static str, usize)> {
        self.mix.classes().iter().map(|&class| (class, self.per_obfuscation.get(class).copied().unwrap_or(0))).collect()
    }

    /// Bytes of all documents.
    pub fn total_bytes(&self) -> u64 {
        self.source_bytes + self.suspicious_bytes
    }

    /// The text of `README.txt`.
    pub fn readme(&self) -> String {
        let mb = |bytes: u64| bytes as f64 / 1e6;
        let mut r = String::new();
        // Writing to a String cannot fail; the results are ignored below.
        let _ = writeln!(r, "PAN-PC-10 style artificial plagiarism corpus");
        let _ = writeln!(
            r,
            "generated by pan-detect corpus {} from the texts in: {}",
            env!("CARGO_PKG_VERSION"),
            self.texts.join(" ")
        );
        let mode = match &self.reuse {
            Some(reuse) => format!(
                "reuse-heavy: every document drawn from one pool of {} input sentences, no cipher",
                thousands(reuse.pool_sentences as u64)
            ),
            None if self.recombined_documents == 0 => "real documents".to_string(),
            None => format!("real documents + {} recombined from input sentences", self.recombined_documents),
        };
        let _ = writeln!(
            r,
            "texts: {} files ({:.1} MB)   seed: {}   mode: {mode}",
            self.input_files,
            mb(self.input_bytes),
            self.seed
        );
        let _ = writeln!(r, "options: {}", self.options);
        if let Some(reuse) = &self.reuse {
            reuse.write_readme(&mut r);
        }
        let _ = writeln!(r);
        let _ = writeln!(
            r,
            "documents: {} source ({:.1} MB), {} suspicious ({:.1} MB), total {:.1} MB (UTF-8, 10^6 bytes)",
            self.source_documents,
            mb(self.source_bytes),
            self.suspicious_documents,
            mb(self.suspicious_bytes),
            mb(self.total_bytes())
        );
        let _ = writeln!(
            r,
            "characters: {}; documents with non-ASCII text (char offset != byte offset): {}",
            thousands(self.characters),
            self.non_ascii_documents
        );
        let _ = writeln!(
            r,
            "suspicious documents with plagiarism: {}; without: {}",
            self.plagiarised_documents,
            self.suspicious_documents - self.plagiarised_documents
        );
        let _ = writeln!(
            r,
            "plagiarism cases: {}; pairs file: {} positive + {} negative pairs",
            self.cases, self.positive_pairs, self.negative_pairs
        );
        let share = if self.suspicious_characters == 0 {
            0.0
        } else {
            100.0 * self.plagiarised_characters as f64 / self.suspicious_characters as f64
        };
        let _ = writeln!(r, "plagiarised characters in suspicious docs: {share:.1}%");
        let _ = writeln!(r);
        let _ = writeln!(r, "cases per obfuscation (XML attribute):");
        for (name, count) in self.class_counts() {
            let _ = writeln!(r, "  {name:<24} {count}");
        }
        let _ = writeln!(r, "cases per strategy (cases.tsv):");
        for strategy in STRATEGY_ORDER {
            if let Some(count) = self.per_strategy.get(&strategy) {
                let label = if strategy.obfuscation() == strategy.name() {
                    strategy.name().to_string()
                } else {
                    format!("{}/{}", strategy.obfuscation(), strategy.name())
                };
                let _ = writeln!(r, "  {label:<24} {count}");
            }
        }
        let _ = writeln!(r, "cases per length class:");
        for class in LengthClass::ALL {
            let _ = writeln!(r, "  {:<24} {}", class.name(), self.per_class.get(&class).copied().unwrap_or(0));
        }
        let _ = writeln!(r, "case length histogram (source passage words):");
        for ((_, _, label), count) in LENGTH_BINS.iter().zip(self.case_words) {
            if count > 0 || !label.starts_with(['<', '>']) {
                let _ = writeln!(r, "  {label:<24} {count}");
            }
        }
        let _ = writeln!(r, "languages of documents (source/suspicious):");
        for ((set, language), count) in &self.languages {
            let _ = writeln!(r, "  {:<24} {count}", format!("{set} {language}"));
        }
        let _ = writeln!(r, "document size histogram:");
        for ((_, label), count) in SIZE_BINS.iter().zip(self.document_sizes) {
            let _ = writeln!(r, "  {label:<24} {count}");
        }
        let _ = writeln!(r);
        let _ =
            writeln!(r, "Offsets are character (Python str) offsets into the UTF-8 decoded files; no CR characters.");
        let explanation = match self.mix {
            ObfuscationMix::PanPc | ObfuscationMix::Ocr => PAN_PC_OBFUSCATIONS,
            ObfuscationMix::Reorder => REORDER_OBFUSCATIONS,
        };
        r.push_str(explanation);
        let _ =
            writeln!(r, "Cases are inserted at sentence boundaries; this_offset/this_length cover the inserted text,");
        let _ = writeln!(r, "source_offset/source_length the original passage. cases.tsv lists every case.");
        r
    }
}

/// The README's explanation of the obfuscation classes of the PAN-PC mix.
const PAN_PC_OBFUSCATIONS: &str = "\
Obfuscation: none = verbatim; low/high = random word operations (shuffle, delete, insert,
replace with words of the receiving document), word-order changes within sentences, or
synonym replacement from the given word list, touching ~10-20% / ~30-50% of the words;
'normalise' cases (diacritics, case, punctuation, whitespace changes only) are labelled low.
";

/// The README's explanation of the obfuscation classes of the reorder mix.
const REORDER_OBFUSCATIONS: &str = "\
Obfuscation: none = verbatim; word-shuffle = every token of the passage (words and punctuation
marks alike) in a random order, joined by single spaces: the bag of tokens is the source's;
phrase-shuffle = the passage cut into phrases after clause punctuation (, ; : . ! ? and their
Arabic and CJK forms) and the phrases put in another order, the words of each in theirs.
A passage of fewer than 3 phrases is word-shuffled instead (and labelled word-shuffle).
";

impl ReuseStats {
    /// The README's lines on the shared pool.
    fn write_readme(&self, r: &mut String) {
        let _ = writeln!(
            r,
            "reuse pool: {} sentences ({:.1} MB), a uniform sample of the input's {} sentences of {MIN_POOL_WORDS}+ words",
            thousands(self.pool_sentences as u64),
            self.pool_bytes as f64 / 1e6,
            thousands(self.input_sentences)
        );
        let _ = writeln!(
            r,
            "  documents per pool sentence: mean {:.2}; pool sentences in no document: {}",
            self.documents_per_sentence,
            thousands(self.unused_sentences as u64)
        );
        let _ = writeln!(
            r,
            "  sentences two documents share: mean {:.3} over all pairs, {:.3} over source-suspicious pairs",
            self.shared_per_pair, self.shared_per_source_suspicious_pair
        );
        let _ = writeln!(
            r,
            "  (exact, over every pair, from each sentence's document frequency; counted in the documents as drawn,"
        );
        let _ = writeln!(r, "  before cases are inserted; sentences shared through the pool are not cases)");
    }
}

/// `n` with commas between thousands: 14,147,879.
/// The counts a corpus's `README.txt` states: `--check` compares them with the
/// files, so that a corpus that lost documents, cases or pairs after its build
/// is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadmeCounts {
    /// Source documents.
    pub source_documents: usize,
    /// Suspicious documents.
    pub suspicious_documents: usize,
    /// Plagiarism cases in the truth files.
    pub cases: usize,
    /// Lines of the `pairs` file (positive and negative pairs).
    pub pairs: usize,
}

impl ReadmeCounts {
    /// Reads the `documents:` and `plagiarism cases:` lines of a README written
    /// by [`CorpusStats::readme`] (or by the tool that made the dev corpus,
    /// which writes them alike); `None` when either is missing or reads otherwise.
    pub fn parse(readme: &str) -> Option<ReadmeCounts> {
        let line = |prefix: &str| readme.lines().find_map(|line| line.strip_prefix(prefix));
        let number = |text: &str| text.trim().parse::<usize>().ok();
        let documents = line("documents: ")?;
        let (sources, rest) = documents.split_once(" source (")?;
        let (suspicious, _) = rest.split_once("), ")?.1.split_once(" suspicious (")?;
        let (cases, pairs) = line("plagiarism cases: ")?.split_once("; pairs file: ")?;
        let (positive, negative) = pairs.split_once(" positive + ")?;
        Some(ReadmeCounts {
            source_documents: number(sources)?,
            suspicious_documents: number(suspicious)?,
            cases: number(cases)?,
            pairs: number(positive)? + number(negative.strip_suffix(" negative pairs")?)?,
        })
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(14_147_879), "14,147,879");
    }

    #[test]
    fn readme_reports_counts_and_histograms() {
        let spec = CorpusSpec::new(vec!["/some/where/texts".into()], "out".into(), 7);
        let mut stats = CorpusStats::new(&spec, 3, 12_000);
        stats.add_document(DocumentSet::Source, 5000, 5100, "en", true);
        stats.add_document(DocumentSet::Suspicious, 30_000, 30_000, "cs", false);
        stats.plagiarised_documents = 1;
        stats.add_case(&Case {
            suspicious: 1,
            this_offset: 0,
            this_length: 700,
            source: 1,
            source_offset: 10,
            source_length: 700,
            strategy: Strategy::Verbatim,
            class: LengthClass::Short,
            words: 120,
            this_language: "cs",
            source_language: "en",
        });
        let readme = stats.readme();
        assert!(readme.contains("from the texts in: texts\n"), "{readme}");
        assert!(readme.contains("documents: 1 source (0.0 MB), 1 suspicious (0.0 MB)"));
        assert!(readme.contains("  none/verbatim            1\n"));
        assert!(readme.contains("  50-150 words             1\n"));
        assert!(readme.contains("  sus cs                   1\n"));
        assert!(
            readme
                .contains("  <10k chars               1\n  <25k chars               0\n  <50k chars               1\n")
        );
        assert!(readme.contains("plagiarised characters in suspicious docs: 2.3%"));
        assert!(!readme.contains("/some/where"));
        assert!(!readme.contains("reuse"), "{readme}");
    }

    #[test]
    fn a_reorder_corpus_readme_lists_and_explains_its_classes() {
        let mut spec = CorpusSpec::new(vec!["texts".into()], "out".into(), 7);
        spec.mix = ObfuscationMix::Reorder;
        let mut stats = CorpusStats::new(&spec, 3, 12_000);
        let case = |strategy| Case {
            suspicious: 1,
            this_offset: 0,
            this_length: 700,
            source: 1,
            source_offset: 10,
            source_length: 700,
            strategy,
            class: LengthClass::Short,
            words: 120,
            this_language: "ar",
            source_language: "ar",
        };
        for strategy in [Strategy::WordShuffle, Strategy::WordShuffle, Strategy::Verbatim] {
            stats.add_case(&case(strategy));
        }
        assert_eq!(stats.class_counts(), [("none", 1), ("phrase-shuffle", 0), ("word-shuffle", 2)]);
        let readme = stats.readme();
        let classes = "cases per obfuscation (XML attribute):\n  none                     1\n  \
                       phrase-shuffle           0\n  word-shuffle             2\ncases per strategy";
        assert!(readme.contains(classes), "{readme}");
        assert!(readme.contains("\n  word-shuffle             2\n  none/verbatim            1\n"), "{readme}");
        assert!(readme.contains("word-shuffle = every token of the passage"), "{readme}");
        assert!(!readme.contains("low/high"), "{readme}");
    }

    #[test]
    fn the_counts_of_a_readme_are_read_back() {
        let spec = CorpusSpec::new(vec!["texts".into()], "out".into(), 7);
        let mut stats = CorpusStats::new(&spec, 3, 12_000);
        for _ in 0..3 {
            stats.add_document(DocumentSet::Source, 5000, 5100, "en", true);
        }
        stats.add_document(DocumentSet::Suspicious, 30_000, 30_000, "cs", false);
        stats.cases = 12;
        (stats.positive_pairs, stats.negative_pairs) = (4, 5);
        let expected = ReadmeCounts { source_documents: 3, suspicious_documents: 1, cases: 12, pairs: 9 };
        assert_eq!(ReadmeCounts::parse(&stats.readme()), Some(expected));
        assert_eq!(ReadmeCounts::parse("A corpus.\ndocuments: many\n"), None);
    }

    #[test]
    fn readme_states_the_reuse_mode_pool_and_sharing() {
        let mut spec = CorpusSpec::new(vec!["texts".into()], "out".into(), 7);
        spec.size = SizeGoal::TargetBytes(50_000_000);
        spec.reuse_pool = Some(50_000);
        let mut stats = CorpusStats::new(&spec, 3, 12_000);
        stats.reuse = Some(ReuseStats {
            pool_sentences: 50_000,
            pool_bytes: 6_100_000,
            input_sentences: 61_234,
            unused_sentences: 0,
            documents_per_sentence: 7.754,
            shared_per_pair: 0.5012,
            shared_per_source_suspicious_pair: 0.4987,
        });
        let readme = stats.readme();
        assert!(readme.contains("mode: reuse-heavy: every document drawn from one pool of 50,000 input sentences"));
        assert!(readme.contains("--target-mb 50 --reuse-pool 50000\n"), "{readme}");
        assert!(readme.contains("reuse pool: 50,000 sentences (6.1 MB), a uniform sample of the input's 61,234"));
        assert!(readme.contains("documents per pool sentence: mean 7.75;"), "{readme}");
        assert!(readme.contains("mean 0.501 over all pairs, 0.499 over source-suspicious pairs"), "{readme}");
        assert!(readme.contains("(exact, over every pair"), "{readme}");
    }
}
