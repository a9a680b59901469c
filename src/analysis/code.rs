//! Source code as tokens (`--tokenizer code`): a copied function whose
//! variables were renamed, whose literals were changed and whose comments and
//! layout were redone still gives the same tokens.
//!
//! C-like source (C, C++, Java, JavaScript, Rust-ish) and Python-like source
//! are read by one scanner:
//!
//! - identifiers become one placeholder, [`IDENTIFIER`]; keywords (the union of
//!   the languages' keyword sets, [`KEYWORDS`], case-sensitive, plus the C
//!   preprocessor's directive names) are kept as themselves;
//! - number literals become [`NUMBER`], string and character literals (with
//!   backslash escapes, Python's triple quotes and string prefixes such as
//!   `r"…"`, `b'…'`, `L"…"`) become [`STRING`];
//! - operators and brackets are kept, multi-character operators as one token
//!   (`==`, `->`, `+=`, `&&`, `**`, `<<=`, …, longest match first);
//! - comments and white space are dropped.
//!
//! Two characters mean different things in the two families: `#` starts a
//! comment in Python but a preprocessor directive (`#include`) or an attribute
//! (`#[derive]`) in C-like code, and `//` starts a comment in C-like code but
//! is floor division in Python. The scanner guesses the family once per text
//! ([`looks_like_python`]: more lines that open a Python block with a colon
//! than lines that end in `;`, `{` or `}`), so that both copies of a function
//! in one language are read the same way. In C-like text `#` is an operator
//! token and `include`, `define`, … are keywords, so `#include <stdio.h>` stays
//! `# include < $id . $id >`; in Python-like text `//` is an operator and `/*`
//! is not a comment.
//!
//! Every token keeps its character range in the text (a string literal's
//! range covers its quotes and prefix); the minimum word length does not
//! apply. Tokens are written to the same [`Tokens`] buffer as words, so the
//! chunker, the index and the matching stages take them unchanged.

use crate::analysis::span::CharRange;
use crate::analysis::tokenize::{Tokenize, Tokens};

/// The token of every identifier. The `$` cannot start a keyword or an
/// operator token, so the placeholders never equal one.
pub const IDENTIFIER: &str = "$id";
/// The token of every number literal.
pub const NUMBER: &str = "$num";
/// The token of every string or character literal.
pub const STRING: &str = "$str";

/// Keywords kept as tokens: the union of the keywords of C, C++, Java,
/// JavaScript, Rust and Python, and the C preprocessor's directive names,
/// sorted (for a binary search).
pub const KEYWORDS: &[&str] = &[
    "False",
    "None",
    "Self",
    "True",
    "_Bool",
    "abstract",
    "and",
    "as",
    "assert",
    "async",
    "auto",
    "await",
    "bool",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "crate",
    "def",
    "default",
    "define",
    "del",
    "delete",
    "do",
    "double",
    "dyn",
    "elif",
    "else",
    "endif",
    "enum",
    "error",
    "except",
    "extends",
    "extern",
    "false",
    "final",
    "finally",
    "float",
    "fn",
    "for",
    "friend",
    "from",
    "function",
    "global",
    "goto",
    "if",
    "ifdef",
    "ifndef",
    "impl",
    "implements",
    "import",
    "in",
    "include",
    "inline",
    "instanceof",
    "int",
    "interface",
    "is",
    "lambda",
    "let",
    "long",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "namespace",
    "native",
    "new",
    "nonlocal",
    "not",
    "null",
    "nullptr",
    "operator",
    "or",
    "package",
    "pass",
    "pragma",
    "private",
    "protected",
    "pub",
    "public",
    "raise",
    "ref",
    "register",
    "restrict",
    "return",
    "self",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "super",
    "switch",
    "synchronized",
    "template",
    "this",
    "throw",
    "throws",
    "trait",
    "transient",
    "true",
    "try",
    "type",
    "typedef",
    "typename",
    "typeof",
    "undef",
    "union",
    "unsafe",
    "unsigned",
    "use",
    "using",
    "var",
    "virtual",
    "void",
    "volatile",
    "where",
    "while",
    "with",
    "yield",
];

/// Operators of more than one character, longest first, so that the first
/// match is the longest.
const OPERATORS: &[&str] = &[
    ">>>=", "<<=", ">>=", ">>>", "**=", "//=", "...", "..=", "===", "!==", "<=>", "->", "=>", "::", "..", "==", "!=",
    "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "**", "//", ":=",
    "?.", "??", "@=",
];

/// The chunk and interval defaults of code tokens (`--tokenizer code`),
/// measured on `corpus-fixtures/code` (`eval/code-tokenizer.sh`, with
/// `CODE_FLAGS` for the alternatives; shares of the copies' characters found).
///
/// Five code tokens are a fragment such as `( $id , $id )` that every program
/// has; chunks of 10 tokens are about one statement. With the paper's 20
/// chunks per interval, a nested loop header shared by unrelated C programs
/// (29 tokens) was reported; 30 chunks (at least 39 tokens in a row, some
/// five lines of C) reported nothing between unrelated programs. Braces added
/// around a one-line body insert two tokens and break 11 chunks, which cut the
/// copied C function in two with gaps of at most 10; gaps of 15 keep it whole,
/// and 20 let the interval reach back into a neighbouring function's loops.
/// 12-token chunks did as well, 15 found less of the copies (91.5 % against
/// 98.2 % of their characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeDefaults {
    /// Tokens per chunk.
    pub chunk_tokens: usize,
    /// Common chunks a source document needs to be compared further.
    pub min_common: usize,
    /// Matching chunks of a valid interval.
    pub min_chunks: usize,
    /// Unmatched chunks allowed between neighbouring matching ones.
    pub max_gap: usize,
}

impl Default for CodeDefaults {
    fn default() -> Self {
        CodeDefaults { chunk_tokens: 10, min_common: 30, min_chunks: 30, max_gap: 15 }
    }
}

/// String prefixes of Python (`r b f u` and pairs, any case) and C/C++ (`L u U u8 R`).
fn is_string_prefix(word: &str) -> bool {
    word.len() <= 2 && word.chars().all(|c| "rRbBfFuUL8".contains(c)) && word != "8" && !word.starts_with('8')
}

/// Tokenizes source code (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct CodeTokenizer;

impl Tokenize for CodeTokenizer {
    fn tokenize(&self, text: &str, out: &mut Tokens) {
        out.begin();
        let chars: Vec<char> = text.chars().collect();
        Scanner { chars: &chars, python: looks_like_python(text), out }.run();
        out.end();
    }
}

/// True when `text` reads as Python rather than as C-like code: more lines open
/// a block with a colon (`def f(x):`, `if x:`) or import, than end in `;`, `{`
/// or `}`.
pub fn looks_like_python(text: &str) -> bool {
    let (mut python, mut c_like) = (0usize, 0usize);
    for line in text.lines() {
        let line = line.trim();
        if line.ends_with(';') || line.ends_with('{') || line.ends_with('}') {
            c_like += 1;
        } else if line.ends_with(':') || line.starts_with("import ") || line.starts_with("from ") {
            python += 1;
        }
    }
    python > c_like
}

struct Scanner<'a> {
    chars: &'a [char],
    python: bool,
    out: &'a mut Tokens,
}

impl Scanner<'_> {
    fn at(&self, i: usize) -> char {
        self.chars.get(i).copied().unwrap_or('\0')
    }

    fn emit(&mut self, token: &str, start: usize, end: usize) {
        self.out.push(token, CharRange::new(start as u32, end as u32));
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.chars.len() {
            let c = self.chars[i];
            i = if c.is_whitespace() {
                i + 1
            } else if let Some(end) = self.comment_end(i) {
                end
            } else if c == '"' || c == '\'' {
                self.string(i, i)
            } else if c.is_ascii_digit() || (c == '.' && self.at(i + 1).is_ascii_digit()) {
                self.number(i)
            } else if c.is_alphabetic() || c == '_' || c == '$' {
                self.word(i)
            } else {
                self.operator(i)
            };
        }
    }

    /// The end of the comment starting at `i`, if one does.
    fn comment_end(&self, i: usize) -> Option<usize> {
        let (c, next) = (self.at(i), self.at(i + 1));
        let to_line_end =
            |from: usize| self.chars[from..].iter().position(|&c| c == '\n').map_or(self.chars.len(), |p| from + p);
        if self.python {
            return (c == '#').then(|| to_line_end(i));
        }
        match (c, next) {
            ('/', '/') => Some(to_line_end(i)),
            ('/', '*') => {
                let body = i + 2;
                let close = self.chars[body.min(self.chars.len())..].windows(2).position(|w| w == ['*', '/']);
                Some(close.map_or(self.chars.len(), |p| body + p + 2))
            }
            _ => None,
        }
    }

    /// A string or character literal whose quote is at `quote` and whose
    /// prefix starts at `start`; returns where it ends. A quote without its
    /// closing quote on the same line (an apostrophe), and in C-like text a
    /// Rust lifetime (`&'a`, `<'a`: a quote right after `&` or `<` before a
    /// name that no quote closes), is an operator token of its own.
    fn string(&mut self, start: usize, quote: usize) -> usize {
        let q = self.chars[quote];
        if q == '\'' && !self.python && quote > 0 && matches!(self.chars[quote - 1], '&' | '<') {
            let name_end = (quote + 1..self.chars.len())
                .find(|&i| !(self.chars[i].is_alphanumeric() || self.chars[i] == '_'))
                .unwrap_or(self.chars.len());
            if name_end > quote + 1 && self.at(name_end) != '\'' {
                self.emit("'", quote, quote + 1);
                return quote + 1;
            }
        }
        let triple = self.python && self.at(quote + 1) == q && self.at(quote + 2) == q;
        let mut i = if triple { quote + 3 } else { quote + 1 };
        while i < self.chars.len() {
            let c = self.chars[i];
            if c == '\\' {
                i += 2;
                continue;
            }
            if c == q && (!triple || (self.at(i + 1) == q && self.at(i + 2) == q)) {
                let end = if triple { i + 3 } else { i + 1 };
                self.emit(STRING, start, end);
                return end;
            }
            if c == '\n' && !triple {
                break;
            }
            i += 1;
        }
        if triple {
            // An unterminated triple-quoted string runs to the end of the text.
            self.emit(STRING, start, self.chars.len());
            return self.chars.len();
        }
        self.emit(if q == '"' { "\"" } else { "'" }, quote, quote + 1);
        quote + 1
    }

    /// A number literal: decimal, hexadecimal, octal or binary, with a
    /// fraction, an exponent (signed), digit separators and a suffix.
    fn number(&mut self, start: usize) -> usize {
        let hex = self.at(start) == '0' && matches!(self.at(start + 1), 'x' | 'X');
        let mut i = start;
        while self.continues_number(start, i, hex) {
            i += 1;
        }
        self.emit(NUMBER, start, i);
        i
    }

    /// True when the character at `i` belongs to the number literal starting
    /// at `start`: a letter or digit (digits, suffixes, `x`, `e`), `_`, a C++14
    /// digit separator (`'` before a digit), the sign of an exponent, or a
    /// decimal point that does not start a range (`1..n`).
    fn continues_number(&self, start: usize, i: usize, hex: bool) -> bool {
        let c = self.at(i);
        let exponent = if hex { ['p', 'P'] } else { ['e', 'E'] };
        let exponent_sign = (c == '+' || c == '-') && i > start && exponent.contains(&self.at(i - 1));
        c.is_ascii_alphanumeric()
            || c == '_'
            || (c == '\'' && self.at(i + 1).is_ascii_digit())
            || exponent_sign
            || (c == '.' && self.at(i + 1) != '.')
    }

    /// An identifier, a keyword, or a string prefix with its string.
    fn word(&mut self, start: usize) -> usize {
        let mut i = start;
        while i < self.chars.len() && {
            let c = self.chars[i];
            c.is_alphanumeric() || c == '_' || c == '$' || (i > start && unicode_mark(c))
        } {
            i += 1;
        }
        let word: String = self.chars[start..i].iter().collect();
        if matches!(self.at(i), '"' | '\'') && is_string_prefix(&word) {
            return self.string(start, i);
        }
        match KEYWORDS.binary_search(&word.as_str()) {
            Ok(_) => self.emit(&word, start, i),
            Err(_) => self.emit(IDENTIFIER, start, i),
        }
        i
    }

    /// An operator or bracket: the longest multi-character operator that
    /// starts at `start` (`//` only in Python-like text), else one character.
    fn operator(&mut self, start: usize) -> usize {
        for op in OPERATORS {
            let len = op.len();
            let matches = self.chars.len() >= start + len && op.chars().zip(&self.chars[start..]).all(|(a, &b)| a == b);
            if matches && (self.python || !op.starts_with("//")) {
                self.emit(op, start, start + len);
                return start + len;
            }
        }
        let mut buffer = [0u8; 4];
        let token = self.chars[start].encode_utf8(&mut buffer);
        self.emit(token, start, start + 1);
        start + 1
    }
}

/// Combining marks continue an identifier (`cafe\u{301}`).
fn unicode_mark(c: char) -> bool {
    unicode_normalization::char::is_combining_mark(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::span::char_slice;

    fn tokens_of(text: &str) -> Vec<(String, u32, u32)> {
        let mut tokens = Tokens::default();
        CodeTokenizer.tokenize(text, &mut tokens);
        (0..tokens.len()).map(|i| (tokens.word(i).to_string(), tokens.range(i).start, tokens.range(i).end)).collect()
    }

    fn words_of(text: &str) -> Vec<String> {
        tokens_of(text).into_iter().map(|t| t.0).collect()
    }

    #[test]
    fn keywords_are_sorted_for_the_binary_search() {
        assert!(KEYWORDS.windows(2).all(|w| w[0] < w[1]));
        // Longest first: no operator is a prefix of an earlier one... of a later one.
        for (i, op) in OPERATORS.iter().enumerate() {
            assert!(OPERATORS[i + 1..].iter().all(|later| !later.starts_with(op) || later.len() <= op.len()), "{op}");
        }
    }

    #[test]
    fn identifiers_and_literals_are_normalised_keywords_and_operators_kept() {
        let found = words_of("int total = count * 2 + 0x1F; return total;");
        let expected = "int $id = $id * $num + $num ; return $id ;";
        assert_eq!(found.join(" "), expected);
        // Renamed variables and changed literals give the same tokens.
        assert_eq!(words_of("int sum = n * 7 + 10; return sum;"), found);
        assert_eq!(words_of("x = 'a'; y = \"b\";").join(" "), "$id = $str ; $id = $str ;");
    }

    #[test]
    fn multi_character_operators_are_one_token() {
        let found = words_of("a->b == c && d != e || f <<= 2; g += h++; i >>>= j; k ** l; m := n; o => p; q::r; s ...");
        let operators: Vec<&str> = found.iter().map(String::as_str).filter(|t| !t.starts_with('$')).collect();
        assert_eq!(
            operators,
            [
                "->", "==", "&&", "!=", "||", "<<=", ";", "+=", "++", ";", ">>>=", ";", "**", ";", ":=", ";", "=>",
                ";", "::", ";", "..."
            ]
        );
        assert_eq!(words_of("(a[0]){b}").join(" "), "( $id [ $num ] ) { $id }");
    }

    #[test]
    fn comments_are_dropped_in_both_families() {
        let c = "int a; // the count\n/* a block\n comment */ int b; # include\n";
        assert_eq!(words_of(c).join(" "), "int $id ; int $id ; # include");
        let python = "def f(a):\n    # a comment\n    return a // 2  # halve\n";
        assert_eq!(words_of(python).join(" "), "def $id ( $id ) : return $id // $num");
    }

    #[test]
    fn preprocessor_lines_keep_the_directive() {
        let c = "#include <stdio.h>\n#define N 10\nint main(void) {\n    return 0;\n}\n";
        assert_eq!(
            words_of(c).join(" "),
            "# include < $id . $id > # define $id $num int $id ( void ) { return $num ; }"
        );
    }

    #[test]
    fn strings_with_escapes_prefixes_and_triple_quotes_are_one_literal() {
        let text = r#"s = "a \"quoted\" \\"; t = 'it\'s'; u = r"\d+"; v = L"wide";"#;
        assert_eq!(words_of(text).join(" "), "$id = $str ; $id = $str ; $id = $str ; $id = $str ;");
        let python = "def f():\n    \"\"\"Doc \"string\"\n    of two lines.\"\"\"\n    return b'x'\n";
        let found = tokens_of(python);
        assert_eq!(found.iter().map(|t| t.0.as_str()).collect::<Vec<_>>().join(" "), "def $id ( ) : $str return $str");
        // The docstring's range covers its quotes.
        let doc = &found[5];
        assert_eq!(
            char_slice(python, CharRange::new(doc.1, doc.2)).unwrap(),
            "\"\"\"Doc \"string\"\n    of two lines.\"\"\""
        );
        // A lone quote (a Rust lifetime) is a token of its own.
        assert_eq!(words_of("fn f<'a>(x: &'a str) {}").join(" "), "fn $id < ' $id > ( $id : & ' $id $id ) { }");
    }

    #[test]
    fn numbers_of_every_form_are_one_literal() {
        for number in
            ["0", "42", "3.14", ".5", "1e10", "2.5E-3", "0x1Fp+2", "0b1010", "1_000_000", "10UL", "7.0f", "1'000"]
        {
            assert_eq!(words_of(&format!("x = {number};")).join(" "), "$id = $num ;", "{number}");
        }
        assert_eq!(words_of("a[1..n]").join(" "), "$id [ $num .. $id ]");
    }

    #[test]
    fn ranges_count_characters_in_non_ascii_identifiers_and_strings() {
        let text = "größe = \"Žluťoučký\" + año; // ñ\nπ2 = größe";
        let found = tokens_of(text);
        let expected = [
            ("$id", 0, 5),
            ("=", 6, 7),
            ("$str", 8, 19),
            ("+", 20, 21),
            ("$id", 22, 25),
            (";", 25, 26),
            ("$id", 32, 34),
            ("=", 35, 36),
            ("$id", 37, 42),
        ];
        let expected: Vec<_> = expected.iter().map(|&(t, s, e)| (t.to_string(), s, e)).collect();
        assert_eq!(found, expected);
        assert_eq!(char_slice(text, CharRange::new(8, 19)).unwrap(), "\"Žluťoučký\"");
        assert_eq!(char_slice(text, CharRange::new(37, 42)).unwrap(), "größe");
    }

    #[test]
    fn the_family_is_guessed_from_the_lines() {
        assert!(looks_like_python("import os\ndef f(x):\n    if x:\n        return 1\n"));
        assert!(!looks_like_python("int f(int x) {\n    if (x) {\n        return 1;\n    }\n}\n"));
        assert!(!looks_like_python(""));
    }

    proptest::proptest! {
        /// Every token's range slices out text that scans as that token alone,
        /// and ranges are increasing and disjoint.
        #[test]
        fn every_range_slices_out_its_token(text in "[a-zß_0-9 \n;(){}=+*/<>!&|.,:#'\"\\\\-]{0,60}") {
            let mut tokens = Tokens::default();
            CodeTokenizer.tokenize(&text, &mut tokens);
            let python = looks_like_python(&text);
            for seq in 0..tokens.len() {
                let range = tokens.range(seq);
                let piece = char_slice(&text, range).unwrap();
                if seq > 0 {
                    proptest::prop_assert!(tokens.range(seq - 1).end <= range.start);
                }
                let word = tokens.word(seq);
                match word {
                    IDENTIFIER => proptest::prop_assert!(piece.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')),
                    NUMBER => proptest::prop_assert!(piece.starts_with(|c: char| c.is_ascii_digit() || c == '.')),
                    STRING => proptest::prop_assert!(piece.ends_with(['"', '\'']) || python),
                    _ => proptest::prop_assert_eq!(piece, word),
                }
            }
        }
    }
}
