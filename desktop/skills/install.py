"""Adding a skill to the app's skills folder (from a folder or a zip) and removing it.

A skill is checked before it is copied: a folder (or zip) whose ``SKILL.md`` breaks
the format is refused with the reason, and so is a name already taken. A zip holds
``SKILL.md`` at its top or in one top folder; it is unpacked safely
(desktop.storage.safe_zip) into a temporary folder first.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from desktop.core.errors import ConfigError
from desktop.skills.catalog import app_skills_dir
from desktop.skills.format import SKILL_FILE, Skill, SkillFormatError, parse_skill_text, read_skill
from desktop.storage.safe_zip import UnsafeZipError, extract_zip

#: A skill (folder or unpacked zip) larger than this is refused.
MAX_SKILL_BYTES = 50 * 1024 * 1024


class SkillInstallError(ConfigError):
    """A skill that cannot be added or removed (the message says why)."""


def _skill_folder(root: Path) -> Path:
    """The folder holding SKILL.md: ``root`` itself or its only subfolder."""
    if (root / SKILL_FILE).is_file():
        return root
    subfolders = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("__", "."))]
    if len(subfolders) == 1 and (subfolders[0] / SKILL_FILE).is_file():
        return subfolders[0]
    raise SkillInstallError("there is no SKILL.md in it", code="skill_no_file")


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _checked_name(folder: Path) -> str:
    try:
        text = (folder / SKILL_FILE).read_text(encoding="utf-8")
        return str(parse_skill_text(text)["name"])
    except UnicodeDecodeError:
        raise SkillInstallError("SKILL.md is not UTF-8 text", code="skill_invalid",
                                params={"reason": "SKILL.md is not UTF-8 text"}) from None
    except SkillFormatError as exc:
        raise SkillInstallError(f"the skill is not valid: {exc}", code="skill_invalid",
                                params={"reason": str(exc)}) from None


def add_skill(data_root: Path, source: str | Path) -> str:
    """Copy the skill at ``source`` (a folder or a .zip) into the app's skills folder;
    returns its name. Raises SkillInstallError with the reason."""
    source = Path(source).expanduser()
    if not source.exists():
        raise SkillInstallError(f"{source} does not exist", code="skill_missing",
                                params={"path": str(source)})
    with tempfile.TemporaryDirectory(prefix="assista-skill-") as tmp:
        if source.is_file():
            try:
                extract_zip(source, Path(tmp) / "unpacked", MAX_SKILL_BYTES)
            except UnsafeZipError as exc:
                raise SkillInstallError(f"the zip is refused: {exc}", code="skill_bad_zip",
                                        params={"reason": str(exc)}) from None
            folder = _skill_folder(Path(tmp) / "unpacked")
        else:
            folder = _skill_folder(source)
            if _size(folder) > MAX_SKILL_BYTES:
                raise SkillInstallError("the skill is larger than 50 MB", code="skill_too_big")
        name = _checked_name(folder)
        skills = app_skills_dir(data_root)
        target = skills / name
        if target.exists():
            raise SkillInstallError(f"a skill named {name} is already added",
                                    code="skill_exists", params={"name": name})
        skills.mkdir(parents=True, exist_ok=True)
        staging = skills / f".adding-{name}"
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(folder, staging, symlinks=False,
                        ignore=shutil.ignore_patterns(".git", "__pycache__"))
        staging.rename(target)
    return name


def remove_skill(data_root: Path, name: str) -> Skill | None:
    """Delete the app's skill ``name`` (its whole folder); SkillInstallError when there
    is none (a workspace's skills are the workspace's: not removed here)."""
    skills = app_skills_dir(data_root)
    target = skills / name
    if not name or "/" in name or "\\" in name or name.startswith(".") \
            or not target.is_dir():
        raise SkillInstallError(f"there is no added skill named {name}",
                                code="skill_unknown", params={"name": name})
    skill = read_skill(target)
    shutil.rmtree(target)
    return skill
