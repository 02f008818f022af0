"""Where skills are found, and which of them a chat offers the model.

The app's skills folder (``<data folder>/skills``, where ``assista skills add`` and
Settings → Skills put them) and, for a chat with a workspace, the workspace's
``.agents/skills/`` and ``.claude/skills/``. Each skill is a subfolder holding a
``SKILL.md``. When two have the same name the workspace's wins (it is the more
specific). A skill is switched off for every chat in Settings
(``AppSettings.disabled_skills``), or for one assistant or one chat (their
``extra["disabled_skills"]``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from desktop.skills.format import SKILL_FILE, Skill, read_skill

log = logging.getLogger(__name__)

SKILLS_DIRNAME = "skills"
WORKSPACE_SKILL_DIRS = (".agents/skills", ".claude/skills")
DISABLED_SKILLS_KEY = "disabled_skills"
#: At most this many skill folders are read from one place (a stray huge folder).
MAX_SKILLS_PER_ROOT = 200


def app_skills_dir(data_root: Path) -> Path:
    return data_root / SKILLS_DIRNAME


def skill_roots(data_root: Path, workspace: str | None) -> list[tuple[Path, str]]:
    """The folders searched, most specific first, each with its origin."""
    roots: list[tuple[Path, str]] = []
    if workspace:
        roots += [(Path(workspace) / rel, "workspace") for rel in WORKSPACE_SKILL_DIRS]
    roots.append((app_skills_dir(data_root), "app"))
    return roots


def _folders(root: Path) -> list[Path]:
    try:
        entries = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("cannot list the skills in %s: %s", root, exc)
        return []
    return entries[:MAX_SKILLS_PER_ROOT]


def find_skills(data_root: Path, workspace: str | None = None) -> list[Skill]:
    """Every skill found, broken ones included (with their problem); for one name only
    the most specific place's skill."""
    seen: set[str] = set()
    found: list[Skill] = []
    for root, origin in skill_roots(data_root, workspace):
        for folder in _folders(root):
            if not (folder / SKILL_FILE).exists() and origin == "workspace":
                continue  # not every folder there is a skill
            skill = read_skill(folder, origin)
            if skill.name in seen:
                continue
            seen.add(skill.name)
            found.append(skill)
    return found


def disabled_names(*sources: object) -> set[str]:
    """The names listed under ``disabled_skills`` in any of ``sources`` (mappings, or
    lists of names)."""
    names: set[str] = set()
    for source in sources:
        raw = source.get(DISABLED_SKILLS_KEY) if isinstance(source, dict) else source
        if isinstance(raw, list | tuple):
            names.update(str(n) for n in raw)
    return names


def usable(skills: Iterable[Skill], disabled: Sequence[str] | set[str] = ()) -> list[Skill]:
    """The valid skills not switched off."""
    off = set(disabled)
    return [s for s in skills if s.valid and s.name not in off]


def skills_prompt(skills: Sequence[Skill]) -> str:
    """The system prompt's section that tells the model which skills it may load."""
    if not skills:
        return ""
    lines = ["You have these skills: instructions (and files) for particular tasks. When a "
             "task matches a skill's description, call the load_skill tool with its name "
             "to read its full instructions before you start; run its scripts with "
             "run_command.", "<available_skills>"]
    for skill in skills:
        lines.append(f"- {skill.name}: {' '.join(skill.description.split())}")
    lines.append("</available_skills>")
    return "\n".join(lines)
