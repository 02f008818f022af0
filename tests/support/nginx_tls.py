"""nginx as an HTTPS front (TLS by nginx's OpenSSL, not ours or Python's) to a plain
loopback server, passing answers on as they arrive (``proxy_buffering off``), as a
TLS-terminating load balancer in front of a model server does. One process, no
daemon: it takes over a socket the test already listens on (nginx's ``NGINX``
environment variable), so no port is guessed and nothing waits for it to start.
Skips when nginx is not installed (packaging/dev.py installs it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.processes import NginxProcess
from tests.support.tls_certs import Certs

__all__ = ["NginxTLSFront", "needs_nginx"]

needs_nginx = pytest.mark.skipif(shutil.which("nginx") is None,
                                 reason="nginx is not installed (packaging/dev.py installs it)")

SERVER = """
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_buffering off;
            proxy_request_buffering off;
        }}
    }}
"""


class NginxTLSFront:
    def __init__(self, upstream: int, certs: Certs, run: Path) -> None:
        self._nginx = NginxProcess(run, SERVER, upstream=upstream, cert=certs.cert,
                                   key=certs.key)
        self.port = self._nginx.port
        self.log = self._nginx.log

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._nginx.stop()
