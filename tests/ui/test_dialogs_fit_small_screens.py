"""Every dialog at 1400x900, 1024x700, 800x600 and 640x480, in Chinese and in the
right-to-left pseudo-locale: it fits the screen (fit_to_screen gives it 95 %), and
nothing in it is cut: no button or one-line label narrower than its text, no wrapped
label shorter than its lines, no page scrolling sideways. (What does not fit scrolls
down inside the dialog.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QDialog,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QWidget,
)

from desktop.app import AppContext
from desktop.ui import i18n, theme
from desktop.ui.dialogs.section_pages import SectionPages
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_chat, make_window
from tests.ui.test_pseudo_locale import DIALOGS

SCREENS = [(1400, 900), (1024, 700), (800, 600), (640, 480)]


@pytest.fixture(params=["zh_CN", "ar"])
def language(request: pytest.FixtureRequest, qapp: QApplication,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    theme.apply_theme(qapp, "light")  # the app's stylesheet: its paddings take room too
    if request.param == "ar":  # Arabic-looking pseudo-translations, laid out right to left
        monkeypatch.setenv(i18n.PSEUDO_VARIABLE, "ar")
        i18n.install_translations(qapp, "")
    else:
        i18n.install_translations(qapp, request.param)
    yield request.param
    monkeypatch.delenv(i18n.PSEUDO_VARIABLE, raising=False)
    i18n.install_translations(qapp, "en")


def _in_scroll_area(widget: QWidget, root: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None and parent is not root:
        if isinstance(parent, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def cut_texts(root: QWidget) -> list[str]:
    found = []
    for widget in root.findChildren(QWidget):
        if widget.isWindow() or not widget.isVisibleTo(root):
            continue
        name = f"{type(widget).__name__}({widget.objectName()})"
        if isinstance(widget, QAbstractButton) and widget.text() and \
                widget.width() + 1 < widget.sizeHint().width():
            found.append(f"button {name} {widget.text()!r}")
        elif isinstance(widget, QLabel) and widget.text() and widget.pixmap().isNull():
            ignored = widget.sizePolicy().horizontalPolicy() == QSizePolicy.Policy.Ignored
            if not widget.wordWrap() and not ignored and \
                    widget.width() + 1 < widget.sizeHint().width():
                found.append(f"label {name} {widget.text()[:40]!r}")
            elif widget.wordWrap() and widget.heightForWidth(widget.width()) > widget.height() + 2:
                found.append(f"wrapped label {name} {widget.text()[:40]!r}")
        if isinstance(widget, QScrollArea) and widget.widgetResizable() and \
                widget.horizontalScrollBar().maximum() > 0:
            found.append(f"scrolls sideways: {type(widget.widget()).__name__}")
        parent = widget.parentWidget()
        if parent is not None and not _in_scroll_area(widget, root) and \
                not parent.rect().adjusted(-1, -1, 1, 1).contains(widget.geometry()):
            found.append(f"outside its parent: {name}")
    return found


def _pages(dialog: QWidget) -> Iterator[int]:
    tabs, sections = dialog.findChild(QTabWidget), dialog.findChild(SectionPages)
    pager = tabs if isinstance(tabs, QTabWidget) else sections
    if pager is None:
        yield 0
        return
    for index in range(pager.count()):
        pager.setCurrentIndex(index)
        QApplication.processEvents()
        yield index


@pytest.mark.usefixtures("qt_loop")  # (a qasync loop: the window's tasks run on it)
@pytest.mark.parametrize("name", list(DIALOGS))
def test_every_dialog_fits_and_cuts_nothing(
    language: str, qtbot: Any, open_ctx: Callable[..., AppContext],
    fake_server: FakeOpenAIServer, name: str,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    make_chat(ctx, "Trip to Kyoto", "Where should I stay?", "Near Gion.")
    window = make_window(qtbot, ctx)
    window.resize(1300, 850)
    qtbot.waitUntil(lambda: window.ready, timeout=5000)
    problems = []
    dialog = DIALOGS[name](window)
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    opened = dialog.size()
    # One dialog, shrunk screen by screen (largest first): each size is the one it
    # opens at on that screen, as fit_to_screen bounds it, and every page is laid out
    # again at it.
    for width, height in sorted(SCREENS, reverse=True):
        room = QSize(int(width * 0.95), int(height * 0.95))
        least = dialog.minimumSizeHint().expandedTo(dialog.minimumSize())
        if least.width() > room.width() or least.height() > room.height():
            problems.append(f"{width}x{height}: needs at least {least.width()}x{least.height()}")
        if dialog.isWindow():
            dialog.resize(opened.boundedTo(room))  # as fit_to_screen does
        else:  # (shown inside the main window, e.g. the search: the window is sized)
            window.resize(QSize(1300, 850).boundedTo(room))
        QApplication.processEvents()
        problems += [f"{width}x{height} page {page}: {problem}" for page in _pages(dialog)
                     for problem in cut_texts(dialog)]
    if isinstance(dialog, QDialog):
        dialog.reject()
    else:
        dialog.close()
    QApplication.processEvents()
    assert problems == [], f"{name} ({language}): {sorted(set(problems))}"
