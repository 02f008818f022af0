"""How every subcommand reports an error: one line on stderr and an exit status."""

from __future__ import annotations

import sys

from desktop.core.terminal_text import visible


def fail(message: str, code: int = 1) -> int:
    """Print one clear error line to stderr and return the exit status."""
    print(f"assista: error: {visible(message)}", file=sys.stderr)
    return code
