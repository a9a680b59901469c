"""The Python module against the command line it shares its code with.

Run from the repository root after ``pip install .``: ``pytest python/tests``.
"""

import filecmp
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import pan_detect
from pan_detect import Archive, ArchiveError, InputError, OutputError, PanDetectError, Passage

ROOT = Path(__file__).resolve().parents[2]
PAN = ROOT / "corpus-fixtures" / "pan"
SOURCES = PAN / "source-documents"
SUSPICIOUS = PAN / "suspicious-documents"
ALIGN = ROOT / "corpus-fixtures" / "align"
DUPLICATES = ROOT / "corpus-fixtures" / "duplicates"


def pan_detect_command() -> str:
    """The ``pan-detect`` script installed beside this Python."""
    script = Path(sys.executable).parent / "pan-detect"
    assert script.exists(), f"{script}: not installed (pip install . first)"
    return str(script)


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the installed ``pan-detect`` command with ``args``."""
    return subprocess.run([pan_detect_command(), *map(str, args)], capture_output=True, text=True, check=check)


def cli_error(*args: str) -> str:
    """The one-line error of a failing command, without ``pan-detect: ``."""
    ran = cli(*args, check=False)
    assert ran.returncode == 1, ran
    [line] = ran.stderr.splitlines()
    assert line.startswith("pan-detect: "), line
    return line[len("pan-detect: ") :]


def same_files(a: Path, b: Path) -> None:
    """Asserts that the directories ``a`` and ``b`` hold the same files, byte for byte, folders and all."""
    names = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file())
    assert names, f"{a}: no reports"
    _, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    assert (mismatch, errors) == ([], [])


@pytest.mark.parametrize(
    "flags, params",
    [
        ([], {}),
        (["--preset", "pan09"], {"preset": "pan09"}),
        (["--preset", "pan09", "--min-chunks", "4", "--no-sort"], {"preset": "pan09", "min_chunks": 4, "no_sort": True}),
        (["--min-passage-chars", "300", "--language", "none"], {"min_passage_chars": 300, "language": "none"}),
    ],
)
def test_reports_equal_the_commands_byte_for_byte(tmp_path, flags, params):
    cli("detect", "--source-dir", SOURCES, "--suspicious-dir", SUSPICIOUS, "--out", tmp_path / "cli", *flags)
    found = pan_detect.detect(SOURCES, SUSPICIOUS, **params)
    assert sorted(found) == sorted(p.name for p in SUSPICIOUS.glob("*.txt"))
    pan_detect.write_reports(found, tmp_path / "python")
    same_files(tmp_path / "cli", tmp_path / "python")


def test_reports_with_pairs_equal_the_commands(tmp_path):
    cli("detect", "--source-dir", SOURCES, "--suspicious-dir", SUSPICIOUS, "--out", tmp_path / "cli",
        "--pairs", PAN / "pairs")
    found = pan_detect.detect(str(SOURCES), str(SUSPICIOUS), pairs=PAN / "pairs")
    pan_detect.write_reports(found, str(tmp_path / "python"))
    same_files(tmp_path / "cli", tmp_path / "python")


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"format": "pan-xml", "layout": "per-document"},
        {"layout": "per-pair"},
        {"layout": "per-pair", "pairs": PAN / "pairs"},
        {"format": "html"},
        {"format": "json"},
    ],
)
def test_every_report_format_and_layout_equals_the_commands(tmp_path, options):
    pairs = options.get("pairs")
    flags = [arg for name, value in options.items() for arg in (f"--{name}", value)]
    cli("detect", "--source-dir", SOURCES, "--suspicious-dir", SUSPICIOUS, "--out", tmp_path / "cli", *flags)
    found = pan_detect.detect(SOURCES, SUSPICIOUS, pairs=pairs)
    pan_detect.write_reports(found, tmp_path / "python", source_dir=SOURCES, suspicious_dir=SUSPICIOUS, **options)
    same_files(tmp_path / "cli", tmp_path / "python")


def test_readable_reports_need_the_directories_of_the_texts(tmp_path):
    found = pan_detect.detect(SOURCES, SUSPICIOUS)
    with pytest.raises(InputError) as raised:
        pan_detect.write_reports(found, tmp_path / "out", format="html")
    assert str(raised.value) == "--format html needs --source-dir and --suspicious-dir, whose texts its reports show"
    assert not (tmp_path / "out").exists()
    with pytest.raises(InputError) as raised:
        pan_detect.write_reports(found, tmp_path / "out", format="pdf")
    assert "'pdf'" in str(raised.value) and "--format" in str(raised.value)


def test_align_offsets_slice_the_copied_text():
    original = (ALIGN / "original.txt").read_text(encoding="utf-8")
    # Characters outside ASCII before the copy, so that bytes and characters differ.
    prefix = "Žluťoučký kůň úpěl ďábelské ódy, a pak řekl něco úplně jiného o počasí. " * 3
    suspicious = prefix + original + " Konec."
    source = "Úvod, který se nikde jinde neobjevuje. " + original
    [passage] = pan_detect.align(suspicious, source, preset="pan09", min_chunks=3)
    this = suspicious[passage.this_offset : passage.this_offset + passage.this_length]
    copied = source[passage.source_offset : passage.source_offset + passage.source_length]
    assert this == copied
    assert passage.this_offset >= len(prefix) and this in original
    assert passage.source_reference == "source.txt"


def test_align_equals_detect_on_the_same_pair(tmp_path):
    name, source_name = "suspicious-document00001.txt", "source-document00001.txt"
    (tmp_path / "pairs").write_text(f"{name} {source_name}\n")
    found = pan_detect.detect(SOURCES, SUSPICIOUS, pairs=tmp_path / "pairs")[name]
    suspicious = (SUSPICIOUS / name).read_text(encoding="utf-8")
    source = (SOURCES / source_name).read_text(encoding="utf-8")
    aligned = pan_detect.align(suspicious, source)
    assert found, "the pair has cases"
    offsets = lambda ps: [(p.this_offset, p.this_length, p.source_offset, p.source_length) for p in ps]
    assert offsets(aligned) == offsets(found)
    for p in aligned:
        assert len(suspicious[p.this_offset : p.this_offset + p.this_length]) == p.this_length


def test_evaluate_equals_eval_json(tmp_path):
    out = tmp_path / "detections"
    pan_detect.write_reports(pan_detect.detect(SOURCES, SUSPICIOUS), out)
    assert pan_detect.evaluate(SUSPICIOUS, out) == json.loads(
        cli("eval", "--truth", SUSPICIOUS, "--detections", out, "--json").stdout
    )
    by = pan_detect.evaluate(SUSPICIOUS, out, pairs=[PAN / "pairs"], by_obfuscation=True)
    assert by == json.loads(
        cli("eval", "--truth", SUSPICIOUS, "--detections", out, "--json", "--pairs", PAN / "pairs",
            "--by", "obfuscation").stdout
    )
    assert 0.5 < by["plagdet"] <= 1


def test_errors_are_exceptions_with_the_commands_messages(tmp_path):
    missing = tmp_path / "missing"
    with pytest.raises(PanDetectError) as raised:
        pan_detect.detect(missing, SUSPICIOUS)
    assert str(raised.value) == cli_error("detect", "--source-dir", missing, "--suspicious-dir", SUSPICIOUS,
                                          "--out", tmp_path / "out")
    with pytest.raises(PanDetectError) as raised:
        pan_detect.detect(SOURCES, SUSPICIOUS, min_chunks=4)
    assert str(raised.value) == cli_error("detect", "--source-dir", SOURCES, "--suspicious-dir", SUSPICIOUS,
                                          "--out", tmp_path / "out", "--min-chunks", "4")
    assert str(raised.value) == "--min-chunks applies to --preset pan09 only, and the preset is best"
    with pytest.raises(PanDetectError, match="seed-cosine"):
        pan_detect.align("a", "b", seed_cosine=2)
    with pytest.raises(PanDetectError, match="no_such_flag|no-such-flag"):
        pan_detect.align("a", "b", no_such_flag=1)
    with pytest.raises(PanDetectError) as raised:
        pan_detect.evaluate(missing, SUSPICIOUS)
    assert str(raised.value) == cli_error("eval", "--truth", missing, "--detections", SUSPICIOUS)
    with pytest.raises(PanDetectError):
        Archive(missing).check("some text")
    with pytest.raises(PanDetectError):
        pan_detect.write_reports({"a.txt": [Passage(2**32 - 1, 5, "b.txt", 0, 5)]}, tmp_path / "reports")
    assert not (tmp_path / "reports").exists(), "a failed write leaves no directory it made"
    with pytest.raises(OverflowError):
        Passage(-1, 5, "b.txt", 0, 5)
    assert issubclass(PanDetectError, Exception)


def test_archive_create_and_update_take_the_commands_flags(tmp_path):
    flags = {"preset": "best", "min_word_len": 4, "no_digits": True, "threads": 1}
    cli("index", "create", "--docs", DUPLICATES, "--index", tmp_path / "cli", "--preset", "best",
        "--min-word-len", "4", "--no-digits", "--threads", "1")
    index = Archive(tmp_path / "python")
    index.create(DUPLICATES, **flags)
    stats = lambda path: cli("index", "stats", "--index", path).stdout.replace(str(path), "IDX")
    assert stats(index.path) == stats(tmp_path / "cli")
    assert "best" in stats(index.path)
    letter = DUPLICATES / "keeper-letters.txt"
    assert index.check(letter) == Archive(tmp_path / "cli").check(letter)
    # Another thread count in the same process: each call has a pool of its own.
    assert index.update(DUPLICATES, threads=2, rehash=True) is False
    with pytest.raises(ArchiveError) as raised:
        index.update(DUPLICATES, min_word_len=5)
    assert str(raised.value) == cli_error("index", "update", "--docs", DUPLICATES, "--index", index.path,
                                          "--min-word-len", "5")
    with pytest.raises(InputError) as raised:
        Archive(tmp_path / "other").create(DUPLICATES, chunk_words=0)
    assert str(raised.value) == cli_error("index", "create", "--docs", DUPLICATES, "--index", tmp_path / "other2",
                                          "--chunk-words", "0").replace("other2", "other")
    with pytest.raises(InputError, match="--threads 0"):
        Archive(tmp_path / "other").create(DUPLICATES, threads=0)
    with pytest.raises(InputError, match="no-such-flag"):
        Archive(tmp_path / "other").create(DUPLICATES, no_such_flag=True)


def test_check_is_the_commands_json(tmp_path):
    index = Archive(tmp_path / "index")
    index.create(DUPLICATES)
    letter = DUPLICATES / "keeper-letters.txt"
    for flags, params in [([], {}), (["--min-common", "3", "--overlap", "largest"], {"min_common": 3, "overlap": "largest"})]:
        expected = json.loads(cli("check", "--index", index.path, "--format", "json", letter, *flags).stdout)
        assert index.check(letter, **params) == expected
        text = letter.read_text(encoding="utf-8")
        assert index.check(text, name=str(letter), **params) == expected
    assert index.check("some text")["documents"][0]["name"] == "<text>"
    with pytest.raises(InputError) as raised:
        index.check(tmp_path / "missing.txt")
    assert str(raised.value) == cli_error("check", "--index", index.path, tmp_path / "missing.txt")
    with pytest.raises(InputError, match="--format"):
        index.check("some text", format="html")
    with pytest.raises(InputError, match="name applies to a text"):
        index.check(letter, name="letter")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\0" * 5000)
    with pytest.warns(UserWarning, match="binary.txt"):
        assert index.check(binary)["documents"] == []
    with pytest.raises(InputError) as raised, pytest.warns(UserWarning):
        index.check(binary, strict=True)
    ran = cli("check", "--index", index.path, "--format", "json", binary, "--strict", check=False)
    assert ran.returncode == 1 and ran.stderr.splitlines()[-1] == f"pan-detect: {raised.value}"


def test_similar_is_the_commands_jsonl(tmp_path):
    index = Archive(tmp_path / "index")
    index.create(DUPLICATES)
    for flags, params in [([], {}), (["--top", "1", "--min-percent", "5"], {"top": 1, "min_percent": 5})]:
        lines = cli("similar", "--index", index.path, "--format", "jsonl", *flags).stdout.splitlines()
        assert index.similar(**params) == [json.loads(line) for line in lines]
    with pytest.raises(InputError) as raised:
        index.similar(min_percent=101)
    assert str(raised.value) == cli_error("similar", "--index", index.path, "--min-percent", "101")


def test_errors_are_told_apart_by_kind(tmp_path):
    for kind in (InputError, OutputError, ArchiveError):
        assert issubclass(kind, PanDetectError) and kind.__module__ == "pan_detect"
    with pytest.raises(InputError):
        pan_detect.detect(tmp_path / "missing", SUSPICIOUS)
    with pytest.raises(InputError):
        pan_detect.align("a", "b", min_passage_chars="many")
    with pytest.raises(ArchiveError) as raised:
        Archive(tmp_path / "missing").check("some text")
    assert str(raised.value) == cli_error("check", "--index", tmp_path / "missing", ROOT / "README.md")
    (tmp_path / "file").write_text("not a directory")
    found = pan_detect.detect(SOURCES, SUSPICIOUS)
    with pytest.raises(OutputError) as raised:
        pan_detect.write_reports(found, tmp_path / "file")
    assert str(raised.value) == cli_error("detect", "--source-dir", SOURCES, "--suspicious-dir", SUSPICIOUS,
                                          "--out", tmp_path / "file")


def test_archive_create_check_similar_update(tmp_path):
    index = Archive(tmp_path / "index")
    index.create(DUPLICATES)
    text = (DUPLICATES / "keeper-letters.txt").read_text(encoding="utf-8")
    report = index.check(text, name="letter")
    assert [document["name"] for document in report["documents"]] == ["letter"]
    by_path = index.check(DUPLICATES / "keeper-letters.txt")
    assert by_path["documents"][0]["sources"] == report["documents"][0]["sources"]
    rows = index.similar()
    assert rows == [json.loads(line) for line in cli("similar", "--index", index.path, "--format", "jsonl")
                    .stdout.splitlines()]
    assert rows, "the fixtures share passages"
    assert index.update(DUPLICATES) is False


def test_the_command_is_the_binarys(tmp_path):
    ran = cli("--version")
    assert ran.stdout.startswith("pan-detect ")
    ran = cli("eval", check=False)
    assert ran.returncode == 2 and "--truth" in ran.stderr
    ran = cli("--source-dir", SOURCES, "--suspicious-dir", SUSPICIOUS, "--out", tmp_path / "out", "--quiet")
    assert "passages" in ran.stderr
    assert len(list((tmp_path / "out").glob("*.xml"))) == 8


def test_ctrl_c_interrupts_a_detection(tmp_path):
    # Many suspicious documents, so that the run takes far longer than the signal's delay.
    sources, suspicious = tmp_path / "src", tmp_path / "susp"
    shutil.copytree(SOURCES, sources)
    suspicious.mkdir()
    for copy in range(200):
        for doc in SUSPICIOUS.glob("*.txt"):
            shutil.copy(doc, suspicious / f"{copy:03}-{doc.name}")
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        pan_detect.detect(sources, suspicious)
    interrupted_after = time.monotonic() - started
    timer.join()
    started = time.monotonic()
    assert len(pan_detect.detect(sources, suspicious)) == 1600, "the module works after an interrupt"
    assert interrupted_after < (time.monotonic() - started) / 2


def test_the_readmes_python_example_runs_as_written(tmp_path):
    """The README's ``python`` block, run from the repository root."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = readme.split("```python\n")[1:]
    assert blocks, "the README has a python example"
    for block in blocks:
        code = block.split("\n```", 1)[0]
        result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert float(result.stdout.split()[-1]) > 0.9, result.stdout
