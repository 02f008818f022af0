"""search_files: find lines matching text or a regular expression in workspace files."""

from __future__ import annotations

import asyncio
import codecs
import copy
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from desktop.core.errors import ToolError
from desktop.tools.builtins._common import SKIP_DIRS, SNIFF_BYTES, GlobSet, kib
from desktop.tools.builtins._linear_regex import Match, Pattern, compile_linear
from desktop.tools.registry import Tool, ToolContext
from desktop.tools.workspace import Workspace

NAME = "search_files"
TITLE = "Search files"  # shown to people (translated in the window)
DEFAULT_MAX_RESULTS = 100
MAX_RESULTS = 1_000
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_FILES_VISITED = 50_000
LINE_CHARS = 300
_CONTEXT_BEFORE = 100

DESCRIPTION = (
    "Search the text of files in the workspace folder, line by line. By default the query "
    "is plain text matched case-insensitively; set regex=true for a regular expression "
    "(RE2 syntax: no backreferences or lookaround) and case_sensitive=true to match case. "
    "include/exclude are glob patterns (e.g. '*.py', 'src/**/*.ts', '*.{js,jsx}', or "
    "several separated by commas); a pattern without '/' matches file names at any depth. "
    "Returns matches with path, line (1-based), column and the line text (long lines are "
    "shortened around the match). Skips .git, node_modules, .venv and similar folders, "
    "symbolic links, binary files and files over "
    f"{kib(MAX_FILE_BYTES)}. Stops at max_results and then says truncated=true."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "description": "Text or regex to find."},
        "regex": {
            "type": "boolean",
            "default": False,
            "description": "Treat query as a regular expression (RE2 syntax).",
        },
        "case_sensitive": {"type": "boolean", "default": False},
        "include": {
            "type": "string",
            "description": "Only search files matching this glob, e.g. '*.py'.",
        },
        "exclude": {
            "type": "string",
            "description": "Skip files and folders matching this glob, e.g. 'tests/**'.",
        },
        "path": {
            "type": "string",
            "default": ".",
            "description": "Folder (or single file) to search, relative to the workspace root.",
        },
        "max_results": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": DEFAULT_MAX_RESULTS,
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


def search_files_tool() -> Tool:
    return Tool(
        deferred_check=True,  # a constant schema (the tests check it)
        name=NAME, title=TITLE, description=DESCRIPTION, parameters=copy.deepcopy(PARAMETERS),
        needs_workspace=True,
        handler=_handle
    )


class _Search(msgspec.Struct):
    """One search_files run: what it looks for, where, and what it found so far."""

    workspace: Workspace
    pattern: Pattern
    include: GlobSet
    exclude: GlobSet
    base: str  # the searched folder, relative to the root ("" for the root)
    max_results: int
    ctx: ToolContext
    literal: bool = False
    matches: list[dict[str, Any]] = msgspec.field(default_factory=list)
    files_searched: int = 0
    skipped: dict[str, int] = msgspec.field(
        default_factory=lambda: {"binary": 0, "too_large": 0, "unreadable": 0}
    )
    truncated: bool = False
    note: str | None = None


async def _handle(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    workspace = ctx.require_workspace()
    query: str = args["query"]
    flags = 0 if args.get("case_sensitive", False) else re.IGNORECASE
    pattern: Pattern
    if args.get("regex", False):  # RE2: the model's pattern cannot run for minutes
        pattern = compile_linear(query, case_sensitive=bool(args.get("case_sensitive", False)))
    else:  # escaped text: Python's re matches it in linear time
        pattern = re.compile(re.escape(query), flags)
    try:
        include = GlobSet(args.get("include"))
        exclude = GlobSet(args.get("exclude"))
    except ValueError as exc:
        raise ToolError(str(exc), code="invalid_glob") from None
    search = _Search(
        workspace=workspace,
        pattern=pattern,
        include=include,
        exclude=exclude,
        base="",
        max_results=int(args.get("max_results", DEFAULT_MAX_RESULTS)),
        ctx=ctx,
        literal=not args.get("regex", False),
    )
    return await asyncio.to_thread(_run, search, args.get("path") or ".")


def _run(search: _Search, path: str) -> dict[str, Any]:
    workspace = search.workspace
    target = workspace.resolve(path)
    if target.is_file():
        rel = workspace.relative(target)
        _search_file(search, rel, target.stat().st_size)
    else:
        directory = workspace.resolve_dir(path)
        rel_dir = workspace.relative(directory)
        search.base = "" if rel_dir == "." else rel_dir + "/"
        for rel, size in _files(search, directory, search.base):
            if search.truncated:
                break
            if search.files_searched >= MAX_FILES_VISITED:
                search.truncated = True
                search.note = (
                    f"Stopped after searching {MAX_FILES_VISITED} files. Narrow the search "
                    "with path or include."
                )
                break
            _search_file(search, rel, size)
    result: dict[str, Any] = {
        "matches": search.matches,
        "truncated": search.truncated,
        "files_searched": search.files_searched,
        "files_skipped": search.skipped,
    }
    if search.truncated and search.note is None:
        search.note = (
            f"Showing the first {search.max_results} matches. Narrow the search, or raise "
            f"max_results (up to {MAX_RESULTS})."
        )
    if search.note:
        result["note"] = search.note
    return result


def _files(search: _Search, directory: Path, prefix: str) -> Iterator[tuple[str, int]]:
    """``(path relative to the root, size)`` of the files to search, depth-first, sorted."""
    search.ctx.raise_if_cancelled()
    try:
        entries = sorted(search.workspace.scandir(directory), key=lambda e: e.name)
    except (OSError, ToolError):
        search.skipped["unreadable"] += 1
        return
    for entry in entries:
        rel = prefix + entry.name
        paths = (rel, rel.removeprefix(search.base))
        try:
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name in SKIP_DIRS or search.exclude.matches(entry.name, paths):
                    continue
                yield from _files(search, Path(entry.path), rel + "/")
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            size = entry.stat(follow_symlinks=False).st_size
        except OSError:
            search.skipped["unreadable"] += 1
            continue
        if search.exclude.matches(entry.name, paths):
            continue
        if search.include and not search.include.matches(entry.name, paths):
            continue
        yield rel, size


def _search_file(search: _Search, rel: str, size: int) -> None:
    search.ctx.raise_if_cancelled()
    if size > MAX_FILE_BYTES:
        search.skipped["too_large"] += 1
        return
    try:
        handle, _ = search.workspace.open_file(rel)
        with handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, ToolError):
        search.skipped["unreadable"] += 1
        return
    if len(data) > MAX_FILE_BYTES:
        search.skipped["too_large"] += 1
        return
    if b"\x00" in data[:SNIFF_BYTES] or data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        search.skipped["binary"] += 1
        return
    search.files_searched += 1
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if search.literal and search.pattern.search(text) is None:
        return  # fast path: plain text cannot match across lines, so no line matches
    for number, raw_line in enumerate(text.split("\n"), start=1):
        if number % 2048 == 0:
            search.ctx.raise_if_cancelled()
        line = raw_line.removesuffix("\r")
        match = search.pattern.search(line)
        if match is None:
            continue
        if len(search.matches) >= search.max_results:
            search.truncated = True
            return
        excerpt = _excerpt(line, match)
        search.matches.append(
            {"path": rel, "line": number, "column": match.start() + 1, "text": excerpt}
        )


def _excerpt(line: str, match: Match) -> str:
    line = line.rstrip()
    if len(line) <= LINE_CHARS:
        return line
    start = max(0, min(match.start() - _CONTEXT_BEFORE, len(line) - LINE_CHARS))
    excerpt = line[start : start + LINE_CHARS]
    if start > 0:
        excerpt = "…" + excerpt[1:]
    if start + LINE_CHARS < len(line):
        excerpt = excerpt[:-1] + "…"
    return excerpt
