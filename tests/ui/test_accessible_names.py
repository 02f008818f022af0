"""Every control in the main window and in every dialog has a name a screen reader can
say, read through Qt's accessibility API (what Orca / NVDA / VoiceOver get)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import qasync
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QScrollBar,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from desktop.app import AppContext
from desktop.ui.dialogs.section_pages import SectionPages
from desktop.ui.window.dialog_registry import DIALOGS as REGISTERED
from desktop.ui.window.main_window import MainWindow
from desktop.ui.window.update_notice import UpdateDialog
from desktop.updates.feed import parse_feed
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window

CONTROLS = (QAbstractButton, QAbstractItemView, QAbstractSlider, QAbstractSpinBox, QComboBox,
            QLineEdit, QPlainTextEdit, QTextEdit)
INTERNAL = ("qt_spinbox_lineedit", "qt_scrollarea_hcontainer", "qt_scrollarea_vcontainer")


def _internal(widget: QWidget) -> bool:
    """A part Qt builds inside another control (a spin box's editor, a combo box's
    list, a scroll bar): the control around it carries the name."""
    if widget.objectName() in INTERNAL or widget.objectName().startswith("qt_") or \
            isinstance(widget, QHeaderView | QScrollBar):
        return True
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QComboBox | QAbstractSpinBox | QAbstractItemView) or \
                type(parent).__name__ in ("QComboBoxPrivateContainer", "QTabBar"):
            return True
        parent = parent.parentWidget()
    return False


def shown_in(widget: QWidget, root: QWidget) -> bool:
    """``widget`` is on screen with ``root`` (tab pages and Preferences sections other than
    the current one count too: they are a click away)."""
    current: QWidget | None = widget
    while current is not None and current is not root:
        if current.isHidden() and not _is_tab_page(current):
            return False
        current = current.parentWidget()
    return True


def _is_tab_page(widget: QWidget) -> bool:
    stack = widget.parentWidget()
    return stack is not None and isinstance(stack.parentWidget(), QTabWidget | SectionPages)


def unnamed_controls(root: QWidget, seen: list[QWidget] | None = None) -> list[str]:
    missing = []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or _internal(widget) or not shown_in(widget, root):
            continue
        if seen is not None:
            seen.append(widget)
        iface = QAccessible.queryAccessibleInterface(widget)
        name = iface.text(QAccessible.Text.Name).strip() if iface is not None else ""
        if not name:
            missing.append(f"{type(widget).__name__} {widget.objectName()!r} "
                           f"tooltip={widget.toolTip()!r} in {type(widget.window()).__name__}")
    return missing


def dialogs_of(window: MainWindow) -> dict[str, Callable[[], QWidget]]:
    d, c = window.dialogs, window.conversations
    feed = (b'{"tag_name": "v9.0.0", "body": "notes", "html_url": "https://e.example/r",'
            b' "assets": []}')
    return {
        # every registered dialog (a new one is checked with no change here)
        **{entry.kind: partial(d.open, entry.kind) for entry in REGISTERED},
        "assistants": c.open_assistants, "search": c.open_search,
        "update": lambda: UpdateDialog(parse_feed(feed)[0], "1.0.0", window),
        "quick ask": window.quick.open,
    }


def test_every_control_in_the_window_and_every_dialog_has_a_name(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    qtbot.waitExposed(window)
    seen: dict[str, list[QWidget]] = {"main window": []}
    problems = {"main window": unnamed_controls(window, seen["main window"])}
    for name, open_dialog in dialogs_of(window).items():
        dialog = open_dialog()  # (the window's child, or closed with it: quick ask)
        dialog.show()
        seen[name] = []
        problems[name] = unnamed_controls(dialog, seen[name])
        if isinstance(dialog, QDialog):
            dialog.reject()
        else:
            dialog.hide()
    assert all(seen.values()), [name for name, found in seen.items() if not found]
    assert len(seen["main window"]) > 15 and len(seen["preferences"]) > 15
    bad = {k: v for k, v in problems.items() if v}
    assert not bad, '\n'.join(f'{k}: {x}' for k, v in bad.items() for x in v)
