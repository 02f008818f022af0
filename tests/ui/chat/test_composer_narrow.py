"""The composer's buttons in a narrow column: short forms (icons, the tools count)
instead of cut text, wrapped onto a second line when even those do not fit, the full
forms back when there is room; Send and Stop keep their text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QApplication

from desktop.app import AppContext
from desktop.ui import theme
from desktop.ui.chat.composer import Composer
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider, make_window
from tests.ui.window.test_responsive_layout import layout_problems

LONG_NAME = "quarterly-report-drafts-and-figures"
TOOLS = [(f"tool_{n}", "builtin") for n in range(8)]


def buttons(composer: Composer) -> list[QAbstractButton]:
    return [composer.attach_button, composer.tools_button, composer.workspace_button,
            composer.compare_button, composer.research_button, composer.send_button]


def cut_buttons(composer: Composer) -> list[str]:
    """Shown buttons narrower than their text and icon, outside the composer, or on
    top of one another."""
    problems = []
    shown = [b for b in buttons(composer) if b.isVisible()]
    for button in shown:
        name = button.accessibleName() or button.text()
        icon = button.iconSize().width() + 4 if not button.icon().isNull() else 0
        text = button.fontMetrics().horizontalAdvance(button.text())
        if button.width() < button.sizeHint().width() or text + icon + 8 > button.width():
            problems.append(f"{name!r} cut: {button.width()} px for {text} px of text")
        if not composer.contentsRect().contains(button.geometry()):
            problems.append(f"{name!r} outside the composer: {button.geometry()}")
    for index, first in enumerate(shown):
        for second in shown[index + 1:]:
            if first.geometry().intersects(second.geometry()):
                problems.append(f"{first.accessibleName()!r} overlaps {second.accessibleName()!r}")
    return problems


def sized(qtbot: Any, composer: Composer, width: int) -> None:
    composer.resize(width, composer.heightForWidth(width))
    QApplication.processEvents()  # (the buttons changed forms: the layout is redone)
    composer.resize(width, composer.heightForWidth(width))
    layout = composer.layout()
    assert layout is not None
    layout.activate()


def make_composer(qtbot: Any) -> Composer:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.set_workspace(f"/home/someone/{LONG_NAME}")
    composer.set_tools(TOOLS, {name for name, _source in TOOLS})
    composer.show()
    return composer


def test_narrow_composer_shows_short_forms_and_the_full_ones_when_wide_again(
        qtbot: Any) -> None:
    composer = make_composer(qtbot)
    sized(qtbot, composer, 900)
    assert composer.short_forms.short == frozenset()
    assert [b.text() for b in buttons(composer)] == [
        "", "tools: 8 on ▾", LONG_NAME[:23] + "…", "Compare", "Research", "Send"]
    assert cut_buttons(composer) == []
    one_line = composer.height()

    frame = composer.width() - composer.contentsRect().width()
    need = sum(b.sizeHint().width() for b in buttons(composer)) + 5 * 6 + 20 + frame
    sized(qtbot, composer, need)  # just wide enough for the full forms
    assert composer.short_forms.short == frozenset() and cut_buttons(composer) == []
    sized(qtbot, composer, need - 1)  # one pixel short: Compare (the first to go) shortens
    assert [b.text() for b in buttons(composer)] == [
        "", "tools: 8 on ▾", LONG_NAME[:23] + "…", "", "Research", "Send"]
    assert cut_buttons(composer) == [] and composer.height() == one_line
    sized(qtbot, composer, need - composer.research_button.sizeHint().width()
          - composer.workspace_button.sizeHint().width() // 2)
    assert composer.workspace_button.text() == ""  # enough alone: its icon only
    assert cut_buttons(composer) == [] and composer.height() == one_line

    sized(qtbot, composer, 300)
    assert cut_buttons(composer) == []
    assert [b.text() for b in buttons(composer)] == ["", "8 ▾", "", "", "", "Send"]
    for button in buttons(composer)[:5]:  # icons only: their names say what they are
        assert button.accessibleName() and button.toolTip() and not button.icon().isNull()
    assert "quarterly" in composer.workspace_button.accessibleName()

    composer.set_busy(True)  # Stop keeps its text
    composer.set_tools(TOOLS, {"tool_1", "tool_2"})  # the count follows in the short form
    sized(qtbot, composer, 232)  # the narrowest chat column: the row wraps, nothing cut
    assert cut_buttons(composer) == []
    assert composer.send_button.text() == "Stop" and composer.tools_button.text() == "2 ▾"
    assert composer.height() > one_line

    sized(qtbot, composer, 900)
    assert [b.text() for b in buttons(composer)] == [
        "", "tools: 2 on ▾", LONG_NAME[:23] + "…", "Compare", "Research", "Stop"]
    assert composer.height() == one_line and cut_buttons(composer) == []


def test_a_new_text_while_short_is_shown_once_there_is_room(qtbot: Any) -> None:
    composer = make_composer(qtbot)
    sized(qtbot, composer, 300)
    composer.set_workspace(None)
    assert composer.workspace_button.text() == ""
    assert composer.workspace_button.accessibleName() == "Workspace folder: none"
    sized(qtbot, composer, 900)
    assert composer.workspace_button.text() == "Choose workspace…"


def test_the_window_at_each_size_cuts_no_composer_button(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    folder = tmp_path / LONG_NAME
    folder.mkdir()
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(folder))
    composer = window.composer
    # (Tool activity starts closed: opened, it takes its room beside the chat)
    qtbot.mouseClick(window.top_bar.sidebar_button, Qt.MouseButton.LeftButton)
    for width, height in ((1400, 900), (1024, 700), (800, 600), (640, 480), (1400, 900)):
        window.resize(width, height)
        qtbot.waitUntil(lambda w=width: window.width() == w)  # type: ignore[misc]
        if width >= 1000:
            assert window.sidebar.isVisible()  # Tool activity open beside the chat
        qtbot.waitUntil(lambda: cut_buttons(composer) == [])
        assert layout_problems(composer, window) == []
        assert composer.send_button.text() == "Send"
    assert composer.short_forms.short == frozenset()  # wide again: the full forms
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: composer.workspace_button.text() == "")
    assert cut_buttons(composer) == []


def test_zooming_in_shortens_the_buttons_that_no_longer_fit(qtbot: Any) -> None:
    composer = make_composer(qtbot)
    sized(qtbot, composer, 900)
    frame = composer.width() - composer.contentsRect().width()
    need = sum(b.sizeHint().width() for b in buttons(composer)) + 5 * 6 + 20 + frame
    sized(qtbot, composer, need)  # the full forms just fit
    assert composer.short_forms.short == frozenset()
    try:
        theme.set_zoom(3)  # every text 30 % wider: the same width no longer holds them
        qtbot.waitUntil(lambda: composer.short_forms.short != frozenset())
        composer.layout().activate()  # type: ignore[union-attr]
        assert cut_buttons(composer) == []
    finally:
        theme.set_zoom(0)
    qtbot.waitUntil(lambda: composer.short_forms.short == frozenset())
