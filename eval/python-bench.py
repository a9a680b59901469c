#!/usr/bin/env python3
"""Times the Python module (pip install . first; run with the venv's python).

  python eval/python-bench.py                  align on two 10 KB texts: median of repeated runs
  python eval/python-bench.py --detect CORPUS  also detect on a PAN corpus (source-documents/,
                                               suspicious-documents/) through Python and
                                               through the installed pan-detect command,
                                               medians of 3 each, interleaved

align runs the detect pipeline over its two texts in memory (no file is
written), so its time is that of the pipeline's stages on one pair.

The 10 KB texts are the first 10,000 characters of a suspicious document of
corpus-fixtures/pan and of the source document it copies from followed by another.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pan_detect

ROOT = Path(__file__).resolve().parents[1]
PAN = ROOT / "corpus-fixtures" / "pan"


def seconds(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def bench_align(repeats: int) -> None:
    suspicious = (PAN / "suspicious-documents" / "suspicious-document00001.txt").read_text(encoding="utf-8")[:10_000]
    # The source it copies from (6,320 characters), made up to 10,000 with another.
    source = "\n".join(
        (PAN / "source-documents" / name).read_text(encoding="utf-8")
        for name in ("source-document00001.txt", "source-document00002.txt")
    )[:10_000]
    for preset in ("best", "pan09"):
        passages = pan_detect.align(suspicious, source, preset=preset)
        times = [seconds(lambda: pan_detect.align(suspicious, source, preset=preset)) for _ in range(repeats)]
        print(
            f"align {preset}: {len(suspicious)} + {len(source)} characters, {len(passages)} passages: "
            f"median {statistics.median(times) * 1e3:.2f} ms of {repeats} runs "
            f"(min {min(times) * 1e3:.2f}, max {max(times) * 1e3:.2f})"
        )


def bench_detect(corpus: Path, runs: int) -> None:
    command = Path(sys.executable).parent / "pan-detect"
    sources, suspicious = corpus / "source-documents", corpus / "suspicious-documents"
    python_times, cli_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            out = Path(tmp) / f"out{run}"
            argv = [command, "--source-dir", sources, "--suspicious-dir", suspicious, "--out", out, "--quiet"]
            cli_times.append(seconds(lambda: subprocess.run(argv, check=True, capture_output=True)))
            python_out = Path(tmp) / f"python{run}"
            python_times.append(
                seconds(lambda: pan_detect.write_reports(pan_detect.detect(sources, suspicious), python_out))
            )
    python, cli = statistics.median(python_times), statistics.median(cli_times)
    print(f"detect {corpus.name}: python median {python:.2f} s, command median {cli:.2f} s of {runs} runs each "
          f"({(python / cli - 1) * 100:+.1f} %); python {[round(t, 2) for t in python_times]}, "
          f"command {[round(t, 2) for t in cli_times]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=200, help="align runs per preset")
    parser.add_argument("--detect", type=Path, metavar="CORPUS", help="a PAN corpus to time detect on")
    parser.add_argument("--runs", type=int, default=3, help="detect runs of each")
    args = parser.parse_args()
    bench_align(args.repeats)
    if args.detect:
        bench_detect(args.detect, args.runs)


if __name__ == "__main__":
    main()
