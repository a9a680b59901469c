#!/usr/bin/env bash
# `extract` (duplicates inside one collection, no query) against a full
# self-`detect` and against `similar --method minhash`, on a PAN-layout corpus's
# documents pooled into one directory (symbolic links to its source and
# suspicious documents).
#
#   eval/extract-bench.sh [CORPUS]      (default ../shared/corpora/dev-en)
#
# For each preset (PRESETS, default "best pan09"):
# 1. Times (median of RUNS, default 3) `detect` of the pool against itself
#    (each document against every other one, not itself) and `extract --docs`
#    of the pool, both writing PAN XML.
# 2. Compares their passages per document and other document. A passage of
#    detect is found when extract reports one with the same two documents that
#    overlaps it on both sides; extract's passages overlapping none of
#    detect's are extra. Characters: detect's passages' characters (per
#    document and other document) that extract's cover, and extract's that
#    detect's do not. An extra passage whose two sides both overlap passages
#    detect reports with other documents is text the two documents share
#    through a third, which detect's overlap resolution leaves out.
# 3. Times `extract --sigma K` for K = 0, 1, 2 and counts its passages and groups.
# Then times `similar --method minhash --docs` of the pool (default banding and
# --bands 50 --rows 2) and compares its candidate pairs with the document pairs
# extract (best) reports.
# Machine load changes the times: the load average is printed first.
# Needs bash, python3, coreutils.
set -euo pipefail

cd "$(dirname "$0")/.."
source eval/common.sh
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
corpus=${1:-../shared/corpora/dev-en}
for dir in "$corpus/source-documents" "$corpus/suspicious-documents"; do
    if [[ ! -d $dir ]]; then
        echo "eval/extract-bench.sh: $dir: no such directory (expected a PAN-layout corpus)" >&2
        exit 2
    fi
done
require_tools python3
build_release
RUNS=${RUNS:-3}
PRESETS=${PRESETS:-best pan09}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pan-detect-extract-bench.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

pool=$tmp/pool
mkdir "$pool"
for dir in source-documents suspicious-documents; do
    for file in "$corpus/$dir"/*.txt; do
        ln -s "$(realpath "$file")" "$pool/$(basename "$file")"
    done
done
echo "pool: $(find "$pool" -name '*.txt' | wc -l) documents, $(cat "$pool"/*.txt | wc -c) bytes;" \
    "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# median_time LOG COMMAND...: runs COMMAND RUNS times (stderr into LOG, the
# last run's kept) and prints the median wall time in seconds.
median_time() {
    local log=$1
    shift
    local times=()
    for _ in $(seq "$RUNS"); do
        local start end
        start=$(date +%s.%N)
        "$@" >/dev/null 2>"$log"
        end=$(date +%s.%N)
        times+=("$(python3 -c "print($end - $start)")")
    done
    printf '%s\n' "${times[@]}" | sort -g |
        python3 -c "import sys; t = [float(x) for x in sys.stdin]; print(f'{t[len(t) // 2]:.2f}')"
}

# compare DETECT_DIR EXTRACT_DIR: the agreement of two PAN XML report directories.
compare() {
    python3 - "$1" "$2" <<'EOF'
import collections, glob, os, sys
import xml.etree.ElementTree as ET

def passages(directory):
    """(document, other) -> [((start, end) in document, (start, end) in other)]"""
    found = collections.defaultdict(list)
    for path in glob.glob(os.path.join(directory, "*.xml")):
        root = ET.parse(path).getroot()
        for f in root:
            this = int(f.get("this_offset")), int(f.get("this_offset")) + int(f.get("this_length"))
            source = int(f.get("source_offset")), int(f.get("source_offset")) + int(f.get("source_length"))
            if f.get("source_reference") != root.get("reference"):
                found[(root.get("reference"), f.get("source_reference"))].append((this, source))
    return found

def overlaps(x, y):
    return x[0] < y[1] and y[0] < x[1]

def chars(ranges):
    covered = set()
    for start, end in ranges:
        covered.update(range(start, end))
    return covered

detect, extract = passages(sys.argv[1]), passages(sys.argv[2])
detect_count = sum(map(len, detect.values()))
extract_count = sum(map(len, extract.values()))
found = sum(1 for key, ps in detect.items() for p in ps
            if any(overlaps(p[0], q[0]) and overlaps(p[1], q[1]) for q in extract.get(key, [])))
extras = [(key, q) for key, qs in extract.items() for q in qs
          if not any(overlaps(p[0], q[0]) and overlaps(p[1], q[1]) for p in detect.get(key, []))]
covered = lambda document, span: any(overlaps(p[0], span) for (d, _), ps in detect.items() if d == document for p in ps)
shadowed = sum(1 for (document, other), q in extras if covered(document, q[0]) and covered(other, q[1]))
exact = sum(len(set(ps) & set(extract.get(key, []))) for key, ps in detect.items())
detect_chars = extract_chars = common_chars = 0
for key in set(detect) | set(extract):
    d, e = chars(p[0] for p in detect.get(key, [])), chars(q[0] for q in extract.get(key, []))
    detect_chars += len(d)
    extract_chars += len(e)
    common_chars += len(d & e)
pairs = lambda found: {tuple(sorted(key)) for key in found}
print(f"  passages (both directions): detect {detect_count}, extract {extract_count}; "
      f"detect's found by extract {found} ({100 * found / max(detect_count, 1):.1f} %), identical {exact}; "
      f"extract's extra {len(extras)}, of which {shadowed} overlap detect's passages with other documents "
      f"on both sides")
print(f"  characters: detect {detect_chars}, extract {extract_chars}; "
      f"detect's covered {100 * common_chars / max(detect_chars, 1):.1f} %, "
      f"extract's outside detect's {100 * (extract_chars - common_chars) / max(extract_chars, 1):.1f} %")
print(f"  document pairs: detect {len(pairs(detect))}, extract {len(pairs(extract))}, "
      f"both {len(pairs(detect) & pairs(extract))}")
EOF
}

for preset in $PRESETS; do
    echo "preset $preset"
    detect_time=$(median_time "$tmp/detect.log" "$binary" detect --source-dir "$pool" --suspicious-dir "$pool" \
        --out "$tmp/detect-$preset" --preset "$preset" --quiet)
    extract_time=$(median_time "$tmp/extract.log" "$binary" extract --docs "$pool" --preset "$preset" \
        --format pan-xml --out "$tmp/extract-$preset" --quiet)
    echo "  detect (self): $detect_time s: $(sed 's/^pan-detect: //' "$tmp/detect.log")"
    echo "  extract:       $extract_time s: $(sed 's/^pan-detect: //' "$tmp/extract.log")"
    compare "$tmp/detect-$preset" "$tmp/extract-$preset"
    for sigma in 0 1 2; do
        sigma_time=$(median_time "$tmp/sigma.log" "$binary" extract --docs "$pool" --preset "$preset" --sigma "$sigma" \
            --format jsonl --out "$tmp/sigma.jsonl" --quiet)
        echo "  --sigma $sigma: $sigma_time s: $(sed 's/^pan-detect: //' "$tmp/sigma.log")"
    done
done

if [[ " $PRESETS " == *" best "* ]]; then
    echo "similar --method minhash (document pairs, against extract --preset best)"
    for banding in "" "--bands 50 --rows 2"; do
        # shellcheck disable=SC2086 # the banding flags are two words each
        similar_time=$(median_time "$tmp/similar.log" "$binary" similar --method minhash --docs "$pool" $banding \
            --format jsonl --quiet)
        # shellcheck disable=SC2086
        "$binary" similar --method minhash --docs "$pool" $banding --format jsonl --quiet >"$tmp/similar.jsonl" 2>/dev/null
        python3 - "$tmp/similar.jsonl" "$tmp/extract-best" "$similar_time" "${banding:-default banding}" <<'EOF'
import glob, json, os, sys
import xml.etree.ElementTree as ET
similar = {tuple(sorted((p["document"], p["other"]))) for p in map(json.loads, open(sys.argv[1]))}
extract = set()
for path in glob.glob(os.path.join(sys.argv[2], "*.xml")):
    root = ET.parse(path).getroot()
    extract.update(tuple(sorted((root.get("reference"), f.get("source_reference")))) for f in root)
print(f"  {sys.argv[4]}: {sys.argv[3]} s: {len(similar)} candidate pairs; extract's {len(extract)} document pairs: "
      f"{len(similar & extract)} among them ({100 * len(similar & extract) / max(len(extract), 1):.1f} %)")
EOF
    done
fi
