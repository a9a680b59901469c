#!/usr/bin/env bash
# End-to-end speed benchmark of pan-detect.
#
#   eval/bench.sh [detect flags...]     e.g. eval/bench.sh --preset pan09
#
# 1. Builds (or reuses) a corpus of >= TARGET_MB megabytes with a fixed seed using
#    `pan-detect corpus --target-mb`, from ../shared/corpora/dev-en/source-documents
#    when that exists (only the source documents: the dev-en suspicious documents
#    contain plagiarism of them, which would plant unlisted duplicates in both
#    halves of the new corpus), else from corpus-fixtures/texts.
# 2. Reads all its .txt files once (untimed) so that both timed runs start from a
#    warm page cache, then times a trivial pass over the same files (`wc -w`).
# 3. Times the detector on the corpus and prints wall seconds, input MB/s per core
#    and peak RSS for the whole run and for its stages (read sources, build index,
#    match; from the detector's summary line when it prints them), and the ratio
#    of the detector's time to the trivial pass.
#
# Environment: BENCH_DIR (cache, default /tmp/pan-detect-bench), TARGET_MB (500),
# SEED (20240601), BENCH_REBUILD=1 to rebuild the cached corpus, THREADS (passed
# to the detector's --threads when set), BENCH_NO_GNU_TIME=1 to use the fallback
# measurement even where /usr/bin/time exists.
# Needs bash, coreutils and awk; uses /usr/bin/time -v when it exists, otherwise
# measures wall time with `date` and peak RSS by polling /proc.
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/pan-detect-bench}
TARGET_MB=${TARGET_MB:-500}
SEED=${SEED:-20240601}
BIN=target/release/pan-detect
CORES=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
# Per-core figures divide by the cores the detector uses: THREADS when set.
USED_CORES=${THREADS:-$CORES}

if [ -d ../shared/corpora/dev-en/source-documents ]; then
    TEXTS=../shared/corpora/dev-en/source-documents
    TEXTS_NAME=dev-en-sources
else
    TEXTS=corpus-fixtures/texts
    TEXTS_NAME=fixture-texts
fi

echo "== pan-detect benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $CORES cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || uname -m)," \
    "$(awk '/MemTotal/ {printf "%.1f GB RAM", $2 / 1048576}' /proc/meminfo 2>/dev/null || echo '? RAM')"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty tree)')"

cargo build --release --quiet
mkdir -p "$BENCH_DIR"
WORK=$(mktemp -d "$BENCH_DIR/run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

HAVE_GNU_TIME=0
if [ "${BENCH_NO_GNU_TIME:-0}" != 1 ] && [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
    HAVE_GNU_TIME=1
fi

# measure NAME COMMAND...: runs COMMAND with stdout/stderr in $WORK/NAME.out/.err
# and sets WALL (seconds), RSS_KB (peak resident set, KB) and RSS_LOG (a file of
# "seconds-since-start rss-kb" samples of the measured process, for stage peaks).
measure() {
    local name=$1
    shift
    RSS_LOG=$WORK/$name.rss
    : >"$RSS_LOG"
    local start end pid child rss now
    start=$(date +%s.%N)
    if [ "$HAVE_GNU_TIME" = 1 ]; then
        /usr/bin/time -v -o "$WORK/$name.time" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    else
        "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    fi
    pid=$!
    child=$pid
    # Sample the resident set of the measured process (the child of time(1)) every 50 ms.
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$HAVE_GNU_TIME" = 1 ] && [ "$child" = "$pid" ]; then
            child=$( (cat "/proc/$pid/task/$pid/children" 2>/dev/null || true) | awk '{print $1}')
            child=${child:-$pid}
        fi
        rss=$(awk '/^VmRSS/ {print $2}' "/proc/$child/status" 2>/dev/null || true)
        now=$(date +%s.%N)
        [ -n "$rss" ] && echo "$(awk -v a="$now" -v b="$start" 'BEGIN {print a - b}') $rss" >>"$RSS_LOG"
        sleep 0.05
    done
    local status=0
    wait "$pid" || status=$?
    end=$(date +%s.%N)
    if [ "$status" != 0 ]; then
        echo "'$*' failed with status $status:" >&2
        tail -n 20 "$WORK/$name.err" >&2
        exit 1
    fi
    if [ "$HAVE_GNU_TIME" = 1 ]; then
        WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ {
                   n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$WORK/$name.time")
        RSS_KB=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/$name.time")
    else
        WALL=$(awk -v a="$end" -v b="$start" 'BEGIN {printf "%.2f", a - b}')
        RSS_KB=$(awk 'BEGIN {m = 0} $2 > m {m = $2} END {print m}' "$RSS_LOG")
    fi
}

# --- 1. the corpus ---------------------------------------------------------------
CORPUS=$BENCH_DIR/corpus-$TEXTS_NAME-${TARGET_MB}mb-seed$SEED
STAMP=$CORPUS.complete
# The cached corpus is reused only when it was built by the same builder source
# (git tree of src/corpus_builder, committed and unchanged).
BUILDER=$(git rev-parse HEAD:src/corpus_builder 2>/dev/null || echo unknown)
if [ "$BUILDER" = unknown ] || ! git diff --quiet HEAD -- src/corpus_builder 2>/dev/null; then
    BUILDER="uncommitted-$(date +%s)"
fi
if [ "${BENCH_REBUILD:-0}" = 1 ] || [ ! -f "$STAMP" ] || [ "$(head -n 1 "$STAMP")" != "$BUILDER" ]; then
    rm -rf "$CORPUS" "$STAMP"
    measure corpus "$BIN" corpus --texts "$TEXTS" --out "$CORPUS" --seed "$SEED" --target-mb "$TARGET_MB" --quiet
    echo "corpus: built in $WALL s, peak RSS $((RSS_KB / 1024)) MB: $(cat "$WORK/corpus.out")"
    printf '%s\n%s\n' "$BUILDER" "$(date -u '+%Y-%m-%d %H:%M UTC')" >"$STAMP"
else
    echo "corpus: reusing $CORPUS (built $(tail -n 1 "$STAMP"); BENCH_REBUILD=1 rebuilds it)"
fi

SOURCE_BYTES=$(find "$CORPUS/source-documents" -name '*.txt' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
SUSPICIOUS_BYTES=$(find "$CORPUS/suspicious-documents" -name '*.txt' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
TOTAL_BYTES=$((SOURCE_BYTES + SUSPICIOUS_BYTES))
echo "input: $(awk -v s="$SOURCE_BYTES" -v t="$SUSPICIOUS_BYTES" \
    'BEGIN {printf "%.1f MB sources + %.1f MB suspicious = %.1f MB", s / 1e6, t / 1e6, (s + t) / 1e6}')," \
    "$(find "$CORPUS/source-documents" -name '*.txt' | wc -l) + $(find "$CORPUS/suspicious-documents" -name '*.txt' | wc -l) files"

# --- 2. warm the cache, then the trivial pass --------------------------------------
find "$CORPUS/source-documents" "$CORPUS/suspicious-documents" -name '*.txt' -print0 | xargs -0 cat >/dev/null
measure wc sh -c "find '$CORPUS/source-documents' '$CORPUS/suspicious-documents' -name '*.txt' -print0 | xargs -0 cat | wc -w"
WC_WALL=$WALL
WC_RSS=$RSS_KB

# --- 3. the detector ----------------------------------------------------------------
DETECT_ARGS=(--source-dir "$CORPUS/source-documents" --suspicious-dir "$CORPUS/suspicious-documents"
    --out "$WORK/detections" --quiet)
[ -n "${THREADS:-}" ] && DETECT_ARGS+=(--threads "$THREADS")
DETECT_ARGS+=("$@")
measure detect "$BIN" "${DETECT_ARGS[@]}"
DETECT_WALL=$WALL
DETECT_RSS=$RSS_KB
DETECT_RSS_LOG=$RSS_LOG
SUMMARY=$(grep -E 'pan-detect:' "$WORK/detect.err" | tail -n 1 || true)
echo "detector: ${SUMMARY:-$(tail -n 1 "$WORK/detect.err")}"

# stage_seconds LABEL: the seconds the summary line gives for "LABEL N s", or empty.
stage_seconds() {
    echo "$SUMMARY" | grep -oE "$1 [0-9.]+ s" | grep -oE '[0-9.]+' | head -n 1 || true
}
READ_S=$(stage_seconds 'read sources')
INDEX_S=$(stage_seconds 'build index')
MATCH_S=$(stage_seconds 'match')

# peak_between FROM TO: highest RSS sample (MB) between FROM and TO seconds after start.
peak_between() {
    awk -v a="$1" -v b="$2" 'BEGIN {m = 0} $1 >= a && $1 <= b && $2 > m {m = $2}
        END {if (m > 0) printf "%.0f", m / 1024; else print "-"}' "$DETECT_RSS_LOG"
}

# row LABEL SECONDS BYTES RSS_MB
row() {
    awk -v l="$1" -v s="$2" -v b="$3" -v r="$4" -v c="$USED_CORES" 'BEGIN {
        if (s == "" || s + 0 == 0) { printf "  %-26s %9s %12s %12s\n", l, (s == "" ? "-" : s), "-", r; exit }
        printf "  %-26s %9.2f %12.1f %12s\n", l, s, b / 1e6 / s / c, r }'
}

echo
echo "                              wall s   MB/s/core  peak RSS MB"
row "wc -w (trivial pass)" "$WC_WALL" "$TOTAL_BYTES" "$((WC_RSS / 1024))"
row "pan-detect total" "$DETECT_WALL" "$TOTAL_BYTES" "$((DETECT_RSS / 1024))"
if [ -n "$READ_S" ] && [ -n "$INDEX_S" ] && [ -n "$MATCH_S" ]; then
    # Stage windows are placed end to end from the start of the process; the
    # process start-up before "read sources" makes them approximate.
    INDEX_END=$(awk -v a="$READ_S" -v b="$INDEX_S" 'BEGIN {print a + b}')
    MATCH_END=$(awk -v a="$INDEX_END" -v b="$MATCH_S" 'BEGIN {print a + b + 1}')
    row "  read sources (sources)" "$READ_S" "$SOURCE_BYTES" "$(peak_between 0 "$READ_S")"
    row "  build index (sources)" "$INDEX_S" "$SOURCE_BYTES" "$(peak_between "$READ_S" "$INDEX_END")"
    row "  match (suspicious)" "$MATCH_S" "$SUSPICIOUS_BYTES" "$(peak_between "$INDEX_END" "$MATCH_END")"
else
    echo "  (the detector printed no per-stage timings)"
fi
echo
awk -v d="$DETECT_WALL" -v w="$WC_WALL" 'BEGIN {
    if (w + 0 > 0) printf "pan-detect takes %.1f times as long as wc -w over the same files\n", d / w }'
echo "MB/s/core = bytes the stage reads (10^6) / wall seconds / $USED_CORES cores used; peak RSS per stage is sampled every 50 ms."
