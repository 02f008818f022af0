"""Asking a provider for its models keeps the event loop free while the provider is
built: the first one built opens (and imports) the keyring and makes a TLS context,
which froze the window just after start-up."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from desktop.app import AppContext
from desktop.core.settings import ProviderConfig
from desktop.storage.secrets import SecretStore
from tests.support.openai_server import FakeOpenAIServer


async def test_the_provider_for_a_model_list_is_built_off_the_event_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    built_on: list[threading.Thread] = []
    build = ctx.build_provider

    def recording_build(config: ProviderConfig, **kwargs: Any) -> Any:
        built_on.append(threading.current_thread())
        return build(config, **kwargs)

    monkeypatch.setattr(ctx, "build_provider", recording_build)
    try:
        with FakeOpenAIServer(models=["a", "b"]) as server:
            config = ProviderConfig(name="P", base_url=server.base_url)
            ctx.settings_store.save_provider(config)
            ctx.secrets.set(config.id, "sk-test")
            assert [m.id for m in await ctx.providers.refresh_models(config)] == ["a", "b"]
        assert built_on and built_on[0] is not threading.current_thread()
        assert [m.id for m in ctx.providers.cached_models(config)] == ["a", "b"]
    finally:
        ctx.close()

