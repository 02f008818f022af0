"""Help → Keyboard shortcuts (Ctrl+/): every shortcut of the window's menus, read from
the QActions themselves so the list cannot go stale, plus the few keys widgets handle
on their own (Enter in the composer, F2/Del in the chat list...)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QMenuBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from desktop.ui.window.dialog_registry import DialogServices

#: Keys that belong to a widget, not to a menu action (so no QAction to read them from);
#: the words are translated, the keys named, where the dialog shows them.
WIDGET_KEYS = (
    (str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Message box")),
     str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Send")), "Enter"),
    (str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Message box")),
     str(QT_TRANSLATE_NOOP("ShortcutsDialog", "New line")), "Shift+Enter"),
    (str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Message box")),
     str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Stop the answer")), "Esc"),
    (str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Chat list")),
     str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Rename the chat")), "F2"),
    (str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Chat list")),
     str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Move the chat to the trash")), "Del"),
    (str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Chat list")),
     str(QT_TRANSLATE_NOOP("ShortcutsDialog", "Open the chat")), "Enter"),
)


def without_mnemonic(text: str) -> str:
    """"&File" -> "File"; "ファイル(&F)" -> "ファイル" (the CJK style of a mnemonic)."""
    return re.sub(r"\(&\w\)|&(?=\w)", "", text)


def menu_shortcuts(menu_bar: QMenuBar) -> list[tuple[str, str, str]]:
    """(menu, action, keys) for every enabled-or-not action with a shortcut."""
    rows: list[tuple[str, str, str]] = []

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{path} → {without_mnemonic(action.text())}")
                continue
            keys = [key.toString(QKeySequence.SequenceFormat.NativeText)
                    for key in action.shortcuts() if not key.isEmpty()]
            if keys:
                rows.append((path, without_mnemonic(action.text()).rstrip("…"),
                             ", ".join(keys)))

    for top in menu_bar.actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            walk(menu, without_mnemonic(top.text()))
    return rows


class ShortcutsDialog(QDialog):
    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> ShortcutsDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        return cls(services.menu_bar(), parent)

    def __init__(self, menu_bar: QMenuBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        native = QKeySequence.SequenceFormat.NativeText
        rows = menu_shortcuts(menu_bar) + [
            (self.tr(where), self.tr(what), QKeySequence(keys).toString(native))
            for where, what, keys in WIDGET_KEYS]
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels([self.tr("Where"), self.tr("What"), self.tr("Keys")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName(self.tr("Keyboard shortcuts"))
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 480)


def shortcut_rows(dialog: ShortcutsDialog) -> list[tuple[str, ...]]:
    """The rows the dialog shows, as text."""
    table = dialog.table
    return [tuple(item.text() if (item := table.item(row, column)) else ""
                  for column in range(table.columnCount()))
            for row in range(table.rowCount())]
