"""Type stubs of the extension module ``pan_detect._pan_detect``."""

import os
import pathlib
from typing import Any, Dict, List, Optional, Sequence, Union

StrPath = Union[str, "os.PathLike[str]"]

class PanDetectError(Exception):
    """An error of pan-detect; its message is the command line's one-line message."""

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

    As ``pan-detect detect --pairs`` finds those of one listed pair of files;
    ``params`` are detect's method flags with underscores
    (``min_passage_chars=300`` is ``--min-passage-chars 300``, ``no_sort=True``
    is ``--no-sort``). ``source_reference`` is ``"source.txt"``.
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

def write_reports(detections: Dict[str, List[Passage]], out_dir: StrPath) -> None:
    """Writes one PAN XML report per suspicious document into ``out_dir``, as ``pan-detect detect --out`` does."""

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
    def create(self, docs_dir: StrPath, *, taboo: Sequence[StrPath] = ()) -> None:
        """Builds the index of ``docs_dir`` (``pan-detect index create``, default settings)."""
    def update(self, docs_dir: StrPath) -> bool:
        """Brings the index up to date with ``docs_dir`` (``pan-detect index update``); True when it changed."""
    def check(self, text: Union[str, "os.PathLike[str]"], *, name: Optional[str] = None) -> Dict[str, Any]:
        """What in the archive a text (``str``) or a file (``os.PathLike``) is similar to (``pan-detect check``)."""
    def similar(self, *, top: Optional[int] = None, min_percent: Optional[float] = None) -> List[Dict[str, Any]]:
        """The stored similarities: the rows of ``pan-detect similar --format jsonl``."""
