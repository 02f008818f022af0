"""Attach → "From MCP server…": resources of the running MCP servers as attachments.

While some running server offers resources or resource templates, the composer's
attach button gets a menu ("Files…", "From MCP server…"); otherwise it opens the
file dialog as before. The dialog lists every resource (server, name, URI, type)
and every template, whose variables are asked for in fields; "Attach" reads the
resource afresh and adds it as chips (text as a named block, images as images).
Names and URIs come from servers: plain text.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.mcp_inputs import McpInputs, fill_template, template_variables
from desktop.core.errors import AssistaError
from desktop.core.messages import Part
from desktop.ui.plain_text import plain_label

if TYPE_CHECKING:
    from desktop.ui.chat.composer import Composer

log = logging.getLogger(__name__)

Entry = tuple[str, str, bool]  # server, URI or template, is a template


class McpResourceDialog(QDialog):
    def __init__(self, inputs: McpInputs, composer: Composer,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.inputs = inputs
        self.composer = composer
        self.entries: list[Entry] = []
        self.fields: dict[str, QLineEdit] = {}
        self._task: asyncio.Future[None] | None = None
        self.setWindowTitle(self.tr("Attach from an MCP server"))
        self.resize(620, 460)
        layout = QVBoxLayout(self)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Resources"))
        self.list.currentRowChanged.connect(self._show_fields)
        self.list.itemDoubleClicked.connect(lambda _item: self.attach())
        layout.addWidget(self.list, 1)
        self.form = QFormLayout()
        layout.addLayout(self.form)
        self.problem = plain_label()
        self.problem.setWordWrap(True)
        layout.addWidget(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        self.attach_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.attach_button.setText(self.tr("Attach"))
        buttons.accepted.connect(self.attach)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        for server, resource in inputs.resources():
            kind = f" · {resource.mime_type}" if resource.mime_type else ""
            self._add(f"{resource.title or resource.name}\n{server} · {resource.uri}{kind}",
                      (server, str(resource.uri), False))
        for server, template in inputs.templates():
            self._add(f"{template.title or template.name}\n{server} · {template.uri_template}",
                      (server, template.uri_template, True))
        if self.entries:
            self.list.setCurrentRow(0)
        else:
            self.problem.setText(self.tr("No running MCP server offers resources."))

    def _add(self, text: str, entry: Entry) -> None:
        item = QListWidgetItem(text)
        item.setToolTip(entry[1])
        self.list.addItem(item)
        self.entries.append(entry)

    def _show_fields(self, row: int) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        if not 0 <= row < len(self.entries) or not self.entries[row][2]:
            return
        for name in template_variables(self.entries[row][1]):
            edit = QLineEdit()
            edit.setAccessibleName(name)
            self.form.addRow(plain_label(name), edit)
            self.fields[name] = edit

    def attach(self) -> None:
        row = self.list.currentRow()
        if not 0 <= row < len(self.entries) or (self._task and not self._task.done()):
            return
        server, uri, is_template = self.entries[row]
        if is_template:
            try:
                uri = fill_template(uri, {n: e.text() for n, e in self.fields.items()})
            except ValueError as exc:
                self.problem.setText(str(exc))
                return
        self.attach_button.setEnabled(False)
        self.problem.setText(self.tr("Reading {0}…").format(uri))
        self._task = asyncio.ensure_future(self._read(server, uri))

    async def _read(self, server: str, uri: str) -> None:
        try:
            parts: list[Part] = await self.inputs.read(server, uri)
        except AssistaError as exc:
            self.problem.setText(self.tr("Cannot attach {0}: {1}").format(uri, str(exc)))
            self.attach_button.setEnabled(True)
            return
        for part in parts:
            self.composer.add_attachment(getattr(part, "name", None) or uri, part)
        self.accept()


class McpAttachMenu(QObject):
    """Gives the attach button its menu while MCP resources are offered."""

    def __init__(self, composer: Composer, inputs: McpInputs) -> None:
        super().__init__(composer)
        self.composer = composer
        self.inputs = inputs
        self.dialog: McpResourceDialog | None = None
        self.menu = QMenu(composer.attach_button)
        self.menu.addAction(self.tr("Files…")).triggered.connect(composer.attachRequested)
        self.menu.addAction(self.tr("From MCP server…")).triggered.connect(self.browse)

    def refresh(self) -> None:
        offered = bool(self.inputs.resources() or self.inputs.templates())
        button = self.composer.attach_button
        if offered != (button.menu() is not None):
            button.setMenu(self.menu if offered else None)  # type: ignore[arg-type]

    def browse(self) -> McpResourceDialog:
        dialog = McpResourceDialog(self.inputs, self.composer, self.composer.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.open()
        return dialog
