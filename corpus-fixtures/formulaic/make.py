#!/usr/bin/env python3
"""Writes corpus-fixtures/formulaic/ (see corpus-fixtures/README.md): twelve
chronicles, five of them with annals of invented kings in one regnal formula,
and a suspicious text that has annals of its own kings and one paragraph
copied from a chronicle. Run from the repository root."""
import os, sys

out = sys.argv[1] if len(sys.argv) > 1 else "corpus-fixtures/formulaic"
texts = "corpus-fixtures/texts"

def annal(king, father, age, years, city, mother, verdict):
    return (f"{king} the son of {father} was {age} years old when he began to reign over the hill country, "
            f"and he reigned {years} years in {city}. And his mother's name was {mother}. And he did that which "
            f"was {verdict} in the sight of the elders, and walked in the ways of his father. Now the rest of the "
            f"acts of {king}, and all that he did, and the wells that he dug, are they not written in the book of "
            f"the annals of the kings of the hill country? And {king} slept with his fathers, and was buried in "
            f"{city}, and his son reigned in his stead.")

KINGS = [
    [("Abidor", "Melchan", "twenty", "seven", "Tarsel", "Naomel", "right"),
     ("Jorvath", "Abidor", "thirty", "twelve", "Hebrin", "Zillah", "evil"),
     ("Ozrahel", "Jorvath", "eighteen", "three", "Migdor", "Ketura", "right")],
    [("Benhadur", "Ozrahel", "forty", "nine", "Samrach", "Atarah", "evil"),
     ("Eliphan", "Benhadur", "sixteen", "twenty", "Dothrim", "Mahalath", "right"),
     ("Gedrath", "Eliphan", "twenty", "five", "Lachmis", "Orpeth", "evil")],
    [("Hamrel", "Gedrath", "twelve", "thirty", "Ziphon", "Bashemah", "right"),
     ("Ishvah", "Hamrel", "twenty", "two", "Rimmoth", "Adinah", "evil"),
     ("Kenazel", "Ishvah", "nineteen", "eleven", "Ebron", "Thamar", "right")],
    [("Lothan", "Kenazel", "thirty", "four", "Gibbar", "Milcah", "evil"),
     ("Maharai", "Lothan", "twenty", "six", "Anathel", "Jerioth", "right"),
     ("Nebaioth", "Maharai", "fourteen", "forty", "Kedemah", "Sherah", "evil")],
    [("Pallurim", "Nebaioth", "eighteen", "ten", "Zoar", "Hodesh", "right"),
     ("Raamiah", "Pallurim", "twenty", "eight", "Bethul", "Jecoliah", "evil"),
     ("Shemaber", "Raamiah", "thirty", "fifteen", "Arvad", "Meshullemeth", "right")],
]
OWN = [("Tobrael", "Hazrimon", "twenty", "seventeen", "Pelgad", "Serah", "evil"),
       ("Uzzamer", "Tobrael", "sixteen", "one", "Kirjoth", "Abital", "right")]

def paragraphs(name, chars):
    text = open(os.path.join(texts, name), encoding="utf-8").read()
    paras = [p.strip() for p in text.split("\n") if p.strip()]
    out, n = [], 0
    for p in paras:
        if n >= chars:
            break
        out.append(p)
        n += len(p)
    return out

os.makedirs(os.path.join(out, "source-documents"), exist_ok=True)
os.makedirs(os.path.join(out, "suspicious-documents"), exist_ok=True)
english = sorted(f for f in os.listdir(texts) if f.startswith("en-"))
sources = {}
for i in range(12):
    paras = paragraphs(english[i], 1500)
    if i < len(KINGS):
        paras = paras[:1] + [annal(*k) for k in KINGS[i]] + paras[1:]
    name = f"chronicle-{i + 1:02}.txt"
    sources[name] = "\n\n".join(paras) + "\n"
    open(os.path.join(out, "source-documents", name), "w", encoding="utf-8").write(sources[name])

copied_from = "chronicle-08.txt"
copied = paragraphs(english[7], 1500)[1]
own = paragraphs(english[12], 2500)
parts = own[:1] + [annal(*k) for k in OWN] + own[1:2] + [copied] + own[2:]
suspicious = "\n\n".join(parts) + "\n"
name = "annals-of-the-hill-country.txt"
open(os.path.join(out, "suspicious-documents", name), "w", encoding="utf-8").write(suspicious)
start = suspicious.index(copied)
source_start = sources[copied_from].index(copied)
with open(os.path.join(out, "truth.tsv"), "w", encoding="utf-8") as f:
    f.write("suspicious\tthis_offset\tthis_length\tsource\tsource_offset\tsource_length\n")
    f.write(f"{name}\t{start}\t{len(copied)}\t{copied_from}\t{source_start}\t{len(copied)}\n")
