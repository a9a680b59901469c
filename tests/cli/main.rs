//! Integration tests: run the `pan-detect` binary as a user would.

mod align;
mod archive;
mod corpus;
mod detect;
mod errors;
mod eval;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `pan-detect` binary built for these tests.
pub fn pan_detect() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pan-detect"))
}

/// Runs `pan-detect` with `args` and returns its output.
pub fn run(args: &[&str]) -> Output {
    pan_detect().args(args).output().expect("pan-detect could not be started")
}

/// The bundled fixture corpus.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus-fixtures")
}
