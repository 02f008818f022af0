"""The approval card's scoped choice: "Always allow" narrowed to a path pattern, a
command prefix or a host, proposed from the call and editable before it is granted."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from desktop.tools.grant_scopes import check_scope, scope_kind
from desktop.ui.plain_text import plain_label, plain_tooltip


def scope_caption(tool: str) -> str:
    kind = scope_kind(tool)
    if kind == "path":
        return QCoreApplication.translate("ScopeRow", "Always allow for paths matching")
    if kind == "command":
        return QCoreApplication.translate("ScopeRow", "Always allow commands starting with")
    return QCoreApplication.translate("ScopeRow", "Always allow for the host")


class ScopeRow(QWidget):
    """A caption, the scope (editable) and a button; ``granted`` carries the scope."""

    granted = Signal(str)

    def __init__(self, tool: str, proposed: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scopeRow")
        self.tool = tool
        column = QVBoxLayout(self)  # (a narrow panel: the caption above, wrapped)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        row = QHBoxLayout()
        row.setSpacing(6)
        self.caption = plain_label(scope_caption(tool))
        self.caption.setObjectName("toolCardMeta")
        self.caption.setWordWrap(True)
        self.edit = QLineEdit(proposed)
        self.edit.setObjectName("scopeEdit")
        self.edit.setAccessibleName(scope_caption(tool))
        self.edit.setToolTip(self.tr(
            "Calls inside this scope will run without asking, in every chat; others still "
            "ask. Revoke it in Settings → Tools."))
        self.caption.setBuddy(self.edit)
        self.button = QPushButton(self.tr("Allow these"))
        self.button.setObjectName("scopeButton")
        self.button.setAccessibleName(self.tr("Always allow within this scope"))
        self.edit.textChanged.connect(self._check)
        self.edit.returnPressed.connect(self._grant)
        self.button.clicked.connect(self._grant)
        column.addWidget(self.caption)
        row.addWidget(self.edit, 1)
        row.addWidget(self.button)
        column.addLayout(row)
        self._check(proposed)

    def scope(self) -> str:
        return self.edit.text().strip()

    def problem(self) -> str | None:
        return check_scope(self.tool, self.scope())

    def _check(self, _text: str = "") -> None:
        problem = self.problem()
        self.button.setEnabled(problem is None)
        self.edit.setProperty("invalid", problem is not None)
        self.edit.style().unpolish(self.edit)
        self.edit.style().polish(self.edit)
        self.button.setToolTip(plain_tooltip(problem) if problem else self.tr(
            "Run this call, and never ask again for calls inside this scope"))

    def _grant(self) -> None:
        if self.problem() is None:
            self.granted.emit(self.scope())
