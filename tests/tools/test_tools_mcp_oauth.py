"""Signing in to a remote MCP server with OAuth 2.1 (the SDK's client auth), against
a real SDK server with its own authorization server on loopback that approves at
once; the test plays the browser with httpx."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from desktop.storage.secrets import SecretStore
from desktop.tools.mcp import McpServerConfig
from desktop.tools.mcp.manager import McpManager
from desktop.tools.mcp.oauth import KeyringTokenStorage, OAuthSetup
from tests.tools.mcp_servers import FEATURES, HERE, PLAIN_PATH, ServerProcess, feature_config

GUARDED = str(HERE / "mcp_oauth_server.py")


class Browser:
    """Opens the authorization URL like a browser would, following the redirect to
    the app's loopback listener."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.pages: list[str] = []

    async def __call__(self, url: str) -> None:
        self.opened.append(url)
        async with httpx.AsyncClient(follow_redirects=True, trust_env=False) as client:
            response = await client.get(url)
        self.pages.append(response.text)


@pytest.fixture
def guarded() -> Iterator[ServerProcess]:
    process = ServerProcess(GUARDED)
    yield process
    process.stop()


@pytest.fixture
def secrets(tmp_path: Path) -> SecretStore:
    return SecretStore(tmp_path / "secrets.json", force_file=True)


def manager(url: str, secrets: SecretStore, browser: Browser | None) -> McpManager:
    config = McpServerConfig(name="guarded", transport="http", url=url, startup_timeout_s=30)
    return McpManager([config], login_path=PLAIN_PATH, backoff_s=0.01,
                      oauth=OAuthSetup(secrets, browser))


async def call(mcp: McpManager, tool: str) -> str:
    result = await mcp.connections["guarded"].call_tool(tool, {}, 30)
    return str(result.content[0].text)  # type: ignore[union-attr]


async def test_sign_in_refresh_and_sign_out(guarded: ServerProcess,
                                            secrets: SecretStore) -> None:
    browser = Browser()
    mcp = manager(guarded.url(), secrets, browser)
    connection = mcp.connections["guarded"]
    try:
        # A background start never opens a browser: the server waits for "Sign in".
        assert await mcp.start_all() == {"guarded": False}
        assert connection.needs_sign_in and connection.last_error == "needs sign-in"
        assert browser.opened == [] and not connection.signed_in()

        assert await connection.sign_in_now()
        assert len(browser.opened) == 1
        url = browser.opened[0]
        for param in ("code_challenge_method=S256", "code_challenge=", "state=",
                      "resource=", "redirect_uri=http%3A%2F%2F127.0.0.1%3A"):
            assert param in url
        assert "Signed in" in browser.pages[0]
        assert connection.signed_in() and not connection.needs_sign_in
        assert [t.name for t in connection.tools] == ["whoami", "auth_stats"]
        assert await call(mcp, "whoami") == "a signed-in user"
        assert await call(mcp, "auth_stats") == "register=1 authorize=1 code=1 refresh=0"
    finally:
        await mcp.stop_all()

    # The next run uses the stored tokens without asking anyone.
    stored = json.loads(secrets.get("mcp:guarded:oauth:tokens") or "{}")
    assert stored["token"]["access_token"] and stored["expires_at"] > time.time()
    quiet = manager(guarded.url(), secrets, None)
    try:
        assert await quiet.start_all() == {"guarded": True}
        assert await call(quiet, "auth_stats") == "register=1 authorize=1 code=1 refresh=0"
    finally:
        await quiet.stop_all()

    # An expired access token is refreshed silently (a refresh grant, no authorization).
    stored["expires_at"] = time.time() - 60
    secrets.set("mcp:guarded:oauth:tokens", json.dumps(stored))
    later = manager(guarded.url(), secrets, None)
    connection = later.connections["guarded"]
    try:
        assert await later.start_all() == {"guarded": True}
        assert await call(later, "auth_stats") == "register=1 authorize=1 code=1 refresh=1"
        renewed = json.loads(secrets.get("mcp:guarded:oauth:tokens") or "{}")
        assert renewed["token"]["access_token"] != stored["token"]["access_token"]
        assert renewed["expires_at"] > time.time()

        # Sign out forgets tokens and client; the server waits for a sign-in again.
        await connection.sign_out()
        assert secrets.get("mcp:guarded:oauth:tokens") is None
        assert secrets.get("mcp:guarded:oauth:client") is None
        assert connection.needs_sign_in and connection.state == "failed"
        assert not connection.signed_in()
        # ...and offers none of the tools it listed while signed in
        assert connection.tools == [] and connection.lists.prompts == []
        assert later.tools() == [] and later.registry().names() == []
    finally:
        await later.stop_all()


async def test_sign_in_reuses_the_registered_port(guarded: ServerProcess,
                                                  secrets: SecretStore) -> None:
    browser = Browser()
    mcp = manager(guarded.url(), secrets, browser)
    try:
        assert await mcp.connections["guarded"].sign_in_now()
        await mcp.connections["guarded"].stop()
        secrets.delete("mcp:guarded:oauth:tokens")  # e.g. revoked: sign in again
        assert await mcp.connections["guarded"].sign_in_now()
        # The loopback listener took the registered port again: no second registration.
        # (3 authorizations: before the browser opens for the stored client, the app asks
        # the authorization server whether it still knows it.)
        assert await call(mcp, "auth_stats") == "register=1 authorize=3 code=2 refresh=0"
    finally:
        await mcp.stop_all()


async def test_sign_in_over_legacy_sse(secrets: SecretStore) -> None:
    process = ServerProcess(GUARDED, "sse")
    config = McpServerConfig(name="guarded", transport="sse", url=process.url("/sse"))
    mcp = McpManager([config], login_path=PLAIN_PATH, backoff_s=0.01,
                     oauth=OAuthSetup(secrets, Browser()))
    try:
        assert await mcp.start_all() == {"guarded": False}
        assert mcp.connections["guarded"].needs_sign_in
        assert await mcp.connections["guarded"].sign_in_now()
        assert await call(mcp, "whoami") == "a signed-in user"
    finally:
        await mcp.stop_all()
        process.stop()


async def test_tokens_are_not_sent_to_a_changed_url(secrets: SecretStore) -> None:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    old = KeyringTokenStorage(secrets, "x", "https://old.example/mcp")
    await old.set_tokens(OAuthToken(access_token="secret-access", expires_in=60))
    await old.set_client_info(OAuthClientInformationFull(
        client_id="c1", redirect_uris=["http://127.0.0.1:1/callback"]))
    assert old.signed_in()
    assert (await old.get_client_info()).client_id == "c1"  # type: ignore[union-attr]
    moved = KeyringTokenStorage(secrets, "x", "https://new.example/mcp")
    assert await moved.get_tokens() is None and await moved.get_client_info() is None
    assert not moved.signed_in()


async def test_unreadable_stored_sign_in_asks_again(secrets: SecretStore) -> None:
    secrets.set("mcp:x:oauth:tokens", "{not json")
    storage = KeyringTokenStorage(secrets, "x")
    assert await storage.get_tokens() is None
    assert await storage.expires_at() is None


async def test_servers_without_sign_in_keep_working(secrets: SecretStore) -> None:
    process = ServerProcess(FEATURES, "http")
    config = feature_config(transport="http", url=process.url(), command="")
    mcp = McpManager([config], login_path=PLAIN_PATH, backoff_s=0.01,
                     oauth=OAuthSetup(secrets, None))
    try:
        assert await mcp.start_all() == {"features": True}
        assert not mcp.connections["features"].needs_sign_in
        assert secrets.get("mcp:features:oauth:tokens") is None
    finally:
        await mcp.stop_all()
        process.stop()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_client_registered_by_hand_signs_in_where_registration_is_off(
    secrets: SecretStore,
) -> None:
    """The authorization server offers no dynamic registration: without a Client ID the
    sign-in says what to do (at once, no retries); with the client registered beforehand
    (its secret checked at the token endpoint, its exact callback port) it signs in and
    refreshes, and nothing is registered."""
    port = free_port()
    process = ServerProcess(GUARDED, env={
        "MCP_OAUTH_CLIENT": f"assista-pre s3cret-9021 http://127.0.0.1:{port}/callback"})
    try:
        browser = Browser()
        mcp = manager(process.url(), secrets, browser)
        connection = mcp.connections["guarded"]
        try:
            assert not await connection.sign_in_now()
            assert connection.state == "failed" and connection.failures == 0
            assert "enter the Client ID" in (connection.last_error or "")
            assert browser.opened == []
        finally:
            await mcp.stop_all()

        def by_hand(secret: str) -> McpManager:
            config = McpServerConfig(name="guarded", transport="http", url=process.url(),
                                     oauth_client_id="assista-pre", oauth_client_secret=secret,
                                     oauth_redirect_port=port)
            return McpManager([config], login_path=PLAIN_PATH, backoff_s=0.01,
                              oauth=OAuthSetup(secrets, browser))

        wrong = by_hand("not-the-secret")
        try:  # the server checks the secret: a wrong one is refused, the browser opened once
            assert not await wrong.connections["guarded"].sign_in_now()
            assert len(browser.opened) == 1
            assert "check the Client ID and secret" in (
                wrong.connections["guarded"].last_error or "")
            assert secrets.get("mcp:guarded:oauth:tokens") is None
        finally:
            await wrong.stop_all()

        mcp = by_hand("s3cret-9021")
        connection = mcp.connections["guarded"]
        try:
            assert await connection.sign_in_now()
            assert f"redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback" in browser.opened[-1]
            assert "client_id=assista-pre" in browser.opened[-1]
            assert await call(mcp, "auth_stats") == "register=0 authorize=2 code=1 refresh=0"
            assert secrets.get("mcp:guarded:oauth:client") is None  # nothing registered
        finally:
            await mcp.stop_all()

        stored = json.loads(secrets.get("mcp:guarded:oauth:tokens") or "{}")
        stored["expires_at"] = time.time() - 60
        secrets.set("mcp:guarded:oauth:tokens", json.dumps(stored))
        quiet = by_hand("s3cret-9021")
        try:  # refreshed silently with the client's secret
            assert await quiet.start_all() == {"guarded": True}
            assert await call(quiet, "auth_stats") == "register=0 authorize=2 code=1 refresh=1"
        finally:
            await quiet.stop_all()
    finally:
        process.stop()


async def test_refresh_goes_to_a_separate_authorization_server(secrets: SecretStore) -> None:
    """The authorization server on another origin (RFC 9728 metadata names it): after a
    restart, an expired token is refreshed at its token endpoint (RFC 8414), stored
    with the tokens, not at /token on the MCP server."""
    split = ServerProcess(GUARDED, "split", env={"MCP_OAUTH_TOKEN_S": "3600"})
    try:
        first = manager(split.url(), secrets, Browser())
        try:
            assert await first.connections["guarded"].sign_in_now()
        finally:
            await first.stop_all()
        stored = json.loads(secrets.get("mcp:guarded:oauth:tokens") or "{}")
        assert stored["issuer"]["metadata"]["token_endpoint"].endswith("/token")
        assert f":{split.port}/" not in stored["issuer"]["metadata"]["token_endpoint"]
        stored["expires_at"] = time.time() - 60  # expired while the app was closed
        secrets.set("mcp:guarded:oauth:tokens", json.dumps(stored))
        later = manager(split.url(), secrets, None)  # nobody there to sign in again
        try:
            assert await later.start_all() == {"guarded": True}
            assert await call(later, "auth_stats") == "register=1 authorize=1 code=1 refresh=1"
        finally:
            await later.stop_all()
    finally:
        split.stop()


async def test_an_app_the_authorization_server_forgot_registers_again(
        secrets: SecretStore) -> None:
    """Signed in once; the authorization server is then reset (a new process knows no
    client and no token): signing in again registers anew (RFC 7591) instead of sending
    the person to an error page and waiting for a redirect that never comes."""
    first = ServerProcess(GUARDED)
    try:
        mcp = manager(first.url(), secrets, Browser())
        try:
            assert await mcp.connections["guarded"].sign_in_now()
        finally:
            await mcp.stop_all()
    finally:
        first.stop()
    stored = json.loads(secrets.get("mcp:guarded:oauth:client") or "{}")
    reset = ServerProcess(GUARDED)
    try:
        stored["assista_url"] = reset.url()  # the same server, back at its address
        secrets.set("mcp:guarded:oauth:client", json.dumps(stored))
        browser = Browser()
        mcp = manager(reset.url(), secrets, browser)
        try:
            assert await mcp.connections["guarded"].sign_in_now()
            assert len(browser.opened) == 1  # only once the app was known again
            stats = await call(mcp, "auth_stats")
            assert stats.startswith("register=1 ") and stats.endswith(" code=1 refresh=0")
        finally:
            await mcp.stop_all()
    finally:
        reset.stop()


async def test_a_sign_in_nobody_finishes_gives_up_at_once_when_time_is_up(
        guarded: ServerProcess, secrets: SecretStore) -> None:
    opened: list[str] = []

    async def nobody_there(url: str) -> None:
        opened.append(url)

    config = McpServerConfig(name="guarded", transport="http", url=guarded.url(),
                             startup_timeout_s=30)
    mcp = McpManager([config], login_path=PLAIN_PATH, backoff_s=0.01,
                     oauth=OAuthSetup(secrets, nobody_there, wait_s=1.0))
    connection = mcp.connections["guarded"]
    try:
        assert not await connection.sign_in_now()
        assert "no sign-in within 1 seconds" in (connection.last_error or "")
        assert connection.state == "failed" and len(opened) == 1  # not retried
    finally:
        await mcp.stop_all()
