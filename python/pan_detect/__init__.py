"""pan-detect from Python: find plagiarised passages between documents.

The functions call pan-detect's Rust library as the ``pan-detect`` command does,
with the GIL released; a long call stops between documents on Ctrl-C
(``KeyboardInterrupt``). Errors are raised with the command line's one-line
message as a :class:`PanDetectError`: an :class:`InputError` (a missing or
unusable file or directory, an argument the command would refuse), an
:class:`OutputError` (reports that cannot be written) or an
:class:`ArchiveError` (an archive index that cannot be used). Keyword
arguments are the command's flags with ``_`` for ``-``. Offsets are character
offsets, usable as Python string slices.

>>> import pan_detect
>>> source = "Once upon a time. " + " ".join(f"word{i}" for i in range(60)) + "."
>>> suspicious = "Intro. " + " ".join(f"word{i}" for i in range(60)) + ". The end."
>>> [p] = pan_detect.align(suspicious, source, preset="pan09")
>>> suspicious[p.this_offset : p.this_offset + p.this_length][:11]
'word0 word1'
"""

from ._pan_detect import (
    Archive,
    ArchiveError,
    InputError,
    OutputError,
    PanDetectError,
    Passage,
    align,
    detect,
    evaluate,
    write_reports,
)

__all__ = [
    "Archive",
    "ArchiveError",
    "InputError",
    "OutputError",
    "PanDetectError",
    "Passage",
    "align",
    "detect",
    "evaluate",
    "write_reports",
]
