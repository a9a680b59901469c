#!/usr/bin/env bash
# Detection over several processes on one machine (loopback), against the
# one-process run, on the usual 500 MB benchmark corpus of eval/bench.sh.
#
#   eval/cluster-bench.sh [detect flags...]
#
# For each preset (PRESETS, default "pan09 best") it times, RUNS times each
# (median reported):
#   plain   `detect` as usual (rayon threads, no timely)
#   1x1     1 process  x 1 worker
#   1x2     1 process  x 2 workers
#   2x1     2 processes x 1 worker
#   4x1     4 processes x 1 worker (the issue's target: within 1.3x of 1x2)
# and prints per configuration: wall time (the last process to end), its ratio
# to 1x2, the highest peak RSS of one process, bytes sent between processes
# per input MB and as a multiple of the chunk stream (8 bytes per chunk: hash
# and position), and whether the reports equal the plain run's byte for byte.
#
# Environment:
#   BENCH_DIR   corpus cache (default /tmp/pan-detect-bench, shared with bench.sh)
#   TARGET_MB   corpus size (500)
#   SEED        corpus seed (20240601)
#   RUNS        runs per configuration (3)
#   CONFIGS     configurations (default "plain 1x1 1x2 2x1 4x1")
#   PORT        first loopback port (default 23101); a run uses PORT..PORT+3
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/pan-detect-bench}
TARGET_MB=${TARGET_MB:-500}
SEED=${SEED:-20240601}
RUNS=${RUNS:-3}
PRESETS=${PRESETS:-pan09 best}
CONFIGS=${CONFIGS:-plain 1x1 1x2 2x1 4x1}
PORT=${PORT:-23101}
BIN=target/release/pan-detect

source eval/common.sh
bench_corpus_source

echo "== pan-detect cluster benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)," \
    "$(awk '/MemTotal/ {printf "%.1f GB RAM", $2 / 1048576}' /proc/meminfo)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty tree)')"
echo "runs: median of $RUNS; detect flags: ${*:-(none)}"

cargo build --release --quiet --bin pan-detect
mkdir -p "$BENCH_DIR"
WORK=$(mktemp -d "$BENCH_DIR/cluster.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The corpus: eval/bench.sh's usual corpus, built here unless a cached one by
# the same builder exists (the rule of bench.sh's ensure_corpus).
CORPUS=$BENCH_DIR/corpus-$TEXTS_NAME-${TARGET_MB}mb-seed$SEED
if [ ! -f "$CORPUS.complete" ] || [ "$(head -n 1 "$CORPUS.complete")" != "$BUILDER" ]; then
    rm -rf "$CORPUS" "$CORPUS.complete"
    "$BIN" corpus --texts "$TEXTS" --out "$CORPUS" --seed "$SEED" --target-mb "$TARGET_MB" --quiet
    printf '%s\n%s\n' "$BUILDER" "$(date -u '+%Y-%m-%d %H:%M UTC')" >"$CORPUS.complete"
fi
INPUT_MB=$(du -sb --apparent-size "$CORPUS/source-documents" "$CORPUS/suspicious-documents" |
    awk '{s += $1} END {printf "%.1f", s / 1e6}')
echo "corpus: $CORPUS ($INPUT_MB MB of documents)"
# Warm the page cache so that every run reads from memory.
cat "$CORPUS"/source-documents/* "$CORPUS"/suspicious-documents/* >/dev/null

# run_config PRESET CONFIG OUT: runs one configuration into OUT; sets WALL
# (seconds), RSS_MB (highest peak of one process), SENT_MB (sum over processes)
# and CHUNKS (source + suspicious chunks, summed over processes).
run_config() {
    local preset=$1 config=$2 out=$3 start end
    shift 3
    rm -rf "$out" "$out".*
    start=$(date +%s.%N)
    if [ "$config" = plain ]; then
        /usr/bin/time -f %M -o "$out.rss.0" "$BIN" detect --preset "$preset" --source-dir "$CORPUS/source-documents" \
            --suspicious-dir "$CORPUS/suspicious-documents" --out "$out" --quiet "$@" 2>"$out.log.0"
    else
        local processes=${config%x*} workers=${config#*x} pids=() i
        : >"$out.hosts"
        for ((i = 0; i < processes; i++)); do
            echo "127.0.0.1:$((PORT + i))" >>"$out.hosts"
        done
        for ((i = 0; i < processes; i++)); do
            /usr/bin/time -f %M -o "$out.rss.$i" "$BIN" detect --preset "$preset" \
                --source-dir "$CORPUS/source-documents" --suspicious-dir "$CORPUS/suspicious-documents" --out "$out" \
                --quiet --workers "$workers" --processes "$processes" --process "$i" --hostfile "$out.hosts" \
                "$@" 2>"$out.log.$i" &
            pids+=($!)
        done
        for i in "${pids[@]}"; do
            wait "$i"
        done
    fi
    end=$(date +%s.%N)
    WALL=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')
    RSS_MB=$(cat "$out".rss.* | awk '$1 > m {m = $1} END {printf "%.0f", m / 1024}')
    SENT_MB=$(awk 'match($0, /sent [0-9.]+ MB/) {split(substr($0, RSTART, RLENGTH), f, " "); s += f[2]}
        END {printf "%.1f", s}' "$out".log.*)
    CHUNKS=$(awk 'match($0, /[0-9]+ \+ [0-9]+ chunks/) {split(substr($0, RSTART, RLENGTH), f, " "); s += f[1] + f[3]}
        END {print s + 0}' "$out".log.*)
}

median() {
    tr ' ' '\n' | awk 'NF' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

for preset in $PRESETS; do
    echo
    echo "-- $preset"
    printf '%-6s %9s %8s %10s %14s %12s %s\n' config "wall s" "/1x2" "peak RSS" "sent MB/in MB" "/chunk bytes" reports
    declare -A WALLS=() RSS=() SENT=() SAME=() CHUNK_MB=()
    for ((run = 1; run <= RUNS; run++)); do
        for config in $CONFIGS; do
            out=$WORK/$preset-$config
            run_config "$preset" "$config" "$out" "$@"
            WALLS[$config]+="$WALL "
            RSS[$config]=$(( ${RSS[$config]:-0} > RSS_MB ? ${RSS[$config]:-0} : RSS_MB ))
            SENT[$config]=$SENT_MB
            CHUNK_MB[$config]=$(awk -v c="$CHUNKS" 'BEGIN {printf "%.1f", c * 8 / 1e6}')
            if [ "$config" != plain ]; then
                if diff -rq "$WORK/$preset-plain" "$out" >/dev/null 2>&1; then SAME[$config]=identical; else SAME[$config]=DIFFERENT; fi
            else
                SAME[$config]=-
            fi
        done
    done
    base=$(echo "${WALLS[1x2]:-}" | median)
    for config in $CONFIGS; do
        wall=$(echo "${WALLS[$config]}" | median)
        ratio=$(awk -v w="$wall" -v b="${base:-0}" 'BEGIN {if (b > 0) printf "%.2f", w / b; else print "-"}')
        if [ "$config" = plain ] || [ "${config%x*}" = 1 ]; then
            per_mb=- per_chunk=-
        else
            per_mb=$(awk -v s="${SENT[$config]}" -v i="$INPUT_MB" 'BEGIN {printf "%.2f", s / i}')
            per_chunk=$(awk -v s="${SENT[$config]}" -v c="${CHUNK_MB[$config]}" 'BEGIN {printf "%.2f", s / c}')
        fi
        printf '%-6s %9s %8s %7s MB %14s %12s %s   (runs: %s)\n' "$config" "$wall" "$ratio" "${RSS[$config]}" \
            "$per_mb" "$per_chunk" "${SAME[$config]}" "${WALLS[$config]% }"
    done
    unset WALLS RSS SENT SAME CHUNK_MB
done
