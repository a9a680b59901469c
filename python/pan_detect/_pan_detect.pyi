"""Type stubs of the extension module ``pan_detect._pan_detect``."""

import os
import pathlib
from typing import Any, Dict, List, Optional, Sequence, Union

StrPath = Union[str, "os.PathLike[str]"]

class PanDetectError(Exception):
    """An error of pan-detect; its message is the command line's one-line message."""

class InputError(PanDetectError):
    """Bad input: a missing or unusable file or directory, or an argument the command line would refuse."""

class OutputError(PanDetectError):
    """Reports that cannot be written where they were asked for, or would replace files that are not reports."""

class ArchiveError(PanDetectError):
    """An archive index that cannot be used: missing, locked, corrupt, or made with other settings."""

class Passage:
    """A passage found in a suspicious document and its source.

    Offsets and lengths count characters, so that
    ``suspicious[p.this_offset : p.this_offset + p.this_length]`` is the passage.
    """

    @property
    def this_offset(self) -> int: ...
    @property
    def this_length(self) -> int: ...
    @property
    def source_reference(self) -> str: ...
    @property
    def source_offset(self) -> int: ...
    @property
    def source_length(self) -> int: ...
    def __init__(
        self,
        this_offset: int,
        this_length: int,
        source_reference: str,
        source_offset: int,
        source_length: int,
    ) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def align(
    suspicious: str,
    source: str,
    *,
    preset: Optional[str] = "best",
    **params: Any,
) -> List[Passage]:
    """Finds the passages of ``suspicious`` copied from ``source``, two texts in memory.

    As ``pan-detect detect --pairs`` finds those of one listed pair of files
    holding them, through the same stages with no file written; ``params`` are
    detect's method flags with underscores (``min_passage_chars=300`` is
    ``--min-passage-chars 300``, ``no_sort=True`` is ``--no-sort``).
    ``source_reference`` is ``"source.txt"``. Raises :class:`InputError` for
    a flag detect would refuse.
    """

def detect(
    source_dir: StrPath,
    suspicious_dir: StrPath,
    *,
    pairs: Optional[StrPath] = None,
    preset: Optional[str] = "best",
    **params: Any,
) -> Dict[str, List[Passage]]:
    """Finds the passages of the documents of ``suspicious_dir`` copied from those of ``source_dir``.

    As ``pan-detect detect`` does (``pairs``: its ``--pairs`` file). Returns the
    passages of every suspicious document by file name, empty lists included.
    """

def write_reports(
    detections: Dict[str, List[Passage]],
    out_dir: StrPath,
    *,
    source_dir: Optional[StrPath] = None,
    suspicious_dir: Optional[StrPath] = None,
    pairs: Optional[StrPath] = None,
    format: Optional[str] = None,
    layout: Optional[str] = None,
) -> None:
    """Writes the reports of ``detections`` into ``out_dir``, byte for byte as ``pan-detect detect --out`` does.

    The options are detect's: ``format`` ``"pan-xml"`` (default), ``"html"`` or
    ``"json"``; ``layout`` ``"per-document"`` (default) or ``"per-pair"``
    (PAN XML; with ``pairs``, the pairs file, every listed pair gets a
    report); HTML and JSON reports read the texts from ``source_dir`` and
    ``suspicious_dir``, which they need. A failed write leaves no directory it
    made; :class:`OutputError` when the reports cannot be written.
    """

def evaluate(
    truth_dir: StrPath,
    detections_dir: StrPath,
    *,
    pairs: Sequence[StrPath] = (),
    by_obfuscation: bool = False,
) -> Dict[str, Any]:
    """PAN's measures: the object ``pan-detect eval --json`` prints."""

def run_cli(argv: List[str]) -> int:
    """Runs the ``pan-detect`` command line (program name first); returns its exit status."""

class Archive:
    """An archive index, as ``pan-detect index``, ``check`` and ``similar`` use it."""

    def __init__(self, path: StrPath) -> None: ...
    @property
    def path(self) -> pathlib.Path: ...
    def create(
        self,
        docs_dir: StrPath,
        *,
        preset: Optional[str] = None,
        tokenizer: Optional[str] = None,
        threads: Optional[int] = None,
        taboo: Sequence[StrPath] = (),
        **params: Any,
    ) -> None:
        """Builds the index of ``docs_dir``, as ``pan-detect index create`` does with the same flags.

        ``params`` are its other flags with underscores (``min_word_len=4``,
        ``no_digits=True``, ``hashing="interleaved"``, ``strict=True``).
        ``threads`` runs the call on a pool of that many threads of its own.
        """
    def update(
        self,
        docs_dir: StrPath,
        *,
        threads: Optional[int] = None,
        taboo: Sequence[StrPath] = (),
        no_taboo: bool = False,
        rehash: bool = False,
        **params: Any,
    ) -> bool:
        """Brings the index up to date with ``docs_dir`` (``pan-detect index update`` and its flags); True when it changed.

        A settings flag that differs from the index's raises :class:`ArchiveError`.
        """
    def check(self, text: Union[str, "os.PathLike[str]"], *, name: Optional[str] = None, **params: Any) -> Dict[str, Any]:
        """What in the archive a text (``str``) or a file (``os.PathLike``) is similar to.

        The object ``pan-detect check --format json`` prints for it (a report
        holding one document), with check's flags as ``params``
        (``min_common=3``, ``overlap="largest"``, ``verify=True``). A text is
        named ``name`` (default ``"<text>"``); a file that cannot be read is
        left out with a warning, as the command leaves it out.
        """
    def similar(
        self,
        *,
        top: Optional[int] = None,
        min_percent: Optional[float] = None,
        since_update: bool = False,
        verify: bool = False,
    ) -> List[Dict[str, Any]]:
        """The stored similarities: the rows of ``pan-detect similar --format jsonl`` with the same flags."""
