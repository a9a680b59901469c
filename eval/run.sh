#!/usr/bin/env bash
# Runs the release build of pan-detect on a PAN-layout corpus and prints one table:
# plagdet, recall, precision and granularity overall and per obfuscation class, then
# wall time, input size, throughput and peak memory of the detection run.
#
#   eval/run.sh CORPUS [detect flags...]
#
# CORPUS holds source-documents/ and suspicious-documents/, the ground truth as PAN
# XML beside the suspicious texts (PAN-PC-09/10/11 layout). Extra arguments go to
# `pan-detect detect`, e.g. `eval/run.sh corpus --chunk-words 4 --threads 2`.
#
# Environment:
#   MIN_PLAGDET   exit with status 1 when the overall plagdet is below this value
#                 (passed to `pan-detect eval --fail-below`).
#
# MB are 10^6 bytes. Peak RSS comes from GNU time (`/usr/bin/time -v`); without
# it only wall time is measured. Detections go to a temporary directory that is
# removed on exit.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
setup_corpus_run "$@"
shift
out=$tmp/detections
detect=("$binary" --source-dir "$corpus/source-documents" --suspicious-dir "$corpus/suspicious-documents"
    --out "$out" --quiet "$@")

# Detection, timed. Its own summary line goes to stderr as usual.
if [[ -x /usr/bin/time ]] && /usr/bin/time -v true >/dev/null 2>&1; then
    /usr/bin/time -v -o "$tmp/time" "${detect[@]}"
    # "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:03.21" -> seconds.
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, part, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + part[i]; print s }' "$tmp/time")
    rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
    rss=$(awk -v kb="$rss_kb" 'BEGIN { printf "%.1f MB", kb * 1024 / 1e6 }')  # MB = 10^6 bytes, as above
else
    start=$(date +%s.%N)
    "${detect[@]}"
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    rss="n/a (no GNU time)"
fi

# Evaluation against the truth beside the suspicious documents.
eval_args=(eval --truth "$corpus/suspicious-documents" --detections "$out" --by obfuscation)
if [[ -n ${MIN_PLAGDET:-} ]]; then
    eval_args+=(--fail-below "$MIN_PLAGDET")
fi
status=0
"$binary" "${eval_args[@]}" || status=$?

bytes=$(find "$corpus/source-documents" "$corpus/suspicious-documents" -maxdepth 1 -name '*.txt' -type f -printf '%s\n' |
    awk '{ s += $1 } END { print s + 0 }')
# Cores the detector may use: all, unless the flags say --threads N.
cores=$(nproc)
args=("$@")
for i in "${!args[@]}"; do
    case ${args[i]} in
        --threads) cores=${args[i + 1]:-$cores} ;;
        --threads=*) cores=${args[i]#--threads=} ;;
    esac
done
awk -v wall="$wall" -v bytes="$bytes" -v cores="$cores" -v rss="$rss" 'BEGIN {
    mb = bytes / 1e6
    rate = wall > 0 ? mb / wall / cores : 0
    printf "\ndetection       %.2f s wall, %.1f MB input, %.2f MB/s per core (%d %s), peak RSS %s\n", wall, mb, rate, cores, cores == 1 ? "core" : "cores", rss
}'
echo "flags           ${*:-(defaults)}"
exit "$status"
