"""A message block's Copy menu: the block as Markdown or as plain text, and each of its
code blocks on its own."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu


def _copy(text: str) -> None:
    QGuiApplication.clipboard().setText(text)


def fill_copy_menu(menu: QMenu, copy_markdown: Callable[[], None],
                   copy_plain: Callable[[], None], codes: list[str]) -> None:
    # (the message widget's translations; written out in full, the only spelling
    # lupdate reads)
    menu.clear()
    menu.addAction(QCoreApplication.translate("MessageWidget", "Copy as Markdown"),
                   copy_markdown)
    menu.addAction(QCoreApplication.translate("MessageWidget", "Copy as plain text"),
                   copy_plain)
    for number, code in enumerate(codes, 1):
        first = code.strip().splitlines()[0][:40] if code.strip() else ""
        menu.addAction(QCoreApplication.translate(
            "MessageWidget", "Copy code block {number}: {start}").format(
                number=number, start=first),
                       partial(_copy, code.removesuffix("\n")))
