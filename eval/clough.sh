#!/usr/bin/env bash
# Clough & Stevenson's corpus of plagiarised short answers, scored at document
# level as its README describes: each answer is aligned with its task's
# Wikipedia article (`detect --pairs`), its score is the share of its
# characters inside detected passages, and the table gives how well that
# score separates plagiarised answers (cut, light, heavy) from the others:
# ROC AUC overall and per category, and the accuracy at the best threshold.
#
#   eval/clough.sh [CORPUS] [detect flags...]
#
# CORPUS defaults to ../shared/corpora/clough-answers beside the project (the
# answers gNpX_taskY.txt, the articles orig_taskY.txt, file_information.csv).
# Both presets are run; extra arguments go to every `pan-detect detect` run.
#
# Then the archive's view of the same data: the articles are indexed with
# `index create --preset PRESET`, every answer is checked against the index
# (`check --format json`, full search: no pairs given), and the table gives
# the AUC of both similarities `check` reports for the answer's article: the
# share of the answer's distinct chunks in it, and the share of its
# characters in aligned passages.
#
# Environment:
#   PRESETS          presets to run (default: "best pan09")
#   MIN_AUC_BEST     exit with status 1 when best's overall AUC is below this
#   MIN_CHECK_AUC_BEST  the same for `check`'s aligned similarity with a best index
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-$root/../shared/corpora/clough-answers}
[[ $# -gt 0 ]] && shift
if [[ $corpus == -h || $corpus == --help ]]; then
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
    exit 0
fi
if [[ ! -f $corpus/file_information.csv ]]; then
    echo "eval/clough.sh: $corpus/file_information.csv: no such file (expected the clough-answers corpus)" >&2
    exit 2
fi
source "$root/eval/common.sh"
build_release
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pan-detect-clough.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

# The PAN layout: articles as sources, answers as suspicious documents, and a
# pairs file joining each answer to its task's article.
mkdir -p "$tmp/src" "$tmp/susp"
cp "$corpus"/orig_task?.txt "$tmp/src/"
tail -n +2 "$corpus/file_information.csv" | tr -d '\r' | while IFS=, read -r file task category; do
    [[ $category == orig ]] && continue
    cp "$corpus/$file" "$tmp/susp/"
    echo "$file orig_task$task.txt"
done >"$tmp/pairs"

status=0
for preset in ${PRESETS:-best pan09}; do
    out=$tmp/out-$preset
    "$binary" --source-dir "$tmp/src" --suspicious-dir "$tmp/susp" --out "$out" --pairs "$tmp/pairs" \
        --preset "$preset" --quiet "$@" 2>/dev/null
    floor_var=MIN_AUC_${preset^^}
    python3 - "$corpus" "$tmp/susp" "$out" "$preset" "${!floor_var:-0}" <<'PY' || status=1
import csv, re, sys
from pathlib import Path

corpus, answers, reports, preset, floor = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], float(sys.argv[5])
rows = [r for r in csv.DictReader(open(corpus / "file_information.csv", newline="")) if r["Category"] != "orig"]

def share(name):
    """Share of the answer's characters (decoded as pan-detect decodes) in detected passages."""
    text = (answers / name).read_bytes().decode("utf-8", errors="replace")
    covered = set()
    report = (reports / name.replace(".txt", ".xml")).read_text()
    for feature in re.finditer(r"<feature ([^>]*)>", report):
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', feature[1]))
        start = int(attrs["this_offset"])
        covered.update(range(start, start + int(attrs["this_length"])))
    return len(covered) / max(len(text), 1)

def auc(positive, negative):
    """Probability that a positive outscores a negative (ties count half)."""
    pairs = [(p > n) + 0.5 * (p == n) for p in positive for n in negative]
    return sum(pairs) / len(pairs) if pairs else float("nan")

def best_accuracy(positive, negative):
    scores = sorted(set(positive + negative))
    total = len(positive) + len(negative)
    return max((sum(p >= t for p in positive) + sum(n < t for n in negative)) / total for t in scores + [2.0])

score = {row["File"]: share(row["File"]) for row in rows}
by = lambda category: [score[r["File"]] for r in rows if r["Category"] == category]
non = by("non")
plagiarised = [score[r["File"]] for r in rows if r["Category"] != "non"]
print(f"== {preset}")
print(f"{'answers':<12} {'n':>3}  {'AUC vs non':>10}  {'mean share':>10}")
print(f"{'plagiarised':<12} {len(plagiarised):>3}  {auc(plagiarised, non):>10.4f}  {sum(plagiarised) / len(plagiarised):>10.4f}")
for category in ["cut", "light", "heavy"]:
    values = by(category)
    print(f"{category:<12} {len(values):>3}  {auc(values, non):>10.4f}  {sum(values) / len(values):>10.4f}")
print(f"{'non':<12} {len(non):>3}  {'':>10}  {sum(non) / len(non):>10.4f}")
print(f"accuracy at the best threshold: {best_accuracy(plagiarised, non):.4f}\n")
if auc(plagiarised, non) < floor:
    print(f"eval/clough.sh: {preset}: AUC {auc(plagiarised, non):.4f} is below {floor}", file=sys.stderr)
    sys.exit(1)
PY
done

for preset in ${PRESETS:-best pan09}; do
    "$binary" index create --docs "$tmp/src" --index "$tmp/index-$preset" --preset "$preset" \
        --quiet 2>/dev/null
    "$binary" check --index "$tmp/index-$preset" --format json "$tmp"/susp/*.txt \
        >"$tmp/check-$preset.json"
    floor_var=MIN_CHECK_AUC_${preset^^}
    python3 - "$corpus" "$tmp/check-$preset.json" "$preset" "${!floor_var:-0}" <<'PY' || status=1
import csv, json, sys
from pathlib import Path

corpus, checked, preset, floor = Path(sys.argv[1]), json.load(open(sys.argv[2])), sys.argv[3], float(sys.argv[4])
rows = [r for r in csv.DictReader(open(corpus / "file_information.csv", newline="")) if r["Category"] != "orig"]
by_file = {d["name"]: d for d in checked["documents"]}

def similarity(row, field):
    """The answer's similarity to its task's article, as check reports it (0 when not listed)."""
    article = f"orig_task{row['Task']}.txt"
    found = [s for s in by_file[row["File"]]["sources"] if s["name"] == article]
    return found[0][field] if found else 0.0

def auc(positive, negative):
    pairs = [(p > n) + 0.5 * (p == n) for p in positive for n in negative]
    return sum(pairs) / len(pairs) if pairs else float("nan")

print(f"== check, index of preset {preset}: AUC vs non of each similarity")
print(f"{'answers':<12} {'n':>3}  {'chunks':>8}  {'aligned':>8}")
aucs = {}
for category in ["plagiarised", "cut", "light", "heavy"]:
    chosen = [r for r in rows if (r["Category"] != "non" if category == "plagiarised" else r["Category"] == category)]
    line = f"{category:<12} {len(chosen):>3}"
    for field in ["document_in_source_percent", "document_aligned_percent"]:
        positive = [similarity(r, field) for r in chosen]
        negative = [similarity(r, field) for r in rows if r["Category"] == "non"]
        aucs[(category, field)] = auc(positive, negative)
        line += f"  {aucs[(category, field)]:>8.4f}"
    print(line)
print()
if aucs[("plagiarised", "document_aligned_percent")] < floor:
    print(f"eval/clough.sh: check {preset}: aligned AUC {aucs[('plagiarised', 'document_aligned_percent')]:.4f} is below {floor}",
          file=sys.stderr)
    sys.exit(1)
PY
done
exit "$status"
