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
