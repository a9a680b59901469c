//! `pan-detect completions SHELL`: the shell's completion script on stdout,
//! generated from the command line's definition (clap_complete).

use std::process::ExitCode;

use clap_complete::Shell;

use crate::cli::messages;

/// Arguments of `pan-detect completions`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  pan-detect completions bash > ~/.local/share/bash-completion/completions/pan-detect
  pan-detect completions zsh > ~/.zfunc/_pan-detect")]
pub struct Args {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the completion script of `pan-detect` for the shell.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut crate::cli::command(), "pan-detect", &mut script);
    messages::print(&String::from_utf8(script)?)?;
    Ok(ExitCode::SUCCESS)
}
