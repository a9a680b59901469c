//! `pan-detect man --out DIR`: the man pages of the command and of every
//! subcommand, nested ones too (`pan-detect.1`, `pan-detect-detect.1`,
//! `pan-detect-index-create.1`, ...), generated from the command line's
//! definition (clap_mangen), help texts and examples included.
//!
//! The pages are written whole or not at all: each to a temporary file first,
//! and only when all are written are they renamed into place. A link is never
//! followed: neither `--out` nor a page's place may be a symbolic link, and a
//! file there that is not a man page of this command is not replaced.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::report::output::{NewDirectories, sync_filesystem, temporary_path};
use anyhow::{Context, bail};
use clap_mangen::Man;

use crate::cli::messages::{self, count};

/// Arguments of `pan-detect man`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect man --out /tmp/pd-man")]
pub struct Args {
    /// Directory for the pages, created when missing; the pages already in it
    /// are replaced, any other file is left alone.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// A man page: its file name and its text (roff).
struct Page {
    name: String,
    roff: Vec<u8>,
}

impl Page {
    /// The `.TH NAME ` that opens the title line of this page, whatever the
    /// version after it.
    fn title_start(&self) -> Option<String> {
        let text = String::from_utf8_lossy(&self.roff);
        let line = text.lines().find(|line| line.starts_with(".TH "))?;
        let title = line.split(' ').nth(1)?;
        Some(format!(".TH {title} "))
    }

    /// Whether `bytes` are a page of this name (of any version).
    fn is_replaceable_by(&self, bytes: &[u8]) -> bool {
        let Some(start) = self.title_start() else { return false };
        String::from_utf8_lossy(bytes).lines().any(|line| line.starts_with(&start))
    }
}

/// Writes the man pages into `--out`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let pages = pages(crate::cli::command()).context("cannot render the man pages")?;
    NewDirectories::removed_on_failure(&args.out, || write_pages(&args.out, &pages))?;
    messages::note(format_args!("{} written into {}", count(pages.len() as u64, "man page"), args.out.display()));
    Ok(ExitCode::SUCCESS)
}

/// The pages of `command` and of each of its visible subcommands, recursively.
fn pages(command: clap::Command) -> io::Result<Vec<Page>> {
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    add_pages(command, &mut pages)?;
    pages.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(pages)
}

fn add_pages(command: clap::Command, pages: &mut Vec<Page>) -> io::Result<()> {
    for subcommand in command.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        add_pages(subcommand, pages)?;
    }
    let man = Man::new(command).source(concat!("pan-detect ", env!("CARGO_PKG_VERSION")));
    let mut roff = Vec::new();
    man.render(&mut roff)?;
    pages.push(Page { name: man.get_filename(), roff });
    Ok(())
}

/// Writes `pages` into `out`: every check first, then every page to its
/// temporary file, then the renames.
fn write_pages(out: &Path, pages: &[Page]) -> anyhow::Result<()> {
    refuse_link(out)?;
    fs::create_dir_all(out).with_context(|| format!("{}: cannot create the directory", out.display()))?;
    for page in pages {
        check_replaceable(&out.join(&page.name), page)?;
    }
    let mut written: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(pages.len());
    let result = pages.iter().try_for_each(|page| {
        let path = out.join(&page.name);
        let temporary = temporary_path(&path)?;
        write_new_file(&temporary, &page.roff)?;
        written.push((temporary, path));
        io::Result::Ok(())
    });
    if let Err(error) = result {
        // Only the temporary files this run made, none of the pages.
        written.iter().for_each(|(temporary, _)| drop(fs::remove_file(temporary)));
        return Err(error).with_context(|| format!("{}: cannot write the man pages; none was written", out.display()));
    }
    for (temporary, path) in &written {
        fs::rename(temporary, path).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    sync_filesystem(out).with_context(|| format!("{}: cannot sync", out.display()))
}

/// Refuses `path` when it is a symbolic link: the pages are never written
/// through one.
fn refuse_link(path: &Path) -> anyhow::Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink()) {
        bail!("{}: a symbolic link, not followed; nothing was written", path.display());
    }
    Ok(())
}

/// Refuses to replace what is at `path` unless it is a regular file holding a
/// man page of `page`'s name.
fn check_replaceable(path: &Path, page: &Page) -> anyhow::Result<()> {
    refuse_link(path)?;
    let Ok(metadata) = fs::metadata(path) else { return Ok(()) };
    let bytes = if metadata.is_file() { fs::read(path).ok() } else { None };
    if !bytes.is_some_and(|bytes| page.is_replaceable_by(&bytes)) {
        bail!("{}: exists and is not the man page {}; not replaced, nothing was written", path.display(), page.name);
    }
    Ok(())
}

/// Writes `bytes` to a new file at `path`; fails when anything is there, a
/// link included, rather than following it.
fn write_new_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)
}
