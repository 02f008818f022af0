"""The one factory of every HTTP client the app makes.

Providers, embeddings, sync targets, ``fetch_url`` and ``web_search``, MCP over HTTP
(and its OAuth sign-in), the MCP catalog, the update check and the first run's look
for local servers all get their client here, so the proxy of Preferences (or, without
one, the environment's proxy variables) and the shared TLS context reach every one of
them. ``tests/test_http_client_factory.py`` fails when a module builds a client itself.

``http``: the httpx-like module the client is for (default ``httpx``; the MCP SDK's
fork ``httpx2`` has the same API).
"""

from __future__ import annotations

import urllib.request
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

from desktop.providers.socket_io import use_backend
from desktop.providers.tls import shared_context

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

__all__ = ["USER_AGENT", "client_options", "make_async_client", "make_client"]

USER_AGENT = "AssistaDesktop/0.1"


def make_async_client(
    *,
    timeout: float | Any = 120.0,
    connect_timeout: float = 10.0,
    transport: Any = None,
    verify: bool = True,
    proxy: Proxy | None = None,
    headers: dict[str, str] | None = None,
    auth: Any = None,
    follow_redirects: bool = False,
    http: ModuleType | None = None,
    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
    network: httpcore.AsyncNetworkBackend | None = None,
) -> httpx.AsyncClient:
    """An ``AsyncClient`` with sensible timeouts.

    ``timeout`` bounds each read (the longest silence tolerated mid-stream), writes
    and waiting for a pooled connection; connecting gets ``connect_timeout`` (a
    ready-made ``Timeout`` is taken as it is). With a ``proxy`` the client goes through
    it (or directly, for its bypassed hosts) and ignores the process environment;
    without one it honours HTTP(S)_PROXY / NO_PROXY. ``transport``: for direct
    connections (those the proxy bypasses, or all of them without a proxy).
    ``wrap``: wraps its transports, the direct one and the proxy's (the request
    inspector's wire tap). Not without a ``proxy`` when the environment names one:
    httpx routes through the environment's proxies only with the transports it makes
    itself (the app always gives a proxy). ``network``: the network backend of the
    transports it makes (:mod:`~desktop.providers.socket_io`; default anyio's), with the
    same exception as ``wrap``.
    """
    module = http or httpx
    options = client_options(timeout, connect_timeout, verify, proxy, blocking=False,
                             headers=headers, follow_redirects=follow_redirects, http=module)
    if (wrap is not None or network is not None) and (
            proxy is not None or not urllib.request.getproxies()):
        mounts = options.get("mounts") or {}
        made = [transport or module.AsyncHTTPTransport(
            verify=options["verify"], limits=options["limits"], trust_env=options["trust_env"]),
            *mounts.values()]
        if network is not None:
            for each in made:
                use_backend(each, network)
        if wrap is not None:
            made = [each if each is None else wrap(each) for each in made]
        transport = made[0]
        if mounts:
            options["mounts"] = dict(zip(mounts, made[1:], strict=True))
    client: httpx.AsyncClient = module.AsyncClient(transport=transport, auth=auth, **options)
    return client


def make_client(
    *,
    timeout: float | Any = 120.0,
    connect_timeout: float = 10.0,
    verify: bool = True,
    proxy: Proxy | None = None,
    auth: httpx.Auth | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Client:
    """The blocking twin of :func:`make_async_client` (sync runs in a worker thread):
    the same timeouts, TLS, user agent and proxy routing."""
    return httpx.Client(auth=auth, **client_options(timeout, connect_timeout, verify, proxy,
                                                    blocking=True, headers=headers))


def client_options(timeout: float | Any, connect_timeout: float, verify: bool,
                   proxy: Proxy | None, *, blocking: bool,
                   headers: dict[str, str] | None = None, follow_redirects: bool = False,
                   http: ModuleType | None = None) -> dict[str, Any]:
    module = http or httpx
    routing: dict[str, Any] = {"trust_env": True}
    if proxy is not None:
        routing = proxy.client_kwargs(module, blocking=blocking)
    if not isinstance(timeout, (int, float)):  # a Timeout made by the caller
        timeouts = timeout
    else:
        timeouts = module.Timeout(timeout, connect=min(connect_timeout, timeout))
    return {
        "timeout": timeouts,
        "limits": module.Limits(max_connections=20, max_keepalive_connections=10),
        "headers": {"User-Agent": USER_AGENT, **(headers or {})},
        # (one CA bundle read per process, not one per client)
        "verify": shared_context(routing["trust_env"]) if verify else False,
        "follow_redirects": follow_redirects,
        **routing,
    }
