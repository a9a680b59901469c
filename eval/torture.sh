#!/usr/bin/env bash
# The hostile tests of issue 16, to rerun after any change: builds the release
# binary, works in a temporary directory (removed on exit) on corpora built from
# corpus-fixtures/texts, and prints one table: test, tried, survived,
# mismatches, panics. Exits 1 on any mismatch or panic.
#
#   eval/torture.sh
#
# What it covers:
#   - bad input: empty, NUL-byte, UTF-16, Latin-1 and unreadable files,
#     symbolic links (to a file, broken, to a directory), odd names (spaces,
#     a leading dash, XML metacharacters, a line break, non-UTF-8 bytes);
#   - --out in dangerous places (an input directory, directly or through a
#     link; a directory holding ground truth; a file; a read-only directory);
#   - closed stdout and stderr (a pipe whose reader left, and a closed
#     descriptor) for detect, check, eval, similar, index stats;
#   - kill -9 of `index create`, `index update` and `detect` at random moments:
#     afterwards the index opens, `check` and `similar` answer as a fresh
#     create of the same documents does (the old or the new ones, for an
#     update), and no report in --out is torn;
#   - one byte flipped in every index file: `check --verify` must refuse,
#     `index update` must refuse or leave the damage detectable (never an index
#     that verifies and answers wrongly);
#   - 20 concurrent `check`s while updates switch the index between two
#     document sets: every answer is one of the two.
#
# More cases live in eval/torture.d/, one file an area, sourced in name order.
#
# Environment: KILLS (kills per kill test, default 20), SEED (of the random
# kill moments and flipped bytes; printed, default from the clock), PARTS
# (comma-separated names of eval/torture.d/ files: only those run, after the
# setup).
#
# Running as root: root reads and writes through file permissions, so the
# unreadable-file case is skipped and the read-only --out is /sys/kernel
# (which refuses new files even to root) instead of a mode-555 directory.
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml" || exit 1
bin=${CARGO_TARGET_DIR:-$root/target}/release/pan-detect
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pan-detect-torture.XXXXXX")
trap 'chmod -R u+rwx -- "$tmp" 2>/dev/null; rm -rf -- "$tmp"' EXIT
kills=${KILLS:-20}
seed=${SEED:-$(date +%s)}
RANDOM=$seed
is_root=$([[ $(id -u) == 0 ]] && echo 1 || echo 0)
started=$(date +%s)

# ---------------------------------------------------------------- bookkeeping

rows=()
notes=()
failed=0
tried=0 survived=0 mismatches=0 panics=0
all_tried=0 all_survived=0

# begin NAME: starts counting a test.
begin() { name=$1 tried=0 survived=0 mismatches=0 panics=0; }

# end: adds the test's row to the table.
end() {
    rows+=("$(printf '%-40s %6d %9d %11d %7d' "$name" "$tried" "$survived" "$mismatches" "$panics")")
    all_tried=$((all_tried + tried)) all_survived=$((all_survived + survived))
    ((mismatches + panics > 0)) && failed=1
    return 0
}

# outcome OK [WHAT]: counts one try; OK is 1 when it behaved as required.
outcome() {
    tried=$((tried + 1))
    if [[ $1 == 1 ]]; then
        survived=$((survived + 1))
    else
        mismatches=$((mismatches + 1))
        notes+=("$name: ${2:-unexpected outcome}")
    fi
}

# pd ARGS...: runs pan-detect with stderr in $tmp/err; counts a panic (exit 101
# or "panicked" in stderr); returns its exit status.
pd() {
    "$bin" "$@" 2>"$tmp/err"
    local status=$?
    if [[ $status == 101 ]] || grep -q panicked "$tmp/err"; then
        panics=$((panics + 1))
        notes+=("$name: panic: pan-detect $*")
    fi
    return $status
}

# random_delay SECONDS: a random moment in 0..SECONDS, as "s.mmm".
random_delay() { awk -v t="$1" -v r=$((RANDOM % 1000)) 'BEGIN { printf "%.3f", t * r / 1000 }'; }

# elapsed COMMAND...: runs it quietly and prints its wall time in seconds.
elapsed() {
    local a b
    a=$(date +%s%N)
    "$@" >/dev/null 2>&1
    b=$(date +%s%N)
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}

# flip_byte FILE OFFSET: XORs one byte of FILE with 0x55.
flip_byte() {
    local byte
    byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    # shellcheck disable=SC2059 # the format is the octal escape of the new byte
    printf "$(printf '\\%03o' $((byte ^ 0x55)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# reports_parse OUT TRUTH: true when eval skips no report in OUT as malformed.
reports_parse() {
    "$bin" eval --truth "$2" --detections "$1" >/dev/null 2>"$tmp/eval-err" || return 1
    ! grep -q 'file skipped' "$tmp/eval-err"
}

# ---------------------------------------------------------------- corpora

texts=$root/corpus-fixtures/texts
"$bin" corpus --texts "$texts" --out "$tmp/big" --seed 1 --target-mb 20 --quiet >/dev/null || exit 1
"$bin" corpus --texts "$texts" --out "$tmp/mid" --seed 2 --target-mb 4 --quiet >/dev/null || exit 1
# Two document sets for the archive: A, and B = A with 5 deleted, 5 modified and 10 added.
docs_a=$tmp/docs-a docs_b=$tmp/docs-b
cp -rp "$tmp/big/source-documents" "$docs_a"
cp -rp "$docs_a" "$docs_b"
mapfile -t a_files < <(ls "$docs_a")
for f in "${a_files[@]:0:5}"; do rm "$docs_b/$f"; done
for f in "${a_files[@]:5:5}"; do printf '\nAn added closing sentence, for the update.\n' >>"$docs_b/$f"; done
mapfile -t s_files < <(cd "$tmp/big/suspicious-documents" && ls ./*.txt)
for f in "${s_files[@]:0:10}"; do cp "$tmp/big/suspicious-documents/$f" "$docs_b/added-${f#./}"; done
# The probe copies from a document B deletes, one B modifies, one both hold and one B adds,
# so that the two sets answer differently.
probe=$tmp/probe.txt
for f in "$docs_a/${a_files[0]}" "$docs_a/${a_files[7]}" "$docs_a/${a_files[30]}" "$docs_b/added-${s_files[0]#./}"; do
    sed -n '10,40p' "$f"
done >"$probe"

# answers IDX PREFIX: check (JSON) and similar (CSV) answers of an index.
answers() {
    pd check --index "$1" --format json "$probe" >"$2.check" &&
        pd similar --index "$1" >"$2.similar"
}
# answers_are IDX PREFIX...: true when IDX answers as one of the PREFIXes.
answers_are() {
    local idx=$1 prefix
    shift
    answers "$idx" "$tmp/now" || return 1
    for prefix in "$@"; do
        cmp -s "$tmp/now.check" "$prefix.check" && cmp -s "$tmp/now.similar" "$prefix.similar" && return 0
    done
    return 1
}

begin setup
t_create=$(elapsed "$bin" index create --docs "$docs_a" --index "$tmp/idx-a" --quiet)
"$bin" index create --docs "$docs_b" --index "$tmp/idx-b" --quiet 2>/dev/null || exit 1
answers "$tmp/idx-a" "$tmp/fresh-a" && answers "$tmp/idx-b" "$tmp/fresh-b" || exit 1
cp -rp "$tmp/idx-a" "$tmp/timing.idx"
t_update=$(elapsed "$bin" index update --docs "$docs_b" --index "$tmp/timing.idx" --quiet)
mid_src=$tmp/mid/source-documents mid_susp=$tmp/mid/suspicious-documents
t_detect=$(elapsed "$bin" detect --source-dir "$mid_src" --suspicious-dir "$mid_susp" --out "$tmp/clean-out" --quiet)
if cmp -s "$tmp/fresh-a.check" "$tmp/fresh-b.check" || [[ $(grep -c '"document":' "$tmp/fresh-a.check") -lt 3 ]]; then
    echo "eval/torture.sh: the probe does not tell the two document sets apart" >&2
    exit 1
fi

# PARTS=NAME[,NAME...] runs only those files of eval/torture.d/ (after the setup).
if [[ -z ${PARTS:-} ]]; then

# ---------------------------------------------------------------- bad input

begin "bad input files (detect)"
src=$tmp/bad/src susp=$tmp/bad/susp
mkdir -p "$src" "$susp" "$tmp/bad/elsewhere"
cp "$root"/corpus-fixtures/pan/source-documents/source-document0000[1-4].txt "$src/"
cp "$root"/corpus-fixtures/pan/suspicious-documents/suspicious-document0000[1-4].txt "$susp/"
: >"$susp/empty.txt"
printf 'text\0with a NUL byte\n' >"$susp/nul.txt"
printf '\xff\xfeU\0T\0F\0-\0001\0006\0 \0t\0e\0x\0t\0\n\0' >"$susp/utf16.txt"
printf 'caf\xe9 au lait, Latin-1\n' >"$susp/latin1.txt"
echo "linked text of some length" >"$tmp/bad/elsewhere/target.txt"
ln -s "$tmp/bad/elsewhere/target.txt" "$susp/link.txt"
ln -s "$tmp/bad/elsewhere/missing.txt" "$susp/broken.txt"
ln -s "$tmp/bad/elsewhere" "$susp/dir-link.txt"
odd_names=("with space.txt" "-leading-dash.txt" "quote\"amp&lt.txt" $'line\nbreak.txt' "ünïcödé.txt")
for n in "${odd_names[@]}"; do cp "$susp/suspicious-document00001.txt" "$susp/$n"; done
printf 'x\n' >"$susp/$(printf 'bad\xffname.txt')"
if [[ $is_root == 0 ]]; then
    echo "unreadable" >"$susp/unreadable.txt"
    chmod 000 "$susp/unreadable.txt"
else
    notes+=("bad input files: running as root, which reads through permissions: unreadable-file case skipped")
fi
out=$tmp/bad/out
pd detect --source-dir "$src" --suspicious-dir "$susp" --out "$out" --quiet
status=$?
outcome "$([[ $status == 0 ]] && echo 1)" "detect on the bad files exited $status"
for n in empty suspicious-document00001 latin1 link "${odd_names[@]%.txt}"; do
    outcome "$([[ -f $out/$n.xml ]] && echo 1)" "no report for $n.txt"
done
for n in nul broken dir-link "bad"; do
    outcome "$(grep -q "/$n.*skipped" "$tmp/err" && echo 1)" "no warning naming $n"
done
[[ $is_root == 0 ]] && outcome "$(grep -q 'unreadable.txt: cannot read' "$tmp/err" && echo 1)" "no warning for unreadable.txt"
outcome "$([[ -f $out/utf16.xml ]] || grep -q 'utf16.txt' "$tmp/err" && echo 1)" "utf16.txt neither reported nor warned about"
outcome "$(reports_parse "$out" "$root/corpus-fixtures/pan/suspicious-documents" && echo 1)" "a report does not parse"
pd detect --source-dir "$src" --suspicious-dir "$susp" --out "$out" --quiet --strict
status=$?
outcome "$([[ $status == 1 ]] && echo 1)" "--strict with skipped files exited $status"
pd index create --docs "$susp" --index "$tmp/bad/idx" --quiet
outcome "$([[ $? == 0 ]] && echo 1)" "index create on the bad files failed"
pd check --index "$tmp/bad/idx" "$susp/nul.txt" "$susp/link.txt" "$susp/broken.txt" >"$tmp/bad/check"
status=$?
outcome "$([[ $status == 0 ]] && grep -q 'link.txt' "$tmp/bad/check" && echo 1)" "check of bad files exited $status"
end

begin "--out in dangerous places"
cp "$root"/corpus-fixtures/pan/suspicious-documents/suspicious-document0000[1-4].xml "$susp/"
ln -s "$susp" "$tmp/bad/susp-link"
echo "a file" >"$tmp/bad/a-file"
mkdir -p "$tmp/bad/truth-copy" "$tmp/bad/read-only"
cp "$susp/suspicious-document00001.xml" "$tmp/bad/truth-copy/"
chmod 555 "$tmp/bad/read-only"
read_only=$tmp/bad/read-only
[[ $is_root == 1 ]] && read_only=/sys/kernel
before=$(cd "$tmp/bad" && find . -path ./out -prune -o -print | sort | xargs -d '\n' md5sum 2>/dev/null | md5sum)
for dangerous in "$susp" "$src" "$src/../src" "$tmp/bad/susp-link" "$tmp/bad/a-file" "$tmp/bad/truth-copy" "$read_only" /dev/null; do
    [[ -d $dangerous || -f $dangerous || -c $dangerous ]] || continue
    pd detect --source-dir "$src" --suspicious-dir "$susp" --out "$dangerous" --quiet
    status=$?
    # Refused with one line naming it, before any document is read (no NUL-byte warning yet).
    outcome "$([[ $status == 1 ]] && ! grep -q 'NUL byte' "$tmp/err" &&
        tail -1 "$tmp/err" | grep -q "$(basename "$dangerous")" && echo 1)" \
        "--out $dangerous: exit $status, $(tail -1 "$tmp/err")"
done
after=$(cd "$tmp/bad" && find . -path ./out -prune -o -print | sort | xargs -d '\n' md5sum 2>/dev/null | md5sum)
outcome "$([[ $before == "$after" ]] && echo 1)" "a refused run changed the inputs or the ground truth"
pd detect --source-dir "$src" --suspicious-dir "$susp" --out "$susp/reports" --quiet
outcome "$([[ $? == 0 && -f $susp/reports/suspicious-document00001.xml ]] && echo 1)" "--out inside the suspicious directory failed"
end

begin "closed stdout and stderr"
fx=$root/corpus-fixtures/pan
# A reader that leaves at once (| true), as | head -1 does after its line.
closed_reader() { local status_file=$1; shift; { "$bin" "$@"; echo $? >"$status_file"; } | true; }
for case in stderr-pipe stderr-closed stdout-pipe stdout-closed; do
    o=$tmp/pipes/$case
    mkdir -p "$o"
    case $case in
        stderr-pipe) { "$bin" detect --source-dir "$src" --suspicious-dir "$susp" --out "$o" 2>&1 >/dev/null; echo $? >"$o.status"; } | head -c 1 >/dev/null ;;
        stderr-closed) "$bin" detect --source-dir "$src" --suspicious-dir "$susp" --out "$o" 2>&-; echo $? >"$o.status" ;;
        stdout-pipe) closed_reader "$o.status" check --index "$tmp/idx-a" "$probe" "$susp/nul.txt" 2>/dev/null ;;
        stdout-closed) "$bin" check --index "$tmp/idx-a" "$probe" >&- 2>/dev/null; echo $? >"$o.status" ;;
    esac
    status=$(cat "$o.status")
    if [[ $case == stderr-* ]]; then
        ok=$([[ $status == 0 && -f $o/suspicious-document00001.xml ]] && echo 1)
    else
        ok=$([[ $status == 0 ]] && echo 1)
    fi
    [[ $status == 101 ]] && panics=$((panics + 1))
    outcome "$ok" "$case: exit $status"
done
for command in "eval --truth $fx/suspicious-documents --detections $tmp/clean-out" "similar --index $tmp/idx-a" \
    "index stats --index $tmp/idx-a" "--help"; do
    # shellcheck disable=SC2086 # the command's words
    closed_reader "$tmp/pipes/status" $command 2>"$tmp/pipes/err"
    status=$(cat "$tmp/pipes/status")
    [[ $status == 101 ]] && panics=$((panics + 1))
    outcome "$([[ $status == 0 ]] && echo 1)" "pan-detect $command | true: exit $status"
done
end

# ---------------------------------------------------------------- kill -9

begin "kill -9 index create"
before_commit=0
for ((i = 0; i < kills; i++)); do
    idx=$tmp/kill-create.idx
    rm -rf "$idx"
    "$bin" index create --docs "$docs_a" --index "$idx" --quiet 2>/dev/null &
    pid=$!
    sleep "$(random_delay "$t_create")"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if ! pd index stats --index "$idx" >/dev/null; then
        # Killed before the commit: no index, and a new create must succeed.
        before_commit=$((before_commit + 1))
        grep -q 'not an index directory' "$tmp/err" && pd index create --docs "$docs_a" --index "$idx" --quiet
    fi
    ok=$(pd index stats --index "$idx" --verify >/dev/null && answers_are "$idx" "$tmp/fresh-a" && echo 1)
    outcome "$ok" "create killed: $(tail -1 "$tmp/err")"
done
end
notes+=("index create: $before_commit of $kills killed before the commit")

begin "kill -9 index update"
old_generation=0
for ((i = 0; i < kills; i++)); do
    idx=$tmp/kill-update.idx
    rm -rf "$idx"
    cp -rp "$tmp/idx-a" "$idx"
    "$bin" index update --docs "$docs_b" --index "$idx" --quiet 2>/dev/null &
    pid=$!
    sleep "$(random_delay "$t_update")"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    # The old generation or the new one, whole; then a finished update gives the new one.
    answers_are "$idx" "$tmp/fresh-a" && old_generation=$((old_generation + 1))
    ok=$(pd index stats --index "$idx" --verify >/dev/null && answers_are "$idx" "$tmp/fresh-a" "$tmp/fresh-b" &&
        pd index update --docs "$docs_b" --index "$idx" --quiet && answers_are "$idx" "$tmp/fresh-b" && echo 1)
    outcome "$ok" "update killed: $(tail -1 "$tmp/err")"
done
end
notes+=("index update: $old_generation of $kills killed before the commit (the old documents' answers)")

begin "kill -9 detect"
partial=0 leftovers=0
for ((i = 0; i < kills; i++)); do
    out=$tmp/kill-detect-out
    rm -rf "$out"
    "$bin" detect --source-dir "$mid_src" --suspicious-dir "$mid_susp" --out "$out" --quiet 2>/dev/null &
    pid=$!
    sleep "$(random_delay "$t_detect")"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    torn=0
    reports=$(find "$out" -maxdepth 1 -name '*.xml' 2>/dev/null | wc -l)
    ((reports > 0 && reports < $(find "$tmp/clean-out" -name '*.xml' | wc -l))) && partial=$((partial + 1))
    [[ -n $(find "$out" -maxdepth 1 -name '.*.tmp' 2>/dev/null) ]] && leftovers=$((leftovers + 1))
    [[ -d $out ]] && ls "$out"/*.xml >/dev/null 2>&1 && ! reports_parse "$out" "$mid_susp" && torn=1
    # A rerun removes the killed run's temporary files and writes what a clean run writes.
    ok=$([[ $torn == 0 ]] && pd detect --source-dir "$mid_src" --suspicious-dir "$mid_susp" --out "$out" --quiet &&
        diff -r "$out" "$tmp/clean-out" >/dev/null && echo 1)
    outcome "$ok" "detect killed: torn=$torn; $(tail -1 "$tmp/err")"
done
end
notes+=("detect: $partial of $kills killed between the first and the last report, $leftovers left temporary files (removed by the rerun)")

# ---------------------------------------------------------------- flipped bytes

begin "byte flip: check/similar --verify"
verify_tried=0
silent=0
laundered_name="byte flip: update, then --verify"
laundered=()
for file in "$tmp"/idx-a/gen-*/*; do
    base=$(basename "$file")
    for docs in "$docs_a" "$docs_b"; do
        idx=$tmp/flip.idx
        rm -rf "$idx"
        cp -rp "$tmp/idx-a" "$idx"
        target=$(echo "$idx"/gen-*/"$base")
        size=$(stat -c %s "$target")
        flip_byte "$target" $(((RANDOM << 15 | RANDOM) % size))
        if [[ $docs == "$docs_a" ]]; then
            pd check --index "$idx" --verify "$probe" >/dev/null
            outcome "$([[ $? == 1 ]] && echo 1)" "check --verify accepted a flipped byte in $base"
            pd similar --index "$idx" --verify >/dev/null
            outcome "$([[ $? == 1 ]] && echo 1)" "similar --verify accepted a flipped byte in $base"
            # Without --verify only lengths and the header are checked (README): a
            # different answer is possible and counted, not failed.
            pd check --index "$idx" --format json "$probe" >"$tmp/flip.check" &&
                ! cmp -s "$tmp/flip.check" "$tmp/fresh-a.check" && silent=$((silent + 1))
            verify_tried=$((verify_tried + 1))
        fi
        # An update must refuse, or leave the damage detectable, or repair it.
        expected=$tmp/fresh-a
        [[ $docs == "$docs_b" ]] && expected=$tmp/fresh-b
        if pd index update --docs "$docs" --index "$idx" --quiet; then
            if pd index stats --index "$idx" --verify >/dev/null; then
                answers_are "$idx" "$expected" || laundered+=("$base (update to $(basename "$docs"))")
            fi
        fi
    done
done
end
notes+=("check without --verify answered differently for $silent of $verify_tried flipped files (documented: only lengths and the header are checked without --verify)")
begin "$laundered_name"
for ((i = 0; i < 2 * verify_tried; i++)); do
    outcome "$([[ $i -ge ${#laundered[@]} ]] && echo 1)" "an update verified and answered wrongly: ${laundered[$i]:-}"
done
end

# ---------------------------------------------------------------- concurrency

begin "20 concurrent checks during updates"
idx=$tmp/concurrent.idx
cp -rp "$tmp/idx-a" "$idx"
stop=$tmp/concurrent.stop
(
    n=0
    while [[ ! -e $stop ]]; do
        for docs in "$docs_b" "$docs_a"; do
            "$bin" index update --docs "$docs" --index "$idx" --quiet 2>>"$tmp/concurrent.update-err" ||
                echo "update failed" >>"$tmp/concurrent.update-failed"
            n=$((n + 1))
        done
    done
    echo "$n" >"$tmp/concurrent.updates"
) &
updater=$!
sleep "$(random_delay "$t_update")"
pids=()
for ((i = 0; i < 20; i++)); do
    "$bin" check --index "$idx" --format json "$probe" >"$tmp/concurrent.$i" 2>"$tmp/concurrent.$i.err" &
    pids+=($!)
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    status=$?
    same=$(cmp -s "$tmp/concurrent.$i" "$tmp/fresh-a.check" || cmp -s "$tmp/concurrent.$i" "$tmp/fresh-b.check"; echo $?)
    grep -q panicked "$tmp/concurrent.$i.err" && panics=$((panics + 1))
    outcome "$([[ $status == 0 && $same == 0 ]] && echo 1)" "check $i: exit $status, $(head -1 "$tmp/concurrent.$i.err")"
done
touch "$stop"
wait "$updater"
grep -q panicked "$tmp/concurrent.update-err" 2>/dev/null && panics=$((panics + 1))
outcome "$([[ ! -e $tmp/concurrent.update-failed ]] && echo 1)" "an update failed: $(head -1 "$tmp/concurrent.update-err")"
notes+=("concurrent checks ran during $(cat "$tmp/concurrent.updates") updates")
end

fi # PARTS

# ---------------------------------------------------------------- more cases
# Each file of eval/torture.d/ adds tests of one area (the archive's own files,
# the server, input that is not a document, ...), with the helpers above.
for part in "$root"/eval/torture.d/*.sh; do
    [[ -e $part ]] || continue
    part_name=$(basename "$part" .sh)
    [[ -z ${PARTS:-} || ,$PARTS, == *,$part_name,* ]] || continue
    # shellcheck source=/dev/null
    source "$part"
done

# ---------------------------------------------------------------- table

printf '%-40s %6s %9s %11s %7s\n' test tried survived mismatches panics
printf '%s\n' "${rows[@]}"
echo
echo "${#rows[@]} tests, $all_tried cases tried, $all_survived survived"
echo "seed $seed, $kills kills per kill test, $(($(date +%s) - started)) s; timings: create ${t_create} s, update ${t_update} s, detect ${t_detect} s"
printf 'note: %s\n' "${notes[@]}"
exit "$failed"
