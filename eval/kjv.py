"""The King James Bible as eval/formulaic.sh reads it, for the scripts that
measure its repeats without pan-detect (eval/formulaic-parallels.py,
eval/formulaic-unparalleled.py; imported through PYTHONPATH=eval): its verses and
chapters, runs of words located to verses, a published list of its
cross-references, and the texts the corpus is built from."""

import collections
import json
import os
import re
import sys

from documents import group

RUN_WORDS = 8
STRETCH_WORDS = 6
# A run of words found in more chapters of the Bible than this is one of its
# formulas ("years old when he began to reign, and he reigned", "did that which
# was evil in the sight of the LORD"): sharing it is sharing scaffolding, which
# is what the corpus tests, not a repeat of the same text.
FORMULA_CHAPTERS = 3


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


def run_index(verses, length):
    """Every run of `length` words of the Bible -> the verses it starts in."""
    flat, owner = [], []
    for verse in verses:
        for word in words(verse[3]):
            flat.append(word)
            owner.append(tuple(verse[:3]))
    index = collections.defaultdict(set)
    for i in range(len(flat) - length + 1):
        index[tuple(flat[i : i + length])].add(owner[i])
    return index


def particular(verses):
    """Whether a run found in `verses` is particular text, not a formula."""
    return len({verse[:2] for verse in verses}) <= FORMULA_CHAPTERS


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
        sys.exit(f"kjv.py: {path}: {len(codes)} books, the text has {book_count}")
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


def chapters_of(verses):
    """Chapter (book, chapter) -> its verses' texts, in the Bible's order."""
    chapters = collections.OrderedDict()
    for book, chapter, _, text in verses:
        chapters.setdefault((book, chapter), []).append(text)
    return chapters


def write_texts(chapters, out):
    """Writes `chapters` (each one text, verses joined by spaces) to `out` as
    the corpus builder's texts, kjv-001.txt, ...: consecutive chapters joined
    into documents of about 12,000 characters, one paragraph per chapter.
    Returns how many were written."""
    documents = group(chapters, target=12000, min_last=4000)
    os.makedirs(out, exist_ok=True)
    for number, document in enumerate(documents, 1):
        with open(os.path.join(out, "kjv-%03d.txt" % number), "w", encoding="utf-8") as f:
            f.write("\n\n".join(document) + "\n")
    return len(documents)
