"""The markdown parser and code highlighters are made ready after a stored chat shows:
the parser on the window's thread; the highlighters on a thread of their own when the
window collects Python's garbage itself (the first of them, Python's, held the window
~55 ms as one step right after it had loaded), else on the window's thread one step at
a time with the window's events handled between the steps (building them in one go
froze the window just after it was filled in: issue 13's start-up stall)."""

from __future__ import annotations

import threading
from itertools import pairwise
from typing import Any

import pytest
from PySide6.QtCore import QTimer

from desktop.ui.chat.chat_view import ChatView
from desktop.ui.markdown import renderer as renderer_module
from desktop.ui.markdown.renderer import MarkdownRenderer, Palette, renderer
from desktop.ui.window.bridge import AgentBridge


def test_the_parser_and_highlighters_warm_up_in_steps_on_the_window_thread(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the window's collector (Python collects on any thread)."""
    monkeypatch.setattr("desktop.ui.chat.chat_view.gc.isenabled", lambda: True)
    built_on: list[threading.Thread] = []
    build = MarkdownRenderer.__init__

    def recording_init(self: MarkdownRenderer, palette: Palette) -> None:
        built_on.append(threading.current_thread())
        build(self, palette)

    monkeypatch.setattr(MarkdownRenderer, "__init__", recording_init)
    ticks = [0]  # turns of the event loop
    ticker = QTimer()
    ticker.setInterval(0)
    ticker.timeout.connect(lambda: ticks.__setitem__(0, ticks[0] + 1))
    ticker.start()
    warmed: list[tuple[str, int, threading.Thread]] = []

    def recording_highlight(code: str, lang: str, style: str) -> str:
        warmed.append((lang, ticks[0], threading.current_thread()))
        return code

    monkeypatch.setattr(renderer_module, "highlight_code", recording_highlight)
    monkeypatch.setattr("desktop.ui.chat.chat_view.highlight_code", recording_highlight)
    renderer.cache_clear()
    view = ChatView(AgentBridge())
    qtbot.addWidget(view)
    view._warm_up()
    assert warmed == [] and built_on == [threading.main_thread()]  # the parser first
    qtbot.waitUntil(lambda: len(warmed) >= len(renderer_module.WARM_LANGUAGES))
    ticker.stop()
    assert [lang for lang, _tick, _thread in warmed] == list(renderer_module.WARM_LANGUAGES)
    assert {thread for _lang, _tick, thread in warmed} == {threading.main_thread()}
    at = [tick for _lang, tick, _thread in warmed]
    assert all(later > earlier for earlier, later in pairwise(at))
    assert renderer(False).render("**bold**").count("<strong>") == 1  # usable afterwards
    renderer.cache_clear()


def test_with_the_windows_collector_the_highlighters_warm_up_on_a_thread_of_their_own(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.ui.chat.chat_view import WARM_THREAD

    monkeypatch.setattr("desktop.ui.chat.chat_view.gc.isenabled", lambda: False)
    warmed: list[tuple[str, str]] = []

    def recording_highlight(code: str, lang: str, style: str) -> str:
        warmed.append((lang, threading.current_thread().name))
        return code

    monkeypatch.setattr(renderer_module, "highlight_code", recording_highlight)
    renderer.cache_clear()
    view = ChatView(AgentBridge())
    qtbot.addWidget(view)
    view._warm_up()  # the parser here, then the thread is started
    qtbot.waitUntil(lambda: len(warmed) == len(renderer_module.WARM_LANGUAGES))
    assert warmed == [(lang, WARM_THREAD) for lang in renderer_module.WARM_LANGUAGES]
    qtbot.waitUntil(lambda: not any(t.name == WARM_THREAD for t in threading.enumerate()))
    renderer.cache_clear()


@pytest.mark.parametrize("collector", [True, False])
def test_a_window_with_no_stored_chat_warms_up_where_it_has_a_thread_for_it(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch, collector: bool) -> None:
    """A new data folder's first answer built the highlighters while it streamed: the
    window warms them up all the same once it has loaded, when they go on their own
    thread (the window collects Python's garbage itself); else the first stored chat
    shown does, as before."""
    from desktop.ui.chat.chat_view import WARM_THREAD

    monkeypatch.setattr("desktop.ui.chat.chat_view.gc.isenabled", lambda: not collector)
    monkeypatch.setattr("desktop.ui.chat.chat_view.WARM_UP_AFTER_MS", 0)
    warmed: list[str] = []

    def recording_highlight(code: str, lang: str, style: str) -> str:
        warmed.append(threading.current_thread().name)
        return code

    monkeypatch.setattr(renderer_module, "highlight_code", recording_highlight)
    monkeypatch.setattr("desktop.ui.chat.chat_view.highlight_code", recording_highlight)
    view = ChatView(AgentBridge())
    qtbot.addWidget(view)
    view.warm_up_soon()
    if collector:
        qtbot.waitUntil(lambda: len(warmed) == len(renderer_module.WARM_LANGUAGES))
        assert set(warmed) == {WARM_THREAD}
        qtbot.waitUntil(
            lambda: not any(t.name == WARM_THREAD for t in threading.enumerate()))
    else:
        ticks = [0]
        ticker = QTimer()
        ticker.setInterval(0)
        ticker.timeout.connect(lambda: ticks.__setitem__(0, ticks[0] + 1))
        ticker.start()
        qtbot.waitUntil(lambda: ticks[0] > 20)  # (turns of the loop: nothing started)
        ticker.stop()
        assert warmed == []
    renderer.cache_clear()
