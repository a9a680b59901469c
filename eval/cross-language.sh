#!/usr/bin/env bash
# Cross-language detection (issue 67) on a PAN-layout corpus whose suspicious
# documents translate passages of the sources (../shared/corpora/xlang-dev-europarl:
# Spanish and French into English), with the pairs given (when the corpus has a
# `pairs` file) and in full search, preset best, scored by `pan-detect eval`.
#
#   eval/cross-language.sh CORPUS [detect flags...]
#
# Needs the bilingual dictionaries (scripts/install-dictionaries.sh) in
# /usr/share/dictd, or --dictionary DIR among the flags; exits with 2 without them.
#
# Environment: MIN_PLAGDET_PAIRS and MIN_PLAGDET_FULL fail the run (exit 1) when a
# protocol's plagdet is below them.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
setup_corpus_run "$@"
shift
if ! ls /usr/share/dictd/freedict-*.index >/dev/null 2>&1 && [[ " $* " != *" --dictionary "* ]]; then
    echo "eval/cross-language.sh: no dictionary in /usr/share/dictd (scripts/install-dictionaries.sh)" >&2
    exit 2
fi

status=0
for protocol in pairs full; do
    args=()
    floor=${MIN_PLAGDET_FULL:-}
    if [[ $protocol == pairs ]]; then
        [[ -f $corpus/pairs ]] || continue
        args=(--pairs "$corpus/pairs")
        floor=${MIN_PLAGDET_PAIRS:-}
    fi
    out=$tmp/$protocol
    start=$(date +%s.%N)
    "$binary" detect --source-dir "$corpus/source-documents" --suspicious-dir "$corpus/suspicious-documents" \
        "${args[@]}" --out "$out" --quiet "$@"
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    echo "-- $protocol ($wall s)"
    eval_args=(eval --truth "$corpus/suspicious-documents" --detections "$out")
    if [[ -n $floor ]]; then
        eval_args+=(--fail-below "$floor")
    fi
    "$binary" "${eval_args[@]}" || status=$?
done
exit "$status"
