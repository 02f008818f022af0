"""Settings → Sync…: the configuration is machine-local, secrets go to the keyring only;
Test connection against a folder and a real WebDAV server, a wrong passphrase and an
unreachable server."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from desktop.app import AppContext
from desktop.sync.config import PASSPHRASE_ID, PASSWORD_ID, S3_SECRET_ID, load_config
from desktop.ui.dialogs.sync_dialog import SyncDialog
from desktop.ui.window.sync_scheduler import SyncScheduler
from tests.sync.servers import PASSWORD, USER, WebDavServer
from tests.ui.conversation_helpers import make_window
from tests.ui.sync_helpers import PASSPHRASE, OtherDevice


@pytest.fixture
def ctx(open_ctx: Callable[..., AppContext]) -> AppContext:
    return open_ctx()


@pytest.fixture
def dialog(qtbot: Any, ctx: AppContext) -> Iterator[SyncDialog]:
    scheduler = SyncScheduler(ctx.sync)
    made = SyncDialog(ctx.sync, scheduler)
    qtbot.addWidget(made)
    made.show()
    yield made
    scheduler.shutdown()


def _fill(dialog: SyncDialog, url: str, passphrase: str = PASSPHRASE, *, repeat: str | None = None,
          user: str = "", secret: str = "") -> None:
    dialog.url_edit.setText(url)
    dialog.user_edit.setText(user)
    dialog.secret_edit.setText(secret)
    dialog.passphrase_edit.setText(passphrase)
    dialog.repeat_edit.setText(passphrase if repeat is None else repeat)


def _test(qtbot: Any, dialog: SyncDialog) -> tuple[str, bool]:
    with qtbot.waitSignal(dialog.testFinished, timeout=30000) as blocker:
        qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    text, ok = blocker.args
    assert "\n" not in text and dialog.result_label.text() == text
    return text, ok


def _everything_stored(ctx: AppContext) -> str:
    rows = ctx.db.query("SELECT key, value FROM settings")
    logs = "".join(p.read_text(errors="replace") for p in ctx.paths.logs_dir.glob("*")
                   if p.is_file())
    return repr([tuple(r) for r in rows]) + logs


def test_saves_the_target_locally_and_the_secrets_in_the_keyring(
    qtbot: Any, ctx: AppContext, dialog: SyncDialog, tmp_path: Path,
) -> None:
    assert dialog.repeat_edit.isVisibleTo(dialog)  # no passphrase yet: asked twice
    assert not dialog.user_edit.isVisibleTo(dialog)  # a folder needs no user name
    _fill(dialog, "webdavs://dav.example.com/remote.php/dav/files/me/assista",
          user="me", secret="dav-password-123")
    assert dialog.user_edit.isVisibleTo(dialog) and dialog.secret_edit.isVisibleTo(dialog)
    assert not dialog.endpoint_edit.isVisibleTo(dialog)
    dialog.enabled_box.setChecked(True)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()

    config = load_config(ctx.settings_store)
    assert (config.url, config.user, config.enabled) == (
        "webdavs://dav.example.com/remote.php/dav/files/me/assista", "me", True)
    assert ctx.secrets.get(PASSPHRASE_ID) == PASSPHRASE
    assert ctx.secrets.get(PASSWORD_ID) == "dav-password-123"
    assert "sync" not in ctx.settings.current.model_dump()  # not in the synced settings
    stored = _everything_stored(ctx)
    assert PASSPHRASE not in stored and "dav-password-123" not in stored
    assert dialog.scheduler.active  # the window's sync follows at once

    again = SyncDialog(ctx.sync, dialog.scheduler)
    qtbot.addWidget(again)
    again.show()
    assert again.url_edit.text() == config.url and again.user_edit.text() == "me"
    assert again.passphrase_edit.text() == "" and "saved" in again.passphrase_edit.placeholderText()
    assert not again.repeat_edit.isVisibleTo(again)  # asked twice only when replaced
    again.passphrase_edit.setText("a new one")
    assert again.repeat_edit.isVisibleTo(again)
    assert again.problem() == "The two passphrases differ."
    again.passphrase_edit.clear()
    assert again.problem() is None  # the saved passphrase and password are enough


def test_s3_asks_for_keys_and_the_passphrase_must_match(
    qtbot: Any, ctx: AppContext, dialog: SyncDialog,
) -> None:
    _fill(dialog, "s3://my-bucket/assista", repeat="something else")
    assert dialog.endpoint_edit.isVisibleTo(dialog)
    assert dialog.problem() == "Enter the S3 access key ID."
    dialog.user_edit.setText("AKIAEXAMPLE")
    dialog.secret_edit.setText("s3-secret-key")
    assert dialog.problem() == "The two passphrases differ."
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.result_label.text() == "The two passphrases differ."
    assert ctx.secrets.get(PASSPHRASE_ID) is None
    dialog.repeat_edit.setText(PASSPHRASE)
    dialog.endpoint_edit.setText("https://minio.example:9000")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert load_config(ctx.settings_store).endpoint == "https://minio.example:9000"
    assert ctx.secrets.get(S3_SECRET_ID) == "s3-secret-key"


def test_test_connection_ok_then_a_wrong_passphrase(
    qtbot: Any, ctx: AppContext, dialog: SyncDialog, tmp_path: Path,
) -> None:
    url = (tmp_path / "shared").as_uri()
    _fill(dialog, url)
    text, ok = _test(qtbot, dialog)
    assert ok and text.startswith("Connected") and "no device has synced" in text
    other = OtherDevice(tmp_path / "other", url)
    other.chat("Elsewhere", "hello")
    other.sync()
    other.close()
    text, ok = _test(qtbot, dialog)
    assert ok and "opens the data of 1 device" in text

    _fill(dialog, url, passphrase="not the passphrase")
    text, ok = _test(qtbot, dialog)
    assert not ok and text.startswith("The sync passphrase is wrong")
    assert ctx.sessions.list_sessions() == []  # testing changes nothing here


def test_test_connection_through_webdav_and_an_unreachable_server(
    qtbot: Any, dialog: SyncDialog, tmp_path: Path,
) -> None:
    root = tmp_path / "dav"
    root.mkdir()
    server = WebDavServer(root)
    try:
        url = f"webdav://127.0.0.1:{server.port}/dav/sync"
        _fill(dialog, url, user=USER, secret="wrong password")
        text, ok = _test(qtbot, dialog)
        assert not ok and "refused the credentials" in text
        dialog.secret_edit.setText(PASSWORD)
        text, ok = _test(qtbot, dialog)
        assert ok and text.startswith("Connected"), text
        assert (root / "sync" / "sync.json").exists()
    finally:
        server.stop()
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dialog.url_edit.setText(f"webdav://127.0.0.1:{port}/dav/sync")
    text, ok = _test(qtbot, dialog)
    assert not ok and "cannot be reached" in text


def test_settings_menu_opens_the_sync_dialog(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = make_window(qtbot, open_ctx())
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Settings")
    action = next(a for a in menu.actions() if a.text() == "S&ync…")  # type: ignore[union-attr]
    assert isinstance(action, QAction)
    action.trigger()
    dialog = window.dialogs.current("sync")
    assert isinstance(dialog, SyncDialog) and dialog.isVisible()
    assert dialog.scheduler is window.sync
    assert not window.sync.active  # nothing configured: the status bar says nothing


def test_saving_keeps_the_maximum_upload_set_outside_the_form(
    qtbot: Any, open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    from desktop.sync.config import SyncConfig, engine_from_config, save_config

    ctx = open_ctx()
    save_config(ctx.settings_store, SyncConfig(url=(tmp_path / "t").as_uri(), max_upload_mb=2))
    scheduler = SyncScheduler(ctx.sync)
    made = SyncDialog(ctx.sync, scheduler)
    qtbot.addWidget(made)
    made.show()
    _fill(made, (tmp_path / "other").as_uri())
    qtbot.mouseClick(made.save_button, Qt.MouseButton.LeftButton)
    config = load_config(ctx.settings_store)
    assert (config.url, config.max_upload_mb) == ((tmp_path / "other").as_uri(), 2.0)
    engine = engine_from_config(ctx.db, config, ctx.secrets)
    assert engine.max_upload == 2 * 1024 * 1024
    engine.target.close()
    scheduler.shutdown()
