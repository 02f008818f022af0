"""The quick-ask window against a loopback provider: send, the streamed answer, "Open in
the main window", the selection/clipboard, and ``assista quick`` reaching a running app."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QGuiApplication

from desktop.app import AppContext
from desktop.storage.instance_lock import acquire_instance_lock
from desktop.storage.paths import DataPaths
from desktop.ui.quick.quick_window import QuickAskWindow
from desktop.ui.window.main_window import MainWindow
from desktop.ui.window.single_instance import InstanceServer
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window

ROOT = Path(__file__).resolve().parents[3]


def ask(qtbot: Any, quick: QuickAskWindow, text: str) -> None:
    quick.input.setFocus()
    qtbot.keyClicks(quick.input, text)
    with qtbot.waitSignal(quick.controller.bridge.runFinished, timeout=10000):
        qtbot.keyClick(quick.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not quick.controller.busy, timeout=10000)


def open_quick(qtbot: Any, window: MainWindow, prefill: str = "none") -> QuickAskWindow:
    quick = window.quick.open(prefill)
    qtbot.addWidget(quick)
    return quick


def test_quick_ask_streams_the_answer_and_continues_in_the_main_window(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    quick = open_quick(qtbot, window)
    assert quick.isVisible()
    assert quick.windowFlags() & Qt.WindowType.WindowStaysOnTopHint
    fake_server.enqueue_text("Paris is the **capital** of France.", chunk_size=4)

    ask(qtbot, quick, "Capital of France?")
    assert quick.answer.toPlainText() == "Paris is the capital of France."
    iface = QAccessible.queryAccessibleInterface(quick.answer)
    assert iface.text(QAccessible.Text.Value) == "Paris is the capital of France."
    assert quick.announcer.said == ["Paris is the capital of France."]
    assert quick.input.toPlainText() == ""
    session_id = quick.controller.session_id
    assert session_id is not None
    stored = ctx.sessions.load_messages(session_id)
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[-1].text == "Paris is the **capital** of France."
    # The main window's chat list knows the new chat; it did not switch to it.
    assert window.controller.session_id is None
    assert window.sessions.item_for(session_id) is not None

    qtbot.keyClick(quick, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    assert not quick.isVisible()
    assert window.controller.session_id == session_id
    assert [m.text for m in window.controller.history] == [
        "Capital of France?", "Paris is the **capital** of France."]
    assert window.isVisible()

    # The next quick ask starts a new chat; the old one stays in the main window.
    fake_server.enqueue_text("Berlin.")
    quick = open_quick(qtbot, window)
    assert quick.answer.toPlainText() == ""
    ask(qtbot, quick, "And Germany?")
    assert quick.controller.session_id not in (None, session_id)
    last = [r.json for r in fake_server.requests if r.path.endswith("/chat/completions")][-1]
    assert [m["content"] for m in last["messages"] if m["role"] != "system"] == ["And Germany?"]


def test_a_finished_quick_answer_is_notified_when_the_user_looks_elsewhere(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    quick = open_quick(qtbot, window)
    fake_server.enqueue_text("Done thinking.")
    quick.input.setPlainText("Think")
    with qtbot.waitSignal(quick.controller.bridge.runFinished, timeout=10000):
        assert quick.send()
        quick.hide()  # the user went back to their work
    assert window.notifier.sent[-1][0] == "Answer ready"
    assert window.notifier.sent[-1][1].endswith(": Done thinking.")


def test_the_question_can_start_with_the_selection_or_clipboard(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = make_window(qtbot, open_ctx())
    QGuiApplication.clipboard().setText("def f(): return 1")
    quick = open_quick(qtbot, window, "clipboard")
    assert quick.input.toPlainText() == "def f(): return 1\n\n"
    quick.input.insertPlainText("What does this do?")
    assert quick.input.toPlainText().endswith("\n\nWhat does this do?")
    QGuiApplication.clipboard().clear()
    quick.input.clear()
    assert not quick.insert_selection()  # nothing there: said so, nothing inserted
    assert quick.status.isVisibleTo(quick) and quick.status.text()
    assert quick.input.toPlainText() == ""


def test_quick_ask_without_a_provider_says_what_to_do(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = make_window(qtbot, open_ctx())
    quick = open_quick(qtbot, window)
    quick.input.setPlainText("Hello?")
    assert not quick.send()
    assert "provider" in quick.status.text()
    assert quick.input.toPlainText() == "Hello?"  # nothing lost


def test_assista_quick_opens_it_in_the_running_app(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    window = make_window(qtbot, open_ctx())
    data = tmp_path / "running"
    lock = acquire_instance_lock(DataPaths.resolve(data))  # "the running app" holds it
    assert lock is not None
    commands: list[str] = []

    def command(line: str) -> None:
        commands.append(line)
        window.quick.command(line)

    server = InstanceServer(data, window.bring_to_front, on_command=command)
    QGuiApplication.clipboard().setText("selected words")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    try:
        child = subprocess.Popen([sys.executable, "-m", "desktop", "quick", "--clipboard",
                                  "--data-dir", str(data)], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, text=True)
        qtbot.waitUntil(lambda: commands == ["quick clipboard"], timeout=20000)
        out, _ = child.communicate(timeout=30)
        assert child.returncode == 0, out
        assert "already running" in out
    finally:
        server.close()
        lock.release()
    quick = window.quick.quick_window
    assert quick is not None and quick.isVisible()
    qtbot.addWidget(quick)
    assert quick.input.toPlainText() == "selected words\n\n"
