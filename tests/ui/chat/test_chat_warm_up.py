"""The markdown parser and code highlighters are prepared on a thread after start-up:
importing and building them on the event loop froze the window just after it was
filled in (issue 13's start-up stall)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from desktop.ui.chat.chat_view import ChatView
from desktop.ui.markdown import renderer as renderer_module
from desktop.ui.markdown.renderer import MarkdownRenderer, Palette, renderer
from desktop.ui.window.bridge import AgentBridge


def test_the_markdown_parser_is_built_off_the_event_loop(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    built_on: list[threading.Thread] = []
    build = MarkdownRenderer.__init__

    def recording_init(self: MarkdownRenderer, palette: Palette) -> None:
        built_on.append(threading.current_thread())
        build(self, palette)

    monkeypatch.setattr(MarkdownRenderer, "__init__", recording_init)
    warmed: list[str] = []

    def recording_highlight(code: str, lang: str, style: str) -> str:
        warmed.append(lang)
        return code

    monkeypatch.setattr(renderer_module, "highlight_code", recording_highlight)
    renderer.cache_clear()
    view = ChatView(AgentBridge())
    qtbot.addWidget(view)
    view._warm_up()
    qtbot.waitUntil(lambda: len(warmed) >= len(renderer_module.WARM_LANGUAGES))
    assert built_on and all(thread is not threading.main_thread() for thread in built_on)
    assert renderer(False).render("**bold**").count("<strong>") == 1  # usable afterwards
    renderer.cache_clear()
