"""Settings → Tools: each tool's approval policy (Allow / Ask / Deny, defaults shown),
which built-ins are on, and the "always allow" grants, each revocable."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.tools.approval import POLICIES
from desktop.ui import locale_format
from desktop.ui.plain_text import plain_label, plain_tooltip, shown
from desktop.ui.tools.tool_names import display_name, names_text
from desktop.ui.tools.trust_fields import TrustFields

if TYPE_CHECKING:
    from desktop.chat.chat_tools import ChatTools
    from desktop.core.services import SettingsSource
    from desktop.tools.approval import ChatGrants
    from desktop.ui.window.dialog_registry import DialogServices

# (translated where it is shown)
INTRO = str(QT_TRANSLATE_NOOP(
    "ToolsDialog",
    "<b>Allow</b> runs a tool at once, <b>Ask</b> shows you each call (with its diff, "
    "command or URL) before it runs, <b>Deny</b> never runs it and the tool is not offered. "
    "Read-only tools default to Allow; writing files, running commands and fetching web "
    "pages default to Ask."))
#: The policies as the combo boxes name them (translated where they are shown).
POLICY_NAMES = {"allow": str(QT_TRANSLATE_NOOP("ToolsDialog", "Allow")),
                "ask": str(QT_TRANSLATE_NOOP("ToolsDialog", "Ask")),
                "deny": str(QT_TRANSLATE_NOOP("ToolsDialog", "Deny"))}


def source_name(source: str) -> str:
    if source == "builtin":
        return QCoreApplication.translate("ToolsDialog", "built-in")
    return QCoreApplication.translate("ToolsDialog", "MCP: {server}").format(
        server=shown(source))


def policy_name(policy: str) -> str:
    name = POLICY_NAMES.get(policy)
    return QCoreApplication.translate("ToolsDialog", name) if name else policy.capitalize()


class ToolsDialog(QDialog):
    """``settings``: read and saved here; ``tools``: the registry and the saved grants;
    ``chat_grants``: the chat on screen's "allow for this chat" grants."""

    saved = Signal()  # the policies, switches or trust settings were saved

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> ToolsDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        return cls(services.settings, services.tools, services.chat_grants, parent)

    def __init__(self, settings: SettingsSource, tools: ChatTools,
                 chat_grants: Callable[[], ChatGrants], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings, self.tools, self.chat_grants = settings, tools, chat_grants
        self.setWindowTitle(self.tr("Tools"))
        self.resize(720, 600)
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr(INTRO))
        intro.setWordWrap(True)
        layout.addWidget(intro)

        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(
            [self.tr("Tool"), self.tr("Source"), self.tr("On"), self.tr("Policy")])
        self.table.setAccessibleName(self.tr("Tools and their policies"))
        self.table.verticalHeader().hide()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.policy_combos: dict[str, QComboBox] = {}
        self.on_items: dict[str, QTableWidgetItem] = {}
        self._fill_tools()
        layout.addWidget(self.table, 3)
        current = settings.current
        self.trust_fields = TrustFields(current.fetch_allow_hosts, current.command_env,
                                        sandbox=current.command_sandbox,
                                        network=current.command_network)
        layout.addWidget(self.trust_fields)

        grants_title = QLabel(self.tr("<b>Always allowed</b> — these tools run without asking, "
                              "in every chat, until you revoke them."))
        grants_title.setWordWrap(True)
        layout.addWidget(grants_title)
        self.grants_table = QTableWidget(0, 5)
        self.grants_table.setHorizontalHeaderLabels(
            [self.tr("Tool"), self.tr("Calls"), self.tr("Source"), self.tr("Since"), ""])
        self.grants_table.setAccessibleName(self.tr("Always allowed tools"))
        self.grants_table.verticalHeader().hide()
        self.grants_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        grants_header = self.grants_table.horizontalHeader()
        grants_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (2, 3, 4):
            grants_header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.no_grants = QLabel(self.tr("No tool is always allowed. Choose “Always allow” on an "
                                "approval to add one."))
        self.no_grants.setObjectName("emptyHint")
        self.revoke_buttons: dict[str, QPushButton] = {}
        layout.addWidget(self.grants_table, 2)
        layout.addWidget(self.no_grants)

        chat_row = QHBoxLayout()
        self.chat_label = plain_label()  # tool names a server chose
        self.chat_label.setWordWrap(True)
        self.forget_button = QPushButton(self.tr("Forget"))
        self.forget_button.setToolTip(self.tr("Ask again in this chat for these tools"))
        self.forget_button.clicked.connect(self.forget_chat_grants)
        chat_row.addWidget(self.chat_label, 1)
        chat_row.addWidget(self.forget_button)
        layout.addLayout(chat_row)
        self.message = plain_label()
        self.message.setObjectName("emptyHint")
        layout.addWidget(self.message)
        self._fill_grants()

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    # -- tools and policies -------------------------------------------------------------------

    def _fill_tools(self) -> None:
        settings = self.settings.current
        tools = list(self.tools.registry())
        self.table.setRowCount(len(tools))
        for row, tool in enumerate(tools):
            name = QTableWidgetItem(display_name(tool.name, tool.source))
            name.setData(Qt.ItemDataRole.UserRole, tool.name)
            name.setToolTip(plain_tooltip(f"{tool.description}\n({tool.name})"))
            name.setFlags(Qt.ItemFlag.ItemIsEnabled)
            source = QTableWidgetItem(source_name(tool.source))
            source.setFlags(Qt.ItemFlag.ItemIsEnabled)
            on = QTableWidgetItem()
            if tool.source == "builtin":
                on.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
                on.setCheckState(Qt.CheckState.Checked if tool.name in settings.enabled_tools
                                 else Qt.CheckState.Unchecked)
                on.setToolTip(self.tr("Offered to the assistant (each chat can still switch it off "
                              "in the composer's tools menu)"))
                self.on_items[tool.name] = on
            else:
                on.setText("—")
                on.setFlags(Qt.ItemFlag.ItemIsEnabled)
                on.setToolTip(self.tr("Switch MCP tools on or off in Settings → MCP servers"))
            combo = QComboBox()
            combo.setAccessibleName(self.tr("Policy for {tool}").format(tool=tool.name))
            combo.addItem(self.tr("Default ({policy})").format(policy=policy_name(tool.policy)),
                          None)
            for policy in POLICIES:
                combo.addItem(policy_name(policy), policy)
            current = settings.tool_policies.get(tool.name)
            combo.setCurrentIndex(combo.findData(current) if current else 0)
            self.policy_combos[tool.name] = combo
            self.table.setItem(row, 0, name)
            self.table.setItem(row, 1, source)
            self.table.setItem(row, 2, on)
            self.table.setCellWidget(row, 3, combo)

    def set_policy(self, tool: str, policy: str | None) -> None:
        combo = self.policy_combos[tool]
        combo.setCurrentIndex(combo.findData(policy) if policy else 0)

    def save(self) -> None:
        if self.trust_fields.problem() is not None:
            return
        settings = self.settings.current
        policies = dict(settings.tool_policies)
        for name, combo in self.policy_combos.items():
            value = combo.currentData()
            if value:
                policies[name] = value
            else:
                policies.pop(name, None)
        shown = set(self.on_items)
        enabled = [n for n, item in self.on_items.items()
                   if item.checkState() == Qt.CheckState.Checked]
        enabled += [n for n in settings.enabled_tools if n not in shown]
        self.settings.update(tool_policies=policies, enabled_tools=enabled,
                             fetch_allow_hosts=self.trust_fields.hosts(),
                             command_env=self.trust_fields.env(),
                             command_sandbox=self.trust_fields.sandbox(),
                             command_network=self.trust_fields.network())
        self.saved.emit()
        self.accept()

    # -- grants ------------------------------------------------------------------------------

    def _fill_grants(self) -> None:
        grants = self.tools.saved_grants.list()
        self.grants_table.setRowCount(len(grants))
        self.revoke_buttons.clear()
        for row, grant in enumerate(grants):
            since = locale_format.date_time(datetime.fromtimestamp(grant.granted_at))
            calls = grant.scope or self.tr("All calls")
            tool = display_name(grant.tool, grant.source)
            for column, text in enumerate((tool, shown(calls), source_name(grant.source), since)):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.grants_table.setItem(row, column, item)
            button = QPushButton(self.tr("Revoke"))
            button.setAccessibleName(self.tr("Revoke {tool} {calls}").format(
                tool=tool, calls=shown(grant.scope)).rstrip())
            button.setToolTip(plain_tooltip(self.tr("Ask again before {tool} runs").format(
                tool=tool)))
            button.clicked.connect(
                lambda _c=False, t=grant.tool, s=grant.scope: self.revoke(t, s))
            self.grants_table.setCellWidget(row, 4, button)
            self.revoke_buttons[f"{grant.tool} {grant.scope}".rstrip()] = button
        self.grants_table.setVisible(bool(grants))
        self.no_grants.setVisible(not grants)
        chat = self.chat_grants()
        names = sorted(chat.tools)
        text = (self.tr("Allowed for this chat: ") + names_text(names) if names else
                self.tr("No tool is allowed just for this chat."))
        if chat.command_network:
            text += "\n" + self.tr("This chat's commands may use the network.")
        self.chat_label.setText(text)
        self.forget_button.setVisible(bool(names) or chat.command_network)

    def revoke(self, tool: str, scope: str = "") -> None:
        """Remove an "always allow" grant at once (no Save needed)."""
        if self.tools.saved_grants.revoke(tool, scope):
            self.message.setText(self.tr("Revoked: {tool} will ask again before it runs.").format(
                tool=display_name(tool)))
        self._fill_grants()

    def forget_chat_grants(self) -> None:
        self.chat_grants().clear()
        self.message.setText(self.tr("This chat will ask again."))
        self._fill_grants()
