"""Opening the data folder for a subcommand, and saying what the opening did.

A damaged database is moved aside and replaced when the data folder is opened (see
:mod:`desktop.storage.recovery`); the window shows that in a banner, a subcommand
says it on stderr, naming the moved file, before doing anything else.
"""

from __future__ import annotations

import argparse
import sys

from desktop.app import AppContext
from desktop.core.terminal_text import visible


def open_cli_context(args: argparse.Namespace) -> AppContext:
    """``AppContext.open`` for ``args.data_dir``; a repair is reported on stderr."""
    ctx = AppContext.open(getattr(args, "data_dir", None), log_to_stderr=False)
    if ctx.notice:
        print(f"assista: warning: {visible(ctx.notice)}", file=sys.stderr)
    return ctx


def was_repaired(ctx: AppContext) -> bool:
    """Whether opening replaced a damaged database (what it holds may be incomplete)."""
    return bool(ctx.notice)
