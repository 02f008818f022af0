"""Attaching files: the dialog shows every supported kind at first; a sent file is a
card (kind, name, type, size, pages) that opens the file and folds out its extracted
text, while the model receives the same text as before; export and import keep it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QDir, QLocale, QObject, Qt, QUrl, Slot
from PySide6.QtGui import QColor, QDesktopServices, QImage
from PySide6.QtWidgets import QFileDialog, QLabel

from desktop.app import AppContext
from desktop.core.attachments import attachment_info, load_attachment, text_attachment_block
from desktop.core.messages import TextPart
from desktop.storage.export import export_sessions
from desktop.storage.importer import import_document
from desktop.ui.chat.attach_filters import attach_filters
from desktop.ui.chat.attachment_cards import AttachmentCard
from desktop.ui.chat.image_strip import Thumbnail
from tests.support.documents import write_docx, write_pdf, write_pptx, write_xlsx
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send


class UrlCatcher(QObject):
    """Takes the file URLs QDesktopServices is asked to open (Qt's own hook)."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url)


@pytest.fixture
def opened() -> Iterator[list[QUrl]]:
    catcher = UrlCatcher()
    QDesktopServices.setUrlHandler("file", catcher, "open")
    yield catcher.opened
    QDesktopServices.unsetUrlHandler("file")


def _matches(name_filter: str, file_name: str) -> bool:
    patterns = name_filter[name_filter.rindex("(") + 1:-1].split()
    return QDir.match(patterns, file_name)


def test_the_attach_dialog_shows_every_supported_kind_first(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    filters = attach_filters()
    default = filters[0]
    for name in ("report.pdf", "memo.docx", "sales.xlsx", "deck.pptx", "book.epub",
                 "page.html", "data.csv", "notes.md", "main.py", "shot.png", "photo.jpeg"):
        assert _matches(default, name), f"{name} is hidden by {default!r}"
    assert not _matches(default, "setup.exe")
    assert any(_matches(f, "report.pdf") and not _matches(f, "memo.docx") for f in filters)
    assert any(_matches(f, "deck.pptx") and not _matches(f, "report.pdf") for f in filters)
    assert filters[-1].endswith("(*)")

    window = make_window(qtbot, open_ctx())
    dialog = window.chat_pane.attach_files()
    try:
        assert dialog.nameFilters() == filters
        assert dialog.selectedNameFilter() == default
        assert dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
        pdf = write_pdf(tmp_path / "report.pdf", ["Revenue rose 12%."])
        dialog.filesSelected.emit([str(pdf)])
    finally:
        dialog.close()
    assert [chip.part.provider_data.get("attachment") for chip in window.composer.chips] \
        == ["report.pdf"]


def test_attached_documents_keep_what_their_card_shows(tmp_path: Path) -> None:
    pdf = write_pdf(tmp_path / "report.pdf", ["Quarterly figures", "Revenue rose 12%.", ""])
    part = load_attachment(pdf)
    assert isinstance(part, TextPart)
    info = attachment_info(part)
    assert info is not None
    assert (info.name, info.kind, info.mime) == ("report.pdf", "pdf", "application/pdf")
    assert info.size == pdf.stat().st_size and info.pages == 3
    assert info.path == str(pdf.resolve())
    assert "Revenue rose 12%." in info.text and "Attached file" not in info.text
    # the model's text is as it was: the fenced block with the file's name
    assert part.text == text_attachment_block("report.pdf", info.text)
    deck = write_pptx(tmp_path / "deck.pptx", [("One", "a"), ("Two", "b")])
    deck_info = attachment_info(load_attachment(deck))
    assert deck_info is not None and (deck_info.kind, deck_info.pages) == ("pptx", 2)
    sheet = write_xlsx(tmp_path / "s.xlsx", {"Sales": [["a", 1]]})
    sheet_info = attachment_info(load_attachment(sheet))
    assert sheet_info is not None and sheet_info.pages == 1
    # a message stored before these were kept still shows a card
    old = TextPart(text=text_attachment_block("notes.txt", "hello"),
                   provider_data={"attachment": "notes.txt"})
    old_info = attachment_info(old)
    assert old_info is not None and old_info.text == "hello" and old_info.size is None


def test_a_sent_pdf_is_a_card_that_opens_and_folds_out_its_text(  # noqa: PLR0917
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path, opened: list[QUrl],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    pdf = write_pdf(tmp_path / "report.pdf", ["Quarterly figures", "Revenue rose 12%."])
    memo = write_docx(tmp_path / "memo.docx", "Memo", ["Parking moves to level -2."])
    assert window.chat_pane.add_attachment(pdf) and window.chat_pane.add_attachment(memo)
    fake_server.enqueue_text("Noted.")
    send(qtbot, window, "summarize both")
    sent = str(fake_server.last_chat_body["messages"][-1]["content"])
    assert "Attached file `report.pdf`" in sent and "Revenue rose 12%." in sent

    widget = window.chat.widget_for(window.controller.history[0].id)
    assert widget is not None
    assert "Revenue rose 12%." not in widget.body.toPlainText()  # no wall of text
    assert widget.body.toPlainText().strip() == "summarize both"
    cards = widget.findChildren(AttachmentCard)
    assert [c.name_label.text() for c in cards] == ["report.pdf", "memo.docx"]
    details = cards[0].details_label.text()
    assert details.startswith("PDF · ") and " · 2 page" in details  # ("2 pages" in English)
    assert cards[1].details_label.text().startswith("DOCX · ")
    assert cards[0].text_view is None  # the text is folded away
    before = widget.height()
    toggle = cards[0].text_toggle
    assert toggle is not None and toggle.text() == "Show extracted text"
    qtbot.mouseClick(toggle, Qt.MouseButton.LeftButton)
    assert cards[0].text_view is not None
    assert "Revenue rose 12%." in cards[0].text_view.toPlainText()
    assert toggle.text() == "Hide extracted text"
    qtbot.waitUntil(lambda: widget.height() > before)

    qtbot.mouseClick(cards[0], Qt.MouseButton.LeftButton)
    assert [u.toLocalFile() for u in opened] == [str(pdf.resolve())]
    # the file moved away: the PDF the message kept opens instead
    pdf.unlink()
    assert cards[0].open_file()
    copy = Path(opened[-1].toLocalFile())
    assert copy != pdf.resolve() and copy.read_bytes()[:5] == b"%PDF-"
    # a DOCX gone is said plainly (the chat keeps only its text)
    memo.unlink()
    assert not cards[1].open_file()
    assert "memo.docx" in cards[1].problem.text() and cards[1].problem.isVisibleTo(cards[1])


def test_attachment_cards_survive_export_and_import(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    pdf = write_pdf(tmp_path / "report.pdf", ["Revenue rose 12%."])
    assert window.chat_pane.add_attachment(pdf)
    fake_server.enqueue_text("Noted.")
    send(qtbot, window, "read this")
    session_id = window.controller.session_id or ""
    exported = export_sessions(ctx.sessions, [session_id], "json")
    assert "Revenue rose 12%." in export_sessions(ctx.sessions, [session_id], "markdown")
    window.close()
    ctx.close()

    other = AppContext.open(tmp_path / "other", environ={}, log_to_stderr=False)
    try:
        report = import_document(other.sessions, json.loads(exported))
        assert len(report.imported) == 1
        first = other.sessions.load_messages(report.imported[0])[0]
        assert first.body_text == "read this"
        info = attachment_info(first.parts[1])
        assert info is not None
        assert (info.kind, info.pages, info.path) == ("pdf", 1, str(pdf.resolve()))
        assert "Revenue rose 12%." in info.text
        assert info.size == pdf.stat().st_size
    finally:
        other.close()


def test_a_search_hit_in_a_files_text_unfolds_it_with_the_words_marked(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    pdf = write_pdf(tmp_path / "report.pdf", ["Quarterly figures", "Revenue rose 12%."])
    assert window.chat_pane.add_attachment(pdf)
    fake_server.enqueue_text("Noted.")
    send(qtbot, window, "read this")
    chat_id = window.controller.session_id
    window.controller.new_session()
    window.conversations.search_action.trigger()
    dialog = window.conversations.search
    assert dialog is not None
    with qtbot.waitSignal(dialog.searchFinished, timeout=5000):
        dialog.query.setText("revenue")
    [hit] = dialog.hits()
    assert "Revenue rose 12%." in hit.snippet and "```" not in hit.snippet
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    assert window.controller.session_id == chat_id
    widget = window.chat.widget_for(hit.message_id or "")
    assert widget is not None
    [card] = widget.findChildren(AttachmentCard)
    qtbot.waitUntil(lambda: card.text_view is not None and card.text_view.isVisibleTo(card))
    assert card.text_view is not None
    marks = card.text_view.extraSelections()
    assert [m.cursor.selectedText() for m in marks] == ["Revenue"]
    assert card.text_toggle is not None and card.text_toggle.text() == "Hide extracted text"


def test_a_sent_image_says_its_name_and_size_and_opens(  # noqa: PLR0917
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path, opened: list[QUrl],
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    ctx.settings_store.save_provider(config.model_copy(update={"model": "gpt-4o"}))
    window = make_window(qtbot, ctx)
    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(QColor("teal"))
    path = tmp_path / "chart.png"
    assert image.save(str(path))
    assert window.chat_pane.add_attachment(path)
    fake_server.enqueue_text("A teal box.")
    send(qtbot, window, "what is this?")
    widget = window.chat.widget_for(window.controller.history[0].id)
    assert widget is not None
    [thumbnail] = widget.findChildren(Thumbnail)
    captions = [label.text() for label in widget.findChildren(QLabel)
                if label.objectName() == "attachmentDetails"]
    assert captions == [f"chart.png · PNG · {QLocale().formattedDataSize(path.stat().st_size)}"]
    qtbot.mouseClick(thumbnail, Qt.MouseButton.LeftButton)
    assert [u.toLocalFile() for u in opened] == [str(path.resolve())]
