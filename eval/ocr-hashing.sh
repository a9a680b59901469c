#!/usr/bin/env bash
# Noise-robust chunks (issue 15): recall at equal precision of contiguous and
# interleaved chunks (`--hashing`) on a corpus of OCR-noised cases, per noise
# level.
#
#   eval/ocr-hashing.sh [CORPUS]
#
# Without CORPUS it builds one with `pan-detect corpus --obfuscation ocr` (seed
# SEED, documents of 3k..100k characters) from TEXTS: by default the texts of
# eval/independent-corpus.sh (Austen, Melville, the Debian handbook; that script
# fetches them on its first run) when they are there, else the bundled
# corpus-fixtures/texts (20 source and 20 suspicious documents, a small corpus).
# Its cases are verbatim (none, 20 %) or OCR-noised: confusable letters (rn/m,
# l/1, O/0, ...), broken and merged words and lost punctuation on 10-20 % of
# the words (low, 40 %) or 30-50 % (high, 40 %).
#
# 1. A sweep of the paper's method (`--preset pan09`), the only stage there
#    being chunks: for both hashings, chunk words K in 3..5 and the valid
#    interval's least chunks M (with --min-common M) in 5..40; one line per run
#    with recall and precision per noise level.
# 2. Recall at equal precision: for each least overall precision (fixed values,
#    then the precision of the `pan09` and `best` presets), the run of each
#    hashing with the highest overall recall among those reaching it, with its
#    recall per noise level ("-" when no run reaches it); then the `pan09` and
#    `best` presets as they are and `best` with interleaved candidate chunks.
#    Precision is the run's, over all cases: per noise level it is near 1
#    whatever the run, since false detections lie outside the cases.
#
# Environment:
#   TEXTS  directory of .txt texts for the corpus (see above)
#   SEED   corpus seed (default 2026)
#   KEEP=1 keep the corpus and the table in the temporary directory (printed)
# About two minutes on 2 cores for the independent texts.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
build_release
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pan-detect-ocr-hashing.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
    echo "keeping $tmp"
else
    trap 'rm -rf -- "$tmp"' EXIT
fi
SEED=${SEED:-2026}

if [[ $# -ge 1 ]]; then
    corpus=$1
else
    corpus=$tmp/corpus
    independent=${INDEPENDENT_DIR:-/tmp/pan-detect-independent}/texts
    texts=${TEXTS:-}
    size=()
    if [[ -z $texts && -d $independent ]]; then
        texts=$independent
    elif [[ -z $texts ]]; then
        texts=$root/corpus-fixtures/texts
        size=(--sources 20 --suspicious 20)
    fi
    "$binary" corpus --texts "$texts" --out "$corpus" --seed "$SEED" --doc-chars 3k..100k \
        --obfuscation ocr --quiet "${size[@]}"
fi

# run LABEL FLAGS...: one detection and its scores, appended to $tmp/runs as
# "LABEL class recall precision" lines.
run() {
    local label=$1
    shift
    rm -rf "$tmp/out"
    "$binary" detect --source-dir "$corpus/source-documents" --suspicious-dir "$corpus/suspicious-documents" \
        --out "$tmp/out" --quiet "$@" 2>/dev/null
    "$binary" eval --truth "$corpus/suspicious-documents" --detections "$tmp/out" --by obfuscation |
        awk -v label="$label" '$1 ~ /^(all|none|low|high)$/ && NF == 7 { print label, $1, $5, $6 }' >>"$tmp/runs"
}

: >"$tmp/runs"
for hashing in contiguous interleaved; do
    for words in 3 4 5; do
        for least in 5 6 8 10 12 15 18 20 25 30 35 40; do
            run "pan09:$hashing:k$words:m$least" --preset pan09 --hashing "$hashing" --chunk-words "$words" \
                --min-chunks "$least" --min-common "$least"
        done
    done
done
run "preset:pan09" --preset pan09
run "preset:best" --preset best
run "preset:best-interleaved" --preset best --hashing interleaved

echo "1. sweep of pan09 (recall/precision per noise level)"
awk '$1 ~ /^pan09:/ {
        if ($1 != last) { if (last != "") print line; line = sprintf("%-28s", $1); last = $1 }
        line = line sprintf("  %-4s %.4f/%.4f", $2, $3, $4)
    } END { print line }' "$tmp/runs"
echo
echo "2. recall per noise level at equal precision: for each least overall precision"
echo "   (fixed ones, then those of the presets), the run of each hashing with the highest"
echo "   overall recall among the sweep's runs that reach it"
awk '
    { split($1, part, ":"); r[$1, $2] = $3; p[$1, $2] = $4; if (!($1 in seen)) { seen[$1] = 1; runs[++nruns] = $1 } }
    function cells(run,    c, line) {
        line = sprintf("P %.4f", p[run, "all"])
        for (c = 1; c <= 4; c++) line = line sprintf("  %-4s %.4f", classes[c], r[run, classes[c]])
        return line
    }
    END {
        split("all none low high", classes, " ")
        ntargets = split("0.97 0.98 0.985 0.99 0.995 0.999", target, " ")
        target[++ntargets] = p["preset:pan09", "all"]; name[ntargets] = " (pan09\047s)"
        target[++ntargets] = p["preset:best", "all"]; name[ntargets] = " (best\047s)"
        for (i = 1; i <= ntargets; i++) {
            printf "P >= %.4f%s\n", target[i], name[i]
            split("contiguous interleaved", hashings, " ")
            for (h = 1; h <= 2; h++) {
                chosen = ""
                for (n = 1; n <= nruns; n++) {
                    split(runs[n], part, ":")
                    if (part[1] != "pan09" || part[2] != hashings[h] || p[runs[n], "all"] < target[i]) continue
                    if (chosen == "" || r[runs[n], "all"] > r[chosen, "all"]) chosen = runs[n]
                }
                if (chosen == "") printf "  %-12s -\n", hashings[h]
                else { split(chosen, part, ":"); printf "  %-12s %-8s %s\n", hashings[h], part[3] ":" part[4], cells(chosen) }
            }
        }
        print ""
        print "presets as they are:"
        split("pan09 best best-interleaved", names, " ")
        for (n = 1; n <= 3; n++) printf "  %-18s %s\n", names[n], cells("preset:" names[n])
    }' "$tmp/runs"
