//! The `pan-detect` command line, one module per subcommand over the library.
//!
//! It lives in the library rather than in the binary so that every program that
//! ships the command runs this same code: the `pan-detect` binary
//! (`src/bin/pan-detect/main.rs`) and the `pan-detect` script of the Python
//! package (`python/`), both through [`run`].

mod cmd;
mod messages;
mod progress_bar;
mod threads;

pub use cmd::check::json_with_flags as check_json;
pub use cmd::detect::{Method, method, write_reports};
pub use cmd::eval::json_report as evaluation_json;
pub use cmd::index::{create_with_flags as index_create, update_with_flags as index_update};
pub use cmd::similar::rows_with_flags as similar_rows;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Finds plagiarised passages between documents and reports them as PAN XML.
///
/// `pan-detect --source-dir S --suspicious-dir T --out O` is short for
/// `pan-detect detect --source-dir S --suspicious-dir T --out O`.
#[derive(Parser)]
#[command(name = "pan-detect", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Find plagiarised passages and write PAN XML reports (the default command).
    Detect(Box<cmd::detect::Args>),
    /// Evaluate detections against ground truth with PAN's measures.
    Eval(cmd::eval::Args),
    /// Write the text of each document (PDF, DOCX, ODT, HTML, text): the text
    /// whose characters the offsets of its reports count.
    Text(cmd::text::Args),
    /// Find every passage duplicated inside one collection of documents (no
    /// suspicious/source split), grouped by the documents that share it.
    Extract(cmd::extract::Args),
    /// Build a PAN-style corpus with known plagiarism cases.
    Corpus(cmd::corpus::Args),
    /// Build, update or describe a persistent archive index.
    Index(cmd::index::Args),
    /// Find what in an archive index each given file is similar to.
    ///
    /// The index's taboo set (`index create --taboo`) is left out of every file: no
    /// similarity from it and no passage over the text it covers; the output says how
    /// many characters that was.
    Check(cmd::check::Args),
    /// Export the table of document similarities that an archive index keeps.
    ///
    /// `index create` computes it and `index update` maintains it, in an SQLite
    /// database inside the index. Chunks of the index's taboo set (`index create
    /// --taboo`) count in no similarity.
    Similar(cmd::similar::Args),
    /// Serve an archive index over HTTP: checks, document changes batched into
    /// incremental updates, similarities, health and metrics.
    Serve(cmd::serve::Args),
    /// Print the shell completion script of pan-detect (bash, zsh, fish,
    /// powershell, elvish).
    Completions(cmd::completions::Args),
    /// Write the man pages of pan-detect and of each of its subcommands.
    Man(cmd::man::Args),
}

/// Runs the command line `args` (the program's name first, as
/// [`std::env::args_os`] gives it) and returns the exit status: 0 on success,
/// 1 on an error (written to stderr as one line `pan-detect: ...`), clap's status
/// (2) on a command line it refuses. `--help` and `--version` print and return 0.
pub fn run(args: Vec<OsString>) -> u8 {
    let cli = match parse(with_default_subcommand(args)) {
        Ok(cli) => cli,
        Err(error) => {
            // Help and version go to stdout, errors to stderr; a closed stream is ignored.
            let _ = error.print();
            return u8::try_from(error.exit_code()).unwrap_or(2);
        }
    };
    let result = match cli.command {
        Command::Detect(args) => cmd::detect::run(*args),
        Command::Eval(args) => cmd::eval::run(args),
        Command::Text(args) => cmd::text::run(args),
        Command::Extract(args) => cmd::extract::run(args),
        Command::Corpus(args) => cmd::corpus::run(args),
        Command::Index(args) => cmd::index::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Similar(args) => cmd::similar::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Man(args) => cmd::man::run(args),
    };
    match result {
        Ok(code) if code == ExitCode::SUCCESS => 0,
        Ok(_) => 1,
        Err(error) if is_broken_pipe(&error) => 0,
        Err(error) => {
            messages::note(one_line(&error));
            1
        }
    }
}

/// Parses the command line, in every subcommand taking a negative number as
/// a value, so that `--threads -1` is refused as an invalid value of
/// `--threads` rather than as an unknown argument `-1`.
fn parse(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    Cli::from_arg_matches(&command().try_get_matches_from(args)?)
}

/// The command line's definition, as parsed, completed and documented.
pub(crate) fn command() -> clap::Command {
    allow_negative_numbers(Cli::command())
}

/// `command` and its subcommands, recursively, taking negative numbers as values.
fn allow_negative_numbers(command: clap::Command) -> clap::Command {
    command.allow_negative_numbers(true).mut_subcommands(allow_negative_numbers)
}

/// Inserts `detect` when the first argument is a flag other than help/version, so
/// that the command every user meets first needs no subcommand.
fn with_default_subcommand(mut args: Vec<OsString>) -> Vec<OsString> {
    let first = args.get(1).and_then(|a| a.to_str()).unwrap_or("");
    let is_global_flag = matches!(first, "-h" | "--help" | "-V" | "--version");
    if first.starts_with('-') && !is_global_flag {
        args.insert(1, OsString::from("detect"));
    }
    args
}

/// The error and its causes as one line, `context: error: cause`, leaving out a
/// cause whose text is already in the line: the library's errors name their
/// source in their own message (`x.txt: cannot read: No such file or directory`)
/// and also return it as their `source()`, which `{:#}` would print again.
pub fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// A closed stdout (`pan-detect eval ... | head`) is not an error.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_in_the_message_is_printed_once() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let reason = io.to_string();
        let error = crate::error::Error::ListDirectory { path: "docs".into(), source: io };
        let error = anyhow::Error::new(error).context("index create stopped");
        assert_eq!(one_line(&error), format!("index create stopped: docs: cannot list directory: {reason}"));
        let error = anyhow::Error::new(std::io::Error::other("disk on fire")).context("cannot write");
        assert_eq!(one_line(&error), "cannot write: disk on fire");
    }
}
