//! Progress bars on a terminal (indicatif), nothing when stderr is piped.

use std::sync::Mutex;

use crate::error::Warning;
use crate::progress::{Progress, Stage};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::messages;

/// Shows one bar per stage on stderr when it is a terminal; prints warnings as
/// one line each above the bar.
pub struct TerminalProgress {
    bar: Mutex<Option<ProgressBar>>,
    hidden: bool,
}

impl TerminalProgress {
    /// Bars unless `quiet`; indicatif itself hides them when stderr is not a terminal.
    pub fn new(quiet: bool) -> Self {
        TerminalProgress { bar: Mutex::new(None), hidden: quiet }
    }

    fn current(&self) -> Option<ProgressBar> {
        self.bar.lock().ok().and_then(|bar| bar.clone())
    }
}

impl Progress for TerminalProgress {
    fn start(&self, stage: Stage, total: u64) {
        let target = if self.hidden { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let corpus_unit = corpus_unit(stage);
        let bar =
            if total == 0 && corpus_unit.is_none() { ProgressBar::new_spinner() } else { ProgressBar::new(total) };
        bar.set_draw_target(target);
        // The templates are constants known to parse (the corpus ones around a label without braces).
        let style = match corpus_unit {
            Some(unit) => {
                let template = format!("{:>9} [{{bar:30}}] {unit} ({{elapsed}})", stage.label());
                ProgressStyle::with_template(&template).expect("valid progress template")
            }
            None => {
                let template = if total == 0 {
                    "{spinner} {msg} {elapsed}"
                } else {
                    "{msg:16} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
                };
                ProgressStyle::with_template(template).expect("valid progress template").progress_chars("=> ")
            }
        };
        bar.set_style(style);
        bar.set_message(stage.label());
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn advance(&self, units: u64) {
        if let Some(bar) = self.current() {
            bar.inc(units);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().ok().and_then(|mut slot| slot.take()) {
            bar.finish_and_clear();
        }
    }

    fn warn(&self, warning: &Warning) {
        match self.current() {
            Some(bar) => bar.suspend(|| messages::warn(warning)),
            None => messages::warn(warning),
        }
    }
}

/// The counter shown after the bar of a stage with its own, shorter style
/// (`pan-detect corpus`'s stages and the archive's similarity table); `None`
/// for the other stages, whose bars count bytes of input.
fn corpus_unit(stage: Stage) -> Option<&'static str> {
    match stage {
        Stage::CorpusPool | Stage::CorpusDocuments => Some("{binary_bytes}/{binary_total_bytes}"),
        Stage::CorpusCases | Stage::CorpusCheck => Some("{pos}/{len} suspicious documents"),
        Stage::Similarities | Stage::Signatures => Some("{pos}/{len} documents"),
        Stage::ReadSources | Stage::BuildIndex | Stage::Match | Stage::Extract => None,
    }
}
