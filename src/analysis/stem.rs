//! Languages, stop words and stemming for the alignment stage.
//!
//! Words arrive folded by [`crate::analysis::tokenize`] (lower-case, diacritics dropped), each
//! with its character range; stemming maps the folded form to a Snowball stem
//! (the `rust-stemmers` crate) and never touches the range, so passages keep exact
//! boundaries. The stop-word lists are short lists of the most frequent function
//! words, spelled as the tokenizer folds them; they serve both to drop words that
//! carry no content and to guess a document's language.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::analysis::tokenize::Tokens;

/// Which language's stop words and stemmer the alignment stage uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LanguageSetting {
    /// Guess each document's language from its function words (`--language auto`).
    Auto,
    /// No stemming and no stop words (`--language none`).
    None,
    /// One language for every document (`--language en`, ...).
    Fixed(Language),
}

/// A language with a Snowball stemmer and a stop-word list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// English.
    English,
    /// German.
    German,
    /// French.
    French,
    /// Spanish.
    Spanish,
    /// Italian.
    Italian,
    /// Portuguese.
    Portuguese,
    /// Dutch.
    Dutch,
    /// Swedish.
    Swedish,
    /// Danish.
    Danish,
    /// Norwegian.
    Norwegian,
    /// Finnish.
    Finnish,
    /// Russian.
    Russian,
}

/// Every supported language, in the order the language guess breaks ties.
pub const LANGUAGES: [Language; 12] = [
    Language::English,
    Language::German,
    Language::French,
    Language::Spanish,
    Language::Italian,
    Language::Portuguese,
    Language::Dutch,
    Language::Swedish,
    Language::Danish,
    Language::Norwegian,
    Language::Finnish,
    Language::Russian,
];

impl Language {
    /// The ISO 639-1 code (`en`, `de`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::German => "de",
            Language::French => "fr",
            Language::Spanish => "es",
            Language::Italian => "it",
            Language::Portuguese => "pt",
            Language::Dutch => "nl",
            Language::Swedish => "sv",
            Language::Danish => "da",
            Language::Norwegian => "no",
            Language::Finnish => "fi",
            Language::Russian => "ru",
        }
    }

    /// The ISO 639-3 code (`eng`, `deu`, ...), as FreeDict names its
    /// dictionaries.
    pub fn code3(self) -> &'static str {
        match self {
            Language::English => "eng",
            Language::German => "deu",
            Language::French => "fra",
            Language::Spanish => "spa",
            Language::Italian => "ita",
            Language::Portuguese => "por",
            Language::Dutch => "nld",
            Language::Swedish => "swe",
            Language::Danish => "dan",
            Language::Norwegian => "nor",
            Language::Finnish => "fin",
            Language::Russian => "rus",
        }
    }

    /// The language of an ISO 639-1 code.
    pub fn from_code(code: &str) -> Option<Language> {
        LANGUAGES.into_iter().find(|l| l.code() == code)
    }

    fn algorithm(self) -> Algorithm {
        match self {
            Language::English => Algorithm::English,
            Language::German => Algorithm::German,
            Language::French => Algorithm::French,
            Language::Spanish => Algorithm::Spanish,
            Language::Italian => Algorithm::Italian,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Dutch => Algorithm::Dutch,
            Language::Swedish => Algorithm::Swedish,
            Language::Danish => Algorithm::Danish,
            Language::Norwegian => Algorithm::Norwegian,
            Language::Finnish => Algorithm::Finnish,
            Language::Russian => Algorithm::Russian,
        }
    }

    /// Frequent function words of the language, folded like the tokenizer folds
    /// them (lower-case, no diacritics), at least three characters long (shorter
    /// words are dropped by the tokenizer anyway).
    pub fn stop_words(self) -> &'static [&'static str] {
        match self {
            Language::English => &[
                "the",
                "and",
                "that",
                "have",
                "for",
                "not",
                "with",
                "you",
                "this",
                "but",
                "his",
                "from",
                "they",
                "say",
                "her",
                "she",
                "will",
                "one",
                "all",
                "would",
                "there",
                "their",
                "what",
                "out",
                "about",
                "who",
                "get",
                "which",
                "when",
                "make",
                "can",
                "like",
                "time",
                "just",
                "him",
                "know",
                "take",
                "into",
                "year",
                "your",
                "some",
                "could",
                "them",
                "see",
                "other",
                "than",
                "then",
                "now",
                "only",
                "come",
                "its",
                "over",
                "also",
                "back",
                "after",
                "use",
                "two",
                "how",
                "our",
                "well",
                "way",
                "even",
                "want",
                "because",
                "any",
                "these",
                "give",
                "day",
                "most",
                "are",
                "was",
                "were",
                "been",
                "has",
                "had",
                "did",
                "does",
                "doing",
                "being",
                "very",
                "more",
                "such",
                "should",
                "may",
                "might",
                "must",
                "shall",
                "here",
                "where",
                "why",
                "those",
                "each",
                "few",
                "both",
                "same",
                "own",
                "too",
                "off",
                "again",
                "further",
                "once",
                "under",
                "above",
                "below",
                "between",
                "through",
                "during",
                "before",
                "against",
                "while",
                "until",
                "yet",
                "nor",
                "whom",
                "whose",
                "himself",
                "herself",
                "itself",
                "themselves",
                "myself",
                "yourself",
                "ourselves",
                "said",
                "upon",
                "unto",
                "thee",
                "thou",
                "thy",
                "hath",
                "shalt",
                "also",
                "many",
                "much",
                "every",
                "still",
                "ever",
                "never",
                "however",
                "though",
                "although",
                "within",
                "without",
                "onto",
                "per",
                "let",
                "made",
                "got",
                "gets",
                "says",
                "don",
                "didn",
                "doesn",
                "isn",
                "wasn",
                "aren",
                "won",
                "can",
                "cannot",
                "whether",
                "either",
                "neither",
                "another",
                "something",
                "anything",
                "nothing",
                "everything",
            ],
            Language::German => &[
                "der", "die", "und", "den", "von", "das", "mit", "sich", "des", "auf", "fur", "ist", "nicht", "ein",
                "eine", "als", "auch", "dem", "wird", "bei", "aus", "sie", "nach", "hat", "war", "oder", "wie", "wenn",
                "einen", "einer", "eines", "einem", "werden", "sind", "ich", "noch", "nur", "vor", "zur", "zum",
                "uber", "durch", "kann", "aber", "wurde", "wir", "ihr", "ihre", "sein", "seine", "haben", "dass",
                "daß", "alle", "jede", "jeder", "diese", "dieser", "dieses", "hier", "unter", "zwischen", "ohne",
                "gegen", "beim",
            ],
            Language::French => &[
                "les", "des", "est", "une", "que", "qui", "dans", "par", "pour", "pas", "sur", "aux", "ses", "son",
                "sont", "avec", "plus", "mais", "comme", "ont", "tout", "elle", "etre", "fait", "ete", "leur", "leurs",
                "nous", "vous", "ils", "elles", "cette", "ces", "aussi", "entre", "sans", "sous", "dont", "ou", "meme",
                "toute", "tous", "toutes", "avait", "etait", "peut", "lui", "apres", "avant", "encore", "donc",
            ],
            Language::Spanish => &[
                "que", "los", "las", "del", "por", "con", "una", "para", "como", "mas", "pero", "sus", "esta", "este",
                "son", "entre", "cuando", "todo", "todos", "esta", "sin", "sobre", "tambien", "hasta", "hay", "donde",
                "quien", "desde", "nos", "durante", "uno", "ni", "contra", "ese", "eso", "ante", "ellos", "toda",
                "tiene", "puede", "fue", "ser", "han", "era", "muy", "sino", "porque", "les", "otro", "otra",
            ],
            Language::Italian => &[
                "che", "non", "per", "una", "del", "della", "dei", "delle", "con", "sono", "gli", "come", "nel",
                "nella", "alla", "anche", "suo", "sua", "piu", "questo", "questa", "dal", "dalla", "tra", "fra",
                "essere", "stato", "hanno", "era", "loro", "ogni", "tutti", "tutto", "ma", "perche", "cui", "sul",
            ],
            Language::Portuguese => &[
                "que", "nao", "uma", "com", "para", "por", "dos", "das", "como", "mais", "mas", "foi", "ele", "ela",
                "seu", "sua", "pelo", "pela", "isso", "esta", "este", "entre", "quando", "muito", "tambem", "sem",
                "sao", "ser", "tem", "todos", "todo", "toda", "nos", "ate", "seus", "suas", "num", "numa", "aos",
            ],
            Language::Dutch => &[
                "het", "een", "van", "dat", "die", "niet", "ook", "met", "voor", "zijn", "aan", "maar", "als", "bij",
                "door", "over", "naar", "dan", "nog", "wel", "geen", "hij", "zij", "wordt", "worden", "werd", "heeft",
                "hebben", "deze", "dit", "uit", "tot", "om", "onder", "zich", "kan", "alle", "waar", "wat", "wie",
            ],
            Language::Swedish => &[
                "och", "att", "det", "som", "for", "med", "har", "den", "till", "inte", "var", "kan", "ett", "han",
                "hon", "sig", "men", "fran", "eller", "nar", "vid", "pa", "sin", "sitt", "sina", "alla", "skall",
                "ska", "efter", "under", "mot", "utan", "dem", "hade", "vara", "blir", "blev", "denna", "detta",
            ],
            Language::Danish => &[
                "og",
                "det",
                "har",
                "den",
                "til",
                "der",
                "ikke",
                "med",
                "for",
                "som",
                "var",
                "kan",
                "til",
                "han",
                "hun",
                "sig",
                "men",
                "fra",
                "eller",
                "naar",
                "ved",
                "paa",
                "sin",
                "sit",
                "sine",
                "alle",
                "skal",
                "efter",
                "under",
                "mod",
                "uden",
                "dem",
                "havde",
                "vaere",
                "bliver",
                "blev",
                "denne",
                "dette",
                "hvor",
                "enhver",
                "ethvert",
                "rettigheder",
            ],
            Language::Norwegian => &[
                "og", "det", "har", "den", "til", "ikke", "med", "for", "som", "var", "kan", "han", "hun", "seg",
                "men", "fra", "eller", "nar", "ved", "pa", "sin", "sitt", "sine", "alle", "skal", "etter", "under",
                "mot", "uten", "dem", "hadde", "vaere", "blir", "ble", "denne", "dette", "hvor", "enhver", "ethvert",
            ],
            Language::Finnish => &[
                "jaa",
                "joka",
                "jotka",
                "mutta",
                "kuin",
                "kun",
                "ovat",
                "oli",
                "ole",
                "olla",
                "tai",
                "sen",
                "sita",
                "hanen",
                "niin",
                "myos",
                "jos",
                "mita",
                "sitten",
                "vain",
                "sekä",
                "seka",
                "kaikki",
                "kaikkien",
                "tama",
                "taman",
                "nama",
                "niita",
                "ilman",
                "ettei",
                "jokaisella",
                "jokainen",
                "oikeus",
            ],
            Language::Russian => &[
                "что",
                "как",
                "это",
                "все",
                "его",
                "она",
                "они",
                "так",
                "был",
                "было",
                "была",
                "для",
                "или",
                "уже",
                "при",
                "только",
                "его",
                "ему",
                "нет",
                "еще",
                "ещё",
                "бы",
                "вот",
                "где",
                "кто",
                "чтобы",
                "если",
                "ни",
                "под",
                "над",
                "без",
                "после",
                "перед",
                "когда",
                "также",
                "каждый",
                "право",
            ],
        }
    }

    /// The Snowball stemmer of this language.
    pub fn stemmer(self) -> Stemmer {
        Stemmer::create(self.algorithm())
    }
}

/// Guesses the language of a text from its first `sample` words: the language
/// whose stop words make up the largest share of them, when that share is at
/// least 8 %; `None` otherwise (and for texts of fewer than 20 words).
pub fn guess_language(tokens: &Tokens, sample: usize) -> Option<Language> {
    static LANGUAGES_OF: OnceLock<HashMap<&'static str, u16>> = OnceLock::new();
    let languages_of = LANGUAGES_OF.get_or_init(|| {
        let mut map: HashMap<&'static str, u16> = HashMap::new();
        for (bit, language) in LANGUAGES.iter().enumerate() {
            for &word in language.stop_words() {
                *map.entry(word).or_insert(0) |= 1 << bit;
            }
        }
        map
    });
    let n = tokens.len().min(sample);
    if n < 20 {
        return None;
    }
    let mut hits = [0usize; LANGUAGES.len()];
    for seq in 0..n {
        if let Some(&mask) = languages_of.get(tokens.word(seq)) {
            for (bit, count) in hits.iter_mut().enumerate() {
                *count += usize::from(mask >> bit & 1 == 1);
            }
        }
    }
    // The first language with the most hits (ties go to the earlier language).
    let (best, &most) = hits.iter().enumerate().rev().max_by_key(|&(_, h)| h)?;
    (most * 100 >= n * 8).then_some(LANGUAGES[best])
}

/// Stems folded words of one language and tells its stop words; one per thread
/// and language.
pub struct WordStemmer {
    language: Option<Language>,
    stemmer: Option<Stemmer>,
    /// The language's stop words, sorted for binary search.
    stop_words: Vec<&'static str>,
}

impl std::fmt::Debug for WordStemmer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordStemmer").field("language", &self.language).finish()
    }
}

impl WordStemmer {
    /// A stemmer for `language`; `None` keeps words as they are and has no stop words.
    pub fn new(language: Option<Language>) -> Self {
        let mut stop_words = language.map_or(Vec::new(), |l| l.stop_words().to_vec());
        stop_words.sort_unstable();
        WordStemmer { language, stemmer: language.map(Language::stemmer), stop_words }
    }

    /// The language this stemmer was made for.
    pub fn language(&self) -> Option<Language> {
        self.language
    }

    /// True when `word` (folded) is a stop word of the language.
    pub fn is_stop_word(&self, word: &str) -> bool {
        self.stop_words.binary_search(&word).is_ok()
    }

    /// The stem of a folded word.
    pub fn stem<'a>(&self, word: &'a str) -> Cow<'a, str> {
        match &self.stemmer {
            Some(stemmer) => stemmer.stem(word),
            None => Cow::Borrowed(word),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::span::char_slice;
    use crate::analysis::tokenize::{Tokenizer, TokenizerParams};

    fn tokens(text: &str) -> Tokens {
        let mut tokens = Tokens::default();
        Tokenizer::new(TokenizerParams::default()).tokenize(text, &mut tokens);
        tokens
    }

    #[test]
    fn stems_keep_the_words_character_ranges() {
        let text = "Die Übersetzungen wurden veröffentlicht, und die Katzen liefen.";
        let tokens = tokens(text);
        let stemmer = WordStemmer::new(Some(Language::German));
        let stemmed: Vec<(String, &str)> = (0..tokens.len())
            .filter(|&seq| !stemmer.is_stop_word(tokens.word(seq)))
            .map(|seq| (stemmer.stem(tokens.word(seq)).into_owned(), char_slice(text, tokens.range(seq)).unwrap()))
            .collect();
        assert_eq!(stemmed[0], ("ubersetz".to_string(), "Übersetzungen"));
        assert_eq!(stemmed.last().unwrap(), &("lief".to_string(), "liefen"));
        assert!(stemmed.iter().all(|(_, original)| !original.contains(' ')));
    }

    #[test]
    fn english_stems_join_inflections() {
        let stemmer = WordStemmer::new(Some(Language::English));
        assert_eq!(stemmer.stem("connections"), stemmer.stem("connected"));
        assert_eq!(stemmer.stem("running"), "run");
        assert!(stemmer.is_stop_word("the") && !stemmer.is_stop_word("telescope"));
        assert_eq!(WordStemmer::new(None).stem("running"), "running");
    }

    #[test]
    fn languages_are_guessed_from_function_words() {
        let english = "The telescope was pointed at the sky, and the signal that they found was very regular \
                       because it came from a pulsar which nobody had seen before this night of the storm.";
        assert_eq!(guess_language(&tokens(english), 1000), Some(Language::English));
        let german = "Der Hund und die Katze sind nicht mit dem Auto gefahren, weil es auf der Straße \
                      bei dem Regen für die Tiere von dem Bauern zu gefährlich war und sich nichts bewegte.";
        assert_eq!(guess_language(&tokens(german), 1000), Some(Language::German));
        let gibberish: String = (0..40).map(|i| format!("zzq{i} ")).collect();
        assert_eq!(guess_language(&tokens(&gibberish), 1000), None);
        assert_eq!(Language::from_code("fi"), Some(Language::Finnish));
    }
}
