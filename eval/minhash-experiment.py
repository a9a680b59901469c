"""Celozzi & Ciabini's MinHash/LSH experiment on dev-en, beside the chunk index.

Run by eval/minhash-experiment.sh (which builds the binary); see there.
"""

import bisect
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

LEVELS = [80, 60, 50, 40, 20]
SETTINGS = [(50, 2), (25, 4), (20, 5), (10, 10)]


def shingles(text, width=10):
    """pan-detect's shingle set (src/analysis/minhash.rs), as strings."""
    text = re.sub(r"\s+", " ", text.lower()).strip()
    if len(text) <= width:
        return {text} if text else set()
    return {text[i : i + width] for i in range(len(text) - width + 1)}


def jaccard(a, b):
    return len(a & b) / len(a | b) if a or b else 0.0


def timed(cmd, stdout):
    """Runs cmd under /usr/bin/time -v; returns (seconds, peak RSS MB)."""
    started = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-v", *cmd], stdout=stdout, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stderr}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1)) / 1024
    return seconds, rss


def median_run(cmd, runs, out_path=None):
    """Median wall time and RSS of `runs` runs; stdout of the last one kept in out_path."""
    figures = []
    for _ in range(runs):
        with open(out_path or os.devnull, "w") as out:
            figures.append(timed(cmd, out))
    return statistics.median(f[0] for f in figures), statistics.median(f[1] for f in figures)


def main():
    binary, corpus, work, trials, runs = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    rng = random.Random(15)
    sources = sorted((corpus / "source-documents").glob("*.txt"))
    lines = {p.name: p.read_text(encoding="utf-8").splitlines() for p in sources}
    originals = sorted(lines, key=lambda n: (-len(lines[n]), n))[:trials]
    # Replacement lines of about the replaced line's length, so that the copy keeps
    # the original's size and "60 % of the lines" is about 60 % of its text.
    pool = sorted(line for name in sorted(lines) if name not in originals for line in lines[name] if line.strip())
    pool.sort(key=len)
    pool_lengths = [len(line) for line in pool]

    def replacement(line):
        at = bisect.bisect_left(pool_lengths, len(line))
        low, high = max(0, at - 25), min(len(pool), at + 25)
        return pool[rng.randrange(low, high)]

    archive, copies = work / "archive", work / "copies"
    for d in (archive, copies):
        d.mkdir(parents=True, exist_ok=True)
    for p in sources:
        (archive / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    truth = {}  # copy name -> (original, level, Jaccard)
    for trial, original in enumerate(originals):
        text = lines[original]
        for level in LEVELS:
            keep = set(rng.sample(range(len(text)), round(len(text) * level / 100)))
            copy = [line if i in keep else replacement(line) for i, line in enumerate(text)]
            name = f"trial{trial:02d}-keep{level}.txt"
            (copies / name).write_text("\n".join(copy) + "\n", encoding="utf-8")
            t = jaccard(shingles("\n".join(text)), shingles("\n".join(copy)))
            truth[name] = (original, level, t)

    def rate(found, level):
        names = [n for n, (_, lv, _) in truth.items() if lv == level]
        return sum((n, truth[n][0]) in found for n in names) / len(names)

    measured, lsh_cost = {}, {}
    for bands, rows in SETTINGS:
        out = work / f"lsh-{bands}-{rows}.csv"
        cmd = [binary, "similar", "--method", "minhash", "--docs", str(copies), "--against", str(archive),
               "--bands", str(bands), "--rows", str(rows), "--quiet"]
        lsh_cost[(bands, rows)] = median_run(cmd, runs, out)
        found = {tuple(line.split(",")[:2]) for line in out.read_text().splitlines()[1:]}
        measured[(bands, rows)] = found

    index = work / "idx"
    create_cost = []
    for _ in range(runs):
        subprocess.run(["rm", "-rf", str(index)], check=True)
        create_cost.append(timed([binary, "index", "create", "--docs", str(archive), "--index", str(index), "--quiet"],
                                 subprocess.DEVNULL))
    create = (statistics.median(c[0] for c in create_cost), statistics.median(c[1] for c in create_cost))
    report = work / "check.json"
    check = median_run([binary, "check", "--index", str(index), "--format", "json",
                        *sorted(str(p) for p in copies.glob("*.txt"))], runs, report)
    one_copy = str(copies / "trial00-keep50.txt")
    check_one = median_run([binary, "check", "--index", str(index), "--format", "json", one_copy], runs)
    minhash = [binary, "similar", "--method", "minhash", "--index", str(index)]
    build = median_run([*minhash, "--build", "--quiet"], runs)
    query_one = median_run([*minhash, "--file", one_copy], runs)
    signatures_kb = (index / "minhash" / "signatures.bin").stat().st_size / 1024
    index_mb = sum(p.stat().st_size for p in index.rglob("*") if p.is_file() and "minhash" not in p.parts) / 2**20
    chunk_found = {(d["name"], s["name"]) for d in json.loads(report.read_text())["documents"] for s in d["sources"]}

    print(f"{trials} trials per level: copies of the {trials} dev-en source documents with the most lines, "
          f"the other lines replaced by random lines of about the same length from the other "
          f"{len(sources) - trials} source documents; "
          f"archive: all {len(sources)} source documents. Ideal = mean over the trials of 1-(1-t^r)^b, "
          "t the copy's Jaccard similarity to its original (10-character shingles); LSH = share of trials "
          "in which `similar --method minhash --docs copies --against archive` pairs the copy with its original; "
          "chunk index = share in which `check` of the copy lists the original among its sources.\n")
    header = "| kept lines | mean t | " + " | ".join(f"b={b}, r={r}: ideal / LSH" for b, r in SETTINGS) + " | chunk index |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for level in LEVELS:
        ts = [t for (_, lv, t) in truth.values() if lv == level]
        cells = []
        for bands, rows in SETTINGS:
            ideal = statistics.mean(1 - (1 - t**rows) ** bands for t in ts)
            cells.append(f"{ideal:.2f} / {rate(measured[(bands, rows)], level):.2f}")
        print(f"| {level} % | {statistics.mean(ts):.3f} | " + " | ".join(cells) + f" | {rate(chunk_found, level):.2f} |")
    print(f"\nCost, median of {runs} runs (wall time, peak RSS), {len(truth)} copies against {len(sources)} documents:\n")
    print("| step | time | peak RSS |")
    print("|---|---|---|")
    for (bands, rows), (seconds, rss) in lsh_cost.items():
        print(f"| `similar --method minhash --bands {bands} --rows {rows}` (signatures of both sets + LSH) | {seconds:.2f} s | {rss:.0f} MB |")
    print(f"| `index create` of the archive | {create[0]:.2f} s | {create[1]:.0f} MB |")
    print(f"| `check --format json` of every copy | {check[0]:.2f} s | {check[1]:.0f} MB |")
    print(f"\nOne new document against the processed archive (median of {runs} runs):\n")
    print("| step | time | peak RSS |")
    print("|---|---|---|")
    print(f"| `similar --method minhash --index IDX --build` (b=20, r=5; signatures.bin {signatures_kb:.0f} KB) | {build[0]:.2f} s | {build[1]:.0f} MB |")
    print(f"| `similar --method minhash --index IDX --file F` (one copy) | {query_one[0]:.3f} s | {query_one[1]:.0f} MB |")
    print(f"| `check --index IDX F` (the same copy; the index is {index_mb:.1f} MB) | {check_one[0]:.3f} s | {check_one[1]:.0f} MB |")


if __name__ == "__main__":
    main()
