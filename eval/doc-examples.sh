#!/usr/bin/env bash
# The user guide's examples, links and flag coverage, so that they cannot rot.
#
#   eval/doc-examples.sh
#
# 1. Builds the release binary (`cargo build --release --locked`) and puts
#    target/release first on the PATH, so that `pan-detect` is this build.
# 2. Runs every command block of README.md and docs/*.md whose fence reads
#    ```sh runnable: each page's blocks in order, in one bash (`set -eo
#    pipefail`), from the repository root (so that `corpus-fixtures/...` paths
#    work as they do from a fresh clone), with TMPDIR set to a fresh `mktemp -d`
#    directory removed afterwards, so that the examples' own `mktemp -d`
#    directories land there. A page whose block fails, that runs longer than
#    PAGE_TIMEOUT seconds (120), or that leaves a file in the repository fails,
#    named with the block's line and first line. Processes a page leaves behind
#    (a server its block did not stop) are killed with the page's process group.
# 3. Checks that every relative link (and its #anchor) of README.md,
#    CHANGELOG.md and docs/*.md resolves.
# 4. Checks that every subcommand and long flag that `pan-detect --help` lists
#    (recursively: `pan-detect index create --help` too) is named on the guide
#    page that documents its command (the table DOCUMENTED_ON below), so that a
#    flag added without documentation fails CI.
#
# Blocks that cannot run here (a corpus outside the repository, a PDF not
# shipped, ../shared, sudo) are fenced ```sh without the marker.
#
# Environment:
#   PAGES          run the blocks of these pages only (space-separated paths,
#                  e.g. "docs/server.md"); links and flags are always checked
#   PAGE_TIMEOUT   seconds a page's blocks may take together (default 120)
#   SKIP_BUILD=1   use target/release/pan-detect as it is
set -euo pipefail
cd "$(dirname "$0")/.."

# The examples' own tools (archive.md reads the table with sqlite3, server.md
# talks to the server with curl, archive-format.md backs up under flock).
for tool in python3 curl sqlite3 flock; do
    command -v "$tool" >/dev/null || { echo "eval/doc-examples.sh: needs $tool on the PATH" >&2; exit 1; }
done

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    cargo build --release --locked --quiet
fi
PATH="$PWD/target/release:$PATH"
export PATH

exec python3 - "$@" <<'PYTHON'
"""Runs the guide's runnable blocks and checks its links and flag coverage."""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.getcwd()
BIN = os.path.join(ROOT, "target", "release", "pan-detect")
GUIDE = ["README.md"] + sorted(glob.glob("docs/*.md"))
LINKED = GUIDE + ["CHANGELOG.md"]
PAGE_TIMEOUT = float(os.environ.get("PAGE_TIMEOUT", "120"))

# The guide page(s) that document each command's flags.
DOCUMENTED_ON = {
    "detect": ["docs/detect.md"],
    "eval": ["docs/evaluation.md"],
    "text": ["docs/documents.md"],
    "extract": ["docs/duplicates.md"],
    "corpus": ["docs/corpus-builder.md"],
    "index": ["docs/archive.md"],
    "index create": ["docs/archive.md"],
    "index update": ["docs/archive.md"],
    "index merge": ["docs/archive.md"],
    "index stats": ["docs/archive.md"],
    "check": ["docs/archive.md"],
    "similar": ["docs/archive.md", "docs/duplicates.md", "docs/cluster.md"],
    "serve": ["docs/server.md"],
    "completions": ["docs/README.md"],
    "man": ["docs/README.md"],
}

failures = []


def fail(message):
    failures.append(message)
    print(f"FAILED: {message}", file=sys.stderr)


# ---------------------------------------------------------------- blocks

def runnable_blocks(page):
    """(line, text) of each ```sh runnable block of page."""
    blocks, current, start = [], None, 0
    with open(page, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fence = line.strip()
            if current is None:
                if re.fullmatch(r"```sh\s+runnable", fence):
                    current, start = [], number
            elif fence == "```":
                blocks.append((start, "".join(current)))
                current = None
            else:
                current.append(line)
    if current is not None:
        fail(f"{page}:{start}: a runnable block is never closed")
    return blocks


def first_line(text):
    return next((l.strip() for l in text.splitlines() if l.strip()), "(empty)")


def repository_state():
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--ignored"],
                         capture_output=True, text=True, check=True).stdout
    return set(l for l in out.splitlines() if not l.endswith("target/") and " target/" not in l)


def run_page(page, blocks):
    """Runs a page's blocks in order in one bash; True when all succeed."""
    tmp = tempfile.mkdtemp(prefix="doc-examples.")
    state = os.path.join(tmp, ".block")
    log = os.path.join(tmp, ".log")
    script = ["set -eo pipefail"]
    for index, (line, text) in enumerate(blocks):
        script.append(f"echo {index} > {state!r}")
        script.append(text)
    script.append(f"echo done > {state!r}")
    env = dict(os.environ, TMPDIR=tmp)
    before = repository_state()
    started = time.monotonic()
    with open(log, "w") as out:
        process = subprocess.Popen(["bash", "-c", "\n".join(script)], cwd=ROOT, env=env,
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            status = process.wait(timeout=PAGE_TIMEOUT)
        except subprocess.TimeoutExpired:
            status = "timeout"
        try:
            os.killpg(process.pid, signal.SIGKILL)  # what the page left running
        except ProcessLookupError:
            pass
        if status == "timeout":
            process.wait()
    elapsed = time.monotonic() - started
    reached = open(state).read().strip() if os.path.exists(state) else "0"
    ok = status == 0 and reached == "done"
    if not ok:
        index = int(reached) if reached.isdigit() else len(blocks) - 1
        line, text = blocks[index]
        why = f"timed out after {PAGE_TIMEOUT:.0f} s" if status == "timeout" else f"exit status {status}"
        fail(f"{page}, block at line {line} ({first_line(text)}): {why}")
        with open(log, errors="replace") as f:
            tail = f.read().splitlines()[-15:]
        print("\n".join("    | " + l for l in tail), file=sys.stderr)
    left = repository_state() - before
    if left:
        ok = False
        fail(f"{page}: its blocks left files in the repository: {', '.join(sorted(left))}")
    shutil.rmtree(tmp, ignore_errors=True)
    if ok:
        print(f"ok     {page}: {len(blocks)} block(s) in {elapsed:.1f} s")
    return ok


# ---------------------------------------------------------------- links

def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"`|\*\*?|_(?=\w)|(?<=\w)_", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def outside_code(page):
    """The page's lines that are not inside fenced code blocks, with numbers."""
    fenced = False
    with open(page, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line


def anchors(page):
    found = set()
    counts = {}
    for _, line in outside_code(page):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = counts.get(s, 0)
            counts[s] = n + 1
            found.add(s if n == 0 else f"{s}-{n}")
    return found


def check_links():
    cache = {}
    for page in LINKED:
        for number, line in outside_code(page):
            line = re.sub(r"`[^`]*`", "", line)
            for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:
                path, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                if not os.path.exists(resolved):
                    fail(f"{page}:{number}: link to {target}: {resolved} does not exist")
                    continue
                if anchor and resolved.endswith(".md"):
                    if resolved not in cache:
                        cache[resolved] = anchors(resolved)
                    if anchor not in cache[resolved]:
                        fail(f"{page}:{number}: link to {target}: {resolved} has no heading #{anchor}")


# ---------------------------------------------------------------- flags

def help_of(path):
    return subprocess.run([BIN, *path, "--help"], capture_output=True, text=True, check=True).stdout


def subcommands(text):
    section = re.search(r"^Commands:\n((?:  .*\n)+)", text, re.M)
    if not section:
        return []
    names = [l.split()[0] for l in section.group(1).splitlines() if l.startswith("  ") and not l.startswith("   ")]
    return [n for n in names if n != "help"]


def long_flags(text):
    flags = re.findall(r"^\s+(?:-\w, )?(--[a-z0-9][a-z0-9-]*)", text, re.M)
    return [f for f in dict.fromkeys(flags) if f not in ("--help", "--version")]


def check_flags():
    texts = {}

    def text_of(page):
        if page not in texts:
            with open(page, encoding="utf-8") as f:
                texts[page] = f.read()
        return texts[page]

    todo = [[c] for c in subcommands(help_of([]))]
    checked = missing = 0
    while todo:
        path = todo.pop(0)
        name = " ".join(path)
        pages = DOCUMENTED_ON.get(name)
        if pages is None:
            missing += 1
            fail(f"`pan-detect {name}` is in --help but not in the guide (document it and add it to DOCUMENTED_ON)")
            continue
        text = help_of(path)
        todo.extend(path + [s] for s in subcommands(text))
        for flag in long_flags(text):
            checked += 1
            pattern = re.compile(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])")
            if not any(pattern.search(text_of(p)) for p in pages):
                missing += 1
                fail(f"`pan-detect {name} {flag}` is in --help but not in {' or '.join(pages)}")
    if not missing:
        print(f"ok     flags: {checked} flags of {len(DOCUMENTED_ON)} commands named in the guide")


def main():
    started = time.monotonic()
    only = os.environ.get("PAGES", "").split()
    for page in GUIDE:
        blocks = runnable_blocks(page)
        if blocks and (not only or page in only):
            run_page(page, blocks)
    before = len(failures)
    check_links()
    if len(failures) == before:
        print(f"ok     links: every relative link of {len(LINKED)} pages resolves")
    check_flags()
    print(f"{len(failures)} failure(s) in {time.monotonic() - started:.0f} s")
    if failures:
        for message in failures:
            print(f"  {message}", file=sys.stderr)
        sys.exit(1)


main()
PYTHON
