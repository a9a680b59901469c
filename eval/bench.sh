#!/usr/bin/env bash
# End-to-end speed benchmark of pan-detect: the table of issue 11's targets.
#
#   eval/bench.sh [detect flags...]     e.g. THREADS=2 eval/bench.sh --no-digits
#
# Extra flags go to every detector run (both presets; so not --preset, and only
# flags both presets take unless BENCH_ONLY keeps one preset).
#
# 1. Builds (or reuses) four corpora with one seed, by `pan-detect corpus --target-mb`,
#    from ../shared/corpora/dev-en/source-documents when that exists (only the source
#    documents: the dev-en suspicious documents contain plagiarism of them, which
#    would plant unlisted duplicates in both halves of the new corpus), else from
#    corpus-fixtures/texts: the usual corpus (documents share text only through the
#    cases) and a reuse-heavy one (`--reuse-pool REUSE_POOL`: every document drawn
#    from one pool of input sentences, so any two documents share a few), each at
#    TARGET_MB and at SMALL_MB megabytes.
# 2. Per corpus: reads all its .txt files once (untimed) so that every timed run
#    starts from a warm page cache, then times `wc -w` over the same files, the floor (`examples/floor.rs`: reading,
#    decoding and tokenizing only, as detect does),
#    `--preset pan09` and `--preset best`, RUNS times each, and prints the median
#    wall time, input MB/s per core, peak RSS (the highest of the runs) and, for the
#    median run, its stages (read sources, build index, match; from the detector's
#    summary line). A run that takes longer than BENCH_TIMEOUT seconds is killed and
#    shown as "> LIMIT"; the configuration's other runs are then skipped.
#    Then one long document: the suspicious documents of the small usual corpus
#    written one after another, again and again, into a single file of SINGLE_MB
#    megabytes, checked against that corpus's sources (whose text it copies in
#    places): both presets' time and peak RSS, and peak RSS / the document's size
#    (issue 11: at most 4×).
# 3. Scores the first run of each preset against the corpus's truth with
#    `pan-detect eval` (plagdet, recall, precision), so that a faster stage cannot
#    silently lose cases.
# 4. Prints the summary in the shape of issue 11's targets, as Markdown tables to
#    paste into the README: one row per corpus and run with the ratios pan09/wc,
#    best/wc, best/pan09 and peak RSS / source text, and the accuracy; then the
#    growth time(TARGET_MB) / time(SMALL_MB) per corpus and run (linear is
#    TARGET_MB / SMALL_MB; the target is within 20 % of it).
#
# Environment:
#   BENCH_DIR      corpus cache and scratch space (default /tmp/pan-detect-bench)
#   TARGET_MB      size of the large corpora (500)
#   SMALL_MB       size of the small corpora for the growth step (TARGET_MB / 10);
#                  0 skips them
#   SEED           seed of every corpus (20240601)
#   REUSE_POOL     sentences in the reuse-heavy corpora's pool (50000)
#   SINGLE_MB      size of the single long document (200); 0 skips it
#   RUNS           timed runs per configuration; the median is shown (3)
#   BENCH_TIMEOUT  seconds after which a run is killed and shown as "> LIMIT" (1200)
#   BENCH_REBUILD  1 rebuilds the cached corpora
#   BENCH_ONLY     a subset, as words separated by spaces or commas: corpus kinds
#                  `usual` `reuse` `single`, sizes `large` `small`, presets `pan09` `best`; a
#                  kind of word not given means all of that kind (BENCH_ONLY=reuse,small:
#                  the small reuse-heavy corpus, both presets). `wc -w` always runs.
#   THREADS        passed to the detector's --threads; per-core figures divide by it
#   BENCH_NO_GNU_TIME=1  use the fallback measurement even where /usr/bin/time exists
#
# Quiet disk: each detector run writes a report per suspicious document. On an ext4
# without a journal (as on the development VM, see /proc/fs/jbd2) creating a file
# skips the inodes deleted in the last minute (six while their table block is
# dirty), scanning past them: a best run started seconds after tens of thousands of
# reports were deleted (earlier runs' outputs; this script removes its scratch space
# when it ends) had 15 % of its `perf` samples in creating its reports (ext4's
# recently_deleted and find_inode_bit), against 2 % after deleting few files. Leave
# a few minutes after deleting many files before timing.
#
# A cached corpus is reused only when it was built by the same builder source (the
# git tree of src/corpus_builder, committed and unchanged). Needs bash 4, coreutils
# and awk; uses /usr/bin/time -v when it exists, otherwise measures wall time with
# `date` and peak RSS by polling /proc.
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/pan-detect-bench}
TARGET_MB=${TARGET_MB:-500}
SMALL_MB=${SMALL_MB:-$(awk -v t="$TARGET_MB" 'BEGIN {print t / 10}')}
SEED=${SEED:-20240601}
SINGLE_MB=${SINGLE_MB:-200}
REUSE_POOL=${REUSE_POOL:-50000}
RUNS=${RUNS:-3}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-1200}
BIN=target/release/pan-detect
FLOOR_BIN=target/release/examples/floor
CORES=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
# Per-core figures divide by the cores the detector uses: THREADS when set.
USED_CORES=${THREADS:-$CORES}
ONLY=" ${BENCH_ONLY:-} "
ONLY=${ONLY//,/ }
for word in $ONLY; do
    case $word in
        usual | reuse | single | large | small | pan09 | best) ;;
        *)
            echo "eval/bench.sh: BENCH_ONLY: unknown word '$word' (usual reuse single large small pan09 best)" >&2
            exit 2
            ;;
    esac
done

source eval/common.sh
bench_corpus_source

echo "== pan-detect benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $CORES cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || uname -m)," \
    "$(awk '/MemTotal/ {printf "%.1f GB RAM", $2 / 1048576}' /proc/meminfo 2>/dev/null || echo '? RAM')"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty tree)')"
echo "runs: median of $RUNS, limit $BENCH_TIMEOUT s per run; seed $SEED; reuse pool $REUSE_POOL sentences;" \
    "detect flags: ${*:-(none)}${THREADS:+ --threads $THREADS}"

cargo build --release --quiet --bin pan-detect --example floor
mkdir -p "$BENCH_DIR"
WORK=$(mktemp -d "$BENCH_DIR/run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

HAVE_GNU_TIME=0
if [ "${BENCH_NO_GNU_TIME:-0}" != 1 ] && [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
    HAVE_GNU_TIME=1
fi

# measure NAME LIMIT COMMAND...: runs COMMAND with stdout/stderr in $WORK/NAME.out/.err
# and sets WALL (seconds), RSS_KB (peak resident set, KB), RSS_LOG (a file of
# "seconds-since-start rss-kb" samples of the measured process, for stage peaks) and
# TIMED_OUT (1 when the command ran longer than LIMIT seconds, 0 for no limit, and
# was killed). Any other failure stops the benchmark.
measure() {
    local name=$1 limit=$2
    shift 2
    RSS_LOG=$WORK/$name.rss
    TIMED_OUT=0
    : >"$RSS_LOG"
    local start end pid child rss field value elapsed_us sleeper
    # The sampling loop runs beside the measured command, on the cores it
    # uses: it forks nothing per sample (bash builtins, the clock from
    # EPOCHREALTIME, and a read that times out on a pipe nobody writes in
    # place of sleep(1)), so that it does not slow a command that uses every
    # core more than the single-threaded `wc -w` it is compared with.
    exec {sleeper}<> <(:)
    start=${EPOCHREALTIME/./}
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
            read -r child _ <"/proc/$pid/task/$pid/children" 2>/dev/null || true
            child=${child:-$pid}
        fi
        rss=""
        while read -r field value _; do
            [ "$field" = "VmRSS:" ] && rss=$value && break
        done <"/proc/$child/status" 2>/dev/null || true
        elapsed_us=$((${EPOCHREALTIME/./} - start))
        [ -n "$rss" ] && printf '%d.%06d %s\n' $((elapsed_us / 1000000)) $((elapsed_us % 1000000)) "$rss" >>"$RSS_LOG"
        if [ "$limit" != 0 ] && [ "$TIMED_OUT" = 0 ] && [ "$elapsed_us" -gt $((limit * 1000000)) ]; then
            TIMED_OUT=1
            kill_measured "$pid"
        fi
        read -r -t 0.05 -u "$sleeper" _ || true
    done
    exec {sleeper}>&-
    local status=0
    wait "$pid" || status=$?
    end=${EPOCHREALTIME/./}
    if [ "$status" != 0 ] && [ "$TIMED_OUT" = 0 ]; then
        echo "'$*' failed with status $status:" >&2
        tail -n 20 "$WORK/$name.err" >&2
        exit 1
    fi
    WALL=$(awk -v a="$end" -v b="$start" 'BEGIN {printf "%.2f", (a - b) / 1e6}')
    RSS_KB=$(awk 'BEGIN {m = 0} $2 > m {m = $2} END {print m}' "$RSS_LOG")
    if [ "$HAVE_GNU_TIME" = 1 ] && [ "$TIMED_OUT" = 0 ]; then
        WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ {
                   n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$WORK/$name.time")
        RSS_KB=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/$name.time")
    fi
}

# kill_measured PID: kills the measured command started as PID: the children of
# time(1) when it wraps the command (killing time(1) alone would leave them running).
kill_measured() {
    local kids=""
    if [ "$HAVE_GNU_TIME" = 1 ]; then
        kids=$(cat "/proc/$1/task/$1/children" 2>/dev/null || true)
    fi
    # Word splitting wanted: one argument per process id.
    # shellcheck disable=SC2086
    kill -KILL ${kids:-$1} 2>/dev/null || true
}

# wanted WORD GROUP...: true when BENCH_ONLY names WORD or no word of its GROUP.
wanted() {
    local word=$1 other
    shift
    [[ $ONLY == *" $word "* ]] && return 0
    for other in "$@"; do
        [[ $ONLY == *" $other "* ]] && return 1
    done
    return 0
}

# median N...: the median of the numbers (the mean of the middle two for an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
        if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B [DIGITS]: A / B; "> A/B" when A is a limit ("> 1200"); "-" when either is
# missing or zero, or B is a limit.
ratio() {
    awk -v a="${1:--}" -v b="${2:--}" -v d="${3:-1}" 'BEGIN {
        above = sub(/^> */, "", a)
        if (a == "-" || b == "-" || b ~ />/ || b + 0 == 0) { print "-"; exit }
        printf "%s%.*f\n", (above ? "> " : ""), d, a / b }'
}

# --- 1. corpora ----------------------------------------------------------------------
# ensure_corpus KIND MB: sets CORPUS to the cached corpus of KIND (usual or reuse) and
# MB megabytes, building it first unless a cached one by the same builder exists.
ensure_corpus() {
    local kind=$1 mb=$2 extra=()
    CORPUS=$BENCH_DIR/corpus-$TEXTS_NAME-${mb}mb-seed$SEED
    if [ "$kind" = reuse ]; then
        CORPUS+=-reuse$REUSE_POOL
        extra=(--reuse-pool "$REUSE_POOL")
    fi
    local stamp=$CORPUS.complete
    if [ "${BENCH_REBUILD:-0}" = 1 ] || [ ! -f "$stamp" ] || [ "$(head -n 1 "$stamp")" != "$BUILDER" ]; then
        rm -rf "$CORPUS" "$stamp"
        measure "corpus-$kind-$mb" 0 "$BIN" corpus --texts "$TEXTS" --out "$CORPUS" --seed "$SEED" \
            --target-mb "$mb" "${extra[@]}" --quiet
        echo "corpus: built in $WALL s, peak RSS $((RSS_KB / 1024)) MB: $(cat "$WORK/corpus-$kind-$mb.out")"
        printf '%s\n%s\n' "$BUILDER" "$(date -u '+%Y-%m-%d %H:%M UTC')" >"$stamp"
    else
        echo "corpus: reusing $CORPUS (built $(tail -n 1 "$stamp"); BENCH_REBUILD=1 rebuilds it)"
    fi
    if [ "$kind" = reuse ]; then
        # The README's lines on the pool: from "reuse pool:" to the blank line after them.
        awk '/^reuse pool:/ {on = 1} on && /^$/ {exit} on' "$CORPUS/README.txt"
    fi
}

# Figures per configuration, keyed "KIND SIZE RUN" (RUN: wc, pan09, best).
declare -A WALL_MEDIAN RSS_PEAK_KB WALL_RUNS ACCURACY
declare -A SOURCE_BYTES TOTAL_BYTES CORPUS_LABEL

# stage_seconds SUMMARY LABEL: the seconds SUMMARY gives for "LABEL N s", or empty.
stage_seconds() {
    echo "$1" | grep -oE "$2 [0-9.]+ s" | grep -oE '[0-9.]+' | head -n 1 || true
}

# peak_between LOG FROM TO: highest RSS sample (MB) in LOG between FROM and TO seconds.
peak_between() {
    awk -v a="$2" -v b="$3" 'BEGIN {m = 0} $1 >= a && $1 <= b && $2 > m {m = $2}
        END {if (m > 0) printf "%.0f", m / 1024; else print "-"}' "$1"
}

# row LABEL SECONDS BYTES RSS_MB [RUNS]
row() {
    awk -v l="$1" -v s="$2" -v b="$3" -v r="$4" -v c="$USED_CORES" -v runs="${5:-}" 'BEGIN {
        if (s == "" || s ~ />/ || s + 0 == 0) {
            printf "  %-26s %9s %12s %12s   %s\n", l, (s == "" ? "-" : s), "-", r, runs; exit }
        printf "  %-26s %9.2f %12.1f %12s   %s\n", l, s, b / 1e6 / s / c, r, runs }'
}

# stage_rows KEY: the per-stage rows of the median run of KEY ("KIND SIZE PRESET").
stage_rows() {
    local name=${1// /-}
    local summary
    summary=$(grep -E 'pan-detect:' "$WORK/$name.median.err" 2>/dev/null | tail -n 1 || true)
    local read_s index_s match_s
    read_s=$(stage_seconds "$summary" 'read sources')
    index_s=$(stage_seconds "$summary" 'build index')
    match_s=$(stage_seconds "$summary" 'match')
    if [ -z "$read_s" ] || [ -z "$index_s" ] || [ -z "$match_s" ]; then
        echo "    (no per-stage timings)"
        return
    fi
    # Stage windows are placed end to end from the start of the process; the
    # process start-up before "read sources" makes them approximate.
    local log=$WORK/$name.median.rss index_end match_end kind_size=${1% *}
    index_end=$(awk -v a="$read_s" -v b="$index_s" 'BEGIN {print a + b}')
    match_end=$(awk -v a="$index_end" -v b="$match_s" 'BEGIN {print a + b + 1}')
    local sources=${SOURCE_BYTES[$kind_size]} total=${TOTAL_BYTES[$kind_size]}
    local suspicious=$((total - sources))
    row "  read sources (sources)" "$read_s" "$sources" "$(peak_between "$log" 0 "$read_s")"
    row "  build index (sources)" "$index_s" "$sources" "$(peak_between "$log" "$read_s" "$index_end")"
    row "  match (suspicious)" "$match_s" "$suspicious" "$(peak_between "$log" "$index_end" "$match_end")"
}

# time_runs KEY LIMIT COMMAND...: runs COMMAND up to RUNS times (a run past LIMIT
# seconds ends the series) and records the median wall time, the highest peak RSS
# and the list of walls under KEY; the median run's stderr and RSS samples are kept
# as $WORK/KEY.median.err/.rss. Every run's stdout is in $WORK/KEY-I.out. A command
# word "{OUT}" is replaced by a fresh directory $WORK/KEY-I.det per run.
time_runs() {
    local key=$1 limit=$2
    shift 2
    local name=${key// /-} i walls=() peak=0 timed_out=0 args word
    for ((i = 1; i <= RUNS; i++)); do
        args=()
        for word in "$@"; do
            args+=("${word//\{OUT\}/$WORK/$name-$i.det}")
        done
        measure "$name-$i" "$limit" "${args[@]}"
        ((RSS_KB > peak)) && peak=$RSS_KB
        if [ "$TIMED_OUT" = 1 ]; then
            timed_out=1
            walls+=("> $limit")
            break
        fi
        walls+=("$WALL")
        # Outputs stay until the end (the EXIT trap): deleting thousands of
        # reports just before a timed run slows the file creations of that run
        # (ext4 then searches longer for free inodes).
    done
    RSS_PEAK_KB[$key]=$peak
    WALL_RUNS[$key]="${walls[*]}"
    if [ "$timed_out" = 1 ]; then
        WALL_MEDIAN[$key]="> $limit"
        return
    fi
    local med
    med=$(median "${walls[@]}")
    WALL_MEDIAN[$key]=$med
    # The median run: the first whose wall is closest to the median.
    local best_i=1 best_d=
    for ((i = 1; i <= ${#walls[@]}; i++)); do
        local d
        d=$(awk -v a="${walls[i - 1]}" -v m="$med" 'BEGIN {d = a - m; print (d < 0 ? -d : d)}')
        if [ -z "$best_d" ] || awk -v d="$d" -v b="$best_d" 'BEGIN {exit !(d < b)}'; then
            best_i=$i
            best_d=$d
        fi
    done
    cp "$WORK/$name-$best_i.err" "$WORK/$name.median.err"
    cp "$WORK/$name-$best_i.rss" "$WORK/$name.median.rss"
}

# score KEY CORPUS: plagdet, recall and precision of KEY's first run against the truth.
score() {
    local key=$1 corpus=$2 name=${1// /-}
    local det=$WORK/$name-1.det
    if [ ! -d "$det" ] || [[ ${WALL_MEDIAN[$key]} == ">"* ]]; then
        ACCURACY[$key]="- - -"
        return
    fi
    ACCURACY[$key]=$("$BIN" eval --truth "$corpus/suspicious-documents" --detections "$det" |
        awk '$1 == "all" {printf "%.4f %.4f %.4f", $4, $5, $6}')
}

# time_presets KEY SOURCES SUSPICIOUS [CORPUS]: times each wanted preset on the
# directories SOURCES and SUSPICIOUS under "KEY PRESET", and scores it against
# CORPUS's truth when given.
time_presets() {
    local key=$1 sources=$2 suspicious=$3 corpus=${4:-} preset detect_args
    for preset in pan09 best; do
        wanted "$preset" pan09 best || continue
        detect_args=(--source-dir "$sources" --suspicious-dir "$suspicious" --out "{OUT}" --quiet --preset "$preset")
        [ -n "${THREADS:-}" ] && detect_args+=(--threads "$THREADS")
        detect_args+=("${DETECT_FLAGS[@]}")
        time_runs "$key $preset" "$BENCH_TIMEOUT" "$BIN" "${detect_args[@]}"
        [ -n "$corpus" ] && score "$key $preset" "$corpus"
        echo "$preset: $(grep -E 'pan-detect:' "$WORK/${key// /-}-$preset.median.err" 2>/dev/null | tail -n 1 ||
            echo "killed after $BENCH_TIMEOUT s")"
    done
}

# bench_corpus KIND SIZE MB: builds or reuses the corpus, then times and scores it.
bench_corpus() {
    local kind=$1 size=$2 mb=$3 label
    label=$([ "$kind" = reuse ] && echo "reuse-heavy" || echo "usual")
    echo
    echo "== $label corpus, $mb MB"
    ensure_corpus "$kind" "$mb"
    local corpus=$CORPUS src sus
    src=$(find "$corpus/source-documents" -name '*.txt' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    sus=$(find "$corpus/suspicious-documents" -name '*.txt' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    SOURCE_BYTES["$kind $size"]=$src
    TOTAL_BYTES["$kind $size"]=$((src + sus))
    CORPUS_LABEL["$kind $size"]="$label $(awk -v b="$((src + sus))" 'BEGIN {printf "%.1f MB", b / 1e6}')"
    echo "input: $(awk -v s="$src" -v t="$sus" \
        'BEGIN {printf "%.1f MB sources + %.1f MB suspicious = %.1f MB", s / 1e6, t / 1e6, (s + t) / 1e6}')," \
        "$(find "$corpus/source-documents" -name '*.txt' | wc -l) + $(find "$corpus/suspicious-documents" -name '*.txt' | wc -l) files"

    # Warm the page cache, then the trivial pass.
    find "$corpus/source-documents" "$corpus/suspicious-documents" -name '*.txt' -print0 | xargs -0 cat >/dev/null
    time_runs "$kind $size wc" 0 sh -c \
        "find '$corpus/source-documents' '$corpus/suspicious-documents' -name '*.txt' -print0 | xargs -0 cat | wc -w"
    # The floor of any detection: reading, decoding and tokenizing, nothing more.
    time_runs "$kind $size floor" 0 "$FLOOR_BIN" "$corpus/source-documents" "$corpus/suspicious-documents"

    time_presets "$kind $size" "$corpus/source-documents" "$corpus/suspicious-documents" "$corpus"

    echo
    echo "                              wall s   MB/s/core  peak RSS MB   runs (s)"
    local key bytes=$((src + sus))
    key="$kind $size wc"
    local rss_kb=${RSS_PEAK_KB[$key]}
    row "wc -w (trivial pass)" "${WALL_MEDIAN[$key]}" "$bytes" "$((rss_kb / 1024))" "${WALL_RUNS[$key]}"
    key="$kind $size floor"
    rss_kb=${RSS_PEAK_KB[$key]}
    row "read + tokenize (floor)" "${WALL_MEDIAN[$key]}" "$bytes" "$((rss_kb / 1024))" "${WALL_RUNS[$key]}"
    for preset in pan09 best; do
        key="$kind $size $preset"
        [ -n "${WALL_MEDIAN[$key]:-}" ] || continue
        rss_kb=${RSS_PEAK_KB[$key]}
        row "--preset $preset" "${WALL_MEDIAN[$key]}" "$bytes" "$((rss_kb / 1024))" "${WALL_RUNS[$key]}"
        [[ ${WALL_MEDIAN[$key]} == ">"* ]] || stage_rows "$key"
        read -r plagdet recall precision <<<"${ACCURACY[$key]}"
        echo "    accuracy: plagdet $plagdet, recall $recall, precision $precision"
    done
}

DETECT_FLAGS=("$@")
KINDS=()
wanted usual usual reuse single && KINDS+=(usual)
wanted reuse usual reuse single && KINDS+=(reuse)
SIZES=()
wanted large large small && SIZES+=(large)
if awk -v s="$SMALL_MB" 'BEGIN {exit !(s > 0)}' && wanted small large small; then
    SIZES+=(small)
fi
declare -A SIZE_MB=([large]=$TARGET_MB [small]=$SMALL_MB)
for kind in "${KINDS[@]}"; do
    for size in "${SIZES[@]}"; do
        bench_corpus "$kind" "$size" "${SIZE_MB[$size]}"
    done
done

# bench_single: one document of SINGLE_MB megabytes against the small usual
# corpus's sources (see the header), both presets, time and peak RSS.
bench_single() {
    echo
    echo "== one document of $SINGLE_MB MB"
    ensure_corpus usual "$SMALL_MB"
    local corpus=$CORPUS dir=$BENCH_DIR/single-${SINGLE_MB}mb-of-$(basename "$CORPUS")
    local document=$dir/suspicious/long.txt limit=$((SINGLE_MB * 1000000))
    if [ ! -f "$document" ] || [ "$(stat -c %s "$document")" -lt "$limit" ] || [ ! -f "$CORPUS.complete" ] ||
        [ "$document" -ot "$CORPUS.complete" ]; then
        rm -rf "$dir"
        mkdir -p "$dir/suspicious"
        while [ ! -f "$document" ] || [ "$(stat -c %s "$document")" -lt "$limit" ]; do
            find "$corpus/suspicious-documents" -name '*.txt' -print0 | sort -z | xargs -0 cat >>"$document"
        done
    fi
    local bytes
    bytes=$(stat -c %s "$document")
    SINGLE_BYTES=$bytes
    echo "input: one document of $(awk -v b="$bytes" 'BEGIN {printf "%.1f MB", b / 1e6}')" \
        "against $(find "$corpus/source-documents" -name '*.txt' | wc -l) sources of" \
        "$(find "$corpus/source-documents" -name '*.txt' -printf '%s\n' | awk '{s += $1} END {printf "%.1f MB", s / 1e6}')"
    cat "$document" >/dev/null
    time_runs "single wc" 0 wc -w "$document"
    time_presets single "$corpus/source-documents" "$dir/suspicious"
}

if awk -v s="$SINGLE_MB" -v m="$SMALL_MB" 'BEGIN {exit !(s > 0 && m > 0)}' && wanted single usual reuse single; then
    bench_single
fi

# --- 4. the summary ------------------------------------------------------------------
# mbps BYTES SECONDS: MB/s per core used, or "-".
mbps() {
    awk -v b="$1" -v s="$2" -v c="$USED_CORES" 'BEGIN {
        if (s == "" || s ~ />/ || s + 0 == 0) print "-"; else printf "%.1f", b / 1e6 / s / c }'
}

# times RATIO: RATIO followed by "×", or "-".
times() {
    if [ "$1" = - ]; then echo -; else echo "$1×"; fi
}

# summary_row KIND SIZE RUN LABEL TARGET
summary_row() {
    local kind=$1 size=$2 run=$3 label=$4 target=$5 key="$1 $2 $3"
    [ -n "${WALL_MEDIAN[$key]:-}" ] || return 0
    local wall=${WALL_MEDIAN[$key]} wc_wall=${WALL_MEDIAN[$kind $size wc]:-} pan09=${WALL_MEDIAN[$kind $size pan09]:-}
    local rss_kb=${RSS_PEAK_KB[$key]} src=${SOURCE_BYTES[$kind $size]} accuracy="- - -"
    [[ $run == wc || $run == floor ]] || accuracy=${ACCURACY[$key]}
    local x_wc x_pan09="" rss_ratio=""
    x_wc=$(times "$(ratio "$wall" "$wc_wall")")
    [ "$run" = best ] && x_pan09=$(times "$(ratio "$wall" "$pan09" 2)")
    [ "$run" = wc ] || rss_ratio=$(times "$(ratio "$((rss_kb * 1024))" "$src" 2)")
    read -r plagdet recall precision <<<"$accuracy"
    [[ $run == wc || $run == floor ]] && plagdet="" recall="" precision=""
    printf '| %s | %s | %s | %s | %s MB | %s | %s | %s | %s | %s | %s | %s |\n' \
        "${CORPUS_LABEL[$kind $size]}" "$label" "$wall" "$(mbps "${TOTAL_BYTES[$kind $size]}" "$wall")" "$((rss_kb / 1024))" \
        "$rss_ratio" "$x_wc" "$x_pan09" "$plagdet" "$recall" "$precision" "$target"
}

echo
echo "== Summary: medians of $RUNS run(s), ratios to wc -w measured in the same run" \
    "($USED_CORES cores used, $(date -u '+%Y-%m-%d'))"
echo
if [ ${#KINDS[@]} -gt 0 ]; then
    echo "| corpus | run | wall s | MB/s per core | peak RSS | RSS / source text | × wc -w | × pan09 | plagdet | recall | precision | target |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
fi
for size in "${SIZES[@]}"; do
    for kind in "${KINDS[@]}"; do
        if [ "$kind" = usual ]; then
            targets=("" "pan09 ≤ 3× wc -w, RSS ≤ 2× source" "best ≤ 3.5× wc -w, RSS ≤ 2× source")
        else
            targets=("" "RSS ≤ 2× source" "best ≤ 1.5× pan09, RSS ≤ 2× source")
        fi
        summary_row "$kind" "$size" wc '`wc -w`' "${targets[0]}"
        summary_row "$kind" "$size" floor 'read + tokenize (floor)' ""
        summary_row "$kind" "$size" pan09 '`--preset pan09`' "${targets[1]}"
        summary_row "$kind" "$size" best '`--preset best`' "${targets[2]}"
    done
done

if [[ ${#KINDS[@]} -gt 0 && " ${SIZES[*]} " == *" large "* && " ${SIZES[*]} " == *" small "* ]]; then
    linear=$(ratio "$TARGET_MB" "$SMALL_MB")
    echo
    echo "Growth from $SMALL_MB MB to $TARGET_MB MB: time($TARGET_MB) / time($SMALL_MB), medians of $RUNS run(s)" \
        "(linear is ${linear}×; the target is within 20 %, ≤ $(awk -v l="$linear" 'BEGIN {printf "%.1f", l * 1.2}')×)"
    echo
    echo "| corpus | \`wc -w\` | \`--preset pan09\` | \`--preset best\` |"
    echo "|---|---|---|---|"
    for kind in "${KINDS[@]}"; do
        cells=()
        for run in wc pan09 best; do
            large=${WALL_MEDIAN[$kind large $run]:-} small=${WALL_MEDIAN[$kind small $run]:-}
            if [ -z "$large" ] || [ -z "$small" ]; then
                cells+=("-")
            else
                cells+=("$(times "$(ratio "$large" "$small")") ($small → $large s)")
            fi
        done
        printf '| %s | %s | %s | %s |\n' "$([ "$kind" = reuse ] && echo reuse-heavy || echo usual)" "${cells[@]}"
    done
fi
if [ -n "${WALL_MEDIAN[single wc]:-}" ]; then
    echo
    echo "One document of $(awk -v b="$SINGLE_BYTES" 'BEGIN {printf "%.1f MB", b / 1e6}') (target: peak RSS ≤ 4× its size)"
    echo
    echo "| run | wall s | × wc -w | peak RSS | RSS / document |"
    echo "|---|---|---|---|---|"
    for run in wc pan09 best; do
        key="single $run"
        [ -n "${WALL_MEDIAN[$key]:-}" ] || continue
        rss_kb=${RSS_PEAK_KB[$key]}
        label=$([ "$run" = wc ] && echo '`wc -w`' || echo "\`--preset $run\`")
        printf '| %s | %s | %s | %s MB | %s |\n' "$label" "${WALL_MEDIAN[$key]}" \
            "$(times "$(ratio "${WALL_MEDIAN[$key]}" "${WALL_MEDIAN[single wc]}")")" "$((rss_kb / 1024))" \
            "$([ "$run" = wc ] || times "$(ratio "$((rss_kb * 1024))" "$SINGLE_BYTES" 2)")"
    done
fi
echo
echo "MB/s per core = corpus bytes (10^6) / wall seconds / $USED_CORES cores; peak RSS is the highest of the runs" \
    "(sampled every 50 ms for stages); source text = bytes of source-documents/*.txt; accuracy of the first run" \
    "(pan-detect eval); \"> $BENCH_TIMEOUT\" = killed after BENCH_TIMEOUT seconds."
