//! Where the output goes relative to the input: a build may not write into one
//! of its text directories (a later build would read the corpus as input), nor
//! read texts from inside its output directory.

use std::path::{Component, Path, PathBuf};

use super::{CorpusError, CorpusSpec};

/// Refuses an output directory that is, lies inside or contains one of the
/// text directories (or files), comparing paths with symbolic links resolved.
/// Text paths that do not exist are left to the listing, which names them.
pub fn refuse_overlap(spec: &CorpusSpec) -> Result<(), CorpusError> {
    let out = resolve(&spec.out)?;
    for texts in &spec.texts {
        let Ok(input) = texts.canonicalize() else { continue };
        if let Some(relation) = overlap(&out, &input) {
            return Err(CorpusError::OutputOverlapsTexts { out: spec.out.clone(), texts: texts.clone(), relation });
        }
    }
    Ok(())
}

/// How the resolved output path relates to a resolved input path, when they overlap.
fn overlap(out: &Path, input: &Path) -> Option<&'static str> {
    if out == input {
        Some("is the same directory as")
    } else if out.starts_with(input) {
        Some("is inside")
    } else if input.starts_with(out) {
        Some("contains")
    } else {
        None
    }
}

/// `path` made absolute with symbolic links resolved, also when it does not
/// exist yet: its nearest existing ancestor is canonicalized and the rest
/// appended, `..` taken lexically (parts that do not exist are not links).
pub fn resolve(path: &Path) -> Result<PathBuf, CorpusError> {
    let absolute = std::path::absolute(path).map_err(|source| CorpusError::Io { path: path.to_path_buf(), source })?;
    for ancestor in absolute.ancestors() {
        let Ok(mut resolved) = ancestor.canonicalize() else { continue };
        // `ancestor` is a prefix of `absolute`, so this cannot fail.
        let rest = absolute.strip_prefix(ancestor).unwrap_or(Path::new(""));
        for component in rest.components() {
            match component {
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::Normal(name) => resolved.push(name),
                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            }
        }
        return Ok(resolved);
    }
    Ok(absolute)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn spec(texts: &Path, out: PathBuf) -> CorpusSpec {
        CorpusSpec::new(vec![texts.to_path_buf()], out, 1)
    }

    #[test]
    fn a_path_that_does_not_exist_resolves_through_its_nearest_existing_ancestor() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir(root.join("a")).unwrap();
        assert_eq!(resolve(&root.join("a/new/deeper")).unwrap(), root.join("a/new/deeper"));
        assert_eq!(resolve(&root.join("a/new/../../b")).unwrap(), root.join("b"));
        assert_eq!(resolve(&root.join("a/./x")).unwrap(), root.join("a/x"));
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
