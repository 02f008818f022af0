"""The ``assista knowledge`` arguments: apart from the command so that building the
parser (done on every start, the window's too) imports nothing more."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_knowledge_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                         add_common: Callable[[argparse.ArgumentParser], None]) -> None:
    """The ``knowledge`` subcommands (``add_common`` adds --data-dir to each)."""
    knowledge = sub.add_parser("knowledge", help="knowledge bases: your files, searchable")
    commands = knowledge.add_subparsers(dest="knowledge_command", required=True)
    add = commands.add_parser("add", help="create a knowledge base (or add to it) and index it")
    add_common(add)
    add.add_argument("name", metavar="NAME")
    add.add_argument("paths", metavar="PATH", nargs="+", help="folders and files")
    add.add_argument("--embedding-model", metavar="M",
                     help="also embed the chunks with this model (hybrid search)")
    add.add_argument("--embedding-kind", metavar="KIND", default="openai",
                     help="the embedding API: openai (any OpenAI-compatible, the default), "
                          "ollama, gemini (any adapter that embeds)")
    add.add_argument("--embedding-url", metavar="URL", default="https://api.openai.com/v1")
    add.add_argument("--embedding-key-env", metavar="VAR", default=None,
                     help="environment variable holding the API key")
    index = commands.add_parser("index", help="re-index what changed (deleted files go)")
    add_common(index)
    index.add_argument("name", metavar="NAME")
    listing = commands.add_parser("list", help="NAME<TAB>files<TAB>chunks<TAB>paths")
    add_common(listing)
    search = commands.add_parser("search", help="ranked hits, best first, one per line")
    add_common(search)
    search.add_argument("name", metavar="NAME")
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--top-k", type=int, default=10, metavar="N")
