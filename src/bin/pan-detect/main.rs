//! The `pan-detect` command line: a thin layer over the library's [`pan_detect::cli`].

use std::process::ExitCode;

fn main() -> ExitCode {
    // The crash points of `index create` and `update` named in the FAILPOINTS
    // environment variable (crash tests only: src/archive/failpoints.rs).
    #[cfg(feature = "failpoints")]
    let _failpoints = fail::FailScenario::setup();
    ExitCode::from(pan_detect::cli::run(std::env::args_os().collect()))
}
