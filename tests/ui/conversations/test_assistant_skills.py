"""An assistant's skills: the assistant editor lists the skills found with a switch
each; a skill switched off there is kept with the assistant and is not offered to the
chats that use it (their system prompt does not name it), while the others are."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.ui.conversations.assistants_dialog import AssistantsDialog
from tests.skills.test_skills import make_skill
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send, system_text
from tests.ui.conversations.test_assistants import pick


def test_a_skill_switched_off_for_an_assistant_is_not_offered_to_its_chats(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    make_skill(ctx.paths.root / "skills", "house-style", "Our writing style.")
    make_skill(ctx.paths.root / "skills", "pdf-tools", "Merge PDF files.")
    writer = ctx.assistants.create("Writer", "You write.",
                                   extra={"kept": 1, "disabled_skills": ["gone-skill"]})
    window = make_window(qtbot, ctx)
    dialog = window.conversations.open_assistants()
    assert isinstance(dialog, AssistantsDialog)
    checks = dialog.form.skill_checks
    assert sorted(checks) == ["house-style", "pdf-tools"]
    assert all(box.isChecked() for box in checks.values())
    checks["house-style"].setChecked(False)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    (saved,) = ctx.assistants.list_assistants()
    # (a skill not found here, from another workspace, stays off; other extras stay)
    assert saved.extra == {"kept": 1, "disabled_skills": ["gone-skill", "house-style"]}
    dialog.close()
    again = window.conversations.open_assistants()
    assert isinstance(again, AssistantsDialog)
    assert {n: b.isChecked() for n, b in again.form.skill_checks.items()} == {
        "house-style": False, "pdf-tools": True}
    again.close()

    pick(window.top_bar.assistant_picker, "Writer")
    assert window.controller.profile.assistant() == ctx.assistants.get(writer.id)
    fake_server.enqueue_text("Written.")
    send(qtbot, window, "Write something")
    system = system_text(fake_server.last_chat_body)
    assert "- pdf-tools: Merge PDF files." in system and "house-style" not in system
    # The chat's own skill switches list only what the assistant offers
    assert window.controller.tool_switches.chat_skills() == [("pdf-tools", True)]


def test_the_editor_says_when_there_are_no_skills(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    dialog = AssistantsDialog(ctx.assistants, ctx.providers, ["read_file"])
    qtbot.addWidget(dialog)
    assert dialog.form.skill_checks == {}
    assert dialog.form.no_skills.text() == "No skills found (Settings → Skills adds them)."
