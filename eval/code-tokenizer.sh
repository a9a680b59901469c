#!/usr/bin/env bash
# The tokenizers on the fixtures written for them (issue 15, pluggable
# tokenizers): `--tokenizer code` against words on copied code with renamed
# variables, `--tokenizer chars:N` against words on text written without
# spaces, scored with `pan-detect eval`; and, given a corpus, each tokenizer's
# detection time relative to words.
#
#   eval/code-tokenizer.sh [CORPUS]
#
# corpus-fixtures/code/: small C and Python programs (FILE.c.txt, FILE.py.txt:
# detect lists *.txt files). Two suspicious programs each contain a function
# copied from a source program with its variables renamed, its layout and
# comments redone and a literal changed; the other pairs share nothing but the
# language. corpus-fixtures/no-spaces/: a Thai and a Japanese text, each with a
# paragraph copied from a source text (line breaks moved, a phrase or a word's
# spelling changed). Each directory's truth.tsv gives the copies' character
# ranges; the script writes it as PAN XML for `pan-detect eval`.
#
# Prints one `pan-detect eval` row (plagdet, recall, precision, granularity) per
# tokenizer and fixture: words with both presets, then code (its own defaults)
# or chars:2 to chars:5 (the pan09 preset's method, as with every tokenizer but
# words).
#
# CODE_FLAGS (environment) are added to the code run's detect flags, e.g.
# CODE_FLAGS="--chunk-words 12 --max-gap 20".
#
# Then times `detect --preset pan09 --threads 1` (median of three runs, and
# the ratio to words') with words, chars:4 and code on this repository's own
# Rust sources (src/**/*.rs, every other file a source document), and with
# words and chars:4 on CORPUS when given (a PAN-layout corpus, e.g.
# ../shared/corpora/dev-en). Needs python3.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/eval/common.sh"
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
require_tools python3
build_release
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pan-detect-code-tokenizer.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

# truth_xml FIXTURE OUT: writes FIXTURE/truth.tsv as one PAN XML truth file per
# suspicious document (an empty one for a document without a copy) in OUT.
truth_xml() {
    python3 - "$1" "$2" <<'EOF'
import os, sys
from xml.sax.saxutils import quoteattr

fixture, out = sys.argv[1:3]
os.makedirs(out)
cases = {name: [] for name in os.listdir(os.path.join(fixture, "suspicious"))}
for line in open(os.path.join(fixture, "truth.tsv"), encoding="utf-8"):
    if line.startswith("#") or not line.strip():
        continue
    susp, s0, s1, src, r0, r1 = line.rstrip("\n").split("\t")
    cases[susp].append((int(s0), int(s1), src, int(r0), int(r1)))
for susp, rows in cases.items():
    features = "".join(
        f'  <feature name="plagiarism" type="artificial" obfuscation="rewritten" this_offset="{s0}" '
        f'this_length="{s1 - s0}" source_reference={quoteattr(src)} source_offset="{r0}" '
        f'source_length="{r1 - r0}"/>\n'
        for s0, s1, src, r0, r1 in rows
    )
    with open(os.path.join(out, os.path.splitext(susp)[0] + ".xml"), "w", encoding="utf-8") as f:
        f.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<document reference={quoteattr(susp)}>\n{features}</document>\n')
EOF
}

# score FIXTURE NAME DETECT-FLAGS...: detects on the fixture and prints its
# `pan-detect eval` row, labelled NAME.
score() {
    local fixture=$root/corpus-fixtures/$1 name=$2 out=$tmp/$1-${2//[^a-z0-9]/-}
    shift 2
    "$binary" detect --quiet --source-dir "$fixture/sources" --suspicious-dir "$fixture/suspicious" \
        --out "$out" "$@" 2>/dev/null
    "$binary" eval --truth "$tmp/truth-$(basename "$fixture")" --detections "$out" |
        awk -v name="$name" '$1 == "all" { printf "| %s | %s | %s | %s | %s |\n", name, $4, $5, $6, $7 }'
}

for fixture in code no-spaces; do
    truth_xml "$root/corpus-fixtures/$fixture" "$tmp/truth-$fixture"
    echo
    echo "corpus-fixtures/$fixture:"
    echo
    echo "| tokenizer | plagdet | recall | precision | granularity |"
    echo "|---|---:|---:|---:|---:|"
    score "$fixture" "words (best)" --tokenizer words
    score "$fixture" "words (pan09)" --tokenizer words --preset pan09
    if [[ $fixture == code ]]; then
        # shellcheck disable=SC2086 # CODE_FLAGS is a list of flags
        score "$fixture" "code${CODE_FLAGS:+ $CODE_FLAGS}" --tokenizer code ${CODE_FLAGS:-}
    else
        for n in 2 3 4 5; do
            score "$fixture" "chars:$n" --tokenizer "chars:$n"
        done
    fi
done

# time_detect CORPUS LABEL KIND...: the median wall time of three `detect
# --preset pan09 --threads 1` runs on CORPUS per tokenizer, and its ratio to
# the first's.
time_detect() {
    local corpus=$1 label=$2 first= kind median
    shift 2
    echo
    echo "$label, detect --preset pan09 --threads 1, median of 3 runs:"
    echo
    echo "| tokenizer | seconds | relative to $1 |"
    echo "|---|---:|---:|"
    for kind in "$@"; do
        local times=()
        for _ in 1 2 3; do
            local start
            start=$(date +%s.%N)
            "$binary" detect --quiet --preset pan09 --threads 1 --tokenizer "$kind" \
                --source-dir "$corpus/source-documents" --suspicious-dir "$corpus/suspicious-documents" \
                --out "$tmp/time" 2>/dev/null
            times+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')")
        done
        median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 2p)
        first=${first:-$median}
        awk -v k="$kind" -v m="$median" -v f="$first" 'BEGIN { printf "| %s | %.2f | %.2f× |\n", k, m, m / f }'
    done
}

# Code to time the code tokenizer on: this repository's Rust sources, every
# other file a source, the rest suspicious.
code_corpus=$tmp/rust-sources
mkdir -p "$code_corpus/source-documents" "$code_corpus/suspicious-documents"
i=0
while IFS= read -r file; do
    side=$([[ $((i % 2)) == 0 ]] && echo source || echo suspicious)
    cp "$file" "$code_corpus/$side-documents/$(echo "${file#"$root"/}" | tr / -).txt"
    i=$((i + 1))
done < <(find "$root/src" -name '*.rs' | sort)
time_detect "$code_corpus" "src/**/*.rs" words chars:4 code
if [[ $# -ge 1 ]]; then
    time_detect "$1" "$1" words chars:4
fi
