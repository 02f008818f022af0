"""One knowledge base in the Knowledge dialog: its folders and files, its figures,
its embedding model, who searches it (this chat, assistants), and indexing with a
progress bar and Cancel.

Paths and file names are the user's and are shown as plain text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.provider_presets import wire_api
from desktop.knowledge.store import EmbeddingConfig, KnowledgeBase
from desktop.ui import locale_format
from desktop.ui.chat.sources_view import elide
from desktop.ui.wrap_row import WrapRow

if TYPE_CHECKING:
    from desktop.core.settings import ProviderConfig
    from desktop.ui.knowledge.index_job import IndexOutcome



def _embedding_kind(provider_kind: str) -> str | None:
    """The embedding request a provider's servers take (its adapter says; None: none)."""
    adapter = wire_api(provider_kind)
    return adapter.embedding_kind if adapter is not None else None


def _label() -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label


class KnowledgeDetail(QWidget):
    addPaths = Signal(list)  # paths chosen by the user
    removePath = Signal(str)
    embeddingChosen = Signal(object)  # EmbeddingConfig | None
    indexRequested = Signal()
    cancelRequested = Signal()
    chatToggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.base: KnowledgeBase | None = None
        self.providers: list[ProviderConfig] = []
        self.title = _label()
        self.title.setObjectName("panelTitle")
        self.paths = QListWidget()
        self.paths.setAccessibleName(self.tr("Folders and files of the knowledge base"))
        add_folder = QPushButton(self.tr("Add folder…"))
        add_folder.clicked.connect(self._add_folder)
        add_files = QPushButton(self.tr("Add files…"))
        add_files.clicked.connect(self._add_files)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setToolTip(self.tr("Stop indexing the selected folder or file"))
        self.remove_button.clicked.connect(self._remove)
        path_row = WrapRow()  # (the buttons wrap in a narrow dialog)
        for button in (add_folder, add_files, self.remove_button):
            path_row.addWidget(button)
        self.figures = _label()
        self.provider_combo = QComboBox()
        self.provider_combo.setAccessibleName(self.tr("Embedding provider"))
        self.model_edit = QLineEdit()
        self.model_edit.setAccessibleName(self.tr("Embedding model"))
        self.model_edit.setPlaceholderText(self.tr("e.g. text-embedding-3-small, "
                                                   "nomic-embed-text, gemini-embedding-001"))
        self.provider_combo.activated.connect(self._embedding_changed)
        self.model_edit.editingFinished.connect(self._embedding_changed)
        self.chat_check = QCheckBox(self.tr("Search it in the open chat"))
        self.chat_check.toggled.connect(self.chatToggled)
        self.assistants_button = QPushButton(self.tr("Assistants…"))
        self.assistants_button.setToolTip(self.tr("Every chat with a checked assistant "
                                                  "searches this knowledge base"))
        self.assistants_menu = QMenu(self)
        self.assistants_button.setMenu(self.assistants_menu)
        use_row = WrapRow()
        use_row.addWidget(self.chat_check)
        use_row.addWidget(self.assistants_button)
        index_row = self._index_row()

        form = QFormLayout()
        form.addRow(self.tr("Embeddings"), self.provider_combo)
        form.addRow(self.tr("Model"), self.model_edit)
        form.addRow(self.tr("Used by"), use_row)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(QLabel(self.tr("Folders and files")))
        layout.addWidget(self.paths, 1)
        layout.addLayout(path_row)
        layout.addWidget(self.figures)
        layout.addLayout(form)
        layout.addLayout(index_row)
        layout.addWidget(self.status)

    def _index_row(self) -> QHBoxLayout:
        self.index_button = QPushButton(self.tr("Index now"))
        self.index_button.clicked.connect(self.indexRequested)
        self.progress = QProgressBar()
        self.progress.setAccessibleName(self.tr("Indexing progress"))
        self.progress.hide()
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setAccessibleName(self.tr("Cancel indexing"))
        self.cancel_button.clicked.connect(self.cancelRequested)
        self.cancel_button.hide()
        self.status = _label()
        self.status.setObjectName("emptyHint")
        row = QHBoxLayout()
        row.addWidget(self.index_button)
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        return row

    # -- showing ----------------------------------------------------------------------

    def show_base(self, base: KnowledgeBase | None, providers: list[ProviderConfig],
                  in_chat: bool) -> None:
        self.base = base
        self.providers = [p for p in providers if _embedding_kind(p.kind)]
        self.setEnabled(base is not None)
        self.title.setText(base.name if base else self.tr("No knowledge base yet"))
        self.paths.clear()
        for path in base.paths if base else ():
            self.paths.addItem(path)
        self.figures.setText(self._figures(base) if base else "")
        self.provider_combo.clear()
        self.provider_combo.addItem(self.tr("Full text only"), None)
        for provider in self.providers:
            self.provider_combo.addItem(provider.name, provider.id)
        embedding = base.embedding if base else None
        index = self.provider_combo.findData(embedding.provider_id) if embedding else 0
        self.provider_combo.setCurrentIndex(max(0, index))
        self.model_edit.setText(embedding.model if embedding else "")
        self.chat_check.blockSignals(True)
        self.chat_check.setChecked(in_chat)
        self.chat_check.blockSignals(False)

    def _figures(self, base: KnowledgeBase) -> str:
        files = self.tr("%n files", "", base.files)
        chunks = self.tr("%n passages", "", base.chunks)
        if base.indexed_at is None:
            return self.tr("{files}, {chunks}; not indexed yet").format(files=files,
                                                                      chunks=chunks)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(base.indexed_at))
        return self.tr("{files}, {chunks}; indexed {when}").format(files=files, chunks=chunks,
                                                                 when=when)

    def fill_assistants(self, assistants: list[tuple[str, str, bool]],
                        toggle: Callable[[str, bool], None]) -> None:
        """``(id, name, searches this base)`` per assistant."""
        self.assistants_menu.clear()
        if not assistants:
            self.assistants_menu.addAction(self.tr("No assistants yet")).setEnabled(False)
        for assistant_id, name, checked in assistants:
            action = self.assistants_menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(checked)
            action.toggled.connect(lambda on, i=assistant_id: toggle(i, on))

    # -- indexing ---------------------------------------------------------------------

    def indexing(self, running: bool) -> None:
        self.index_button.setEnabled(not running)
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        self.cancel_button.setEnabled(running)
        if running:
            self.progress.setRange(0, 0)
            self.status.setText(self.tr("Looking for files…"))

    def show_progress(self, done: int, total: int, path: str) -> None:
        if total == 0:  # embedding the new passages
            self.progress.setRange(0, 0)
            self.status.setText(self.tr("Computing embeddings…"))
            return
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.status.setText(self.tr("{done} of {total}: {path}").format(
            done=done, total=total, path=elide(path, 70)))

    def show_outcome(self, outcome: IndexOutcome) -> None:
        self.indexing(False)
        report = outcome.report
        if outcome.error:
            text = self.tr("Indexing failed: {error}").format(error=outcome.error)
        elif report is None:
            text = ""
        else:
            text = self.tr("{added} added, {updated} changed, {removed} removed, "
                           "{unchanged} unchanged in {seconds} s").format(
                added=report.added, updated=report.updated, removed=report.removed,
                unchanged=report.unchanged, seconds=locale_format.decimal(report.seconds, 1))
            if outcome.embedded:
                text += self.tr("; {n} passages embedded").format(n=outcome.embedded)
            if outcome.cancelled:
                text += self.tr(" (cancelled: what was done is kept)")
        if outcome.failed:
            first = "; ".join(f"{elide(p, 50)}: {why}" for p, why in
                              list(outcome.failed.items())[:3])
            text += "\n" + self.tr("%n files could not be read: ", "",
                                   len(outcome.failed)) + first
        self.status.setText(text)

    # -- user actions -----------------------------------------------------------------

    def _add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder"))
        if folder:
            self.addPaths.emit([folder])

    def _add_files(self) -> None:
        files, _filter = QFileDialog.getOpenFileNames(self, self.tr("Add files"))
        if files:
            self.addPaths.emit(files)

    def _remove(self) -> None:
        item = self.paths.currentItem()
        if item is not None:
            self.removePath.emit(item.text())

    def _embedding_changed(self) -> None:
        provider_id = self.provider_combo.currentData()
        model = self.model_edit.text().strip()
        provider = next((p for p in self.providers if p.id == provider_id), None)
        config = None
        if provider is not None and model:
            config = EmbeddingConfig(kind=_embedding_kind(provider.kind) or provider.kind,
                                     base_url=provider.base_url, model=model,
                                     provider_id=provider.id)
        if self.base is not None and config != self.base.embedding and (
                config is not None or provider is None):
            self.embeddingChosen.emit(config)
