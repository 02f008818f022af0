"""list_directory: the entries of a workspace folder, optionally recursively."""

from __future__ import annotations

import asyncio
import copy
import os
from collections import deque
from pathlib import Path
from typing import Any

from desktop.core.errors import ToolError
from desktop.tools.builtins._common import SKIP_DIRS
from desktop.tools.registry import Tool, ToolContext
from desktop.tools.workspace import Workspace

NAME = "list_directory"
TITLE = "List folder"  # shown to people (translated in the window)
DEFAULT_MAX_ENTRIES = 500
MAX_ENTRIES = 5_000

DESCRIPTION = (
    "List the files and folders in a workspace folder. Each entry has name, type "
    "(file, dir, symlink or other) and, for files, size in bytes; folders come first, "
    "then files, sorted by name, hidden files included. With recursive=true the listing "
    "goes level by level through subfolders and names are paths relative to the listed "
    "folder; symbolic links are not followed, and folders such as .git, node_modules and "
    ".venv are listed but not entered (marked skipped). The listing stops at max_entries "
    "and then says truncated=true."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "default": ".",
            "description": "Folder to list, relative to the workspace root. Default: the root.",
        },
        "recursive": {
            "type": "boolean",
            "default": False,
            "description": "Also list the contents of subfolders.",
        },
        "max_entries": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_ENTRIES,
            "default": DEFAULT_MAX_ENTRIES,
            "description": f"Maximum number of entries to return (default {DEFAULT_MAX_ENTRIES}).",
        },
    },
    "additionalProperties": False,
}


def list_directory_tool() -> Tool:
    return Tool(
        deferred_check=True,  # a constant schema (the tests check it)
        name=NAME, title=TITLE, description=DESCRIPTION, parameters=copy.deepcopy(PARAMETERS),
        needs_workspace=True,
        handler=_handle
    )


async def _handle(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    workspace = ctx.require_workspace()
    return await asyncio.to_thread(
        _list,
        workspace,
        args.get("path") or ".",
        bool(args.get("recursive", False)),
        int(args.get("max_entries", DEFAULT_MAX_ENTRIES)),
        ctx,
    )


def _list(
    workspace: Workspace, path: str, recursive: bool, max_entries: int, ctx: ToolContext
) -> dict[str, Any]:
    directory = workspace.resolve_dir(path)
    try:
        top = _sorted_entries(workspace, directory)
    except PermissionError:
        raise ToolError(f"Permission denied for '{path}'.", code="permission_denied") from None
    except OSError as exc:
        raise ToolError(
            f"Could not list '{path}': {exc.strerror or exc}.", code="io_error"
        ) from None
    result: dict[str, Any] = {"path": workspace.relative(directory)}
    if not recursive:
        entries = [_describe(e, e.name) for e in top[:max_entries]]
        result.update(entries=entries, truncated=len(top) > max_entries, total_entries=len(top))
    else:
        entries, truncated = _walk(workspace, top, max_entries, ctx)
        result.update(entries=entries, truncated=truncated)
    if result["truncated"]:
        result["note"] = (
            f"Only the first {max_entries} entries are shown. List a subfolder, or raise "
            f"max_entries (up to {MAX_ENTRIES})."
        )
    return result


def _walk(
    workspace: Workspace, top: list[os.DirEntry[str]], max_entries: int, ctx: ToolContext
) -> tuple[list[dict[str, Any]], bool]:
    """Breadth-first, so that a capped listing still shows the upper levels."""
    entries: list[dict[str, Any]] = []
    pending: deque[tuple[Path, str, dict[str, Any]]] = deque()
    items = top
    prefix = ""
    while True:
        for item in items:
            if len(entries) >= max_entries:
                return entries, True
            rel = prefix + item.name
            entry = _describe(item, rel)
            entries.append(entry)
            if entry["type"] == "dir":
                if item.name in SKIP_DIRS:
                    entry["skipped"] = True
                else:
                    pending.append((Path(item.path), rel + "/", entry))
        while True:
            if not pending:
                return entries, False
            ctx.raise_if_cancelled()
            directory, prefix, parent = pending.popleft()
            try:
                items = _sorted_entries(workspace, directory)
                break
            except (OSError, ToolError) as exc:
                parent["error"] = _reason(exc)


def _reason(exc: OSError | ToolError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def _sorted_entries(workspace: Workspace, directory: Path) -> list[os.DirEntry[str]]:
    return sorted(workspace.scandir(directory), key=_sort_key)


def _sort_key(entry: os.DirEntry[str]) -> tuple[int, str, str]:
    try:
        is_dir = entry.is_dir(follow_symlinks=False)
    except OSError:
        is_dir = False
    return (0 if is_dir else 1, entry.name.casefold(), entry.name)


def _describe(entry: os.DirEntry[str], name: str) -> dict[str, Any]:
    try:
        if entry.is_symlink():
            return {"name": name, "type": "symlink"}
        if entry.is_dir(follow_symlinks=False):
            return {"name": name, "type": "dir"}
        if entry.is_file(follow_symlinks=False):
            size = entry.stat(follow_symlinks=False).st_size
            return {"name": name, "type": "file", "size": size}
    except OSError:
        pass
    return {"name": name, "type": "other"}
