"""MCP tokens (env values, auth headers) live in the secret store, not the database."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.app import AppContext
from desktop.storage.mcp_secrets import ARG_PLACEHOLDER, SECRET_PLACEHOLDER
from desktop.storage.secrets import SecretStore
from desktop.tools.mcp.catalog import install_config


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
    """Every header value of a remote server is kept like a token; a server saved
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
        assert stored == {"X-Corp-Sig": SECRET_PLACEHOLDER, "User-Agent": SECRET_PLACEHOLDER}
        assert again.mcp_configs()[0].headers["X-Corp-Sig"] == "sig_9f8e7d6c5b"
        again.db.checkpoint()
        for path in tmp_path.glob("assista.sqlite3*"):
            assert b"sig_9f8e7d6c5b" not in path.read_bytes()
    finally:
        again.close()


def test_values_the_registry_marks_secret_never_reach_the_database(tmp_path: Path) -> None:
    """Installed from the catalog: an env value and an argument marked isSecret whose
    names look harmless, and a header, go to the secret store; the settings and the
    database file hold placeholders; the server setting gets them back to start."""
    from desktop.tools.mcp.catalog import parse_entries
    from tests.support.mcp_registry_server import listing

    package = {"registryType": "npm", "identifier": "@example/vault", "version": "1.0.0",
               "transport": {"type": "stdio"},
               "packageArguments": [
                   {"type": "named", "name": "--pin", "isSecret": True, "isRequired": True},
                   {"type": "positional", "valueHint": "folder"}],
               "environmentVariables": [{"name": "VAULT_ADDR_CODE", "isSecret": True},
                                        {"name": "REGION"}]}
    remote = {"type": "streamable-http", "url": "https://mcp.example.com/mcp",
              "headers": [{"name": "X-Workspace", "isSecret": False}]}
    entry = parse_entries([listing({"name": "com.example/vault", "description": "",
                                    "packages": [package], "remotes": [remote]})])[0]
    local = install_config(entry.installs[0], "vault", {
        "--pin": "pin-7391-secret", "folder": "/notes", "VAULT_ADDR_CODE": "code-5512-secret",
        "REGION": "eu"})
    hosted = install_config(entry.installs[1], "hosted", {"X-Workspace": "ws-8830-secret"})
    ctx = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    try:
        ctx.settings.update(mcp_servers=[local.model_dump(mode="json"),
                                         hosted.model_dump(mode="json")])
        stored = ctx.settings_store.load().mcp_servers
        assert stored[0]["env"] == {"VAULT_ADDR_CODE": SECRET_PLACEHOLDER, "REGION": "eu"}
        assert stored[0]["args"][-3:] == ["--pin", ARG_PLACEHOLDER.format(n=3), "/notes"]
        assert stored[0]["secret_args"] == []
        assert stored[1]["headers"] == {"X-Workspace": SECRET_PLACEHOLDER}
        configs = {c.name: c for c in ctx.mcp_configs()}
        assert configs["vault"].args == ["-y", "@example/vault@1.0.0", "--pin",
                                         "pin-7391-secret", "/notes"]
        assert configs["vault"].env == {"VAULT_ADDR_CODE": "code-5512-secret", "REGION": "eu"}
        assert configs["vault"].describe() == "npx -y @example/vault@1.0.0 --pin •••••• /notes"
        assert local.describe() == configs["vault"].describe()  # before it was stored too
        assert configs["hosted"].headers == {"X-Workspace": "ws-8830-secret"}
        # The user edits the other arguments in the form: the secret one follows its mark.
        edited = dict(stored[0], args=["--verbose", *stored[0]["args"]])
        ctx.settings.update(mcp_servers=[edited, stored[1]])
        assert ctx.mcp_configs()[0].args[-3:] == ["--pin", "pin-7391-secret", "/notes"]

        ctx.db.checkpoint()
        settings_text = json.dumps(ctx.settings.current.model_dump(mode="json"))
        files = [p.read_bytes() for p in tmp_path.glob("assista.sqlite3*")]
        assert files
        for secret in ("pin-7391-secret", "code-5512-secret", "ws-8830-secret"):
            assert secret not in settings_text
            assert all(secret.encode() not in data for data in files)
            assert secret in ctx.paths.secrets_path.read_text(encoding="utf-8")
    finally:
        ctx.close()
