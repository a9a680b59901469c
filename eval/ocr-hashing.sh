#!/usr/bin/env bash
# Noise-robust chunks (issue 15): recall at equal precision of contiguous and
# interleaved chunks (`--hashing`) on corpora of OCR-noised cases, per noise
# level and per corpus seed, with `--tokenizer chars:8` beside them.
#
#   eval/ocr-hashing.sh [CORPUS...]
#
# Without CORPUS it builds one corpus per seed of SEEDS with `pan-detect corpus
# --obfuscation ocr` (documents of 3k..100k characters) from TEXTS: by default
# the texts of eval/independent-corpus.sh (Austen, Melville, the Debian
# handbook; that script fetches them on its first run) when they are there,
# else the bundled corpus-fixtures/texts (20 source and 20 suspicious
# documents, a small corpus). Its cases are verbatim (none, 20 %) or
# OCR-noised: confusable letters (rn/m, l/1, O/0, ...), broken and merged words
# and lost punctuation on 10-20 % of the words (low, 40 %) or 30-50 % (high,
# 40 %). With the independent texts a corpus has about 130 source and 130
# suspicious documents and 520 cases; with TEXTS="/tmp/pan-detect-independent/texts
# ../shared/corpora/dev-en/source-documents" twice that.
#
# On every corpus:
# - a sweep of the paper's method (`--preset pan09`, whose only stage is
#   chunks): for both hashings, chunk words K in 3..5, the valid interval's
#   least chunks M (with --min-common M) in 5..40 and its largest gap G
#   (--max-gap) in GAPS: the gap is swept too, since the paper's 49 lets
#   chance matches of short, common chunks stretch a passage past the case's
#   ends, which is most of the precision lost by contiguous chunks of 3 words;
# - for reference, `--preset pan09 --tokenizer chars:8 --chunk-words 5`
#   (sorted 8-letter tokens, 5 to a chunk: every 12 consecutive letters,
#   spaces and punctuation ignored) with M in 60..300;
# - the `pan09` and `best` presets as they are, and `best --hashing interleaved`.
# Then:
# 1. per corpus, for each least overall precision (fixed values, then those of
#    the `pan09` and `best` presets on that corpus): the run of each family
#    (contiguous, interleaved, chars:8) with the highest overall recall among
#    those reaching it, and its recall per noise level, with interleaved's
#    margin over contiguous ("-" when no run reaches it);
# 2. over all corpora, one setting per family and least precision: among the
#    settings that reach the precision on every corpus, the one with the
#    highest mean overall recall; its mean recall per noise level, the lowest
#    and highest overall and high-noise recall over the corpora, and
#    interleaved's margin on each corpus;
# 3. the presets per corpus.
# Precision is the run's, over all cases: per noise level it is near 1
# whatever the run, since false detections lie outside the cases.
#
# Environment:
#   TEXTS        directories of .txt texts for the corpora, space-separated (see above)
#   SEEDS        corpus seeds (default "2026 2027 2028")
#   GAPS         --max-gap values of the sweep (default "20 49")
#   DETECT_FLAGS more flags for every detection (e.g. --min-word-len 1 for the
#                corpora of eval/ocr-resegment.py)
#   KEEP=1       keep the corpora and the runs in the temporary directory (printed)
# About 3.5 minutes on 2 cores for three corpora of the independent texts, 8
# with dev-en's source documents added.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
require_tools python3
build_release
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pan-detect-ocr-hashing.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
    echo "keeping $tmp"
else
    trap 'rm -rf -- "$tmp"' EXIT
fi
read -r -a seeds <<<"${SEEDS:-2026 2027 2028}"
read -r -a gaps <<<"${GAPS:-20 49}"
read -r -a detect_flags <<<"${DETECT_FLAGS:-}"

# names[i] and corpora[i]: a short name (no spaces) and the corpus's directory.
names=()
corpora=()
if [[ $# -ge 1 ]]; then
    for corpus in "$@"; do
        names+=("$(basename "$corpus")")
        corpora+=("$corpus")
    done
else
    independent=${INDEPENDENT_DIR:-/tmp/pan-detect-independent}/texts
    read -r -a texts <<<"${TEXTS:-}"
    size=()
    if [[ ${#texts[@]} -eq 0 && -d $independent ]]; then
        texts=("$independent")
    elif [[ ${#texts[@]} -eq 0 ]]; then
        texts=("$root/corpus-fixtures/texts")
        size=(--sources 20 --suspicious 20)
    fi
    for seed in "${seeds[@]}"; do
        "$binary" corpus --texts "${texts[@]}" --out "$tmp/corpus-$seed" --seed "$seed" --doc-chars 3k..100k \
            --obfuscation ocr --quiet "${size[@]}"
        names+=("seed$seed")
        corpora+=("$tmp/corpus-$seed")
    done
fi

# run NAME CORPUS LABEL FLAGS...: one detection and its scores, appended to
# $tmp/runs as "NAME LABEL class recall precision" lines.
run() {
    local name=$1 corpus=$2 label=$3
    shift 3
    rm -rf "$tmp/out"
    "$binary" detect --source-dir "$corpus/source-documents" --suspicious-dir "$corpus/suspicious-documents" \
        --out "$tmp/out" --quiet "$@" "${detect_flags[@]}" 2>/dev/null
    "$binary" eval --truth "$corpus/suspicious-documents" --detections "$tmp/out" --by obfuscation |
        awk -v name="$name" -v label="$label" '$1 ~ /^(all|none|low|high)$/ && NF == 7 { print name, label, $1, $5, $6 }' \
            >>"$tmp/runs"
}

: >"$tmp/runs"
for i in "${!corpora[@]}"; do
    name=${names[i]} corpus=${corpora[i]}
    for hashing in contiguous interleaved; do
        for words in 3 4 5; do
            for gap in "${gaps[@]}"; do
                for least in 5 6 8 10 12 15 20 25 30 40; do
                    run "$name" "$corpus" "$hashing:k$words:m$least:g$gap" --preset pan09 --hashing "$hashing" \
                        --chunk-words "$words" --min-chunks "$least" --min-common "$least" --max-gap "$gap"
                done
            done
        done
    done
    for least in 60 90 120 160 200 300; do
        run "$name" "$corpus" "chars:8:k5:m$least:g49" --preset pan09 --tokenizer chars:8 --chunk-words 5 \
            --min-chunks "$least" --min-common "$least"
    done
    run "$name" "$corpus" "preset:pan09" --preset pan09
    run "$name" "$corpus" "preset:best" --preset best
    run "$name" "$corpus" "preset:best-interleaved" --preset best --hashing interleaved
done

python3 - "$tmp/runs" "${names[@]}" <<'EOF'
import sys
from collections import defaultdict

runs_file, names = sys.argv[1], sys.argv[2:]
recall, precision = {}, {}
settings = defaultdict(set)  # family -> settings
for line in open(runs_file):
    name, label, cls, r, p = line.split()
    recall[name, label, cls], precision[name, label, cls] = float(r), float(p)
    if not label.startswith("preset:"):
        family, setting = label.rsplit(":", 3)[0], ":".join(label.rsplit(":", 3)[1:])
        settings[family].add(setting)
families = ["contiguous", "interleaved", "chars:8"]
classes = ["all", "none", "low", "high"]
fixed = [0.97, 0.98, 0.985, 0.99, 0.995, 0.999]

def targets(name):
    """(title, least precision) on corpus `name`: fixed, then the presets'."""
    out = [(f"{t}", t) for t in fixed]
    out.append(("pan09's", precision[name, "preset:pan09", "all"]))
    out.append(("best's", precision[name, "preset:best", "all"]))
    return out

def best_run(name, family, least):
    chosen = None
    for setting in settings[family]:
        label = f"{family}:{setting}"
        if precision.get((name, label, "all"), -1) >= least and (
            chosen is None or recall[name, label, "all"] > recall[name, chosen, "all"]
        ):
            chosen = label
    return chosen

def cells(name, label):
    return f"P {precision[name, label, 'all']:.4f}  " + "  ".join(
        f"{c} {recall[name, label, c]:.4f}" for c in classes
    )

print("1. per corpus: recall per noise level of the best run of each family reaching a least")
print("   overall precision (K words, M least chunks, G largest gap); margin = interleaved - contiguous")
for name in names:
    print(f"== {name}")
    for title, least in targets(name):
        print(f"P >= {least:.4f}" + ("" if title[0].isdigit() else f" ({title})"))
        chosen = {family: best_run(name, family, least) for family in families}
        for family in families:
            label = chosen[family]
            if label is None:
                print(f"  {family:12} -")
            else:
                print(f"  {family:12} {label[len(family) + 1:]:14} {cells(name, label)}")
        if chosen["contiguous"] and chosen["interleaved"]:
            margin = "  ".join(
                f"{c} {recall[name, chosen['interleaved'], c] - recall[name, chosen['contiguous'], c]:+.4f}"
                for c in classes
            )
            print(f"  {'margin':12} {'':14} {'':8}  {margin}")

print()
print("2. over all corpora: per family and least precision, the one setting reaching it on every")
print("   corpus with the highest mean overall recall: mean recall per noise level, [lowest, highest]")
print("   overall and high-noise recall, and interleaved's margin over contiguous on each corpus")
titles = [title for title, _ in targets(names[0])]
for index, title in enumerate(titles):
    least = {name: targets(name)[index][1] for name in names}
    heading = f"{least[names[0]]:.4f}" if title[0].isdigit() else f"{title} ({', '.join(f'{least[n]:.4f}' for n in names)})"
    print(f"P >= {heading}")
    chosen = {}
    for family in families:
        best = None
        for setting in settings[family]:
            label = f"{family}:{setting}"
            if all(precision.get((n, label, "all"), -1) >= least[n] for n in names):
                mean = sum(recall[n, label, "all"] for n in names) / len(names)
                if best is None or mean > best[0]:
                    best = (mean, label)
        chosen[family] = best and best[1]
        if best is None:
            print(f"  {family:12} -")
            continue
        label = best[1]
        mean = {c: sum(recall[n, label, c] for n in names) / len(names) for c in classes}
        low_p = min(precision[n, label, "all"] for n in names)
        spread = lambda c: f"[{min(recall[n, label, c] for n in names):.4f}, {max(recall[n, label, c] for n in names):.4f}]"
        print(
            f"  {family:12} {label[len(family) + 1:]:14} P>={low_p:.4f}  "
            + "  ".join(f"{c} {mean[c]:.4f}" for c in classes)
            + f"  all {spread('all')} high {spread('high')}"
        )
    if chosen["contiguous"] and chosen["interleaved"]:
        margins = "  ".join(
            f"{n} {recall[n, chosen['interleaved'], 'all'] - recall[n, chosen['contiguous'], 'all']:+.4f}"
            f"/{recall[n, chosen['interleaved'], 'high'] - recall[n, chosen['contiguous'], 'high']:+.4f}"
            for n in names
        )
        print(f"  {'margin':12} all/high: {margins}")

print()
print("3. the presets as they are")
for name in names:
    print(f"== {name}")
    for preset in ["pan09", "best", "best-interleaved"]:
        print(f"  {preset:18} {cells(name, 'preset:' + preset)}")
EOF
