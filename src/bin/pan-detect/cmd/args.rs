//! Flag values shared by several subcommands.

use clap::ValueEnum;
use pan_detect::params::OverlapPolicy;

/// `--overlap` values.
#[derive(Clone, Copy, ValueEnum)]
pub enum Overlap {
    /// Keep only the largest of overlapping passages (PAN).
    Largest,
    /// Keep the largest and cut the overlapped parts out of the others.
    Trim,
    /// Keep every passage (archive).
    KeepAll,
}

impl From<Overlap> for OverlapPolicy {
    fn from(overlap: Overlap) -> Self {
        match overlap {
            Overlap::Largest => OverlapPolicy::Largest,
            Overlap::Trim => OverlapPolicy::Trim,
            Overlap::KeepAll => OverlapPolicy::KeepAll,
        }
    }
}
