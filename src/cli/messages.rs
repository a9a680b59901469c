//! Lines for the user on stderr and results on stdout, written so that a closed
//! pipe never panics (`println!` and `eprintln!` do).

use std::fmt;
use std::io::Write;

/// Writes `pan-detect: MESSAGE` as one line on stderr. A closed or broken
/// stderr (`pan-detect ... 2>&1 | head -1`) is ignored: warnings and summaries
/// are a courtesy, and the run's results (reports, index, exit status) must not
/// depend on whether anyone still reads them.
pub fn note(message: impl fmt::Display) {
    // Locked, so that lines from several threads never interleave.
    let _ = writeln!(std::io::stderr().lock(), "pan-detect: {message}");
}

/// Writes `pan-detect: warning: MESSAGE` on stderr, as [`note`] does.
pub fn warn(message: impl fmt::Display) {
    note(format_args!("warning: {message}"));
}

/// `count` and `noun`, the noun in the plural unless `count` is 1: "1 passage",
/// "2 passages" (every noun of pan-detect's summaries takes an `s`).
pub fn count(count: u64, noun: &str) -> String {
    if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") }
}

/// ", N files skipped" for a summary line; nothing when no file was.
pub fn skipped_files(files: u64) -> String {
    if files > 0 { format!(", {} skipped", count(files, "file")) } else { String::new() }
}

/// Writes `text` to stdout. A broken pipe comes back as an error, which the
/// binary turns into success (`pan-detect index stats | head -1`).
pub fn print(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_everything_else_plural() {
        assert_eq!(count(1, "passage"), "1 passage");
        assert_eq!(count(0, "passage"), "0 passages");
        assert_eq!(count(2, "suspicious document"), "2 suspicious documents");
    }
}
