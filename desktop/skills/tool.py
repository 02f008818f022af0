"""The ``load_skill`` tool: the model reads a skill's full instructions when it needs them.

The system prompt lists only each skill's name and description
(:func:`desktop.skills.catalog.skills_prompt`); this tool returns the whole
``SKILL.md`` and the files beside it (resources, scripts: their paths, not their
contents; the model reads them with read_file when they are in the workspace, or runs
scripts with run_command, which asks as usual). Policy Allow: it only reads the skills
the chat offers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.core.errors import ToolError
from desktop.skills.format import SKILL_FILE, Skill, read_skill
from desktop.tools.registry import Tool, ToolContext

NAME = "load_skill"
TITLE = "Load skill"  # shown to people (translated in the window)
MAX_FILES = 200
DESCRIPTION = (
    "Load one of your skills (listed in the system prompt under available_skills): returns "
    "its full SKILL.md instructions, the folder it is in, and the files beside it "
    "(scripts, references, templates). Call it before doing a task a skill describes. Run "
    "a skill's scripts with run_command, giving their full path."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1,
                 "description": "The skill's name, as listed in available_skills."},
    },
    "required": ["name"],
    "additionalProperties": False,
}


def skill_files(folder: Path) -> tuple[list[str], bool]:
    """The files of a skill (relative paths, SKILL.md left out) and whether the list
    was cut at MAX_FILES."""
    files: list[str] = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        if path.is_file() and rel.as_posix() != SKILL_FILE:
            if len(files) >= MAX_FILES:
                return files, True
            files.append(rel.as_posix())
    return files, False


def _load(skill: Skill) -> dict[str, Any]:
    current = read_skill(skill.path, skill.origin)  # as it is now on disk
    if not current.valid:
        raise ToolError(f"The skill {skill.name!r} cannot be used: {current.problem}.")
    try:
        text = current.skill_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ToolError(f"The skill {skill.name!r} cannot be read: {exc.strerror or exc}.",
                        code="io_error") from None
    files, truncated = skill_files(current.path)
    result: dict[str, Any] = {"name": current.name, "folder": str(current.path),
                              "instructions": text, "files": files}
    if truncated:
        result["files_truncated"] = True
    if current.allowed_tools:
        result["allowed_tools"] = list(current.allowed_tools)
    return result


def load_skill_tool(skills: Sequence[Skill]) -> Tool:
    """The tool bound to the skills a chat offers (others are unknown to it)."""
    by_name = {s.name: s for s in skills if s.valid}

    async def handle(args: dict[str, Any], ctx: ToolContext) -> Any:
        name = str(args["name"]).strip()
        skill = by_name.get(name)
        if skill is None:
            known = ", ".join(sorted(by_name)) or "none"
            raise ToolError(f"There is no skill named {name!r}. Available: {known}.",
                            code="not_found")
        return await asyncio.to_thread(_load, skill)

    return Tool(name=NAME, title=TITLE, description=DESCRIPTION, parameters=dict(PARAMETERS),
                handler=handle, read_only=True, default_policy="allow", deferred_check=True)
