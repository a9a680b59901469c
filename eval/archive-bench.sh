#!/usr/bin/env bash
# Archive-mode benchmark: index create / update / check / similar on >= TARGET_MB
# megabytes of text.
#
# 1. Builds (once, cached) an archive from the dev-en texts (source and
#    suspicious documents) repeated with edits: copy k substitutes the letters
#    a-z by a permutation seeded with k and drops every (7 + k % 5)-th line, so
#    copies share no chunks with each other while each copy keeps dev-en's own
#    plagiarism between its documents.
# 2. Times `index create` (wall time and peak RSS with /usr/bin/time -v) and
#    compares the index size on disk with the text size.
# 3. Adds 1% new documents (a fresh copy) and deletes 1% (moved aside), times
#    `index update`, undoes the change with a second update and makes it again
#    with a third, and prints the median's ratio to `create`; times `index
#    merge` of the segments the updates wrote; then times a no-op
#    `index update --rehash`, which reads and hashes every document instead of
#    trusting recorded sizes and modification times. The archive is restored
#    on exit.
# 4. Times `check` of one 100-KB document (half from one archive document, half
#    from another, with new text between), twice: the first run opens a cold
#    process, the second shows the repeatable figure.
# 5. Times `similar --top 100`, which reads the similarity table that `index
#    create` computed and `index update` maintained (their summary lines say
#    how long that took), and the size of the table.
#
# Environment: ARCHIVE_BENCH_DIR (cache, default /tmp/pan-detect-archive-bench),
# TARGET_MB (1000 MB of text at least, default 1100), THREADS (passed as --threads when set),
# PRESET (the index's --preset, default pan09; best makes check align), BIN (the binary,
# default the release build, which the script builds; another build, e.g. an older one,
# for comparisons).
# Needs bash, python3, GNU time (/usr/bin/time), coreutils.
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=${ARCHIVE_BENCH_DIR:-/tmp/pan-detect-archive-bench}
TARGET_MB=${TARGET_MB:-1100}
TEXTS=${TEXTS:-../shared/corpora/dev-en}
BIN=${BIN:-target/release/pan-detect}
PRESET=${PRESET:-pan09}
DOCS=$DIR/docs
IDX=$DIR/index
ASIDE=$DIR/aside
WORK=$DIR/work
THREAD_ARGS=()
[ -n "${THREADS:-}" ] && THREAD_ARGS=(--threads "$THREADS")

echo "== pan-detect archive benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(free -g | awk '/Mem:/ {print $2}') GB RAM"
cargo build --release --quiet
mkdir -p "$DIR" "$WORK"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs on the machine skew the figures)"

# --- 1. the archive -----------------------------------------------------------
python3 - "$TEXTS" "$DOCS" "$TARGET_MB" <<'PY'
import os, random, sys
texts, docs, target_mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
originals = []
for sub in ("source-documents", "suspicious-documents"):
    folder = os.path.join(texts, sub)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".txt"):
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                originals.append((sub, name, f.read()))
size = sum(len(t.encode()) for _, _, t in originals)
# Each copy drops about a tenth of the lines.
copies = -(-target_mb * 10**6 // int(size * 0.9))
def copy(k, out_dir):
    rng = random.Random(k)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    shuffled = letters[:]
    rng.shuffle(shuffled)
    table = str.maketrans("".join(letters) + "".join(letters).upper(), "".join(shuffled) + "".join(shuffled).upper())
    drop = 7 + k % 5
    for sub, name, text in originals:
        lines = text.split("\n")
        edited = "\n".join(l for i, l in enumerate(lines) if i % drop != drop - 1).translate(table)
        path = os.path.join(out_dir, sub, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(edited)
marker = os.path.join(docs, f".complete-{copies}")
if not os.path.exists(marker):
    for k in range(copies):
        out = os.path.join(docs, f"copy-{k:03d}")
        if not os.path.isdir(out):
            copy(k, out)
    open(marker, "w").close()
# The 1% added by the update: a fresh copy, cut to 1% of the documents.
added = os.path.join(os.path.dirname(docs), "added-source")
if not os.path.isdir(added):
    copy(10_000, added)
print(f"archive: {copies} copies of {len(originals)} dev-en texts ({size / 1e6:.1f} MB each)")
PY

DOC_COUNT=$(find "$DOCS" -name '*.txt' | wc -l)
TEXT_BYTES=$(find "$DOCS" -name '*.txt' -printf '%s\n' | awk '{s += $1} END {print s}')
ONE_PERCENT=$(( DOC_COUNT / 100 ))
echo "archive: $DOC_COUNT documents, $(( TEXT_BYTES / 1000000 )) MB of text; update adds and deletes $ONE_PERCENT documents"
find "$DOCS" -name '*.txt' -exec cat {} + > /dev/null  # warm the page cache (untimed)

restore() {
    if [ -d "$ASIDE" ]; then
        (cd "$ASIDE" && find . -name '*.txt' -print0 | while IFS= read -r -d '' f; do
            mkdir -p "$DOCS/$(dirname "$f")" && mv "$f" "$DOCS/$f"; done)
        rm -r -- "$ASIDE"
    fi
    if [ -d "$DOCS/added" ]; then rm -r -- "$DOCS/added"; fi
}
trap restore EXIT
restore

# timed NAME CMD...: runs CMD under GNU time; sets WALL (s) and RSS_MB.
timed() {
    local name=$1; shift
    /usr/bin/time -v -o "$WORK/$name.time" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || {
        cat "$WORK/$name.err" >&2; exit 1; }
    WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$WORK/$name.time")
    RSS_MB=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$WORK/$name.time")
    printf '%-28s %8.2f s   peak RSS %6s MB\n' "$name" "$WALL" "$RSS_MB"
}

# --- 2. create ----------------------------------------------------------------
if [ -d "$IDX" ]; then rm -r -- "$IDX"; fi
echo "\$ $BIN index create --docs $DOCS --index $IDX --preset $PRESET --quiet ${THREAD_ARGS[*]}"
timed "index create" "$BIN" index create --docs "$DOCS" --index "$IDX" --preset "$PRESET" --quiet "${THREAD_ARGS[@]}"
CREATE=$WALL
cat "$WORK/index create.err"
INDEX_BYTES=$(du -sb "$IDX" | cut -f1)
printf 'index size: %.0f MB for %.0f MB of text (%.2f x)\n' \
    "$(echo "$INDEX_BYTES / 1000000" | bc -l)" "$(echo "$TEXT_BYTES / 1000000" | bc -l)" \
    "$(echo "$INDEX_BYTES / $TEXT_BYTES" | bc -l)"
"$BIN" index stats --index "$IDX"

# --- 3. update: +1% and -1%, three times; then a merge -----------------------
change() {
    mkdir -p "$DOCS/added" "$ASIDE"
    # (awk, not head: an early exit would make sort die of SIGPIPE under pipefail)
    find "$DIR/added-source" -name '*.txt' | sort | awk -v n="$ONE_PERCENT" 'NR <= n' | while read -r f; do
        cp "$f" "$DOCS/added/$(basename "$(dirname "$f")")-$(basename "$f")"; done
    (cd "$DOCS" && find . -path ./added -prune -o -name '*.txt' -print | sort | awk -v n="$ONE_PERCENT" 'NR % 97 == 0 && c < n {print; c++}') |
        while read -r f; do mkdir -p "$ASIDE/$(dirname "$f")"; mv "$DOCS/$f" "$ASIDE/$f"; done
}
# Runs 1 and 3 add 1% and delete 1%; run 2 undoes that (deletes the added 1%,
# adds back the deleted 1%): each changes 2% of the documents.
UPDATES=()
for run in 1 2 3; do
    if [ "$run" = 2 ]; then restore; else change; fi
    echo "\$ $BIN index update --docs $DOCS --index $IDX --quiet ${THREAD_ARGS[*]}   # run $run"
    timed "index update (+1% -1%) $run" "$BIN" index update --docs "$DOCS" --index "$IDX" --quiet "${THREAD_ARGS[@]}"
    cat "$WORK/index update (+1% -1%) $run.err"
    UPDATES+=("$WALL")
done
UPDATE=$(printf '%s\n' "${UPDATES[@]}" | sort -g | awk 'NR == 2')
printf 'update: median of 3 %.2f s; update / create: %.4f (target <= 0.02)\n' "$UPDATE" "$(echo "$UPDATE / $CREATE" | bc -l)"
echo "\$ $BIN index merge --index $IDX --quiet   # every segment into one"
timed "index merge" "$BIN" index merge --index "$IDX" --quiet
cat "$WORK/index merge.err"
printf 'merge / create: %.3f\n' "$(echo "$WALL / $CREATE" | bc -l)"
echo "\$ $BIN index update --docs $DOCS --index $IDX --quiet --rehash   # nothing changed; reads and hashes every document"
timed "index update --rehash (no-op)" "$BIN" index update --docs "$DOCS" --index "$IDX" --quiet --rehash "${THREAD_ARGS[@]}"
cat "$WORK/index update --rehash (no-op).err"

# --- 4. check of one 100-KB document -----------------------------------------
PROBE=$WORK/probe-100k.txt
A=$DOCS/copy-000/suspicious-documents/$(ls -S "$DOCS/copy-000/suspicious-documents" | awk 'NR == 1')
B=$DOCS/copy-001/source-documents/$(ls -S "$DOCS/copy-001/source-documents" | awk 'NR == 1')
{ head -c 45000 "$A"; printf '\n\nNew text of the upload in between.\n\n'
  head -c 10000 "$DIR/added-source/source-documents/source-document00001.txt" | tr 'a-z' 'n-za-m'
  tail -c 45000 "$B"; } > "$PROBE"
echo "probe: $(wc -c < "$PROBE") bytes from $A and $B"
echo "\$ $BIN check --index $IDX $PROBE"
timed "check 100 KB (first)" "$BIN" check --index "$IDX" "$PROBE"
timed "check 100 KB (again)" "$BIN" check --index "$IDX" "$PROBE"
timed "check 100 KB --format json" "$BIN" check --index "$IDX" --format json "$PROBE"
head -n 4 "$WORK/check 100 KB (again).out"

# --- 5. similar ---------------------------------------------------------------
echo "\$ $BIN similar --index $IDX --top 100 > rows.csv"
timed "similar --top 100" "$BIN" similar --index "$IDX" --top 100
cat "$WORK/similar --top 100.err"
echo "rows: $(( $(wc -l < "$WORK/similar --top 100.out") - 1 ))"
timed "similar --since-update" "$BIN" similar --index "$IDX" --top 100 --since-update
tail -n 1 "$WORK/similar --since-update.err"
TABLE=$IDX/$(cat "$IDX/CURRENT")/similarity.sqlite
if [ -f "$TABLE" ]; then
    printf 'similarity table: %.1f MB, %s rows\n' "$(echo "$(stat -c %s "$TABLE") / 1000000" | bc -l)" \
        "$("$BIN" index stats --index "$IDX" | awk '/^similarity:/ {print $2}')"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
