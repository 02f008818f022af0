"""Opening the SDK's transport for one connection attempt: a stdio process, or
Streamable HTTP / SSE through the app's proxy and, when the server asks for it,
OAuth sign-in (see :mod:`.oauth`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from desktop.core.proxy import Proxy
from desktop.providers.http_clients import make_async_client
from desktop.tools.mcp.config import McpServerConfig
from desktop.tools.mcp.http_limits import ANSWER_LIMIT, SDK_SSE_EVENT_LIMIT, MessageLimit
from desktop.tools.mcp.oauth import SignIn
from desktop.tools.mcp.stderr import StderrLog
from desktop.tools.mcp.streams import WatchedRead, stdio_streams


class HttpClients:
    """The SDK's client factory (its signature), routed through ``proxy`` (None:
    httpx2's defaults, which read the environment's proxy variables); every message
    read is capped by ``limit`` (see :mod:`.http_limits`)."""

    def __init__(self, proxy: Proxy | None, limit: MessageLimit | None = None) -> None:
        self.proxy = proxy
        self.limit = limit or MessageLimit()

    def __call__(self, headers: dict[str, str] | None = None,
                 timeout: httpx2.Timeout | None = None,
                 auth: httpx2.Auth | None = None) -> httpx2.AsyncClient:
        # The SDK's defaults: a server may hold a response stream open for minutes.
        timeout = timeout or httpx2.Timeout(30.0, read=300.0)
        # Uncompressed: the limit then bounds what is held in memory.
        headers = {"Accept-Encoding": "identity", **(headers or {})}
        client = cast("httpx2.AsyncClient", make_async_client(
            http=httpx2, headers=headers, timeout=timeout, auth=auth, proxy=self.proxy))
        client.event_hooks = {"response": [self.limit]}
        return client


@contextlib.asynccontextmanager
async def open_transport(config: McpServerConfig, *, path: str, stderr: StderrLog,
                         proxy: Proxy | None, sign_in: SignIn | None,
                         on_end: Callable[[], None]) -> AsyncIterator[Any]:
    """``(read, write)`` streams for ``config``; ``on_end`` is called when the read
    stream ends (the server went away)."""
    if config.transport == "stdio":
        async with stdio_streams(config, path, stderr) as (read, write):
            yield WatchedRead(read, on_end), write
        return
    if config.transport == "http":
        clients = HttpClients(proxy, MessageLimit(ANSWER_LIMIT))
    else:  # the SDK's legacy SSE client reads no event over its own limit: cut below it
        clients = HttpClients(proxy, MessageLimit(min(ANSWER_LIMIT, SDK_SSE_EVENT_LIMIT - 4096),
                                                  event_room=SDK_SSE_EVENT_LIMIT))
    async with contextlib.AsyncExitStack() as stack:
        auth = await stack.enter_async_context(sign_in.auth()) if sign_in is not None else None
        if config.transport == "http":
            http = await stack.enter_async_context(clients(config.headers, auth=auth))
            read, write = await stack.enter_async_context(
                streamable_http_client(config.url, http_client=http,
                                       max_sse_event_size=2 * ANSWER_LIMIT))  # (ours cuts first)
        else:
            read, write = await stack.enter_async_context(
                sse_client(config.url, headers=config.headers, httpx_client_factory=clients,
                           auth=auth))
        yield WatchedRead(read, on_end), write
