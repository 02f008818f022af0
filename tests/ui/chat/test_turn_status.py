"""What the conversation says while it waits: thinking before the first token, a
retry with Cancel, an approval with the card's buttons; token counts and speed of
stopped and finished answers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from desktop.app import AppContext
from desktop.chat.approvals import PendingApproval
from desktop.chat.events import ProviderRetrying
from desktop.tools.approval import ApprovalPreview, ApprovalRequest
from desktop.ui.chat.turn_status import TurnStatus, retry_headline
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.ui.window.test_main_window import add_provider, make_window


def type_and_send(qtbot: Any, window: Any, text: str) -> None:
    window.composer.input.setFocus()
    qtbot.keyClicks(window.composer.input, text)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)


def test_thinking_shows_from_send_to_the_first_token(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    status = window.chat.turn_status
    # the server holds after the role chunk: no token yet
    answer = ScriptedResponse(chunks=text_stream("Here it comes.", 4), hold_after=1)
    fake_server.enqueue(answer)
    type_and_send(qtbot, window, "hello")
    assert status.kind == "thinking" and status.isVisibleTo(window)
    qtbot.waitUntil(answer.holding.is_set, timeout=10000)
    assert status.kind == "thinking" and status.label.text().startswith("Thinking")
    user_widget = window.chat.widget_for(window.controller.history[0].id)
    assert user_widget is not None  # the placeholder sits under the last block
    assert status.geometry().top() >= user_widget.geometry().bottom()
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        answer.release()
    assert status.kind == "" and not status.isVisibleTo(window)


def test_a_retry_shows_inline_with_a_cancel_that_stops_the_answer(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    status = window.chat.turn_status
    fake_server.enqueue_error(429, "slow down", headers={"Retry-After": "30"})
    type_and_send(qtbot, window, "hello")
    qtbot.waitUntil(lambda: status.kind == "retrying", timeout=10000)
    assert status.label.text().startswith("Rate limited — retrying in ")
    assert status.label.text().endswith("(1/4)")
    assert status.cancel_button.isVisibleTo(window)
    with qtbot.waitSignal(window.controller.busyChanged, timeout=10000):
        qtbot.mouseClick(status.cancel_button, Qt.MouseButton.LeftButton)
    assert not window.controller.busy and status.kind == ""
    assert len(fake_server.chat_requests) == 1  # the retry never went out


def test_retry_headline() -> None:
    assert retry_headline(ProviderRetrying("X", 1, 4, "HTTP 429", 4), 4) == (
        "Rate limited — retrying in 4 s (2/4)")
    assert retry_headline(ProviderRetrying("X", 0, 1, "ConnectError"), 0) == (
        "Could not connect (ConnectError) — retrying now (retry 1)")


def test_an_approval_waits_inline_with_the_cards_buttons(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(workspace))
    status = window.chat.turn_status
    edit = json.dumps({"path": "notes.txt", "old_string": "beta", "new_string": "gamma"})
    fake_server.enqueue_tool_calls([("edit_file", edit)])
    fake_server.enqueue_text("Edited.")
    type_and_send(qtbot, window, "change beta")
    qtbot.waitUntil(lambda: status.kind == "approval", timeout=10000)
    assert status.label.text() == "Waiting for your approval: Edit file · Edit notes.txt"
    assert [b.text() for b in status.approval_buttons.values() if b.isVisibleTo(window)] == [
        "Allow once", "Allow for this chat", "Always allow", "Deny"]
    assert len(window.sidebar.approval_cards) == 1  # the card shows it too
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.mouseClick(status.approval_buttons["allow_once"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert (workspace / "notes.txt").read_text() == "alpha\ngamma\n"
    assert window.sidebar.approval_cards == {} and status.kind == ""


def test_a_stopped_answer_shows_estimated_counts_and_a_finished_one_its_speed(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    answer = ScriptedResponse(chunks=text_stream("Some words that stream in. " * 6, 5),
                              hold_after=8)
    fake_server.enqueue(answer)
    type_and_send(qtbot, window, "talk")
    qtbot.waitUntil(answer.holding.is_set, timeout=10000)
    # (the first words on screen, not only sent: the speed counts from the first token)
    qtbot.waitUntil(lambda: window.chat._current is not None
                    and "Some words" in window.chat._current.plain_text(), timeout=10000)
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)  # Stop
    answer.release()
    stopped = window.controller.history[-1]
    assert stopped.status == "stopped"
    widget = window.chat.widget_for(stopped.id)
    assert widget is not None
    text = widget.tokens_label.text()
    assert text.startswith("≈") and " in · ≈" in text and "0 in" not in text.split("·")[0]
    assert "estimated" in widget.tokens_label.toolTip()
    assert "First token after" in widget.tokens_label.toolTip()

    fake_server.enqueue(ScriptedResponse(chunks=text_stream("A complete answer here.", 3)))
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        type_and_send(qtbot, window, "again")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    done = window.chat.widget_for(window.controller.history[-1].id)
    assert done is not None
    assert done.tokens_label.text().startswith("10 in · 5 out")
    assert "≈" not in done.tokens_label.text()
    assert "First token after" in done.tokens_label.toolTip()


def cut_or_overlapping(status: TurnStatus) -> list[str]:
    """Shown buttons narrower than their text, outside the row, or over the text or
    one another; the text cut (taller than the room it got)."""
    problems = []
    shown = [b for b in status.findChildren(QPushButton) if b.isVisible()]
    for button in shown:
        text = button.fontMetrics().horizontalAdvance(button.text())
        if button.width() < button.sizeHint().width() or text + 8 > button.width():
            problems.append(f"{button.text()!r} cut: {button.width()} px for {text} px")
        if not status.rect().contains(button.geometry()):
            problems.append(f"{button.text()!r} outside: {button.geometry()}")
    for index, first in enumerate([status.label, *shown]):
        for second in shown[index:]:
            if first is not second and first.geometry().intersects(second.geometry()):
                problems.append(f"{second.text()!r} overlaps {first.objectName() or 'a button'}")
    label = status.label
    if label.heightForWidth(label.width()) > label.height():
        problems.append(f"the text is cut: {label.height()} px for "
                        f"{label.heightForWidth(label.width())}")
    return problems


def show_at(status: TurnStatus, width: int) -> None:
    status.resize(width, status.heightForWidth(width))
    layout = status.layout()
    assert layout is not None
    layout.activate()


def test_narrow_rows_put_their_buttons_under_the_text_uncut(
    qtbot: Any, qt_loop: qasync.QEventLoop,
) -> None:
    status = TurnStatus()
    qtbot.addWidget(status)
    request = ApprovalRequest("edit_file", "call-1", {}, ApprovalPreview("arguments", "{}"))
    rows = [lambda: status.show_approval(PendingApproval(request, qt_loop.create_future())),
            lambda: status.show_confirm(3),
            lambda: status.show_retry(ProviderRetrying("X", 0, 30, "HTTP 429", 4))]
    for show in rows:
        show()
        assert status.isVisible()
        show_at(status, 1400)  # wide: the text and its buttons on one line
        assert cut_or_overlapping(status) == []
        centre = status.label.geometry().center().y()
        shown = [b for b in status.findChildren(QPushButton) if b.isVisible()]
        assert shown and all(b.geometry().center().y() == centre for b in shown)
        wide = status.height()
        one_line = status.sizeHint().width()
        for width in (400, 300, 220):  # the chat column at 1024×700 with tools open: ~400
            show_at(status, width)
            assert cut_or_overlapping(status) == [], (status.kind, width)
            if width < one_line:  # the buttons on lines of their own under the text
                assert status.label.geometry().bottom() < min(b.geometry().top() for b in shown)
            else:
                assert status.height() == wide
        assert status.height() > wide
        show_at(status, 1400)  # wide again: one line
        assert status.height() == wide and cut_or_overlapping(status) == []


def test_the_approval_row_fits_a_1024_window_with_tool_activity_open(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024)
    window.controller.set_workspace(str(workspace))
    status = window.chat.turn_status
    edit = json.dumps({"path": "notes.txt", "old_string": "beta", "new_string": "gamma"})
    fake_server.enqueue_tool_calls([("edit_file", edit)])
    fake_server.enqueue_text("Edited.")
    type_and_send(qtbot, window, "change beta")
    qtbot.waitUntil(lambda: status.kind == "approval", timeout=10000)
    assert window.sidebar.isVisible()  # Tool activity beside the chat: a narrow column
    assert status.width() < 500
    qtbot.waitUntil(lambda: cut_or_overlapping(status) == [])
    buttons = list(status.approval_buttons.values())
    assert status.label.geometry().bottom() < min(b.geometry().top() for b in buttons)
    # (its text on one line above them, not wrapped into four beside them)
    assert status.label.height() < 2 * status.label.fontMetrics().lineSpacing()
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.mouseClick(status.approval_buttons["allow_once"], Qt.MouseButton.LeftButton)
    assert (workspace / "notes.txt").read_text() == "alpha\ngamma\n"


def test_a_countdown_that_gets_shorter_brings_cancel_back_beside_it(
    qtbot: Any, qt_loop: qasync.QEventLoop,
) -> None:
    status = TurnStatus()
    qtbot.addWidget(status)
    status.show_retry(ProviderRetrying("X", 0, 9.8, "HTTP 429", 4))
    assert "retrying in 10 s" in status.label.text()
    width = status.sizeHint().width() - 1  # "10 s" does not fit beside Cancel, "9 s" will
    show_at(status, width)
    stacked = status.height()
    assert status.label.geometry().bottom() < status.cancel_button.geometry().top()
    with qtbot.waitSignal(status.changed, timeout=5000):  # the column lays out again
        pass
    assert "retrying in 9 s" in status.label.text()
    show_at(status, width)
    assert status.height() < stacked and cut_or_overlapping(status) == []
    assert status.label.geometry().center().y() == status.cancel_button.geometry().center().y()


def test_always_allow_in_the_status_bar_grants_the_proposed_scope_or_nothing(
    qtbot: Any, qt_loop: qasync.QEventLoop,
) -> None:
    from desktop.tools.approval import ApprovalDecision

    def pending_for(command: str, scope: str) -> PendingApproval:
        return PendingApproval(ApprovalRequest(
            tool="run_command", call_id="c1", arguments={"command": command},
            preview=ApprovalPreview("command", command), proposed_scope=scope,
            always_needs_scope=True), qt_loop.create_future())

    status = TurnStatus()
    qtbot.addWidget(status)
    shell = pending_for("ls; rm -rf build", "")
    status.show_approval(shell)
    always = status.approval_buttons["allow_always"]
    assert not always.isEnabled() and "shell syntax" in always.toolTip()
    status.decide("allow_always")
    assert not shell.done
    status.decide("deny")
    assert shell._future.result().kind == "deny"
    scoped = pending_for("git log --oneline", "git log")
    status.show_approval(scoped)
    assert always.isEnabled() and "“git log” runs without asking" in always.toolTip()
    qtbot.mouseClick(always, Qt.MouseButton.LeftButton)
    assert scoped._future.result() == ApprovalDecision.allow_always("git log")


def test_two_approvals_of_one_turn_both_wait_inline_in_order(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    """Issue 24.1: the second approval of a turn was lost inline (the line said
    "running…" while it waited): each has its row and buttons, in the model's order."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(workspace))
    status = window.chat.turn_status
    fake_server.enqueue_tool_calls([
        ("write_file", json.dumps({"path": "notes.txt", "content": "hello\n"})),
        ("run_command", json.dumps({"command": "echo done"}))])
    fake_server.enqueue_text("Both handled.")
    type_and_send(qtbot, window, "write and run")
    qtbot.waitUntil(lambda: len(status.approvals) == 2, timeout=10000)
    assert status.kind == "approval"
    assert status.label.text() == (
        "Waiting for your approval (1 of 2): Write file · Create notes.txt")
    assert len(status.more_rows) == 1
    second = status.more_rows[0]
    assert second.isVisibleTo(window)
    assert second.label.text() == "Also waiting (2 of 2): Run command · echo done"
    assert [b.text() for b in second.buttons.values() if b.isVisibleTo(window)] == [
        "Allow once", "Allow for this chat", "Always allow", "Deny"]
    assert status.height() >= status.head.height() + second.height()  # both rows laid out
    # the panel has both too, in the same order
    assert [c.request.tool for c in window.sidebar.approval_cards.values()] == [
        "write_file", "run_command"]
    answer = window.chat.widget_for(window.controller.history[-1].id)
    assert answer is not None and "waiting for your approval" in answer.tool_calls.text()
    # answering the second row first leaves the first waiting, with its buttons
    qtbot.mouseClick(second.buttons["deny"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(status.approvals) == 1, timeout=10000)
    assert status.label.text() == "Waiting for your approval: Write file · Create notes.txt"
    assert status.more_rows == [] and status.approval_buttons["allow_once"].isVisibleTo(window)
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.mouseClick(status.approval_buttons["allow_once"], Qt.MouseButton.LeftButton)
    assert (workspace / "notes.txt").read_text() == "hello\n"
    assert status.kind == "" and window.sidebar.approval_cards == {}


def test_approvals_arriving_out_of_order_wait_in_the_models_order(
    qtbot: Any, qt_loop: qasync.QEventLoop,
) -> None:
    """Calls of one turn run at once: the second's approval can come first."""
    status = TurnStatus()
    qtbot.addWidget(status)
    status.order = {"call-1": 0, "call-2": 1}.__getitem__
    second = ApprovalRequest("run_command", "call-2", {}, ApprovalPreview("command", "ls"))
    first = ApprovalRequest("edit_file", "call-1", {}, ApprovalPreview("diff", "", "Edit a"))
    status.show_approval(PendingApproval(second, qt_loop.create_future()))
    status.show_approval(PendingApproval(first, qt_loop.create_future()))
    status.show_approval(PendingApproval(first, qt_loop.create_future()))  # (shown again)
    assert [p.request.call_id for p in status.approvals] == ["call-1", "call-2"]
    assert status.label.text() == "Waiting for your approval (1 of 2): Edit file · Edit a"
    assert [r.label.text() for r in status.more_rows] == [
        "Also waiting (2 of 2): Run command · ls"]
    status.approval_closed("call-1")
    assert status.label.text() == "Waiting for your approval: Run command · ls"
    assert status.more_rows == [] and status.kind == "approval"
    status.approval_closed("call-2")
    assert status.kind == "" and status.isHidden()
