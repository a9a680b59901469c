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
use pan_detect::archive;
use pan_detect::cli;
use pan_detect::detect::{Scope, detect_texts, detect_with};
use pan_detect::error::{Error, Warning};
use pan_detect::pairs::DocumentPairs;
use pan_detect::progress::Progress;
use pan_detect::report::{Detection, DetectionSink};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};

create_exception!(
    pan_detect,
    PanDetectError,
    PyException,
    "An error of pan-detect; its message is the command line's one-line message."
);
create_exception!(
    pan_detect,
    InputError,
    PanDetectError,
    "Bad input: a missing or unusable file or directory, or an argument the command line would refuse."
);
create_exception!(
    pan_detect,
    OutputError,
    PanDetectError,
    "Reports that cannot be written where they were asked for, or would replace files that are not reports."
);
create_exception!(
    pan_detect,
    ArchiveError,
    PanDetectError,
    "An archive index that cannot be used: missing, locked, corrupt, or made with other settings."
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
/// become Python warnings; its error the exception of its kind, with the
/// command line's message ([`to_python`]).
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
                    return (Err(Internal(message).into()), interrupted);
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

/// The exception of `error`, with the command line's one-line message: by
/// the first of its causes that is one of the library's errors, an
/// [`ArchiveError`], an [`OutputError`] or an [`InputError`]; an error of no
/// such cause is an argument refused ([`InputError`]), but for one of the
/// module itself (a panic), a [`PanDetectError`].
fn to_python(error: anyhow::Error) -> PyErr {
    let message = cli::one_line(&error);
    match error_kind(&error) {
        ErrorKind::Input => InputError::new_err(message),
        ErrorKind::Output => OutputError::new_err(message),
        ErrorKind::Archive => ArchiveError::new_err(message),
        ErrorKind::Internal => PanDetectError::new_err(message),
    }
}

/// The kinds of errors Python is told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ErrorKind {
    Input,
    Output,
    Archive,
    Internal,
}

/// The kind of `error`, by the first of its causes that tells it.
fn error_kind(error: &anyhow::Error) -> ErrorKind {
    if error.downcast_ref::<Internal>().is_some() {
        return ErrorKind::Internal;
    }
    error.chain().find_map(kind_of_cause).unwrap_or(ErrorKind::Input)
}

/// The kind a cause of an error tells, when it is one of the library's.
fn kind_of_cause(cause: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    if let Some(error) = cause.downcast_ref::<archive::ArchiveError>() {
        return Some(match error {
            archive::ArchiveError::Params(_) | archive::ArchiveError::Unreadable(_) => ErrorKind::Input,
            archive::ArchiveError::Corpus(error) => kind_of_run_error(error),
            _ => ErrorKind::Archive,
        });
    }
    cause.downcast_ref::<Error>().map(kind_of_run_error)
}

/// The kind of an error of a detection run.
fn kind_of_run_error(error: &Error) -> ErrorKind {
    match error {
        Error::OutputNotADirectory(_)
        | Error::CreateOutput { .. }
        | Error::OutputIsInput { .. }
        | Error::OutputNotWritable { .. }
        | Error::NotAReport { .. }
        | Error::ReportClash { .. }
        | Error::NotOurText { .. }
        | Error::WriteText { .. }
        | Error::WriteReport { .. } => ErrorKind::Output,
        Error::Cluster(_) => ErrorKind::Internal,
        _ => ErrorKind::Input,
    }
}

/// An error of the module itself: a run that panicked.
#[derive(Debug, thiserror::Error)]
#[error("internal error: {0}")]
struct Internal(String);

/// Command-line flags of keyword arguments: `min_passage_chars=300` is
/// `--min-passage-chars 300`, `no_sort=True` is `--no-sort`, `taboo=[a, b]`
/// is `--taboo a b`; `False`, `None` and an empty list give no flag.
fn flags_of<'py>(arguments: impl IntoIterator<Item = (String, Bound<'py, PyAny>)>) -> PyResult<Vec<OsString>> {
    let mut flags = Vec::new();
    for (name, value) in arguments {
        let flag = OsString::from(format!("--{}", name.replace('_', "-")));
        if value.is_none() {
            continue;
        }
        if value.is_instance_of::<PyBool>() {
            if value.extract::<bool>()? {
                flags.push(flag);
            }
            continue;
        }
        if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
            let values = value.try_iter()?.map(|item| flag_value(&item?)).collect::<PyResult<Vec<_>>>()?;
            if !values.is_empty() {
                flags.push(flag);
                flags.extend(values);
            }
            continue;
        }
        flags.extend([flag, flag_value(&value)?]);
    }
    Ok(flags)
}

/// A flag's value: a path as it is (`os.PathLike`), anything else as `str()` gives it.
fn flag_value(value: &Bound<'_, PyAny>) -> PyResult<OsString> {
    match value.extract::<PathBuf>() {
        Ok(path) if !value.is_instance_of::<PyString>() => Ok(path.into_os_string()),
        _ => Ok(value.str()?.to_string().into()),
    }
}

/// The flags of the keyword arguments `params` ([`flags_of`]) after those
/// of the named arguments `named`.
fn keyword_flags<'py>(
    named: Vec<(&str, Bound<'py, PyAny>)>,
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Vec<OsString>> {
    let mut arguments: Vec<(String, Bound<'py, PyAny>)> =
        named.into_iter().map(|(name, value)| (name.to_string(), value)).collect();
    for (name, value) in params.into_iter().flat_map(|params| params.iter()) {
        arguments.push((name.extract()?, value));
    }
    flags_of(arguments)
}

/// `detect`'s method flags for `preset` and the keyword arguments `params`.
fn method_flags(py: Python<'_>, preset: Option<&str>, params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<OsString>> {
    keyword_flags(vec![("preset", preset.into_pyobject(py)?.into_any())], params)
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
    let scope = Scope { text_cache: text_cache.as_ref(), ..scope_of(&method, pairs) };
    detect_with(source_dir, suspicious_dir, &method.params, &scope, sink, progress).map_err(detection_stopped)?;
    Ok(())
}

/// The scope of a run of `method` over `pairs`, when given.
fn scope_of<'a>(method: &'a cli::Method, pairs: Option<&'a DocumentPairs>) -> Scope<'a> {
    Scope { synonyms: method.synonyms.as_ref(), pairs, ..Scope::default() }
}

/// A run's error, as the command line says it.
fn detection_stopped(error: pan_detect::error::Error) -> anyhow::Error {
    anyhow::Error::new(error).context("detection stopped")
}

/// Finds the passages of `suspicious` copied from `source`, two texts in
/// memory, as `pan-detect detect --pairs` finds those of one listed pair of
/// files holding them, through the same stages with no file written
/// ([`detect_texts`]). Offsets are character offsets into the two strings;
/// `source_reference` is `source.txt`.
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
    let flags = method_flags(py, preset, params)?;
    let mut passages = run(py, |progress| {
        let mut pairs = DocumentPairs::default();
        pairs.insert(SUSPICIOUS, SOURCE);
        let method = cli::method(&flags, true)?;
        let collect = Collect::default();
        let (sources, suspicious) = ([(SOURCE, source)], [(SUSPICIOUS, suspicious)]);
        let scope = scope_of(&method, Some(&pairs));
        detect_texts(&sources, &suspicious, &method.params, &scope, &collect, progress).map_err(detection_stopped)?;
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
    let flags = method_flags(py, preset, params)?;
    run(py, |progress| {
        let pairs = pairs.as_deref().map(DocumentPairs::read).transpose()?;
        let collect = Collect::default();
        detect_into(&source_dir, &suspicious_dir, &flags, pairs.as_ref(), &collect, progress)?;
        Ok(collect.into_passages())
    })
}

/// Writes the reports of `detections` into `out_dir` as `pan-detect detect
/// --out` writes them, with the same options: `format` (`pan-xml`, `html`,
/// `json`), `layout` (`per-document`, `per-pair`), `pairs` (the pairs
/// file), and `source_dir` and `suspicious_dir`, which HTML and JSON reports
/// read the texts from.
#[pyfunction]
#[pyo3(signature = (detections, out_dir, *, source_dir = None, suspicious_dir = None, pairs = None, format = None, layout = None))]
#[allow(clippy::too_many_arguments)]
fn write_reports<'py>(
    py: Python<'py>,
    detections: Passages,
    out_dir: PathBuf,
    source_dir: Option<Bound<'py, PyAny>>,
    suspicious_dir: Option<Bound<'py, PyAny>>,
    pairs: Option<Bound<'py, PyAny>>,
    format: Option<Bound<'py, PyAny>>,
    layout: Option<Bound<'py, PyAny>>,
) -> PyResult<()> {
    let given = [
        ("source_dir", source_dir),
        ("suspicious_dir", suspicious_dir),
        ("pairs", pairs),
        ("format", format),
        ("layout", layout),
    ];
    let mut flags = vec![OsString::from("--out"), out_dir.into_os_string()];
    flags.extend(flags_of(given.into_iter().filter_map(|(name, value)| Some((name.to_string(), value?))))?);
    run(py, |progress| {
        let found = detections
            .iter()
            .map(|(name, passages)| {
                let found = passages.iter().map(Passage::detection).collect::<anyhow::Result<Vec<_>>>()?;
                anyhow::Ok((name.as_str(), found))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        cli::write_reports(&flags, &found, progress)
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
    /// create` does with the same flags as keyword arguments (`preset`,
    /// `tokenizer`, `threads`, `taboo`, `min_word_len`, `no_sort`, `strict`...).
    #[pyo3(signature = (docs_dir, **params))]
    fn create(&self, py: Python<'_>, docs_dir: PathBuf, params: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        let flags = self.index_flags(docs_dir, params)?;
        run(py, |progress| cli::index_create(&flags, progress))
    }

    /// Brings the index up to date with the documents in `docs_dir`, as
    /// `pan-detect index update` does with the same flags as keyword
    /// arguments (`threads`, `taboo`, `no_taboo`, `rehash`, `strict`...);
    /// returns whether anything changed.
    #[pyo3(signature = (docs_dir, **params))]
    fn update(&self, py: Python<'_>, docs_dir: PathBuf, params: Option<&Bound<'_, PyDict>>) -> PyResult<bool> {
        let flags = self.index_flags(docs_dir, params)?;
        run(py, |progress| cli::index_update(&flags, progress))
    }

    /// What in the archive `text` (a str) or the file `text` names (a path,
    /// `os.PathLike`) is similar to: the object `pan-detect check --format
    /// json` prints for it, with `check`'s flags as keyword arguments
    /// (`min_common`, `min_chunks`, `overlap`, `verify`...). A text is named
    /// `name` (default `<text>`) in it.
    #[pyo3(signature = (text, *, name = None, **params))]
    fn check(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        name: Option<String>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let (file, text) = if text.is_instance_of::<PyString>() {
            (OsString::from(name.unwrap_or_else(|| "<text>".into())), Some(text.extract::<String>()?))
        } else if name.is_some() {
            return Err(InputError::new_err("name applies to a text (str); a file is named by its path"));
        } else {
            (text.extract::<PathBuf>()?.into_os_string(), None)
        };
        let mut flags = self.flags(params)?;
        flags.extend(["--".into(), file]);
        let json = run(py, |progress| cli::check_json(&flags, text.as_deref(), progress))?;
        from_json(py, &json)
    }

    /// The archive's stored similarities: one dict per row of `pan-detect
    /// similar --format jsonl`, with `similar`'s flags as keyword arguments
    /// (`top`, `min_percent`, `since_update`, `verify`).
    #[pyo3(signature = (**params))]
    fn similar(&self, py: Python<'_>, params: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let flags = self.flags(params)?;
        let json = run(py, |progress| Ok(serde_json::to_string(&cli::similar_rows(&flags, progress)?)?))?;
        from_json(py, &json)
    }
}

impl Archive {
    /// `--index` with this index and the flags of the keyword arguments `params`.
    fn flags(&self, params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<OsString>> {
        let mut flags = vec![OsString::from("--index"), self.path.clone().into_os_string()];
        flags.extend(keyword_flags(Vec::new(), params)?);
        Ok(flags)
    }

    /// [`flags`](Self::flags) with `--docs docs_dir`.
    fn index_flags(&self, docs_dir: PathBuf, params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<OsString>> {
        let mut flags = vec![OsString::from("--docs"), docs_dir.into_os_string()];
        flags.extend(self.flags(params)?);
        Ok(flags)
    }
}

/// The module `pan_detect._pan_detect`.
#[pymodule]
fn _pan_detect(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("PanDetectError", module.py().get_type::<PanDetectError>())?;
    module.add("InputError", module.py().get_type::<InputError>())?;
    module.add("OutputError", module.py().get_type::<OutputError>())?;
    module.add("ArchiveError", module.py().get_type::<ArchiveError>())?;
    module.add_class::<Passage>()?;
    module.add_class::<Archive>()?;
    module.add_function(wrap_pyfunction!(align, module)?)?;
    module.add_function(wrap_pyfunction!(detect, module)?)?;
    module.add_function(wrap_pyfunction!(write_reports, module)?)?;
    module.add_function(wrap_pyfunction!(evaluate, module)?)?;
    module.add_function(wrap_pyfunction!(run_cli, module)?)?;
    Ok(())
}
