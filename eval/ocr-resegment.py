#!/usr/bin/env python3
"""Words independent of the spaces, simulated (issue 15, noise-robust chunks).

    eval/ocr-resegment.py CORPUS OUT [W L MIN MAX]

Rewrites the PAN-layout corpus CORPUS into OUT as its letter streams cut into
content-defined segments, to measure what a tokenizer that ignores where the
spaces are would give contiguous and interleaved chunks on OCR noise, without
writing one: broken words (`infor mation`) and merged ones (`ofthe`) leave the
letter stream as it is, so only misread letters still change segments.

Each document's letters and digits are lower-cased and stripped of combining
marks (NFKD), everything else dropped; a segment ends after a letter when the
CRC-32 of the last W letters is divisible by L and the segment has MIN letters
or more, or when it has MAX letters (defaults 3, 5, 2, 12: segments of about
five letters, a boundary depending on three letters only, so that segments
resynchronise three letters after a change). The segments are written
separated by one space; the cases' offsets and lengths in the ground truth are
mapped to the new texts (an offset goes to the first letter at or after it).
Score the result with `DETECT_FLAGS="--min-word-len 1" eval/ocr-hashing.sh OUT`
(segments of two letters must count as words).
"""

import glob
import os
import sys
import unicodedata
import xml.etree.ElementTree as ET
import zlib


def fold(c):
    """Lower-case, compatibility-decomposed, without combining marks."""
    return "".join(x for x in unicodedata.normalize("NFKD", c.lower()) if not unicodedata.combining(x))


def segment(text, w, period, least, most):
    """The segmented text and, per character offset of `text` (and its end),
    the offset in it of the first letter at or after that character."""
    letters = []  # (folded letter, offset in text)
    for at, c in enumerate(text):
        if c.isalnum():
            letters.extend((f, at) for f in fold(c) if f.isalnum())
    out, first_at = [], {}
    length = 0
    for j, (f, at) in enumerate(letters):
        first_at.setdefault(at, len(out))
        out.append(f)
        length += 1
        window = "".join(x for x, _ in letters[max(0, j - w + 1) : j + 1])
        if length >= most or (length >= least and zlib.crc32(window.encode()) % period == 0):
            out.append(" ")
            length = 0
    new = "".join(out).rstrip(" ")
    mapped, following = [0] * (len(text) + 1), len(new)
    for at in range(len(text), -1, -1):
        following = min(first_at.get(at, following), len(new))
        mapped[at] = following
    return new, mapped


def main():
    if len(sys.argv) not in (3, 7):
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    corpus, out = sys.argv[1], sys.argv[2]
    w, period, least, most = map(int, sys.argv[3:7]) if len(sys.argv) == 7 else (3, 5, 2, 12)
    maps = {}
    for kind in ("source-documents", "suspicious-documents"):
        os.makedirs(os.path.join(out, kind), exist_ok=True)
        for path in sorted(glob.glob(os.path.join(corpus, kind, "*.txt"))):
            with open(path, encoding="utf-8") as f:
                new, mapped = segment(f.read(), w, period, least, most)
            with open(os.path.join(out, kind, os.path.basename(path)), "w", encoding="utf-8") as f:
                f.write(new)
            maps[os.path.basename(path)] = mapped
    for path in sorted(glob.glob(os.path.join(corpus, "suspicious-documents", "*.xml"))):
        tree = ET.parse(path)
        root = tree.getroot()
        this = maps[root.get("reference")]
        for feature in root:
            if feature.get("this_offset") is None:
                continue
            source = maps[feature.get("source_reference")]
            for offset, length, mapped in (("this_offset", "this_length", this), ("source_offset", "source_length", source)):
                start, end = int(feature.get(offset)), int(feature.get(offset)) + int(feature.get(length))
                feature.set(offset, str(mapped[start]))
                feature.set(length, str(max(mapped[end] - mapped[start], 0)))
        tree.write(os.path.join(out, "suspicious-documents", os.path.basename(path)), encoding="UTF-8", xml_declaration=True)


if __name__ == "__main__":
    main()
