"""Projects in the window: made on the project page, listed above the chats, a chat
dragged onto one moves into it, New chat in a project; the project's instructions and
files reach its chats and no others (the loopback server records the requests);
deleting a project keeps its chats after saying so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from desktop.app import AppContext
from desktop.ui.conversations.session_items import dragged_chat
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send, system_text

INSTRUCTIONS = "Answer as the head gardener of Kew."
NOTE = "The greenhouse code is 4417."


def _drop_chat(window: MainWindow, session_id: str, project_name: str) -> None:
    """Drag the chat's row from the chat list and drop it on the project's row."""
    section = window.project_actions.section
    row = next(section.list.item(i) for i in range(section.list.count())
               if section.list.item(i).text() == project_name)
    item = window.sessions.item_for(session_id)
    assert item is not None
    data = window.sessions.list.mimeData([item])  # what a drag of that row carries
    assert dragged_chat(data) == session_id
    where = QPointF(section.list.visualItemRect(row).center())
    drop = QDropEvent(where, Qt.DropAction.MoveAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    section.list.dropEvent(drop)
    assert drop.isAccepted()


def test_a_project_made_in_the_window_reaches_its_chats_only(
        qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
        open_ctx: Callable[..., AppContext], tmp_path: Path) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    notes = tmp_path / "greenhouse.md"
    notes.write_text(NOTE + "\n", encoding="utf-8")
    window = make_window(qtbot, ctx)
    section = window.project_actions.section
    assert section.hint.isVisibleTo(window) and section.list.count() == 0

    page = window.project_actions.open_page("")
    qtbot.keyClicks(page.name, "Garden")
    page.instructions.setPlainText(INSTRUCTIONS)
    task = page.add_files([notes])  # a new project is saved first
    assert task is not None and not page.add_files_button.isEnabled()
    qtbot.waitUntil(task.done)
    assert page.project is not None and page.add_files_button.isEnabled()
    assert [page.files.item(i).text() for i in range(page.files.count())] == [
        "greenhouse.md  ·  in every chat"]
    assert [section.list.item(i).text() for i in range(section.list.count())] == ["Garden"]

    qtbot.mouseClick(page.new_chat_button, Qt.MouseButton.LeftButton)
    assert window.controller.new_chat.project_id == page.project.id
    assert "Garden" in window.chat.overlays.empty.text()  # the empty chat says where it is
    fake_server.enqueue_text("It is 4417.")
    send(qtbot, window, "What is the code?")
    in_project = window.controller.session_id
    assert INSTRUCTIONS in system_text(fake_server.last_chat_body)
    assert NOTE in system_text(fake_server.last_chat_body)
    assert "Garden" in window.sessions.headers()  # its chats listed under its name

    window.controller.new_session()
    assert "Garden" not in window.chat.overlays.empty.text()
    fake_server.enqueue_text("No idea.")
    send(qtbot, window, "What is the code?")
    elsewhere = window.controller.session_id
    assert elsewhere and elsewhere != in_project
    body = fake_server.last_chat_body
    assert INSTRUCTIONS not in system_text(body) and NOTE not in system_text(body)

    _drop_chat(window, elsewhere, "Garden")
    moved = ctx.sessions.get_session(elsewhere)
    assert moved is not None and moved.project_id == page.project.id
    fake_server.enqueue_text("4417.")
    send(qtbot, window, "And now?")
    assert NOTE in system_text(fake_server.last_chat_body)

    window.project_actions.open_page(page.project.id)
    page = window.project_actions.page
    assert page is not None and page.chats.count() == 2
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    box = window.project_actions.confirm_box
    assert box is not None and "2 chats are kept" in box.text()
    delete = next(b for b in box.buttons()
                  if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole)
    delete.click()
    qtbot.waitUntil(lambda: section.list.count() == 0)
    assert {s.id for s in ctx.sessions.list_sessions()} == {in_project, elsewhere}
    assert "Garden" not in window.sessions.headers()


def test_a_bad_project_input_is_said_on_the_page_and_nothing_is_lost(
        qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
        tmp_path: Path) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    page = window.project_actions.open_page("")
    page.instructions.setPlainText("Kept while the name is missing.")
    assert not page.save()
    assert page.error.isVisibleTo(page) and page.error.text()
    assert page.instructions.toPlainText() == "Kept while the name is missing."
    page.name.setText("Garden")
    page.workspace.setText(str(tmp_path / "missing"))
    assert not page.save() and "missing" in page.error.text()
    page.workspace.clear()
    assert page.save() and ctx.projects.resolve("Garden").instructions == (
        "Kept while the name is missing.")
    binary = tmp_path / "photo.raw"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    task = page.add_files([binary])
    assert task is not None
    qtbot.waitUntil(task.done)
    assert "photo.raw could not be added to the project" in page.error.text()
    assert page.files.count() == 0 and page.add_files_button.isEnabled()


def test_the_page_edits_a_projects_tools_and_knowledge_bases(
        qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
        tmp_path: Path) -> None:
    from desktop.knowledge.store import KnowledgeStore

    ctx = open_ctx()
    (tmp_path / "docs").mkdir()
    KnowledgeStore(ctx.db).add("Roses", [tmp_path / "docs"])
    project = ctx.projects.create("Garden")
    window = make_window(qtbot, ctx)
    page = window.project_actions.open_page(project.id)
    assert not page.tools_check.isChecked() and not page.tools_box.isEnabled()
    names = list(page.tool_checks)
    assert "read_file" in names
    page.tools_check.setChecked(True)
    for name, box in page.tool_checks.items():
        box.setChecked(name == "read_file")
    (roses,) = [page.knowledge.item(i) for i in range(page.knowledge.count())]
    assert roses.text() == "Roses"
    roses.setCheckState(Qt.CheckState.Checked)
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    saved = ctx.projects.resolve("Garden")
    assert saved.tools == ("read_file",) and saved.knowledge == ("Roses",)
    page.close()
    again = window.project_actions.open_page(project.id)
    assert again.tools_check.isChecked()
    assert [n for n, b in again.tool_checks.items() if b.isChecked()] == ["read_file"]


def test_projects_written_elsewhere_show_when_the_window_redraws_its_chats(
        qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    section = window.project_actions.section
    project = ctx.projects.create("Garden")  # as a sync merge or the CLI writes it
    chat = ctx.sessions.create_session("Roses", project_id=project.id)
    window.refresh_sessions()  # what the window does after a merge
    assert section.project_ids() == [project.id]
    assert window.sessions.headers()[0] == "Garden"
    assert window.sessions.item_for(chat.id) is not None


def test_a_chats_menu_moves_it_into_a_project_and_out(
        qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext]) -> None:
    from PySide6.QtWidgets import QMenu

    from tests.ui.conversation_helpers import make_chat, trigger_menu

    ctx = open_ctx()
    garden = ctx.projects.create("Garden")
    chat = make_chat(ctx, "Roses", "when to prune?")
    window = make_window(qtbot, ctx)
    sessions = window.sessions
    item = sessions.item_for(chat)
    assert item is not None
    before = set(sessions.findChildren(QMenu))
    sessions._menu(sessions.list.visualItemRect(item).center())
    (menu,) = [m for m in sessions.findChildren(QMenu) if m not in before and m.title() == ""]
    move = next(a for a in menu.actions() if a.text() == "Move to project")
    submenu = move.menu()
    assert submenu is not None
    (into,) = [a for a in submenu.actions() if a.text() == "Garden"]
    menu.close()
    into.trigger()
    info = ctx.sessions.get_session(chat)
    assert info is not None and info.project_id == garden.id
    assert sessions.headers()[0] == "Garden"
    trigger_menu(qtbot, window, chat, "Remove from project")
    info = ctx.sessions.get_session(chat)
    assert info is not None and info.project_id is None
    assert "Garden" not in sessions.headers()
