"""Sign in and out of a remote MCP server in Settings → MCP servers, against the SDK
server guarded by OAuth (tests/tools/mcp_oauth_server.py); httpx plays the
system browser."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import qasync

from desktop.app import AppContext
from tests.tools.mcp_servers import FEATURES, ServerProcess
from tests.tools.test_tools_mcp_oauth import GUARDED, Browser
from tests.ui.conversation_helpers import make_window
from tests.ui.tools.test_mcp_dialog import connection, open_dialog, running, stop_servers


def test_sign_in_and_out_in_the_dialog(qtbot: Any, qt_loop: qasync.QEventLoop,
                                       open_ctx: Callable[..., AppContext]) -> None:
    guarded = ServerProcess(GUARDED)
    ctx = open_ctx()
    ctx.settings.update(mcp_servers=[{"name": "guarded", "transport": "http",
                                      "url": guarded.url()}])
    window = make_window(qtbot, ctx)
    try:
        browser = Browser()
        window.controller.tools.browser = browser
        window.controller.start_mcp()  # again, with the test's browser
        qtbot.waitUntil(lambda: (c := connection(window, "guarded")) is not None
                        and c.needs_sign_in and c.sign_in is not None
                        and c.sign_in.browser is browser, timeout=30000)
        dialog = open_dialog(window)
        row = dialog.form.sign_in_row
        assert row.isVisible()
        assert row.label.text() == "This server needs you to sign in."
        assert "needs sign-in" in dialog.server_list.item(0).text()
        assert browser.opened == []  # never opened by itself

        row.sign_in_button.click()
        qtbot.waitUntil(lambda: row.label.text() == "Signed in.", timeout=30000)
        assert len(browser.opened) == 1
        conn = connection(window, "guarded")
        assert conn is not None and conn.state == "running"
        qtbot.waitUntil(lambda: "running · 2 tools" in dialog.server_list.item(0).text(),
                        timeout=5000)
        assert row.sign_out_button.isVisible() and not row.sign_in_button.isVisible()
        assert ctx.secrets.get("mcp:guarded:oauth:tokens")
        assert dialog.form.tools_table.rowCount() == 2
        qtbot.waitUntil(lambda: "guarded__whoami" in window.composer.tool_actions, timeout=5000)

        row.sign_out_button.click()
        qtbot.waitUntil(lambda: row.label.text() == "This server needs you to sign in.",
                        timeout=30000)
        assert ctx.secrets.get("mcp:guarded:oauth:tokens") is None
        assert row.sign_in_button.isVisible() and not row.sign_out_button.isVisible()
        # Signed out: the last-known tools are gone from the form, the composer and
        # what the model is offered; the form says why.
        assert dialog.form.tools_table.rowCount() == 0
        assert dialog.form.tools_hint.text() == "Sign in to use its tools."
        assert not dialog.form.tools_table.isVisibleTo(dialog.form)
        qtbot.waitUntil(lambda: not any(n.startswith("guarded__")
                                        for n in window.composer.tool_actions), timeout=5000)
        offered = window.controller.tool_switches.available_tools()
        assert not any(n.startswith("guarded__") for n in offered)
        assert window.controller.service.tools.registry().get("guarded__whoami") is None
        dialog.close()
    finally:
        stop_servers(qtbot, window)
        guarded.stop()


class AbsentBrowser:
    """A browser the person never finishes signing in with."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    async def __call__(self, url: str) -> None:
        self.opened.append(url)


def test_waiting_for_the_browser_can_be_cancelled(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    guarded = ServerProcess(GUARDED)
    ctx = open_ctx()
    ctx.settings.update(mcp_servers=[{"name": "guarded", "transport": "http",
                                      "url": guarded.url()}])
    window = make_window(qtbot, ctx)
    try:
        browser = AbsentBrowser()
        window.controller.tools.browser = browser
        window.controller.start_mcp()
        qtbot.waitUntil(lambda: (c := connection(window, "guarded")) is not None
                        and c.needs_sign_in and c.sign_in is not None
                        and c.sign_in.browser is browser, timeout=30000)
        dialog = open_dialog(window)
        row = dialog.form.sign_in_row
        row.sign_in_button.click()
        qtbot.waitUntil(lambda: bool(browser.opened) and row.cancel_button.isVisible(),
                        timeout=30000)
        assert row.label.text() == "Waiting for you to finish signing in in the browser…"
        assert not row.sign_in_button.isVisible()
        row.cancel_button.click()
        qtbot.waitUntil(lambda: not row.busy and row.sign_in_button.isVisible(), timeout=15000)
        assert row.label.text() == "This server needs you to sign in."
        assert not row.cancel_button.isVisible()
        conn = connection(window, "guarded")
        assert conn is not None
        # The sign-in ends first; the connection's stop finishes a moment later (on a busy
        # machine after the row has already changed back).
        qtbot.waitUntil(lambda: conn.state == "stopped", timeout=15000)
        dialog.close()
    finally:
        stop_servers(qtbot, window)
        guarded.stop()


def test_a_remote_server_without_sign_in_offers_none(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    plain = ServerProcess(FEATURES, "http")
    ctx = open_ctx()
    ctx.settings.update(mcp_servers=[{"name": "open", "transport": "http", "url": plain.url()}])
    window = make_window(qtbot, ctx)
    try:
        qtbot.waitUntil(lambda: (c := connection(window, "open")) is not None
                        and c.state == "running", timeout=30000)
        dialog = open_dialog(window)
        row = dialog.form.sign_in_row
        assert row.isVisible() and row.label.text() == "No sign-in used."
        assert not row.sign_in_button.isVisible() and not row.sign_out_button.isVisible()
        dialog.close()
    finally:
        stop_servers(qtbot, window)
        plain.stop()


def stored_slots(ctx: AppContext) -> set[str]:
    path = ctx.secrets.path
    return set(json.loads(path.read_text(encoding="utf-8"))["keys"]) if path.exists() else set()


def test_rename_moves_the_sign_in_and_remove_forgets_it(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    guarded = ServerProcess(GUARDED)
    ctx = open_ctx()
    ctx.settings.update(mcp_servers=[{"name": "guarded", "transport": "http",
                                      "url": guarded.url(),
                                      "headers": {"X-Team": "team-4410-secret"}}])
    window = make_window(qtbot, ctx)
    try:
        browser = Browser()
        window.controller.tools.browser = browser
        window.controller.start_mcp()
        qtbot.waitUntil(lambda: (c := connection(window, "guarded")) is not None
                        and c.needs_sign_in and c.sign_in is not None
                        and c.sign_in.browser is browser, timeout=30000)
        dialog = open_dialog(window)
        dialog.form.sign_in_row.sign_in_button.click()
        qtbot.waitUntil(lambda: dialog.form.sign_in_row.label.text() == "Signed in.",
                        timeout=30000)
        assert {"mcp:guarded:oauth:tokens", "mcp:guarded:oauth:client",
                "mcp:guarded:headers:X-Team"} <= stored_slots(ctx)

        # Renamed: the sign-in and the header go with it; it starts without asking.
        dialog.form.name_edit.setText("hub")
        dialog.form.name_edit.textEdited.emit("hub")
        assert dialog.save()
        qtbot.waitUntil(lambda: running(window, "hub"), timeout=30000)
        assert len(browser.opened) == 1  # no second sign-in
        assert not any(s.startswith("mcp:guarded:") for s in stored_slots(ctx))
        assert {"mcp:hub:oauth:tokens", "mcp:hub:oauth:client",
                "mcp:hub:headers:X-Team"} <= stored_slots(ctx)
        qtbot.waitUntil(lambda: dialog.form.sign_in_row.label.text() == "Signed in.",
                        timeout=10000)

        # Removed (and saved): nothing of it is left in the secret store.
        dialog.remove_current()
        assert dialog.save()
        assert not any(s.startswith("mcp:hub:") for s in stored_slots(ctx))
        assert "team-4410-secret" not in ctx.secrets.path.read_text(encoding="utf-8")
        qtbot.waitUntil(lambda: window.controller.tools.mcp is None
                        or window.controller.tools.mcp.get("hub") is None, timeout=30000)
        dialog.close()
    finally:
        stop_servers(qtbot, window)
        guarded.stop()


def test_a_sign_in_app_registered_by_hand(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """A server whose sign-in registers no apps: the Client ID, secret and callback port
    typed in the form are saved (the secret in the secret store only) and sign in."""
    from tests.tools.test_tools_mcp_oauth import free_port

    port = free_port()
    guarded = ServerProcess(GUARDED, env={
        "MCP_OAUTH_CLIENT": f"desk-app app-secret-5150 http://127.0.0.1:{port}/callback"})
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    try:
        browser = Browser()
        window.controller.tools.browser = browser
        dialog = open_dialog(window)
        dialog.add_server("http")
        form = dialog.form
        assert form.client_fields.isVisibleTo(form)
        qtbot.keyClicks(form.url_edit, guarded.url())
        qtbot.keyClicks(form.client_fields.client_id_edit, "desk-app")
        qtbot.keyClicks(form.client_fields.client_secret_edit, "app-secret-5150")
        form.client_fields.port_spin.setValue(port)
        assert form.client_fields.redirect_label.text().endswith(
            f"http://127.0.0.1:{port}/callback")
        assert dialog.save()
        stored = ctx.settings_store.load().mcp_servers[0]
        assert stored["oauth_client_id"] == "desk-app" and stored["oauth_redirect_port"] == port
        assert stored["oauth_client_secret"] != "app-secret-5150"
        assert ctx.secrets.get("mcp:server:oauth:client_secret") == "app-secret-5150"
        secret_edit = form.client_fields.client_secret_edit
        assert secret_edit.text() == "" and "stored in the keyring" in secret_edit.placeholderText()

        qtbot.waitUntil(lambda: (c := connection(window, "server")) is not None
                        and c.needs_sign_in, timeout=30000)
        row = form.sign_in_row
        qtbot.waitUntil(row.sign_in_button.isVisible, timeout=5000)
        row.sign_in_button.click()
        qtbot.waitUntil(lambda: row.label.text() == "Signed in.", timeout=30000)
        assert "client_id=desk-app" in browser.opened[0]
        qtbot.waitUntil(lambda: form.tools_table.rowCount() == 2, timeout=5000)
        ctx.db.checkpoint()
        files = list(ctx.paths.db_path.parent.glob(ctx.paths.db_path.name + "*"))
        assert files and all(b"app-secret-5150" not in p.read_bytes() for p in files)
        dialog.close()
    finally:
        stop_servers(qtbot, window)
        guarded.stop()
