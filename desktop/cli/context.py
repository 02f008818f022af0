"""Opening the data folder for a subcommand, and saying what the opening did.

A damaged database is moved aside and replaced when the data folder is opened (see
:mod:`desktop.storage.recovery`); the window shows that in a banner, a subcommand
says it on stderr, naming the moved file, before doing anything else.

A folder that cannot be written (a read-only mount) is opened read-only for a
command that only reads (export, inspect, knowledge list and search, mcp list,
ask --no-save); a command that saves says in one line that it cannot.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from desktop.app import AppContext
from desktop.cli.failure import fail
from desktop.core.errors import AssistaError, ReadOnlyStorageError, StorageError
from desktop.core.terminal_text import visible
from desktop.storage.paths import DataPaths


def open_cli_context(args: argparse.Namespace, *, writes: bool = True,
                     must_exist: bool = False) -> AppContext:
    """``AppContext.open`` for ``args.data_dir``; a repair is reported on stderr.

    ``writes``: whether the command saves anything (without, a folder that cannot be
    written is opened read-only). ``must_exist``: a missing folder is an error, not
    created (a command that reads would find nothing in a new one)."""
    data_dir = getattr(args, "data_dir", None)
    if must_exist:
        root = DataPaths.resolve(data_dir, create=False).root
        if not root.exists():
            raise StorageError(f"The data folder {root} does not exist.")
    try:
        ctx = AppContext.open(data_dir, log_to_stderr=False)
    except ReadOnlyStorageError as exc:
        if writes:
            raise ReadOnlyStorageError(
                f"{exc} This command saves there; nothing was changed.") from exc
        ctx = AppContext.open(data_dir, log_to_stderr=False, read_only=True)
    if ctx.notice:
        print(f"assista: warning: {visible(ctx.notice)}", file=sys.stderr)
    return ctx


def run_in_context(args: argparse.Namespace, run: Callable[[AppContext], int], *,
                   reads: bool) -> int:
    """Open the data folder, ``run`` the command on it and close it; an AssistaError,
    opening or running, is the command's one line on stderr and status 1. ``reads``:
    the command only reads (a missing folder is an error, a read-only one is fine)."""
    try:
        ctx = open_cli_context(args, writes=not reads, must_exist=reads)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        return run(ctx)
    except AssistaError as exc:
        return fail(str(exc))
    finally:
        ctx.close()


def was_repaired(ctx: AppContext) -> bool:
    """Whether opening replaced a damaged database (what it holds may be incomplete)."""
    return bool(ctx.notice)
