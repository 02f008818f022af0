"""Preferences → Skills: list (broken ones with their problem), switch off, add, remove."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.ui.dialogs.settings_dialog import SettingsDialog
from tests.skills.test_skills import make_skill
from tests.ui.conversation_helpers import make_window


def _item(table: Any, row: int, column: int) -> Any:
    item = table.item(row, column)
    assert item is not None
    return item


def test_skills_page(qtbot: Any, qt_loop: qasync.QEventLoop, tmp_path: Path,
                     open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    make_skill(ctx.paths.root / "skills")
    broken = ctx.paths.root / "skills" / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: broken\n---\n")
    window = make_window(qtbot, ctx)
    dialog = SettingsDialog.for_window(window.dialogs.services, window)
    qtbot.addWidget(dialog)
    page = dialog.skills_page
    table = page.table
    assert [_item(table, r, 0).text() for r in range(table.rowCount())] == ["broken",
                                                                          "pdf-tools"]
    assert "no 'description'" in _item(table, 0, 2).text()
    assert not _item(table, 0, 0).flags() & Qt.ItemFlag.ItemIsUserCheckable
    assert _item(table, 1, 0).checkState() == Qt.CheckState.Checked
    _item(table, 1, 0).setCheckState(Qt.CheckState.Unchecked)
    assert dialog.save()
    assert ctx.settings.current.disabled_skills == ["pdf-tools"]
    # Add from a zip; a zip that climbs out is refused with the reason.
    source = make_skill(tmp_path / "src", "house-style", "Our writing style.")
    good = tmp_path / "style.zip"
    with zipfile.ZipFile(good, "w") as archive:
        archive.write(source / "SKILL.md", "house-style/SKILL.md")
    assert page.add(str(good)) == "house-style"
    assert "house-style" in [_item(table, r, 0).text() for r in range(table.rowCount())]
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("../x/SKILL.md", "---\nname: x\ndescription: y\n---\n")
    assert page.add(str(evil)) is None
    assert "outside its folder" in page.error_label.text()
    assert page.add(str(good)) is None and "already added" in page.error_label.text()
    # Remove the selected (added) skill: its folder is gone.
    row = next(r for r in range(table.rowCount()) if _item(table, r, 0).text() == "pdf-tools")
    table.selectRow(row)
    assert page.remove_button.isEnabled()
    page.remove_selected(confirm=False)
    assert not (ctx.paths.root / "skills" / "pdf-tools").exists()
    assert "pdf-tools" not in [_item(table, r, 0).text() for r in range(table.rowCount())]
    assert page.changes() == {"disabled_skills": []}


def test_chat_and_assistant_switch_skills_off(qtbot: Any, qt_loop: qasync.QEventLoop,
                                              open_ctx: Callable[..., AppContext]) -> None:
    from desktop.chat.profile import NewChat
    from desktop.storage.assistants import Assistant

    ctx = open_ctx()
    make_skill(ctx.paths.root / "skills")
    make_skill(ctx.paths.root / "skills", "house-style", "Our writing style.")
    window = make_window(qtbot, ctx)
    menu = window.tool_activity.skill_switches.menu
    window.tool_activity.refresh_tools()
    actions = {a.text(): a for a in menu.actions()}
    assert set(actions) == {"house-style", "pdf-tools"}
    assert all(a.isChecked() for a in actions.values())
    actions["pdf-tools"].setChecked(False)  # off for this chat only
    chat = window.controller.chat
    profiles = window.controller.service.chats.profiles
    assert [s.name for s in profiles.skills(chat)] == ["house-style"]
    prompt = profiles.system_prompt(chat, ("load_skill",)) or ""
    assert "- house-style: Our writing style." in prompt and "pdf-tools" not in prompt
    assert [s.name for s in profiles.skills(NewChat())] == ["house-style", "pdf-tools"]
    # An assistant that switches house-style off: its chats do not offer it.
    assistant = ctx.assistants.save(Assistant(name="Writer",
                                              extra={"disabled_skills": ["house-style"]}))
    assert [s.name for s in profiles.skills(NewChat(assistant_id=assistant.id))] == [
        "pdf-tools"]
