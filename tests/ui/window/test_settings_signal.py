"""The settings service as a Qt signal, and the window following saved settings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.core.settings import AppSettings
from desktop.tools.mcp import McpManager, McpServerConfig
from desktop.ui import theme
from desktop.ui.window.controller import ChatController
from desktop.ui.window.settings_signal import SettingsSignal, follow_settings


@pytest.fixture(autouse=True)
def _restore_theme(qapp: QApplication) -> Iterator[None]:
    mode = theme.mode()
    yield
    theme.apply_theme(qapp, mode)


def test_emits_old_and_new_until_closed(open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    signal = SettingsSignal(ctx.settings)
    seen: list[tuple[AppSettings, AppSettings]] = []
    signal.changed.connect(lambda old, new: seen.append((old, new)))
    ctx.settings.update(request_timeout_s=30)
    ctx.settings.update(request_timeout_s=30)  # no change, no signal
    assert [(o.request_timeout_s, n.request_timeout_s) for o, n in seen] == [(120, 30)]
    signal.close()
    ctx.settings.update(request_timeout_s=40)
    assert len(seen) == 1


def test_a_deleted_signal_is_no_longer_called(
    open_ctx: Callable[..., AppContext], caplog: pytest.LogCaptureFixture,
) -> None:
    ctx = open_ctx()
    parent = QObject()
    SettingsSignal(ctx.settings, parent)
    shiboken6.delete(parent)  # the window goes, and its children with it
    ctx.settings.update(request_timeout_s=30)
    assert "observer failed" not in caplog.text


def test_the_window_follows_theme_and_proxy(
    open_ctx: Callable[..., AppContext], qapp: QApplication, qt_loop: qasync.QEventLoop,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = open_ctx()
    controller = ChatController(ctx)
    follow_settings(qapp, controller)
    restarts: list[Any] = []
    monkeypatch.setattr(controller, "start_mcp", lambda: restarts.append(1))

    ctx.settings.update(theme="dark")
    assert theme.mode() == "dark" and theme.is_dark()
    ctx.settings.update(theme="light")
    assert theme.mode() == "light" and not theme.is_dark()

    ctx.settings.update(proxy_url="http://127.0.0.1:3128")
    assert restarts == []  # no MCP server over HTTP: nothing to reconnect
    web = McpServerConfig(name="web", transport="http", url="http://127.0.0.1:9/mcp")
    controller.service.tools.mcp = McpManager([web])
    ctx.settings.update(no_proxy="localhost")
    assert restarts == [1]
    ctx.settings.update(request_timeout_s=30)  # not the proxy: connections stay
    assert restarts == [1]
