"""A new kind of sync target is one module plus one registration line: a test-only
target (tests/support/drop_target.py) added to the registry is recognised by its URL,
opened from a URL and from the Sync settings with its secret from the keyring, named in
the hints, and the Sync settings show only the fields it says it uses."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.sync.config import SyncConfig, check_connection, load_config, target_secret_id
from desktop.sync.targets import registry
from desktop.sync.targets.address import open_target
from desktop.sync.targets.registry import target_class, url_forms
from desktop.ui.dialogs.sync_dialog import SyncDialog
from desktop.ui.window.sync_scheduler import SyncScheduler
from tests.support.drop_target import REGISTRATION, TOKEN_ID, DropTarget
from tests.ui.sync_helpers import PASSPHRASE

URL = "drop://shared"


@pytest.fixture
def drop_registered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setattr(registry, "TARGETS", (*registry.TARGETS, REGISTRATION))
    monkeypatch.setattr(DropTarget, "root", tmp_path / "drops")
    monkeypatch.setattr(DropTarget, "opened_with", [])
    yield


def test_the_built_in_targets_say_their_forms() -> None:
    assert url_forms() == "file:///path, webdav(s)://user@host/path or s3://bucket/prefix"
    assert target_class("webdavs") is target_class("webdav")
    assert SyncConfig(url="webdavs://h/p").kind == "webdav"
    assert SyncConfig(url="drop://shared").kind == ""  # not registered


@pytest.mark.usefixtures("drop_registered")
def test_it_is_known_by_its_url_and_opened_with_its_secret(
    open_ctx: Callable[..., AppContext],
) -> None:
    config = SyncConfig(url=URL)
    assert config.kind == "drop" and config.configured
    assert target_secret_id(config) == TOKEN_ID
    assert url_forms().endswith("s3://bucket/prefix or drop://name")
    assert isinstance(open_target(URL, {}, password="t0ken"), DropTarget)
    ctx = open_ctx()
    line = check_connection(ctx.db, config, "t0ken", PASSPHRASE)
    assert line.startswith("Connected")
    assert DropTarget.opened_with == ["t0ken", "t0ken"]
    assert (DropTarget.root / "shared").is_dir()


@pytest.mark.usefixtures("drop_registered")
def test_the_sync_settings_show_its_fields_and_keep_its_secret(
    qtbot: Any, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    scheduler = SyncScheduler(ctx.sync)
    dialog = SyncDialog(ctx.sync, scheduler)
    qtbot.addWidget(dialog)
    dialog.show()
    try:
        dialog.url_edit.setText(URL)
        dialog.passphrase_edit.setText(PASSPHRASE)
        dialog.repeat_edit.setText(PASSPHRASE)
        assert dialog.secret_edit.isVisibleTo(dialog)
        assert not dialog.user_edit.isVisibleTo(dialog)
        assert not dialog.endpoint_edit.isVisibleTo(dialog)
        assert dialog.problem() == "Enter the password."  # it requires its secret
        dialog.secret_edit.setText("t0ken")
        assert dialog.problem() is None
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        assert load_config(ctx.settings_store).url == URL
        assert ctx.secrets.get(TOKEN_ID) == "t0ken"
    finally:
        scheduler.shutdown()
