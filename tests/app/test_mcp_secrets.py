"""MCP tokens (env values, auth headers) live in the secret store, not the database."""

from __future__ import annotations

from pathlib import Path

from desktop.app import AppContext
from desktop.storage.mcp_secrets import SECRET_PLACEHOLDER
from desktop.storage.secrets import SecretStore


def test_mcp_tokens_are_kept_out_of_settings(tmp_path: Path) -> None:
    ctx = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    try:
        server = {"name": "gh", "transport": "stdio", "command": "npx",
                  "args": ["-y", "server-github"],
                  "env": {"GITHUB_TOKEN": "ghp_secretvalue123456", "LOG_LEVEL": "debug"}}
        web = {"name": "web", "transport": "http", "url": "https://mcp.example.com/mcp",
               "headers": {"Authorization": "Bearer tok_abcdef123456", "X-Team": "blue"}}
        ctx.settings.update(mcp_servers=[server, web])
        stored = ctx.settings_store.load().mcp_servers
        assert ctx.settings.current.mcp_servers == stored
        assert stored[0]["env"] == {"GITHUB_TOKEN": SECRET_PLACEHOLDER, "LOG_LEVEL": "debug"}
        assert stored[1]["headers"]["Authorization"] == SECRET_PLACEHOLDER
        configs = {c.name: c for c in ctx.mcp_configs()}
        assert configs["gh"].env["GITHUB_TOKEN"] == "ghp_secretvalue123456"
        assert configs["web"].headers == {"Authorization": "Bearer tok_abcdef123456",
                                          "X-Team": "blue"}
        # saving again (the dialog shows the placeholder) keeps the stored secret
        ctx.settings.replace(ctx.settings.current)
        assert ctx.mcp_configs()[0].env["GITHUB_TOKEN"] == "ghp_secretvalue123456"
        ctx.db.checkpoint()
        for path in tmp_path.glob("assista.sqlite3*"):
            data = path.read_bytes()
            assert b"ghp_secretvalue" not in data and b"tok_abcdef" not in data
    finally:
        ctx.close()


def test_any_custom_header_is_a_secret_and_old_clear_values_move(tmp_path: Path) -> None:
    """A header named outside any list (X-Corp-Sig) is kept like a token; a server saved
    in clear by an older version is moved to the secret store when the folder opens."""
    ctx = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    try:
        web = {"name": "web", "transport": "http", "url": "https://mcp.example.com/mcp",
               "headers": {"X-Corp-Sig": "sig_9f8e7d6c5b", "User-Agent": "assista"}}
        raw = ctx.settings.current.model_dump(mode="json")
        raw["mcp_servers"] = [web]
        ctx.settings_store.set_value("app", raw)  # as an older version stored it
    finally:
        ctx.close()
    again = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    again.secrets = SecretStore(again.paths.secrets_path, force_file=True)
    try:
        stored = again.settings_store.load().mcp_servers[0]["headers"]
        assert stored == {"X-Corp-Sig": SECRET_PLACEHOLDER, "User-Agent": "assista"}
        assert again.mcp_configs()[0].headers["X-Corp-Sig"] == "sig_9f8e7d6c5b"
        again.db.checkpoint()
        for path in tmp_path.glob("assista.sqlite3*"):
            assert b"sig_9f8e7d6c5b" not in path.read_bytes()
    finally:
        again.close()
