"""``assista export``: write stored sessions as JSON (lossless) or Markdown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.app import AppContext
from desktop.cli.failure import fail
from desktop.core.errors import AssistaError
from desktop.storage.export import export_sessions


def export_command(args: argparse.Namespace) -> int:
    try:
        ctx = AppContext.open(getattr(args, "data_dir", None), log_to_stderr=False)
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
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            return fail(f"cannot write {args.output}: {exc.strerror}")
    else:
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
    return 0
