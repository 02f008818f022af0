"""Settings → MCP servers → Browse: servers from the official MCP registry.

The saved copy shows at once; the registry is read in the background and replaces
it (or the dialog says it is offline and why). Choosing a server shows how it can
be installed (an npm or PyPI package started with npx/uvx, or a remote URL) and
asks for the values it needs; "Add" hands the server setting to the MCP dialog,
which starts it on Save. Everything from the registry is shown as plain text.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.tools.mcp.catalog import (
    CatalogEntry,
    CatalogError,
    CatalogResult,
    RegistryCatalog,
    install_config,
)
from desktop.ui.error_text import exception_text

if TYPE_CHECKING:
    from desktop.tools.mcp.config import McpServerConfig

AddServers = Callable[[list["McpServerConfig"]], bool]


def plain_label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class McpCatalogDialog(QDialog):
    def __init__(self, catalog: RegistryCatalog, add: AddServers,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self._add = add
        self.entries: list[CatalogEntry] = []
        self.inputs: dict[str, QLineEdit] = {}
        self._task: asyncio.Future[None] | None = None
        self.setWindowTitle(self.tr("MCP server catalog"))
        self.resize(900, 600)
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search servers"))
        self.search.setAccessibleName(self.tr("Search servers"))
        self.search.textChanged.connect(self._fill)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.setToolTip(self.tr("Read the registry again"))
        self.refresh_button.clicked.connect(self.refresh)
        top.addWidget(self.search, 1)
        top.addWidget(self.refresh_button)
        layout.addLayout(top)
        self.status = plain_label()
        layout.addWidget(self.status)

        splitter = QSplitter()
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Servers in the catalog"))
        self.list.setWordWrap(True)
        self.list.setSpacing(3)
        self.list.currentRowChanged.connect(self._show)
        splitter.addWidget(self.list)
        details = self._build_details()
        splitter.addWidget(details)
        splitter.setSizes([380, 520])
        layout.addWidget(splitter, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

        cached = catalog.cached()
        if cached is not None:
            self._apply(cached, self.tr("Showing the saved copy; reading the registry…"))
        else:
            self.status.setText(self.tr("Reading the MCP registry…"))
        self._show(-1)

    def _build_details(self) -> QWidget:
        details = QWidget()
        column = QVBoxLayout(details)
        self.title = plain_label()
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.about = plain_label()
        self.links = plain_label()
        self.install_combo = QComboBox()
        self.install_combo.setAccessibleName(self.tr("How to install"))
        self.install_combo.currentIndexChanged.connect(self._show_inputs)
        self.form = QFormLayout()
        self.problem = plain_label()
        self.add_button = QPushButton(self.tr("Add server"))
        self.add_button.setObjectName("primaryButton")
        self.add_button.clicked.connect(self.add_current)
        for widget in (self.title, self.about, self.links, self.install_combo):
            column.addWidget(widget)
        column.addLayout(self.form)
        column.addWidget(self.problem)
        column.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignLeft)
        column.addStretch(1)
        return details

    # -- loading --------------------------------------------------------------------------

    def refresh(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self.refresh_button.setEnabled(False)
        self._task = asyncio.ensure_future(self._refresh())

    async def _refresh(self) -> None:
        try:
            result = await self.catalog.refresh()
        except CatalogError as exc:
            self.status.setText(exception_text(exc))
        else:
            note = None
            if result.offline is not None:
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(result.fetched_at))
                note = self.tr("Offline ({0}): showing the copy saved on {1}.").format(
                    result.offline, when)
            self._apply(result, note)
        finally:
            self.refresh_button.setEnabled(True)

    def _apply(self, result: CatalogResult, note: str | None) -> None:
        self.entries = result.entries
        count = self.tr("%n server(s)", "", len(self.entries))
        self.status.setText(f"{count} · {note}" if note else count)
        self._fill()

    def _fill(self) -> None:
        wanted = self.search.text().strip().lower()
        current = self._current()
        self.list.blockSignals(True)
        self.list.clear()
        for entry in self.entries:
            text = f"{entry.title or entry.short_name}\n{entry.description}"
            if wanted and wanted not in f"{entry.name} {text}".lower():
                continue
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, entry.name)
            item.setToolTip(entry.name)
            self.list.addItem(item)
            if current is not None and entry.name == current.name:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self._show(self.list.currentRow())

    # -- one server ------------------------------------------------------------------------

    def _current(self) -> CatalogEntry | None:
        item = self.list.currentItem()
        name = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return next((e for e in self.entries if e.name == name), None)

    def _show(self, _row: int) -> None:
        entry = self._current()
        self.install_combo.blockSignals(True)
        self.install_combo.clear()
        if entry is None:
            self.title.setText(self.tr("Choose a server"))
            for label in (self.about, self.links):
                label.clear()
        else:
            self.title.setText(f"{entry.title or entry.short_name} {entry.version}".strip())
            self.about.setText(f"{entry.name}\n{entry.description}")
            self.links.setText("\n".join(u for u in (entry.website, entry.repository) if u))
            for install in entry.installs:
                self.install_combo.addItem(install.describe())
        self.install_combo.blockSignals(False)
        self.install_combo.setVisible(bool(entry and entry.installs))
        self._show_inputs()

    def _show_inputs(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.inputs = {}
        self.problem.clear()
        entry = self._current()
        index = self.install_combo.currentIndex()
        self.add_button.setEnabled(entry is not None and index >= 0)
        if entry is None:
            return
        if not entry.installs:
            self.problem.setText(self.tr("This server has no package or address the app "
                                         "can install (for example a container image)."))
            return
        for field_input in entry.installs[index].inputs:
            edit = QLineEdit(field_input.default)
            edit.setPlaceholderText(field_input.description)
            edit.setAccessibleName(field_input.name)
            if field_input.secret:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            mark = " *" if field_input.required else ""
            self.form.addRow(plain_label(field_input.name + mark), edit)
            self.inputs[field_input.name] = edit

    def add_current(self) -> bool:
        entry = self._current()
        index = self.install_combo.currentIndex()
        if entry is None or index < 0:
            return False
        values = {name: edit.text() for name, edit in self.inputs.items()}
        try:
            config = install_config(entry.installs[index], entry.short_name, values)
        except ValueError as exc:
            self.problem.setText(self.tr("Cannot add it: {0}").format(exception_text(exc)))
            return False
        if self._add([config]):
            self.accept()
        return True


def catalog_button(parent: QDialog, catalogs: Callable[[], RegistryCatalog],
                   add: AddServers) -> QPushButton:
    """The "Browse" button of the MCP dialog: opens the catalog ``catalogs`` makes."""
    button = QPushButton(QCoreApplication.translate("McpDialog", "Browse"))
    button.setToolTip(QCoreApplication.translate(
        "McpDialog", "Servers listed in the official MCP registry"))

    def open_catalog() -> None:
        dialog = McpCatalogDialog(catalogs(), add, parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        parent.catalog_dialog = dialog  # type: ignore[attr-defined]
        dialog.open()
        dialog.refresh()

    button.clicked.connect(open_catalog)
    return button
