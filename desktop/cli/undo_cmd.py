"""``assista undo --session ID [--turn MESSAGE_ID]``: put back the files the agent
wrote in a chat's last turn (or the given one), one line per file."""

from __future__ import annotations

import argparse


def add_undo_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                    add_common: object) -> None:
    undo = sub.add_parser("undo", help="put back the files the assistant wrote in a chat's "
                                       "last turn")
    if callable(add_common):
        add_common(undo)
    undo.add_argument("--session", metavar="ID", required=True, help="the chat")
    undo.add_argument("--turn", metavar="MESSAGE_ID",
                      help="that turn instead of the last one: the id of its question or of "
                           "an answer that made tool calls")


def undo_command(args: argparse.Namespace) -> int:
    # Imported here: building the parser must stay cheap (the window's start pays it).
    from desktop.chat.turn_undo import UndoRefused, undo_turn
    from desktop.cli.context import open_cli_context
    from desktop.cli.failure import fail
    from desktop.core.errors import AssistaError

    try:
        ctx = open_cli_context(args)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        results = undo_turn(ctx.sessions, ctx.checkpoints, args.session, args.turn)
    except UndoRefused as exc:
        return fail(f"cannot undo: files {exc}")
    except (AssistaError, OSError) as exc:
        return fail(str(exc))
    finally:
        ctx.close()
    for result in results:
        print(f"{result.action}\t{result.path}")
    return 0
