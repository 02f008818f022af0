"""A removed MCP server's stored keys and sign-in are deleted; a renamed one's move with
it (swapped names too); a name taken by another server does not inherit a sign-in.
The sign-in is written by the SDK-facing token storage, as in a real sign-in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from desktop.storage.mcp_secrets import settle_servers, stash_mcp_secrets
from desktop.storage.secrets import SecretStore
from desktop.tools.mcp.oauth import KeyringTokenStorage

URL = "https://mcp.example.com/mcp"


async def signed_in(secrets: SecretStore, server: dict[str, Any], token: str) -> dict[str, Any]:
    """``server`` saved (its header and secret argument in the store) and signed in."""
    storage = KeyringTokenStorage(secrets, server["name"], URL)
    await storage.set_tokens(OAuthToken(access_token=token, refresh_token=f"r-{token}",
                                        expires_in=3600))
    await storage.set_client_info(OAuthClientInformationFull(
        client_id=f"client-{token}", redirect_uris=["http://127.0.0.1:4711/callback"]))
    return stash_mcp_secrets(server, secrets)


def remote(name: str, header: str) -> dict[str, Any]:
    return {"name": name, "transport": "http", "url": URL, "headers": {"X-Key": header}}


def slots(secrets: SecretStore) -> set[str]:
    return set(json.loads(secrets.path.read_text(encoding="utf-8"))["keys"])


async def test_remove_forgets_and_rename_moves(tmp_path: Path) -> None:
    secrets = SecretStore(tmp_path / "secrets.json", force_file=True)
    gone = await signed_in(secrets, remote("gone", "hdr-gone"), "tok-gone")
    kept = await signed_in(secrets, remote("kept", "hdr-kept"), "tok-kept")
    local = stash_mcp_secrets({"name": "local", "command": "npx", "args": ["--pin", "4242"],
                               "secret_args": [1], "env": {"API_KEY": "k-local"}}, secrets)
    before = [gone, kept, local]
    assert slots(secrets) >= {"mcp:gone:oauth:tokens", "mcp:gone:oauth:client",
                              "mcp:gone:headers:X-Key", "mcp:local:args:1",
                              "mcp:local:env:API_KEY"}

    done = settle_servers(before, {"kept": "renamed"}, {"kept"}, secrets)
    assert len(done) == 3
    left = slots(secrets)
    assert not any(s.startswith(("mcp:gone:", "mcp:kept:", "mcp:local:")) for s in left)
    assert left == {"mcp:renamed:oauth:tokens", "mcp:renamed:oauth:client",
                    "mcp:renamed:headers:X-Key"}
    storage = KeyringTokenStorage(secrets, "renamed", URL)
    tokens = await storage.get_tokens()
    client = await storage.get_client_info()
    assert tokens is not None and tokens.access_token == "tok-kept"
    assert client is not None and client.client_id == "client-tok-kept"
    assert secrets.get("mcp:renamed:headers:X-Key") == "hdr-kept"


async def test_swapped_names_and_a_name_taken_by_another(tmp_path: Path) -> None:
    secrets = SecretStore(tmp_path / "secrets.json", force_file=True)
    a = await signed_in(secrets, remote("a", "hdr-a"), "tok-a")
    b = await signed_in(secrets, remote("b", "hdr-b"), "tok-b")
    settle_servers([a, b], {"a": "b", "b": "a"}, {"a", "b"}, secrets)
    assert (await KeyringTokenStorage(secrets, "a", URL).get_tokens()).access_token == "tok-b"  # type: ignore[union-attr]
    assert (await KeyringTokenStorage(secrets, "b", URL).get_tokens()).access_token == "tok-a"  # type: ignore[union-attr]

    # "b" removed and "a" renamed to "b": the new "b" is signed in as "a" was, not as
    # the removed "b"; nothing is left under "a"
    a, b = {**b, "name": "a"}, {**a, "name": "b"}
    settle_servers([a, b], {"a": "b"}, {"a"}, secrets)
    assert (await KeyringTokenStorage(secrets, "b", URL).get_tokens()).access_token == "tok-b"  # type: ignore[union-attr]
    assert not any(s.startswith("mcp:a:") for s in slots(secrets))

    # removed while a new server takes the name in the same save: it is not signed in
    settle_servers([{**a, "name": "b"}], {}, set(), secrets)
    assert not KeyringTokenStorage(secrets, "b", URL).signed_in()
    assert slots(secrets) == set()
