"""Signing in to an MCP server whose authorization server nobody here wrote: panva's
``oidc-provider`` (a certified OpenID Provider) and ``oauth2-mock-server``, both from
npm, on loopback. The MCP server (tests/tools/mcp_resource_server.py, on the SDK) only
checks their JWTs and names them in its protected-resource metadata (RFC 9728); the app
finds the authorization server from there, signs in (the test's browser fills in the
server's own sign-in and consent pages), calls tools with the token, refreshes an
expired token at the authorization server's token endpoint (RFC 8414 metadata stored
with the tokens), and refreshes again after that server was restarted."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.storage.secrets import SecretStore
from desktop.tools.mcp import McpServerConfig
from desktop.tools.mcp.manager import McpManager
from desktop.tools.mcp.oauth import OAuthSetup
from tests.tools.mcp_servers import HERE, PLAIN_PATH, ServerProcess
from tests.tools.oauth_servers import AuthServer, FormBrowser

RESOURCE_SERVER = str(HERE / "mcp_resource_server.py")
TOKENS = "mcp:protected:oauth:tokens"


@pytest.fixture
def secrets(tmp_path: Path) -> SecretStore:
    return SecretStore(tmp_path / "secrets.json", force_file=True)


class Pair:
    """An npm authorization server and the MCP server that trusts it."""

    def __init__(self, package: str, state: Path, *scope: str) -> None:
        self.auth = AuthServer(package, state)
        self.resource = ServerProcess(RESOURCE_SERVER, self.auth.issuer, *scope)

    def stop(self) -> None:
        self.resource.stop()
        self.auth.stop()


@pytest.fixture
def oidc(tmp_path: Path) -> Iterator[Pair]:
    pair = Pair("oidc-provider", tmp_path / "oidc", "mcp")
    yield pair
    pair.stop()


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[Pair]:
    pair = Pair("oauth2-mock-server", tmp_path / "mock")
    yield pair
    pair.stop()


def manager(pair: Pair, secrets: SecretStore, browser: FormBrowser | None,
            **oauth: str) -> McpManager:
    config = McpServerConfig(name="protected", transport="http", url=pair.resource.url(),
                             startup_timeout_s=30, call_timeout_s=30, **oauth)
    return McpManager([config], login_path=PLAIN_PATH, backoff_s=0.01,
                      oauth=OAuthSetup(secrets, browser, wait_s=60))


async def call(mcp: McpManager, tool: str) -> str:
    result = await mcp.connections["protected"].call_tool(tool, {}, 30)
    return str(result.content[0].text)  # type: ignore[union-attr]


def expire(secrets: SecretStore) -> dict[str, object]:
    """Mark the stored access token expired (as if the app was closed past its
    lifetime); what was stored before."""
    stored = json.loads(secrets.get(TOKENS) or "{}")
    secrets.set(TOKENS, json.dumps(stored | {"expires_at": time.time() - 60}))
    return dict(stored)


async def refreshed_quietly(pair: Pair, secrets: SecretStore, **oauth: str) -> None:
    """A new run, nobody to ask: the expired token is refreshed and a tool runs."""
    before = expire(secrets)
    mcp = manager(pair, secrets, None, **oauth)
    try:
        assert await mcp.start_all() == {"protected": True}, \
            mcp.connections["protected"].last_error
        assert await call(mcp, "whoami") != "nobody"
    finally:
        await mcp.stop_all()
    after = json.loads(secrets.get(TOKENS) or "{}")
    assert after["token"]["access_token"] != before["token"]["access_token"]  # type: ignore[index]
    assert after["expires_at"] > time.time()


async def test_oidc_provider_sign_in_refresh_and_refresh_after_its_restart(
        oidc: Pair, secrets: SecretStore) -> None:
    browser = FormBrowser(login="alice")
    mcp = manager(oidc, secrets, browser)
    try:
        assert await mcp.start_all() == {"protected": False}  # background: "Sign in"
        assert mcp.connections["protected"].needs_sign_in
        assert await mcp.connections["protected"].sign_in_now(), \
            mcp.connections["protected"].last_error
        # its own pages: sign-in, then consent; then back to the app
        assert browser.forms == ["login", "consent"]
        assert "Signed in" in browser.final
        url = browser.opened[0]
        assert url.startswith(f"{oidc.auth.issuer}/auth?")
        assert "code_challenge_method=S256" in url and "resource=" in url
        assert await call(mcp, "whoami") == "alice"  # the subject of its JWT
    finally:
        await mcp.stop_all()

    grants = oidc.auth.grants()
    assert grants[0].startswith("register ")  # dynamic client registration (RFC 7591)
    client_id = grants[0].split()[1]
    assert grants[1:] == [f"grant authorization_code {client_id}"]
    stored = json.loads(secrets.get(TOKENS) or "{}")
    assert stored["issuer"]["metadata"]["token_endpoint"] == f"{oidc.auth.issuer}/token"
    assert stored["token"]["refresh_token"]

    # Expired: refreshed at the authorization server (the MCP server has no /token).
    await refreshed_quietly(oidc, secrets)
    assert oidc.auth.grants()[2:] == [f"grant refresh_token {client_id}"]

    # The authorization server restarts (its clients and refresh tokens kept in its
    # store): the rotated refresh token still works, no new sign-in or registration.
    oidc.auth = oidc.auth.restart()
    await refreshed_quietly(oidc, secrets)
    assert oidc.auth.grants()[2:] == [f"grant refresh_token {client_id}"] * 2


async def test_oauth2_mock_server_with_a_client_registered_by_hand(
        mock: Pair, secrets: SecretStore) -> None:
    """oauth2-mock-server offers no registration: without a Client ID the sign-in says
    so; with one it signs in (approving at once), refreshes at its token endpoint, and
    again after a restart (it keeps no state: it takes any refresh token, and its
    signing key is kept by the launcher)."""
    browser = FormBrowser()
    mcp = manager(mock, secrets, browser)
    try:
        assert not await mcp.connections["protected"].sign_in_now()
        assert "enter the Client ID" in (mcp.connections["protected"].last_error or "")
        assert browser.opened == []
    finally:
        await mcp.stop_all()

    mcp = manager(mock, secrets, browser, oauth_client_id="assista-by-hand")
    try:
        assert await mcp.connections["protected"].sign_in_now(), \
            mcp.connections["protected"].last_error
        assert browser.opened[0].startswith(f"{mock.auth.issuer}/authorize?")
        assert "client_id=assista-by-hand" in browser.opened[0]
        assert "Signed in" in browser.final and browser.forms == []
        assert await call(mcp, "whoami") == "johndoe"  # the mock's fixed subject
    finally:
        await mcp.stop_all()
    assert mock.auth.grants() == ["grant authorization_code assista-by-hand"]
    stored = json.loads(secrets.get(TOKENS) or "{}")
    assert stored["issuer"]["metadata"]["token_endpoint"] == f"{mock.auth.issuer}/token"

    await refreshed_quietly(mock, secrets, oauth_client_id="assista-by-hand")
    mock.auth = mock.auth.restart()
    await refreshed_quietly(mock, secrets, oauth_client_id="assista-by-hand")
    assert mock.auth.grants()[1:] == ["grant refresh_token assista-by-hand"] * 2
