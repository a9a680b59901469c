#!/usr/bin/env bash
# PAN's 2013 text-alignment training corpus, scored as PAN scored it: both
# presets, first with the pairs given (PAN's protocol: `detect --pairs`, one
# report per pair), then with full search (no pairs: every source against every
# suspicious document). Each run prints one row per sub-corpus (its pairs file)
# and `all` over every listed pair.
#
#   eval/pan13.sh [CORPUS] [detect flags...]
#
# CORPUS defaults to ../shared/corpora/pan13-ta-train beside the project; it
# holds source-documents/, suspicious-documents/ (texts and truth) and the
# pairs-0N-* files. Extra arguments go to every `pan-detect detect` run.
#
# Environment:
#   PRESETS            presets to run (default: "best pan09")
#   MODES              "pairs", "full" or both (default: "pairs full")
#   MIN_PLAGDET_BEST   exit with status 1 when best's overall plagdet with the
#                      pairs given is below this value (likewise MIN_PLAGDET_PAN09)
#   MIN_FULL_PLAGDET_BEST
#                      the same for full search (likewise MIN_FULL_PLAGDET_PAN09)
#
# With both modes, a last line per preset gives how far full search is below
# the pairs given, unrounded (issue 10 asks best to stay within 0.02).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-$root/../shared/corpora/pan13-ta-train}
[[ $# -gt 0 ]] && shift
if [[ $corpus == -h || $corpus == --help ]]; then
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
    exit 0
fi
source "$root/eval/common.sh"
setup_corpus_run "$corpus"

pairs_args=()
for file in "$corpus"/pairs-0*; do
    pairs_args+=(--pairs "$file")
done
if [[ ${#pairs_args[@]} -eq 0 ]]; then
    echo "eval/pan13.sh: $corpus: no pairs-0* files (expected PAN's text-alignment layout)" >&2
    exit 2
fi

status=0
declare -A plagdet
for preset in ${PRESETS:-best pan09}; do
    plagdet=()
    for mode in ${MODES:-pairs full}; do
        out=$tmp/$preset-$mode
        detect=("$binary" --source-dir "$corpus/source-documents" --suspicious-dir "$corpus/suspicious-documents"
            --out "$out" --preset "$preset" --quiet)
        if [[ $mode == pairs ]]; then
            detect+=(--pairs "$corpus/pairs" --layout per-pair)
            title="pairs given"
        else
            title="full search"
        fi
        echo "== $preset, $title"
        start=$(date +%s.%N)
        "${detect[@]}" "$@"
        wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        eval_args=(eval --truth "$corpus/suspicious-documents" --detections "$out" "${pairs_args[@]}")
        if [[ $mode == pairs ]]; then
            floor_var=MIN_PLAGDET_${preset^^}
        else
            floor_var=MIN_FULL_PLAGDET_${preset^^}
        fi
        if [[ -n ${!floor_var:-} ]]; then
            eval_args+=(--fail-below "${!floor_var}")
        fi
        "$binary" "${eval_args[@]}" || status=$?
        plagdet[$mode]=$("$binary" eval --truth "$corpus/suspicious-documents" --detections "$out" "${pairs_args[@]}" --json |
            sed -n 's/^  "plagdet": \([0-9.e-]*\),$/\1/p')
        echo "detection: $wall s wall"
        echo
    done
    if [[ -n ${plagdet[pairs]:-} && -n ${plagdet[full]:-} ]]; then
        awk -v p="$preset" -v g="${plagdet[pairs]}" -v f="${plagdet[full]}" \
            'BEGIN { printf "== %s: full search %.5f, pairs given %.5f: %.5f below\n\n", p, f, g, g - f }'
    fi
done
exit "$status"
