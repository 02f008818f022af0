"""edit_file: change part of a workspace text file by exact replacement or a unified diff."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping
from typing import Any

from desktop.core.errors import ToolError
from desktop.tools.approval import ApprovalPreview
from desktop.tools.builtins._common import decode_text, encode_text
from desktop.tools.builtins._patch import apply_diff, diff_stats, make_diff, replace_exact
from desktop.tools.registry import Tool, ToolContext
from desktop.tools.safe_fs import atomic_write, read_existing
from desktop.tools.workspace import Workspace

NAME = "edit_file"
TITLE = "Edit file"  # shown to people (translated in the window)
MAX_EDITS = 50
DIFF_CHARS = 40_000

DESCRIPTION = (
    "Edit an existing text file in the workspace folder. Either give old_string and "
    "new_string (old_string must match the file exactly, including whitespace, and occur "
    "once unless replace_all=true), or a list of such edits applied in order, or a unified "
    "diff (with @@ hunk headers). Ambiguous or non-matching edits are refused with an "
    "explanation and nothing is written. Returns the unified diff that was applied."
)

_EDIT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "old_string": {"type": "string", "description": "Exact text to replace."},
        "new_string": {"type": "string", "description": "Replacement text."},
        "replace_all": {
            "type": "boolean",
            "default": False,
            "description": "Replace every occurrence instead of requiring exactly one.",
        },
    },
    "required": ["old_string", "new_string"],
    "additionalProperties": False,
}

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "File path relative to the workspace root.",
        },
        **copy.deepcopy(_EDIT["properties"]),
        "edits": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_EDITS,
            "items": _EDIT,
            "description": "Several replacements, applied in order (all or nothing).",
        },
        "diff": {
            "type": "string",
            "minLength": 1,
            "description": "A unified diff against the current file content.",
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}


def edit_file_tool() -> Tool:
    return Tool(
        deferred_check=True,  # a constant schema (the tests check it)
        name=NAME, title=TITLE,
        needs_workspace=True, scope="path",
        description=DESCRIPTION,
        parameters=copy.deepcopy(PARAMETERS),
        handler=_handle,
        read_only=False,
        writes_paths=_paths,
        preview=_preview,
    )


def _paths(args: Mapping[str, Any]) -> list[str]:
    return [str(args["path"])]


def _mode(args: Mapping[str, Any]) -> str:
    modes = [
        name
        for name, present in (
            ("replace", "old_string" in args or "new_string" in args),
            ("edits", "edits" in args),
            ("diff", "diff" in args),
        )
        if present
    ]
    if len(modes) != 1:
        raise ToolError(
            "Give exactly one of: old_string + new_string, edits, or diff.", code="invalid_edit"
        )
    if modes[0] == "replace" and ("old_string" not in args or "new_string" not in args):
        raise ToolError("old_string and new_string must be given together.", code="invalid_edit")
    return modes[0]


def plan_edit(workspace: Workspace, args: Mapping[str, Any]) -> tuple[str, bytes, str, int]:
    """Compute the edit without writing: (relative path, new bytes, diff, replacements)."""
    path: str = args["path"]
    mode = _mode(args)
    data = read_existing(workspace, path)
    if data is None:
        raise ToolError(
            f"'{path}' does not exist. Use create_file to make a new file.", code="not_found"
        )
    text, bom = decode_text(data, path)
    replacements = 0
    if mode == "diff":
        new = apply_diff(text, args["diff"], path)
    else:
        edits = args["edits"] if mode == "edits" else [args]
        new = text
        for index, edit in enumerate(edits, start=1):
            try:
                new, count = replace_exact(
                    new,
                    edit["old_string"],
                    edit["new_string"],
                    replace_all=bool(edit.get("replace_all", False)),
                    path=path,
                )
            except ToolError as exc:
                if mode == "edits":
                    raise ToolError(
                        f"Edit {index} of {len(edits)}: {exc} No edit was applied.", code=exc.code
                    ) from None
                raise
            replacements += count
    if new == text:
        raise ToolError("The edit would not change the file.", code="invalid_edit")
    rel = workspace.relative(workspace.resolve(path))
    return rel, encode_text(new, bom), make_diff(rel, text, new), replacements


async def _preview(args: dict[str, Any], ctx: ToolContext) -> ApprovalPreview:
    workspace = ctx.require_workspace()
    rel, _, diff, _ = await asyncio.to_thread(plan_edit, workspace, args)
    return ApprovalPreview.titled("diff", diff, "edit", path=rel)


async def _handle(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    workspace = ctx.require_workspace()

    def work() -> dict[str, Any]:
        rel, data, diff, replacements = plan_edit(workspace, args)
        atomic_write(workspace, args["path"], data)
        added, removed = diff_stats(diff)
        result: dict[str, Any] = {
            "path": rel,
            "lines_added": added,
            "lines_removed": removed,
            "diff": diff if len(diff) <= DIFF_CHARS else diff[:DIFF_CHARS] + "\n… [diff shortened]",
        }
        if replacements:
            result["replacements"] = replacements
        return result

    return await asyncio.to_thread(work)
