//! Where the output goes relative to the input: a build may not write into one
//! of its text directories (a later build would read the corpus as input), nor
//! read texts from inside its output directory.

use super::{CorpusError, CorpusSpec};
use crate::report::output::{overlap, resolve};

/// Refuses an output directory that is, lies inside or contains one of the
/// text directories (or files), comparing paths with symbolic links resolved.
/// Text paths that do not exist are left to the listing, which names them.
pub fn refuse_overlap(spec: &CorpusSpec) -> Result<(), CorpusError> {
    let out = resolve(&spec.out).map_err(|source| CorpusError::Io { path: spec.out.clone(), source })?;
    for texts in &spec.texts {
        let Ok(input) = texts.canonicalize() else { continue };
        if let Some(relation) = overlap(&out, &input) {
            return Err(CorpusError::OutputOverlapsTexts { out: spec.out.clone(), texts: texts.clone(), relation });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use super::*;

    fn spec(texts: &Path, out: PathBuf) -> CorpusSpec {
        CorpusSpec::new(vec![texts.to_path_buf()], out, 1)
    }

    #[test]
    fn an_output_inside_containing_or_equal_to_the_texts_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let texts = dir.path().join("texts");
        fs::create_dir(&texts).unwrap();
        let refused = |out: PathBuf| refuse_overlap(&spec(&texts, out)).unwrap_err().to_string();
        let inside = refused(texts.join("corpus/sub"));
        assert!(inside.contains("is inside --texts"), "{inside}");
        assert!(refused(dir.path().to_path_buf()).contains("contains --texts"));
        assert!(refused(texts.join("x/..")).contains("is the same directory as --texts"));
        assert!(refuse_overlap(&spec(&texts, dir.path().join("corpus"))).is_ok());
        assert!(
            refuse_overlap(&spec(&texts, dir.path().join("texts-corpus"))).is_ok(),
            "a shared name prefix is no overlap"
        );
        assert!(refuse_overlap(&spec(&dir.path().join("missing"), dir.path().join("missing/out"))).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn an_output_reached_through_a_symbolic_link_is_compared_where_it_leads() {
        let dir = tempfile::tempdir().unwrap();
        let texts = dir.path().join("texts");
        fs::create_dir(&texts).unwrap();
        std::os::unix::fs::symlink(&texts, dir.path().join("link")).unwrap();
        let error = refuse_overlap(&spec(&texts, dir.path().join("link/corpus"))).unwrap_err().to_string();
        assert!(error.contains("link/corpus: is inside --texts"), "{error}");
    }
}
