"""The texts of eval/formulaic.sh with the Bible's parallels left out, so that
the corpus built from them holds (nearly) no shared text that its truth does
not list, and a detection that overlaps no case is a formula matched to another
(a regnal formula with another king's name and years), not a repeat:

  formulaic-unparalleled.py KJV CROSSREFS OUT

KJV and CROSSREFS are as for eval/formulaic-parallels.py. Two chapters are
*parallel* when they share a run of 8 words that is none of the Bible's formulas
(found in at most three chapters: eval/kjv.py), or when the published
cross-reference list links at least half of the verses of the shorter one (and at
least three) to the other, and half of the other's back (the synoptic gospels,
Kings and Chronicles, Acts 8 and Isaiah 53). Of each parallel pair one chapter is
left out, the one with the most parallels first, until no pair is left; the rest
are cut into documents of about 12,000 characters as eval/formulaic.sh cuts the
whole Bible. Repeats inside one chapter (Numbers 7's twelve offerings) stay: a
chapter may still be cut between two documents.
"""

import collections
import sys

from kjv import RUN_WORDS, chapters_of, particular, read_crossrefs, read_verses, run_index, write_texts

LINKED_SHARE = 0.5
LEAST_LINKED_VERSES = 3


def listed_parallels(chapters, links):
    """Pairs of chapters the cross-reference list links verse by verse."""
    linked = collections.defaultdict(set)  # (chapter, other chapter) -> verses of the first linked
    for (book, chapter, verse), targets in links.items():
        for target in targets:
            if target[:2] != (book, chapter):
                linked[((book, chapter), target[:2])].add(verse)
    parallels = set()
    for (a, b), verses in linked.items():
        if a in chapters and b in chapters:
            least = max(LEAST_LINKED_VERSES, LINKED_SHARE * min(len(chapters[a]), len(chapters[b])))
            if len(verses) >= least and len(linked.get((b, a), ())) >= least:
                parallels.add(frozenset((a, b)))
    return parallels


def run_parallels(verses):
    """Pairs of chapters that share a run of RUN_WORDS words that is no formula."""
    parallels = set()
    for located in run_index(verses, RUN_WORDS).values():
        chapters = sorted({verse[:2] for verse in located})
        if len(chapters) > 1 and particular(located):
            parallels.update(frozenset((a, b)) for i, a in enumerate(chapters) for b in chapters[i + 1 :])
    return parallels


def left_out(parallels):
    """Chapters to leave out so that no parallel pair is left: greedily, the
    chapter with the most parallels still standing first."""
    neighbours = collections.defaultdict(set)
    for a, b in map(tuple, parallels):
        neighbours[a].add(b)
        neighbours[b].add(a)
    out = set()
    while True:
        standing = {c: len(n - out) for c, n in neighbours.items() if c not in out}
        chapter = max(standing, key=lambda c: (standing[c], c), default=None)
        if chapter is None or standing[chapter] == 0:
            return out
        out.add(chapter)


def main():
    kjv, crossrefs, out = sys.argv[1:4]
    verses = read_verses(kjv)
    chapters = chapters_of(verses)
    links = read_crossrefs(crossrefs, len({v[0] for v in verses}))
    listed, runs = listed_parallels(chapters, links), run_parallels(verses)
    dropped = left_out(listed | runs)
    kept = [" ".join(texts) for chapter, texts in chapters.items() if chapter not in dropped]
    documents = write_texts(kept, out)
    print(
        f"   {len(chapters)} chapters, {len(listed | runs)} parallel pairs ({len(listed)} listed, {len(runs)} sharing a run), "
        f"{len(dropped)} left out; {len(kept)} chapters, {documents} documents, {sum(map(len, kept))} characters"
    )


if __name__ == "__main__":
    main()
