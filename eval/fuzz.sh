#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for SECONDS each (default 60), one after the
# other, one job each, and prints one table: target, executions, seconds,
# crashes. Exits with status 1 when any target crashed (or hung, or ran out of
# memory), 2 when the fuzzers could not be built or run.
#
#   eval/fuzz.sh [SECONDS]
#
# Works on a stable toolchain: cargo-fuzz passes nightly-only flags to rustc,
# which RUSTC_BOOTSTRAP=1 allows. cargo-fuzz is installed (`cargo install
# --locked cargo-fuzz`) when it is missing. Targets are built with debug
# assertions and overflow checks (`-a`) and, by default, without a sanitizer:
# AddressSanitizer builds and runs on stable too (SANITIZER=address), but the
# library's only unsafe code is a prefetch hint, syncfs and the archive's
# read-only mmap, so it finds nothing that Rust's own checks miss and halves
# the executions per second.
#
# Environment:
#   SANITIZER   address, none (default), ...: passed to `cargo fuzz --sanitizer`
#   TARGETS     space-separated targets to run (default: all of `cargo fuzz list`)
#   FUZZ_PROFILE  release (default) or dev: dev builds the targets unoptimised, in
#               about a third of the time (2.3 instead of 7 minutes here), at a
#               tenth or less of the executions per second on the heavy targets
#               (detect); CI uses it, as its few seconds per target are a smoke test
#
# The seed corpus fuzz/corpus/TARGET is only read; what the fuzzer finds goes to
# fuzz/target/corpus/TARGET (kept between runs, ignored by git), a crashing
# input to fuzz/artifacts/TARGET/, and each run's log to
# fuzz/target/logs/TARGET.log. fuzz/README.md says how to reproduce a crash.
set -euo pipefail

seconds=${1:-60}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: eval/fuzz.sh [SECONDS]   (SECONDS a positive integer, default 60)" >&2
    exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/../fuzz"

export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz (cargo install --locked cargo-fuzz)" >&2
    cargo install --locked cargo-fuzz </dev/null >&2
fi

sanitizer=${SANITIZER:-none}
flags=(--sanitizer "$sanitizer" --debug-assertions)
profile=${FUZZ_PROFILE:-release}
case $profile in
    release) ;;
    dev) flags+=(--dev) ;;
    *)
        echo "eval/fuzz.sh: FUZZ_PROFILE must be release or dev, not '$profile'" >&2
        exit 2
        ;;
esac
echo "== building the fuzz targets ($profile profile, sanitizer: $sanitizer, debug assertions on)" >&2
cargo fuzz build "${flags[@]}" </dev/null >&2

read -r -a targets <<<"${TARGETS:-$(cargo fuzz list | tr '\n' ' ')}"
mkdir -p target/logs
rows=()
crashed=0
for target in "${targets[@]}"; do
    work=target/corpus/$target
    artifacts=artifacts/$target
    log=target/logs/$target.log
    mkdir -p "$work" "$artifacts"
    seeds=()
    [[ -d corpus/$target ]] && seeds=("corpus/$target")
    before=$(find "$artifacts" -type f | wc -l)
    echo "== fuzzing $target for $seconds s (log: fuzz/$log)" >&2
    started=$(date +%s)
    # The run's status is judged from its artifacts and its log, not its exit code.
    cargo fuzz run "${flags[@]}" "$target" "$work" "${seeds[@]}" -- \
        -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" </dev/null >"$log" 2>&1 || true
    elapsed=$(($(date +%s) - started))
    crashes=$(($(find "$artifacts" -type f | wc -l) - before))
    # libFuzzer's final line is "Done N runs in S second(s)"; after a crash there
    # is none, and the executions come from the final stats.
    runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
    secs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -n 1)
    if [[ -z $runs ]]; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$log" | tail -n 1)
        secs=$elapsed
    fi
    if [[ -z $runs ]]; then
        echo "eval/fuzz.sh: $target did not run; the end of fuzz/$log:" >&2
        tail -n 20 "$log" >&2
        exit 2
    fi
    if ((crashes > 0)); then
        crashed=1
        grep -a -E -m 5 "panicked at|^SUMMARY|Test unit written" "$log" >&2 || true
    fi
    rows+=("$(printf '%-16s %12s %8s %8s' "$target" "$runs" "$secs" "$crashes")")
done

printf '%-16s %12s %8s %8s\n' target executions seconds crashes
printf '%s\n' "${rows[@]}"
if ((crashed)); then
    echo "eval/fuzz.sh: crashes found; inputs in fuzz/artifacts/ (see fuzz/README.md to reproduce)" >&2
    exit 1
fi
