"""The ``assista memory`` arguments and ``ask``'s memory switches: apart from the
command so that building the parser (done on every start, the window's too) imports
nothing more."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_memory_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                      add_common: Callable[[argparse.ArgumentParser], None],
                      ask: argparse.ArgumentParser) -> None:
    """The ``memory`` subcommands, and ``ask``'s memory switches."""
    ask.add_argument("--no-memory", action="store_true",
                     help="no memory: none is sent to the model, none is saved")
    ask.add_argument("--temporary", action="store_true",
                     help="a temporary chat: no memory, and nothing is stored")
    memory = sub.add_parser("memory", help="what the assistant remembers about you")
    commands = memory.add_subparsers(dest="memory_command", required=True)
    listing = commands.add_parser("list", help="ID<TAB>SCOPE<TAB>TEXT, newest first")
    add_common(listing)
    listing.add_argument("--project", metavar="NAME", help="only this project's memories")
    add = commands.add_parser("add", help="remember a fact (global, or a project's)")
    add_common(add)
    add.add_argument("text", metavar="TEXT")
    add.add_argument("--project", metavar="NAME", help="keep it in this project only")
    forget = commands.add_parser("forget", help="delete a memory")
    add_common(forget)
    forget.add_argument("id", metavar="ID")
