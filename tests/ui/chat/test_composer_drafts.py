"""The composer: a draft per chat across switches and a restart, Up edits the last
message, it grows with its text, pasted files and images become attachments."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtGui import QColor, QImage

from desktop.app import AppContext
from desktop.core.messages import ImagePart, TextPart
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider, make_window, send


def test_each_chat_keeps_its_draft_across_switches_and_a_restart(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    controller, box = window.controller, window.composer.input
    fake_server.enqueue_text("A")
    send(qtbot, window, "first chat")
    chat_a = controller.session_id
    assert box.toPlainText() == ""  # the sent text is no draft
    qtbot.keyClicks(box, "draft for A")
    controller.new_session()
    assert box.toPlainText() == ""
    qtbot.keyClicks(box, "draft for a new chat")
    assert chat_a is not None
    controller.open_session(chat_a)
    assert box.toPlainText() == "draft for A"
    controller.new_session()
    assert box.toPlainText() == "draft for a new chat"
    window.close()  # (hiding the pane saves what is typed)
    ctx.close()

    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    assert window.composer.input.toPlainText() == "draft for a new chat"
    window.controller.open_session(chat_a)
    assert window.composer.input.toPlainText() == "draft for A"


def test_up_in_an_empty_composer_edits_the_last_message_and_cancel_gives_the_draft_back(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    fake_server.enqueue_text("One")
    send(qtbot, window, "first question")
    fake_server.enqueue_text("Two")
    send(qtbot, window, "second question")
    box, pane = window.composer.input, window.chat_pane
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Up)
    last_user = window.controller.history[-2]
    assert box.toPlainText() == "second question"
    assert pane.edit_banner.message_id == last_user.id
    edited = window.chat.widget_for(last_user.id)
    assert edited is not None and edited.editing  # highlighted
    qtbot.keyClick(box, Qt.Key.Key_Up)  # not empty: Up moves the cursor, nothing else
    assert pane.edit_banner.message_id == last_user.id
    pane.edit_banner.cancel()
    assert box.toPlainText() == "" and not edited.editing

    qtbot.keyClicks(box, "half typed")
    pane.start_edit(last_user.id, last_user.body_text)  # the Edit button
    assert box.toPlainText() == "second question"
    pane.edit_banner.cancel()
    assert box.toPlainText() == "half typed"


def test_the_composer_grows_with_its_text_up_to_a_share_of_the_window(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.resize(1000, 800)
    box = window.composer.input
    qtbot.waitUntil(lambda: window.chat_pane.composer.max_input_height > 200)
    empty = box.height()
    box.setPlainText("\n".join(f"line {i}" for i in range(6)))
    grown = box.height()
    assert grown > empty
    box.setPlainText("\n".join(f"line {i}" for i in range(200)))
    assert grown < box.height() <= 0.4 * window.height()
    box.clear()
    assert box.height() == empty


def test_pasting_files_and_images_attaches_them(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    notes = tmp_path / "notes.txt"
    notes.write_text("remember the milk")
    files = QMimeData()
    files.setUrls([QUrl.fromLocalFile(str(notes))])
    box = window.composer.input
    assert box.canInsertFromMimeData(files)
    box.insertFromMimeData(files)
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    picture = QMimeData()
    picture.setImageData(image)
    box.insertFromMimeData(picture)
    parts = [chip.part for chip in window.composer.chips]
    assert isinstance(parts[0], TextPart) and "remember the milk" in parts[0].text
    assert isinstance(parts[1], ImagePart) and parts[1].media_type == "image/png"
    assert box.toPlainText() == ""  # nothing pasted as text
    plain = QMimeData()
    plain.setText("just words")
    box.insertFromMimeData(plain)
    assert box.toPlainText() == "just words"
