"""The context menu of a message body: copy, copy the code block or link under the
pointer, select all, then the message's own actions (found up the parent chain, so
the body needs to know nothing about messages)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QPointF
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from desktop.ui.markdown.view import MarkdownView


def build_body_menu(view: MarkdownView, point: QPointF) -> QMenu:
    menu = QMenu(view)
    copy = menu.addAction(QCoreApplication.translate("BodyMenu", "Copy"), view.selection.copy)
    copy.setShortcut(QKeySequence.StandardKey.Copy)
    copy.setEnabled(view.selection.has_selection())
    index = view.segment_at(point.y())
    if index >= 0 and view.segment_kind(index) == "code":
        menu.addAction(QCoreApplication.translate("BodyMenu", "Copy code block"),
                       lambda: view.copy_code(index))
    anchor = view.anchor_at(point)
    if anchor:
        menu.addAction(QCoreApplication.translate("BodyMenu", "Copy link address"),
                       lambda: QGuiApplication.clipboard().setText(anchor))
    menu.addAction(QCoreApplication.translate("BodyMenu", "Select all"), view.selection.select_all)
    owner = view.parentWidget()
    while owner is not None and not hasattr(owner, "message_actions"):
        owner = owner.parentWidget()
    if owner is not None:
        menu.addSeparator()
        for action in owner.message_actions():
            menu.addAction(action)
    return menu
