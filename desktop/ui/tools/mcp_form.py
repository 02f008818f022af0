"""The form for one MCP server in Settings → MCP servers: how to reach it (command, args,
env, folder, or URL + headers), its switch, live status, its tools (each with a switch
and a policy), Restart and the stderr viewer. Edits go straight into the server's
settings dictionary; the dialog saves them."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.tools import mcp
from desktop.tools.approval import POLICIES
from desktop.ui import theme
from desktop.ui.plain_text import plain_label, plain_tooltip, shown
from desktop.ui.tools.approval_card import monospace_font
from desktop.ui.tools.mcp_sign_in import McpClientFields, McpSignInRow
from desktop.ui.tools.tools_dialog import policy_name

if TYPE_CHECKING:
    from desktop.tools.mcp.connection import McpConnection

# (translated where they are shown)
TRANSPORTS: list[tuple[str, str]] = [
    ("stdio", str(QT_TRANSLATE_NOOP("McpServerForm", "Command (stdio)"))),
    ("http", str(QT_TRANSLATE_NOOP("McpServerForm", "URL (Streamable HTTP)"))),
    ("sse", str(QT_TRANSLATE_NOOP("McpServerForm", "URL (SSE, legacy)")))]
STATE_COLORS = {"running": "ok", "failed": "error", "invalid": "error", "starting": "warn",
                "restarting": "warn"}


def parse_pairs(text: str, separator: str) -> dict[str, str]:
    """``KEY=VALUE`` (or ``Name: value``) lines -> a dict; ``ValueError`` names a bad line."""
    pairs: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        key, sep, value = line.partition(separator)
        if not sep or not key.strip():
            example = "Name: value" if separator == ":" else "NAME=value"
            raise ValueError(QCoreApplication.translate(
                "McpServerForm", "line {number}: write it as {example}").format(
                number=number, example=example))
        pairs[key.strip()] = value.strip() if separator == ":" else value
    return pairs


def format_pairs(pairs: dict[str, Any], separator: str) -> str:
    joiner = f"{separator} " if separator == ":" else separator
    return "\n".join(f"{k}{joiner}{v}" for k, v in pairs.items())


class McpServerForm(QWidget):
    changed = Signal()
    restartRequested = Signal()

    def __init__(self, connection: Callable[[str], McpConnection | None],
                 override: Callable[[str], str | None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._connection = connection
        self._override = override
        self.server: dict[str, Any] = {}
        self._loading = False
        self._stderr_seen: tuple[int, int] = (0, 0)
        self._tool_names: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        form = QFormLayout()
        self.form_layout = form
        self.name_edit = QLineEdit()
        self.name_edit.setToolTip(self.tr("Shown in lists; also the prefix of its tools' names"))
        self.enabled_check = QCheckBox(self.tr("Start this server"))
        self.transport_combo = QComboBox()
        for key, label in TRANSPORTS:
            self.transport_combo.addItem(self.tr(label), key)
        self.command_edit = QLineEdit()
        self.command_edit.setPlaceholderText(self.tr("npx, uvx, python, /path/to/server…"))
        self.args_edit = QLineEdit()
        self.args_edit.setPlaceholderText(
                self.tr('-y @modelcontextprotocol/server-filesystem "~/My notes"'))
        self.env_edit = QPlainTextEdit()
        self.env_edit.setPlaceholderText(self.tr("KEY=value, one per line"))
        self.cwd_edit = QLineEdit()
        self.cwd_edit.setPlaceholderText(self.tr("working folder (optional)"))
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText(self.tr("https://example.com/mcp"))
        self.headers_edit = QPlainTextEdit()
        self.headers_edit.setPlaceholderText(self.tr("Authorization: Bearer …, one per line"))
        for edit in (self.env_edit, self.headers_edit):
            edit.setFixedHeight(64)
            edit.setTabChangesFocus(True)
        form.addRow(self.tr("&Name"), self.name_edit)
        form.addRow("", self.enabled_check)
        form.addRow(self.tr("&Connect with"), self.transport_combo)
        form.addRow(self.tr("&Command"), self.command_edit)
        form.addRow(self.tr("&Arguments"), self.args_edit)
        form.addRow(self.tr("&Environment"), self.env_edit)
        form.addRow(self.tr("&Folder"), self.cwd_edit)
        form.addRow(self.tr("&URL"), self.url_edit)
        form.addRow(self.tr("&Headers"), self.headers_edit)
        self.client_fields = McpClientFields()
        form.addRow(self.tr("Sign-in app"), self.client_fields)
        layout.addLayout(form)
        self.field_error = plain_label()
        self.field_error.setWordWrap(True)
        self.field_error.hide()
        layout.addWidget(self.field_error)

        self._build_status(layout)
        self._build_tools(layout)
        self.stderr_view = QPlainTextEdit()
        self.stderr_view.setReadOnly(True)
        self.stderr_view.setAccessibleName(self.tr("Server stderr"))
        self.stderr_view.setFont(monospace_font())
        self.stderr_view.hide()
        layout.addWidget(self.stderr_view, 1)
        self._connect_fields()

    def _build_status(self, layout: QVBoxLayout) -> None:
        status_row = QHBoxLayout()
        self.status_label = plain_label()
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName(self.tr("Server status"))
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.restart_button = QPushButton(self.tr("Restart"))
        self.restart_button.clicked.connect(self.restartRequested)
        self.stderr_button = QPushButton(self.tr("Show stderr"))
        self.stderr_button.setCheckable(True)
        self.stderr_button.toggled.connect(self._show_stderr)
        status_row.addWidget(self.status_label, 1)
        status_row.addWidget(self.restart_button)
        status_row.addWidget(self.stderr_button)
        layout.addLayout(status_row)
        self.sign_in_row = McpSignInRow()
        layout.addWidget(self.sign_in_row)

    def _build_tools(self, layout: QVBoxLayout) -> None:
        self.tools_hint = QLabel()
        self.tools_hint.setObjectName("emptyHint")
        self.tools_hint.setWordWrap(True)
        self.tools_table = QTableWidget(0, 3)
        self.tools_table.setHorizontalHeaderLabels(
            [self.tr("Tool"), self.tr("On"), self.tr("Policy")])
        self.tools_table.setAccessibleName(self.tr("Tools of this server"))
        self.tools_table.verticalHeader().hide()
        self.tools_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.tools_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.tools_table.itemChanged.connect(self._tool_switched)
        self.policy_combos: dict[str, QComboBox] = {}
        layout.addWidget(self.tools_hint)
        layout.addWidget(self.tools_table, 2)

    def _connect_fields(self) -> None:
        self.name_edit.textEdited.connect(lambda t: self._set("name", t.strip()))
        self.enabled_check.toggled.connect(lambda on: self._set("enabled", on))
        self.transport_combo.currentIndexChanged.connect(self._transport_changed)
        self.command_edit.textEdited.connect(lambda t: self._set("command", t.strip()))
        self.args_edit.textEdited.connect(self._args_edited)
        self.env_edit.textChanged.connect(
            lambda: self._pairs("env", self.env_edit.toPlainText(), "=", self.tr("Environment")))
        self.cwd_edit.textEdited.connect(lambda t: self._set("cwd", t.strip() or None))
        self.client_fields.edited.connect(self._set)
        self.url_edit.textEdited.connect(lambda t: self._set("url", t.strip()))
        self.headers_edit.textChanged.connect(
            lambda: self._pairs("headers", self.headers_edit.toPlainText(), ":",
                               self.tr("Headers")))

    # -- loading and editing ------------------------------------------------------------------

    def load(self, server: dict[str, Any]) -> None:
        self._loading = True
        self.server = server
        self.name_edit.setText(str(server.get("name", "")))
        self.enabled_check.setChecked(bool(server.get("enabled", True)))
        index = self.transport_combo.findData(server.get("transport", "stdio"))
        self.transport_combo.setCurrentIndex(max(index, 0))
        self.command_edit.setText(str(server.get("command", "")))
        self.args_edit.setText(shlex.join(str(a) for a in server.get("args") or []))
        self.env_edit.setPlainText(format_pairs(server.get("env") or {}, "="))
        self.cwd_edit.setText(str(server.get("cwd") or ""))
        self.url_edit.setText(str(server.get("url", "")))
        self.headers_edit.setPlainText(format_pairs(server.get("headers") or {}, ":"))
        self.client_fields.load(server)
        self._show_rows()
        self.field_error.hide()
        self._loading = False
        self._stderr_seen = (0, 0)
        self._tool_names = []
        self.refresh_tools()
        self.poll_stderr()

    def focus_first_field(self) -> None:
        self.name_edit.setFocus()
        self.name_edit.selectAll()

    def _set(self, key: str, value: Any) -> None:
        if self._loading:
            return
        self.server[key] = value
        self.changed.emit()

    def _transport_changed(self) -> None:
        self._show_rows()
        self._set("transport", self.transport_combo.currentData())

    def _show_rows(self) -> None:
        stdio = self.transport_combo.currentData() == "stdio"
        for widget in (self.command_edit, self.args_edit, self.env_edit, self.cwd_edit):
            self.form_layout.setRowVisible(widget, stdio)
        remote: tuple[QWidget, ...] = (self.url_edit, self.headers_edit, self.client_fields)
        for field in remote:
            self.form_layout.setRowVisible(field, not stdio)

    def _field_problem(self, text: str | None) -> None:
        self.field_error.setText(f"⚠ {text}" if text else "")
        self.field_error.setStyleSheet(f"color: {theme.colors()['error']};")
        self.field_error.setVisible(bool(text))

    def _args_edited(self, text: str) -> None:
        try:
            args = shlex.split(text)
        except ValueError:
            self._field_problem(self.tr("Arguments: a quotation mark is not closed, or the text "
                                        "ends with a backslash."))
            return
        self._field_problem(None)
        self._set("args", args)

    def _pairs(self, key: str, text: str, separator: str, label: str) -> None:
        if self._loading:
            return
        try:
            pairs = parse_pairs(text, separator)
        except ValueError as exc:
            self._field_problem(f"{label}: {exc}")
            return
        self._field_problem(None)
        self._set(key, pairs)

    # -- status, tools, stderr ------------------------------------------------------------------

    def show_status(self, state: str, text: str) -> None:
        color = theme.colors()[STATE_COLORS.get(state, "muted")]
        self.status_label.setText(text)
        self.status_label.setStyleSheet(f"color: {color};")
        connection = self._connection(str(self.server.get("name", "")))
        self.restart_button.setEnabled(connection is not None)
        self.sign_in_row.show_for(connection)
        self.refresh_tools()

    def refresh_tools(self) -> None:
        connection = self._connection(str(self.server.get("name", "")))
        tools = list(connection.tools) if connection is not None else []
        names = [t.name for t in tools]
        if names == self._tool_names and names:
            return
        self._tool_names = names
        self.tools_table.blockSignals(True)
        self.tools_table.setRowCount(len(tools))
        self.policy_combos.clear()
        disabled = set(self.server.get("disabled_tools") or [])
        policies: dict[str, str] = dict(self.server.get("tool_policies") or {})
        for row, tool in enumerate(tools):
            name = QTableWidgetItem(shown(tool.name))  # (a name with \u202e reads backwards)
            name.setFlags(Qt.ItemFlag.ItemIsEnabled)
            name.setToolTip(plain_tooltip(tool.description or tool.name))
            on = QTableWidgetItem()
            on.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            on.setCheckState(Qt.CheckState.Unchecked if tool.name in disabled
                             else Qt.CheckState.Checked)
            on.setData(Qt.ItemDataRole.UserRole, tool.name)
            read_only = bool(tool.annotations and tool.annotations.read_only_hint)
            default = self.server.get("default_policy") or ("allow" if read_only else "ask")
            combo = QComboBox()
            combo.setAccessibleName(self.tr("Policy for {tool}").format(tool=shown(tool.name)))
            combo.addItem(self.tr("Default ({policy})").format(policy=policy_name(str(default))),
                          None)
            for policy in POLICIES:
                combo.addItem(policy_name(policy), policy)
            if tool.name in policies:
                combo.setCurrentIndex(combo.findData(policies[tool.name]))
            override = self._override(self._exposed(tool.name))
            if override:
                combo.setToolTip(self.tr("Settings → Tools sets this tool to {policy}, which wins "
                                         "over this choice").format(policy=policy_name(override)))
            combo.currentIndexChanged.connect(
                lambda _i, n=tool.name, c=combo: self._policy_chosen(n, c.currentData()))
            self.policy_combos[tool.name] = combo
            self.tools_table.setItem(row, 0, name)
            self.tools_table.setItem(row, 1, on)
            self.tools_table.setCellWidget(row, 2, combo)
        self.tools_table.blockSignals(False)
        self.tools_table.setVisible(bool(tools))
        if connection is not None and connection.needs_sign_in:
            hint = self.tr("Sign in to use its tools.")
        else:
            hint = self.tr("Its tools are listed here once it runs.")
        self.tools_hint.setText("" if tools else hint)
        self.tools_hint.setVisible(not tools)

    def _exposed(self, tool: str) -> str:
        return mcp.exposed_name(str(self.server.get("name", "")), tool)

    def _tool_switched(self, item: QTableWidgetItem) -> None:
        name = item.data(Qt.ItemDataRole.UserRole)
        if not isinstance(name, str):
            return
        disabled = [n for n in self.server.get("disabled_tools") or [] if n != name]
        if item.checkState() != Qt.CheckState.Checked:
            disabled.append(name)
        self._set("disabled_tools", disabled)

    def _policy_chosen(self, tool: str, policy: str | None) -> None:
        policies = dict(self.server.get("tool_policies") or {})
        if policy:
            policies[tool] = policy
        else:
            policies.pop(tool, None)
        self._set("tool_policies", policies)

    def _show_stderr(self, on: bool) -> None:
        self.stderr_button.setText(self.tr("Hide stderr") if on else self.tr("Show stderr"))
        self.stderr_view.setVisible(on)
        self._stderr_seen = (0, 0)
        self.poll_stderr()

    def poll_stderr(self) -> None:
        if not self.stderr_view.isVisible() and not self.stderr_button.isChecked():
            return
        connection = self._connection(str(self.server.get("name", "")))
        if connection is None:
            self.stderr_view.setPlainText(self.tr("(the server is not started)"))
            self._stderr_seen = (0, 0)
            return
        seen = (id(connection.stderr), connection.stderr.total)
        if seen == self._stderr_seen:
            return
        self._stderr_seen = seen
        self.stderr_view.setPlainText(connection.stderr.text() or self.tr("(nothing written yet)"))
        bar = self.stderr_view.verticalScrollBar()
        bar.setValue(bar.maximum())
