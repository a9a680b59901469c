//! Document analysis: from a file to its decoded text, its words and its
//! hashed chunks, with character offsets kept at every step. Detection, the
//! archive and the server all analyse documents here, one way.
//!
//! 1. [`read`] lists the documents and turns them into text: plain text
//!    decoded ([`encoding`]), PDF, DOCX, ODT and HTML extracted and repaired
//!    ([`extract`]);
//! 2. [`tokenize`] cuts a text into folded words with character offsets
//!    ([`span`]) — or into character n-grams, or into source code tokens
//!    ([`code`]), behind one trait ([`tokenize::Tokenize`]) — and [`stem`]
//!    reduces words to stems for the alignment stage;
//! 3. [`chunk`] hashes every run of consecutive words (sorted) with MD5;
//!    — or, for the alignment stage, chunks of stop-word-free word prefixes
//!    and of function words ([`candidates`], with [`synonyms`] as one word,
//!    leaving out the [`function_words`] derived from the collection);
//! 4. [`document`] runs these steps per document, in parallel batches;
//! 5. [`taboo`] leaves out chunks of texts whose passages are never reported;
//! 6. [`minhash`] computes the MinHash signature of a text's character
//!    shingles, for screening ([`crate::screening`]).

pub mod candidates;
pub mod chunk;
pub mod code;
pub mod document;
pub mod encoding;
pub mod extract;
pub mod function_words;
pub mod minhash;
pub mod read;
pub mod span;
pub mod stem;
pub mod synonyms;
pub mod taboo;
pub mod tokenize;
pub mod translate;
