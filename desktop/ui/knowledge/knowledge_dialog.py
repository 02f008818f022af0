"""The Knowledge dialog: create, rename and delete knowledge bases, add folders and
files, index them in the background (progress bar, Cancel; the window stays
responsive), choose an embedding model from a configured provider, and say who
searches a base (the open chat, assistants).

Adding paths or choosing another embedding model starts indexing at once; a base is
indexed again (only what changed) with "Index now".
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QInputDialog,
    QListWidget,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.knowledge.chat_link import (
    KNOWLEDGE_KEY,
    set_assistant_knowledge,
)
from desktop.knowledge.store import EmbeddingConfig, KnowledgeBase, KnowledgeStore
from desktop.ui.error_text import exception_text
from desktop.ui.knowledge.index_job import IndexJob, IndexOutcome
from desktop.ui.knowledge.knowledge_detail import KnowledgeDetail
from desktop.ui.scrolling import narrow_side, scrolling
from desktop.ui.wrap_row import WrapRow

if TYPE_CHECKING:
    from desktop.chat.chat_settings import ChatSettings
    from desktop.chat.profile import ChatRef
    from desktop.chat.provider_service import ProviderService
    from desktop.core.services import AssistantSource
    from desktop.ui.window.dialog_registry import DialogServices


class ChatKnowledge:
    """The knowledge bases the chat on screen searches itself (``chat``: the chat on
    screen as it is now; another may be shown while the dialog is open)."""

    def __init__(self, chats: ChatSettings, chat: Callable[[], ChatRef]) -> None:
        self.chats, self.chat = chats, chat

    def names(self) -> list[str]:
        return self.chats.knowledge(self.chat())

    def set_names(self, names: list[str]) -> None:
        self.chats.set_knowledge(self.chat(), names)


class KnowledgeDialog(QDialog):
    """``store``: the bases (on the window's connection); ``store_apart``: them on a
    connection of their own (indexing runs on a thread); ``providers``: the embedding
    models to choose from; ``assistants`` and ``chat``: who searches a base."""

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> KnowledgeDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        app = services.app
        return cls(app.knowledge, app.knowledge_apart, app.providers, app.assistants,
                   ChatKnowledge(services.chats, services.chat_on_screen), parent)

    def __init__(self, store: KnowledgeStore,  # noqa: PLR0917
                 store_apart: Callable[[], AbstractContextManager[KnowledgeStore]],
                 providers: ProviderService, assistants: AssistantSource,
                 chat: ChatKnowledge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store, self.store_apart = store, store_apart
        self.providers, self.assistants, self.chat_knowledge = providers, assistants, chat
        self.job: IndexJob | None = None
        self.last_outcome: IndexOutcome | None = None
        self._again = False  # asked to index while indexing: once more after it
        self.setWindowTitle(self.tr("Knowledge"))
        self.resize(820, 520)
        self.bases = QListWidget()
        self.bases.setAccessibleName(self.tr("Knowledge bases"))
        self.bases.currentTextChanged.connect(lambda _name: self._show_current())
        new = QPushButton(self.tr("New…"))
        new.clicked.connect(self.create_base)
        self.rename_button = QPushButton(self.tr("Rename…"))
        self.rename_button.clicked.connect(self.rename_base)
        self.delete_button = QPushButton(self.tr("Delete"))
        self.delete_button.clicked.connect(self.delete_base)
        # The list side takes at most 30 % of a narrow dialog; its buttons wrap there.
        self.list_side = QWidget()
        left = QVBoxLayout(self.list_side)
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(self.bases, 1)
        buttons = WrapRow()
        for button in (new, self.rename_button, self.delete_button):
            buttons.addWidget(button)
        left.addLayout(buttons)
        self.detail = KnowledgeDetail()
        self.detail.addPaths.connect(self.add_paths)
        self.detail.removePath.connect(self._remove_path)
        self.detail.embeddingChosen.connect(self._set_embedding)
        self.detail.indexRequested.connect(self.index_current)
        self.detail.cancelRequested.connect(self.cancel_indexing)
        self.detail.chatToggled.connect(self._toggle_chat)
        body = QHBoxLayout()
        body.addWidget(self.list_side, 1)
        body.addWidget(scrolling(self.detail), 2)  # a small screen scrolls it
        narrow_side(self.list_side, self, widest=320)
        # The standard Close at the bottom right (Esc and the title bar did it alone)
        self.button_box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.button_box.rejected.connect(self.reject)
        self.close_button = self.button_box.button(QDialogButtonBox.StandardButton.Close)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.button_box)
        self.reload()

    # -- the list ---------------------------------------------------------------------

    def current(self) -> KnowledgeBase | None:
        item = self.bases.currentItem()
        return self.store.find(item.text()) if item is not None else None

    def reload(self, select: str | None = None) -> None:
        wanted = select or (self.bases.currentItem().text()
                            if self.bases.currentItem() is not None else None)
        self.bases.blockSignals(True)
        self.bases.clear()
        names = [base.name for base in self.store.list()]
        self.bases.addItems(names)
        self.bases.blockSignals(False)
        if names:
            self.bases.setCurrentRow(names.index(wanted) if wanted in names else 0)
        self._show_current()

    def _show_current(self) -> None:
        base = self.current()
        in_chat = base is not None and base.name in self.chat_knowledge.names()
        self.detail.show_base(base, self.providers.all(), in_chat)
        self.rename_button.setEnabled(base is not None)
        self.delete_button.setEnabled(base is not None)
        if base is not None:
            assistants = [(a.id, a.name, base.name in (a.extra.get(KNOWLEDGE_KEY) or []))
                          for a in self.assistants.list_assistants()]
            self.detail.fill_assistants(assistants, self._toggle_assistant)
        self.detail.indexing(self.job is not None and self.job.running)

    def _fail(self, exc: AssistaError) -> None:
        QMessageBox.warning(self, self.tr("Knowledge"), exception_text(exc))

    def create_base(self) -> None:
        name, ok = QInputDialog.getText(self, self.tr("New knowledge base"), self.tr("Name:"))
        if not ok or not name.strip():
            return
        if self.store.find(name) is not None:
            self._fail(AssistaError(self.tr("There is already a knowledge base named {name}.")
                                    .format(name=name.strip())))
            return
        try:
            self.store.add(name, [])
        except AssistaError as exc:
            self._fail(exc)
            return
        self.reload(select=name.strip())

    def rename_base(self) -> None:
        base = self.current()
        if base is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Rename knowledge base"),
                                        self.tr("Name:"), text=base.name)
        if not ok or name.strip() == base.name:
            return
        try:
            renamed = self.store.rename(base.name, name)
        except AssistaError as exc:
            self._fail(exc)
            return
        self._rename_links(base.name, renamed.name)
        self.reload(select=renamed.name)

    def _rename_links(self, old: str, new: str) -> None:
        """The open chat and the assistants keep searching the renamed base."""
        mine = self.chat_knowledge.names()
        if old in mine:
            self.chat_knowledge.set_names([new if n == old else n for n in mine])
        for assistant in self.assistants.list_assistants():
            names = assistant.extra.get(KNOWLEDGE_KEY) or []
            if old in names:
                set_assistant_knowledge(self.assistants, assistant.id,
                                        [new if n == old else n for n in names])

    def delete_base(self) -> None:
        base = self.current()
        if base is None:
            return
        answer = QMessageBox.question(
            self, self.tr("Delete knowledge base"),
            self.tr("Delete {name} and its index? Your files are not touched.").format(
                name=base.name))
        if answer != QMessageBox.StandardButton.Yes:
            return
        if self.job is not None and self.job.base_name == base.name:
            self.cancel_indexing()
        self.store.remove(base.name)
        self.reload()

    # -- one base ---------------------------------------------------------------------

    def add_paths(self, paths: list[str]) -> None:
        base = self.current()
        if base is None:
            return
        try:
            self.store.add(base.name, [Path(p) for p in paths])
        except AssistaError as exc:
            self._fail(exc)
            return
        self.reload()
        self.index_current()

    def _remove_path(self, path: str) -> None:
        base = self.current()
        if base is not None:
            self.store.remove_path(base.name, path)
            self.reload()

    def _set_embedding(self, config: EmbeddingConfig | None) -> None:
        base = self.current()
        if base is not None:
            self.store.set_embedding(base.name, config)
            self.reload()
            if config is not None:
                self.index_current()

    def _toggle_chat(self, on: bool) -> None:
        base = self.current()
        if base is None:
            return
        names = [n for n in self.chat_knowledge.names() if n != base.name]
        self.chat_knowledge.set_names([*names, base.name] if on else names)

    def _toggle_assistant(self, assistant_id: str, on: bool) -> None:
        base = self.current()
        assistant = self.assistants.get(assistant_id)
        if base is None or assistant is None:
            return
        names = [n for n in assistant.extra.get(KNOWLEDGE_KEY) or [] if n != base.name]
        set_assistant_knowledge(self.assistants, assistant_id,
                                [*names, base.name] if on else names)

    # -- indexing ---------------------------------------------------------------------

    def index_current(self) -> None:
        base = self.current()
        if base is None:
            return
        if self.job is not None:
            self._again = True  # paths or the model changed meanwhile
            return
        job = IndexJob(self.store_apart, base.name)
        job.progress.connect(self.detail.show_progress)
        job.finished.connect(self._indexed)
        self.job = job
        self.detail.indexing(True)
        job.start()

    def cancel_indexing(self) -> None:
        self._again = False
        if self.job is not None:
            self.job.cancel()
            self.detail.cancel_button.setEnabled(False)

    def _indexed(self, outcome: IndexOutcome) -> None:
        self.job, self.last_outcome = None, outcome
        self.reload()
        self.detail.show_outcome(outcome)
        if self._again and not outcome.cancelled:
            self._again = False
            self.index_current()

    def done(self, result: int) -> None:
        self.cancel_indexing()  # what was indexed stays; the rest next time
        super().done(result)
