"""The chat service's tests run without Qt: a real data folder, a loopback server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.chat.service import ChatService
from desktop.core.settings import ProviderConfig
from desktop.storage.secrets import SecretStore
from tests.support.openai_server import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[AppContext]:
    context = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    context.secrets = SecretStore(context.paths.secrets_path, force_file=True)
    yield context
    context.close()


def add_provider(ctx: AppContext, server: FakeOpenAIServer) -> ProviderConfig:
    config = ProviderConfig(name="Loopback", preset="custom", base_url=server.base_url,
                            model="gpt-test")
    ctx.settings_store.save_provider(config)
    ctx.secrets.set(config.id, "sk-loopback-key-123456")
    ctx.settings.update(active_provider_id=config.id)
    return config


@pytest.fixture
def service(ctx: AppContext, server: FakeOpenAIServer) -> Iterator[ChatService]:
    add_provider(ctx, server)
    yield ChatService(ctx)
