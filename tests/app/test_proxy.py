"""The proxy setting reaches every HTTP client the app makes, through a real loopback
proxy: provider requests and model lists, ``fetch_url``, and MCP servers over
Streamable HTTP and SSE. Set, they go through it; unset, they do not; changed in
Preferences, the next request follows. ``os.environ`` is never written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.app import AppContext
from desktop.core.events import TextDelta
from desktop.core.messages import Message, ToolCallPart
from desktop.core.provider import ChatRequest
from desktop.core.proxy import Proxy
from desktop.core.settings import ProviderConfig
from desktop.tools.approval import allow_all
from desktop.tools.mcp import LoginPath, McpManager, McpServerConfig
from tests.support.async_proxy import StreamingProxy
from tests.support.openai_server import FakeOpenAIServer

MCP_SERVER = str(Path(__file__).parents[1] / "tools" / "mcp_test_server.py")


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}


@pytest.fixture(autouse=True)
def _environment_untouched() -> Iterator[None]:
    before = _environment()
    yield
    assert _environment() == before


@pytest.fixture
def proxy() -> Iterator[StreamingProxy]:
    with StreamingProxy() as running:
        yield running


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[AppContext]:
    # No proxy variables: only the setting decides (the environment case is below).
    context = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    yield context
    context.close()


def through(proxy: StreamingProxy, path: str) -> list[str]:
    return [line for line in proxy.seen if line.endswith(path)]


def use_proxy(ctx: AppContext, proxy: StreamingProxy) -> None:
    # The default no-proxy list holds 127.0.0.1, where the test servers are.
    ctx.settings.update(proxy_url=proxy.url, no_proxy="")


async def ask(ctx: AppContext, server: FakeOpenAIServer) -> tuple[list[str], str]:
    server.enqueue_text("hello")
    provider = ctx.build_provider(ProviderConfig(name="P", base_url=server.base_url,
                                                 model="m1"))
    try:
        models = [m.id for m in await provider.list_models()]
        request = ChatRequest(model="m1", messages=[Message.user("x")])
        text = "".join([e.text async for e in provider.stream(request)
                        if isinstance(e, TextDelta)])
    finally:
        await provider.aclose()
    return models, text


async def test_provider_requests_follow_the_setting(
    ctx: AppContext, proxy: StreamingProxy
) -> None:
    with FakeOpenAIServer(models=["m1"]) as server:
        assert await ask(ctx, server) == (["m1"], "hello")
        assert proxy.seen == []  # unset: direct

        use_proxy(ctx, proxy)  # the next request follows, no restart
        assert await ask(ctx, server) == (["m1"], "hello")
        assert through(proxy, "/v1/models") == [f"GET {server.base_url}/models"]
        assert through(proxy, "/v1/chat/completions") == [
            f"POST {server.base_url}/chat/completions"]

        ctx.settings.update(proxy_url="")
        await ask(ctx, server)
        assert len(proxy.seen) == 2  # cleared: direct again


async def test_the_model_list_refresh_goes_through_it(
    ctx: AppContext, proxy: StreamingProxy
) -> None:
    use_proxy(ctx, proxy)
    with FakeOpenAIServer(models=["a", "b"]) as server:
        config = ProviderConfig(name="P", base_url=server.base_url)
        assert [m.id for m in await ctx.providers.refresh_models(config)] == ["a", "b"]
        assert through(proxy, "/v1/models") == [f"GET {server.base_url}/models"]


async def test_start_environment_proxy_applies_when_the_setting_is_empty(
    tmp_path: Path, proxy: StreamingProxy
) -> None:
    ctx = AppContext.open(tmp_path, environ={"HTTPS_PROXY": proxy.url, "NO_PROXY": ""},
                          log_to_stderr=False)
    try:
        with FakeOpenAIServer(models=["m1"]) as server:
            assert await ask(ctx, server) == (["m1"], "hello")
        assert len(proxy.seen) == 2
    finally:
        ctx.close()


async def fetch(ctx: AppContext, url: str) -> dict[str, Any]:
    runner = ctx.build_tools(None, ["fetch_url"], approver=allow_all)
    part = await runner.run(ToolCallPart(id="f", name="fetch_url",
                                         arguments=json.dumps({"url": url})))
    result: dict[str, Any] = json.loads(part.content)
    return result


async def test_fetch_url_follows_the_setting(ctx: AppContext, proxy: StreamingProxy) -> None:
    with FakeOpenAIServer(models=["m1"]) as server:
        page = f"{server.base_url}/models"
        assert (await fetch(ctx, page))["error"]["code"] == "blocked_address"
        ctx.settings.update(fetch_allow_hosts=["127.0.0.1"])  # the user's allow-list
        assert "m1" in (await fetch(ctx, page))["result"]["text"]
        assert proxy.seen == []
        use_proxy(ctx, proxy)
        assert "m1" in (await fetch(ctx, page))["result"]["text"]
    assert proxy.seen == [f"GET {page}"]


class McpHttpServer:
    """tests/tools/mcp_test_server.py serving Streamable HTTP or SSE on 127.0.0.1."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.process = subprocess.Popen([sys.executable, MCP_SERVER, kind],
                                        env=dict(os.environ, MCP_TEST_PORT="0"),
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())  # printed once it listens

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/" + ("mcp" if self.kind == "http" else "sse")

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


async def call_mcp(url: str, kind: str, proxy: Proxy) -> str:
    config = McpServerConfig(name="web", transport=kind, url=url, startup_timeout_s=30,
                             call_timeout_s=30)
    manager = McpManager([config], login_path=LoginPath(environ={}), proxy=proxy,
                         max_failures=0)
    try:
        assert await manager.start_all() == {"web": True}
        from desktop.tools import ToolExecutor

        executor = ToolExecutor(manager.registry(), None, approver=allow_all)
        part = await executor.run(ToolCallPart(id="m", name="web__add",
                                               arguments=json.dumps({"a": 2, "b": 3})))
        text: str = json.loads(part.content)["result"]["text"]
        return text
    finally:
        await manager.stop_all()


@pytest.mark.parametrize("kind", ["http", "sse"])
async def test_mcp_over_http_follows_the_setting(
    ctx: AppContext, proxy: StreamingProxy, kind: str
) -> None:
    server = McpHttpServer(kind)
    try:
        assert await call_mcp(server.url, kind, ctx.proxy) == "5"
        assert proxy.seen == []
        use_proxy(ctx, proxy)
        assert await call_mcp(server.url, kind, ctx.proxy) == "5"
    finally:
        server.close()
    endpoint = f"http://127.0.0.1:{server.port}/"
    assert proxy.seen and all(line.split(" ", 1)[1].startswith(endpoint)
                              for line in proxy.seen)
    assert any(line.startswith("POST ") for line in proxy.seen)  # the calls themselves


def test_a_socks_or_https_setting_is_handed_over_as_is(ctx: AppContext) -> None:
    ctx.settings.update(proxy_url=" socks5://127.0.0.1:1080 ", no_proxy="localhost")
    assert ctx.proxy == Proxy("socks5://127.0.0.1:1080", "localhost")
    ctx.settings.update(proxy_url="")
    assert ctx.proxy == Proxy()


async def test_the_test_proxy_tunnels_connect(proxy: StreamingProxy) -> None:
    """What an https URL would use (the fake servers are plain http)."""
    import asyncio

    with FakeOpenAIServer(models=["m1"]) as server:
        target = server.base_url.split("//", 1)[1].split("/", 1)[0]
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        writer.write(f"GET /v1/models HTTP/1.1\r\nHost: {target}\r\n"
                     "Connection: close\r\n\r\n".encode())
        answer = await reader.read()
        writer.close()
    assert answer.startswith(b"HTTP/1.") and b"m1" in answer
    assert proxy.seen == [f"CONNECT {target}"]
