"""Agent Skills (Qt-free): folders with a ``SKILL.md`` (YAML front matter ``name``,
``description``, optional ``allowed-tools``; resources and scripts beside it) in the
open Agent Skills format. :mod:`desktop.skills.format` reads and checks one,
:mod:`desktop.skills.catalog` finds them (the app's skills folder, a workspace's
``.agents/skills`` and ``.claude/skills``), :mod:`desktop.skills.install` adds and
removes them, :mod:`desktop.skills.tool` is the model's ``load_skill`` tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.skills import tool
    from desktop.skills.catalog import disabled_names, find_skills, skills_prompt, usable
    from desktop.skills.service import SkillService
    from desktop.skills.tool import load_skill_tool

#: What the rest of the app uses of skills, loaded when first asked for (reading a skill
#: needs PyYAML, not on the way to the window): callers import this package at their
#: top (`from desktop import skills`) and call `skills.find_skills(...)` where used.
_LAZY: dict[str, str] = {
    "tool": "desktop.skills.tool",  # the model's tool (its name and title)
    **dict.fromkeys(["disabled_names", "find_skills", "skills_prompt", "usable"],
                    "desktop.skills.catalog"),
    "SkillService": "desktop.skills.service",
    "load_skill_tool": "desktop.skills.tool",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "SkillService",
    "disabled_names",
    "find_skills",
    "load_skill_tool",
    "skills_prompt",
    "tool",
    "usable",
]
