"""The one proxy setting, as a value handed to every HTTP client the app makes.

Clients get it explicitly (providers, model lists, ``fetch_url``, MCP over HTTP)
instead of reading proxy variables from ``os.environ``: two chats, or a test and the
app, can then use different settings in one process, and nothing global changes
when the user edits Preferences. Qt-free and httpx-free (httpx is imported by
:meth:`Proxy.mounts` only, where a client is built; the MCP SDK's fork ``httpx2``,
which has the same API, can be passed instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import httpx

ENV_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy",
                       "HTTP_PROXY", "http_proxy")
ENV_NO_PROXY_VARIABLES = ("NO_PROXY", "no_proxy")


@dataclass(frozen=True, slots=True)
class Proxy:
    """``url``: ``http://``, ``https://`` or ``socks5://`` (empty: connect directly).
    ``no_proxy``: comma-separated hosts (``localhost``, ``.example.com``, ``10.0.0.1``)
    reached directly."""

    url: str = ""
    no_proxy: str = ""

    @classmethod
    def from_settings(cls, proxy_url: str, no_proxy: str,
                      environ: Mapping[str, str] | None = None) -> Proxy:
        """The Preferences setting; when it is empty, the proxy variables the app was
        started with (``environ``), as a user of a terminal expects."""
        if proxy_url.strip():
            return cls(proxy_url.strip(), no_proxy)
        env = environ or {}
        url = next((env[n] for n in ENV_PROXY_VARIABLES if env.get(n)), "")
        hosts = next((env[n] for n in ENV_NO_PROXY_VARIABLES if env.get(n)), "")
        return cls(url.strip(), hosts)

    @property
    def enabled(self) -> bool:
        return bool(self.url)

    def bypassed_hosts(self) -> list[str]:
        return [h.strip() for h in self.no_proxy.split(",") if h.strip()]

    def mounts(self, http: ModuleType | None = None, *, blocking: bool = False) -> dict[str, Any]:
        """``httpx`` client ``mounts``: every request through the proxy except those to
        the bypassed hosts (give the client ``trust_env=False``). ``http``: the
        httpx-like module whose client these are for (default ``httpx``); ``blocking``:
        for an ``httpx.Client`` (sync's worker thread) instead of an ``AsyncClient``."""
        if http is None:
            http = httpx

        if not self.enabled:
            return {}
        mounts: dict[str, Any] = {}
        for host in self.bypassed_hosts():
            if host == "*":
                return {}
            pattern = host.lstrip(".")
            if host.startswith("."):
                pattern = f"*.{pattern}"
            if ":" in pattern and not pattern.startswith("["):
                pattern = f"[{pattern}]"  # an IPv6 address
            mounts[f"all://{pattern}"] = None
        transport = http.HTTPTransport if blocking else http.AsyncHTTPTransport
        mounts["all://"] = transport(proxy=self.url)
        return mounts

    def client_kwargs(self, http: ModuleType | None = None, *,
                      blocking: bool = False) -> dict[str, Any]:
        """Keyword arguments for ``httpx.AsyncClient`` (or ``http.AsyncClient``; with
        ``blocking``, ``httpx.Client``): the proxy, and never the process environment."""
        return {"mounts": self.mounts(http, blocking=blocking), "trust_env": False}

    def __repr__(self) -> str:  # a proxy URL may carry a password
        return f"Proxy(enabled={self.enabled}, bypass={len(self.bypassed_hosts())})"


def describe(proxy: Proxy | None) -> str:
    return "direct" if proxy is None or not proxy.enabled else "through the proxy"


__all__ = ["Proxy", "describe"]
