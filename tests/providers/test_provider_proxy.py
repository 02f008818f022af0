"""A provider is handed the proxy: its client goes through a real loopback proxy, and
the process environment no longer decides (nothing is written into ``os.environ``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop.core.events import TextDelta
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest, Provider
from desktop.core.proxy import Proxy
from desktop.core.settings import ProviderConfig
from desktop.providers.factory import create_provider
from desktop.providers.retry import RetryPolicy
from tests.support.openai_server import FakeOpenAIServer, unused_port
from tests.support.proxy_server import LoopbackProxy

REQUEST = ChatRequest(model="gpt-test", messages=[Message.user("Hi")])
ENV_NAMES = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY",
             "all_proxy", "NO_PROXY", "no_proxy")  # fmt: skip


@pytest.fixture
def proxy() -> Iterator[LoopbackProxy]:
    with LoopbackProxy() as running:
        yield running


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def make(server: FakeOpenAIServer, proxy: Proxy | None) -> Provider:
    config = ProviderConfig(name="Fake", base_url=server.base_url, model="gpt-test")
    return create_provider(config, "sk-test", retry=RetryPolicy.disabled(), proxy=proxy)


async def text_of(provider: Provider) -> str:
    return "".join([e.text async for e in provider.stream(REQUEST) if isinstance(e, TextDelta)])


async def test_requests_go_through_the_given_proxy_not_the_environment(
    openai_server: FakeOpenAIServer, proxy: LoopbackProxy, clean_env: pytest.MonkeyPatch
) -> None:
    dead = f"http://127.0.0.1:{unused_port()}"  # an environment proxy would fail
    clean_env.setenv("HTTP_PROXY", dead)
    clean_env.setenv("ALL_PROXY", dead)
    openai_server.enqueue_text("via proxy")
    provider = make(openai_server, Proxy(proxy.url))
    try:
        models = await provider.list_models()
        assert await text_of(provider) == "via proxy"
    finally:
        await provider.aclose()
    assert [m.id for m in models] == ["gpt-test"]
    assert proxy.seen == [f"GET {openai_server.base_url}/models",
                          f"POST {openai_server.base_url}/chat/completions"]  # fmt: skip


async def test_bypassed_hosts_are_reached_directly(
    openai_server: FakeOpenAIServer, proxy: LoopbackProxy, clean_env: pytest.MonkeyPatch
) -> None:
    openai_server.enqueue_text("direct")
    provider = make(openai_server, Proxy(proxy.url, no_proxy="localhost, 127.0.0.1"))
    try:
        assert await text_of(provider) == "direct"
    finally:
        await provider.aclose()
    assert proxy.seen == []


async def test_an_empty_proxy_means_direct_even_if_the_environment_has_one(
    openai_server: FakeOpenAIServer, clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("HTTP_PROXY", f"http://127.0.0.1:{unused_port()}")
    openai_server.enqueue_text("direct")
    provider = make(openai_server, Proxy())
    try:
        assert await text_of(provider) == "direct"
    finally:
        await provider.aclose()


async def test_without_a_proxy_the_environment_still_applies(
    openai_server: FakeOpenAIServer, proxy: LoopbackProxy, clean_env: pytest.MonkeyPatch
) -> None:
    clean_env.setenv("HTTP_PROXY", proxy.url)
    openai_server.enqueue_text("env proxy")
    provider = make(openai_server, None)
    try:
        assert await text_of(provider) == "env proxy"
    finally:
        await provider.aclose()
    assert proxy.seen == [f"POST {openai_server.base_url}/chat/completions"]
