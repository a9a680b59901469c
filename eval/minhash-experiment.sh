#!/usr/bin/env bash
# Celozzi & Ciabini's MinHash/LSH experiment (issue 15), beside the chunk index.
#
# Usage: eval/minhash-experiment.sh CORPUS [TRIALS] [RUNS]
#   CORPUS  a PAN-layout corpus (e.g. ../shared/corpora/dev-en); its source
#           documents are used
#   TRIALS  documents, one trial each (default 50)
#   RUNS    runs per timing, the median reported (default 3)
#
# For each of the TRIALS source documents with the most lines, writes copies
# that keep 80, 60, 50, 40 and 20 % of its lines (chosen at random) and
# replace the others by random lines of about the same length (one of the
# 50 nearest in length) from the other source documents. Then:
# 1. for each (bands, rows) of (50,2), (25,4), (20,5), (10,10): runs
#    `similar --method minhash --docs COPIES --against ARCHIVE` (ARCHIVE: every
#    source document) and counts the trials whose copy is paired with its
#    original, beside the ideal 1-(1-t^r)^b (t: the Jaccard similarity of the
#    copy's and the original's 10-character shingle sets, computed here);
# 2. builds an archive index of the same documents (`index create`) and
#    `check --format json` of every copy, and counts the trials whose report
#    lists the original among its sources;
# 3. prints both tables as Markdown, with the median wall time and peak RSS
#    (/usr/bin/time -v) of each step over RUNS runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source eval/common.sh
setup_corpus_run "$@"
shift
python3 eval/minhash-experiment.py "$binary" "$corpus" "$tmp" "${1:-50}" "${2:-3}"
