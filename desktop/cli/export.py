"""``assista export``: write stored sessions as JSON (lossless) or Markdown."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from desktop.cli.context import open_cli_context, was_repaired
from desktop.cli.failure import fail
from desktop.core.errors import AssistaError
from desktop.storage.export import export_sessions


def export_command(args: argparse.Namespace) -> int:
    try:
        ctx = open_cli_context(args, writes=False, must_exist=True)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        ids = args.session
        if ids:
            missing = [sid for sid in ids if ctx.sessions.get_session(sid) is None]
            if missing:
                return fail(f"no session with id {', '.join(missing)}")
        text = export_sessions(ctx.sessions, ids, args.format)
    except AssistaError as exc:
        return fail(str(exc))
    finally:
        ctx.close()
    if not text.endswith("\n"):
        text += "\n"
    if args.output:
        try:
            write_whole(Path(args.output), text)
        except OSError as exc:
            return fail(f"cannot write {args.output}: {exc.strerror or exc}")
    else:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            raise  # the reader went away (| head): a quiet end (desktop.__main__)
        except OSError as exc:  # a full disk
            with contextlib.suppress(OSError):  # nothing more can reach stdout
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return fail(f"cannot write the export: {exc.strerror or exc}")
    if was_repaired(ctx):  # (the warning above named the moved file)
        return fail("the export holds only what could be copied from the damaged database")
    return 0


def write_whole(path: Path, text: str) -> None:
    """Write ``path`` completely or not at all: a full disk leaves the old file as it
    was, not a cut export (a temporary file next to it, then renamed over it)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temp.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
