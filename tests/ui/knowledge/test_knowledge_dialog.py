"""The Knowledge dialog in the real window: create, add a folder, index in the
background with progress (the event loop keeps turning), cancel, embeddings from a
configured provider (its stored key), rename, attach to the chat, delete."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QObject, QThread, QTimer, Slot
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from desktop.app import AppContext
from desktop.chat.service import ChatService
from desktop.core.settings import ProviderConfig
from desktop.knowledge.search import search
from desktop.knowledge.store import KnowledgeStore
from desktop.ui.knowledge.index_job import IndexOutcome
from desktop.ui.knowledge.knowledge_dialog import ChatKnowledge, KnowledgeDialog
from desktop.ui.window.app_services import AppServices
from tests.knowledge.embedding_server import EmbeddingServer


def _folder(root: Path, files: int) -> Path:
    docs = root / "docs"
    for n in range(files):
        folder = docs / f"part{n % 9}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{n}.md").write_text(f"# Note {n}\n\nMinutes of meeting {n}.\n")
    (docs / "deep").mkdir()
    (docs / "deep" / "vault.md").write_text("The vault combination is 31-7-44.\n")
    (docs / "deep" / "broken.pdf").write_bytes(b"not a pdf at all")
    return docs


def _dialog(qtbot: Any, ctx: AppContext) -> KnowledgeDialog:
    """The dialog on the narrow services it uses (no window, no controller); the chat
    on screen is a new one."""
    services, chats = AppServices(ctx), ChatService(ctx).chats
    chat = chats.new_chat()
    dialog = KnowledgeDialog(services.knowledge, services.knowledge_apart, services.providers,
                             services.assistants, ChatKnowledge(chats, lambda: chat))
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


class ProgressRecorder(QObject):
    def __init__(self, into: list[tuple[int, int]]) -> None:
        super().__init__()
        self.into = into

    @Slot(int, int, str)
    def record(self, done: int, total: int, _path: str) -> None:
        assert QThread.currentThread() is QApplication.instance().thread()
        self.into.append((done, total))


def _finished(qtbot: Any, dialog: KnowledgeDialog) -> IndexOutcome:
    """The outcome of the dialog's job once the window has it (the job's signals come
    from its thread and reach the dialog through the event loop)."""
    qtbot.waitUntil(lambda: dialog.job is None, timeout=60000)
    assert dialog.last_outcome is not None
    return dialog.last_outcome


def _new(dialog: KnowledgeDialog, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: (name, True))
    dialog.create_base()


def test_index_in_background_with_progress_and_search(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = open_ctx()
    docs = _folder(tmp_path, 400)
    dialog = _dialog(qtbot, ctx)
    _new(dialog, monkeypatch, "Notes")
    assert dialog.bases.currentItem().text() == "Notes"
    progress: list[tuple[int, int]] = []  # as the window receives it
    ticks: list[int] = []  # the window's own timer keeps firing while indexing runs
    timer = QTimer(dialog)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    dialog.add_paths([str(docs)])
    assert dialog.job is not None
    recorder = ProgressRecorder(progress)
    dialog.job.progress.connect(recorder.record)
    assert dialog.detail.progress.isVisible() and dialog.detail.cancel_button.isVisible()
    outcome = _finished(qtbot, dialog)
    timer.stop()
    assert outcome.report is not None and outcome.report.added == 402
    assert list(outcome.failed) == [str((docs / "deep" / "broken.pdf").resolve())]
    assert progress and progress[-1] == (402, 402)
    assert ticks  # the event loop was not blocked
    assert not dialog.detail.progress.isVisible()
    assert "402 added" in dialog.detail.status.text()
    assert "broken.pdf" in dialog.detail.status.text()
    assert "402 files" in dialog.detail.figures.text()
    store = KnowledgeStore(ctx.db)
    hits = search(store, store.get("Notes"), "vault combination", 3)
    assert hits[0].path.endswith("deep/vault.md")


def test_cancel_keeps_what_was_done(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = open_ctx()
    docs = _folder(tmp_path, 3000)
    dialog = _dialog(qtbot, ctx)
    _new(dialog, monkeypatch, "Big")
    dialog.add_paths([str(docs)])
    qtbot.waitUntil(lambda: dialog.detail.progress.value() > 0, timeout=60000)
    dialog.cancel_indexing()
    outcome = _finished(qtbot, dialog)
    assert outcome.cancelled and outcome.report is not None
    assert 0 < outcome.report.added < 3002
    assert "cancelled" in dialog.detail.status.text()
    assert KnowledgeStore(ctx.db).get("Big").files == outcome.report.added


def test_embeddings_rename_chat_and_delete(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = open_ctx()
    docs = _folder(tmp_path, 5)
    with EmbeddingServer() as server:
        config = ProviderConfig(name="Local embeddings", base_url=server.base_url,
                                model="gpt-test")
        ctx.settings_store.save_provider(config)
        ctx.secrets.set(config.id, "sk-embed-key-0123456789")
        dialog = _dialog(qtbot, ctx)
        _new(dialog, monkeypatch, "Docs")
        detail = dialog.detail
        detail.provider_combo.setCurrentIndex(detail.provider_combo.findData(config.id))
        detail.model_edit.setText("embed-test")
        detail.model_edit.editingFinished.emit()
        dialog.add_paths([str(docs)])
        assert dialog.job is not None
        _finished(qtbot, dialog)  # (the model's job may already have taken the folder)
        embedded = ctx.db.query("SELECT COUNT(*) FROM knowledge_chunks WHERE embedding IS "
                                "NOT NULL")[0][0]
        assert embedded == 6  # every passage (the broken PDF has none)
        assert server.requests[0]["model"] == "embed-test"
        assert server.headers[0]["authorization"] == "Bearer sk-embed-key-0123456789"
    base = KnowledgeStore(ctx.db).get("Docs")
    assert base.embedding is not None and base.embedding.provider_id == config.id
    detail.chat_check.setChecked(True)
    on_screen = dialog.chat_knowledge
    assert on_screen.chats.knowledge(on_screen.chat()) == ["Docs"]
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Handbook", True))
    dialog.rename_base()
    assert on_screen.chats.knowledge(on_screen.chat()) == ["Handbook"]
    assert dialog.bases.currentItem().text() == "Handbook"
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Yes)
    dialog.delete_base()
    assert dialog.bases.count() == 0 and KnowledgeStore(ctx.db).list() == []
    assert not detail.isEnabled()


def test_duplicate_name_and_missing_folder_are_refused(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    ctx = open_ctx()
    dialog = _dialog(qtbot, ctx)
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text: warnings.append(text))
    _new(dialog, monkeypatch, "One")
    _new(dialog, monkeypatch, "one")
    dialog.add_paths([str(tmp_path / "nowhere")])
    assert warnings[0] == "There is already a knowledge base named one."
    assert "No such file or folder: " in warnings[1]
    assert dialog.bases.count() == 1 and dialog.job is None


def test_an_assistant_searches_a_base(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop.chat.profile import NewChat
    from desktop.knowledge.chat_link import chat_knowledge

    ctx = open_ctx()
    helper = ctx.assistants.create("Researcher", "You research.")
    dialog = _dialog(qtbot, ctx)
    _new(dialog, monkeypatch, "Papers")
    actions = [a for a in dialog.detail.assistants_menu.actions() if a.text() == "Researcher"]
    assert len(actions) == 1 and not actions[0].isChecked()
    actions[0].setChecked(True)
    assert ctx.assistants.get(helper.id).extra["knowledge"] == ["Papers"]
    chat = NewChat(assistant_id=helper.id)
    assert chat_knowledge(dialog.chat_knowledge.chats.profiles, chat) == ["Papers"]
    actions[0].setChecked(False)
    assert "knowledge" not in ctx.assistants.get(helper.id).extra


def test_a_close_button_closes_the_dialog(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    from PySide6.QtWidgets import QDialogButtonBox, QPushButton

    dialog = _dialog(qtbot, open_ctx())
    box = dialog.findChild(QDialogButtonBox)
    assert isinstance(box, QDialogButtonBox)
    close = box.button(QDialogButtonBox.StandardButton.Close)
    assert isinstance(close, QPushButton) and close.isVisible() and close.text() == "Close"
    # at the bottom, under the list and the detail
    assert close.mapTo(dialog, close.rect().topLeft()).y() > dialog.bases.geometry().bottom()
    with qtbot.waitSignal(dialog.rejected):
        close.click()
    assert not dialog.isVisible()
