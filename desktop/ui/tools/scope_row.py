"""The approval card's scope: what "Always allow" grants for the built-in tools that
are only granted within a scope (a path pattern, a program or exact command, a host),
proposed from the call, editable, and said in words under it. An empty or invalid
scope makes "Always allow" impossible (the card disables it and says why)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from desktop.tools.command_scopes import command_scope_kind
from desktop.tools.grant_scopes import ScopeProblem, scope_kind, scope_problem
from desktop.ui.plain_text import plain_label


def scope_caption(tool: str) -> str:
    kind = scope_kind(tool)
    if kind == "path":
        return QCoreApplication.translate("ScopeRow", "Always allow for paths matching")
    if kind == "command":
        return QCoreApplication.translate("ScopeRow", "Always allow for the command")
    return QCoreApplication.translate("ScopeRow", "Always allow for the host")


def problem_text(problem: ScopeProblem) -> str:
    """Why "Always allow" is not possible, for the user."""
    if problem == "empty":
        return QCoreApplication.translate(
            "ScopeRow", "Always allow needs a scope: type one, or allow once.")
    if problem == "outside":
        return QCoreApplication.translate(
            "ScopeRow", "The pattern must stay inside the workspace (a relative path).")
    if problem == "git":
        return QCoreApplication.translate(
            "ScopeRow", "Files in a .git folder are never allowed without asking.")
    if problem == "shell":
        return QCoreApplication.translate(
            "ScopeRow", "A command with shell syntax ($ ` ; | & > < \\, a line break, "
            "or * ? ~ ( ) outside quotes) cannot be always allowed.")
    if problem == "host":
        return QCoreApplication.translate(
            "ScopeRow", "A host is a name such as api.example.com or *.example.com.")
    return QCoreApplication.translate(
        "ScopeRow", "This call cannot be always allowed.")


def scope_meaning(tool: str, scope: str) -> str:
    """What a grant of ``scope`` (a valid one) lets run without asking."""
    kind = scope_kind(tool)
    if kind == "path":
        return QCoreApplication.translate(
            "ScopeRow", "Writes to paths matching {scope} (never inside .git) run "
            "without asking, in every chat.").format(scope=scope)
    if kind == "host":
        return QCoreApplication.translate(
            "ScopeRow", "Fetches from {scope} run without asking, in every "
            "chat.").format(scope=scope)
    if command_scope_kind(scope) == "program":
        return QCoreApplication.translate(
            "ScopeRow", "“{scope}” runs without asking, in every chat, with its "
            "read-only options and arguments inside the workspace; anything else "
            "asks again.").format(scope=scope)
    return QCoreApplication.translate(
        "ScopeRow", "Exactly the command “{scope}” runs without asking, in every "
        "chat; any other asks again.").format(scope=scope)


def always_tooltip(tool: str, scope: str, unscoped: ScopeProblem | None = None) -> str:
    """The tooltip of an "Always allow" button that grants ``scope`` (or why it cannot;
    ``unscoped``: why the call itself has no scope, said when ``scope`` is empty)."""
    problem = scope_problem(tool, scope)
    if problem == "empty" and unscoped is not None:
        problem = unscoped
    return problem_text(problem) if problem is not None else scope_meaning(tool, scope)


class ScopeRow(QWidget):
    """A caption, the scope (editable) and what it means; ``changed`` when it is edited,
    ``granted`` (the scope) on Enter when it is valid."""

    changed = Signal()
    granted = Signal(str)

    def __init__(self, tool: str, proposed: str, parent: QWidget | None = None, *,
                 unscoped: ScopeProblem | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scopeRow")
        self.tool = tool
        self.unscoped = unscoped  # why the call itself has no scope (said while empty)
        column = QVBoxLayout(self)  # (a narrow panel: the caption above, wrapped)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.caption = plain_label(scope_caption(tool))
        self.caption.setObjectName("toolCardMeta")
        self.caption.setWordWrap(True)
        self.edit = QLineEdit(proposed)
        self.edit.setObjectName("scopeEdit")
        self.edit.setAccessibleName(scope_caption(tool))
        self.edit.setToolTip(self.tr(
            "What “Always allow” grants: calls inside it will run without asking, in "
            "every chat; others still ask. Revoke it in Settings → Tools."))
        self.caption.setBuddy(self.edit)
        self.meaning = plain_label()
        self.meaning.setObjectName("scopeMeaning")
        self.meaning.setWordWrap(True)
        self.edit.textChanged.connect(self._check)
        self.edit.returnPressed.connect(self._grant)
        column.addWidget(self.caption)
        column.addWidget(self.edit)
        column.addWidget(self.meaning)
        self._check()

    def scope(self) -> str:
        return self.edit.text().strip()

    def problem(self) -> ScopeProblem | None:
        return scope_problem(self.tool, self.scope())

    def _check(self, _text: str = "") -> None:
        problem = self.problem()
        self.edit.setProperty("invalid", problem is not None)
        self.meaning.setProperty("invalid", problem is not None)
        for widget in (self.edit, self.meaning):
            widget.style().unpolish(widget)
            widget.style().polish(widget)
        self.meaning.setText(always_tooltip(self.tool, self.scope(), self.unscoped))
        self.changed.emit()

    def _grant(self) -> None:
        if self.problem() is None:
            self.granted.emit(self.scope())
