"""pproxy (a proxy server we did not write: SOCKS5, HTTP CONNECT, and either over
TLS) on 127.0.0.1, on its own asyncio loop in a thread, its port chosen by the system::

    with PProxy("socks5") as proxy:
        ... a client configured with proxy.url ...
    with PProxy("http+ssl", certs) as proxy:     # an HTTPS proxy: TLS to the proxy
        ...
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pproxy

from tests.support.tls_certs import Certs

__all__ = ["PProxy"]


class PProxy:
    def __init__(self, scheme: str, certs: Certs | None = None) -> None:
        self.scheme = scheme
        self.certs = certs
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._server: Any = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="pproxy",
                                        daemon=True)

    @property
    def url(self) -> str:
        kind = "socks5" if self.scheme.startswith("socks5") else "http"
        return f"{kind}{'s' if 'ssl' in self.scheme and kind == 'http' else ''}" \
            f"://127.0.0.1:{self.port}"

    async def _start(self) -> None:
        server = pproxy.Server(f"{self.scheme}://127.0.0.1:0")
        if self.certs is not None and server.sslserver is not None:
            server.sslserver.load_cert_chain(self.certs.cert, self.certs.key)
        self._server = await server.start_server({"rserver": [], "verbose": lambda *_: None})
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def _stop(self) -> None:
        self._server.close()
        await self._server.wait_closed()

    def __enter__(self) -> PProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()
