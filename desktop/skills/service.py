"""What Settings → Skills and ``assista skills`` do: list, add, remove, switch off.

Qt-free; the window's page gets this service (not the app context)."""

from __future__ import annotations

from pathlib import Path

from desktop.skills.catalog import find_skills
from desktop.skills.format import Skill
from desktop.skills.install import add_skill, remove_skill
from desktop.storage.settings_service import SettingsService


class SkillService:
    def __init__(self, data_root: Path, settings: SettingsService) -> None:
        self.data_root = data_root
        self.settings = settings

    def list(self, workspace: str | None = None) -> list[Skill]:
        """Every skill found (the app's, and ``workspace``'s), broken ones included."""
        return find_skills(self.data_root, workspace)

    def enabled(self, name: str) -> bool:
        return name not in self.settings.current.disabled_skills

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Offer the skill to every chat (unless a chat or assistant turns it off), or
        to none."""
        off = [n for n in self.settings.current.disabled_skills if n != name]
        if not enabled:
            off.append(name)
        if off != self.settings.current.disabled_skills:
            self.settings.update(disabled_skills=off)

    def add(self, source: str | Path) -> str:
        """Add the skill in a folder or zip; its name. SkillInstallError with the reason."""
        return add_skill(self.data_root, source)

    def remove(self, name: str) -> None:
        """Delete an added skill (and forget that it was switched off)."""
        remove_skill(self.data_root, name)
        if name in self.settings.current.disabled_skills:
            self.set_enabled(name, True)
