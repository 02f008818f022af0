"""Documents dropped anywhere on the window (here: the top bar and the chat list)
attach through the documents layer; a damaged PDF and an empty file say why."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

from desktop.app import AppContext
from desktop.core.messages import TextPart
from tests.support.documents import write_docx, write_pdf
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send


def _drop(window: QWidget, over: QWidget, paths: list[Path]) -> bool:
    """A drag entering the window over ``over``, then the drop; whether it was taken."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    where = over.mapTo(window, QPoint(over.width() // 2, over.height() // 2))
    enter = QDragEnterEvent(where, Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(QPointF(where), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    return True


def test_documents_dropped_on_the_window_reach_the_model(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    pdf = write_pdf(tmp_path / "report.pdf", ["Quarterly figures", "Revenue rose 12%."])
    docx = write_docx(tmp_path / "memo.docx", "Memo", ["Parking moves to level -2."])
    assert _drop(window, window.top_bar, [pdf])
    assert _drop(window, window.sessions, [docx])
    parts = [chip.part for chip in window.composer.chips]
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    assert any("Revenue rose 12%." in t for t in texts)
    assert any("Parking moves to level -2." in t for t in texts)
    fake_server.enqueue_text("Noted.")
    send(qtbot, window, "summarize both")
    sent = str(fake_server.last_chat_body["messages"][-1]["content"])
    assert "Revenue rose 12%." in sent and "Parking moves to level -2." in sent


def test_bad_files_dropped_on_the_window_say_why(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    window = make_window(qtbot, open_ctx())
    fake = tmp_path / "scan.pdf"
    fake.write_bytes(b"\x00\x01binary, not a PDF")
    empty = tmp_path / "empty.docx"
    empty.write_bytes(b"")
    assert _drop(window, window.top_bar, [fake])
    assert "scan.pdf" in window.chat_pane.error_banner.text()
    assert _drop(window, window.top_bar, [empty])
    assert "empty.docx" in window.chat_pane.error_banner.text()
    assert window.composer.chips == []
    text_only = QMimeData()
    text_only.setText("words")
    enter = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, text_only,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert not enter.isAccepted()  # plain text is not a file to attach
