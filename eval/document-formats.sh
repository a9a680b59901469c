#!/usr/bin/env bash
# Measures issue 13's target on the document fixtures (corpus-fixtures/documents,
# made by its make.sh from two plain-text suspicious documents of
# corpus-fixtures/pan): the text extracted from each PDF, DOCX, ODT and HTML, and
# the passages `detect` finds in it, against those of the plain-text original.
#
#   eval/document-formats.sh
#
# Prints per document and format:
# - text: characters of the original that differ from the extracted text (inserted
#   plus deleted, Python's difflib over characters), in % of the original's
#   characters; once as extracted, once with white space runs as one space;
# - passages (per preset): characters covered by the detected passages that are
#   covered in one report and not in the other (the suspicious side mapped onto
#   the original through the same character alignment, the source side as is),
#   in % of those the original's report covers.
# Then the extraction speed: `pan-detect text` of 200 copies of each PDF.
# The target is at most 1 % everywhere; tests/cli/documents.rs asserts it too.
# About 10 s after the release build.
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
require_tools python3
build_release
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pan-detect-document-formats.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
fixtures=$root/corpus-fixtures

mkdir -p "$tmp/plain"
for doc in suspicious-document00001 suspicious-document00007; do
    cp "$fixtures/pan/suspicious-documents/$doc.txt" "$tmp/plain/"
done
"$binary" text "$fixtures"/documents/suspicious-document*.* --out "$tmp/texts" 2>/dev/null
for preset in best pan09; do
    "$binary" detect --source-dir "$fixtures/pan/source-documents" --suspicious-dir "$tmp/plain" \
        --out "$tmp/plain-$preset" --preset "$preset" --quiet 2>/dev/null
    "$binary" detect --source-dir "$fixtures/pan/source-documents" --suspicious-dir "$fixtures/documents" \
        --out "$tmp/documents-$preset" --preset "$preset" --quiet 2>/dev/null
done

python3 - "$fixtures" "$tmp" <<'PY'
import difflib
import os
import sys
import xml.etree.ElementTree as ET

fixtures, tmp = sys.argv[1], sys.argv[2]
documents = sorted(f for f in os.listdir(f"{fixtures}/documents") if f.startswith("suspicious-document"))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def differing(a, b):
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    same = sum(block.size for block in matcher.get_matching_blocks())
    return len(a) + len(b) - 2 * same, matcher


def mapper(matcher, original_len):
    """Position in the extracted text -> position in the original."""
    opcodes = matcher.get_opcodes()

    def to_original(at):
        for tag, i1, i2, j1, j2 in opcodes:
            if j1 <= at < j2:
                return i1 + (at - j1) if tag == "equal" else i1
        return original_len

    return to_original


def coverage(report, to_original):
    covered = set()
    for feature in ET.parse(report).getroot():
        this, length = int(feature.get("this_offset")), int(feature.get("this_length"))
        covered |= {("suspicious", i) for i in range(to_original(this), to_original(this + length))}
        source, offset = feature.get("source_reference"), int(feature.get("source_offset"))
        covered |= {(source, i) for i in range(offset, offset + int(feature.get("source_length")))}
    return covered


print(f"{'document':32} {'chars':>6} {'text %':>7} {'words %':>7} {'best %':>7} {'pan09 %':>7}")
for name in documents:
    stem = name.rsplit(".", 1)[0]
    original = read(f"{fixtures}/pan/suspicious-documents/{stem}.txt")
    text = read(f"{tmp}/texts/{name}.txt")
    raw, matcher = differing(original, text)
    words, _ = differing(" ".join(original.split()), " ".join(text.split()))
    row = [f"{name:32}", f"{len(text):6}", f"{100 * raw / len(original):7.3f}", f"{100 * words / len(original):7.3f}"]
    for preset in ["best", "pan09"]:
        expected = coverage(f"{tmp}/plain-{preset}/{stem}.xml", lambda at: at)
        found = coverage(f"{tmp}/documents-{preset}/{name}.xml", mapper(matcher, len(original)))
        row.append(f"{100 * len(expected ^ found) / len(expected):7.3f}")
    print(" ".join(row))
PY

mkdir -p "$tmp/speed"
for pdf in "$fixtures"/documents/*.pdf; do
    for i in $(seq 1 200); do cp "$pdf" "$tmp/speed/$i-$(basename "$pdf")"; done
done
bytes=$(du -cb "$tmp"/speed/*.pdf | tail -1 | cut -f1)
start=$(date +%s.%N)
"$binary" text "$tmp"/speed/*.pdf --out "$tmp/speed-texts" --quiet 2>/dev/null
end=$(date +%s.%N)
chars=$(cat "$tmp"/speed-texts/*.txt | wc -m)
python3 -c "import sys; s = $end - $start; print(f'text: 400 PDFs, {$bytes / 1e6:.1f} MB of PDF, {$chars / 1e6:.1f} M characters in {s:.2f} s: {$bytes / 1e6 / s:.1f} MB/s of PDF, {$chars / 1e6 / s:.2f} M characters/s')"
