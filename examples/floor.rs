//! The floor of a detection run: reads, decodes and tokenizes the
//! documents of the given directories as `detect` does (the same listing,
//! decoding and tokenizer, in parallel batches), and nothing more.
//! `eval/bench.sh` times it beside `wc -w` and both presets.
//!
//!     cargo run --release --example floor -- DIR...

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use pan_detect::analysis::document;
use pan_detect::analysis::read::{self, Loaded, TextReader};
use pan_detect::analysis::tokenize::{Tokenizer, TokenizerParams, Tokens};
use pan_detect::progress::Silent;
use rayon::prelude::*;

fn main() -> ExitCode {
    let dirs: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if dirs.is_empty() {
        eprintln!("usage: floor DIR...");
        return ExitCode::from(2);
    }
    let reader = TextReader::new(None);
    let started = Instant::now();
    let (mut words, mut bytes) = (0u64, 0u64);
    for dir in &dirs {
        let files = match read::list_document_files(dir, false, &Silent) {
            Ok(listing) => listing.documents,
            Err(error) => {
                eprintln!("floor: {error}");
                return ExitCode::FAILURE;
            }
        };
        bytes += files.iter().map(|f| f.bytes).sum::<u64>();
        for batch in document::batches(&files, |f| f.bytes) {
            words += batch
                .par_iter()
                .map_init(
                    || (Tokenizer::new(TokenizerParams::default()), Tokens::default()),
                    |(tokenizer, tokens), file| match reader.load(file) {
                        Loaded::Text(text, _) => {
                            tokenizer.tokenize(&text, tokens);
                            tokens.len() as u64
                        }
                        Loaded::Skipped(_) => 0,
                    },
                )
                .sum::<u64>();
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("{words} words, {:.1} MB read and tokenized in {seconds:.2} s", bytes as f64 / 1e6);
    ExitCode::SUCCESS
}
