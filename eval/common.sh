# Shared by the eval/ scripts: `build_release` and `require_tools` for all; for
# those that take a PAN-layout corpus, argument checks, the release build and a
# temporary directory: source it after `set -euo pipefail`, then call
# `setup_corpus_run "$@"` and `shift`.

# Prints the script's leading comment block (its usage text).
usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; }

# setup_corpus_run CORPUS [...]: prints the usage for no arguments or -h/--help;
# checks that CORPUS holds source-documents/ and suspicious-documents/; builds
# the release binary. Sets `corpus`, `binary` and `tmp` (a temporary directory
# removed on exit).
setup_corpus_run() {
    if [[ $# -lt 1 ]]; then
        usage >&2
        exit 2
    elif [[ $1 == -h || $1 == --help ]]; then
        usage
        exit 0
    fi
    corpus=$1
    local dir
    for dir in "$corpus/source-documents" "$corpus/suspicious-documents"; do
        if [[ ! -d $dir ]]; then
            echo "eval/$(basename "$0"): $dir: no such directory (expected a PAN-layout corpus)" >&2
            exit 2
        fi
    done
    build_release
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/pan-detect-$(basename "$0" .sh).XXXXXX")
    trap 'rm -rf -- "$tmp"' EXIT
}

# require_tools TOOL...: exits with status 2 naming the first tool not on the PATH.
require_tools() {
    local tool
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null; then
            echo "eval/$(basename "$0"): needs $tool" >&2
            exit 2
        fi
    done
}

# build_release: builds the release binary and sets `binary` to it
# (CARGO_TARGET_DIR honoured).
build_release() {
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    cargo build --release --quiet --manifest-path "$root/Cargo.toml"
    binary=${CARGO_TARGET_DIR:-$root/target}/release/pan-detect
}

# bench_corpus_source: what eval/bench.sh and eval/cluster-bench.sh build their
# cached corpora from, so that both name and reuse them alike. Sets TEXTS and
# TEXTS_NAME (dev-en's sources beside the project, else the bundled fixture
# texts) and BUILDER, the stamp of the corpus builder's source: the git tree of
# src/corpus_builder, or a one-off stamp when it has uncommitted changes (a
# cached corpus is reused only when its stamp is BUILDER).
bench_corpus_source() {
    if [ -d ../shared/corpora/dev-en/source-documents ]; then
        TEXTS=../shared/corpora/dev-en/source-documents
        TEXTS_NAME=dev-en-sources
    else
        TEXTS=corpus-fixtures/texts
        TEXTS_NAME=fixture-texts
    fi
    BUILDER=$(git rev-parse HEAD:src/corpus_builder 2>/dev/null || echo unknown)
    if [ "$BUILDER" = unknown ] || ! git diff --quiet HEAD -- src/corpus_builder 2>/dev/null; then
        BUILDER="uncommitted-$(date +%s)"
    fi
}

# preset_table NAME CORPUS PRESET TABLE: prints `eval/run.sh CORPUS --preset
# PRESET` (the table per obfuscation class, then time and memory) under a
# heading naming NAME, and keeps it in TABLE.
preset_table() {
    echo
    echo "== $1: eval/run.sh $2 --preset $3"
    "$(dirname "${BASH_SOURCE[0]}")/run.sh" "$2" --preset "$3" | tee "$4"
}

# table_field TABLE CLASS FIELD: field FIELD (4 plagdet, 5 recall, 6 precision,
# 7 granularity) of CLASS's row (all, none, word-shuffle, ...) in a TABLE of
# eval/run.sh; `?` when it has no such row.
table_field() {
    awk -v class="$2" -v field="$3" '$1 == class { value = $field; exit } END { print value == "" ? "?" : value }' "$1"
}
