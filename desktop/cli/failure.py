"""How every subcommand reports an error: one line on stderr and an exit status."""

from __future__ import annotations

import contextlib
import os
import sys

from desktop.core.terminal_text import visible


def fail(message: str, code: int = 1) -> int:
    """Print one clear error line to stderr and return the exit status."""
    print(f"assista: error: {visible(message)}", file=sys.stderr)
    return code


#: The exit status when the reader of the output went away: what a shell reports for a
#: process ended by SIGPIPE (128 + 13), as ``head`` and friends expect.
EXIT_OUTPUT_CLOSED = 141


def output_closed() -> int:
    """The reader of standard output went away (``assista ... | head``): nothing more
    goes to it (not even Python's flush at exit, which would print a traceback), no
    message; the status to exit with."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_OUTPUT_CLOSED
