"""Each AppContext owns its log redactor: keys it reads or writes never reach its log."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.core.settings import ProviderConfig
from desktop.storage import logs
from desktop.storage.secrets import SecretStore

# Shaped like no known key, so only the exact-value redaction can hide them.
PROVIDER_KEY = "local-llm-password-4711"
MCP_TOKEN = "plain-mcp-value-0815"


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    logs.shutdown_logging()


def _log_text(ctx: AppContext) -> str:
    for handler in logging.getLogger().handlers:
        handler.flush()
    return (ctx.paths.logs_dir / logs.LOG_FILENAME).read_text(encoding="utf-8")


def test_keys_the_context_handles_are_redacted_from_its_log(tmp_path: Path) -> None:
    ctx = AppContext.open(tmp_path / "a", environ={}, log_to_stderr=False)
    try:
        # A store made elsewhere is given the context's redactor when it is assigned.
        ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
        config = ProviderConfig(name="Local", base_url="http://127.0.0.1:9/v1")
        ctx.settings_store.save_provider(config)
        ctx.secrets.set(config.id, PROVIDER_KEY)
        ctx.settings.update(mcp_servers=[{"name": "srv", "transport": "stdio",
                                          "command": "srv", "env": {"API_TOKEN": MCP_TOKEN}}])
        assert ctx.providers.api_key(config) == PROVIDER_KEY
        logging.getLogger("test").warning("key %s token %s", PROVIDER_KEY, MCP_TOKEN)
        text = _log_text(ctx)
        assert f"key {logs.REDACTED} token {logs.REDACTED}" in text
        assert PROVIDER_KEY not in text and MCP_TOKEN not in text
    finally:
        ctx.close()


def test_redactors_are_per_context(tmp_path: Path) -> None:
    first = AppContext.open(tmp_path / "a", environ={}, log_to_stderr=False)
    first.secrets = SecretStore(first.paths.secrets_path, force_file=True)
    first.secrets.set("p", PROVIDER_KEY)
    first.close()
    second = AppContext.open(tmp_path / "b", environ={}, log_to_stderr=False)
    try:
        assert first.redactor.redact(PROVIDER_KEY) == logs.REDACTED
        assert second.redactor.redact(PROVIDER_KEY) == PROVIDER_KEY
        assert logs.redact(PROVIDER_KEY) == PROVIDER_KEY  # no process-wide list
    finally:
        second.close()
