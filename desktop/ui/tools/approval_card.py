"""The approval card (tool, source, full arguments, a preview, four choices) and the
renderers it shares with the tool-activity sidebar: highlighted JSON, coloured
diffs and a read-only code view that grows with its text up to a cap."""

from __future__ import annotations

import html
import json
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.approvals import PendingApproval
from desktop.tools.approval import ApprovalDecision, ApprovalPreview, ApprovalRequest
from desktop.tools.grant_scopes import scope_kind, unscoped_reason
from desktop.ui import theme
from desktop.ui.plain_text import button_text, plain_label, plain_tooltip, shown, shown_html
from desktop.ui.tools.approval_title import approval_title, confinement_text
from desktop.ui.tools.scope_row import ScopeRow, always_tooltip
from desktop.ui.tools.tool_names import display_name

MAX_DIFF_LINES = 2_000
MAX_RENDER_CHARS = 200_000

# -- renderers ------------------------------------------------------------------------------


def pretty_json(text: str) -> str:
    """``text`` re-indented if it is JSON, else unchanged."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (json.JSONDecodeError, TypeError):
        return text


def _cap(text: str) -> str:
    if len(text) <= MAX_RENDER_CHARS:
        return text
    return text[:MAX_RENDER_CHARS] + f"\n… [{len(text) - MAX_RENDER_CHARS} more characters]"


def _block(body: str, style: str = "") -> str:
    """A paragraph of escaped (or highlighted) ``body``, its bidi controls and invisible
    characters shown as <U+202E> (a path \u202etxt.exe must not read "exe.txt")."""
    return f'<p style="margin:0; white-space:pre-wrap; {style}">{shown_html(body)}</p>'


def heading_html(text: str) -> str:
    muted = theme.colors()["muted"]
    return _block(html.escape(text), f"color:{muted}; font-weight:600; margin-top:6px")


def plain_html(text: str, color: str | None = None) -> str:
    style = f"color:{color}" if color else ""
    return _block(html.escape(_cap(text)) or "&nbsp;", style)


def json_html(value: Any) -> str:
    """Syntax-highlighted JSON (``value`` is JSON text or a JSON-able object)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import JsonLexer

    if isinstance(value, str):
        text = pretty_json(value)
        try:
            json.loads(text)
        except (json.JSONDecodeError, TypeError):
            return plain_html(text)
    else:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    style = "github-dark" if theme.is_dark() else "default"
    formatter = HtmlFormatter(noclasses=True, nowrap=True, style=style)
    return _block(highlight(_cap(text), JsonLexer(), formatter).rstrip("\n"))


def diff_colors() -> dict[str, str]:
    if theme.is_dark():
        return {"add": "#1d3b2a", "del": "#4a2226", "hunk": "#8ab4f8"}
    return {"add": "#dcfce7", "del": "#fee2e2", "hunk": "#1d4ed8"}


def diff_html(diff: str) -> str:
    """A unified diff with added lines on green, removed lines on red."""
    c = diff_colors()
    muted = theme.colors()["muted"]
    lines = diff.splitlines()
    out: list[str] = []
    for line in lines[:MAX_DIFF_LINES]:
        if line.startswith(("+++", "---")):
            style = f"color:{muted}; font-weight:600"
        elif line.startswith("+"):
            style = f"background-color:{c['add']}"
        elif line.startswith("-"):
            style = f"background-color:{c['del']}"
        elif line.startswith("@@"):
            style = f"color:{c['hunk']}"
        else:
            style = ""
        out.append(_block(html.escape(line) or "&nbsp;", style))
    if len(lines) > MAX_DIFF_LINES:
        out.append(plain_html(QCoreApplication.translate(
            "ApprovalCard", "… {count} more lines").format(count=len(lines) - MAX_DIFF_LINES),
            muted))
    return "".join(out) or plain_html(QCoreApplication.translate("ApprovalCard", "(empty diff)"),
                                      muted)


def preview_html(preview: ApprovalPreview) -> str:
    if preview.kind == "diff":
        return diff_html(preview.text)
    if preview.kind == "command":
        return plain_html("$ " + preview.text)
    if preview.kind == "url":
        return plain_html(preview.text)
    return json_html(preview.text)


def monospace_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    size = QGuiApplication.font().pointSizeF()
    font.setPointSizeF(max(size * 0.92, 7.0))
    return font


class CodeView(QTextBrowser):
    """Read-only monospace rich text that is as tall as its text, up to ``max_height``."""

    def __init__(self, max_height: int = 260, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeView")
        self._max_height = max_height
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.document().setDefaultFont(monospace_font())
        self.document().setDocumentMargin(6)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self._fit()

    def set_max_height(self, value: int) -> None:
        self._max_height = value
        self._fit()

    def _fit(self, *_args: object) -> None:
        height = int(self.document().size().height()) + 2 * self.frameWidth() + 2
        self.setFixedHeight(max(30, min(self._max_height, height)))


# -- the card --------------------------------------------------------------------------------


def source_text(source: str) -> str:
    if source == "builtin":
        return QCoreApplication.translate("ApprovalCard", "built-in tool")
    return QCoreApplication.translate("ApprovalCard", "MCP server “{server}”").format(
        server=shown(source))


# (translated where they are shown)
_PREVIEW_HEADINGS = {"diff": str(QT_TRANSLATE_NOOP("ApprovalCard", "Changes")),
                     "command": str(QT_TRANSLATE_NOOP("ApprovalCard", "Command")),
                     "url": str(QT_TRANSLATE_NOOP("ApprovalCard", "URL")),
                     "arguments": str(QT_TRANSLATE_NOOP("ApprovalCard", "Arguments"))}
_PREVIEW_KEYS = {"command": {"command"}, "url": {"url"}}


class ApprovalCard(QFrame):
    """Asks the user about one call; the answer goes to ``pending.resolve``."""

    decided = Signal(str, object)  # call id, ApprovalDecision
    chatRequested = Signal(str)  # session id: show the chat that asks

    def __init__(self, pending: PendingApproval, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalCard")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.pending = pending
        request = pending.request
        self.request: ApprovalRequest = request
        self.call_id = request.call_id
        tool = self.tool_name = display_name(request.tool, request.source)
        self.setAccessibleName(self.tr("Approval needed: {tool}").format(tool=tool))
        self.setAccessibleDescription(shown(approval_title(request.preview)) or tool)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 10)
        layout.setSpacing(5)

        top = QHBoxLayout()
        badge = QLabel(self.tr("Approval needed"))
        badge.setObjectName("approvalBadge")
        # Everything from the model or a server is plain text (see desktop.ui.plain_text).
        self.tool_label = plain_label(tool)
        self.tool_label.setObjectName("toolCardName")
        self.tool_label.setToolTip(plain_tooltip(
            f"{request.description}\n({request.tool})" if request.description else request.tool))
        self.tool_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addWidget(badge)
        top.addWidget(self.tool_label, 1)
        layout.addLayout(top)
        self.source_label = plain_label(source_text(request.source))
        self.source_label.setObjectName("toolCardMeta")
        layout.addWidget(self.source_label)
        # Chats answer in the background: say which one asks (plain text: a title is
        # the user's words), and take the user there on a click.
        self.chat_button = QPushButton(button_text(self.tr("Chat: {title}").format(
            title=shown(pending.chat_title) or self.tr("New chat"))))
        self.chat_button.setObjectName("linkButton")
        self.chat_button.setFlat(True)
        self.chat_button.setToolTip(self.tr("Show the chat that asks"))
        self.chat_button.setAccessibleName(self.tr("Show chat {title}").format(
            title=shown(pending.chat_title)))
        self.chat_button.setVisible(bool(pending.session_id))
        self.chat_button.clicked.connect(lambda: self.chatRequested.emit(pending.session_id))
        layout.addWidget(self.chat_button, 0, Qt.AlignmentFlag.AlignLeft)
        if request.preview.title:
            title = plain_label(shown(approval_title(request.preview)))
            title.setWordWrap(True)
            title.setObjectName("approvalTitle")
            layout.addWidget(title)
        self.confinement_label = self._confinement(layout, request.preview.confinement)

        preview = request.preview
        heading = (self.tr(_PREVIEW_HEADINGS[preview.kind]) if preview.kind in _PREVIEW_HEADINGS
                   else self.tr("Preview"))
        layout.addWidget(self._heading(heading))
        self.preview_view = CodeView(240 if preview.kind in ("diff", "arguments") else 120)
        self.preview_view.setObjectName("approvalPreview")
        self.preview_view.setAccessibleName(heading)
        self.preview_view.setHtml(preview_html(preview))
        layout.addWidget(self.preview_view)
        if preview.error:
            error = plain_label(shown(preview.error, lines=True))
            error.setObjectName("approvalError")
            error.setWordWrap(True)
            layout.addWidget(error)

        self.arguments_view: CodeView | None = None
        self.arguments_toggle: QToolButton | None = None
        if preview.kind != "arguments":
            self._add_arguments(layout, request, preview)

        self._add_buttons(layout, request)
        self.set_shortcuts(False)

    @staticmethod
    def _confinement(layout: QVBoxLayout, code: str) -> QLabel | None:
        """Where a command will run: sandboxed (the safe state) or, as a warning, not."""
        where = confinement_text(code)
        if not where:
            return None
        label = plain_label(where)
        label.setWordWrap(True)
        label.setObjectName("toolCardMeta" if code.startswith("sandboxed") else "approvalError")
        layout.addWidget(label)
        return label

    def _add_buttons(self, layout: QVBoxLayout, request: ApprovalRequest) -> None:
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText(self.tr("Reason for denying (optional)"))
        self.reason_edit.setToolTip(self.tr("If you deny, this reason is sent to the assistant"))
        self.reason_edit.setAccessibleName(self.tr("Reason for denying"))
        self.reason_edit.returnPressed.connect(self._deny)
        layout.addWidget(self.reason_edit)
        grid = QGridLayout()
        grid.setSpacing(6)
        self.allow_once_button = QPushButton()
        self.allow_once_button.setObjectName("primaryButton")
        self.allow_chat_button = QPushButton()
        self.allow_always_button = QPushButton()
        self.deny_button = QPushButton()
        self.deny_button.setObjectName("denyButton")
        self.allow_once_button.setToolTip(self.tr("Run this call now; ask again next time"))
        self.allow_chat_button.setToolTip(plain_tooltip(self.tr(
            "Run {tool} without asking in this chat").format(tool=self.tool_name)))
        self.allow_always_button.setToolTip(plain_tooltip(self.tr(
            "Never ask again for {tool}, in any chat (revoke it in Settings → Tools)").format(
                tool=self.tool_name)))
        self.deny_button.setToolTip(
                self.tr("Do not run it; the assistant is told (with your reason)"))
        self.allow_once_button.clicked.connect(
            lambda: self.decide(ApprovalDecision.allow_once()))
        self.allow_chat_button.clicked.connect(
            lambda: self.decide(ApprovalDecision.allow_chat()))
        self.allow_always_button.clicked.connect(self._allow_always)
        self.deny_button.clicked.connect(self._deny)
        grid.addWidget(self.allow_once_button, 0, 0)
        grid.addWidget(self.allow_chat_button, 0, 1)
        grid.addWidget(self.allow_always_button, 1, 0)
        grid.addWidget(self.deny_button, 1, 1)
        layout.addLayout(grid)
        # The built-in tools with scopes are only ever granted within one: the scope,
        # shown and editable here, is what "Always allow" grants (none valid: disabled).
        self.scope_row: ScopeRow | None = None
        if request.network:  # (the network for the chat's commands, not the tool)
            self.allow_chat_button.setToolTip(self.tr(
                "This chat's commands may use the network from now on (forget it in "
                "Settings → Tools)"))
            self.allow_once_button.setToolTip(self.tr(
                "Run this command with the network; ask again next time"))
            self.allow_always_button.hide()  # (Settings → Tools sets it for every chat)
            grid.removeWidget(self.deny_button)  # (in its place, not alone on the right)
            grid.addWidget(self.deny_button, 1, 0)
        elif request.always_needs_scope or (scope_kind(request.tool)
                                            and request.source == "builtin"):
            self.scope_row = ScopeRow(request.tool, request.proposed_scope,
                                      unscoped=unscoped_reason(request.tool, request.arguments))
            self.scope_row.granted.connect(
                lambda scope: self.decide(ApprovalDecision.allow_always(scope)))
            self.scope_row.changed.connect(self._scope_changed)
            layout.addWidget(self.scope_row)
            self._scope_changed()
        self.outcome_label = plain_label()
        self.outcome_label.setObjectName("toolCardMeta")
        self.outcome_label.hide()
        layout.addWidget(self.outcome_label)

    def _scope_changed(self) -> None:
        row = self.scope_row
        if row is None or self.pending.done:
            return
        self.allow_always_button.setEnabled(row.problem() is None)
        self.allow_always_button.setToolTip(plain_tooltip(
            always_tooltip(self.request.tool, row.scope(), row.unscoped)))

    def _allow_always(self) -> None:
        if self.scope_row is None:
            self.decide(ApprovalDecision.allow_always())
        elif self.scope_row.problem() is None:  # (never the whole tool)
            self.decide(ApprovalDecision.allow_always(self.scope_row.scope()))

    @staticmethod
    def _heading(text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("approvalHeading")
        return label

    def _add_arguments(self, layout: QVBoxLayout, request: ApprovalRequest,
                       preview: ApprovalPreview) -> None:
        extra = set(request.arguments) - _PREVIEW_KEYS.get(preview.kind, set())
        toggle = QToolButton()
        toggle.setCheckable(True)
        toggle.setAutoRaise(True)
        toggle.setObjectName("approvalArgsToggle")
        toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        view = CodeView(200)
        view.setAccessibleName(self.tr("Full arguments"))
        view.setHtml(json_html(request.arguments))

        def show(on: bool) -> None:
            toggle.setText(("▾ " if on else "▸ ") + self.tr("Full arguments"))
            view.setVisible(on)

        toggle.toggled.connect(show)
        layout.addWidget(toggle)
        layout.addWidget(view)
        # A diff says it all; a command or URL with other arguments shows them at once.
        toggle.setChecked(preview.kind != "diff" and bool(extra))
        show(toggle.isChecked())
        self.arguments_toggle, self.arguments_view = toggle, view

    def set_shortcuts(self, on: bool) -> None:
        """Alt+O / Alt+C / Alt+W / Alt+D for the first card only (no ambiguity)."""
        chat = (self.tr("Allow network for this &chat") if self.request.network
                else self.tr("Allow for this &chat"))
        texts = [(self.allow_once_button, self.tr("Allow &once")),
                 (self.allow_chat_button, chat),
                 (self.allow_always_button, self.tr("Al&ways allow")),
                 (self.deny_button, self.tr("&Deny"))]
        for button, text in texts:
            button.setText(text if on else text.replace("&", ""))

    def _deny(self) -> None:
        self.decide(ApprovalDecision.deny(self.reason_edit.text().strip() or None))

    def decide(self, decision: ApprovalDecision) -> None:
        if self.pending.done:
            return
        self.pending.resolve(decision)
        for widget in (self.allow_once_button, self.allow_chat_button,
                       self.allow_always_button, self.deny_button, self.reason_edit,
                       *([self.scope_row] if self.scope_row is not None else [])):
            widget.setEnabled(False)
        texts = {"allow_once": self.tr("Allowed once"),
                 "allow_chat": (self.tr("Network allowed for this chat's commands")
                                if self.request.network else self.tr("Allowed for this chat")),
                 "allow_always": self.tr("Always allowed"), "deny": self.tr("Denied")}
        text = texts[decision.kind]
        if decision.scope:
            text = self.tr("Always allowed within {scope}").format(scope=shown(decision.scope))
        self.outcome_label.setText(text + " …")
        self.outcome_label.show()
        self.decided.emit(self.call_id, decision)


def approval_css(c: dict[str, str]) -> str:
    """Styles for the approval card and the code views (set on the sidebar)."""
    return f"""
#approvalCard {{ background: {c['base']}; border: 2px solid {c['warn']}; border-radius: 8px; }}
#approvalBadge {{ color: {c['warn']}; font-weight: 700; }}
#approvalTitle {{ font-weight: 600; }}
#approvalHeading {{ color: {c['muted']}; font-weight: 600; }}
#approvalError {{ color: {c['error']}; }}
#approvalArgsToggle {{ color: {c['muted']}; border: none; padding: 0; }}
#codeView {{ background: {c['code_bg']}; border: 1px solid {c['border']}; border-radius: 6px; }}
QPushButton#denyButton {{ color: {c['error']}; }}
QLineEdit#scopeEdit[invalid="true"] {{ border: 1px solid {c['error']}; }}
QLabel#scopeMeaning {{ color: {c['muted']}; }}
QLabel#scopeMeaning[invalid="true"] {{ color: {c['error']}; }}
QPushButton#denyButton:disabled, QPushButton:disabled {{ color: {c['muted']}; }}
"""
