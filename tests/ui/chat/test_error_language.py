"""A provider's failure is shown in the interface language, worded by its code: the
window in Chinese says a refused key, a rate limit, a server error and a dropped stream
in Chinese (the server's own words appended as they came), also after the chat is
reopened; an answer stored before errors had codes still shows its English text."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.core.error_codes import ERROR_KEY, stored_error
from desktop.core.messages import Message
from desktop.ui import i18n
from desktop.ui.chat.message_texts import status_text
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse
from tests.support.sse_builders import text_stream
from tests.ui.conversation_helpers import add_provider, make_window, send

RETRIES = 4  # the provider's default: a retried status is answered five times


def refused_key(server: FakeOpenAIServer) -> None:
    server.enqueue_error(401, "Incorrect API key provided", code="invalid_api_key")


def rate_limited(server: FakeOpenAIServer) -> None:
    for _ in range(RETRIES + 1):
        server.enqueue_error(429, "slow down", headers={"Retry-After": "0"})


def server_error(server: FakeOpenAIServer) -> None:
    for _ in range(RETRIES + 1):
        server.enqueue_error(500, "boom", type="server_error", headers={"Retry-After": "0"})


def dropped(server: FakeOpenAIServer) -> None:
    server.enqueue(ScriptedResponse(chunks=text_stream("Half an answer", done=False)[:3],
                                    cut=True))


Case = tuple[Callable[[FakeOpenAIServer], None], str, str, str]
CASES: list[Case] = [
    (refused_key, "auth_failed", "Incorrect API key provided",
     "Loopback 不接受该 API 密钥（HTTP 401）。请在“提供商”中检查密钥。 "
     "详情：Incorrect API key provided"),
    (rate_limited, "rate_limited", "slow down",
     "Loopback 正在限制请求（请求过多、过快）。请稍后再试。 详情：slow down"),
    (server_error, "server_error", "boom",
     "Loopback 发生服务器错误（HTTP 500）。请稍后再试。 详情：boom"),
    (dropped, "stream_dropped", "the stream ended unexpectedly",
     "与 Loopback 的连接在回答完成前中断了。"),
]


@pytest.fixture
def chinese(qapp: QApplication, qt_loop: qasync.QEventLoop) -> Iterator[None]:
    i18n.install_translations(qapp, "zh_CN")
    yield
    i18n.install_translations(qapp, "en")


def failed_line(window: MainWindow) -> str:
    last = window.controller.history[-1]
    assert last.status == "error"
    widget = window.chat.widget_for(last.id)
    assert widget is not None and widget.status_label.isVisible()
    return widget.status_label.text()


@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_a_provider_failure_is_shown_in_chinese_and_again_when_reopened(
    qtbot: Any, chinese: None, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], case: Case,
) -> None:
    script, code, english, shown = case
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    script(fake_server)
    send(qtbot, window, "hello")
    assert failed_line(window) == "✗ " + shown
    # Stored: the English sentence (for the CLI and the log) and, beside it, the code
    session_id = window.controller.session_id
    assert session_id is not None
    stored = ctx.sessions.load_messages(session_id)[-1]
    assert english in (stored.error or "") and "Loopback" in (stored.error or "")
    info = stored_error(stored)
    assert info is not None and info.code == code and info.params["provider"] == "Loopback"
    window.close()
    ctx.close()

    again = make_window(qtbot, open_ctx())
    again.sessions.list.itemClicked.emit(again.sessions.list.item(0))
    assert again.controller.session_id == session_id
    assert failed_line(again) == "✗ " + shown


def test_an_error_stored_without_a_code_shows_its_english_text(chinese: None) -> None:
    old = Message(role="assistant", status="error", error="Loopback: something odd")
    assert status_text(old) == "✗ Loopback: something odd"
    unknown = old.model_copy(update={"provider_data": {
        ERROR_KEY: {"code": "from_a_later_version", "params": {"provider": "Loopback"}}}})
    assert status_text(unknown) == "✗ Loopback: something odd"


def test_english_words_the_code_too(qapp: QApplication) -> None:
    i18n.install_translations(qapp, "en")
    known = Message(role="assistant", status="error", error="Loopback (HTTP 401): x",
                    provider_data={ERROR_KEY: {"code": "auth_failed", "params": {
                        "provider": "Loopback", "status": 401, "detail": "bad key"}}})
    assert status_text(known) == ("✗ Loopback did not accept the API key (HTTP 401). Check the "
                                  "key in Providers. Details: bad key")


def test_test_connection_says_a_refused_key_in_chinese(
    qtbot: Any, chinese: None, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from PySide6.QtWidgets import QMessageBox

    from desktop.ui.providers.provider_dialog import ProviderDialog
    from tests.support.openai_server import MODELS_PATH
    from tests.ui.providers.test_provider_dialog import SECRET, add_custom, wait_idle

    # (closing the dialog asks about the unsaved draft: it is dropped)
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *_args: QMessageBox.StandardButton.Discard)
    dialog = ProviderDialog(open_ctx().providers)
    qtbot.addWidget(dialog)
    dialog.show()
    add_custom(qtbot, dialog, fake_server.base_url)
    fake_server.enqueue(ScriptedResponse.error(
        401, f"Incorrect API key provided: {SECRET}", code="invalid_api_key"), path=MODELS_PATH)
    dialog.form.test_button.click()
    wait_idle(qtbot, dialog)
    text = dialog.form.status_label.text()
    assert text.startswith("✗ ") and text.endswith(
        " 不接受该 API 密钥（HTTP 401）。请在“提供商”中检查密钥。 "
        "详情：Incorrect API key provided: ***"), text
    assert dialog.form.status_label.property("kind") == "error"


def test_a_refused_send_is_said_in_chinese(
    qtbot: Any, chinese: None, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    ctx.settings_store.save_provider(config.model_copy(update={"model": "gpt-3.5-turbo"}))
    window = make_window(qtbot, ctx)
    image = tmp_path / "dot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    assert window.chat_pane.add_attachment(image)
    qtbot.keyClicks(window.composer.input, "look")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert window.chat_pane.error_banner.text() == (
        "gpt-3.5-turbo 无法查看图片。请选择支持视觉的模型；如果确定它支持图片，也可以在“提供商”中"
        "为它开启视觉功能。")
    assert fake_server.chat_requests == []


def test_every_provider_code_has_a_sentence(qapp: QApplication) -> None:
    from desktop.core.error_codes import PROVIDER_CODES, ErrorInfo
    from desktop.ui.error_text import error_text

    i18n.install_translations(qapp, "en")
    for code in PROVIDER_CODES:
        assert error_text(ErrorInfo(code, {"provider": "P"}), "FALLBACK") != "FALLBACK", code
