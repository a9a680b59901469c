#!/usr/bin/env bash
# Load test of `pan-detect serve` on the archive of eval/archive-bench.sh
# (about 1.1 GB of text), loopback only, with a bounded client
# (eval/serve-load.py):
#
# 1. Builds the archive and its index with eval/archive-bench.sh when they are
#    missing (or of an older index format), and 20 probes of about 100 KB
#    (half from one archive document, half from another, new text between).
# 2. Starts `pan-detect serve` and sends 1,000 checks from 50 concurrent
#    clients while one writer adds documents (PUT) and deletes some (DELETE),
#    each write answered once indexed; prints p50, p99 and max latency of the
#    checks and of the writes, and every error.
# 3. Starts a second burst of writes, kills the server with SIGKILL in the
#    middle of it, restarts it and checks every acknowledged write: present
#    after a put, gone after a delete.
# 4. Stops the server (SIGTERM) and takes the written documents out of the
#    archive again (an index update).
#
# Environment: ARCHIVE_BENCH_DIR (default /tmp/pan-detect-archive-bench),
# CHECKS (1000), CLIENTS (50), PORT (18080), BIN (default the release build).
# Needs bash, python3, curl.
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=${ARCHIVE_BENCH_DIR:-/tmp/pan-detect-archive-bench}
CHECKS=${CHECKS:-1000}
CLIENTS=${CLIENTS:-50}
PORT=${PORT:-18080}
BIN=${BIN:-target/release/pan-detect}
DOCS=$DIR/docs
IDX=$DIR/index
WORK=$DIR/serve-load
BASE=http://127.0.0.1:$PORT

echo "== pan-detect serve load test, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(free -g | awk '/Mem:/ {print $2}') GB RAM"
cargo build --release --quiet
if ! "$BIN" index stats --index "$IDX" > /dev/null 2>&1; then
    echo "== no usable index in $IDX: building the archive with eval/archive-bench.sh"
    ARCHIVE_BENCH_DIR=$DIR eval/archive-bench.sh > /dev/null
fi
rm -rf -- "$WORK" "$DOCS/serve-load"
mkdir -p "$WORK/probes"
python3 - "$DOCS" "$WORK/probes" <<'PY'
import os, random, sys
docs, out = sys.argv[1], sys.argv[2]
files = []
for root, _, names in os.walk(docs):
    files += [os.path.join(root, n) for n in names if n.endswith(".txt")]
files.sort()
rng = random.Random(2026)
big = [f for f in files if os.path.getsize(f) > 50_000]
for i in range(20):
    a, b = rng.sample(big, 2)
    text = open(a, encoding="utf-8").read()[:45_000] + "\n\nNew text of the upload in between.\n\n"
    text += " ".join(rng.choice(["thesis", "method", "result", "sample", "figure", "model"]) for _ in range(1_500))
    text += "\n\n" + open(b, encoding="utf-8").read()[-45_000:]
    with open(os.path.join(out, f"probe-{i:02d}.txt"), "w", encoding="utf-8") as f:
        f.write(text)
PY
echo "probes: $(ls "$WORK/probes" | wc -l) of $(( $(cat "$WORK"/probes/* | wc -c) / 20 / 1000 )) KB on average"
echo "archive: $("$BIN" index stats --index "$IDX" | awk '/^documents:/ {print $2}') documents, $(( $(find "$DOCS" -name '*.txt' -printf '%s\n' | awk '{s += $1} END {print s}') / 1000000 )) MB of text"
head -c 24 /dev/urandom | base64 > "$WORK/token"
TOKEN=$(cat "$WORK/token")

start_server() {
    "$BIN" serve --index "$IDX" --listen "127.0.0.1:$PORT" --token-file "$WORK/token" 2>> "$WORK/serve.log" &
    SERVER=$!
    for _ in $(seq 1 600); do
        curl -sf "$BASE/healthz" > /dev/null && return 0
        sleep 0.1
    done
    echo "the server did not answer; its log:" >&2
    cat "$WORK/serve.log" >&2
    exit 2
}
stop_server() {
    kill -TERM "$SERVER" 2> /dev/null && wait "$SERVER" 2> /dev/null || true
}
cleanup() {
    stop_server
    if [ -d "$DOCS/serve-load" ]; then
        rm -r -- "$DOCS/serve-load"
        "$BIN" index update --docs "$DOCS" --index "$IDX" --quiet 2> /dev/null || true
    fi
}
trap cleanup EXIT

# --- 2. load -------------------------------------------------------------------
start_server
echo "load average before the load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "\$ eval/serve-load.py load $BASE TOKEN $WORK/probes $WORK/journal $CHECKS $CLIENTS"
status=0
python3 eval/serve-load.py load "$BASE" "$TOKEN" "$WORK/probes" "$WORK/journal" "$CHECKS" "$CLIENTS" || status=$?
curl -s "$BASE/metrics" | grep -E '^pan_detect_(commits_total|batched_changes_total|index_generation) ' || true

# --- 3. kill -9 during writes, restart, verify --------------------------------------
python3 eval/serve-load.py load "$BASE" "$TOKEN" "$WORK/probes" "$WORK/journal" 40 1 > "$WORK/burst.out" 2>&1 &
BURST=$!
sleep 3
kill -KILL "$SERVER"
wait "$SERVER" 2> /dev/null || true
wait "$BURST" 2> /dev/null || true
echo "killed the server (SIGKILL) during a burst of writes; $(wc -l < "$WORK/journal") writes acknowledged in all"
start_server
python3 eval/serve-load.py verify "$BASE" "$WORK/journal" || status=1
exit $status
