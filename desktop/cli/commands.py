"""Argument parsing and dispatch for ``assista`` and its subcommands (ask, export, import,
image, mcp, knowledge, project, sync)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import Any, TextIO, cast


class _VersionAction(argparse.Action):
    """``--version``: the version is looked up only when asked for (it costs an
    importlib.metadata import that the window's start should not pay)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from desktop import __version__

        print(f"assista {__version__}")
        parser.exit()


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="keep all data (database, settings, logs) in DIR (portable mode)")


def _add_sync_parser(sub: Any) -> None:
    sync = sub.add_parser("sync", help="sync chats with your other devices (push and pull once)")
    _add_common(sync)
    sync.add_argument("--target", metavar="URL", required=True,
                      help="file:///path, webdav(s)://user@host/path or s3://bucket/prefix")
    sync.add_argument("--max-upload-mb", type=float, metavar="MB", default=None,
                      help="upload files of at most this size (default 16; smaller files are "
                           "also used once the server refuses one as too large)")


def _add_mcp_parser(sub: Any) -> None:
    mcp = sub.add_parser("mcp", help="MCP servers: what they offer")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    mcp_list = mcp_sub.add_parser("list", help="every server's tools, prompts and resources, "
                                  "one per line: SERVER<TAB>tool|prompt|resource<TAB>NAME-or-URI")
    _add_common(mcp_list)
    mcp_list.add_argument("--mcp-config", metavar="FILE", action="append", default=[],
                          help="also list the MCP servers in this Claude-Desktop-style JSON file")
    mcp_list.add_argument("--json", action="store_true", help="print one JSON document")
    from desktop.cli.mcp_bundle_cmd import add_bundle_parsers

    add_bundle_parsers(mcp_sub, _add_common)
    for verb, text in (("login", "sign in to a remote MCP server (prints the address to open)"),
                       ("logout", "forget a remote MCP server's sign-in")):
        sign = mcp_sub.add_parser(verb, help=text)
        _add_common(sign)
        sign.add_argument("name", metavar="SERVER")
        sign.add_argument("--mcp-config", metavar="FILE", action="append", default=[],
                          help="also look for the server in this Claude-Desktop-style JSON file")


def _add_window_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``assista`` itself (the window), before any command."""
    parser.add_argument("--data-dir", metavar="DIR", default=None,
                        help="keep all data (database, settings, logs) in DIR (portable mode)")
    parser.add_argument("--smoke", action="store_true",
                        help="open the main window, load settings and data, then quit")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assista", description="Assista Desktop")
    parser.add_argument("--version", action=_VersionAction,
                        help="show the version and exit")
    _add_window_options(parser)
    sub = parser.add_subparsers(dest="command")

    ask = sub.add_parser("ask", help="ask a question from the command line")
    _add_common(ask)
    ask.add_argument("prompt", help="the question; '-' reads it from standard input")
    ask.add_argument("--provider", metavar="NAME",
                     help="a configured provider (name or id), or a preset/kind name")
    ask.add_argument("--base-url", metavar="URL", help="API base URL (e.g. http://host/v1)")
    ask.add_argument("--model", metavar="M", help="model id")
    ask.add_argument("--workspace", metavar="DIR", help="folder the file tools may read")
    ask.add_argument("--tools", metavar="a,b", help="comma-separated tools to enable ('' = none)")
    ask.add_argument("--json", action="store_true",
                     help="print one JSON object per event, then the final messages")
    ask.add_argument("--raw", action="store_true",
                     help="print the answer exactly as sent, control characters included "
                          "(for pipelines; by default they are spelled out, e.g. \\x1b)")
    ask.add_argument("--system", metavar="TEXT", help="system prompt for this question")
    ask.add_argument("--session", metavar="ID", help="continue an existing session")
    ask.add_argument("--no-save", action="store_true", help="do not store the conversation")
    ask.add_argument("--approve-all", action="store_true",
                     help="approve every tool call that would ask (Deny still denies)")
    ask.add_argument("--allow", metavar="NAME", action="append", default=[],
                     help="enable this tool and run it without asking (repeatable)")
    ask.add_argument("--mcp-config", metavar="FILE", action="append", default=[],
                     help="also use the MCP servers in this Claude-Desktop-style JSON file")
    ask.add_argument("--prompt", dest="mcp_prompt", metavar="SERVER:NAME",
                     help="start the question with this MCP prompt's messages")
    ask.add_argument("--prompt-arg", metavar="KEY=VALUE", action="append", default=[],
                     help="an argument of --prompt (repeatable)")
    ask.add_argument("--resource", metavar="SERVER:URI", action="append", default=[],
                     help="attach this MCP resource (repeatable)")
    ask.add_argument("--attach", metavar="FILE", action="append", default=[],
                     help="attach a file: image, PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, "
                          "Markdown or source code (repeatable)")
    ask.add_argument("--knowledge", metavar="NAME", action="append", default=[],
                     help="let the model search this knowledge base (repeatable)")
    ask.add_argument("--compare", metavar="MODEL,MODEL",
                     help="ask 2-4 models at once (MODEL on --provider/--base-url, or "
                          "PROVIDER:MODEL); their answers are saved as siblings")
    ask.add_argument("--web", action="store_true",
                     help="let the model search the web (the provider's own search, else "
                          "the search service chosen in Settings)")
    from desktop.cli.research_args import add_research_arguments

    add_research_arguments(ask)

    from desktop.cli.knowledge_args import add_knowledge_parser

    add_knowledge_parser(sub, _add_common)

    _add_feature_parsers(sub, ask)

    export = sub.add_parser("export", help="export conversations")
    _add_common(export)
    export.add_argument("--session", metavar="ID", action="append",
                        help="export only this session (repeatable); default: all")
    export.add_argument("--format", choices=["json", "markdown"], required=True)
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")

    imp = sub.add_parser("import", help="import chats from an Assista or ChatGPT export")
    _add_common(imp)
    imp.add_argument("file", metavar="FILE",
                     help="an Assista JSON export, or ChatGPT's conversations.json (or its .zip)")

    _add_mcp_parser(sub)



    from desktop.cli.inspect_cmd import add_inspect_parser

    add_inspect_parser(sub, _add_common)

    from desktop.cli.undo_cmd import add_undo_parser

    add_undo_parser(sub, _add_common)

    _add_sync_parser(sub)
    quick = sub.add_parser("quick", help="open the quick-ask window (in the running app, or "
                           "start it); bind this to a keyboard shortcut of your desktop")
    _add_common(quick)
    prefill = quick.add_mutually_exclusive_group()
    prefill.add_argument("--selection", dest="prefill", action="store_const",
                         const="selection", default="none",
                         help="put the selected text (X11) or the clipboard in the question")
    prefill.add_argument("--clipboard", dest="prefill", action="store_const",
                         const="clipboard", help="put the clipboard's text in the question")
    return parser


def window_arguments(argv: list[str]) -> argparse.Namespace | None:
    """``assista`` with the window's options only (what a launcher or the desktop
    menu runs), read without building every command's parser (~18 ms of each start of
    the window); None for anything else (a command, help, the version, a mistake),
    which the whole parser reads."""
    parser = argparse.ArgumentParser(prog="assista", add_help=False, allow_abbrev=False,
                                     exit_on_error=False)
    _add_window_options(parser)
    try:
        args, rest = parser.parse_known_args(argv)
    except argparse.ArgumentError:  # (--data-dir without its folder: the whole parser says so)
        return None
    if rest:
        return None
    args.command = None
    return args


def run(argv: list[str]) -> int:
    args = window_arguments(argv)
    if args is None:
        args = build_parser().parse_args(argv)
    if args.command in (None, "quick"):
        return _open_window(args)
    # What a model, a tool, a server or a file says reaches the terminal spelled out.
    from desktop.core.terminal_text import SafeStream

    out, err = sys.stdout, sys.stderr
    safe_out = None if getattr(args, "raw", False) else SafeStream(out)
    safe_err = SafeStream(err)
    sys.stdout = cast(TextIO, safe_out or out)
    sys.stderr = cast(TextIO, safe_err)
    try:
        return _run_command(args)
    finally:
        sys.stdout, sys.stderr = out, err
        for stream in (safe_out, safe_err):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):  # a reader that went away
                    stream.close()


#: Each subcommand's handler (module, function), imported only when it runs.
_HANDLERS = {
    "ask": ("desktop.cli.ask", "ask_command"),
    "export": ("desktop.cli.export", "export_command"),
    "import": ("desktop.cli.import_cmd", "import_command"),
    "mcp": ("desktop.cli.mcp_cmd", "mcp_command"),
    "knowledge": ("desktop.cli.knowledge_cmd", "knowledge_command"),
    "project": ("desktop.cli.project_cmd", "project_command"),
    "memory": ("desktop.cli.memory_cmd", "memory_command"),
    "undo": ("desktop.cli.undo_cmd", "undo_command"),
    "inspect": ("desktop.cli.inspect_cmd", "inspect_command"),
    "image": ("desktop.cli.image_cmd", "image_command"),
    "skills": ("desktop.cli.skills_cmd", "skills_command"),
    "transcribe": ("desktop.cli.audio_cmd", "audio_command"),
    "speak": ("desktop.cli.audio_cmd", "audio_command"),
    "sync": ("desktop.cli.sync_cmd", "sync_command"),
}


def _add_feature_parsers(sub: Any, ask: argparse.ArgumentParser) -> None:
    """``assista project``, ``memory`` (and their ``ask`` options), ``image``,
    ``transcribe``, ``speak``, ``skills``."""
    from desktop.cli.media_args import add_audio_parsers, add_image_parser
    from desktop.cli.memory_args import add_memory_parser
    from desktop.cli.project_args import add_project_parser
    from desktop.cli.skills_cmd import add_skills_parser

    add_project_parser(sub, _add_common, ask)
    add_memory_parser(sub, _add_common, ask)
    add_image_parser(sub, _add_common)
    add_audio_parsers(sub, _add_common)
    add_skills_parser(sub, _add_common)


def _run_command(args: argparse.Namespace) -> int:
    import importlib

    if args.command == "ask" and args.temporary:
        args.no_save = True  # a temporary chat is not kept
    if args.command == "ask" and args.compare:
        if args.research:
            from desktop.cli.failure import fail

            return fail("--research and --compare cannot be used together")
        from desktop.cli.ask_compare import compare_command

        return compare_command(args)
    if args.command not in _HANDLERS:
        raise AssertionError(f"unknown command {args.command!r}")
    module, function = _HANDLERS[args.command]
    code: int = getattr(importlib.import_module(module), function)(args)
    return code


def _open_window(args: argparse.Namespace) -> int:
    import gc

    # The window runs the collector itself (desktop.gui): no automatic full
    # pass over everything imported so far while its modules load (~40 ms of the start).
    gc.disable()
    # What the window needs before it shows, imported before Qt: once PySide6 is
    # imported, its import hook reads the source of every module imported after it.
    # And pydantic_core (with typing_extensions, decimal, fractions): one import that no
    # step can split; loaded once the window showed, it held the window 25 ms on a quiet
    # machine and 40-65 ms at 10,000 chats, the longest stall of the start-up (the
    # window shows no measurably later: tests/bench/bench_shipped_startup.py).
    import pydantic_core  # noqa: F401

    import desktop.storage.instance_lock
    import desktop.storage.window_state  # noqa: F401
    from desktop.gui import launch_gui

    return launch_gui(data_dir=args.data_dir, smoke=args.smoke,
                      quick=args.prefill if args.command == "quick" else None)
