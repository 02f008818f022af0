"""Message actions in the window: Delete, Fork, Continue; the ‹ n/m › switcher stays in
place; tool calls expand inline; long user messages fold; narrow headers keep their
actions in the More menu."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox

from desktop.app import AppContext
from desktop.chat.message_edits import is_continuation
from desktop.ui.chat.message_widget import MessageWidget
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider, make_window, send


def widget(window: MainWindow, index: int) -> MessageWidget:
    found = window.chat.widget_for(window.controller.history[index].id)
    assert found is not None
    return found


def more_entries(target: MessageWidget) -> list[str]:
    menu = target.header_row.more_menu
    menu.aboutToShow.emit()
    return [a.text() for a in menu.actions() if a.text()]


def trigger(target: MessageWidget, text: str) -> None:
    menu = target.header_row.more_menu
    menu.aboutToShow.emit()
    next(a for a in menu.actions() if a.text() == text).trigger()


@pytest.fixture
def window(qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
           open_ctx: Callable[..., AppContext]) -> MainWindow:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    shown = make_window(qtbot, ctx)
    shown.resize(1300, 850)
    return shown


def test_delete_removes_the_message_and_what_follows(
    qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n in (1, 2):
        fake_server.enqueue_text(f"Answer {n}")
        send(qtbot, window, f"Question {n}")
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or
                        QMessageBox.StandardButton.Yes)
    trigger(widget(window, 2), "Delete this and what follows…")
    assert asked and "cannot be undone" in asked[0]
    assert [m.text for m in window.controller.history] == ["Question 1", "Answer 1"]
    session_id = window.controller.session_id
    assert session_id is not None
    stored = window.controller.ctx.sessions.load_messages(session_id)
    assert [m.text for m in stored] == ["Question 1", "Answer 1"]


def test_fork_opens_a_new_chat_with_the_conversation_down_to_the_message(
    qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer,
) -> None:
    for n in (1, 2):
        fake_server.enqueue_text(f"Answer {n}")
        send(qtbot, window, f"Question {n}")
    original = window.controller.session_id
    trigger(widget(window, 1), "Fork into a new chat from here")
    assert window.controller.session_id not in (None, original)
    assert [m.text for m in window.controller.history] == ["Question 1", "Answer 1"]
    assert window.sessions.list.count() == 2


def test_continue_is_offered_for_a_cut_off_answer_and_asks_for_the_rest(
    qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer,
) -> None:
    fake_server.enqueue_text("A complete answer.")
    send(qtbot, window, "short")
    assert "Continue this answer" not in more_entries(widget(window, 1))
    fake_server.enqueue_text("The first half", finish_reason="length")
    send(qtbot, window, "long")
    cut = widget(window, 3)
    assert "Continue this answer" in more_entries(cut)
    assert "Continue this answer" not in more_entries(widget(window, 1))  # only the last
    fake_server.enqueue_text(" and the second half.")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        trigger(cut, "Continue this answer")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    history = window.controller.history
    assert is_continuation(history[-2]) and history[-1].text == " and the second half."
    marker = widget(window, -2)
    assert marker.header.text().startswith("You asked to continue")
    assert not marker.body.isVisibleTo(marker)


def test_the_version_switcher_stays_under_the_pointer(
    qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer,
) -> None:
    fake_server.enqueue_text("Short.")
    send(qtbot, window, "Question")
    fake_server.enqueue_text("A much longer second version. " * 30)
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        widget(window, 1).branch_bar.action.click()  # Regenerate
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)

    def previous_at() -> QPoint:
        bar = widget(window, 1).branch_bar
        assert bar.previous.isVisibleTo(window)
        return bar.previous.mapTo(window, QPoint(0, 0))

    before = previous_at()
    qtbot.mouseClick(widget(window, 1).branch_bar.previous, Qt.MouseButton.LeftButton)
    assert window.controller.history[-1].text == "Short."
    assert previous_at() == before  # the short version: ‹ is where it was
    qtbot.mouseClick(widget(window, 1).branch_bar.next, Qt.MouseButton.LeftButton)
    assert window.controller.history[-1].text.startswith("A much longer")
    assert previous_at() == before


def test_tool_calls_expand_inline(
    qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer, tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("Fix bug 412.\n")
    window.controller.set_workspace(str(tmp_path))
    fake_server.enqueue_tool_calls([("read_file", json.dumps({"files": [{"path": "notes.txt"}]}))])
    fake_server.enqueue_text("Bug 412.")
    send(qtbot, window, "read notes")
    answer = widget(window, 1)
    calls = answer.tool_calls
    assert calls.text() == "▸ 1 tool call · Read file · done"
    height = answer.height()
    qtbot.mouseClick(calls.toggle, Qt.MouseButton.LeftButton)
    assert calls.details is not None and calls.details.isVisibleTo(answer)
    details = calls.details.toPlainText()
    assert "notes.txt" in details and "Fix bug 412" in details
    qtbot.waitUntil(lambda: widget(window, 1).height() > height)


def test_a_long_user_message_folds(qtbot: Any, window: MainWindow,
                                   fake_server: FakeOpenAIServer) -> None:
    fake_server.enqueue_text("Noted.")
    long = "\n\n".join(f"Paragraph {i}, long enough to be a line." for i in range(40))
    window.composer.input.setPlainText(long)
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        window.composer.send_button.click()
    user = widget(window, 0)
    assert user.fold_button is not None and user.fold_button.text() == "Show more"
    assert user.fold_button.isVisibleTo(user)
    folded = user.body.height()
    user.fold_button.click()
    qtbot.waitUntil(lambda: widget(window, 0).body.height() > folded)
    assert user.fold_button.text() == "Show less"


def test_a_narrow_header_moves_its_actions_into_the_more_menu(
    qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer,
) -> None:
    fake_server.enqueue_text("An answer.")
    send(qtbot, window, "Question")
    answer = widget(window, 1)
    header = answer.header_row
    assert header.copy_button.isVisibleTo(header) and not header.compact
    header.resize(260, header.height())
    assert header.compact and not header.copy_button.isVisibleTo(header)
    assert not answer.branch_bar.action.isVisibleTo(header)
    entries = more_entries(answer)
    assert entries[:2] == ["Regenerate", "Copy"]
    for child in (header.more_button, header.title):  # nothing overlaps, nothing clipped
        assert header.rect().contains(child.geometry())
