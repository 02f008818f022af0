"""write_file and create_file: write a whole text file in the workspace, atomically."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping
from typing import Any

from desktop.core.errors import ToolError
from desktop.tools.approval import ApprovalPreview
from desktop.tools.builtins._common import decode_text, kib
from desktop.tools.builtins._patch import diff_stats, make_diff
from desktop.tools.registry import Tool, ToolContext
from desktop.tools.safe_fs import atomic_write, read_existing

MAX_CONTENT_CHARS = 5 * 1024 * 1024
DIFF_CHARS = 20_000

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "File path relative to the workspace root; missing folders are created.",
        },
        "content": {
            "type": "string",
            "maxLength": MAX_CONTENT_CHARS,
            "description": "The complete new content of the file.",
        },
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}

WRITE_DESCRIPTION = (
    "Write a text file in the workspace folder, replacing its whole content (or creating it, "
    "with any missing folders). Prefer edit_file for changing part of an existing file. The "
    "write is atomic and the file keeps its permissions. Returns the path, whether it was "
    "created, the bytes written and a unified diff of the change."
)
CREATE_DESCRIPTION = (
    "Create a new text file in the workspace folder (missing folders are created). Fails if "
    "the file already exists: use edit_file or write_file for existing files."
)


def _paths(args: Mapping[str, Any]) -> list[str]:
    return [str(args["path"])]


def write_file_tool() -> Tool:
    return Tool(
        deferred_check=True,  # a constant schema (the tests check it)
        name="write_file",
        needs_workspace=True, scope="path",
        title="Write file",
        description=WRITE_DESCRIPTION,
        parameters=copy.deepcopy(_PARAMETERS),
        handler=_write,
        read_only=False,
        writes_paths=_paths,
        preview=_preview,
    )


def create_file_tool() -> Tool:
    return Tool(
        deferred_check=True,  # a constant schema (the tests check it)
        name="create_file",
        needs_workspace=True, scope="path",
        title="Create file",
        description=CREATE_DESCRIPTION,
        parameters=copy.deepcopy(_PARAMETERS),
        handler=_create,
        read_only=False,
        writes_paths=_paths,
        preview=_preview_create,
    )


def _old_text(data: bytes | None, path: str) -> str | None:
    if data is None:
        return None
    text, _ = decode_text(data, path)
    return text


def _cap_diff(diff: str) -> tuple[str, bool]:
    if len(diff) <= DIFF_CHARS:
        return diff, False
    return diff[:DIFF_CHARS] + f"\n… [{len(diff) - DIFF_CHARS} more characters of diff]\n", True


async def _preview(args: dict[str, Any], ctx: ToolContext) -> ApprovalPreview:
    workspace = ctx.require_workspace()
    path, content = args["path"], args["content"]
    data = await asyncio.to_thread(read_existing, workspace, path)
    code = "create" if data is None else "overwrite"
    try:
        old = _old_text(data, path)
    except ToolError:  # binary or not UTF-8: say so instead of a diff
        size = 0 if data is None else len(data)
        return ApprovalPreview.titled(
            "diff",
            f"(binary file of {kib(size)} replaced by {len(content)} characters of text)",
            code, path=path,
        )
    return ApprovalPreview.titled("diff", make_diff(path, old, content), code, path=path)


async def _preview_create(args: dict[str, Any], ctx: ToolContext) -> ApprovalPreview:
    workspace = ctx.require_workspace()
    path = args["path"]
    exists = await asyncio.to_thread(read_existing, workspace, path)
    if exists is not None:
        raise ToolError(
            f"'{path}' already exists. Use write_file to replace it, or edit_file to change it.",
            code="already_exists",
        )
    return ApprovalPreview.titled("diff", make_diff(path, None, args["content"]), "create",
                                  path=path)


async def _write(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    return await _store(args, ctx, create_only=False)


async def _create(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    return await _store(args, ctx, create_only=True)


async def _store(args: dict[str, Any], ctx: ToolContext, *, create_only: bool) -> dict[str, Any]:
    workspace = ctx.require_workspace()
    path, content = args["path"], args["content"]

    def work() -> dict[str, Any]:
        old: str | None = None
        if not create_only:
            data = read_existing(workspace, path)
            try:
                old = _old_text(data, path)
            except ToolError:  # replacing a binary file: no text diff
                old = None
        encoded = content.encode("utf-8")
        created = atomic_write(workspace, path, encoded, create_only=create_only)
        rel = workspace.relative(workspace.resolve(path))
        result: dict[str, Any] = {"path": rel, "created": created, "bytes_written": len(encoded)}
        if not create_only:
            full = make_diff(rel, None if created else old, content)
            added, removed = diff_stats(full)
            diff, cut = _cap_diff(full)
            result.update(lines_added=added, lines_removed=removed, diff=diff)
            if cut:
                result["note"] = "The diff was shortened."
        return result

    return await asyncio.to_thread(work)
