"""A pseudo-locale run: with a translator that marks every text it is asked for
(``⟦…⟧``), the main window and every dialog show no visible text that did not go
through Qt's translation (a text missing the mark was never passed to tr()). Texts that
are the user's or a server's data (a chat title, the provider's name, the model) are
allowed as they are."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from desktop import APP_NAME
from desktop.app import AppContext
from desktop.ui import i18n
from desktop.ui.dialogs.section_pages import SectionPages
from desktop.ui.window.dialog_registry import DIALOGS as REGISTERED
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_chat, make_window

MARK = "⟦"
LETTERS = re.compile(r"[^\W\d_]{2,}")
#: The data the test puts in (and what the app shows as such): never translated.
DATA = ("Loopback", "gpt-test", "Trip to Kyoto", "Holiday plans", APP_NAME, "Qt", "PySide6",
        "Python", "MIT", "http://", "https://", "127.0.0.1", "localhost", "sk-", "json",
        "socks5", "tok/s", "Tavily", "Brave Search", "SearXNG", "us-east-1",
        *i18n.LANGUAGES.values())  # each language named in itself
#: Addresses, paths and identifiers (tool names such as read_file) are data too.
DATA_PATTERNS = re.compile(r"\S+://\S*|(?<!\w)/\S+|\b\w+_\w+\b")


@pytest.fixture
def pseudo(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(i18n.PSEUDO_VARIABLE, "accented")
    i18n.install_translations(qapp, "")
    yield
    monkeypatch.delenv(i18n.PSEUDO_VARIABLE)
    i18n.install_translations(qapp, "en")


def widget_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for every text ``root`` and its visible children show."""
    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        if not widget.isVisibleTo(root) and widget is not root:
            continue
        name = f"{type(widget).__name__}({widget.objectName()})"
        if widget.isWindow():
            yield f"{name}.windowTitle", widget.windowTitle()
        yield f"{name}.toolTip", widget.toolTip()
        yield f"{name}.accessibleName", widget.accessibleName()
        if isinstance(widget, QLabel | QAbstractButton):
            yield f"{name}.text", widget.text()
        elif isinstance(widget, QGroupBox):
            yield f"{name}.title", widget.title()
        elif isinstance(widget, QLineEdit | QPlainTextEdit | QTextEdit):
            yield f"{name}.placeholder", widget.placeholderText()
        elif isinstance(widget, QTabWidget):
            for index in range(widget.count()):
                yield f"{name}.tab{index}", widget.tabText(index)
        elif isinstance(widget, QComboBox) and not widget.isEditable():
            for index in range(widget.count()):
                yield f"{name}.item{index}", widget.itemText(index)
        for action in widget.actions():
            yield f"{name}.action", action.text()
            yield f"{name}.action.toolTip", action.toolTip()


def menu_texts(window: MainWindow) -> Iterator[tuple[str, str]]:
    def walk(menu: QMenu, path: str) -> Iterator[tuple[str, str]]:
        yield path, menu.title()
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu):
                yield from walk(sub, f"{path} > {action.text()}")
            elif not action.isSeparator():
                yield f"{path} > action", action.text()

    for top in window.menuBar().actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            yield from walk(menu, "menu")


def untranslated(texts: Iterator[tuple[str, str]]) -> list[str]:
    found = []
    for where, text in texts:
        plain = re.sub(r"<[^>]+>", " ", text or "")
        if MARK in plain or not LETTERS.search(plain):
            continue
        rest = DATA_PATTERNS.sub(" ", plain)
        for data in DATA:
            rest = rest.replace(data, " ")
        if LETTERS.search(rest):
            found.append(f"{where}: {text!r}")
    return sorted(set(found))


@pytest.fixture
def window(pseudo: None, qtbot: Any, qt_loop: qasync.QEventLoop,
           open_ctx: Callable[..., AppContext], fake_server: FakeOpenAIServer) -> MainWindow:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    make_chat(ctx, "Trip to Kyoto", "Where should I stay?", "Near Gion.")
    made = make_window(qtbot, ctx)
    made.resize(1300, 850)
    qtbot.waitUntil(lambda: made.ready, timeout=5000)
    return made


def test_the_main_window_and_its_menus_are_translated(window: MainWindow) -> None:
    assert untranslated(widget_texts(window)) == []
    assert untranslated(menu_texts(window)) == []
    tray = window.tray.menu
    tray.aboutToShow.emit()  # (the Show/Hide entry is named when the menu opens)
    assert untranslated((f"tray > {a.text()}", a.text()) for a in tray.actions()) == []
    assert untranslated([("tray", tray.accessibleName())]) == []


def open_compare(window: MainWindow) -> QWidget:
    window.composer.input.setPlainText("Which is faster?")
    dialog = window.compare.choose_for_prompt()
    assert dialog is not None
    return dialog


def open_update(window: MainWindow) -> QWidget:
    from desktop.ui.window.update_notice import UpdateDialog
    from desktop.updates.feed import parse_feed

    feed = json.dumps([{"tag_name": "v9.0.0", "name": "9.0", "body": "Faster.",
                        "html_url": "https://example.com/r", "assets": [],
                        "prerelease": False, "draft": False}]).encode()
    dialog = UpdateDialog(parse_feed(feed)[0], "0.1.0", window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    dialog.show()
    return dialog


DIALOGS: dict[str, Callable[[MainWindow], QWidget]] = {
    # every registered dialog (a new one is checked with no change here)
    **{entry.kind: (lambda w, kind=entry.kind: w.dialogs.open(kind)) for entry in REGISTERED},
    "assistants": lambda w: w.conversations.open_assistants(),
    "search": lambda w: w.conversations.open_search(),
    "system prompt": lambda w: w.conversations.edit_session_prompt(),
    "quick ask": lambda w: w.quick.open(),
    "compare": open_compare,
    "update": open_update,
}




@pytest.mark.parametrize("name", list(DIALOGS))
def test_every_dialog_is_translated(window: MainWindow, qtbot: Any, name: str) -> None:
    dialog = DIALOGS[name](window)
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    pages = [dialog]
    titles: list[tuple[str, str]] = []
    if isinstance(tabs := dialog.findChild(QTabWidget), QTabWidget):
        for index in range(tabs.count()):  # each tab's page, shown in turn
            tabs.setCurrentIndex(index)
            pages.append(tabs.widget(index))
    if isinstance(sections := dialog.findChild(SectionPages), SectionPages):
        for index in range(sections.count()):  # each section's page, shown in turn
            sections.setCurrentIndex(index)
            pages.append(sections.currentWidget())
            titles.append((f"section{index}", sections.title(index)))
    problems = [problem for page in pages for problem in untranslated(widget_texts(page))]
    problems += untranslated(iter(titles))
    dialog.close()
    assert problems == [], f"{name}: texts that did not go through tr(): {problems}"


def test_a_file_dialog_of_import_export_is_translated(window: MainWindow, qtbot: Any) -> None:
    """Qt's own dialogs go through the translators as well (qtbase)."""
    io = window.conversations.io
    io.import_file()
    dialog = io.dialog
    assert isinstance(dialog, QDialog)
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    assert MARK in dialog.windowTitle()
    labels = [label.text() for label in dialog.findChildren(QLabel)
              if label.isVisibleTo(dialog) and LETTERS.search(label.text())]
    assert labels and all(MARK in text for text in labels), labels
    dialog.close()
