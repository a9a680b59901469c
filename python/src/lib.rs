//! The `pan_detect` Python module (`pan_detect._pan_detect`, re-exported by
//! `python/pan_detect/__init__.py`): pan-detect's library and its command line,
//! called as the `pan-detect` binary calls them, so that every stage is the
//! library's own (`src/`). Long calls run with the GIL released on rayon's
//! threads, and stop between documents on Ctrl-C.

use std::collections::BTreeMap;
use std::ffi::{CString, OsString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use pan_detect::analysis::extract::cache::TextCache;
use pan_detect::analysis::span::CharRange;
use pan_detect::archive::check::{CheckParams, Checker};
use pan_detect::archive::similar::{SimilarParams, SimilarRow, similar};
use pan_detect::archive::table::SimilarityTable;
use pan_detect::archive::{self, ArchiveIndex, SettingsOverride, TabooChange, TabooFiles, UpdateOptions};
use pan_detect::cli;
use pan_detect::detect::{Scope, detect_with};
use pan_detect::error::{Error, Warning};
use pan_detect::pairs::DocumentPairs;
use pan_detect::progress::{Progress, Silent};
use pan_detect::report::output::NewDirectories;
use pan_detect::report::{Detection, DetectionSink, PanXmlDirectory};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

create_exception!(
    pan_detect,
    PanDetectError,
    PyException,
    "An error of pan-detect; its message is the command line's one-line message."
);

/// How often the thread that waits for a run checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// A passage found in a suspicious document and its source: character offsets
/// and lengths, usable as Python string slices.
#[pyclass(frozen, get_all, eq, hash, from_py_object, module = "pan_detect")]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Passage {
    this_offset: u32,
    this_length: u32,
    source_reference: String,
    source_offset: u32,
    source_length: u32,
}

#[pymethods]
impl Passage {
    #[new]
    #[pyo3(signature = (this_offset, this_length, source_reference, source_offset, source_length))]
    fn new(
        this_offset: u32,
        this_length: u32,
        source_reference: String,
        source_offset: u32,
        source_length: u32,
    ) -> Self {
        Passage { this_offset, this_length, source_reference, source_offset, source_length }
    }

    fn __repr__(&self) -> String {
        let Passage { this_offset, this_length, source_reference, source_offset, source_length } = self;
        format!(
            "Passage(this_offset={this_offset}, this_length={this_length}, source_reference={source_reference:?}, \
             source_offset={source_offset}, source_length={source_length})"
        )
    }
}

impl Passage {
    /// The passage of a detection.
    fn of(detection: &Detection<'_>) -> Self {
        Passage {
            this_offset: detection.this.start,
            this_length: detection.this.len(),
            source_reference: detection.source_reference.to_string(),
            source_offset: detection.source.start,
            source_length: detection.source.len(),
        }
    }

    /// The detection of this passage; an error when an end is past the
    /// largest offset.
    fn detection(&self) -> anyhow::Result<Detection<'_>> {
        let range = |offset: u32, length: u32| {
            let end =
                offset.checked_add(length).ok_or_else(|| anyhow::anyhow!("{self:?}: ends past offset {}", u32::MAX))?;
            anyhow::Ok(CharRange::new(offset, end))
        };
        Ok(Detection {
            this: range(self.this_offset, self.this_length)?,
            source_reference: &self.source_reference,
            source: range(self.source_offset, self.source_length)?,
        })
    }
}

/// The passages of each suspicious document, by name.
type Passages = BTreeMap<String, Vec<Passage>>;

/// A sink that keeps the passages of every suspicious document in memory.
#[derive(Default)]
struct Collect(Mutex<Passages>);

impl DetectionSink for Collect {
    fn document(&self, suspicious: &str, detections: &[Detection<'_>]) -> Result<(), Error> {
        let passages = detections.iter().map(Passage::of).collect();
        self.0.lock().unwrap_or_else(PoisonError::into_inner).insert(suspicious.to_string(), passages);
        Ok(())
    }
}

impl Collect {
    fn into_passages(self) -> Passages {
        self.0.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The progress of a call from Python: no bars; the run is cancelled when the
/// waiting thread sees Ctrl-C; the warnings are kept, to be given to Python's
/// `warnings` when the run is over.
#[derive(Default)]
struct FromPython {
    cancelled: AtomicBool,
    warnings: Mutex<Vec<String>>,
}

impl Progress for FromPython {
    fn warn(&self, warning: &Warning) {
        self.warnings.lock().unwrap_or_else(PoisonError::into_inner).push(warning.to_string());
    }

    fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// Runs `work` on a thread of its own with the GIL released (its parallel
/// parts on rayon's threads), while this thread checks Python's signals every
/// [`SIGNAL_CHECK`]: on Ctrl-C the run is cancelled, waited for (it stops
/// between documents), and `KeyboardInterrupt` raised. The run's warnings
/// become Python warnings; its error a [`PanDetectError`] with the command
/// line's message.
fn run<T: Send>(py: Python<'_>, work: impl FnOnce(&FromPython) -> anyhow::Result<T> + Send) -> PyResult<T> {
    let progress = FromPython::default();
    let (result, interrupted) = py.detach(|| wait_interruptibly(&progress, work));
    for warning in progress.warnings.into_inner().unwrap_or_else(PoisonError::into_inner) {
        let message = CString::new(warning.replace('\0', "\\0")).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
    }
    match (interrupted, result) {
        (Some(signal), _) => Err(signal),
        (None, result) => result.map_err(to_python),
    }
}

/// [`run`]'s waiting, without the GIL: the result of `work` and the
/// exception of a signal that came meanwhile.
fn wait_interruptibly<T: Send>(
    progress: &FromPython,
    work: impl FnOnce(&FromPython) -> anyhow::Result<T> + Send,
) -> (anyhow::Result<T>, Option<PyErr>) {
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel();
        let worker = scope.spawn(move || {
            let _ = done.send(work(progress));
        });
        let mut interrupted = None;
        loop {
            match finished.recv_timeout(SIGNAL_CHECK) {
                Ok(result) => return (result, interrupted),
                Err(RecvTimeoutError::Timeout) => {
                    if interrupted.is_none()
                        && let Err(signal) = Python::attach(|py| py.check_signals())
                    {
                        progress.cancelled.store(true, Ordering::Relaxed);
                        interrupted = Some(signal);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // The worker ended without a result: it panicked.
                    let message = worker.join().err().map_or_else(String::new, |panic| panic_message(&*panic));
                    return (Err(anyhow::anyhow!("internal error: {message}")), interrupted);
                }
            }
        }
    })
}

/// The message of a panic's payload.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => text.to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic".to_string(),
    }
}

/// A [`PanDetectError`] with the command line's one-line message.
fn to_python(error: anyhow::Error) -> PyErr {
    PanDetectError::new_err(cli::one_line(&error))
}

/// `detect`'s method flags for `preset` and the keyword arguments `params`:
/// `min_passage_chars=300` is `--min-passage-chars 300`, `no_sort=True` is
/// `--no-sort`; `False` and `None` give no flag.
fn method_flags(preset: Option<&str>, params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<OsString>> {
    let mut flags = Vec::new();
    if let Some(preset) = preset {
        flags.extend(["--preset".into(), preset.into()]);
    }
    for (name, value) in params.into_iter().flat_map(|params| params.iter()) {
        let flag = format!("--{}", name.extract::<String>()?.replace('_', "-"));
        if value.is_none() {
            continue;
        }
        if value.is_instance_of::<PyBool>() {
            if value.extract::<bool>()? {
                flags.push(flag.into());
            }
            continue;
        }
        let text = match value.extract::<PathBuf>() {
            Ok(path) if !value.is_instance_of::<pyo3::types::PyString>() => path.into_os_string(),
            _ => value.str()?.to_string().into(),
        };
        flags.extend([flag.into(), text]);
    }
    Ok(flags)
}

/// Runs detection over two directories into `sink`, as `pan-detect detect`
/// does with the method `flags` and `pairs` (a pairs file or pairs already read).
fn detect_into(
    source_dir: &Path,
    suspicious_dir: &Path,
    flags: &[OsString],
    pairs: Option<&DocumentPairs>,
    sink: &dyn DetectionSink,
    progress: &FromPython,
) -> anyhow::Result<()> {
    let method = cli::method(flags, pairs.is_some())?;
    // A cache only spares extracting PDF, DOCX and ODT sources again.
    let text_cache = TextCache::temporary().ok();
    let scope = Scope {
        synonyms: method.synonyms.as_ref(),
        pairs,
        taboo: None,
        text_cache: text_cache.as_ref(),
        recursive: false,
    };
    detect_with(source_dir, suspicious_dir, &method.params, &scope, sink, progress)
        .map_err(|error| anyhow::Error::new(error).context("detection stopped"))?;
    Ok(())
}

/// Finds the passages of `suspicious` copied from `source`, two texts in
/// memory, as `pan-detect detect --pairs` finds those of one listed pair of
/// files (their texts are written to a temporary directory for it).
/// Offsets are character offsets into the two strings; `source_reference`
/// is `source.txt`.
#[pyfunction]
#[pyo3(signature = (suspicious, source, *, preset = Some("best"), **params))]
fn align(
    py: Python<'_>,
    suspicious: &str,
    source: &str,
    preset: Option<&str>,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Passage>> {
    const SUSPICIOUS: &str = "suspicious.txt";
    const SOURCE: &str = "source.txt";
    let flags = method_flags(preset, params)?;
    let mut passages = run(py, |progress| {
        let dir = tempfile::tempdir()?;
        let (source_dir, suspicious_dir) = (dir.path().join("source"), dir.path().join("suspicious"));
        for (folder, name, text) in [(&source_dir, SOURCE, source), (&suspicious_dir, SUSPICIOUS, suspicious)] {
            std::fs::create_dir(folder)?;
            std::fs::write(folder.join(name), text)?;
        }
        let mut pairs = DocumentPairs::default();
        pairs.insert(SUSPICIOUS, SOURCE);
        let collect = Collect::default();
        detect_into(&source_dir, &suspicious_dir, &flags, Some(&pairs), &collect, progress)?;
        Ok(collect.into_passages())
    })?;
    Ok(passages.remove(SUSPICIOUS).unwrap_or_default())
}

/// Finds the passages of the documents of `suspicious_dir` copied from those
/// of `source_dir`, as `pan-detect detect` does with the same flags.
#[pyfunction]
#[pyo3(signature = (source_dir, suspicious_dir, *, pairs = None, preset = Some("best"), **params))]
fn detect(
    py: Python<'_>,
    source_dir: PathBuf,
    suspicious_dir: PathBuf,
    pairs: Option<PathBuf>,
    preset: Option<&str>,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<Passages> {
    let flags = method_flags(preset, params)?;
    run(py, |progress| {
        let pairs = pairs.as_deref().map(DocumentPairs::read).transpose()?;
        let collect = Collect::default();
        detect_into(&source_dir, &suspicious_dir, &flags, pairs.as_ref(), &collect, progress)?;
        Ok(collect.into_passages())
    })
}

/// Writes one PAN XML report per suspicious document of `detections` into
/// `out_dir`, as `pan-detect detect --out` writes them.
#[pyfunction]
fn write_reports(py: Python<'_>, detections: Passages, out_dir: PathBuf) -> PyResult<()> {
    run(py, |_| {
        NewDirectories::removed_on_failure(&out_dir, || {
            let sink = PanXmlDirectory::create(&out_dir)?;
            let names: Vec<&str> = detections.keys().map(String::as_str).collect();
            sink.prepare(&[], &names, &[], &Silent)?;
            for (name, passages) in &detections {
                let found = passages.iter().map(Passage::detection).collect::<anyhow::Result<Vec<_>>>()?;
                sink.document(name, &found)?;
            }
            sink.finish()?;
            anyhow::Ok(())
        })
    })
}

/// PAN's measures of the detections in `detections_dir` against the ground
/// truth in `truth_dir`: the object `pan-detect eval --json` prints, with
/// `--pairs` for each of `pairs` and `--by obfuscation` when `by_obfuscation`.
#[pyfunction]
#[pyo3(signature = (truth_dir, detections_dir, *, pairs = Vec::new(), by_obfuscation = false))]
fn evaluate(
    py: Python<'_>,
    truth_dir: PathBuf,
    detections_dir: PathBuf,
    pairs: Vec<PathBuf>,
    by_obfuscation: bool,
) -> PyResult<Py<PyAny>> {
    let json = run(py, |_| cli::evaluation_json(&truth_dir, &detections_dir, &pairs, by_obfuscation))?;
    from_json(py, &json)
}

/// The Python value of the JSON text `json` (`json.loads`).
fn from_json(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (json,))?.unbind())
}

/// Runs the `pan-detect` command line with `argv` (the program's name
/// first) and returns its exit status.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| cli::run(argv))
}

/// An archive index: a persistent index of documents, checked against and
/// kept up to date, as `pan-detect index`, `check` and `similar` use it.
#[pyclass(frozen, module = "pan_detect")]
struct Archive {
    path: PathBuf,
}

#[pymethods]
impl Archive {
    #[new]
    fn new(path: PathBuf) -> Self {
        Archive { path }
    }

    /// The index's directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    fn __repr__(&self) -> String {
        format!("Archive({:?})", self.path)
    }

    /// Builds the index of the documents in `docs_dir`, as `pan-detect index
    /// create` does with its default settings and the `taboo` files.
    #[pyo3(signature = (docs_dir, *, taboo = Vec::new()))]
    fn create(&self, py: Python<'_>, docs_dir: PathBuf, taboo: Vec<PathBuf>) -> PyResult<()> {
        run(py, |progress| {
            let taboo = (!taboo.is_empty()).then(|| TabooFiles::load(&taboo)).transpose()?;
            let settings = SettingsOverride::default().or_defaults();
            archive::create(&docs_dir, &self.path, &settings, taboo.as_ref(), progress)
                .map_err(|error| anyhow::Error::new(error).context("index create stopped"))?;
            Ok(())
        })
    }

    /// Brings the index up to date with the documents in `docs_dir`, as
    /// `pan-detect index update` does; returns whether anything changed.
    fn update(&self, py: Python<'_>, docs_dir: PathBuf) -> PyResult<bool> {
        run(py, |progress| {
            let options = UpdateOptions { rehash: false, taboo: TabooChange::Keep };
            let summary = archive::update(&docs_dir, &self.path, &SettingsOverride::default(), &options, progress)
                .map_err(|error| anyhow::Error::new(error).context("index update stopped"))?;
            Ok(summary.committed)
        })
    }

    /// What in the archive `text` (a str) or the file `text` names (a path,
    /// `os.PathLike`) is similar to, as `pan-detect check` finds it: a dict
    /// with `file` (`name`, else the path or `<text>`), `chunks`,
    /// `distinct_chunks`, `taboo_chars` and `documents` (the similar archive
    /// documents, with their shares and `passages`).
    #[pyo3(signature = (text, *, name = None))]
    fn check(&self, py: Python<'_>, text: &Bound<'_, PyAny>, name: Option<String>) -> PyResult<Py<PyAny>> {
        let given = if text.is_instance_of::<pyo3::types::PyString>() {
            Checked::Text(text.extract()?)
        } else {
            Checked::File(text.extract()?)
        };
        run(py, |_| {
            let index = ArchiveIndex::open(&self.path)?;
            let mut checker = Checker::new(&index, CheckParams::for_index(index.settings()))?;
            let report = match &given {
                Checked::Text(text) => checker.check_text(name.as_deref().unwrap_or("<text>"), text)?,
                Checked::File(path) => {
                    let display = name.clone().unwrap_or_else(|| path.display().to_string());
                    checker.check_file_with_text(path, &display)?.0
                }
            };
            Ok(serde_json::to_string(&report)?)
        })
        .and_then(|json| from_json(py, &json))
    }

    /// The archive's stored similarities: one dict per row of `pan-detect
    /// similar --format jsonl`, the `top` most similar of each document from
    /// `min_percent` on (the command's defaults when not given).
    #[pyo3(signature = (*, top = None, min_percent = None))]
    fn similar(&self, py: Python<'_>, top: Option<usize>, min_percent: Option<f64>) -> PyResult<Py<PyAny>> {
        run(py, |_| {
            let defaults = SimilarParams::default();
            let params = SimilarParams {
                top: top.unwrap_or(defaults.top),
                min_percent: min_percent.unwrap_or(defaults.min_percent),
                since_update: false,
            };
            let (index, table) = SimilarityTable::open(&self.path)?;
            let mut rows: Vec<SimilarRow> = Vec::new();
            similar(&index, &table, &params, &mut |row| {
                rows.push(row.clone());
                Ok(())
            })?;
            Ok(serde_json::to_string(&rows)?)
        })
        .and_then(|json| from_json(py, &json))
    }
}

/// What `Archive.check` is given.
enum Checked {
    Text(String),
    File(PathBuf),
}

/// The module `pan_detect._pan_detect`.
#[pymodule]
fn _pan_detect(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("PanDetectError", module.py().get_type::<PanDetectError>())?;
    module.add_class::<Passage>()?;
    module.add_class::<Archive>()?;
    module.add_function(wrap_pyfunction!(align, module)?)?;
    module.add_function(wrap_pyfunction!(detect, module)?)?;
    module.add_function(wrap_pyfunction!(write_reports, module)?)?;
    module.add_function(wrap_pyfunction!(evaluate, module)?)?;
    module.add_function(wrap_pyfunction!(run_cli, module)?)?;
    Ok(())
}
