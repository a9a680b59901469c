//! Per-stage throughput on synthetic English-like text: tokenize (and the
//! other tokenizers), chunk (MD5), index build, lookups, valid intervals; and
//! the candidate and structure words and the candidate chunks (XXH3) on the
//! English fixture texts.
//! `cargo bench` prints MB/s per stage; end-to-end figures come from
//! `eval/bench.sh`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pan_detect::analysis::candidates::CandidateWords;
use pan_detect::analysis::chunk::{ChunkHash, ChunkParams};
use pan_detect::analysis::chunk::{Chunker, Chunks};
use pan_detect::analysis::tokenize::{AnyTokenizer, Tokenize, Tokenizer, TokenizerKind, TokenizerParams, Tokens};
use pan_detect::matching::index::IndexBuilder;
use pan_detect::matching::intervals::IntervalParams;
use pan_detect::matching::intervals::{ChunkMatch, valid_intervals};
use pan_detect::matching::search::{BatchLookup, Candidates, HitBudget};

/// About `bytes` of text drawn from a vocabulary of English-like words with a
/// Zipf-ish skew, plus punctuation, deterministic.
fn synthetic_text(bytes: usize, seed: u64) -> String {
    const WORDS: [&str; 24] = [
        "the",
        "of",
        "and",
        "plagiarism",
        "detection",
        "document",
        "passage",
        "chunk",
        "source",
        "similarity",
        "university",
        "thesis",
        "archive",
        "évaluation",
        "words",
        "sorted",
        "hash",
        "index",
        "interval",
        "valid",
        "character",
        "offset",
        "corpus",
        "naïve",
    ];
    let mut state = seed | 1;
    let mut text = String::with_capacity(bytes + 32);
    let mut count = 0u64;
    while text.len() < bytes {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let pick = (state % 1000) as usize;
        let word = WORDS[(pick * pick / 1000 * WORDS.len() / 1000).min(WORDS.len() - 1)];
        text.push_str(word);
        // A number suffix makes the vocabulary large, as in real text.
        text.push_str(&format!("{}", state % 5000));
        count += 1;
        text.push_str(if count.is_multiple_of(12) { ". " } else { " " });
    }
    text
}

/// The English texts of `corpus-fixtures/texts`, repeated to about `bytes`.
fn english_fixtures(bytes: usize) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus-fixtures/texts");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus-fixtures/texts")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.file_name().is_some_and(|name| name.to_string_lossy().starts_with("en-")))
        .collect();
    paths.sort();
    let texts: Vec<String> = paths.iter().map(|path| std::fs::read_to_string(path).expect("English fixture")).collect();
    let mut text = String::with_capacity(bytes + 32_000);
    while text.len() < bytes {
        for one in &texts {
            text.push_str(one);
            text.push('\n');
        }
    }
    text
}

fn stages(c: &mut Criterion) {
    let text = synthetic_text(4_000_000, 7);
    let tokenizer = Tokenizer::new(TokenizerParams::default());
    let mut tokens = Tokens::default();
    let mut group = c.benchmark_group("stages");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("tokenize", |b| b.iter(|| tokenizer.tokenize(black_box(&text), &mut tokens)));
    // The other tokenizers, and words through the enum every stage calls.
    for kind in [TokenizerKind::Words, TokenizerKind::Chars(3), TokenizerKind::Code] {
        let any = AnyTokenizer::new(TokenizerParams { kind, ..TokenizerParams::default() });
        let name = format!("tokenize (any {kind})");
        group.bench_function(name, |b| b.iter(|| any.tokenize(black_box(&text), &mut tokens)));
    }

    tokenizer.tokenize(&text, &mut tokens);
    // The `best` preset's candidate and structure words, of real English
    // (the synthetic words carry numbers, so none is a function word).
    let english = english_fixtures(text.len());
    let mut english_tokens = Tokens::default();
    Tokenizer::new(TokenizerParams { min_word_len: 1, ..TokenizerParams::default() })
        .tokenize(&english, &mut english_tokens);
    let candidate_words = CandidateWords::new(5, 3, None);
    let (mut derived, mut structure) = (Tokens::default(), Tokens::default());
    let english_tokens = black_box(&english_tokens);
    group.bench_function("candidate words", |b| b.iter(|| candidate_words.derive(english_tokens, &mut derived, None)));
    group.bench_function("candidate and structure words", |b| {
        b.iter(|| candidate_words.derive(english_tokens, &mut derived, Some(&mut structure)))
    });
    let mut chunker = Chunker::new(ChunkParams::default());
    let mut chunks = Chunks::default();
    group.bench_function("chunk", |b| b.iter(|| chunker.chunk(black_box(&tokens), &mut chunks)));
    // The `best` preset's candidate chunks: three sorted candidate words of
    // real English, their XXH3 hashes combined.
    candidate_words.derive(english_tokens, &mut derived, None);
    let candidate_chunks = ChunkParams { words: 3, hash: ChunkHash::Xxh3, ..ChunkParams::default() };
    let mut candidate_chunker = Chunker::new(candidate_chunks);
    group.bench_function("chunk (candidate words)", |b| {
        b.iter(|| candidate_chunker.chunk(black_box(&derived), &mut chunks))
    });
    chunker.chunk(&tokens, &mut chunks);

    group.bench_function("index build", |b| {
        b.iter(|| {
            let mut builder = IndexBuilder::<u32>::new(32);
            for (doc, part) in chunks.hashes.chunks(10_000).enumerate() {
                builder.add_document(doc as u32, part);
            }
            black_box(builder.build())
        })
    });

    let mut builder = IndexBuilder::<u32>::new(32);
    for (doc, part) in chunks.hashes.chunks(10_000).enumerate() {
        builder.add_document(doc as u32, part);
    }
    let index = builder.build();
    let queries = {
        let other = synthetic_text(4_000_000, 8);
        let mut query_tokens = Tokens::default();
        tokenizer.tokenize(&other, &mut query_tokens);
        let mut query_chunks = Chunks::default();
        chunker.chunk(&query_tokens, &mut query_chunks);
        query_chunks.hashes
    };
    let mut lookup = BatchLookup::default();
    let mut candidates = Candidates::default();
    group.bench_function("lookup and group", |b| {
        b.iter(|| {
            let mut found = 0;
            for found_chunks in lookup.found(&index, &[black_box(&queries[..])], HitBudget::UNBOUNDED) {
                candidates.for_each(&mut found_chunks.hits(&index, &queries), 20, |_, _| found += 1);
            }
            found
        })
    });

    let diagonal: Vec<ChunkMatch> =
        (0..200_000u32).filter(|i| i % 7 != 3).map(|i| ChunkMatch { suspicious: i, source: i + 1000 }).collect();
    let mut intervals = Vec::new();
    group.throughput(Throughput::Elements(diagonal.len() as u64));
    group.bench_function("valid intervals", |b| {
        b.iter(|| {
            let mut matches = diagonal.clone();
            intervals.clear();
            valid_intervals(&mut matches, &IntervalParams::default(), &mut intervals);
            intervals.len()
        })
    });
    group.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
