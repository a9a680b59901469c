#!/usr/bin/env python3
"""How many chunks survive OCR noise, and how rare they are (issue 15).

    eval/ocr-chunk-survival.py CORPUS [K...]

For a PAN-layout corpus of `pan-detect corpus --obfuscation ocr` (or any with an
`obfuscation` attribute on its cases) and chunk words K (default 3 4 5 6), per
hashing (contiguous: words i..i+K-1; interleaved: words i, i+2, ..., i+2(K-1)):
- survive: per noise level, the share of the chunks of a case's suspicious
  passage that are among the chunks of its source passage (what a detection
  can find of the case);
- chance: the share of the chunks of suspicious text outside every case that
  occur anywhere in the source documents (what lets unrelated text match).
Words are those of pan-detect's default tokenizer, approximately: runs of
letters and digits, lower-cased, compatibility-decomposed without combining
marks, of three characters or more; a chunk is its words sorted.
"""

import glob
import os
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET

WORD = re.compile(r"[^\W_]+")


def words(text):
    folded = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
    return [w for w in WORD.findall(folded) if len(w) >= 3]


def chunks(ws, k, step):
    span = step * (k - 1) + 1
    return [tuple(sorted(ws[i : i + span : step])) for i in range(len(ws) - span + 1)]


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    corpus = sys.argv[1]
    configs = [(k, step) for k in (map(int, sys.argv[2:]) if len(sys.argv) > 2 else (3, 4, 5, 6)) for step in (1, 2)]
    sources = {}
    for path in glob.glob(os.path.join(corpus, "source-documents", "*.txt")):
        with open(path, encoding="utf-8") as f:
            sources[os.path.basename(path)] = f.read()
    in_sources = {config: set() for config in configs}
    for text in sources.values():
        ws = words(text)
        for config in configs:
            in_sources[config].update(chunks(ws, *config))
    survive = {}  # (config, level) -> [found, all]
    chance = {config: [0, 0] for config in configs}
    for path in glob.glob(os.path.join(corpus, "suspicious-documents", "*.xml")):
        cases = [e for e in ET.parse(path).getroot() if e.get("this_offset") is not None]
        with open(path[: -len(".xml")] + ".txt", encoding="utf-8") as f:
            text = f.read()
        outside = list(text)
        for case in cases:
            start, length = int(case.get("this_offset")), int(case.get("this_length"))
            source_start, source_length = int(case.get("source_offset")), int(case.get("source_length"))
            mine = words(text[start : start + length])
            theirs = words(sources[case.get("source_reference")][source_start : source_start + source_length])
            outside[start : start + length] = ["\0"] * length
            for config in configs:
                reference = set(chunks(theirs, *config))
                counts = survive.setdefault((config, case.get("obfuscation")), [0, 0])
                found = chunks(mine, *config)
                counts[0] += sum(chunk in reference for chunk in found)
                counts[1] += len(found)
        for part in "".join(outside).split("\0"):
            ws = words(part)
            for config in configs:
                found = chunks(ws, *config)
                chance[config][0] += sum(chunk in in_sources[config] for chunk in found)
                chance[config][1] += len(found)
    levels = sorted({level for _, level in survive}, key=lambda level: ["none", "low", "high"].index(level) if level in ("none", "low", "high") else 9)
    print(f"{'K':>2}  {'hashing':11}  " + "  ".join(f"survive {level:5}" for level in levels) + "  chance")
    for config in configs:
        k, step = config
        cells = "  ".join(f"{survive[config, level][0] / max(survive[config, level][1], 1):13.3f}" for level in levels)
        print(f"{k:>2}  {'contiguous' if step == 1 else 'interleaved':11}  {cells}  {chance[config][0] / max(chance[config][1], 1):.5f}")


if __name__ == "__main__":
    main()
