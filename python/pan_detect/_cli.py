"""The ``pan-detect`` command of the Python package: the binary's own code."""

import os
import signal
import sys

from ._pan_detect import run_cli


def main() -> int:
    """Runs the ``pan-detect`` command line with ``sys.argv``; returns its exit status."""
    # Ctrl-C ends the command at once, as it ends the binary: Python's own
    # handler would only set a flag that the Rust code never looks at.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    argv = ["pan-detect"] + [os.fsdecode(arg) for arg in sys.argv[1:]]
    return run_cli(argv)


if __name__ == "__main__":
    sys.exit(main())
