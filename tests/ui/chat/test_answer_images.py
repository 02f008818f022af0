"""An image model picked like any model answers in the chat with its images inline,
each with Save as…, Copy and Open, from every wire API (loopback servers); the images
stay with the message (a restart, an export and an import keep them); a broken or
huge image is a placeholder that says so, and the window keeps running."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFileDialog

from desktop.app import AppContext
from desktop.core.messages import ImagePart, Message, TextPart, ToolCallPart, ToolResultPart
from desktop.core.settings import ProviderConfig
from desktop.storage.export import export_sessions
from desktop.storage.importer import import_document
from desktop.ui.chat.answer_images import AnswerImage, decode_image
from desktop.ui.chat.message_widget import MessageWidget
from desktop.ui.window.main_window import MainWindow
from tests.support.gemini_server import FakeGeminiServer, gemini_image_stream, stream_path
from tests.support.images import broken_png, huge_png, png_bytes
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse
from tests.support.responses_server import FakeResponsesServer, image_generation_response
from tests.support.sse_builders import image_stream
from tests.ui.conversation_helpers import make_window, send

RED, BLUE = png_bytes(40, 30, (200, 40, 40)), png_bytes(20, 20, (20, 40, 220))


class UrlCatcher(QObject):
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


def use_provider(ctx: AppContext, kind: str, base_url: str, model: str) -> None:
    config = ProviderConfig(name="Loopback", kind=kind, preset="custom", base_url=base_url,
                            model=model)
    ctx.settings_store.save_provider(config)
    ctx.secrets.set(config.id, "sk-loopback-key-123456")
    ctx.settings.update(active_provider_id=config.id)


def shown_images(window: MainWindow) -> list[AnswerImage]:
    return window.findChildren(AnswerImage)


def answer_images_of(ctx: AppContext) -> list[bytes]:
    (session,) = ctx.sessions.list_sessions()
    messages = ctx.sessions.load_messages(session.id)
    return [base64.b64decode(p.data) for m in messages for p in m.parts
            if isinstance(p, ImagePart)]


def test_images_api_answer_inline_with_save_copy_open(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext], *,
    tmp_path: Path, opened: list[QUrl], monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeOpenAIServer(models=["gpt-image-1"]) as server:
        ctx = open_ctx()
        use_provider(ctx, "openai", server.base_url, "gpt-image-1")
        server.enqueue_images([RED, BLUE])
        window = make_window(qtbot, ctx)
        send(qtbot, window, "a red square")
        assert server.image_requests[0].json["prompt"] == "a red square"
    qtbot.waitUntil(lambda: len(shown_images(window)) == 2)
    first, second = shown_images(window)
    block = next(w for w in window.findChildren(MessageWidget) if w.role == "assistant")
    qtbot.waitUntil(lambda: first.isVisible() and second.isVisible())
    # the chat's column measured the block with its images (not its header alone)
    assert block.height() >= block.sizeHint().height() > first.picture.pixmap().height() + 20
    assert first.problem is None and first.image is not None
    assert (first.image.width(), first.image.height()) == (40, 30)
    assert first.picture.pixmap().width() == 40  # small: shown at its own size
    assert first.save_button.text() == "Save as…"

    target = tmp_path / "saved.png"
    asked: list[str] = []

    def choose(*args: Any, **kwargs: Any) -> tuple[str, str]:
        asked.append(args[2])
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", choose)
    first.save_button.click()
    assert target.read_bytes() == RED
    assert asked[0].endswith(".png")

    second.copy_button.click()
    copied = QGuiApplication.clipboard().image()
    assert (copied.width(), copied.height()) == (20, 20)

    first.open_button.click()
    assert len(opened) == 1 and Path(opened[0].toLocalFile()).read_bytes() == RED

    # stored with the message: kept over a restart, shown again from the database
    assert answer_images_of(ctx) == [RED, BLUE]
    window.close()
    ctx.close()
    again = open_ctx()
    window = make_window(qtbot, again)
    window.controller.open_session(again.sessions.list_sessions()[0].id)
    qtbot.waitUntil(lambda: len(shown_images(window)) == 2)


@pytest.mark.parametrize("api", ["gemini", "openrouter", "responses"])
def test_every_wire_api_shows_its_images(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext], api: str,
) -> None:
    ctx = open_ctx()
    if api == "gemini":
        server: FakeOpenAIServer = FakeGeminiServer()
        model = "gemini-2.5-flash-image"
        server.enqueue(ScriptedResponse(chunks=gemini_image_stream("Here it is.", [BLUE])),
                       path=stream_path(model))
        kind = "gemini"
    elif api == "openrouter":
        server, model, kind = FakeOpenAIServer(), "google/gemini-2.5-flash-image", "openai"
        server.enqueue(ScriptedResponse(chunks=image_stream("Here it is.", [BLUE])))
    else:
        server, model, kind = FakeResponsesServer(), "gpt-5-image-mini", "openai-responses"
        server.enqueue(ScriptedResponse(chunks=image_generation_response([BLUE],
                                                                         "Here it is.")))
    with server:
        use_provider(ctx, kind, server.base_url, model)
        window = make_window(qtbot, ctx)
        send(qtbot, window, "a blue square")
    qtbot.waitUntil(lambda: len(shown_images(window)) == 1)
    (image,) = shown_images(window)
    assert image.image is not None and image.image.width() == 20
    assert image.data == BLUE
    assert answer_images_of(ctx) == [BLUE]


def test_broken_and_huge_images_are_placeholders(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    with FakeOpenAIServer() as server:
        ctx = open_ctx()
        use_provider(ctx, "openai", server.base_url, "gpt-image-1")
        server.enqueue_images([huge_png(), broken_png(), b"<html>nope</html>", RED])
        window = make_window(qtbot, ctx)
        send(qtbot, window, "four pictures")
    qtbot.waitUntil(lambda: len(shown_images(window)) == 4)
    huge, broken, html, good = shown_images(window)
    assert huge.image is None and "larger than the app allows" in str(huge.problem)
    assert broken.image is None and "broken" in str(broken.problem)
    assert html.image is None and "not a picture" in str(html.problem)
    assert huge.placeholder.text() == huge.problem and huge.placeholder.isVisible()
    assert good.image is not None and good.problem is None
    assert window.isVisible()


def test_decoding_refuses_a_huge_image_before_allocating() -> None:
    assert decode_image(huge_png(60000, 60000)) == "too_large"
    assert decode_image(huge_png(9000, 9000)) == "too_large"
    assert decode_image(broken_png()) == "bad_data"
    assert decode_image(b"") == "not_an_image"
    image = decode_image(RED)
    assert not isinstance(image, str) and image.width() == 40


def test_export_and_import_keep_the_images(
    qtbot: Any, open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    session = ctx.sessions.create_session(title="Pictures")
    question = Message.user("draw")
    ctx.sessions.save_message(session.id, question)
    answer = Message(role="assistant", model="gpt-image-1", parent_id=question.id, parts=[
        TextPart(text="Here."),
        ImagePart(data=base64.b64encode(RED).decode(), name="image-1",
                  provider_data={"generated": {"source": "images_api"}})])
    ctx.sessions.save_message(session.id, answer)
    exported = export_sessions(ctx.sessions, fmt="json")
    markdown = export_sessions(ctx.sessions, fmt="markdown")
    assert "[Image: image-1 (image/png)]" in markdown
    other = AppContext.open(tmp_path / "other", environ={}, log_to_stderr=False)
    try:
        import json

        import_document(other.sessions, json.loads(exported))
        assert answer_images_of(other) == [RED]
        (copy,) = [m for s in other.sessions.list_sessions()
                   for m in other.sessions.load_messages(s.id) if m.role == "assistant"]
        assert copy.parts[1].provider_data == {"generated": {"source": "images_api"}}
    finally:
        other.close()


def test_the_picker_marks_image_models(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    with FakeOpenAIServer() as server:
        ctx = open_ctx()
        use_provider(ctx, "openai", server.base_url, "gpt-4o")
        config = ctx.providers.all()[0]
        ctx.settings_store.set_value(f"models:{config.id}", [
            {"id": i} for i in ("gpt-4o", "gpt-image-1", "dall-e-3")])
        window = make_window(qtbot, ctx)
        bar = window.top_bar
        bar.model_button.click()
        picker = bar.picker
        qtbot.keyClicks(picker.search, "makes images")
        assert sorted(picker.visible_models()) == ["dall-e-3", "gpt-image-1"]
        row = picker.list.item(picker.first_model_row())
        assert "makes images" in row.data(Qt.ItemDataRole.UserRole).badges()
        picker.hide()


def test_an_mcp_tools_image_shows_with_the_answer(qtbot: Any) -> None:
    call = ToolCallPart(id="call_1", name="screenshot", arguments="{}")
    answer = Message(role="assistant", parts=[TextPart(text="Taking one."), call])
    widget = MessageWidget(answer)
    qtbot.addWidget(widget)
    assert widget.findChildren(AnswerImage) == []
    result = ToolResultPart(tool_call_id="call_1", name="screenshot", content="[image]",
                            provider_data={"images": [
                                {"mime_type": "image/png", "data": base64.b64encode(RED).decode()},
                                {"mime_type": "image/png", "data": "%%%"}]})
    widget.add_tool_result(result)
    good, bad = widget.findChildren(AnswerImage)
    assert good.data == RED and good.image is not None
    assert good.open_button.text() == "Open"
    assert bad.image is None and bad.problem


def test_a_wide_image_fits_a_narrow_column(qtbot: Any) -> None:
    wide = png_bytes(1000, 500)
    answer = Message(role="assistant", parts=[ImagePart(
        data=base64.b64encode(wide).decode(), provider_data={"generated": {"source": "gemini"}})])
    widget = MessageWidget(answer)
    qtbot.addWidget(widget)
    widget.resize(360, widget.heightForWidth(360))
    widget.show()
    (image,) = widget.findChildren(AnswerImage)
    qtbot.waitUntil(lambda: image.picture.width() > 0)
    assert image.picture.width() <= 360 - 32  # inside the card's margins
    assert image.picture.pixmap().width() <= image.picture.width()
    assert image.picture.heightForWidth(300) == 150  # the aspect ratio is kept
    assert image.picture.heightForWidth(2000) == 256  # never above 512 wide
    assert widget.heightForWidth(360) < widget.heightForWidth(900)  # it shrinks to fit
