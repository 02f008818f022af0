"""ProviderDialog against a real AppContext (temp data dir, file key store) and a
loopback fake OpenAI-compatible server. Async work runs on a qasync loop driven by
Qt's event processing inside ``qtbot.waitUntil``."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
import qasync
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QWidget

from desktop.app import AppContext
from desktop.core.settings import ProviderConfig
from desktop.providers.presets import config_from_preset
from desktop.storage import logs
from desktop.storage.secrets import SecretStore
from desktop.ui.providers.provider_dialog import ProviderDialog
from tests.support.openai_server import MODELS_PATH, FakeOpenAIServer, ScriptedResponse

SECRET = "sk-test-SECRET-0123456789abcdefXYZ"

# -- fixtures -----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_real_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Nothing in these tests may reach the system keyring."""
    monkeypatch.setattr(keyring, "get_keyring", fail.Keyring)
    yield
    logs.shutdown_logging()


@pytest.fixture
def qt_loop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync loop that asyncio sees as running; Qt event processing (qtbot.wait*)
    runs its callbacks, as in the app where qasync runs the Qt loop.

    (``QEventLoop(already_running=True)`` is for a loop that is never stopped: its
    ``stop()`` calls ``QApplication.exit()``, which breaks later tests.)
    """
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    yield loop
    for task in asyncio.all_tasks(loop):
        task.cancel()
    qapp.processEvents()
    asyncio.events._set_running_loop(None)
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """QMessageBox.question never blocks: it records the text and returns ``answer``."""
    state: dict[str, Any] = {"answer": QMessageBox.StandardButton.Discard, "asked": []}

    def question(_parent: QWidget, _title: str, text: str, *_args: Any) -> Any:
        state["asked"].append(text)
        return state["answer"]

    monkeypatch.setattr(QMessageBox, "question", question)
    return state


@pytest.fixture
def make_ctx(tmp_path: Path) -> Iterator[Callable[..., AppContext]]:
    opened: list[AppContext] = []

    def make(environ: dict[str, str] | None = None) -> AppContext:
        ctx = AppContext.open(tmp_path / "data", environ=environ or {}, log_to_stderr=False)
        ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
        opened.append(ctx)
        return ctx

    yield make
    for ctx in opened:
        ctx.close()


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["model-b", "model-a"]) as fake:
        yield fake


@pytest.fixture
def open_dialog(
    qtbot: Any, qt_loop: qasync.QEventLoop, answers: dict[str, Any]
) -> Callable[[AppContext], ProviderDialog]:
    def make(ctx: AppContext) -> ProviderDialog:
        dialog = ProviderDialog(ctx.providers)
        qtbot.addWidget(dialog)
        dialog.show()
        return dialog

    return make


def type_into(qtbot: Any, edit: QLineEdit, text: str) -> None:
    """Replace the text like a user would (emits textEdited)."""
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    if text:
        qtbot.keyClicks(edit, text)


def list_texts(dialog: ProviderDialog) -> list[str]:
    return [dialog.list.item(row).text() for row in range(dialog.list.count())]


def add_custom(qtbot: Any, dialog: ProviderDialog, url: str, key: str = SECRET) -> None:
    dialog.open_for_new("custom")
    type_into(qtbot, dialog.form.base_url_edit, url)
    type_into(qtbot, dialog.form.key_edit, key)


def wait_idle(qtbot: Any, dialog: ProviderDialog) -> None:
    qtbot.waitUntil(lambda: not dialog.busy, timeout=10_000)


# -- tests --------------------------------------------------------------------------------


def test_first_run_shows_welcome_and_add_menu_lists_presets(
    make_ctx: Callable[..., AppContext], open_dialog: Callable[[AppContext], ProviderDialog]
) -> None:
    dialog = open_dialog(make_ctx())
    assert dialog.windowTitle() == "Providers"
    assert dialog.list.count() == 0
    assert dialog.stack.currentWidget() is dialog.welcome
    assert not dialog.remove_button.isEnabled()
    names = [action.text() for action in dialog.add_button.menu().actions()]
    assert names[:5] == ["OpenAI", "OpenRouter", "LM Studio", "Groq", "Together AI"]
    assert any("Custom" in name for name in names)

    dialog.add_button.menu().actions()[0].trigger()  # OpenAI
    assert dialog.stack.currentWidget() is dialog.editor
    assert list_texts(dialog) == ["OpenAI — not saved"]
    form = dialog.form
    assert form.base_url_edit.text() == "https://api.openai.com/v1"
    assert form.preset_label.text() == "OpenAI"
    assert "platform.openai.com/api-keys" in form.key_link.text()
    assert form.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert "No system keyring found" in form.key_note.text()
    assert str(dialog.providers.key_store().path) in form.key_note.text()


def test_add_provider_persists_config_and_key_outside_the_database(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
    server: FakeOpenAIServer,
) -> None:
    ctx = make_ctx()
    dialog = open_dialog(ctx)
    add_custom(qtbot, dialog, server.base_url)
    form = dialog.form
    type_into(qtbot, form.name_edit, "My server")
    qtbot.keyClicks(form.model_combo.lineEdit(), "model-a")
    form.headers_edit.setPlainText("X-Team: blue")
    assert dialog.save_button.isEnabled()

    with qtbot.waitSignal(dialog.providersChanged, timeout=1000):
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)

    [saved] = ctx.settings_store.list_providers()
    assert (saved.name, saved.preset, saved.source) == ("My server", "custom", "user")
    assert saved.base_url == server.base_url
    assert saved.model == "model-a"
    assert saved.headers == {"X-Team": "blue"}
    assert ctx.secrets.get(saved.id) == SECRET
    assert ctx.settings_store.load().active_provider_id == saved.id
    assert list_texts(dialog) == ["My server"]
    assert not dialog.save_button.isEnabled()  # nothing left to save
    db_files = list(ctx.paths.root.glob(ctx.paths.db_path.name + "*"))  # db, -wal, -shm
    assert ctx.paths.db_path in db_files
    for path in db_files:
        assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET in ctx.paths.secrets_path.read_text()

    # Emptying the key field deletes the stored key.
    type_into(qtbot, form.key_edit, "")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert ctx.secrets.get(saved.id) is None


def test_save_is_disabled_while_the_form_is_invalid(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
) -> None:
    dialog = open_dialog(make_ctx())
    dialog.open_for_new("custom")
    form = dialog.form
    assert form.base_url_edit.hasFocus() or form.base_url_edit.text() == ""
    assert not dialog.save_button.isEnabled()  # no base URL yet
    type_into(qtbot, form.base_url_edit, "ftp://example.com")
    assert not dialog.save_button.isEnabled()
    assert "http" in dialog.validation_label.text()
    type_into(qtbot, form.base_url_edit, "http://127.0.0.1:9/v1")
    assert dialog.save_button.isEnabled()
    type_into(qtbot, form.name_edit, "")
    assert not dialog.save_button.isEnabled()
    type_into(qtbot, form.name_edit, "Local")
    form.headers_edit.setPlainText("Authorization: Bearer abc")
    assert not dialog.save_button.isEnabled()
    assert "API key field" in dialog.validation_label.text()
    form.headers_edit.setPlainText("no colon here")
    assert not dialog.save_button.isEnabled()
    form.headers_edit.setPlainText("")
    assert dialog.save_button.isEnabled()


def test_key_field_show_hide_toggle(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
) -> None:
    dialog = open_dialog(make_ctx())
    dialog.open_for_new("openrouter")
    form = dialog.form
    qtbot.mouseClick(form.key_toggle, Qt.MouseButton.LeftButton)
    assert form.key_edit.echoMode() == QLineEdit.EchoMode.Normal
    assert form.key_toggle.text() == "Hide"
    qtbot.mouseClick(form.key_toggle, Qt.MouseButton.LeftButton)
    assert form.key_edit.echoMode() == QLineEdit.EchoMode.Password
    dialog.open_for_new("lmstudio")
    assert "Not needed" in form.key_edit.placeholderText()
    assert form.key_link.isHidden()


def test_fetch_models_fills_the_combo(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
    server: FakeOpenAIServer,
) -> None:
    dialog = open_dialog(make_ctx())
    add_custom(qtbot, dialog, server.base_url)
    form = dialog.form

    qtbot.mouseClick(form.fetch_button, Qt.MouseButton.LeftButton)
    assert dialog.busy
    assert not form.fetch_button.isEnabled()
    assert not form.test_button.isEnabled()
    assert form.status_label.text() == "Fetching models…"
    wait_idle(qtbot, dialog)

    items = [form.model_combo.itemText(i) for i in range(form.model_combo.count())]
    assert items == ["model-a", "model-b"]
    assert form.model_combo.currentText() == "model-a"  # was empty: first model chosen
    assert form.status_label.text() == "✓ 2 models found"
    assert form.fetch_button.isEnabled() and form.test_button.isEnabled()
    [request] = server.requests
    assert (request.method, request.path) == ("GET", MODELS_PATH)
    assert request.headers["authorization"] == f"Bearer {SECRET}"


def test_connection_success_and_401_error(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
    server: FakeOpenAIServer,
) -> None:
    dialog = open_dialog(make_ctx())
    add_custom(qtbot, dialog, server.base_url)
    form = dialog.form
    qtbot.keyClicks(form.model_combo.lineEdit(), "my-model")

    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    assert form.status_label.text() == "Testing connection…"
    wait_idle(qtbot, dialog)
    assert form.status_label.text() == "✓ Connected — 2 models"
    assert form.status_label.property("kind") == "ok"
    assert form.model_combo.currentText() == "my-model"  # the typed model is kept

    server.enqueue(
        ScriptedResponse.error(
            401, f"Incorrect API key provided: {SECRET}", code="invalid_api_key"
        ),
        path=MODELS_PATH,
    )
    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, dialog)
    text = form.status_label.text()
    assert text.startswith("✗")
    assert "401" in text and "Incorrect API key" in text
    assert SECRET not in text
    assert form.status_label.property("kind") == "error"


def test_connection_refused_shows_an_error(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
) -> None:
    from tests.support.openai_server import unused_port

    dialog = open_dialog(make_ctx())
    add_custom(qtbot, dialog, f"http://127.0.0.1:{unused_port()}/v1")
    qtbot.mouseClick(dialog.form.test_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, dialog)
    assert dialog.form.status_label.text().startswith("✗")
    assert SECRET not in dialog.form.status_label.text()


def test_environment_provider_is_listed_read_only(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
    server: FakeOpenAIServer,
) -> None:
    ctx = make_ctx({"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.base_url})
    dialog = open_dialog(ctx)
    assert list_texts(dialog) == ["OpenAI — from environment (OPENAI_API_KEY)"]
    assert dialog.select_provider("env_openai")
    form = dialog.form
    assert form.name_edit.isReadOnly() and form.base_url_edit.isReadOnly()
    assert not form.key_edit.isEnabled() and form.key_edit.text() == ""
    assert "OPENAI_API_KEY" in form.key_edit.placeholderText()
    assert not form.model_combo.isEnabled()
    assert not dialog.save_button.isEnabled()
    assert not dialog.remove_button.isEnabled()
    assert "environment" in dialog.source_label.text()

    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, dialog)
    assert form.status_label.text() == "✓ Connected — 2 models"
    assert server.requests[-1].headers["authorization"] == f"Bearer {SECRET}"
    # The key is never copied anywhere.
    assert ctx.settings_store.list_providers() == []
    assert ctx.secrets.get("env_openai") is None
    assert not ctx.paths.secrets_path.exists()


def test_remove_deletes_config_and_key(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
    answers: dict[str, Any],
) -> None:
    ctx = make_ctx()
    keep = ProviderConfig(name="Keep", base_url="http://127.0.0.1:1/v1")
    doomed = ProviderConfig(name="Doomed", base_url="http://127.0.0.1:2/v1")
    for config in (keep, doomed):
        ctx.settings_store.save_provider(config)
        ctx.secrets.set(config.id, f"{SECRET}-{config.name}")
    dialog = open_dialog(ctx)
    assert dialog.select_provider(doomed.id)
    assert dialog.form.key_edit.text() == f"{SECRET}-Doomed"

    answers["answer"] = QMessageBox.StandardButton.Cancel
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    assert len(ctx.settings_store.list_providers()) == 2
    assert "Doomed" in answers["asked"][-1]

    answers["answer"] = QMessageBox.StandardButton.Yes
    with qtbot.waitSignal(dialog.providersChanged, timeout=1000):
        qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    assert [p.id for p in ctx.settings_store.list_providers()] == [keep.id]
    assert ctx.secrets.get(doomed.id) is None
    assert ctx.secrets.get(keep.id) == f"{SECRET}-Keep"
    assert list_texts(dialog) == ["Keep"]


def test_unsaved_edits_are_confirmed_before_switching(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
    answers: dict[str, Any],
) -> None:
    ctx = make_ctx()
    first = ProviderConfig(name="First", base_url="http://127.0.0.1:1/v1")
    second = ProviderConfig(name="Second", base_url="http://127.0.0.1:2/v1")
    for config in (first, second):
        ctx.settings_store.save_provider(config)
    dialog = open_dialog(ctx)
    assert dialog.current_provider() == first
    type_into(qtbot, dialog.form.name_edit, "Renamed")

    answers["answer"] = QMessageBox.StandardButton.Cancel
    assert not dialog.select_provider(second.id)
    assert dialog.form.name_edit.text() == "Renamed"
    assert dialog.list.currentRow() == 0

    answers["answer"] = QMessageBox.StandardButton.Discard
    assert dialog.select_provider(second.id)
    assert dialog.select_provider(first.id)
    assert dialog.form.name_edit.text() == "First"


def test_detected_provider_can_be_added(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
    server: FakeOpenAIServer,
) -> None:
    ctx = make_ctx()
    ctx.providers.add_detected([
        config_from_preset(
            "lmstudio", base_url=server.base_url, source="detected", id="detected_lmstudio"
        )
    ])
    dialog = open_dialog(ctx)
    assert list_texts(dialog) == ["LM Studio — detected"]
    assert dialog.adopt_button.isVisible()
    assert not dialog.save_button.isEnabled()

    with qtbot.waitSignal(dialog.providersChanged, timeout=1000):
        qtbot.mouseClick(dialog.adopt_button, Qt.MouseButton.LeftButton)
    [saved] = ctx.settings_store.list_providers()
    assert (saved.source, saved.preset, saved.base_url) == ("user", "lmstudio", server.base_url)
    assert saved.id != "detected_lmstudio"
    assert list_texts(dialog) == ["LM Studio"]
    assert dialog.current_provider() == saved
    assert not dialog.form.name_edit.isReadOnly()
    assert ctx.settings_store.load().active_provider_id == saved.id


def test_closing_during_a_check_cancels_it(
    qtbot: Any,
    make_ctx: Callable[..., AppContext],
    open_dialog: Callable[[AppContext], ProviderDialog],
    server: FakeOpenAIServer,
) -> None:
    held = ScriptedResponse.json_body({"object": "list", "data": []})
    held.hold_after = 0  # headers sent, body held until released
    server.enqueue(held, path=MODELS_PATH)
    dialog = open_dialog(make_ctx())
    add_custom(qtbot, dialog, server.base_url)
    qtbot.mouseClick(dialog.form.test_button, Qt.MouseButton.LeftButton)
    task = dialog.form._task
    assert task is not None
    qtbot.waitUntil(held.holding.is_set, timeout=5000)

    dialog.reject()  # unsaved draft, answered "Discard"
    assert not dialog.isVisible()
    assert not dialog.busy
    qtbot.waitUntil(task.done, timeout=5000)
    assert task.cancelled()
    held.release()


def test_options_box_round_trips_provider_options(qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    from desktop.core.provider_options import (
        AnthropicOptions,
        CapabilityFlags,
        CapabilityOverrides,
        ResponsesOptions,
    )
    from desktop.core.settings import ProviderConfig
    from desktop.ui.providers.provider_options import ProviderOptionsBox

    box = ProviderOptionsBox()
    qtbot.addWidget(box)
    config = ProviderConfig(name="R", kind="openai-responses", preset="openai-responses",
                            base_url="https://api.openai.com/v1",
                            options={"reasoning": True, "reasoning_effort": "high",
                                     "responses_mode": "replay",
                                     "capabilities": {"vision": False,
                                                      "models": {"m": {"tools": False}}}})
    box.load(config)
    assert box.thinking_check.isChecked()
    assert box.effort_combo.currentText() == "high"
    assert box.mode_combo.currentData() == "replay"
    assert box.capability_checks["vision"].checkState() == Qt.CheckState.Unchecked
    assert box.capability_checks["tools"].checkState() == Qt.CheckState.PartiallyChecked
    box.capability_checks["tools"].setCheckState(Qt.CheckState.Checked)
    box.mode_combo.setCurrentIndex(0)
    options = box.options(config.options)
    assert isinstance(options, ResponsesOptions) and options.responses_mode == "chain"
    assert options.capabilities == CapabilityOverrides(
        tools=True, vision=False, models={"m": CapabilityFlags(tools=False)})
    anthropic = ProviderConfig(name="A", kind="anthropic", preset="anthropic",
                               base_url="https://api.anthropic.com")
    box.load(anthropic)
    assert not box.mode_combo.isVisibleTo(box) and box.budget_spin.isVisibleTo(box)
    box.thinking_check.setChecked(True)
    box.budget_spin.setValue(4096)
    assert box.options(anthropic.options) == AnthropicOptions(reasoning=True,
                                                              reasoning_budget=4096)
