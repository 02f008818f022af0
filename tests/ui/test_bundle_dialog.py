"""Install extension: a real .mcpb dropped on the window opens its form; the form asks
the manifest's configuration, refuses what is missing and installs the server; a
broken bundle is refused with the reason."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QCheckBox, QLineEdit, QMessageBox

from desktop.app import AppContext
from desktop.ui.tools.bundle_dialog import BundleDialog
from tests.tools.test_mcp_bundles import build_bundle, manifest
from tests.ui.conversation_helpers import make_window


def _drop(window: Any, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(QPoint(10, 10)), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    window.chat_pane.dropEvent(event)


def _stop(qtbot: Any, window: Any) -> None:
    import asyncio

    task = asyncio.ensure_future(window.controller.tools.stop_mcp())
    qtbot.waitUntil(task.done, timeout=30000)


def _open_dialog(window: Any) -> BundleDialog | None:
    found = [w for w in QApplication.topLevelWidgets() + window.findChildren(BundleDialog)
             if isinstance(w, BundleDialog) and w.isVisible()]
    return found[0] if found else None


def test_dropped_bundle_form_installs(qtbot: Any, qt_loop: qasync.QEventLoop, tmp_path: Path,
                                      open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    extra = {"user_config": {**manifest()["user_config"],
                             "verbose": {"type": "boolean", "title": "Verbose",
                                         "default": True}}}
    bundle = build_bundle(tmp_path / "notes.mcpb", manifest(**extra))
    _drop(window, bundle)
    qtbot.waitUntil(lambda: _open_dialog(window) is not None)
    dialog = _open_dialog(window)
    assert dialog is not None
    assert not window.composer.chips  # installed, not attached
    edits = {e.accessibleName(): e for e in dialog.findChildren(QLineEdit)}
    assert edits["API key"].echoMode() == QLineEdit.EchoMode.Password
    assert edits["Mode"].text() == "fast"
    box = dialog.findChild(QCheckBox)
    assert box is not None and box.isChecked()
    dialog.install()  # the folder is required
    assert dialog.isVisible() and "Notes folder is required" in dialog.error_label.text()
    edits["Notes folder"].setText(str(tmp_path))
    edits["API key"].setText("sk-form-secret-1")
    dialog.install()
    assert dialog.installed_name == "notes"
    raw = ctx.settings.current.mcp_servers[0]
    assert raw["name"] == "notes" and "sk-form-secret-1" not in str(raw)
    assert (ctx.paths.root / "extensions" / "notes" / "server" / "main.py").is_file()
    # The servers restart with it: its tools are the chat's.
    controller = window.controller
    qtbot.waitUntil(lambda: controller._mcp_task is not None and controller._mcp_task.done(),
                    timeout=30000)
    assert any(t.source == "notes" for t in controller.tools.registry())
    _stop(qtbot, window)


def test_broken_bundle_is_refused_with_the_reason(qtbot: Any, qt_loop: qasync.QEventLoop,
                                                  tmp_path: Path,
                                                  open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    bad = build_bundle(tmp_path / "bad.mcpb", manifest(author={}))
    window.dialogs.install_extension(str(bad))
    box = window.findChild(QMessageBox, "bundleRefused")
    assert box is not None and "author.name" in box.text()
    assert "refused" in box.text()
    assert ctx.settings.current.mcp_servers == []
    assert not any((ctx.paths.root / "extensions").iterdir())


def test_installed_extension_is_in_mcp_servers_and_removing_it_uninstalls(
        qtbot: Any, qt_loop: qasync.QEventLoop, tmp_path: Path,
        open_ctx: Callable[..., AppContext]) -> None:
    from desktop.tools.mcp.bundle_install import BundleService

    ctx = open_ctx()
    service = BundleService(ctx.paths.root, ctx.settings, ctx.secrets)
    service.install(service.open(build_bundle(tmp_path / "n.mcpb", manifest())),
                    {"folder": str(tmp_path), "api_key": "sk-2"})
    folder = ctx.paths.root / "extensions" / "notes"
    assert folder.is_dir()
    window = make_window(qtbot, ctx)
    from desktop.ui.tools.mcp_dialog import McpDialog

    dialog = window.dialogs.open("mcp")
    assert isinstance(dialog, McpDialog)
    names = [dialog.server_list.item(r).text() for r in range(dialog.server_list.count())]
    assert any("notes" in n for n in names)
    dialog.server_list.setCurrentRow(0)
    dialog.remove_current()
    assert dialog.save()
    assert ctx.settings.current.mcp_servers == [] and not folder.exists()
    dialog.close()
    controller = window.controller
    qtbot.waitUntil(lambda: controller._mcp_task is not None and controller._mcp_task.done(),
                    timeout=30000)
    _stop(qtbot, window)
