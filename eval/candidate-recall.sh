#!/usr/bin/env bash
# Candidate recall of the `best` preset's first stage: the share of ground-truth
# cases whose (suspicious, source) document pair is among the candidate pairs the
# chunk index hands to the alignment stage, overall and per obfuscation class,
# and the number of candidate pairs.
#
#   eval/candidate-recall.sh CORPUS [detect flags...]
#
# CORPUS is a PAN-layout corpus (source-documents/, suspicious-documents/ with the
# truth beside the texts). Extra arguments go to `pan-detect detect`, e.g.
# `--candidate-min-common 6`. It runs the release binary with the hidden flag
# `--report-candidates` (every candidate pair reported as one whole-document
# detection) and `--overlap keep-all`, then compares document pairs.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
setup_corpus_run "$@"
shift
"$binary" --source-dir "$corpus/source-documents" --suspicious-dir "$corpus/suspicious-documents" \
    --out "$tmp/candidates" --quiet --report-candidates --overlap keep-all "$@"

# One line per case: "truth <suspicious> <source> <obfuscation>"; one per
# candidate pair: "candidate <suspicious> <source>".
{
    for truth in "$corpus"/suspicious-documents/*.xml; do
        name=$(basename "$truth")
        grep -o '<feature [^>]*name="[a-z-]*plagiarism"[^>]*>' "$truth" | grep -v 'detected-plagiarism' |
            sed -n 's/.*source_reference="\([^"]*\)".*/\1/p; ' | sed "s|^|truth $name |" |
            paste -d' ' - <(grep -o '<feature [^>]*name="[a-z-]*plagiarism"[^>]*>' "$truth" |
                grep -v 'detected-plagiarism' | sed 's/.*obfuscation="\([^"]*\)".*/\1/; t; s/.*/unknown/') || true
    done
    for report in "$tmp"/candidates/*.xml; do
        name=$(basename "$report")
        grep -o 'source_reference="[^"]*"' "$report" | sed "s|source_reference=\"\(.*\)\"|candidate $name \1|" || true
    done
} | awk '
    $1 == "candidate" { candidate[$2 " " $3] = 1; pairs++; next }
    $1 == "truth" { cls = ($4 == "" ? "unknown" : $4); total[cls]++; all++; cases[all] = $2 " " $3; class[all] = cls }
    END {
        for (i = 1; i <= all; i++) if (cases[i] in candidate) { found[class[i]]++; hit++ }
        printf "%-14s %6s %6s %8s\n", "obfuscation", "cases", "found", "recall"
        printf "%-14s %6d %6d %8.4f\n", "all", all, hit, all ? hit / all : 0
        for (c in total) printf "%-14s %6d %6d %8.4f\n", c, total[c], found[c], found[c] / total[c]
        printf "candidate pairs %d\n", pairs
    }'
