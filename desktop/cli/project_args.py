"""The ``assista project`` arguments and ``ask --project``: apart from the command so
that building the parser (done on every start, the window's too) imports nothing more."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_project_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                       add_common: Callable[[argparse.ArgumentParser], None],
                       ask: argparse.ArgumentParser) -> None:
    """The ``project`` subcommands (``add_common`` adds --data-dir to each), and
    ``ask --project``."""
    ask.add_argument("--project", metavar="NAME",
                     help="ask in a new chat of this project (with --session: a chat in it)")
    project = sub.add_parser("project", help="projects: chats with shared instructions and files")
    commands = project.add_subparsers(dest="project_command", required=True)
    create = commands.add_parser("create", help="create a project")
    add_common(create)
    create.add_argument("name", metavar="NAME")
    text = create.add_mutually_exclusive_group()
    text.add_argument("--instructions", metavar="TEXT", default=None,
                      help="added to the system prompt of every chat in the project")
    text.add_argument("--instructions-file", metavar="F", default=None,
                      help="read the instructions from this file")
    create.add_argument("--file", metavar="PATH", action="append", default=[],
                        help="a file every chat in the project has (repeatable): small text "
                             "files in the context, larger ones searched")
    create.add_argument("--knowledge", metavar="BASE", action="append", default=[],
                        help="a knowledge base its chats search (repeatable)")
    create.add_argument("--workspace", metavar="DIR", help="the folder its chats' tools use")
    create.add_argument("--model", metavar="MODEL", help="the model its new chats use")
    listing = commands.add_parser("list", help="NAME<TAB>chats<TAB>files<TAB>id")
    add_common(listing)
    show = commands.add_parser("show", help="a project's settings, files and chats")
    add_common(show)
    show.add_argument("name", metavar="NAME")
    delete = commands.add_parser("delete", help="delete a project (its chats are kept)")
    add_common(delete)
    delete.add_argument("name", metavar="NAME")
