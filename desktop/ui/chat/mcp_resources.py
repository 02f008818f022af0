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
from collections.abc import Callable
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
from desktop.tools import mcp
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_label

if TYPE_CHECKING:
    from desktop.tools.mcp.live_lists import McpEvent
    from desktop.ui.chat.composer import AttachmentChip, Composer

log = logging.getLogger(__name__)

Entry = tuple[str, str, bool]  # server, URI or template, is a template


class McpResourceDialog(QDialog):
    def __init__(self, inputs: McpInputs, composer: Composer,
                 parent: QWidget | None = None,
                 on_attached: Callable[[str, str, list[AttachmentChip]], None] | None = None,
                 ) -> None:
        super().__init__(parent)
        self.inputs = inputs
        self.composer = composer
        self.on_attached = on_attached
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
                self.problem.setText(exception_text(exc))
                return
        self.attach_button.setEnabled(False)
        self.problem.setText(self.tr("Reading {0}…").format(uri))
        self._task = asyncio.ensure_future(self._read(server, uri))

    async def _read(self, server: str, uri: str) -> None:
        try:
            parts: list[Part] = await self.inputs.read(server, uri)
        except AssistaError as exc:
            self.problem.setText(self.tr("Cannot attach {0}: {1}").format(uri, exception_text(exc)))
            self.attach_button.setEnabled(True)
            return
        for part in parts:
            self.composer.add_attachment(getattr(part, "name", None) or uri, part)
        if self.on_attached is not None and parts:
            self.on_attached(server, uri, self.composer.chips[-len(parts):])
        self.accept()


class McpAttachMenu(QObject):
    """Gives the attach button its menu while MCP resources are offered."""

    def __init__(self, composer: Composer, inputs: McpInputs) -> None:
        super().__init__(composer)
        self.composer = composer
        self.inputs = inputs
        self.dialog: McpResourceDialog | None = None
        # Attached resources the server may change before the message is sent: they
        # are subscribed to and read again when the server says they changed.
        self.watched: dict[tuple[str, str], list[AttachmentChip]] = {}
        self._tasks: set[asyncio.Future[None]] = set()
        inputs.tools.on_mcp_event.append(self._mcp_event)
        self.menu = QMenu(composer.attach_button)
        self.menu.addAction(self.tr("Files…")).triggered.connect(composer.attachRequested)
        self.menu.addAction(self.tr("From MCP server…")).triggered.connect(self.browse)

    def refresh(self) -> None:
        offered = bool(self.inputs.resources() or self.inputs.templates())
        button = self.composer.attach_button
        if offered != (button.menu() is not None):
            button.setMenu(self.menu if offered else None)  # type: ignore[arg-type]

    def browse(self) -> McpResourceDialog:
        dialog = McpResourceDialog(self.inputs, self.composer, self.composer.window(),
                                   on_attached=self.watch)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.open()
        return dialog

    # -- subscribed resources -------------------------------------------------------------

    def watch(self, server: str, uri: str, chips: list[AttachmentChip]) -> None:
        self.watched[(server, uri)] = chips
        self.inputs.subscribe(server, uri)

    def _alive(self, key: tuple[str, str]) -> list[AttachmentChip]:
        chips = [c for c in self.watched.get(key, []) if c in self.composer.chips]
        if not chips:  # sent or removed: no longer of interest
            self.watched.pop(key, None)
            self.inputs.unsubscribe(*key)
        return chips

    def _mcp_event(self, event: McpEvent) -> None:
        if isinstance(event, mcp.ResourceChanged) and (event.server, event.uri) in self.watched:
            task = asyncio.ensure_future(self._reread(event.server, event.uri))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _reread(self, server: str, uri: str) -> None:
        try:
            parts = await self.inputs.read(server, uri)
        except AssistaError as exc:
            log.warning("MCP resource %s could not be read again: %s", uri, exc)
            return
        for chip, part in zip(self._alive((server, uri)), parts, strict=False):
            chip.part = part
            chip.setToolTip(self.tr("Read again from {0}: the server changed it").format(
                server))
