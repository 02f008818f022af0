"""``assista inspect [--session ID] [--message ID] [--json]``: the requests recorded
for an answer (default: the last answer of the most recent chat), redacted."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable


def add_inspect_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                       add_common: Callable[[argparse.ArgumentParser], None]) -> None:
    inspect = sub.add_parser("inspect", help="show the requests sent for an answer: "
                             "headers (keys redacted), body, stream events, timings")
    add_common(inspect)
    inspect.add_argument("--session", metavar="ID",
                         help="the last answer of this chat (default: the most recent chat)")
    inspect.add_argument("--message", metavar="ID", help="this answer (a message id)")
    inspect.add_argument("--json", action="store_true", help="print one JSON document")


def inspect_command(args: argparse.Namespace) -> int:
    # Imported here: the parser is built before the window shows, these are not needed.
    from desktop.chat.inspection import NothingRecorded, describe, exchanges_for
    from desktop.cli.context import open_cli_context
    from desktop.cli.failure import fail
    from desktop.core.errors import AssistaError

    try:
        ctx = open_cli_context(args, writes=False, must_exist=True)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        records = exchanges_for(ctx.inspector.store, ctx.sessions, session_id=args.session,
                                message_id=args.message)
    except NothingRecorded as exc:
        return fail(str(exc))
    except AssistaError as exc:
        return fail(str(exc))
    finally:
        ctx.close()
    if args.json:
        document = {"message_ids": sorted({r.message_id for r in records if r.message_id}),
                    "exchanges": [r.to_json() for r in records]}
        json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(describe(records))
    return 0
