//! The evaluator's reading of one PAN XML file (`read_annotations`, what
//! `load_dir` does per file), for the ground truth and for detections, then the
//! evaluation of the detections against the truth.
//!
//! Invariants: no panic; the only errors are a bad offset and, for the truth, a
//! file that cannot be read whole; a file is skipped (for the truth: an error)
//! exactly when it is not UTF-8, not PAN XML, or has no reference; a selected
//! feature lacking an attribute is ignored (for the truth: an error); every
//! annotation comes from a complete selected feature, in order, with the offsets
//! the feature gives and the document's reference; no feature is both truth and
//! detection; the measures lie in their ranges.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use pan_detect::eval::annotations::{FileAnnotations, read_annotations};
use pan_detect::eval::{Annotation, EvalError, Options, Select, evaluate};
use pan_detect::report::pan_xml::PanDocument;

fn read(data: &[u8], select: &Select) -> Option<Vec<Annotation>> {
    let path = Path::new("fuzz.xml");
    let result = read_annotations(path, data, select);
    let document = std::str::from_utf8(data).ok().and_then(|text| PanDocument::parse(text).ok());
    let document = match document {
        Some(document) if !document.reference.is_empty() => document,
        _ => {
            match select {
                Select::Truth => assert!(matches!(result, Err(EvalError::BadTruth(_))), "{result:?}"),
                Select::Suffix(_) => assert!(matches!(result, Ok(FileAnnotations::Skipped(_))), "{result:?}"),
            }
            return None;
        }
    };
    let (annotations, without_offsets) = match result {
        Err(EvalError::BadOffset { feature, name, .. }) => {
            assert_eq!(document.features[feature - 1].name, name);
            return None;
        }
        Err(EvalError::BadTruth(problem)) => {
            assert_eq!(*select, Select::Truth, "{problem}");
            assert!(problem.reason.contains("without"), "{problem}");
            return None;
        }
        Err(other) => panic!("unexpected error {other}"),
        Ok(FileAnnotations::Skipped(skipped)) => panic!("a PAN document was skipped: {skipped}"),
        Ok(FileAnnotations::Read { annotations, without_offsets, .. }) => (annotations, without_offsets),
    };
    let selected: Vec<_> = document
        .features
        .iter()
        .filter(|f| match select {
            Select::Truth => f.name.ends_with("plagiarism") && !f.name.ends_with("detected-plagiarism"),
            Select::Suffix(suffix) => f.name.ends_with(suffix.as_str()),
        })
        .collect();
    assert_eq!(annotations.len() + without_offsets, selected.len());
    const SOURCE: [&str; 3] = ["source_reference", "source_offset", "source_length"];
    let with_offsets = selected.iter().filter(|f| {
        let source = SOURCE.iter().filter(|key| f.get(key).is_some()).count();
        f.get("this_offset").is_some() && f.get("this_length").is_some() && (source == 0 || source == SOURCE.len())
    });
    for (annotation, feature) in annotations.iter().zip(with_offsets) {
        assert_eq!(annotation.suspicious, document.reference);
        assert_eq!(annotation.feature, feature.name);
        let (start, end) = feature.this_range().expect("read as an annotation");
        assert_eq!((u64::from(annotation.this.start), u64::from(annotation.this.end)), (start, end));
        if let Some(source) = &annotation.source {
            let (start, end) = feature.source_range().expect("read as a source passage");
            assert_eq!((u64::from(source.range.start), u64::from(source.range.end)), (start, end));
            assert_eq!(Some(source.reference.as_str()), feature.get("source_reference"));
        }
    }
    Some(annotations)
}

fn as_loaded(annotations: Vec<Annotation>) -> Vec<Annotation> {
    let mut kept: Vec<Annotation> = Vec::new();
    for annotation in annotations {
        let same = |a: &Annotation| (&a.suspicious, a.this, &a.source) == (&annotation.suspicious, annotation.this, &annotation.source);
        if annotation.chars() > 0 && !kept.iter().any(same) {
            kept.push(annotation);
        }
    }
    kept
}

fn in_unit(value: f64) -> bool {
    (0.0..=1.0).contains(&value)
}

fuzz_target!(|data: &[u8]| {
    let truth = read(data, &Select::Truth);
    let detections = read(data, &Select::detections());
    let (Some(truth), Some(detections)) = (truth, detections) else { return };
    for case in &truth {
        assert!(!detections.iter().any(|d| d.feature == case.feature), "{case:?}");
    }
    // load_dir drops annotations of no characters (the scripts divide by them)
    // and keeps one of each (document, ranges, source).
    let (truth, detections) = (as_loaded(truth), as_loaded(detections));
    let report = evaluate(&truth, &detections, &Options::default());
    let m = &report.measures;
    assert!(in_unit(m.recall) && in_unit(m.precision) && in_unit(m.plagdet), "{report:?}");
    assert!(m.granularity >= 1.0 || (truth.is_empty() || detections.is_empty()), "{report:?}");
});
