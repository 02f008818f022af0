"""Settings → MCP servers → Browse, against a loopback registry in the official
API's format: the list, the search, installing an npm package (its required values
asked) and a remote URL into the MCP dialog; offline from the saved copy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtWidgets import QApplication, QLineEdit

from desktop.app import AppContext
from desktop.ui.tools.mcp_catalog_dialog import McpCatalogDialog
from desktop.ui.tools.mcp_dialog import McpDialog
from tests.support.mcp_registry_server import (
    FILESYSTEM,
    HOSTED,
    WEATHER,
    RegistryServer,
    listing,
    registry_server,
)
from tests.ui.conversation_helpers import make_window
from tests.ui.tools.test_mcp_dialog import open_dialog

PAGES = [[listing(FILESYSTEM), listing(WEATHER)], [listing(HOSTED)]]


def browse(qtbot: Any, dialog: McpDialog) -> McpCatalogDialog:
    dialog.browse_button.click()
    catalog = dialog.catalog_dialog  # type: ignore[attr-defined]
    assert isinstance(catalog, McpCatalogDialog)
    qtbot.waitUntil(lambda: catalog.refresh_button.isEnabled() and bool(catalog.entries),
                    timeout=10000)
    return catalog


def select(catalog: McpCatalogDialog, name: str) -> None:
    for row in range(catalog.list.count()):
        if catalog.list.item(row).toolTip() == name:
            catalog.list.setCurrentRow(row)
            return
    raise AssertionError(f"{name} not listed")


def test_browse_install_and_offline(qtbot: Any, qt_loop: qasync.QEventLoop,
                                    open_ctx: Callable[..., AppContext],
                                    tmp_path: Path) -> None:
    with registry_server(RegistryServer(pages=PAGES)) as registry:
        ctx = open_ctx({"ASSISTA_MCP_REGISTRY": registry.url})
        window = make_window(qtbot, ctx)
        dialog = open_dialog(window)
        catalog = browse(qtbot, dialog)
        assert catalog.status.text() == "3 servers"
        assert len(registry.queries) == 2  # both pages

        catalog.search.setText("forecast")
        assert catalog.list.count() == 1
        catalog.search.clear()
        select(catalog, "io.github.example/filesystem")
        assert catalog.install_combo.currentText() == "npx -y @example/server-filesystem@1.2.0"
        token = catalog.inputs["FS_TOKEN"]
        assert token.echoMode() == QLineEdit.EchoMode.Password
        catalog.add_button.click()
        assert "These values are required: FS_TOKEN, folder." in catalog.problem.text()
        token.setText("secret-token")
        catalog.inputs["folder"].setText("/notes")
        catalog.add_button.click()
        assert not catalog.isVisible()
        added = dialog.servers[-1]
        assert (added["name"], added["command"], added["args"]) == (
            "filesystem", "npx", ["-y", "@example/server-filesystem@1.2.0", "/notes"])
        assert added["env"] == {"FS_TOKEN": "secret-token"}

        catalog = browse(qtbot, dialog)
        select(catalog, "com.example/hosted")
        assert catalog.install_combo.currentText() == "http https://mcp.example.com/mcp"
        catalog.add_button.click()
        assert (dialog.servers[-1]["transport"], dialog.servers[-1]["url"]) == (
            "http", "https://mcp.example.com/mcp")
        catalog.close()
        QApplication.processEvents()

    # The registry is gone: the saved copy is shown, with the reason.
    catalog = browse(qtbot, dialog)
    assert catalog.status.text().startswith("3 servers · Offline (cannot connect")
    assert catalog.list.count() == 3
    catalog.close()
