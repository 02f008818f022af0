"""Before the app has loaded: the skeleton lists the newest chats and takes typing;
once loaded, what was typed is kept (and sent, if Enter was pressed) and every chat
is listed. The window is built in steps with the events handled between them."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.chat.last_chat import remember_last_chat
from desktop.storage.first_chats import FIRST_CHATS, read_first_chats
from desktop.storage.window_state import read_window_state
from desktop.ui.window.controller import ChatController
from desktop.ui.window.early_question import EarlyQuestion, reopen_last_chat
from desktop.ui.window.main_window import MainWindow
from desktop.ui.window.startup_skeleton import StartupSkeleton
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_chat


def skeleton_window(qtbot: Any, ctx: AppContext) -> tuple[MainWindow, StartupSkeleton]:
    """The window as the launcher shows it before the app has loaded."""
    window = MainWindow(state=read_window_state(ctx.paths.db_path))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()  # (in a test, after other tests' windows)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.show_first_chats(read_first_chats(ctx.paths.db_path))
    skeleton = window.centralWidget()
    assert isinstance(skeleton, StartupSkeleton)
    return window, skeleton


def last_chat_with_draft(ctx: AppContext, fake_server: FakeOpenAIServer) -> str:
    """A provider at ``fake_server`` and the chat the user was last in, "Last one" (a
    question and its answer), whose draft is "kept for later"."""
    add_provider(ctx, fake_server)
    last = make_chat(ctx, "Last one", "hello", "hi")
    ctx.settings_store.set_value(f"draft:{last}", "kept for later")
    remember_last_chat(ctx.settings_store, last)
    return last


def load(window: MainWindow, ctx: AppContext) -> list[bool]:
    """What the launcher does once the app is loaded (a question typed meanwhile is sent,
    then the window is built); the window's ``ready`` at each pause between the
    building steps."""
    app = QApplication.instance()
    assert app is not None
    paused: list[bool] = []

    def between_steps() -> None:
        paused.append(window.ready)
        app.processEvents()

    controller = ChatController(ctx)
    EarlyQuestion(window, controller).start()  # (a question typed meanwhile: sent now)
    window.attach(controller, between_steps=between_steps, hold_sends=True)
    reopen_last_chat(window)
    return paused


def test_the_newest_chats_are_listed_first_and_all_of_them_once_loaded(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    count = FIRST_CHATS + 10
    for n in range(count):
        make_chat(ctx, f"Chat {n}", age_days=(count - n) / 100)  # chat 69 is the newest
    window, skeleton = skeleton_window(qtbot, ctx)
    assert window.filled_in and not window.ready
    listed = skeleton.listed()
    assert len(listed) == FIRST_CHATS
    assert listed[:3] == [f"Chat {count - 1}", f"Chat {count - 2}", f"Chat {count - 3}"]
    paused = load(window, ctx)
    assert len(paused) >= 5 and not any(paused)  # built in steps, ready only at the end
    assert window.ready
    titles = [item.text() for item in window.sessions.items()]
    assert titles[:FIRST_CHATS] == listed  # the same order, the rest below
    if window.sessions.more:  # (the rest when the list is scrolled to its end)
        window.sessions.show_more()
    titles = [item.text() for item in window.sessions.items()]
    assert len(titles) == count and titles[:FIRST_CHATS] == listed


def test_the_window_built_in_steps_lists_one_first_page_of_many_chats(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """Built while shown, the list's scroll range passes through "nothing to scroll"
    as rows are added: that must not list page after page (with thousands of chats,
    every later listing grew by 200 rows each time)."""
    from desktop.ui.conversations.session_list import FIRST_PAGE

    ctx = open_ctx()
    with ctx.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
            [(f"id-{n:04}", f"Chat {n}", n, n) for n in range(FIRST_PAGE * 5)])
    window, _skeleton = skeleton_window(qtbot, ctx)
    load(window, ctx)
    lst = window.sessions
    bar = lst.list.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    for _ in range(3):  # listed again while shown, as each question sent lists them
        window.refresh_sessions()
        # (on X11 the range is "nothing to scroll" once the first row is in: the
        # same signal, as the list's scroll bar sends it there)
        bar.rangeChanged.emit(0, 0)
        for _ in range(5):  # (what was queued meanwhile runs)
            QApplication.processEvents()
    assert lst.limit == FIRST_PAGE and len(lst.items()) == FIRST_PAGE and lst.more


def test_typing_before_the_app_has_loaded_is_kept_after_the_chats_draft(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    last = make_chat(ctx, "Last one", "hello", "hi")
    ctx.settings_store.set_value(f"draft:{last}", "half a thought")
    ctx.settings_store.set_value("draft:new", "the new chat's draft")
    remember_last_chat(ctx.settings_store, last)
    window, skeleton = skeleton_window(qtbot, ctx)
    box = skeleton.message_box
    assert box is not None and box.hasFocus()
    qtbot.keyClicks(box, "typed while loading")
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # a new line
    qtbot.keyClicks(box, "second line")
    load(window, ctx)
    assert window.controller.session_id == last
    composer = window.composer.input
    assert composer.toPlainText() == "half a thought\ntyped while loading\nsecond line"
    assert composer.hasFocus()
    qtbot.keyClicks(composer, "!")  # typing goes on at the end
    assert composer.toPlainText().endswith("second line!")
    # the new chat kept its own draft
    assert ctx.settings_store.get_value("draft:new") == "the new chat's draft"


def test_enter_before_the_app_has_loaded_sends_once_loaded(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    last = last_chat_with_draft(ctx, fake_server)
    fake_server.enqueue_text("Answered.")
    window, skeleton = skeleton_window(qtbot, ctx)
    box = skeleton.message_box
    assert box is not None
    qtbot.keyClicks(box, "sent before loading")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert box.send_requested and box.isReadOnly()
    assert fake_server.chat_requests == []  # nothing can be sent yet
    load(window, ctx)
    qtbot.waitUntil(lambda: len(fake_server.chat_requests) == 1, timeout=10000)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    sent = fake_server.chat_requests[0].json["messages"][-1]
    assert sent["role"] == "user" and "sent before loading" in str(sent["content"])
    assert "kept for later" not in str(sent["content"])
    assert window.controller.session_id == last  # in the chat that was reopened
    assert window.composer.input.toPlainText() == "kept for later"
    texts = [m.text for m in ctx.sessions.load_messages(last)]
    assert texts[-2:] == ["sent before loading", "Answered."]


def test_a_chat_clicked_before_the_app_has_loaded_is_the_one_opened(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    older = make_chat(ctx, "Older", "a", "b", age_days=2)
    last = make_chat(ctx, "Last one", "c", "d")
    remember_last_chat(ctx.settings_store, last)
    window, skeleton = skeleton_window(qtbot, ctx)
    assert skeleton.chat_list is not None and skeleton.listed() == ["Last one", "Older"]
    item = skeleton.chat_list.item(1)
    qtbot.mouseClick(skeleton.chat_list.viewport(), Qt.MouseButton.LeftButton,
                     pos=skeleton.chat_list.visualItemRect(item).center())
    assert skeleton.chosen_chat == older
    load(window, ctx)
    assert window.controller.session_id == older
    assert window.sessions.current_id() == older


def test_a_chat_clicked_in_the_list_while_the_window_is_built_is_the_one_opened(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """The real chat list is on screen a few steps before the window reopens the last
    chat: a chat clicked in it then stays open."""
    ctx = open_ctx()
    older = make_chat(ctx, "Older", "a", "b", age_days=2)
    last = make_chat(ctx, "Last one", "c", "d")
    remember_last_chat(ctx.settings_store, last)
    window, _skeleton = skeleton_window(qtbot, ctx)
    app = QApplication.instance()
    assert app is not None

    def between_steps() -> None:
        app.processEvents()
        if window.building == "fill":  # (listed and connected; not reopened yet)
            item = window.sessions.item_for(older)
            assert item is not None
            qtbot.mouseClick(window.sessions.list.viewport(), Qt.MouseButton.LeftButton,
                             pos=window.sessions.list.visualItemRect(item).center())
            assert window.controller.session_id == older

    controller = ChatController(ctx)
    EarlyQuestion(window, controller).start()
    window.attach(controller, between_steps=between_steps, hold_sends=True)
    reopen_last_chat(window)
    assert window.controller.session_id == older
    assert window.sessions.current_id() == older


def built_in_steps(qtbot: Any, ctx: AppContext,
                   each_pause: Callable[[MainWindow], object]) -> MainWindow:
    """The window built as the launcher builds it, from its skeleton: at each pause
    between the building steps a frame is painted, the events are handled, then
    ``each_pause(window)``."""
    window, _skeleton = skeleton_window(qtbot, ctx)
    app = QApplication.instance()
    assert app is not None

    def between_steps() -> None:
        window.repaint()  # a frame now, as the event loop would paint one
        app.processEvents()
        each_pause(window)

    window.attach(ChatController(ctx), between_steps=between_steps)
    return window


def test_queued_start_work_waits_for_a_frame_of_the_whole_window(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    """Frames painted between the building steps do not start the model list."""
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    started: list[object] = []

    def model_task(window: MainWindow) -> None:
        bar = getattr(window, "top_bar", None)
        started.append(None if bar is None else bar.model_task)

    window = built_in_steps(qtbot, ctx, model_task)
    assert started and all(task is None for task in started)
    qtbot.waitUntil(lambda: len(window.top_bar.models) == 2, timeout=10000)


def test_closing_the_window_before_the_app_has_loaded_keeps_what_was_typed(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    last = make_chat(ctx, "Last one", "hello", "hi")
    remember_last_chat(ctx.settings_store, last)
    window, skeleton = skeleton_window(qtbot, ctx)
    box = skeleton.message_box
    assert box is not None
    qtbot.keyClicks(box, "do not lose this")
    qtbot.keyClick(box, Qt.Key.Key_Return)  # asked to send, then the window is closed
    window.close()
    load(window, ctx)
    assert fake_server.chat_requests == []  # a closed window sends nothing
    assert ctx.settings_store.get_value(f"draft:{last}") == "do not lose this"


def test_the_skeletons_side_panes_leave_where_the_real_ones_become_drawers(
    qtbot: Any,
) -> None:
    skeleton = StartupSkeleton("Assista", sidebar_visible=True)  # (the user keeps it open)
    qtbot.addWidget(skeleton)
    skeleton.resize(1100, 500)
    skeleton.show()
    qtbot.waitExposed(skeleton)
    assert skeleton.sessions_panel.isVisible() and skeleton.sidebar.isVisible()
    skeleton.resize(800, 500)  # Tool activity is a drawer below 1000 px
    qtbot.waitUntil(lambda: not skeleton.sidebar.isVisible())
    assert skeleton.sessions_panel.isVisible()
    skeleton.resize(600, 500)  # and the chat list below 760 px
    qtbot.waitUntil(lambda: not skeleton.sessions_panel.isVisible())


def test_what_is_typed_before_the_chats_are_listed_goes_into_the_message_box(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    make_chat(ctx, "Earlier", "hello")
    window = MainWindow(state=read_window_state(ctx.paths.db_path))
    qtbot.addWidget(window)
    window.show()  # (the launcher's first frame: nothing in the skeleton takes keys yet)
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClicks(window, "Hi there")  # the window has the focus: the user types
    qtbot.keyClick(window, Qt.Key.Key_Return)
    window.show_first_chats(read_first_chats(ctx.paths.db_path))
    skeleton = window.centralWidget()
    assert isinstance(skeleton, StartupSkeleton)
    assert skeleton.message_box is not None
    assert skeleton.message_box.toPlainText() == "Hi there"
    assert skeleton.message_box.send_requested  # Enter: sent once the app has loaded
    fake_server.enqueue_text("Answered.")
    load(window, ctx)
    qtbot.waitUntil(lambda: len(fake_server.chat_requests) == 1, timeout=10000)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert "Hi there" in str(fake_server.chat_requests[0].json["messages"][-1]["content"])


def test_typing_at_every_pause_while_the_window_is_built_is_kept(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """A key pressed between any two building steps (the panes made but not shown yet,
    then shown in the skeleton's place, ...) lands in what the window shows then, and
    all of it is in the composer once loaded."""
    ctx = open_ctx()
    make_chat(ctx, "A chat", "hello", "hi")
    window, _skeleton = skeleton_window(qtbot, ctx)
    app = QApplication.instance()
    assert app is not None
    typed: list[str] = []

    def between_steps() -> None:
        letter = "abcdefghij"[len(typed)]
        central = window.centralWidget()
        box = (central.message_box if isinstance(central, StartupSkeleton)
               else window.composer.input)
        assert box is not None
        qtbot.keyClicks(box, letter)
        typed.append(letter)
        app.processEvents()

    window.attach(ChatController(ctx), between_steps=between_steps)
    reopen_last_chat(window)
    assert len(typed) >= 8  # (9 steps)
    assert window.composer.input.toPlainText() == "".join(typed)


def test_the_events_are_handled_before_each_building_step(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    """Also before the first: it ran on from the last load step as one stall of both
    (33-44 ms); and the top bar and the side panes are two steps (25-45 ms as one)."""
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    paused_before: list[str] = []
    built_in_steps(qtbot, ctx, lambda window: paused_before.append(window.building))
    assert paused_before[:3] == ["build_top_bar", "build_side_panes", "build_chat_pane"]
    assert len(paused_before) == len(set(paused_before)) == 10


def test_the_ca_bundles_module_loads_in_a_step_of_its_own(qapp: QApplication) -> None:
    """(with ssl, 5-10 ms: it ran on from the first chats' frame as one stall)"""
    from desktop.gui.load_steps import load_modules

    class Steps:
        def __init__(self) -> None:
            self.names: list[str] = []

        def step(self, name: str) -> None:
            self.names.append(name)

    steps = Steps()
    try:
        load_modules(qapp, steps)  # type: ignore[arg-type]  # (the trace's step only)
    finally:
        gc.unfreeze()  # (it freezes what is loaded, as the app does once: not the tests')
    assert steps.names[0] == "desktop.providers.tls"
    assert steps.names[1] == "pydantic"
