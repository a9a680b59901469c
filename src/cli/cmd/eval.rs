//! `pan-detect eval`: score detections against ground truth with the measures of
//! the PAN plagiarism-detection competitions, as the official scripts compute them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::eval::{self, FileProblem, GroupBy, Loaded, Options, Report, Select, Thresholds};
use crate::pairs::DocumentPairs;
use anyhow::Context;
use clap::ValueEnum;
use serde::Serialize;

use crate::cli::messages::{self, count};

/// The end of `pan-detect eval --help`: what is read, what a class's figures mean, and examples.
const AFTER_HELP: &str = "\
Ground truth: features whose name ends with 'plagiarism' (plagiarism, artificial-plagiarism,
simulated-plagiarism, ...), except 'detected-plagiarism'. Detections: features named
'detected-plagiarism'. A feature is any element inside <document> with a name attribute,
whatever the element is called. Both are read from DIR/*.xml and DIR/*/*.xml, as the
official PAN scripts read them.

Per class (--by obfuscation, --by type): recall and granularity are those of the class's
cases against all detections. The class's detections are those that detect at least one
of its cases; its precision is their mean precision against all cases. A detection that
detects no case belongs to no class: false positives lower only the overall precision.

Examples:
  pan-detect eval --truth corpus-fixtures/pan/suspicious-documents --detections /tmp/pd-reports
  pan-detect eval --truth corpus-fixtures/pan/suspicious-documents --detections /tmp/pd-reports --by obfuscation";

/// Arguments of `pan-detect eval`.
///
/// Reads the ground truth (features named `plagiarism`, `artificial-plagiarism`,
/// `simulated-plagiarism`, ...; see [`Select`]) and the detections (`detected-plagiarism`) from the
/// `*.xml` files of each directory and of its immediate subdirectories, which covers
/// the PAN-PC-09/10/11 layout and the PAN 2013-2015 text-alignment layout
/// (`suspicious-documentX-source-documentY.xml`). Prints plagdet, macro-averaged
/// recall and precision and granularity (PAN 2009/2010), their micro-averaged
/// variant, and the case- and document-level precision, recall and F1 of PAN 2015.
#[derive(clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Directory of the ground truth: PAN XML files, here or one folder below.
    #[arg(long, value_name = "DIR")]
    truth: PathBuf,
    /// Directory of the detections: PAN XML files, here or one folder below.
    #[arg(long, value_name = "DIR")]
    detections: PathBuf,
    /// Print the figures as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also print the measures per class of case or per suspicious document.
    #[arg(long, value_enum, value_name = "WHAT")]
    by: Option<By>,
    /// Share of a case that must be detected, and of a detection that must be
    /// plagiarised, for the case-level and document-level measures (τ of PAN 2015).
    #[arg(long, value_name = "T", default_value_t = DEFAULT_CASE_THRESHOLD, value_parser = unit_interval)]
    case_threshold: f64,
    /// A PAN 2013-2015 `pairs` file (`SUSPICIOUS SOURCE` per line): only the
    /// cases and detections of its pairs count, at every level, as PAN scored a
    /// sub-corpus. Given several times (`--pairs pairs-02-no-obfuscation --pairs
    /// pairs-03-random-obfuscation ...`), each file gets a row of its own and
    /// `all` covers their union. A file without a pair, or listing a suspicious
    /// document without a truth file, is an error.
    #[arg(long, value_name = "FILE")]
    pairs: Vec<PathBuf>,
    /// Exit with status 1 when the overall plagdet is below this value.
    #[arg(long, value_name = "PLAGDET", value_parser = unit_interval)]
    fail_below: Option<f64>,
}

/// `--by` values.
#[derive(Clone, Copy, ValueEnum)]
enum By {
    /// The `obfuscation` attribute of the case (none, low, high, random,
    /// translation, simulated, ...).
    Obfuscation,
    /// The `type` attribute of the case (artificial, simulated, translation, ...).
    Type,
    /// The suspicious document.
    Document,
}

impl By {
    fn group_by(self) -> GroupBy {
        match self {
            By::Obfuscation => GroupBy::Obfuscation,
            By::Type => GroupBy::Type,
            By::Document => GroupBy::Document,
        }
    }

    fn column(self) -> &'static str {
        match self {
            By::Obfuscation => "obfuscation",
            By::Type => "type",
            By::Document => "document",
        }
    }
}

fn unit_interval(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!("expected a number from 0 to 1, found '{text}'")),
    }
}

/// Runs `pan-detect eval`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let evaluation = Evaluation::of(&args)?;
    let text = if args.json { evaluation.json() } else { evaluation.table(args.by) };
    messages::print(&text).context("cannot write the report")?;

    let plagdet = evaluation.report.measures.plagdet;
    if let Some(minimum) = args.fail_below
        && plagdet < minimum
    {
        messages::note(format_args!("plagdet {plagdet:.4} is below --fail-below {minimum}"));
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// What `pan-detect eval --json` prints for the detections in `detections`
/// against the ground truth in `truth`, as `--pairs` `pairs` and `--by
/// obfuscation` (when `by_obfuscation`) ask; warnings go to stderr as the
/// command writes them. For callers other than the command line, such as the
/// Python module.
pub fn json_report(truth: &Path, detections: &Path, pairs: &[PathBuf], by_obfuscation: bool) -> anyhow::Result<String> {
    let args = Args {
        truth: truth.to_path_buf(),
        detections: detections.to_path_buf(),
        json: true,
        by: by_obfuscation.then_some(By::Obfuscation),
        case_threshold: DEFAULT_CASE_THRESHOLD,
        pairs: pairs.to_vec(),
        fail_below: None,
    };
    Ok(Evaluation::of(&args)?.json())
}

/// `--case-threshold`'s default: PAN 2015's τ.
const DEFAULT_CASE_THRESHOLD: f64 = 0.5;

/// The measures of one `eval` run and what they were computed from.
struct Evaluation {
    report: Report,
    /// One report per pairs file when there are several.
    subsets: Vec<Subset>,
    truth: Loaded,
    detections: Loaded,
}

impl Evaluation {
    /// Reads the ground truth and the detections of `args` and computes the measures.
    fn of(args: &Args) -> anyhow::Result<Evaluation> {
        let truth = load(&args.truth, &Select::Truth).context("cannot read the ground truth")?;
        let detections = load(&args.detections, &Select::detections()).context("cannot read the detections")?;
        let subsets =
            args.pairs.iter().map(|path| read_pairs(path, &truth, &args.truth)).collect::<anyhow::Result<Vec<_>>>()?;
        let union = (!subsets.is_empty()).then(|| {
            let mut union = DocumentPairs::default();
            subsets.iter().for_each(|(_, pairs)| union.extend(pairs));
            union
        });
        let options = Options {
            thresholds: Thresholds { recall: args.case_threshold, precision: args.case_threshold },
            group_by: args.by.map(By::group_by),
            pairs: union,
        };
        let report = eval::evaluate(&truth.annotations, &detections.annotations, &options);
        let subsets: Vec<Subset> = match subsets.len() {
            0 | 1 => Vec::new(),
            _ => subsets
                .into_iter()
                .map(|(name, pairs)| {
                    let options = Options { group_by: None, pairs: Some(pairs), ..options.clone() };
                    Subset { name, report: eval::evaluate(&truth.annotations, &detections.annotations, &options) }
                })
                .collect(),
        };
        Ok(Evaluation { report, subsets, truth, detections })
    }

    /// The measures as `--json` prints them.
    fn json(&self) -> String {
        let output = JsonOutput::new(&self.report, &self.subsets, &self.truth, &self.detections);
        // Serialising plain structs of numbers and strings cannot fail.
        serde_json::to_string_pretty(&output).expect("the report serialises") + "\n"
    }

    /// The measures as the table prints them, with the rows of `by`.
    fn table(&self, by: Option<By>) -> String {
        table(&self.report, &self.subsets, by, &self.truth, &self.detections)
    }
}

/// A pairs file's row name and its pairs, checked against the ground truth
/// `truth` read from `truth_dir` ([`eval::check_pairs`]).
fn read_pairs(path: &Path, truth: &Loaded, truth_dir: &Path) -> anyhow::Result<(String, DocumentPairs)> {
    let pairs = DocumentPairs::read(path)?;
    eval::check_pairs(path, &pairs, truth, truth_dir)?;
    Ok((pairs_name(path), pairs))
}

/// A pairs file's row name: its file name without a leading `pairs-`
/// (`pairs-02-no-obfuscation` → `02-no-obfuscation`).
fn pairs_name(path: &Path) -> String {
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    name.strip_prefix("pairs-").map(str::to_string).unwrap_or(name)
}

/// The measures on one pairs file's pairs.
#[derive(Serialize)]
struct Subset {
    /// The pairs file's row name.
    name: String,
    #[serde(flatten)]
    report: Report,
}

/// Loads one side and warns on stderr about each skipped file and each problem
/// in a file read (a directory without XML files is an error of
/// [`eval::load_dir`]).
fn load(dir: &Path, select: &Select) -> anyhow::Result<Loaded> {
    let loaded = eval::load_dir(dir, select)?;
    for skipped in &loaded.skipped {
        messages::warn(format_args!("{skipped}; file skipped"));
    }
    for warning in &loaded.warnings {
        messages::warn(warning);
    }
    Ok(loaded)
}

/// The table: one row for everything, one per pairs file, one per group, then
/// the other measures.
fn table(report: &Report, subsets: &[Subset], by: Option<By>, truth: &Loaded, detections: &Loaded) -> String {
    const HEADER: [&str; 6] = ["cases", "detections", "plagdet", "recall", "precision", "granularity"];
    let mut rows = vec![Row::new("all", report.cases, report.detections, &report.measures)];
    rows.extend(subsets.iter().map(|s| Row::new(&s.name, s.report.cases, s.report.detections, &s.report.measures)));
    rows.extend(report.groups.iter().map(|g| Row::new(&g.name, g.cases, g.detections, &g.measures)));
    let first = by.map_or(if subsets.is_empty() { "" } else { "pairs" }, By::column);
    let name_width =
        rows.iter().map(|row| row.name.chars().count()).chain([first.len(), "document level".len()]).max().unwrap_or(0);
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|i| rows.iter().map(|row| row.cells[i].len()).chain([HEADER[i].len()]).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    let mut push_row = |name: &str, cells: &[String]| {
        out.push_str(&format!("{name:<name_width$}"));
        for (cell, width) in cells.iter().zip(&widths) {
            out.push_str(&format!("  {cell:>width$}"));
        }
        out.push('\n');
    };
    push_row(first, &HEADER.map(str::to_string));
    for row in &rows {
        push_row(&row.name, &row.cells);
    }

    let micro = &report.micro;
    let scores = |s: &eval::Scores| format!("precision {:.4}  recall {:.4}  F1 {:.4}", s.precision, s.recall, s.f1);
    let mut input = format!(
        "{}, {}, {} skipped",
        count(truth.files as u64, "truth file"),
        count(detections.files as u64, "detection file"),
        truth.skipped.len() + detections.skipped.len()
    );
    let (duplicates, empty) = (truth.duplicates + detections.duplicates, truth.empty + detections.empty);
    if duplicates + empty > 0 {
        let annotations = if duplicates + empty == 1 { "annotation" } else { "annotations" };
        input.push_str(&format!("; ignored {duplicates} duplicate and {empty} empty {annotations}"));
    }
    let footer = [
        (
            "micro-averaged",
            format!("plagdet {:.4}  recall {:.4}  precision {:.4}", micro.plagdet, micro.recall, micro.precision),
        ),
        ("case level", format!("{}  (threshold {})", scores(&report.case_level), report.thresholds.recall)),
        ("document level", scores(&report.document_level)),
        ("input", input),
    ];
    out.push('\n');
    for (name, text) in footer {
        out.push_str(&format!("{name:<name_width$}  {text}\n"));
    }
    out
}

struct Row {
    name: String,
    cells: [String; 6],
}

impl Row {
    fn new(name: &str, cases: usize, detections: usize, m: &eval::Measures) -> Row {
        let fixed = |x: f64| format!("{x:.4}");
        Row {
            name: name.to_string(),
            cells: [
                cases.to_string(),
                detections.to_string(),
                fixed(m.plagdet),
                fixed(m.recall),
                fixed(m.precision),
                fixed(m.granularity),
            ],
        }
    }
}

/// `--json`: the report, flat, plus what was read.
#[derive(Serialize)]
struct JsonOutput<'a> {
    #[serde(flatten)]
    report: &'a Report,
    /// The measures per pairs file, when several were given.
    #[serde(skip_serializing_if = "<[Subset]>::is_empty")]
    pairs: &'a [Subset],
    input: JsonInput,
}

#[derive(Serialize)]
struct JsonInput {
    truth: JsonSide,
    detections: JsonSide,
}

#[derive(Serialize)]
struct JsonSide {
    /// XML files found.
    files: usize,
    /// Files skipped as malformed.
    skipped: Vec<JsonProblem>,
    /// Problems in files that were read (the warnings on stderr).
    warnings: Vec<JsonProblem>,
    /// Annotations read twice (counted once).
    duplicates: usize,
    /// Annotations of no characters (ignored).
    empty: usize,
    /// Selected features lacking `this_offset` or `this_length`, or some of the
    /// source attributes (ignored; an error in the ground truth).
    without_offsets: usize,
}

#[derive(Serialize)]
struct JsonProblem {
    path: String,
    line: Option<usize>,
    reason: String,
}

impl JsonProblem {
    fn list(problems: &[FileProblem]) -> Vec<JsonProblem> {
        problems
            .iter()
            .map(|p| JsonProblem { path: p.path.display().to_string(), line: p.line, reason: p.reason.clone() })
            .collect()
    }
}

impl<'a> JsonOutput<'a> {
    fn new(report: &'a Report, pairs: &'a [Subset], truth: &Loaded, detections: &Loaded) -> JsonOutput<'a> {
        let side = |loaded: &Loaded| JsonSide {
            files: loaded.files,
            skipped: JsonProblem::list(&loaded.skipped),
            warnings: JsonProblem::list(&loaded.warnings),
            duplicates: loaded.duplicates,
            empty: loaded.empty,
            without_offsets: loaded.without_offsets,
        };
        JsonOutput { report, pairs, input: JsonInput { truth: side(truth), detections: side(detections) } }
    }
}
