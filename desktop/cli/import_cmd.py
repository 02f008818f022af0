"""``assista import FILE``: add chats from an Assista JSON export or a ChatGPT export."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli.context import open_cli_context
from desktop.cli.failure import fail
from desktop.core.errors import AssistaError
from desktop.storage.importer import import_document, read_import_file


def import_command(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        doc = read_import_file(path)  # read before opening the data folder
    except AssistaError as exc:
        return fail(str(exc))
    try:
        ctx = open_cli_context(args)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        report = import_document(ctx.sessions, doc)
    except AssistaError as exc:
        return fail(str(exc))
    finally:
        ctx.close()
    print(report.summary())
    return 0
