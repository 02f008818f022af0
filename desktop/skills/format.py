"""One skill: its ``SKILL.md`` read and checked against the Agent Skills format.

The front matter is YAML between ``---`` lines at the top of ``SKILL.md``. What the
format requires: ``name`` 1-64 characters, lowercase letters, digits and hyphens, not
starting or ending with a hyphen nor holding two in a row, the same as the skill's
folder name; ``description`` 1-1024 characters. Optional: ``license``,
``compatibility`` (at most 500 characters), ``metadata`` (a mapping),
``allowed-tools`` (tool names separated by spaces). A skill that breaks a rule is
still listed, with :attr:`Skill.problem` saying what is wrong; it is never offered to
the model.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

SKILL_FILE = "SKILL.md"
NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
#: A SKILL.md larger than this is refused (the model would get all of it).
SKILL_FILE_MAX = 256 * 1024
_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class Skill(msgspec.Struct, frozen=True):
    """A skill folder as found. ``problem`` (None: valid) says why it cannot be used;
    ``origin`` is where it was found: ``"app"`` (the app's skills folder) or
    ``"workspace"``."""

    name: str
    description: str
    path: Path  # the skill's folder
    origin: str = "app"
    allowed_tools: tuple[str, ...] = ()
    problem: str | None = None
    license: str = ""
    compatibility: str = ""
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return self.problem is None

    @property
    def skill_file(self) -> Path:
        return self.path / SKILL_FILE


class SkillFormatError(ValueError):
    """A SKILL.md that does not follow the format (the message says how)."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter (a mapping) and the body of a SKILL.md text."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise SkillFormatError("SKILL.md does not start with a '---' front matter block")
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            header = "".join(lines[1:index])
            body = "".join(lines[index + 1:])
            break
    else:
        raise SkillFormatError("the front matter of SKILL.md has no closing '---' line")
    import yaml  # PyYAML: safe_load builds plain data only

    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise SkillFormatError(f"the front matter is not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise SkillFormatError("the front matter is not a mapping of fields")
    return data, body


def check_name(name: object, folder: str | None = None) -> str:
    """The name if it follows the format, else SkillFormatError."""
    if not isinstance(name, str) or not name:
        raise SkillFormatError("the front matter has no 'name'")
    if len(name) > NAME_MAX:
        raise SkillFormatError(f"the name is longer than {NAME_MAX} characters")
    if not _NAME_RE.match(name):
        raise SkillFormatError(
            f"the name {name!r} may hold only lowercase letters, digits and single hyphens "
            "(not at its start or end)")
    if folder is not None and folder != name:
        raise SkillFormatError(f"the name {name!r} is not the folder's name {folder!r}")
    return name


def _text_field(data: dict[str, Any], key: str, limit: int, *, required: bool) -> str:
    value = data.get(key)
    if value is None:
        if required:
            raise SkillFormatError(f"the front matter has no '{key}'")
        return ""
    if not isinstance(value, str):
        raise SkillFormatError(f"'{key}' is not text")
    value = value.strip()
    if required and not value:
        raise SkillFormatError(f"'{key}' is empty")
    if len(value) > limit:
        raise SkillFormatError(f"'{key}' is longer than {limit} characters")
    return value


def _allowed_tools(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)  # a list is not the format's form, but its meaning is plain
    raise SkillFormatError("'allowed-tools' is not a list of tool names separated by spaces")


def parse_skill_text(text: str, folder: str | None = None) -> dict[str, Any]:
    """The checked fields of a SKILL.md text (SkillFormatError when it breaks a rule)."""
    data, _body = split_front_matter(text)
    metadata = data.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise SkillFormatError("'metadata' is not a mapping")
    return {
        "name": check_name(data.get("name"), folder),
        "description": _text_field(data, "description", DESCRIPTION_MAX, required=True),
        "compatibility": _text_field(data, "compatibility", COMPATIBILITY_MAX, required=False),
        "license": str(data.get("license") or ""),
        "allowed_tools": _allowed_tools(data.get("allowed-tools")),
        "metadata": dict(metadata or {}),
    }


def read_skill(folder: Path, origin: str = "app") -> Skill:
    """The skill in ``folder``; a broken one comes back with its problem (never raises
    for what is in the folder)."""
    try:
        size = (folder / SKILL_FILE).stat().st_size
        if size > SKILL_FILE_MAX:
            raise SkillFormatError(f"SKILL.md is larger than {SKILL_FILE_MAX // 1024} KB")
        text = (folder / SKILL_FILE).read_text(encoding="utf-8")
        fields = parse_skill_text(text, folder.name)
    except FileNotFoundError:
        return Skill(folder.name, "", folder, origin, problem="the folder has no SKILL.md")
    except UnicodeDecodeError:
        return Skill(folder.name, "", folder, origin, problem="SKILL.md is not UTF-8 text")
    except OSError as exc:
        return Skill(folder.name, "", folder, origin,
                     problem=f"SKILL.md cannot be read: {exc.strerror or exc}")
    except SkillFormatError as exc:
        return Skill(folder.name, "", folder, origin, problem=str(exc))
    return Skill(path=folder, origin=origin, **fields)
